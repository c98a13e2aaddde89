/* gw_node: the node and port accessors the node-context table files
 * share (ib_sma_mib*.c, if_mib.c, ib_if_mib.c, ibsnmpgw_mib_ports.c).
 * Table files import the engine's API and their folder's headers,
 * never each other's code (tests/layers/check.sh). */
#ifndef IBSNMPGW_GW_MIB_NODE_H
#define IBSNMPGW_GW_MIB_NODE_H

#include "codec/smp.h"
#include "gateway/mib.h"
#include "store/counters.h"

int	 gw_is_switch(const struct store_node *n);
/* The cache key port for a port attribute (see proxy/fetch.c): switch
 * attributes go to the switch, a CA's through the port itself. */
uint8_t	 gw_route_port(const struct store_node *n, uint32_t port);
/* Whether port attributes of this port can be read (a CA port needs
 * its own route). */
int	 gw_port_reachable(const struct store_node *n, uint32_t port);
/* Port 0 of a switch; the port a CA or router is reached through. */
uint32_t gw_mgmt_port(const struct store_node *n);

/* Decoded attributes: 0, GW_NEED or GW_BAD. */
int	 gw_nodeinfo(struct gw_eval *e, struct smp_nodeinfo *ni);
int	 gw_switchinfo(struct gw_eval *e, struct smp_switchinfo *si);
int	 gw_portinfo(struct gw_eval *e, uint32_t port, struct smp_portinfo *pi);

/* Rows: data ports 1..NumPorts (IbDataPort). */
int	 gw_data_ports(struct gw_eval *e, const struct gw_row *lb, int incl,
	    struct gw_row *out);
/* Field instances (gw_table.inst): PortInfo of the row's port, of the
 * management port. */
int	 gw_inst_row_port(struct gw_eval *e, const struct gw_row *row,
	    uint32_t *mod, uint8_t *port);
int	 gw_inst_mgmt_port(struct gw_eval *e, const struct gw_row *row,
	    uint32_t *mod, uint8_t *port);

/* A PerfMgt attribute of a port's PMA (a switch's through port 0). */
const uint8_t	*gw_perf_attr(struct gw_eval *e, enum attr_idx a,
		    uint32_t port);
const uint8_t	*gw_perf_attr_opt(struct gw_eval *e, enum attr_idx a,
		    uint32_t port, int *unsupported);

/* What a node's system group says of it, from the inventory (no MAD),
 * shared with LLDP-MIB's local and remote system columns: sysDescr
 * (returns its length), sysObjectID BASE.1.T (returns its length, 0 if
 * max is too short), and ifName of a port. */
size_t	 gw_node_sysdescr(const struct store_node *n, char *buf, size_t len);
size_t	 gw_node_objid(const struct store_node *n, oid *o, size_t max);
size_t	 gw_port_ifname(uint32_t port, char *buf, size_t len);

/* Fabric-context rows: one per inventory node the requester may see,
 * index = inventory index + 1 (ibsnmpgwNodeIndex); a row's node. Rows
 * come only from gw_inventory_rows, which checked visibility. */
int	 gw_inventory_rows(struct gw_eval *e, const struct gw_row *lb,
	    int incl, struct gw_row *out);
const struct store_node *gw_inventory_row_node(const struct gw_row *row);

/* Draft 3.4's octet terms (docs/counters.md): packet overhead (start
 * and end delimiters, VCRC) and a link flow control packet. */
#define GW_IF_POH	4
#define GW_IF_SLP	8

/* A port's accumulators (*pp): 0 when PortCounters (and, with ext,
 * PortCountersExtended) are fresh; GW_STALE when the port cannot be
 * read now and *pp holds what was read before, or zeros for a port the
 * PMA refuses and that never was read; GW_NEED while they are read or
 * when the node itself fails (docs/errors.md). */
#define GW_STALE	1
int	 gw_port_ctrs(struct gw_eval *e, uint32_t port, int ext,
	    const struct ctr_port **pp);

#endif
