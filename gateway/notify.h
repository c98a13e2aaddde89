/* gw_notify: the event stream as SNMP notifications (docs/events.md). */
#ifndef IBSNMPGW_NOTIFY_H
#define IBSNMPGW_NOTIFY_H

#include <stddef.h>
#include <stdint.h>

#include "gateway/conf.h"
#include "store/events.h"
#include "store/store.h"

struct gw_notify_stats {
	uint64_t	sent;		/* traps, and informs sent */
	uint64_t	acked;		/* informs acknowledged */
	uint64_t	failed;		/* not sent, or unanswered */
	uint64_t	retried;	/* informs tried again later */
	uint64_t	dropped;	/* informs the full queue dropped */
	uint64_t	filtered;	/* events not for this target */
	uint64_t	queued;		/* informs waiting now */
};

/* Listens to the event stream; targets from c (kept until the next
 * gw_notify_config, which a reload calls with the new configuration:
 * queues stay with their target's name). */
int	gw_notify_init(const struct gw_conf *c);
int	gw_notify_config(const struct gw_conf *c);
void	gw_notify_finalise(void);
/* Targets in configuration order: configuration and counters, NULL
 * past the last. */
size_t	gw_notify_count(void);
const struct gw_target *gw_notify_target(size_t i,
	    struct gw_notify_stats *st);
/* An HA standby sends nothing (docs/ha.md). Resumed (a promotion),
 * every target's inform queue is read again from the database (the old
 * active's, replicated) and sent: what was not acknowledged goes again. */
void	gw_notify_pause(int paused);
/* ifLinkUpDownTrapEnable of a port (notify.link-updown-disabled). */
int	gw_notify_updown_enabled(const struct store_node *n, int port);

#endif
