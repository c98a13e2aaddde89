/* htab: hash table from byte-string keys to pointers.
 * Used wherever a per-request lookup must not scan (node names, GUIDs,
 * cache keys, communities). */
#ifndef IBSNMPGW_HTAB_H
#define IBSNMPGW_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct htab_ent;

struct htab {
	struct htab_ent	**b;
	size_t		  nb;
	size_t		  n;
};

void	 htab_init(struct htab *h);
void	 htab_free(struct htab *h);
/* Insert or replace; the key is copied. Returns -1 on allocation failure. */
int	 htab_put(struct htab *h, const void *key, size_t len, void *val);
void	*htab_get(const struct htab *h, const void *key, size_t len);
void	*htab_del(struct htab *h, const void *key, size_t len);
/* Visit every entry; fn may not modify the table. */
void	 htab_foreach(const struct htab *h,
	    void (*fn)(const void *key, size_t len, void *val, void *arg),
	    void *arg);
uint64_t htab_hash(const void *key, size_t len);

static inline int
htab_put_u64(struct htab *h, uint64_t k, void *v)
{
	return htab_put(h, &k, sizeof(k), v);
}

static inline void *
htab_get_u64(const struct htab *h, uint64_t k)
{
	return htab_get(h, &k, sizeof(k));
}

#endif
