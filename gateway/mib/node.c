/* gw_node: node and port accessors shared by the table files. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>

#include "codec/perf.h"
#include "codec/smp.h"
#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"
#include "store/counters.h"

int
gw_is_switch(const struct store_node *n)
{
	return n->type == STORE_NODE_SWITCH;
}

uint8_t
gw_route_port(const struct store_node *n, uint32_t port)
{
	return n->type == STORE_NODE_SWITCH || port > 254 ? 0 : (uint8_t)port;
}

int
gw_port_reachable(const struct store_node *n, uint32_t port)
{
	return n->type == STORE_NODE_SWITCH || (port >= 1 &&
	    port <= n->num_ports && n->ports[port].route.hop[0] != 0xff);
}

uint32_t
gw_mgmt_port(const struct store_node *n)
{
	uint32_t p;

	/* A CA or router: its lowest reachable port (see discovery). */
	if (n->type == STORE_NODE_SWITCH)
		return 0;
	for (p = 1; p <= n->num_ports; p++)
		if (n->ports[p].route.hop[0] != 0xff)
			return p;
	return 1;
}

int
gw_nodeinfo(struct gw_eval *e, struct smp_nodeinfo *ni)
{
	return gw_decode(e, ATTR_NODE_INFO, 0, 0, ni);
}

int
gw_switchinfo(struct gw_eval *e, struct smp_switchinfo *si)
{
	return gw_decode(e, ATTR_SWITCH_INFO, 0, 0, si);
}

int
gw_portinfo(struct gw_eval *e, uint32_t port, struct smp_portinfo *pi)
{
	return gw_decode(e, ATTR_PORT_INFO, port,
	    gw_route_port(gw_node(e), port), pi);
}

int
gw_data_ports(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return gw_row_range(lb, incl, 1, gw_node(e)->num_ports, out);
}

int
gw_inst_row_port(struct gw_eval *e, const struct gw_row *row, uint32_t *mod,
    uint8_t *port)
{
	*mod = row->i[0];
	*port = gw_route_port(gw_node(e), row->i[0]);
	return 0;
}

int
gw_inst_mgmt_port(struct gw_eval *e, const struct gw_row *row, uint32_t *mod,
    uint8_t *port)
{
	*mod = gw_mgmt_port(gw_node(e));
	*port = gw_route_port(gw_node(e), *mod);
	return 0;
}

const uint8_t *
gw_perf_attr(struct gw_eval *e, enum attr_idx a, uint32_t port)
{
	return gw_attr(e, a, port, gw_route_port(gw_node(e), port));
}

const uint8_t *
gw_perf_attr_opt(struct gw_eval *e, enum attr_idx a, uint32_t port,
    int *unsupported)
{
	return gw_attr_opt(e, a, port, gw_route_port(gw_node(e), port),
	    unsupported);
}

/* A port whose PortCounters cannot be read now (err): its counters as
 * last read, zeros if the PMA refused it and it never was read, else
 * the node's failure (docs/errors.md). Returns 0 or GW_NEED. */
static int
port_unreadable(struct gw_eval *e, uint32_t port, int err,
    const struct ctr_port **pp)
{
	const struct store_node *n = gw_node(e);
	const struct ctr_port *p = counters_port(n->idx, (uint8_t)port);

	if (counters_port_read(p)) {
		gw_degraded_add(n->idx, offsetof(struct gw_degraded, stale));
		*pp = p;
		return 0;
	}
	if (gw_err_refused(err) &&
	    (p = counters_placeholder(n->idx, (uint8_t)port)) != NULL) {
		gw_degraded_add(n->idx, offsetof(struct gw_degraded, zero));
		*pp = p;
		return 0;
	}
	gw_fail(e, err);
	return GW_NEED;
}

int
gw_port_ctrs(struct gw_eval *e, uint32_t port, int ext,
    const struct ctr_port **pp)
{
	const struct store_node *n = gw_node(e);
	uint8_t rp = gw_route_port(n, port);
	const struct ctr_port *cp = counters_port(n->idx, (uint8_t)port);
	int err;

	/* Error counters and PortXmitWait fed from PortCountersExtended's
	 * 64-bit copies: that one is read too. */
	if (cp != NULL && cp->ext_src)
		ext = 1;
	*pp = NULL;
	if (gw_attr_try(e, ATTR_PORT_COUNTERS, port, rp, &err) == NULL &&
	    !err)
		return GW_NEED;
	if (!err && ext && gw_attr_try(e, ATTR_PORT_COUNTERS_EXT, port, rp,
	    &err) == NULL && !err)
		return GW_NEED;
	if (err)
		return port_unreadable(e, port, err, pp) == 0 ? GW_STALE :
		    GW_NEED;
	if ((*pp = counters_port(n->idx, (uint8_t)port)) == NULL)
		return GW_NEED;
	return 0;
}

static const char *
type_name(uint8_t t)
{
	switch (t) {
	case STORE_NODE_CA: return "channel adapter";
	case STORE_NODE_SWITCH: return "switch";
	case STORE_NODE_ROUTER: return "router";
	}
	return "node";
}

static size_t
clamp_len(int len, size_t size)
{
	if (len < 0)
		return 0;
	return (size_t)len >= size ? size - 1 : (size_t)len;
}

size_t
gw_node_sysdescr(const struct store_node *n, char *buf, size_t len)
{
	return clamp_len(snprintf(buf, len, "InfiniBand %s, vendor 0x%06x, "
	    "device 0x%04x, revision 0x%08x: %s", type_name(n->type),
	    n->vendor_id, n->device_id, n->revision, n->desc), len);
}

size_t
gw_node_objid(const struct store_node *n, oid *o, size_t max)
{
	size_t k;

	if (max < 2 || (k = gw_mib_sys_base(o, max - 2)) == 0)
		return 0;
	o[k++] = GW_OID_ibsnmpgwNodeTypes;
	o[k++] = n->type;
	return k;
}

size_t
gw_port_ifname(uint32_t port, char *buf, size_t len)
{
	return clamp_len(snprintf(buf, len, "port%u", port), len);
}

/* Fabric-context rows, one per inventory node the requester may see
 * (index = inventory index + 1, stable across restarts). */
int
gw_inventory_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	uint64_t i = (uint64_t)lb->i[0] + (incl ? 0 : 1);
	size_t count = store_node_count();

	if (i == 0)
		i = 1;
	for (; i <= count; i++) {
		const struct store_node *n = store_node_at((uint32_t)i - 1);

		if (n != NULL && gw_visible(e, n)) {
			memset(out, 0, sizeof(*out));
			out->i[0] = (uint32_t)i;
			return 1;
		}
	}
	return 0;
}

const struct store_node *
gw_inventory_row_node(const struct gw_row *row)
{
	return row->i[0] == 0 ? NULL : store_node_at(row->i[0] - 1);
}
