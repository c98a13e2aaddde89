/* IB-SM-MIB per-port and per-SM tables in the fabric context: PortInfo
 * and links from the sweep's PortInfo copies, SMInfo and Config from
 * the SMInfo each sweep reads of the ports that run an SM. No MADs. */
#include "config.h"

#include <string.h>

#include "gateway/oids.h"
#include "gateway/mib/ib_sm_mib.h"

/* ---- ibSmPortInfoTable (IBA 14.2.5.6) */

/* Whether a port's link is in the subnet now: both ends reachable. */
static int
linked_now(const struct store_port *pt)
{
	const struct store_node *r;

	if (pt->remote_guid == 0)
		return 0;
	r = store_node_by_guid(pt->remote_guid);
	return r != NULL && r->reachable;
}

/* Ports 0..N with a PortInfo, from tail[0] on. */
static int
port_next(const struct store_node *n, const uint32_t *tail, int incl,
    int linked, struct gw_row *out)
{
	uint32_t p = 0;

	if (tail != NULL) {
		if (tail[0] > 255)
			return 0;
		p = tail[0] + (incl ? 0 : 1);
	}
	for (; p <= n->num_ports; p++) {
		const struct store_port *pt = &n->ports[p];

		if (!pt->pinfo_ok || (linked && !linked_now(pt)))
			continue;
		out->i[16] = p;
		return 1;
	}
	return 0;
}

static int
port_one(struct gw_eval *e, const struct store_node *n, const uint32_t *tail,
    int incl, struct gw_row *out)
{
	return port_next(n, tail, incl, 0, out);
}

static int
port_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return gw_sm_node_rows(e, lb, incl, out, port_one);
}

static const struct store_port *
row_port(const struct gw_row *row)
{
	const struct store_node *n = gw_sm_row_node(row, 8);

	if (n == NULL || row->i[16] > n->num_ports)
		return NULL;
	return &n->ports[row->i[16]];
}

static const uint8_t *
port_raw(struct gw_eval *e, const struct gw_row *row, int attr)
{
	const struct store_port *pt = row_port(row);

	return pt != NULL && pt->pinfo_ok && attr == ATTR_PORT_INFO ?
	    pt->pinfo : NULL;
}

/* Never revealed, as in IB-SMA-MIB: a port returns its M_Key only to a
 * requester that already has it. */
static int
port_mkey(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	static const uint8_t zero[8];

	if (port_raw(e, row, ATTR_PORT_INFO) == NULL)
		return GW_ABSENT;
	return gw_val_octets(v, zero, sizeof(zero));
}

#define PI(nm, f, ...) \
	GW_FIELD(nm, ATTR_PORT_INFO, f, __VA_ARGS__)
#define PI_INT(nm, f, hi) PI(nm, f, GW_K_INT, GW_RANGE(0, hi))
/* The draft's enumerations of codes 1..5 with reserved(6) for others:
 * MTU 256..4096 (IBA 14.2.5.6), VLCap and OperationalVLs VL0..VL14. */
#define PI_ENUM5(nm, f) \
	PI(nm, f, GW_K_ENUM, GW_CODES(1, 5, 0, 6))
#define PI_TRUTH(nm, f) PI(nm, f, GW_K_TRUTH, GW_MASK(1))

static const struct gw_col port_cols[] = {
	GW_GET(ibSmPortInfoMKey, port_mkey),
	PI(ibSmPortInfoGIDPrefix, IB_PORT_GID_PREFIX_F, GW_K_GUID),
	PI_INT(ibSmPortInfoLID, IB_PORT_LID_F, 65535),
	PI_INT(ibSmPortInfoMasterSmLID, IB_PORT_SMLID_F, 65535),
	PI(ibSmPortInfoCapMask, IB_PORT_CAPMASK_F, GW_K_OCTETS,
	    GW_NOCTETS(4)),
	PI(ibSmPortInfoDiagCode, IB_PORT_DIAG_F, GW_K_OCTETS,
	    GW_NOCTETS(2)),
	PI_INT(ibSmPortInfoMKeyLeasePeriod, IB_PORT_MKEY_LEASE_F,
	    65535),
	PI_INT(ibSmPortInfoLinkWidthEnabled,
	    IB_PORT_LINK_WIDTH_ENABLED_F, 255),
	PI_INT(ibSmPortInfoLinkWidthSupported,
	    IB_PORT_LINK_WIDTH_SUPPORTED_F, 255),
	PI_INT(ibSmPortInfoLinkWidthActive,
	    IB_PORT_LINK_WIDTH_ACTIVE_F, 255),
	PI_INT(ibSmPortInfoLinkSpeedSupported,
	    IB_PORT_LINK_SPEED_SUPPORTED_F, 15),
	PI_INT(ibSmPortInfoState, IB_PORT_STATE_F, 5),
	PI_INT(ibSmPortInfoPhyState, IB_PORT_PHYS_STATE_F, 7),
	PI_INT(ibSmPortInfoLinkDownDefState, IB_PORT_LINK_DOWN_DEF_F,
	    3),
	PI_INT(ibSmPortInfoMKeyProtBits, IB_PORT_MKEY_PROT_BITS_F, 3),
	PI_INT(ibSmPortInfoLMC, IB_PORT_LMC_F, 7),
	PI_INT(ibSmPortInfoLinkSpeedActive, IB_PORT_LINK_SPEED_ACTIVE_F,
	    15),
	PI_INT(ibSmPortInfoLinkSpeedEnabled,
	    IB_PORT_LINK_SPEED_ENABLED_F, 15),
	PI_ENUM5(ibSmPortInfoNeighborMTU, IB_PORT_NEIGHBOR_MTU_F),
	PI_INT(ibSmPortInfoMasterSmSL, IB_PORT_SMSL_F, 15),
	PI_ENUM5(ibSmPortInfoVLCap, IB_PORT_VL_CAP_F),
	PI_INT(ibSmPortInfoVLHighLimit, IB_PORT_VL_HIGH_LIMIT_F, 255),
	PI_INT(ibSmPortInfoVLArbHighCap,
	    IB_PORT_VL_ARBITRATION_HIGH_CAP_F, 255),
	PI_INT(ibSmPortInfoVLArbLowCap,
	    IB_PORT_VL_ARBITRATION_LOW_CAP_F, 255),
	PI_ENUM5(ibSmPortInfoMTUCap, IB_PORT_MTU_CAP_F),
	PI_INT(ibSmPortInfoVLStallCount, IB_PORT_VL_STALL_COUNT_F, 7),
	PI_INT(ibSmPortInfoHOQLife, IB_PORT_HOQ_LIFE_F, 31),
	PI_ENUM5(ibSmPortInfoOperVL, IB_PORT_OPER_VLS_F),
	PI_TRUTH(ibSmPortInfoInPartEnforce, IB_PORT_PART_EN_INB_F),
	PI_TRUTH(ibSmPortInfoOutPartEnforce, IB_PORT_PART_EN_OUTB_F),
	PI_TRUTH(ibSmPortInfoInFilterRawPktEnf,
	    IB_PORT_FILTER_RAW_INB_F),
	PI_TRUTH(ibSmPortInfoOutFilterRawPktEnf,
	    IB_PORT_FILTER_RAW_OUTB_F),
	PI_INT(ibSmPortInfoMKeyViolation, IB_PORT_MKEY_VIOL_F, 65535),
	PI_INT(ibSmPortInfoPKeyViolation, IB_PORT_PKEY_VIOL_F, 65535),
	PI_INT(ibSmPortInfoQKeyViolation, IB_PORT_QKEY_VIOL_F, 65535),
	PI_INT(ibSmPortInfoGUIDCap, IB_PORT_GUID_CAP_F, 255),
	PI_INT(ibSmPortInfoSubnetTimeout, IB_PORT_SUBN_TIMEOUT_F, 31),
	PI_INT(ibSmPortInfoRespTime, IB_PORT_RESP_TIME_VAL_F, 31),
	PI_INT(ibSmPortInfoLocalPhyError, IB_PORT_LOCAL_PHYS_ERR_F, 15),
	PI_INT(ibSmPortInfoOverrunError, IB_PORT_OVERRUN_ERR_F, 15),
	PI(ibSmPortInfoInitType, IB_PORT_INIT_TYPE_F, GW_K_OCTETS,
	    GW_NOCTETS(1)),
	PI(ibSmPortInfoInitTypeReply, IB_PORT_INIT_TYPE_REPLY_F,
	    GW_K_OCTETS, GW_NOCTETS(1)),
};

static const struct gw_table port_table = {
	.name = "ibSmPortInfoTable",
	.GW_OID(GW_OID_ibSmPortInfoEntry),
	.nindex = 17,
	.GW_COLS(port_cols),
	.row_next = port_rows,
	.raw = port_raw,
	.context = GW_FABRIC_CONTEXT,
};

/* ---- ibSmLinkTable: every linked port, once from each end (the
 * links the sweep found, as ibnetdiscover lists them). */

static int
link_one(struct gw_eval *e, const struct store_node *n, const uint32_t *tail,
    int incl, struct gw_row *out)
{
	return port_next(n, tail, incl, 1, out);
}

static int
link_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return gw_sm_node_rows(e, lb, incl, out, link_one);
}

static int
link_to(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_port *pt = row_port(row);

	if (pt == NULL || !linked_now(pt))
		return GW_ABSENT;
	if (gw_column(e)->arg == 0)
		return gw_val_guid(v, pt->remote_guid);
	return gw_val_int(v, pt->remote_port);
}

static const struct gw_col link_cols[] = {
	GW_GETA(ibSmLinkToNodeGUID, link_to, 0),
	GW_GETA(ibSmLinkToPortNum, link_to, 1),
};

static const struct gw_table link_table = {
	.name = "ibSmLinkTable",
	.GW_OID(GW_OID_ibSmLinkEntry),
	.nindex = 17,
	.GW_COLS(link_cols),
	.row_next = link_rows,
	.context = GW_FABRIC_CONTEXT,
};

/* ---- ibSmSMInfoTable (IBA 14.2.5.13): the SMs of the last sweep, by
 * port GUID (store_sm_at is in that order). A tenant sees the SMs
 * that run on its own nodes. */

static int
sm_visible(struct gw_eval *e, const struct store_sm *sm)
{
	const struct store_node *n = store_node_by_guid(sm->node_guid);

	return n != NULL && n->reachable && gw_visible(e, n);
}

static int
sm_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	uint32_t pfx[8];
	size_t count = store_sm_count();
	int c;

	gw_sm_put64(pfx, gw_sm_prefix());
	if ((c = gw_sm_cmp(lb->i, pfx, 8)) > 0)
		return 0;
	for (size_t i = 0; i < count; i++) {
		const struct store_sm *sm = store_sm_at(i);

		memset(out, 0, sizeof(*out));
		memcpy(out->i, pfx, sizeof(pfx));
		gw_sm_put64(out->i + 8, sm->port_guid);
		if (c == 0) {
			int d = gw_sm_cmp(out->i + 8, lb->i + 8, 8);

			if (d < 0 || (d == 0 && !incl))
				continue;
		}
		if (sm_visible(e, sm))
			return 1;
	}
	return 0;
}

static const struct store_sm *
row_sm(const struct gw_row *row, int at)
{
	uint64_t guid;
	size_t count = store_sm_count();

	if (gw_sm_get64(row->i + at, &guid) == -1)
		return NULL;
	for (size_t i = 0; i < count; i++)
		if (store_sm_at(i)->port_guid == guid)
			return store_sm_at(i);
	return NULL;
}

static const uint8_t *
sm_raw(struct gw_eval *e, const struct gw_row *row, int attr)
{
	const struct store_sm *sm = row_sm(row, 8);

	return sm != NULL && attr == ATTR_SM_INFO ? sm->sminfo : NULL;
}

#define SM(nm, f, ...) GW_FIELD(nm, ATTR_SM_INFO, f, __VA_ARGS__)

static const struct gw_col sm_cols[] = {
	SM(ibSmSMInfoSMKey, IB_SMINFO_KEY_F, GW_K_GUID),
	SM(ibSmSMInfoActCount, IB_SMINFO_ACT_F, GW_K_UINT),
	SM(ibSmSMInfoPriority, IB_SMINFO_PRIO_F, GW_K_INT,
	    GW_RANGE(0, 15)),
	SM(ibSmSMInfoSMState, IB_SMINFO_STATE_F, GW_K_INT,
	    GW_RANGE(0, 4)),
};

static const struct gw_table sm_table = {
	.name = "ibSmSMInfoTable",
	.GW_OID(GW_OID_ibSmSMInfoEntry),
	.nindex = 16,
	.GW_COLS(sm_cols),
	.row_next = sm_rows,
	.raw = sm_raw,
	.context = GW_FABRIC_CONTEXT,
};

/* ---- ibSmConfigTable: one row, the master SM (SMState 3) of the
 * subnet, as its SMInfo and its port's PortInfo show it. The SM's own
 * settings that no MAD carries (sweep interval, timeouts, LID range,
 * LMC, polling) have no instance: they are never guessed. */

#define SM_STATE_MASTER	3	/* IBA 14.2.5.13 SMInfo:SMState */

static const struct store_sm *
master_sm(struct gw_eval *e)
{
	size_t count = store_sm_count();

	for (size_t i = 0; i < count; i++) {
		const struct store_sm *sm = store_sm_at(i);

		if (mad_get_field((void *)sm->sminfo, 0, IB_SMINFO_STATE_F) ==
		    SM_STATE_MASTER && sm_visible(e, sm))
			return sm;
	}
	return NULL;
}

static int
config_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	int c;

	memset(out, 0, sizeof(*out));
	gw_sm_put64(out->i, gw_sm_prefix());
	c = gw_sm_cmp(out->i, lb->i, 8);
	if (c < 0 || (c == 0 && !incl) || master_sm(e) == NULL)
		return 0;
	return 1;
}

static const uint8_t *
config_raw(struct gw_eval *e, const struct gw_row *row, int attr)
{
	const struct store_sm *sm = master_sm(e);
	const struct store_node *n;

	if (sm == NULL)
		return NULL;
	if (attr == ATTR_SM_INFO)
		return sm->sminfo;
	n = store_node_by_guid(sm->node_guid);
	if (attr != ATTR_PORT_INFO || n == NULL || sm->port > n->num_ports ||
	    !n->ports[sm->port].pinfo_ok)
		return NULL;
	return n->ports[sm->port].pinfo;
}

/* AdminStatus enable(1) and row status active(1): the SM runs, and the
 * row is the agent's report of it. */
static int
config_fixed(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	if (master_sm(e) == NULL)
		return GW_ABSENT;
	return gw_val_int(v, 1);
}

static const struct gw_col config_cols[] = {
	SM(ibSmConfigGUID, IB_SMINFO_GUID_F, GW_K_GUID),
	SM(ibSmConfigPriority, IB_SMINFO_PRIO_F, GW_K_INT,
	    GW_RANGE(0, 15)),
	SM(ibSmConfigSMKey, IB_SMINFO_KEY_F, GW_K_GUID),
	GW_GET(ibSmConfigAdminStatus, config_fixed),
	SM(ibSmConfigOperStatus, IB_SMINFO_STATE_F, GW_K_INT,
	    GW_RANGE(0, 4)),
	SM(ibSmConfigActCount, IB_SMINFO_ACT_F, GW_K_COUNTER),
	GW_GET(ibSmConfigStatus, config_fixed),
	PI_INT(ibSmConfigMKeyLeasePeriod, IB_PORT_MKEY_LEASE_F, 65535),
};

static const struct gw_table config_table = {
	.name = "ibSmConfigTable",
	.GW_OID(GW_OID_ibSmConfigEntry),
	.nindex = 8,
	.GW_COLS(config_cols),
	.row_next = config_rows,
	.raw = config_raw,
	.context = GW_FABRIC_CONTEXT,
};

static const struct gw_table *const tables[] = {
	&config_table, &port_table, &sm_table, &link_table, NULL
};

const struct gw_mib_module gw_mod_ib_sm_mib_ports = {
	.name = "IB-SM-MIB ports",
	.tables = tables,
};
