/* proxy_watch: which readings start a watch, how often a watched port
 * is read, and when it ends (docs/events.md, "Convergence"). The read
 * is a stub that counts; the answers are fed back by hand. The clock
 * is ev_set_clock()'s; hold-down is store/events.c's default (30 s). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "proxy/watch.h"
#include "store/events.h"
#include "util/ev.h"

#define GUID	0x0002c90300aa0104ULL
#define HOLD	30000

static uint64_t now_ms;
static unsigned nreads;
static uint64_t last_read, max_gap, min_gap;
static int no_route;

static uint64_t
fake_clock(void)
{
	return now_ms;
}

static int
fake_read(uint64_t guid, uint8_t port)
{
	assert_int_equal(guid, GUID);
	assert_int_equal(port, 7);
	if (no_route)
		return -1;
	if (nreads > 0) {
		uint64_t gap = now_ms - last_read;

		if (gap > max_gap)
			max_gap = gap;
		if (gap < min_gap)
			min_gap = gap;
	}
	last_read = now_ms;
	nreads++;
	return 0;
}

static int
setup(void **state)
{
	(void)state;
	ev_init();
	now_ms = 1000000;
	ev_set_clock(fake_clock);
	nreads = 0;
	last_read = max_gap = 0;
	min_gap = UINT64_MAX;
	no_route = 0;
	proxy_watch_init(fake_read);
	proxy_watch_configure(1, 300);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	proxy_watch_finalise();
	ev_set_clock(NULL);
	ev_finalise();
	return 0;
}

static struct store_port
reading(uint8_t state, uint8_t phys)
{
	struct store_port p;

	memset(&p, 0, sizeof(p));
	p.num = 7;
	p.valid = 1;
	p.state = state;
	p.phys_state = phys;
	return p;
}

static unsigned
watched(void)
{
	struct proxy_watch_stats st;

	proxy_watch_get_stats(&st);
	return st.now;
}

/* Advance the clock by ms, a millisecond at a time where a timer is
 * due, answering every read with p (or not at all, p NULL). */
static void
run_for(uint64_t ms, const struct store_port *p)
{
	uint64_t end = now_ms + ms;

	while (now_ms < end) {
		unsigned before = nreads;

		now_ms += 100;
		(void)ev_run_once(0);
		if (p != NULL && nreads != before)
			proxy_watch_reading(GUID, p, 0);
	}
}

/* Active as before, or Down as before: nothing is watched or read. */
static void
test_quiet_port_costs_nothing(void **state)
{
	struct store_port a = reading(4, 5), d = reading(1, 2);

	(void)state;
	proxy_watch_reading(GUID, &a, 0);
	proxy_watch_reading(GUID, &d, 0);
	proxy_watch_reading(GUID, &a, 1);	/* came up Active: final */
	assert_int_equal(watched(), 0);
	run_for(60000, NULL);
	assert_int_equal(nreads, 0);
}

/* Init for ten minutes (an SM that takes its time): read all along, a
 * second apart at first, never more than PROXY_WATCH_MAX_MS apart,
 * never more than once a second; Active ends it at once. */
static void
test_init_never_given_up(void **state)
{
	struct store_port init = reading(2, 5), act = reading(4, 5);
	struct proxy_watch_stats st;

	(void)state;
	proxy_watch_reading(GUID, &init, 1);
	assert_int_equal(watched(), 1);
	run_for(600000, &init);
	assert_int_equal(watched(), 1);
	assert_true(nreads >= 600000 / PROXY_WATCH_MAX_MS - 5);
	assert_true(max_gap <= PROXY_WATCH_MAX_MS);
	assert_true(min_gap >= PROXY_WATCH_MIN_MS);
	/* The SM activates it: the next read (within the cap) ends it. */
	max_gap = 0;
	run_for(PROXY_WATCH_MAX_MS + 200, &act);
	assert_int_equal(watched(), 0);
	proxy_watch_get_stats(&st);
	assert_int_equal(st.settled, 1);
	assert_int_equal(st.dropped, 0);
}

/* The reads of a port that stays Init: 1, 2, 4 s apart, then every
 * PROXY_WATCH_MAX_MS; unanswered, the read after waits a step longer. */
static void
test_read_spacing(void **state)
{
	struct store_port init = reading(2, 5);
	uint64_t t[5];

	(void)state;
	proxy_watch_reading(GUID, &init, 1);
	for (int i = 0; i < 5; i++) {
		unsigned n = nreads;

		while (nreads == n)
			run_for(100, &init);
		t[i] = now_ms;
	}
	assert_true(t[1] - t[0] >= 2000 && t[1] - t[0] <= 2100);
	assert_true(t[2] - t[1] >= 4000 && t[2] - t[1] <= 4100);
	assert_true(t[3] - t[2] >= PROXY_WATCH_MAX_MS &&
	    t[3] - t[2] <= PROXY_WATCH_MAX_MS + 100);
	/* No answers: still read, never more than the cap apart. */
	max_gap = 0;
	run_for(60000, NULL);
	assert_true(max_gap <= PROXY_WATCH_MAX_MS);
	assert_int_equal(watched(), 1);
}

/* Armed is transient too; a change in between starts the backoff
 * again (reads a second apart). */
static void
test_change_restarts_backoff(void **state)
{
	struct store_port init = reading(2, 5), arm = reading(3, 5);
	unsigned n0;

	(void)state;
	proxy_watch_reading(GUID, &init, 1);
	run_for(30000, &init);
	n0 = nreads;
	proxy_watch_reading(GUID, &arm, 1);
	run_for(1100, &arm);
	assert_int_equal(nreads, n0 + 1);
	assert_int_equal(watched(), 1);
}

/* Gone Down: read until Down for hold-down, then left alone; a return
 * in between (no Report: opensm dropped it) is seen and followed until
 * Active. */
static void
test_down_for_hold_down(void **state)
{
	struct store_port d = reading(1, 2), init = reading(2, 5),
	    act = reading(4, 5);

	(void)state;
	proxy_watch_reading(GUID, &d, 1);
	assert_int_equal(watched(), 1);
	run_for(HOLD - 2000, &d);
	assert_int_equal(watched(), 1);
	run_for(4000 + PROXY_WATCH_MAX_MS, &d);
	assert_int_equal(watched(), 0);

	proxy_watch_reading(GUID, &d, 1);
	run_for(5000, &d);
	run_for(3000, &init);		/* ReLink, unreported */
	assert_int_equal(watched(), 1);
	run_for(PROXY_WATCH_MAX_MS + 200, &act);
	assert_int_equal(watched(), 0);
}

/* A port the damping hands over is read at once, and even Active must
 * hold for the flap window (60 s, longer than hold-down) before it is
 * left alone. */
static void
test_flapping_port(void **state)
{
	struct store_port act = reading(4, 5);
	struct proxy_watch_stats st;

	(void)state;
	store_event_on_settle(NULL, NULL);	/* the watch's hook, by hand */
	proxy_watch_finalise();
	proxy_watch_init(fake_read);
	/* store/events.c calls the hook; here through a flap's end. */
	{
		struct store_event_conf c = { 100, 30000, 1, 60000, HOLD, 0 };
		struct store_event ev;

		assert_int_equal(store_event_init(&c), 0);
		for (int i = 0; i < 4; i++) {
			memset(&ev, 0, sizeof(ev));
			ev.type = i % 2 ? STORE_EV_LINK_UP : STORE_EV_LINK_DOWN;
			ev.node_guid = GUID;
			ev.port = 7;
			(void)store_event_post(&ev);
			now_ms += 10;
		}
	}
	run_for(HOLD + 200, NULL);	/* quiet: the damping lets go */
	proxy_watch_get_stats(&st);
	assert_int_equal(st.flapping, 1);
	assert_true(nreads >= 1);
	run_for(HOLD + 1000, &act);
	assert_int_equal(watched(), 1);	/* Active, not yet for 60 s */
	run_for(60000 - HOLD + PROXY_WATCH_MAX_MS, &act);
	assert_int_equal(watched(), 0);
	store_event_finalise();
}

/* With no Reports, sweeps every discovery.interval carry the bound:
 * reads grow that far apart. */
static void
test_no_reports_slower(void **state)
{
	struct store_port init = reading(2, 5);

	(void)state;
	proxy_watch_configure(0, 60);
	proxy_watch_reading(GUID, &init, 1);
	run_for(600000, &init);
	assert_true(max_gap > PROXY_WATCH_MAX_MS && max_gap <= 60000);
	assert_int_equal(watched(), 1);
}

/* No route any more: dropped, no read. */
static void
test_no_route_dropped(void **state)
{
	struct store_port init = reading(2, 5);
	struct proxy_watch_stats st;

	(void)state;
	no_route = 1;
	proxy_watch_reading(GUID, &init, 1);
	run_for(2000, NULL);
	assert_int_equal(watched(), 0);
	proxy_watch_get_stats(&st);
	assert_int_equal(st.dropped, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_quiet_port_costs_nothing,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_never_given_up,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_spacing, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_change_restarts_backoff,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_down_for_hold_down,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_flapping_port, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_no_reports_slower,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_route_dropped, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
