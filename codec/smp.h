/* smp: SMP attribute IDs and decoders (IBA 14.2.5).
 *
 * Decoders take the 64-byte SMP data field and read it at the IBA's
 * offsets with plain loads (tests/unit/test_smp.c holds NodeInfo,
 * PortInfo, SwitchInfo and SMInfo to libibmad's field tables on random
 * buffers). Each checks what the IBA fixes (node type, port counts,
 * enumerations) and returns -1 on garbage, so a misbehaving node cannot
 * put out-of-range values into a PDU. */
#ifndef IBSNMPGW_CODEC_SMP_H
#define IBSNMPGW_CODEC_SMP_H

#include <stddef.h>
#include <stdint.h>

/* IBA 14.2.5 Table 145: SMP attributes. */
#define SMP_ATTR_NODE_DESC	0x0010
#define SMP_ATTR_NODE_INFO	0x0011
#define SMP_ATTR_SWITCH_INFO	0x0012
#define SMP_ATTR_GUID_INFO	0x0014
#define SMP_ATTR_PORT_INFO	0x0015
#define SMP_ATTR_PKEY_TABLE	0x0016
#define SMP_ATTR_SL2VL_TABLE	0x0017
#define SMP_ATTR_VLARB_TABLE	0x0018
#define SMP_ATTR_LFT		0x0019
#define SMP_ATTR_RFT		0x001a
#define SMP_ATTR_MFT		0x001b
#define SMP_ATTR_SM_INFO	0x0020
#define SMP_ATTR_VENDOR_DIAG	0x0030
#define SMP_ATTR_LED_INFO	0x0031
#define SMP_ATTR_PORT_INFO_EXT	0x0033	/* PortInfoExtended, optional */

#define SMP_METHOD_GET		0x01

/* IBA 14.2.1.1: the SMP data field. */
#define SMP_DATA_OFFS		64
#define SMP_DATA_SIZE		64
#define SMP_DESC_LEN		64	/* NodeDescription, 14.2.5.2 */

/* IBA 14.2.5.3 Table 147: NodeInfo. */
struct smp_nodeinfo {
	uint8_t		base_version;
	uint8_t		class_version;
	uint8_t		node_type;
	uint8_t		num_ports;
	uint64_t	system_image_guid;
	uint64_t	node_guid;
	uint64_t	port_guid;
	uint16_t	partition_cap;
	uint16_t	device_id;
	uint32_t	revision;
	uint8_t		local_port;
	uint32_t	vendor_id;
};

/* IBA 14.2.5.6 Table 155: PortInfo (the fields the MIBs use). */
struct smp_portinfo {
	uint64_t	mkey;
	uint64_t	gid_prefix;
	uint16_t	lid;
	uint16_t	sm_lid;
	uint32_t	cap_mask;
	uint16_t	diag_code;
	uint16_t	mkey_lease;
	uint8_t		local_port;
	uint8_t		width_enabled, width_supported, width_active;
	uint8_t		speed_supported, speed_active, speed_enabled;
	uint8_t		state, phys_state, link_down_default;
	uint8_t		mkey_prot;
	uint8_t		lmc;
	uint8_t		neighbor_mtu, mtu_cap;
	uint8_t		sm_sl;
	uint8_t		vl_cap;
	uint8_t		init_type;
	uint8_t		vl_high_limit;
	uint8_t		vl_arb_high_cap, vl_arb_low_cap;
	uint8_t		init_type_reply;
	uint8_t		vl_stall_count;
	uint8_t		hoq_life;
	uint8_t		oper_vls;
	uint8_t		part_enf_in, part_enf_out;
	uint8_t		filter_raw_in, filter_raw_out;
	uint16_t	mkey_violations, pkey_violations, qkey_violations;
	uint8_t		guid_cap;
	uint8_t		client_rereg;
	uint8_t		subnet_timeout;
	uint8_t		resp_time;
	uint8_t		local_phys_errors;
	uint8_t		overrun_errors;
	/* Extended speeds (IBA 1.2.1+ / 1.3): 0 when not supported. */
	uint8_t		speed_ext_active, speed_ext_supported;
	uint8_t		speed_ext_enabled;
	uint16_t	cap_mask2;
	/* LinkSpeedExtActive2/Supported2 (XDR, IBA 1.7): 0 without. */
	uint8_t		speed_ext2_active, speed_ext2_supported;
};

/* CapabilityMask2 bit 1: IsPortInfoExtendedSupported. */
#define SMP_CAP2_PORT_INFO_EXT	0x0002

/* Active link speeds, slowest first; UNKNOWN while the link is down
 * (the Active fields mean nothing then) or for a code IBA lacks. */
enum smp_speed {
	SMP_SPEED_UNKNOWN, SMP_SPEED_SDR, SMP_SPEED_DDR, SMP_SPEED_QDR,
	SMP_SPEED_FDR, SMP_SPEED_EDR, SMP_SPEED_HDR, SMP_SPEED_NDR,
	SMP_SPEED_XDR
};

enum smp_speed	smp_speed_active(const struct smp_portinfo *pi);
const char	*smp_speed_name(enum smp_speed s);
/* Data rate of one lane in Mb/s (after line coding). */
uint32_t	 smp_speed_lane_mbps(enum smp_speed s);
/* The port's data rate in Mb/s: lanes x lane rate; 0 while down. */
uint64_t	 smp_port_rate_mbps(const struct smp_portinfo *pi);

/* PortInfoExtended FECModeActive (IBA 1.3 14.2.5.22): 0 no FEC, 1
 * Firecode, 2 RS(528,514), 3 low-latency RS(271,257), 4 RS(544,514). */
int	smp_decode_fec_active(const uint8_t *data, size_t len,
	    uint16_t *fec);

/* IBA 14.2.5.4 Table 148: SwitchInfo. */
struct smp_switchinfo {
	uint16_t	linear_cap, random_cap, mcast_cap, linear_top;
	uint8_t		def_port, def_mcast_pri, def_mcast_notpri;
	uint8_t		life_time;
	uint8_t		state_change;
	uint8_t		opt_sl2vl;
	uint16_t	lids_per_port;
	uint16_t	part_enf_cap;
	uint8_t		inb_enf_cap, outb_enf_cap;
	uint8_t		filter_raw_inb_cap, filter_raw_outb_cap;
	uint8_t		enhanced_port0;
	uint16_t	mcast_top;	/* 0: not implemented (before 1.2.1) */
};

/* IBA 14.2.5.13 Table 166: SMInfo. */
struct smp_sminfo {
	uint64_t	guid;
	uint64_t	sm_key;
	uint32_t	act_count;
	uint8_t		priority;
	uint8_t		state;		/* 0 not active .. 3 master */
};

int	smp_decode_nodeinfo(const uint8_t *data, size_t len,
	    struct smp_nodeinfo *ni);
int	smp_decode_portinfo(const uint8_t *data, size_t len,
	    struct smp_portinfo *pi);
/* NodeDescription: 64 octets, UTF-8, NUL padded. Writes a printable,
 * NUL-terminated copy (control characters become '?'). */
int	smp_decode_nodedesc(const uint8_t *data, size_t len, char *out,
	    size_t outlen);

int	smp_decode_switchinfo(const uint8_t *data, size_t len,
	    struct smp_switchinfo *si);
int	smp_decode_sminfo(const uint8_t *data, size_t len,
	    struct smp_sminfo *sm);

/* Array attributes: element i of one block. The element layouts are
 * the IBA's; libibmad has no field tables for them. */
uint64_t smp_guidinfo_guid(const uint8_t *data, int i);	/* 0..7  */
uint16_t smp_pkey(const uint8_t *data, int i);		/* 0..31 */
uint8_t	 smp_sl2vl(const uint8_t *data, int sl);		/* 0..15 */
void	 smp_vlarb(const uint8_t *data, int i, uint8_t *vl,
	    uint8_t *weight);					/* 0..31 */
uint8_t	 smp_lft_port(const uint8_t *data, int i);		/* 0..63 */
uint16_t smp_mft_mask(const uint8_t *data, int i);		/* 0..31 */
/* RandomForwardingTable element (Table 160): 0 if invalid. */
int	 smp_rft_entry(const uint8_t *data, int i, uint16_t *lid,
	    uint8_t *lmc, uint8_t *port);			/* 0..15 */
int	 smp_led_on(const uint8_t *data);
uint16_t smp_vendor_diag_next(const uint8_t *data);

/* LinkWidthActive code -> lanes; 0 for unknown codes. */
int	smp_width_lanes(uint8_t width);
/* The answer of a port that has IsSM but is no SM to a SubnGet(SMInfo)
 * req (256 octets; LID-routed or directed route): GetResp, D bit for
 * DR, SMInfo GUID port_guid, state NOTACTIVE, priority 0 (IBA 14.2.5.13
 * Table 185). Returns 0, or -1 if req is not such a Get. */
int	smp_sminfo_notactive(uint8_t *resp, const uint8_t *req,
	    uint64_t port_guid);

#endif
