/* store: the fabric inventory.
 *
 * SQLite (WAL, versioned schema) is the durable copy; an in-memory
 * mirror with hash indexes answers per-request lookups, so resolving a
 * node name costs the same at 10 nodes and at 10,000. Nodes are never
 * deleted: a node that disappears is kept and marked unreachable. */
#ifndef IBSNMPGW_STORE_H
#define IBSNMPGW_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store/node.h"
#include "store/schema.h"

/* Open (create, migrate) the database. Errors go to the log. */
int	 store_init(const char *path);
void	 store_finalise(void);

/* The open database, for modules that keep their own tables
 * (counters); NULL if none. */
void	*store_db_handle(void);

/* Schema version of an open database handle (tests, -n checks). */
int	 store_schema_version(void);
/* What the open database records about the releases that opened it
 * (ctl stats); zeros if none is open. */
struct store_info;
void	 store_info(struct store_info *info);

/* Load a node-name-map (infiniband-diags format: GUID "name"). Bad
 * lines are reported as file:line and skipped. Returns the number of
 * aliases, or -1 if the file cannot be read. */
int	 store_load_name_map(const char *path);

/* Inventory lookups. */
size_t			 store_node_count(void);
/* Changes when a node is made, at every sweep and when a port is read
 * between sweeps (store.c says what it does not follow). */
uint64_t		 store_generation(void);
struct store_node	*store_node_at(uint32_t idx);
struct store_node	*store_node_by_guid(uint64_t guid);
struct store_node	*store_node_by_lid(uint16_t lid);
struct store_node	*store_node_by_alias(const char *name);
/* Resolve a node name as used in contexts and communities: an alias
 * (exact), "lid-N", a node GUID with or without 0x, a whole
 * NodeDescription, or its first word (store/descname.c). Returns NULL
 * for anything else, an ambiguous description name, and strings with
 * NUL or '@'. */
struct store_node	*store_node_resolve(const char *name, size_t len);
/* The names n's description gives it, quoted, each marked when it
 * resolves to no node or to another one (ctl). */
const char	*store_descname_names(const struct store_node *n, char *buf,
		    size_t size);

/* store_node_ident (store/node.h) of the node at idx. */
const char	*store_node_ident_idx(uint32_t idx);
/* A PortInfo reading (IBA 14.2.5.6, decoded as pi) into an inventory
 * port: state, widths, speeds, LID and the attribute as read. Route and
 * link are the caller's. */
struct smp_portinfo;
void	 store_port_fill(struct store_port *pt, const uint8_t *data,
	    const struct smp_portinfo *pi);

/* Remember that a node does not support an optional attribute (its
 * attr_def.unsup bit; cleared when the node's revision changes). */
void	 store_node_set_unsupported(uint32_t idx, unsigned flag);
void	 store_node_clear_unsupported(uint32_t idx);
/* Record a tunnel probe's outcome (memory and database). */
void	 store_node_set_tunnel(uint32_t idx, enum store_tun state,
	    int64_t when);

/* Sweeps. A sweep reports every node it saw; store_sweep_end()
 * marks the rest unreachable and writes everything in one transaction. */
void	 store_sweep_begin(void);
/* Add or update a node seen in this sweep. ports is num_ports+1 long. */
struct store_node *store_sweep_node(const struct store_node *seen,
	    const struct store_port *ports);
int	 store_sweep_end(unsigned *nodes, unsigned *lost);
/* Between sweeps (proxy/reread.c): port p of n replaced, its LIDs
 * indexed again; then store_node_save(). */
void	 store_node_port_set(struct store_node *n, uint8_t p,
	    const struct store_port *pt);
/* Write one node and its ports as they are in memory now (a change
 * followed between sweeps). 0, or -1 (logged). */
int	 store_node_save(struct store_node *n);

/* Subnet managers: the SMInfo (IBA 14.2.5.13) the last finished sweep
 * read (proxy/discover.c: the master SM's port). Kept in memory only:
 * the next sweep reads it again. */
struct store_sm {
	uint64_t	node_guid;
	uint64_t	port_guid;	/* SMInfo:GUID is the same */
	uint8_t		port;
	uint8_t		sminfo[STORE_SMP_LEN];
};
/* During a sweep: one SM seen (replaces an earlier one of the port). */
void	 store_sweep_sm(const struct store_sm *sm);
/* The SMs of the last finished sweep, in port GUID order. */
size_t			 store_sm_count(void);
const struct store_sm	*store_sm_at(size_t i);

#endif
