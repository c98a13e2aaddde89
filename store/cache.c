/* cache: TTL cache of raw attribute payloads with request coalescing. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/cache.h"
#include "util/ev.h"
#include "util/log.h"
#include "util/pool.h"

struct cache_waiter {
	struct cache_waiter	*next;
	cache_waiter_cb		 cb;
	void			*arg;
};

/* Packed by size: at 10,000 nodes the cache holds ~90,000 of these. */
struct cache_entry {
	struct cache_key	 key;
	uint8_t			 state;		/* enum cache_state */
	uint8_t			 cls;		/* enum attr_ttl of the fetch */
	uint8_t			 good;		/* data: the last good answer */
	uint8_t			 cap;		/* octets allocated (<= 224) */
	int32_t			 error;		/* negative errno if FAILED */
	uint16_t		 len;		/* <= CACHE_DATA_MAX */
	uint64_t		 expires;	/* ms, monotonic */
	uint64_t		 completed;	/* ms, last completion */
	/* Newest first: completion reverses them, so they are answered
	 * in the order they came. */
	struct cache_waiter	*waiters;
	struct cache_entry	*hnext;		/* chain of its table slot */
	uint64_t		 rejected;	/* hash of rejected data, 0: none */
	/* The answer, allocated to its length; PerfMgt counters keep
	 * none (cache_nodata): the accumulators hold their values, and at
	 * 10,000 nodes their copies would be most of the cache. */
	uint8_t			*data;
};

_Static_assert(CACHE_DATA_MAX <= UINT8_MAX, "cache_entry.cap is 8 bits");

static uint8_t		 cache_nodata[CACHE_DATA_MAX];
static struct pool	 ct_pool;	/* the entries themselves */
/* Waiters come and go with every fetch (one per counter MAD of a
 * poll): from a pool of their own rather than malloc and free. */
static struct pool		 cw_pool;

static void
entry_free(struct cache_entry *e)
{
	if (e->data != cache_nodata)
		free(e->data);
	pool_put(&ct_pool, e);
}

/* Keep len octets of an answer; 0, or -1 when memory is short. */
static int
entry_store(struct cache_entry *e, const uint8_t *data, size_t len)
{
	if (len > CACHE_DATA_MAX)
		len = CACHE_DATA_MAX;
	if (e->cls == ATTR_TTL_COUNTERS) {
		if (e->data != cache_nodata)
			free(e->data);
		e->data = cache_nodata;
		e->cap = 0;
	} else {
		if (e->data == cache_nodata || e->cap < len) {
			uint8_t *d = malloc(len ? len : 1);
			if (d == NULL)
				return -1;
			if (e->data != cache_nodata)
				free(e->data);
			e->data = d;
			e->cap = len;
		}
		memcpy(e->data, data, len);
	}
	e->len = len;
	return 0;
}

/* The entries by key, chained through the entries themselves: at
 * 10,000 nodes the cache holds ~90,000, and a separate table node
 * each (48 bytes) was a third of their memory. */
static struct cache_entry **ct_b;	/* slots, a power of two */
static size_t		 ct_nb, ct_n;

static size_t
ct_slot(const struct cache_key *k, size_t nb)
{
	/* Three lookups a MAD: the key's two words mixed (a 64-bit
	 * finaliser, as splitmix64's), not FNV over its twelve octets. */
	uint64_t h = ((uint64_t)k->node << 32 | (uint32_t)k->attr << 16 |
	    (uint32_t)k->mclass << 8 | k->port) ^
	    ((uint64_t)k->mod * 0x9e3779b97f4a7c15ULL);

	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h & (nb - 1);
}

static struct cache_entry *
ct_get(const struct cache_key *k)
{
	struct cache_entry *e;

	if (ct_nb == 0)
		return NULL;
	for (e = ct_b[ct_slot(k, ct_nb)]; e != NULL; e = e->hnext)
		if (memcmp(&e->key, k, sizeof(*k)) == 0)
			return e;
	return NULL;
}

/* Doubled when the load passes 1; -1 when memory is short. */
static int
ct_put(struct cache_entry *e)
{
	size_t i;

	if (ct_n >= ct_nb) {
		size_t nb = ct_nb ? ct_nb * 2 : 1024;
		struct cache_entry **b = calloc(nb, sizeof(*b)), *x, *nx;

		if (b == NULL)
			return -1;
		for (i = 0; i < ct_nb; i++)
			for (x = ct_b[i]; x != NULL; x = nx) {
				nx = x->hnext;
				x->hnext = b[ct_slot(&x->key, nb)];
				b[ct_slot(&x->key, nb)] = x;
			}
		free(ct_b);
		ct_b = b;
		ct_nb = nb;
	}
	i = ct_slot(&e->key, ct_nb);
	e->hnext = ct_b[i];
	ct_b[i] = e;
	ct_n++;
	return 0;
}

static cache_fetch_fn	 cache_fetch;
static void		*cache_fetch_arg;
/* Seconds, once set; the catalogue's defaults until then. */
static int		 cache_ttl_s[ATTR_TTL_MAX];
static uint8_t		 cache_ttl_given[ATTR_TTL_MAX];
static struct cache_stats cache_st;
static int		(*cache_ttl_hook)(const struct cache_key *,
			    enum attr_ttl);

void
cache_set_ttl_hook(int (*fn)(const struct cache_key *, enum attr_ttl))
{
	cache_ttl_hook = fn;
}

int
cache_init(cache_fetch_fn fetch, void *fetch_arg)
{
	pool_init(&ct_pool, sizeof(struct cache_entry));
	pool_init(&cw_pool, sizeof(struct cache_waiter));
	cache_fetch = fetch;
	cache_fetch_arg = fetch_arg;
	memset(&cache_st, 0, sizeof(cache_st));
	return 0;
}

static void
free_entry(struct cache_entry *e, void *arg)
{
	struct cache_waiter *w, *nx;

	for (w = e->waiters; w != NULL; w = nx) {
		nx = w->next;
		pool_put(&cw_pool, w);
	}
	entry_free(e);
}

void
cache_finalise(void)
{
	struct cache_entry *e, *nx;

	for (size_t i = 0; i < ct_nb; i++)
		for (e = ct_b[i]; e != NULL; e = nx) {
			nx = e->hnext;
			free_entry(e, NULL);
		}
	free(ct_b);
	ct_b = NULL;
	ct_nb = ct_n = 0;
	pool_free(&ct_pool);
	pool_free(&cw_pool);
}

void
cache_set_ttl(enum attr_ttl c, int seconds)
{
	if (c < ATTR_TTL_MAX) {
		cache_ttl_s[c] = seconds;
		cache_ttl_given[c] = 1;
	}
}

int
cache_get_ttl(enum attr_ttl c)
{
	if (c >= ATTR_TTL_MAX)
		return 0;
	return cache_ttl_given[c] ? cache_ttl_s[c] : attr_ttls[c].seconds;
}

static struct cache_entry *
entry_get(const struct cache_key *key, int create)
{
	struct cache_entry *e = ct_get(key);

	if (e != NULL || !create)
		return e;
	if ((e = pool_get(&ct_pool)) == NULL) {
		log_warn("cache: entry");
		return NULL;
	}
	e->key = *key;
	e->state = CACHE_EMPTY;
	if (ct_put(e) == -1) {
		log_warn("cache: insert");
		pool_put(&ct_pool, e);
		return NULL;
	}
	cache_st.entries++;
	return e;
}

static int
entry_fresh(const struct cache_entry *e, uint64_t now)
{
	return (e->state == CACHE_VALID || e->state == CACHE_FAILED) &&
	    now < e->expires;
}

/* The fabric cannot be asked (the local port is down): the last good
 * answer, for the error TTL, then it is asked again. */
static void
serve_stale(struct cache_entry *e)
{
	cache_st.stale++;
	e->state = CACHE_VALID;
	e->error = 0;
	e->expires = ev_now() + (uint64_t)cache_get_ttl(ATTR_TTL_ERROR) * 1000;
}

/* Start a fetch unless one is under way. */
static int
entry_start(struct cache_entry *e, enum attr_ttl cls)
{
	int rc;

	if (e->state == CACHE_PENDING)
		return 0;
	e->state = CACHE_PENDING;
	e->cls = cls;
	cache_st.fetches++;
	if ((rc = cache_fetch(&e->key, cache_fetch_arg)) < 0) {
		e->state = CACHE_EMPTY;
		if (rc == -ENETDOWN && e->good) {
			serve_stale(e);
			return 0;
		}
		return -1;
	}
	return 0;
}

int
cache_lookup(const struct cache_key *key, enum attr_ttl cls,
    const uint8_t **data, size_t *len, cache_waiter_cb cb, void *arg)
{
	struct cache_entry *e = entry_get(key, 1);
	struct cache_waiter *w;
	uint64_t now = ev_now();

	if (e == NULL)
		return -ENOMEM;
	if (entry_fresh(e, now)) {
		if (e->state == CACHE_FAILED)
			return e->error;
		cache_st.hits++;
		*data = e->data;
		*len = e->len;
		return 0;
	}
	if ((w = pool_get(&cw_pool)) == NULL)
		return -ENOMEM;
	if (e->state == CACHE_PENDING)
		cache_st.coalesced++;
	else
		cache_st.misses++;
	if (entry_start(e, cls) == -1) {
		pool_put(&cw_pool, w);
		return -EAGAIN;
	}
	if (e->state != CACHE_PENDING) {
		/* Completed inside the fetch (a send that failed at once):
		 * a waiter added now would never be called. */
		pool_put(&cw_pool, w);
		if (e->state == CACHE_FAILED)
			return e->error ? e->error : -EIO;
		*data = e->data;
		*len = e->len;
		return 0;
	}
	w->cb = cb;
	w->arg = arg;
	w->next = e->waiters;
	e->waiters = w;
	return 1;
}

int
cache_cancel(const struct cache_key *key, cache_waiter_cb cb, void *arg)
{
	struct cache_entry *e = entry_get(key, 0);
	struct cache_waiter **wp, *w;

	if (e == NULL)
		return 0;
	for (wp = &e->waiters; (w = *wp) != NULL; wp = &w->next)
		if (w->cb == cb && w->arg == arg) {
			*wp = w->next;
			pool_put(&cw_pool, w);
			return 1;
		}
	return 0;
}

int
cache_read(const struct cache_key *key, uint64_t since, const uint8_t **data,
    size_t *len)
{
	struct cache_entry *e = entry_get(key, 0);

	if (e == NULL || e->state == CACHE_EMPTY || e->state == CACHE_PENDING)
		return 1;
	if (!entry_fresh(e, ev_now()) && !(since && e->completed >= since))
		return 1;
	if (e->state == CACHE_FAILED)
		return e->error;
	cache_st.hits++;
	*data = e->data;
	*len = e->len;
	return 0;
}

int
cache_peek(const struct cache_key *key, const uint8_t **data, size_t *len)
{
	struct cache_entry *e = entry_get(key, 0);

	if (e == NULL || e->state != CACHE_VALID || !entry_fresh(e, ev_now()))
		return -1;
	*data = e->data;
	*len = e->len;
	return 0;
}

void
cache_prefetch(const struct cache_key *key, enum attr_ttl cls)
{
	struct cache_entry *e = entry_get(key, 1);

	if (e != NULL && !entry_fresh(e, ev_now()))
		(void)entry_start(e, cls);
}

/* The waiters, oldest first (they are kept newest first). */
static struct cache_waiter *
waiters_fifo(struct cache_waiter *w)
{
	struct cache_waiter *r = NULL, *nx;

	for (; w != NULL; w = nx) {
		nx = w->next;
		w->next = r;
		r = w;
	}
	return r;
}

static void
entry_complete(struct cache_entry *e, int status, const uint8_t *data,
    size_t len)
{
	struct cache_waiter *w, *nx;

	if (e == NULL || e->state != CACHE_PENDING)
		return;		/* unknown, or no fetch under way */
	e->completed = ev_now();
	if (status == 0 && entry_store(e, data, len) == -1) {
		log_warn("cache: answer");
		status = -ENOMEM;
	}
	if (status == 0) {
		e->state = CACHE_VALID;
		e->error = 0;
		e->good = 1;
		int ttl = cache_ttl_hook ? cache_ttl_hook(&e->key, e->cls) : -1;
		e->expires = ev_now() + (uint64_t)(ttl >= 0 ? ttl :
		    cache_get_ttl(e->cls)) * 1000;
	} else if (status == -ENETDOWN && e->good) {
		serve_stale(e);
	} else {
		cache_st.failures++;
		e->state = CACHE_FAILED;
		e->error = status;
		e->expires = ev_now() + (uint64_t)cache_get_ttl(ATTR_TTL_ERROR) * 1000;
	}
	/* Detach the list first: a waiter may look the key up again. */
	w = waiters_fifo(e->waiters);
	e->waiters = NULL;
	for (; w != NULL; w = nx) {
		nx = w->next;
		w->cb(w->arg, status, status == 0 ? e->data : NULL,
		    status == 0 ? e->len : 0);
		pool_put(&cw_pool, w);
	}
}

void
cache_complete(const struct cache_key *key, int status, const uint8_t *data,
    size_t len)
{
	entry_complete(entry_get(key, 0), status, data, len);
}

/* The key the fetch function was handed is its entry's own, and a
 * pending entry is never freed nor moved (drop_where keeps it): no
 * second lookup, which a counter poll paid on every MAD, cold. Should
 * the entry not be that key's pending one (a second completion), the
 * lookup decides, as in cache_complete. */
void
cache_complete_fetched(const struct cache_key *fkey,
    const struct cache_key *key, int status, const uint8_t *data, size_t len)
{
	struct cache_entry *e = (struct cache_entry *)((uintptr_t)fkey -
	    offsetof(struct cache_entry, key));

	if (e->state != CACHE_PENDING || memcmp(&e->key, key, sizeof(*key)))
		e = entry_get(key, 0);
	entry_complete(e, status, data, len);
}

/* FNV-1a, never 0 (0 means "nothing rejected"). */
static uint64_t
data_hash(const uint8_t *d, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ d[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

void
cache_reject(const struct cache_key *key, int status)
{
	struct cache_entry *e = entry_get(key, 0);
	uint64_t h;

	if (e == NULL || e->state != CACHE_VALID)
		return;
	/* Read again and the same: that is what the node says, not a
	 * garbled answer. It stays for its TTL; only the objects that
	 * cannot show it answer genErr. */
	if ((h = data_hash(e->data, e->len)) == e->rejected)
		return;
	e->rejected = h;
	e->good = 0;
	cache_st.failures++;
	e->state = CACHE_FAILED;
	e->error = status;
	e->expires = ev_now() + (uint64_t)cache_get_ttl(ATTR_TTL_ERROR) * 1000;
}

/* Drops node's entries (UINT32_MAX: every node's), only the failed
 * ones if failed_only, unlinking them as the walk passes: the table is
 * the cache's own. Pending entries stay: their waiters must still be
 * answered. */
static long
drop_where(uint32_t node, int failed_only)
{
	struct cache_entry **pp, *e;
	long n = 0;

	for (size_t i = 0; i < ct_nb; i++)
		for (pp = &ct_b[i]; (e = *pp) != NULL; ) {
			if ((node != UINT32_MAX && e->key.node != node) ||
			    e->state == CACHE_PENDING ||
			    (failed_only && e->state != CACHE_FAILED)) {
				pp = &e->hnext;
				continue;
			}
			*pp = e->hnext;
			ct_n--;
			entry_free(e);
			cache_st.entries--;
			n++;
		}
	return n;
}

/* Returns how many entries were dropped. */
long
cache_flush(uint32_t node)
{
	return drop_where(node, 0);
}

long
cache_drop_failures(uint32_t node)
{
	return drop_where(node, 1);
}

/* For ctl node: a walk of the whole table, not for a hot path. */
size_t
cache_node_entries(uint32_t node)
{
	size_t n = 0;

	for (size_t i = 0; i < ct_nb; i++)
		for (struct cache_entry *e = ct_b[i]; e != NULL; e = e->hnext)
			n += e->key.node == node;
	return n;
}

void
cache_get_stats(struct cache_stats *st)
{
	*st = cache_st;
}
