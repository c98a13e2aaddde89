/* IBSNMPGW-MIB ibsnmpgwPortCongestionTable (mibs/IBSNMPGW-MIB) in every
 * node context: PortXmitWait per data port as a 64-bit accumulator,
 * and its share of the last interval between readings in ppm
 * (store/counters.c; docs/health.md, "Congestion"). Rows are IF-MIB's
 * ifTable's: ifIndex = port number. */
#include "config.h"

#include "codec/perf.h"
#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"
#include "store/counters.h"

/* The port's accumulators, fresh as for IF-MIB: a port the PMA cannot
 * count answers what was read before, or zeros (gw_port_ctrs). */
static int
cg_port(struct gw_eval *e, const struct gw_row *row,
    const struct ctr_port **p)
{
	int rc = gw_port_ctrs(e, row->i[0], 0, p);

	return rc == GW_STALE ? 0 : rc;
}

static int
cg_wait(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct ctr_port *p;
	int rc = cg_port(e, row, &p);

	return rc ? rc : gw_val_counter64(v, p->c[CTR_XMIT_WAIT].total);
}

static int
cg_ratio(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct ctr_port *p;
	uint32_t dt;
	int rc = cg_port(e, row, &p);

	return rc ? rc : gw_val_uint(v, counters_xmit_wait(p, &dt));
}

static int
cg_interval(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct ctr_port *p;
	uint32_t dt;
	int rc = cg_port(e, row, &p);

	if (rc)
		return rc;
	counters_xmit_wait(p, &dt);
	return gw_val_uint(v, dt);
}

static int
cg_source(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct ctr_port *p;
	int rc = cg_port(e, row, &p);

	/* portCounters(1), portCountersExtended(2) */
	return rc ? rc : gw_val_int(v, p->ext_src ? 2 : 1);
}

static const struct gw_col cg_cols[] = {
	GW_GET(ibsnmpgwPortXmitWait, cg_wait),
	GW_GET(ibsnmpgwPortXmitWaitRatio, cg_ratio),
	GW_GET(ibsnmpgwPortXmitWaitInterval, cg_interval),
	GW_GET(ibsnmpgwPortXmitWaitSource, cg_source),
};

/* Under the configured base, as ibsnmpgwPortTable: ibsnmpgwHealth(9).
 * ibsnmpgwPortCongestionTable(1).ibsnmpgwPortCongestionEntry(1). */
static const struct gw_table cg_table = {
	.name = "ibsnmpgwPortCongestionTable",
	.GW_OID(GW_OID_ibsnmpgwPortCongestionEntry),
	.under_sys_base = 1,
	.nindex = 1,
	.GW_COLS(cg_cols),
	.row_next = gw_data_ports,
};

static const struct gw_table *const tables[] = {
	&cg_table, NULL
};

const struct gw_mib_module gw_mod_ibsnmpgw_mib_congestion = {
	.name = "IBSNMPGW-MIB congestion",
	.tables = tables,
};
