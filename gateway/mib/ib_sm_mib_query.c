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
#include "gateway/oids.h"
#include "gateway/mib/ib_sm_mib.h"
#include "gateway/mib/ib_sm_mib_query.h"
#include "proxy/sa.h"
#include "store/cache.h"
#include "store/select.h"
#include "util/ev.h"
#include "util/log.h"

#define Q_REC_MAX	200	/* SA data in one MAD (Table 185) */

#define MAX_HOPS	64

/* PathRecord, IBA 15.2.5.16 Tables 209 and 210. Result column = request
 * column - 2. */
static const struct q_field path_fields[] = {
	{ GW_ARC_ibSmPathReqDstGID, 16, 8, 0, 0, 0, 0, 0, 2 },
	{ GW_ARC_ibSmPathReqSrcGID, 16, 24, 0, 0, 0, 0, 0, 3 },
	{ GW_ARC_ibSmPathReqNumbPath, 0, 49, 1, 0, 7, 0, 127, 12 },
	{ GW_ARC_ibSmPathReqDstLID, 0, 40, 2, 0, 16, 1, 65535, 4 },
	{ GW_ARC_ibSmPathReqSrcLID, 0, 42, 2, 0, 16, 1, 65535, 5 },
	{ GW_ARC_ibSmPathReqRawTraffic, 0, 44, 4, 31, 1, 0, 1, 6 },
	/* FlowLabel (20 bits): */
	{ GW_ARC_ibSmPathReqFlowLabel, 3, 44, 0, 0, 0, 0, 0, 8 },
	{ GW_ARC_ibSmPathReqHopLimit, 0, 47, 1, 0, 8, 0, 255, 9 },
	{ GW_ARC_ibSmPathReqTClass, 0, 48, 1, 0, 8, 0, 255, 10 },
	{ GW_ARC_ibSmPathReqPKey, 2, 50, 0, 0, 0, 0, 0, 13 },
	{ GW_ARC_ibSmPathReqSL, 0, 52, 2, 0, 4, 0, 15, 15 },
	{ GW_ARC_ibSmPathReqMTUSel, 0, 54, 1, 6, 2, 0, 2, 16 },
	{ GW_ARC_ibSmPathReqMTU, 0, 54, 1, 0, 6, 0, 5, 17 },
	{ GW_ARC_ibSmPathReqRateSel, 0, 55, 1, 6, 2, 0, 2, 18 },
	{ GW_ARC_ibSmPathReqRate, 0, 55, 1, 0, 6, 0, 63, 19 },
	{ GW_ARC_ibSmPathReqPktLifeTimeSel, 0, 56, 1, 6, 2, 0, 2, 20 },
	{ GW_ARC_ibSmPathReqPktLifeTime, 0, 56, 1, 0, 6, 0, 63, 21 },
	{ GW_ARC_ibSmPathReqPreference, 0, 57, 1, 0, 8, 0, 255, 22 },
};
#define NPATH_FIELDS (sizeof(path_fields) / sizeof(path_fields[0]))

/* MultiPathRecord, IBA 15.2.5.20 (component mask bits of its table).
 * Its answer is PathRecords: the result table is the path one. */
static const struct q_field mpath_fields[] = {
	{ GW_ARC_ibSmMultiPathReqRawTraffic, 0, 0, 4, 31, 1, 0, 1, 0 },
	/* FlowLabel (20 bits): */
	{ GW_ARC_ibSmMultiPathReqFlowLabel, 3, 0, 0, 0, 0, 0, 0, 2 },
	{ GW_ARC_ibSmMultiPathReqHopLimit, 0, 3, 1, 0, 8, 0, 255, 3 },
	{ GW_ARC_ibSmMultiPathReqTClass, 0, 4, 1, 0, 8, 0, 255, 4 },
	{ GW_ARC_ibSmMultiPathReqNumbPath, 0, 5, 1, 0, 7, 0, 127, 6 },
	{ GW_ARC_ibSmMultiPathReqPKey, 2, 6, 0, 0, 0, 0, 0, 7 },
	{ GW_ARC_ibSmMultiPathReqSL, 0, 8, 2, 0, 4, 0, 15, 9 },
	{ GW_ARC_ibSmMultiPathReqMTUSel, 0, 10, 1, 6, 2, 0, 2, 10 },
	{ GW_ARC_ibSmMultiPathReqMTU, 0, 10, 1, 0, 6, 0, 5, 11 },
	{ GW_ARC_ibSmMultiPathReqRateSel, 0, 11, 1, 6, 2, 0, 2, 12 },
	{ GW_ARC_ibSmMultiPathReqRate, 0, 11, 1, 0, 6, 0, 63, 13 },
	{ GW_ARC_ibSmMultiPathReqPktLifeTimeSel, 0, 12, 1, 6, 2, 0, 2, 14 },
	{ GW_ARC_ibSmMultiPathReqPktLifeTime, 0, 12, 1, 0, 6, 0, 63, 15 },
	{ GW_ARC_ibSmMultiPathReqIndepSel, 0, 14, 1, 6, 2, 0, 3, 17 },
	{ GW_ARC_ibSmMultiPathReqSGIDCount, 0, 15, 1, 0, 8, 0, 255, 19 },
	{ GW_ARC_ibSmMultiPathReqDGIDCount, 0, 16, 1, 0, 8, 0, 255, 20 },
};
#define NMPATH_FIELDS (sizeof(mpath_fields) / sizeof(mpath_fields[0]))
#define MP_NBLOCKS	32

/* TraceRecord fields as the gateway keeps them (15.2.5.18): a trace
 * request's columns select hops (each column set must match). */
struct q_hop {
	uint16_t	idgen;
	uint8_t		type;
	uint64_t	node, chassis, entry_id, exit_id;
	uint8_t		entry_port, exit_port;
};

static const struct q_field trace_fields[] = {
	{ GW_ARC_ibSmTraceReqIDGeneration, 0, 0, 2, 0, 16, 0, 65535, 0 },
	{ GW_ARC_ibSmTraceReqNodeType, 0, 2, 1, 0, 8, 1, 3, 1 },
	{ GW_ARC_ibSmTraceReqNodeID, 8, 3, 0, 0, 0, 0, 0, 2 },
	{ GW_ARC_ibSmTraceReqChassisID, 8, 11, 0, 0, 0, 0, 0, 3 },
	{ GW_ARC_ibSmTraceReqEntryPortID, 8, 19, 0, 0, 0, 0, 0, 4 },
	{ GW_ARC_ibSmTraceReqExitPortID, 8, 27, 0, 0, 0, 0, 0, 5 },
	{ GW_ARC_ibSmTraceReqEntryPort, 0, 35, 1, 0, 8, 0, 255, 6 },
	{ GW_ARC_ibSmTraceReqExitPort, 0, 36, 1, 0, 8, 0, 255, 7 },
};
#define NTRACE_FIELDS (sizeof(trace_fields) / sizeof(trace_fields[0]))
#define TRACE_REC_LEN	37

struct q_row	**gw_smq_rows;	/* sorted by (kind, session) */
size_t		 gw_smq_nrows;
int		 gw_smq_age = 600, gw_smq_max = 8;
static uint64_t		 q_next_id = 1;
static struct ev_timer	 q_timer;
static int		 q_timer_on;

/* ---- Rows */

static long
row_find(int kind, uint32_t session, size_t *at)
{
	size_t lo = 0, hi = gw_smq_nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct q_row *r = gw_smq_rows[mid];

		if (r->kind < kind || (r->kind == kind && r->session < session))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (at)
		*at = lo;
	return lo < gw_smq_nrows && gw_smq_rows[lo]->kind == kind &&
	    gw_smq_rows[lo]->session == session ? (long)lo : -1;
}

struct q_row *
gw_smq_row_get(int kind, uint32_t session)
{
	long i = row_find(kind, session, NULL);

	return i < 0 ? NULL : gw_smq_rows[i];
}

size_t
gw_smq_owned(const char *owner)
{
	size_t k = 0;

	for (size_t i = 0; i < gw_smq_nrows; i++)
		if (strcmp(gw_smq_rows[i]->owner, owner) == 0)
			k++;
	return k;
}

struct q_row *
gw_smq_row_new(int kind, uint32_t session, const char *owner)
{
	struct q_row *r, **a;
	size_t at;

	if (row_find(kind, session, &at) >= 0)
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (a = realloc(gw_smq_rows, (gw_smq_nrows + 1) * sizeof(*a))) ==
	    NULL) {
		free(r);
		return NULL;
	}
	gw_smq_rows = a;
	memmove(gw_smq_rows + at + 1, gw_smq_rows + at,
	    (gw_smq_nrows - at) * sizeof(*a));
	gw_smq_rows[at] = r;
	gw_smq_nrows++;
	r->kind = kind;
	r->session = session;
	r->id = q_next_id++;
	snprintf(r->owner, sizeof(r->owner), "%s", owner);
	r->status = RS_NOT_IN_SERVICE;
	r->created = netsnmp_get_agent_uptime();
	r->touched = ev_now();
	return r;
}

void
gw_smq_row_free(struct q_row *r)
{
	long i = row_find(r->kind, r->session, NULL);

	if (i >= 0) {
		memmove(gw_smq_rows + i, gw_smq_rows + i + 1,
		    (gw_smq_nrows - (size_t)i - 1) * sizeof(*gw_smq_rows));
		gw_smq_nrows--;
	}
	free(r->res);
	free(r);
}

static struct q_row *
row_by_id(uint64_t id)
{
	for (size_t i = 0; i < gw_smq_nrows; i++)
		if (gw_smq_rows[i]->id == id)
			return gw_smq_rows[i];
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

void
gw_smq_put_bits(uint8_t *rec, const struct q_field *f, uint64_t v)
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

const struct q_field *
gw_smq_field_of(int kind, int col)
{
	size_t n;
	const struct q_field *f = fields_of(kind, &n);

	for (size_t i = 0; i < n; i++)
		if (f[i].col == col)
			return &f[i];
	return NULL;
}

int
gw_smq_is_block(int kind, int col)
{
	return kind == Q_MPATH && col >= MP_BLOCK1 &&
	    col < MP_BLOCK1 + MP_NBLOCKS;
}

/* FlowLabel: bits 27:8 of the word at f->off (Tables 209, 213). */
struct q_field
gw_smq_flow_word(const struct q_field *f)
{
	struct q_field w = { 0, 0, f->off, 4, 8, 20, 0, 0, 0 };

	return w;
}

/* A field's value as the MIB gives it. */
int
gw_smq_field_val(const struct q_field *f, const uint8_t *rec, struct gw_val *v)
{
	if (f->octets == 3) {	/* 20 bits, right-aligned in 3 octets */
		struct q_field w = gw_smq_flow_word(f);
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

const struct store_node *
gw_smq_node_of_gid(const uint8_t *gid)
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
int
gw_smq_path_ends(const struct q_row *r, const struct store_node **src,
    const struct store_node **dst, uint16_t *slid, uint16_t *dlid)
{
	*slid = (uint16_t)(r->rec[42] << 8 | r->rec[43]);
	*dlid = (uint16_t)(r->rec[40] << 8 | r->rec[41]);
	*src = *slid ? node_of_lid(*slid) : !zero(r->rec + 24, 16) ?
	    gw_smq_node_of_gid(r->rec + 24) : NULL;
	*dst = *dlid ? node_of_lid(*dlid) : !zero(r->rec + 8, 16) ?
	    gw_smq_node_of_gid(r->rec + 8) : NULL;
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

	if (gw_smq_path_ends(path, &n, &dst, &slid, &dlid) == -1)
		return -ENOENT;
	if (dlid == 0)		/* by GID: the port's own LID */
		for (p = 0; p <= dst->num_ports && !dlid; p++)
			if (gw_smq_node_of_gid(path->rec + 8) == dst &&
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
	if ((path = gw_smq_row_get(Q_PATH, r->session)) == NULL ||
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
uint64_t
gw_smq_row_mask(const struct q_row *r)
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

void
gw_smq_activate(struct q_row *r)
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
	    gw_smq_row_mask(r), r->rec, PROXY_SA_PATH_LEN, PROXY_SA_PATH_LEN,
	    path_done, (void *)(uintptr_t)r->id) :
	    proxy_sa_query(PROXY_SA_GET_MULTI, 0x003A, gw_smq_row_mask(r),
	    r->rec, MP_GIDS_OFF + r->gidlen, PROXY_SA_PATH_LEN, path_done,
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
	for (size_t i = 0; i < gw_smq_nrows; ) {
		struct q_row *r = gw_smq_rows[i];

		if (now - r->touched >= (uint64_t)gw_smq_age * 1000 &&
		    !r->pending)
			gw_smq_row_free(r);
		else
			i++;
	}
	ev_timer_add(&q_timer, 5000);
}

void
gw_smq_start(void)
{
	ev_timer_init(&q_timer, age_cb, NULL);
	ev_timer_add(&q_timer, 5000);
	q_timer_on = 1;
}

void
gw_smq_stop(void)
{
	if (q_timer_on)
		ev_timer_del(&q_timer);
	q_timer_on = 0;
	while (gw_smq_nrows > 0)
		gw_smq_row_free(gw_smq_rows[gw_smq_nrows - 1]);
	free(gw_smq_rows);
	gw_smq_rows = NULL;
}
