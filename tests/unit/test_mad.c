/* proxy_mad scheduling: the caps on MADs in flight, round-robin across
 * nodes, sends held to a batch's end, a fresh TID per retry, bounded
 * retries, failing a dead node's queue, garbled and stray answers, and
 * exactly one callback per request (the fixture: mad_fixture.h). */
#include "tests/unit/mad_fixture.h"
/* Never more than max in flight in all, nor max_node per node; each
 * answer lets exactly one more out. */
static void
test_caps(void **state)
{
	for (uint64_t n = 1; n <= 3; n++)
		for (int i = 0; i < 3; i++)
			assert_int_equal(submit(n, 0), 0);
	assert_int_equal(nsent, 4);
	assert_int_equal(e->inflight_n, 4);
	for (uint64_t n = 1; n <= 3; n++)
		assert_true(inflight_for(n) <= 2);
	for (int done = 0; done < 9; done++) {
		int before = nsent;

		answer(done, 0);
		assert_int_equal(nsent, before + (before < 9));
		assert_true(e->inflight_n <= 4);
		for (uint64_t n = 1; n <= 3; n++)
			assert_true(inflight_for(n) <= 2);
	}
	for (int i = 0; i < 9; i++)
		assert_int_equal(reqs[i].status, 0);
	assert_int_equal(e->queued_n, 0);
	assert_int_equal(e->inflight_n, 0);
}

/* A batch of answers (mad_rx.c): what their callbacks submit waits for
 * the batch's end while half the window is still out, and goes at once
 * when fewer are; outside a batch, at once. */
static void
test_batch(void **state)
{
	for (int i = 0; i < 8; i++) {
		assert_int_equal(submit((uint64_t)i + 1, 0), 0);
		reqs[i].resubmit = 1;
	}
	assert_int_equal(nsent, 8);
	e->batch = 1;
	for (int i = 0; i < 4; i++) {
		answer(i, 0);
		assert_int_equal(nsent, 8);	/* 7 to 4 still out: held */
	}
	assert_int_equal(e->queued_n, 4);
	answer(4, 0);		/* 3 out, under half: the 5 held go now */
	assert_int_equal(nsent, 13);
	assert_int_equal(e->inflight_n, 8);
	e->deliver_end(e);
	assert_int_equal(e->batch, 0);
	assert_int_equal(nsent, 13);
	e->batch = 1;
	answer(5, 0);
	assert_int_equal(nsent, 13);	/* held to the batch's end */
	e->deliver_end(e);
	assert_int_equal(nsent, 14);
	answer(6, 0);			/* no batch: at once */
	assert_int_equal(nsent, 15);
	for (int i = 7; i < nsent; i++)
		answer(i, 0);
	assert_int_equal(nsent, 16);
	assert_int_equal(e->inflight_n, 0);
	assert_int_equal(e->queued_n, 0);
}

/* One in flight at a time: a node with a long queue takes one turn
 * per round instead of sending its whole queue first. A node goes to
 * the back of the ring when it sends; a newcomer joins at the back. */
static void
test_round_robin(void **state)
{
	uint64_t want[] = { 1, 1, 2, 3, 1, 2, 2 };

	for (int i = 0; i < 3; i++)
		assert_int_equal(submit(1, 0), 0);	/* the first goes out */
	for (int i = 0; i < 3; i++)
		assert_int_equal(submit(2, 0), 0);
	assert_int_equal(submit(3, 0), 0);
	for (int i = 0; i < 7; i++) {
		assert_int_equal(nsent, i + 1);
		assert_int_equal(sent[i].node, want[i]);
		answer(i, 0);
	}
	assert_int_equal(nsent, 7);
}

/* A retry carries a new TID: a late answer to the old one is dropped,
 * and the answer to the new one ends the request. */
static void
test_retry_fresh_tid(void **state)
{
	struct req *q;

	assert_int_equal(submit_to(1, 0, &q), 0);
	assert_int_equal(nsent, 1);
	expire();
	assert_int_equal(nsent, 2);
	assert_int_not_equal(sent[1].tid, sent[0].tid);
	assert_int_equal(e->st.retries, 1);
	answer(0, 0);			/* late, for the first TID */
	assert_int_equal(q->calls, 0);
	assert_int_equal(e->inflight_n, 1);
	answer(1, 0);
	assert_int_equal(q->calls, 1);
	assert_int_equal(q->status, 0);
	answer(1, 0);			/* a duplicate of the last one */
	assert_int_equal(q->calls, 1);
	assert_int_equal(e->st.answered, 1);
	/* The node's own counts (ctl node): both sends, one a retry. */
	{
		struct proxy_mad_node_stats ns;

		assert_int_equal(proxy_mad_node_stats(1, &ns), 0);
		assert_int_equal(ns.sent, 2);
		assert_int_equal(ns.retries, 1);
		assert_int_equal(ns.perf_sent, 0);
		assert_int_equal(ns.timeouts, 0);
	}
}

/* node_get's last node: submits that alternate between nodes, and
 * runs to one, are each counted on their own node (and capped per
 * node); after a stop and a new start no old node is handed out (the
 * sanitizer build sees a use after free). */
static void
test_node_lookup(void **state)
{
	static const uint64_t keys[] = { 1, 2, 1, 1, 3, 2, 1 };
	struct proxy_mad_node_stats ns;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_int_equal(submit(keys[i], 0), 0);
	/* max 4, max_node 2: 1, 2, 1 and 3 out; then one per answer. */
	assert_int_equal(nsent, 4);
	assert_int_equal(inflight_for(1), 2);
	for (int i = 0; i < nsent; i++)
		answer(i, 0);
	assert_int_equal(nsent, 7);
	assert_int_equal(proxy_mad_node_stats(1, &ns), 0);
	assert_int_equal(ns.sent, 4);
	assert_int_equal(proxy_mad_node_stats(2, &ns), 0);
	assert_int_equal(ns.sent, 2);
	assert_int_equal(proxy_mad_node_stats(3, &ns), 0);
	assert_int_equal(ns.sent, 1);
	proxy_mad_stop();
	proxy_mad_finalise();
	ev_finalise();
	start(2, 4, 2);
	assert_int_equal(submit(1, 0), 0);
	assert_int_equal(proxy_mad_node_stats(1, &ns), 0);
	assert_int_equal(ns.sent, 1);
	answer(0, 0);
}

/* PerfMgt MADs are counted apart, per node too. */
static void
test_node_stats_perf(void **state)
{
	struct proxy_mad_args a;
	struct proxy_mad_node_stats ns;
	struct req *q = &reqs[nreqs++];

	memset(q, 0, sizeof(*q));
	memset(&a, 0, sizeof(a));
	a.node_key = 7;
	a.target.lid = 5;
	a.mgmt_class = ATTR_CLASS_PERF;
	a.method = IB_MAD_METHOD_GET;
	a.attr_id = 0x12;		/* PortCounters */
	assert_int_equal(proxy_mad_submit(&a, req_cb, q), 0);
	q->accepted = 1;
	assert_int_equal(submit(7, 0), 0);
	assert_int_equal(proxy_mad_node_stats(7, &ns), 0);
	assert_int_equal(ns.sent, 2);
	assert_int_equal(ns.perf_sent, 1);
	assert_int_equal(ns.retries, 0);
	/* Both sent again: retries, not more PerfMgt requests, so sent -
	 * PerfMgt - retries stays the SMP request's one. */
	expire();
	assert_int_equal(proxy_mad_node_stats(7, &ns), 0);
	assert_int_equal(ns.sent, 4);
	assert_int_equal(ns.perf_sent, 1);
	assert_int_equal(ns.retries, 2);
	assert_int_equal(ns.sent - ns.perf_sent - ns.retries, 1);
	assert_int_equal(proxy_mad_node_stats(8, &ns), -1);
	assert_int_equal(ns.sent, 0);
}

/* 1 + retries sends, then one -ETIMEDOUT; every TID differs. */
static void
test_retries_bounded(void **state)
{
	struct req *q;

	assert_int_equal(submit_to(1, 0, &q), 0);
	for (int i = 0; i < 5; i++)
		expire();
	assert_int_equal(nsent, 3);
	assert_int_not_equal(sent[0].tid, sent[1].tid);
	assert_int_not_equal(sent[1].tid, sent[2].tid);
	assert_int_not_equal(sent[0].tid, sent[2].tid);
	assert_int_equal(q->calls, 1);
	assert_int_equal(q->status, -ETIMEDOUT);
	assert_int_equal(e->st.timeouts, 1);
	assert_int_equal(e->st.retries, 2);
	assert_int_equal(e->inflight_n, 0);
	assert_false(ev_timer_pending(&e->timer));
}

/* A node silent to a mandatory attribute: what is queued for it fails
 * at once with -EHOSTUNREACH, never sent; other nodes go on. */
static void
test_dead_node_fails_queue(void **state)
{
	struct req *a1, *a2, *a3, *b;

	/* max_node 2: a1 and a2 go out, a3 waits. */
	assert_int_equal(submit_to(1, 0, &a1), 0);
	assert_int_equal(submit_to(1, 0, &a2), 0);
	assert_int_equal(submit_to(1, 1, &a3), 0);
	assert_int_equal(submit_to(2, 0, &b), 0);
	assert_int_equal(nsent, 3);
	answer(2, 0);			/* b */
	assert_int_equal(b->calls, 1);
	for (int i = 0; i < 3; i++)
		expire();
	assert_int_equal(a1->status, -ETIMEDOUT);
	assert_int_equal(a2->status, -ETIMEDOUT);
	/* a3 was never sent: 2 x 3 sends of a1, a2, and b. */
	assert_int_equal(nsent, 7);
	assert_int_equal(a3->calls, 1);
	assert_int_equal(a3->status, -EHOSTUNREACH);
	assert_int_equal(e->st.timeouts, 2);
	assert_int_equal(e->queued_n, 0);
}

/* A silence fails the queue of its own way only: a request queued for
 * the same node by LID, after a directed-route one went silent, is sent
 * (a link-down on one path leaves the node's other ways working,
 * proxy/health.h); a second directed-route one fails at once. */
static void
test_dead_way_fails_its_queue(void **state)
{
	struct req *dr1, *by_lid, *dr2;

	e->max_node = 1;
	assert_int_equal(submit_by(1, 0, 0, &dr1), 0);
	assert_int_equal(submit_by(1, 0, 7, &by_lid), 0);
	assert_int_equal(submit_by(1, 0, 0, &dr2), 0);
	assert_int_equal(nsent, 1);
	for (int i = 0; i < 3; i++)
		expire();
	assert_int_equal(dr1->status, -ETIMEDOUT);
	assert_int_equal(dr2->calls, 1);
	assert_int_equal(dr2->status, -EHOSTUNREACH);
	/* The LID-routed one went out after dr1's last try. */
	assert_int_equal(by_lid->calls, 0);
	assert_int_equal(nsent, 4);
	answer(3, 0);
	assert_int_equal(by_lid->calls, 1);
	assert_int_equal(by_lid->status, 0);
	assert_int_equal(e->queued_n, 0);
	assert_int_equal(e->inflight_n, 0);
}

/* An optional attribute a live node drops fails alone. */
static void
test_optional_timeout_keeps_queue(void **state)
{
	struct req *opt, *a2, *a3;

	assert_int_equal(submit_to(1, 1, &opt), 0);
	assert_int_equal(submit_to(1, 0, &a2), 0);
	assert_int_equal(submit_to(1, 0, &a3), 0);
	assert_int_equal(nsent, 2);
	answer(1, 0);			/* a2; a3 goes out */
	assert_int_equal(nsent, 3);
	answer(2, 0);			/* a3 */
	for (int i = 0; i < 3; i++)
		expire();
	assert_int_equal(opt->status, -ETIMEDOUT);
	assert_int_equal(a2->status, 0);
	assert_int_equal(a3->status, 0);

	/* Queued behind a silent optional one: still sent after it. */
	struct req *o2, *m1;

	e->max_node = 1;
	assert_int_equal(submit_to(2, 1, &o2), 0);
	assert_int_equal(submit_to(2, 0, &m1), 0);
	for (int i = 0; i < 3; i++)
		expire();
	assert_int_equal(o2->status, -ETIMEDOUT);
	assert_int_equal(m1->calls, 0);
	answer(nsent - 1, 0);
	assert_int_equal(m1->status, 0);
}

/* A callback that queues for the node whose queue is being failed:
 * the new request is neither lost nor failed with the old ones. */
static void
test_fail_queue_resubmit(void **state)
{
	struct req *a1, *a2, *a3;

	e->max_node = 1;
	assert_int_equal(submit_to(1, 0, &a1), 0);
	assert_int_equal(submit_to(1, 0, &a2), 0);
	assert_int_equal(submit_to(1, 0, &a3), 0);
	a2->resubmit = 1;
	for (int i = 0; i < 3; i++)
		expire();
	assert_int_equal(a1->status, -ETIMEDOUT);
	assert_int_equal(a2->status, -EHOSTUNREACH);
	assert_int_equal(a3->status, -EHOSTUNREACH);
	/* The request a2's callback queued was sent. */
	assert_int_equal(nreqs, 4);
	assert_int_equal(reqs[3].calls, 0);
	assert_int_equal(nsent, 4);
	answer(3, 0);
	assert_int_equal(reqs[3].status, 0);
}

/* A garbled answer is asked again within the same tries, and ends in
 * -EPROTO, not -ETIMEDOUT: the node answered, its queue stays. */
static void
test_garbled(void **state)
{
	struct req *q, *q2;
	uint8_t umad[sizeof(sent[0].umad)];

	assert_int_equal(submit_to(1, 0, &q), 0);	/* request 0 */
	assert_int_equal(submit_to(1, 0, &q2), 0);
	for (int i = 0; i < 3; i++) {
		int j = nsent - 1;

		/* The newest send of request 0, answered with another
		 * attribute's ID. */
		while (mad_get_field(umad_get_mad(sent[j].umad), 0,
		    IB_MAD_ATTRMOD_F) != 0)
			j--;
		memcpy(umad, sent[j].umad, sizeof(umad));
		mad_set_field(umad_get_mad(umad), 0, IB_MAD_RESPONSE_F, 1);
		mad_set_field(umad_get_mad(umad), 0, IB_MAD_ATTRID_F,
		    IB_ATTR_NODE_INFO);
		handle_answer(e, umad, UMAD_LEN);
	}
	assert_int_equal(q->calls, 1);
	assert_int_equal(q->status, -EPROTO);
	assert_int_equal(e->st.malformed, 3);
	assert_int_equal(e->st.timeouts, 0);
	/* q2 was not failed with it, and is answered normally. */
	assert_int_equal(q2->calls, 0);
	answer(1, 0);
	assert_int_equal(q2->status, 0);
}

/* An answer with another attribute modifier (another port, another
 * block) answers something else: malformed, asked again. */
static void
test_other_modifier(void **state)
{
	struct req *q;
	uint8_t umad[sizeof(sent[0].umad)];
	void *mad = umad_get_mad(umad);

	assert_int_equal(submit_to(1, 0, &q), 0);
	memcpy(umad, sent[0].umad, sizeof(umad));
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, 5);
	handle_answer(e, umad, UMAD_LEN);
	assert_int_equal(e->st.malformed, 1);
	assert_int_equal(q->calls, 0);
	assert_int_equal(nsent, 2);		/* asked again */
	answer(1, 0);
	assert_int_equal(q->status, 0);
}

/* Answers nothing waits for (a duplicate, a late one, one to a TID
 * never sent) are dropped and counted; the request is not disturbed.
 * An SMP request to us that we do not answer is counted unexpected. */
static void
test_unknown_tid(void **state)
{
	struct req *q;
	uint8_t umad[sizeof(sent[0].umad)];
	void *mad = umad_get_mad(umad);

	assert_int_equal(submit_to(1, 0, &q), 0);
	memcpy(umad, sent[0].umad, sizeof(umad));
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field64(mad, 0, IB_MAD_TRID_F, sent[0].tid ^ 0x10000);
	handle_answer(e, umad, UMAD_LEN);		/* never sent */
	assert_int_equal(e->st.stale, 1);
	assert_int_equal(q->calls, 0);
	answer(0, 0);
	assert_int_equal(q->status, 0);
	answer(0, 0);				/* twice */
	assert_int_equal(e->st.stale, 2);
	assert_int_equal(e->st.answered, 1);
	/* A SubnSet to us (no SMInfo Get, no IsSM): a request, ignored. */
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 0);
	mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_SET);
	handle_answer(e, umad, UMAD_LEN);
	assert_int_equal(e->st.requests, 1);
	assert_int_equal(e->st.unexpected, 1);
	assert_int_equal(e->st.stale, 2);
}

/* An answer larger than the reader takes would stay first in the
 * kernel's queue and block every later MAD: the port is reopened (its
 * queue goes with it). One it takes is read whole; one for an agent not
 * ours is counted and dropped. */
static void
test_oversized_answer(void **state)
{
	struct mad_rx *rx = NULL, *spare = NULL, *kept;

	recv_queued = 0;
	recv_agent = e->agent_sa;
	recv_len = 4096;
	assert_int_equal(reader_take(e, &rx, &spare), 0);
	assert_non_null(rx);
	assert_int_equal(rx->len, 4096 + (int)umad_size());
	rx_keep(rx, &spare);		/* not the usual size: freed */
	assert_null(spare);
	recv_len = 4 << 20;		/* a mapping of its own */
	assert_int_equal(reader_take(e, &rx, &spare), 0);
	assert_int_equal(rx->len, (4 << 20) + (int)umad_size());
	assert_true(rx->mapped >= (size_t)rx->len);
	rx_keep(rx, &spare);
	assert_null(spare);
	recv_agent = 999;
	recv_len = PROXY_MAD_SIZE;
	assert_int_equal(reader_take(e, &rx, &spare), 0);
	assert_null(rx);
	assert_int_equal(atomic_load(&e->stray), 1);
	/* The dropped one's buffer is the next read's (not under ASan). */
	assert_true(REQ_SPARE == 0 ? spare == NULL : spare != NULL);
	kept = spare;
	recv_agent = e->agent_sa;
	assert_int_equal(reader_take(e, &rx, &spare), 0);
	assert_null(spare);
	if (REQ_SPARE > 0)
		assert_ptr_equal(rx, kept);
	rx_keep(rx, &spare);
	rx_free(spare);
	recv_len = MAD_RMPP_MAX + 1;
	assert_int_equal(reader_take(e, &rx, NULL), EMSGSIZE);
	(void)reader_quit(e, EMSGSIZE);
	mad_wake_cb(e->wake[0], POLLIN, e);
	assert_int_equal(proxy_mad_port_up(), 0);
	assert_int_equal(e->st.port_failures, 1);
	recv_len = PROXY_MAD_SIZE;
	recv_agent = 0;
}

/* A MAD status error ends the request with -EIO at once. */
static void
test_status_error(void **state)
{
	struct req *q;

	assert_int_equal(submit_to(1, 0, &q), 0);
	answer(0, 0x001c);		/* unsupported attribute */
	assert_int_equal(q->status, -EIO);
	assert_int_equal(nsent, 1);
	assert_int_equal(e->st.errors, 1);
}

/* args.ctx travels in the request: the callback's arg is a copy, made
 * at submit (the caller's buffer may be gone), and over PROXY_MAD_CTX
 * is refused. */
static uint8_t	ctx_seen[PROXY_MAD_CTX];
static int	ctx_status = 1;
static const void *ctx_arg;

static void
ctx_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	memcpy(ctx_seen, arg, sizeof(ctx_seen));
	ctx_arg = arg;
	ctx_status = status;
}

static void
test_ctx_copied(void **state)
{
	struct proxy_mad_args a;
	uint8_t ctx[PROXY_MAD_CTX];

	memset(&a, 0, sizeof(a));
	a.node_key = 7;
	a.mgmt_class = ATTR_CLASS_SMI_DR;
	a.method = IB_MAD_METHOD_GET;
	a.attr_id = IB_ATTR_PORT_INFO;
	a.target.path.cnt = 1;
	a.target.path.hop[1] = 1;
	for (size_t i = 0; i < sizeof(ctx); i++)
		ctx[i] = (uint8_t)(i * 7 + 1);
	a.ctx = ctx;
	a.ctx_len = sizeof(ctx);
	assert_int_equal(proxy_mad_submit(&a, ctx_cb, NULL), 0);
	memset(ctx, 0, sizeof(ctx));	/* the caller's copy goes */
	answer(0, 0);
	assert_int_equal(ctx_status, 0);
	assert_true(ctx_arg != NULL && ctx_arg != (const void *)ctx);
	for (size_t i = 0; i < sizeof(ctx); i++)
		assert_int_equal(ctx_seen[i], (uint8_t)(i * 7 + 1));
	a.ctx_len = PROXY_MAD_CTX + 1;
	assert_int_equal(proxy_mad_submit(&a, ctx_cb, NULL), -1);
	assert_int_equal(nsent, 1);
}

/* The token bucket: a burst of rate/20 + 1, then one MAD per token as
 * the clock moves; retries take tokens too. */
static void
test_rate(void **state)
{
	e->max = e->max_node = 64;
	proxy_mad_set_rate(20);		/* burst of 2 */
	for (int i = 0; i < 6; i++)
		assert_int_equal(submit(1 + i, 0), 0);
	assert_int_equal(nsent, 2);
	assert_true(e->st.throttled > 0);
	assert_true(ev_timer_pending(&e->rate_timer));
	now_ms += 100;			/* two more tokens */
	rate_timer_cb(e);
	assert_int_equal(nsent, 4);
	now_ms += 1000;
	rate_timer_cb(e);
	assert_int_equal(nsent, 6);
	for (int i = 0; i < 6; i++)
		answer(i, 0);
}

/* proxy_mad_status reads what libibmad's status fields read: a
 * directed-route SMP's 15 bits (its D bit apart), the whole 16 else. */
static void
test_status_field(void **state)
{
	uint8_t mad[256];

	(void)state;
	memset(mad, 0, sizeof(mad));
	mad[1] = ATTR_CLASS_SMI_DR;
	mad[4] = 0x80;			/* D: the answer's direction */
	mad[5] = 0x1c;
	assert_int_equal(proxy_mad_status(mad), 0x001c);
	assert_int_equal(proxy_mad_status(mad),
	    (int)mad_get_field(mad, 0, IB_DRSMP_STATUS_F));
	mad[1] = ATTR_CLASS_PERF;
	mad[4] = 0x81;
	mad[5] = 0x04;
	assert_int_equal(proxy_mad_status(mad), 0x8104);
	assert_int_equal(proxy_mad_status(mad),
	    (int)mad_get_field(mad, 0, IB_MAD_STATUS_F));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_field),
		cmocka_unit_test_setup_teardown(test_caps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch, setup_batch,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ctx_copied, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_round_robin, setup_rr,
		    teardown),
		cmocka_unit_test_setup_teardown(test_retry_fresh_tid, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_retries_bounded, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_dead_node_fails_queue,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_way_fails_its_queue,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_optional_timeout_keeps_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fail_queue_resubmit,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_modifier, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_unknown_tid, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_oversized_answer, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_status_error, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_lookup, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_node_stats_perf, setup,
		    teardown),
	};

	log_init("test_mad", 1, LOG_CRIT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
