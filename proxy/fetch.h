/* proxy_fetch: the cache's fetch function. Turns a cache key into one
 * MAD to the node, routed as the inventory says, and completes the
 * cache entry with the answer's attribute data. */
#ifndef IBSNMPGW_PROXY_FETCH_H
#define IBSNMPGW_PROXY_FETCH_H

#include "store/cache.h"

int	proxy_fetch(const struct cache_key *key, void *arg);

#endif
