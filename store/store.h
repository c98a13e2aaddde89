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

/* The schema this release writes (store/schema.c: its migrations and
 * the table of releases, to be extended together). */
#define STORE_SCHEMA_VERSION	7
#define STORE_DESC_LEN		64	/* NodeDescription, IBA 14.2.5.2 */
#define STORE_PATH_MAX		64	/* IB_SUBNET_PATH_HOPS_MAX */
#define STORE_SMP_LEN		64	/* an SMP's data, IBA 14.2.1.1 */

/* IBA 14.2.5.3 NodeInfo:NodeType */
enum store_node_type {
	STORE_NODE_CA = 1, STORE_NODE_SWITCH = 2, STORE_NODE_ROUTER = 3
};

/* A directed route: hop[0] is unused (always 0), hop[1..cnt] are the
 * output ports, as in ib_dr_path_t and smpquery -D "0,1,3". */
struct store_path {
	uint8_t	cnt;
	uint8_t	hop[STORE_PATH_MAX];
};

struct store_port {
	uint8_t			 num;
	uint8_t			 valid;		/* PortInfo was read */
	uint64_t		 guid;
	uint16_t		 lid;
	uint8_t			 lmc;
	uint8_t			 state;		/* PortInfo:PortState */
	uint8_t			 phys_state;	/* PortInfo:PortPhysicalState */
	uint8_t			 width;		/* LinkWidthActive */
	uint8_t			 speed;		/* LinkSpeedActive, or 0x80 | LinkSpeedExtActive */
	uint64_t		 remote_guid;	/* 0 if not linked */
	uint8_t			 remote_port;
	struct store_path	 route;		/* cnt 0 and hop[0] 0xff: none */
	/* The sweep's PortInfo as read, so a fabric walk (IB-SM-MIB)
	 * decodes every field without a MAD. */
	uint8_t			 pinfo_ok;
	uint8_t			 pinfo[STORE_SMP_LEN];
};

/* IB SNMP Tunneling (proxy/tunnel.c): the node's agent as last probed. */
enum store_tun {
	STORE_TUN_UNKNOWN = 0,	/* never probed */
	STORE_TUN_OK = 1,	/* answered ClassPortInfo */
	STORE_TUN_NONE = 2,	/* did not */
};

struct store_node {
	/* What a fabric walk reads of every node first, in one cache
	 * line: the IB-SM-MIB tables visit 10,000 nodes per column. */
	uint32_t		 idx;		/* stable index, cache keys */
	uint64_t		 guid;
	uint8_t			 type;
	uint8_t			 num_ports;
	/* The sweep's NodeInfo and (switches) SwitchInfo were read. */
	uint8_t			 ninfo_ok, sinfo_ok;
	int			 reachable;
	uint16_t		 lid;		/* base LID (port 0 or entry port) */
	/* ports[0..num_ports]; ports[0] is the switch management port. */
	struct store_port	*ports;
	char			*alias;
	unsigned		 unsupported;	/* attr_def.unsup bits: optional
						   attributes the node lacks */
	char			 desc[STORE_DESC_LEN + 1];
	uint32_t		 vendor_id;
	uint16_t		 device_id;
	uint32_t		 revision;
	uint64_t		 system_guid;
	int64_t			 first_seen, last_seen;	/* unix seconds */
	struct store_path	 route;
	uint8_t			 ninfo[STORE_SMP_LEN];
	uint8_t			 sinfo[STORE_SMP_LEN];
	uint8_t			 tunnel;	/* enum store_tun */
	int64_t			 tunnel_probed;	/* unix seconds; 0: never */
	/* What the database holds of it (store.c: a sweep that reads the
	 * same writes only last_seen); 0: unknown, written next sweep. */
	uint64_t		 disk_row, disk_ports;
	int64_t			 disk_seen;
};

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

/* "node 0xGUID (name)" for log lines: the alias, else the
 * NodeDescription. Four calls may share one log line. */
const char	*store_node_ident(const struct store_node *n);
const char	*store_node_ident_idx(uint32_t idx);

/* Parse helpers (exposed for unit tests). Return 0 on success. */
int	 store_parse_guid(const char *s, size_t len, uint64_t *guid);
int	 store_parse_lid(const char *s, size_t len, uint16_t *lid);
int	 store_path_parse(const char *s, struct store_path *p);
void	 store_path_format(const struct store_path *p, char *buf, size_t len);
int	 store_path_eq(const struct store_path *a, const struct store_path *b);
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
