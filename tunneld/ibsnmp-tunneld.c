/* ibsnmp-tunneld: the node end of IB SNMP Tunneling (class 0x08,
 * docs/tunneling.md). It answers ClassPortInfo probes, puts tunneled
 * SNMP messages together, checks who sent them and with what
 * community, hands them to the one local agent of its configuration
 * over loopback UDP, and sends the agent's answer back in segments.
 *
 * Event-driven, two threads, no fixed tick: the umad reader (rx.c,
 * which says why the umad fd has a thread of its own) handles each MAD
 * as it comes and sends the message on to the agent; the main loop is
 * one poll() over the agent sockets, a timerfd armed at the next timer
 * and the reader's wake-up pipe, and sends the answers back.
 * Both work under td_lock. Idle, both sleep.
 *
 * A requester may have several messages at the agent at once
 * (max-requests-per-peer), each on a UDP socket of its own, so an
 * answer's socket names its request and RAddress without parsing it.
 * Memory is fixed: a table of peers, each with one reassembly and its
 * request slots. */
#include "config.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "codec/smp.h"
#include "codec/tunnel.h"
#include "tunneld/tunneld.h"
#include "util/log.h"

/* One message at the agent. The socket stays open for the next one
 * once answered; it is closed when its answer is given up (timeout, or
 * the requester's retry), so a late answer is never read as another's. */
struct td_req {
	int		 sock;		/* connected to the agent; -1: none */
	int		 waiting;	/* for the agent's answer */
	uint32_t	 raddr;
	uint64_t	 sent_ms;
};

struct td_peer {
	uint16_t	 lid;		/* 0: free */
	uint64_t	 last_ms;	/* its last segment */
	struct tun_reasm r;
	ib_mad_addr_t	 addr;		/* where its requests came from */
	int		 nwaiting;	/* requests at the agent */
	struct td_req	*req;		/* td_conf.max_requests of them */
};

static struct td_peer	*peers;
static struct td_req	*reqs;
/* The timers' one fd, in the main loop's poll(): a timerfd, so that
 * the reader can set a deadline while the main loop sleeps without
 * waking it (a wake-up per message cost the reader's work a lock and a
 * switch). Armed at the earliest deadline known when set; when it
 * fires, timers() runs and arms it at the next one. */
static int		 timer_fd = -1;
static uint64_t		 timer_at = UINT64_MAX;	/* armed for; MAX: not */
static volatile sig_atomic_t quit, dump;
static struct {
	unsigned long long probes, segments, pdus, answers, refused,
	    malformed, dropped, toobig, timeouts, spoofed, busy, unsolicited;
} st;

/* A timer due at at (ms, CLOCK_MONOTONIC): the timerfd fires by then.
 * Under td_lock. */
static void
timer_arm(uint64_t at)
{
	struct itimerspec its;

	if (at >= timer_at)
		return;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(at / 1000);
	its.it_value.tv_nsec = (long)(at % 1000) * 1000000 + 1;
	if (timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &its, NULL) == -1)
		fatal("tunneld: timerfd_settime");
	timer_at = at;
}

/* ---- The fabric side */

/* The community of a v1/v2c message (RFC 3416 / 1157: SEQUENCE {
 * version INTEGER, community OCTET STRING, ...}), short lengths and
 * the long forms up to 4 octets. 0 if it is td_conf.community. */
static int
ber_len(const uint8_t *p, size_t n, size_t *at, size_t *len)
{
	size_t k;

	if (*at >= n)
		return -1;
	if (!(p[*at] & 0x80)) {
		*len = p[(*at)++];
		return 0;
	}
	k = p[(*at)++] & 0x7f;
	if (k == 0 || k > 4 || *at + k > n)
		return -1;
	for (*len = 0; k > 0; k--)
		*len = *len << 8 | p[(*at)++];
	return 0;
}

static int
community_ok(const uint8_t *p, size_t n)
{
	size_t at = 0, len;

	if (n < 2 || p[at++] != 0x30 || ber_len(p, n, &at, &len) == -1 ||
	    at >= n || p[at++] != 0x02 || ber_len(p, n, &at, &len) == -1 ||
	    len > 4 || at + len > n)
		return -1;
	/* version: 0 (v1) or 1 (v2c); SNMPv3 is ended at the gateway */
	if (len != 1 || p[at] > 1)
		return -1;
	at += len;
	if (at >= n || p[at++] != 0x04 || ber_len(p, n, &at, &len) == -1 ||
	    at + len > n || len != strlen(td_conf.community) ||
	    memcmp(p + at, td_conf.community, len) != 0)
		return -1;
	return 0;
}

static void
req_close(struct td_peer *p, struct td_req *q)
{
	if (q->sock >= 0)
		close(q->sock);
	q->sock = -1;
	if (q->waiting) {
		q->waiting = 0;
		p->nwaiting--;
	}
}

static struct td_peer *
peer_of(uint16_t lid, uint64_t now)
{
	struct td_peer *free_p = NULL, *idle = NULL;
	struct td_req *req;

	for (int i = 0; i < td_conf.max_peers; i++) {
		struct td_peer *p = &peers[i];

		if (p->lid == lid)
			return p;
		if (p->lid == 0 && free_p == NULL)
			free_p = p;
		if (p->lid != 0 && p->nwaiting == 0 && !tun_reasm_busy(&p->r) &&
		    (idle == NULL || p->last_ms < idle->last_ms))
			idle = p;
	}
	if (free_p == NULL)
		free_p = idle;		/* the longest idle one goes */
	if (free_p == NULL)
		return NULL;
	/* Its sockets, all idle, serve the new peer. */
	req = free_p->req;
	memset(free_p, 0, sizeof(*free_p));
	free_p->req = req;
	free_p->lid = lid;
	free_p->last_ms = now;
	return free_p;
}

/* The slot for a message with RAddress raddr: a free one with a socket
 * open if there is one. A message whose RAddress is still at the agent
 * is the requester's retry: the old try's answer is left behind on its
 * socket, and the message goes again. */
static struct td_req *
req_slot(struct td_peer *p, uint32_t raddr)
{
	struct td_req *q = NULL;

	for (int i = 0; i < td_conf.max_requests; i++)
		if (p->req[i].waiting && p->req[i].raddr == raddr) {
			req_close(p, &p->req[i]);
			st.dropped++;
			td_rx_poke();	/* its fd leaves the poll set */
			return &p->req[i];
		}
	for (int i = 0; i < td_conf.max_requests; i++) {
		if (p->req[i].waiting)
			continue;
		if (p->req[i].sock >= 0)
			return &p->req[i];
		if (q == NULL)
			q = &p->req[i];
	}
	return q;
}

static void
to_agent(struct td_peer *p)
{
	struct td_req *q = req_slot(p, p->r.raddr);

	if (q == NULL) {
		/* Over max-requests-per-peer: the requester's own cap
		 * should have held it back. */
		st.busy++;
		td_drop_log("a message over max-requests-per-peer", p->lid);
		return;
	}
	if (q->sock < 0) {
		q->sock = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (q->sock < 0 || connect(q->sock, (struct sockaddr *)
		    &td_conf.agent, sizeof(td_conf.agent)) == -1) {
			st.dropped++;
			td_drop_log("a message with no socket to the agent "
			    "(out of fds?)", p->lid);
			req_close(p, q);
			return;
		}
		td_rx_poke();		/* a new fd for the poll set */
	}
	if (send(q->sock, p->r.buf, p->r.len, 0) != (ssize_t)p->r.len) {
		/* ECONNREFUSED: the agent's port was closed at the last
		 * message. The requester tries again. */
		st.dropped++;
		td_drop_log("a message the agent's socket refused (agent "
		    "down?)", p->lid);
		req_close(p, q);
		return;
	}
	q->waiting = 1;
	q->raddr = p->r.raddr;
	q->sent_ms = td_now_ms();
	p->nwaiting++;
	st.pdus++;
	timer_arm(q->sent_ms + (uint64_t)td_conf.agent_ms);
}

static void
handle_pdu_segment(const uint8_t *mad, size_t len, const ib_mad_addr_t *from)
{
	struct tun_seg s;
	struct td_peer *p;
	uint16_t lid = ntohs(from->lid);
	uint64_t now = td_now_ms();

	st.segments++;
	if (!td_guid_allowed(lid)) {
		st.refused++;
		td_drop_log("a segment from a LID not allowed", lid);
		return;
	}
	if (tun_decode(mad, len, &s) == -1) {
		st.malformed++;
		td_drop_log("a malformed segment", lid);
		return;
	}
	if (s.slid != lid) {
		st.spoofed++;
		td_drop_log("a segment whose SourceLID is another's", lid);
		return;
	}
	if ((p = peer_of(lid, now)) == NULL) {
		st.dropped++;
		td_drop_log("a segment with max-peers all busy", lid);
		return;
	}
	p->last_ms = now;
	p->addr = *from;
	switch (tun_reasm_add(&p->r, &s)) {
	case TUN_BAD:
		st.malformed++;
		td_drop_log("a segment out of order", lid);
		return;
	case TUN_MORE:
		timer_arm(now + (uint64_t)td_conf.reasm_ms);
		return;
	}
	if (community_ok(p->r.buf, p->r.len) == -1) {
		st.refused++;
		td_drop_log("a message with another community or v3", lid);
		return;
	}
	to_agent(p);
}

/* Requests to us: SMInfo Gets under ibsim, ClassPortInfo probes,
 * PduInfo Sends. Answers: the SA's, to allow-guids' queries. In the
 * reader thread, under td_lock. */
static void
handle_mad(uint8_t *umad, int len)
{
	const uint8_t *mad = umad_get_mad(umad);
	const ib_mad_addr_t *from = umad_get_mad_addr(umad);
	uint8_t resp[TUN_MAD_SIZE];
	size_t mlen = (size_t)len;

	if (mlen >= 56 + 2 && mad[1] == 0x03 && mad[3] == 0x81) {
		td_guid_answer(mad);	/* allow-guids */
		return;
	}
	if (mlen < TUN_MAD_SIZE || (mad[3] & 0x80)) {
		st.unsolicited++;	/* we ask nothing else */
		td_drop_log("a short MAD or an answer to nothing we asked",
		    ntohs(from->lid));
		return;
	}
	if (mad[1] == 0x01 || mad[1] == 0x81) {
		if (td_conf.sim_issm &&
		    smp_sminfo_notactive(resp, mad, td_port.guid) == 0)
			(void)td_send_mad(mad[1] == 0x81 ? td_port.agent_dr :
			    td_port.agent_smi,
			    from, resp, 1);
		return;
	}
	if (mad[1] == TUN_MGMT_CLASS && mad[3] == TUN_METHOD_GET &&
	    (mad[16] << 8 | mad[17]) == TUN_ATTR_CLASS_PORT_INFO) {
		st.probes++;
		/* Several messages per requester at once (codec/tunnel.h). */
		tun_encode_cpi_resp(resp, mad, TUN_CAP_CONCURRENT, 19);
		(void)td_send_mad(td_port.agent_tun, from, resp, 0);
		return;
	}
	if (mad[1] == TUN_MGMT_CLASS && mad[3] == TUN_METHOD_SEND &&
	    (mad[16] << 8 | mad[17]) == TUN_ATTR_PDU) {
		handle_pdu_segment(mad, mlen, from);
		return;
	}
	st.malformed++;		/* CommunityInfo and anything else */
	td_drop_log("a MAD of another class, method or attribute",
	    ntohs(from->lid));
}

/* ---- The agent side */

static void
from_agent(struct td_peer *p, struct td_req *q)
{
	static uint8_t buf[65536];
	static uint8_t mads[TUN_SEG_MAX][TUN_MAD_SIZE];
	ssize_t n = recv(q->sock, buf, sizeof(buf), 0);
	int segs;

	if (n <= 0)
		return;
	if (!q->waiting) {
		/* Cannot happen: a socket whose answer was given up is
		 * closed. Read and dropped, it cannot pass for another's. */
		st.dropped++;
		td_drop_log("an answer from the agent to no request", p->lid);
		return;
	}
	q->waiting = 0;
	p->nwaiting--;
	segs = tun_encode(mads, TUN_SEG_MAX, buf, (size_t)n,
	    (size_t)td_conf.segment, q->raddr, td_port.lid, td_tids(0));
	if (segs < 0) {
		st.toobig++;
		log_warnx("tunneld: a %zd-octet answer for LID %u is over the "
		    "tunnel's %d: not sent", n, p->lid, TUN_PDU_MAX);
		return;
	}
	(void)td_tids(segs);
	for (int i = 0; i < segs; i++)
		if (td_send_mad(td_port.agent_tun, &p->addr, mads[i], 0) == -1)
			return;
	st.answers++;
}

/* Timers due by now; returns when the next one is (UINT64_MAX: none),
 * for the loop's poll() timeout. */
static uint64_t
timers(uint64_t now)
{
	uint64_t next = td_guid_timers(now), at;

	for (int i = 0; i < td_conf.max_peers; i++) {
		struct td_peer *p = &peers[i];

		if (tun_reasm_busy(&p->r)) {
			at = p->last_ms + (uint64_t)td_conf.reasm_ms;
			if (now >= at) {
				tun_reasm_reset(&p->r);
				st.dropped++;
				td_drop_log("a message whose segments stopped",
				    p->lid);
			} else if (at < next)
				next = at;
		}
		for (int k = 0; k < td_conf.max_requests && p->nwaiting > 0;
		    k++) {
			struct td_req *q = &p->req[k];

			if (!q->waiting)
				continue;
			at = q->sent_ms + (uint64_t)td_conf.agent_ms;
			if (now >= at) {
				req_close(p, q);
				st.timeouts++;
				td_drop_log("a message the agent did not answer",
				    p->lid);
			} else if (at < next)
				next = at;
		}
	}
	return next;
}

static void
log_stats(void)
{
	log_info("tunneld: probes %llu segments %llu pdus %llu answers %llu "
	    "refused %llu malformed %llu spoofed %llu dropped %llu toobig "
	    "%llu agent-timeouts %llu busy %llu unsolicited %llu long "
	    "%llu", st.probes, st.segments, st.pdus, st.answers, st.refused,
	    st.malformed, st.spoofed, st.dropped, st.toobig, st.timeouts,
	    st.busy, st.unsolicited, td_rx_dropped());
}


/* ---- The loop */

/* The poll set: the reader's pipe, the timerfd, then every open agent
 * socket (a socket reused for the next message is in it already, so the
 * reader need not wake us for it); map[i] names the slot of pfd[i]. */
static int
poll_set(struct pollfd *pfd, struct td_req **map, int max)
{
	int n = 2;

	pfd[0] = (struct pollfd){ td_rx_wake_fd(), POLLIN, 0 };
	pfd[1] = (struct pollfd){ timer_fd, POLLIN, 0 };
	for (int i = 0; i < td_conf.max_peers * td_conf.max_requests &&
	    n < max; i++)
		if (reqs[i].sock >= 0) {
			pfd[n] = (struct pollfd){ reqs[i].sock, POLLIN, 0 };
			map[n++] = &reqs[i];
		}
	return n;
}

static struct td_peer *
peer_of_req(const struct td_req *q)
{
	return &peers[(q - reqs) / td_conf.max_requests];
}

/* The timerfd fired: the timers due, and the next one armed. */
static void
timer_fired(void)
{
	uint64_t n, next;

	(void)!read(timer_fd, &n, sizeof(n));
	timer_at = UINT64_MAX;
	if ((next = timers(td_now_ms())) != UINT64_MAX)
		timer_arm(next);
}

/* One turn: wait, with no timeout and no fixed tick, for an answer, a
 * timer or a poke; then the answers (the fds as polled: one the reader
 * closed or replaced meanwhile is skipped) and the timers. */
static void
loop_once(struct pollfd *pfd, struct td_req **map, int max)
{
	int n;

	td_lock();
	n = poll_set(pfd, map, max);
	td_unlock();
	if (poll(pfd, (nfds_t)n, -1) == -1) {
		if (errno != EINTR)
			fatal("tunneld: poll");
		return;
	}
	if (pfd[0].revents)
		td_rx_drain();
	td_lock();
	for (int i = 2; i < n; i++)
		if (pfd[i].revents && map[i]->sock == pfd[i].fd)
			from_agent(peer_of_req(map[i]), map[i]);
	if (pfd[1].revents)
		timer_fired();
	td_unlock();
}

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump = 1;
	else
		quit = 1;
	td_rx_poke();
}

static int
run(void)
{
	int max = 2 + td_conf.max_peers * td_conf.max_requests;
	struct pollfd *pfd = calloc((size_t)max, sizeof(*pfd));
	struct td_req **map = calloc((size_t)max, sizeof(*map));
	int rc = 0;

	if (pfd == NULL || map == NULL ||
	    (timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
	    TFD_CLOEXEC)) == -1)
		fatal("tunneld");
	timer_fired();		/* allow-guids' first queries */
	if (td_rx_start(handle_mad) == -1)
		fatal("tunneld");
	log_info("tunneld: ready");
	while (!quit) {
		loop_once(pfd, map, max);
		if (td_rx_failed()) {
			rc = 1;
			break;
		}
		if (dump) {
			dump = 0;
			td_lock();
			log_stats();
			td_unlock();
		}
	}
	td_rx_stop(td_port.agent_dr);
	free(pfd);
	free(map);
	return rc;
}

static void
peers_init(void)
{
	size_t n = (size_t)td_conf.max_peers * (size_t)td_conf.max_requests;

	if ((peers = calloc((size_t)td_conf.max_peers, sizeof(*peers))) ==
	    NULL || (reqs = calloc(n, sizeof(*reqs))) == NULL)
		fatal("tunneld");
	for (size_t i = 0; i < n; i++)
		reqs[i].sock = -1;
	for (int i = 0; i < td_conf.max_peers; i++)
		peers[i].req = reqs + (size_t)i * (size_t)td_conf.max_requests;
}

int
main(int argc, char **argv)
{
	const char *path = SYSCONFDIR "/ibsnmpgw/ibsnmp-tunneld.yaml";
	int ch, check = 0, foreground = 0, rc;
	struct sigaction sa;

	while ((ch = getopt(argc, argv, "c:fn")) != -1)
		switch (ch) {
		case 'c': path = optarg; break;
		case 'f': foreground = 1; break;
		case 'n': check = 1; break;
		default:
			fprintf(stderr, "usage: ibsnmp-tunneld [-fn] [-c "
			    "file]\n");
			return 2;
		}
	if (td_conf_load(path) == -1)
		return 1;
	if (check) {
		printf("configuration ok\n");
		return 0;
	}
	log_init("ibsnmp-tunneld", foreground, LOG_INFO);
	peers_init();
	if (td_port_open() == -1)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	rc = run();
	log_stats();
	for (size_t i = 0; i < (size_t)td_conf.max_peers *
	    (size_t)td_conf.max_requests; i++)
		if (reqs[i].sock >= 0)
			close(reqs[i].sock);
	td_port_close();
	free(peers);
	free(reqs);
	log_info("tunneld: %s", rc ? "the umad port failed; stopped" :
	    "stopped");
	log_finalise();
	return rc;
}
