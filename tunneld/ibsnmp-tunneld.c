/* ibsnmp-tunneld: the node end of IB SNMP Tunneling (class 0x08,
 * docs/tunneling.md). It answers ClassPortInfo probes, puts tunneled
 * SNMP messages together, checks who sent them and with what
 * community, hands them to the one local agent of its configuration
 * over loopback UDP, and sends the agent's answer back in segments.
 *
 * One thread, one loop: the umad fd is waited on alone (umad2sim's
 * poll() ignores real fds next to its fake one), then the agent
 * sockets without waiting, then the timers. Memory is fixed: a table
 * of peers (one reassembly and one request to the agent each). */
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
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "codec/smp.h"
#include "codec/tunnel.h"
#include "util/log.h"
#include "util/yaml.h"

#define MAX_LIDS	64

struct td_conf {
	struct sockaddr_in agent;
	char		 community[65];
	uint16_t	 lids[MAX_LIDS];
	int		 nlids;
	/* allow-guids: port GUIDs, whose LIDs the SA tells (below). */
	uint64_t	 guids[MAX_LIDS];
	int		 nguids;
	char		 ca[UMAD_CA_NAME_LEN];
	int		 port;
	int		 sim_issm;
	int		 max_peers;
	int		 reasm_ms;
	int		 agent_ms;
	int		 segment;	/* octets per segment */
};

struct td_peer {
	uint16_t	 lid;		/* 0: free */
	uint64_t	 last_ms;	/* its last segment */
	struct tun_reasm r;
	ib_mad_addr_t	 addr;		/* where its requests came from */
	int		 sock;		/* to the agent; -1: none */
	int		 waiting;	/* for the agent's answer */
	uint32_t	 raddr;
	uint64_t	 sent_ms;
};

static struct td_conf	 conf;
static struct td_peer	*peers;
/* The LID of each allow-guids entry, as the SA last told it (0: not
 * known), and when to ask again. */
static struct {
	uint16_t	 lid;
	uint64_t	 next_ms;
	uint32_t	 tid;		/* of the query out; 0: none */
} guid_lids[MAX_LIDS];
static int		 agent_sa = -1;
static int		 umad_fd = -1, agent_tun = -1, agent_smi = -1,
			 agent_dr = -1, issm_fd = -1;
static uint16_t		 my_lid;
static uint64_t		 my_guid, next_tid = 1;
static volatile sig_atomic_t quit, dump;
static struct {
	unsigned long long probes, segments, pdus, answers, refused,
	    malformed, dropped, toobig, timeouts, spoofed;
} st;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- Configuration (a small YAML mapping; errors as file:line,
 * util/yaml.h) */

static int
set_agent(const char *s)
{
	char host[64];
	int port;

	if (sscanf(s, "udp:%63[^:]:%d", host, &port) != 2 || port < 1 ||
	    port > 65535)
		return -1;
	memset(&conf.agent, 0, sizeof(conf.agent));
	conf.agent.sin_family = AF_INET;
	conf.agent.sin_port = htons((uint16_t)port);
	/* Loopback only: the tunnel never leads anywhere else. */
	if (inet_pton(AF_INET, host, &conf.agent.sin_addr) != 1 ||
	    (ntohl(conf.agent.sin_addr.s_addr) >> 24) != 127)
		return -1;
	return 0;
}

/* A unicast LID, in any base. */
static int
add_lid(const char *s)
{
	char *end;
	long n = strtol(s, &end, 0);

	if (*s == '\0' || *end != '\0' || n < 1 || n > 0xbfff ||
	    conf.nlids == MAX_LIDS)
		return -1;
	conf.lids[conf.nlids++] = (uint16_t)n;
	return 0;
}

/* A port GUID, 0x and hex. */
static int
add_guid(const char *s)
{
	unsigned long long g;
	char *end;

	errno = 0;
	g = strtoull(s, &end, 16);
	if (strncmp(s, "0x", 2) != 0 || *end != '\0' || errno || g == 0 ||
	    conf.nguids == MAX_LIDS)
		return -1;
	conf.guids[conf.nguids++] = g;
	return 0;
}

/* allow-lids, allow-guids: the first bad entry is reported. */
static void
conf_allow(struct yaml_ctx *x, const char *key, yaml_node_t *v, int guids)
{
	yaml_node_item_t *it;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, key) == -1)
		return;
	for (it = v->data.sequence.items.start;
	    it < v->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_item(x, it);
		const char *s = yaml_scalar(e) ? yaml_scalar(e) : "";

		if ((guids ? add_guid(s) : add_lid(s)) == -1) {
			yaml_err(x, e, "not a %s (or more than %d): '%s'",
			    guids ? "port GUID 0x..." : "unicast LID",
			    MAX_LIDS, s);
			return;
		}
	}
}

/* A string key: agent, community, ca. */
static void
conf_string(struct yaml_ctx *x, const char *key, yaml_node_t *v)
{
	char *s = NULL;

	if (strcmp(key, "agent") == 0) {
		if (yaml_str(x, v, key, &s, 0) == 0 && set_agent(s) == -1)
			yaml_err(x, v, "agent must be udp:127.x.y.z:PORT, not "
			    "'%s'", s);
	} else if (strcmp(key, "community") == 0) {
		if (yaml_str(x, v, key, &s, 0) == -1)
			return;
		if (*s == '\0' || strlen(s) >= sizeof(conf.community))
			yaml_err(x, v, "community must be 1 to %zu characters: "
			    "'%s'", sizeof(conf.community) - 1, s);
		else
			memcpy(conf.community, s, strlen(s) + 1);
	} else if (yaml_str(x, v, key, &s, sizeof(conf.ca) - 1) == 0)
		memcpy(conf.ca, s, strlen(s) + 1);		/* ca */
	free(s);
}

static void
conf_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	if (strcmp(key, "allow-lids") == 0)
		conf_allow(x, key, v, 0);
	else if (strcmp(key, "allow-guids") == 0)
		conf_allow(x, key, v, 1);
	else if (strcmp(key, "agent") == 0 || strcmp(key, "community") == 0 ||
	    strcmp(key, "ca") == 0)
		conf_string(x, key, v);
	else if (strcmp(key, "sim-issm") == 0)
		yaml_bool(x, v, key, &conf.sim_issm);
	else if (strcmp(key, "port") == 0)
		yaml_int(x, v, key, &conf.port, 0, 600000);
	else if (strcmp(key, "max-peers") == 0)
		yaml_int(x, v, key, &conf.max_peers, 1, 1024);
	else if (strcmp(key, "reassembly-timeout-ms") == 0)
		yaml_int(x, v, key, &conf.reasm_ms, 0, 600000);
	else if (strcmp(key, "agent-timeout-ms") == 0)
		yaml_int(x, v, key, &conf.agent_ms, 0, 600000);
	else if (strcmp(key, "segment-octets") == 0)
		yaml_int(x, v, key, &conf.segment, 1, TUN_SEG_DATA);
	else
		yaml_err(x, k, "unknown key '%s'", key);
}

static int
conf_load(const char *path)
{
	struct yaml_ctx x;
	yaml_node_t *root;

	memset(&conf, 0, sizeof(conf));
	(void)set_agent("udp:127.0.0.1:161");
	conf.max_peers = 16;
	conf.reasm_ms = 1000;
	conf.agent_ms = 2000;
	conf.segment = TUN_SEG_DATA;
	if ((root = yaml_load(&x, path, stderr)) != NULL) {
		yaml_each_pair(&x, root, "top level", conf_key, NULL);
		if (x.nerr == 0 && (conf.community[0] == '\0' ||
		    conf.nlids + conf.nguids == 0))
			yaml_err(&x, root, "'community', and 'allow-lids' or "
			    "'allow-guids', are required: nobody could use "
			    "the tunnel");
	}
	yaml_unload(&x);
	return x.nerr ? -1 : 0;
}

/* ---- The fabric side */

static int
send_mad(int agent, const ib_mad_addr_t *to, const uint8_t *mad, int qp0)
{
	uint8_t buf[sizeof(struct ib_user_mad) + TUN_MAD_SIZE];

	memset(buf, 0, sizeof(buf));
	umad_set_addr(buf, ntohs(to->lid), ntohl(to->qpn), to->sl,
	    qp0 ? 0 : (int)IB_DEFAULT_QP1_QKEY);
	umad_set_pkey(buf, to->pkey_index);
	memcpy(umad_get_mad(buf), mad, TUN_MAD_SIZE);
	if (umad_send(umad_fd, agent, buf, TUN_MAD_SIZE, 0, 0) < 0) {
		log_warnx("tunneld: send to LID %u failed", ntohs(to->lid));
		return -1;
	}
	return 0;
}

static int
allowed(uint16_t lid)
{
	for (int i = 0; i < conf.nlids; i++)
		if (conf.lids[i] == lid)
			return 1;
	for (int i = 0; i < conf.nguids; i++)
		if (guid_lids[i].lid != 0 && guid_lids[i].lid == lid)
			return 1;
	return 0;
}

/* ---- allow-guids: the LIDs behind the port GUIDs, from the SA.
 * SubnAdmGet(NodeRecord) with the PortGUID component (IBA 15.2.5.2:
 * the record's LID at 0, NodeInfo at 4, its PortGUID at NodeInfo
 * offset 20, IBA 14.2.5.3 Table 145; component 8), asked again every minute, as the SM may
 * move a LID, and every 5 s while unknown. */
#define SA_DATA		56	/* IBA 15.2.1.1: SA header before data */
#define SA_NODE_RECORD	0x0011

static void
guid_query(int i)
{
	umad_port_t p;
	uint8_t mad[TUN_MAD_SIZE];
	ib_mad_addr_t to;

	guid_lids[i].next_ms = now_ms() + 5000;
	if (agent_sa < 0 || umad_get_port(conf.ca[0] ? conf.ca : NULL,
	    conf.port, &p) < 0)
		return;
	memset(&to, 0, sizeof(to));
	to.lid = htons((uint16_t)p.sm_lid);
	to.qpn = htonl(1);
	umad_release_port(&p);
	if (to.lid == 0)
		return;
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;			/* BaseVersion */
	mad[1] = 0x03;			/* SubnAdm */
	mad[2] = 2;			/* ClassVersion */
	mad[3] = 0x01;			/* SubnAdmGet */
	guid_lids[i].tid = (uint32_t)next_tid++;
	for (int k = 0; k < 4; k++)
		mad[12 + k] = (uint8_t)(guid_lids[i].tid >> (24 - 8 * k));
	mad[16] = SA_NODE_RECORD >> 8;
	mad[17] = SA_NODE_RECORD & 0xff;
	mad[54] = 0x01;	/* ComponentMask (octets 48-55): bit 8, PortGUID */
	for (int k = 0; k < 8; k++)
		mad[SA_DATA + 4 + 20 + k] = (uint8_t)(conf.guids[i] >>
		    (56 - 8 * k));
	(void)send_mad(agent_sa, &to, mad, 0);
}

static void
guid_answer(const uint8_t *mad)
{
	uint32_t tid = (uint32_t)mad[12] << 24 | mad[13] << 16 |
	    mad[14] << 8 | mad[15];
	uint16_t status = (uint16_t)(mad[4] << 8 | mad[5]);

	for (int i = 0; i < conf.nguids; i++) {
		uint16_t lid;

		if (guid_lids[i].tid == 0 || guid_lids[i].tid != tid)
			continue;
		guid_lids[i].tid = 0;
		lid = status ? 0 : (uint16_t)(mad[SA_DATA] << 8 |
		    mad[SA_DATA + 1]);
		if (lid >= 0xc000)
			lid = 0;	/* not unicast: not believed */
		if (lid != guid_lids[i].lid)
			log_info("tunneld: port GUID 0x%016llx is %s%u",
			    (unsigned long long)conf.guids[i],
			    lid ? "LID " : "unknown to the SA, status 0x",
			    lid ? lid : status);
		guid_lids[i].lid = lid;
		guid_lids[i].next_ms = now_ms() + (lid ? 60000 : 5000);
	}
}

/* The community of a v1/v2c message (RFC 3416 / 1157: SEQUENCE {
 * version INTEGER, community OCTET STRING, ...}), short lengths and
 * the long forms up to 4 octets. 0 if it is conf.community. */
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
	    at + len > n || len != strlen(conf.community) ||
	    memcmp(p + at, conf.community, len) != 0)
		return -1;
	return 0;
}

static struct td_peer *
peer_of(uint16_t lid, uint64_t now)
{
	struct td_peer *free_p = NULL, *idle = NULL;

	for (int i = 0; i < conf.max_peers; i++) {
		struct td_peer *p = &peers[i];

		if (p->lid == lid)
			return p;
		if (p->lid == 0 && free_p == NULL)
			free_p = p;
		if (p->lid != 0 && !p->waiting && !tun_reasm_busy(&p->r) &&
		    (idle == NULL || p->last_ms < idle->last_ms))
			idle = p;
	}
	if (free_p == NULL)
		free_p = idle;		/* the longest idle one goes */
	if (free_p == NULL)
		return NULL;
	if (free_p->sock >= 0)
		close(free_p->sock);
	memset(free_p, 0, sizeof(*free_p));
	free_p->sock = -1;
	free_p->lid = lid;
	free_p->last_ms = now;
	return free_p;
}

static void
to_agent(struct td_peer *p)
{
	if (p->waiting && p->sock >= 0) {
		/* A new request before the last one's answer (its retry,
		 * or another): the old answer would go out under the new
		 * RAddress. A new socket leaves it behind. */
		close(p->sock);
		p->sock = -1;
		p->waiting = 0;
		st.dropped++;
	}
	if (p->sock < 0) {
		p->sock = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
		if (p->sock < 0 || connect(p->sock, (struct sockaddr *)
		    &conf.agent, sizeof(conf.agent)) == -1) {
			log_warn("tunneld: agent socket");
			if (p->sock >= 0)
				close(p->sock);
			p->sock = -1;
			return;
		}
	}
	if (send(p->sock, p->r.buf, p->r.len, 0) != (ssize_t)p->r.len) {
		log_warn("tunneld: to the agent");
		return;
	}
	p->waiting = 1;
	p->raddr = p->r.raddr;
	p->sent_ms = now_ms();
	st.pdus++;
}

static void
handle_pdu_segment(const uint8_t *mad, size_t len, const ib_mad_addr_t *from)
{
	struct tun_seg s;
	struct td_peer *p;
	uint16_t lid = ntohs(from->lid);
	uint64_t now = now_ms();

	st.segments++;
	if (!allowed(lid)) {
		st.refused++;
		return;
	}
	if (tun_decode(mad, len, &s) == -1) {
		st.malformed++;
		return;
	}
	if (s.slid != lid) {
		st.spoofed++;
		return;
	}
	if ((p = peer_of(lid, now)) == NULL) {
		st.dropped++;
		return;
	}
	p->last_ms = now;
	p->addr = *from;
	switch (tun_reasm_add(&p->r, &s)) {
	case TUN_BAD:
		st.malformed++;
		return;
	case TUN_MORE:
		return;
	}
	if (community_ok(p->r.buf, p->r.len) == -1) {
		st.refused++;
		return;
	}
	to_agent(p);
}

static void
handle_mad(uint8_t *umad, int len)
{
	const uint8_t *mad = umad_get_mad(umad);
	const ib_mad_addr_t *from = umad_get_mad_addr(umad);
	uint8_t resp[TUN_MAD_SIZE];
	size_t mlen = (size_t)len;

	if (mlen >= SA_DATA + 2 && mad[1] == 0x03 && mad[3] == 0x81) {
		guid_answer(mad);	/* allow-guids */
		return;
	}
	if (mlen < TUN_MAD_SIZE || (mad[3] & 0x80))
		return;			/* no other answers: we ask nothing */
	if (mad[1] == 0x01 || mad[1] == 0x81) {
		if (conf.sim_issm &&
		    smp_sminfo_notactive(resp, mad, my_guid) == 0)
			(void)send_mad(mad[1] == 0x81 ? agent_dr : agent_smi,
			    from, resp, 1);
		return;
	}
	if (mad[1] != TUN_MGMT_CLASS)
		return;
	if (mad[3] == TUN_METHOD_GET &&
	    (mad[16] << 8 | mad[17]) == TUN_ATTR_CLASS_PORT_INFO) {
		st.probes++;
		tun_encode_cpi_resp(resp, mad, 19);
		(void)send_mad(agent_tun, from, resp, 0);
		return;
	}
	if (mad[3] == TUN_METHOD_SEND &&
	    (mad[16] << 8 | mad[17]) == TUN_ATTR_PDU) {
		handle_pdu_segment(mad, mlen, from);
		return;
	}
	st.malformed++;		/* CommunityInfo and anything else */
}

/* ---- The agent side */

static void
from_agent(struct td_peer *p)
{
	static uint8_t buf[65536];
	static uint8_t mads[TUN_SEG_MAX][TUN_MAD_SIZE];
	ssize_t n = recv(p->sock, buf, sizeof(buf), 0);
	int segs;

	if (n <= 0)
		return;
	if (!p->waiting) {
		st.dropped++;		/* an answer after its timeout */
		return;
	}
	p->waiting = 0;
	segs = tun_encode(mads, TUN_SEG_MAX, buf, (size_t)n,
	    (size_t)conf.segment, p->raddr, my_lid, next_tid);
	if (segs < 0) {
		st.toobig++;
		log_warnx("tunneld: a %zd-octet answer for LID %u is over the "
		    "tunnel's %d: not sent", n, p->lid, TUN_PDU_MAX);
		return;
	}
	next_tid += (uint64_t)segs;
	for (int i = 0; i < segs; i++)
		if (send_mad(agent_tun, &p->addr, mads[i], 0) == -1)
			return;
	st.answers++;
}

static void
poll_agents(void)
{
	struct pollfd pfd[1024];
	int n = 0, map[1024];

	for (int i = 0; i < conf.max_peers && n < 1024; i++)
		if (peers[i].sock >= 0) {
			pfd[n].fd = peers[i].sock;
			pfd[n].events = POLLIN;
			map[n++] = i;
		}
	if (n == 0 || poll(pfd, (nfds_t)n, 0) <= 0)
		return;
	for (int i = 0; i < n; i++)
		if (pfd[i].revents & POLLIN)
			from_agent(&peers[map[i]]);
}

static void
timers(void)
{
	uint64_t now = now_ms();

	for (int i = 0; i < conf.nguids; i++)
		if (now >= guid_lids[i].next_ms)
			guid_query(i);

	for (int i = 0; i < conf.max_peers; i++) {
		struct td_peer *p = &peers[i];

		if (tun_reasm_busy(&p->r) && now - p->last_ms >=
		    (uint64_t)conf.reasm_ms) {
			tun_reasm_reset(&p->r);
			st.dropped++;
		}
		if (p->waiting && now - p->sent_ms >= (uint64_t)conf.agent_ms) {
			p->waiting = 0;
			st.timeouts++;
		}
	}
}

static void
log_stats(void)
{
	log_info("tunneld: probes %llu segments %llu pdus %llu answers %llu "
	    "refused %llu malformed %llu spoofed %llu dropped %llu toobig "
	    "%llu agent-timeouts %llu", st.probes, st.segments, st.pdus,
	    st.answers, st.refused, st.malformed, st.spoofed, st.dropped,
	    st.toobig, st.timeouts);
}

/* ---- Setup */

static int
open_port(void)
{
	umad_port_t p;
	long mask[16 / sizeof(long)];
	const unsigned bits = 8 * sizeof(long);

	if (umad_init() < 0 || umad_get_port(conf.ca[0] ? conf.ca : NULL,
	    conf.port, &p) < 0) {
		log_warnx("tunneld: no usable IB port");
		return -1;
	}
	my_lid = (uint16_t)p.base_lid;
	my_guid = be64toh(p.port_guid);
	if ((umad_fd = umad_open_port(p.ca_name, p.portnum)) < 0) {
		log_warnx("tunneld: cannot open %s port %d", p.ca_name,
		    p.portnum);
		umad_release_port(&p);
		return -1;
	}
	/* Requests to us: ClassPortInfo Gets and SNMPSends. */
	memset(mask, 0, sizeof(mask));
	mask[TUN_METHOD_GET / bits] |= 1L << (TUN_METHOD_GET % bits);
	mask[TUN_METHOD_SEND / bits] |= 1L << (TUN_METHOD_SEND % bits);
	agent_tun = umad_register(umad_fd, TUN_MGMT_CLASS, TUN_CLASS_VERSION,
	    0, mask);
	if (agent_tun < 0) {
		log_warnx("tunneld: cannot register class 0x08 on %s port %d "
		    "(another tunnel agent?)", p.ca_name, p.portnum);
		umad_release_port(&p);
		return -1;
	}
	if (conf.nguids > 0 &&
	    (agent_sa = umad_register(umad_fd, 0x03, 2, 0, NULL)) < 0)
		log_warnx("tunneld: cannot register the SA class: allow-guids "
		    "are not resolved, only allow-lids are accepted");
	if (conf.sim_issm) {
		char path[256];

		/* ibsim hands requests only to IsSM clients, and then the
		 * SM's SMInfo Gets too (tests/sim/README.md). */
		agent_smi = umad_register(umad_fd, 0x01, 1, 0, NULL);
		agent_dr = umad_register(umad_fd, 0x81, 1, 0, NULL);
		if (umad_get_issm_path(p.ca_name, p.portnum, path,
		    sizeof(path)) < 0 || (issm_fd = open(path, O_RDWR)) < 0)
			log_warn("tunneld: cannot set IsSM");
	}
	log_info("tunneld: %s port %d LID %u, agent %s:%u, %d allowed LIDs, "
	    "%d allowed port GUIDs", p.ca_name, p.portnum, my_lid,
	    inet_ntoa(conf.agent.sin_addr), ntohs(conf.agent.sin_port),
	    conf.nlids, conf.nguids);
	umad_release_port(&p);
	return 0;
}

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump = 1;
	else
		quit = 1;
}

int
main(int argc, char **argv)
{
	const char *path = SYSCONFDIR "/ibsnmpgw/ibsnmp-tunneld.yaml";
	int ch, check = 0, foreground = 0;
	uint8_t *umad;
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
	if (conf_load(path) == -1)
		return 1;
	if (check) {
		printf("configuration ok\n");
		return 0;
	}
	log_init("ibsnmp-tunneld", foreground, LOG_INFO);
	if ((peers = calloc((size_t)conf.max_peers, sizeof(*peers))) == NULL ||
	    /* sizeof, not umad_size(): umad2sim's read() fills the struct's
	     * padded size (64) plus 256, 8 octets more than umad_size(). */
	    (umad = calloc(1, sizeof(struct ib_user_mad) + TUN_MAD_SIZE)) ==
	    NULL)
		fatal("tunneld");
	for (int i = 0; i < conf.max_peers; i++)
		peers[i].sock = -1;
	if (open_port() == -1)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	log_info("tunneld: ready");
	while (!quit) {
		int len = TUN_MAD_SIZE, busy = 0;

		for (int i = 0; i < conf.max_peers && !busy; i++)
			busy = peers[i].waiting;
		/* The umad fd alone (umad2sim's poll() cannot wait on it
		 * with others), briefly; then the rest at once. While the
		 * agent has a request, 1 ms: its answer must not wait out
		 * an idle umad wait. */
		if (umad_recv(umad_fd, umad, &len, busy ? 1 : 20) >= 0)
			handle_mad(umad, len);
		poll_agents();
		timers();
		if (dump) {
			dump = 0;
			log_stats();
		}
	}
	log_stats();
	for (int i = 0; i < conf.max_peers; i++)
		if (peers[i].sock >= 0)
			close(peers[i].sock);
	/* The umad port is left to the kernel: umad2sim (ibsim 0.10)
	 * crashes in its receiver thread on a MAD that arrives for an
	 * agent whose fd was closed (proxy/mad.h, proxy_mad_exiting). */
	if (issm_fd >= 0)
		close(issm_fd);
	free(peers);
	free(umad);
	log_info("tunneld: stopped");
	log_finalise();
	return 0;
}
