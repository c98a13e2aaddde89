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

#include "codec/attr.h"
#include "codec/perf.h"
#include "codec/smp.h"
#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/notify.h"
#include "gateway/mib/node.h"
#include "store/counters.h"

/* A port's IF-MIB counters per draft-ietf-ipoib-ibif-mib 3.4. */
struct if_counts {
	uint64_t		 in_octets, in_pkts, in_discards, in_errors;
	uint64_t		 out_octets, out_pkts, out_discards;
	/* ifHC*Ucast/Multicast: PortCountersExtended's unicast and
	 * multicast counters where the PMA has them, else the packet
	 * counters and zero. */
	uint64_t		 hc_in_ucast, hc_in_mcast, hc_out_ucast,
				 hc_out_mcast;
	uint32_t		 disc_ticks;
};

/* Counters of a port: 0, or GW_NEED while they are read. */
static int
if_counters(struct gw_eval *e, uint32_t port, struct if_counts *c)
{
	const struct ctr_port *p;
	const uint8_t *cpi;
	uint32_t cap;
	int ext, ietf, flow, unsup, rc;

	/* ClassPortInfo says whether PortCountersExtended exists (IBA
	 * 16.1.2); PortFlowCtlCounters is optional. */
	if ((cpi = gw_perf_attr(e, ATTR_PERF_CLASS_PORT_INFO, 0)) == NULL)
		return GW_NEED;
	cap = perf_cpi_capmask(cpi, PERF_DATA_SIZE);
	ext = (cap & (PERF_CAP_EXT_WIDTH | PERF_CAP_EXT_WIDTH_NOIETF)) != 0;
	ietf = (cap & PERF_CAP_EXT_WIDTH) != 0;
	if ((rc = gw_port_ctrs(e, port, ext, &p)) == GW_NEED)
		return GW_NEED;
	if (rc == GW_STALE) {
		/* Only what was read before counts. */
		ext = ext && ctr_valid(&p->c[CTR_EXT_XMIT_DATA]);
		ietf = ietf && ext;
		flow = ctr_valid(&p->c[CTR_XMIT_FLOW_PKTS]);
	} else {
		flow = gw_perf_attr_opt(e, ATTR_FLOW_CTL_COUNTERS, port,
		    &unsup) != NULL;
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

	c->in_octets = rd * 4 + rp * GW_IF_POH;
	c->out_octets = xd * 4 + xp * GW_IF_POH;
	if (flow) {
		c->in_octets += T(CTR_RCV_FLOW_PKTS) * GW_IF_SLP;
		c->out_octets += T(CTR_XMIT_FLOW_PKTS) * GW_IF_SLP;
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
	GW_GET(ifNumber, if_number),
};

static const struct gw_table number_table = {
	.name = "interfaces",
	.GW_OID(GW_OID_interfaces),
	.GW_COLS(number_cols),
};

/* ifTable */

static int
port_pi(struct gw_eval *e, const struct gw_row *row, struct smp_portinfo *pi)
{
	return gw_portinfo(e, row->i[0], pi);
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
IF_PI(if_speed, gw_val_gauge(v, speed_bps(&p)))
IF_PI(if_high_speed, gw_val_gauge(v, speed_bps(&p) / 1000000))

static int
if_phys(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_portinfo p;
	uint8_t b[2];
	int rc;

	/* The port's base LID; a switch's ports answer with port 0's
	 * (IB-IF-MIB 3.2.7); empty while there is none. */
	if (gw_is_switch(gw_node(e)))
		rc = gw_portinfo(e, 0, &p);
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
	GW_GET(ifIndex, if_index),
	GW_GET(ifDescr, if_descr),
	GW_GET(ifType, if_type),
	GW_GET(ifMtu, if_mtu),
	GW_GET(ifSpeed, if_speed),
	GW_GET(ifPhysAddress, if_phys),
	GW_GET(ifAdminStatus, if_admin),
	GW_GET(ifOperStatus, if_oper),
	GW_GET(ifLastChange, if_last_change),
	GW_GET(ifInOctets, if_in_octets),
	GW_GET(ifInUcastPkts, if_in_ucast),
	GW_GET(ifInDiscards, if_in_discards),
	GW_GET(ifInErrors, if_in_errors),
	GW_GET(ifInUnknownProtos, zero32),
	GW_GET(ifOutOctets, if_out_octets),
	GW_GET(ifOutUcastPkts, if_out_ucast),
	GW_GET(ifOutDiscards, if_out_discards),
	GW_GET(ifOutErrors, zero32),
};

static const struct gw_table if_table = {
	.name = "ifTable",
	.GW_OID(GW_OID_ifEntry),
	.nindex = 1,
	.GW_COLS(if_cols),
	.row_next = gw_data_ports,
};

/* ifXTable */

static int
if_name(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	char s[16];

	return gw_val_octets(v, s, gw_port_ifname(row->i[0], s, sizeof(s)));
}

static int
int_const(struct gw_val *v, long l)
{
	return gw_val_int(v, l);
}

static int
if_trap_enable(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	/* notify.link-updown-disabled; else enabled(1), as RFC 2863
	 * 3.1.3 advises for interfaces that are not sub-layers. */
	return int_const(v, gw_notify_updown_enabled(gw_node(e),
	    (int)row->i[0]) ? 1 : 2);
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
	GW_GET(ifName, if_name),
	GW_GET(ifInMulticastPkts, zero32),	/* 3.2.7: never moves */
	GW_GET(ifInBroadcastPkts, zero32),
	GW_GET(ifOutMulticastPkts, zero32),
	GW_GET(ifOutBroadcastPkts, zero32),
	GW_GET(ifHCInOctets, if_hc_in_octets),
	GW_GET(ifHCInUcastPkts, if_hc_in_ucast),
	GW_GET(ifHCInMulticastPkts, if_hc_in_mcast),
	GW_GET(ifHCInBroadcastPkts, zero64),
	GW_GET(ifHCOutOctets, if_hc_out_octets),
	GW_GET(ifHCOutUcastPkts, if_hc_out_ucast),
	GW_GET(ifHCOutMulticastPkts, if_hc_out_mcast),
	GW_GET(ifHCOutBroadcastPkts, zero64),
	GW_GET(ifLinkUpDownTrapEnable, if_trap_enable),
	GW_GET(ifHighSpeed, if_high_speed),
	GW_GET(ifPromiscuousMode, if_false),
	GW_GET(ifConnectorPresent, if_true),
	GW_GET(ifAlias, if_alias),
	GW_GET(ifCounterDiscontinuityTime, if_disc),
};

static const struct gw_table ifx_table = {
	.name = "ifXTable",
	.GW_OID(GW_OID_ifXEntry),
	.nindex = 1,
	.GW_COLS(ifx_cols),
	.row_next = gw_data_ports,
};

static const struct gw_table *const tables[] = {
	&number_table, &if_table, &ifx_table, NULL
};

const struct gw_mib_module gw_mod_if_mib = {
	.name = "IF-MIB",
	.tables = tables,
};
