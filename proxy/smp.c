/* proxy_smp: decoders for SMP attributes, on libibmad's field tables. */
#include "config.h"

#include <string.h>

#include <infiniband/mad.h>

#include "proxy/mad.h"
#include "proxy/smp.h"

static uint32_t
get32(const uint8_t *d, enum MAD_FIELDS f)
{
	uint32_t v = 0;

	mad_decode_field((uint8_t *)d, f, &v);
	return v;
}

static uint64_t
get64(const uint8_t *d, enum MAD_FIELDS f)
{
	uint64_t v = 0;

	mad_decode_field((uint8_t *)d, f, &v);
	return v;
}

int
smp_decode_nodeinfo(const uint8_t *d, size_t len, struct smp_nodeinfo *ni)
{
	if (len < 40)		/* NodeInfo is 40 octets */
		return -1;
	memset(ni, 0, sizeof(*ni));
	ni->base_version = get32(d, IB_NODE_BASE_VERS_F);
	ni->class_version = get32(d, IB_NODE_CLASS_VERS_F);
	ni->node_type = get32(d, IB_NODE_TYPE_F);
	ni->num_ports = get32(d, IB_NODE_NPORTS_F);
	ni->system_image_guid = get64(d, IB_NODE_SYSTEM_GUID_F);
	ni->node_guid = get64(d, IB_NODE_GUID_F);
	ni->port_guid = get64(d, IB_NODE_PORT_GUID_F);
	ni->partition_cap = get32(d, IB_NODE_PARTITION_CAP_F);
	ni->device_id = get32(d, IB_NODE_DEVID_F);
	ni->revision = get32(d, IB_NODE_REVISION_F);
	ni->local_port = get32(d, IB_NODE_LOCAL_PORT_F);
	ni->vendor_id = get32(d, IB_NODE_VENDORID_F);
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
	pi->mkey = get64(d, IB_PORT_MKEY_F);
	pi->gid_prefix = get64(d, IB_PORT_GID_PREFIX_F);
	pi->lid = get32(d, IB_PORT_LID_F);
	pi->sm_lid = get32(d, IB_PORT_SMLID_F);
	pi->cap_mask = get32(d, IB_PORT_CAPMASK_F);
	pi->diag_code = get32(d, IB_PORT_DIAG_F);
	pi->mkey_lease = get32(d, IB_PORT_MKEY_LEASE_F);
	pi->local_port = get32(d, IB_PORT_LOCAL_PORT_F);
	pi->width_enabled = get32(d, IB_PORT_LINK_WIDTH_ENABLED_F);
	pi->width_supported = get32(d, IB_PORT_LINK_WIDTH_SUPPORTED_F);
	pi->width_active = get32(d, IB_PORT_LINK_WIDTH_ACTIVE_F);
	pi->speed_supported = get32(d, IB_PORT_LINK_SPEED_SUPPORTED_F);
	pi->state = get32(d, IB_PORT_STATE_F);
	pi->phys_state = get32(d, IB_PORT_PHYS_STATE_F);
	pi->link_down_default = get32(d, IB_PORT_LINK_DOWN_DEF_F);
	pi->mkey_prot = get32(d, IB_PORT_MKEY_PROT_BITS_F);
	pi->lmc = get32(d, IB_PORT_LMC_F);
	pi->speed_active = get32(d, IB_PORT_LINK_SPEED_ACTIVE_F);
	pi->speed_enabled = get32(d, IB_PORT_LINK_SPEED_ENABLED_F);
	pi->neighbor_mtu = get32(d, IB_PORT_NEIGHBOR_MTU_F);
	pi->sm_sl = get32(d, IB_PORT_SMSL_F);
	pi->vl_cap = get32(d, IB_PORT_VL_CAP_F);
	pi->init_type = get32(d, IB_PORT_INIT_TYPE_F);
	pi->vl_high_limit = get32(d, IB_PORT_VL_HIGH_LIMIT_F);
	pi->vl_arb_high_cap = get32(d, IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
	pi->vl_arb_low_cap = get32(d, IB_PORT_VL_ARBITRATION_LOW_CAP_F);
	pi->init_type_reply = get32(d, IB_PORT_INIT_TYPE_REPLY_F);
	pi->mtu_cap = get32(d, IB_PORT_MTU_CAP_F);
	pi->vl_stall_count = get32(d, IB_PORT_VL_STALL_COUNT_F);
	pi->hoq_life = get32(d, IB_PORT_HOQ_LIFE_F);
	pi->oper_vls = get32(d, IB_PORT_OPER_VLS_F);
	pi->part_enf_in = get32(d, IB_PORT_PART_EN_INB_F);
	pi->part_enf_out = get32(d, IB_PORT_PART_EN_OUTB_F);
	pi->filter_raw_in = get32(d, IB_PORT_FILTER_RAW_INB_F);
	pi->filter_raw_out = get32(d, IB_PORT_FILTER_RAW_OUTB_F);
	pi->mkey_violations = get32(d, IB_PORT_MKEY_VIOL_F);
	pi->pkey_violations = get32(d, IB_PORT_PKEY_VIOL_F);
	pi->qkey_violations = get32(d, IB_PORT_QKEY_VIOL_F);
	pi->guid_cap = get32(d, IB_PORT_GUID_CAP_F);
	pi->client_rereg = get32(d, IB_PORT_CLIENT_REREG_F);
	pi->subnet_timeout = get32(d, IB_PORT_SUBN_TIMEOUT_F);
	pi->resp_time = get32(d, IB_PORT_RESP_TIME_VAL_F);
	pi->local_phys_errors = get32(d, IB_PORT_LOCAL_PHYS_ERR_F);
	pi->overrun_errors = get32(d, IB_PORT_OVERRUN_ERR_F);
	/* IBA 1.3 14.2.5.6: extended speeds count only when
	 * CapabilityMask.IsExtendedSpeedsSupported (bit 14) is set, and on
	 * a switch that is port 0's mask, so the caller decides; the
	 * fields are reserved (zero) on ports without them. */
	pi->speed_ext_active = get32(d, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
	pi->speed_ext_supported = get32(d, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F);
	pi->speed_ext_enabled = get32(d, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
	/* PortState 0..4 (0: no state change), PhysState 0..7. */
	if (pi->state > 4 || pi->phys_state > 7 || pi->lmc > 7)
		return -1;
	return 0;
}

int
smp_decode_nodedesc(const uint8_t *d, size_t len, char *out, size_t outlen)
{
	size_t n = len < 64 ? len : 64, i;

	if (outlen == 0)
		return -1;
	for (i = 0; i < n && i + 1 < outlen && d[i] != '\0'; i++)
		out[i] = (d[i] < 0x20 || d[i] == 0x7f) ? '?' : (char)d[i];
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

uint32_t
smp_lane_rate_mbps(uint8_t speed, uint8_t ext)
{
	/* LinkSpeedExtActive (1 FDR, 2 EDR, 4 HDR, 8 NDR) takes precedence
	 * over LinkSpeedActive (1 SDR, 2 DDR, 4 QDR) when non-zero. Data
	 * rates: 8b/10b for SDR..QDR, 64b/66b for FDR and up. */
	switch (ext) {
	case 1: return 13636;	/* 14.0625 Gb/s * 64/66 */
	case 2: return 25000;	/* 25.78125 Gb/s * 64/66 */
	case 4: return 50000;
	case 8: return 100000;
	}
	switch (speed) {
	case 1: return 2000;
	case 2: return 4000;
	case 4: return 8000;
	}
	return 0;
}
