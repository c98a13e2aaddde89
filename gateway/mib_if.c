/* IF-MIB (RFC 2863) ifNumber, ifTable and ifXTable in every node
 * context: one interface per IB port, ifIndex = port number. Counters
 * follow draft-ietf-ipoib-ibif-mib section 3.4 (docs/mibs.md) and are
 * built from the 64-bit accumulators in store/counters.c: Counter64
 * objects are the accumulated sums, Counter32 objects the same modulo
 * 2^32. A GET answers from the accumulators; only counters older than
 * their TTL cause a fresh PerfMgt read. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gateway/mib.h"
#include "gateway/mib_if.h"
#include "gateway/mib_sma.h"
#include "proxy/mad.h"
#include "proxy/perf.h"
#include "proxy/smp.h"
#include "store/counters.h"


const uint8_t *
if_perf_attr(struct gw_eval *e, uint16_t attr, uint32_t port)
{
	return gw_attr_class(e, PROXY_CLASS_PERF, attr, port,
	    sma_route_port(gw_node(e), port),
	    attr == PERF_ATTR_CLASS_PORT_INFO ? CACHE_TABLES : CACHE_COUNTERS);
}

const uint8_t *
if_perf_attr_opt(struct gw_eval *e, uint16_t attr, uint32_t port,
    unsigned flag, int *unsupported)
{
	return gw_attr_opt_class(e, PROXY_CLASS_PERF, attr, port,
	    sma_route_port(gw_node(e), port), CACHE_COUNTERS, flag,
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
if_port_ctrs(struct gw_eval *e, uint32_t port, int ext,
    const struct ctr_port **pp)
{
	const struct store_node *n = gw_node(e);
	uint8_t rp = sma_route_port(n, port);
	int err;

	*pp = NULL;
	if (gw_attr_try(e, PROXY_CLASS_PERF, PERF_ATTR_PORT_COUNTERS, port, rp,
	    CACHE_COUNTERS, &err) == NULL && !err)
		return GW_NEED;
	if (!err && ext && gw_attr_try(e, PROXY_CLASS_PERF,
	    PERF_ATTR_PORT_COUNTERS_EXT, port, rp, CACHE_COUNTERS, &err) ==
	    NULL && !err)
		return GW_NEED;
	if (err)
		return port_unreadable(e, port, err, pp) == 0 ? IF_STALE :
		    GW_NEED;
	if ((*pp = counters_port(n->idx, (uint8_t)port)) == NULL)
		return GW_NEED;
	return 0;
}

int
if_counters(struct gw_eval *e, uint32_t port, struct if_counts *c)
{
	const struct ctr_port *p;
	const uint8_t *cpi;
	uint32_t cap;
	int ext, ietf, flow, unsup, rc;

	/* ClassPortInfo says whether PortCountersExtended exists (IBA
	 * 16.1.2); PortFlowCtlCounters is optional. */
	if ((cpi = if_perf_attr(e, PERF_ATTR_CLASS_PORT_INFO, 0)) == NULL)
		return GW_NEED;
	cap = perf_cpi_capmask(cpi, PROXY_GS_DATA_SIZE);
	ext = (cap & (PERF_CAP_EXT_WIDTH | PERF_CAP_EXT_WIDTH_NOIETF)) != 0;
	ietf = (cap & PERF_CAP_EXT_WIDTH) != 0;
	if ((rc = if_port_ctrs(e, port, ext, &p)) == GW_NEED)
		return GW_NEED;
	if (rc == IF_STALE) {
		/* Only what was read before counts. */
		ext = ext && p->c[CTR_EXT_XMIT_DATA].valid;
		ietf = ietf && ext;
		flow = p->c[CTR_XMIT_FLOW_PKTS].valid;
	} else {
		flow = if_perf_attr_opt(e, PERF_ATTR_FLOW_CTL_COUNTERS, port,
		    STORE_UNSUP_FLOWCTL, &unsup) != NULL;
		if (!flow && !unsup)
			return GW_NEED;
	}
#define T(i)	(p->c[i].total)
	memset(c, 0, sizeof(*c));
	/* The 64-bit data and packet counters replace the 32-bit ones
	 * where the PMA has them (draft 3.4). */
	uint64_t rd = ext ? T(CTR_EXT_RCV_DATA) : T(CTR_RCV_DATA);
	uint64_t rp = ext ? T(CTR_EXT_RCV_PKTS) : T(CTR_RCV_PKTS);
	uint64_t xd = ext ? T(CTR_EXT_XMIT_DATA) : T(CTR_XMIT_DATA);
	uint64_t xp = ext ? T(CTR_EXT_XMIT_PKTS) : T(CTR_XMIT_PKTS);
	uint64_t xdisc = T(CTR_XMIT_DISCARDS) + T(CTR_XMIT_CONSTRAINT);

	c->in_octets = rd * 4 + rp * IF_POH;
	c->out_octets = xd * 4 + xp * IF_POH;
	if (flow) {
		c->in_octets += T(CTR_RCV_FLOW_PKTS) * IF_SLP;
		c->out_octets += T(CTR_XMIT_FLOW_PKTS) * IF_SLP;
	}
	c->in_pkts = rp;
	c->out_pkts = xp + xdisc;
	c->hc_in_ucast = ietf ? T(CTR_EXT_RCV_UPKTS) : rp;
	c->hc_out_ucast = (ietf ? T(CTR_EXT_XMIT_UPKTS) : xp) + xdisc;
	c->hc_in_mcast = ietf ? T(CTR_EXT_RCV_MPKTS) : 0;
	c->hc_out_mcast = ietf ? T(CTR_EXT_XMIT_MPKTS) : 0;
	c->in_discards = T(CTR_RCV_CONSTRAINT) + T(CTR_VL15_DROPPED);
	c->in_errors = T(CTR_RCV_REMOTE_PHYS) + T(CTR_RCV_ERRORS);
	c->out_discards = T(CTR_XMIT_DISCARDS) + T(CTR_XMIT_CONSTRAINT);
#undef T
	c->disc_ticks = counters_ticks(p->disc_ms);
	return 0;
}

/* ifNumber */

static int
if_number(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_int(v, gw_node(e)->num_ports);
}

static const struct gw_col number_cols[] = {
	{ 1, if_number, "ifNumber" },
};

static const struct gw_table number_table = {
	.name = "interfaces",
	.base = { 1, 3, 6, 1, 2, 1, 2 },
	.base_len = 7,
	.cols = number_cols,
	.ncols = 1,
};

/* ifTable */

static int
port_pi(struct gw_eval *e, const struct gw_row *row, struct smp_portinfo *pi)
{
	return sma_portinfo(e, row->i[0], pi);
}

#define IF_PI(fn, expr) \
static int \
fn(struct gw_eval *e, const struct gw_row *row, struct gw_val *v) \
{ \
	struct smp_portinfo p; \
	int rc = port_pi(e, row, &p); \
	if (rc != 0) \
		return rc; \
	return (expr); \
}

static int
if_index(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_int(v, row->i[0]);
}

static int
descr(struct gw_val *v, uint32_t port, const struct smp_portinfo *p)
{
	char s[64];
	enum smp_speed sp = smp_speed_active(p);
	int lanes = smp_width_lanes(p->width_active), len;

	/* e.g. "port 7 4x EDR"; a port that is down has no active rate */
	if (lanes && sp != SMP_SPEED_UNKNOWN)
		len = snprintf(s, sizeof(s), "port %u %dx %s", port, lanes,
		    smp_speed_name(sp));
	else
		len = snprintf(s, sizeof(s), "port %u", port);
	return gw_val_octets(v, s, (size_t)len);
}

static uint64_t
speed_bps(const struct smp_portinfo *p)
{
	return smp_port_rate_mbps(p) * 1000000;
}

IF_PI(if_descr, descr(v, row->i[0], &p))
static int
if_type(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_int(v, 199);	/* IANAifType infiniband */
}
/* IB-IF-MIB 3.2.7: ifMtu is the NeighborMTU in octets. */
IF_PI(if_mtu, gw_val_int(v, p.neighbor_mtu >= 1 && p.neighbor_mtu <= 5 ?
    128 << p.neighbor_mtu : 0))
/* RFC 2863: ifSpeed saturates at 4,294,967,295; ifHighSpeed in Mb/s. */
IF_PI(if_speed, (v->type = ASN_GAUGE, v->l = speed_bps(&p) > 0xffffffffULL ?
    0xffffffffL : (long)speed_bps(&p), 0))
IF_PI(if_high_speed, (v->type = ASN_GAUGE, v->l = (long)(speed_bps(&p) /
    1000000), 0))

static int
if_phys(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_portinfo p;
	uint8_t b[2];
	int rc;

	/* The port's base LID; a switch's ports answer with port 0's
	 * (IB-IF-MIB 3.2.7); empty while there is none. */
	if (sma_is_switch(gw_node(e)))
		rc = sma_portinfo(e, 0, &p);
	else
		rc = port_pi(e, row, &p);
	if (rc != 0)
		return rc;
	if (p.lid == 0)
		return gw_val_octets(v, b, 0);
	b[0] = p.lid >> 8;
	b[1] = p.lid & 0xff;
	return gw_val_octets(v, b, 2);
}

/* Admin: disabled(3) physical state is down(2). Oper: Active up(1),
 * Down down(2), Init/Armed dormant(5) (waiting for the SM). */
IF_PI(if_admin, gw_val_int(v, p.phys_state == 3 ? 2 : 1))
IF_PI(if_oper, gw_val_int(v, p.state == 4 ? 1 : p.state == 1 ? 2 :
    (p.state == 2 || p.state == 3) ? 5 : 4))

static int
if_last_change(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_portinfo p;
	const struct ctr_port *c;
	int rc;

	/* Read the state, so a change is seen before it is reported. */
	if ((rc = port_pi(e, row, &p)) != 0)
		return rc;
	c = counters_port(gw_node(e)->idx, (uint8_t)row->i[0]);
	v->type = ASN_TIMETICKS;
	v->l = c ? counters_ticks(c->change_ms) : 0;
	return 0;
}

#define IF_CTR(fn, field, type) \
static int \
fn(struct gw_eval *e, const struct gw_row *row, struct gw_val *v) \
{ \
	struct if_counts c; \
	int rc = if_counters(e, row->i[0], &c); \
	if (rc != 0) \
		return rc; \
	return set_counter(v, c.field, type); \
}

static int
set_counter(struct gw_val *v, uint64_t x, int type)
{
	if (type == ASN_COUNTER64)
		return gw_val_counter64(v, x);
	/* Counter32 wraps modulo 2^32, as managers expect. */
	return gw_val_counter(v, (unsigned long)x);
}

IF_CTR(if_in_octets, in_octets, ASN_COUNTER)
IF_CTR(if_in_ucast, in_pkts, ASN_COUNTER)
IF_CTR(if_in_discards, in_discards, ASN_COUNTER)
IF_CTR(if_in_errors, in_errors, ASN_COUNTER)
IF_CTR(if_out_octets, out_octets, ASN_COUNTER)
IF_CTR(if_out_ucast, out_pkts, ASN_COUNTER)
IF_CTR(if_out_discards, out_discards, ASN_COUNTER)
IF_CTR(if_hc_in_octets, in_octets, ASN_COUNTER64)
IF_CTR(if_hc_in_ucast, hc_in_ucast, ASN_COUNTER64)
IF_CTR(if_hc_in_mcast, hc_in_mcast, ASN_COUNTER64)
IF_CTR(if_hc_out_octets, out_octets, ASN_COUNTER64)
IF_CTR(if_hc_out_ucast, hc_out_ucast, ASN_COUNTER64)
IF_CTR(if_hc_out_mcast, hc_out_mcast, ASN_COUNTER64)

static int
zero32(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	/* No IB counter exists (unknown protocols, out errors, broadcast):
	 * a counter that never moves, as the draft says. */
	return gw_val_counter(v, 0);
}

static int
zero64(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return set_counter(v, 0, ASN_COUNTER64);
}

static int
if_disc(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct if_counts c;
	int rc = if_counters(e, row->i[0], &c);

	if (rc != 0)
		return rc;
	v->type = ASN_TIMETICKS;
	v->l = c.disc_ticks;
	return 0;
}

static const struct gw_col if_cols[] = {
	{ 1, if_index, "ifIndex" },
	{ 2, if_descr, "ifDescr" },
	{ 3, if_type, "ifType" },
	{ 4, if_mtu, "ifMtu" },
	{ 5, if_speed, "ifSpeed" },
	{ 6, if_phys, "ifPhysAddress" },
	{ 7, if_admin, "ifAdminStatus" },
	{ 8, if_oper, "ifOperStatus" },
	{ 9, if_last_change, "ifLastChange" },
	{ 10, if_in_octets, "ifInOctets" },
	{ 11, if_in_ucast, "ifInUcastPkts" },
	{ 13, if_in_discards, "ifInDiscards" },
	{ 14, if_in_errors, "ifInErrors" },
	{ 15, zero32, "ifInUnknownProtos" },
	{ 16, if_out_octets, "ifOutOctets" },
	{ 17, if_out_ucast, "ifOutUcastPkts" },
	{ 19, if_out_discards, "ifOutDiscards" },
	{ 20, zero32, "ifOutErrors" },
};

static const struct gw_table if_table = {
	.name = "ifTable",
	.base = { 1, 3, 6, 1, 2, 1, 2, 2, 1 },
	.base_len = 9,
	.nindex = 1,
	.cols = if_cols,
	.ncols = sizeof(if_cols) / sizeof(if_cols[0]),
	.row_next = sma_data_ports,
};

/* ifXTable */

static int
if_name(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "port%u", row->i[0]);

	return gw_val_octets(v, s, (size_t)len);
}

static int
int_const(struct gw_val *v, long l)
{
	return gw_val_int(v, l);
}

static int
if_trap_enable(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return int_const(v, 2);		/* disabled: no linkUp/Down traps */
}

static int
if_false(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_truth(v, 0);
}

static int
if_true(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_truth(v, 1);
}

static int
if_alias(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_octets(v, "", 0);
}

static const struct gw_col ifx_cols[] = {
	{ 1, if_name, "ifName" },
	{ 2, zero32, "ifInMulticastPkts" },	/* 3.2.7: never moves */
	{ 3, zero32, "ifInBroadcastPkts" },
	{ 4, zero32, "ifOutMulticastPkts" },
	{ 5, zero32, "ifOutBroadcastPkts" },
	{ 6, if_hc_in_octets, "ifHCInOctets" },
	{ 7, if_hc_in_ucast, "ifHCInUcastPkts" },
	{ 8, if_hc_in_mcast, "ifHCInMulticastPkts" },
	{ 9, zero64, "ifHCInBroadcastPkts" },
	{ 10, if_hc_out_octets, "ifHCOutOctets" },
	{ 11, if_hc_out_ucast, "ifHCOutUcastPkts" },
	{ 12, if_hc_out_mcast, "ifHCOutMulticastPkts" },
	{ 13, zero64, "ifHCOutBroadcastPkts" },
	{ 14, if_trap_enable, "ifLinkUpDownTrapEnable" },
	{ 15, if_high_speed, "ifHighSpeed" },
	{ 16, if_false, "ifPromiscuousMode" },
	{ 17, if_true, "ifConnectorPresent" },
	{ 18, if_alias, "ifAlias" },
	{ 19, if_disc, "ifCounterDiscontinuityTime" },
};

static const struct gw_table ifx_table = {
	.name = "ifXTable",
	.base = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1 },
	.base_len = 10,
	.nindex = 1,
	.cols = ifx_cols,
	.ncols = sizeof(ifx_cols) / sizeof(ifx_cols[0]),
	.row_next = sma_data_ports,
};

int
gw_mib_if_init(void)
{
	if (gw_mib_register(&number_table) == -1 ||
	    gw_mib_register(&if_table) == -1 ||
	    gw_mib_register(&ifx_table) == -1)
		return -1;
	return 0;
}
