/* htab: chained hash table, doubled when the load factor passes 1. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "htab.h"

struct htab_ent {
	struct htab_ent	*next;
	uint64_t	 hash;
	void		*val;
	size_t		 len;
	unsigned char	 key[];
};

uint64_t
htab_hash(const void *key, size_t len)
{
	/* FNV-1a, 64 bit. */
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void
htab_init(struct htab *h)
{
	h->b = NULL;
	h->nb = 0;
	h->n = 0;
}

void
htab_free(struct htab *h)
{
	for (size_t i = 0; i < h->nb; i++) {
		struct htab_ent *e = h->b[i], *nx;
		for (; e != NULL; e = nx) {
			nx = e->next;
			free(e);
		}
	}
	free(h->b);
	htab_init(h);
}

static int
htab_grow(struct htab *h)
{
	size_t nb = h->nb ? h->nb * 2 : 64;
	struct htab_ent **b = calloc(nb, sizeof(*b));

	if (b == NULL)
		return -1;
	for (size_t i = 0; i < h->nb; i++) {
		struct htab_ent *e = h->b[i], *nx;
		for (; e != NULL; e = nx) {
			nx = e->next;
			e->next = b[e->hash & (nb - 1)];
			b[e->hash & (nb - 1)] = e;
		}
	}
	free(h->b);
	h->b = b;
	h->nb = nb;
	return 0;
}

static struct htab_ent **
htab_find(const struct htab *h, const void *key, size_t len, uint64_t hv)
{
	struct htab_ent **pp;

	if (h->nb == 0)
		return NULL;
	for (pp = &h->b[hv & (h->nb - 1)]; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->hash == hv && (*pp)->len == len &&
		    memcmp((*pp)->key, key, len) == 0)
			return pp;
	return NULL;
}

int
htab_put(struct htab *h, const void *key, size_t len, void *val)
{
	uint64_t hv = htab_hash(key, len);
	struct htab_ent **pp = htab_find(h, key, len, hv), *e;

	if (pp != NULL) {
		(*pp)->val = val;
		return 0;
	}
	if (h->n >= h->nb && htab_grow(h) == -1)
		return -1;
	if ((e = malloc(sizeof(*e) + len)) == NULL)
		return -1;
	e->hash = hv;
	e->val = val;
	e->len = len;
	memcpy(e->key, key, len);
	e->next = h->b[hv & (h->nb - 1)];
	h->b[hv & (h->nb - 1)] = e;
	h->n++;
	return 0;
}

void *
htab_get(const struct htab *h, const void *key, size_t len)
{
	struct htab_ent **pp = htab_find(h, key, len, htab_hash(key, len));

	return pp ? (*pp)->val : NULL;
}

void *
htab_del(struct htab *h, const void *key, size_t len)
{
	struct htab_ent **pp = htab_find(h, key, len, htab_hash(key, len));
	struct htab_ent *e;
	void *v;

	if (pp == NULL)
		return NULL;
	e = *pp;
	*pp = e->next;
	v = e->val;
	free(e);
	h->n--;
	return v;
}

void
htab_foreach(const struct htab *h,
    void (*fn)(const void *, size_t, void *, void *), void *arg)
{
	for (size_t i = 0; i < h->nb; i++)
		for (struct htab_ent *e = h->b[i]; e != NULL; e = e->next)
			fn(e->key, e->len, e->val, arg);
}
