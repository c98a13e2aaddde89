/* proxy_linkcheck: links that run below what they should
 * (docs/health.md, "Degraded links").
 *
 * The gateway notices a link whose width or speed changes; a link that
 * trained at 1x from the start never changes. After every change of the
 * inventory (a sweep, a Report followed), this compares each active
 * link's width and speed with what it should run at, from the PortInfo
 * of both ends the inventory already holds: no MADs.
 *
 * What a link should run at, per dimension:
 * - an operator's expectation (health: expect:), the first rule whose
 *   node selector matches either end, as ibdiagnet's --lw/--ls;
 * - else the best width and speed that both ends support and enable
 *   (IBA 14.2.5.6 LinkWidthSupported/Enabled, LinkSpeedSupported/
 *   Enabled, LinkSpeedExtSupported/Enabled, LinkSpeedExtSupported2).
 * "Supported" alone is not the rule: ibsim's ports claim 1x to 12x and
 *   10 Gb/s and enable what the link trains at; real hardware enables
 *   what it can do, and a port an admin narrowed (ibportstate) is not
 *   a fault unless an expectation says so.
 *
 * Every link that falls below gets a row and a STORE_EV_LINK_DEGRADED
 * event; a row that goes (the link recovers, goes down or is gone)
 * posts STORE_EV_LINK_RESTORED. The first run after a start takes the
 * rows the event history left open, with their times, so a restart
 * neither notifies again nor forgets a recovery. */
#ifndef IBSNMPGW_PROXY_LINKCHECK_H
#define IBSNMPGW_PROXY_LINKCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "codec/smp.h"
#include "store/select.h"

/* health: expect: one rule (0: the dimension is left to the default
 * rule). */
struct proxy_link_expect {
	struct store_select	 nodes;
	uint8_t			 lanes;		/* 1, 2, 4, 8, 12 */
	uint8_t			 speed;		/* enum smp_speed */
	int			 line;
};

enum proxy_link_rule {
	LINK_RULE_CAPABILITY = 1,	/* both ends' supported & enabled */
	LINK_RULE_EXPECTED = 2,		/* health: expect: */
};

/* One degraded link; end a is the end with the lower (node index,
 * port). */
struct proxy_link_row {
	uint32_t	node;			/* store index of end a */
	uint8_t		port;
	uint64_t	guid;
	uint64_t	peer_guid;
	uint8_t		peer_port;
	uint8_t		exp_lanes, exp_speed;	/* expected */
	uint8_t		act_lanes, act_speed;	/* active */
	uint8_t		rule_width, rule_speed;	/* enum proxy_link_rule */
	int64_t		since;			/* wall clock, ms */
};

int	proxy_linkcheck_init(const struct proxy_link_expect *rules, int n);
void	proxy_linkcheck_finalise(void);
/* The rules in force (the running configuration owns them): the rows
 * are judged again by them, or at the first run. */
void	proxy_linkcheck_configure(const struct proxy_link_expect *rules,
	    int n);
/* The inventory changed: compare every link again. */
void	proxy_linkcheck_run(void);

/* The rows, by (node, port): i from 0 to count - 1. */
size_t	proxy_linkcheck_count(void);
const struct proxy_link_row *proxy_linkcheck_at(size_t i);
/* The first row at or after (node, port); NULL if none. */
const struct proxy_link_row *proxy_linkcheck_from(uint32_t node,
	    uint8_t port);
const char *proxy_linkcheck_rule_name(int rule);

/* Pure, for tests. The default rule: the best lanes and speed both
 * ends support and enable; 0 / SMP_SPEED_UNKNOWN when they share
 * none. */
void	proxy_linkcheck_capability(const struct smp_portinfo *a,
	    const struct smp_portinfo *b, uint8_t *lanes, uint8_t *speed);
/* The link of port a (whose peer is b) against the expectation
 * (want_*: 0 leaves the dimension to the default rule): fills r's
 * active, expected and rule fields; 1 if it falls short. A port that
 * is down is never short. */
int	proxy_linkcheck_judge(const struct smp_portinfo *a,
	    const struct smp_portinfo *b, uint8_t want_lanes,
	    uint8_t want_speed, struct proxy_link_row *r);

#endif
