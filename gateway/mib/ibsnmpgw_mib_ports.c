/* IBSNMPGW-MIB ibsnmpgwPortTable (mibs/IBSNMPGW-MIB) in every node
 * context: the active speed (SDR..XDR), width (1x..12x), data rate and
 * FEC mode of each data port, which IB-SMA-MIB's enumerations cannot
 * say, and the port's standing verdict (proxy/verdict.h). Rows are the
 * ibSmaPortInfoTable's (AUGMENTS). */
#include "config.h"

#include <string.h>

#include "codec/attr.h"
#include "codec/smp.h"
#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"
#include "proxy/verdict.h"

static int
port_pi(struct gw_eval *e, const struct gw_row *row, struct smp_portinfo *pi)
{
	return gw_portinfo(e, row->i[0], pi);
}

static int
gp_speed(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_portinfo pi;
	int rc = port_pi(e, row, &pi);

	/* unknown(1), sdr(2) .. xdr(9): enum smp_speed + 1 */
	return rc ? rc : gw_val_int(v, (long)smp_speed_active(&pi) + 1);
}

static int
gp_width(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_portinfo pi;
	int rc = port_pi(e, row, &pi);

	if (rc)
		return rc;
	return gw_val_uint(v, pi.state <= 1 ? 0 :
	    (unsigned long)smp_width_lanes(pi.width_active));
}

static int
gp_rate(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_portinfo pi;
	int rc = port_pi(e, row, &pi);

	return rc ? rc : gw_val_gauge(v, smp_port_rate_mbps(&pi));
}

/* FECModeActive code -> ibsnmpgwPortFecMode. */
static long
fec_mode(uint16_t fec)
{
	return fec <= 4 ? (long)fec + 2 : 7;	/* none(2) .. rsFec544(6) */
}

static int
gp_fec(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_node(e);
	struct smp_portinfo pi;
	const uint8_t *d;
	uint16_t fec;
	int rc, unsup;

	/* CapabilityMask2 is port 0's on a switch (IBA 14.2.5.6). */
	if ((rc = gw_portinfo(e, gw_is_switch(n) ? 0 : row->i[0], &pi)) != 0)
		return rc;
	if (!(pi.cap_mask2 & SMP_CAP2_PORT_INFO_EXT))
		return gw_val_int(v, 1);		/* unknown */
	d = gw_attr_opt(e, ATTR_PORT_INFO_EXT, row->i[0],
	    gw_route_port(n, row->i[0]), &unsup);
	if (d == NULL)
		return unsup ? gw_val_int(v, 1) : GW_NEED;
	if (smp_decode_fec_active(d, SMP_DATA_SIZE, &fec) == -1)
		return GW_BAD;
	return gw_val_int(v, fec_mode(fec));
}

/* From memory: no MAD (docs/health.md). */
static int
gp_health(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct proxy_verdict_info vi;

	(void)proxy_verdict_get(gw_node(e)->guid, (uint8_t)row->i[0], &vi);
	if (gw_column(e)->arg == 0)
		return gw_val_int_in(v, vi.verdict, VERDICT_HEALTHY,
		    VERDICT_UNHEALTHY);
	return gw_val_octets(v, vi.reason, strlen(vi.reason));
}

static const struct gw_col gp_cols[] = {
	GW_GET(ibsnmpgwPortSpeed, gp_speed),
	GW_GET(ibsnmpgwPortWidth, gp_width),
	GW_GET(ibsnmpgwPortDataRate, gp_rate),
	GW_GET(ibsnmpgwPortFecMode, gp_fec),
	GW_FIELD(ibsnmpgwPortCapabilityMask2, ATTR_PORT_INFO,
	    IB_PORT_CAPMASK2_F, GW_K_UINT, GW_RANGE(0, 65535)),
	GW_GETA(ibsnmpgwPortHealth, gp_health, 0),
	GW_GETA(ibsnmpgwPortHealthReason, gp_health, 1),
};

/* Under the configured base, as the statistics: ibsnmpgwPorts(4).
 * ibsnmpgwPortTable(1).ibsnmpgwPortEntry(1). */
static const struct gw_table gp_table = {
	.name = "ibsnmpgwPortTable",
	.GW_OID(GW_OID_ibsnmpgwPortEntry),
	.under_sys_base = 1,
	.nindex = 1,
	.GW_COLS(gp_cols),
	.inst = gw_inst_row_port,
	.row_next = gw_data_ports,
};

static const struct gw_table *const tables[] = {
	&gp_table, NULL
};

const struct gw_mib_module gw_mod_ibsnmpgw_mib_ports = {
	.name = "IBSNMPGW-MIB ports",
	.tables = tables,
};
