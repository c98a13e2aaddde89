/* proxy_watch: a port read in a transient state is read again until a
 * reading is terminal and stable.
 *
 * Nothing tells the gateway when the SM activates a port: ibsim and real
 * switches send trap 128 when a link goes down or trains (Init), and the
 * SM's Init -> Armed -> Active (IBA 7.2.2, 14.4.8) raises no trap. And
 * opensm forwards a repeated trap 128 once and drops the rest, so a
 * flapping link's Reports stop before its flaps do. A sweep or a Report
 * that met such a port therefore says nothing final, and what the
 * gateway shows would stay wrong until the next full sweep.
 *
 * So every reading of a port (a sweep's, a Report's read, the watch's
 * own) comes here, and a port whose reading is Init or Armed, or went
 * Down, is read again by its route (proxy/reread.c does the read and
 * writes what changed into the inventory and the event stream) until:
 *  - it is Active, or
 *  - it has been Down for hold-down (events.hold-down);
 *  a port that was flapping must hold either for hold-down, or for the
 *  flap window if longer (hold_ms() says why).
 * Reads start PROXY_WATCH_MIN_MS apart and double while the readings
 * stay alike, up to PROXY_WATCH_MAX_MS while the SM's Reports flow (the
 * 10 s convergence bound: docs/events.md) or discovery.interval when
 * they do not (periodic sweeps then carry the bound). It never gives up
 * on a port that is still transient. A port that is not watched costs
 * nothing. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "proxy/watch.h"
#include "store/events.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

struct watch_key {
	uint64_t	 guid;
	uint64_t	 port;
};

struct watch {
	struct watch_key key;
	uint8_t		 have;		/* a reading since it entered */
	uint8_t		 state, phys;	/*   the last one */
	uint8_t		 flapping;	/* from the damping: Active must hold */
	uint8_t		 backoff;	/* readings alike in a row */
	uint8_t		 asked;		/* our read is not answered yet */
	uint64_t	 entered;	/* ms */
	uint64_t	 since;		/* the last reading's state began */
	struct ev_timer	 timer;
};

static struct htab		 w_tab;
static int			 w_on;
static int			 w_reports;
static int			 w_interval_s = 60;
static int			(*w_read)(uint64_t, uint8_t);
static struct proxy_watch_stats	 w_st;

int
proxy_watch_transient(const struct store_port *p)
{
	return p->valid && (p->state == 2 || p->state == 3);
}

static uint64_t
cap_ms(void)
{
	uint64_t slow = (uint64_t)w_interval_s * 1000;

	if (w_reports || slow < PROXY_WATCH_MAX_MS)
		return PROXY_WATCH_MAX_MS;
	return slow;
}

static void
drop(struct watch *w)
{
	ev_timer_del(&w->timer);
	(void)htab_del(&w_tab, &w->key, sizeof(w->key));
	free(w);
}

/* How long a terminal reading must hold: hold-down; for a port that
 * was flapping, the flap window if longer. opensm ignores a switch's
 * trap 128 once it has had more than ten within its aging time (60 s,
 * restarted by each: "Ignoring noisy traps"): no Report, and no sweep
 * of its own, so a flapping link's last change may reach nobody. */
static uint64_t
hold_ms(const struct watch *w)
{
	uint64_t hold = store_event_hold_down_ms();
	uint64_t win = store_event_flap_window_ms();

	return w->flapping && win > hold ? win : hold;
}

/* Terminal and stable (docs/events.md, "Convergence"). */
static int
settled(const struct watch *w, uint64_t now)
{
	if (!w->have)
		return 0;
	if (w->state == 4)
		return !w->flapping || now - w->since >= hold_ms(w);
	if (w->state == 1)
		return now - w->since >= hold_ms(w);
	return 0;
}

/* The next read: MIN << backoff, at most the cap; a Down port's not
 * past the moment it has been Down for hold-down. bump: one step more
 * for the read after it (a reading alike, or a read unanswered). */
static void
arm(struct watch *w, uint64_t now, int bump)
{
	uint64_t d = (uint64_t)PROXY_WATCH_MIN_MS << (w->backoff < 16 ?
	    w->backoff : 16);
	uint64_t hold = hold_ms(w);

	if (d > cap_ms())
		d = cap_ms();
	if (w->have && (w->state == 1 || (w->state == 4 && w->flapping)) &&
	    w->since + hold > now && w->since + hold - now < d)
		d = w->since + hold - now;
	if (d < PROXY_WATCH_MIN_MS)
		d = PROXY_WATCH_MIN_MS;	/* one SMP per second at most */
	if (bump && w->backoff < 16)
		w->backoff++;
	ev_timer_add(&w->timer, d);
}

static void
timer_cb(void *arg)
{
	struct watch *w = arg;

	if (w_read == NULL || w_read(w->key.guid, (uint8_t)w->key.port) ==
	    -1) {
		/* No route to it now: the node is unreachable or the port
		 * gone. Whatever brings it back reads it again. */
		w_st.dropped++;
		log_debug("watch: node 0x%016llx port %u has no route; no "
		    "longer watched", (unsigned long long)w->key.guid,
		    (unsigned)w->key.port);
		drop(w);
		return;
	}
	w_st.reads++;
	/* Unanswered, the read is tried again after the next step (a
	 * reading re-arms it); unanswered twice, one step further. */
	arm(w, ev_now(), w->asked);
	w->asked = 1;
}

static struct watch *
enter(uint64_t guid, uint8_t port)
{
	struct watch_key k = { guid, port };
	struct watch *w = htab_get(&w_tab, &k, sizeof(k));

	if (w != NULL)
		return w;
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		log_warn("watch");
		return NULL;
	}
	w->key = k;
	w->entered = w->since = ev_now();
	ev_timer_init(&w->timer, timer_cb, w);
	if (htab_put(&w_tab, &w->key, sizeof(w->key), w) == -1) {
		log_warn("watch");
		free(w);
		return NULL;
	}
	w_st.watched++;
	return w;
}

void
proxy_watch_reading(uint64_t guid, const struct store_port *p, int changed)
{
	struct watch_key k = { guid, p->num };
	struct watch *w;
	uint64_t now = ev_now();

	int wanted;

	if (!w_on || !p->valid || p->state == 0)
		return;
	/* Active, or Down as before: nothing to wait for. A sweep asks
	 * for every port, and the table is empty most of the time. */
	wanted = proxy_watch_transient(p) || (changed && p->state == 1);
	if (!wanted && w_tab.n == 0)
		return;
	if ((w = htab_get(&w_tab, &k, sizeof(k))) == NULL) {
		if (!wanted || (w = enter(guid, p->num)) == NULL)
			return;
	}
	if (!w->have || p->state != w->state || p->phys_state != w->phys) {
		if (w->have)
			w_st.changes++;
		w->have = 1;
		w->state = p->state;
		w->phys = p->phys_state;
		w->since = now;
		w->backoff = 0;
	}
	w->asked = 0;
	if (settled(w, now)) {
		w_st.settled++;
		drop(w);
		return;
	}
	arm(w, now, 1);
}

/* store/events.c: a damped port has been quiet for hold-down. Its
 * Reports may have stopped before its flaps (opensm drops repeated
 * traps): where it is now is read, and read until it holds. */
static void
flapping_cb(uint64_t guid, uint8_t port, void *arg)
{
	struct watch *w;

	(void)arg;
	if (!w_on || (w = enter(guid, port)) == NULL)
		return;
	w_st.flapping++;
	w->flapping = 1;
	w->have = 0;
	w->backoff = 0;
	ev_timer_add(&w->timer, 0);
}

void
proxy_watch_configure(int reports, int interval_s)
{
	w_reports = reports;
	if (interval_s > 0)
		w_interval_s = interval_s;
}

struct longest {
	uint64_t	 now;
	uint64_t	 ms;
};

static void
longest_cb(const void *key, size_t len, void *val, void *arg)
{
	const struct watch *w = val;
	struct longest *l = arg;

	(void)key;
	(void)len;
	if (l->now - w->entered > l->ms)
		l->ms = l->now - w->entered;
}

void
proxy_watch_get_stats(struct proxy_watch_stats *st)
{
	struct longest l = { ev_now(), 0 };

	htab_foreach(&w_tab, longest_cb, &l);
	*st = w_st;
	st->now = (unsigned)w_tab.n;
	st->longest_s = (unsigned)(l.ms / 1000);
}

void
proxy_watch_init(int (*read_fn)(uint64_t guid, uint8_t port))
{
	htab_init(&w_tab);
	w_read = read_fn;
	w_on = 1;
	store_event_on_settle(flapping_cb, NULL);
}

static void
free_cb(const void *key, size_t len, void *val, void *arg)
{
	struct watch *w = val;

	(void)key;
	(void)len;
	(void)arg;
	ev_timer_del(&w->timer);
	free(w);
}

void
proxy_watch_finalise(void)
{
	if (!w_on)
		return;
	store_event_on_settle(NULL, NULL);
	htab_foreach(&w_tab, free_cb, NULL);
	htab_free(&w_tab);
	w_on = 0;
	w_read = NULL;
}
