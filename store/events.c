/* store_event: one stream of fabric events, de-duplicated and damped
 * (docs/events.md). */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/events.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

/* What the stream remembers per (node, port, kind of event). */
struct ev_key {
	uint64_t	guid;
	uint8_t		port;
	uint8_t		cls;
};

#define FLAP_MAX	64	/* link events remembered per port */

struct ev_state {
	struct ev_key	 key;
	uint8_t		 last;		/* last type seen (state classes) */
	uint64_t	 last_hash;	/* of type and data (others) */
	uint64_t	 last_ms;
	/* Link damping: recent link event times, a ring. */
	uint64_t	 times[FLAP_MAX];
	unsigned	 ntimes, head;
	int		 damped;
	uint8_t		 emitted;	/* last link type handed on */
	uint32_t	 suppressed;
	struct store_event held;	/* the newest damped event */
	struct ev_timer	 timer;
};

static struct store_event_conf	 ev_conf = { 1000, 30000, 4, 60000,
    30000, 100 };
static struct store_event	*ev_ring;
static size_t			 ev_cap, ev_n, ev_first;
static uint64_t			 ev_seq;
static struct htab		 ev_states;
static store_event_fn		 ev_fn;
static void			*ev_arg;
static struct store_event_stats	 ev_st;
static struct store_event_tap	 ev_tap;
static int			 ev_replica;
static uint64_t			 ev_replica_dropped;
static store_event_observe_fn	 ev_obs_fn;
static void			*ev_obs_arg;

static const char *type_names[STORE_EV_MAX] = {
	[STORE_EV_LINK_DOWN] = "link-down",
	[STORE_EV_LINK_UP] = "link-up",
	[STORE_EV_NODE_GONE] = "node-unreachable",
	[STORE_EV_NODE_BACK] = "node-reachable",
	[STORE_EV_PORT_CHANGED] = "port-changed",
	[STORE_EV_SM_MASTER] = "sm-master",
	[STORE_EV_THRESHOLD] = "threshold",
	[STORE_EV_SUB_LOST] = "subscription-lost",
	[STORE_EV_SUB_RESTORED] = "subscription-restored",
	[STORE_EV_TRAP] = "trap",
	[STORE_EV_GW_START] = "gateway-start",
	[STORE_EV_HA_FAILOVER] = "ha-failover",
	[STORE_EV_HA_SPLIT_BRAIN] = "ha-split-brain",
	[STORE_EV_LINK_DEGRADED] = "link-degraded",
	[STORE_EV_LINK_RESTORED] = "link-restored",
	[STORE_EV_TOPO_MISMATCH] = "topology-mismatch",
	[STORE_EV_TOPO_MATCH] = "topology-match",
	[STORE_EV_PORT_HEALTH] = "port-health",
};

const char *
store_event_type_name(int type)
{
	return type > 0 && type < STORE_EV_MAX && type_names[type] ?
	    type_names[type] : "unknown";
}

const char *
store_event_source_name(int source)
{
	switch (source) {
	case STORE_SRC_SM: return "sm";
	case STORE_SRC_SWEEP: return "sweep";
	case STORE_SRC_POLLER: return "poller";
	case STORE_SRC_GATEWAY: return "gateway";
	}
	return "unknown";
}

/* Classes whose events are states: the same state again is no news,
 * however late it comes (the SM says down, the next sweep agrees). */
/* CLS_EDGE: events the source posts once per occurrence (a threshold
 * crossing, the gateway's start): never de-duplicated, no state. */
enum { CLS_EDGE, CLS_LINK, CLS_NODE, CLS_SUB, CLS_OTHER };

static int
event_class(int type)
{
	switch (type) {
	case STORE_EV_LINK_DOWN:
	case STORE_EV_LINK_UP:
		return CLS_LINK;
	case STORE_EV_NODE_GONE:
	case STORE_EV_NODE_BACK:
		return CLS_NODE;
	case STORE_EV_SUB_LOST:
	case STORE_EV_SUB_RESTORED:
		return CLS_SUB;
	case STORE_EV_THRESHOLD:
	case STORE_EV_GW_START:
	case STORE_EV_HA_FAILOVER:
	case STORE_EV_HA_SPLIT_BRAIN:
	case STORE_EV_LINK_DEGRADED:	/* the health checks post changes */
	case STORE_EV_LINK_RESTORED:
	case STORE_EV_TOPO_MISMATCH:
	case STORE_EV_TOPO_MATCH:
	case STORE_EV_PORT_HEALTH:
		return CLS_EDGE;
	}
	return CLS_OTHER;
}

static uint64_t
event_hash(const struct store_event *ev)
{
	uint8_t b[1 + 2 + sizeof(ev->data)];

	b[0] = ev->type;
	b[1] = (uint8_t)(ev->trap >> 8);
	b[2] = (uint8_t)ev->trap;
	memcpy(b + 3, ev->data, sizeof(ev->data));
	return htab_hash(b, sizeof(b));
}

/* ---- The history in the database (schema 7)
 *
 * Every event kept is written as it is kept, so that the history, and
 * the inform queues that name its events, survive a restart or an
 * upgrade; rows beyond the history that no queue names go now and then.
 * Without a database (unit tests) the history lives in memory only. A
 * failed write costs that row and is logged once until one succeeds. */

#define TRIM_EVERY	64
#define EV_COLUMNS	"seq, at_ms, type, source, port, lid, trap, " \
			"node_guid, suppressed, data, text"

static int ev_db_failed;

static sqlite3 *
db(void)
{
	return store_db_handle();
}

static void
db_failed(const char *what, const char *msg)
{
	if (!ev_db_failed)
		log_warnx("event: %s: %s; until a write succeeds, events are "
		    "kept in memory only", what, msg);
	ev_db_failed = 1;
}

/* One statement with ?1 = text (if any) and ?2 = num. */
static int
db_run(const char *what, const char *sql, const char *text, int64_t num)
{
	sqlite3_stmt *st;
	int rc;

	if (db() == NULL)
		return 0;
	if (sqlite3_prepare_v2(db(), sql, -1, &st, NULL) != SQLITE_OK) {
		db_failed(what, sqlite3_errmsg(db()));
		return -1;
	}
	if (text != NULL)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, num);
	if ((rc = sqlite3_step(st)) != SQLITE_DONE)
		db_failed(what, sqlite3_errmsg(db()));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The events beyond the history that no inform waits for. */
static void
trim(void)
{
	if (ev_seq > ev_cap)
		db_run("trimming the history", "DELETE FROM events WHERE "
		    "seq <= ?2 AND seq NOT IN (SELECT seq FROM notify_queue)",
		    NULL, (int64_t)(ev_seq - ev_cap));
}

static void
save(const struct store_event *ev)
{
	sqlite3_stmt *st;
	int rc;

	if (db() == NULL)
		return;
	if (sqlite3_prepare_v2(db(), "INSERT OR REPLACE INTO events ("
	    EV_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
	    "?11)", -1, &st, NULL) != SQLITE_OK) {
		db_failed("saving an event", sqlite3_errmsg(db()));
		return;
	}
	sqlite3_bind_int64(st, 1, (int64_t)ev->seq);
	sqlite3_bind_int64(st, 2, ev->when);
	sqlite3_bind_int(st, 3, ev->type);
	sqlite3_bind_int(st, 4, ev->source);
	sqlite3_bind_int(st, 5, ev->port);
	sqlite3_bind_int(st, 6, ev->lid);
	sqlite3_bind_int(st, 7, ev->trap);
	sqlite3_bind_int64(st, 8, (int64_t)ev->node_guid);
	sqlite3_bind_int64(st, 9, ev->suppressed);
	sqlite3_bind_blob(st, 10, ev->data, sizeof(ev->data), SQLITE_STATIC);
	sqlite3_bind_text(st, 11, ev->text, (int)strnlen(ev->text,
	    sizeof(ev->text)), SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) != SQLITE_DONE)
		db_failed("saving an event", sqlite3_errmsg(db()));
	else
		ev_db_failed = 0;
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE && ev->seq % TRIM_EVERY == 0)
		trim();
}

/* A row of EV_COLUMNS. */
static void
row_event(sqlite3_stmt *st, struct store_event *ev)
{
	const void *data = sqlite3_column_blob(st, 9);
	size_t len = (size_t)sqlite3_column_bytes(st, 9);
	const char *text = (const char *)sqlite3_column_text(st, 10);

	memset(ev, 0, sizeof(*ev));
	ev->seq = (uint64_t)sqlite3_column_int64(st, 0);
	ev->when = sqlite3_column_int64(st, 1);
	ev->type = (uint8_t)sqlite3_column_int(st, 2);
	ev->source = (uint8_t)sqlite3_column_int(st, 3);
	ev->port = (uint8_t)sqlite3_column_int(st, 4);
	ev->lid = (uint16_t)sqlite3_column_int(st, 5);
	ev->trap = (uint16_t)sqlite3_column_int(st, 6);
	ev->node_guid = (uint64_t)sqlite3_column_int64(st, 7);
	ev->suppressed = (uint32_t)sqlite3_column_int64(st, 8);
	if (data != NULL)
		memcpy(ev->data, data, len < sizeof(ev->data) ? len :
		    sizeof(ev->data));
	snprintf(ev->text, sizeof(ev->text), "%s", text ? text : "");
}

static int64_t
max_seq(void)
{
	sqlite3_stmt *st;
	int64_t v = 0;

	if (sqlite3_prepare_v2(db(), "SELECT max(seq) FROM events", -1, &st,
	    NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The newest events of the database into the (empty) ring, newest
 * last; numbering goes on after the newest. */
static void
load_history(void)
{
	sqlite3_stmt *st;
	size_t n = 0;

	if (db() == NULL)
		return;
	ev_seq = (uint64_t)max_seq();
	if (ev_cap > 0 && sqlite3_prepare_v2(db(), "SELECT " EV_COLUMNS
	    " FROM events ORDER BY seq DESC LIMIT ?1", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(st, 1, (int64_t)ev_cap);
		while (n < ev_cap && sqlite3_step(st) == SQLITE_ROW)
			row_event(st, &ev_ring[ev_cap - 1 - n++]);
		sqlite3_finalize(st);
	}
	ev_first = n > 0 ? ev_cap - n : 0;
	ev_n = n;
	trim();
	if (ev_seq > 0)
		log_info("event: %zu events of the history from the "
		    "database; the next is number %llu", n,
		    (unsigned long long)ev_seq + 1);
}

/* ---- Inform queues (gateway/notify.c) */

void
store_event_queue_add(const char *target, uint64_t seq)
{
	db_run("queueing an inform", "INSERT OR IGNORE INTO notify_queue "
	    "(target, seq) VALUES (?1, ?2)", target, (int64_t)seq);
	if (ev_tap.queue)
		ev_tap.queue(1, target, seq, ev_tap.arg);
}

void
store_event_queue_del(const char *target, uint64_t seq)
{
	db_run("dequeueing an inform", "DELETE FROM notify_queue WHERE "
	    "target = ?1 AND seq = ?2", target, (int64_t)seq);
	if (ev_tap.queue)
		ev_tap.queue(0, target, seq, ev_tap.arg);
}

void
store_event_db_each(void (*fn)(const struct store_event *, void *), void *arg)
{
	struct store_event ev;
	sqlite3_stmt *st;

	if (db() == NULL) {
		for (size_t i = 0; i < ev_n; i++)
			fn(store_event_at(i), arg);
		return;
	}
	if (sqlite3_prepare_v2(db(), "SELECT " EV_COLUMNS " FROM events "
	    "ORDER BY seq", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		row_event(st, &ev);
		fn(&ev, arg);
	}
	sqlite3_finalize(st);
}

void
store_event_queue_each(void (*fn)(const char *, uint64_t, void *), void *arg)
{
	sqlite3_stmt *st;

	if (db() == NULL || sqlite3_prepare_v2(db(), "SELECT target, seq FROM "
	    "notify_queue ORDER BY seq", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW)
		if (sqlite3_column_text(st, 0) != NULL)
			fn((const char *)sqlite3_column_text(st, 0),
			    (uint64_t)sqlite3_column_int64(st, 1), arg);
	sqlite3_finalize(st);
}

size_t
store_event_queue_load(const char *target, struct store_event *out,
    size_t max)
{
	sqlite3_stmt *st;
	size_t n = 0;

	if (db() == NULL || max == 0 || sqlite3_prepare_v2(db(), "SELECT e."
	    "seq, at_ms, type, source, port, lid, trap, node_guid, "
	    "suppressed, data, text FROM notify_queue q JOIN events e "
	    "ON e.seq = q.seq WHERE q.target = ?1 ORDER BY q.seq DESC "
	    "LIMIT ?2", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, target, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)max);
	while (n < max && sqlite3_step(st) == SQLITE_ROW)
		row_event(st, &out[max - 1 - n++]);
	sqlite3_finalize(st);
	memmove(out, out + max - n, n * sizeof(*out));
	/* Those that no longer fit (a smaller queue since). */
	if (n == max)
		db_run("dequeueing informs", "DELETE FROM notify_queue WHERE "
		    "target = ?1 AND seq < ?2", target, (int64_t)out[0].seq);
	return n;
}

void
store_event_queue_keep(const char *const *targets, size_t n)
{
	sqlite3_stmt *st;
	char **gone = NULL;
	size_t ngone = 0;

	if (db() == NULL || sqlite3_prepare_v2(db(), "SELECT target, count(*) "
	    "FROM notify_queue GROUP BY target", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		size_t i = 0;
		char **g;

		while (i < n && t != NULL && strcmp(t, targets[i]) != 0)
			i++;
		if (t == NULL || i < n || (g = realloc(gone, (ngone + 1) *
		    sizeof(*g))) == NULL)
			continue;
		gone = g;	/* before strdup: realloc may have moved it */
		if ((g[ngone] = strdup(t)) == NULL)
			continue;
		ngone++;
		log_info("notify: %d informs queued for target %s, which is "
		    "no longer configured, dropped", sqlite3_column_int(st, 1),
		    t);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < ngone; i++) {
		db_run("dropping a queue", "DELETE FROM notify_queue WHERE "
		    "target = ?1", gone[i], 0);
		free(gone[i]);
	}
	free(gone);
}

/* ---- History */

static void
ring_push(const struct store_event *ev)
{
	if (ev_cap > 0) {
		if (ev_n == ev_cap) {
			ev_first = (ev_first + 1) % ev_cap;
			ev_n--;
		}
		ev_ring[(ev_first + ev_n) % ev_cap] = *ev;
		ev_n++;
	}
}

/* Replicated before the notifier sends it (docs/ha.md). */
static void
record(struct store_event *ev)
{
	ev->seq = ++ev_seq;
	ev_st.kept++;
	save(ev);
	ring_push(ev);
	if (ev_tap.kept)
		ev_tap.kept(ev, ev_tap.arg);
}

static void
keep(struct store_event *ev)
{
	record(ev);
	if (ev_fn)
		ev_fn(ev, ev_arg);
}

static void
observed(const struct store_event *ev, int damped)
{
	if (ev_obs_fn)
		ev_obs_fn(ev, damped, ev_obs_arg);
}

void
store_event_observe(store_event_observe_fn fn, void *arg)
{
	ev_obs_fn = fn;
	ev_obs_arg = arg;
}

void
store_event_adopt(struct store_event *ev)
{
	if (!ev_replica)
		record(ev);
}

/* ---- HA */

void
store_event_set_tap(const struct store_event_tap *t)
{
	if (t != NULL)
		ev_tap = *t;
	else
		memset(&ev_tap, 0, sizeof(ev_tap));
}

void
store_event_set_replica(int on)
{
	ev_replica = on;
}

int
store_event_is_replica(void)
{
	return ev_replica;
}

uint64_t
store_event_replica_dropped(void)
{
	return ev_replica_dropped;
}

uint64_t
store_event_last_seq(void)
{
	return ev_seq;
}

void
store_event_repl_reset(uint64_t max)
{
	size_t gone = 0;

	while (ev_n > 0 && store_event_at(ev_n - 1)->seq > max) {
		ev_n--;
		gone++;
	}
	if (gone > 0)
		log_warnx("ha: %zu events of this gateway beyond the active's "
		    "newest (%llu) dropped: the active's history wins", gone,
		    (unsigned long long)max);
	db_run("replacing the history", "DELETE FROM events WHERE seq > ?2",
	    NULL, (int64_t)max);
	db_run("replacing the queues", "DELETE FROM notify_queue", NULL, 0);
	if (ev_seq > max)
		ev_seq = max;
}

void
store_event_repl_apply(const struct store_event *ev)
{
	const struct store_event *old;

	if (ev->seq == 0)
		return;
	save(ev);
	/* In order only: the ring stays sorted (store_event_by_seq). One
	 * it has under that number (this gateway's own, numbered while it
	 * was active: split brain, or an active that came back as a
	 * standby) is replaced, as the database's row was. */
	if (ev_n == 0 || store_event_at(ev_n - 1)->seq < ev->seq)
		ring_push(ev);
	else if ((old = store_event_by_seq(ev->seq)) != NULL)
		*(struct store_event *)old = *ev;
	if (ev->seq > ev_seq)
		ev_seq = ev->seq;
	observed(ev, 0);
}

size_t
store_event_count(void)
{
	return ev_n;
}

const struct store_event *
store_event_at(size_t i)
{
	return i < ev_n ? &ev_ring[(ev_first + i) % ev_cap] : NULL;
}

/* A binary search: the history read from the database may have a gap
 * where a write had failed. */
const struct store_event *
store_event_by_seq(uint64_t seq)
{
	size_t lo = 0, hi = ev_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct store_event *e = store_event_at(mid);

		if (e->seq == seq)
			return e;
		if (e->seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- Damping a flapping port's link events */

static void	(*ev_settle_fn)(uint64_t, uint8_t, void *);
static void	*ev_settle_arg;

void
store_event_on_settle(void (*fn)(uint64_t, uint8_t, void *), void *arg)
{
	ev_settle_fn = fn;
	ev_settle_arg = arg;
}

unsigned
store_event_hold_down_ms(void)
{
	return ev_conf.hold_down_ms;
}

unsigned
store_event_flap_window_ms(void)
{
	return ev_conf.flap_window_ms;
}

static void
hold_cb(void *arg)
{
	struct ev_state *s = arg;
	struct store_event ev = s->held;

	s->damped = 0;
	s->ntimes = 0;
	if (ev_settle_fn)
		ev_settle_fn(s->key.guid, s->key.port, ev_settle_arg);
	/* Quiet again: the state it settled in, if that is news. */
	if (ev.type != s->emitted) {
		ev.suppressed = s->suppressed;
		s->emitted = ev.type;
		log_info("event: %s port %u stopped flapping after %u damped "
		    "link events", ev.text, ev.port, s->suppressed);
		s->suppressed = 0;
		keep(&ev);
		return;
	}
	log_info("event: %s port %u stopped flapping after %u damped link "
	    "events; its link is as last reported", ev.text, ev.port,
	    s->suppressed);
	s->suppressed = 0;
}

/* 1 if the link event goes on, 0 if damped. */
static int
damp(struct ev_state *s, const struct store_event *ev, uint64_t now)
{
	unsigned recent = 0;

	s->times[s->head] = now;
	s->head = (s->head + 1) % FLAP_MAX;
	if (s->ntimes < FLAP_MAX)
		s->ntimes++;
	/* The newest ntimes entries, back from head: hold_cb empties the
	 * ring by its count alone, so slots from 0 can be stale. */
	for (unsigned i = 1; i <= s->ntimes; i++)
		if (now - s->times[(s->head + FLAP_MAX - i) % FLAP_MAX] <=
		    ev_conf.flap_window_ms)
			recent++;
	if (!s->damped && (ev_conf.flap_changes == 0 ||
	    recent <= ev_conf.flap_changes)) {
		s->emitted = ev->type;
		return 1;
	}
	if (!s->damped)
		log_warnx("event: %s port %u is flapping (%u link events in "
		    "%u s): damped until it is quiet for %u s", ev->text,
		    ev->port, recent, ev_conf.flap_window_ms / 1000,
		    ev_conf.hold_down_ms / 1000);
	s->damped = 1;
	s->suppressed++;
	s->held = *ev;
	ev_st.damped++;
	ev_timer_add(&s->timer, ev_conf.hold_down_ms);
	return 0;
}

/* ---- Bursts of state changes
 *
 * A wrong health.expect, blueprint or threshold on a large fabric makes
 * one check change thousands of links or ports at once. Past
 * events.burst in a window, each type's further events are counted,
 * not kept, and one event per type sums them up when the window ends:
 * node GUID 0 (about no one node), the count in suppressed and text.
 * The tables hold every row all the same. */

static int	ev_summed;		/* the last post's (store_event_summed) */

static struct {
	uint64_t	start;			/* 0: no window open */
	unsigned	n;			/* kept in it */
	uint32_t	over[STORE_EV_MAX];
	struct ev_timer	timer;
} ev_burst;

static int
burst_type(int type)
{
	switch (type) {
	case STORE_EV_THRESHOLD:
	case STORE_EV_LINK_DEGRADED:
	case STORE_EV_LINK_RESTORED:
	case STORE_EV_TOPO_MISMATCH:
	case STORE_EV_TOPO_MATCH:
	case STORE_EV_PORT_HEALTH:
		return 1;
	}
	return 0;
}

static void
burst_end(void *arg)
{
	struct store_event ev;

	(void)arg;
	for (int t = 0; t < STORE_EV_MAX; t++) {
		if (ev_burst.over[t] == 0)
			continue;
		memset(&ev, 0, sizeof(ev));
		ev.type = (uint8_t)t;
		ev.source = STORE_SRC_GATEWAY;
		ev.when = ev_wall_ms();
		ev.suppressed = ev_burst.over[t];
		snprintf(ev.text, sizeof(ev.text), "%u more %s events within "
		    "%u s, not kept one by one (events.burst %u)",
		    ev_burst.over[t], type_names[t], STORE_EVENT_BURST_MS /
		    1000, ev_conf.burst);
		log_warnx("event: %s", ev.text);
		ev_burst.over[t] = 0;
		if (!ev_replica)
			keep(&ev);
	}
	ev_burst.start = 0;
	ev_burst.n = 0;
	/* Ended by a late post, not by it: the next window is not its. */
	ev_timer_del(&ev_burst.timer);
}

/* 1 if ev is kept, 0 if counted into its window's summary. */
static int
burst(const struct store_event *ev, uint64_t now)
{
	if (ev_conf.burst == 0 || !burst_type(ev->type))
		return 1;
	if (ev_burst.start != 0 && now - ev_burst.start >= STORE_EVENT_BURST_MS)
		burst_end(NULL);	/* the timer is late */
	if (ev_burst.start == 0)
		ev_burst.start = now;
	if (ev_burst.n < ev_conf.burst) {
		ev_burst.n++;
		return 1;
	}
	/* The timer runs while the window has summed events. */
	if (!ev_timer_pending(&ev_burst.timer)) {
		log_warnx("event: more than %u health and threshold events "
		    "within %u s: the rest are counted, and summed up when "
		    "the %u s are over", ev_conf.burst,
		    STORE_EVENT_BURST_MS / 1000, STORE_EVENT_BURST_MS / 1000);
		ev_timer_add(&ev_burst.timer, ev_burst.start +
		    STORE_EVENT_BURST_MS - now);
	}
	ev_burst.over[ev->type]++;
	ev_st.burst++;
	return 0;
}

/* ---- Posting */

static struct ev_state *
state_of(const struct store_event *ev, int cls)
{
	struct ev_key k;
	struct ev_state *s;

	memset(&k, 0, sizeof(k));
	k.guid = ev->node_guid;
	k.port = ev->port;
	k.cls = (uint8_t)cls;
	if (cls == CLS_OTHER)
		k.cls = (uint8_t)(CLS_OTHER + ev->type);
	if ((s = htab_get(&ev_states, &k, sizeof(k))) != NULL)
		return s;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->key = k;
	ev_timer_init(&s->timer, hold_cb, s);
	if (htab_put(&ev_states, &k, sizeof(k), s) == -1) {
		free(s);
		return NULL;
	}
	return s;
}

int
store_event_post(struct store_event *ev)
{
	uint64_t now = ev_now(), h;
	int cls = event_class(ev->type);
	struct ev_state *s;

	ev_st.posted++;
	ev_summed = 0;
	if (ev_replica) {
		ev_replica_dropped++;	/* the active's stream is ours */
		return 0;
	}
	if (ev->when == 0)
		ev->when = ev_wall_ms();
	ev->suppressed = 0;
	if (cls == CLS_EDGE) {
		if (!burst(ev, now)) {
			ev_summed = 1;
			ev->seq = 0;	/* not numbered: not kept */
			observed(ev, 0);
			return 0;
		}
		keep(ev);
		observed(ev, 0);
		return 1;
	}
	if ((s = state_of(ev, cls)) == NULL) {
		keep(ev);		/* no memory: better twice than never */
		observed(ev, 0);
		return 1;
	}
	h = event_hash(ev);
	if (cls != CLS_OTHER) {
		if (s->last == ev->type) {
			ev_st.duplicates++;
			return 0;
		}
	} else if (s->last_ms != 0 && s->last_hash == h &&
	    now - s->last_ms < ev_conf.dedup_ms) {
		ev_st.duplicates++;
		return 0;
	}
	s->last = ev->type;
	s->last_hash = h;
	s->last_ms = now;
	if (cls == CLS_LINK && !damp(s, ev, now)) {
		ev->seq = 0;		/* not numbered: not kept */
		observed(ev, 1);
		return 0;
	}
	keep(ev);
	observed(ev, 0);
	return 1;
}

static const struct ev_state *
link_state_of(uint64_t guid, uint8_t port)
{
	struct ev_key k;

	memset(&k, 0, sizeof(k));
	k.guid = guid;
	k.port = port;
	k.cls = CLS_LINK;
	return htab_get(&ev_states, &k, sizeof(k));
}

int
store_event_link_state(uint64_t guid, uint8_t port)
{
	const struct ev_state *st = link_state_of(guid, port);

	return st != NULL ? st->last : 0;
}

int
store_event_link_since(uint64_t guid, uint8_t port, uint64_t since)
{
	const struct ev_state *st = link_state_of(guid, port);

	return st != NULL && st->last_ms != 0 && st->last_ms >= since;
}

/* ---- Setup */

int
store_event_config(const struct store_event_conf *c)
{
	struct store_event *r = NULL;
	size_t n = 0;

	if (c->history > 0 && (r = calloc(c->history, sizeof(*r))) == NULL)
		return -1;
	/* The newest events that fit. */
	for (size_t i = ev_n > c->history ? ev_n - c->history : 0; i < ev_n;
	    i++)
		r[n++] = *store_event_at(i);
	free(ev_ring);
	ev_ring = r;
	ev_cap = c->history;
	ev_n = n;
	ev_first = 0;
	ev_conf = *c;
	return 0;
}

int
store_event_init(const struct store_event_conf *c)
{
	htab_init(&ev_states);
	memset(&ev_st, 0, sizeof(ev_st));
	memset(&ev_burst, 0, sizeof(ev_burst));
	ev_timer_init(&ev_burst.timer, burst_end, NULL);
	ev_seq = 0;
	ev_db_failed = 0;
	if (store_event_config(c) == -1)
		return -1;
	load_history();
	return 0;
}

int
store_event_summed(void)
{
	return ev_summed;
}

void
store_event_listen(store_event_fn fn, void *arg)
{
	ev_fn = fn;
	ev_arg = arg;
}

static void
free_state(const void *key, size_t len, void *val, void *arg)
{
	struct ev_state *s = val;

	(void)key;
	(void)len;
	(void)arg;
	ev_timer_del(&s->timer);
	free(s);
}

void
store_event_finalise(void)
{
	ev_timer_del(&ev_burst.timer);
	htab_foreach(&ev_states, free_state, NULL);
	htab_free(&ev_states);
	free(ev_ring);
	ev_ring = NULL;
	ev_cap = ev_n = ev_first = 0;
	ev_fn = NULL;
	ev_obs_fn = NULL;
}

void
store_event_get_stats(struct store_event_stats *st)
{
	*st = ev_st;
}
