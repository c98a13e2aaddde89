/* IB-SM-MIB tables only the SM knows: multicast groups and members
 * (MCMemberRecord, IBA 15.2.5.17) and services (ServiceRecord,
 * 15.2.5.14), from the SA snapshots proxy/sa.c keeps (store/sarec.h).
 *
 * A walk costs no MAD while the snapshot is younger than cache.ttl.sa;
 * an older one is answered from and refreshed in the background. Rows
 * are sorted views of a snapshot, rebuilt when it is replaced. A
 * requester with a node selector sees the members and services of its
 * nodes' ports only, and the groups with such a member. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/be.h"
#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/ib_sm_mib.h"
#include "store/sarec.h"
#include "util/ev.h"

/* MCMemberRecord (Table 199) and ServiceRecord (Table 197) offsets. */
#define MC_MGID		0
#define MC_PORTGID	16
#define MC_QKEY		32
#define MC_MLID		36
#define MC_MTU		38
#define MC_TCLASS	39
#define MC_PKEY		40
#define MC_RATE		42
#define MC_LIFE		43
#define MC_SL_FL_HOP	44
#define MC_SCOPE_JOIN	48
#define MC_PROXY	49

#define SR_ID		0
#define SR_GID		8
#define SR_PKEY		24
#define SR_LEASE	28
#define SR_KEY		32
#define SR_NAME		48
#define SR_DATA		112

#define MEMBER_ELEM	18	/* port GID, JoinState, ProxyJoin */
#define MEMBERS_PER_VEC	(255 / MEMBER_ELEM)

/* A sorted view of one snapshot: record numbers in index order. */
struct sa_view {
	uint64_t	 when;		/* the snapshot's; 0: none built */
	const uint8_t	*recs;
	size_t		 recsize;
	size_t		*order;
	size_t		 n;
};

static struct sa_view mc_view, sr_view;

/* Port GUID -> node, for visibility; rebuilt with the inventory. */
struct port_ref {
	uint64_t			 guid;
	const struct store_node		*n;
};
static struct port_ref *port_refs;
static size_t port_nrefs, port_nodes;

static const uint8_t *sort_recs;
static size_t sort_recsize, sort_keylen;

static int
rec_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = memcmp(sort_recs + x * sort_recsize,
	    sort_recs + y * sort_recsize, sort_keylen);

	return c ? c : (x < y ? -1 : x > y);
}

/* Sort the snapshot's records by their first keylen octets (the MIB
 * index fields lead both records). */
static int
view_get(struct sa_view *v, enum store_sa_kind kind, size_t keylen,
    struct gw_eval *e)
{
	const struct store_sa_set *s = store_sa_get(kind);
	size_t *o;

	(void)e;
	if (v->when == s->when && v->recs == s->recs)
		return 0;
	if ((o = malloc((s->n + 1) * sizeof(*o))) == NULL)
		return GW_BAD;
	for (size_t i = 0; i < s->n; i++)
		o[i] = i;
	sort_recs = s->recs;
	sort_recsize = s->recsize;
	sort_keylen = keylen;
	qsort(o, s->n, sizeof(*o), rec_cmp);
	free(v->order);
	v->order = o;
	v->n = s->n;
	v->recs = s->recs;
	v->recsize = s->recsize;
	v->when = s->when;
	return 0;
}

static int
ref_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct port_ref *)a)->guid;
	uint64_t y = ((const struct port_ref *)b)->guid;

	return x < y ? -1 : x > y;
}

static void
refs_refresh(void)
{
	size_t count = store_node_count(), k = 0;
	struct port_ref *r;

	if (count == port_nodes && port_refs != NULL)
		return;
	for (size_t i = 0; i < count; i++)
		k += store_node_at((uint32_t)i)->num_ports + 1;
	if ((r = malloc((k + 1) * sizeof(*r))) == NULL)
		return;
	k = 0;
	for (size_t i = 0; i < count; i++) {
		const struct store_node *n = store_node_at((uint32_t)i);

		for (int p = 0; p <= n->num_ports; p++)
			if (n->ports[p].guid != 0) {
				r[k].guid = n->ports[p].guid;
				r[k++].n = n;
			}
	}
	qsort(r, k, sizeof(*r), ref_cmp);
	free(port_refs);
	port_refs = r;
	port_nrefs = k;
	port_nodes = count;
}

/* Whether the requester may see the port of this GID (its low 64 bits
 * are the port GUID, IBA 4.1.1). */
static int
gid_visible(struct gw_eval *e, const uint8_t *gid)
{
	struct port_ref key = { .guid = ld64(gid + 8) }, *r;

	if (gw_visible_all(e))
		return 1;
	refs_refresh();
	r = bsearch(&key, port_refs, port_nrefs, sizeof(*r), ref_cmp);
	return r != NULL && gw_visible(e, r->n);
}

static int
zero_gid(const uint8_t *gid)
{
	for (int k = 0; k < 16; k++)
		if (gid[k])
			return 0;
	return 1;
}

/* Index subids: the prefix, then octets. */
static void
put_octets(uint32_t *sub, const uint8_t *p, size_t len)
{
	for (size_t k = 0; k < len; k++)
		sub[k] = p[k];
}

/* Compare a candidate row (n subids) with the bound: the row is wanted
 * if > lb, or >= lb when inclusive. */
static int
wanted(const uint32_t *row, const struct gw_row *lb, int incl, int n)
{
	int c = gw_sm_cmp(row, lb->i, n);

	return c > 0 || (c == 0 && incl);
}

static uint32_t
sa_ticks(uint64_t changed_ms)
{
	/* sysUpTime at the change (RFC 3418): now less its age. */
	uint64_t age = (ev_now() - changed_ms) / 10;
	uint32_t up = netsnmp_get_agent_uptime();

	return age >= up ? 0 : up - (uint32_t)age;
}

/* ---- Multicast groups */

#define MC_REC(i) (mc_view.recs + mc_view.order[i] * mc_view.recsize)

/* Members of the group whose records start at sorted position i that
 * the requester sees; *end: the position after the group. */
static size_t
mc_members(struct gw_eval *e, size_t i, size_t *end, size_t *first_vis)
{
	const uint8_t *g = MC_REC(i);
	size_t k = 0, j;

	*first_vis = (size_t)-1;
	for (j = i; j < mc_view.n && memcmp(MC_REC(j), g, 16) == 0; j++) {
		const uint8_t *r = MC_REC(j);

		/* A record without a port is the group alone (opensm
		 * lists groups it created, with no member, that way). */
		if (zero_gid(r + MC_PORTGID) || !gid_visible(e, r +
		    MC_PORTGID))
			continue;
		if (k++ == 0)
			*first_vis = j;
	}
	*end = j;
	return k;
}

/* The sorted position of the group a row names, or -1. */
static long
mc_find(const struct gw_row *row)
{
	uint8_t mgid[16];
	size_t lo = 0, hi = mc_view.n;

	for (int k = 0; k < 16; k++) {
		if (row->i[8 + k] > 0xff)
			return -1;
		mgid[k] = (uint8_t)row->i[8 + k];
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (memcmp(MC_REC(mid), mgid, 16) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < mc_view.n && memcmp(MC_REC(lo), mgid, 16) == 0 ?
	    (long)lo : -1;
}

static int
mc_group_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	uint32_t pfx[8];
	size_t i, end, fv;

	if (view_get(&mc_view, STORE_SA_MCMEMBER, 16, e) != 0)
		return GW_BAD;
	gw_sm_put64(pfx, gw_sm_prefix());
	for (i = 0; i < mc_view.n; i = end) {
		size_t k = mc_members(e, i, &end, &fv);

		if (k == 0 && !gw_visible_all(e))
			continue;
		memset(out, 0, sizeof(*out));
		memcpy(out->i, pfx, sizeof(pfx));
		put_octets(out->i + 8, MC_REC(i), 16);
		if (wanted(out->i, lb, incl, 24))
			return 1;
	}
	return 0;
}

/* The group's parameters: from its first record (the SA gives every
 * member record the group's values). */
static const uint8_t *
mc_rec(const struct gw_row *row)
{
	long i = mc_find(row);

	return i < 0 ? NULL : MC_REC(i);
}

static int
mc_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const uint8_t *r = mc_rec(row);
	unsigned x;

	if (r == NULL)
		return GW_ABSENT;
	switch (gw_column(e)->arg) {
	case 3:
		return gw_val_octets(v, r + MC_QKEY, 4);
	case 4:
		return gw_val_octets(v, r + MC_MLID, 2);
	case 5:
		x = r[MC_MTU] & 0x3f;
		return x >= 1 && x <= 5 ? gw_val_int(v, x) : GW_ABSENT;
	case 6:
		return gw_val_int(v, r[MC_TCLASS]);
	case 7:
		return gw_val_octets(v, r + MC_PKEY, 2);
	case 8:
		return gw_val_int(v, r[MC_RATE] >> 6);
	case 9:
		x = r[MC_RATE] & 0x3f;
		return x >= 2 && x <= 18 ? gw_val_int(v, x) : GW_ABSENT;
	case 10:
		return gw_val_int(v, r[MC_LIFE] & 0x3f);
	case 11:
		return gw_val_int(v, r[MC_SL_FL_HOP] >> 4);
	case 12: {
		uint8_t fl[3] = { r[MC_SL_FL_HOP] & 0x0f,
		    r[MC_SL_FL_HOP + 1], r[MC_SL_FL_HOP + 2] };

		return gw_val_octets(v, fl, 3);
	}
	case 13:
		return gw_val_int(v, r[MC_SL_FL_HOP + 3]);
	case 14:
		/* Scope (IBA 4.1.1 Table 3): the values the MIB names. */
		x = r[MC_SCOPE_JOIN] >> 4;
		return x == 2 || x == 5 || x == 8 || x == 14 ?
		    gw_val_int(v, x) : GW_ABSENT;
	}
	return GW_ABSENT;
}

#define MC(nm) GW_GETA(nm, mc_get, GW_ARC_##nm)

static const struct gw_col mc_group_cols[] = {
	MC(ibSmMcastGroupQKey),
	MC(ibSmMcastGroupMLID),
	MC(ibSmMcastGroupMTU),
	MC(ibSmMcastGroupTClass),
	MC(ibSmMcastGroupPKey),
	MC(ibSmMcastGroupRateSelector),
	MC(ibSmMcastGroupRate),
	MC(ibSmMcastGroupPacketLifeTime),
	MC(ibSmMcastGroupSL),
	MC(ibSmMcastGroupFlowLabel),
	MC(ibSmMcastGroupHopLimit),
	MC(ibSmMcastGroupScope),
};

static const struct gw_table mc_group_table = {
	.name = "ibSmMcastGroupTable",
	.GW_OID(GW_OID_ibSmMcastGroupEntry),
	.nindex = 24,
	.GW_COLS(mc_group_cols),
	.row_next = mc_group_rows,
	.context = GW_FABRIC_CONTEXT,
};

/* ---- Multicast members: vectors of MEMBERS_PER_VEC elements */

static int
mc_member_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	uint32_t pfx[8];
	size_t i, end, fv;

	if (view_get(&mc_view, STORE_SA_MCMEMBER, 16, e) != 0)
		return GW_BAD;
	gw_sm_put64(pfx, gw_sm_prefix());
	for (i = 0; i < mc_view.n; i = end) {
		size_t k = mc_members(e, i, &end, &fv);
		size_t vecs = (k + MEMBERS_PER_VEC - 1) / MEMBERS_PER_VEC;

		memset(out, 0, sizeof(*out));
		memcpy(out->i, pfx, sizeof(pfx));
		put_octets(out->i + 8, MC_REC(i), 16);
		for (size_t vi = 0; vi < vecs; vi++) {
			out->i[24] = (uint32_t)vi;
			if (wanted(out->i, lb, incl, 25))
				return 1;
		}
	}
	return 0;
}

/* The vector a row names, into v; its element count in *count. */
static int
mc_vector(struct gw_eval *e, const struct gw_row *row, uint8_t *vec,
    size_t *count)
{
	long g = mc_find(row);
	size_t end, fv, skip, k = 0;

	*count = 0;
	if (g < 0 || mc_members(e, (size_t)g, &end, &fv) == 0)
		return GW_ABSENT;
	skip = (size_t)row->i[24] * MEMBERS_PER_VEC;
	for (size_t j = fv; j < end && k < MEMBERS_PER_VEC; j++) {
		const uint8_t *r = MC_REC(j);

		if (zero_gid(r + MC_PORTGID) || !gid_visible(e, r +
		    MC_PORTGID))
			continue;
		if (skip > 0) {
			skip--;
			continue;
		}
		memcpy(vec + k * MEMBER_ELEM, r + MC_PORTGID, 16);
		vec[k * MEMBER_ELEM + 16] = r[MC_SCOPE_JOIN] & 0x0f;
		vec[k * MEMBER_ELEM + 17] = r[MC_PROXY] & 0x80 ? 1 : 2;
		k++;
	}
	*count = k;
	return k == 0 ? GW_ABSENT : 0;
}

static int
mc_member_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	uint8_t vec[MEMBERS_PER_VEC * MEMBER_ELEM];
	size_t k;
	int rc = mc_vector(e, row, vec, &k);

	if (rc != 0)
		return rc;
	switch (gw_column(e)->arg) {
	case 4:
		return gw_val_octets(v, vec, k * MEMBER_ELEM);
	case 5:
		return gw_val_int(v, (long)(k * MEMBER_ELEM));
	case 6:
		return gw_val_int(v, MEMBER_ELEM);
	case 7:
		v->type = ASN_TIMETICKS;
		v->l = sa_ticks(store_sa_get(STORE_SA_MCMEMBER)->changed);
		return 0;
	}
	return GW_ABSENT;
}

#define MM(nm) GW_GETA(nm, mc_member_get, GW_ARC_##nm)

static const struct gw_col mc_member_cols[] = {
	MM(ibSmMcastMemberVector),
	MM(ibSmMcastMemberVectorSize),
	MM(ibSmMcastMemberVectorElementSize),
	MM(ibSmMcastMemberLastChange),
};

static const struct gw_table mc_member_table = {
	.name = "ibSmMcastMemberTable",
	.GW_OID(GW_OID_ibSmMcastMemberEntry),
	.nindex = 25,
	.GW_COLS(mc_member_cols),
	.row_next = mc_member_rows,
	.context = GW_FABRIC_CONTEXT,
};

/* ---- Services: index ServiceID, ServiceGID, ServiceP_Key */

#define SR_REC(i) (sr_view.recs + sr_view.order[i] * sr_view.recsize)

static void
sr_index(uint32_t *sub, const uint32_t *pfx, const uint8_t *r)
{
	memcpy(sub, pfx, 8 * sizeof(*sub));
	put_octets(sub + 8, r + SR_ID, 24);	/* ID and GID */
	put_octets(sub + 32, r + SR_PKEY, 2);
}

static int
sr_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	uint32_t pfx[8];

	if (view_get(&sr_view, STORE_SA_SERVICE, 26, e) != 0)
		return GW_BAD;
	gw_sm_put64(pfx, gw_sm_prefix());
	for (size_t i = 0; i < sr_view.n; i++) {
		const uint8_t *r = SR_REC(i);

		if (!gid_visible(e, r + SR_GID))
			continue;
		memset(out, 0, sizeof(*out));
		sr_index(out->i, pfx, r);
		/* Records equal in the index (26 octets sort them; the two
		 * reserved octets after the P_Key do not count): first. */
		if (i > 0 && memcmp(SR_REC(i - 1), r, 26) == 0)
			continue;
		if (wanted(out->i, lb, incl, 34))
			return 1;
	}
	return 0;
}

static const uint8_t *
sr_rec(struct gw_eval *e, const struct gw_row *row)
{
	uint32_t pfx[8], sub[GW_MAX_INDEX];

	gw_sm_put64(pfx, gw_sm_prefix());
	for (size_t i = 0; i < sr_view.n; i++) {
		sr_index(sub, pfx, SR_REC(i));
		if (gw_sm_cmp(sub, row->i, 34) == 0)
			return gid_visible(e, SR_REC(i) + SR_GID) ?
			    SR_REC(i) : NULL;
	}
	return NULL;
}

static int
sr_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const uint8_t *r = sr_rec(e, row);
	size_t len;

	if (r == NULL)
		return GW_ABSENT;
	switch (gw_column(e)->arg) {
	case 5:
		return gw_val_uint(v, (unsigned long)r[SR_LEASE] << 24 |
		    (unsigned long)r[SR_LEASE + 1] << 16 |
		    (unsigned long)r[SR_LEASE + 2] << 8 | r[SR_LEASE + 3]);
	case 6:
		return gw_val_octets(v, r + SR_KEY, 16);
	case 7:
		/* A NUL-padded name; what is not printable ASCII would
		 * break DisplayString (RFC 2579): the name is left out. */
		for (len = 0; len < 64 && r[SR_NAME + len]; len++)
			if (r[SR_NAME + len] < 0x20 || r[SR_NAME + len] > 0x7e)
				return GW_ABSENT;
		return gw_val_octets(v, r + SR_NAME, len);
	case 8:
		return gw_val_octets(v, r + SR_DATA, 64);
	}
	return GW_ABSENT;
}

#define SR(nm) GW_GETA(nm, sr_get, GW_ARC_##nm)

static const struct gw_col sr_cols[] = {
	SR(ibSmServiceLease),
	SR(ibSmServiceKey),
	SR(ibSmServiceName),
	SR(ibSmServiceData),
};

static const struct gw_table sr_table = {
	.name = "ibSmServiceTable",
	.GW_OID(GW_OID_ibSmServiceEntry),
	.nindex = 34,
	.GW_COLS(sr_cols),
	.row_next = sr_rows,
	.context = GW_FABRIC_CONTEXT,
};

static void
ib_sm_mib_sa_finalise(void)
{
	free(mc_view.order);
	free(sr_view.order);
	memset(&mc_view, 0, sizeof(mc_view));
	memset(&sr_view, 0, sizeof(sr_view));
	free(port_refs);
	port_refs = NULL;
	port_nrefs = port_nodes = 0;
}

static const struct gw_table *const tables[] = {
	&mc_group_table, &mc_member_table, &sr_table, NULL
};

const struct gw_mib_module gw_mod_ib_sm_mib_sa = {
	.name = "IB-SM-MIB SA records",
	.tables = tables,
	.finalise = ib_sm_mib_sa_finalise,
};
