/* IB-SMA-MIB tables read in blocks: GUID Info, P_Key, SL-to-VL, VL
 * arbitration, linear/random/multicast forwarding, SM Info, vendor
 * diagnostics and LED info.
 *
 * Index conventions the drafts leave open are in docs/mibs.md: LIDs in
 * indexes are LID + 1 (IB-TC-MIB), port 255 in an IbDataPortAndInvalid
 * index is the management port (switch port 0) or "no input port" (a
 * CA's SL-to-VL), and IbSmPortList has port n at octet n / 8, most
 * significant bit first. */
#include "config.h"

#include <string.h>

#include "codec/attr.h"
#include "codec/smp.h"
#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"

#define MGMT_PORT	255	/* index value for switch port 0 */

/* (port, k) rows: ports lo..hi as given by next_port(), k from k_lo for
 * count(port) entries. */
typedef int (*port_count_fn)(struct gw_eval *e, uint32_t port,
    uint32_t *count);

static int
two_level(struct gw_eval *e, const struct gw_row *lb, int incl,
    uint32_t (*next_port)(struct gw_eval *e, uint32_t after),
    port_count_fn count, uint32_t k_lo, struct gw_row *out)
{
	uint32_t p = lb->i[0], k;
	uint64_t start;
	int first = 1, rc;

	if (p == 0 || !next_port(e, p - 1) || next_port(e, p - 1) != p) {
		p = next_port(e, p ? p - 1 : 0);
		first = 0;
	}
	for (; p != 0; p = next_port(e, p), first = 0) {
		uint32_t n;

		if ((rc = count(e, p, &n)) != 0)
			return rc;
		start = first ? (uint64_t)lb->i[1] + (incl ? 0 : 1) : k_lo;
		if (start < k_lo)
			start = k_lo;
		if (start >= (uint64_t)k_lo + n)
			continue;
		k = (uint32_t)start;
		memset(out, 0, sizeof(*out));
		out->i[0] = p;
		out->i[1] = k;
		return 1;
	}
	return 0;
}

/* Next data port after 'after' whose port attributes can be read. */
static uint32_t
next_data_port(struct gw_eval *e, uint32_t after)
{
	const struct store_node *n = gw_node(e);

	/* after may be UINT32_MAX (a clamped GETNEXT bound): never wrap. */
	for (uint32_t p = after + 1; after < n->num_ports &&
	    p <= n->num_ports; p++)
		if (gw_port_reachable(n, p))
			return p;
	return 0;
}

/* Data ports, then 255 for a switch's port 0. */
static uint32_t
next_port_or_mgmt(struct gw_eval *e, uint32_t after)
{
	uint32_t p = after < MGMT_PORT ? next_data_port(e, after) : 0;

	if (p == 0 && after < MGMT_PORT && gw_is_switch(gw_node(e)))
		return MGMT_PORT;
	return p;
}

/* A port index to the IB port number. */
static uint32_t
ib_port(uint32_t idx)
{
	return idx == MGMT_PORT ? 0 : idx;
}

/* ibSmaGuidInfoTable: (port, GUID index 1..GUIDCap), GUIDInfo in blocks
 * of 8 (IBA 14.2.5.5). A switch's GUIDs belong to port 0, which an
 * IbDataPort index cannot name, so switches have no rows. */

static uint32_t
next_ca_port(struct gw_eval *e, uint32_t after)
{
	return gw_is_switch(gw_node(e)) ? 0 : next_data_port(e, after);
}

static int
guid_count(struct gw_eval *e, uint32_t port, uint32_t *count)
{
	struct smp_portinfo pi;
	int rc = gw_portinfo(e, port, &pi);

	*count = rc == 0 ? pi.guid_cap : 0;
	return rc;
}

static int
guid_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return two_level(e, lb, incl, next_ca_port, guid_count, 1, out);
}

static int
guid_val(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	uint32_t i = row->i[1] - 1;
	const uint8_t *d = gw_attr(e, ATTR_GUID_INFO, i / 8,
	    gw_route_port(gw_node(e), row->i[0]));

	if (d == NULL)
		return GW_NEED;
	return gw_val_guid(v, smp_guidinfo_guid(d, i % 8));
}

static const struct gw_col guid_cols[] = {
	GW_GET(ibSmaGuidVal, guid_val),
};

static const struct gw_table guid_table = {
	.name = "ibSmaGuidInfoTable",
	.GW_OID(GW_OID_ibSmaGuidInfoEntry),
	.nindex = 2,
	.GW_COLS(guid_cols),
	.row_next = guid_rows,
};

/* ibSmaPKeyTable: (port, entry 0..cap-1), P_KeyTable in blocks of 32
 * (IBA 14.2.5.7). A switch's data ports have PartitionEnforcementCap
 * entries, its port 0 (index 255) and CA ports PartitionCap. */

static int
pkey_count(struct gw_eval *e, uint32_t port, uint32_t *count)
{
	struct smp_nodeinfo ni;
	struct smp_switchinfo si;
	int rc;

	*count = 0;
	if (gw_is_switch(gw_node(e)) && port != MGMT_PORT) {
		if ((rc = gw_switchinfo(e, &si)) != 0)
			return rc;
		*count = si.part_enf_cap;
		return 0;
	}
	if ((rc = gw_nodeinfo(e, &ni)) != 0)
		return rc;
	*count = ni.partition_cap;
	return 0;
}

static int
pkey_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return two_level(e, lb, incl, next_port_or_mgmt, pkey_count, 0, out);
}

static int
pkey_get(struct gw_eval *e, const struct gw_row *row, uint16_t *pkey)
{
	const struct store_node *n = gw_node(e);
	uint32_t port = ib_port(row->i[0]), blk = row->i[1] / 32;
	/* 14.2.5.7: switches take the port in bits 31:16. */
	uint32_t mod = gw_is_switch(n) ? port << 16 | blk : blk;
	const uint8_t *d = gw_attr(e, ATTR_PKEY_TABLE, mod,
	    gw_route_port(n, port));

	if (d == NULL)
		return GW_NEED;
	*pkey = smp_pkey(d, row->i[1] % 32);
	return 0;
}

static int
pkey_membership(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	uint16_t k;
	int rc = pkey_get(e, row, &k);

	if (rc != 0)
		return rc;
	/* Bit 15: full member; base 0 is no key at all. */
	return gw_val_int(v, (k & 0x7fff) == 0 ? 1 : (k & 0x8000) ? 3 : 2);
}

static int
pkey_base(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	uint16_t k;
	int rc = pkey_get(e, row, &k);

	if (rc != 0)
		return rc;
	return gw_val_uint(v, k & 0x7fff);
}

static const struct gw_col pkey_cols[] = {
	GW_GET(ibSmaPKeyMembership, pkey_membership),
	GW_GET(ibSmaPKeyBase, pkey_base),
};

static const struct gw_table pkey_table = {
	.name = "ibSmaPKeyTable",
	.GW_OID(GW_OID_ibSmaPKeyEntry),
	.nindex = 2,
	.GW_COLS(pkey_cols),
	.row_next = pkey_rows,
};

/* ibSmaSL2VLMapTable: (out port, in port, SL) -> VL, from
 * SLtoVLMappingTable (IBA 14.2.5.8). Switches: every data output port
 * with every input port, 255 being input port 0. CAs and routers: one
 * table per port, as (port, 255, SL). */

static int
sl2vl_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	const struct store_node *n = gw_node(e);
	int sw = gw_is_switch(n);
	uint32_t o = lb->i[0], i = lb->i[1];
	uint64_t sl = (uint64_t)lb->i[2] + (incl ? 0 : 1);

	/* Normalise the bound onto a real (out, in) pair. */
	for (;;) {
		if (o == 0 || next_data_port(e, o - 1) != o) {
			o = next_data_port(e, o ? o - 1 : 0);
			i = 0;
			sl = 0;
			if (o == 0)
				return 0;
		}
		if (!sw) {
			if (i > MGMT_PORT || (i == MGMT_PORT && sl > 15)) {
				o = next_data_port(e, o);
				i = 0;
				sl = 0;
				if (o == 0)
					return 0;
				continue;
			}
			if (i < MGMT_PORT)
				sl = 0;
			i = MGMT_PORT;
			break;
		}
		/* Switch: input ports 1..N, then 255 (port 0). */
		if (i == 0 || (i < MGMT_PORT && i > n->num_ports)) {
			i = i == 0 ? 1 : MGMT_PORT;
			sl = 0;
		}
		if (sl > 15) {
			i = i < n->num_ports ? i + 1 : i < MGMT_PORT ?
			    MGMT_PORT : MGMT_PORT + 1;
			sl = 0;
		}
		if (i > MGMT_PORT) {
			o = next_data_port(e, o);
			i = 0;
			sl = 0;
			if (o == 0)
				return 0;
			continue;
		}
		break;
	}
	if (sl > 15)
		return 0;
	memset(out, 0, sizeof(*out));
	out->i[0] = o;
	out->i[1] = i;
	out->i[2] = (uint32_t)sl;
	return 1;
}

static int
sl2vl_vl(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_node(e);
	uint32_t out = row->i[0], in = ib_port(row->i[1]);
	/* 14.2.5.8: bits 15:8 input port, 7:0 output port (switches). */
	uint32_t mod = gw_is_switch(n) ? in << 8 | out : 0;
	const uint8_t *d = gw_attr(e, ATTR_SL2VL_TABLE, mod,
	    gw_route_port(n, out));

	if (d == NULL)
		return GW_NEED;
	return gw_val_uint(v, smp_sl2vl(d, row->i[2]));
}

static const struct gw_col sl2vl_cols[] = {
	GW_GET(ibSmaVirtualLane, sl2vl_vl),
};

static const struct gw_table sl2vl_table = {
	.name = "ibSmaSL2VLMapTable",
	.GW_OID(GW_OID_ibSmaSL2VLMapEntry),
	.nindex = 3,
	.GW_COLS(sl2vl_cols),
	.row_next = sl2vl_rows,
};

/* VL arbitration (IBA 14.2.5.9): high and low priority tables of
 * VLArbHighCap / VLArbLowCap entries per data port; blocks 1-2 hold the
 * low table, 3-4 the high one, 32 entries each. Note the modifier puts
 * the block above the port, unlike P_KeyTable. */

static int
vlarb_count(struct gw_eval *e, uint32_t port, uint32_t *count, int high)
{
	struct smp_portinfo pi;
	int rc = gw_portinfo(e, port, &pi);

	*count = 0;
	if (rc != 0)
		return rc;
	*count = high ? pi.vl_arb_high_cap : pi.vl_arb_low_cap;
	if (*count > 64)
		*count = 64;
	return 0;
}

static int
vlarb_hi_count(struct gw_eval *e, uint32_t port, uint32_t *count)
{
	return vlarb_count(e, port, count, 1);
}

static int
vlarb_lo_count(struct gw_eval *e, uint32_t port, uint32_t *count)
{
	return vlarb_count(e, port, count, 0);
}

static int
vlarb_hi_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return two_level(e, lb, incl, next_data_port, vlarb_hi_count, 1, out);
}

static int
vlarb_lo_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return two_level(e, lb, incl, next_data_port, vlarb_lo_count, 1, out);
}

static int
vlarb_entry(struct gw_eval *e, const struct gw_row *row, int high,
    uint8_t *vl, uint8_t *weight)
{
	const struct store_node *n = gw_node(e);
	uint32_t i = row->i[1] - 1, blk = (high ? 3 : 1) + i / 32;
	/* 14.2.5.9: bits 31:16 block, 15:0 port (switches). */
	uint32_t mod = blk << 16 | (gw_is_switch(n) ? row->i[0] : 0);
	const uint8_t *d = gw_attr(e, ATTR_VLARB_TABLE, mod,
	    gw_route_port(n, row->i[0]));

	if (d == NULL)
		return GW_NEED;
	smp_vlarb(d, i % 32, vl, weight);
	return 0;
}

#define VLARB_GET(fn, high, expr) \
static int \
fn(struct gw_eval *e, const struct gw_row *row, struct gw_val *v) \
{ \
	uint8_t vl, weight; \
	int rc = vlarb_entry(e, row, high, &vl, &weight); \
	if (rc != 0) \
		return rc; \
	return (expr); \
}

VLARB_GET(vlarb_hi_vl, 1, gw_val_uint_in(v, vl, 0, 14))
VLARB_GET(vlarb_hi_weight, 1, gw_val_uint(v, weight))
VLARB_GET(vlarb_lo_vl, 0, gw_val_uint_in(v, vl, 0, 14))
VLARB_GET(vlarb_lo_weight, 0, gw_val_uint(v, weight))

static const struct gw_col vlarb_hi_cols[] = {
	GW_GET(ibSmaHiPriVirtLane, vlarb_hi_vl),
	GW_GET(ibSmaHiPriWeight, vlarb_hi_weight),
};

static const struct gw_col vlarb_lo_cols[] = {
	GW_GET(ibSmaLowPriVirtLane, vlarb_lo_vl),
	GW_GET(ibSmaLowPriWeight, vlarb_lo_weight),
};

static const struct gw_table vlarb_hi_table = {
	.name = "ibSmaHiPriVlArbTable",
	.GW_OID(GW_OID_ibSmaHiPriVlArbEntry),
	.nindex = 2,
	.GW_COLS(vlarb_hi_cols),
	.row_next = vlarb_hi_rows,
};

static const struct gw_table vlarb_lo_table = {
	.name = "ibSmaLowPriVlArbTable",
	.GW_OID(GW_OID_ibSmaLowPriVlArbEntry),
	.nindex = 2,
	.GW_COLS(vlarb_lo_cols),
	.row_next = vlarb_lo_rows,
};

/* ibSmaLinForTable (IBA 14.2.5.10): index LID + 1 for LIDs 0 ..
 * LinearFDBTop, 64 LIDs per block. Port 255 (unassigned) reads as the
 * TC's invalid value 255; entries for port 0 (the switch's own LIDs) lie
 * outside IbDataPortAndInvalid and are left out. */

static int
lft_port(struct gw_eval *e, uint32_t lid, uint8_t *port)
{
	const uint8_t *d = gw_attr(e, ATTR_LFT, lid / 64, 0);

	if (d == NULL)
		return GW_NEED;
	*port = smp_lft_port(d, lid % 64);
	return 0;
}

static int
lft_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	struct smp_switchinfo si;
	uint64_t lid;
	int rc;

	if ((rc = gw_switchinfo(e, &si)) != 0)
		return rc;
	lid = lb->i[0] == 0 ? 0 : (uint64_t)lb->i[0] - 1 + (incl ? 0 : 1);
	/* One block read per 64 LIDs. */
	while (lid <= si.linear_top) {
		const uint8_t *d = gw_attr(e, ATTR_LFT, (uint32_t)(lid / 64),
		    0);

		if (d == NULL)
			return GW_NEED;
		do {
			if (smp_lft_port(d, lid % 64) != 0) {
				memset(out, 0, sizeof(*out));
				out->i[0] = (uint32_t)lid + 1;
				return 1;
			}
		} while (++lid <= si.linear_top && lid % 64 != 0);
	}
	return 0;
}

static int
lft_egress(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	uint8_t port;
	int rc = lft_port(e, row->i[0] - 1, &port);

	if (rc != 0)
		return rc;
	return gw_val_int(v, port);
}

/* A walk of the LFT reads the next blocks ahead. */
static void
fdb_read_ahead(struct gw_eval *e, const struct cache_key *k)
{
	struct smp_switchinfo si;
	struct cache_key a = *k;

	/* Only within LinearFDBTop: read-ahead must not cost SMPs a walk
	 * would never need. */
	if (k->attr != SMP_ATTR_LFT || gw_switchinfo(e, &si) != 0)
		return;
	for (int i = 1; i <= 4; i++) {
		a.mod = k->mod + i;
		if (a.mod * 64 > si.linear_top)
			break;
		cache_prefetch(&a, attr_defs[ATTR_LFT].ttl);
	}
}

static const struct gw_col lft_cols[] = {
	GW_GET(ibSmaLinForwEgressPort, lft_egress),
};

static const struct gw_table lft_table = {
	.name = "ibSmaLinForTable",
	.GW_OID(GW_OID_ibSmaLinForEntry),
	.nindex = 1,
	.GW_COLS(lft_cols),
	.applies = gw_is_switch,
	.row_next = lft_rows,
	.read_ahead = fdb_read_ahead,
};

/* ibSmaRandomForwardingTable (IBA 14.2.5.11): entry n (1-based) of the
 * table, 16 per block; empty when RandomFDBCap is 0 (most switches). */

static int
rft_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	struct smp_switchinfo si;
	int rc;

	if ((rc = gw_switchinfo(e, &si)) != 0)
		return rc;
	return gw_row_range(lb, incl, 1, si.random_cap > 254 ? 254 :
	    si.random_cap, out);
}

static int
rft_entry(struct gw_eval *e, const struct gw_row *row, uint16_t *lid,
    uint8_t *lmc, uint8_t *port, int *valid)
{
	uint32_t i = row->i[0] - 1;
	const uint8_t *d = gw_attr(e, ATTR_RFT, i / 16, 0);

	if (d == NULL)
		return GW_NEED;
	*valid = smp_rft_entry(d, i % 16, lid, lmc, port);
	return 0;
}

#define RFT_GET(fn, expr) \
static int \
fn(struct gw_eval *e, const struct gw_row *row, struct gw_val *v) \
{ \
	uint16_t lid; \
	uint8_t lmc, port; \
	int valid, rc = rft_entry(e, row, &lid, &lmc, &port, &valid); \
	if (rc != 0) \
		return rc; \
	return (expr); \
}

RFT_GET(rft_lid, gw_val_uint_in(v, lid + 1u, 1, 49152))
RFT_GET(rft_port, gw_val_int_in(v, port, 1, 254))
RFT_GET(rft_lmc, gw_val_uint(v, lmc))
RFT_GET(rft_valid, gw_val_truth(v, valid))

static const struct gw_col rft_cols[] = {
	GW_GET(ibSmaRandomDestLID, rft_lid),
	GW_GET(ibSmaRandomForwEgressPort, rft_port),
	GW_GET(ibSmaRandomLMC, rft_lmc),
	GW_GET(ibSmaRandomIsValid, rft_valid),
};

static const struct gw_table rft_table = {
	.name = "ibSmaRandomForwardingTable",
	.GW_OID(GW_OID_ibSmaRandomForwardingEntry),
	.nindex = 1,
	.GW_COLS(rft_cols),
	.applies = gw_is_switch,
	.row_next = rft_rows,
};

/* ibSmaMulForTable (IBA 14.2.5.12): index MLID + 1, one row per MLID
 * whose port mask is not empty. A block holds 32 MLIDs for 16 ports;
 * AttributeModifier bits 31:28 select the 16-port position. */

static int
mft_positions(const struct store_node *n)
{
	return (n->num_ports + 1 + 15) / 16;
}

/* The full mask of MLID offset m, ports 0..N, as IbSmPortList. */
static uint32_t mft_entries(const struct smp_switchinfo *si);

static int
mft_mask(struct gw_eval *e, const struct smp_switchinfo *si, uint32_t m,
    uint8_t list[32], int *empty)
{
	const struct store_node *n = gw_node(e);
	int npos = mft_positions(n), need = 0;
	uint32_t last_blk = (mft_entries(si) + 31) / 32;

	memset(list, 0, 32);
	*empty = 1;
	for (int pos = 0; pos < npos; pos++) {
		const uint8_t *d = gw_attr(e, ATTR_MFT,
		    (uint32_t)pos << 28 | m / 32, 0);
		uint16_t mask;

		if (d == NULL) {
			/* Ask for every position, and the next blocks. */
			need = 1;
			for (uint32_t b = m / 32; b < m / 32 + 4 &&
			    b < last_blk; b++)
				gw_prefetch(e, ATTR_MFT, (uint32_t)pos << 28 |
				    b, 0);
			continue;
		}
		mask = smp_mft_mask(d, m % 32);
		for (int b = 0; b < 16; b++) {
			uint32_t port = 16 * pos + b;
			if (!(mask & (1u << b)) || port > n->num_ports)
				continue;
			list[port / 8] |= 0x80 >> (port % 8);
			*empty = 0;
		}
	}
	return need ? GW_NEED : 0;
}

static uint32_t
mft_entries(const struct smp_switchinfo *si)
{
	/* MulticastFDBTop (IBA 1.2.1) bounds the table when the switch
	 * reports one; else MulticastFDBCap does. */
	if (si->mcast_top >= 0xc000)
		return si->mcast_top - 0xc000 + 1;
	return si->mcast_cap > 0x4000 ? 0x4000 : si->mcast_cap;
}

static int
mft_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	struct smp_switchinfo si;
	uint8_t list[32];
	uint64_t m;
	uint32_t count;
	int rc, empty;

	if ((rc = gw_switchinfo(e, &si)) != 0)
		return rc;
	count = mft_entries(&si);
	m = lb->i[0] <= 0xc000 ? 0 : (uint64_t)lb->i[0] - 0xc001 +
	    (incl ? 0 : 1);
	for (; m < count; m++) {
		if ((rc = mft_mask(e, &si, (uint32_t)m, list, &empty)) != 0)
			return rc;
		if (!empty) {
			memset(out, 0, sizeof(*out));
			out->i[0] = 0xc000 + (uint32_t)m + 1;
			return 1;
		}
	}
	return 0;
}

static int
mft_val(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_switchinfo si;
	uint8_t list[32];
	int empty, rc;

	if ((rc = gw_switchinfo(e, &si)) != 0 ||
	    (rc = mft_mask(e, &si, row->i[0] - 0xc001, list, &empty)) != 0)
		return rc;
	return gw_val_octets(v, list, sizeof(list));
}

static const struct gw_col mft_cols[] = {
	GW_GET(ibSmaMulForwMask, mft_val),
};

static const struct gw_table mft_table = {
	.name = "ibSmaMulForTable",
	.GW_OID(GW_OID_ibSmaMulForEntry),
	.nindex = 1,
	.GW_COLS(mft_cols),
	.applies = gw_is_switch,
	.row_next = mft_rows,
};

/* ibSmaSmInfoTable (IBA 14.2.5.13): one row per CA port whose PortInfo
 * says IsSM (CapabilityMask bit 1). An SM on a switch's port 0 cannot
 * be indexed by IbDataPort. SM_Key reads as zeros, like M_Key. */

static int
sm_count(struct gw_eval *e, uint32_t port, uint32_t *count)
{
	struct smp_portinfo pi;
	int rc = gw_portinfo(e, port, &pi);

	*count = rc == 0 && (pi.cap_mask & 2) ? 1 : 0;
	return rc;
}

/* The first port at or after the bound that passes ok(). */
static int
port_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    uint32_t (*next_port)(struct gw_eval *e, uint32_t after),
    port_count_fn ok, struct gw_row *out)
{
	uint32_t p = lb->i[0], c;
	int rc;

	if (!(incl && p != 0 && next_port(e, p - 1) == p))
		p = next_port(e, p);
	for (; p != 0; p = next_port(e, p)) {
		if ((rc = ok(e, p, &c)) != 0)
			return rc;
		if (c) {
			memset(out, 0, sizeof(*out));
			out->i[0] = p;
			return 1;
		}
	}
	return 0;
}

static int
sm_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return port_rows(e, lb, incl, next_ca_port, sm_count, out);
}

/* SMInfo of the row's port. */
static int
sm_inst(struct gw_eval *e, const struct gw_row *row, uint32_t *mod,
    uint8_t *port)
{
	*mod = 0;
	*port = gw_route_port(gw_node(e), row->i[0]);
	return 0;
}

static int
sm_key(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	static const uint8_t zero[8];

	return gw_val_octets(v, zero, sizeof(zero));
}

#define SM(nm, f, ...) GW_FIELD(nm, ATTR_SM_INFO, f, __VA_ARGS__)

static const struct gw_col sm_cols[] = {
	SM(ibSmaSmGuid, IB_SMINFO_GUID_F, GW_K_GUID),
	GW_GET(ibSmaSmSmKey, sm_key),
	SM(ibSmaSmSmpCount, IB_SMINFO_ACT_F, GW_K_COUNTER),
	SM(ibSmaSmPriority, IB_SMINFO_PRIO_F, GW_K_UINT),
	/* SMState 0..3: notActive, discovering, standby, master. */
	SM(ibSmaSmState, IB_SMINFO_STATE_F, GW_K_ENUM,
	    GW_CODES(0, 3, 1, 5)),
};

static const struct gw_table sm_table = {
	.name = "ibSmaSmInfoTable",
	.GW_OID(GW_OID_ibSmaSmInfoEntry),
	.nindex = 1,
	.GW_COLS(sm_cols),
	.inst = sm_inst,
	.row_next = sm_rows,
};

/* ibSmaVendDiagInfoTable: PortInfo DiagCode (IBA 14.2.5.6.1) and two
 * VendorDiag blocks (14.2.5.14) per port, 255 for a switch's port 0.
 * A node that answers VendorDiag "unsupported" has no rows, and that is
 * remembered in the inventory. */

static int
any_port(struct gw_eval *e, uint32_t port, uint32_t *ok)
{
	*ok = 1;
	return 0;
}

static const uint8_t *
vdiag_block(struct gw_eval *e, uint32_t port, uint32_t index, int *unsup)
{
	const struct store_node *n = gw_node(e);
	uint32_t mod = gw_is_switch(n) ? port << 16 | index : index;

	return gw_attr_opt(e, ATTR_VENDOR_DIAG, mod,
	    gw_route_port(n, port), unsup);
}

static int
vdiag_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	int unsup;

	/* Probe support once, on the management port. */
	if (vdiag_block(e, gw_mgmt_port(gw_node(e)), 0, &unsup) == NULL)
		return unsup ? 0 : GW_NEED;
	return port_rows(e, lb, incl, next_port_or_mgmt, any_port, out);
}

#define DIAG_GET(fn, expr) \
static int \
fn(struct gw_eval *e, const struct gw_row *row, struct gw_val *v) \
{ \
	struct smp_portinfo p; \
	int rc = gw_portinfo(e, ib_port(row->i[0]), &p); \
	if (rc != 0) \
		return rc; \
	return (expr); \
}

/* DiagCode: bits 3:0 generic (0 ready, 1 self test, 2 initialising,
 * 3 soft error, 4 hard error), 14:4 vendor code, 15 IndexFwd. */
DIAG_GET(vdiag_generic, gw_val_int(v, (p.diag_code & 0xf) <= 4 ?
    (p.diag_code & 0xf) + 1 : 6))
DIAG_GET(vdiag_vendor, gw_val_uint(v, (p.diag_code >> 4) & 0x7ff))
DIAG_GET(vdiag_fwd, gw_val_truth(v, p.diag_code & 0x8000))

static int
vdiag_data(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct smp_portinfo p;
	uint8_t buf[124];
	const uint8_t *d0, *d1 = NULL;
	uint32_t port = ib_port(row->i[0]);
	int rc = gw_portinfo(e, port, &p), unsup;

	if (rc != 0)
		return rc;
	memset(buf, 0, sizeof(buf));
	if (p.diag_code & 0x8000) {
		if ((d0 = vdiag_block(e, port, 0, &unsup)) == NULL)
			return unsup ? gw_val_octets(v, buf, sizeof(buf)) :
			    GW_NEED;
		memcpy(buf, d0 + 2, 62);
		if (smp_vendor_diag_next(d0) != 0) {
			if ((d1 = vdiag_block(e, port, 1, &unsup)) == NULL &&
			    !unsup)
				return GW_NEED;
			if (d1 != NULL)
				memcpy(buf + 62, d1 + 2, 62);
		}
	}
	return gw_val_octets(v, buf, sizeof(buf));
}

static const struct gw_col vdiag_cols[] = {
	GW_GET(ibSmaPortGenericDiagCode, vdiag_generic),
	GW_GET(ibSmaPortVendorDiagCode, vdiag_vendor),
	GW_GET(ibSmaPortVendorDiagIndexFwd, vdiag_fwd),
	GW_GET(ibSmaPortVendorDiagData, vdiag_data),
};

static const struct gw_table vdiag_table = {
	.name = "ibSmaVendDiagInfoTable",
	.GW_OID(GW_OID_ibSmaVendDiagInfoEntry),
	.nindex = 1,
	.GW_COLS(vdiag_cols),
	.row_next = vdiag_rows,
};

/* ibSmaLedInfoTable (IBA 14.2.5.15): LedInfo per data port, on nodes
 * whose PortInfo says IsLedInfoSupported (bit 9) and which answer it. */

static const uint8_t *
led_block(struct gw_eval *e, uint32_t port, int *unsup)
{
	const struct store_node *n = gw_node(e);

	return gw_attr_opt(e, ATTR_LED_INFO, gw_is_switch(n) ? port : 0,
	    gw_route_port(n, port), unsup);
}

static int
led_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	const struct store_node *n = gw_node(e);
	struct smp_portinfo pi;
	int rc;

	if (n->unsupported & attr_defs[ATTR_LED_INFO].unsup)
		return 0;
	if ((rc = gw_portinfo(e, gw_mgmt_port(n), &pi)) != 0)
		return rc;
	if (!(pi.cap_mask & (1u << 9))) {
		store_node_set_unsupported(n->idx,
		    attr_defs[ATTR_LED_INFO].unsup);
		return 0;
	}
	return port_rows(e, lb, incl, next_data_port, any_port, out);
}

static int
led_state(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	int unsup;
	const uint8_t *d = led_block(e, row->i[0], &unsup);

	if (d == NULL)
		return unsup ? gw_val_int(v, 1) : GW_NEED;	/* unknown */
	return gw_val_int(v, smp_led_on(d) ? 2 : 3);
}

static const struct gw_col led_cols[] = {
	GW_GET(ibSmaLedState, led_state),
};

static const struct gw_table led_table = {
	.name = "ibSmaLedInfoTable",
	.GW_OID(GW_OID_ibSmaLedInfoEntry),
	.nindex = 1,
	.GW_COLS(led_cols),
	.row_next = led_rows,
};

static const struct gw_table *const tables[] = {
	&guid_table, &pkey_table, &sl2vl_table, &vlarb_hi_table,
	&vlarb_lo_table, &lft_table, &rft_table, &mft_table, &sm_table,
	&vdiag_table, &led_table, NULL
};

const struct gw_mib_module gw_mod_ib_sma_mib_tables = {
	.name = "IB-SMA-MIB tables",
	.tables = tables,
};
