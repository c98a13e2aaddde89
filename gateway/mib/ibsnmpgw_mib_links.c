/* IBSNMPGW-MIB ibsnmpgwDegradedLinkTable in the fabric context: the
 * links that run below what they should (proxy/linkcheck.h). Rows come
 * from the link check's last run: no MADs. */
#include "config.h"

#include <string.h>

#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"
#include "proxy/linkcheck.h"

/* A community or user limited to some nodes sees the links of those
 * nodes: either end. */
static int
dl_visible(struct gw_eval *e, const struct proxy_link_row *r)
{
	const struct store_node *a = store_node_at(r->node);
	const struct store_node *b = store_node_by_guid(r->peer_guid);

	return (a != NULL && gw_visible(e, a)) || (b != NULL &&
	    gw_visible(e, b));
}

/* Index: ibsnmpgwNodeIndex (inventory index + 1), port. */
static int
dl_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	uint64_t node1 = lb->i[0], port = (uint64_t)lb->i[1] + (incl ? 0 : 1);
	const struct proxy_link_row *r, *first = proxy_linkcheck_at(0);

	if (node1 == 0) {
		node1 = 1;
		port = 0;
	}
	if (port > 255) {
		node1++;
		port = 0;
	}
	if (node1 > 0xffffffffULL || first == NULL)
		return 0;
	for (r = proxy_linkcheck_from((uint32_t)(node1 - 1), (uint8_t)port);
	    r != NULL; r = proxy_linkcheck_at((size_t)(r - first) + 1))
		if (dl_visible(e, r)) {
			memset(out, 0, sizeof(*out));
			out->i[0] = r->node + 1;
			out->i[1] = r->port;
			return 1;
		}
	return 0;
}

static const struct proxy_link_row *
row_link(const struct gw_row *row)
{
	const struct proxy_link_row *r;

	if (row->i[0] == 0 || row->i[1] > 255)
		return NULL;
	r = proxy_linkcheck_from(row->i[0] - 1, (uint8_t)row->i[1]);
	return r != NULL && r->node == row->i[0] - 1 &&
	    r->port == row->i[1] ? r : NULL;
}

static int
val_context(struct gw_val *v, const struct store_node *n)
{
	char buf[GW_CONTEXT_LEN];

	if (n == NULL)
		return gw_val_octets(v, "", 0);
	gw_context_name(n, buf, sizeof(buf));
	return gw_val_octets(v, buf, strlen(buf));
}

/* ibsnmpgwPortSpeed's enumeration: enum smp_speed + 1. */
static int
val_speed(struct gw_val *v, uint8_t speed)
{
	return gw_val_int(v, (long)speed + 1);
}

static int
dl_col(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct proxy_link_row *r = row_link(row);
	int expected;

	if (r == NULL)
		return GW_ABSENT;
	switch (gw_column(e)->arg) {
	case 2: return gw_val_guid(v, r->guid);
	case 3: return val_context(v, store_node_at(r->node));
	case 4: return gw_val_guid(v, r->peer_guid);
	case 5: return gw_val_uint(v, r->peer_port);
	case 6: return val_context(v, store_node_by_guid(r->peer_guid));
	case 7: return gw_val_uint(v, r->exp_lanes);
	case 8: return val_speed(v, r->exp_speed);
	case 9: return gw_val_uint(v, r->act_lanes);
	case 10: return val_speed(v, r->act_speed);
	case 11:
		/* The rule of the dimension it falls short in. */
		expected = (r->act_lanes < r->exp_lanes &&
		    r->rule_width == LINK_RULE_EXPECTED) ||
		    (r->act_speed < r->exp_speed &&
		    r->rule_speed == LINK_RULE_EXPECTED);
		return gw_val_int(v, expected ? LINK_RULE_EXPECTED :
		    LINK_RULE_CAPABILITY);
	default:
		return gw_val_uint(v, r->since > 0 ?
		    (unsigned long)(r->since / 1000) : 0);
	}
}

static const struct gw_col dl_cols[] = {
	GW_GETA(ibsnmpgwDegradedLinkNodeGuid, dl_col, 2),
	GW_GETA(ibsnmpgwDegradedLinkNodeContext, dl_col, 3),
	GW_GETA(ibsnmpgwDegradedLinkPeerGuid, dl_col, 4),
	GW_GETA(ibsnmpgwDegradedLinkPeerPort, dl_col, 5),
	GW_GETA(ibsnmpgwDegradedLinkPeerContext, dl_col, 6),
	GW_GETA(ibsnmpgwDegradedLinkExpectedWidth, dl_col, 7),
	GW_GETA(ibsnmpgwDegradedLinkExpectedSpeed, dl_col, 8),
	GW_GETA(ibsnmpgwDegradedLinkActiveWidth, dl_col, 9),
	GW_GETA(ibsnmpgwDegradedLinkActiveSpeed, dl_col, 10),
	GW_GETA(ibsnmpgwDegradedLinkRule, dl_col, 11),
	GW_GETA(ibsnmpgwDegradedLinkSince, dl_col, 12),
};

static const struct gw_table dl_table = {
	.name = "ibsnmpgwDegradedLinkTable",
	.GW_OID(GW_OID_ibsnmpgwDegradedLinkEntry),
	.under_sys_base = 1,
	.nindex = 2,
	.GW_COLS(dl_cols),
	.row_next = dl_rows,
	.context = GW_FABRIC_CONTEXT,
};

static const struct gw_table *const tables[] = {
	&dl_table, NULL
};

const struct gw_mib_module gw_mod_ibsnmpgw_mib_links = {
	.name = "IBSNMPGW-MIB degraded links",
	.tables = tables,
};
