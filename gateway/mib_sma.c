/* IB-SMA-MIB (mibs/IB-SMA-MIB): Node Info scalars and the Data Port Info
 * table, from NodeInfo, NodeDescription and PortInfo SMPs.
 *
 * Enumerations follow the draft, which predates IBA 1.2: codes it has
 * no value for (8x/2x widths, speeds above SDR, PhyTest) read as the
 * draft's other(n). docs/mibs.md lists every mapping. */
#include "config.h"

#include <string.h>

#include "gateway/mib.h"
#include "proxy/mad.h"
#include "proxy/smp.h"

/* ibSmaMIB = experimental.117.3; ibSmaObjects = ibSmaMIB.1 */
#define SMA_OBJECTS	1, 3, 6, 1, 3, 117, 3, 1

static int
ni(const struct gw_ctx *x, struct smp_nodeinfo *n)
{
	return smp_decode_nodeinfo(x->data, x->len, n);
}

static int
pi(const struct gw_ctx *x, struct smp_portinfo *p)
{
	return smp_decode_portinfo(x->data, x->len, p);
}

/* ibSmaNodeInfo (IBA 14.2.5.2 NodeDescription, 14.2.5.3 NodeInfo) */

static int
node_string(const struct gw_ctx *x, struct gw_val *v)
{
	char d[65];

	smp_decode_nodedesc(x->data, x->len, d, sizeof(d));
	if (d[0] == '\0')
		return -1;	/* SIZE(1..64) */
	gw_val_octets(v, d, strlen(d));
	return 0;
}

#define NI_UINT(fn, field, lo, hi) \
static int \
fn(const struct gw_ctx *x, struct gw_val *v) \
{ \
	struct smp_nodeinfo n; \
	if (ni(x, &n) == -1) \
		return -1; \
	gw_val_uint(v, n.field); \
	return gw_val_range(v, lo, hi); \
}

NI_UINT(node_base_version, base_version, 1, 255)
NI_UINT(node_class_version, class_version, 1, 255)
NI_UINT(node_num_ports, num_ports, 0, 254)
NI_UINT(node_partition_cap, partition_cap, 1, 65535)

/* A switch's SMA sits behind port 0; the port a DR SMP happened to enter
 * by depends on the gateway's route, not on the node, so switches read
 * 0 (the "OrZero" of the name), as an agent on the switch itself would. */
static int
node_local_port(const struct gw_ctx *x, struct gw_val *v)
{
	struct smp_nodeinfo n;

	if (ni(x, &n) == -1)
		return -1;
	gw_val_uint(v, n.node_type == STORE_NODE_SWITCH ? 0 : n.local_port);
	return gw_val_range(v, 0, 254);
}

static int
node_type(const struct gw_ctx *x, struct gw_val *v)
{
	struct smp_nodeinfo n;

	if (ni(x, &n) == -1)
		return -1;
	gw_val_int(v, n.node_type >= 1 && n.node_type <= 3 ? n.node_type : 4);
	return 0;
}

#define NI_GUID(fn, field) \
static int \
fn(const struct gw_ctx *x, struct gw_val *v) \
{ \
	struct smp_nodeinfo n; \
	if (ni(x, &n) == -1) \
		return -1; \
	gw_val_guid(v, n.field); \
	return 0; \
}

NI_GUID(node_sysimage_guid, system_image_guid)
NI_GUID(node_guid, node_guid)
NI_GUID(node_port_guid, port_guid)

static void
put_be(struct gw_val *v, uint32_t val, size_t len)
{
	uint8_t b[4];

	for (size_t i = 0; i < len; i++)
		b[i] = val >> (8 * (len - 1 - i));
	gw_val_octets(v, b, len);
}

static int
node_device_id(const struct gw_ctx *x, struct gw_val *v)
{
	struct smp_nodeinfo n;

	if (ni(x, &n) == -1)
		return -1;
	put_be(v, n.device_id, 2);
	return 0;
}

static int
node_revision(const struct gw_ctx *x, struct gw_val *v)
{
	struct smp_nodeinfo n;

	if (ni(x, &n) == -1)
		return -1;
	put_be(v, n.revision, 4);
	return 0;
}

static int
node_vendor_id(const struct gw_ctx *x, struct gw_val *v)
{
	struct smp_nodeinfo n;

	if (ni(x, &n) == -1)
		return -1;
	put_be(v, n.vendor_id, 3);
	return 0;
}

static const struct gw_col node_cols[] = {
	{ 1, GW_SRC_NODEDESC, node_string, "ibSmaNodeString" },
	{ 2, GW_SRC_NODEINFO, node_base_version, "ibSmaNodeBaseVersion" },
	{ 3, GW_SRC_NODEINFO, node_class_version, "ibSmaNodeClassVersion" },
	{ 4, GW_SRC_NODEINFO, node_type, "ibSmaNodeType" },
	{ 5, GW_SRC_NODEINFO, node_num_ports, "ibSmaNodeNumPorts" },
	{ 6, GW_SRC_NODEINFO, node_sysimage_guid, "ibSmaSystemImageGuid" },
	{ 7, GW_SRC_NODEINFO, node_guid, "ibSmaNodeGuid" },
	{ 8, GW_SRC_NODEINFO, node_port_guid, "ibSmaNodePortGuid" },
	{ 9, GW_SRC_NODEINFO, node_partition_cap, "ibSmaNodePartitionTableNum" },
	{ 10, GW_SRC_NODEINFO, node_device_id, "ibSmaNodeDeviceId" },
	{ 11, GW_SRC_NODEINFO, node_revision, "ibSmaNodeRevision" },
	{ 12, GW_SRC_NODEINFO, node_local_port, "ibSmaNodeLocalPortNumOrZero" },
	{ 13, GW_SRC_NODEINFO, node_vendor_id, "ibSmaNodeVendorId" },
};

static void
node_key(const struct store_node *n, enum gw_src src, uint32_t row,
    struct cache_key *k, enum cache_class *cls)
{
	memset(k, 0, sizeof(*k));
	k->node = n->idx;
	k->mclass = PROXY_CLASS_SMI_DR;
	if (src == GW_SRC_NODEDESC) {
		k->attr = SMP_ATTR_NODE_DESC;
		*cls = CACHE_NODEDESC;
	} else {
		k->attr = SMP_ATTR_NODE_INFO;
		*cls = CACHE_NODEINFO;
	}
}

static const struct gw_table node_table = {
	.name = "ibSmaNodeInfo",
	.base = { SMA_OBJECTS, 1 },
	.base_len = 9,
	.scalar = 1,
	.cols = node_cols,
	.ncols = sizeof(node_cols) / sizeof(node_cols[0]),
	.key = node_key,
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

#define PI_ENUM(fn, expr) \
static int \
fn(const struct gw_ctx *x, struct gw_val *v) \
{ \
	struct smp_portinfo p; \
	if (pi(x, &p) == -1) \
		return -1; \
	gw_val_int(v, (expr)); \
	return 0; \
}

static const uint8_t width_enabled_codes[] = { 1, 2, 3, 8, 9, 10, 11, 255 };
static const uint8_t width_supported_codes[] = { 1, 3, 11 };
static const uint8_t width_active_codes[] = { 1, 2, 8 };

PI_ENUM(port_width_enabled, map(p.width_enabled, width_enabled_codes,
    sizeof(width_enabled_codes), 9))
PI_ENUM(port_width_supported, map(p.width_supported, width_supported_codes,
    sizeof(width_supported_codes), 4))
PI_ENUM(port_width_active, map(p.width_active, width_active_codes,
    sizeof(width_active_codes), 4))
PI_ENUM(port_speed_supported, p.speed_supported == 1 ? 1 : 2)
PI_ENUM(port_link_state, p.state >= 1 && p.state <= 4 ? p.state : 5)
PI_ENUM(port_phys_state, p.phys_state >= 1 && p.phys_state <= 6 ?
    p.phys_state : 7)
PI_ENUM(port_down_default, p.link_down_default >= 1 &&
    p.link_down_default <= 2 ? p.link_down_default : 3)
PI_ENUM(port_speed_active, p.speed_active == 1 ? 1 : 2)
PI_ENUM(port_speed_enabled, p.speed_enabled == 1 ? 1 :
    p.speed_enabled == 15 ? 2 : 3)
PI_ENUM(port_neighbor_mtu, p.neighbor_mtu >= 1 && p.neighbor_mtu <= 5 ?
    p.neighbor_mtu : 6)
PI_ENUM(port_vl_cap, p.vl_cap >= 1 && p.vl_cap <= 5 ? p.vl_cap : 6)
PI_ENUM(port_mtu_cap, p.mtu_cap >= 1 && p.mtu_cap <= 5 ? p.mtu_cap : 6)
PI_ENUM(port_oper_vls, p.oper_vls >= 1 && p.oper_vls <= 5 ? p.oper_vls : 6)
/* TruthValue: true(1), false(2). */
PI_ENUM(port_part_enf_in, p.part_enf_in ? 1 : 2)
PI_ENUM(port_part_enf_out, p.part_enf_out ? 1 : 2)
PI_ENUM(port_filter_raw_in, p.filter_raw_in ? 1 : 2)
PI_ENUM(port_filter_raw_out, p.filter_raw_out ? 1 : 2)

#define PI_UINT(fn, expr, lo, hi) \
static int \
fn(const struct gw_ctx *x, struct gw_val *v) \
{ \
	struct smp_portinfo p; \
	if (pi(x, &p) == -1) \
		return -1; \
	gw_val_uint(v, (expr)); \
	return gw_val_range(v, lo, hi); \
}

PI_UINT(port_lmc, p.lmc, 0, 7)
PI_UINT(port_vl_high_limit, p.vl_high_limit, 0, 255)
PI_UINT(port_vlarb_high_cap, p.vl_arb_high_cap, 0, 64)
PI_UINT(port_vlarb_low_cap, p.vl_arb_low_cap, 0, 64)
PI_UINT(port_vl_stall, p.vl_stall_count, 0, 7)
/* IBA: HOQLife 20..31 all mean "infinite"; the MIB's range ends at 20. */
PI_UINT(port_hoq_life, p.hoq_life > 20 ? 20 : p.hoq_life, 0, 20)
PI_UINT(port_local_phys_err, p.local_phys_errors, 0, 15)
PI_UINT(port_overrun_err, p.overrun_errors, 0, 15)

static const struct gw_col port_cols[] = {
	{ 2, GW_SRC_PORTINFO, port_width_enabled, "ibSmaPortLinkWidthEnabled" },
	{ 3, GW_SRC_PORTINFO, port_width_supported,
	    "ibSmaPortLinkWidthSupported" },
	{ 4, GW_SRC_PORTINFO, port_width_active, "ibSmaPortLinkWidthActive" },
	{ 5, GW_SRC_PORTINFO, port_speed_supported,
	    "ibSmaPortLinkSpeedSupported" },
	{ 6, GW_SRC_PORTINFO, port_link_state, "ibSmaPortLinkState" },
	{ 7, GW_SRC_PORTINFO, port_phys_state, "ibSmaPortPhysState" },
	{ 8, GW_SRC_PORTINFO, port_down_default,
	    "ibSmaPortLinkDownDefaultState" },
	{ 9, GW_SRC_PORTINFO, port_lmc, "ibSmaPortLidMaskCount" },
	{ 10, GW_SRC_PORTINFO, port_speed_active, "ibSmaPortLinkSpeedActive" },
	{ 11, GW_SRC_PORTINFO, port_speed_enabled,
	    "ibSmaPortLinkSpeedEnabled" },
	{ 12, GW_SRC_PORTINFO, port_neighbor_mtu, "ibSmaPortNeighborMtu" },
	{ 13, GW_SRC_PORTINFO, port_vl_cap, "ibSmaPortVirtLaneSupport" },
	{ 14, GW_SRC_PORTINFO, port_vl_high_limit,
	    "ibSmaPortVlHighPriorityLimit" },
	{ 15, GW_SRC_PORTINFO, port_vlarb_high_cap,
	    "ibSmaPortVlArbHighCapacity" },
	{ 16, GW_SRC_PORTINFO, port_vlarb_low_cap,
	    "ibSmaPortVlArbLowCapacity" },
	{ 17, GW_SRC_PORTINFO, port_mtu_cap, "ibSmaPortMtuCapacity" },
	{ 18, GW_SRC_PORTINFO, port_vl_stall, "ibSmaPortVlStallCount" },
	{ 19, GW_SRC_PORTINFO, port_hoq_life, "ibSmaPortHeadOfQueueLife" },
	{ 20, GW_SRC_PORTINFO, port_oper_vls, "ibSmaPortOperationalVls" },
	{ 21, GW_SRC_PORTINFO, port_part_enf_in,
	    "ibSmaPortPartEnforceInbound" },
	{ 22, GW_SRC_PORTINFO, port_part_enf_out,
	    "ibSmaPortPartEnforceOutbound" },
	{ 23, GW_SRC_PORTINFO, port_filter_raw_in,
	    "ibSmaPortFilterRawPktInbound" },
	{ 24, GW_SRC_PORTINFO, port_filter_raw_out,
	    "ibSmaPortFilterRawPktOutbound" },
	{ 25, GW_SRC_PORTINFO, port_local_phys_err,
	    "ibSmaPortLocalPhysErrorThreshold" },
	{ 26, GW_SRC_PORTINFO, port_overrun_err,
	    "ibSmaPortOverrunErrorThreshold" },
};

/* Data ports are 1..NumPorts on every node type (IbDataPort). */
static uint32_t
port_row_next(const struct store_node *n, uint32_t after)
{
	return after < n->num_ports ? after + 1 : 0;
}

static void
port_key(const struct store_node *n, enum gw_src src, uint32_t row,
    struct cache_key *k, enum cache_class *cls)
{
	memset(k, 0, sizeof(*k));
	k->node = n->idx;
	k->mclass = PROXY_CLASS_SMI_DR;
	k->attr = SMP_ATTR_PORT_INFO;
	k->mod = row;
	*cls = CACHE_PORTINFO;
}

static const struct gw_table port_table = {
	.name = "ibSmaPortInfoTable",
	.base = { SMA_OBJECTS, 5, 1, 1 },	/* ibSmaPortInfoEntry */
	.base_len = 11,
	.cols = port_cols,
	.ncols = sizeof(port_cols) / sizeof(port_cols[0]),
	.row_next = port_row_next,
	.key = port_key,
	.readahead = 8,
};

int
gw_mib_sma_init(void)
{
	if (gw_mib_register(&node_table) == -1 ||
	    gw_mib_register(&port_table) == -1)
		return -1;
	return 0;
}
