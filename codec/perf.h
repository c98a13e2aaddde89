/* perf: PerfMgt (class 0x04) attributes and counter catalogue
 * (IBA 16.1). Every counter the gateway accumulates has an ID, the
 * attribute it comes from, its libibmad field and its width in bits. */
#ifndef IBSNMPGW_CODEC_PERF_H
#define IBSNMPGW_CODEC_PERF_H

#include <stddef.h>
#include <stdint.h>

/* IBA 16.1.2 Table 226 (PerfMgt attributes). */
#define PERF_ATTR_CLASS_PORT_INFO	0x0001
#define PERF_ATTR_PORT_COUNTERS		0x0012
#define PERF_ATTR_RCV_ERROR_DETAILS	0x0015
#define PERF_ATTR_XMIT_DISCARD_DETAILS	0x0016
#define PERF_ATTR_FLOW_CTL_COUNTERS	0x0018
#define PERF_ATTR_VL_OP_PACKETS		0x0019
#define PERF_ATTR_VL_OP_DATA		0x001a
#define PERF_ATTR_PORT_COUNTERS_EXT	0x001d

/* ClassPortInfo:CapabilityMask (IBA 16.1.2): PortCountersExtended with
 * and without the unicast/multicast counters. */
#define PERF_CAP_EXT_WIDTH		(1u << 9)
#define PERF_CAP_EXT_WIDTH_NOIETF	(1u << 10)
/* ClassPortInfo:CapabilityMask2 bit 1,
 * IsAdditionalPortCountersExtendedSupported (IBA 1.3 16.1.2): the
 * answer to PortCountersExtended also carries 64-bit copies of the
 * PortCounters error counters and of PortXmitWait (16.1.4.11). */
#define PERF_CAP2_ADDL_EXT		(1u << 1)

/* IBA 16.1.3: the PerfMgt data field. */
#define PERF_DATA_OFFS	64
#define PERF_DATA_SIZE	192

#define PERF_NVL	16	/* VL0..VL15 */

enum perf_ctr {
	/* PortCounters (Table 227) */
	CTR_SYMBOL_ERRORS, CTR_LINK_RECOVERS, CTR_LINK_DOWNED, CTR_RCV_ERRORS,
	CTR_RCV_REMOTE_PHYS, CTR_RCV_SWITCH_RELAY, CTR_XMIT_DISCARDS,
	CTR_XMIT_CONSTRAINT, CTR_RCV_CONSTRAINT, CTR_LOCAL_INTEGRITY,
	CTR_EXCESS_OVERRUN, CTR_VL15_DROPPED, CTR_XMIT_DATA, CTR_RCV_DATA,
	CTR_XMIT_PKTS, CTR_RCV_PKTS, CTR_XMIT_WAIT,
	/* PortCountersExtended (Table 240) */
	CTR_EXT_XMIT_DATA, CTR_EXT_RCV_DATA, CTR_EXT_XMIT_PKTS,
	CTR_EXT_RCV_PKTS, CTR_EXT_XMIT_UPKTS, CTR_EXT_RCV_UPKTS,
	CTR_EXT_XMIT_MPKTS, CTR_EXT_RCV_MPKTS,
	/* PortRcvErrorDetails (Table 230) */
	CTR_RCV_LOCAL_PHYS, CTR_RCV_MALFORMED,
	/* PortXmitDiscardDetails (Table 231) */
	CTR_XMIT_INACTIVE, CTR_XMIT_NEIGHBOR_MTU, CTR_XMIT_SW_LIFETIME,
	CTR_XMIT_SW_HOQ,
	/* PortFlowCtlCounters (Table 233) */
	CTR_XMIT_FLOW_PKTS, CTR_RCV_FLOW_PKTS,
	/* PortVLOpPackets (16 x 16 bits) and PortVLOpData (16 x 32 bits,
	 * in 4-octet words), VL0..VL15 */
	CTR_VL_OP_PKTS0,
	CTR_VL_OP_DATA0 = CTR_VL_OP_PKTS0 + PERF_NVL,
	CTR_MAX = CTR_VL_OP_DATA0 + PERF_NVL
};

struct perf_ctr_def {
	uint16_t	 attr;
	int		 field;		/* enum MAD_FIELDS */
	uint8_t		 width;		/* bits */
	const char	*name;		/* IBA name, for logs and SQL */
};

extern const struct perf_ctr_def perf_ctrs[CTR_MAX];

/* The counters an attribute carries: [*first, *first + *n). */
int	perf_attr_ctrs(uint16_t attr, int *first, int *n);
/* Decode the counters of attr from the 192-octet PerfMgt data field. */
int	perf_decode(uint16_t attr, const uint8_t *data, size_t len,
	    uint64_t *vals);
uint32_t perf_cpi_capmask(const uint8_t *data, size_t len);
/* CapabilityMask2 (27 bits) of a PerfMgt ClassPortInfo. */
uint32_t perf_cpi_capmask2(const uint8_t *data, size_t len);

/* The PortCounters counters that PortCountersExtended also carries as
 * 64-bit counters where CapabilityMask2 has PERF_CAP2_ADDL_EXT: the
 * twelve error counters and PortXmitWait. */
static inline int
perf_ctr_addl(int i)
{
	return (i >= CTR_SYMBOL_ERRORS && i <= CTR_VL15_DROPPED) ||
	    i == CTR_XMIT_WAIT;
}
/* Decode those 64-bit copies from a PortCountersExtended data field
 * into vals[] at their PortCounters indexes; -1 if too short. */
int	perf_decode_ext_addl(const uint8_t *data, size_t len, uint64_t *vals);
/* The name a counter fed from its 64-bit copy is saved under (the
 * IBA name and "64", as the extended data counters'). */
const char *perf_addl_name(int i);

/* PortXmitWait ticks as a share of an interval, in parts per million
 * (docs/health.md, "Congestion"): a tick taken as the time the port
 * needs to send PERF_XMIT_WAIT_TICK_OCTETS at its data rate. 0 when
 * the rate or the interval is unknown; at most 1,000,000. */
#define PERF_XMIT_WAIT_TICK_OCTETS	64
uint32_t perf_xmit_wait_ppm(uint64_t ticks, uint64_t interval_ms,
	    uint64_t rate_mbps);

#endif
