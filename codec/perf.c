/* proxy_perf: PerfMgt counters, decoded with libibmad's field tables. */
#include "config.h"

#include <string.h>

#include <infiniband/mad.h>

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

int
perf_decode(uint16_t attr, const uint8_t *d, size_t len, uint64_t *vals)
{
	int first, n;

	if (len < 64 || perf_attr_ctrs(attr, &first, &n) == -1)
		return -1;
	for (int i = first; i < first + n; i++) {
		uint64_t v = 0;

		if (perf_ctrs[i].width == 64)
			mad_decode_field((uint8_t *)d, perf_ctrs[i].field, &v);
		else {
			uint32_t v32 = 0;
			mad_decode_field((uint8_t *)d, perf_ctrs[i].field,
			    &v32);
			v = v32;
		}
		vals[i] = v;
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
