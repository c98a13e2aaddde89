/* IBSNMPGW-MIB ibsnmpgwTopologyDiffTable (fabric context): how the
 * fabric differs from its blueprint (store/blueprint.h). The module's
 * hooks drive the comparison: the configuration names the blueprint
 * (topology.expected, re-read on every reload), and every sweep and
 * every change a Report brought (gw_mib_swept) is compared with it.
 * Rows come from the comparison's list: no MADs. */
#include "config.h"

#include <string.h>

#include "gateway/mib.h"
#include "gateway/oids.h"
#include "store/blueprint.h"

static const struct store_bp_diff *
row_diff(const struct gw_row *row)
{
	const struct store_bp_diff *d = store_blueprint_from(row->i[0]);

	return d != NULL && d->index == row->i[0] ? d : NULL;
}

/* A row about a node the requester may not see is not shown; one of a
 * node not in the inventory (missing), only to who sees everything. */
static int
diff_visible(struct gw_eval *e, const struct store_bp_diff *d)
{
	const struct store_node *n = d->guid ? store_node_by_guid(d->guid) :
	    NULL;

	return n != NULL ? gw_visible(e, n) : gw_visible_all(e);
}

static int
diff_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	uint64_t want = (uint64_t)lb->i[0] + (incl ? 0 : 1);
	const struct store_bp_diff *d;

	if (want > 0xffffffffu)
		return 0;
	for (d = store_blueprint_from((uint32_t)want); d != NULL;
	    d = d->index < 0xffffffffu ? store_blueprint_from(d->index + 1) :
	    NULL)
		if (diff_visible(e, d)) {
			memset(out, 0, sizeof(*out));
			out->i[0] = d->index;
			return 1;
		}
	return 0;
}

static int
octets(struct gw_val *v, const char *s, size_t max)
{
	return gw_val_octets(v, s, strnlen(s, max));
}

static int
diff_col(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_bp_diff *d = row_diff(row);

	if (d == NULL)
		return GW_ABSENT;
	switch (gw_column(e)->arg) {
	case GW_ARC_ibsnmpgwTopologyDiffKind:
		return gw_val_int_in(v, d->kind, 1, STORE_BP_KIND_MAX - 1);
	case GW_ARC_ibsnmpgwTopologyDiffNodeGuid:
		return gw_val_guid(v, d->guid);
	case GW_ARC_ibsnmpgwTopologyDiffNodeDescription:
		return octets(v, d->desc, sizeof(d->desc));
	case GW_ARC_ibsnmpgwTopologyDiffPort:
		return gw_val_uint_in(v, d->port, 0, 254);
	case GW_ARC_ibsnmpgwTopologyDiffRemoteGuid:
		return gw_val_guid(v, d->rguid);
	case GW_ARC_ibsnmpgwTopologyDiffRemotePort:
		return gw_val_uint_in(v, d->rport, 0, 254);
	case GW_ARC_ibsnmpgwTopologyDiffExpected:
		return octets(v, d->expected, sizeof(d->expected));
	case GW_ARC_ibsnmpgwTopologyDiffFound:
		return octets(v, d->found, sizeof(d->found));
	default:			/* Since: Unsigned32 seconds */
		return gw_val_uint(v, d->since > 0 && d->since <=
		    0xffffffffLL ? (unsigned long)d->since : 0);
	}
}

#define DC(nm)	GW_GETA(nm, diff_col, GW_ARC_##nm)

static const struct gw_col diff_cols[] = {
	DC(ibsnmpgwTopologyDiffKind),
	DC(ibsnmpgwTopologyDiffNodeGuid),
	DC(ibsnmpgwTopologyDiffNodeDescription),
	DC(ibsnmpgwTopologyDiffPort),
	DC(ibsnmpgwTopologyDiffRemoteGuid),
	DC(ibsnmpgwTopologyDiffRemotePort),
	DC(ibsnmpgwTopologyDiffExpected),
	DC(ibsnmpgwTopologyDiffFound),
	DC(ibsnmpgwTopologyDiffSince),
};

static const struct gw_table diff_table = {
	.name = "ibsnmpgwTopologyDiffTable",
	.GW_OID(GW_OID_ibsnmpgwTopologyDiffEntry),
	.under_sys_base = 1,
	.nindex = 1,
	.GW_COLS(diff_cols),
	.row_next = diff_rows,
	.context = GW_FABRIC_CONTEXT,
};

static const struct gw_table *const tables[] = {
	&diff_table, NULL
};

static int
topo_init(const struct gw_conf *c)
{
	(void)c;
	return store_blueprint_init();
}

/* At start and on every reload: the file as this configuration read
 * it, else the pinned blueprint. */
static void
topo_configure(const struct gw_conf *c)
{
	store_blueprint_use_file(c->topo_expected, c->topo_blueprint);
}

const struct gw_mib_module gw_mod_ibsnmpgw_mib_topology = {
	.name = "IBSNMPGW-MIB topology",
	.tables = tables,
	.init = topo_init,
	.configure = topo_configure,
	.finalise = store_blueprint_finalise,
	.swept = store_blueprint_compare,
};
