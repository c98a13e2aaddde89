/* store_bp_compare: the inventory against a blueprint, without a MAD.
 *
 * 1. Blueprint nodes are matched to reachable inventory nodes by GUID;
 *    a node the file names by description alone, by the inventory's
 *    NodeDescription, when exactly one node has it (several: one
 *    "ambiguous" row, and neither those nodes nor their cables are
 *    compared further).
 * 2. Each planned cable between matched nodes is looked for at its
 *    ports: there, its rate is compared (lanes, then speed); not there,
 *    it is missing.
 * 3. Each inventory cable between matched nodes that no planned cable
 *    accounts for is unexpected.
 * 4. A missing cable and an unexpected one that share a port (else the
 *    same two nodes) are one cable on other ports than planned.
 *
 * A node missing or unexpected is one row: its cables are not listed
 * again. A port the blueprint leaves uncabled and that has no cable is
 * no difference (a dual-port HCA with one port used). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "store/blueprint.h"
#include "store/store.h"
#include "util/htab.h"

enum { FREE, MATCHED, AMBIGUOUS };

/* One cable end to end, in inventory terms. */
struct cable {
	const struct store_node	*a, *b;
	uint8_t			 pa, pb;
	long			 link;		/* blueprint link, -1: none */
	int			 used;
};

struct cmp {
	const struct store_topo	*t;
	const struct store_node	**map;		/* per blueprint node */
	uint8_t			*claimed;	/* per inventory index */
	/* Ports that are ends of planned cables found: planned[off[idx]
	 * + port] (a flat array: no allocation per port). */
	size_t			*off;
	uint8_t			*planned;
	struct store_bp_diff	*d;
	size_t			 n, cap;
	struct cable		*miss, *extra;
	size_t			 nmiss, nextra, missc, extrac;
};

static int
push(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;
	size_t c = *cap ? *cap * 2 : 32;

	if (n < *cap)
		return 0;
	if ((q = reallocarray(*p, c, size)) == NULL)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static struct store_bp_diff *
row(struct cmp *c, int kind)
{
	struct store_bp_diff *r;

	if (push((void **)&c->d, &c->cap, c->n, sizeof(*c->d)) == -1)
		return NULL;
	r = &c->d[c->n++];
	memset(r, 0, sizeof(*r));
	r->kind = (uint8_t)kind;
	return r;
}

static void
end_key(uint8_t k[9], uint64_t guid, uint8_t port)
{
	memcpy(k, &guid, 8);
	k[8] = port;
}

static const char *
inv_name(const struct store_node *n)
{
	return n->alias ? n->alias : n->desc[0] ? n->desc : "?";
}

static const char *
type_word(int type)
{
	return type == STORE_NODE_SWITCH ? "Switch" : type == STORE_NODE_CA ?
	    "Ca" : "Rt";
}

static void
node_row(struct cmp *c, int kind, const struct store_topo_node *bn,
    const struct store_node *n, unsigned count)
{
	struct store_bp_diff *r = row(c, kind);

	if (r == NULL)
		return;
	if (n != NULL) {		/* unexpected */
		r->guid = n->guid;
		snprintf(r->desc, sizeof(r->desc), "%s", n->desc);
		snprintf(r->found, sizeof(r->found), "%s \"%s\"",
		    type_word(n->type), inv_name(n));
		return;
	}
	r->guid = bn->guid;
	snprintf(r->desc, sizeof(r->desc), "%s", bn->desc);
	snprintf(r->expected, sizeof(r->expected), "%s \"%s\"",
	    type_word(bn->type), bn->desc);
	if (kind == STORE_BP_NODE_AMBIGUOUS)
		snprintf(r->found, sizeof(r->found), "%u nodes with that "
		    "description", count);
}

struct dent {
	const struct store_node	*n;
	unsigned		 count;
};

/* Reachable nodes by description, for blueprint nodes without GUID. */
static struct dent *
desc_index(struct htab *h)
{
	size_t nn = store_node_count();
	struct dent *de = calloc(nn + 1, sizeof(*de)), *e;
	size_t used = 0;

	for (size_t i = 0; de != NULL && i < nn; i++) {
		const struct store_node *n = store_node_at((uint32_t)i);

		if (n == NULL || !n->reachable)
			continue;
		if ((e = htab_get(h, n->desc, strlen(n->desc))) == NULL) {
			e = &de[used++];
			if (htab_put(h, n->desc, strlen(n->desc), e) == -1)
				continue;
		}
		if (e->count++ == 0)
			e->n = n;
	}
	return de;
}

static void
map_nodes(struct cmp *c)
{
	struct htab byd, amb;
	struct dent *de = NULL, *e;

	htab_init(&byd);
	htab_init(&amb);
	for (size_t i = 0; i < c->t->nnodes; i++) {
		const struct store_topo_node *bn = &c->t->nodes[i];
		const struct store_node *n = NULL;

		if (bn->guid != 0) {
			n = store_node_by_guid(bn->guid);
			if (n != NULL && !n->reachable)
				n = NULL;
		} else {
			if (de == NULL && (de = desc_index(&byd)) == NULL)
				continue;
			e = htab_get(&byd, bn->desc, strlen(bn->desc));
			if (e != NULL && e->count > 1) {
				node_row(c, STORE_BP_NODE_AMBIGUOUS, bn, NULL,
				    e->count);
				(void)htab_put(&amb, bn->desc,
				    strlen(bn->desc), e);
				continue;
			}
			n = e ? e->n : NULL;
		}
		if (n == NULL)
			node_row(c, STORE_BP_NODE_MISSING, bn, NULL, 0);
		else {
			c->map[i] = n;
			c->claimed[n->idx] = MATCHED;
		}
	}
	for (size_t i = 0; amb.n && i < store_node_count(); i++) {
		const struct store_node *n = store_node_at((uint32_t)i);

		if (n != NULL && htab_get(&amb, n->desc, strlen(n->desc)))
			c->claimed[n->idx] = AMBIGUOUS;
	}
	htab_free(&byd);
	htab_free(&amb);
	free(de);
}

static const struct store_port *
port_of(const struct store_node *n, uint8_t p)
{
	return p >= 1 && p <= n->num_ports && n->ports ? &n->ports[p] : NULL;
}

static int
linked(const struct store_node *a, uint8_t pa, const struct store_node *b,
    uint8_t pb)
{
	const struct store_port *x = port_of(a, pa), *y = port_of(b, pb);

	return (x && x->remote_guid == b->guid && x->remote_port == pb) ||
	    (y && y->remote_guid == a->guid && y->remote_port == pa);
}

static void
cable_text(char *buf, size_t len, const struct cable *k)
{
	snprintf(buf, len, "%s[%u] - %s[%u]", inv_name(k->a), k->pa,
	    inv_name(k->b), k->pb);
}

/* A planned cable found: at the rate planned? */
static void
check_rate(struct cmp *c, const struct store_topo_link *l,
    const struct cable *k)
{
	const struct store_port *pt = port_of(k->a, k->pa);
	struct store_bp_diff *r;
	uint8_t lanes, speed;

	if (pt == NULL || !pt->valid) {
		pt = port_of(k->b, k->pb);
		if (pt == NULL || !pt->valid)
			return;
	}
	store_topo_port_rate(pt, &lanes, &speed);
	if (speed == 0 || !((l->lanes && lanes < l->lanes) ||
	    (l->speed && speed < l->speed)))
		return;
	if ((r = row(c, STORE_BP_LINK_BELOW)) == NULL)
		return;
	r->guid = k->a->guid, r->port = k->pa;
	r->rguid = k->b->guid, r->rport = k->pb;
	snprintf(r->desc, sizeof(r->desc), "%s", k->a->desc);
	store_topo_rate(l->lanes, l->speed, r->expected, sizeof(r->expected));
	store_topo_rate(lanes, speed, r->found, sizeof(r->found));
}

static void
set_planned(struct cmp *c, const struct store_node *n, uint8_t p)
{
	if (p <= n->num_ports)
		c->planned[c->off[n->idx] + p] = 1;
}

static int
is_planned(const struct cmp *c, const struct store_node *n, uint8_t p)
{
	return p <= n->num_ports && c->planned[c->off[n->idx] + p];
}

static void
planned_cables(struct cmp *c)
{
	for (size_t i = 0; i < c->t->nlinks; i++) {
		const struct store_topo_link *l = &c->t->links[i];
		struct cable k = { c->map[l->a], c->map[l->b], l->pa, l->pb,
		    (long)i, 0 };

		if (k.a == NULL || k.b == NULL)
			continue;	/* a node row says it */
		if (!linked(k.a, k.pa, k.b, k.pb)) {
			if (push((void **)&c->miss, &c->missc, c->nmiss,
			    sizeof(k)) == 0)
				c->miss[c->nmiss++] = k;
			continue;
		}
		set_planned(c, k.a, k.pa);
		set_planned(c, k.b, k.pb);
		check_rate(c, l, &k);
	}
}

/* Inventory cables between matched nodes that no plan accounts for;
 * each once, from its lower end (or the only end that records it). */
static void
extra_cables(struct cmp *c)
{
	for (size_t i = 0; i < store_node_count(); i++) {
		const struct store_node *n = store_node_at((uint32_t)i), *r;

		if (n == NULL || !n->reachable || c->claimed[n->idx] != MATCHED)
			continue;
		for (unsigned p = 1; p <= n->num_ports; p++) {
			const struct store_port *pt = port_of(n, (uint8_t)p),
			    *back;
			struct cable k;

			if (pt == NULL || pt->remote_guid == 0 ||
			    (r = store_node_by_guid(pt->remote_guid)) == NULL ||
			    !r->reachable || c->claimed[r->idx] != MATCHED)
				continue;
			back = port_of(r, pt->remote_port);
			if (back && back->remote_guid == n->guid &&
			    back->remote_port == p && (r->guid < n->guid ||
			    (r->guid == n->guid && pt->remote_port < p)))
				continue;
			if (is_planned(c, n, (uint8_t)p))
				continue;
			k = (struct cable){ n, r, (uint8_t)p, pt->remote_port,
			    -1, 0 };
			if (push((void **)&c->extra, &c->extrac, c->nextra,
			    sizeof(k)) == 0)
				c->extra[c->nextra++] = k;
		}
	}
}

static void
moved_row(struct cmp *c, struct cable *m, struct cable *u)
{
	struct store_bp_diff *r = row(c, STORE_BP_CABLE_MOVED);

	m->used = u->used = 1;
	if (r == NULL)
		return;
	r->guid = m->a->guid, r->port = m->pa;
	r->rguid = m->b->guid, r->rport = m->pb;
	snprintf(r->desc, sizeof(r->desc), "%s", m->a->desc);
	cable_text(r->expected, sizeof(r->expected), m);
	cable_text(r->found, sizeof(r->found), u);
}

static void
pair_key(uint8_t k[16], const struct cable *x)
{
	uint64_t lo = x->a->guid < x->b->guid ? x->a->guid : x->b->guid,
	    hi = x->a->guid < x->b->guid ? x->b->guid : x->a->guid;

	memcpy(k, &lo, 8);
	memcpy(k + 8, &hi, 8);
}

/* Missing and unexpected cables that are one cable moved: sharing a
 * port first, then the same two nodes. */
static void
pair_moved(struct cmp *c)
{
	struct htab ends, pairs;
	uint8_t key[16];
	struct cable *u;

	htab_init(&ends);
	htab_init(&pairs);
	for (size_t i = c->nextra; i-- > 0; ) {
		u = &c->extra[i];
		end_key(key, u->a->guid, u->pa);
		(void)htab_put(&ends, key, 9, u);
		end_key(key, u->b->guid, u->pb);
		(void)htab_put(&ends, key, 9, u);
	}
	for (size_t i = 0; i < c->nmiss; i++) {
		struct cable *m = &c->miss[i];

		end_key(key, m->a->guid, m->pa);
		if ((u = htab_get(&ends, key, 9)) == NULL || u->used) {
			end_key(key, m->b->guid, m->pb);
			u = htab_get(&ends, key, 9);
		}
		if (u != NULL && !u->used)
			moved_row(c, m, u);
	}
	for (size_t i = c->nextra; i-- > 0; )
		if (!c->extra[i].used) {
			pair_key(key, &c->extra[i]);
			(void)htab_put(&pairs, key, 16, &c->extra[i]);
		}
	for (size_t i = 0; i < c->nmiss; i++) {
		struct cable *m = &c->miss[i];

		if (m->used)
			continue;
		pair_key(key, m);
		if ((u = htab_get(&pairs, key, 16)) != NULL && !u->used)
			moved_row(c, m, u);
	}
	htab_free(&ends);
	htab_free(&pairs);
}

static void
cable_rows(struct cmp *c)
{
	for (int pass = 0; pass < 2; pass++) {
		struct cable *v = pass ? c->extra : c->miss;
		size_t nv = pass ? c->nextra : c->nmiss;

		for (size_t i = 0; i < nv; i++) {
			struct store_bp_diff *r;

			if (v[i].used || (r = row(c, pass ?
			    STORE_BP_CABLE_UNEXPECTED :
			    STORE_BP_CABLE_MISSING)) == NULL)
				continue;
			r->guid = v[i].a->guid, r->port = v[i].pa;
			r->rguid = v[i].b->guid, r->rport = v[i].pb;
			snprintf(r->desc, sizeof(r->desc), "%s", v[i].a->desc);
			cable_text(pass ? r->found : r->expected,
			    sizeof(r->found), &v[i]);
		}
	}
}

long
store_bp_compare(const struct store_topo *t, struct store_bp_diff **out)
{
	struct cmp c;
	size_t nn = store_node_count();
	int ok;

	memset(&c, 0, sizeof(c));
	c.t = t;
	c.map = calloc(t->nnodes + 1, sizeof(*c.map));
	c.claimed = calloc(nn + 1, 1);
	if ((c.off = calloc(nn + 1, sizeof(*c.off))) != NULL) {
		for (size_t i = 0; i < nn; i++) {
			const struct store_node *n = store_node_at((uint32_t)i);

			c.off[i + 1] = c.off[i] + (n ? n->num_ports : 0) + 1;
		}
		c.planned = calloc(c.off[nn] + 1, 1);
	}
	if (c.map != NULL && c.claimed != NULL && c.planned != NULL) {
		map_nodes(&c);
		planned_cables(&c);
		extra_cables(&c);
		pair_moved(&c);
		cable_rows(&c);
		for (size_t i = 0; i < nn; i++) {
			const struct store_node *n = store_node_at((uint32_t)i);

			if (n != NULL && n->reachable && c.claimed[n->idx] ==
			    FREE)
				node_row(&c, STORE_BP_NODE_UNEXPECTED, NULL, n,
				    0);
		}
	}
	ok = c.map != NULL && c.claimed != NULL && c.planned != NULL;
	free(c.miss);
	free(c.extra);
	free(c.off);
	free(c.map);
	free(c.claimed);
	free(c.planned);
	if (!ok) {
		free(c.d);
		return -1;
	}
	*out = c.d;
	return (long)c.n;
}
