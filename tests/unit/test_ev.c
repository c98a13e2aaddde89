/* ev: timer ordering and deletion, descriptor callbacks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/ev.h"

static uint64_t now_ms;
static int order[16], norder;

static uint64_t
fake_clock(void)
{
	return now_ms;
}

static void
fire(void *arg)
{
	order[norder++] = (int)(intptr_t)arg;
}

static void
test_timers(void **state)
{
	struct ev_timer t[6];
	int delays[6] = { 50, 10, 30, 20, 40, 60 };

	ev_init();
	ev_set_clock(fake_clock);
	now_ms = 1000;
	norder = 0;
	for (int i = 0; i < 6; i++) {
		ev_timer_init(&t[i], fire, (void *)(intptr_t)i);
		ev_timer_add(&t[i], delays[i]);
	}
	ev_timer_del(&t[2]);		/* 30 never fires */
	assert_false(ev_timer_pending(&t[2]));
	ev_timer_add(&t[5], 5);		/* re-arming moves it */
	now_ms = 1045;
	ev_run_once(0);
	assert_int_equal(norder, 4);
	assert_int_equal(order[0], 5);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 3);
	assert_int_equal(order[3], 4);
	now_ms = 2000;
	ev_run_once(0);
	assert_int_equal(norder, 5);
	assert_int_equal(order[4], 0);
	ev_set_clock(NULL);
	ev_finalise();
}

static int got_fd;

static void
fd_cb(int fd, short revents, void *arg)
{
	char c;

	got_fd = (revents & POLLIN) && read(fd, &c, 1) == 1 && c == 'x';
}

static void
test_fd(void **state)
{
	int p[2];

	ev_init();
	assert_int_equal(pipe(p), 0);
	assert_int_equal(ev_fd_add(p[0], POLLIN, fd_cb, NULL), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	ev_run_once(1000);
	assert_true(got_fd);
	ev_fd_del(p[0]);
	close(p[0]);
	close(p[1]);
	ev_finalise();
}

static int waiter_on, waits, last_wait_ms;

static int
w_active(void *arg)
{
	return waiter_on;
}

static void
w_wait(void *arg, int wait_ms)
{
	waits++;
	last_wait_ms = wait_ms;
}

static uint64_t clock_ms = 1000;
static int hook_runs;

static int
slow_prepare(void *arg, struct pollfd *pfd, int max, int *timeout)
{
	*timeout = 2000;	/* net-snmp with nothing due */
	return 0;
}

static void
count_dispatch(void *arg, struct pollfd *pfd, int n)
{
	hook_runs++;
}

static uint64_t
test_clock(void)
{
	return clock_ms;
}

/* An active waiter is called at every iteration: without waiting when a
 * descriptor of the loop is ready (it is served too), else for at most a
 * millisecond whatever the loop's own timeout; an inactive one never.
 * Within the millisecond of the loop's last poll() only the waiter
 * runs: the loop's descriptors wait for the next one. */
static void
test_waiter(void **state)
{
	static const struct ev_waiter w = { w_active, w_wait, NULL };
	int p[2];

	ev_init();
	ev_set_clock(test_clock);
	ev_waiter_set(&w);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(ev_fd_add(p[0], POLLIN, fd_cb, NULL), 0);
	ev_run_once(0);
	ev_run_once(50);
	assert_int_equal(waits, 0);
	waiter_on = 1;
	clock_ms++;
	ev_run_once(1000);
	assert_int_equal(waits, 1);
	assert_int_equal(last_wait_ms, 1);
	clock_ms++;
	ev_run_once(-1);
	assert_int_equal(waits, 2);
	assert_int_equal(last_wait_ms, 1);
	got_fd = 0;
	assert_int_equal(write(p[1], "x", 1), 1);
	/* The same millisecond: the waiter alone, the pipe left. */
	ev_run_once(1000);
	assert_int_equal(waits, 3);
	assert_int_equal(last_wait_ms, 1);
	assert_false(got_fd);
	/* The next millisecond: the loop's poll() serves the pipe, at
	 * once after the waiter ran alone (test_waiter_owes_hooks). */
	clock_ms++;
	ev_run_once(1000);
	assert_int_equal(waits, 3);
	assert_true(got_fd);
	got_fd = 0;
	assert_int_equal(write(p[1], "x", 1), 1);
	clock_ms++;
	ev_run_once(1000);
	assert_int_equal(waits, 4);
	assert_int_equal(last_wait_ms, 0);
	assert_true(got_fd);
	/* A zero timeout (work due now) does not wait there either. */
	clock_ms++;
	ev_run_once(0);
	assert_int_equal(waits, 4);
	ev_waiter_set(NULL);
	ev_run_once(0);
	assert_int_equal(waits, 4);
	ev_set_clock(NULL);
	ev_fd_del(p[0]);
	close(p[0]);
	close(p[1]);
	ev_finalise();
}

/* What the waiter completed alone (the answer to a delegated SNMP
 * request) is the hooks' to send at the next iteration, which does not
 * wait for their own timeout first. */
static void
test_waiter_owes_hooks(void **state)
{
	static const struct ev_waiter w = { w_active, w_wait, NULL };
	static const struct ev_hook h = { slow_prepare, count_dispatch, NULL };
	struct timespec t0, t1;

	ev_init();
	ev_set_clock(test_clock);
	assert_int_equal(ev_hook_add(&h), 0);
	ev_waiter_set(&w);
	waiter_on = 1;
	clock_ms++;
	ev_run_once(-1);		/* polls, then the waiter */
	hook_runs = 0;
	ev_run_once(-1);		/* same millisecond: the waiter alone */
	assert_int_equal(hook_runs, 0);
	waiter_on = 0;			/* no MAD in flight any more */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ev_run_once(-1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(hook_runs, 1);
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000000 < 1000);
	ev_waiter_set(NULL);
	ev_set_clock(NULL);
	ev_finalise();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timers),
		cmocka_unit_test(test_fd),
		cmocka_unit_test(test_waiter),
		cmocka_unit_test(test_waiter_owes_hooks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
