/* proxy_mad and its port: deadlines against answers already read, the
 * kernel's timeout echo, the direct reader's coalescing, the port or its
 * link going down, and the drain at exit (the fixture: mad_fixture.h). */
#include "tests/unit/mad_fixture.h"

/* The loop ran late: answers at the port, or queued by the reader
 * thread, when a deadline passes end their requests; only the
 * unanswered are sent again. */
static void
test_timeout_takes_answers_first(void **state)
{
	struct req *q1, *q2;

	assert_int_equal(submit_to(1, 0, &q1), 0);
	assert_int_equal(submit_to(2, 0, &q2), 0);
	assert_int_equal(nsent, 2);
	recv_queue(0);			/* q1's answer, at the port */
	expire();
	assert_int_equal(q1->calls, 1);
	assert_int_equal(q1->status, 0);
	assert_int_equal(q2->calls, 0);
	assert_int_equal(nsent, 3);	/* q2 alone, again */
	assert_int_equal(e->st.retries, 1);
	reader_queued(2);		/* q2's new answer, in the reader's queue */
	expire();
	assert_int_equal(q2->calls, 1);
	assert_int_equal(q2->status, 0);
	assert_int_equal(nsent, 3);
	assert_int_equal(e->st.retries, 1);
	assert_int_equal(e->st.timeouts, 0);
	assert_null(e->rx_head);
}

/* A timer that fires well after the deadline (we were not running)
 * gives what is overdue MAD_GRACE_MS more, once per send: answers still
 * on their way in are taken; a request still unanswered then is sent
 * again, and its new send may have a grace of its own. */
static void
test_late_timer_grace(void **state)
{
	struct req *q1, *q2;

	assert_int_equal(submit_to(1, 0, &q1), 0);
	assert_int_equal(submit_to(2, 0, &q2), 0);
	now_ms += 1000 + MAD_LATE_MS;
	mad_timeout_cb(e);
	assert_int_equal(nsent, 2);		/* nothing sent again yet */
	assert_int_equal(e->st.retries, 0);
	answer(0, 0);				/* q1's comes in the grace */
	assert_int_equal(q1->calls, 1);
	assert_int_equal(q1->status, 0);
	/* Late again, past the graced deadline: no second grace. */
	now_ms += MAD_GRACE_MS + MAD_LATE_MS;
	mad_timeout_cb(e);
	assert_int_equal(nsent, 3);
	assert_int_equal(e->st.retries, 1);
	/* The new send's own grace, then its end on time. */
	now_ms += 1000 + MAD_LATE_MS;
	mad_timeout_cb(e);
	assert_int_equal(nsent, 3);
	now_ms += MAD_GRACE_MS;
	mad_timeout_cb(e);
	assert_int_equal(nsent, 4);
	assert_int_equal(e->st.retries, 2);
	assert_int_equal(q2->calls, 0);
	/* Late but within MAD_LATE_MS: no grace; retries spent. */
	now_ms += 1000 + MAD_LATE_MS - 1;
	mad_timeout_cb(e);
	assert_int_equal(q2->calls, 1);
	assert_int_equal(q2->status, -ETIMEDOUT);
}

/* The kernel's timeout echo (our request back, status ETIMEDOUT) sends
 * that request again, and only it: the answer to another overdue one,
 * next in the same batch, still ends that one. */
static void
test_kernel_echo_alone(void **state)
{
	struct req *q1, *q2;
	uint8_t umad[sizeof(sent[0].umad)];

	assert_int_equal(submit_to(1, 0, &q1), 0);
	assert_int_equal(submit_to(2, 0, &q2), 0);
	now_ms += 1000 + MAD_LATE_MS;		/* both overdue */
	memcpy(umad, sent[0].umad, sizeof(umad));
	((struct ib_user_mad *)umad)->status = ETIMEDOUT;
	handle_answer(e, umad, UMAD_LEN);
	assert_int_equal(nsent, 3);		/* q1 alone, again */
	assert_int_equal(sent[2].node, 1);
	answer(1, 0);
	assert_int_equal(q2->calls, 1);
	assert_int_equal(q2->status, 0);
	assert_int_equal(e->st.retries, 1);
	assert_int_equal(e->st.stale, 0);
}

/* The direct reader waits a little before it reads (coalescing) only
 * with a wide window mostly out and a small last read. */
static void
test_coalesce(void **state)
{
	e->max = 64;
	e->inflight_n = 64;
	e->last_batch = 1;
	assert_int_equal(coalesce_us(e), MAD_COALESCE_US);
	e->last_batch = MAD_COALESCE_BATCH;	/* the last read took a run */
	assert_int_equal(coalesce_us(e), 0);
	e->last_batch = 0;
	e->inflight_n = 31;			/* under half the window */
	assert_int_equal(coalesce_us(e), 0);
	e->inflight_n = 32;
	assert_int_equal(coalesce_us(e), MAD_COALESCE_US);
	e->max = 8;				/* a narrow window: never */
	e->inflight_n = 8;
	assert_int_equal(coalesce_us(e), 0);
	e->max = 16;
	e->inflight_n = MAD_COALESCE_OUT;
	assert_int_equal(coalesce_us(e), MAD_COALESCE_US);
	e->inflight_n = 0;			/* as it was, for teardown */
}

/* The kernel's timeout (umad status ETIMEDOUT) retries at once. */
static void
test_kernel_timeout(void **state)
{
	struct req *q;
	uint8_t umad[sizeof(sent[0].umad)];

	assert_int_equal(submit_to(1, 0, &q), 0);
	memcpy(umad, sent[0].umad, sizeof(umad));
	((struct ib_user_mad *)umad)->status = ETIMEDOUT;
	handle_answer(e, umad, UMAD_LEN);
	assert_int_equal(nsent, 2);
	assert_int_not_equal(sent[1].tid, sent[0].tid);
	assert_int_equal(q->calls, 0);
	answer(1, 0);
	assert_int_equal(q->status, 0);
}

/* The device going away fails everything at once with -ENETDOWN and
 * refuses new requests until the port is back. */
static void
test_port_down(void **state)
{
	for (int i = 0; i < 6; i++)
		assert_int_equal(submit(1 + i % 2, 0), 0);
	assert_int_equal(nsent, 4);
	send_errno = ENODEV;
	answer(0, 0);			/* frees a slot; the next send fails */
	assert_int_equal(reqs[0].status, 0);
	for (int i = 1; i < 6; i++)
		assert_int_equal(reqs[i].status, -ENETDOWN);
	assert_int_equal(e->inflight_n, 0);
	assert_int_equal(e->queued_n, 0);
	assert_false(proxy_mad_port_up());
	assert_int_equal(submit(1, 0), -1);
	assert_int_equal(errno, ENETDOWN);
	/* Reopened by the backoff timer once the port is active. */
	send_errno = 0;
	reopen_cb(e);
	assert_true(proxy_mad_port_up());
	assert_int_equal(submit(1, 0), 0);
	answer(nsent - 1, 0);
	assert_int_equal(reqs[nreqs - 1].status, 0);
	/* As often as it fails: no agent is left behind by a reopen (the
	 * 8th failed under umad2sim when close alone freed them). */
	for (int i = 0; i < 20; i++) {
		port_failed(e, "test", ENODEV);
		assert_false(proxy_mad_port_up());
		reopen_cb(e);
		assert_true(proxy_mad_port_up());
		assert_int_equal(agents_live, 5);
	}
}

/* Silence from everyone while the local link is down is the port's
 * fault, not the nodes': -ENETDOWN, not -ETIMEDOUT. */
static void
test_local_link_down(void **state)
{
	struct req *q;

	assert_int_equal(submit_to(1, 0, &q), 0);
	port_state = 1;
	expire();
	assert_int_equal(q->status, -ENETDOWN);
	assert_int_equal(e->st.timeouts, 0);
	assert_int_equal(e->st.port_failures, 1);
}

/* Shutdown ends what is queued and in flight with -ECANCELED. */
static void
test_finalise_cancels(void **state)
{
	for (int i = 0; i < 8; i++)
		assert_int_equal(submit(1 + i % 3, 0), 0);
	proxy_mad_finalise();
	for (int i = 0; i < 8; i++)
		assert_int_equal(reqs[i].status, -ECANCELED);
	/* teardown finalises again: harmless. */
	assert_int_equal(proxy_mad_init(NULL, 0, 1000, 2, 4, 2), 0);
}

/* Before the process exits, the answers to what is in flight are read
 * (umad2sim hangs an exit that a MAD arrives in): those the reader
 * thread had taken and those still queued. Each ends its request with
 * -ECANCELED, as the stop ends the others; a callback cannot send
 * more; what is not an answer is dropped; and the unanswered are waited
 * for no longer than the MAD timeout. */
static void
test_exit_drains(void **state)
{
	for (int i = 0; i < 4; i++)
		assert_int_equal(submit(1 + i % 2, 0), 0);
	assert_int_equal(nsent, 4);
	reqs[0].resubmit = 1;
	resubmit_refused = 1;
	recv_queue(0);
	recv_queue(-1);		/* a request to us: dropped */
	recv_queue(2);
	reader_queued(1);	/* the second's, taken by the reader thread */

	e->stopping = 1;	/* as proxy_mad_stop sets it */
	/* The wait is the machine's time: the loop does not run. */
	ev_set_clock(NULL);
	mad_rx_drain(e, 20, drop_answer);	/* the fourth never comes */
	assert_int_equal(e->inflight_n, 1);
	assert_int_equal(recv_taken, 3);
	assert_null(e->rx_head);
	assert_int_equal(nsent, 4);
	assert_int_equal(nreqs, 5);	/* the resubmit, refused */
	assert_int_equal(reqs[4].accepted, 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(reqs[i].calls, 1);
		assert_int_equal(reqs[i].status, -ECANCELED);
	}
	assert_int_equal(reqs[3].calls, 0);

	/* The exit's stop: the same, then the rest ends. */
	e->timeout = 20;
	proxy_mad_exiting();
	proxy_mad_stop();
	ev_set_clock(fake_clock);
	assert_int_equal(reqs[3].calls, 1);
	assert_int_equal(reqs[3].status, -ECANCELED);
	assert_int_equal(proxy_mad_init(NULL, 0, 1000, 2, 4, 2), 0);
}

/* A port that fails during the exit's drain ends it at once: no
 * answer can come, and its poll() would not wait (a busy loop for the
 * whole MAD timeout). */
static void
test_exit_drain_port_fails(void **state)
{
	struct timespec t0, t1;
	long ms;

	assert_int_equal(submit(1, 0), 0);
	assert_int_equal(submit(2, 0), 0);
	recv_queue(0);
	recv_err = EIO;
	e->stopping = 1;
	ev_set_clock(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	mad_rx_drain(e, 5000, drop_answer);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ev_set_clock(fake_clock);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) /
	    1000000;
	assert_true(ms < 1000);
	assert_int_equal(recv_taken, 1);
	assert_int_equal(e->inflight_n, 1);
	assert_int_equal(reqs[0].status, -ECANCELED);
	assert_int_equal(reqs[1].calls, 0);
	recv_err = 0;
	proxy_mad_stop();
	assert_int_equal(reqs[1].status, -ECANCELED);
	assert_int_equal(proxy_mad_init(NULL, 0, 1000, 2, 4, 2), 0);
}

/* A stop that is not the process's exit reads nothing. */
static void
test_stop_no_drain(void **state)
{
	assert_int_equal(submit(1, 0), 0);
	recv_queue(0);
	proxy_mad_stop();
	assert_int_equal(recv_taken, 0);
	assert_int_equal(reqs[0].status, -ECANCELED);
	assert_int_equal(proxy_mad_init(NULL, 0, 1000, 2, 4, 2), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kernel_timeout, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_port_down, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_local_link_down, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_exit_drains, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_exit_drain_port_fails,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_no_drain, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_timeout_takes_answers_first,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_timer_grace, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_coalesce, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_echo_alone, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_finalise_cancels, setup,
		    teardown),
	};

	log_init("test_mad_port", 1, LOG_CRIT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
