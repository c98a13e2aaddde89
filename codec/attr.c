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

/* Designated fields: a row names what it sets, and what it leaves out
 * is 0 (no unsup bit, no poll group, no flag). */
#define SMP_ROW		.mclass = ATTR_CLASS_SMI_DR, .min_len = SMP_DATA_SIZE
#define PERF_ROW	.mclass = ATTR_CLASS_PERF

const struct attr_def attr_defs[ATTR_MAX] = {
	/* IBA 14.2.5 Table 145. NodeInfo, NodeDescription, SwitchInfo and
	 * PortInfo every SMA has; the rest may be missing. */
	[ATTR_NODE_DESC] = { SMP_ROW, .id = SMP_ATTR_NODE_DESC,
	    .name = "NodeDescription", .decode = dec_nodedesc,
	    .ttl = ATTR_TTL_NODEDESC, .poll = ATTR_POLL_NODEINFO,
	    .scope = ATTR_SCOPE_NODE },
	[ATTR_NODE_INFO] = { SMP_ROW, .id = SMP_ATTR_NODE_INFO,
	    .name = "NodeInfo", .decode = dec_nodeinfo,
	    .ttl = ATTR_TTL_NODEINFO, .poll = ATTR_POLL_NODEINFO,
	    .scope = ATTR_SCOPE_NODE },
	[ATTR_SWITCH_INFO] = { SMP_ROW, .id = SMP_ATTR_SWITCH_INFO,
	    .name = "SwitchInfo", .decode = dec_switchinfo,
	    .ttl = ATTR_TTL_SWITCHINFO, .poll = ATTR_POLL_FORWARDING,
	    .scope = ATTR_SCOPE_NODE, .flags = ATTR_F_SWITCH },
	[ATTR_GUID_INFO] = { SMP_ROW, .id = SMP_ATTR_GUID_INFO,
	    .name = "GUIDInfo", .ttl = ATTR_TTL_TABLES,
	    .unsup = ATTR_UNSUP_GUID_INFO, .scope = ATTR_SCOPE_BLOCK },
	[ATTR_PORT_INFO] = { SMP_ROW, .id = SMP_ATTR_PORT_INFO,
	    .name = "PortInfo", .decode = dec_portinfo,
	    .ttl = ATTR_TTL_PORTINFO, .poll = ATTR_POLL_PORTINFO,
	    .scope = ATTR_SCOPE_PORT },
	[ATTR_PKEY_TABLE] = { SMP_ROW, .id = SMP_ATTR_PKEY_TABLE,
	    .name = "P_KeyTable", .ttl = ATTR_TTL_TABLES,
	    .unsup = ATTR_UNSUP_PKEY_TABLE, .scope = ATTR_SCOPE_BLOCK },
	[ATTR_SL2VL_TABLE] = { SMP_ROW, .id = SMP_ATTR_SL2VL_TABLE,
	    .name = "SLtoVLMappingTable", .ttl = ATTR_TTL_TABLES,
	    .unsup = ATTR_UNSUP_SL2VL_TABLE, .scope = ATTR_SCOPE_BLOCK },
	[ATTR_VLARB_TABLE] = { SMP_ROW, .id = SMP_ATTR_VLARB_TABLE,
	    .name = "VLArbitrationTable", .ttl = ATTR_TTL_TABLES,
	    .unsup = ATTR_UNSUP_VLARB_TABLE, .scope = ATTR_SCOPE_BLOCK },
	[ATTR_LFT] = { SMP_ROW, .id = SMP_ATTR_LFT,
	    .name = "LinearForwardingTable", .ttl = ATTR_TTL_FDB,
	    .poll = ATTR_POLL_FORWARDING, .scope = ATTR_SCOPE_BLOCK,
	    .flags = ATTR_F_SWITCH },
	[ATTR_RFT] = { SMP_ROW, .id = SMP_ATTR_RFT,
	    .name = "RandomForwardingTable", .ttl = ATTR_TTL_FDB,
	    .unsup = ATTR_UNSUP_RFT, .scope = ATTR_SCOPE_BLOCK,
	    .flags = ATTR_F_SWITCH },
	[ATTR_MFT] = { SMP_ROW, .id = SMP_ATTR_MFT,
	    .name = "MulticastForwardingTable", .ttl = ATTR_TTL_FDB,
	    .unsup = ATTR_UNSUP_MFT, .scope = ATTR_SCOPE_BLOCK,
	    .flags = ATTR_F_SWITCH },
	[ATTR_SM_INFO] = { SMP_ROW, .id = SMP_ATTR_SM_INFO, .name = "SMInfo",
	    .decode = dec_sminfo, .ttl = ATTR_TTL_SWITCHINFO,
	    .unsup = ATTR_UNSUP_SM_INFO, .scope = ATTR_SCOPE_NODE },
	[ATTR_VENDOR_DIAG] = { SMP_ROW, .id = SMP_ATTR_VENDOR_DIAG,
	    .name = "VendorDiag", .ttl = ATTR_TTL_TABLES,
	    .unsup = ATTR_UNSUP_VENDOR_DIAG, .scope = ATTR_SCOPE_BLOCK },
	[ATTR_LED_INFO] = { SMP_ROW, .id = SMP_ATTR_LED_INFO,
	    .name = "LedInfo", .ttl = ATTR_TTL_TABLES,
	    .unsup = ATTR_UNSUP_LED_INFO, .scope = ATTR_SCOPE_PORT },
	/* IBA 1.3 14.2.5.22; read where CapabilityMask2 says so. */
	[ATTR_PORT_INFO_EXT] = { SMP_ROW, .id = SMP_ATTR_PORT_INFO_EXT,
	    .name = "PortInfoExtended", .decode = dec_fec,
	    .ttl = ATTR_TTL_PORTINFO, .unsup = ATTR_UNSUP_PORT_INFO_EXT,
	    .scope = ATTR_SCOPE_PORT },
	/* IBA 16.1.2 Table 226. PortCounters is mandatory (16.1.3.5);
	 * PortCountersExtended is there when ClassPortInfo says so. The
	 * lengths are the attributes' (Tables 227-240). */
	[ATTR_PERF_CLASS_PORT_INFO] = { PERF_ROW,
	    .id = PERF_ATTR_CLASS_PORT_INFO, .name = "ClassPortInfo",
	    .min_len = 72, .ttl = ATTR_TTL_TABLES, .poll = ATTR_POLL_PERF,
	    .scope = ATTR_SCOPE_NODE },
	[ATTR_PORT_COUNTERS] = { PERF_ROW, .id = PERF_ATTR_PORT_COUNTERS,
	    .name = "PortCounters", .min_len = 44, .ttl = ATTR_TTL_COUNTERS,
	    .poll = ATTR_POLL_COUNTERS, .scope = ATTR_SCOPE_PORT },
	[ATTR_RCV_ERROR_DETAILS] = { PERF_ROW,
	    .id = PERF_ATTR_RCV_ERROR_DETAILS, .name = "PortRcvErrorDetails",
	    .min_len = 12, .ttl = ATTR_TTL_COUNTERS,
	    .unsup = ATTR_UNSUP_RCV_ERROR_DETAILS,
	    .poll = ATTR_POLL_ERROR_DETAILS, .scope = ATTR_SCOPE_PORT },
	[ATTR_XMIT_DISCARD_DETAILS] = { PERF_ROW,
	    .id = PERF_ATTR_XMIT_DISCARD_DETAILS,
	    .name = "PortXmitDiscardDetails", .min_len = 12,
	    .ttl = ATTR_TTL_COUNTERS, .unsup = ATTR_UNSUP_XMIT_DISCARD_DETAILS,
	    .poll = ATTR_POLL_ERROR_DETAILS, .scope = ATTR_SCOPE_PORT },
	[ATTR_FLOW_CTL_COUNTERS] = { PERF_ROW,
	    .id = PERF_ATTR_FLOW_CTL_COUNTERS, .name = "PortFlowCtlCounters",
	    .min_len = 12, .ttl = ATTR_TTL_COUNTERS,
	    .unsup = ATTR_UNSUP_FLOW_CTL_COUNTERS, .poll = ATTR_POLL_COUNTERS,
	    .scope = ATTR_SCOPE_PORT },
	[ATTR_VL_OP_PACKETS] = { PERF_ROW, .id = PERF_ATTR_VL_OP_PACKETS,
	    .name = "PortVLOpPackets", .min_len = 36, .ttl = ATTR_TTL_COUNTERS,
	    .unsup = ATTR_UNSUP_VL_OP_PACKETS, .poll = ATTR_POLL_VL_COUNTERS,
	    .scope = ATTR_SCOPE_PORT },
	[ATTR_VL_OP_DATA] = { PERF_ROW, .id = PERF_ATTR_VL_OP_DATA,
	    .name = "PortVLOpData", .min_len = 68, .ttl = ATTR_TTL_COUNTERS,
	    .unsup = ATTR_UNSUP_VL_OP_DATA, .poll = ATTR_POLL_VL_COUNTERS,
	    .scope = ATTR_SCOPE_PORT },
	[ATTR_PORT_COUNTERS_EXT] = { PERF_ROW,
	    .id = PERF_ATTR_PORT_COUNTERS_EXT, .name = "PortCountersExtended",
	    .min_len = 72, .ttl = ATTR_TTL_COUNTERS,
	    .poll = ATTR_POLL_COUNTERS, .scope = ATTR_SCOPE_PORT },
};

/* IDs below ATTR_DIRECT index a table; the rest (vendor attributes,
 * 0xff00 up) are searched. */
#define ATTR_DIRECT	0x40

int
attr_search(const struct attr_def *defs, size_t n, uint8_t mclass,
    uint16_t id)
{
	/* Directed-route and LID-routed SMPs share the SMA's attributes. */
	if (mclass == ATTR_CLASS_SMI)
		mclass = ATTR_CLASS_SMI_DR;
	for (size_t i = 0; i < n; i++)
		if (defs[i].mclass == mclass && defs[i].id == id)
			return (int)i;
	return -1;
}

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
	if (id < ATTR_DIRECT)
		return tab[id];
	return attr_search(attr_defs, ATTR_MAX, mclass, id);
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
