/* proxy_health: per-node error state, so a node that stops answering
 * (or refuses our M_Key) costs a bounded number of MADs, not retries on
 * every SNMP request and every poll.
 *
 * A request to a node already ends after its retries (proxy_mad). When
 * HEALTH_FAILS requests in a row end without an answer, the node is put
 * on hold: fetches for it fail at once, without MADs, for a hold-down
 * that doubles from mad.hold-down up to HEALTH_MAX_HOLD while it stays
 * silent. After the hold-down one request goes through as a probe. Its
 * answer (also a MAD status error), or a sweep that reaches the node,
 * ends the hold.
 *
 * Ways: a request goes by directed route or by LID, in by one of the
 * node's ports, and a link-down on one way (a port's LID route crossing
 * it, until the SM moves the route) leaves the others working. The hold
 * covers the ways the silent requests went; HEALTH_FAILS silent requests
 * in a row by one way hold that way alone, and the ways that answered
 * since the last hold go on. Other ways send one request each as a
 * scout: answered, that way goes on; silent, it is held too. A way that
 * goes on and then has HEALTH_FAILS silent requests in a row is held
 * too (the node died after the hold began). So a dead node still costs
 * HEALTH_FAILS requests a way, and a broken way does not stop the
 * node's other reads.
 *
 * M_Key (IBA 14.2.4.1, PortInfo:MKeyProtectBits): with protection bits
 * 1 or 2 an SMA answers SubnGet(PortInfo) from a requester whose M_Key
 * does not match with the M_Key field zeroed; with 3 it drops that
 * requester's SMPs. So a PortInfo answer whose protection bits are not
 * 0 and whose M_Key differs from ours proves that our key is not the
 * node's: it is logged once, and if the node later goes silent it is
 * held as "bad M_Key" (the operator must fix ib.mkey-file), not as
 * unreachable. A new M_Key (reload) clears every verdict and hold. */
#ifndef IBSNMPGW_PROXY_HEALTH_H
#define IBSNMPGW_PROXY_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "codec/smp.h"

#define HEALTH_FAILS		3	/* silent requests in a row */
#define HEALTH_MAX_HOLD_MS	60000	/* or mad.hold-down if longer */

enum proxy_health_state {
	HEALTH_OK,
	HEALTH_SILENT,		/* on hold: no answers */
	HEALTH_BAD_MKEY,	/* on hold: drops SMPs with our M_Key */
};

/* A way: bits 0-1 the port it enters by (0: a switch, or the node's
 * route; ports past 3 share 3), HEALTH_WAY_LID for LID-routed. */
#define HEALTH_WAY_LID		4
#define HEALTH_WAY(lid_routed, port) \
	(((lid_routed) ? HEALTH_WAY_LID : 0) | ((port) < 3 ? (port) : 3))
#define HEALTH_WAY_BIT(w)	(1U << (w))
#define HEALTH_ALL_WAYS		0xff	/* an outcome that tells of all */

struct proxy_health_info {
	enum proxy_health_state	 state;
	unsigned		 fails;		/* silent requests in a row */
	unsigned		 held;		/* ways held, HEALTH_WAY_BIT */
	unsigned		 good;		/* ways that answered since */
	uint64_t		 hold_ms;	/* current hold-down */
	uint64_t		 until;		/* ev_now() when a probe may go */
	int			 mkey_prot;	/* highest MKeyProtectBits, -1 */
	int			 mkey_mismatch;	/* our M_Key proven wrong now */
};

int	proxy_health_init(int hold_s);
void	proxy_health_finalise(void);
void	proxy_health_set_hold(int hold_s);	/* 0: never hold */
/* May a fetch for node by way send a MAD now? 0: fail it at once; 1:
 * yes; HEALTH_PROBE or HEALTH_SCOUT: yes, and its outcome must be
 * reported with that token. Only a request every node answers
 * (can_probe) may probe or scout. */
#define HEALTH_PROBE	2
#define HEALTH_SCOUT	3
int	proxy_health_allow(uint32_t node, unsigned way, int can_probe);
/* An allowed fetch ended without telling anything about the node (not
 * sent, shut down, an optional attribute it may drop). */
void	proxy_health_unsent(uint32_t node, unsigned way, int token);
/* The outcome of one request: answered (status 0 or a MAD status), or
 * silent after all retries. While a node is held only the silence of
 * its probe, its scouts and the ways that go on counts: other requests
 * were sent before the hold, stale news.
 * way HEALTH_ALL_WAYS: the node answered (a sweep reached it). */
void	proxy_health_answer(uint32_t node, unsigned way);
void	proxy_health_silent(uint32_t node, unsigned way, int token);
/* "LID to port 1 and directed route": the ways of a HEALTH_WAY_BIT mask,
 * as logs and ctl name them. */
const char *proxy_health_ways_name(unsigned mask, char *buf, size_t len);
/* A PortInfo answer: the M_Key verdict. */
void	proxy_health_portinfo(uint32_t node, uint8_t port,
	    const struct smp_portinfo *pi);
/* The M_Key changed: forget verdicts and holds. */
void	proxy_health_reset(void);
void	proxy_health_get(uint32_t node, struct proxy_health_info *hi);
const char *proxy_health_name(enum proxy_health_state s);

#endif
