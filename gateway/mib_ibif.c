/* IB-IF-MIB (draft-ietf-ipoib-ibif-mib, mibs/IB-IF-MIB) in every node
 * context: ibIfPortStatTable, one row per port (the ifIndex), from the
 * same accumulators as IF-MIB. Counter32 objects are the accumulated
 * counts modulo 2^32.
 *
 * ibIfVLTrafficTable and ibIpoibLinkLayerAddrTable are empty: see
 * docs/counters.md for where their data would come from. */
#include "config.h"

#include <string.h>

#include "gateway/mib.h"
#include "gateway/mib_if.h"
#include "gateway/mib_sma.h"
#include "proxy/mad.h"
#include "proxy/perf.h"
#include "store/counters.h"

/* ibIfMIB = infinibandMIB.2; ibIfObjects = ibIfMIB.1 */
#define IBIF_OBJECTS	1, 3, 6, 1, 3, 117, 2, 1

static int
stat_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v,
    int ctr)
{
	const struct store_node *n = gw_node(e);
	uint32_t port = row->i[0];
	uint8_t rp = n->type == STORE_NODE_SWITCH ? 0 : (uint8_t)port;
	uint16_t attr = perf_ctrs[ctr].attr;
	const struct ctr_port *p;
	int unsup;

	/* The details attributes are optional in the IBA. */
	if (attr == PERF_ATTR_PORT_COUNTERS) {
		if (gw_attr_class(e, PROXY_CLASS_PERF, attr, port, rp,
		    CACHE_COUNTERS) == NULL)
			return GW_NEED;
	} else if (gw_attr_opt_class(e, PROXY_CLASS_PERF, attr, port, rp,
	    CACHE_COUNTERS, attr == PERF_ATTR_RCV_ERROR_DETAILS ?
	    STORE_UNSUP_RCV_DETAILS : STORE_UNSUP_XMIT_DETAILS,
	    &unsup) == NULL) {
		if (!unsup)
			return GW_NEED;
		return gw_val_counter(v, 0);	/* never moves */
	}
	p = counters_port(n->idx, (uint8_t)port);
	return gw_val_counter(v, p ? (unsigned long)(p->c[ctr].total &
	    0xffffffffULL) : 0);
}

#define STAT(fn, ctr) \
static int \
fn(struct gw_eval *e, const struct gw_row *row, struct gw_val *v) \
{ \
	return stat_get(e, row, v, ctr); \
}

STAT(st_symbol, CTR_SYMBOL_ERRORS)
STAT(st_recovery, CTR_LINK_RECOVERS)
STAT(st_downed, CTR_LINK_DOWNED)
STAT(st_local_phy, CTR_RCV_LOCAL_PHYS)
STAT(st_malformed, CTR_RCV_MALFORMED)
STAT(st_rem_phy, CTR_RCV_REMOTE_PHYS)
STAT(st_rcv_constr, CTR_RCV_CONSTRAINT)
STAT(st_inactive, CTR_XMIT_INACTIVE)
STAT(st_neigh_mtu, CTR_XMIT_NEIGHBOR_MTU)
STAT(st_sw_life, CTR_XMIT_SW_LIFETIME)
STAT(st_hoq, CTR_XMIT_SW_HOQ)
STAT(st_integrity, CTR_LOCAL_INTEGRITY)
STAT(st_overrun, CTR_EXCESS_OVERRUN)
STAT(st_vl15, CTR_VL15_DROPPED)

static const struct gw_col stat_cols[] = {
	{ 2, st_symbol, "ibIfPortSymbolErrs" },
	{ 3, st_recovery, "ibIfPortLinkErrRecovery" },
	{ 4, st_downed, "ibIfPortLinkDowned" },
	{ 5, st_local_phy, "ibIfPortStatLocalPhyErrs" },
	{ 6, st_malformed, "ibIfPortStatMalPktErrs" },
	{ 7, st_rem_phy, "ibIfPortStatRcvRemPhyErrs" },
	{ 8, st_rcv_constr, "ibIfPortStatRcvConstrErrs" },
	{ 9, st_inactive, "ibIfPortStatInactDiscards" },
	{ 10, st_neigh_mtu, "ibIfPortStatNeighMTUDiscards" },
	{ 11, st_sw_life, "ibIfPortStatSwLifetimeDiscards" },
	{ 12, st_hoq, "ibIfPortStatHOQLifetimeDiscards" },
	{ 13, st_integrity, "ibIfPortStatLinkIntergrityErrs" },
	{ 14, st_overrun, "ibIfPortStatExcBufOverrunErrs" },
	{ 15, st_vl15, "ibIfPortStatVL15Dropped" },
};

static const struct gw_table stat_table = {
	.name = "ibIfPortStatTable",
	.base = { IBIF_OBJECTS, 1, 1 },		/* ibIfPortStatEntry */
	.base_len = 10,
	.nindex = 1,
	.cols = stat_cols,
	.ncols = sizeof(stat_cols) / sizeof(stat_cols[0]),
	.row_next = sma_data_ports,
};

int
gw_mib_ibif_init(void)
{
	return gw_mib_register(&stat_table);
}
