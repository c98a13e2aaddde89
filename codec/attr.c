/* attr: the attribute catalogue. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "codec/attr.h"
#include "codec/perf.h"
#include "codec/smp.h"

const struct attr_ttl_def attr_ttls[ATTR_TTL_MAX] = {
	[ATTR_TTL_NODEINFO] =	{ "nodeinfo", 300 },
	[ATTR_TTL_NODEDESC] =	{ "nodedesc", 3600 },
	[ATTR_TTL_PORTINFO] =	{ "portinfo", 30 },
	[ATTR_TTL_SWITCHINFO] =	{ "switchinfo", 60 },
	[ATTR_TTL_TABLES] =	{ "tables", 300 },
	[ATTR_TTL_FDB] =	{ "forwarding", 60 },
	[ATTR_TTL_COUNTERS] =	{ "counters", 60 },
	[ATTR_TTL_SA] =		{ "sa", 60 },
	[ATTR_TTL_ERROR] =	{ "error", 5 },
};

const struct attr_poll_group attr_poll_groups[] = {
	{ "nodeinfo", ATTR_POLL_NODEINFO },
	{ "portinfo", ATTR_POLL_PORTINFO },
	{ "counters", ATTR_POLL_COUNTERS },
	{ "error-details", ATTR_POLL_ERROR_DETAILS },
	{ "forwarding", ATTR_POLL_FORWARDING },
	{ "vl-counters", ATTR_POLL_VL_COUNTERS },
};
const size_t attr_npoll_groups = sizeof(attr_poll_groups) /
    sizeof(attr_poll_groups[0]);

/* Decoders with the catalogue's signature. */

static int
dec_nodedesc(const uint8_t *d, size_t len, void *out)
{
	return smp_decode_nodedesc(d, len, out, SMP_DESC_LEN + 1);
}

static int
dec_nodeinfo(const uint8_t *d, size_t len, void *out)
{
	return smp_decode_nodeinfo(d, len, out);
}

static int
dec_switchinfo(const uint8_t *d, size_t len, void *out)
{
	return smp_decode_switchinfo(d, len, out);
}

static int
dec_portinfo(const uint8_t *d, size_t len, void *out)
{
	return smp_decode_portinfo(d, len, out);
}

static int
dec_sminfo(const uint8_t *d, size_t len, void *out)
{
	return smp_decode_sminfo(d, len, out);
}

static int
dec_fec(const uint8_t *d, size_t len, void *out)
{
	return smp_decode_fec_active(d, len, out);
}

#define SMP(i, n, dec, t, u, p, s, f) \
	{ ATTR_CLASS_SMI_DR, i, n, SMP_DATA_SIZE, dec, t, u, p, s, f }
#define PERF(i, n, l, t, u, p, s) \
	{ ATTR_CLASS_PERF, i, n, l, NULL, t, u, p, s, 0 }

const struct attr_def attr_defs[ATTR_MAX] = {
	/* IBA 14.2.5 Table 145. NodeInfo, NodeDescription, SwitchInfo and
	 * PortInfo every SMA has; the rest may be missing. */
	[ATTR_NODE_DESC] = SMP(SMP_ATTR_NODE_DESC, "NodeDescription",
	    dec_nodedesc, ATTR_TTL_NODEDESC, 0, ATTR_POLL_NODEINFO,
	    ATTR_SCOPE_NODE, 0),
	[ATTR_NODE_INFO] = SMP(SMP_ATTR_NODE_INFO, "NodeInfo", dec_nodeinfo,
	    ATTR_TTL_NODEINFO, 0, ATTR_POLL_NODEINFO, ATTR_SCOPE_NODE, 0),
	[ATTR_SWITCH_INFO] = SMP(SMP_ATTR_SWITCH_INFO, "SwitchInfo",
	    dec_switchinfo, ATTR_TTL_SWITCHINFO, 0, ATTR_POLL_FORWARDING,
	    ATTR_SCOPE_NODE, ATTR_F_SWITCH),
	[ATTR_GUID_INFO] = SMP(SMP_ATTR_GUID_INFO, "GUIDInfo", NULL,
	    ATTR_TTL_TABLES, 0x20, 0, ATTR_SCOPE_BLOCK, 0),
	[ATTR_PORT_INFO] = SMP(SMP_ATTR_PORT_INFO, "PortInfo", dec_portinfo,
	    ATTR_TTL_PORTINFO, 0, ATTR_POLL_PORTINFO, ATTR_SCOPE_PORT, 0),
	[ATTR_PKEY_TABLE] = SMP(SMP_ATTR_PKEY_TABLE, "P_KeyTable", NULL,
	    ATTR_TTL_TABLES, 0x100, 0, ATTR_SCOPE_BLOCK, 0),
	[ATTR_SL2VL_TABLE] = SMP(SMP_ATTR_SL2VL_TABLE, "SLtoVLMappingTable",
	    NULL, ATTR_TTL_TABLES, 0x40, 0, ATTR_SCOPE_BLOCK, 0),
	[ATTR_VLARB_TABLE] = SMP(SMP_ATTR_VLARB_TABLE, "VLArbitrationTable",
	    NULL, ATTR_TTL_TABLES, 0x80, 0, ATTR_SCOPE_BLOCK, 0),
	[ATTR_LFT] = SMP(SMP_ATTR_LFT, "LinearForwardingTable", NULL,
	    ATTR_TTL_FDB, 0, ATTR_POLL_FORWARDING, ATTR_SCOPE_BLOCK,
	    ATTR_F_SWITCH),
	[ATTR_RFT] = SMP(SMP_ATTR_RFT, "RandomForwardingTable", NULL,
	    ATTR_TTL_FDB, 0x08, 0, ATTR_SCOPE_BLOCK, ATTR_F_SWITCH),
	[ATTR_MFT] = SMP(SMP_ATTR_MFT, "MulticastForwardingTable", NULL,
	    ATTR_TTL_FDB, 0x10, 0, ATTR_SCOPE_BLOCK, ATTR_F_SWITCH),
	[ATTR_SM_INFO] = SMP(SMP_ATTR_SM_INFO, "SMInfo", dec_sminfo,
	    ATTR_TTL_SWITCHINFO, 0x04, 0, ATTR_SCOPE_NODE, 0),
	[ATTR_VENDOR_DIAG] = SMP(SMP_ATTR_VENDOR_DIAG, "VendorDiag", NULL,
	    ATTR_TTL_TABLES, 0x01, 0, ATTR_SCOPE_BLOCK, 0),
	[ATTR_LED_INFO] = SMP(SMP_ATTR_LED_INFO, "LedInfo", NULL,
	    ATTR_TTL_TABLES, 0x02, 0, ATTR_SCOPE_PORT, 0),
	/* IBA 1.3 14.2.5.22; read where CapabilityMask2 says so. */
	[ATTR_PORT_INFO_EXT] = SMP(SMP_ATTR_PORT_INFO_EXT,
	    "PortInfoExtended", dec_fec, ATTR_TTL_PORTINFO, 0x4000, 0,
	    ATTR_SCOPE_PORT, 0),

	/* IBA 16.1.2 Table 226. PortCounters is mandatory (16.1.3.5);
	 * PortCountersExtended is there when ClassPortInfo says so. The
	 * lengths are the attributes' (Tables 227-240). */
	[ATTR_PERF_CLASS_PORT_INFO] = PERF(PERF_ATTR_CLASS_PORT_INFO,
	    "ClassPortInfo", 72, ATTR_TTL_TABLES, 0, ATTR_POLL_PERF,
	    ATTR_SCOPE_NODE),
	[ATTR_PORT_COUNTERS] = PERF(PERF_ATTR_PORT_COUNTERS, "PortCounters",
	    44, ATTR_TTL_COUNTERS, 0, ATTR_POLL_COUNTERS, ATTR_SCOPE_PORT),
	[ATTR_RCV_ERROR_DETAILS] = PERF(PERF_ATTR_RCV_ERROR_DETAILS,
	    "PortRcvErrorDetails", 12, ATTR_TTL_COUNTERS, 0x400,
	    ATTR_POLL_ERROR_DETAILS, ATTR_SCOPE_PORT),
	[ATTR_XMIT_DISCARD_DETAILS] = PERF(PERF_ATTR_XMIT_DISCARD_DETAILS,
	    "PortXmitDiscardDetails", 12, ATTR_TTL_COUNTERS, 0x800,
	    ATTR_POLL_ERROR_DETAILS, ATTR_SCOPE_PORT),
	[ATTR_FLOW_CTL_COUNTERS] = PERF(PERF_ATTR_FLOW_CTL_COUNTERS,
	    "PortFlowCtlCounters", 12, ATTR_TTL_COUNTERS, 0x200,
	    ATTR_POLL_COUNTERS, ATTR_SCOPE_PORT),
	[ATTR_VL_OP_PACKETS] = PERF(PERF_ATTR_VL_OP_PACKETS,
	    "PortVLOpPackets", 36, ATTR_TTL_COUNTERS, 0x1000,
	    ATTR_POLL_VL_COUNTERS, ATTR_SCOPE_PORT),
	[ATTR_VL_OP_DATA] = PERF(PERF_ATTR_VL_OP_DATA, "PortVLOpData", 68,
	    ATTR_TTL_COUNTERS, 0x2000, ATTR_POLL_VL_COUNTERS,
	    ATTR_SCOPE_PORT),
	[ATTR_PORT_COUNTERS_EXT] = PERF(PERF_ATTR_PORT_COUNTERS_EXT,
	    "PortCountersExtended", 72, ATTR_TTL_COUNTERS, 0,
	    ATTR_POLL_COUNTERS, ATTR_SCOPE_PORT),
};

/* IDs below 0x40 index directly: every catalogued ID is. */
#define ATTR_DIRECT	0x40

const struct attr_def *
attr_find(uint8_t mclass, uint16_t id)
{
	int i = attr_index(mclass, id);

	return i < 0 ? NULL : &attr_defs[i];
}

int
attr_index(uint8_t mclass, uint16_t id)
{
	static int8_t smp[ATTR_DIRECT], perf[ATTR_DIRECT];
	static int ready;
	int8_t *tab;

	if (!ready) {
		memset(smp, -1, sizeof(smp));
		memset(perf, -1, sizeof(perf));
		for (int i = 0; i < ATTR_MAX; i++) {
			const struct attr_def *a = &attr_defs[i];
			tab = a->mclass == ATTR_CLASS_PERF ? perf : smp;
			if (a->id < ATTR_DIRECT)
				tab[a->id] = (int8_t)i;
		}
		ready = 1;
	}
	if (mclass == ATTR_CLASS_PERF)
		tab = perf;
	else if (mclass == ATTR_CLASS_SMI_DR || mclass == ATTR_CLASS_SMI)
		tab = smp;
	else
		return -1;
	return id < ATTR_DIRECT ? tab[id] : -1;
}

const char *
attr_unsup_names(unsigned set, char *buf, size_t len)
{
	size_t off = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < ATTR_MAX && off < len; i++) {
		if (!(set & attr_defs[i].unsup))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		    off ? "," : "", attr_defs[i].name);
	}
	if (buf[0] == '\0')
		snprintf(buf, len, "-");
	return buf;
}
