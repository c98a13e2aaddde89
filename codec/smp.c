/* smp: decoders for SMP attributes, at the IBA's offsets. */
#include "config.h"

#include <endian.h>
#include <string.h>

#include "codec/be.h"
#include "codec/smp.h"

/* The field of w bits (w <= 8) at IBA bit offset off, which does not
 * cross an octet: the IBA numbers bits from the most significant bit of
 * octet 0, so it sits 8 - off % 8 - w bits above the octet's LSB. */
#define BITS(d, off, w) \
	((uint8_t)((d)[(off) / 8] >> (8 - (off) % 8 - (w)) & ((1u << (w)) - 1)))

int
smp_decode_nodeinfo(const uint8_t *d, size_t len, struct smp_nodeinfo *ni)
{
	if (len < 40)		/* NodeInfo is 40 octets */
		return -1;
	memset(ni, 0, sizeof(*ni));
	/* IBA 14.2.5.3 Table 147 (NodeInfo): octet offsets. */
	ni->base_version = d[0];
	ni->class_version = d[1];
	ni->node_type = d[2];
	ni->num_ports = d[3];
	ni->system_image_guid = ld64(d + 4);
	ni->node_guid = ld64(d + 12);
	ni->port_guid = ld64(d + 20);
	ni->partition_cap = ld16(d + 28);
	ni->device_id = ld16(d + 30);
	ni->revision = ld32(d + 32);
	ni->local_port = d[36];
	ni->vendor_id = ld32(d + 36) & 0xffffff;	/* octets 37-39 */
	/* IBA: NodeType 1..3 (CA, switch, router); NumPorts >= 1; a
	 * switch's LocalPortNum is 0..NumPorts, a CA's 1..NumPorts. */
	if (ni->node_type < 1 || ni->node_type > 3 || ni->num_ports == 0 ||
	    ni->num_ports == 255 || ni->node_guid == 0 ||
	    ni->local_port > ni->num_ports)
		return -1;
	return 0;
}

int
smp_decode_portinfo(const uint8_t *d, size_t len, struct smp_portinfo *pi)
{
	if (len < 64)
		return -1;
	memset(pi, 0, sizeof(*pi));
	/* IBA 14.2.5.6 Table 155 (PortInfo): whole octets by octet offset,
	 * narrower fields by the table's bit offset (BITS). */
	pi->mkey = ld64(d + 0);
	pi->gid_prefix = ld64(d + 8);
	pi->lid = ld16(d + 16);
	pi->sm_lid = ld16(d + 18);
	pi->cap_mask = ld32(d + 20);
	pi->diag_code = ld16(d + 24);
	pi->mkey_lease = ld16(d + 26);
	pi->local_port = d[28];
	pi->width_enabled = d[29];
	pi->width_supported = d[30];
	pi->width_active = d[31];
	pi->speed_supported = BITS(d, 256, 4);
	pi->state = BITS(d, 260, 4);
	pi->phys_state = BITS(d, 264, 4);
	pi->link_down_default = BITS(d, 268, 4);
	pi->mkey_prot = BITS(d, 272, 2);
	pi->lmc = BITS(d, 277, 3);
	pi->speed_active = BITS(d, 280, 4);
	pi->speed_enabled = BITS(d, 284, 4);
	pi->neighbor_mtu = BITS(d, 288, 4);
	pi->sm_sl = BITS(d, 292, 4);
	pi->vl_cap = BITS(d, 296, 4);
	pi->init_type = BITS(d, 300, 4);
	pi->vl_high_limit = d[38];
	pi->vl_arb_high_cap = d[39];
	pi->vl_arb_low_cap = d[40];
	pi->init_type_reply = BITS(d, 328, 4);
	pi->mtu_cap = BITS(d, 332, 4);
	pi->vl_stall_count = BITS(d, 336, 3);
	pi->hoq_life = BITS(d, 339, 5);
	pi->oper_vls = BITS(d, 344, 4);
	pi->part_enf_in = BITS(d, 348, 1);
	pi->part_enf_out = BITS(d, 349, 1);
	pi->filter_raw_in = BITS(d, 350, 1);
	pi->filter_raw_out = BITS(d, 351, 1);
	pi->mkey_violations = ld16(d + 44);
	pi->pkey_violations = ld16(d + 46);
	pi->qkey_violations = ld16(d + 48);
	pi->guid_cap = d[50];
	pi->client_rereg = BITS(d, 408, 1);
	pi->subnet_timeout = BITS(d, 411, 5);
	pi->resp_time = BITS(d, 419, 5);
	pi->local_phys_errors = BITS(d, 424, 4);
	pi->overrun_errors = BITS(d, 428, 4);
	/* IBA 1.3 14.2.5.6: extended speeds count only when
	 * CapabilityMask.IsExtendedSpeedsSupported (bit 14) is set, and on
	 * a switch that is port 0's mask, so the caller decides; the
	 * fields are reserved (zero) on ports without them. */
	pi->speed_ext_active = BITS(d, 496, 4);
	pi->speed_ext_supported = BITS(d, 500, 4);
	pi->speed_ext_enabled = BITS(d, 507, 5);
	pi->cap_mask2 = ld16(d + 60);
	/* LinkSpeedExtActive2 and Supported2 (XDR): bits 449-450 and
	 * 451-452, in octet 56, which older SMAs leave reserved (zero). */
	pi->speed_ext2_active = (d[56] >> 5) & 0x3;
	pi->speed_ext2_supported = (d[56] >> 3) & 0x3;
	/* PortState 0..4 (0: no state change), PhysState 0..7. */
	if (pi->state > 4 || pi->phys_state > 7 || pi->lmc > 7)
		return -1;
	return 0;
}

/* The length of the well-formed UTF-8 character at s (RFC 3629 section
 * 4: no overlong forms, no surrogates, at most U+10FFFF) that is not a
 * control character; 0 when there is none. */
static size_t
utf8_len(const uint8_t *s, size_t avail)
{
	uint32_t c;
	size_t k;

	if (s[0] < 0x80)
		return s[0] < 0x20 || s[0] == 0x7f ? 0 : 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, c = s[0] & 0x07;
	else
		return 0;
	if (k > avail)
		return 0;
	for (size_t j = 1; j < k; j++) {
		if ((s[j] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[j] & 0x3f);
	}
	if ((k == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (k == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0x80 && c <= 0x9f))	/* C1 controls */
		return 0;
	return k;
}

int
smp_decode_nodedesc(const uint8_t *d, size_t len, char *out, size_t outlen)
{
	size_t n = len < 64 ? len : 64, i = 0, k;

	if (outlen == 0)
		return -1;
	/* IBA 14.2.5.2: UTF-8, NUL-padded. The string ends up in
	 * SnmpAdminString objects (RFC 3411: UTF-8) and in log lines, so
	 * control characters and bytes that are not well-formed UTF-8 each
	 * become '?'. */
	while (i < n && d[i] != '\0' && i + 1 < outlen) {
		k = utf8_len(d + i, n - i);
		if (k == 0 || i + k + 1 > outlen) {
			out[i++] = '?';
			continue;
		}
		memcpy(out + i, d + i, k);
		i += k;
	}
	out[i] = '\0';
	return 0;
}

int
smp_width_lanes(uint8_t w)
{
	/* IBA 14.2.5.6 LinkWidthActive: 1 1x, 2 4x, 4 8x, 8 12x, 16 2x. */
	switch (w) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	}
	return 0;
}

enum smp_speed
smp_speed_active(const struct smp_portinfo *pi)
{
	if (pi->state <= 1)	/* Down: the Active fields are stale */
		return SMP_SPEED_UNKNOWN;
	/* LinkSpeedExtActive2 (1: XDR), then LinkSpeedExtActive (1 FDR,
	 * 2 EDR, 4 HDR, 8 NDR), when non-zero, take precedence over
	 * LinkSpeedActive (1 SDR, 2 DDR, 4 QDR). */
	if (pi->speed_ext2_active == 1)
		return SMP_SPEED_XDR;
	switch (pi->speed_ext_active) {
	case 1: return SMP_SPEED_FDR;
	case 2: return SMP_SPEED_EDR;
	case 4: return SMP_SPEED_HDR;
	case 8: return SMP_SPEED_NDR;
	}
	switch (pi->speed_active) {
	case 1: return SMP_SPEED_SDR;
	case 2: return SMP_SPEED_DDR;
	case 4: return SMP_SPEED_QDR;
	}
	return SMP_SPEED_UNKNOWN;
}

const char *
smp_speed_name(enum smp_speed s)
{
	static const char *names[] = { "unknown speed", "SDR", "DDR", "QDR",
	    "FDR", "EDR", "HDR", "NDR", "XDR" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] :
	    names[0];
}

uint32_t
smp_speed_lane_mbps(enum smp_speed s)
{
	/* 8b/10b for SDR..QDR (2.5, 5, 10 Gb/s signalling), 64b/66b for
	 * FDR (14.0625) and EDR (25.78125); HDR, NDR and XDR lanes carry
	 * 50, 100 and 200 Gb/s of data. */
	static const uint32_t mbps[] = { 0, 2000, 4000, 8000, 13636, 25000,
	    50000, 100000, 200000 };

	return (unsigned)s < sizeof(mbps) / sizeof(mbps[0]) ? mbps[s] : 0;
}

uint64_t
smp_port_rate_mbps(const struct smp_portinfo *pi)
{
	return (uint64_t)smp_width_lanes(pi->width_active) *
	    smp_speed_lane_mbps(smp_speed_active(pi));
}

int
smp_decode_fec_active(const uint8_t *d, size_t len, uint16_t *fec)
{
	/* Octets 4-5 of PortInfoExtended, after the 32-bit CapMask. */
	if (len < 8)
		return -1;
	*fec = (uint16_t)(d[4] << 8 | d[5]);
	return 0;
}

int
smp_decode_switchinfo(const uint8_t *d, size_t len, struct smp_switchinfo *si)
{
	if (len < 20)		/* SwitchInfo is 17+ octets */
		return -1;
	memset(si, 0, sizeof(*si));
	/* IBA 14.2.5.4 Table 148 (SwitchInfo). */
	si->linear_cap = ld16(d + 0);
	si->random_cap = ld16(d + 2);
	si->mcast_cap = ld16(d + 4);
	si->linear_top = ld16(d + 6);
	si->def_port = d[8];
	si->def_mcast_pri = d[9];
	si->def_mcast_notpri = d[10];
	si->life_time = BITS(d, 88, 5);
	si->state_change = BITS(d, 93, 1);
	si->opt_sl2vl = BITS(d, 94, 2);
	si->lids_per_port = ld16(d + 12);
	si->part_enf_cap = ld16(d + 14);
	si->inb_enf_cap = BITS(d, 128, 1);
	si->outb_enf_cap = BITS(d, 129, 1);
	si->filter_raw_inb_cap = BITS(d, 130, 1);
	si->filter_raw_outb_cap = BITS(d, 131, 1);
	si->enhanced_port0 = BITS(d, 132, 1);
	si->mcast_top = ld16(d + 18);
	/* LinearFDBTop indexes the LFT: it cannot pass the unicast range
	 * or the switch's own capacity. */
	if (si->linear_top >= 0xc000 || (si->linear_cap &&
	    si->linear_top >= si->linear_cap))
		return -1;
	return 0;
}

int
smp_decode_sminfo(const uint8_t *d, size_t len, struct smp_sminfo *sm)
{
	if (len < 21)		/* SMInfo is 21 octets */
		return -1;
	memset(sm, 0, sizeof(*sm));
	/* IBA 14.2.5.13 Table 166 (SMInfo). */
	sm->guid = ld64(d + 0);
	sm->sm_key = ld64(d + 8);
	sm->act_count = ld32(d + 16);
	sm->priority = BITS(d, 160, 4);
	sm->state = BITS(d, 164, 4);
	return 0;
}

static uint32_t
be(const uint8_t *p, int n)
{
	uint32_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

uint64_t
smp_guidinfo_guid(const uint8_t *d, int i)
{
	/* Table 151: eight 64-bit GUIDs. */
	return (uint64_t)be(d + 8 * i, 4) << 32 | be(d + 8 * i + 4, 4);
}

uint16_t
smp_pkey(const uint8_t *d, int i)
{
	/* Table 153: 32 P_Keys of 16 bits; bit 15 is the membership. */
	return be(d + 2 * i, 2);
}

uint8_t
smp_sl2vl(const uint8_t *d, int sl)
{
	/* Table 156: SL0 in the high nibble of octet 0. */
	return sl & 1 ? d[sl / 2] & 0x0f : d[sl / 2] >> 4;
}

void
smp_vlarb(const uint8_t *d, int i, uint8_t *vl, uint8_t *weight)
{
	/* Table 158: per entry, 4 reserved bits and the VL, then the
	 * weight. */
	*vl = d[2 * i] & 0x0f;
	*weight = d[2 * i + 1];
}

uint8_t
smp_lft_port(const uint8_t *d, int i)
{
	/* Table 159: one egress port per LID, 64 LIDs per block. */
	return d[i];
}

uint16_t
smp_mft_mask(const uint8_t *d, int i)
{
	/* Table 162: 32 port masks of 16 bits, bit n for port
	 * 16 * position + n. */
	return be(d + 2 * i, 2);
}

int
smp_rft_entry(const uint8_t *d, int i, uint16_t *lid, uint8_t *lmc,
    uint8_t *port)
{
	/* Table 161: LID (16), Valid (1), LMC (3), reserved (4), Port (8). */
	const uint8_t *p = d + 4 * i;

	*lid = be(p, 2);
	*lmc = (p[2] >> 4) & 7;
	*port = p[3];
	return (p[2] & 0x80) != 0;
}

int
smp_led_on(const uint8_t *d)
{
	/* 14.2.5.15 LedInfo: LedMask, bit 31. */
	return (d[0] & 0x80) != 0;
}

uint16_t
smp_vendor_diag_next(const uint8_t *d)
{
	/* 14.2.5.14 VendorDiag: NextIndex, then 62 octets of data. */
	return be(d, 2);
}

int
smp_sminfo_notactive(uint8_t *resp, const uint8_t *req, uint64_t port_guid)
{
	if ((req[1] != 0x01 && req[1] != 0x81) || req[3] != 0x01 ||
	    (req[16] << 8 | req[17]) != 0x0020)
		return -1;
	memcpy(resp, req, 256);
	resp[3] = 0x81;				/* GetResp */
	resp[4] = req[1] == 0x81 ? 0x80 : 0;	/* D bit; status 0 */
	resp[5] = 0;
	memset(resp + SMP_DATA_OFFS, 0, SMP_DATA_SIZE);
	for (int i = 0; i < 8; i++)
		resp[SMP_DATA_OFFS + i] = (uint8_t)(port_guid >> (56 - 8 * i));
	return 0;
}
