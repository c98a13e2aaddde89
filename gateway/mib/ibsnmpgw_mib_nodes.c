/* IBSNMPGW-MIB ibsnmpgwNodeTable in the fabric context: one row per
 * inventory node with the context name that reaches it and how well
 * the gateway collects from it (the per-device status an NMS needs to
 * create its hosts). Rows come from the inventory alone: no MADs. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"
#include "proxy/discover.h"
#include "proxy/health.h"
#include "proxy/mad.h"
#include "proxy/poller.h"
#include "util/ev.h"

enum {
	NODE_OK = 1, NODE_UNREACHABLE, NODE_HELD, NODE_MKEY_REFUSED,
	NODE_STALE
};


static int
nt_context(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);
	char buf[GW_CONTEXT_LEN];

	if (n == NULL)
		return GW_ABSENT;
	gw_context_name(n, buf, sizeof(buf));
	return gw_val_octets(v, buf, strlen(buf));
}

static int
nt_guid(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);

	return n ? gw_val_guid(v, n->guid) : GW_ABSENT;
}

static int
nt_type(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);

	if (n == NULL)
		return GW_ABSENT;
	return gw_val_int_in(v, n->type, STORE_NODE_CA, STORE_NODE_ROUTER);
}

static int
nt_desc(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);

	return n ? gw_val_octets(v, n->desc, strlen(n->desc)) : GW_ABSENT;
}

static int
nt_lid(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);

	return n ? gw_val_uint(v, n->lid) : GW_ABSENT;
}

static long
node_state(const struct store_node *n)
{
	struct proxy_health_info hi;

	if (!n->reachable)
		return NODE_UNREACHABLE;
	proxy_health_get(n->idx, &hi);
	if (hi.state == HEALTH_BAD_MKEY || hi.mkey_mismatch)
		return NODE_MKEY_REFUSED;
	if (hi.state == HEALTH_SILENT)
		return NODE_HELD;
	if (ev_wall() - n->last_seen > 2 * (int64_t)proxy_discover_period())
		return NODE_STALE;
	return NODE_OK;
}

static int
nt_state(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);

	return n ? gw_val_int(v, node_state(n)) : GW_ABSENT;
}

/* ibsnmpgwNodeHeldWays (arg 0) and ibsnmpgwNodeAnsweringWays (1):
 * BITS, whose named bit n is octet 0's bit 7 - n (RFC 2578 7.1.4), and
 * a way w is HEALTH_WAY_BIT(w) (proxy/health.h), numbered as the MIB's
 * bits. Nothing while the node is not on hold. */
static int
nt_ways(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);
	struct proxy_health_info hi;
	unsigned mask;
	uint8_t b = 0;

	if (n == NULL)
		return GW_ABSENT;
	proxy_health_get(n->idx, &hi);
	mask = hi.state == HEALTH_OK ? 0 : gw_column(e)->arg ? hi.good :
	    hi.held;
	for (unsigned w = 0; w < 8; w++)
		if (mask & HEALTH_WAY_BIT(w))
			b |= (uint8_t)(0x80 >> w);
	return gw_val_octets(v, &b, 1);
}

/* Unix seconds as Unsigned32 (0 for none or before 1970). */
static int
val_time(struct gw_val *v, int64_t t)
{
	return gw_val_uint(v, t > 0 && t <= 0xffffffffLL ?
	    (unsigned long)t : 0);
}

static int
nt_seen(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);

	if (n == NULL)
		return GW_ABSENT;
	return val_time(v, gw_column(e)->arg ? n->last_seen : n->first_seen);
}

static int
nt_mads(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);
	struct proxy_mad_node_stats st;

	if (n == NULL)
		return GW_ABSENT;
	(void)proxy_mad_node_stats(n->guid, &st);	/* zero if none */
	switch (gw_column(e)->arg) {
	case 0: return gw_val_counter64(v, st.sent);
	case 1: return gw_val_counter64(v, st.timeouts);
	default: return gw_val_counter64(v, st.errors);
	}
}

static int
nt_poll(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);
	int64_t when = 0;
	uint64_t ms = 0;

	if (n == NULL)
		return GW_ABSENT;
	(void)proxy_poll_last(n->idx, &when, &ms);
	return gw_column(e)->arg == 0 ? val_time(v, when) :
	    gw_val_gauge(v, ms);
}

static const struct gw_col node_cols[] = {
	GW_GET(ibsnmpgwNodeContext, nt_context),
	GW_GET(ibsnmpgwNodeGuid, nt_guid),
	GW_GET(ibsnmpgwNodeType, nt_type),
	GW_GET(ibsnmpgwNodeDescription, nt_desc),
	GW_GET(ibsnmpgwNodeLid, nt_lid),
	GW_GET(ibsnmpgwNodeState, nt_state),
	GW_GETA(ibsnmpgwNodeFirstSeen, nt_seen, 0),
	GW_GETA(ibsnmpgwNodeLastSeen, nt_seen, 1),
	GW_GETA(ibsnmpgwNodeMadSent, nt_mads, 0),
	GW_GETA(ibsnmpgwNodeMadTimeouts, nt_mads, 1),
	GW_GETA(ibsnmpgwNodeMadErrors, nt_mads, 2),
	GW_GETA(ibsnmpgwNodeLastPoll, nt_poll, 0),
	GW_GETA(ibsnmpgwNodePollDuration, nt_poll, 1),
	GW_GETA(ibsnmpgwNodeHeldWays, nt_ways, 0),
	GW_GETA(ibsnmpgwNodeAnsweringWays, nt_ways, 1),
};

static const struct gw_table node_table = {
	.name = "ibsnmpgwNodeTable",
	.GW_OID(GW_OID_ibsnmpgwNodeEntry),
	.under_sys_base = 1,
	.nindex = 1,
	.GW_COLS(node_cols),
	.row_next = gw_inventory_rows,
	.context = GW_FABRIC_CONTEXT,
};

static const struct gw_table *const tables[] = {
	&node_table, NULL
};

const struct gw_mib_module gw_mod_ibsnmpgw_mib_nodes = {
	.name = "IBSNMPGW-MIB nodes",
	.tables = tables,
};
