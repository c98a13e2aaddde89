/* perf: PerfMgt counters: PortCounters and PortCountersExtended at the
 * IBA's offsets, the other attributes at the offsets libibmad's field
 * tables give them. */
#include "config.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>

#include "codec/be.h"
#include "codec/perf.h"

#define PC(f, w, n)	{ PERF_ATTR_PORT_COUNTERS, f, w, n }
#define EXT(f, n)	{ PERF_ATTR_PORT_COUNTERS_EXT, f, 64, n }
#define VLP(i)		{ PERF_ATTR_VL_OP_PACKETS, \
			  IB_PC_PORT_VL_OP_PACKETS0_F + (i), 16, \
			  "PortVLOpPackets" #i }
#define VLD(i)		{ PERF_ATTR_VL_OP_DATA, \
			  IB_PC_PORT_VL_OP_DATA0_F + (i), 32, \
			  "PortVLOpData" #i }
const struct perf_ctr_def perf_ctrs[CTR_MAX] = {
	PC(IB_PC_ERR_SYM_F, 16, "SymbolErrorCounter"),
	PC(IB_PC_LINK_RECOVERS_F, 8, "LinkErrorRecoveryCounter"),
	PC(IB_PC_LINK_DOWNED_F, 8, "LinkDownedCounter"),
	PC(IB_PC_ERR_RCV_F, 16, "PortRcvErrors"),
	PC(IB_PC_ERR_PHYSRCV_F, 16, "PortRcvRemotePhysicalErrors"),
	PC(IB_PC_ERR_SWITCH_REL_F, 16, "PortRcvSwitchRelayErrors"),
	PC(IB_PC_XMT_DISCARDS_F, 16, "PortXmitDiscards"),
	PC(IB_PC_ERR_XMTCONSTR_F, 8, "PortXmitConstraintErrors"),
	PC(IB_PC_ERR_RCVCONSTR_F, 8, "PortRcvConstraintErrors"),
	PC(IB_PC_ERR_LOCALINTEG_F, 4, "LocalLinkIntegrityErrors"),
	PC(IB_PC_ERR_EXCESS_OVR_F, 4, "ExcessiveBufferOverrunErrors"),
	PC(IB_PC_VL15_DROPPED_F, 16, "VL15Dropped"),
	PC(IB_PC_XMT_BYTES_F, 32, "PortXmitData"),
	PC(IB_PC_RCV_BYTES_F, 32, "PortRcvData"),
	PC(IB_PC_XMT_PKTS_F, 32, "PortXmitPkts"),
	PC(IB_PC_RCV_PKTS_F, 32, "PortRcvPkts"),
	PC(IB_PC_XMT_WAIT_F, 32, "PortXmitWait"),
	EXT(IB_PC_EXT_XMT_BYTES_F, "PortXmitData64"),
	EXT(IB_PC_EXT_RCV_BYTES_F, "PortRcvData64"),
	EXT(IB_PC_EXT_XMT_PKTS_F, "PortXmitPkts64"),
	EXT(IB_PC_EXT_RCV_PKTS_F, "PortRcvPkts64"),
	EXT(IB_PC_EXT_XMT_UPKTS_F, "PortUnicastXmitPkts"),
	EXT(IB_PC_EXT_RCV_UPKTS_F, "PortUnicastRcvPkts"),
	EXT(IB_PC_EXT_XMT_MPKTS_F, "PortMulticastXmitPkts"),
	EXT(IB_PC_EXT_RCV_MPKTS_F, "PortMulticastRcvPkts"),
	{ PERF_ATTR_RCV_ERROR_DETAILS, IB_PC_RCV_LOCAL_PHY_ERR_F, 16,
	    "PortLocalPhysicalErrors" },
	{ PERF_ATTR_RCV_ERROR_DETAILS, IB_PC_RCV_MALFORMED_PKT_ERR_F, 16,
	    "PortMalformedPacketErrors" },
	{ PERF_ATTR_XMIT_DISCARD_DETAILS, IB_PC_XMT_INACT_DISC_F, 16,
	    "PortInactiveDiscards" },
	{ PERF_ATTR_XMIT_DISCARD_DETAILS, IB_PC_XMT_NEIGH_MTU_DISC_F, 16,
	    "PortNeighborMTUDiscards" },
	{ PERF_ATTR_XMIT_DISCARD_DETAILS, IB_PC_XMT_SW_LIFE_DISC_F, 16,
	    "PortSwLifetimeLimitDiscards" },
	{ PERF_ATTR_XMIT_DISCARD_DETAILS, IB_PC_XMT_SW_HOL_DISC_F, 16,
	    "PortSwHOQLimitDiscards" },
	{ PERF_ATTR_FLOW_CTL_COUNTERS, IB_PC_PORT_XMIT_FLOW_PKTS_F, 32,
	    "PortXmitFlowPkts" },
	{ PERF_ATTR_FLOW_CTL_COUNTERS, IB_PC_PORT_RCV_FLOW_PKTS_F, 32,
	    "PortRcvFlowPkts" },
	VLP(0), VLP(1), VLP(2), VLP(3), VLP(4), VLP(5), VLP(6), VLP(7),
	VLP(8), VLP(9), VLP(10), VLP(11), VLP(12), VLP(13), VLP(14), VLP(15),
	VLD(0), VLD(1), VLD(2), VLD(3), VLD(4), VLD(5), VLD(6), VLD(7),
	VLD(8), VLD(9), VLD(10), VLD(11), VLD(12), VLD(13), VLD(14), VLD(15),
};

int
perf_attr_ctrs(uint16_t attr, int *first, int *n)
{
	/* perf_ctrs keeps each attribute's counters together: its first
	 * row and count, found once (two lookups per counter answer). */
	static struct seen { uint16_t attr; int16_t first, n; } seen[16];
	static int nseen;
	int i;

	for (i = 0; i < nseen; i++)
		if (seen[i].attr == attr) {
			*first = seen[i].first;
			*n = seen[i].n;
			return *n ? 0 : -1;
		}
	*first = -1;
	*n = 0;
	for (i = 0; i < CTR_MAX; i++)
		if (perf_ctrs[i].attr == attr) {
			if (*first < 0)
				*first = i;
			(*n)++;
		}
	if (nseen < (int)(sizeof(seen) / sizeof(seen[0])))
		seen[nseen++] = (struct seen){ attr, (int16_t)*first,
		    (int16_t)*n };
	return *n ? 0 : -1;
}

/* Where each counter of the other attributes (16.1.4.x: the detail,
 * flow-control and per-VL ones) sits in the data field: its octets and
 * the shift and mask that leave its value. The layouts are libibmad's
 * field tables, read once by encoding a field of all ones; each answer
 * is then decoded with big-endian loads instead of a field-table walk
 * per counter. PortCounters and PortCountersExtended, which every poll
 * asks of every port, skip this table (perf_decode_pc below). */
struct perf_span {
	uint8_t		 off;		/* first octet */
	uint8_t		 len;		/* octets, 1-8 */
	uint8_t		 shift;		/* right shift after the load */
	uint64_t	 mask;
};

static struct perf_span	 perf_spans[CTR_MAX];
static int		 perf_spans_ok;

static void
perf_spans_init(void)
{
	for (int i = 0; i < CTR_MAX; i++) {
		uint8_t buf[PERF_DATA_SIZE] = { 0 };
		uint64_t ones = ~0ULL;
		uint32_t ones32 = ~0U;
		int lo = -1, hi = -1;
		struct perf_span *sp = &perf_spans[i];

		if (perf_ctrs[i].width == 64)
			mad_encode_field(buf, perf_ctrs[i].field, &ones);
		else
			mad_encode_field(buf, perf_ctrs[i].field, &ones32);
		for (int b = 0; b < PERF_DATA_SIZE; b++)
			if (buf[b] != 0) {
				if (lo < 0)
					lo = b;
				hi = b;
			}
		if (lo < 0 || hi - lo >= 8)
			continue;	/* len 0: libibmad decodes it */
		sp->off = (uint8_t)lo;
		sp->len = (uint8_t)(hi - lo + 1);
		/* The lowest set bit of the last octet is the value's LSB. */
		sp->shift = (uint8_t)__builtin_ctz(buf[hi]);
		sp->mask = perf_ctrs[i].width == 64 ? ~0ULL :
		    (1ULL << perf_ctrs[i].width) - 1;
	}
	perf_spans_ok = 1;
}

static inline uint64_t
span_get(const struct perf_span *sp, const uint8_t *d)
{
	const uint8_t *p = d + sp->off;
	uint64_t v = 0;
	uint32_t v32;
	uint16_t v16;

	switch (sp->len) {	/* the widths the attributes use */
	case 1:
		v = p[0];
		break;
	case 2:
		memcpy(&v16, p, 2);
		v = be16toh(v16);
		break;
	case 4:
		memcpy(&v32, p, 4);
		v = be32toh(v32);
		break;
	case 8:
		memcpy(&v, p, 8);
		v = be64toh(v);
		break;
	default:
		for (int b = 0; b < sp->len; b++)
			v = v << 8 | p[b];
	}
	return (v >> sp->shift) & sp->mask;
}

/* The two attributes of every counter poll, each read at its own
 * offsets in a row: IBA 16.1.3.5 (PortCounters) and 16.1.4.11
 * (PortCountersExtended). tests/unit/test_counters.c holds them to
 * libibmad's field tables on random answers. */
static void
perf_decode_pc(const uint8_t *d, uint64_t *v)
{
	v[CTR_SYMBOL_ERRORS] = ld16(d + 4);
	v[CTR_LINK_RECOVERS] = d[6];
	v[CTR_LINK_DOWNED] = d[7];
	v[CTR_RCV_ERRORS] = ld16(d + 8);
	v[CTR_RCV_REMOTE_PHYS] = ld16(d + 10);
	v[CTR_RCV_SWITCH_RELAY] = ld16(d + 12);
	v[CTR_XMIT_DISCARDS] = ld16(d + 14);
	v[CTR_XMIT_CONSTRAINT] = d[16];
	v[CTR_RCV_CONSTRAINT] = d[17];
	/* Octet 18 reserved; octet 19 holds two 4-bit counters. */
	v[CTR_LOCAL_INTEGRITY] = d[19] >> 4;
	v[CTR_EXCESS_OVERRUN] = d[19] & 0x0f;
	/* Octets 20-21 reserved. */
	v[CTR_VL15_DROPPED] = ld16(d + 22);
	v[CTR_XMIT_DATA] = ld32(d + 24);
	v[CTR_RCV_DATA] = ld32(d + 28);
	v[CTR_XMIT_PKTS] = ld32(d + 32);
	v[CTR_RCV_PKTS] = ld32(d + 36);
	v[CTR_XMIT_WAIT] = ld32(d + 40);
}

static void
perf_decode_pc_ext(const uint8_t *d, uint64_t *v)
{
	/* Octets 0-7: PortSelect, CounterSelect, reserved; then eight
	 * 64-bit counters. */
	v[CTR_EXT_XMIT_DATA] = ld64(d + 8);
	v[CTR_EXT_RCV_DATA] = ld64(d + 16);
	v[CTR_EXT_XMIT_PKTS] = ld64(d + 24);
	v[CTR_EXT_RCV_PKTS] = ld64(d + 32);
	v[CTR_EXT_XMIT_UPKTS] = ld64(d + 40);
	v[CTR_EXT_RCV_UPKTS] = ld64(d + 48);
	v[CTR_EXT_XMIT_MPKTS] = ld64(d + 56);
	v[CTR_EXT_RCV_MPKTS] = ld64(d + 64);
}

int
perf_decode(uint16_t attr, const uint8_t *d, size_t len, uint64_t *vals)
{
	int first, n;

	if (len < 64)
		return -1;
	if (attr == PERF_ATTR_PORT_COUNTERS) {
		perf_decode_pc(d, vals);
		return 0;
	}
	if (attr == PERF_ATTR_PORT_COUNTERS_EXT) {
		perf_decode_pc_ext(d, vals);
		return 0;
	}
	if (perf_attr_ctrs(attr, &first, &n) == -1)
		return -1;
	if (!perf_spans_ok)
		perf_spans_init();
	for (int i = first; i < first + n; i++) {
		uint32_t v32 = 0;

		if (perf_spans[i].len != 0)
			vals[i] = span_get(&perf_spans[i], d);
		else if (perf_ctrs[i].width == 64)
			mad_decode_field((uint8_t *)d, perf_ctrs[i].field,
			    &vals[i]);
		else {
			mad_decode_field((uint8_t *)d, perf_ctrs[i].field,
			    &v32);
			vals[i] = v32;
		}
	}
	return 0;
}

uint32_t
perf_cpi_capmask(const uint8_t *d, size_t len)
{
	uint32_t v = 0;

	if (len >= 8)
		mad_decode_field((uint8_t *)d, IB_CPI_CAPMASK_F, &v);
	return v;
}

uint32_t
perf_cpi_capmask2(const uint8_t *d, size_t len)
{
	uint32_t v = 0;

	/* Octets 4-7: CapabilityMask2 (27 bits), RespTimeValue (5). */
	if (len >= 8)
		mad_decode_field((uint8_t *)d, IB_CPI_CAPMASK2_F, &v);
	return v;
}

/* IBA 1.3 16.1.4.11 (PortCountersExtended): after the eight data
 * counters, from octet 72, SymbolErrorCounter .. VL15Dropped in
 * PortCounters' order, then PortXmitWait at 168 and QP1Dropped at
 * 176, each 64 bits. */
int
perf_decode_ext_addl(const uint8_t *d, size_t len, uint64_t *v)
{
	if (len < 184)
		return -1;
	for (int i = CTR_SYMBOL_ERRORS; i <= CTR_VL15_DROPPED; i++)
		v[i] = ld64(d + 72 + 8 * (i - CTR_SYMBOL_ERRORS));
	v[CTR_XMIT_WAIT] = ld64(d + 168);
	return 0;
}

const char *
perf_addl_name(int i)
{
	static char names[CTR_XMIT_WAIT + 1][40];

	if (!perf_ctr_addl(i))
		return perf_ctrs[i].name;
	if (names[i][0] == '\0')
		snprintf(names[i], sizeof(names[i]), "%s64",
		    perf_ctrs[i].name);
	return names[i];
}

uint32_t
perf_xmit_wait_ppm(uint64_t ticks, uint64_t interval_ms, uint64_t rate_mbps)
{
	/* waited = ticks x octets x 8 bits / (rate_mbps x 10^6) s, over
	 * interval_ms / 10^3 s, times 10^6: in long double, as ticks x
	 * 512,000 overflows 64 bits past 3.6 x 10^13 ticks. */
	long double ppm;

	if (interval_ms == 0 || rate_mbps == 0)
		return 0;
	ppm = (long double)ticks * PERF_XMIT_WAIT_TICK_OCTETS * 8 * 1000 /
	    ((long double)rate_mbps * interval_ms);
	return ppm >= 1000000 ? 1000000 : (uint32_t)(ppm + 0.5L);
}
