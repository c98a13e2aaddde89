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
#include "gateway/oids.h"
#include "gateway/mib/node.h"

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

#define NI(nm, f, ...) \
	GW_FIELD(nm, ATTR_NODE_INFO, f, __VA_ARGS__)

static const struct gw_col node_cols[] = {
	GW_GET(ibSmaNodeString, node_string),
	NI(ibSmaNodeBaseVersion, IB_NODE_BASE_VERS_F, GW_K_UINT,
	    GW_RANGE(1, 255)),
	NI(ibSmaNodeClassVersion, IB_NODE_CLASS_VERS_F, GW_K_UINT,
	    GW_RANGE(1, 255)),
	NI(ibSmaNodeType, IB_NODE_TYPE_F, GW_K_ENUM, GW_CODES(1, 3, 0, 4)),
	NI(ibSmaNodeNumPorts, IB_NODE_NPORTS_F, GW_K_UINT,
	    GW_RANGE(0, 254)),
	NI(ibSmaSystemImageGuid, IB_NODE_SYSTEM_GUID_F, GW_K_GUID),
	NI(ibSmaNodeGuid, IB_NODE_GUID_F, GW_K_GUID),
	NI(ibSmaNodePortGuid, IB_NODE_PORT_GUID_F, GW_K_GUID),
	NI(ibSmaNodePartitionTableNum, IB_NODE_PARTITION_CAP_F,
	    GW_K_UINT, GW_RANGE(1, 65535)),
	NI(ibSmaNodeDeviceId, IB_NODE_DEVID_F, GW_K_OCTETS,
	    GW_NOCTETS(2)),
	NI(ibSmaNodeRevision, IB_NODE_REVISION_F, GW_K_OCTETS,
	    GW_NOCTETS(4)),
	GW_GET(ibSmaNodeLocalPortNumOrZero, node_local_port),
	NI(ibSmaNodeVendorId, IB_NODE_VENDORID_F, GW_K_OCTETS,
	    GW_NOCTETS(3)),
};

static const struct gw_table node_table = {
	.name = "ibSmaNodeInfo",
	.GW_OID(GW_OID_ibSmaNodeInfo),
	.GW_COLS(node_cols),
};

/* ibSmaSwitchInfo (IBA 14.2.5.4), switches only. */

#define SI(nm, f, ...) \
	GW_FIELD(nm, ATTR_SWITCH_INFO, f, __VA_ARGS__)

static const struct gw_col switch_cols[] = {
	SI(ibSmaSwLinearFdbTableNum, IB_SW_LINEAR_FDB_CAP_F, GW_K_UINT,
	    GW_RANGE(0, 49151)),
	SI(ibSmaSwRandomFdbTableNum, IB_SW_RANDOM_FDB_CAP_F, GW_K_UINT,
	    GW_RANGE(0, 49151)),
	SI(ibSmaSwMulticastFdbTableNum, IB_SW_MCAST_FDB_CAP_F,
	    GW_K_UINT, GW_RANGE(0, 16383)),
	SI(ibSmaSwLinearFdbTop, IB_SW_LINEAR_FDB_TOP_F, GW_K_UINT,
	    GW_RANGE(0, 49151)),
	SI(ibSmaSwDefaultPort, IB_SW_DEF_PORT_F, GW_K_UINT,
	    GW_RANGE(0, 254)),
	SI(ibSmaSwDefMcastPriPort, IB_SW_DEF_MCAST_PRIM_F, GW_K_UINT,
	    GW_RANGE(0, 254)),
	SI(ibSmaSwDefMcastNotPriPort, IB_SW_DEF_MCAST_NOT_PRIM_F,
	    GW_K_UINT, GW_RANGE(0, 254)),
	SI(ibSmaSwLifeTimeValue, IB_SW_LIFE_TIME_F, GW_K_UINT,
	    GW_RANGE(0, 20)),
	SI(ibSmaSwPortStateChange, IB_SW_STATE_CHANGE_F, GW_K_TRUTH,
	    GW_MASK(1)),
	SI(ibSmaSwLidsPerPort, IB_SW_LIDS_PER_PORT_F, GW_K_UINT),
	SI(ibSmaSwPartitionEnforceNum, IB_SW_PARTITION_ENFORCE_CAP_F,
	    GW_K_UINT),
	SI(ibSmaSwInboundEnforceCap, IB_SW_PARTITION_ENF_INB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	SI(ibSmaSwOutboundEnforceCap, IB_SW_PARTITION_ENF_OUTB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	SI(ibSmaSwFilterRawPktInputCap, IB_SW_FILTER_RAW_INB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	SI(ibSmaSwFilterRawPktOutputCap, IB_SW_FILTER_RAW_OUTB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	SI(ibSmaSwEnhancedPort0, IB_SW_ENHANCED_PORT0_F, GW_K_TRUTH,
	    GW_MASK(1)),
};

static const struct gw_table switch_table = {
	.name = "ibSmaSwitchInfo",
	.GW_OID(GW_OID_ibSmaSwitchInfo),
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

#define PI(nm, f, ...) \
	GW_FIELD(nm, ATTR_PORT_INFO, f, __VA_ARGS__)
/* Objects 5..23: one CapabilityMask bit each (IBA 14.2.5.6 Table 155). */
#define CAP(nm, bit) \
	PI(nm, IB_PORT_CAPMASK_F, GW_K_TRUTH, GW_MASK(1u << (bit)))
/* InitType bits 0..3: NoLoad, PreserveContent, PreservePresence,
 * DoNotResuscitate; InitTypeReply bits 0..2 likewise. */
#define INIT(nm, f, bit) \
	PI(nm, f, GW_K_TRUTH, GW_MASK(1u << (bit)))

static const struct gw_col mgmt_cols[] = {
	GW_GET(ibSmaPortMKey, mp_mkey),
	PI(ibSmaPortGidPrefix, IB_PORT_GID_PREFIX_F, GW_K_GUID),
	PI(ibSmaPortLid, IB_PORT_LID_F, GW_K_UINT, GW_RANGE(0, 49151)),
	PI(ibSmaPortMasterSmLid, IB_PORT_SMLID_F, GW_K_UINT,
	    GW_RANGE(0, 49151)),
	CAP(ibSmaPortIsSubnetManager, 1),
	CAP(ibSmaPortIsNoticeSupported, 2),
	CAP(ibSmaPortIsTrapSupported, 3),
	CAP(ibSmaPortIsAutoMigrateSupported, 5),
	CAP(ibSmaPortIsSI1MappingSupported, 6),
	CAP(ibSmaPortIsMKeyNvram, 7),
	CAP(ibSmaPortIsPKeyNvram, 8),
	CAP(ibSmaPortIsLedInfoSupported, 9),
	CAP(ibSmaPortIsSmDisabled, 10),
	CAP(ibSmaPortIsSysImgGuidSupported, 11),
	CAP(ibSmaPortIsPKeyExtPortTrapSup, 12),
	CAP(ibSmaPortIsCommManageSupported, 16),
	CAP(ibSmaPortIsSnmpTunnelSupported, 17),
	CAP(ibSmaPortIsReinitSupported, 18),
	CAP(ibSmaPortIsDevManageSupported, 19),
	CAP(ibSmaPortIsVendorClassSupported, 20),
	CAP(ibSmaPortIsDrNoticeSupported, 21),
	CAP(ibSmaPortIsCapMaskNoticSupported, 22),
	CAP(ibSmaPortIsBootMgmtSupported, 23),
	PI(ibSmaPortMKeyLeasePeriod, IB_PORT_MKEY_LEASE_F, GW_K_UINT),
	PI(ibSmaPortMKeyProtectBits, IB_PORT_MKEY_PROT_BITS_F,
	    GW_K_ENUM, GW_CODES(0, 3, 1, 0)),
	PI(ibSmaPortMasterSmSl, IB_PORT_SMSL_F, GW_K_UINT,
	    GW_RANGE(0, 15)),
	INIT(ibSmaPortInitTypeLoad, IB_PORT_INIT_TYPE_F, 0),
	INIT(ibSmaPortInitTypeContent, IB_PORT_INIT_TYPE_F, 1),
	INIT(ibSmaPortInitTypePresence, IB_PORT_INIT_TYPE_F, 2),
	INIT(ibSmaPortInitTypeResuscitate, IB_PORT_INIT_TYPE_F, 3),
	INIT(ibSmaPortInitNoLoadReply, IB_PORT_INIT_TYPE_REPLY_F, 0),
	INIT(ibSmaPortInitPreserveContReply, IB_PORT_INIT_TYPE_REPLY_F,
	    1),
	INIT(ibSmaPortInitPreservePresReply, IB_PORT_INIT_TYPE_REPLY_F,
	    2),
	PI(ibSmaPortMKeyViolations, IB_PORT_MKEY_VIOL_F, GW_K_COUNTER),
	PI(ibSmaPortPKeyViolations, IB_PORT_PKEY_VIOL_F, GW_K_COUNTER),
	PI(ibSmaPortQKeyViolations, IB_PORT_QKEY_VIOL_F, GW_K_COUNTER),
	PI(ibSmaPortNumGuid, IB_PORT_GUID_CAP_F, GW_K_UINT),
	PI(ibSmaPortSubnetTimeout, IB_PORT_SUBN_TIMEOUT_F, GW_K_UINT),
	PI(ibSmaPortResponseTimeValue, IB_PORT_RESP_TIME_VAL_F,
	    GW_K_UINT),
};

static const struct gw_table mgmt_table = {
	.name = "ibSmaMgmtPortInfo",
	.GW_OID(GW_OID_ibSmaMgmtPortInfo),
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
	GW_GETA(ibSmaPortLinkWidthEnabled, port_width, 2),
	GW_GETA(ibSmaPortLinkWidthSupported, port_width, 3),
	GW_GETA(ibSmaPortLinkWidthActive, port_width, 4),
	GW_GETA(ibSmaPortLinkSpeedSupported, port_speed, 5),
	PI(ibSmaPortLinkState, IB_PORT_STATE_F, GW_K_ENUM,
	    GW_CODES(1, 4, 0, 5)),
	PI(ibSmaPortPhysState, IB_PORT_PHYS_STATE_F, GW_K_ENUM,
	    GW_CODES(1, 6, 0, 7)),
	PI(ibSmaPortLinkDownDefaultState, IB_PORT_LINK_DOWN_DEF_F,
	    GW_K_ENUM, GW_CODES(1, 2, 0, 3)),
	PI(ibSmaPortLidMaskCount, IB_PORT_LMC_F, GW_K_UINT),
	GW_GETA(ibSmaPortLinkSpeedActive, port_speed, 10),
	GW_GETA(ibSmaPortLinkSpeedEnabled, port_speed, 11),
	PI(ibSmaPortNeighborMtu, IB_PORT_NEIGHBOR_MTU_F, GW_K_ENUM,
	    GW_CODES(1, 5, 0, 6)),
	PI(ibSmaPortVirtLaneSupport, IB_PORT_VL_CAP_F, GW_K_ENUM,
	    GW_CODES(1, 5, 0, 6)),
	PI(ibSmaPortVlHighPriorityLimit, IB_PORT_VL_HIGH_LIMIT_F,
	    GW_K_UINT),
	PI(ibSmaPortVlArbHighCapacity, IB_PORT_VL_ARBITRATION_HIGH_CAP_F,
	    GW_K_UINT, GW_RANGE(0, 64)),
	PI(ibSmaPortVlArbLowCapacity, IB_PORT_VL_ARBITRATION_LOW_CAP_F,
	    GW_K_UINT, GW_RANGE(0, 64)),
	PI(ibSmaPortMtuCapacity, IB_PORT_MTU_CAP_F, GW_K_ENUM,
	    GW_CODES(1, 5, 0, 6)),
	PI(ibSmaPortVlStallCount, IB_PORT_VL_STALL_COUNT_F, GW_K_UINT),
	GW_GET(ibSmaPortHeadOfQueueLife, port_hoq_life),
	PI(ibSmaPortOperationalVls, IB_PORT_OPER_VLS_F, GW_K_ENUM,
	    GW_CODES(1, 5, 0, 6)),
	PI(ibSmaPortPartEnforceInbound, IB_PORT_PART_EN_INB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	PI(ibSmaPortPartEnforceOutbound, IB_PORT_PART_EN_OUTB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	PI(ibSmaPortFilterRawPktInbound, IB_PORT_FILTER_RAW_INB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	PI(ibSmaPortFilterRawPktOutbound, IB_PORT_FILTER_RAW_OUTB_F,
	    GW_K_TRUTH, GW_MASK(1)),
	PI(ibSmaPortLocalPhysErrorThreshold, IB_PORT_LOCAL_PHYS_ERR_F,
	    GW_K_UINT),
	PI(ibSmaPortOverrunErrorThreshold, IB_PORT_OVERRUN_ERR_F,
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
	.GW_OID(GW_OID_ibSmaPortInfoEntry),
	.nindex = 1,
	.GW_COLS(port_cols),
	.inst = gw_inst_row_port,
	.row_next = gw_data_ports,
	.read_ahead = port_read_ahead,
};

static const struct gw_table *const tables[] = {
	&node_table, &switch_table, &mgmt_table, &port_table, NULL
};

const struct gw_mib_module gw_mod_ib_sma_mib = {
	.name = "IB-SMA-MIB",
	.tables = tables,
};
