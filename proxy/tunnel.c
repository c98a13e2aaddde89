/* proxy_tun: the gateway's tunnel client (see tunnel.h).
 *
 * Per node: a queue of messages waiting, a cap on messages out, and a
 * probe in progress or not. Each message out has its own timer and
 * tries; its segments go through proxy_mad_submit as Sends, so they
 * share the MAD engine's per-node caps and its rate limit with every
 * other MAD to the node. A reply is matched by the node its source LID
 * names and the RAddress it echoes (docs/tunneling.md), so several
 * messages may be out to one node: tunnel.max-in-flight-per-node, to an
 * agent whose ClassPortInfo says it takes them (TUN_CAP_CONCURRENT),
 * else one. The segments of one message are submitted together and the
 * engine keeps a node's MADs in order, so two messages' segments never
 * interleave on the wire. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <infiniband/mad.h>

#include "codec/tunnel.h"
#include "proxy/mad.h"
#include "proxy/tunnel.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

/* PortInfo:CapabilityMask bit 17, IsSNMPTunnelingSupported (IBA
 * 14.2.5.6 Table 146). */
#define CAP_SNMP_TUNNELING	(1u << 17)

enum { ON_NONE, ON_WAIT, ON_OUT };

struct proxy_tun_req {
	TAILQ_ENTRY(proxy_tun_req) link;
	struct tun_peer		*p;
	uint32_t		 raddr;
	int			 on;		/* ON_* list */
	int			 tries;		/* sends left */
	int			 err;		/* a first send's failure */
	int			 segs_pending;	/* Sends the engine holds */
	int			 dead;		/* finished or cancelled */
	struct ev_timer		 timer;
	proxy_tun_cb		 cb;
	void			*arg;
	struct tun_reasm	*ra;		/* from the first reply segment */
	size_t			 len;
	uint8_t			 pdu[];
};

TAILQ_HEAD(tun_reqs, proxy_tun_req);

struct tun_peer {
	uint32_t		 idx;
	uint32_t		 raddr;		/* last one used */
	int			 probing;
	/* What this run's probe said: several messages at once or one
	 * (an agent of 0.1.0 takes one); unknown until probed. */
	int			 cap_known, concurrent;
	int			 nwait, nout;
	struct tun_reqs		 wait, out;
	struct ev_timer		 kick;		/* pump outside callers */
};

static struct proxy_tun_conf	tun_conf = { 192, 300, 1000, 1, 16, 64 };
static struct proxy_tun_stats	tun_st;
static struct htab		tun_peers;	/* node idx -> tun_peer */
static int			tun_on;
/* The segments of one message, encoded before they are queued. */
static uint8_t			tun_mads[TUN_SEG_MAX][TUN_MAD_SIZE];

static void pump(struct tun_peer *p);

static void
kick_cb(void *arg)
{
	pump(arg);
}

static struct tun_peer *
peer_get(uint32_t idx)
{
	struct tun_peer *p = htab_get_u64(&tun_peers, idx);

	if (p != NULL)
		return p;
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		log_warn("tunnel: peer");
		return NULL;
	}
	p->idx = idx;
	TAILQ_INIT(&p->wait);
	TAILQ_INIT(&p->out);
	ev_timer_init(&p->kick, kick_cb, p);
	if (htab_put_u64(&tun_peers, idx, p) == -1) {
		free(p);
		return NULL;
	}
	return p;
}

static void
req_free(struct proxy_tun_req *r)
{
	if (r->segs_pending > 0)
		return;		/* the last segment's callback frees it */
	free(r->ra);
	free(r);
}

static void
req_unlink(struct proxy_tun_req *r)
{
	struct tun_peer *p = r->p;

	if (r->on == ON_WAIT) {
		TAILQ_REMOVE(&p->wait, r, link);
		p->nwait--;
	} else if (r->on == ON_OUT) {
		TAILQ_REMOVE(&p->out, r, link);
		p->nout--;
		if (tun_on && p->nwait > 0)
			ev_timer_add(&p->kick, 0);	/* room for the next */
	}
	r->on = ON_NONE;
	ev_timer_del(&r->timer);
}

/* The one end of a request: its callback, then its memory. */
static void
req_finish(struct proxy_tun_req *r, int status, const uint8_t *pdu,
    size_t len)
{
	req_unlink(r);
	r->dead = 1;
	r->cb(r->arg, status, pdu, len);
	req_free(r);
}

static void
fail_waiting(struct tun_peer *p, int status)
{
	struct proxy_tun_req *r;

	while ((r = TAILQ_FIRST(&p->wait)) != NULL)
		req_finish(r, status, NULL, 0);
}

/* Probe: a ClassPortInfo Get (IBA 13.4.8.1), answered by an agent. */

static void
probe_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct tun_peer *p = arg;
	struct store_node *n = store_node_at(p->idx);
	int ok = status == 0 && mad != NULL && mad[1] == TUN_MGMT_CLASS &&
	    mad[3] == TUN_METHOD_GET_RESP;

	p->probing = 0;
	if (!tun_on)
		return;
	if (ok) {
		p->cap_known = 1;
		p->concurrent = (tun_cpi_cap(mad) & TUN_CAP_CONCURRENT) != 0;
	}
	/* Silence, an error status (an answer: mad is set) or garbage is
	 * a verdict; a probe that never reached the node (our port down or
	 * a local send error, the node unreachable, shutdown) is none, and
	 * is not recorded. */
	if (!ok && status != -ETIMEDOUT && status != -EPROTO &&
	    !(status == -EIO && mad != NULL)) {
		fail_waiting(p, status == -ENOENT ? -EIO : status);
		return;
	}
	if (ok)
		tun_st.probe_ok++;
	else
		tun_st.probe_none++;
	if (n != NULL) {
		if (n->tunnel != (ok ? STORE_TUN_OK : STORE_TUN_NONE))
			log_info("tunnel: %s: %s", store_node_ident(n), ok ?
			    "an SNMP agent answers" : "no SNMP agent answers");
		store_node_set_tunnel(p->idx, ok ? STORE_TUN_OK :
		    STORE_TUN_NONE, ev_wall());
	}
	if (ok)
		pump(p);
	else
		fail_waiting(p, -ENOENT);
}

static int
probe(struct tun_peer *p, const struct store_node *n)
{
	uint8_t mad[TUN_MAD_SIZE];
	struct proxy_mad_args a;

	if (p->probing)
		return 0;
	tun_encode_cpi_get(mad, 0);
	memset(&a, 0, sizeof(a));
	a.node_key = n->guid;
	a.target.lid = n->lid;
	a.mgmt_class = TUN_MGMT_CLASS;
	a.raw = mad;
	a.optional = 1;	/* silence is an answer here */
	/* Set first: a send that fails at once calls back inside. */
	p->probing = 1;
	tun_st.probes++;
	if (proxy_mad_submit(&a, probe_cb, p) == -1) {
		p->probing = 0;
		if (errno != ENETDOWN)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* Sending */

static void
seg_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct proxy_tun_req *r = arg;

	(void)mad;
	r->segs_pending--;
	if (r->dead) {
		req_free(r);
		return;
	}
	/* A segment not sent: the try's timer sends the message again. */
	if (status != 0)
		log_debug("tunnel: %s: a segment was not sent: %s",
		    store_node_ident_idx(r->p->idx), strerror(-status));
}

static void try_timeout(void *arg);

/* Our port's LID, the segments' SourceLID: read again every 10 s, as
 * the SM may move it. */
static uint16_t
local_lid(void)
{
	static uint16_t lid;
	static uint64_t at;
	struct proxy_local_port lp;

	if (lid == 0 || ev_now() - at >= 10000) {
		if (proxy_mad_local(&lp) == 0)
			lid = lp.lid;
		at = ev_now();
	}
	return lid;
}

static int
send_try(struct proxy_tun_req *r)
{
	const struct store_node *n = store_node_at(r->p->idx);
	struct proxy_mad_args a;
	uint16_t slid = local_lid();
	int nseg;

	if (n == NULL || n->lid == 0 || slid == 0)
		return -ENETDOWN;
	nseg = tun_encode(tun_mads, TUN_SEG_MAX, r->pdu, r->len,
	    (size_t)tun_conf.segment_octets, r->raddr, slid, 0);
	if (nseg < 0)
		return -EMSGSIZE;
	if (r->ra != NULL)
		tun_reasm_reset(r->ra);
	memset(&a, 0, sizeof(a));
	a.node_key = n->guid;
	a.target.lid = n->lid;
	a.mgmt_class = TUN_MGMT_CLASS;
	a.no_answer = 1;
	for (int i = 0; i < nseg; i++) {
		a.raw = tun_mads[i];
		if (proxy_mad_submit(&a, seg_cb, r) == -1)
			return errno == ENETDOWN ? -ENETDOWN : -EIO;
		r->segs_pending++;
		tun_st.segments_out++;
	}
	r->tries--;
	ev_timer_add(&r->timer, (uint64_t)tun_conf.timeout_ms);
	return 0;
}

static void
try_timeout(void *arg)
{
	struct proxy_tun_req *r = arg;
	struct store_node *n;
	int rc;

	if (r->err != 0) {
		req_finish(r, r->err, NULL, 0);		/* from pump */
		return;
	}
	if (r->tries > 0) {
		tun_st.retries++;
		if ((rc = send_try(r)) == 0)
			return;
		req_finish(r, rc, NULL, 0);
		return;
	}
	tun_st.timeouts++;
	/* The agent may be gone: the next request probes first. */
	if ((n = store_node_at(r->p->idx)) != NULL &&
	    n->tunnel == STORE_TUN_OK) {
		log_info("tunnel: %s: the agent did not answer; probing "
		    "again", store_node_ident(n));
		store_node_set_tunnel(n->idx, STORE_TUN_UNKNOWN,
		    n->tunnel_probed);
	}
	req_finish(r, -ETIMEDOUT, NULL, 0);
}

static void
pump(struct tun_peer *p)
{
	struct proxy_tun_req *r;
	int rc;

	if (!tun_on || p->probing)
		return;
	while (p->nout < (p->concurrent ? tun_conf.max_inflight_node : 1) &&
	    (r = TAILQ_FIRST(&p->wait)) != NULL) {
		TAILQ_REMOVE(&p->wait, r, link);
		p->nwait--;
		TAILQ_INSERT_TAIL(&p->out, r, link);
		if (++p->nout > (int)tun_st.out_peak)
			tun_st.out_peak = (uint64_t)p->nout;
		r->on = ON_OUT;
		if ((rc = send_try(r)) != 0) {
			/* Its callback from the loop: pump runs inside
			 * proxy_tun_request too, which never calls back. */
			r->err = rc;
			ev_timer_add(&r->timer, 0);
		}
	}
}

/* Receiving: the agent's replies are Sends to us (IBA 13.4.5). */

/* A dropped segment's log line: one per kind every 10 s at most, with
 * how many went since (they are counted in ctl stats either way; a
 * fabric can send them as fast as it likes). what: a string literal. */
static void
drop_log(const char *what, uint16_t lid)
{
	static struct {
		const char	*what;
		uint64_t	 at;
		uint64_t	 n;
	} k[4];
	int i;

	for (i = 0; i < 3 && k[i].what != NULL && k[i].what != what; i++)
		;
	k[i].what = what;
	k[i].n++;
	if (k[i].at != 0 && ev_now() - k[i].at < 10000)
		return;
	log_info("tunnel: dropped: %s, from LID %u (%llu such since the last "
	    "line)", what, lid, (unsigned long long)k[i].n);
	k[i].at = ev_now();
	k[i].n = 0;
}

static struct proxy_tun_req *
find_out(struct tun_peer *p, uint32_t raddr)
{
	struct proxy_tun_req *r;

	TAILQ_FOREACH(r, &p->out, link)
		if (r->raddr == raddr)
			return r;
	return NULL;
}

static int
on_send(void *arg, const void *req, const uint8_t *mad, size_t len)
{
	struct tun_seg s;
	struct store_node *n;
	struct tun_peer *p;
	struct proxy_tun_req *r;
	uint16_t slid = proxy_mad_request_slid(req);

	(void)arg;
	if (len >= 4 && mad[3] != TUN_METHOD_SEND)
		return -1;	/* a probe of us, say: not ours */
	if (tun_decode(mad, len, &s) == -1) {
		tun_st.malformed++;
		drop_log("a malformed segment", slid);
		return 0;
	}
	tun_st.segments_in++;
	if (s.slid != slid) {
		tun_st.spoofed++;
		drop_log("a segment naming another SourceLID", slid);
		return 0;
	}
	if ((n = store_node_by_lid(slid)) == NULL ||
	    (p = htab_get_u64(&tun_peers, n->idx)) == NULL ||
	    (r = find_out(p, s.raddr)) == NULL) {
		/* A late answer (its request timed out) is one. */
		tun_st.unmatched++;
		drop_log("a segment no request waits for", slid);
		return 0;
	}
	if (s.num == 1 && s.last) {
		/* A one-segment reply, most of them: no reassembly. A
		 * segment 1 starts a new message anyway (docs/tunneling.md). */
		tun_st.answers++;
		req_finish(r, 0, s.data, s.len);
		return 0;
	}
	if (r->ra == NULL) {
		if ((r->ra = malloc(sizeof(*r->ra))) == NULL) {
			log_warn("tunnel: reassembly");
			return 0;
		}
		tun_reasm_reset(r->ra);
	}
	switch (tun_reasm_add(r->ra, &s)) {
	case TUN_DONE:
		tun_st.answers++;
		req_finish(r, 0, r->ra->buf, r->ra->len);
		break;
	case TUN_BAD:
		/* Out of order: the reply is lost; the next try asks
		 * again. */
		tun_st.broken++;
		drop_log("a reply segment out of order", slid);
		tun_reasm_reset(r->ra);
		break;
	}
	return 0;
}

/* API */

enum store_tun
proxy_tun_state(const struct store_node *n)
{
	if (n == NULL || n->lid == 0)
		return STORE_TUN_NONE;
	for (int i = 0; i <= n->num_ports; i++) {
		const struct store_port *pt = &n->ports[i];

		if (pt->pinfo_ok && pt->lid == n->lid &&
		    mad_get_field((void *)pt->pinfo, 0, IB_PORT_CAPMASK_F) &
		    CAP_SNMP_TUNNELING)
			return STORE_TUN_OK;
	}
	if (n->tunnel == STORE_TUN_NONE &&
	    ev_wall() - n->tunnel_probed >= tun_conf.probe_interval)
		return STORE_TUN_UNKNOWN;	/* time to ask again */
	return n->tunnel;
}

struct proxy_tun_req *
proxy_tun_request(const struct store_node *n, const uint8_t *pdu,
    size_t len, proxy_tun_cb cb, void *arg)
{
	enum store_tun st = proxy_tun_state(n);
	size_t seg = (size_t)tun_conf.segment_octets;
	struct proxy_tun_req *r;
	struct tun_peer *p;

	if (!tun_on || !proxy_mad_has_tunnel()) {
		errno = ENETDOWN;
		return NULL;
	}
	if (st == STORE_TUN_NONE) {
		tun_st.refused++;
		errno = ENOENT;
		return NULL;
	}
	if (len == 0 || (len + seg - 1) / seg > TUN_SEG_MAX) {
		errno = EMSGSIZE;
		return NULL;
	}
	if ((p = peer_get(n->idx)) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (p->nwait >= tun_conf.max_queue_node) {
		errno = ENOBUFS;
		return NULL;
	}
	/* A node whose agent the inventory knows is probed once a run
	 * too, at its first request, for the agent's CapabilityMask. */
	if ((st == STORE_TUN_UNKNOWN || (!p->cap_known &&
	    n->tunnel == STORE_TUN_OK)) && probe(p, n) == -1)
		return NULL;	/* ENETDOWN or EIO */
	if ((r = calloc(1, sizeof(*r) + len)) == NULL)
		return NULL;
	r->p = p;
	if (++p->raddr == 0)	/* never 0 (docs/tunneling.md) */
		p->raddr = 1;
	r->raddr = p->raddr;
	r->tries = 1 + tun_conf.retries;
	r->cb = cb;
	r->arg = arg;
	r->len = len;
	memcpy(r->pdu, pdu, len);
	ev_timer_init(&r->timer, try_timeout, r);
	TAILQ_INSERT_TAIL(&p->wait, r, link);
	p->nwait++;
	r->on = ON_WAIT;
	tun_st.requests++;
	/* Sent now, not from the next loop turn: a turn of the loop (a
	 * poll() and net-snmp's hooks) was a tenth of the gateway's time
	 * per uncached GET. */
	pump(p);
	return r;
}

void
proxy_tun_cancel(struct proxy_tun_req *r)
{
	if (r == NULL || r->dead)
		return;
	req_unlink(r);
	r->dead = 1;
	req_free(r);
}

void
proxy_tun_get_stats(struct proxy_tun_stats *st)
{
	*st = tun_st;
}

uint32_t
proxy_tun_last_raddr(uint32_t idx)
{
	const struct tun_peer *p = htab_get_u64(&tun_peers, idx);

	return p != NULL ? p->raddr : 0;
}

int
proxy_tun_node_inflight(uint32_t idx)
{
	const struct tun_peer *p = htab_get_u64(&tun_peers, idx);

	if (p == NULL || !p->cap_known)
		return 0;
	return p->concurrent ? tun_conf.max_inflight_node : 1;
}

static void
count_peer(const void *key, size_t len, void *val, void *arg)
{
	const struct tun_peer *p = val;

	(void)key;
	(void)len;
	*(size_t *)arg += (size_t)(p->nwait + p->nout);
}

size_t
proxy_tun_pending(void)
{
	size_t n = 0;

	if (tun_on)
		htab_foreach(&tun_peers, count_peer, &n);
	return n;
}

void
proxy_tun_set_conf(const struct proxy_tun_conf *c)
{
	tun_conf = *c;
	if (tun_conf.segment_octets < 1 ||
	    tun_conf.segment_octets > TUN_SEG_DATA)
		tun_conf.segment_octets = TUN_SEG_DATA;
	if (tun_conf.max_inflight_node < 1)
		tun_conf.max_inflight_node = 1;
}

int
proxy_tun_init(const struct proxy_tun_conf *c)
{
	htab_init(&tun_peers);
	proxy_tun_set_conf(c);
	proxy_mad_on_request(TUN_MGMT_CLASS, on_send, NULL);
	tun_on = 1;
	return 0;
}

static void
free_peer(const void *key, size_t len, void *val, void *arg)
{
	struct tun_peer *p = val;
	struct proxy_tun_req *r;

	(void)key;
	(void)len;
	(void)arg;
	ev_timer_del(&p->kick);
	fail_waiting(p, -ECANCELED);
	while ((r = TAILQ_FIRST(&p->out)) != NULL)
		req_finish(r, -ECANCELED, NULL, 0);
	free(p);
}

/* After proxy_mad_finalise: the engine has called back for every MAD
 * it held, so no callback can reach a peer freed here. */
void
proxy_tun_finalise(void)
{
	if (!tun_on)
		return;
	proxy_mad_on_request(TUN_MGMT_CLASS, NULL, NULL);
	tun_on = 0;
	htab_foreach(&tun_peers, free_peer, NULL);
	htab_free(&tun_peers);
}
