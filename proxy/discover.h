/* proxy_discover: asynchronous directed-route fabric sweep.
 *
 * Breadth-first from the gateway's own port, like ibnetdiscover:
 * NodeInfo through every active link, then NodeDescription and PortInfo
 * of each new node. The MAD engine caps what is in flight. The result
 * goes to the store in one transaction when the sweep ends. */
#ifndef IBSNMPGW_PROXY_DISCOVER_H
#define IBSNMPGW_PROXY_DISCOVER_H

#include <stdint.h>

struct proxy_sweep_stats {
	unsigned	 sweeps;
	unsigned	 nodes, links, lost, errors;
	uint64_t	 smps;
	uint64_t	 duration_ms;
	int64_t		 finished;	/* unix seconds, 0: none yet */
	unsigned	 abandoned;	/* the local port went down */
};

/* interval: seconds between sweeps; the first starts at once. */
int	proxy_discover_init(int interval);
void	proxy_discover_finalise(void);
void	proxy_discover_set_interval(int interval);
/* Start a sweep now unless one is running. Returns 0 if started. */
int	proxy_discover_start(void);
int	proxy_discover_running(void);
void	proxy_discover_get_stats(struct proxy_sweep_stats *st);
/* Called after every completed sweep. */
void	proxy_discover_on_done(void (*fn)(void *), void *arg);

#endif
