/* proxy_mad: MAD engine on libibumad, encoding with libibmad. */
#include "config.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/queue.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "codec/perf.h"
#include "codec/smp.h"
#include "codec/tunnel.h"
#include "proxy/mad.h"
#include "proxy/mad_int.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"
#include "util/pool.h"

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

struct mad_engine *
mad_engine_default(void)
{
	return &mad_eng;
}

static void mad_dispatch(struct mad_engine *e);
static void port_failed(struct mad_engine *e, const char *what, int err);
static void issm_open(struct mad_engine *e);

/* Errors that mean the port or the device is gone, not this MAD. */
static int
port_error(int err)
{
	switch (err) {
	case EIO: case ENODEV: case ENXIO: case EBADF: case ENOTCONN:
	case EPIPE: case ECONNRESET: case ECONNREFUSED: case ENETDOWN:
	case ESHUTDOWN:
		return 1;
	}
	return 0;
}

int
proxy_mad_status(const uint8_t *mad)
{
	/* Status, octets 4-5 (IBA 13.4.2 Table 145); a directed-route
	 * SMP's top bit there is D, its direction (14.2.1.2). */
	int st = mad[4] << 8 | mad[5];

	return mad[1] == ATTR_CLASS_SMI_DR ? st & 0x7fff : st;
}

static struct mad_node *
node_get(struct mad_engine *e, uint64_t key)
{
	struct mad_node *n = htab_get_u64(&e->nodes, key);

	if (n != NULL)
		return n;
	if ((n = calloc(1, sizeof(*n))) == NULL)
		return NULL;
	n->key = key;
	TAILQ_INIT(&n->queue);
	if (htab_put_u64(&e->nodes, key, n) == -1) {
		free(n);
		return NULL;
	}
	return n;
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

		if (port_error(err)) {
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
	if (((const uint8_t *)mad)[1] == ATTR_CLASS_PERF)
		e->st.perf_sent++;
	r->node->st.sent++;
	r->deadline = ev_now() + e->timeout;
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

/* A node that did not answer after all retries: fail what is queued
 * for it now, so one dead node costs one timeout, not one per request.
 * They fail with -EHOSTUNREACH, not -ETIMEDOUT: they were never sent,
 * so they say nothing about their own attribute (mib.c's "answers
 * NodeInfo but never this" test) nor count as silences (health.c). */
static void
node_fail_queue(struct mad_engine *e, struct mad_node *n, int status)
{
	TAILQ_HEAD(, mad_req) q = TAILQ_HEAD_INITIALIZER(q);
	struct mad_req *r;

	/* Detach first: callbacks may queue new requests for this node. */
	TAILQ_CONCAT(&q, &n->queue, link);
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
	return 0;
}

/* Silence from everyone may be our own port: a pulled cable leaves
 * the device open and every MAD unanswered (PortState Down). Its state costs a sysfs
 * read, so at most once a second, and only when something timed out. */
static int
local_port_active(struct mad_engine *e)
{
	umad_port_t p;
	int active;

	if (umad_get_port(e->ca, e->port, &p) < 0)
		return 0;
	/* Init and up: the link is there (DR SMPs work without an SM);
	 * Down (1): no MAD leaves the port. */
	active = p.state >= 2;
	umad_release_port(&p);
	return active;
}

static void
mad_timeout_cb(void *arg)
{
	struct mad_engine *e = arg;
	uint64_t now = ev_now();
	struct mad_req *r;

	r = TAILQ_FIRST(&e->inflight);
	if (r != NULL && r->deadline <= now && now - e->state_checked >= 1000) {
		e->state_checked = now;
		if (!local_port_active(e)) {
			port_failed(e, "local port state", ENETDOWN);
			return;
		}
	}

	while ((r = TAILQ_FIRST(&e->inflight)) != NULL && r->deadline <= now) {
		struct mad_node *n = r->node;

		inflight_remove(e, r);
		if (req_retry(e, r) == 0)
			continue;
		/* A node that answered, if garbled, is not silent: neither a
		 * timeout (health.c, the "never answers this attribute"
		 * test) nor a reason to fail its queue. */
		if (r->garbled) {
			req_finish(e, r, -EPROTO, NULL, 0);
			continue;
		}
		int optional = r->optional;

		req_finish(e, r, -ETIMEDOUT, NULL, 0);
		if (!optional)
			node_fail_queue(e, n, -EHOSTUNREACH);
	}
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

/* ibsim with IsSM set: the SM's SubnGet(SMInfo) to our port (IBA
 * 14.4.1) comes to us, and its sweeps wait for the answer. We are no
 * SM: SMInfo of state NOTACTIVE, priority 0 (Table 185). */
static int
answer_sminfo(struct mad_engine *e, const uint8_t *umad, const uint8_t *mad,
    size_t len)
{
	uint8_t resp[PROXY_MAD_SIZE];

	if (!e->issm || len < PROXY_MAD_SIZE ||
	    smp_sminfo_notactive(resp, mad, e->port_guid) == -1)
		return 0;
	return proxy_mad_respond(umad, resp, PROXY_MAD_SIZE) == 0;
}

static void
handle_request(struct mad_engine *e, uint8_t *umad, int len)
{
	const uint8_t *mad = umad_get_mad(umad);
	size_t mlen = (size_t)len - umad_size();
	proxy_mad_request_fn fn = NULL;
	void *arg = NULL;

	e->st.requests++;
	if (mad[1] == ATTR_CLASS_SMI || mad[1] == ATTR_CLASS_SMI_DR) {
		if (answer_sminfo(e, umad, mad, mlen))
			return;
		e->st.unexpected++;
		log_debug("mad: SMP request method 0x%02x attribute "
		    "0x%02x%02x to us ignored", mad[3], mad[16], mad[17]);
		return;
	}
	for (int i = 0; i < MAD_REQ_CLASSES && fn == NULL; i++)
		if (e->req_fns[i].fn != NULL &&
		    e->req_fns[i].mgmt_class == mad[1]) {
			fn = e->req_fns[i].fn;
			arg = e->req_fns[i].arg;
		}
	if (fn == NULL || fn(arg, umad, mad, mlen) != 0) {
		e->st.unexpected++;
		log_debug("mad: request class 0x%02x method 0x%02x attribute "
		    "0x%02x%02x to us ignored", mad[1], mad[3], mad[16],
		    mad[17]);
	}
}

static void
handle_answer(struct mad_engine *e, uint8_t *umad, int len)
{
	uint8_t *mad = umad_get_mad(umad);
	uint32_t tid;
	struct mad_req *r;
	int st;

	if (len < (int)umad_size() + 24) {
		static struct log_limit lim;

		/* Not even a common MAD header (IBA 13.4.3): no TID. */
		log_limited(&lim, LOG_WARNING, "mad: %d-octet answer dropped",
		    len - (int)umad_size());
		e->st.malformed++;
		return;
	}
	if (!(mad[3] & 0x80) && umad_status(umad) != ETIMEDOUT) {
		/* A request to us (method without the response bit,
		 * IBA 13.4.5): not an answer to anything of ours. (The
		 * kernel hands back our own request on its timeout.) */
		handle_request(e, umad, len);
		return;
	}
	tid = (uint32_t)mad[12] << 24 | (uint32_t)mad[13] << 16 |
	    (uint32_t)mad[14] << 8 | mad[15];
	r = e->slots[tid & (SLOT_COUNT - 1)];
	if (r == NULL || r->tid != tid) {
		/* Late (after its timeout or retry), twice, or to nothing
		 * we sent. */
		e->st.stale++;
		log_debug("mad: answer with unknown TID 0x%08x dropped", tid);
		return;
	}
	if (umad_status(umad) == ETIMEDOUT) {
		/* Kernel timeout: let our own timer retry now. */
		r->deadline = 0;
		TAILQ_REMOVE(&e->inflight, r, link);
		TAILQ_INSERT_HEAD(&e->inflight, r, link);
		mad_timeout_cb(e);
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
		static struct log_limit lim;

		/* Garbled on the way, most likely: asked again like a lost
		 * answer, within the same retry count. */
		log_limited(&lim, LOG_WARNING, "mad: malformed answer for TID "
		    "0x%08x (%d octets, class 0x%02x method 0x%02x attribute "
		    "0x%02x%02x)", tid,
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

/* The reader cannot go on: the loop takes the port down and reopens it
 * (port_failed), and this thread is done. */
static void *
reader_quit(struct mad_engine *e, int err)
{
	atomic_store(&e->rx_err, err);
	(void)!write(e->wake[1], "", 1);
	return NULL;
}

/* A buffer for an RMPP answer of len octets. One over a megabyte gets
 * a mapping of its own, unmapped when freed: from malloc, once glibc
 * had handed out one that size it kept them in the reader's arena, and
 * 16 MB answers left 33 MB of RSS for good (hostilemad.py). */
static struct mad_rx *
rx_alloc_big(struct mad_rx *rx, int len)
{
	size_t sz = sizeof(*rx) + umad_size() + (size_t)len;
	struct mad_rx *big;

	if (len <= PROXY_MAD_SIZE || len > MAD_RMPP_MAX) {
		free(rx);
		return NULL;
	}
	if (sz < MAD_BIG) {
		if ((big = realloc(rx, sz)) == NULL)
			free(rx);
		return big;
	}
	free(rx);
	big = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (big == MAP_FAILED)
		return NULL;
	big->mapped = sz;
	return big;
}

static void
rx_free(struct mad_rx *rx)
{
	if (rx != NULL && rx->mapped != 0)
		munmap(rx, rx->mapped);
	else
		free(rx);
}

/* An rx of the usual size for the next reader_take (spare: the
 * direct reader's), or freed. */
static void
rx_keep(struct mad_rx *rx, struct mad_rx **spare)
{
	if (REQ_SPARE > 0 && spare != NULL && *spare == NULL &&
	    rx->mapped == 0 && rx->len <= (int)umad_size() + PROXY_MAD_SIZE)
		*spare = rx;
	else
		rx_free(rx);
}

/* One MAD off the port into a new mad_rx (or *spare, taken): 0, 1 when
 * there is none now, or an errno that ends the reader. */
static int
reader_take(struct mad_engine *e, struct mad_rx **out, struct mad_rx **spare)
{
	struct mad_rx *rx;
	int len = PROXY_MAD_SIZE, agent, big = 0;

	if (spare != NULL && *spare != NULL) {
		rx = *spare;
		*spare = NULL;
	} else if ((rx = malloc(sizeof(*rx) + e->umad_len)) == NULL)
		return 1;
	rx->mapped = 0;
	rx->len = 0;
	agent = umad_recv(e->fd, rx->umad, &len, 0);
	if (agent == -ENOSPC) {
		/* An RMPP reassembly (the SA's GetTable answers): the
		 * kernel keeps it first in the queue and says how long it
		 * is. One we cannot take would stay there and block every
		 * later MAD: closing the port drops it (the reopen has a
		 * new queue). */
		if ((rx = rx_alloc_big(rx, len)) == NULL)
			return EMSGSIZE;
		big = 1;
		agent = umad_recv(e->fd, rx->umad, &len, 0);
	}
	/* What rx_keep decides on: whether the buffer was grown, not
	 * the length a failed umad_recv may leave undefined. */
	rx->len = big ? INT_MAX : 0;
	if (agent < 0) {
		rx_keep(rx, spare);
		return port_error(-agent) ? -agent : 1;
	}
	if (agent != e->agent_dr && agent != e->agent_lid &&
	    agent != e->agent_perf && agent != e->agent_sa &&
	    agent != e->agent_tun) {
		atomic_fetch_add(&e->stray, 1);
		rx_keep(rx, spare);
		*out = NULL;
		return 0;
	}
	rx->len = len + (int)umad_size();
	rx->next = NULL;
	*out = rx;
	return 0;
}

/* The reader waits while the loop reads the port (e->direct). */
static void
reader_park(struct mad_engine *e)
{
	pthread_mutex_lock(&e->park_lock);
	while (atomic_load(&e->direct) && !atomic_load(&e->stop))
		pthread_cond_wait(&e->park_cv, &e->park_lock);
	pthread_mutex_unlock(&e->park_lock);
}

static void *
mad_reader(void *arg)
{
	struct mad_engine *e = arg;
	struct pollfd pfd = { e->fd, POLLIN, 0 };

	while (!atomic_load(&e->stop)) {
		reader_park(e);
		/* Bounded wait so finalise can stop us. */
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		/* The loop reads the port now: what came is left to it. One
		 * thread reads at a time (a read is not always one call: an
		 * RMPP answer is sized, then taken). */
		if (atomic_load(&e->direct))
			continue;
		pthread_mutex_lock(&e->read_lock);
		for (;;) {
			struct mad_rx *rx;
			int wake, rc = reader_take(e, &rx, NULL);

			if (rc == 1)
				break;
			if (rc != 0) {
				pthread_mutex_unlock(&e->read_lock);
				return reader_quit(e, rc);
			}
			if (rx == NULL)
				continue;
			pthread_mutex_lock(&e->rx_lock);
			/* The loop takes the whole queue at each wake-up:
			 * only the first answer of a batch wakes it (a
			 * write and a context switch per MAD were a third
			 * of a sweep's CPU). */
			wake = e->rx_head == NULL;
			*e->rx_tail = rx;
			e->rx_tail = &rx->next;
			pthread_mutex_unlock(&e->rx_lock);
			if (wake)
				(void)!write(e->wake[1], "", 1);
		}
		pthread_mutex_unlock(&e->read_lock);
	}
	return NULL;
}

static void
direct_end(struct mad_engine *e)
{
	pthread_mutex_lock(&e->park_lock);
	atomic_store(&e->direct, 0);
	pthread_cond_signal(&e->park_cv);
	pthread_mutex_unlock(&e->park_lock);
}

/* ev_waiter: MADs in flight on an open port, and one sent or answered
 * within DIRECT_IDLE_MS. */
static int
direct_active(void *arg)
{
	struct mad_engine *e = arg;

	if (e->inflight_n > 0 && !e->down && e->fd >= 0 &&
	    e->thread_on && ev_now() - e->last_io <= DIRECT_IDLE_MS) {
		atomic_store(&e->direct, 1);
		return 1;
	}
	if (atomic_load(&e->direct))
		direct_end(e);
	return 0;
}

/* At most a batch a call: a flood of MADs does not keep the loop from
 * its other descriptors and timers. */
#define DIRECT_BATCH	64
static void
direct_wait(void *arg, int wait_ms)
{
	struct mad_engine *e = arg;
	struct pollfd pfd = { e->fd, POLLIN, 0 };

	if (poll(&pfd, 1, wait_ms) <= 0)
		return;
	for (int k = 0; k < DIRECT_BATCH; k++) {
		struct mad_rx *rx;
		int rc;

		/* The reader still taking a batch it began hands it over.
		 * The lock is not held while an answer is handled: its
		 * callbacks may close the port (port_failed joins it). */
		if (pthread_mutex_trylock(&e->read_lock) != 0)
			return;
		rc = reader_take(e, &rx, &e->direct_spare);
		pthread_mutex_unlock(&e->read_lock);
		if (rc == 1)
			return;
		if (rc != 0) {
			port_failed(e, "umad_recv", rc);
			return;
		}
		if (rx == NULL)
			continue;
		e->last_io = ev_now();
		if (!e->down)
			handle_answer(e, rx->umad, rx->len);
		rx_keep(rx, &e->direct_spare);
		if (e->down || e->fd < 0)
			return;
	}
}

static void
mad_wake_cb(int fd, short revents, void *arg)
{
	struct mad_engine *e = arg;
	char buf[256];
	struct mad_rx *rx, *nx;

	/* One read empties the pipe unless it was full: the reader
	 * writes a byte per batch, and a byte written after this read
	 * wakes the loop again (an empty batch then). */
	while (read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
		;
	pthread_mutex_lock(&e->rx_lock);
	rx = e->rx_head;
	e->rx_head = NULL;
	e->rx_tail = &e->rx_head;
	pthread_mutex_unlock(&e->rx_lock);
	if (rx != NULL)
		e->last_io = ev_now();
	for (; rx != NULL; rx = nx) {
		nx = rx->next;
		if (!e->down)
			handle_answer(e, rx->umad, rx->len);
		rx_free(rx);
	}
	if (atomic_load(&e->rx_err) != 0) {
		int err = atomic_exchange(&e->rx_err, 0);

		port_failed(e, err == EMSGSIZE ? "umad_recv of an answer over "
		    "16 MB, which would block the queue" : "umad_recv", err);
	}
}

/* A PerfMgt request, the counter poll's MAD, written field by field:
 * the common MAD header (IBA 13.4.2, Table 145) with ClassVersion 1,
 * then the attribute at octet 64 (16.1.1). Octet for octet what
 * mad_build_pkt writes for it (test_smp compares them), without its
 * field-table walk for each header field (~800 instructions a MAD). */
static int
encode_perf(const struct proxy_mad_args *a, uint8_t *buf)
{
	uint8_t *mad = umad_get_mad(buf);

	if (a->data != NULL && a->data_len > PERF_DATA_SIZE)
		return -1;
	umad_set_addr(buf, a->target.lid, 1, 0, IB_DEFAULT_QP1_QKEY);
	mad[0] = 1;				/* BaseVersion */
	mad[1] = ATTR_CLASS_PERF;
	mad[2] = 1;				/* ClassVersion */
	mad[3] = a->method;			/* R and Method */
	mad[15] = 1;				/* TID: set when sent */
	mad[16] = (uint8_t)(a->attr_id >> 8);
	mad[17] = (uint8_t)a->attr_id;
	mad[20] = (uint8_t)(a->attr_mod >> 24);
	mad[21] = (uint8_t)(a->attr_mod >> 16);
	mad[22] = (uint8_t)(a->attr_mod >> 8);
	mad[23] = (uint8_t)a->attr_mod;
	if (a->data != NULL)
		memcpy(mad + PERF_DATA_OFFS, a->data, a->data_len);
	return 0;
}

int
proxy_mad_encode(const struct proxy_mad_args *a, uint64_t mkey,
    uint64_t sa_key, uint8_t *buf)
{
	ib_portid_t pid;
	ib_rpc_t rpc;

	memset(buf, 0, umad_size() + PROXY_MAD_SIZE);
	if (a->raw != NULL) {
		/* LID-routed to QP1 (IBA 13.5.1), as the PMA and the SA. */
		if (a->target.lid == 0)
			return -1;
		umad_set_addr(buf, a->target.lid, 1, 0, IB_DEFAULT_QP1_QKEY);
		memcpy(umad_get_mad(buf), a->raw, PROXY_MAD_SIZE);
		return 0;
	}
	if (a->mgmt_class == ATTR_CLASS_PERF)
		return encode_perf(a, buf);
	memset(&pid, 0, sizeof(pid));
	memset(&rpc, 0, sizeof(rpc));
	rpc.mgtclass = a->mgmt_class;
	rpc.method = a->method;
	rpc.attr.id = a->attr_id;
	rpc.attr.mod = a->attr_mod;
	rpc.trid = 1;	/* replaced at send time */
	if (a->mgmt_class == ATTR_CLASS_SMI_DR ||
	    a->mgmt_class == ATTR_CLASS_SMI)
		rpc.mkey = mkey;
	switch (a->mgmt_class) {
	case ATTR_CLASS_SMI_DR:
		if (a->target.path.cnt >= STORE_PATH_MAX)
			return -1;
		pid.drpath.cnt = a->target.path.cnt;
		memcpy(pid.drpath.p, a->target.path.hop,
		    sizeof(a->target.path.hop));
		pid.drpath.drslid = 0xffff;
		pid.drpath.drdlid = 0xffff;
		rpc.dataoffs = SMP_DATA_OFFS;
		break;
	case ATTR_CLASS_SMI:
		pid.lid = a->target.lid;
		rpc.dataoffs = SMP_DATA_OFFS;
		break;
	case ATTR_CLASS_PERF:
		pid.lid = a->target.lid;
		pid.qp = 1;
		pid.qkey = IB_DEFAULT_QP1_QKEY;
		rpc.dataoffs = PERF_DATA_OFFS;
		break;
	case IB_SA_CLASS:
		/* libibmad puts class version 2 and the component mask
		 * (IBA 15.2.1.1 Table 185) in for this class. */
		pid.lid = a->target.lid;
		pid.qp = 1;
		pid.qkey = IB_DEFAULT_QP1_QKEY;
		rpc.dataoffs = IB_SA_DATA_OFFS;
		rpc.mask = a->comp_mask;
		break;
	default:
		return -1;
	}
	if (a->data != NULL && a->data_len > (a->mgmt_class ==
	    ATTR_CLASS_PERF ? PERF_DATA_SIZE : a->mgmt_class == IB_SA_CLASS ?
	    IB_SA_DATA_SIZE : SMP_DATA_SIZE))
		return -1;
	rpc.datasz = a->data ? a->data_len : 0;
	if (a->rmpp_request && a->mgmt_class == IB_SA_CLASS) {
		/* Table 174: one DATA segment, first and last; the payload
		 * is the SA header and the record (the kernel's RMPP layer
		 * rewrites these on hardware). */
		ib_rmpp_hdr_t rmpp = { 0 };

		rmpp.type = IB_RMPP_TYPE_DATA;
		rmpp.flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST |
		    IB_RMPP_FLAG_LAST;
		rmpp.d1.segnum = 1;
		rmpp.d2.len = SA_HEADER_SZ + rpc.datasz;
		if (mad_build_pkt(buf, &rpc, &pid, &rmpp,
		    a->data ? (void *)a->data : NULL) < 0)
			return -1;
	} else if (mad_build_pkt(buf, &rpc, &pid, NULL,
	    a->data ? (void *)a->data : NULL) < 0)
		return -1;
	if (a->mgmt_class == IB_SA_CLASS)
		mad_set_field64(umad_get_mad(buf), 0, IB_SA_MKEY_F,
		    a->sa_trusted ? sa_key : 0);
	return 0;
}

/* The agent registered for a management class (port_open). */
static int
agent_of(struct mad_engine *e, uint8_t mgmt_class)
{
	switch (mgmt_class) {
	case ATTR_CLASS_SMI_DR: return e->agent_dr;
	case ATTR_CLASS_SMI: return e->agent_lid;
	case IB_SA_CLASS: return e->agent_sa;
	case TUN_MGMT_CLASS: return e->agent_tun;
	}
	return e->agent_perf;
}

int
proxy_mad_submit(const struct proxy_mad_args *a, proxy_mad_cb cb, void *arg)
{
	struct mad_engine *e = mad_engine_default();
	struct mad_node *n;
	struct mad_req *r;
	uint8_t *mad;

	if (e->fd < 0 || e->down) {
		errno = e->down ? ENETDOWN : EINVAL;
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
	r->agent = agent_of(e, a->mgmt_class);
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
	TAILQ_INSERT_TAIL(&n->queue, r, link);
	e->queued_n++;
	node_make_ready(e, n);
	mad_dispatch(e);
	return 0;
}

void
proxy_mad_on_request(uint8_t mgmt_class, proxy_mad_request_fn fn, void *arg)
{
	struct mad_engine *e = mad_engine_default();
	int free_at = -1;

	for (int i = 0; i < MAD_REQ_CLASSES; i++) {
		if (e->req_fns[i].fn != NULL &&
		    e->req_fns[i].mgmt_class == mgmt_class) {
			e->req_fns[i].fn = fn;
			e->req_fns[i].arg = arg;
			return;
		}
		if (e->req_fns[i].fn == NULL && free_at < 0)
			free_at = i;
	}
	if (fn == NULL)
		return;
	if (free_at < 0)
		fatalx("mad: more than %d request handlers", MAD_REQ_CLASSES);
	e->req_fns[free_at].mgmt_class = mgmt_class;
	e->req_fns[free_at].fn = fn;
	e->req_fns[free_at].arg = arg;
}

uint16_t
proxy_mad_request_slid(const void *req)
{
	return ntohs(umad_get_mad_addr((void *)req)->lid);
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

void
proxy_mad_set_issm(int on)
{
	struct mad_engine *e = mad_engine_default();

	e->issm = on;
	if (on && e->fd >= 0)
		issm_open(e);
	else if (!on && e->issm_fd >= 0) {
		close(e->issm_fd);
		e->issm_fd = -1;
	}
}

/* The answer to a request we received (req: its umad, for the address:
 * the requester's LID, QP, SL and P_Key index; IBA 13.5.1.2 answers go
 * back to where the request came from). */
int
proxy_mad_respond(const void *req, const uint8_t *mad, size_t len)
{
	struct mad_engine *e = mad_engine_default();
	const ib_mad_addr_t *from = umad_get_mad_addr((void *)req);
	uint8_t buf[sizeof(struct ib_user_mad) + PROXY_MAD_SIZE];
	int agent;

	if (e->fd < 0 || len > PROXY_MAD_SIZE)
		return -1;
	agent = agent_of(e, mad[1]);
	memset(buf, 0, sizeof(buf));
	umad_set_addr(buf, ntohs(from->lid), ntohl(from->qpn), from->sl,
	    mad[1] == ATTR_CLASS_SMI || mad[1] == ATTR_CLASS_SMI_DR ? 0 :
	    IB_DEFAULT_QP1_QKEY);
	umad_set_pkey(buf, from->pkey_index);
	memcpy(umad_get_mad(buf), mad, len);
	if (umad_send(e->fd, agent, buf, (int)len, 0, 0) < 0) {
		log_warnx("mad: answer to class 0x%02x method 0x%02x not sent",
		    mad[1], mad[3]);
		return -1;
	}
	e->st.responses++;
	return 0;
}

int
proxy_mad_local(struct proxy_local_port *lp)
{
	struct mad_engine *e = mad_engine_default();
	umad_port_t p;

	if (umad_get_port(e->ca[0] ? e->ca : NULL, e->port, &p) < 0) {
		log_warnx("mad: cannot read local port %s/%d", e->ca,
		    e->port);
		return -1;
	}
	memset(lp, 0, sizeof(*lp));
	snprintf(lp->ca, sizeof(lp->ca), "%s", p.ca_name);
	lp->port = p.portnum;
	lp->lid = p.base_lid;
	lp->sm_lid = p.sm_lid;
	lp->port_guid = be64toh(p.port_guid);
	lp->state = p.state;
	umad_release_port(&p);
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

/* The SA agent: RMPP version 1 (the kernel reassembles the SA's multi-
 * segment answers, IBA 13.6, and acknowledges the segments), and the
 * Report method (13.4.5 Table 104, 0x06), so the SA's Reports of the
 * traps we subscribe to reach us (IBA 13.4.8.2). Only one agent per
 * port may take a class's method: if another has it, queries still
 * work and SM events come from sweeps alone. */
static int
register_sa(struct mad_engine *e)
{
	long mask[16 / sizeof(long)];
	const unsigned bits = 8 * sizeof(long);

	memset(mask, 0, sizeof(mask));
	mask[IB_MAD_METHOD_REPORT / bits] |= 1L << (IB_MAD_METHOD_REPORT %
	    bits);
	e->agent_sa = umad_register(e->fd, IB_SA_CLASS, 2, 1, mask);
	e->reports = e->agent_sa >= 0;
	if (e->agent_sa < 0) {
		e->agent_sa = umad_register(e->fd, IB_SA_CLASS, 2, 1, NULL);
		if (e->agent_sa >= 0)
			log_warnx("mad: another agent on %s port %d takes SA "
			    "Reports: no SM events, sweeps only", e->ca,
			    e->port);
	}
	return e->agent_sa;
}

/* IB SNMP Tunneling (IBA 16.4, docs/tunneling.md): class version 1,
 * and the SNMPSend method, by which agents send their replies. Without
 * it the rest works, and no node is tunneled to. */
static void
register_tunnel(struct mad_engine *e)
{
	long mask[16 / sizeof(long)];
	const unsigned bits = 8 * sizeof(long);

	memset(mask, 0, sizeof(mask));
	mask[TUN_METHOD_SEND / bits] |= 1L << (TUN_METHOD_SEND % bits);
	e->agent_tun = umad_register(e->fd, TUN_MGMT_CLASS,
	    TUN_CLASS_VERSION, 0, mask);
	if (e->agent_tun < 0)
		log_warnx("mad: cannot register the SNMP tunneling class on "
		    "%s port %d: no tunneling", e->ca, e->port);
}

/* ib.sim-issm: set IsSM on the port (opening the issm device, as an SM
 * does) so that ibsim delivers requests to us at all: it forwards SA
 * Reports only to clients of IsSM ports. Never on hardware: the port
 * would look like a standby SM to the fabric's SM. */
static void
issm_open(struct mad_engine *e)
{
	char path[256];

	if (e->issm_fd >= 0)
		return;
	if (umad_get_issm_path(e->ca, e->port, path, sizeof(path)) < 0 ||
	    (e->issm_fd = open(path, O_RDWR)) < 0)
		log_warn("mad: cannot set IsSM (ib.sim-issm) on %s port %d",
		    e->ca, e->port);
}

/* Open the port and register the classes; -1 leaves it closed. */
static int
port_open(struct mad_engine *e)
{
	if ((e->fd = umad_open_port(e->ca, e->port)) < 0)
		return -1;
	if ((e->agent_dr = umad_register(e->fd, ATTR_CLASS_SMI_DR, 1, 0,
	    NULL)) < 0 ||
	    (e->agent_lid = umad_register(e->fd, ATTR_CLASS_SMI, 1, 0,
	    NULL)) < 0 ||
	    (e->agent_perf = umad_register(e->fd, ATTR_CLASS_PERF, 1, 0,
	    NULL)) < 0 ||
	    register_sa(e) < 0) {
		umad_close_port(e->fd);
		e->fd = -1;
		return -1;
	}
	register_tunnel(e);
	if (e->issm)
		issm_open(e);
	return 0;
}

static int
reader_start(struct mad_engine *e)
{
	atomic_store(&e->stop, 0);
	atomic_store(&e->rx_err, 0);
	if (pthread_create(&e->thread, NULL, mad_reader, e) != 0)
		return -1;
	e->thread_on = 1;
	return 0;
}

static void
reader_stop(struct mad_engine *e)
{
	if (!e->thread_on)
		return;
	atomic_store(&e->stop, 1);
	direct_end(e);
	pthread_join(e->thread, NULL);
	e->thread_on = 0;
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
	node_fail_queue(fa->e, n, fa->status);
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

static void
port_failed(struct mad_engine *e, const char *what, int err)
{
	if (e->down)
		return;
	e->down = 1;
	e->down_at = ev_now();
	e->st.port_failures++;
	e->backoff_ms = BACKOFF_MIN_MS;
	e->reopen_tries = 0;
	log_warnx("mad: %s port %d is down (%s: %s): requests fail at once, "
	    "answers come from the cache and the inventory; reopening it",
	    e->ca, e->port, what, strerror(err));
	fail_all(e, -ENETDOWN);
	ev_timer_add(&e->reopen_timer, e->backoff_ms);
}

/* Bounded backoff: 1 s, doubling to 60 s, for as long as it takes. */
static void
reopen_cb(void *arg)
{
	struct mad_engine *e = arg;

	reader_stop(e);
	if (e->fd >= 0)
		umad_close_port(e->fd);
	e->fd = -1;
	e->reopen_tries++;
	if (port_open(e) == -1 || !local_port_active(e) ||
	    reader_start(e) == -1) {
		if (e->fd >= 0 && !e->thread_on) {
			umad_close_port(e->fd);
			e->fd = -1;
		}
		if (e->backoff_ms < BACKOFF_MAX_MS)
			e->backoff_ms *= 2;
		if (e->backoff_ms > BACKOFF_MAX_MS)
			e->backoff_ms = BACKOFF_MAX_MS;
		log_debug("mad: %s port %d: reopen %u failed, next in %llu ms",
		    e->ca, e->port, e->reopen_tries,
		    (unsigned long long)e->backoff_ms);
		ev_timer_add(&e->reopen_timer, e->backoff_ms);
		return;
	}
	e->down = 0;
	e->st.reopens++;
	log_notice("mad: %s port %d is up again after %llu ms (%u reopen "
	    "attempts)", e->ca, e->port, (unsigned long long)(ev_now() -
	    e->down_at), e->reopen_tries);
	if (e->up_fn != NULL)
		e->up_fn(e->up_arg);
}

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
proxy_mad_init(const char *ca, int port, int timeout_ms, int retries,
    int max_inflight, int max_inflight_node)
{
	struct mad_engine *e = mad_engine_default();
	umad_port_t p;

	e->timeout = timeout_ms;
	e->retries = retries;
	e->max = max_inflight < (int)SLOT_COUNT ? max_inflight :
	    (int)SLOT_COUNT / 2;
	e->max_node = max_inflight_node;
	e->down = 0;
	htab_init(&e->nodes);
	ev_timer_init(&e->timer, mad_timeout_cb, e);
	ev_timer_init(&e->rate_timer, rate_timer_cb, e);
	ev_timer_init(&e->reopen_timer, reopen_cb, e);
	if (umad_init() < 0) {
		log_warnx("mad: umad_init failed");
		return -1;
	}
	/* Same defaults as infiniband-diags -C/-P: first CA, first
	 * active port, as libibumad resolves them. */
	if (umad_get_port(ca, port, &p) < 0) {
		log_warnx("mad: no usable IB port (ca %s, port %d)",
		    ca ? ca : "(default)", port);
		return -1;
	}
	snprintf(e->ca, sizeof(e->ca), "%s", p.ca_name);
	e->port = p.portnum;
	e->port_guid = be64toh(p.port_guid);
	umad_release_port(&p);
	if (port_open(e) == -1) {
		log_warnx("mad: cannot open %s port %d or register its "
		    "management classes", e->ca, e->port);
		return -1;
	}
	/* umad2sim writes sizeof(struct ib_user_mad) + 256 octets, more than
	 * umad_size() + 256 (tests/sim/README.md). */
	e->umad_len = (umad_size() > sizeof(struct ib_user_mad) ? umad_size() :
	    sizeof(struct ib_user_mad)) + PROXY_MAD_SIZE;
	if (pipe(e->wake) == -1) {
		log_warn("mad: pipe");
		proxy_mad_finalise();
		return -1;
	}
	for (int i = 0; i < 2; i++)
		fcntl(e->wake[i], F_SETFL, O_NONBLOCK);
	if (ev_fd_add(e->wake[0], POLLIN, mad_wake_cb, e) == -1 ||
	    reader_start(e) == -1) {
		log_warnx("mad: cannot start the reader");
		proxy_mad_finalise();
		return -1;
	}
	e->waiter.active = direct_active;
	e->waiter.wait = direct_wait;
	e->waiter.arg = e;
	ev_waiter_set(&e->waiter);
	{
		struct proxy_local_port lp;

		if (proxy_mad_local(&lp) == 0)
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

	node_fail_queue(e, n, -ECANCELED);
	free(n);
}

void
proxy_mad_exiting(void)
{
	struct mad_engine *e = mad_engine_default();

	e->exiting = 1;
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
	ev_waiter_set(NULL);
	reader_stop(e);
	/* Callbacks must not submit during shutdown: e->fd is forgotten
	 * (and closed, unless the process exits: proxy_mad_exiting). */
	if (e->fd >= 0 && !e->exiting)
		umad_close_port(e->fd);
	e->fd = -1;
	if (e->issm_fd >= 0)
		close(e->issm_fd);	/* IsSM off again */
	e->issm_fd = -1;
	if (e->wake[0] >= 0) {
		struct mad_rx *rx, *nx;
		ev_fd_del(e->wake[0]);
		close(e->wake[0]);
		close(e->wake[1]);
		e->wake[0] = e->wake[1] = -1;
		for (rx = e->rx_head; rx != NULL; rx = nx) {
			nx = rx->next;
			rx_free(rx);
		}
		e->rx_head = NULL;
		e->rx_tail = &e->rx_head;
	}
	while ((r = TAILQ_FIRST(&e->inflight)) != NULL) {
		inflight_remove(e, r);
		req_finish(e, r, -ECANCELED, NULL, 0);
	}
	TAILQ_INIT(&e->ready);
	htab_foreach(&e->nodes, free_node, e);
	htab_free(&e->nodes);
}

void
proxy_mad_finalise(void)
{
	struct mad_engine *e = mad_engine_default();

	proxy_mad_stop();
	req_spare_free(e);
	rx_free(e->direct_spare);
	e->direct_spare = NULL;
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
}
