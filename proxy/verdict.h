/* proxy_verdict: a standing verdict per port (docs/health.md, "A
 * standing verdict per port"): healthy, degraded or unhealthy, with the
 * reason the worst rule gives.
 *
 * The rules are fed, never polled: link-downs and damping from the
 * event stream (store_event_observe), counter rates from the poller's
 * rounds (no MAD of its own), a degraded link from the module that
 * compares links with what they should run at, a node that no longer
 * answers from the stream's node-unreachable and the health module's
 * hold-downs. A rule that fired stands
 * until its window has passed quietly after the last time it fired (or
 * after its condition ended): one timer per port that is not healthy.
 * Only ports with something to remember have a state; a polled port
 * costs 8 bytes for its rates. Each change of a port's verdict is an
 * event (STORE_EV_PORT_HEALTH). Port 0 is the node itself: a node that
 * does not answer makes every port of it unhealthy. */
#ifndef IBSNMPGW_PROXY_VERDICT_H
#define IBSNMPGW_PROXY_VERDICT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store/events.h"

/* ibsnmpgwPortHealth's values. */
enum proxy_verdict {
	VERDICT_HEALTHY = 1,
	VERDICT_DEGRADED,
	VERDICT_UNHEALTHY,
};

/* The rules, in the order that breaks a tie between two rules giving
 * the same verdict (the first names the reason). */
enum proxy_verdict_rule {
	VR_LINK_DOWNS,		/* count in window */
	VR_FLAPPING,		/* the stream damps the port */
	VR_UNRESPONSIVE,	/* node-unreachable (port 0) */
	VR_SYMBOL_ERRORS,	/* SymbolErrorCounter per minute */
	VR_LINK_RECOVERS,	/* LinkErrorRecoveryCounter per minute */
	VR_LINK_DEGRADED,	/* proxy_verdict_link_degraded() */
	VR_MAX
};

#define VERDICT_DOWNS_MAX	8	/* link-downs remembered per port */

struct proxy_verdict_rule_conf {
	uint8_t		verdict;	/* 0: off, DEGRADED, UNHEALTHY */
	unsigned	count;		/* VR_LINK_DOWNS: 1..VERDICT_DOWNS_MAX */
	double		per_minute;	/* the rates: above it fires */
	unsigned	window_s;	/* quiet time that clears it */
};

struct proxy_verdict_conf {
	struct proxy_verdict_rule_conf r[VR_MAX];
};

/* What a port's verdict is now, and why. */
struct proxy_verdict_info {
	uint64_t	guid;
	uint8_t		port;
	uint8_t		verdict;	/* enum proxy_verdict */
	int8_t		rule;		/* the worst rule, -1 if healthy */
	int64_t		since;		/* wall ms of the last change, 0 */
	int64_t		clears;		/* wall ms it clears if quiet; 0
					 * while a condition holds */
	char		reason[64];	/* "" if healthy */
};

void	proxy_verdict_defaults(struct proxy_verdict_conf *c);
/* After store_event_init (the history is read back: link-downs within
 * their window and the last verdicts posted) and store_init. */
int	proxy_verdict_init(const struct proxy_verdict_conf *c);
/* A reload: the rules as configured now, every state re-evaluated. */
void	proxy_verdict_config(const struct proxy_verdict_conf *c);
void	proxy_verdict_finalise(void);

/* Feeds. The stream's (store_event_observe's) signature. */
void	proxy_verdict_event(const struct store_event *ev, int damped,
	    void *arg);
/* The poller ended a round of node (an inventory index): the rates of
 * its ports since the last round, from the accumulators. */
void	proxy_verdict_polled(uint32_t node);
/* The link of (guid, port) runs below what it should (1), or no
 * longer (0): the degraded-link check's entry point. */
void	proxy_verdict_link_degraded(uint64_t guid, uint8_t port,
	    int degraded);

/* proxy/health.c's node (an inventory index) stayed silent (or
 * refusing our M_Key) through a hold-down and its probe (1), or it
 * answers again (0): a node that does not answer, as a sweep's
 * node-unreachable. */
void	proxy_verdict_silent(uint32_t node, int silent);

/* The verdict of a port (1..254; the node's own rules included) or of
 * the node (port 0): 0, or -1 and healthy in vi when there is nothing
 * to say. */
int	proxy_verdict_get(uint64_t guid, uint8_t port,
	    struct proxy_verdict_info *vi);
/* The ports that are not healthy, in (inventory index, port) order:
 * the first after (node, port) (at it if incl). 1 and *vi, *out_node,
 * or 0 at the end. Nodes the inventory does not have are left out. */
int	proxy_verdict_next(uint32_t node, unsigned port, int incl,
	    uint32_t *out_node, struct proxy_verdict_info *vi);
/* Ports not healthy now; states kept (memory). */
size_t	proxy_verdict_count(void);
size_t	proxy_verdict_states(void);
/* `ctl ports --unhealthy`: one line per port that is not healthy. */
void	proxy_verdict_print(FILE *f);

const char *proxy_verdict_name(int verdict);
const char *proxy_verdict_rule_name(int rule);

#endif
