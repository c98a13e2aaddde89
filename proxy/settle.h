/* proxy_settle: whether a flapping link that went quiet is settled. */
#ifndef PROXY_SETTLE_H
#define PROXY_SETTLE_H

#include <stdint.h>

#include "store/store.h"

struct proxy_settle_stats {
	uint64_t	 watched;	/* ports handed over by the events */
	uint64_t	 rereads;	/* sweeps asked for to read one again */
	uint64_t	 given_up;	/* still changing after SETTLE_TRIES */
	unsigned	 now;		/* ports being watched */
};

/* Registers with store/events.c; ask_sweep is proxy_discover_event. */
void	proxy_settle_init(void (*ask_sweep)(const char *why));
void	proxy_settle_finalise(void);
/* A sweep read port p of node guid. */
void	proxy_settle_read(uint64_t guid, const struct store_port *p);
/* A sweep is done (its readings are in the inventory). */
void	proxy_settle_sweep_done(void);
void	proxy_settle_get_stats(struct proxy_settle_stats *st);

#endif
