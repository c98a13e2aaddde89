/* cache: attribute cache with per-class TTLs and request coalescing.
 *
 * An entry holds the raw attribute payload of one MAD (SMP data or
 * PerfMgt data) for one (node, class, attribute, modifier). Readers that
 * miss register a waiter; the first miss starts one fetch through the
 * fetch function, and every waiter is called when it completes, so
 * concurrent requests for one attribute share one MAD. */
#ifndef IBSNMPGW_CACHE_H
#define IBSNMPGW_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "codec/attr.h"

#define CACHE_DATA_MAX	224


struct cache_key {
	uint32_t	node;		/* inventory node index */
	uint16_t	attr;		/* attribute ID */
	uint8_t		mclass;		/* management class */
	uint8_t		port;		/* CA/router port to route through, 0:
					   the node's route */
	uint32_t	mod;		/* attribute modifier on the wire */
};

enum cache_state {
	CACHE_EMPTY, CACHE_PENDING, CACHE_VALID, CACHE_FAILED
};

struct cache_entry;

/* Completion of a fetch: status 0 and data, or a negative errno. */
typedef void (*cache_waiter_cb)(void *arg, int status,
    const uint8_t *data, size_t len);

/* Starts a fetch for key; must call cache_complete() exactly once,
 * possibly synchronously. Returns a negative value if it could not
 * start: -ENETDOWN when the fabric cannot be reached at all, which
 * serves an entry's last good answer (as does a completion with
 * -ENETDOWN) for the error TTL instead of failing it. */
typedef int (*cache_fetch_fn)(const struct cache_key *key, void *arg);

struct cache_stats {
	uint64_t hits, misses, coalesced, fetches, failures, entries;
	uint64_t stale;		/* last good answers served (-ENETDOWN) */
};

int	 cache_init(cache_fetch_fn fetch, void *fetch_arg);
void	 cache_finalise(void);
void	 cache_set_ttl(enum attr_ttl c, int seconds);
/* Optional per-key TTL (seconds, or -1 for the class's): polling
 * policies give their nodes their own TTLs. */
void	 cache_set_ttl_hook(int (*fn)(const struct cache_key *,
	    enum attr_ttl));
int	 cache_get_ttl(enum attr_ttl c);

/* Lookup. Returns 0 and points *data at a fresh payload on a hit;
 * 1 if the caller's waiter was queued (cb runs later, never inline);
 * or a negative errno if the last fetch failed recently (negative
 * caching) or no fetch could be started. */
int	 cache_lookup(const struct cache_key *key, enum attr_ttl cls,
	    const uint8_t **data, size_t *len, cache_waiter_cb cb, void *arg);
/* Read without starting a fetch: 0 with data if fresh, or completed at
 * or after 'since' (ms) even if stale since; a negative errno if the last
 * fetch failed and that is still fresh (or happened since 'since'); 1 if
 * a fetch is needed. 'since' lets a request that waited for a fetch use
 * its result even when the TTL is shorter than the wait. */
int	 cache_read(const struct cache_key *key, uint64_t since,
	    const uint8_t **data, size_t *len);
/* Peek without starting a fetch: 0 with data if fresh, else -1. */
int	 cache_peek(const struct cache_key *key, const uint8_t **data,
	    size_t *len);
/* Start a fetch in the background if the entry is missing or stale. */
void	 cache_prefetch(const struct cache_key *key, enum attr_ttl cls);
/* Take back a waiter that cache_lookup() queued (the caller gave up):
 * 1 if it was queued, 0 if not; the fetch goes on for the others. */
int	 cache_cancel(const struct cache_key *key, cache_waiter_cb cb,
	    void *arg);
/* Called by the fetch function's completion. */
void	 cache_complete(const struct cache_key *key, int status,
	    const uint8_t *data, size_t len);
/* The same, given the very pointer the fetch function was handed (it
 * stays valid until this call, made once) and a copy of the key: no
 * lookup. */
void	 cache_complete_fetched(const struct cache_key *fkey,
	    const struct cache_key *key, int status, const uint8_t *data,
	    size_t len);
/* Forget everything about one node (UINT32_MAX: all nodes). */
/* A valid entry whose contents the caller found unusable (a value
 * outside the MIB's range): failed with status for the error TTL, so it
 * is read again after that instead of answering genErr for its TTL.
 * If the new read brings the same contents, a second reject leaves them
 * (the node means it; other objects built on the entry still work). */
void	 cache_reject(const struct cache_key *key, int status);
/* A node's entries (UINT32_MAX: all) go, pending ones stay: how many. */
long	 cache_flush(uint32_t node);
size_t	 cache_node_entries(uint32_t node);
/* A node's remembered failures go (a sweep found it a new route, so
 * what failed on the old one may work now): how many. */
long	 cache_drop_failures(uint32_t node);
void	 cache_get_stats(struct cache_stats *st);

#endif
