/* proxy_settle: is a flapping link that went quiet really settled?
 *
 * store/events.c damps a flapping port and, once no event has come for
 * hold-down, asks where the link ended. But a quiet event stream is not
 * a quiet link: opensm forwards a repeated trap 128 once and drops the
 * rest, so the Reports of a flood stop before the flaps do, and the
 * sweep that hold-down's expiry asks for can read the link in the middle
 * of them, with no Report left to correct it. So a port is watched until
 * two sweeps, hold-down apart, read it alike (the same side of Down, the
 * same physical state); each sweep that reads it otherwise asks for one
 * more. The readings are kept here, not compared with the inventory:
 * proxy/reread.c writes Reports into it between sweeps. Bounded: after
 * SETTLE_TRIES the light checks and the safety sweep take over. */
#include "config.h"

#include <string.h>

#include "proxy/settle.h"
#include "store/events.h"
#include "util/ev.h"
#include "util/log.h"

#define SETTLE_MAX	32	/* ports watched at once */
#define SETTLE_TRIES	8	/* sweeps that read one port */

struct settle {
	uint64_t	 guid;
	uint8_t		 port;
	uint8_t		 tries;
	uint8_t		 read;		/* by this sweep */
	uint8_t		 changed;	/*   and not as the one before */
	uint8_t		 have;		/* a sweep's reading: */
	uint8_t		 down, phys;	/*   this */
};

static struct settle		 st_ports[SETTLE_MAX];
static size_t			 st_n;
static struct ev_timer		 st_timer;
static void			(*st_ask)(const char *);
static struct proxy_settle_stats st_stats;

static struct settle *
find(uint64_t guid, uint8_t port)
{
	for (size_t i = 0; i < st_n; i++)
		if (st_ports[i].guid == guid && st_ports[i].port == port)
			return &st_ports[i];
	return NULL;
}

static void
settled_cb(uint64_t guid, uint8_t port, void *arg)
{
	struct settle *s = find(guid, port);

	(void)arg;
	if (s == NULL && st_n < SETTLE_MAX)
		s = &st_ports[st_n++];
	if (s != NULL) {
		memset(s, 0, sizeof(*s));
		s->guid = guid;
		s->port = port;
		st_stats.watched++;
	}
	/* Full: the sweep still runs; its reading goes unconfirmed. */
	if (st_ask)
		st_ask("a flapping link settled");
}

static void
timer_cb(void *arg)
{
	(void)arg;
	st_stats.rereads++;
	if (st_ask)
		st_ask("a settling link changed since the last sweep");
}

void
proxy_settle_read(uint64_t guid, const struct store_port *p)
{
	struct settle *s;

	if (st_n == 0 || (s = find(guid, p->num)) == NULL)
		return;
	s->read = 1;
	if (!p->valid || !s->have || (p->state == 1) != s->down ||
	    p->phys_state != s->phys)
		s->changed = 1;
	s->have = p->valid;
	s->down = p->state == 1;
	s->phys = p->phys_state;
}

void
proxy_settle_sweep_done(void)
{
	size_t j = 0;

	for (size_t i = 0; i < st_n; i++) {
		struct settle *s = &st_ports[i];

		if (s->read && !s->changed)
			continue;		/* settled */
		if (++s->tries >= SETTLE_TRIES) {
			st_stats.given_up++;
			log_notice("discover: node 0x%016llx port %u still "
			    "changes after %u sweeps; the light checks and "
			    "the safety sweep follow it now",
			    (unsigned long long)s->guid, s->port, s->tries);
			continue;
		}
		s->read = s->changed = 0;
		st_ports[j++] = *s;
	}
	st_n = j;
	if (st_n > 0 && !ev_timer_pending(&st_timer))
		ev_timer_add(&st_timer, store_event_hold_down_ms());
}

void
proxy_settle_get_stats(struct proxy_settle_stats *st)
{
	*st = st_stats;
	st->now = (unsigned)st_n;
}

void
proxy_settle_init(void (*ask_sweep)(const char *why))
{
	st_ask = ask_sweep;
	st_n = 0;
	ev_timer_init(&st_timer, timer_cb, NULL);
	store_event_on_settle(settled_cb, NULL);
}

void
proxy_settle_finalise(void)
{
	store_event_on_settle(NULL, NULL);
	ev_timer_del(&st_timer);
	st_n = 0;
	st_ask = NULL;
}
