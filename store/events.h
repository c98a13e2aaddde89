/* store_event: the gateway's one stream of fabric events (docs/events.md).
 *
 * Sources post what they saw: the SM (SA Reports), the sweep (its
 * differences from the inventory), the poller (thresholds) and the
 * gateway itself. The stream drops the same event seen again (by
 * another source or the same one), damps a flapping port's link events,
 * keeps the last events for the event table and `ctl events`, and hands
 * every event it keeps to its listener (the notifier). */
#ifndef IBSNMPGW_STORE_EVENTS_H
#define IBSNMPGW_STORE_EVENTS_H

#include <stddef.h>
#include <stdint.h>

enum store_event_type {
	STORE_EV_LINK_DOWN = 1,
	STORE_EV_LINK_UP,
	STORE_EV_NODE_GONE,		/* a sweep no longer reaches it */
	STORE_EV_NODE_BACK,
	STORE_EV_PORT_CHANGED,		/* active speed or width */
	STORE_EV_SM_MASTER,		/* another port is master SM */
	STORE_EV_THRESHOLD,		/* a policy's counter rate */
	STORE_EV_SUB_LOST,		/* SA event subscription */
	STORE_EV_SUB_RESTORED,
	STORE_EV_TRAP,			/* an SMA trap as the SM forwarded it */
	STORE_EV_GW_START,		/* the gateway started (RFC 3418
					 * coldStart) */
	STORE_EV_HA_FAILOVER,		/* this gateway took over (text:
					 * old and new active) */
	STORE_EV_HA_SPLIT_BRAIN,	/* the peer is active too */
	/* Fabric health (docs/health.md): states the health checks keep,
	 * posted on their changes only. */
	STORE_EV_LINK_DEGRADED,		/* a link runs below what it should */
	STORE_EV_LINK_RESTORED,		/* ... and no longer */
	STORE_EV_TOPO_MISMATCH,		/* a difference from the blueprint */
	STORE_EV_TOPO_MATCH,		/* ... gone */
	STORE_EV_PORT_HEALTH,		/* a port's verdict changed */
	STORE_EV_MAX
};

enum store_event_source {
	STORE_SRC_SM = 1,
	STORE_SRC_SWEEP,
	STORE_SRC_POLLER,
	STORE_SRC_GATEWAY,
};

struct store_event {
	uint64_t	seq;		/* 1, 2, ...: set when posted */
	int64_t		when;		/* wall clock, ms */
	uint8_t		type, source;
	uint8_t		port;		/* 0: the node itself */
	uint16_t	lid;		/* the node's (or port's) LID */
	uint16_t	trap;		/* STORE_EV_TRAP, or the trap the
					 * event translates (0: none) */
	uint64_t	node_guid;	/* 0: not about a node */
	uint32_t	suppressed;	/* damped before this one */
	uint8_t		data[64];	/* STORE_EV_TRAP: the Notice from
					 * ProducerType on (IBA 13.4.8.2);
					 * STORE_EV_THRESHOLD: rate, limit
					 * (two be64, x1000) */
	char		text[96];	/* one line, for logs and tables */
};

struct store_event_conf {
	unsigned	history;	/* events kept (event table) */
	unsigned	dedup_ms;	/* the same event again: dropped */
	unsigned	flap_changes;	/* link events in flap_window_ms */
	unsigned	flap_window_ms;	/*   that start damping */
	unsigned	hold_down_ms;	/* quiet time that ends damping */
	unsigned	burst;		/* health and threshold events kept
					 * one by one per STORE_EVENT_BURST_MS;
					 * the rest summed up (0: no limit) */
};

#define STORE_EVENT_BURST_MS	10000

struct store_event_stats {
	uint64_t	posted, kept, duplicates, damped;
	uint64_t	burst;		/* summed up, not kept one by one */
};

typedef void (*store_event_fn)(const struct store_event *ev, void *arg);

/* With a database open (store_init), the history is read from it and
 * every event kept is written to it: events and their numbers outlive
 * a restart. */
int	store_event_init(const struct store_event_conf *c);
/* Whether the last store_event_post() counted its event into a burst's
 * sum: a poster logs it only if not, so that a burst is not as many
 * log lines either. */
int	store_event_summed(void);
/* New limits; the history is kept (its newest events if it shrinks). */
int	store_event_config(const struct store_event_conf *c);
void	store_event_finalise(void);
void	store_event_listen(store_event_fn fn, void *arg);
/* A second reader of the stream, for the port verdicts
 * (proxy/verdict.c): every event posted that is not a duplicate, kept
 * or damped (damped 1, seq 0), and every replicated one (a standby's
 * stream is its active's). Adopted events and the settled state after
 * damping are not shown again. NULL: none. */
typedef void (*store_event_observe_fn)(const struct store_event *ev,
    int damped, void *arg);
void	store_event_observe(store_event_observe_fn fn, void *arg);
/* Called when a damped (flapping) port is quiet again: the last word
 * the stream had of it may be a reading from the middle of the flaps,
 * and the SM does not report every flap, so proxy/watch.c reads the
 * port until it holds. NULL: none. */
void	store_event_on_settle(void (*fn)(uint64_t guid, uint8_t port,
	    void *arg), void *arg);
/* How long a damped port must be quiet (events: hold-down), and the
 * window its link events are counted in (events: flap-window). */
unsigned store_event_hold_down_ms(void);
unsigned store_event_flap_window_ms(void);
/* Post one event (seq, when, suppressed are filled in). Returns 1 if
 * kept, 0 if dropped as a duplicate or damped. */
int	store_event_post(struct store_event *ev);
/* Keep an event another gateway posted and already notified (an HA
 * split brain's, handed over when it ends): a new seq, its own time,
 * replicated, but not notified again and not fed to the link states,
 * which are this gateway's own. */
void	store_event_adopt(struct store_event *ev);
/* The kept events, oldest first: i from 0 to count - 1. */
size_t	store_event_count(void);
const struct store_event *store_event_at(size_t i);
/* The event with sequence number seq, or NULL (aged out). */
const struct store_event *store_event_by_seq(uint64_t seq);
void	store_event_get_stats(struct store_event_stats *st);
/* The last link event type posted for a port (damped ones included),
 * 0 if none: where the stream thinks the link is. */
int	store_event_link_state(uint64_t guid, uint8_t port);
/* Whether a link event of the port was posted at or after since (an
 * ev_now() time): what a sweep that started then read of the port may
 * be older than that event. */
int	store_event_link_since(uint64_t guid, uint8_t port, uint64_t since);
/* Inform queues kept in the database (gateway/notify.c), so that what
 * waited goes out after a restart: a target's queued events by their
 * seq, which the history keeps until they are dequeued. */
void	store_event_queue_add(const char *target, uint64_t seq);
void	store_event_queue_del(const char *target, uint64_t seq);
/* The events queued for target, oldest first: at most max (the newest;
 * older ones are dropped), into out. Returns how many. */
size_t	store_event_queue_load(const char *target, struct store_event *out,
	    size_t max);
/* Drop the queues of every target but these n (logged). */
void	store_event_queue_keep(const char *const *targets, size_t n);

/* HA (docs/ha.md). The active's taps: every event kept, every inform
 * queued and dequeued, for the replication link. */
struct store_event_tap {
	void	(*kept)(const struct store_event *ev, void *arg);
	void	(*queue)(int add, const char *target, uint64_t seq, void *arg);
	void	*arg;
};
void	store_event_set_tap(const struct store_event_tap *t);
/* A standby's stream is its active's: events posted here are dropped
 * (counted), replicated ones kept as they are numbered. */
void	store_event_set_replica(int on);
int	store_event_is_replica(void);
uint64_t store_event_replica_dropped(void);
/* A snapshot begins: the history beyond the active's newest (max) goes
 * (logged), and so do the inform queues. */
void	store_event_repl_reset(uint64_t max);
/* A replicated event: kept with its number, nobody told. */
void	store_event_repl_apply(const struct store_event *ev);
/* The newest event number. */
uint64_t store_event_last_seq(void);
/* Every event of the database (the history and what queues name),
 * oldest first. */
void	store_event_db_each(void (*fn)(const struct store_event *ev,
	    void *arg), void *arg);
/* Every row of the inform queues: fn(target, seq), oldest first. */
void	store_event_queue_each(void (*fn)(const char *target, uint64_t seq,
	    void *arg), void *arg);

const char *store_event_type_name(int type);
const char *store_event_source_name(int source);

#endif
