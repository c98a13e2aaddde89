/* IB-IF-MIB (draft-ietf-ipoib-ibif-mib, mibs/IB-IF-MIB) in every node
 * context: ibIfPortStatTable, one row per port (the ifIndex), from the
 * same accumulators as IF-MIB. Counter32 objects are the accumulated
 * counts modulo 2^32.
 *
 * ibIfVLTrafficTable: (ifIndex, VL + 1) from the per-VL receive
 * counters PortVLOpPackets and PortVLOpData; IBA has no per-VL transmit
 * counter outside PortSamplesControl sampling, so the two Out columns
 * have no instances. ibIpoibLinkLayerAddrTable: the addresses the
 * gateway host knows. See docs/counters.md. */
#include "config.h"

#include <string.h>

#include "codec/attr.h"
#include "codec/perf.h"
#include "codec/smp.h"
#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"
#include "store/counters.h"
#include "store/ipoib.h"

/* A column per counter (its arg: enum perf_ctr). */
static int
stat_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	int ctr = (int)gw_column(e)->arg;
	uint32_t port = row->i[0];
	int attr = attr_index(ATTR_CLASS_PERF, perf_ctrs[ctr].attr);
	const struct ctr_port *p;
	int rc, unsup;

	/* PortCounters first: a port the PMA cannot count answers what
	 * was read before, or zeros (gw_port_ctrs). */
	if ((rc = gw_port_ctrs(e, port, 0, &p)) == GW_NEED)
		return GW_NEED;
	/* The details attributes are optional in the IBA. */
	if (rc == 0 && attr != ATTR_PORT_COUNTERS &&
	    gw_perf_attr_opt(e, attr, port, &unsup) == NULL) {
		if (!unsup)
			return GW_NEED;
		return gw_val_counter(v, 0);	/* never moves */
	}
	/* Counter32: the accumulated count modulo 2^32. */
	return gw_val_counter(v, (unsigned long)counters_acc(p, ctr)->total);
}

static const struct gw_col stat_cols[] = {
	GW_GETA(ibIfPortSymbolErrs, stat_get,
	    CTR_SYMBOL_ERRORS),
	GW_GETA(ibIfPortLinkErrRecovery, stat_get,
	    CTR_LINK_RECOVERS),
	GW_GETA(ibIfPortLinkDowned, stat_get,
	    CTR_LINK_DOWNED),
	GW_GETA(ibIfPortStatLocalPhyErrs, stat_get,
	    CTR_RCV_LOCAL_PHYS),
	GW_GETA(ibIfPortStatMalPktErrs, stat_get,
	    CTR_RCV_MALFORMED),
	GW_GETA(ibIfPortStatRcvRemPhyErrs, stat_get,
	    CTR_RCV_REMOTE_PHYS),
	GW_GETA(ibIfPortStatRcvConstrErrs, stat_get,
	    CTR_RCV_CONSTRAINT),
	GW_GETA(ibIfPortStatInactDiscards, stat_get,
	    CTR_XMIT_INACTIVE),
	GW_GETA(ibIfPortStatNeighMTUDiscards, stat_get,
	    CTR_XMIT_NEIGHBOR_MTU),
	GW_GETA(ibIfPortStatSwLifetimeDiscards, stat_get,
	    CTR_XMIT_SW_LIFETIME),
	GW_GETA(ibIfPortStatHOQLifetimeDiscards, stat_get,
	    CTR_XMIT_SW_HOQ),
	GW_GETA(ibIfPortStatLinkIntergrityErrs, stat_get,
	    CTR_LOCAL_INTEGRITY),
	GW_GETA(ibIfPortStatExcBufOverrunErrs, stat_get,
	    CTR_EXCESS_OVERRUN),
	GW_GETA(ibIfPortStatVL15Dropped, stat_get,
	    CTR_VL15_DROPPED),
};

static const struct gw_table stat_table = {
	.name = "ibIfPortStatTable",
	.GW_OID(GW_OID_ibIfPortStatEntry),
	.nindex = 1,
	.GW_COLS(stat_cols),
	.row_next = gw_data_ports,
};

/* ibIfVLTrafficTable */

/* PortInfo:OperationalVLs (IBA 14.2.5.6 Table 155): 1: VL0, 2: VL0-1,
 * 3: VL0-3, 4: VL0-7, 5: VL0-14. The number of data VLs. */
static uint32_t
data_vls(uint8_t oper_vls)
{
	static const uint8_t n[] = { 0, 1, 2, 4, 8, 15 };

	return oper_vls < sizeof(n) ? n[oper_vls] : 0;
}

/* The port's VL rows: *nvl data VLs plus VL15, or *nvl = -1 for none:
 * the PMA lacks PortVLOpPackets, or cannot be asked about this port (a
 * CA port that is not Active or has no LID, a switch without a LID). */
static int
vl_port(struct gw_eval *e, uint32_t port, int *nvl)
{
	const struct store_node *n = gw_node(e);
	int sw = n->type == STORE_NODE_SWITCH;
	struct smp_portinfo pi;
	int rc, unsup;

	*nvl = -1;
	if (!gw_port_reachable(n, port) || (sw && n->lid == 0))
		return 0;
	if ((rc = gw_portinfo(e, port, &pi)) != 0)
		return rc;
	if (!sw && (pi.state != 4 || pi.lid == 0))	/* 4: Active */
		return 0;
	if (gw_perf_attr_opt(e, ATTR_VL_OP_PACKETS, port, &unsup) == NULL)
		return unsup ? 0 : GW_NEED;
	*nvl = (int)data_vls(pi.oper_vls);
	return 0;
}

/* The smallest VL index (VL + 1) above 'after': 1..nvl, then 16. */
static uint32_t
vl_index_after(int nvl, uint32_t after)
{
	if (after < (uint32_t)nvl)
		return after + 1;
	return after < PERF_NVL ? PERF_NVL : 0;
}

static int
vl_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	const struct store_node *n = gw_node(e);
	uint32_t p = lb->i[0] ? lb->i[0] : 1;
	int first = lb->i[0] != 0;

	for (; p >= 1 && p <= n->num_ports; p++, first = 0) {
		uint32_t after = 0, vl;
		int nvl, rc;

		if (first && lb->i[1] > 0)
			after = incl ? lb->i[1] - 1 : lb->i[1];
		if ((rc = vl_port(e, p, &nvl)) != 0)
			return rc;
		if (nvl < 0 || (vl = vl_index_after(nvl, after)) == 0)
			continue;
		memset(out, 0, sizeof(*out));
		out->i[0] = p;
		out->i[1] = vl;
		return 1;
	}
	return 0;
}

/* The accumulated per-VL counter; GW_NEED while it is read, 1 when the
 * PMA lacks the attribute. */
static int
vl_total(struct gw_eval *e, uint32_t port, int ctr, uint64_t *total)
{
	int attr = attr_index(ATTR_CLASS_PERF, perf_ctrs[ctr].attr);
	const struct ctr_port *p;
	int unsup;

	if (gw_perf_attr_opt(e, attr, port, &unsup) == NULL)
		return unsup ? 1 : GW_NEED;
	p = counters_port(gw_node(e)->idx, (uint8_t)port);
	*total = p ? counters_acc(p, ctr)->total : 0;
	return 0;
}

/* Draft 3.4: PortRcvDataVL * 4 + packets * POH (the draft's
 * "PortXmitPktsVL" there is a slip for the received packets). */
static int
vl_in_octets(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	uint32_t vl = row->i[1] - 1;
	uint64_t data, pkts;
	int rc;

	if ((rc = vl_total(e, row->i[0], CTR_VL_OP_DATA0 + vl, &data)) != 0 ||
	    (rc = vl_total(e, row->i[0], CTR_VL_OP_PKTS0 + vl, &pkts)) != 0)
		return rc == 1 ? GW_ABSENT : rc;
	return gw_val_counter64(v, data * 4 + pkts * GW_IF_POH);
}

static int
vl_in_pkts(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	uint64_t pkts;
	int rc;

	if ((rc = vl_total(e, row->i[0], CTR_VL_OP_PKTS0 + row->i[1] - 1,
	    &pkts)) != 0)
		return rc == 1 ? GW_ABSENT : rc;
	return gw_val_counter64(v, pkts);
}

static const struct gw_col vl_cols[] = {
	GW_GET(ibIfVLInOctets, vl_in_octets),
	GW_GET(ibIfVLInPkts, vl_in_pkts),
};

static const struct gw_table vl_table = {
	.name = "ibIfVLTrafficTable",
	.GW_OID(GW_OID_ibIfVLTrafficEntry),
	.nindex = 2,
	.GW_COLS(vl_cols),
	.row_next = vl_rows,
};

/* ibIpoibLinkLayerAddrTable: (ifIndex, n) for the IPoIB addresses the
 * gateway host knows on each port (store/ipoib.h); n stays with its
 * address across refreshes. */

static int
addr_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	const struct store_node *n = gw_node(e);
	const struct ipoib_ent *first;
	uint32_t p = lb->i[0] ? lb->i[0] : 1;
	int at_lb = lb->i[0] != 0;

	for (; p >= 1 && p <= n->num_ports; p++, at_lb = 0) {
		uint64_t k = at_lb ? (uint64_t)lb->i[1] + (incl ? 0 : 1) : 1;
		size_t cnt = ipoib_port_addrs(n->idx, (uint8_t)p, &first);

		/* In idx order: the first at or above k. */
		for (size_t i = 0; i < cnt; i++)
			if (first[i].idx >= k) {
				memset(out, 0, sizeof(*out));
				out->i[0] = p;
				out->i[1] = first[i].idx;
				return 1;
			}
	}
	return 0;
}

static int
addr_val(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct ipoib_ent *first;
	size_t cnt = ipoib_port_addrs(gw_node(e)->idx, (uint8_t)row->i[0],
	    &first);

	for (size_t i = 0; i < cnt; i++)
		if (first[i].idx == row->i[1])
			return gw_val_octets(v, first[i].addr,
			    IPOIB_ADDR_LEN);
	return GW_ABSENT;
}

static const struct gw_col addr_cols[] = {
	GW_GET(ibIpoibLinkLayerAddr, addr_val),
};

static const struct gw_table addr_table = {
	.name = "ibIpoibLinkLayerAddrTable",
	.GW_OID(GW_OID_ibIpoibLinkLayerAddrEntry),
	.nindex = 2,
	.GW_COLS(addr_cols),
	.row_next = addr_rows,
};

static const struct gw_table *const tables[] = {
	&stat_table, &vl_table, &addr_table, NULL
};

const struct gw_mib_module gw_mod_ib_if_mib = {
	.name = "IB-IF-MIB",
	.tables = tables,
};
