/* gw_ha's replication link (docs/ha.md): one TCP connection between
 * the pair, frames of store/repl.h, a snapshot and then the changes.
 *
 * Either side may connect (a standby every second while it has no
 * link, an active every few seconds to find a second active). The
 * handshake: the connector's HELLO (MAC over zeros), the acceptor's
 * HELLO (MAC over the connector's nonce), the connector's READY (MAC
 * over the acceptor's nonce): each side has then proved the key in
 * this connection. After it, an active with a standby peer sends. */
#define _GNU_SOURCE	/* accept4 */
#include "config.h"

#include <sys/random.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gateway/ha_int.h"
#include "gateway/snmp.h"
#include "store/counters.h"
#include "store/events.h"
#include "util/ev.h"
#include "util/log.h"

enum lstate { L_CONNECTING = 1, L_HELLO_SENT, L_WAIT_HELLO, L_WAIT_READY,
    L_UP };

struct ha_conn {
	int		 fd;
	int		 outgoing;
	enum lstate	 st;
	uint8_t		 nonce[REPL_NONCE];	/* ours, in our HELLO */
	uint64_t	 snap_end;	/* seq of SNAP-END sent */
	struct repl_auth tx, rx;	/* tx.nonce: the peer's */
	uint8_t		*in, *out;
	size_t		 inlen, incap, outlen, outoff, outcap;
	enum repl_role	 peer_role;
	char		 peer_name[64];
	int		 sending;	/* active to a standby */
	int		 snapping;	/* counters left to send */
	uint32_t	 snap_node;
	unsigned	 snap_port;
	uint64_t	 acked;		/* the standby's last seq */
	uint64_t	 last_rx, since;
	int		 dead;		/* closed, freed at the next tick */
	struct ha_conn	*grave;
};

#define OUT_HIGH	(1u << 20)	/* snapshot chunks wait below it */
#define OUT_MAX		(256u << 20)	/* a standby this far behind: cut */
#define CTR_BATCH	2000		/* records per REPL_CTR frame */
#define TICK_MS		500

static const struct ha_conf *lk_hc;
static const struct ha_link_ops *lk_ops;	/* ha.c's, at init */
static struct ha_conn	*lk_up, *lk_pend;	/* at most one of each */
static int		 lk_listen = -1;
static struct ev_timer	 lk_tick;
static uint64_t		 lk_last_try, lk_last_beat;
static int		 lk_synced;
static uint8_t		 lk_batch[CTR_BATCH * REPL_CTR_SIZE];
static struct repl_w	 lk_bw = { lk_batch, 0, sizeof(lk_batch), 0 };
static size_t		 lk_nbatch;
static struct ha_conn	*lk_grave;	/* closed, not yet freed */

static void	conn_io(int fd, short revents, void *arg);
static void	snap_more(struct ha_conn *c);

static const char *
peer_of(const struct ha_conn *c)
{
	return c->peer_name[0] ? c->peer_name : lk_hc->peer_addr;
}

/* Closed now, freed at the next tick: a caller up the stack may still
 * hold c (it checks c->dead). */
static void
conn_free(struct ha_conn *c)
{
	if (c == NULL || c->dead)
		return;
	if (c->fd >= 0) {
		ev_fd_del(c->fd);
		close(c->fd);
		c->fd = -1;
	}
	c->dead = 1;
	if (lk_up == c)
		lk_up = NULL;
	if (lk_pend == c)
		lk_pend = NULL;
	c->grave = lk_grave;
	lk_grave = c;
}

static void
graves_free(void)
{
	while (lk_grave != NULL) {
		struct ha_conn *c = lk_grave;

		lk_grave = c->grave;
		explicit_bzero(&c->tx, sizeof(c->tx));
		explicit_bzero(&c->rx, sizeof(c->rx));
		free(c->in);
		free(c->out);
		free(c);
	}
}

/* The link ends; why (NULL: quietly) is logged. */
static void
conn_close(struct ha_conn *c, const char *why)
{
	if (why != NULL)
		log_warnx("ha: link with %s closed: %s", peer_of(c), why);
	conn_free(c);
}

static void
refuse(struct ha_conn *c, const char *why)
{
	store_repl_status()->refused++;
	log_warnx("ha: refused a frame from %s: %s; link closed",
	    peer_of(c), why);
	conn_free(c);
}

static struct ha_conn *
conn_new(int fd, int outgoing)
{
	struct ha_conn *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		close(fd);
		return NULL;
	}
	c->fd = -1;
	if (ev_fd_add(fd, POLLIN, conn_io, c) == -1) {
		close(fd);
		free(c);
		return NULL;
	}
	c->fd = fd;
	c->outgoing = outgoing;
	memcpy(c->tx.key, lk_hc->key, lk_hc->keylen);
	c->tx.keylen = lk_hc->keylen;
	c->rx = c->tx;
	c->tx.seq = c->rx.seq = 0;	/* HELLO has none; then 1, 2... */
	c->last_rx = c->since = ev_now();
	c->st = outgoing ? L_CONNECTING : L_WAIT_HELLO;
	if (getrandom(c->nonce, REPL_NONCE, 0) != REPL_NONCE) {
		log_warnx("ha: cannot set up a link");
		conn_free(c);
		return NULL;
	}
	/* The acceptor checks the connector's HELLO over zeros; the
	 * connector checks the acceptor's over its own nonce. */
	if (outgoing)
		memcpy(c->rx.nonce, c->nonce, REPL_NONCE);
	return c;
}

/* ---- Output */

static void
want_out(struct ha_conn *c)
{
	ev_fd_events(c->fd, POLLIN | (c->outlen > c->outoff ? POLLOUT : 0));
}

static int
flush_out(struct ha_conn *c)
{
	while (c->outoff < c->outlen) {
		ssize_t n = write(c->fd, c->out + c->outoff,
		    c->outlen - c->outoff);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n <= 0) {
			conn_close(c, n < 0 ? strerror(errno) : "closed");
			return -1;
		}
		c->outoff += (size_t)n;
	}
	if (c->outoff == c->outlen)
		c->outoff = c->outlen = 0;
	else if (c->outoff > OUT_HIGH) {
		memmove(c->out, c->out + c->outoff, c->outlen - c->outoff);
		c->outlen -= c->outoff;
		c->outoff = 0;
	}
	want_out(c);
	return 0;
}

/* Queue a frame; -1 when the link had to go. */
static int
send_frame(struct ha_conn *c, uint8_t type, const void *p, size_t len)
{
	if (c->outlen - c->outoff > OUT_MAX) {
		conn_close(c, "the standby does not keep up; it takes a new "
		    "snapshot");
		return -1;
	}
	if (store_repl_frame_put(&c->tx, type, p, len, &c->out, &c->outlen,
	    &c->outcap) == -1) {
		conn_close(c, "no memory");
		return -1;
	}
	store_repl_status()->frames_out++;
	store_repl_status()->bytes_out += REPL_HDR + len + REPL_MAC;
	return 0;
}

static void
send_hello(struct ha_conn *c)
{
	uint8_t b[192];
	struct repl_w w = { b, 0, sizeof(b), 0 };

	repl_putb(&w, c->nonce, REPL_NONCE);
	repl_put8(&w, (uint8_t)store_repl_status()->role);
	repl_put32(&w, gw_snmp_engine_boots());
	repl_put8(&w, (uint8_t)lk_hc->engine_id_len);
	repl_putb(&w, lk_hc->engine_id, lk_hc->engine_id_len);
	repl_puts(&w, lk_hc->name);
	repl_putb(&w, lk_hc->access, sizeof(lk_hc->access));
	/* The connector's HELLO is MACed over zeros: it has no nonce of
	 * the acceptor yet. */
	if (send_frame(c, REPL_HELLO, b, w.n) == 0)
		flush_out(c);
}

/* ---- The sender's records (an active with a standby) */

static struct ha_conn *
sender(void)
{
	return lk_up != NULL && lk_up->sending ? lk_up : NULL;
}

static void
batch_flush(void)
{
	struct ha_conn *c = sender();

	if (lk_nbatch > 0 && c != NULL)
		send_frame(c, REPL_CTR, lk_batch, lk_bw.n);
	lk_bw.n = 0;
	lk_nbatch = 0;
}

static void
batch_add(const struct repl_ctr *r)
{
	if (lk_nbatch == CTR_BATCH)
		batch_flush();
	store_repl_ctr_put(&lk_bw, r);
	lk_nbatch++;
}

static void
tap_counter(uint64_t guid, uint8_t port, int ctr, const struct ctr_acc *a,
    void *arg)
{
	struct repl_ctr r = { guid, port, (uint8_t)ctr, a->total, a->last };

	(void)arg;
	if (sender() != NULL)
		batch_add(&r);
}

/* Once per event-loop iteration, before the SNMP front end answers:
 * what changed is on its way (written, or queued for POLLOUT). */
static void
tap_flush(void *arg)
{
	struct ha_conn *c;

	(void)arg;
	batch_flush();
	if ((c = sender()) != NULL && c->outlen > c->outoff)
		flush_out(c);
}

static void
send_event(struct ha_conn *c, const struct store_event *ev)
{
	uint8_t b[256];
	struct repl_w w = { b, 0, sizeof(b), 0 };

	batch_flush();	/* counters first: the stream stays in order */
	store_repl_event_put(&w, ev);
	send_frame(c, REPL_EVENT, b, w.n);
}

static void
tap_event(const struct store_event *ev, void *arg)
{
	struct ha_conn *c = sender();

	(void)arg;
	if (c != NULL)
		send_event(c, ev);
}

static void
send_queue(struct ha_conn *c, int add, const char *target, uint64_t seq)
{
	uint8_t b[300];
	struct repl_w w = { b, 0, sizeof(b), 0 };

	repl_put64(&w, seq);
	repl_puts(&w, target);
	send_frame(c, add ? REPL_QADD : REPL_QDEL, b, w.n);
}

static void
tap_queue(int add, const char *target, uint64_t seq, void *arg)
{
	struct ha_conn *c = sender();

	(void)arg;
	if (c != NULL) {
		batch_flush();
		send_queue(c, add, target, seq);
	}
}

static void
snap_event(const struct store_event *ev, void *arg)
{
	if (lk_up == arg)
		send_event(arg, ev);
}

static void
snap_queue(const char *target, uint64_t seq, void *arg)
{
	if (lk_up == arg)
		send_queue(arg, 1, target, seq);
}

static void
send_u32(struct ha_conn *c, uint8_t type, uint32_t v)
{
	uint8_t b[4];
	struct repl_w w = { b, 0, sizeof(b), 0 };

	repl_put32(&w, v);
	send_frame(c, type, b, w.n);
}

static void
send_u64(struct ha_conn *c, uint8_t type, uint64_t v)
{
	uint8_t b[8];
	struct repl_w w = { b, 0, sizeof(b), 0 };

	repl_put64(&w, v);
	send_frame(c, type, b, w.n);
}

/* Snapshot: boots, the events and queues at once (bounded by the
 * history), the accumulators in chunks as the socket drains. */
static void
snap_begin(struct ha_conn *c)
{
	c->sending = 1;
	store_repl_status()->snapshots++;
	log_info("ha: sending a snapshot to %s", peer_of(c));
	send_u64(c, REPL_SNAP_BEGIN, store_event_last_seq());
	if (lk_up != c)
		return;
	send_u32(c, REPL_BOOTS, gw_snmp_engine_boots());
	store_event_db_each(snap_event, c);
	store_event_queue_each(snap_queue, c);
	if (lk_up != c)
		return;
	c->snapping = 1;
	c->snap_node = 0;
	c->snap_port = 0;
	snap_more(c);
}

static int
snap_port(uint64_t guid, const struct ctr_port *p, void *arg)
{
	struct ha_conn *c = arg;

	if (c->outlen - c->outoff > OUT_HIGH)
		return -1;
	for (int i = 0; i < CTR_MAX; i++) {
		const struct ctr_acc *a = counters_acc(p, i);
		struct repl_ctr r = { guid, p->port, (uint8_t)i, a->total,
		    a->last };

		if (ctr_valid(a))
			batch_add(&r);
	}
	return lk_up == c ? 0 : -1;
}

static void
snap_more(struct ha_conn *c)
{
	if (!c->snapping)
		return;
	if (counters_walk(&c->snap_node, &c->snap_port, snap_port, c) == 0) {
		if (lk_up == c)
			tap_flush(NULL);
		return;
	}
	batch_flush();
	c->snapping = 0;
	c->snap_end = c->tx.seq;
	if (lk_up != c || send_frame(c, REPL_SNAP_END, NULL, 0) == -1)
		return;
	log_info("ha: snapshot sent to %s; changes follow", peer_of(c));
	flush_out(c);
}

/* ---- The receiver (a standby) */

static int
apply_ctrs(struct repl_r *r)
{
	struct repl_ctr x;

	if (r->n % REPL_CTR_SIZE != 0)
		return -1;
	while (r->off < r->n) {
		if (store_repl_ctr_get(r, &x) == -1 || x.ctr >= CTR_MAX)
			return -1;
		counters_repl_apply(x.guid, x.port, x.ctr, x.total, x.last);
	}
	return 0;
}

/* One frame of the active; -1 (why set) refuses it. */
static int
apply(struct ha_conn *c, const struct repl_frame *f, const char **why)
{
	struct repl_r r = { f->payload, f->len, 0, 0 };
	struct store_event ev;
	char target[256];
	uint64_t v;

	*why = "malformed record";
	switch (f->type) {
	case REPL_SNAP_BEGIN:
		v = repl_get64(&r);
		if (r.bad)
			return -1;
		lk_synced = 0;
		store_event_repl_reset(v);
		log_info("ha: receiving a snapshot from %s", peer_of(c));
		return 0;
	case REPL_SNAP_END:
		lk_synced = 1;
		store_repl_status()->snapshots++;
		counters_flush();
		log_info("ha: snapshot from %s complete; eligible for "
		    "promotion", peer_of(c));
		send_u64(c, REPL_ACK, f->seq);
		lk_ops->hand_over(peer_of(c));
		return 0;
	case REPL_CTR:
		return apply_ctrs(&r);
	case REPL_EVENT:
		if (store_repl_event_get(&r, &ev) == -1)
			return -1;
		store_event_repl_apply(&ev);
		return 0;
	case REPL_QADD:
	case REPL_QDEL:
		v = repl_get64(&r);
		repl_gets(&r, target, sizeof(target));
		if (r.bad || target[0] == '\0')
			return -1;
		(f->type == REPL_QADD ? store_event_queue_add :
		    store_event_queue_del)(target, v);
		return 0;
	case REPL_BOOTS:
		v = repl_get32(&r);
		if (r.bad || v == 0 || v > GW_SNMP_BOOTS_MAX)
			return -1;
		lk_ops->peer_boots((uint32_t)v);
		return 0;
	case REPL_BEAT:
		send_u64(c, REPL_ACK, f->seq);
		return 0;
	}
	*why = "unexpected frame type from the active";
	return -1;
}

/* ---- Handshake */

static int
read_hello(struct ha_conn *c, const struct repl_frame *f, const char **why)
{
	struct repl_r r = { f->payload, f->len, 0, 0 };
	uint8_t eid[GW_ENGINE_ID_MAX];
	size_t elen;
	uint8_t role, access[32];

	repl_getb(&r, c->tx.nonce, REPL_NONCE);
	role = repl_get8(&r);
	(void)repl_get32(&r);
	elen = repl_get8(&r);
	if (elen > sizeof(eid)) {
		*why = "malformed HELLO";
		return -1;
	}
	repl_getb(&r, eid, elen);
	repl_gets(&r, c->peer_name, sizeof(c->peer_name) > 255 ? 255 :
	    sizeof(c->peer_name));
	repl_getb(&r, access, sizeof(access));
	if (r.bad || r.off != r.n || role > REPL_FAULT) {
		*why = "malformed HELLO";
		return -1;
	}
	if (elen != lk_hc->engine_id_len || memcmp(eid, lk_hc->engine_id,
	    elen) != 0) {
		*why = "the peer's snmp.engine-id differs: the pair must be "
		    "one SNMP engine";
		return -1;
	}
	if (memcmp(access, lk_hc->access, sizeof(access)) != 0) {
		*why = "the peer's SNMP access differs (snmp users or "
		    "communities; ctl ha status shows each side's digest): "
		    "the pair must answer managers alike";
		return -1;
	}
	c->peer_role = (enum repl_role)role;
	return 0;
}

/* Whether the standby opened c: of two links, both sides keep that
 * one (each side may have connected at once). */
static int
standby_opened(const struct ha_conn *c)
{
	return (c->outgoing ? store_repl_status()->role : c->peer_role) == REPL_STANDBY;
}

/* Both sides proved the key: what the pair is now. */
static void
link_up(struct ha_conn *c)
{
	enum repl_role me = store_repl_status()->role;

	c->st = L_UP;
	if (lk_pend == c)
		lk_pend = NULL;
	if (lk_up != NULL && standby_opened(lk_up) && !standby_opened(c)) {
		conn_close(c, NULL);
		return;
	}
	if (lk_up != NULL)
		conn_close(lk_up, NULL);
	lk_up = c;
	snprintf(store_repl_status()->peer, sizeof(store_repl_status()->peer),
	    "%s", c->peer_name);
	log_info("ha: link with %s (%s) up", c->peer_name,
	    store_repl_role_name(c->peer_role));
	lk_ops->peer_role(c->peer_role, c->peer_name);
	if (lk_up != c)
		return;		/* split brain: closed */
	if (me == REPL_ACTIVE && c->peer_role == REPL_STANDBY)
		snap_begin(c);
	else if (!(me == REPL_STANDBY && c->peer_role == REPL_ACTIVE))
		conn_close(c, NULL);	/* nothing to replicate */
}

static int
handshake(struct ha_conn *c, const struct repl_frame *f, const char **why)
{
	*why = "unexpected frame before the handshake";
	if (f->type == REPL_HELLO && (c->st == L_WAIT_HELLO ||
	    c->st == L_HELLO_SENT)) {
		if (read_hello(c, f, why) == -1)
			return -1;
		if (c->st == L_WAIT_HELLO) {
			/* Ours, MACed over the connector's nonce; its
			 * frames from now on are over ours. */
			memcpy(c->rx.nonce, c->nonce, REPL_NONCE);
			send_hello(c);
			c->st = L_WAIT_READY;
			return 0;
		}
		if (send_frame(c, REPL_READY, NULL, 0) == -1 ||
		    flush_out(c) == -1)
			return 1;
		link_up(c);
		return 0;
	}
	if (f->type == REPL_READY && c->st == L_WAIT_READY) {
		link_up(c);
		return 0;
	}
	return -1;
}

static int
frame(struct ha_conn *c, const struct repl_frame *f)
{
	const char *why;
	int rc;

	c->last_rx = ev_now();
	store_repl_status()->frames_in++;
	store_repl_status()->last_rx_ms = (int64_t)c->last_rx;
	if (c->st != L_UP)
		rc = handshake(c, f, &why);
	else if (c->sending && f->type == REPL_HANDOVER) {
		struct repl_r r = { f->payload, f->len, 0, 0 };
		struct store_event ev;

		why = "a malformed event handed over";
		if ((rc = store_repl_event_get(&r, &ev)) == 0)
			lk_ops->adopt(&ev, peer_of(c));
	} else if (c->sending) {
		why = "unexpected frame type from the standby";
		rc = f->type == REPL_ACK && f->len == 8 ? 0 : -1;
		if (rc == 0)
			c->acked = repl_get64(&(struct repl_r){ f->payload,
			    f->len, 0, 0 });
	} else
		rc = apply(c, f, &why);
	if (rc == -1 && !c->dead)
		refuse(c, why);
	return rc;
}

/* ---- Input */

static void
read_in(struct ha_conn *c)
{
	struct repl_frame f;
	const char *why = NULL;
	size_t off = 0;
	ssize_t n;
	long k;

	if (c->incap - c->inlen < 65536) {
		uint8_t *b = realloc(c->in, c->incap + 131072);

		if (b == NULL) {
			conn_close(c, "no memory");
			return;
		}
		c->in = b;
		c->incap += 131072;
	}
	n = read(c->fd, c->in + c->inlen, c->incap - c->inlen);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (c->inlen > 0)
			refuse(c, "truncated frame (the stream ended inside "
			    "it)");
		else
			conn_close(c, n < 0 ? strerror(errno) :
			    "closed by the peer");
		return;
	}
	c->inlen += (size_t)n;
	while ((k = store_repl_frame_get(&c->rx, c->in + off, c->inlen - off,
	    &f, &why)) > 0) {
		if (frame(c, &f) != 0 || c->dead)
			return;		/* c is gone */
		off += (size_t)k;
	}
	if (k < 0) {
		refuse(c, why);
		return;
	}
	memmove(c->in, c->in + off, c->inlen - off);
	c->inlen -= off;
	/* Answers (ACKs) go now. */
	if (c->outlen > c->outoff && flush_out(c) == -1)
		return;
	/* A frame at most REPL_MAX_PAYLOAD: the buffer grows to hold one
	 * and no more (incap stays below 2 x 128 KiB). */
	if (c->incap > 4 * 131072)
		refuse(c, "frame larger than the buffer");
}

static void
conn_io(int fd, short revents, void *arg)
{
	struct ha_conn *c = arg;
	int err = 0;
	socklen_t el = sizeof(err);

	if (c->st == L_CONNECTING) {
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == -1 ||
		    err != 0) {
			log_debug("ha: cannot reach %s: %s", lk_hc->peer_addr,
			    strerror(err ? err : errno));
			conn_free(c);
			return;
		}
		c->st = L_HELLO_SENT;
		send_hello(c);
		return;
	}
	if ((revents & POLLOUT) && flush_out(c) == -1)
		return;
	if (c->snapping && c->outlen - c->outoff < OUT_HIGH)
		snap_more(c);
	if (!c->dead && (revents & (POLLIN | POLLHUP | POLLERR)))
		read_in(c);
}

/* ---- Connections */

static void
accept_cb(int fd, short revents, void *arg)
{
	int s = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	(void)revents;
	(void)arg;
	if (s == -1)
		return;
	/* One handshake at a time: the newer one. */
	if (lk_pend != NULL)
		conn_close(lk_pend, NULL);
	lk_pend = conn_new(s, 0);
}

/* The connection leaves from ha.listen's address (any port), not from
 * whatever the route prefers: a replication network of its own, and a
 * peer that filters by source (rp_filter), see the address configured.
 * A wildcard listen address leaves the choice to the kernel. */
static int
bind_source(int s)
{
	struct sockaddr_storage a = lk_hc->listen;

	if (a.ss_family != lk_hc->peer.ss_family)
		return 0;
	if (a.ss_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&a;

		if (in->sin_addr.s_addr == htonl(INADDR_ANY))
			return 0;
		in->sin_port = 0;
	} else if (a.ss_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a;

		if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
			return 0;
		in6->sin6_port = 0;
	} else
		return 0;
	return bind(s, (struct sockaddr *)&a, lk_hc->listen_len);
}

static void
connect_peer(void)
{
	static int bind_failed;
	int one = 1, s = socket(lk_hc->peer.ss_family, SOCK_STREAM |
	    SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct ha_conn *c;

	lk_last_try = ev_now();
	if (s == -1) {
		log_warn("ha: socket");
		return;
	}
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (bind_source(s) == -1) {
		/* Once, until it works again (an address not yet up). */
		if (!bind_failed)
			log_warn("ha: cannot connect to the peer from ha.listen's "
			    "address");
		bind_failed = 1;
		close(s);
		return;
	}
	bind_failed = 0;
	if (connect(s, (const struct sockaddr *)&lk_hc->peer,
	    lk_hc->peer_len) == -1 && errno != EINPROGRESS) {
		log_debug("ha: cannot reach %s: %s", lk_hc->peer_addr,
		    strerror(errno));
		close(s);
		return;
	}
	if ((c = conn_new(s, 1)) == NULL)
		return;
	lk_pend = c;
	ev_fd_events(s, POLLOUT);
}

static void
beat(struct ha_conn *c)
{
	struct repl_status *st = store_repl_status();

	if (c->sending && ev_now() - lk_last_beat >= 1000) {
		lk_last_beat = ev_now();
		send_u64(c, REPL_BEAT, store_event_last_seq());
		if (lk_up == c)
			flush_out(c);
	}
	if (lk_up == c && c->sending)
		st->lag = c->tx.seq - 1 > c->acked ? c->tx.seq - 1 - c->acked :
		    0;
}

static void
tick(void *arg)
{
	uint64_t now = ev_now();
	enum repl_role me = store_repl_status()->role;
	uint64_t every = me == REPL_STANDBY ? 1000 : 3000;
	char why[64];

	(void)arg;
	ev_timer_add(&lk_tick, TICK_MS);
	graves_free();
	if (lk_pend != NULL && now - lk_pend->since > (uint64_t)
	    lk_hc->timeout_ms)
		conn_close(lk_pend, "no handshake in time");
	if (lk_up != NULL && now - lk_up->last_rx > (uint64_t)
	    lk_hc->timeout_ms) {
		snprintf(why, sizeof(why), "the peer was silent for %d s",
		    lk_hc->timeout_ms / 1000);
		conn_close(lk_up, why);
	}
	if (lk_up != NULL)
		beat(lk_up);
	if (lk_up == NULL && lk_pend == NULL && me != REPL_FAULT &&
	    now - lk_last_try >= every)
		connect_peer();
}

static int
listen_on(const struct ha_conf *hc)
{
	int one = 1, s = socket(hc->listen.ss_family, SOCK_STREAM |
	    SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (s == -1 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof(one)) == -1 || bind(s, (const struct sockaddr *)&hc->listen,
	    hc->listen_len) == -1 || listen(s, 4) == -1) {
		log_warn("ha: cannot listen for the peer");
		if (s != -1)
			close(s);
		return -1;
	}
	return s;
}

int
ha_link_listen(const struct ha_conf *hc)
{
	return listen_on(hc);
}

/* A reload moved ha.listen: the new socket (ha_link_listen) replaces
 * the old one; connections already accepted stay until the reset. */
void
ha_link_set_listener(int fd)
{
	if (lk_listen >= 0) {
		ev_fd_del(lk_listen);
		close(lk_listen);
	}
	lk_listen = fd;
	if (ev_fd_add(fd, POLLIN, accept_cb, NULL) == -1)
		log_warnx("ha: the new listener cannot be watched");
}

int
ha_link_init(const struct ha_conf *hc, const struct ha_link_ops *ops)
{
	static const struct counters_tap ct = { tap_counter, tap_flush,
	    NULL };
	static const struct store_event_tap et = { tap_event, tap_queue,
	    NULL };

	lk_hc = hc;
	lk_ops = ops;
	if ((lk_listen = listen_on(hc)) == -1 ||
	    ev_fd_add(lk_listen, POLLIN, accept_cb, NULL) == -1)
		return -1;
	counters_set_tap(&ct);
	store_event_set_tap(&et);
	ev_timer_init(&lk_tick, tick, NULL);
	ev_timer_add(&lk_tick, 50);
	lk_last_try = 0;
	return 0;
}

void
ha_link_finalise(void)
{
	counters_set_tap(NULL);
	store_event_set_tap(NULL);
	if (lk_hc == NULL)
		return;
	ev_timer_del(&lk_tick);
	conn_free(lk_up);
	conn_free(lk_pend);
	graves_free();
	if (lk_listen >= 0) {
		ev_fd_del(lk_listen);
		close(lk_listen);
	}
	lk_listen = -1;
	lk_hc = NULL;
}

void
ha_link_reset(const char *why)
{
	if (lk_up != NULL)
		conn_close(lk_up, why);
	if (lk_pend != NULL)
		conn_close(lk_pend, NULL);
	lk_last_try = 0;	/* reconnect at the next tick */
	lk_nbatch = 0;
	lk_bw.n = 0;
}

void
ha_link_drop(void)
{
	ha_link_reset(NULL);
	lk_last_try = ev_now();
}

int
ha_link_protected(const char **why)
{
	const struct ha_conn *c = lk_up;

	if (c == NULL || !c->sending)
		*why = "no standby connected";
	else if (c->snapping || c->snap_end == 0 || c->acked < c->snap_end)
		*why = "the standby is taking its snapshot";
	else if (ev_now() - c->last_rx > 2000)
		*why = "the standby has not acknowledged for 2 s";
	else {
		*why = "";
		return 1;
	}
	return 0;
}

int
ha_link_send(uint8_t type, const void *p, size_t len)
{
	if (lk_up == NULL || lk_up->dead)
		return -1;
	send_frame(lk_up, type, p, len);
	return 0;
}

void
ha_link_seqs(uint64_t *sent, uint64_t *acked)
{
	const struct ha_conn *c = lk_up;

	*sent = *acked = 0;
	if (c == NULL || !c->sending)
		return;
	*sent = c->tx.seq - 1;
	*acked = c->acked;
}

int
ha_link_synced(void)
{
	return lk_synced;
}

/* A demoted active's copy is its own, not a snapshot of the new
 * active's: not eligible until one has come. (A standby whose link
 * drops stays eligible: that is how an active's death looks.) */
void
ha_link_unsync(void)
{
	lk_synced = 0;
}
