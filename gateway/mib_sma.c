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

#include "codec/attr.h"
#include "codec/smp.h"
#include "gateway/mib.h"
#include "gateway/mib_node.h"

/* ibSmaNodeInfo (IBA 14.2.5.2 NodeDescription, 14.2.5.3 NodeInfo) */

static int
node_string(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	char d[SMP_DESC_LEN + 1];
	int rc = gw_decode(e, ATTR_NODE_DESC, 0, 0, d);

	if (rc != 0)
		return rc;
	if (d[0] == '\0')
		return GW_BAD;	/* SIZE(1..64) */
	return gw_val_octets(v, d, strlen(d));
}

/* A switch's SMA sits behind port 0; the port a DR SMP happened to enter
 * by depends on the gateway's route, not on the node, so switches read
 * 0 (the "OrZero" of the name), as an agent on the switch itself would. */
static int
node_local_port(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_nodeinfo n;
	int rc = gw_nodeinfo(e, &n);

	if (rc != 0)
		return rc;
	return gw_val_uint_in(v, n.node_type == STORE_NODE_SWITCH ? 0 :
	    n.local_port, 0, 254);
}

#define NI(sub, nm, f, ...) \
	GW_FIELD(sub, nm, ATTR_NODE_INFO, f, __VA_ARGS__)

static const struct gw_col node_cols[] = {
	GW_GET(1, "ibSmaNodeString", node_string),
	NI(2, "ibSmaNodeBaseVersion", IB_NODE_BASE_VERS_F, GW_K_UINT,
	    GW_RANGE(1, 255)),
	NI(3, "ibSmaNodeClassVersion", IB_NODE_CLASS_VERS_F, GW_K_UINT,
	    GW_RANGE(1, 255)),
	NI(4, "ibSmaNodeType", IB_NODE_TYPE_F, GW_K_ENUM, GW_CODES(1, 3, 0, 4)),
	NI(5, "ibSmaNodeNumPorts", IB_NODE_NPORTS_F, GW_K_UINT,
	    GW_RANGE(0, 254)),
	NI(6, "ibSmaSystemImageGuid", IB_NODE_SYSTEM_GUID_F, GW_K_GUID),
	NI(7, "ibSmaNodeGuid", IB_NODE_GUID_F, GW_K_GUID),
	NI(8, "ibSmaNodePortGuid", IB_NODE_PORT_GUID_F, GW_K_GUID),
	NI(9, "ibSmaNodePartitionTableNum", IB_NODE_PARTITION_CAP_F,
	    GW_K_UINT, GW_RANGE(1, 65535)),
	NI(10, "ibSmaNodeDeviceId", IB_NODE_DEVID_F, GW_K_OCTETS,
	    GW_NOCTETS(2)),
	NI(11, "ibSmaNodeRevision", IB_NODE_REVISION_F, GW_K_OCTETS,
	    GW_NOCTETS(4)),
	GW_GET(12, "ibSmaNodeLocalPortNumOrZero", node_local_port),
	NI(13, "ibSmaNodeVendorId", IB_NODE_VENDORID_F, GW_K_OCTETS,
	    GW_NOCTETS(3)),
};

static const struct gw_table node_table = {
	.name = "ibSmaNodeInfo",
	.GW_OID(GW_SMA_OBJECTS, 1),
	.GW_COLS(node_cols),
};

/* ibSmaSwitchInfo (IBA 14.2.5.4), switches only. */

#define SI(sub, nm, f, ...) \
	GW_FIELD(sub, nm, ATTR_SWITCH_INFO, f, __VA_ARGS__)

static const struct gw_col switch_cols[] = {
	SI(1, "ibSmaSwLinearFdbTableNum", IB_SW_LINEAR_FDB_CAP_F, GW_K_UINT,
	    GW_RANGE(0, 49151)),
	SI(2, "ibSmaSwRandomFdbTableNum", IB_SW_RANDOM_FDB_CAP_F, GW_K_UINT,
	    GW_RANGE(0, 49151)),
	SI(3, "ibSmaSwMulticastFdbTableNum", IB_SW_MCAST_FDB_CAP_F,
	    GW_K_UINT, GW_RANGE(0, 16383)),
	SI(4, "ibSmaSwLinearFdbTop", IB_SW_LINEAR_FDB_TOP_F, GW_K_UINT,
	    GW_RANGE(0, 49151)),
	SI(5, "ibSmaSwDefaultPort", IB_SW_DEF_PORT_F, GW_K_UINT,
	    GW_RANGE(0, 254)),
	SI(6, "ibSmaSwDefMcastPriPort", IB_SW_DEF_MCAST_PRIM_F, GW_K_UINT,
	    GW_RANGE(0, 254)),
	SI(7, "ibSmaSwDefMcastNotPriPort", IB_SW_DEF_MCAST_NOT_PRIM_F,
	    GW_K_UINT, GW_RANGE(0, 254)),
	SI(8, "ibSmaSwLifeTimeValue", IB_SW_LIFE_TIME_F, GW_K_UINT,
	    GW_RANGE(0, 20)),
	SI(9, "ibSmaSwPortStateChange", IB_SW_STATE_CHANGE_F, GW_K_TRUTH,
	    GW_MASK(1)),
	SI(10, "ibSmaSwLidsPerPort", IB_SW_LIDS_PER_PORT_F, GW_K_UINT),
	SI(11, "ibSmaSwPartitionEnforceNum", IB_SW_PARTITION_ENFORCE_CAP_F,
	    GW_K_UINT),
	SI(12, "ibSmaSwInboundEnforceCap", IB_SW_PARTITION_ENF_INB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	SI(13, "ibSmaSwOutboundEnforceCap", IB_SW_PARTITION_ENF_OUTB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	SI(14, "ibSmaSwFilterRawPktInputCap", IB_SW_FILTER_RAW_INB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	SI(15, "ibSmaSwFilterRawPktOutputCap", IB_SW_FILTER_RAW_OUTB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	SI(16, "ibSmaSwEnhancedPort0", IB_SW_ENHANCED_PORT0_F, GW_K_TRUTH,
	    GW_MASK(1)),
};

static const struct gw_table switch_table = {
	.name = "ibSmaSwitchInfo",
	.GW_OID(GW_SMA_OBJECTS, 2),
	.GW_COLS(switch_cols),
	.applies = gw_is_switch,
};

/* ibSmaMgmtPortInfo (IBA 14.2.5.6 PortInfo of the management port). */

static int
mp_mkey(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	static const uint8_t zero[8];

	/* Never revealed: not even fetched. */
	return gw_val_octets(v, zero, sizeof(zero));
}

#define PI(sub, nm, f, ...) \
	GW_FIELD(sub, nm, ATTR_PORT_INFO, f, __VA_ARGS__)
/* Objects 5..23: one CapabilityMask bit each (IBA 14.2.5.6 Table 155). */
#define CAP(sub, nm, bit) \
	PI(sub, nm, IB_PORT_CAPMASK_F, GW_K_TRUTH, GW_MASK(1u << (bit)))
/* InitType bits 0..3: NoLoad, PreserveContent, PreservePresence,
 * DoNotResuscitate; InitTypeReply bits 0..2 likewise. */
#define INIT(sub, nm, f, bit) \
	PI(sub, nm, f, GW_K_TRUTH, GW_MASK(1u << (bit)))

static const struct gw_col mgmt_cols[] = {
	GW_GET(1, "ibSmaPortMKey", mp_mkey),
	PI(2, "ibSmaPortGidPrefix", IB_PORT_GID_PREFIX_F, GW_K_GUID),
	PI(3, "ibSmaPortLid", IB_PORT_LID_F, GW_K_UINT, GW_RANGE(0, 49151)),
	PI(4, "ibSmaPortMasterSmLid", IB_PORT_SMLID_F, GW_K_UINT,
	    GW_RANGE(0, 49151)),
	CAP(5, "ibSmaPortIsSubnetManager", 1),
	CAP(6, "ibSmaPortIsNoticeSupported", 2),
	CAP(7, "ibSmaPortIsTrapSupported", 3),
	CAP(8, "ibSmaPortIsAutoMigrateSupported", 5),
	CAP(9, "ibSmaPortIsSI1MappingSupported", 6),
	CAP(10, "ibSmaPortIsMKeyNvram", 7),
	CAP(11, "ibSmaPortIsPKeyNvram", 8),
	CAP(12, "ibSmaPortIsLedInfoSupported", 9),
	CAP(13, "ibSmaPortIsSmDisabled", 10),
	CAP(14, "ibSmaPortIsSysImgGuidSupported", 11),
	CAP(15, "ibSmaPortIsPKeyExtPortTrapSup", 12),
	CAP(16, "ibSmaPortIsCommManageSupported", 16),
	CAP(17, "ibSmaPortIsSnmpTunnelSupported", 17),
	CAP(18, "ibSmaPortIsReinitSupported", 18),
	CAP(19, "ibSmaPortIsDevManageSupported", 19),
	CAP(20, "ibSmaPortIsVendorClassSupported", 20),
	CAP(21, "ibSmaPortIsDrNoticeSupported", 21),
	CAP(22, "ibSmaPortIsCapMaskNoticSupported", 22),
	CAP(23, "ibSmaPortIsBootMgmtSupported", 23),
	PI(24, "ibSmaPortMKeyLeasePeriod", IB_PORT_MKEY_LEASE_F, GW_K_UINT),
	PI(25, "ibSmaPortMKeyProtectBits", IB_PORT_MKEY_PROT_BITS_F,
	    GW_K_ENUM, GW_CODES(0, 3, 1, 0)),
	PI(26, "ibSmaPortMasterSmSl", IB_PORT_SMSL_F, GW_K_UINT,
	    GW_RANGE(0, 15)),
	INIT(27, "ibSmaPortInitTypeLoad", IB_PORT_INIT_TYPE_F, 0),
	INIT(28, "ibSmaPortInitTypeContent", IB_PORT_INIT_TYPE_F, 1),
	INIT(29, "ibSmaPortInitTypePresence", IB_PORT_INIT_TYPE_F, 2),
	INIT(30, "ibSmaPortInitTypeResuscitate", IB_PORT_INIT_TYPE_F, 3),
	INIT(31, "ibSmaPortInitNoLoadReply", IB_PORT_INIT_TYPE_REPLY_F, 0),
	INIT(32, "ibSmaPortInitPreserveContReply", IB_PORT_INIT_TYPE_REPLY_F,
	    1),
	INIT(33, "ibSmaPortInitPreservePresReply", IB_PORT_INIT_TYPE_REPLY_F,
	    2),
	PI(34, "ibSmaPortMKeyViolations", IB_PORT_MKEY_VIOL_F, GW_K_COUNTER),
	PI(35, "ibSmaPortPKeyViolations", IB_PORT_PKEY_VIOL_F, GW_K_COUNTER),
	PI(36, "ibSmaPortQKeyViolations", IB_PORT_QKEY_VIOL_F, GW_K_COUNTER),
	PI(37, "ibSmaPortNumGuid", IB_PORT_GUID_CAP_F, GW_K_UINT),
	PI(38, "ibSmaPortSubnetTimeout", IB_PORT_SUBN_TIMEOUT_F, GW_K_UINT),
	PI(39, "ibSmaPortResponseTimeValue", IB_PORT_RESP_TIME_VAL_F,
	    GW_K_UINT),
};

static const struct gw_table mgmt_table = {
	.name = "ibSmaMgmtPortInfo",
	.GW_OID(GW_SMA_OBJECTS, 4),
	.GW_COLS(mgmt_cols),
	.inst = gw_inst_mgmt_port,
};

/* ibSmaPortInfoTable (IBA 14.2.5.6 PortInfo), one row per data port. */

/* LinkWidth codes (IBA 14.2.5.6) in the draft's enumerations, which
 * predate 8x and 2x: the others read as other(n). */
static long
map(uint8_t code, const uint8_t *codes, size_t n, long other)
{
	for (size_t i = 0; i < n; i++)
		if (codes[i] == code)
			return (long)i + 1;
	return other;
}

static const uint8_t width_enabled_codes[] = { 1, 2, 3, 8, 9, 10, 11, 255 };
static const uint8_t width_supported_codes[] = { 1, 3, 11 };
static const uint8_t width_active_codes[] = { 1, 2, 8 };

static int
port_width(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_portinfo p;
	int rc = gw_portinfo(e, row->i[0], &p);

	if (rc != 0)
		return rc;
	switch (gw_column(e)->arg) {
	case 2:
		return gw_val_int(v, map(p.width_enabled, width_enabled_codes,
		    sizeof(width_enabled_codes), 9));
	case 3:
		return gw_val_int(v, map(p.width_supported,
		    width_supported_codes, sizeof(width_supported_codes), 4));
	}
	return gw_val_int(v, map(p.width_active, width_active_codes,
	    sizeof(width_active_codes), 4));
}

/* The draft knows 2.5 Gb/s only: sdr(1) or other(2). */
static int
port_speed(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_portinfo p;
	int rc = gw_portinfo(e, row->i[0], &p);

	if (rc != 0)
		return rc;
	switch (gw_column(e)->arg) {
	case 5:
		return gw_val_int(v, p.speed_supported == 1 ? 1 : 2);
	case 10:
		return gw_val_int(v, p.speed_active == 1 ? 1 : 2);
	}
	return gw_val_int(v, p.speed_enabled == 1 ? 1 :
	    p.speed_enabled == 15 ? 2 : 3);
}

/* IBA: HOQLife 20..31 all mean "infinite"; the MIB's range ends at 20. */
static int
port_hoq_life(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_portinfo p;
	int rc = gw_portinfo(e, row->i[0], &p);

	if (rc != 0)
		return rc;
	return gw_val_uint(v, p.hoq_life > 20 ? 20 : p.hoq_life);
}

static const struct gw_col port_cols[] = {
	GW_GETA(2, "ibSmaPortLinkWidthEnabled", port_width, 2),
	GW_GETA(3, "ibSmaPortLinkWidthSupported", port_width, 3),
	GW_GETA(4, "ibSmaPortLinkWidthActive", port_width, 4),
	GW_GETA(5, "ibSmaPortLinkSpeedSupported", port_speed, 5),
	PI(6, "ibSmaPortLinkState", IB_PORT_STATE_F, GW_K_ENUM,
	    GW_CODES(1, 4, 0, 5)),
	PI(7, "ibSmaPortPhysState", IB_PORT_PHYS_STATE_F, GW_K_ENUM,
	    GW_CODES(1, 6, 0, 7)),
	PI(8, "ibSmaPortLinkDownDefaultState", IB_PORT_LINK_DOWN_DEF_F,
	    GW_K_ENUM, GW_CODES(1, 2, 0, 3)),
	PI(9, "ibSmaPortLidMaskCount", IB_PORT_LMC_F, GW_K_UINT),
	GW_GETA(10, "ibSmaPortLinkSpeedActive", port_speed, 10),
	GW_GETA(11, "ibSmaPortLinkSpeedEnabled", port_speed, 11),
	PI(12, "ibSmaPortNeighborMtu", IB_PORT_NEIGHBOR_MTU_F, GW_K_ENUM,
	    GW_CODES(1, 5, 0, 6)),
	PI(13, "ibSmaPortVirtLaneSupport", IB_PORT_VL_CAP_F, GW_K_ENUM,
	    GW_CODES(1, 5, 0, 6)),
	PI(14, "ibSmaPortVlHighPriorityLimit", IB_PORT_VL_HIGH_LIMIT_F,
	    GW_K_UINT),
	PI(15, "ibSmaPortVlArbHighCapacity", IB_PORT_VL_ARBITRATION_HIGH_CAP_F,
	    GW_K_UINT, GW_RANGE(0, 64)),
	PI(16, "ibSmaPortVlArbLowCapacity", IB_PORT_VL_ARBITRATION_LOW_CAP_F,
	    GW_K_UINT, GW_RANGE(0, 64)),
	PI(17, "ibSmaPortMtuCapacity", IB_PORT_MTU_CAP_F, GW_K_ENUM,
	    GW_CODES(1, 5, 0, 6)),
	PI(18, "ibSmaPortVlStallCount", IB_PORT_VL_STALL_COUNT_F, GW_K_UINT),
	GW_GET(19, "ibSmaPortHeadOfQueueLife", port_hoq_life),
	PI(20, "ibSmaPortOperationalVls", IB_PORT_OPER_VLS_F, GW_K_ENUM,
	    GW_CODES(1, 5, 0, 6)),
	PI(21, "ibSmaPortPartEnforceInbound", IB_PORT_PART_EN_INB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	PI(22, "ibSmaPortPartEnforceOutbound", IB_PORT_PART_EN_OUTB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	PI(23, "ibSmaPortFilterRawPktInbound", IB_PORT_FILTER_RAW_INB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	PI(24, "ibSmaPortFilterRawPktOutbound", IB_PORT_FILTER_RAW_OUTB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	PI(25, "ibSmaPortLocalPhysErrorThreshold", IB_PORT_LOCAL_PHYS_ERR_F,
	    GW_K_UINT),
	PI(26, "ibSmaPortOverrunErrorThreshold", IB_PORT_OVERRUN_ERR_F,
	    GW_K_UINT),
};

/* A walk down a column wants the next ports' PortInfo too. */
static void
port_read_ahead(struct gw_eval *e, const struct cache_key *k)
{
	const struct store_node *n = gw_node(e);
	struct cache_key a = *k;

	for (uint32_t p = k->mod + 1; p <= n->num_ports && p <= k->mod + 8;
	    p++) {
		a.mod = p;
		a.port = gw_route_port(n, p);
		cache_prefetch(&a, attr_defs[ATTR_PORT_INFO].ttl);
	}
}

static const struct gw_table port_table = {
	.name = "ibSmaPortInfoTable",
	.GW_OID(GW_SMA_OBJECTS, 5, 1, 1),	/* ibSmaPortInfoEntry */
	.nindex = 1,
	.GW_COLS(port_cols),
	.inst = gw_inst_row_port,
	.row_next = gw_data_ports,
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
