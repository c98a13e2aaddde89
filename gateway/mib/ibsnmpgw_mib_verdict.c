/* IBSNMPGW-MIB ibsnmpgwUnhealthyPortTable in the fabric context: the
 * ports whose standing verdict is not healthy (proxy/verdict.h), by
 * (ibsnmpgwNodeIndex, port); port 0 is a node that does not answer.
 * Rows come from the verdicts' sorted list: no MAD, and a walk costs
 * what there is to show, whatever the fabric's size. */
#include "config.h"

#include <string.h>

#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"
#include "proxy/verdict.h"

static int
uh_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	struct proxy_verdict_info vi;
	uint32_t node = lb->i[0] > 0 ? lb->i[0] - 1 : 0;
	unsigned port = lb->i[0] > 0 ? lb->i[1] : 0;

	if (lb->i[0] == 0)
		incl = 1;
	while (proxy_verdict_next(node, port, incl, &node, &vi) == 1) {
		const struct store_node *n = store_node_at(node);

		port = vi.port;
		incl = 0;
		if (n != NULL && gw_visible(e, n)) {
			memset(out, 0, sizeof(*out));
			out->i[0] = node + 1;
			out->i[1] = port;
			return 1;
		}
	}
	return 0;
}

/* The row's verdict: 0, or GW_ABSENT when it cleared meanwhile. */
static int
uh_info(const struct gw_row *row, const struct store_node **np,
    struct proxy_verdict_info *vi)
{
	const struct store_node *n = gw_inventory_row_node(row);

	if (n == NULL || row->i[1] > 254 || proxy_verdict_get(n->guid,
	    (uint8_t)row->i[1], vi) == -1 || vi->verdict == VERDICT_HEALTHY)
		return GW_ABSENT;
	*np = n;
	return 0;
}

static int
uh_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n;
	struct proxy_verdict_info vi;
	char ctx[GW_CONTEXT_LEN];
	int64_t t;

	if (uh_info(row, &n, &vi) != 0)
		return GW_ABSENT;
	switch (gw_column(e)->arg) {
	case 0:
		return gw_val_guid(v, n->guid);
	case 1:
		gw_context_name(n, ctx, sizeof(ctx));
		return gw_val_octets(v, ctx, strlen(ctx));
	case 2:
		return gw_val_int_in(v, vi.verdict, VERDICT_HEALTHY,
		    VERDICT_UNHEALTHY);
	case 3:
		return gw_val_octets(v, vi.reason, strlen(vi.reason));
	default:
		/* Unix seconds as Unsigned32, 0 for none. */
		t = (gw_column(e)->arg == 4 ? vi.since : vi.clears) / 1000;
		return gw_val_uint(v, t > 0 && t <= 0xffffffffLL ?
		    (unsigned long)t : 0);
	}
}

static const struct gw_col uh_cols[] = {
	GW_GETA(ibsnmpgwUnhealthyPortNodeGuid, uh_get, 0),
	GW_GETA(ibsnmpgwUnhealthyPortContext, uh_get, 1),
	GW_GETA(ibsnmpgwUnhealthyPortHealth, uh_get, 2),
	GW_GETA(ibsnmpgwUnhealthyPortReason, uh_get, 3),
	GW_GETA(ibsnmpgwUnhealthyPortSince, uh_get, 4),
	GW_GETA(ibsnmpgwUnhealthyPortClears, uh_get, 5),
};

static const struct gw_table uh_table = {
	.name = "ibsnmpgwUnhealthyPortTable",
	.GW_OID(GW_OID_ibsnmpgwUnhealthyPortEntry),
	.under_sys_base = 1,
	.nindex = 2,
	.GW_COLS(uh_cols),
	.row_next = uh_rows,
	.context = GW_FABRIC_CONTEXT,
};

static const struct gw_table *const tables[] = {
	&uh_table, NULL
};

const struct gw_mib_module gw_mod_ibsnmpgw_mib_verdict = {
	.name = "IBSNMPGW-MIB port verdicts",
	.tables = tables,
};
