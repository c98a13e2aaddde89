/* proxy_mad scheduling: the caps on MADs in flight, round-robin across
 * nodes, sends held to a batch's end, a fresh TID per retry, bounded
 * retries, failing a dead node's queue, and exactly one callback per
 * request.
 *
 * The engine's files (proxy/mad*.c) are included, so its static
 * functions can be driven directly: handle_answer() stands for the
 * reader thread and mad_timeout_cb() for the timer. The device side of
 * libibumad is stubbed (open, register, send, port state); libibmad
 * builds and parses the MADs for real. The clock is ev_set_clock()'s. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <cmocka.h>

/* No reader thread: the tests hand answers to handle_answer(). */
#define pthread_create(t, a, fn, x)	((void)(t), (void)(fn), 0)
#define pthread_join(t, r)		((void)(t), (void)(r))

#include "proxy/mad.c"
#include "proxy/mad_encode.c"
#include "proxy/mad_port.c"
#include "proxy/mad_rx.c"
#include "proxy/mad_serve.c"

/* The engine the API works on. */
static struct mad_engine *const e = &mad_eng;

#define MAX_SENT	64
#define MAX_REQS	64
#define UMAD_LEN	((int)umad_size() + PROXY_MAD_SIZE)

/* What umad_send() saw, in order. */
static struct sent {
	uint32_t	tid;
	int		agent;
	uint64_t	node;	/* from the request's callback argument */
	uint8_t		umad[512];	/* umad_size() + PROXY_MAD_SIZE */
} sent[MAX_SENT];
static int nsent;
static int send_errno;		/* umad_send fails with it when set */
static int port_state = 4;	/* what umad_get_port reports */
static uint64_t now_ms = 1000;

/* One per submitted request: its callbacks and the last status. */
static struct req {
	uint64_t	node;
	int		calls;
	int		status;
	int		resubmit;	/* the callback queues one more */
	int		accepted;	/* proxy_mad_submit took it */
} reqs[MAX_REQS];
static int nreqs;
static int resubmit_refused;	/* the engine stops: a resubmit fails */

static int submit(uint64_t node, int optional);

static uint64_t
fake_clock(void)
{
	return now_ms;
}

/* What umad_recv() hands the reader (reader_take): a MAD of recv_len
 * octets for agent recv_agent; over the buffer, -ENOSPC and the length,
 * as the kernel does with an RMPP reassembly (it stays queued). */
static int recv_len = PROXY_MAD_SIZE, recv_agent;

/* Or, with recv_queued set, the MADs queued here (recv_queue), in
 * order, then -EAGAIN as from an empty queue. */
static int recv_queued, recv_n, recv_taken;
/* And then -recv_err (a port error) instead of -EAGAIN. */
static int recv_err;
static struct {
	int	agent;
	uint8_t	umad[512];
} recv_q[8];

/* libibumad, device side. */
int
umad_recv(int fd, void *umad, int *length, int timeout_ms)
{
	if (recv_queued) {
		if (recv_taken == recv_n) {
			errno = recv_err ? recv_err : EAGAIN;
			return -errno;
		}
		memcpy(umad, recv_q[recv_taken].umad, umad_size() +
		    PROXY_MAD_SIZE);
		*length = PROXY_MAD_SIZE;
		return recv_q[recv_taken++].agent;
	}
	if (*length < recv_len) {
		*length = recv_len;
		errno = ENOSPC;
		return -ENOSPC;
	}
	memset(umad, 0, umad_size() + (size_t)recv_len);
	*length = recv_len;
	return recv_agent;
}

int
umad_init(void)
{
	return 0;
}

int
umad_get_port(const char *ca, int portnum, umad_port_t *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->ca_name, sizeof(p->ca_name), "ibsim0");
	p->portnum = 1;
	p->state = port_state;
	p->base_lid = 1;
	return 0;
}

int
umad_release_port(umad_port_t *p)
{
	return 0;
}

int
umad_open_port(const char *ca, int port)
{
	return 100;
}

/* Agents as umad2sim keeps them: 32 slots, and close() frees only one
 * (its loop breaks after the first): what is not unregistered leaks. */
static int agents_live;

int
umad_close_port(int fd)
{
	agents_live -= agents_live > 0;
	return 0;
}

int
umad_register(int fd, int mgmt_class, int version, uint8_t rmpp,
    long method_mask[16 / sizeof(long)])
{
	if (agents_live >= 32) {
		errno = ENOMEM;
		return -1;
	}
	agents_live++;
	return mgmt_class;	/* one agent per class, distinct */
}

int
umad_unregister(int fd, int agentid)
{
	assert_true(agents_live > 0);
	agents_live--;
	return 0;
}

int
umad_send(int fd, int agent, void *umad, int length, int timeout_ms,
    int retries)
{
	void *mad = umad_get_mad(umad);

	if (send_errno) {
		errno = send_errno;
		return -1;
	}
	assert_true(nsent < MAX_SENT);
	sent[nsent].tid = mad_get_field64(mad, 0, IB_MAD_TRID_F) & 0xffffffff;
	sent[nsent].agent = agent;
	/* The attribute modifier carries the request's number. */
	sent[nsent].node = reqs[mad_get_field(mad, 0, IB_MAD_ATTRMOD_F)].node;
	memcpy(sent[nsent].umad, umad, UMAD_LEN);
	nsent++;
	return 0;
}

static void
req_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct req *q = arg;

	q->calls++;
	q->status = status;
	if (q->resubmit) {
		q->resubmit = 0;
		if (resubmit_refused) {
			assert_int_equal(submit(q->node, 0), -1);
			assert_int_equal(errno, ECANCELED);
		} else
			assert_int_equal(submit(q->node, 0), 0);
	}
}

/* Queue a PortInfo SMP for node; the attribute modifier is the
 * request's number, so a sent MAD can be traced back to it. */
static int
submit_to(uint64_t node, int optional, struct req **out)
{
	struct proxy_mad_args a;
	struct req *q;

	assert_true(nreqs < MAX_REQS);
	q = &reqs[nreqs];
	memset(q, 0, sizeof(*q));
	q->node = node;
	q->status = 1;
	memset(&a, 0, sizeof(a));
	a.node_key = node;
	a.mgmt_class = ATTR_CLASS_SMI_DR;
	a.method = IB_MAD_METHOD_GET;
	a.attr_id = IB_ATTR_PORT_INFO;
	a.attr_mod = (uint32_t)nreqs;
	a.optional = (uint8_t)optional;
	a.target.path.cnt = 1;
	a.target.path.hop[1] = 1;
	nreqs++;
	if (out != NULL)
		*out = q;
	if (proxy_mad_submit(&a, req_cb, q) == -1)
		return -1;
	q->accepted = 1;
	return 0;
}

static int
submit(uint64_t node, int optional)
{
	return submit_to(node, optional, NULL);
}

/* Answer the i-th MAD sent, as the fabric would. */
static void
answer(int i, int mad_status)
{
	uint8_t umad[sizeof(sent[0].umad)];
	void *mad = umad_get_mad(umad);

	memcpy(umad, sent[i].umad, sizeof(umad));
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field(mad, 0, IB_DRSMP_STATUS_F, mad_status);
	handle_answer(e, umad, UMAD_LEN);
}

/* Queue the answer to the i-th MAD sent for umad_recv(), or (i < 0)
 * a request to us. */
static void
recv_queue(int i)
{
	void *mad = umad_get_mad(recv_q[recv_n].umad);

	memcpy(recv_q[recv_n].umad, sent[i < 0 ? 0 : i].umad,
	    sizeof(recv_q[0].umad));
	mad_set_field(mad, 0, IB_MAD_RESPONSE_F, i >= 0);
	recv_q[recv_n].agent = sent[i < 0 ? 0 : i].agent;
	recv_n++;
	recv_queued = 1;
}

/* The answer to the i-th MAD sent, as the reader thread queues it for
 * the loop (mad_reader). */
static void
reader_queued(int i)
{
	struct mad_rx *rx;

	assert_non_null(rx = malloc(sizeof(*rx) + e->umad_len));
	memcpy(rx->umad, sent[i].umad, (size_t)UMAD_LEN);
	mad_set_field(umad_get_mad(rx->umad), 0, IB_MAD_RESPONSE_F, 1);
	rx->len = UMAD_LEN;
	rx->mapped = 0;
	rx->next = NULL;
	*e->rx_tail = rx;
	e->rx_tail = &rx->next;
}

static void
expire(void)
{
	now_ms += 1000;
	mad_timeout_cb(e);
}

static int
inflight_for(uint64_t node)
{
	struct mad_req *r;
	int n = 0;

	TAILQ_FOREACH(r, &e->inflight, link)
		n += r->node->key == node;
	return n;
}

static int
start(int retries, int max, int max_node)
{
	ev_init();
	ev_set_clock(fake_clock);
	agents_live = 0;
	nsent = nreqs = send_errno = 0;
	recv_n = recv_taken = resubmit_refused = recv_err = 0;
	recv_queued = 1;	/* an empty port; test_oversized_answer's own */
	port_state = 4;
	memset(&e->st, 0, sizeof(e->st));
	e->state_checked = 0;
	assert_int_equal(proxy_mad_init(NULL, 0, 1000, retries, max,
	    max_node), 0);
	proxy_mad_set_rate(0);
	return 0;
}

static int
setup(void **state)
{
	return start(2, 4, 2);
}

static int
setup_rr(void **state)
{
	return start(2, 1, 4);
}

static int
setup_batch(void **state)
{
	return start(0, 8, 8);
}

static int
teardown(void **state)
{
	proxy_mad_finalise();
	/* Every request taken ended in exactly one callback; a refused
	 * one in none. */
	for (int i = 0; i < nreqs; i++)
		assert_int_equal(reqs[i].calls, reqs[i].accepted);
	ev_finalise();
	return 0;
}

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
		cmocka_unit_test_setup_teardown(test_kernel_timeout, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rate, setup, teardown),
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
		cmocka_unit_test_setup_teardown(test_node_lookup, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_node_stats_perf, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_finalise_cancels, setup,
		    teardown),
	};

	log_init("test_mad", 1, LOG_CRIT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
