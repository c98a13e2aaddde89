/* IB-SMA-MIB (mibs/IB-SMA-MIB) scalar groups and the Data Port Info
 * table: Node Info (NodeInfo, NodeDescription), Switch Info (SwitchInfo),
 * Management Port Info (PortInfo of the management port) and
 * ibSmaPortInfoTable (PortInfo of every data port).
 *
 * Enumerations follow the draft, which predates IBA 1.2: codes it has
 * no value for (8x/2x widths, speeds above SDR, PhyTest) read as the
 * draft's other(n). docs/mibs.md lists every mapping. */
#include "config.h"

#include <string.h>

#include "gateway/mib.h"
#include "gateway/mib_sma.h"
#include "proxy/mad.h"
#include "proxy/smp.h"

/* Attribute access shared with mib_sma_tables.c. */

int
sma_is_switch(const struct store_node *n)
{
	return n->type == STORE_NODE_SWITCH;
}

uint8_t
sma_route_port(const struct store_node *n, uint32_t port)
{
	/* Switch attributes go to the switch; a CA's go through the port. */
	return n->type == STORE_NODE_SWITCH || port > 254 ? 0 : (uint8_t)port;
}

int
sma_port_reachable(const struct store_node *n, uint32_t port)
{
	return n->type == STORE_NODE_SWITCH || (port >= 1 &&
	    port <= n->num_ports && n->ports[port].route.hop[0] != 0xff);
}

int
sma_nodeinfo(struct gw_eval *e, struct smp_nodeinfo *ni)
{
	const uint8_t *d = gw_attr(e, SMP_ATTR_NODE_INFO, 0, 0,
	    CACHE_NODEINFO);

	if (d == NULL)
		return GW_NEED;
	return smp_decode_nodeinfo(d, PROXY_SMP_DATA_SIZE, ni) == 0 ? 0 :
	    GW_BAD;
}

int
sma_switchinfo(struct gw_eval *e, struct smp_switchinfo *si)
{
	const uint8_t *d = gw_attr(e, SMP_ATTR_SWITCH_INFO, 0, 0,
	    CACHE_SWITCHINFO);

	if (d == NULL)
		return GW_NEED;
	return smp_decode_switchinfo(d, PROXY_SMP_DATA_SIZE, si) == 0 ? 0 :
	    GW_BAD;
}

int
sma_portinfo(struct gw_eval *e, uint32_t port, struct smp_portinfo *pi)
{
	const struct store_node *n = gw_node(e);
	const uint8_t *d = gw_attr(e, SMP_ATTR_PORT_INFO, port,
	    sma_route_port(n, port), CACHE_PORTINFO);

	if (d == NULL)
		return GW_NEED;
	return smp_decode_portinfo(d, PROXY_SMP_DATA_SIZE, pi) == 0 ? 0 :
	    GW_BAD;
}

uint32_t
sma_mgmt_port(const struct store_node *n)
{
	uint32_t p;

	/* Port 0 of a switch; the port a CA or router is reached through
	 * (its lowest reachable one, see discovery). */
	if (n->type == STORE_NODE_SWITCH)
		return 0;
	for (p = 1; p <= n->num_ports; p++)
		if (n->ports[p].route.hop[0] != 0xff)
			return p;
	return 1;
}

/* ibSmaNodeInfo (IBA 14.2.5.2 NodeDescription, 14.2.5.3 NodeInfo) */

static int
node_string(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const uint8_t *d = gw_attr(e, SMP_ATTR_NODE_DESC, 0, 0,
	    CACHE_NODEDESC);
	char s[65];

	if (d == NULL)
		return GW_NEED;
	smp_decode_nodedesc(d, PROXY_SMP_DATA_SIZE, s, sizeof(s));
	if (s[0] == '\0')
		return GW_BAD;	/* SIZE(1..64) */
	return gw_val_octets(v, s, strlen(s));
}

#define NI_GET(fn, expr) \
static int \
fn(struct gw_eval *e, const struct gw_row *row, struct gw_val *v) \
{ \
	struct smp_nodeinfo n; \
	int rc = sma_nodeinfo(e, &n); \
	if (rc != 0) \
		return rc; \
	return (expr); \
}

static int
put_be(struct gw_val *v, uint32_t val, size_t len)
{
	uint8_t b[4];

	for (size_t i = 0; i < len; i++)
		b[i] = val >> (8 * (len - 1 - i));
	return gw_val_octets(v, b, len);
}

NI_GET(node_base_version, gw_val_uint_in(v, n.base_version, 1, 255))
NI_GET(node_class_version, gw_val_uint_in(v, n.class_version, 1, 255))
NI_GET(node_type, gw_val_int(v, n.node_type >= 1 && n.node_type <= 3 ?
    n.node_type : 4))
NI_GET(node_num_ports, gw_val_uint_in(v, n.num_ports, 0, 254))
NI_GET(node_sysimage_guid, gw_val_guid(v, n.system_image_guid))
NI_GET(node_guid, gw_val_guid(v, n.node_guid))
NI_GET(node_port_guid, gw_val_guid(v, n.port_guid))
NI_GET(node_partition_cap, gw_val_uint_in(v, n.partition_cap, 1, 65535))
NI_GET(node_device_id, put_be(v, n.device_id, 2))
NI_GET(node_revision, put_be(v, n.revision, 4))
NI_GET(node_vendor_id, put_be(v, n.vendor_id, 3))
/* A switch's SMA sits behind port 0; the port a DR SMP happened to enter
 * by depends on the gateway's route, not on the node, so switches read
 * 0 (the "OrZero" of the name), as an agent on the switch itself would. */
NI_GET(node_local_port, gw_val_uint_in(v, n.node_type == STORE_NODE_SWITCH ? 0 :
    n.local_port, 0, 254))

static const struct gw_col node_cols[] = {
	{ 1, node_string, "ibSmaNodeString" },
	{ 2, node_base_version, "ibSmaNodeBaseVersion" },
	{ 3, node_class_version, "ibSmaNodeClassVersion" },
	{ 4, node_type, "ibSmaNodeType" },
	{ 5, node_num_ports, "ibSmaNodeNumPorts" },
	{ 6, node_sysimage_guid, "ibSmaSystemImageGuid" },
	{ 7, node_guid, "ibSmaNodeGuid" },
	{ 8, node_port_guid, "ibSmaNodePortGuid" },
	{ 9, node_partition_cap, "ibSmaNodePartitionTableNum" },
	{ 10, node_device_id, "ibSmaNodeDeviceId" },
	{ 11, node_revision, "ibSmaNodeRevision" },
	{ 12, node_local_port, "ibSmaNodeLocalPortNumOrZero" },
	{ 13, node_vendor_id, "ibSmaNodeVendorId" },
};

static const struct gw_table node_table = {
	.name = "ibSmaNodeInfo",
	.base = { SMA_OBJECTS, 1 },
	.base_len = 9,
	.cols = node_cols,
	.ncols = sizeof(node_cols) / sizeof(node_cols[0]),
};

/* ibSmaSwitchInfo (IBA 14.2.5.4), switches only. */

#define SI_GET(fn, expr) \
static int \
fn(struct gw_eval *e, const struct gw_row *row, struct gw_val *v) \
{ \
	struct smp_switchinfo s; \
	int rc = sma_switchinfo(e, &s); \
	if (rc != 0) \
		return rc; \
	return (expr); \
}

SI_GET(sw_linear_cap, gw_val_uint_in(v, s.linear_cap, 0, 49151))
SI_GET(sw_random_cap, gw_val_uint_in(v, s.random_cap, 0, 49151))
SI_GET(sw_mcast_cap, gw_val_uint_in(v, s.mcast_cap, 0, 16383))
SI_GET(sw_linear_top, gw_val_uint_in(v, s.linear_top, 0, 49151))
SI_GET(sw_def_port, gw_val_uint_in(v, s.def_port, 0, 254))
SI_GET(sw_def_mcast_pri, gw_val_uint_in(v, s.def_mcast_pri, 0, 254))
SI_GET(sw_def_mcast_notpri, gw_val_uint_in(v, s.def_mcast_notpri, 0, 254))
SI_GET(sw_life_time, gw_val_uint_in(v, s.life_time, 0, 20))
SI_GET(sw_state_change, gw_val_truth(v, s.state_change))
SI_GET(sw_lids_per_port, gw_val_uint(v, s.lids_per_port))
SI_GET(sw_part_enf_cap, gw_val_uint(v, s.part_enf_cap))
SI_GET(sw_inb_enf_cap, gw_val_truth(v, s.inb_enf_cap))
SI_GET(sw_outb_enf_cap, gw_val_truth(v, s.outb_enf_cap))
SI_GET(sw_filter_inb_cap, gw_val_truth(v, s.filter_raw_inb_cap))
SI_GET(sw_filter_outb_cap, gw_val_truth(v, s.filter_raw_outb_cap))
SI_GET(sw_enhanced_port0, gw_val_truth(v, s.enhanced_port0))

static const struct gw_col switch_cols[] = {
	{ 1, sw_linear_cap, "ibSmaSwLinearFdbTableNum" },
	{ 2, sw_random_cap, "ibSmaSwRandomFdbTableNum" },
	{ 3, sw_mcast_cap, "ibSmaSwMulticastFdbTableNum" },
	{ 4, sw_linear_top, "ibSmaSwLinearFdbTop" },
	{ 5, sw_def_port, "ibSmaSwDefaultPort" },
	{ 6, sw_def_mcast_pri, "ibSmaSwDefMcastPriPort" },
	{ 7, sw_def_mcast_notpri, "ibSmaSwDefMcastNotPriPort" },
	{ 8, sw_life_time, "ibSmaSwLifeTimeValue" },
	{ 9, sw_state_change, "ibSmaSwPortStateChange" },
	{ 10, sw_lids_per_port, "ibSmaSwLidsPerPort" },
	{ 11, sw_part_enf_cap, "ibSmaSwPartitionEnforceNum" },
	{ 12, sw_inb_enf_cap, "ibSmaSwInboundEnforceCap" },
	{ 13, sw_outb_enf_cap, "ibSmaSwOutboundEnforceCap" },
	{ 14, sw_filter_inb_cap, "ibSmaSwFilterRawPktInputCap" },
	{ 15, sw_filter_outb_cap, "ibSmaSwFilterRawPktOutputCap" },
	{ 16, sw_enhanced_port0, "ibSmaSwEnhancedPort0" },
};

static const struct gw_table switch_table = {
	.name = "ibSmaSwitchInfo",
	.base = { SMA_OBJECTS, 2 },
	.base_len = 9,
	.cols = switch_cols,
	.ncols = sizeof(switch_cols) / sizeof(switch_cols[0]),
	.applies = sma_is_switch,
};

/* ibSmaMgmtPortInfo (IBA 14.2.5.6 PortInfo of the management port). */

#define MP_GET(fn, expr) \
static int \
fn(struct gw_eval *e, const struct gw_row *row, struct gw_val *v) \
{ \
	struct smp_portinfo p; \
	int rc = sma_portinfo(e, sma_mgmt_port(gw_node(e)), &p); \
	if (rc != 0) \
		return rc; \
	return (expr); \
}

static int
mp_mkey(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	static const uint8_t zero[8];

	/* Never revealed: not even fetched. */
	return gw_val_octets(v, zero, sizeof(zero));
}

static int
be64_octets(struct gw_val *v, uint64_t x)
{
	return gw_val_guid(v, x);
}

MP_GET(mp_gid_prefix, be64_octets(v, p.gid_prefix))
MP_GET(mp_lid, gw_val_uint_in(v, p.lid, 0, 49151))
MP_GET(mp_sm_lid, gw_val_uint_in(v, p.sm_lid, 0, 49151))
MP_GET(mp_lease, gw_val_uint(v, p.mkey_lease))
MP_GET(mp_mkey_prot, gw_val_int(v, p.mkey_prot + 1))
MP_GET(mp_sm_sl, gw_val_uint_in(v, p.sm_sl, 0, 15))
MP_GET(mp_mkey_viol, gw_val_counter(v, p.mkey_violations))
MP_GET(mp_pkey_viol, gw_val_counter(v, p.pkey_violations))
MP_GET(mp_qkey_viol, gw_val_counter(v, p.qkey_violations))
MP_GET(mp_num_guid, gw_val_uint(v, p.guid_cap))
MP_GET(mp_subnet_timeout, gw_val_uint(v, p.subnet_timeout))
MP_GET(mp_resp_time, gw_val_uint(v, p.resp_time))
/* IBA InitType bits 0..3: NoLoad, PreserveContent, PreservePresence,
 * DoNotResuscitate; InitTypeReply bits 0..2 likewise. */
MP_GET(mp_init_load, gw_val_truth(v, p.init_type & 1))
MP_GET(mp_init_content, gw_val_truth(v, p.init_type & 2))
MP_GET(mp_init_presence, gw_val_truth(v, p.init_type & 4))
MP_GET(mp_init_resuscitate, gw_val_truth(v, p.init_type & 8))
MP_GET(mp_reply_noload, gw_val_truth(v, p.init_type_reply & 1))
MP_GET(mp_reply_content, gw_val_truth(v, p.init_type_reply & 2))
MP_GET(mp_reply_presence, gw_val_truth(v, p.init_type_reply & 4))

/* Objects 5..23: one CapabilityMask bit each (IBA 14.2.5.6 Table 155). */
static const uint8_t cap_bits[] = {
	1,	/* 5  IsSM */
	2,	/* 6  IsNoticeSupported */
	3,	/* 7  IsTrapSupported */
	5,	/* 8  IsAutomaticMigrationSupported */
	6,	/* 9  IsSLMappingSupported */
	7,	/* 10 IsMKeyNVRAM */
	8,	/* 11 IsPKeyNVRAM */
	9,	/* 12 IsLedInfoSupported */
	10,	/* 13 IsSMdisabled */
	11,	/* 14 IsSystemImageGUIDSupported */
	12,	/* 15 IsPKeySwitchExternalPortTrapSupported */
	16,	/* 16 IsCommunicationManagementSupported */
	17,	/* 17 IsSNMPTunnelingSupported */
	18,	/* 18 IsReinitSupported */
	19,	/* 19 IsDeviceManagementSupported */
	20,	/* 20 IsVendorClassSupported */
	21,	/* 21 IsDRNoticeSupported */
	22,	/* 22 IsCapabilityMaskNoticeSupported */
	23,	/* 23 IsBootManagementSupported */
};

static int
mp_cap(struct gw_eval *e, const struct gw_row *row, struct gw_val *v,
    int obj)
{
	struct smp_portinfo p;
	int rc = sma_portinfo(e, sma_mgmt_port(gw_node(e)), &p);

	if (rc != 0)
		return rc;
	return gw_val_truth(v, p.cap_mask & (1u << cap_bits[obj - 5]));
}

#define CAP(n) \
static int \
mp_cap##n(struct gw_eval *e, const struct gw_row *row, struct gw_val *v) \
{ \
	return mp_cap(e, row, v, n); \
}
CAP(5) CAP(6) CAP(7) CAP(8) CAP(9) CAP(10) CAP(11) CAP(12) CAP(13) CAP(14)
CAP(15) CAP(16) CAP(17) CAP(18) CAP(19) CAP(20) CAP(21) CAP(22) CAP(23)

static const struct gw_col mgmt_cols[] = {
	{ 1, mp_mkey, "ibSmaPortMKey" },
	{ 2, mp_gid_prefix, "ibSmaPortGidPrefix" },
	{ 3, mp_lid, "ibSmaPortLid" },
	{ 4, mp_sm_lid, "ibSmaPortMasterSmLid" },
	{ 5, mp_cap5, "ibSmaPortIsSubnetManager" },
	{ 6, mp_cap6, "ibSmaPortIsNoticeSupported" },
	{ 7, mp_cap7, "ibSmaPortIsTrapSupported" },
	{ 8, mp_cap8, "ibSmaPortIsAutoMigrateSupported" },
	{ 9, mp_cap9, "ibSmaPortIsSI1MappingSupported" },
	{ 10, mp_cap10, "ibSmaPortIsMKeyNvram" },
	{ 11, mp_cap11, "ibSmaPortIsPKeyNvram" },
	{ 12, mp_cap12, "ibSmaPortIsLedInfoSupported" },
	{ 13, mp_cap13, "ibSmaPortIsSmDisabled" },
	{ 14, mp_cap14, "ibSmaPortIsSysImgGuidSupported" },
	{ 15, mp_cap15, "ibSmaPortIsPKeyExtPortTrapSup" },
	{ 16, mp_cap16, "ibSmaPortIsCommManageSupported" },
	{ 17, mp_cap17, "ibSmaPortIsSnmpTunnelSupported" },
	{ 18, mp_cap18, "ibSmaPortIsReinitSupported" },
	{ 19, mp_cap19, "ibSmaPortIsDevManageSupported" },
	{ 20, mp_cap20, "ibSmaPortIsVendorClassSupported" },
	{ 21, mp_cap21, "ibSmaPortIsDrNoticeSupported" },
	{ 22, mp_cap22, "ibSmaPortIsCapMaskNoticSupported" },
	{ 23, mp_cap23, "ibSmaPortIsBootMgmtSupported" },
	{ 24, mp_lease, "ibSmaPortMKeyLeasePeriod" },
	{ 25, mp_mkey_prot, "ibSmaPortMKeyProtectBits" },
	{ 26, mp_sm_sl, "ibSmaPortMasterSmSl" },
	{ 27, mp_init_load, "ibSmaPortInitTypeLoad" },
	{ 28, mp_init_content, "ibSmaPortInitTypeContent" },
	{ 29, mp_init_presence, "ibSmaPortInitTypePresence" },
	{ 30, mp_init_resuscitate, "ibSmaPortInitTypeResuscitate" },
	{ 31, mp_reply_noload, "ibSmaPortInitNoLoadReply" },
	{ 32, mp_reply_content, "ibSmaPortInitPreserveContReply" },
	{ 33, mp_reply_presence, "ibSmaPortInitPreservePresReply" },
	{ 34, mp_mkey_viol, "ibSmaPortMKeyViolations" },
	{ 35, mp_pkey_viol, "ibSmaPortPKeyViolations" },
	{ 36, mp_qkey_viol, "ibSmaPortQKeyViolations" },
	{ 37, mp_num_guid, "ibSmaPortNumGuid" },
	{ 38, mp_subnet_timeout, "ibSmaPortSubnetTimeout" },
	{ 39, mp_resp_time, "ibSmaPortResponseTimeValue" },
};

static const struct gw_table mgmt_table = {
	.name = "ibSmaMgmtPortInfo",
	.base = { SMA_OBJECTS, 4 },
	.base_len = 9,
	.cols = mgmt_cols,
	.ncols = sizeof(mgmt_cols) / sizeof(mgmt_cols[0]),
};

/* ibSmaPortInfoTable (IBA 14.2.5.6 PortInfo), one row per data port. */

static long
map(uint8_t code, const uint8_t *codes, size_t n, long other)
{
	for (size_t i = 0; i < n; i++)
		if (codes[i] == code)
			return (long)i + 1;
	return other;
}

#define PI_GET(fn, expr) \
static int \
fn(struct gw_eval *e, const struct gw_row *row, struct gw_val *v) \
{ \
	struct smp_portinfo p; \
	int rc = sma_portinfo(e, row->i[0], &p); \
	if (rc != 0) \
		return rc; \
	return (expr); \
}

static const uint8_t width_enabled_codes[] = { 1, 2, 3, 8, 9, 10, 11, 255 };
static const uint8_t width_supported_codes[] = { 1, 3, 11 };
static const uint8_t width_active_codes[] = { 1, 2, 8 };

PI_GET(port_width_enabled, gw_val_int(v, map(p.width_enabled,
    width_enabled_codes, sizeof(width_enabled_codes), 9)))
PI_GET(port_width_supported, gw_val_int(v, map(p.width_supported,
    width_supported_codes, sizeof(width_supported_codes), 4)))
PI_GET(port_width_active, gw_val_int(v, map(p.width_active,
    width_active_codes, sizeof(width_active_codes), 4)))
PI_GET(port_speed_supported, gw_val_int(v, p.speed_supported == 1 ? 1 : 2))
PI_GET(port_link_state, gw_val_int(v, p.state >= 1 && p.state <= 4 ?
    p.state : 5))
PI_GET(port_phys_state, gw_val_int(v, p.phys_state >= 1 &&
    p.phys_state <= 6 ? p.phys_state : 7))
PI_GET(port_down_default, gw_val_int(v, p.link_down_default >= 1 &&
    p.link_down_default <= 2 ? p.link_down_default : 3))
PI_GET(port_lmc, gw_val_uint(v, p.lmc))
PI_GET(port_speed_active, gw_val_int(v, p.speed_active == 1 ? 1 : 2))
PI_GET(port_speed_enabled, gw_val_int(v, p.speed_enabled == 1 ? 1 :
    p.speed_enabled == 15 ? 2 : 3))
PI_GET(port_neighbor_mtu, gw_val_int(v, p.neighbor_mtu >= 1 &&
    p.neighbor_mtu <= 5 ? p.neighbor_mtu : 6))
PI_GET(port_vl_cap, gw_val_int(v, p.vl_cap >= 1 && p.vl_cap <= 5 ?
    p.vl_cap : 6))
PI_GET(port_vl_high_limit, gw_val_uint(v, p.vl_high_limit))
PI_GET(port_vlarb_high_cap, gw_val_uint_in(v, p.vl_arb_high_cap, 0, 64))
PI_GET(port_vlarb_low_cap, gw_val_uint_in(v, p.vl_arb_low_cap, 0, 64))
PI_GET(port_mtu_cap, gw_val_int(v, p.mtu_cap >= 1 && p.mtu_cap <= 5 ?
    p.mtu_cap : 6))
PI_GET(port_vl_stall, gw_val_uint(v, p.vl_stall_count))
/* IBA: HOQLife 20..31 all mean "infinite"; the MIB's range ends at 20. */
PI_GET(port_hoq_life, gw_val_uint(v, p.hoq_life > 20 ? 20 : p.hoq_life))
PI_GET(port_oper_vls, gw_val_int(v, p.oper_vls >= 1 && p.oper_vls <= 5 ?
    p.oper_vls : 6))
PI_GET(port_part_enf_in, gw_val_truth(v, p.part_enf_in))
PI_GET(port_part_enf_out, gw_val_truth(v, p.part_enf_out))
PI_GET(port_filter_raw_in, gw_val_truth(v, p.filter_raw_in))
PI_GET(port_filter_raw_out, gw_val_truth(v, p.filter_raw_out))
PI_GET(port_local_phys_err, gw_val_uint(v, p.local_phys_errors))
PI_GET(port_overrun_err, gw_val_uint(v, p.overrun_errors))

static const struct gw_col port_cols[] = {
	{ 2, port_width_enabled, "ibSmaPortLinkWidthEnabled" },
	{ 3, port_width_supported, "ibSmaPortLinkWidthSupported" },
	{ 4, port_width_active, "ibSmaPortLinkWidthActive" },
	{ 5, port_speed_supported, "ibSmaPortLinkSpeedSupported" },
	{ 6, port_link_state, "ibSmaPortLinkState" },
	{ 7, port_phys_state, "ibSmaPortPhysState" },
	{ 8, port_down_default, "ibSmaPortLinkDownDefaultState" },
	{ 9, port_lmc, "ibSmaPortLidMaskCount" },
	{ 10, port_speed_active, "ibSmaPortLinkSpeedActive" },
	{ 11, port_speed_enabled, "ibSmaPortLinkSpeedEnabled" },
	{ 12, port_neighbor_mtu, "ibSmaPortNeighborMtu" },
	{ 13, port_vl_cap, "ibSmaPortVirtLaneSupport" },
	{ 14, port_vl_high_limit, "ibSmaPortVlHighPriorityLimit" },
	{ 15, port_vlarb_high_cap, "ibSmaPortVlArbHighCapacity" },
	{ 16, port_vlarb_low_cap, "ibSmaPortVlArbLowCapacity" },
	{ 17, port_mtu_cap, "ibSmaPortMtuCapacity" },
	{ 18, port_vl_stall, "ibSmaPortVlStallCount" },
	{ 19, port_hoq_life, "ibSmaPortHeadOfQueueLife" },
	{ 20, port_oper_vls, "ibSmaPortOperationalVls" },
	{ 21, port_part_enf_in, "ibSmaPortPartEnforceInbound" },
	{ 22, port_part_enf_out, "ibSmaPortPartEnforceOutbound" },
	{ 23, port_filter_raw_in, "ibSmaPortFilterRawPktInbound" },
	{ 24, port_filter_raw_out, "ibSmaPortFilterRawPktOutbound" },
	{ 25, port_local_phys_err, "ibSmaPortLocalPhysErrorThreshold" },
	{ 26, port_overrun_err, "ibSmaPortOverrunErrorThreshold" },
};

/* Data ports are 1..NumPorts on every node type (IbDataPort). */
int
sma_data_ports(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return gw_row_range(lb, incl, 1, gw_node(e)->num_ports, out);
}

/* A walk down a column wants the next ports' PortInfo too. */
static void
port_read_ahead(struct gw_eval *e, const struct cache_key *k)
{
	const struct store_node *n = gw_node(e);
	struct cache_key a = *k;

	for (uint32_t p = k->mod + 1; p <= n->num_ports && p <= k->mod + 8;
	    p++) {
		a.mod = p;
		a.port = sma_route_port(n, p);
		cache_prefetch(&a, CACHE_PORTINFO);
	}
}

static const struct gw_table port_table = {
	.name = "ibSmaPortInfoTable",
	.base = { SMA_OBJECTS, 5, 1, 1 },	/* ibSmaPortInfoEntry */
	.base_len = 11,
	.nindex = 1,
	.cols = port_cols,
	.ncols = sizeof(port_cols) / sizeof(port_cols[0]),
	.row_next = sma_data_ports,
	.read_ahead = port_read_ahead,
};

int
gw_mib_sma_init(void)
{
	if (gw_mib_register(&node_table) == -1 ||
	    gw_mib_register(&switch_table) == -1 ||
	    gw_mib_register(&mgmt_table) == -1 ||
	    gw_mib_register(&port_table) == -1)
		return -1;
	return 0;
}
