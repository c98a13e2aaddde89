/* proxy_mad: the MAD engine's scheduler. Requests queue per node and
 * go out round-robin under the caps and the rate limit, each with its
 * slot (TID), deadline and retries; answers are matched to them here.
 * The port is proxy/mad_port.c's, reading it proxy/mad_rx.c's, encoding
 * proxy/mad_encode.c's, requests to us proxy/mad_serve.c's. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "codec/attr.h"
#include "proxy/mad.h"
#include "proxy/mad_int.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

struct mad_node {
	uint64_t			 key;
	struct proxy_mad_node_stats	 st;
	int				 inflight;
	int				 ready;	/* on the ready list */
	TAILQ_HEAD(, mad_req)		 queue;
	TAILQ_ENTRY(mad_node)		 rlink;
};

struct mad_req {
	TAILQ_ENTRY(mad_req)	 link;		/* node queue or in flight */
	struct mad_node		*node;
	proxy_mad_cb		 cb;
	void			*arg;
	uint32_t		 tid;		/* 0 while queued */
	int			 agent;
	int			 tries;		/* sends left */
	uint8_t			 optional;	/* proxy_mad_args.optional */
	uint8_t			 no_answer;	/* a Send: done when sent */
	uint8_t			 garbled;	/* a malformed answer came */
	uint8_t			 resend;	/* queued again (req_retry) */
	uint8_t			 graced;	/* this send's deadline moved */
	uint64_t		 deadline;
	uint64_t		 way;		/* its target (target_way) */
	uint8_t			 attr_check[4];	/* class, attr id (be16) */
	uint8_t			 mod_check[4];	/* attr modifier (be32) */
	uint8_t			 check_mod;	/* answers echo it */
	uint64_t		 ctx[PROXY_MAD_CTX / 8];	/* args.ctx */
	uint8_t			 umad[];	/* umad_size() + MAD */
};

_Static_assert(PROXY_MAD_CTX % 8 == 0, "mad_req.ctx is in 8-octet words");

static struct mad_engine mad_eng = {
	.fd = -1,
	.agent_dr = -1, .agent_lid = -1, .agent_perf = -1, .agent_sa = -1,
	.agent_tun = -1,
	.ready = TAILQ_HEAD_INITIALIZER(mad_eng.ready),
	.inflight = TAILQ_HEAD_INITIALIZER(mad_eng.inflight),
	.issm_fd = -1,
	.rx_lock = PTHREAD_MUTEX_INITIALIZER,
	.rx_tail = &mad_eng.rx_head,
	.wake = { -1, -1 },
	.park_lock = PTHREAD_MUTEX_INITIALIZER,
	.park_cv = PTHREAD_COND_INITIALIZER,
	.read_lock = PTHREAD_MUTEX_INITIALIZER,
};

static struct mad_engine *
mad_engine_default(void)
{
	return &mad_eng;
}

static void mad_dispatch(struct mad_engine *e);
static void handle_answer(struct mad_engine *e, uint8_t *umad, int len);
static void port_failed(struct mad_engine *e, const char *what, int err);

int
proxy_mad_status(const uint8_t *mad)
{
	/* Status, octets 4-5 (IBA 13.4.2 Table 145); a directed-route
	 * SMP's top bit there is D, its direction (14.2.1.2). */
	int st = mad[4] << 8 | mad[5];

	return mad[1] == ATTR_CLASS_SMI_DR ? st & 0x7fff : st;
}

/* A sweep submits a switch's PortInfos one after another, and a poll
 * a node's counters: the last node found saves the table's lookup, two
 * cache misses down its chain (3.5% of a sweep's loop thread). Nodes
 * live until proxy_mad_stop. */
static struct mad_node *
node_get(struct mad_engine *e, uint64_t key)
{
	struct mad_node *n = e->last_node;

	if (n != NULL && n->key == key)
		return n;
	if ((n = htab_get_u64(&e->nodes, key)) != NULL)
		return e->last_node = n;
	if ((n = calloc(1, sizeof(*n))) == NULL)
		return NULL;
	n->key = key;
	TAILQ_INIT(&n->queue);
	if (htab_put_u64(&e->nodes, key, n) == -1) {
		free(n);
		return NULL;
	}
	return e->last_node = n;
}

static void
node_make_ready(struct mad_engine *e, struct mad_node *n)
{
	if (!n->ready && !TAILQ_EMPTY(&n->queue) && n->inflight < e->max_node) {
		n->ready = 1;
		TAILQ_INSERT_TAIL(&e->ready, n, rlink);
	}
}

static void
arm_timer(struct mad_engine *e)
{
	struct mad_req *r = TAILQ_FIRST(&e->inflight);

	if (r == NULL)
		ev_timer_del(&e->timer);
	else
		ev_timer_at(&e->timer, r->deadline);
}

static int
slot_take(struct mad_engine *e, struct mad_req *r)
{
	for (uint32_t i = 0; i < SLOT_COUNT; i++) {
		uint32_t s = (e->next_slot + i) & (SLOT_COUNT - 1);
		if (e->slots[s] == NULL) {
			e->next_slot = s + 1;
			e->gen++;
			/* Low 32 bits only: the kernel owns the high ones. */
			r->tid = (e->gen << SLOT_BITS | s) & 0xffffffff;
			if (r->tid == 0)
				r->tid = s | 1u << SLOT_BITS;
			e->slots[s] = r;
			return 0;
		}
	}
	return -1;
}

static void
slot_release(struct mad_engine *e, struct mad_req *r)
{
	uint32_t s = r->tid & (SLOT_COUNT - 1);

	if (e->slots[s] == r)
		e->slots[s] = NULL;
	r->tid = 0;
}

/* Put the TID into the MAD and send it. */
static int
send_req(struct mad_engine *e, struct mad_req *r)
{
	uint8_t *mad = umad_get_mad(r->umad);

	/* The TID's low 32 bits (octets 12-15 of the header, big-endian)
	 * are ours; the high ones stay as the encoder or the raw MAD set
	 * them. */
	mad[12] = (uint8_t)(r->tid >> 24);
	mad[13] = (uint8_t)(r->tid >> 16);
	mad[14] = (uint8_t)(r->tid >> 8);
	mad[15] = (uint8_t)r->tid;
	/* The kernel's own timeout is a backstop; our timer decides. */
	errno = 0;
	if (umad_send(e->fd, r->agent, r->umad, PROXY_MAD_SIZE, e->timeout,
	    0) < 0) {
		int err = errno ? errno : EIO;

		if (mad_port_error(err)) {
			port_failed(e, "umad_send", err);
			return -1;
		}
		/* This MAD's own trouble: one line a minute, counted. */
		e->send_errs++;
		if (ev_now() - e->send_err_logged >= 60000 ||
		    e->send_err_logged == 0) {
			log_warnx("mad: umad_send: %s (%llu such so far)",
			    strerror(err), (unsigned long long)e->send_errs);
			e->send_err_logged = ev_now();
		}
		return -1;
	}
	e->st.sent++;
	e->last_io = ev_now();
	/* MgmtClass is the MAD header's second octet (IBA 13.4.2). */
	if (((const uint8_t *)mad)[1] == ATTR_CLASS_PERF) {
		e->st.perf_sent++;
		if (!r->resend)
			r->node->st.perf_sent++;
	}
	r->node->st.sent++;
	if (r->resend)
		r->node->st.retries++;
	r->deadline = ev_now() + e->timeout;
	r->graced = 0;
	TAILQ_INSERT_TAIL(&e->inflight, r, link);
	return 0;
}

/* Take an in-flight request off the wire bookkeeping. */
static void
inflight_remove(struct mad_engine *e, struct mad_req *r)
{
	slot_release(e, r);
	TAILQ_REMOVE(&e->inflight, r, link);
	e->inflight_n--;
	r->node->inflight--;
	node_make_ready(e, r->node);
}

/* A zeroed request header; the MAD itself is zeroed by the encoder. */
static struct mad_req *
req_get(struct mad_engine *e)
{
	struct mad_req *r;

	if (e->req_nspare > 0)
		r = e->req_spare[--e->req_nspare];
	else if ((r = malloc(sizeof(*r) + e->umad_len)) == NULL)
		return NULL;
	memset(r, 0, offsetof(struct mad_req, umad));
	return r;
}

static void
req_put(struct mad_engine *e, struct mad_req *r)
{
	if (e->req_nspare < REQ_SPARE)
		e->req_spare[e->req_nspare++] = r;
	else
		free(r);
}

static void
req_spare_free(struct mad_engine *e)
{
	while (e->req_nspare > 0)
		free(e->req_spare[--e->req_nspare]);
}

static void
req_finish(struct mad_engine *e, struct mad_req *r, int status,
    const uint8_t *mad, size_t len)
{
	if (status == -ETIMEDOUT) {
		e->st.timeouts++;
		r->node->st.timeouts++;
	} else if (status == -EIO) {
		e->st.errors++;
		r->node->st.errors++;
	} else if (status == -EPROTO)
		r->node->st.errors++;
	r->cb(r->arg, status, mad, len);
	req_put(e, r);
}

/* A request's target as a key: the LID, or the directed route. A
 * silence says nothing of the node's other ways (proxy/health.h): a
 * link-down on the path to one port leaves the others working. Never 0
 * (node_fail_queue's "every way"). */
static uint64_t
target_way(const struct proxy_target *t)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	if (t->lid != 0)
		return 1ULL << 63 | t->lid;
	h = (h ^ t->path.cnt) * 0x100000001b3ULL;
	for (unsigned i = 1; i <= t->path.cnt && i < STORE_PATH_MAX; i++)
		h = (h ^ t->path.hop[i]) * 0x100000001b3ULL;
	return (h >> 1) | 1;
}

/* A node that did not answer by way after all retries: fail what is
 * queued for it by that way now (way 0: every way), so one dead node
 * costs one timeout a way, not one per request. They fail with
 * -EHOSTUNREACH, not -ETIMEDOUT: they were never sent, so they say
 * nothing about their own attribute (mib.c's "answers NodeInfo but
 * never this" test) nor count as silences (health.c). */
static void
node_fail_queue(struct mad_engine *e, struct mad_node *n, int status,
    uint64_t way)
{
	TAILQ_HEAD(, mad_req) q = TAILQ_HEAD_INITIALIZER(q);
	struct mad_req *r, *next;

	/* Detach first: callbacks may queue new requests for this node. */
	for (r = TAILQ_FIRST(&n->queue); r != NULL; r = next) {
		next = TAILQ_NEXT(r, link);
		if (way != 0 && r->way != way)
			continue;
		TAILQ_REMOVE(&n->queue, r, link);
		TAILQ_INSERT_TAIL(&q, r, link);
	}
	while ((r = TAILQ_FIRST(&q)) != NULL) {
		TAILQ_REMOVE(&q, r, link);
		e->queued_n--;
		req_finish(e, r, status, NULL, 0);
	}
}

/* After inflight_remove(e): send r again if it has tries left (0), else
 * -1. The resend goes through the head of the node's queue, so it takes
 * a rate token like any MAD, and a new TID, so a late answer to the old
 * one is not taken for it. */
static int
req_retry(struct mad_engine *e, struct mad_req *r)
{
	if (--r->tries <= 0)
		return -1;
	TAILQ_INSERT_HEAD(&r->node->queue, r, link);
	e->queued_n++;
	node_make_ready(e, r->node);
	e->st.retries++;
	r->resend = 1;
	return 0;
}

/* A timer that fires MAD_LATE_MS after the deadline says the loop was
 * not running (a loaded host, a VM pause), and the reader thread maybe
 * not either: answers may still be on their way in. What is overdue
 * then gets MAD_GRACE_MS more, once per send, before it times out. */
#define MAD_LATE_MS	50
#define MAD_GRACE_MS	20

static void
late_grace(struct mad_engine *e, uint64_t now)
{
	struct mad_req *r;

	TAILQ_FOREACH(r, &e->inflight, link)
		if (r->deadline <= now && !r->graced) {
			r->graced = 1;
			r->deadline = now + MAD_GRACE_MS;
		}
}

/* The local port's state, read at most once a second while MADs go
 * unanswered: silence behind a dead link is -ENETDOWN, not the nodes'.
 * -1 when it failed (everything in flight has ended). */
static int
port_check(struct mad_engine *e, uint64_t now)
{
	if (now - e->state_checked < 1000)
		return 0;
	e->state_checked = now;
	if (mad_local_port_active(e))
		return 0;
	port_failed(e, "local port state", ENETDOWN);
	return -1;
}

/* One request past its deadline: sent again, or it ends. */
static void
timeout_one(struct mad_engine *e, struct mad_req *r)
{
	struct mad_node *n = r->node;
	int optional = r->optional;
	uint64_t way = r->way;

	inflight_remove(e, r);
	if (req_retry(e, r) == 0)
		return;
	/* A node that answered, if garbled, is not silent: neither a
	 * timeout (health.c, the "never answers this attribute" test) nor
	 * a reason to fail its queue. */
	if (r->garbled) {
		req_finish(e, r, -EPROTO, NULL, 0);
		return;
	}
	req_finish(e, r, -ETIMEDOUT, NULL, 0);
	if (!optional)
		node_fail_queue(e, n, -EHOSTUNREACH, way);
}

static void
mad_timeout_cb(void *arg)
{
	struct mad_engine *e = arg;
	uint64_t now = ev_now();
	struct mad_req *r = TAILQ_FIRST(&e->inflight);
	int late;

	if (r == NULL || r->deadline > now) {
		mad_dispatch(e);
		return;
	}
	/* Answers that came before the deadline but were not read yet
	 * (the host ran us late) are handled first: a timeout now would
	 * send their requests again and drop the answers as stale. */
	late = now - r->deadline >= MAD_LATE_MS;
	mad_rx_take_now(e);
	now = ev_now();
	if (late)
		late_grace(e, now);
	r = TAILQ_FIRST(&e->inflight);
	if (r != NULL && r->deadline <= now && port_check(e, now) == -1)
		return;
	while ((r = TAILQ_FIRST(&e->inflight)) != NULL && r->deadline <= now)
		timeout_one(e, r);
	mad_dispatch(e);
}

static int
rate_take(struct mad_engine *e)
{
	uint64_t now;

	if (e->rate == 0)
		return 1;
	now = ev_now();
	e->tokens += (double)(now - e->tokens_at) * e->rate / 1000.0;
	e->tokens_at = now;
	/* A burst of at most 1/20 s worth. */
	if (e->tokens > e->rate / 20.0 + 1)
		e->tokens = e->rate / 20.0 + 1;
	if (e->tokens < 1) {
		e->st.throttled++;
		if (!ev_timer_pending(&e->rate_timer))
			ev_timer_add(&e->rate_timer, 1 + (uint64_t)(1000.0 /
			    e->rate));
		return 0;
	}
	e->tokens -= 1;
	return 1;
}

static void
rate_timer_cb(void *arg)
{
	struct mad_engine *e = arg;

	mad_dispatch(e);
}

static void
mad_dispatch(struct mad_engine *e)
{
	struct mad_node *n;
	struct mad_req *r;

	/* Within a batch of answers, sends wait for its end while half
	 * the window is still out: runs of sends, and the window never
	 * drains waiting for slow callbacks. */
	if (e->batch && e->inflight_n >= e->max / 2)
		return;
	while (!e->down && e->inflight_n < e->max &&
	    (n = TAILQ_FIRST(&e->ready)) && rate_take(e)) {
		TAILQ_REMOVE(&e->ready, n, rlink);
		n->ready = 0;
		r = TAILQ_FIRST(&n->queue);
		if (r == NULL || n->inflight >= e->max_node)
			continue;
		TAILQ_REMOVE(&n->queue, r, link);
		e->queued_n--;
		if (slot_take(e, r) == -1) {
			/* Cannot happen while SLOT_COUNT > e->max. */
			TAILQ_INSERT_HEAD(&n->queue, r, link);
			e->queued_n++;
			node_make_ready(e, n);
			break;
		}
		n->inflight++;
		e->inflight_n++;
		if (send_req(e, r) == -1) {
			slot_release(e, r);
			n->inflight--;
			e->inflight_n--;
			req_finish(e, r, e->down ? -ENETDOWN : -EIO, NULL, 0);
			if (e->down)
				break;
			continue;
		}
		if (r->no_answer) {
			/* A Send: nothing to wait for. */
			inflight_remove(e, r);
			req_finish(e, r, 0, NULL, 0);
		}
		node_make_ready(e, n);
	}
	arm_timer(e);
}

/* The low 32 bits of the TransactionID (IBA 13.4.3): ours. */
static uint32_t
answer_tid(const uint8_t *mad)
{
	return (uint32_t)mad[12] << 24 | (uint32_t)mad[13] << 16 |
	    (uint32_t)mad[14] << 8 | mad[15];
}

/* The request in flight that an answer's TID names, or NULL. */
static struct mad_req *
answer_req(struct mad_engine *e, uint32_t tid)
{
	struct mad_req *r = e->slots[tid & (SLOT_COUNT - 1)];

	return r != NULL && r->tid == tid ? r : NULL;
}

/* What is read while the engine stops (mad_rx_drain): an answer ends
 * its request as the stop ends every other one, the rest is dropped. */
static void
drop_answer(struct mad_engine *e, uint8_t *umad, int len)
{
	uint8_t *mad = umad_get_mad(umad);
	struct mad_req *r;

	if (len < (int)umad_size() + 24 ||
	    (!(mad[3] & 0x80) && umad_status(umad) != ETIMEDOUT) ||
	    (r = answer_req(e, answer_tid(mad))) == NULL)
		return;
	inflight_remove(e, r);
	req_finish(e, r, -ECANCELED, NULL, 0);
}

static void
handle_answer(struct mad_engine *e, uint8_t *umad, int len)
{
	uint8_t *mad = umad_get_mad(umad);
	uint32_t tid;
	struct mad_req *r;
	int st;

	if (len < (int)umad_size() + 24) {
		/* Not even a common MAD header (IBA 13.4.3): no TID. */
		log_limited(&e->lim_short, LOG_WARNING, "mad: %d-octet answer dropped",
		    len - (int)umad_size());
		e->st.malformed++;
		return;
	}
	if (!(mad[3] & 0x80) && umad_status(umad) != ETIMEDOUT) {
		/* A request to us (method without the response bit,
		 * IBA 13.4.5): not an answer to anything of ours. (The
		 * kernel hands back our own request on its timeout.) */
		mad_handle_request(e, umad, len);
		return;
	}
	tid = answer_tid(mad);
	if ((r = answer_req(e, tid)) == NULL) {
		/* Late (after its timeout or retry), twice, or to nothing
		 * we sent. */
		e->st.stale++;
		log_debug("mad: answer with unknown TID 0x%08x dropped", tid);
		return;
	}
	if (umad_status(umad) == ETIMEDOUT) {
		/* The kernel's timeout, echoed: this request alone is sent
		 * again now (the others' answers may be next in the batch). */
		if (port_check(e, ev_now()) == 0) {
			timeout_one(e, r);
			mad_dispatch(e);
		}
		return;
	}
	/* SMPs and PerfMgt MADs are always 256 octets (IBA 13.4.2); the
	 * decoders read up to the last one, so a short answer is malformed.
	 * An SA answer is an RMPP transfer: its length is its records' (a
	 * simulator without RMPP hands over the first segment as sent). */
	if (len < (int)umad_size() + (r->agent == e->agent_sa ?
	    IB_SA_DATA_OFFS : PROXY_MAD_SIZE) ||
	    !(mad[3] & 0x80) ||		/* R, the response bit */
	    mad[1] != r->attr_check[0] ||
	    mad[16] != r->attr_check[1] || mad[17] != r->attr_check[2] ||
	    (r->check_mod && memcmp(mad + 20, r->mod_check, 4) != 0)) {
		/* Garbled on the way, most likely: asked again like a lost
		 * answer, within the same retry count. */
		log_limited(&e->lim_malformed, LOG_WARNING, "mad: malformed "
		    "answer for TID 0x%08x (%d octets, class 0x%02x method "
		    "0x%02x attribute 0x%02x%02x)", tid,
		    len - (int)umad_size(), mad[1], mad[3], mad[16], mad[17]);
		e->st.malformed++;
		r->garbled = 1;
		inflight_remove(e, r);
		if (req_retry(e, r) == -1)
			req_finish(e, r, -EPROTO, NULL, 0);
		mad_dispatch(e);
		return;
	}
	e->st.answered++;
	st = proxy_mad_status(mad);
	inflight_remove(e, r);
	req_finish(e, r, st ? -EIO : 0, mad, (size_t)len - umad_size());
	mad_dispatch(e);
}

/* The end of a batch of answers: what their callbacks asked for goes
 * out now. */
static void
deliver_end(struct mad_engine *e)
{
	e->batch = 0;
	mad_dispatch(e);
}

int
proxy_mad_submit(const struct proxy_mad_args *a, proxy_mad_cb cb, void *arg)
{
	struct mad_engine *e = mad_engine_default();
	struct mad_node *n;
	struct mad_req *r;
	uint8_t *mad;

	if (e->fd < 0 || e->down || e->stopping) {
		errno = e->down ? ENETDOWN : e->stopping ? ECANCELED : EINVAL;
		return -1;
	}
	if (a->ctx_len > PROXY_MAD_CTX) {
		errno = EINVAL;
		return -1;
	}
	if ((n = node_get(e, a->node_key)) == NULL)
		return -1;
	if ((r = req_get(e)) == NULL) {
		log_warn("mad: request");
		return -1;
	}
	if (proxy_mad_encode(a, e->mkey, e->sa_key, r->umad) == -1) {
		log_warnx("mad: cannot encode attribute 0x%04x", a->attr_id);
		req_put(e, r);
		return -1;
	}
	r->agent = mad_agent_of(e, a->mgmt_class);
	mad = umad_get_mad(r->umad);
	r->attr_check[0] = mad[1];
	r->attr_check[1] = a->answer_attr ? a->answer_attr >> 8 : mad[16];
	r->attr_check[2] = a->answer_attr ? a->answer_attr & 0xff : mad[17];
	/* An SMA's or PMA's GetResp carries the request's modifier (the
	 * port, the block): another one is the answer to something else,
	 * which would be filed under this port (opensm reads the port of a
	 * PortInfo answer from it too). */
	memcpy(r->mod_check, mad + 20, 4);
	r->check_mod = a->raw == NULL && (mad[1] == ATTR_CLASS_SMI ||
	    mad[1] == ATTR_CLASS_SMI_DR || mad[1] == ATTR_CLASS_PERF);
	r->node = n;
	r->cb = cb;
	r->arg = arg;
	if (a->ctx_len > 0) {
		memcpy(r->ctx, a->ctx, a->ctx_len);
		r->arg = r->ctx;
	}
	r->tries = 1 + e->retries;
	r->optional = a->optional;
	r->no_answer = a->no_answer;
	r->way = target_way(&a->target);
	TAILQ_INSERT_TAIL(&n->queue, r, link);
	e->queued_n++;
	node_make_ready(e, n);
	mad_dispatch(e);
	return 0;
}

void
proxy_mad_set_mkey(uint64_t mkey)
{
	struct mad_engine *e = mad_engine_default();

	e->mkey = mkey;
}

int
proxy_mad_mkey_is(uint64_t mkey)
{
	struct mad_engine *e = mad_engine_default();

	return mkey == e->mkey;
}

void
proxy_mad_set_sa_key(uint64_t key)
{
	struct mad_engine *e = mad_engine_default();

	e->sa_key = key;
}

int
proxy_mad_sa_key_is(uint64_t key)
{
	struct mad_engine *e = mad_engine_default();

	return key == e->sa_key;
}

int
proxy_mad_has_sa_key(void)
{
	struct mad_engine *e = mad_engine_default();

	return e->sa_key != 0;
}

void
proxy_mad_set_rate(int per_second)
{
	struct mad_engine *e = mad_engine_default();

	e->rate = per_second;
	e->tokens = per_second / 20.0 + 1;
	e->tokens_at = ev_now();
}

struct fail_arg {
	struct mad_engine	*e;
	int			 status;
};

static void
fail_node_queue(const void *k, size_t len, void *v, void *arg)
{
	struct fail_arg *fa = arg;
	struct mad_node *n = v;

	n->ready = 0;
	node_fail_queue(fa->e, n, fa->status, 0);
}

/* Fail everything queued or in flight: nothing will answer it. */
static void
fail_all(struct mad_engine *e, int status)
{
	struct mad_req *r;

	while ((r = TAILQ_FIRST(&e->inflight)) != NULL) {
		inflight_remove(e, r);
		req_finish(e, r, status, NULL, 0);
	}
	/* Submits from the callbacks fail (e->down): no node is added
	 * to the table while it is walked. */
	TAILQ_INIT(&e->ready);
	htab_foreach(&e->nodes, fail_node_queue, &(struct fail_arg){ e,
	    status });
	arm_timer(e);
}

/* The port or its device is gone (what failed, with err): what is
 * queued or in flight fails with -ENETDOWN, and the reopen begins. */
static void
port_failed(struct mad_engine *e, const char *what, int err)
{
	if (e->down)
		return;
	e->down = 1;
	e->down_at = ev_now();
	e->st.port_failures++;
	log_warnx("mad: %s port %d is down (%s: %s): requests fail at once, "
	    "answers come from the cache and the inventory; reopening it",
	    e->ca, e->port, what, strerror(err));
	fail_all(e, -ENETDOWN);
	mad_port_reopen(e);
}

int
proxy_mad_init(const char *ca, int port, int timeout_ms, int retries,
    int max_inflight, int max_inflight_node)
{
	struct mad_engine *e = mad_engine_default();

	e->timeout = timeout_ms;
	e->retries = retries;
	e->max = max_inflight < (int)SLOT_COUNT ? max_inflight :
	    (int)SLOT_COUNT / 2;
	e->max_node = max_inflight_node;
	e->down = e->stopping = e->exiting = 0;
	htab_init(&e->nodes);
	e->last_node = NULL;
	ev_timer_init(&e->timer, mad_timeout_cb, e);
	ev_timer_init(&e->rate_timer, rate_timer_cb, e);
	e->deliver = handle_answer;
	e->port_failed = port_failed;
	e->deliver_end = deliver_end;
	if (mad_port_init(e, ca, port) == -1)
		return -1;
	/* umad2sim writes sizeof(struct ib_user_mad) + 256 octets, more than
	 * umad_size() + 256 (tests/sim/README.md). */
	e->umad_len = (umad_size() > sizeof(struct ib_user_mad) ? umad_size() :
	    sizeof(struct ib_user_mad)) + PROXY_MAD_SIZE;
	if (mad_rx_start(e) == -1) {
		proxy_mad_finalise();
		return -1;
	}
	{
		struct proxy_local_port lp;

		if (mad_port_local(e, &lp) == 0)
			log_info("mad: using %s port %d, LID %u, port GUID "
			    "0x%016llx", e->ca, e->port, lp.lid,
			    (unsigned long long)lp.port_guid);
		else
			log_info("mad: using %s port %d", e->ca, e->port);
	}
	return 0;
}

static void
free_node(const void *k, size_t len, void *v, void *arg)
{
	struct mad_engine *e = arg;
	struct mad_node *n = v;

	node_fail_queue(e, n, -ECANCELED, 0);
	free(n);
}

/* Shutdown's first step (gateway/main.c): what is in flight or queued
 * fails now with -ECANCELED, its callbacks running while their owners
 * still exist (a delegated SNMP request is answered before its session
 * closes), and nothing new is taken. Safe to call again. */
void
proxy_mad_stop(void)
{
	struct mad_engine *e = mad_engine_default();
	struct mad_req *r;

	ev_timer_del(&e->timer);
	ev_timer_del(&e->rate_timer);
	ev_timer_del(&e->reopen_timer);
	mad_rx_stop(e);
	/* The callbacks of what ends now must not send more. */
	e->stopping = 1;
	if (e->exiting && e->fd >= 0 && !e->down && e->inflight_n > 0) {
		int n = e->inflight_n;

		mad_rx_drain(e, e->timeout, drop_answer);
		log_info("mad: %d MADs in flight at exit, %d answers taken",
		    n, n - e->inflight_n);
	}
	mad_port_close(e);
	mad_rx_close(e);
	while ((r = TAILQ_FIRST(&e->inflight)) != NULL) {
		inflight_remove(e, r);
		req_finish(e, r, -ECANCELED, NULL, 0);
	}
	TAILQ_INIT(&e->ready);
	htab_foreach(&e->nodes, free_node, e);
	htab_free(&e->nodes);
	e->last_node = NULL;
}

void
proxy_mad_finalise(void)
{
	struct mad_engine *e = mad_engine_default();

	proxy_mad_stop();
	req_spare_free(e);
	mad_rx_finalise(e);
}

int
proxy_mad_node_stats(uint64_t key, struct proxy_mad_node_stats *st)
{
	struct mad_engine *e = mad_engine_default();
	struct mad_node *n = htab_get_u64(&e->nodes, key);

	if (n == NULL) {
		memset(st, 0, sizeof(*st));
		return -1;
	}
	*st = n->st;
	return 0;
}

void
proxy_mad_get_stats(struct proxy_mad_stats *st)
{
	struct mad_engine *e = mad_engine_default();

	*st = e->st;
	st->inflight = e->inflight_n;
	st->queued = e->queued_n;
	st->port_down = e->down;
	st->stray = atomic_load(&e->stray);
	st->max_inflight = e->max;
	st->max_inflight_node = e->max_node;
}

/* The API's rest: the port's and the requests to us, on the engine. */

int
proxy_mad_port_up(void)
{
	struct mad_engine *e = mad_engine_default();

	return !e->down && e->fd >= 0;
}

void
proxy_mad_on_port_up(void (*fn)(void *), void *arg)
{
	struct mad_engine *e = mad_engine_default();

	e->up_fn = fn;
	e->up_arg = arg;
}

int
proxy_mad_local(struct proxy_local_port *lp)
{
	return mad_port_local(mad_engine_default(), lp);
}

void
proxy_mad_set_issm(int on)
{
	mad_port_set_issm(mad_engine_default(), on);
}

void
proxy_mad_exiting(void)
{
	mad_engine_default()->exiting = 1;
}

void
proxy_mad_on_request(uint8_t mgmt_class, proxy_mad_request_fn fn, void *arg)
{
	mad_serve_on(mad_engine_default(), mgmt_class, fn, arg);
}

int
proxy_mad_has_tunnel(void)
{
	struct mad_engine *e = mad_engine_default();

	return e->fd >= 0 && e->agent_tun >= 0;
}

int
proxy_mad_takes_reports(void)
{
	struct mad_engine *e = mad_engine_default();

	return e->fd >= 0 && e->reports;
}

int
proxy_mad_respond(const void *req, const uint8_t *mad, size_t len)
{
	return mad_serve_respond(mad_engine_default(), req, mad, len);
}
