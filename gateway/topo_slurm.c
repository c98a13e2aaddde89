/* gw_topo_slurm: Slurm's topology.conf from the inventory.
 *
 * topology/tree wants one line per switch naming its children: the hosts
 * of a leaf (Nodes=) or the switches one tier down (Switches=). A fabric
 * is a graph, not a tree, so the tiers are counted here: a switch with a
 * host adapter on one of its ports is tier 0, every other switch is one
 * more than its nearest neighbour (breadth first), and its children are
 * its neighbours one tier down. Links within a tier (leaf to leaf) are
 * no parent's, so the file has no loop whatever the cabling.
 *
 * Only what the last sweep reached is written: a node or link gone from
 * the fabric is no place to put a job. What is left out is said in
 * comment lines, as is every switch or host that has no usable name. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/topo_slurm.h"

struct ts_ref {
	uint64_t		 guid;
	const struct store_node	*n;
	long			 sw;		/* index in ts.sw, or -1 */
	int			 placed;	/* on some switch's Nodes= */
	const char		*why;		/* no host name: why */
	char			 name[GW_TOPO_NAME];
};

struct ts_sw {
	const struct store_node	*n;
	char			 name[GW_TOPO_NAME];
	int			 level;		/* -1: no host below it */
	int			 has_ca;	/* an adapter is on a port */
	int			 shown;		/* has a line */
	const char		**hosts;
	size_t			 nhosts, caphosts;
	size_t			*nbr;		/* neighbours, indexes in sw */
	size_t			 nnbr, capnbr;
};

struct ts {
	struct ts_sw	*sw;
	size_t		 nsw;
	struct ts_ref	*ref;
	size_t		 nref;
};

/* The characters Slurm takes in a name without trouble: hostlist
 * expressions split at ',', '[' and ']', the file at blanks, '=' and
 * '#'. ASCII by hand, whatever the locale. */
static int
name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

static int
push(void *vp, size_t *n, size_t *cap, size_t elsize, const void *el)
{
	void **v = vp;

	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 8;
		void *nv = realloc(*v, c * elsize);

		if (nv == NULL)
			return -1;
		*v = nv;
		*cap = c;
	}
	memcpy((char *)*v + *n * elsize, el, elsize);
	(*n)++;
	return 0;
}

/* s with each run of other characters made one '_', none at either
 * end; at most size - 1 characters. */
static void
sanitize(const char *s, size_t len, char *buf, size_t size)
{
	size_t o = 0;
	int gap = 0;

	for (size_t i = 0; i < len && s[i] != '\0' && o + 1 < size; i++) {
		if (!name_char((unsigned char)s[i])) {
			gap = o > 0;
			continue;
		}
		if (gap && o + 2 < size)
			buf[o++] = '_';
		gap = 0;
		buf[o++] = s[i];
	}
	buf[o] = '\0';
}

/* NVIDIA (Mellanox) switches describe themselves "MF0;NAME:MODEL/U1",
 * NAME being the one the admin gave the switch. */
static int
mf0_name(const char *d, char *buf, size_t size)
{
	const char *end;
	size_t len;

	if (strncmp(d, "MF0;", 4) != 0 || (end = strchr(d + 4, ':')) == NULL)
		return -1;
	len = (size_t)(end - (d + 4));
	if (len == 0 || len >= size)
		return -1;
	for (size_t i = 0; i < len; i++)
		if (!name_char((unsigned char)d[4 + i]))
			return -1;
	memcpy(buf, d + 4, len);
	buf[len] = '\0';
	return 0;
}

const char *
gw_topo_slurm_switch_name(const struct store_node *n, char *buf,
    size_t size)
{
	const char *src = n->alias != NULL ? n->alias : n->desc;
	/* Room for the "_GUID" that sets apart equal names. */
	size_t lim = size > 36 ? size - 17 : size;

	if (size == 0)
		return buf;
	if (n->alias != NULL || mf0_name(n->desc, buf, lim) == -1)
		sanitize(src, strlen(src), buf, lim);
	if (buf[0] == '\0')
		snprintf(buf, size, "sw%016llx", (unsigned long long)n->guid);
	return buf;
}

const char *
gw_topo_slurm_host_name(const struct store_node *n, char *buf,
    size_t size, const char **why)
{
	const char *src = n->alias != NULL ? n->alias : n->desc;
	size_t len = strcspn(src, " \t");

	*why = NULL;
	if (len == 0)
		*why = n->alias != NULL ? "its alias begins with a blank" :
		    "no NodeDescription";
	else if (len >= size)
		*why = "host name too long";
	/* rdma-core sets the description before the host has its name. */
	else if ((len == 9 || (len > 9 && src[9] == '.')) &&
	    strncmp(src, "localhost", 9) == 0)
		*why = "no host name in it (localhost)";
	else
		for (size_t i = 0; i < len && *why == NULL; i++)
			if (!name_char((unsigned char)src[i]))
				*why = "its host name has characters Slurm "
				    "does not take";
	if (*why != NULL)
		return NULL;
	memcpy(buf, src, len);
	buf[len] = '\0';
	return buf;
}

/* Hostlists ------------------------------------------------------- */

struct hl {
	const char		*s;
	size_t			 plen;		/* prefix: before the number */
	int			 width;		/* digits; 0: no number */
	unsigned long long	 num;
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
cmp_hl(const void *a, const void *b)
{
	const struct hl *x = a, *y = b;
	size_t m = x->plen < y->plen ? x->plen : y->plen;
	int c = memcmp(x->s, y->s, m);

	if (c != 0 || x->plen != y->plen)
		return c != 0 ? c : x->plen < y->plen ? -1 : 1;
	if ((x->width == 0) != (y->width == 0))
		return x->width == 0 ? -1 : 1;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return x->width - y->width;
}

/* The trailing digits of s (at most 18: they fit), the rest prefix. */
static void
hl_parse(struct hl *h, const char *s)
{
	size_t len = strlen(s), d = len;

	while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	h->s = s;
	h->plen = len;
	h->width = 0;
	h->num = 0;
	if (d == len || d == 0 || len - d > 18)
		return;		/* no number, or no prefix to hang it on */
	h->plen = d;
	h->width = (int)(len - d);
	h->num = strtoull(s + d, NULL, 10);
}

/* One prefix's numbers, h[0..n): "pre[1-3,5]". */
static void
hl_group(FILE *f, const struct hl *h, size_t n)
{
	fprintf(f, "%.*s[", (int)h[0].plen, h[0].s);
	for (size_t k = 0; k < n; ) {
		size_t m = k;

		while (m + 1 < n && h[m + 1].width == h[k].width &&
		    h[m + 1].num == h[m].num + 1)
			m++;
		fprintf(f, "%s%0*llu", k ? "," : "", h[k].width, h[k].num);
		if (m > k)
			fprintf(f, "-%0*llu", h[m].width, h[m].num);
		k = m + 1;
	}
	fputc(']', f);
}

int
gw_topo_slurm_hostlist(FILE *f, const char **names, size_t n)
{
	struct hl *h;
	size_t u = 0;

	qsort(names, n, sizeof(*names), cmp_str);
	if ((h = calloc(n ? n : 1, sizeof(*h))) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(names[i], names[i - 1]) != 0)
			hl_parse(&h[u++], names[i]);
	qsort(h, u, sizeof(*h), cmp_hl);
	for (size_t i = 0, j; i < u; i = j) {
		for (j = i + 1; h[i].width && j < u && h[j].width &&
		    h[j].plen == h[i].plen &&
		    memcmp(h[j].s, h[i].s, h[i].plen) == 0; j++)
			;
		if (i)
			fputc(',', f);
		if (j - i == 1)
			fputs(h[i].s, f);
		else
			hl_group(f, h + i, j - i);
	}
	free(h);
	return 0;
}

/* The fabric --------------------------------------------------------- */

static int
cmp_ref(const void *a, const void *b)
{
	const struct ts_ref *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static int
cmp_sw(const void *a, const void *b)
{
	const struct ts_sw *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->n->guid < y->n->guid ? -1 : x->n->guid > y->n->guid;
}

static struct ts_ref *
ref_of(const struct ts *t, uint64_t guid)
{
	struct ts_ref key = { .guid = guid };

	return bsearch(&key, t->ref, t->nref, sizeof(key), cmp_ref);
}

/* Switches named, equal names set apart by GUID, in name order. */
static void
name_switches(struct ts *t)
{
	size_t i, j;

	for (i = 0; i < t->nsw; i++)
		gw_topo_slurm_switch_name(t->sw[i].n, t->sw[i].name,
		    sizeof(t->sw[i].name));
	qsort(t->sw, t->nsw, sizeof(*t->sw), cmp_sw);
	for (i = 0; i < t->nsw; i = j) {
		for (j = i + 1; j < t->nsw &&
		    strcmp(t->sw[j].name, t->sw[i].name) == 0; j++)
			;
		for (size_t k = i; j - i > 1 && k < j; k++) {
			size_t l = strlen(t->sw[k].name);

			snprintf(t->sw[k].name + l, sizeof(t->sw[k].name) - l,
			    "_%016llx", (unsigned long long)t->sw[k].n->guid);
		}
	}
	qsort(t->sw, t->nsw, sizeof(*t->sw), cmp_sw);
}

/* The reachable nodes: switches, and every node by GUID. */
static int
collect(struct ts *t, size_t count, gw_topo_node_fn at, void *arg)
{
	size_t capsw = 0, capref = 0;

	for (size_t i = 0; i < count; i++) {
		const struct store_node *n = at(i, arg);
		struct ts_sw s = { .n = n, .level = -1 };

		if (n == NULL || !n->reachable || n->type != STORE_NODE_SWITCH)
			continue;
		if (push(&t->sw, &t->nsw, &capsw, sizeof(s), &s) == -1)
			return -1;
	}
	name_switches(t);
	for (size_t i = 0; i < count; i++) {
		const struct store_node *n = at(i, arg);
		struct ts_ref r = { .n = n, .sw = -1 };

		if (n == NULL || !n->reachable)
			continue;
		r.guid = n->guid;
		if (n->type == STORE_NODE_CA)
			gw_topo_slurm_host_name(n, r.name, sizeof(r.name),
			    &r.why);
		if (push(&t->ref, &t->nref, &capref, sizeof(r), &r) == -1)
			return -1;
	}
	qsort(t->ref, t->nref, sizeof(*t->ref), cmp_ref);
	for (size_t i = 0; i < t->nsw; i++)
		ref_of(t, t->sw[i].n->guid)->sw = (long)i;
	return 0;
}

/* One switch's ports: the switches and named hosts at their ends. */
static int
links(struct ts *t, struct ts_sw *s)
{
	for (int p = 1; p <= s->n->num_ports; p++) {
		const struct store_port *pt = &s->n->ports[p];
		struct ts_ref *r;
		size_t k, me = (size_t)(s - t->sw);
		const char *name;

		if (pt->remote_guid == 0 ||
		    (r = ref_of(t, pt->remote_guid)) == NULL)
			continue;	/* no link, or gone from the fabric */
		if (r->sw >= 0 && (size_t)r->sw != me) {
			/* Parallel cables count once. */
			for (k = 0; k < s->nnbr && s->nbr[k] != (size_t)r->sw;
			    k++)
				;
			if (k < s->nnbr)
				continue;
			k = (size_t)r->sw;
			if (push(&s->nbr, &s->nnbr, &s->capnbr, sizeof(k),
			    &k) == -1)
				return -1;
		} else if (r->n->type == STORE_NODE_CA) {
			s->has_ca = 1;
			if (r->why != NULL)
				continue;
			r->placed = 1;
			name = r->name;
			if (push(&s->hosts, &s->nhosts, &s->caphosts,
			    sizeof(name), &name) == -1)
				return -1;
		}
	}
	return 0;
}

/* Tiers, breadth first from the switches with adapters (tier 0). */
static int
levels(struct ts *t, int *top)
{
	size_t *q, head = 0, tail = 0;

	*top = 0;
	if ((q = calloc(t->nsw ? t->nsw : 1, sizeof(*q))) == NULL)
		return -1;
	for (size_t i = 0; i < t->nsw; i++)
		if (t->sw[i].has_ca) {
			t->sw[i].level = 0;
			q[tail++] = i;
		}
	while (head < tail) {
		struct ts_sw *s = &t->sw[q[head++]];

		for (size_t k = 0; k < s->nnbr; k++) {
			struct ts_sw *o = &t->sw[s->nbr[k]];

			if (o->level != -1)
				continue;
			o->level = s->level + 1;
			*top = o->level;
			q[tail++] = s->nbr[k];
		}
	}
	free(q);
	return 0;
}

/* A description or alias in a comment: printable ASCII only, so no
 * description can end the comment and start a line of its own. */
static void
put_text(FILE *f, const char *s)
{
	for (; *s != '\0'; s++)
		fputc(*s >= 0x20 && *s < 0x7f ? *s : '?', f);
}

static void
left_out(FILE *f, const struct store_node *n, const char *why)
{
	fprintf(f, "# left out: %s 0x%016llx '", n->type ==
	    STORE_NODE_SWITCH ? "switch" : n->type == STORE_NODE_CA ? "host" :
	    "router", (unsigned long long)n->guid);
	put_text(f, n->alias != NULL ? n->alias : n->desc);
	fprintf(f, "': %s\n", why);
}

/* One switch's line, if it has children that have lines. */
static int
switch_line(FILE *f, struct ts *t, struct ts_sw *s)
{
	const char **kids = s->hosts;
	size_t nk = s->nhosts;

	if (s->level > 0) {
		if ((kids = calloc(s->nnbr ? s->nnbr : 1, sizeof(*kids))) ==
		    NULL)
			return -1;
		nk = 0;
		for (size_t k = 0; k < s->nnbr; k++) {
			const struct ts_sw *o = &t->sw[s->nbr[k]];

			if (o->level == s->level - 1 && o->shown)
				kids[nk++] = o->name;
		}
	}
	if (nk > 0) {
		s->shown = 1;
		fprintf(f, "SwitchName=%s %s=", s->name, s->level > 0 ?
		    "Switches" : "Nodes");
		gw_topo_slurm_hostlist(f, kids, nk);
		fputc('\n', f);
	}
	if (kids != s->hosts)
		free(kids);
	return 0;
}

static int
write_lines(FILE *f, struct ts *t, int top)
{
	for (int l = 0; l <= top; l++)
		for (size_t i = 0; i < t->nsw; i++)
			if (t->sw[i].level == l &&
			    switch_line(f, t, &t->sw[i]) == -1)
				return -1;
	return 0;
}

/* What has no line, and why. */
static void
write_left_out(FILE *f, const struct ts *t, size_t count,
    gw_topo_node_fn at, void *arg)
{
	for (size_t i = 0; i < t->nsw; i++)
		if (!t->sw[i].shown)
			left_out(f, t->sw[i].n, t->sw[i].has_ca ?
			    "none of its hosts has a name" :
			    t->sw[i].level == -1 ? "no host below it" :
			    "no switch below it has a line");
	for (size_t i = 0; i < t->nref; i++) {
		const struct ts_ref *r = &t->ref[i];

		if (r->n->type == STORE_NODE_ROUTER)
			left_out(f, r->n, "a router");
		else if (r->n->type == STORE_NODE_CA && r->why != NULL)
			left_out(f, r->n, r->why);
		else if (r->n->type == STORE_NODE_CA && !r->placed)
			left_out(f, r->n, "on no switch");
	}
	for (size_t i = 0; i < count; i++) {
		const struct store_node *n = at(i, arg);

		if (n != NULL && !n->reachable)
			left_out(f, n, "unreachable at the last sweep");
	}
}

static void
ts_free(struct ts *t)
{
	for (size_t i = 0; i < t->nsw; i++) {
		free(t->sw[i].hosts);
		free(t->sw[i].nbr);
	}
	free(t->sw);
	free(t->ref);
}

int
gw_topo_slurm(FILE *f, size_t count, gw_topo_node_fn at, void *arg)
{
	struct ts t;
	int top, rc = -1;

	memset(&t, 0, sizeof(t));
	if (collect(&t, count, at, arg) == -1)
		goto out;
	for (size_t i = 0; i < t.nsw; i++)
		if (links(&t, &t.sw[i]) == -1)
			goto out;
	if (levels(&t, &top) == -1)
		goto out;
	fprintf(f, "# Slurm topology.conf (TopologyPlugin=topology/tree) "
	    "from ibsnmpgw's inventory\n");
	if (write_lines(f, &t, top) == -1)
		goto out;
	write_left_out(f, &t, count, at, arg);
	rc = 0;
out:
	if (rc == -1)
		fprintf(f, "error: out of memory\n");
	ts_free(&t);
	return rc;
}
