/* IB-SM-MIB (draft-yang-ib-subnet-management-mib-01, mibs/IB-SM-MIB)
 * in the fabric context: the subnet as the inventory holds it.
 *
 * Every row here decodes the attribute the last sweep read and kept
 * (store_node.ninfo/sinfo, store_port.pinfo, store_sm): a walk of the
 * whole subnet costs no MAD. Rows are in index order, which is GUID
 * order, so nodes are walked through a GUID-sorted view of the
 * inventory. Settings of the SM that no MAD carries are left out
 * (docs/mibs.md, "How the gateway fills IB-SM-MIB"). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/ib_sm_mib.h"

/* What a walk's last step left (gw_sm_node_rows): the subnet prefix
 * and the row given last, with where its node is in the sorted view.
 * Good while the inventory is as it was then (store_generation). */
static struct {
	uint64_t	gen;
	uint64_t	prefix;
	uint32_t	pfx[8];		/* the prefix as index subids */
	uint32_t	last[16];	/* prefix and GUID of that row */
	size_t		at;		/* its node in sm_sorted, or SIZE_MAX */
} sm_memo;

/* The subnet prefix: GIDPrefix of the first port the sweep read (the
 * inventory's first node is the gateway's own), else the default
 * fe80::/64 (IBA 4.1.1). */
static uint64_t
prefix_read(void)
{
	size_t count = store_node_count();

	for (size_t i = 0; i < count && i < 4; i++) {
		const struct store_node *n = store_node_at((uint32_t)i);

		for (int p = 0; n != NULL && p <= n->num_ports; p++) {
			const struct store_port *pt = &n->ports[p];
			uint64_t x;

			if (!pt->pinfo_ok)
				continue;
			/* GIDPrefix, octets 8-15 after the M_Key (IBA
			 * 14.2.5.6 Table 155). */
			x = 0;
			for (int k = 8; k < 16; k++)
				x = x << 8 | pt->pinfo[k];
			if (x != 0)
				return x;
		}
	}
	return 0xfe80000000000000ULL;
}

/* Every walk step asks: read again only when the inventory changed. */
uint64_t
gw_sm_prefix(void)
{
	uint64_t gen = store_generation();

	if (sm_memo.gen != gen) {
		sm_memo.gen = gen;
		sm_memo.prefix = prefix_read();
		gw_sm_put64(sm_memo.pfx, sm_memo.prefix);
		sm_memo.at = SIZE_MAX;
	}
	return sm_memo.prefix;
}

void
gw_sm_put64(uint32_t *sub, uint64_t x)
{
	/* Spelled out: a walk step makes several of these, and GCC at
	 * -O2 kept the loop. */
	sub[0] = (uint32_t)(x >> 56);
	sub[1] = (uint32_t)(x >> 48) & 0xff;
	sub[2] = (uint32_t)(x >> 40) & 0xff;
	sub[3] = (uint32_t)(x >> 32) & 0xff;
	sub[4] = (uint32_t)(x >> 24) & 0xff;
	sub[5] = (uint32_t)(x >> 16) & 0xff;
	sub[6] = (uint32_t)(x >> 8) & 0xff;
	sub[7] = (uint32_t)x & 0xff;
}

/* 8 index subids back into a 64-bit value; -1 if one is not an octet. */
int
gw_sm_get64(const uint32_t *sub, uint64_t *x)
{
	uint64_t v = 0;

	if ((sub[0] | sub[1] | sub[2] | sub[3] | sub[4] | sub[5] | sub[6] |
	    sub[7]) > 0xff) {
		*x = 0;
		return -1;
	}
	/* Spelled out, as gw_sm_put64. */
	v = (uint64_t)sub[0] << 56 | (uint64_t)sub[1] << 48 |
	    (uint64_t)sub[2] << 40 | (uint64_t)sub[3] << 32 |
	    (uint64_t)sub[4] << 24 | (uint64_t)sub[5] << 16 |
	    (uint64_t)sub[6] << 8 | (uint64_t)sub[7];
	*x = v;
	return 0;
}

int
gw_sm_cmp(const uint32_t *a, const uint32_t *b, int n)
{
	for (int k = 0; k < n; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* The inventory in GUID order (rows skip the unreachable); rebuilt
 * when it grows: nodes are never removed and a GUID never changes. */
static const struct store_node **sm_sorted;
static uint64_t *sm_guids;	/* their GUIDs: a search touches no node */
static size_t sm_nsorted, sm_cap;

static int
guid_cmp(const void *a, const void *b)
{
	uint64_t x = (*(const struct store_node * const *)a)->guid;
	uint64_t y = (*(const struct store_node * const *)b)->guid;

	return x < y ? -1 : x > y;
}

static int
sorted_refresh(void)
{
	size_t count = store_node_count();

	if (count == sm_nsorted)
		return 0;
	if (count > sm_cap) {
		const struct store_node **a = realloc(sm_sorted,
		    count * sizeof(*a));
		uint64_t *g;

		if (a == NULL)
			return -1;
		sm_sorted = a;
		if ((g = realloc(sm_guids, count * sizeof(*g))) == NULL)
			return -1;
		sm_guids = g;
		sm_cap = count;
	}
	for (size_t i = 0; i < count; i++)
		sm_sorted[i] = store_node_at((uint32_t)i);
	qsort(sm_sorted, count, sizeof(*sm_sorted), guid_cmp);
	for (size_t i = 0; i < count; i++)
		sm_guids[i] = sm_sorted[i]->guid;
	sm_nsorted = count;
	return 0;
}

/* First position whose GUID is >= key (every walk step asks this). */
static size_t
sorted_at(uint64_t key)
{
	static size_t hint;	/* where the last step of a walk landed */
	size_t lo = 0, hi = sm_nsorted;

	/* A walk asks for the row at or after the one it was given last
	 * time: that one, or the next. */
	if (hint < sm_nsorted && sm_guids[hint] >= key &&
	    (hint == 0 || sm_guids[hint - 1] < key))
		return hint;
	if (hint + 1 < sm_nsorted && sm_guids[hint + 1] >= key &&
	    sm_guids[hint] < key)
		return ++hint;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sm_guids[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return hint = lo;
}

/* First position whose GUID, as 8 subids, is >= sub, for subids that
 * are not all octets: only hand-made OIDs have them. */
static size_t
sorted_lower(const uint32_t *sub)
{
	size_t lo = 0, hi = sm_nsorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t g[8];

		gw_sm_put64(g, sm_sorted[mid]->guid);
		if (gw_sm_cmp(g, sub, 8) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A walk visits the nodes in GUID order, scattered in memory, and the
 * first touch of each row's node and port stalled on a cache and TLB
 * miss: half the rows' time in bench (f). So each step asks for the
 * node SM_AHEAD rows on, and for the ports 0 (switches) and 1 (CAs)
 * of the node half as far on, whose first line is in by then. */
#define SM_AHEAD	8

/* Inlined by force: a function of prefetches alone looks pure to GCC,
 * which then drops its calls as having no effect. */
static inline __attribute__((always_inline)) void
prefetch_ahead(size_t i)
{
	const struct store_node *n;
	const char *p;

	if (i + SM_AHEAD < sm_nsorted)
		__builtin_prefetch(sm_sorted[i + SM_AHEAD]);
	if (i + SM_AHEAD / 2 >= sm_nsorted ||
	    (n = sm_sorted[i + SM_AHEAD / 2])->ports == NULL)
		return;
	p = (const char *)n->ports;
	__builtin_prefetch(p + offsetof(struct store_port, pinfo_ok));
	p += sizeof(struct store_port);
	__builtin_prefetch(p + offsetof(struct store_port, pinfo_ok));
	__builtin_prefetch(p + offsetof(struct store_port, pinfo) + 32);
}

int
gw_sm_node_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out, gw_sm_node_fn fn)
{
	uint64_t prefix = gw_sm_prefix(), at;
	const uint32_t *pfx = sm_memo.pfx;
	size_t i = 0;
	int c, bounded = 0, all;

	if (sorted_refresh() == -1)
		return GW_BAD;
	if (sm_memo.at != SIZE_MAX &&
	    memcmp(lb->i, sm_memo.last, sizeof(sm_memo.last)) == 0) {
		/* The walk's next step: from the row given last. */
		i = sm_memo.at;
		bounded = 1;
		goto rows;
	}
	/* Octet subids compare as the 64-bit value they spell: a walk's
	 * step is two such compares, not two of 8 subids. */
	if (gw_sm_get64(lb->i, &at) == 0)
		c = at < prefix ? -1 : at > prefix;
	else
		c = gw_sm_cmp(lb->i, pfx, 8);
	if (c > 0)
		return 0;
	if (c == 0) {
		if (gw_sm_get64(lb->i + 8, &at) == 0) {
			i = sorted_at(at);
			bounded = i < sm_nsorted && sm_guids[i] == at;
		} else
			i = sorted_lower(lb->i + 8);	/* equals no GUID */
	}
rows:
	/* The requester's selection, once: most see every node. */
	all = gw_visible_all(e);
	for (; i < sm_nsorted; i++, bounded = 0) {
		const struct store_node *n = sm_sorted[i];
		int rc;

		prefetch_ahead(i);

		/* The subnet as it is now: a node the last sweep did not
		 * reach is in the node table (IBSNMPGW-MIB), not here. */
		if (!n->reachable || (!all && !gw_visible(e, n)))
			continue;
		/* Subids 0-15 are set here; only the rest is cleared. */
		memcpy(out->i, pfx, sizeof(sm_memo.pfx));
		gw_sm_put64(out->i + 8, sm_guids[i]);
		memset(out->i + 16, 0, sizeof(out->i) - 16 * sizeof(out->i[0]));
		out->node = n->idx + 1;
		rc = fn(e, n, bounded ? lb->i + 16 : NULL, incl, out);
		if (rc == 1) {
			memcpy(sm_memo.last, out->i, sizeof(sm_memo.last));
			sm_memo.at = i;
		}
		if (rc != 0)
			return rc;
	}
	return 0;
}

const struct store_node *
gw_sm_row_node(const struct gw_row *row, int at)
{
	uint64_t guid;

	/* The node rows() found the row on, in this evaluation: no search
	 * on a walk. A GET's row has none. */
	if (row->node != 0)
		return store_node_at(row->node - 1);
	if (gw_sm_get64(row->i + at, &guid) == -1)
		return NULL;
	return store_node_by_guid(guid);
}

/* ---- ibSmNodeInfoTable (IBA 14.2.5.3, NodeDescription 14.2.5.2) */

/* One row per node with a NodeInfo; a bound inside the node (tail)
 * cannot exist for a 16-subid index: equal means "this row". */
static int
node_one(struct gw_eval *e, const struct store_node *n, const uint32_t *tail,
    int incl, struct gw_row *out)
{
	if (!n->ninfo_ok || (tail != NULL && !incl))
		return 0;
	return 1;
}

static int
node_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return gw_sm_node_rows(e, lb, incl, out, node_one);
}

static const uint8_t *
node_raw(struct gw_eval *e, const struct gw_row *row, int attr)
{
	const struct store_node *n = gw_sm_row_node(row, 8);

	if (n == NULL)
		return NULL;
	if (attr == ATTR_NODE_INFO)
		return n->ninfo_ok ? n->ninfo : NULL;
	if (attr == ATTR_SWITCH_INFO)
		return n->sinfo_ok && n->type == STORE_NODE_SWITCH ?
		    n->sinfo : NULL;
	return NULL;
}

static int
node_desc(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_sm_row_node(row, 8);

	if (n == NULL || !n->ninfo_ok)
		return GW_ABSENT;
	return gw_val_octets(v, n->desc, strlen(n->desc));
}

#define NI(nm, f, ...) \
	GW_FIELD(nm, ATTR_NODE_INFO, f, __VA_ARGS__)

static const struct gw_col node_cols[] = {
	NI(ibSmNodeInfoBaseVersion, IB_NODE_BASE_VERS_F, GW_K_INT,
	    GW_RANGE(0, 255)),
	NI(ibSmNodeInfoClassVersion, IB_NODE_CLASS_VERS_F, GW_K_INT,
	    GW_RANGE(0, 255)),
	NI(ibSmNodeInfoType, IB_NODE_TYPE_F, GW_K_INT, GW_RANGE(0, 4)),
	NI(ibSmNodeInfoNumPorts, IB_NODE_NPORTS_F, GW_K_INT,
	    GW_RANGE(0, 255)),
	NI(ibSmNodeInfoSystemImageGUID, IB_NODE_SYSTEM_GUID_F,
	    GW_K_GUID),
	NI(ibSmNodeInfoPortGUID, IB_NODE_PORT_GUID_F, GW_K_GUID),
	NI(ibSmNodeInfoPartitionCap, IB_NODE_PARTITION_CAP_F, GW_K_INT,
	    GW_RANGE(0, 65535)),
	NI(ibSmNodeInfoDeviceID, IB_NODE_DEVID_F, GW_K_OCTETS,
	    GW_NOCTETS(2)),
	NI(ibSmNodeInfoRevision, IB_NODE_REVISION_F, GW_K_OCTETS,
	    GW_NOCTETS(4)),
	NI(ibSmNodeInfoLocalPortNum, IB_NODE_LOCAL_PORT_F, GW_K_INT,
	    GW_RANGE(0, 255)),
	NI(ibSmNodeInfoVendorID, IB_NODE_VENDORID_F, GW_K_OCTETS,
	    GW_NOCTETS(3)),
	GW_GET(ibSmNodeInfoDescription, node_desc),
};

static const struct gw_table node_table = {
	.name = "ibSmNodeInfoTable",
	.GW_OID(GW_OID_ibSmNodeInfoEntry),
	.nindex = 16,
	.GW_COLS(node_cols),
	.row_next = node_rows,
	.raw = node_raw,
	.context = GW_FABRIC_CONTEXT,
};

/* ---- ibSmSwitchInfoTable (IBA 14.2.5.4) */

static int
switch_one(struct gw_eval *e, const struct store_node *n,
    const uint32_t *tail, int incl, struct gw_row *out)
{
	if (n->type != STORE_NODE_SWITCH || !n->sinfo_ok ||
	    (tail != NULL && !incl))
		return 0;
	return 1;
}

static int
switch_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return gw_sm_node_rows(e, lb, incl, out, switch_one);
}

#define SI(nm, f, ...) \
	GW_FIELD(nm, ATTR_SWITCH_INFO, f, __VA_ARGS__)
#define SI_TRUTH(nm, f) SI(nm, f, GW_K_TRUTH, GW_MASK(1))

static const struct gw_col switch_cols[] = {
	SI(ibSmSwitchInfoLinearFdbCap, IB_SW_LINEAR_FDB_CAP_F, GW_K_INT,
	    GW_RANGE(0, 65535)),
	SI(ibSmSwitchInfoRandomFdbCap, IB_SW_RANDOM_FDB_CAP_F, GW_K_INT,
	    GW_RANGE(0, 65535)),
	SI(ibSmSwitchInfoMcastFdbCap, IB_SW_MCAST_FDB_CAP_F, GW_K_INT,
	    GW_RANGE(0, 65535)),
	SI(ibSmSwitchInfoLinearFdbTop, IB_SW_LINEAR_FDB_TOP_F, GW_K_INT,
	    GW_RANGE(0, 65535)),
	SI(ibSmSwitchInfoDefaultPort, IB_SW_DEF_PORT_F, GW_K_INT,
	    GW_RANGE(0, 255)),
	SI(ibSmSwitchInfoDefPriMcastPort, IB_SW_DEF_MCAST_PRIM_F,
	    GW_K_INT, GW_RANGE(0, 255)),
	SI(ibSmSwitchInfoDefNonPriMcastPort, IB_SW_DEF_MCAST_NOT_PRIM_F,
	    GW_K_INT, GW_RANGE(0, 255)),
	SI(ibSmSwitchInfoLifeTimeValue, IB_SW_LIFE_TIME_F, GW_K_INT,
	    GW_RANGE(0, 31)),
	SI(ibSmSwitchInfoPortStateChange, IB_SW_STATE_CHANGE_F,
	    GW_K_INT, GW_RANGE(0, 1)),
	SI(ibSmSwitchInfoLIDsPerPort, IB_SW_LIDS_PER_PORT_F, GW_K_INT,
	    GW_RANGE(0, 65535)),
	SI(ibSmSwitchInfoPartitionEnfCap, IB_SW_PARTITION_ENFORCE_CAP_F,
	    GW_K_INT, GW_RANGE(0, 65535)),
	SI_TRUTH(ibSmSwitchInfoInEnfCap, IB_SW_PARTITION_ENF_INB_F),
	SI_TRUTH(ibSmSwitchInfoOutEnfCap, IB_SW_PARTITION_ENF_OUTB_F),
	SI_TRUTH(ibSmSwitchInfoInFilterRawPktCap,
	    IB_SW_FILTER_RAW_INB_F),
	SI_TRUTH(ibSmSwitchInfoOutFilterRawPktCap,
	    IB_SW_FILTER_RAW_OUTB_F),
	SI_TRUTH(ibSmSwitchInfoEnhanced0, IB_SW_ENHANCED_PORT0_F),
};

static const struct gw_table switch_table = {
	.name = "ibSmSwitchInfoTable",
	.GW_OID(GW_OID_ibSmSwitchInfoEntry),
	.nindex = 16,
	.GW_COLS(switch_cols),
	.row_next = switch_rows,
	.raw = node_raw,
	.context = GW_FABRIC_CONTEXT,
};

static void
ib_sm_mib_finalise(void)
{
	free(sm_sorted);
	free(sm_guids);
	sm_sorted = NULL;
	sm_guids = NULL;
	sm_nsorted = sm_cap = 0;
	sm_memo.gen = 0;
	sm_memo.at = SIZE_MAX;
}

static const struct gw_table *const tables[] = {
	&node_table, &switch_table, NULL
};

const struct gw_mib_module gw_mod_ib_sm_mib = {
	.name = "IB-SM-MIB",
	.tables = tables,
	.finalise = ib_sm_mib_finalise,
};
