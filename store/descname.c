/* store_descname: node names taken from NodeDescriptions.
 *
 * rdma-core sets an HCA's NodeDescription to "hostname mlx5_0"; switch
 * vendors and admins set names with spaces and punctuation. The whole
 * description and its first word both name the node when they are
 * unique in the fabric. Two hash indexes map each name to the nodes that
 * bear it, and each entry keeps its resolution, so a lookup is one hash
 * probe however many nodes share a name. A name borne by several nodes
 * resolves only if exactly one of them is reachable (a replaced HCA
 * keeps its host name; the old one stays in the inventory), else to
 * nothing: never silently to one of them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/descname.h"
#include "util/htab.h"
#include "util/log.h"

struct dn_ent {
	struct store_node **nodes;	/* bearing the name */
	uint32_t	 n, cap;
	struct store_node *resolved;	/* or NULL */
	int		 warned;	/* these nodes' ambiguity was logged */
};

static struct htab dn_full, dn_word;
/* The store's node-name-map (store.c), handed over at init. */
static struct store_node *(*dn_by_alias)(const char *name);

/* The first word: up to the first space, if there is one. */
static size_t
first_word(const char *d)
{
	const char *sp = strchr(d, ' ');

	return sp != NULL && sp != d ? (size_t)(sp - d) : 0;
}

static void
settle(struct dn_ent *e)
{
	struct store_node *one = NULL;
	uint32_t live = 0;

	if (e->n == 1) {
		e->resolved = e->nodes[0];
		return;
	}
	for (uint32_t i = 0; i < e->n; i++)
		if (e->nodes[i]->reachable) {
			live++;
			one = e->nodes[i];
		}
	e->resolved = live == 1 ? one : NULL;
}

static void
name_add(struct htab *h, const char *name, size_t len, struct store_node *nd)
{
	struct dn_ent *e = htab_get(h, name, len);

	if (e == NULL) {
		if ((e = calloc(1, sizeof(*e))) == NULL ||
		    htab_put(h, name, len, e) == -1)
			fatal("store: name index");
	}
	for (uint32_t i = 0; i < e->n; i++)
		if (e->nodes[i] == nd)
			return;
	if (e->n == e->cap) {
		uint32_t cap = e->cap ? 2 * e->cap : 1;
		struct store_node **v = realloc(e->nodes, cap * sizeof(*v));
		if (v == NULL)
			fatal("store: name index");
		e->nodes = v;
		e->cap = cap;
	}
	e->nodes[e->n++] = nd;
	e->warned = 0;
	settle(e);
}

static void
name_del(struct htab *h, const char *name, size_t len,
    const struct store_node *nd)
{
	struct dn_ent *e = htab_get(h, name, len);

	if (e == NULL)
		return;
	for (uint32_t i = 0; i < e->n; i++)
		if (e->nodes[i] == nd) {
			e->nodes[i] = e->nodes[--e->n];
			e->warned = 0;
			break;
		}
	if (e->n > 0) {
		settle(e);
		return;
	}
	htab_del(h, name, len);
	free(e->nodes);
	free(e);
}

void
store_descname_update(struct store_node *n, const char *old)
{
	size_t w;

	if (old != NULL && strcmp(old, n->desc) == 0)
		return;
	if (old != NULL && old[0] != '\0') {
		name_del(&dn_full, old, strlen(old), n);
		if ((w = first_word(old)) != 0)
			name_del(&dn_word, old, w, n);
	}
	if (n->desc[0] != '\0') {
		name_add(&dn_full, n->desc, strlen(n->desc), n);
		if ((w = first_word(n->desc)) != 0)
			name_add(&dn_word, n->desc, w, n);
	}
}

static struct store_node *
lookup(const struct htab *h, const char *name, size_t len, int *ambiguous)
{
	const struct dn_ent *e = htab_get(h, name, len);

	if (e == NULL)
		return NULL;
	if (e->resolved == NULL)
		*ambiguous = 1;
	return e->resolved;
}

struct store_node *
store_descname_lookup(const char *name, size_t len)
{
	struct store_node *n;
	int amb = 0;

	/* The whole description first: "leaf01" is leaf01's even when
	 * another node is "leaf01 spare". */
	if ((n = lookup(&dn_full, name, len, &amb)) != NULL || amb)
		return n;
	return lookup(&dn_word, name, len, &amb);
}

/* Sweep end: reachability changed. An ambiguous name is logged once for
 * the nodes that bear it, not again as they come and go. */
struct settle_ctx {
	const char	*kind;
	unsigned	 ambiguous;
};

static void
settle_one(const void *key, size_t len, void *val, void *arg)
{
	struct dn_ent *e = val;
	struct settle_ctx *c = arg;
	char name[STORE_DESC_LEN + 1];

	settle(e);
	if (e->n < 2 || e->resolved != NULL)
		return;
	c->ambiguous++;
	if (e->warned)
		return;
	e->warned = 1;
	memcpy(name, key, len < sizeof(name) ? len : sizeof(name) - 1);
	name[len < sizeof(name) ? len : sizeof(name) - 1] = '\0';
	/* A node-name-map alias of the same spelling wins anyway. */
	if (dn_by_alias != NULL && dn_by_alias(name) != NULL)
		return;
	log_warnx("store: %s '%s' names %u nodes (e.g. 0x%016llx and "
	    "0x%016llx): it resolves to none; use a GUID or a node-name-map "
	    "alias", c->kind, name, e->n,
	    (unsigned long long)e->nodes[0]->guid,
	    (unsigned long long)e->nodes[1]->guid);
}

unsigned
store_descname_settle(void)
{
	struct settle_ctx c = { "NodeDescription", 0 };

	htab_foreach(&dn_full, settle_one, &c);
	c.kind = "host name";
	htab_foreach(&dn_word, settle_one, &c);
	return c.ambiguous;
}

static void
append(char *buf, size_t size, size_t *off, const char *s, size_t len,
    const struct dn_ent *e, const struct store_node *nd)
{
	int k;

	if (*off >= size)
		return;
	k = snprintf(buf + *off, size - *off, "%s'%.*s'%s", *off ? ", " : "",
	    (int)len, s, e == NULL || e->resolved == NULL ? " (ambiguous)" :
	    e->resolved != nd ? " (another node's)" : "");
	if (k > 0)
		*off += (size_t)k;
}

const char *
store_descname_names(const struct store_node *n, char *buf, size_t size)
{
	size_t off = 0, w;

	buf[0] = '\0';
	if (n->desc[0] == '\0')
		return buf;
	append(buf, size, &off, n->desc, strlen(n->desc), htab_get(&dn_full,
	    n->desc, strlen(n->desc)), n);
	if ((w = first_word(n->desc)) != 0)
		append(buf, size, &off, n->desc, w, htab_get(&dn_word, n->desc,
		    w), n);
	return buf;
}

void
store_descname_init(struct store_node *(*by_alias)(const char *name))
{
	dn_by_alias = by_alias;
	htab_init(&dn_full);
	htab_init(&dn_word);
}

static void
free_ent(const void *k, size_t len, void *v, void *arg)
{
	struct dn_ent *e = v;

	free(e->nodes);
	free(e);
}

void
store_descname_finalise(void)
{
	htab_foreach(&dn_full, free_ent, NULL);
	htab_foreach(&dn_word, free_ent, NULL);
	htab_free(&dn_full);
	htab_free(&dn_word);
}
