/* store_event: the same event from two sources is handed on once, a
 * flapping port is damped and then reports where it settled, the
 * history keeps the newest events, memory stays bounded under a flood;
 * with a database, the history and the inform queues survive a
 * restart. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include <cmocka.h>

#include "store/events.h"
#include "store/store.h"
#include "util/ev.h"
#include "tests/unit/unit_db.h"

static uint64_t now_ms = 1000;
static struct store_event heard[64];
static size_t nheard;

static uint64_t
clock_fn(void)
{
	return now_ms;
}

static void
listener(const struct store_event *ev, void *arg)
{
	(void)arg;
	if (nheard < sizeof(heard) / sizeof(heard[0]))
		heard[nheard] = *ev;
	nheard++;
}

static int
setup(void **state)
{
	struct store_event_conf c = { 8, 30000, 4, 60000, 30000, 0 };

	(void)state;
	ev_init();
	ev_set_clock(clock_fn);
	now_ms = 1000;
	nheard = 0;
	assert_int_equal(store_event_init(&c), 0);
	store_event_listen(listener, NULL);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	store_event_finalise();
	ev_set_clock(NULL);
	ev_finalise();
	return 0;
}

static int
post(int type, int source, uint64_t guid, int port)
{
	struct store_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint8_t)type;
	ev.source = (uint8_t)source;
	ev.node_guid = guid;
	ev.port = (uint8_t)port;
	snprintf(ev.text, sizeof(ev.text), "node 0x%016llx",
	    (unsigned long long)guid);
	return store_event_post(&ev);
}

static void
test_dedup(void **state)
{
	struct store_event_stats st;

	(void)state;
	/* The SM says down; the next sweep, much later, agrees. */
	assert_int_equal(post(STORE_EV_LINK_DOWN, STORE_SRC_SM, 0x10, 1), 1);
	now_ms += 120000;
	assert_int_equal(post(STORE_EV_LINK_DOWN, STORE_SRC_SWEEP, 0x10, 1),
	    0);
	/* Another port, and another node's same port, are news. */
	assert_int_equal(post(STORE_EV_LINK_DOWN, STORE_SRC_SWEEP, 0x10, 2),
	    1);
	assert_int_equal(post(STORE_EV_LINK_DOWN, STORE_SRC_SWEEP, 0x11, 1),
	    1);
	assert_int_equal(post(STORE_EV_LINK_UP, STORE_SRC_SWEEP, 0x10, 1), 1);
	assert_int_equal(post(STORE_EV_LINK_UP, STORE_SRC_SM, 0x10, 1), 0);
	/* Events that are not states: the same one within the window. */
	assert_int_equal(post(STORE_EV_PORT_CHANGED, STORE_SRC_SM, 0x10, 1),
	    1);
	assert_int_equal(post(STORE_EV_PORT_CHANGED, STORE_SRC_SWEEP, 0x10,
	    1), 0);
	now_ms += 31000;
	assert_int_equal(post(STORE_EV_PORT_CHANGED, STORE_SRC_SWEEP, 0x10,
	    1), 1);
	store_event_get_stats(&st);
	assert_int_equal(st.posted, 9);
	assert_int_equal(st.kept, 6);
	assert_int_equal(st.duplicates, 3);
	assert_int_equal(nheard, 6);
	assert_int_equal(heard[0].seq, 1);
	assert_int_equal(heard[5].seq, 6);
	assert_int_equal(heard[1].port, 2);
	/* Threshold events are edges already: two crossings at the same
	 * rate, a second apart, are two events. */
	assert_int_equal(post(STORE_EV_THRESHOLD, STORE_SRC_POLLER, 0x10, 1),
	    1);
	now_ms += 1000;
	assert_int_equal(post(STORE_EV_THRESHOLD, STORE_SRC_POLLER, 0x10, 1),
	    1);
}

/* A sweep that started before the SM's last word on a port must not
 * post what it read of it (proxy/discover.c asks for another). */
static void
test_link_since(void **state)
{
	uint64_t sweep_started;

	(void)state;
	assert_int_equal(store_event_link_since(0x20, 1, 0), 0);
	assert_int_equal(post(STORE_EV_LINK_UP, STORE_SRC_SM, 0x20, 1), 1);
	now_ms += 500;
	sweep_started = now_ms;
	assert_int_equal(store_event_link_since(0x20, 1, sweep_started), 0);
	now_ms += 100;
	assert_int_equal(post(STORE_EV_LINK_DOWN, STORE_SRC_SM, 0x20, 1), 1);
	assert_int_equal(store_event_link_since(0x20, 1, sweep_started), 1);
	/* Another port, another node, another class: not that link. */
	assert_int_equal(store_event_link_since(0x20, 2, sweep_started), 0);
	assert_int_equal(store_event_link_since(0x21, 1, sweep_started), 0);
	assert_int_equal(post(STORE_EV_PORT_CHANGED, STORE_SRC_SM, 0x22, 1),
	    1);
	assert_int_equal(store_event_link_since(0x22, 1, sweep_started), 0);
	/* A damped one still counts: the port moved. */
	for (int i = 0; i < 6; i++) {
		now_ms += 10;
		post(i % 2 ? STORE_EV_LINK_UP : STORE_EV_LINK_DOWN,
		    STORE_SRC_SM, 0x23, 1);
	}
	assert_int_equal(store_event_link_since(0x23, 1, now_ms), 1);
}

static void
test_flap(void **state)
{
	struct store_event_stats st;
	int kept = 0;

	(void)state;
	/* Four link events in a minute pass; from the fifth on, damped. */
	for (int i = 0; i < 10; i++) {
		kept += post(i % 2 ? STORE_EV_LINK_UP : STORE_EV_LINK_DOWN,
		    STORE_SRC_SM, 0x20, 3);
		now_ms += 1000;
		ev_run_once(0);
	}
	assert_int_equal(kept, 4);
	store_event_get_stats(&st);
	assert_int_equal(st.damped, 6);
	/* Quiet for the hold-down: the state it settled in (up: the last
	 * handed on was up, so nothing) ... */
	now_ms += 30000;
	ev_run_once(0);
	assert_int_equal(nheard, 4);
	/* ... flapping again, settling down: reported once, with the
	 * number damped. Its flap window is empty after the hold-down. */
	for (int i = 0; i < 5; i++) {
		post(i % 2 ? STORE_EV_LINK_UP : STORE_EV_LINK_DOWN,
		    STORE_SRC_SM, 0x20, 3);
		now_ms += 100;
	}
	assert_int_equal(nheard, 8);	/* four more passed */
	now_ms += 30000;
	ev_run_once(0);
	assert_int_equal(nheard, 9);
	assert_int_equal(heard[8].type, STORE_EV_LINK_DOWN);
	assert_int_equal(heard[8].suppressed, 1);
}

/* A port that flaps again a minute after it settled is damped as
 * soon as the first time: the window counts its new events, not the
 * slots the last flood left behind. */
static void
test_flap_later(void **state)
{
	int kept = 0;

	(void)state;
	for (int i = 0; i < 10; i++) {
		post(i % 2 ? STORE_EV_LINK_UP : STORE_EV_LINK_DOWN,
		    STORE_SRC_SM, 0x21, 3);
		now_ms += 100;
	}
	now_ms += 30000;
	ev_run_once(0);		/* settled */
	now_ms += 61000;	/* the first flood is out of the window */
	for (int i = 0; i < 10; i++) {
		kept += post(i % 2 ? STORE_EV_LINK_UP : STORE_EV_LINK_DOWN,
		    STORE_SRC_SM, 0x21, 3);
		now_ms += 100;
	}
	assert_int_equal(kept, 4);
}

static void
test_history(void **state)
{
	struct store_event_conf c = { 3, 30000, 4, 60000, 30000, 0 };

	(void)state;
	for (int i = 0; i < 20; i++)
		post(STORE_EV_NODE_GONE + (i % 2), STORE_SRC_SWEEP,
		    0x100 + (uint64_t)i / 2, 0);
	assert_int_equal(store_event_count(), 8);	/* history 8 */
	assert_int_equal(store_event_at(0)->seq, 13);
	assert_int_equal(store_event_at(7)->seq, 20);
	assert_non_null(store_event_by_seq(15));
	assert_int_equal(store_event_by_seq(15)->seq, 15);
	assert_null(store_event_by_seq(12));
	assert_null(store_event_by_seq(21));
	/* Shrunk by a reload: the newest stay. */
	assert_int_equal(store_event_config(&c), 0);
	assert_int_equal(store_event_count(), 3);
	assert_int_equal(store_event_at(0)->seq, 18);
	assert_string_equal(store_event_type_name(STORE_EV_NODE_GONE),
	    "node-unreachable");
}

static void
test_flood(void **state)
{
	struct store_event_stats st;

	(void)state;
	/* 100,000 flaps of 100 ports: kept events stay at four per port,
	 * and the history at its size. */
	for (int i = 0; i < 100000; i++) {
		post(i / 100 % 2 ? STORE_EV_LINK_UP : STORE_EV_LINK_DOWN,
		    STORE_SRC_SWEEP, 0x30, i % 100 + 1);
		now_ms += 1;
	}
	store_event_get_stats(&st);
	assert_int_equal(st.kept, 400);
	assert_int_equal(st.damped, 100000 - 400);
	assert_int_equal(store_event_count(), 8);
}

/* A wrong health.expect on a large fabric: 5,000 links degraded by one
 * check. events.burst (here 10) are kept one by one; the rest are
 * counted and summed up in one event per type when the window ends,
 * about no one node. Then the next window starts afresh. Other types
 * are not counted against it. */
static void
test_burst(void **state)
{
	struct store_event_conf c = { 100, 30000, 4, 60000, 30000, 10 };
	struct store_event_stats st;
	int kept = 0;

	(void)state;
	assert_int_equal(store_event_config(&c), 0);
	for (int i = 0; i < 5000; i++)
		kept += post(i % 2 ? STORE_EV_LINK_DEGRADED :
		    STORE_EV_PORT_HEALTH, STORE_SRC_SWEEP, 0x100 + i, 1);
	assert_int_equal(kept, 10);
	assert_true(store_event_summed());	/* the poster logs nothing */
	assert_int_equal(post(STORE_EV_NODE_GONE, STORE_SRC_SWEEP, 0x99, 0),
	    1);
	assert_false(store_event_summed());
	assert_int_equal(nheard, 11);
	store_event_get_stats(&st);
	assert_int_equal(st.burst, 4990);
	now_ms += STORE_EVENT_BURST_MS;
	ev_run_once(0);
	assert_int_equal(nheard, 13);
	for (int k = 11; k < 13; k++) {
		assert_int_equal(heard[k].node_guid, 0);
		assert_true(heard[k].seq != 0);
		assert_int_equal(heard[k].suppressed, 2495);
		assert_non_null(strstr(heard[k].text, "2495 more "));
	}
	assert_int_equal(heard[11].type, STORE_EV_LINK_DEGRADED);
	assert_int_equal(heard[12].type, STORE_EV_PORT_HEALTH);
	/* A new window: ten more one by one. */
	for (int i = 0; i < 12; i++)
		post(STORE_EV_LINK_RESTORED, STORE_SRC_SWEEP, 0x100 + i, 1);
	assert_int_equal(nheard, 23);
	/* 0: no limit. */
	c.burst = 0;
	assert_int_equal(store_event_config(&c), 0);
	now_ms += STORE_EVENT_BURST_MS;
	ev_run_once(0);
	assert_int_equal(nheard, 24);	/* the two over the window */
	for (int i = 0; i < 50; i++)
		post(STORE_EV_LINK_DEGRADED, STORE_SRC_SWEEP, 0x900 + i, 1);
	assert_int_equal(nheard, 74);
}

/* A window ended by a post after its time, before its timer ran: the
 * timer goes with it, and the next window keeps its ten, not eleven. */
static void
test_burst_late(void **state)
{
	struct store_event_conf c = { 10, 30000, 4, 60000, 30000, 10 };
	int kept = 0;

	(void)state;
	assert_int_equal(store_event_config(&c), 0);
	for (int i = 0; i < 20; i++)
		post(STORE_EV_LINK_DEGRADED, STORE_SRC_SWEEP, 0x100 + i, 1);
	assert_int_equal(nheard, 10);
	now_ms += STORE_EVENT_BURST_MS;
	/* Before the loop runs the timer: the window ends here. */
	kept += post(STORE_EV_LINK_DEGRADED, STORE_SRC_SWEEP, 0x200, 1);
	assert_int_equal(nheard, 12);		/* the sum, and this one */
	ev_run_once(0);
	for (int i = 1; i < 20; i++)
		kept += post(STORE_EV_LINK_DEGRADED, STORE_SRC_SWEEP,
		    0x200 + i, 1);
	assert_int_equal(kept, 10);
}

static char dbpath[64];

static int
db_setup(void **state)
{
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-events-%d.db",
	    getpid());
	unlink(dbpath);
	assert_int_equal(store_init(dbpath), 0);
	return setup(state);
}

static int
db_teardown(void **state)
{
	teardown(state);
	store_finalise();
	unit_db_remove(dbpath);
	return 0;
}

/* The process stops and starts again on the same database. */
static void
restart(void)
{
	struct store_event_conf c = { 8, 30000, 4, 60000, 30000, 0 };

	store_event_finalise();
	store_finalise();
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(store_event_init(&c), 0);
}

static int
rows(void)
{
	sqlite3_stmt *st;
	int n = -1;

	assert_int_equal(sqlite3_prepare_v2(store_db_handle(),
	    "SELECT count(*) FROM events", -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* The history comes back after a restart with its numbers, and
 * numbering goes on; an event a queue waits for outlives the history;
 * a queue comes back oldest first, without what was dequeued, cut to
 * the newest that fit; a target no longer configured loses its queue. */
static void
test_persisted(void **state)
{
	struct store_event q[4];
	const char *keep[] = { "nms" };

	(void)state;
	for (int i = 0; i < 3; i++)
		post(STORE_EV_THRESHOLD, STORE_SRC_POLLER, 0x100 + i, 1);
	store_event_queue_add("nms", 1);
	store_event_queue_add("nms", 2);
	store_event_queue_add("nms", 3);
	store_event_queue_del("nms", 1);
	store_event_queue_add("old", 3);
	restart();
	assert_int_equal(store_event_count(), 3);
	assert_int_equal(store_event_at(0)->seq, 1);
	assert_int_equal(store_event_at(2)->node_guid, 0x102);
	assert_string_equal(store_event_by_seq(2)->text,
	    "node 0x0000000000000101");
	assert_int_equal(post(STORE_EV_THRESHOLD, STORE_SRC_POLLER, 9, 1), 1);
	assert_int_equal(store_event_at(3)->seq, 4);
	assert_int_equal(store_event_queue_load("nms", q, 4), 2);
	assert_int_equal(q[0].seq, 2);
	assert_int_equal(q[1].seq, 3);
	assert_int_equal(q[1].node_guid, 0x102);
	/* Past the history (8), at a trim (every 64th) and a restart:
	 * the history's rows and the one a queue waits for stay. */
	for (int i = 0; i < 70; i++)
		post(STORE_EV_THRESHOLD, STORE_SRC_POLLER, 0x200 + i, 1);
	restart();
	assert_int_equal(store_event_count(), 8);
	assert_int_equal(store_event_at(0)->seq, 67);
	assert_int_equal(rows(), 8 + 2);
	assert_int_equal(store_event_queue_load("nms", q, 1), 1);
	assert_int_equal(q[0].seq, 3);
	assert_int_equal(store_event_queue_load("nms", q, 4), 1);
	store_event_queue_keep(keep, 1);
	assert_int_equal(store_event_queue_load("old", q, 4), 0);
	assert_int_equal(store_event_queue_load("nms", q, 4), 1);
}


/* A standby's snapshot: events this gateway numbered itself while it
 * was active (split brain) give way to the active's under the same
 * numbers, in the history the event table serves as in the database. */
static void
test_repl_replaces(void **state)
{
	struct store_event ev;

	(void)state;
	for (int i = 0; i < 4; i++)
		post(STORE_EV_NODE_GONE, STORE_SRC_SWEEP, 0x100 + (uint64_t)i,
		    0);
	assert_int_equal(store_event_last_seq(), 4);
	store_event_set_replica(1);
	store_event_repl_reset(6);	/* the active's newest is 6 */
	for (uint64_t s = 1; s <= 6; s++) {
		memset(&ev, 0, sizeof(ev));
		ev.seq = s;
		ev.when = 5000;
		ev.type = STORE_EV_NODE_BACK;
		ev.source = STORE_SRC_SM;
		ev.node_guid = 0x200 + s;
		snprintf(ev.text, sizeof(ev.text), "active %llu",
		    (unsigned long long)s);
		store_event_repl_apply(&ev);
	}
	store_event_set_replica(0);
	assert_int_equal(store_event_count(), 6);
	for (uint64_t s = 1; s <= 6; s++) {
		const struct store_event *e = store_event_by_seq(s);

		assert_non_null(e);
		assert_int_equal(e->node_guid, 0x200 + s);
		assert_int_equal(e->type, STORE_EV_NODE_BACK);
	}
	assert_int_equal(store_event_last_seq(), 6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dedup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_since, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_flap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flap_later, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_burst, setup, teardown),
		cmocka_unit_test_setup_teardown(test_burst_late, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_repl_replaces, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_persisted, db_setup,
		    db_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
