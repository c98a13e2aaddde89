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
	unsigned	 event_sweeps;	/* started by an SM event or a loss */
	unsigned	 light_sweeps;	/* of those, no NodeDescription read */
	unsigned	 descs;		/* NodeDescriptions the last one read */
	unsigned	 checks;	/* light checks instead of a sweep */
	uint64_t	 next_ms;	/* ev_now() of the next sweep or check */
	int		 safety;	/* SM events flow: safety period */
	unsigned	 nodes, links, lost, errors;
	uint64_t	 smps;
	uint64_t	 duration_ms;
	int64_t		 finished;	/* unix seconds, 0: none yet */
	unsigned	 abandoned;	/* the local port went down */
};

/* How sweeps are driven (docs/design.md, "Sweeps"):
 *   interval: seconds between sweeps while no SM subscription is up;
 *     while one is, a light check (the on_check hook: SA records, the
 *     subscription, the master SM) runs at this period instead;
 *   safety: seconds between full sweeps while SM events flow (at least
 *     interval);
 *   event_ms: delay of the sweep an SM event asks for, so that a burst
 *     of Reports costs one sweep;
 *   event_gap: seconds at least between the end of a sweep and an
 *     event-driven one (a flapping link costs one sweep per gap).
 * The first sweep starts at once. */
struct proxy_sweep_conf {
	int	 interval, safety, event_ms, event_gap;
};
int	proxy_discover_init(const struct proxy_sweep_conf *c);
void	proxy_discover_finalise(void);
void	proxy_discover_configure(const struct proxy_sweep_conf *c);
/* The SM subscription went up (1) or down (0) (proxy/inform.c). */
void	proxy_discover_sm_events(int up);
/* Something may have changed that only a sweep sees (an SM Report, a
 * lost subscription, another master): a sweep within event_ms. */
void	proxy_discover_event(const char *why);
/* Trap 144 with NodeDescription changed, or anything after which one
 * may have been missed: the next sweep reads every NodeDescription
 * (event sweeps read none otherwise). */
void	proxy_discover_desc_changed(void);
/* Seconds a node may go unseen before it is stale: twice the period
 * full sweeps run at now. */
int	proxy_discover_period(void);
/* Called at each light check (instead of a sweep). */
void	proxy_discover_on_check(void (*fn)(void *), void *arg);
/* Start a sweep now unless one is running. Returns 0 if started. */
int	proxy_discover_start(void);
int	proxy_discover_running(void);
void	proxy_discover_get_stats(struct proxy_sweep_stats *st);
/* Called after every completed sweep. */
void	proxy_discover_on_done(void (*fn)(void *), void *arg);

#endif
