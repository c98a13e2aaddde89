/* mad_fixture: what test_mad and test_mad_port share. The engine's
 * files (proxy/mad*.c) are included, so its static functions can be
 * driven directly: handle_answer() stands for the reader thread and
 * mad_timeout_cb() for the timer. The device side of libibumad is
 * stubbed (open, register, send, port state); libibmad builds and
 * parses the MADs for real. The clock is ev_set_clock()'s. Included by
 * one test file per program. */
#ifndef IBSNMPGW_MAD_FIXTURE_H
#define IBSNMPGW_MAD_FIXTURE_H

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

static __attribute__((unused)) uint64_t
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

static __attribute__((unused)) void
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

/* Queue a PortInfo SMP for node, by LID lid or (lid 0) by the directed
 * route 1; the attribute modifier is the request's number, so a sent
 * MAD can be traced back to it. */
static int
submit_by(uint64_t node, int optional, uint16_t lid, struct req **out)
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
	a.mgmt_class = lid ? ATTR_CLASS_SMI : ATTR_CLASS_SMI_DR;
	a.method = IB_MAD_METHOD_GET;
	a.attr_id = IB_ATTR_PORT_INFO;
	a.attr_mod = (uint32_t)nreqs;
	a.optional = (uint8_t)optional;
	a.target.lid = lid;
	a.target.path.cnt = lid ? 0 : 1;
	a.target.path.hop[1] = lid ? 0 : 1;
	nreqs++;
	if (out != NULL)
		*out = q;
	if (proxy_mad_submit(&a, req_cb, q) == -1)
		return -1;
	q->accepted = 1;
	return 0;
}

static __attribute__((unused)) int
submit_to(uint64_t node, int optional, struct req **out)
{
	return submit_by(node, optional, 0, out);
}

static __attribute__((unused)) int
submit(uint64_t node, int optional)
{
	return submit_to(node, optional, NULL);
}

/* Answer the i-th MAD sent, as the fabric would. */
static __attribute__((unused)) void
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
static __attribute__((unused)) void
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
static __attribute__((unused)) void
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

static __attribute__((unused)) void
expire(void)
{
	now_ms += 1000;
	mad_timeout_cb(e);
}

static __attribute__((unused)) int
inflight_for(uint64_t node)
{
	struct mad_req *r;
	int n = 0;

	TAILQ_FOREACH(r, &e->inflight, link)
		n += r->node->key == node;
	return n;
}

static __attribute__((unused)) int
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

static __attribute__((unused)) int
setup(void **state)
{
	return start(2, 4, 2);
}

static __attribute__((unused)) int
setup_rr(void **state)
{
	return start(2, 1, 4);
}

static __attribute__((unused)) int
setup_batch(void **state)
{
	return start(0, 8, 8);
}

static __attribute__((unused)) int
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

#endif
