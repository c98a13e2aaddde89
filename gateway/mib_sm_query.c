/* IB-SM-MIB's query tables in the fabric context: ibSmPathReqTable and
 * ibSmPathResultTable (SubnAdmGetTable(PathRecord), IBA 15.2.5.16),
 * ibSmTraceReqTable and ibSmTraceResultTable (the hops of a path, as
 * TraceRecords, 15.2.5.18).
 *
 * These are the only writable objects of the gateway, and writing them
 * writes nothing to the fabric: a SET creates a query row (RowStatus,
 * RFC 2579); activating it sends one SA query (paths) or follows the
 * switches' linear forwarding tables hop by hop through the attribute
 * cache (traces; the same LFT blocks the node contexts serve). Only a
 * community or user with `fabric-queries: true` may write; everyone
 * else is refused with noAccess before anything is sent. A row is its
 * creator's: others neither see nor touch it. Rows live
 * snmp.fabric-query-age seconds after their last activation, at most
 * snmp.fabric-query-max per requester.
 *
 * The draft's trace request names no path; SubnAdmGetTraceTable takes
 * a PathRecord, so a trace row follows the path request row of the
 * same session (its SLID/SGID to its DLID/DGID). docs/mibs.md [M12]. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/mib.h"
#include "gateway/mib_sm.h"
#include "proxy/sa.h"
#include "store/cache.h"
#include "store/select.h"
#include "util/ev.h"
#include "util/log.h"

#define RS_ACTIVE		1	/* RowStatus, RFC 2579 */
#define RS_NOT_IN_SERVICE	2
#define RS_NOT_READY		3
#define RS_CREATE_AND_GO	4
#define RS_CREATE_AND_WAIT	5
#define RS_DESTROY		6

#define Q_PATH		0
#define Q_TRACE		1
#define Q_MPATH		2

#define Q_REC_MAX	200	/* SA data in one MAD (Table 185) */

#define MAX_HOPS	64
#define OWNER_LEN	80

/* A request field: where a column's value goes in the record the query
 * sends (big-endian bit field of `bytes` octets at `off`), or octets. */
struct q_field {
	int		 col;		/* request column */
	int		 octets;	/* OCTET STRING of this size, else 0 */
	int		 off, bytes, shift, width;
	long		 lo, hi;
	int		 maskbit;	/* component mask bit (Table 210) */
};

/* PathRecord, IBA 15.2.5.16 Tables 209 and 210. Result column = request
 * column - 2. */
static const struct q_field path_fields[] = {
	{ 6, 16, 8, 0, 0, 0, 0, 0, 2 },		/* DGID */
	{ 7, 16, 24, 0, 0, 0, 0, 0, 3 },	/* SGID */
	{ 8, 0, 49, 1, 0, 7, 0, 127, 12 },	/* NumbPath */
	{ 9, 0, 40, 2, 0, 16, 1, 65535, 4 },	/* DLID */
	{ 10, 0, 42, 2, 0, 16, 1, 65535, 5 },	/* SLID */
	{ 11, 0, 44, 4, 31, 1, 0, 1, 6 },	/* RawTraffic */
	{ 12, 3, 44, 0, 0, 0, 0, 0, 8 },	/* FlowLabel (20 bits) */
	{ 13, 0, 47, 1, 0, 8, 0, 255, 9 },	/* HopLimit */
	{ 14, 0, 48, 1, 0, 8, 0, 255, 10 },	/* TClass */
	{ 15, 2, 50, 0, 0, 0, 0, 0, 13 },	/* P_Key */
	{ 16, 0, 52, 2, 0, 4, 0, 15, 15 },	/* SL */
	{ 17, 0, 54, 1, 6, 2, 0, 2, 16 },	/* MTUSelector */
	{ 18, 0, 54, 1, 0, 6, 0, 5, 17 },	/* MTU */
	{ 19, 0, 55, 1, 6, 2, 0, 2, 18 },	/* RateSelector */
	{ 20, 0, 55, 1, 0, 6, 0, 63, 19 },	/* Rate */
	{ 21, 0, 56, 1, 6, 2, 0, 2, 20 },	/* PacketLifeTimeSelector */
	{ 22, 0, 56, 1, 0, 6, 0, 63, 21 },	/* PacketLifeTime */
	{ 23, 0, 57, 1, 0, 8, 0, 255, 22 },	/* Preference */
};
#define NPATH_FIELDS (sizeof(path_fields) / sizeof(path_fields[0]))

/* MultiPathRecord, IBA 15.2.5.20 (component mask bits of its table).
 * Its answer is PathRecords: the result table is the path one. */
static const struct q_field mpath_fields[] = {
	{ 6, 0, 0, 4, 31, 1, 0, 1, 0 },		/* RawTraffic */
	{ 7, 3, 0, 0, 0, 0, 0, 0, 2 },		/* FlowLabel (20 bits) */
	{ 8, 0, 3, 1, 0, 8, 0, 255, 3 },	/* HopLimit */
	{ 9, 0, 4, 1, 0, 8, 0, 255, 4 },	/* TClass */
	{ 10, 0, 5, 1, 0, 7, 0, 127, 6 },	/* NumbPath */
	{ 11, 2, 6, 0, 0, 0, 0, 0, 7 },		/* P_Key */
	{ 12, 0, 8, 2, 0, 4, 0, 15, 9 },	/* SL */
	{ 13, 0, 10, 1, 6, 2, 0, 2, 10 },	/* MTUSelector */
	{ 14, 0, 10, 1, 0, 6, 0, 5, 11 },	/* MTU */
	{ 15, 0, 11, 1, 6, 2, 0, 2, 12 },	/* RateSelector */
	{ 16, 0, 11, 1, 0, 6, 0, 63, 13 },	/* Rate */
	{ 17, 0, 12, 1, 6, 2, 0, 2, 14 },	/* PacketLifeTimeSelector */
	{ 18, 0, 12, 1, 0, 6, 0, 63, 15 },	/* PacketLifeTime */
	{ 19, 0, 14, 1, 6, 2, 0, 3, 17 },	/* IndependenceSelector */
	{ 20, 0, 15, 1, 0, 8, 0, 255, 19 },	/* SGIDCount */
	{ 21, 0, 16, 1, 0, 8, 0, 255, 20 },	/* DGIDCount */
};
#define NMPATH_FIELDS (sizeof(mpath_fields) / sizeof(mpath_fields[0]))
/* The GID list (SDGIDBlock1..32, 16 GIDs each) starts at octet 24. One
 * MAD segment carries 11 GIDs: block 1 holds them, the others stay
 * empty (docs/mibs.md). */
#define MP_BLOCK1	22
#define MP_NBLOCKS	32
#define MP_GIDS_OFF	24
#define MP_MAX_GIDS	((Q_REC_MAX - MP_GIDS_OFF) / 16)

/* TraceRecord fields as the gateway keeps them (15.2.5.18): a trace
 * request's columns select hops (each column set must match). */
struct q_hop {
	uint16_t	idgen;
	uint8_t		type;
	uint64_t	node, chassis, entry_id, exit_id;
	uint8_t		entry_port, exit_port;
};

static const struct q_field trace_fields[] = {
	{ 6, 0, 0, 2, 0, 16, 0, 65535, 0 },	/* IDGeneration */
	{ 7, 0, 2, 1, 0, 8, 1, 3, 1 },		/* NodeType */
	{ 8, 8, 3, 0, 0, 0, 0, 0, 2 },		/* NodeID */
	{ 9, 8, 11, 0, 0, 0, 0, 0, 3 },		/* ChassisID */
	{ 10, 8, 19, 0, 0, 0, 0, 0, 4 },	/* EntryPortID */
	{ 11, 8, 27, 0, 0, 0, 0, 0, 5 },	/* ExitPortID */
	{ 12, 0, 35, 1, 0, 8, 0, 255, 6 },	/* EntryPort */
	{ 13, 0, 36, 1, 0, 8, 0, 255, 7 },	/* ExitPort */
};
#define NTRACE_FIELDS (sizeof(trace_fields) / sizeof(trace_fields[0]))
#define TRACE_REC_LEN	37

struct q_row {
	int		 kind;
	uint32_t	 session;
	uint64_t	 id;		/* for completions: rows may go */
	char		 owner[OWNER_LEN];
	int		 status;	/* RS_* */
	uint32_t	 created;	/* sysUpTime */
	uint64_t	 touched;	/* ms: creation or last activation */
	uint8_t		 rec[Q_REC_MAX]; /* request record */
	size_t		 gidlen;	/* MultiPath: octets of GIDs */
	uint64_t	 set;		/* columns written (bit = column) */
	uint8_t		 mask[8];	/* RowCompMask / CompMask */
	int		 pending;	/* a query is under way */
	int		 error;		/* the last query's, negative errno */
	uint8_t		*res;		/* results */
	size_t		 nres, ressize;
};

static struct q_row	**q_rows;	/* sorted by (kind, session) */
static size_t		 q_nrows;
static uint64_t		 q_next_id = 1;
static int		 q_age = 600, q_max = 8;
static struct ev_timer	 q_timer;
static int		 q_timer_on;

/* ---- Rows */

static long
row_find(int kind, uint32_t session, size_t *at)
{
	size_t lo = 0, hi = q_nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct q_row *r = q_rows[mid];

		if (r->kind < kind || (r->kind == kind && r->session < session))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (at)
		*at = lo;
	return lo < q_nrows && q_rows[lo]->kind == kind &&
	    q_rows[lo]->session == session ? (long)lo : -1;
}

static struct q_row *
row_get(int kind, uint32_t session)
{
	long i = row_find(kind, session, NULL);

	return i < 0 ? NULL : q_rows[i];
}

static size_t
owned(const char *owner)
{
	size_t k = 0;

	for (size_t i = 0; i < q_nrows; i++)
		if (strcmp(q_rows[i]->owner, owner) == 0)
			k++;
	return k;
}

static struct q_row *
row_new(int kind, uint32_t session, const char *owner)
{
	struct q_row *r, **a;
	size_t at;

	if (row_find(kind, session, &at) >= 0)
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (a = realloc(q_rows, (q_nrows + 1) * sizeof(*a))) == NULL) {
		free(r);
		return NULL;
	}
	q_rows = a;
	memmove(q_rows + at + 1, q_rows + at, (q_nrows - at) * sizeof(*a));
	q_rows[at] = r;
	q_nrows++;
	r->kind = kind;
	r->session = session;
	r->id = q_next_id++;
	snprintf(r->owner, sizeof(r->owner), "%s", owner);
	r->status = RS_NOT_IN_SERVICE;
	r->created = netsnmp_get_agent_uptime();
	r->touched = ev_now();
	return r;
}

static void
row_free(struct q_row *r)
{
	long i = row_find(r->kind, r->session, NULL);

	if (i >= 0) {
		memmove(q_rows + i, q_rows + i + 1, (q_nrows - (size_t)i - 1) *
		    sizeof(*q_rows));
		q_nrows--;
	}
	free(r->res);
	free(r);
}

static struct q_row *
row_by_id(uint64_t id)
{
	for (size_t i = 0; i < q_nrows; i++)
		if (q_rows[i]->id == id)
			return q_rows[i];
	return NULL;
}

static void
set_results(struct q_row *r, const uint8_t *recs, size_t n, size_t size)
{
	free(r->res);
	r->res = NULL;
	r->nres = 0;
	r->ressize = size;
	if (n == 0 || (r->res = malloc(n * size)) == NULL)
		return;
	memcpy(r->res, recs, n * size);
	r->nres = n;
}

/* ---- Fields */

static uint64_t
get_bits(const uint8_t *rec, const struct q_field *f)
{
	uint64_t x = 0;

	for (int k = 0; k < f->bytes; k++)
		x = x << 8 | rec[f->off + k];
	return x >> f->shift & ((1ULL << f->width) - 1);
}

static void
put_bits(uint8_t *rec, const struct q_field *f, uint64_t v)
{
	uint64_t x = 0, m = ((1ULL << f->width) - 1) << f->shift;

	for (int k = 0; k < f->bytes; k++)
		x = x << 8 | rec[f->off + k];
	x = (x & ~m) | (v << f->shift & m);
	for (int k = f->bytes - 1; k >= 0; k--, x >>= 8)
		rec[f->off + k] = (uint8_t)x;
}

static const struct q_field *
fields_of(int kind, size_t *n)
{
	switch (kind) {
	case Q_PATH:
		*n = NPATH_FIELDS;
		return path_fields;
	case Q_MPATH:
		*n = NMPATH_FIELDS;
		return mpath_fields;
	default:
		*n = NTRACE_FIELDS;
		return trace_fields;
	}
}

static const struct q_field *
field_of(int kind, int col)
{
	size_t n;
	const struct q_field *f = fields_of(kind, &n);

	for (size_t i = 0; i < n; i++)
		if (f[i].col == col)
			return &f[i];
	return NULL;
}

static int
is_block(int kind, int col)
{
	return kind == Q_MPATH && col >= MP_BLOCK1 &&
	    col < MP_BLOCK1 + MP_NBLOCKS;
}

/* FlowLabel: bits 27:8 of the word at f->off (Tables 209, 213). */
static struct q_field
flow_word(const struct q_field *f)
{
	struct q_field w = { 0, 0, f->off, 4, 8, 20, 0, 0, 0 };

	return w;
}

/* A field's value as the MIB gives it. */
static int
field_val(const struct q_field *f, const uint8_t *rec, struct gw_val *v)
{
	if (f->octets == 3) {	/* 20 bits, right-aligned in 3 octets */
		struct q_field w = flow_word(f);
		uint64_t x = get_bits(rec, &w);
		uint8_t b[3] = { (uint8_t)(x >> 16), (uint8_t)(x >> 8),
		    (uint8_t)x };

		return gw_val_octets(v, b, 3);
	}
	if (f->octets)
		return gw_val_octets(v, rec + f->off, (size_t)f->octets);
	return gw_val_int(v, (long)get_bits(rec, f));
}

/* ---- Visibility: a requester with a node selector asks about its own
 * nodes' ports only. */

static const struct store_node *
node_of_lid(uint16_t lid)
{
	return lid ? store_node_by_lid(lid) : NULL;
}

static const struct store_node *
node_of_gid(const uint8_t *gid)
{
	uint64_t g = 0;
	size_t count = store_node_count();

	for (int k = 8; k < 16; k++)
		g = g << 8 | gid[k];
	for (size_t i = 0; i < count; i++) {
		const struct store_node *n = store_node_at((uint32_t)i);

		for (int p = 0; p <= n->num_ports; p++)
			if (n->ports[p].guid == g)
				return n;
	}
	return NULL;
}

static int
zero(const uint8_t *p, size_t n)
{
	while (n-- > 0)
		if (*p++)
			return 0;
	return 1;
}

/* The path's ends, by LID or GID: 0 and the nodes, or -1 if an end is
 * not given or not in the inventory. */
static int
path_ends(const struct q_row *r, const struct store_node **src,
    const struct store_node **dst, uint16_t *slid, uint16_t *dlid)
{
	*slid = (uint16_t)(r->rec[42] << 8 | r->rec[43]);
	*dlid = (uint16_t)(r->rec[40] << 8 | r->rec[41]);
	*src = *slid ? node_of_lid(*slid) : !zero(r->rec + 24, 16) ?
	    node_of_gid(r->rec + 24) : NULL;
	*dst = *dlid ? node_of_lid(*dlid) : !zero(r->rec + 8, 16) ?
	    node_of_gid(r->rec + 8) : NULL;
	return *src && *dst ? 0 : -1;
}

/* ---- Trace: hop by hop through the switches' LFTs */

static void trace_run(uint64_t id);

static void
trace_wake(void *arg, int status, const uint8_t *data, size_t len)
{
	(void)status;
	(void)data;
	(void)len;
	trace_run((uint64_t)(uintptr_t)arg);
}

/* The LID's port on n (base LID .. base + 2^LMC - 1), or -1. */
static int
lid_port(const struct store_node *n, uint16_t lid)
{
	for (int p = 0; p <= n->num_ports; p++) {
		const struct store_port *pt = &n->ports[p];

		if (pt->lid && lid >= pt->lid && lid < pt->lid + (1 << pt->lmc))
			return p;
	}
	return -1;
}

static uint64_t
port_guid(const struct store_node *n, int p)
{
	return n->ports[p].guid ? n->ports[p].guid : n->guid;
}

static void
hop_add(struct q_hop *h, size_t *nh, const struct store_node *n, int in,
    int out)
{
	struct q_hop *x = &h[(*nh)++];

	memset(x, 0, sizeof(*x));
	x->type = n->type;
	x->node = n->guid;
	x->chassis = 0;		/* no MAD carries a chassis ID */
	if (n->type == STORE_NODE_SWITCH) {
		x->entry_port = (uint8_t)in;
		x->exit_port = (uint8_t)out;
	} else
		x->entry_id = port_guid(n, in > 0 ? in : out);
}

static void
hop_encode(const struct q_hop *h, uint8_t *b)
{
	memset(b, 0, TRACE_REC_LEN);
	b[0] = (uint8_t)(h->idgen >> 8);
	b[1] = (uint8_t)h->idgen;
	b[2] = h->type;
	for (int k = 0; k < 8; k++) {
		b[3 + k] = (uint8_t)(h->node >> (56 - 8 * k));
		b[11 + k] = (uint8_t)(h->chassis >> (56 - 8 * k));
		b[19 + k] = (uint8_t)(h->entry_id >> (56 - 8 * k));
		b[27 + k] = (uint8_t)(h->exit_id >> (56 - 8 * k));
	}
	b[35] = h->entry_port;
	b[36] = h->exit_port;
}

/* Whether a hop matches the request's set columns. */
static int
hop_matches(const struct q_row *r, const uint8_t *b)
{
	for (size_t i = 0; i < NTRACE_FIELDS; i++) {
		const struct q_field *f = &trace_fields[i];
		size_t len = f->octets ? (size_t)f->octets : (size_t)f->bytes;

		if ((r->set >> f->col & 1) &&
		    memcmp(r->rec + f->off, b + f->off, len) != 0)
			return 0;
	}
	return 1;
}

/* Follow the path; -EAGAIN while an LFT block is being read (trace_run
 * runs again when it arrives). */
static int
trace_walk(struct q_row *r, const struct q_row *path)
{
	const struct store_node *n, *dst;
	uint16_t slid, dlid;
	struct q_hop hops[MAX_HOPS + 2];
	uint8_t out[(MAX_HOPS + 2) * TRACE_REC_LEN];
	size_t nh = 0, nout = 0;
	int in, p;

	if (path_ends(path, &n, &dst, &slid, &dlid) == -1)
		return -ENOENT;
	if (dlid == 0)		/* by GID: the port's own LID */
		for (p = 0; p <= dst->num_ports && !dlid; p++)
			if (node_of_gid(path->rec + 8) == dst &&
			    port_guid(dst, p) == (uint64_t)
			    ((uint64_t)path->rec[16] << 56 | (uint64_t)
			    path->rec[17] << 48 | (uint64_t)path->rec[18] << 40 |
			    (uint64_t)path->rec[19] << 32 | (uint64_t)
			    path->rec[20] << 24 | (uint64_t)path->rec[21] << 16 |
			    (uint64_t)path->rec[22] << 8 | path->rec[23]))
				dlid = dst->ports[p].lid;
	if (dlid == 0)
		return -ENOENT;
	if (slid == 0) {
		uint64_t g = 0;

		for (int k = 32; k < 40; k++)
			g = g << 8 | path->rec[k];
		for (p = 0; p <= n->num_ports; p++)
			if (port_guid(n, p) == g)
				slid = n->ports[p].lid;
	}
	in = lid_port(n, slid);
	if (n->type != STORE_NODE_SWITCH) {
		/* Leave the source CA through the port of its LID. */
		if (in <= 0)
			return -ENOENT;
		hop_add(hops, &nh, n, 0, in);
		p = in;
		in = 0;
	} else
		p = -1;
	for (;;) {
		if (p >= 0) {
			const struct store_port *pt = &n->ports[p];

			if (!pt->remote_guid ||
			    (n = store_node_by_guid(pt->remote_guid)) == NULL)
				return -ENETUNREACH;
			in = pt->remote_port;
		}
		if (n->type != STORE_NODE_SWITCH) {
			if (n != dst)
				return -ENETUNREACH;
			hop_add(hops, &nh, n, in, 0);
			break;
		}
		if (n == dst && lid_port(n, dlid) == 0) {
			hop_add(hops, &nh, n, in, 0);
			break;
		}
		if (nh >= MAX_HOPS)
			return -ELOOP;
		{
			const struct attr_def *a = &attr_defs[ATTR_LFT];
			struct cache_key k = { .node = n->idx, .attr = a->id,
			    .mclass = a->mclass, .mod = dlid / 64u };
			const uint8_t *d;
			size_t len;
			int rc = cache_lookup(&k, a->ttl, &d, &len,
			    trace_wake, (void *)(uintptr_t)r->id);

			if (rc == 1)
				return -EAGAIN;
			if (rc < 0)
				return rc;
			if (len <= dlid % 64u)
				return -EPROTO;
			p = d[dlid % 64u];
		}
		if (p == 0 || p > n->num_ports)
			return -ENETUNREACH;	/* 255: no route */
		hop_add(hops, &nh, n, in, p);
	}
	for (size_t i = 0; i < nh; i++) {
		hop_encode(&hops[i], out + nout * TRACE_REC_LEN);
		if (hop_matches(r, out + nout * TRACE_REC_LEN))
			nout++;
	}
	set_results(r, out, nout, TRACE_REC_LEN);
	return 0;
}

static void
trace_run(uint64_t id)
{
	struct q_row *r = row_by_id(id), *path;
	int rc;

	if (r == NULL || !r->pending)
		return;		/* destroyed, or done meanwhile */
	if ((path = row_get(Q_PATH, r->session)) == NULL ||
	    strcmp(path->owner, r->owner) != 0)
		rc = -ENOENT;
	else
		rc = trace_walk(r, path);
	if (rc == -EAGAIN)
		return;
	r->pending = 0;
	r->error = rc;
	if (rc != 0) {
		set_results(r, NULL, 0, TRACE_REC_LEN);
		log_info("query: trace %u of %s: %s", r->session, r->owner,
		    strerror(-rc));
	}
}

/* ---- Path: one SA query */

static const char *
kind_name(const struct q_row *r)
{
	return r->kind == Q_PATH ? "path" : r->kind == Q_MPATH ?
	    "multipath" : "trace";
}

static void
path_done(void *arg, int status, const uint8_t *recs, size_t n,
    size_t stride, size_t announced)
{
	struct q_row *r = row_by_id((uint64_t)(uintptr_t)arg);
	uint8_t *copy;

	if (r == NULL)
		return;
	r->pending = 0;
	r->error = status == -ENOENT ? 0 : status;
	if (status != 0 || n == 0) {
		set_results(r, NULL, 0, PROXY_SA_PATH_LEN);
		if (status != 0 && status != -ENOENT)
			log_info("query: %s %u of %s: %s", kind_name(r),
			    r->session, r->owner, strerror(-status));
		return;
	}
	if (n < announced)
		log_info("query: %s %u of %s: %zu of at least %zu records",
		    kind_name(r), r->session, r->owner, n, announced);
	if ((copy = malloc(n * PROXY_SA_PATH_LEN)) == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		memcpy(copy + i * PROXY_SA_PATH_LEN, recs + i * stride,
		    PROXY_SA_PATH_LEN);
	set_results(r, copy, n, PROXY_SA_PATH_LEN);
	free(copy);
}

/* The component mask: as written, else one bit per column written. */
static uint64_t
row_mask(const struct q_row *r)
{
	const struct q_field *f;
	uint64_t m = 0;
	size_t n;

	if (r->set >> 5 & 1) {		/* (Row)CompMask written */
		for (int k = 0; k < 8; k++)
			m = m << 8 | r->mask[k];
		return m;
	}
	f = fields_of(r->kind, &n);
	for (size_t i = 0; i < n; i++)
		if (r->set >> f[i].col & 1)
			m |= 1ULL << f[i].maskbit;
	return m;
}

static void
activate(struct q_row *r)
{
	r->status = RS_ACTIVE;
	r->touched = ev_now();
	r->pending = 1;
	r->error = 0;
	set_results(r, NULL, 0, r->kind == Q_TRACE ? TRACE_REC_LEN :
	    PROXY_SA_PATH_LEN);
	if (r->kind == Q_TRACE) {
		trace_run(r->id);
		return;
	}
	/* PathRecord (0x0035) by GetTable; MultiPathRecord (0x003A) by
	 * GetMulti, answered with PathRecords (IBA 15.4.5). */
	if ((r->kind == Q_PATH ? proxy_sa_query(PROXY_SA_GET_TABLE, 0x0035,
	    row_mask(r), r->rec, PROXY_SA_PATH_LEN, PROXY_SA_PATH_LEN,
	    path_done, (void *)(uintptr_t)r->id) :
	    proxy_sa_query(PROXY_SA_GET_MULTI, 0x003A, row_mask(r), r->rec,
	    MP_GIDS_OFF + r->gidlen, PROXY_SA_PATH_LEN, path_done,
	    (void *)(uintptr_t)r->id)) == -1) {
		r->pending = 0;
		r->error = -EHOSTUNREACH;
		log_info("query: %s %u of %s: no SA to ask", kind_name(r),
		    r->session, r->owner);
	}
}

static void
age_cb(void *arg)
{
	uint64_t now = ev_now();

	(void)arg;
	for (size_t i = 0; i < q_nrows; ) {
		struct q_row *r = q_rows[i];

		if (now - r->touched >= (uint64_t)q_age * 1000 && !r->pending)
			row_free(r);
		else
			i++;
	}
	ev_timer_add(&q_timer, 5000);
}

/* ---- SNMP: the objects in order */

/* Index after the entry OID: prefix (8), session[, result index]. */
struct q_table {
	int	kind;
	int	result;		/* 0: request table, 1: result table */
	oid	entry[16];
	size_t	entry_len;
	int	maxcol;
};

#define Q_OID(...) { __VA_ARGS__ }, \
	sizeof((oid[]){ __VA_ARGS__ }) / sizeof(oid)

static const struct q_table q_tables[] = {
	{ Q_PATH, 0, Q_OID(GW_SM_OBJECTS, 10, 1, 1), 23 },
	{ Q_PATH, 1, Q_OID(GW_SM_OBJECTS, 10, 2, 1), 21 },
	{ Q_MPATH, 0, Q_OID(GW_SM_OBJECTS, 11, 1, 1), 53 },
	{ Q_MPATH, 1, Q_OID(GW_SM_OBJECTS, 11, 2, 1), 21 },
	{ Q_TRACE, 0, Q_OID(GW_SM_OBJECTS, 12, 1, 1), 13 },
	{ Q_TRACE, 1, Q_OID(GW_SM_OBJECTS, 12, 2, 1), 11 },
};

/* The value of column col of a row (request) or of result i. */
static int
q_value(const struct q_table *t, const struct q_row *r, uint32_t i, int col,
    struct gw_val *v)
{
	const struct q_field *f;

	if (!t->result) {
		switch (col) {
		case 3:
			return gw_val_int(v, r->status);
		case 4:
			v->type = ASN_TIMETICKS;
			v->l = r->created;
			return 0;
		case 5: {
			uint64_t m = r->kind != Q_TRACE ? row_mask(r) : 0;
			uint8_t b[8];

			if (r->kind == Q_TRACE || (r->set >> 5 & 1))
				return gw_val_octets(v, r->mask, 8);
			for (int k = 0; k < 8; k++)
				b[k] = (uint8_t)(m >> (56 - 8 * k));
			return gw_val_octets(v, b, 8);
		}
		}
		/* A column never written has no instance yet. */
		if (!(r->set >> col & 1))
			return GW_ABSENT;
		if (is_block(r->kind, col))
			return gw_val_octets(v, r->rec + MP_GIDS_OFF,
			    col == MP_BLOCK1 ? r->gidlen : 0);
		if ((f = field_of(r->kind, col)) == NULL)
			return GW_ABSENT;
		return field_val(f, r->rec, v);
	}
	if (i < 1 || i > r->nres)
		return GW_ABSENT;
	/* Result columns are the path request's, two lower (MultiPath
	 * answers are PathRecords too). */
	if ((f = field_of(r->kind == Q_TRACE ? Q_TRACE : Q_PATH,
	    col + 2)) == NULL)
		return GW_ABSENT;
	return field_val(f, r->res + (i - 1) * r->ressize, v);
}

/* The OID of (table, column, row[, result]) into o; its length. */
static size_t
q_oid(const struct q_table *t, int col, const struct q_row *r, uint32_t i,
    oid *o)
{
	uint32_t pfx[8];
	size_t n = t->entry_len;

	memcpy(o, t->entry, n * sizeof(oid));
	o[n++] = (oid)col;
	gw_sm_put64(pfx, gw_sm_prefix());
	for (int k = 0; k < 8; k++)
		o[n++] = pfx[k];
	o[n++] = r->session;
	if (t->result)
		o[n++] = i;
	return n;
}

static int
first_col(const struct q_table *t)
{
	return t->result ? 4 : 3;
}

/* The next instance after (or at, when exact) name: table, column, row
 * and result number. 1, or 0 when there is none. */
static int
q_next(const char *owner, const oid *name, size_t len, int exact,
    const struct q_table **tt, int *cc, struct q_row **rr, uint32_t *ii)
{
	oid o[MAX_OID_LEN];

	for (size_t ti = 0; ti < sizeof(q_tables) / sizeof(q_tables[0]);
	    ti++) {
		const struct q_table *t = &q_tables[ti];

		for (int col = first_col(t); col <= t->maxcol; col++)
			for (size_t ri = 0; ri < q_nrows; ri++) {
				struct q_row *r = q_rows[ri];
				uint32_t nres = t->result ? (uint32_t)r->nres :
				    1;

				if (r->kind != t->kind ||
				    strcmp(r->owner, owner) != 0)
					continue;
				for (uint32_t i = 1; i <= nres; i++) {
					struct gw_val v;
					size_t n = q_oid(t, col, r, i, o);
					int c = snmp_oid_compare(o, n, name,
					    len);

					if (exact ? c != 0 : c <= 0)
						continue;
					memset(&v, 0, sizeof(v));
					if (q_value(t, r, i, col, &v) != 0)
						continue;
					*tt = t;
					*cc = col;
					*rr = r;
					*ii = i;
					return 1;
				}
			}
	}
	return 0;
}

static void
q_answer(netsnmp_request_info *req, const struct q_table *t, int col,
    const struct q_row *r, uint32_t i, int next)
{
	struct gw_val v;
	oid o[MAX_OID_LEN];

	memset(&v, 0, sizeof(v));
	q_value(t, r, i, col, &v);
	if (next)
		snmp_set_var_objid(req->requestvb, o, q_oid(t, col, r, i, o));
	gw_val_set(req, &v);
}

/* ---- SET (RFC 3416 4.2.5 and RFC 2579 RowStatus) */

struct q_set {
	const struct q_table	*t;
	int			 col;
	uint32_t		 session;
};

/* Which request column a SET names, or an SNMP error. */
static int
q_target(const netsnmp_variable_list *vb, struct q_set *s)
{
	uint32_t pfx[8];

	gw_sm_put64(pfx, gw_sm_prefix());
	for (size_t ti = 0; ti < sizeof(q_tables) / sizeof(q_tables[0]);
	    ti++) {
		const struct q_table *t = &q_tables[ti];
		size_t n = t->entry_len;

		if (vb->name_length <= n || snmp_oid_compare(vb->name, n,
		    t->entry, n) != 0)
			continue;
		if (t->result)
			return SNMP_ERR_NOTWRITABLE;
		if (vb->name_length != n + 10)
			return SNMP_ERR_NOCREATION;
		s->t = t;
		s->col = (int)vb->name[n];
		for (int k = 0; k < 8; k++)
			if (vb->name[n + 1 + k] != pfx[k])
				return SNMP_ERR_NOCREATION;
		if (vb->name[n + 9] > 0x7fffffff)
			return SNMP_ERR_NOCREATION;
		s->session = (uint32_t)vb->name[n + 9];
		if (s->col == 3 || s->col == 5 || field_of(t->kind, s->col) ||
		    is_block(t->kind, s->col))
			return SNMP_ERR_NOERROR;
		return SNMP_ERR_NOTWRITABLE;	/* CreationTime, indexes */
	}
	return SNMP_ERR_NOTWRITABLE;
}

/* Check a value against its column: SNMP error or 0. */
static int
q_check(const struct q_set *s, const netsnmp_variable_list *vb)
{
	const struct q_field *f;

	if (s->col == 3) {
		if (vb->type != ASN_INTEGER)
			return SNMP_ERR_WRONGTYPE;
		if (*vb->val.integer < 1 || *vb->val.integer > 6 ||
		    *vb->val.integer == RS_NOT_READY)
			return SNMP_ERR_WRONGVALUE;
		return 0;
	}
	if (s->col == 5) {
		if (vb->type != ASN_OCTET_STR)
			return SNMP_ERR_WRONGTYPE;
		return vb->val_len == 8 ? 0 : SNMP_ERR_WRONGLENGTH;
	}
	if (is_block(s->t->kind, s->col)) {
		if (vb->type != ASN_OCTET_STR)
			return SNMP_ERR_WRONGTYPE;
		if (vb->val_len % 16 != 0 || vb->val_len > 256)
			return SNMP_ERR_WRONGLENGTH;
		/* What one MAD cannot carry, no SM is ever asked. */
		if (vb->val_len > (s->col == MP_BLOCK1 ? MP_MAX_GIDS * 16 : 0))
			return SNMP_ERR_WRONGVALUE;
		return 0;
	}
	f = field_of(s->t->kind, s->col);
	if (f->octets) {
		if (vb->type != ASN_OCTET_STR)
			return SNMP_ERR_WRONGTYPE;
		if (vb->val_len != (size_t)f->octets)
			return SNMP_ERR_WRONGLENGTH;
		if (f->octets == 3 && (vb->val.string[0] & 0xf0))
			return SNMP_ERR_WRONGVALUE;	/* 20 bits */
		return 0;
	}
	if (vb->type != ASN_INTEGER)
		return SNMP_ERR_WRONGTYPE;
	if (*vb->val.integer < f->lo || *vb->val.integer > f->hi)
		return SNMP_ERR_WRONGVALUE;
	return 0;
}

static void
q_store(struct q_row *r, int col, const netsnmp_variable_list *vb)
{
	const struct q_field *f;

	if (col == 5) {
		memcpy(r->mask, vb->val.string, 8);
		r->set |= 1ULL << 5;
		return;
	}
	r->set |= 1ULL << col;
	if (is_block(r->kind, col)) {
		if (col == MP_BLOCK1) {
			memset(r->rec + MP_GIDS_OFF, 0,
			    sizeof(r->rec) - MP_GIDS_OFF);
			memcpy(r->rec + MP_GIDS_OFF, vb->val.string,
			    vb->val_len);
			r->gidlen = vb->val_len;
		}
		return;
	}
	f = field_of(r->kind, col);
	if (f->octets == 3) {
		struct q_field w = flow_word(f);

		put_bits(r->rec, &w, (uint64_t)vb->val.string[0] << 16 |
		    (uint64_t)vb->val.string[1] << 8 | vb->val.string[2]);
	} else if (f->octets)
		memcpy(r->rec + f->off, vb->val.string, (size_t)f->octets);
	else
		put_bits(r->rec, f, (uint64_t)*vb->val.integer);
}

/* A MultiPath row: SGIDCount sources then DGIDCount destinations, at
 * least one of each, all in the GID list, all ports of the inventory
 * and, for a requester with a node selector, of its own nodes. */
static int
mpath_allowed(const struct q_row *r, const struct store_select *sel)
{
	size_t ns = r->rec[15], nd = r->rec[16];

	if (ns == 0 || nd == 0 || (ns + nd) * 16 > r->gidlen)
		return 0;
	for (size_t k = 0; k < ns + nd; k++) {
		const struct store_node *n = node_of_gid(r->rec +
		    MP_GIDS_OFF + 16 * k);

		if (n == NULL || (sel != NULL && !store_select_match(sel, n)))
			return 0;
	}
	return 1;
}

/* Whether an activated row may run for this requester: both ends named
 * and in the inventory (a path query with neither end would ask for
 * every pair of the subnet) and, for a requester with a node selector,
 * both its own nodes. A trace needs its session's path row. */
static int
q_allowed(netsnmp_agent_request_info *ri, const struct q_row *r)
{
	const struct q_row *p = r->kind == Q_PATH ? r :
	    row_get(Q_PATH, r->session);
	const struct store_node *src, *dst;
	const struct store_select *sel;
	uint16_t slid, dlid;

	if (r->kind == Q_MPATH)
		return gw_snmp_request_select(ri, &sel) == 0 &&
		    mpath_allowed(r, sel);
	if (p == NULL || strcmp(p->owner, r->owner) != 0)
		return 0;
	if (path_ends(p, &src, &dst, &slid, &dlid) == -1)
		return 0;
	if (gw_snmp_request_select(ri, &sel) == -1)
		return 0;
	return sel == NULL || (store_select_match(sel, src) &&
	    store_select_match(sel, dst));
}

/* Row copies for UNDO, per SET request. */
struct q_undo {
	uint32_t	 session;
	int		 kind;
	int		 existed;
	struct q_row	 copy;
};

static struct q_undo	*q_undo;
static size_t		 q_nundo;

static void
undo_clear(void)
{
	free(q_undo);
	q_undo = NULL;
	q_nundo = 0;
}

static int
undo_keep(int kind, uint32_t session)
{
	struct q_undo *u;
	struct q_row *r = row_get(kind, session);

	for (size_t i = 0; i < q_nundo; i++)
		if (q_undo[i].kind == kind && q_undo[i].session == session)
			return 0;
	if ((u = realloc(q_undo, (q_nundo + 1) * sizeof(*u))) == NULL)
		return -1;
	q_undo = u;
	u = &q_undo[q_nundo++];
	memset(u, 0, sizeof(*u));
	u->kind = kind;
	u->session = session;
	u->existed = r != NULL;
	if (r != NULL) {
		u->copy = *r;
		u->copy.res = NULL;	/* results are not touched by a SET */
	}
	return 0;
}

static void
undo_apply(void)
{
	for (size_t i = 0; i < q_nundo; i++) {
		struct q_undo *u = &q_undo[i];
		struct q_row *r = row_get(u->kind, u->session);

		if (!u->existed) {
			if (r != NULL)
				row_free(r);
			continue;
		}
		if (r == NULL) {	/* destroyed in ACTION: back */
			r = row_new(u->kind, u->session, u->copy.owner);
			if (r == NULL)
				continue;
		}
		{
			uint8_t *res = r->res;
			size_t nres = r->nres, rs = r->ressize;
			uint64_t id = r->id;

			*r = u->copy;
			r->res = res;
			r->nres = nres;
			r->ressize = rs;
			r->id = id;
		}
	}
	undo_clear();
}

/* One varbind of an ACTION pass: 0 or an SNMP error. */
static int
q_action(netsnmp_agent_request_info *ri, const netsnmp_variable_list *vb,
    const char *owner, int pass)
{
	struct q_set s;
	struct q_row *r;
	long rs;

	if (q_target(vb, &s) != 0 || (pass == 1) != (s.col != 3))
		return 0;
	r = row_get(s.t->kind, s.session);
	if (r != NULL && strcmp(r->owner, owner) != 0)
		return SNMP_ERR_INCONSISTENTNAME;	/* another's */
	if (undo_keep(s.t->kind, s.session) == -1)
		return SNMP_ERR_RESOURCEUNAVAILABLE;
	if (pass == 1) {
		if (r == NULL)
			return SNMP_ERR_NOCREATION;
		/* An active query does not change under its results. */
		if (r->status == RS_ACTIVE)
			return SNMP_ERR_INCONSISTENTVALUE;
		q_store(r, s.col, vb);
		return 0;
	}
	rs = *vb->val.integer;
	if (pass == 2) {
		if ((rs == RS_ACTIVE || rs == RS_CREATE_AND_GO) && r != NULL) {
			if (!q_allowed(ri, r))
				return SNMP_ERR_INCONSISTENTVALUE;
			r->status = RS_ACTIVE;
		}
		return 0;
	}
	switch (rs) {
	case RS_CREATE_AND_GO:
	case RS_CREATE_AND_WAIT:
		if (r != NULL)
			return SNMP_ERR_INCONSISTENTVALUE;
		if (owned(owner) >= (size_t)q_max ||
		    row_new(s.t->kind, s.session, owner) == NULL)
			return SNMP_ERR_RESOURCEUNAVAILABLE;
		return 0;
	case RS_ACTIVE:
	case RS_NOT_IN_SERVICE:
		if (r == NULL)
			return SNMP_ERR_INCONSISTENTVALUE;
		if (rs == RS_NOT_IN_SERVICE)
			r->status = RS_NOT_IN_SERVICE;
		return 0;
	case RS_DESTROY:
		if (r != NULL)
			row_free(r);
		return 0;
	}
	return SNMP_ERR_WRONGVALUE;
}

static int
q_set_phase(int mode, netsnmp_agent_request_info *ri,
    netsnmp_request_info *requests)
{
	char owner[OWNER_LEN];
	int grant;
	netsnmp_request_info *req;

	switch (mode) {
	case MODE_SET_RESERVE1:
		undo_clear();	/* a new SET: nothing of an older one */
		if (gw_snmp_request_owner(ri, owner, sizeof(owner),
		    &grant) == -1 || !grant) {
			/* docs/security.md: no grant, no query. */
			for (req = requests; req; req = req->next)
				netsnmp_set_request_error(ri, req,
				    SNMP_ERR_NOACCESS);
			return 0;
		}
		for (req = requests; req; req = req->next) {
			struct q_set s;
			int err = q_target(req->requestvb, &s);

			if (err == 0)
				err = q_check(&s, req->requestvb);
			if (err != 0) {
				netsnmp_set_request_error(ri, req, err);
				return 0;
			}
		}
		return 0;
	case MODE_SET_RESERVE2:
		return 0;
	case MODE_SET_ACTION:
		break;
	case MODE_SET_COMMIT: {
		/* Activations take effect now, once everything was
		 * accepted. */
		for (size_t i = 0; i < q_nundo; i++) {
			struct q_row *r = row_get(q_undo[i].kind,
			    q_undo[i].session);

			if (r != NULL && r->status == RS_ACTIVE &&
			    (!q_undo[i].existed ||
			    q_undo[i].copy.status != RS_ACTIVE))
				activate(r);
		}
		undo_clear();
		return 0;
	}
	case MODE_SET_UNDO:
		undo_apply();
		return 0;
	case MODE_SET_FREE:
		undo_clear();
		return 0;
	default:
		return 0;
	}

	/* ACTION in three passes: RowStatus creations, destructions and
	 * notInService; then the other columns; then activations, checked
	 * against the columns the same request wrote. */
	gw_snmp_request_owner(ri, owner, sizeof(owner), &grant);
	for (int pass = 0; pass < 3; pass++)
		for (req = requests; req; req = req->next) {
			int err = q_action(ri, req->requestvb, owner, pass);

			if (err != 0) {
				netsnmp_set_request_error(ri, req, err);
				return 0;
			}
		}
	return 0;
}

static int
q_handler(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *ri, netsnmp_request_info *requests)
{
	char owner[OWNER_LEN];
	int grant;
	netsnmp_request_info *req;

	(void)h;
	(void)reg;
	if (ri->mode != MODE_GET && ri->mode != MODE_GETNEXT)
		return q_set_phase(ri->mode, ri, requests);
	if (gw_snmp_request_owner(ri, owner, sizeof(owner), &grant) == -1)
		owner[0] = '\0';
	for (req = requests; req; req = req->next) {
		netsnmp_variable_list *vb = req->requestvb;
		const struct q_table *t;
		struct q_row *r;
		uint32_t i;
		int col;

		if (req->processed)
			continue;
		if (owner[0] && q_next(owner, vb->name, vb->name_length,
		    ri->mode == MODE_GET, &t, &col, &r, &i))
			q_answer(req, t, col, r, i, ri->mode == MODE_GETNEXT);
		else if (ri->mode == MODE_GET)
			netsnmp_set_request_error(ri, req,
			    SNMP_NOSUCHINSTANCE);
		/* GETNEXT past the last: left for the next handler. */
	}
	return SNMP_ERR_NOERROR;
}

void
gw_mib_sm_query_config(int age, int max)
{
	q_age = age;
	q_max = max;
}

int
gw_mib_sm_query_init(void)
{
	static const oid path[] = { GW_SM_OBJECTS, 10 };
	static const oid mpath[] = { GW_SM_OBJECTS, 11 };
	static const oid trace[] = { GW_SM_OBJECTS, 12 };
	static const char *names[] = { "ibSmPathInfo", "ibSmMultiPathInfo",
	    "ibSmTraceInfo" };
	const oid *bases[] = { path, mpath, trace };

	for (int k = 0; k < 3; k++) {
		netsnmp_handler_registration *reg =
		    netsnmp_create_handler_registration(names[k], q_handler,
		    bases[k], OID_LENGTH(path), HANDLER_CAN_RWRITE);

		if (reg == NULL)
			return -1;
		reg->contextName = strdup(GW_FABRIC_CONTEXT);
		if (netsnmp_register_handler(reg) != MIB_REGISTERED_OK) {
			log_warnx("mib: cannot register the query tables");
			return -1;
		}
	}
	ev_timer_init(&q_timer, age_cb, NULL);
	ev_timer_add(&q_timer, 5000);
	q_timer_on = 1;
	return 0;
}

void
gw_mib_sm_query_finalise(void)
{
	if (q_timer_on)
		ev_timer_del(&q_timer);
	q_timer_on = 0;
	undo_clear();
	while (q_nrows > 0)
		row_free(q_rows[q_nrows - 1]);
	free(q_rows);
	q_rows = NULL;
}
