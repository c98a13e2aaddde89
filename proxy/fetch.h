/* proxy_fetch: the cache's fetch function. Turns a cache key into one
 * MAD to the node, routed as the inventory says, and completes the
 * cache entry with the answer's attribute data. */
#ifndef IBSNMPGW_PROXY_FETCH_H
#define IBSNMPGW_PROXY_FETCH_H

#include "store/cache.h"

#include "proxy/mad.h"

int	proxy_fetch(const struct cache_key *key, void *arg);
/* A PerfMgt request to the PMA that counts for (node, port): LID-routed
 * to a switch's port 0 or to the CA port itself, PortSelect naming the
 * port and counter_select the counters (IBA 16.1.3.5; a bit per VL for
 * the per-VL attributes). Returns 0, or -1 if it cannot be sent (no
 * LID, node on hold). */
int	proxy_perf_send(const struct store_node *n, uint8_t port,
	    uint8_t method, uint16_t attr, uint16_t counter_select,
	    proxy_mad_cb cb, void *arg);

#endif
