/* Test-only: the hostile-MAD engine of the fault shim (fault_shim.c
 * calls it when $SHIM_HOSTILE is set; hostilemad.py drives it).
 *
 * $SHIM_HOSTILE MADs (a budget) reach the gateway's reader, at most
 * $SHIM_HOSTILE_RATE a second, from a xorshift sequence seeded with
 * $SHIM_HOSTILE_SEED:
 * - real answers mutated on their way in (bit flips, random octets,
 *   truncation to every length class, wrong TID, class, class version,
 *   method, attribute, modifier or status, RMPP bits, DR hop fields,
 *   payloads all ones or all zeros, the umad status ETIMEDOUT), and real
 *   answers delivered twice;
 * - injected answers: replays of old answers (late, after the timeout,
 *   or duplicated), answers to TIDs never sent, and garbled answers to
 *   requests the gateway has in flight (their TIDs are taken from the
 *   writes it makes);
 * - injected requests of every class the gateway listens for and
 *   others: SMPs (LID-routed and directed route, SMInfo and the rest),
 *   PerfMgt, SA Reports of Notices (from the SM's LID $SHIM_SM_LID or
 *   another) and other SA methods, tunnel Sends with valid-looking
 *   segment headers, vendor and unknown classes, valid-looking or
 *   mutated;
 * - MADs under 24 octets, MADs for an agent the gateway never
 *   registered, and answers too large for the buffer given: read()
 *   fails with ENOSPC and the header's length, and the MAD stays first
 *   in the queue until a buffer large enough reads it, as the kernel's
 *   umad device does with an RMPP reassembly (up to 2 GB).
 * They start when the file $SHIM_HOSTILE_GO exists, if that is set.
 * $SHIM_HOSTILE_STATS names a file rewritten every 1,000 MADs and once
 * the budget is spent ("done 1"): how many of each kind went in, and of
 * those, how many the gateway cannot take (see hostilemad.py). */
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#define HM_SZ		256
#define HM_RING		256
#define HM_SENT		64
#define HM_RMPP_MAX	(16u << 20)	/* proxy/mad_rx.c's MAD_RMPP_MAX */

enum hm_kind {
	HM_MUTATED, HM_DUPLICATE, HM_REPLAY, HM_NEVER_SENT, HM_GARBLED,
	HM_REQUEST, HM_SHORT, HM_STRAY, HM_OVERSIZE, HM_HUGE, HM_NKINDS
};
static const char *const hm_names[HM_NKINDS] = {
	"mutated", "duplicate", "replay", "never-sent", "garbled", "request",
	"short", "stray", "oversize", "huge"
};

struct hm_mad {
	struct ib_user_mad	hdr;
	uint8_t			pad[64];	/* umad2sim's larger header */
	uint8_t			mad[HM_SZ];
	int			len;		/* of mad */
	uint64_t		at;
};

static pthread_mutex_t	 hm_lock = PTHREAD_MUTEX_INITIALIZER;
static int		 hm_on = -1;
static uint64_t		 hm_budget, hm_spent, hm_rate, hm_t0;
static unsigned		 hm_state;
static uint64_t		 hm_count[HM_NKINDS];
/* Of those, what the gateway cannot take, by the counter it should
 * land in: an unknown TID, fewer than 24 octets, an unknown agent, a
 * request (any class, R bit clear), and of those the SA Reports from
 * another LID than the SM's. */
static uint64_t		 hm_stale, hm_short, hm_stray, hm_requests;
static uint64_t		 hm_foreign;	/* Reports not from the SM's LID */
static uint64_t		 hm_real_requests;
static struct hm_mad	 hm_ring[HM_RING];	/* real answers seen */
static unsigned		 hm_ring_n;
static uint8_t		 hm_sent[HM_SENT][HM_SZ];	/* under hm_lock */
static unsigned		 hm_sent_n;
static uint32_t		 hm_agents[8];
static uint8_t		 hm_agent_class[8];	/* its management class */
static int		 hm_nagents;
static struct hm_mad	 hm_dup;
static int		 hm_dup_on;
static uint8_t		*hm_pend;		/* an oversized answer */
static size_t		 hm_pend_len;		/* of its MAD */
static size_t		 hm_pend_sz;		/* of its mapping */
static int		 hm_pend_fd = -1;
static uint16_t		 hm_sm_lid;

static unsigned
hm_rand(void)
{
	hm_state ^= hm_state << 13;
	hm_state ^= hm_state >> 17;
	hm_state ^= hm_state << 5;
	return hm_state;
}

static uint64_t
hm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
hm_init(void)
{
	const char *s = getenv("SHIM_HOSTILE_SEED");

	/* 0 with $SHIM_NOTICE_FILE alone (fault_shim.c). */
	hm_budget = getenv("SHIM_HOSTILE") ?
	    strtoull(getenv("SHIM_HOSTILE"), NULL, 0) : 0;
	hm_rate = getenv("SHIM_HOSTILE_RATE") ?
	    strtoull(getenv("SHIM_HOSTILE_RATE"), NULL, 0) : 2000;
	hm_state = s ? (unsigned)strtoul(s, NULL, 0) : 1;
	if (hm_state == 0)
		hm_state = 1;
	hm_sm_lid = getenv("SHIM_SM_LID") ?
	    (uint16_t)atoi(getenv("SHIM_SM_LID")) : 1;
	hm_t0 = 0;
	hm_on = hm_budget > 0;
}

static void
hm_write_stats(void)
{
	const char *path = getenv("SHIM_HOSTILE_STATS");
	char tmp[4096];
	FILE *f;

	if (path == NULL)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL)
		return;
	fprintf(f, "done %d\nspent %llu\n", hm_spent >= hm_budget,
	    (unsigned long long)hm_spent);
	for (int k = 0; k < HM_NKINDS; k++)
		fprintf(f, "%s %llu\n", hm_names[k],
		    (unsigned long long)hm_count[k]);
	fprintf(f, "expect-stale %llu\nexpect-short %llu\nexpect-stray %llu\n"
	    "expect-requests %llu\nexpect-foreign %llu\nreal-requests %llu\n",
	    (unsigned long long)hm_stale, (unsigned long long)hm_short,
	    (unsigned long long)hm_stray, (unsigned long long)hm_requests,
	    (unsigned long long)hm_foreign, (unsigned long long)hm_real_requests);
	fclose(f);
	rename(tmp, path);
}

/* One hostile MAD of kind k goes in. */
static void
hm_spend(enum hm_kind k)
{
	hm_count[k]++;
	hm_spent++;
	if (hm_spent % 1000 == 0 || hm_spent == hm_budget || k == HM_HUGE)
		hm_write_stats();
}

/* Whether hostile MADs are still to come: from the moment the file
 * $SHIM_HOSTILE_GO exists (at once without it) until the budget is
 * spent. */
static int
hm_left(void)
{
	static int go;

	if (hm_on <= 0 || hm_spent >= hm_budget)
		return 0;
	if (!go) {
		const char *f = getenv("SHIM_HOSTILE_GO");

		if (f != NULL && access(f, F_OK) != 0)
			return 0;
		go = 1;
		hm_t0 = 0;
	}
	return 1;
}

/* Whether the rate lets one more go now; else *wait_ms till it does. */
static int
hm_token(int *wait_ms)
{
	uint64_t now = hm_now(), due;

	if (hm_t0 == 0)
		hm_t0 = now;
	due = hm_t0 + hm_spent * 1000 / (hm_rate ? hm_rate : 1);
	if (due <= now)
		return 1;
	if (wait_ms != NULL)
		*wait_ms = (int)(due - now);
	return 0;
}

static uint32_t
hm_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static void
hm_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Called for every MAD the gateway writes: its requests' TIDs. */
static void
hm_note_sent(const void *buf, size_t count)
{
	if (hm_on <= 0 || count < umad_size() + 24)
		return;
	pthread_mutex_lock(&hm_lock);
	memcpy(hm_sent[hm_sent_n++ % HM_SENT], (const uint8_t *)buf +
	    umad_size(), count - umad_size() < HM_SZ ? count - umad_size() :
	    HM_SZ);
	pthread_mutex_unlock(&hm_lock);
}

/* A low TID no recent request carried. */
static uint32_t
hm_fresh_tid(void)
{
	for (;;) {
		uint32_t t = hm_rand();
		int used = 0;

		pthread_mutex_lock(&hm_lock);
		for (unsigned i = 0; i < HM_SENT && !used; i++)
			used = hm_be32(hm_sent[i] + 12) == t;
		pthread_mutex_unlock(&hm_lock);
		if (!used)
			return t;
	}
}

static const uint8_t hm_classes[] = {
	0x01, 0x81, 0x03, 0x04, 0x08,		/* the gateway's */
	0x02, 0x05, 0x06, 0x07, 0x09, 0x0a, 0x10, 0x21, 0x30, 0x4f, 0x50,
	0x80, 0xff, 0x00
};

/* Mutations; op -1: a random one. */
static void
hm_mutate(struct hm_mad *m, int op)
{
	uint8_t *d = m->mad;

	if (op < 0)
		op = (int)(hm_rand() % 15);
	switch (op) {
	case 0:		/* bit flips */
		for (unsigned i = hm_rand() % 16 + 1; i > 0; i--)
			d[hm_rand() % HM_SZ] ^= (uint8_t)(1u << hm_rand() % 8);
		break;
	case 1:		/* random octets */
		for (unsigned i = hm_rand() % 8 + 1; i > 0; i--)
			d[hm_rand() % HM_SZ] = (uint8_t)hm_rand();
		break;
	case 2: {	/* truncation, each length class */
		static const int lo[] = { 0, 1, 24, 36, 56, 64, 128, 200, 255 };
		static const int hi[] = { 0, 23, 35, 55, 63, 127, 199, 254, 255 };
		int c = (int)(hm_rand() % 9);

		m->len = lo[c] + (int)(hm_rand() % (unsigned)(hi[c] - lo[c] + 1));
		break;
	}
	case 3:		/* class */
		d[1] = hm_classes[hm_rand() % sizeof(hm_classes)];
		break;
	case 4:		/* method: any, or the response bit turned */
		d[3] = hm_rand() % 2 ? (uint8_t)hm_rand() : d[3] ^ 0x80;
		break;
	case 5:		/* attribute */
		d[16] = hm_rand() % 4 ? 0 : (uint8_t)hm_rand();
		d[17] = (uint8_t)hm_rand();
		break;
	case 6:		/* modifier: another, or its octets swapped */
		if (hm_rand() % 2)
			hm_put32(d + 20, hm_rand() % 3 ? hm_rand() % 40 :
			    hm_rand());
		else
			hm_put32(d + 20, __builtin_bswap32(hm_be32(d + 20)));
		break;
	case 7:		/* status */
		d[4] = (uint8_t)hm_rand();
		d[5] = (uint8_t)hm_rand();
		break;
	case 8:		/* RMPP header */
		d[36] = hm_rand() % 2;
		d[37] = (uint8_t)(hm_rand() % 5);
		d[38] = (uint8_t)hm_rand();
		hm_put32(d + 40, hm_rand() % 4 ? hm_rand() % 4 : hm_rand());
		hm_put32(d + 44, hm_rand() % 2 ? hm_rand() % 512 : hm_rand());
		break;
	case 9:		/* TID */
		hm_put32(d + 12, hm_rand() % 2 ? hm_fresh_tid() :
		    hm_be32(d + 12) ^ (1u << hm_rand() % 32));
		break;
	case 10:	/* payload all ones or all zeros */
		memset(d + 24, hm_rand() % 2 ? 0xff : 0, HM_SZ - 24);
		break;
	case 11:	/* DR: D bit, hop pointer and count */
		d[4] ^= 0x80;
		d[6] = (uint8_t)hm_rand();
		d[7] = (uint8_t)(hm_rand() % 3 ? hm_rand() % 64 : hm_rand());
		break;
	case 12:	/* base and class version */
		d[hm_rand() % 2 ? 0 : 2] = (uint8_t)hm_rand();
		break;
	case 13:	/* the kernel's timeout status */
		m->hdr.status = 110;
		break;
	default:	/* a few of the above */
		for (int i = (int)(hm_rand() % 3) + 2; i > 0; i--)
			hm_mutate(m, (int)(hm_rand() % 14));
	}
}

static void
hm_addr(struct hm_mad *m, uint16_t lid, uint32_t qpn)
{
	memset(&m->hdr.addr, 0, sizeof(m->hdr.addr));
	m->hdr.addr.lid = htons(lid);
	m->hdr.addr.qpn = htonl(qpn);
	m->hdr.addr.qkey = htonl(qpn ? IB_DEFAULT_QP1_QKEY : 0);
}

static uint16_t
hm_lid(void)
{
	/* The fabric's LIDs (1-6 switches, 101-116 HCA ports), or not. */
	switch (hm_rand() % 4) {
	case 0: return (uint16_t)(1 + hm_rand() % 6);
	case 1: return (uint16_t)(101 + hm_rand() % 16);
	case 2: return 0;
	}
	return (uint16_t)hm_rand();
}

/* A Notice (IBA 13.4.8.2) in a Report, mostly from the SM's LID. */
static void
hm_report(struct hm_mad *m)
{
	static const uint16_t traps[] = { 64, 65, 128, 129, 130, 131, 144,
	    145, 256, 257, 258, 259, 1, 0xffff };
	uint8_t *nt = m->mad + 56;
	uint16_t trap = traps[hm_rand() % (sizeof(traps) / 2)];
	uint64_t guid;

	m->mad[2] = 2;
	/* A Report, or now and then a ReportResp nothing asked for. */
	m->mad[3] = hm_rand() % 6 ? 0x06 : 0x86;
	m->mad[17] = 0x02;
	nt[0] = (uint8_t)(hm_rand() % 8 ? 0x81 : hm_rand());
	nt[3] = (uint8_t)(hm_rand() % 4 + 1);
	nt[4] = (uint8_t)(trap >> 8);
	nt[5] = (uint8_t)trap;
	nt[6] = (uint8_t)(hm_lid() >> 8);
	nt[7] = (uint8_t)hm_lid();
	for (int i = 10; i < 64; i += 2) {
		uint16_t l = hm_lid();

		nt[i] = (uint8_t)(l >> 8);
		nt[i + 1] = (uint8_t)l;
	}
	nt[14] = (uint8_t)(hm_rand() % 40);
	/* GIDADDR of 64/65: a fabric port's GUID, or none */
	guid = 0x0002c90300bb0000ULL + (hm_rand() % 10) * 0x100 +
	    hm_rand() % 3;
	if (hm_rand() % 3 == 0)
		guid = (uint64_t)hm_rand() << 32 | hm_rand();
	for (int i = 0; i < 8; i++)
		nt[10 + 6 + 8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	hm_addr(m, hm_rand() % 10 < 7 ? hm_sm_lid : hm_lid(), 1);
}

/* A tunnel Send (codec/tunnel.h) from some LID, segment header set. */
static void
hm_tunnel_send(struct hm_mad *m)
{
	uint16_t lid = hm_lid();

	m->mad[2] = 1;
	m->mad[3] = hm_rand() % 8 ? 0x03 : (uint8_t)hm_rand();
	m->mad[17] = 0x11;
	hm_put32(m->mad + 56, hm_rand() % 2 ? hm_rand() % 64 : hm_rand());
	m->mad[60] = (uint8_t)(hm_rand() % 4 ? hm_rand() % 193 : hm_rand());
	m->mad[61] = (uint8_t)(hm_rand() % 2 ? 0x81 : hm_rand());
	if (hm_rand() % 4)
		lid = (uint16_t)(hm_rand() % 2 ? 101 + hm_rand() % 16 : lid);
	m->mad[62] = (uint8_t)(lid >> 8);
	m->mad[63] = (uint8_t)lid;
	for (int i = 64; i < HM_SZ; i++)
		m->mad[i] = (uint8_t)hm_rand();
	hm_addr(m, hm_rand() % 4 ? lid : hm_lid(), 1);
}

/* A request of some class to us, valid-looking. */
static void
hm_request(struct hm_mad *m)
{
	uint8_t c = hm_classes[hm_rand() % sizeof(hm_classes)];

	memset(m->mad, 0, HM_SZ);
	m->len = HM_SZ;
	m->mad[0] = 1;
	m->mad[1] = c;
	m->mad[2] = 1;
	m->mad[3] = (uint8_t)(hm_rand() % 3 ? 1 + hm_rand() % 7 :
	    hm_rand() & 0x7f);
	m->mad[16] = hm_rand() % 4 ? 0 : (uint8_t)hm_rand();
	m->mad[17] = (uint8_t)(hm_rand() % 3 ? 0x20 : hm_rand());
	hm_put32(m->mad + 12, hm_rand());
	hm_addr(m, hm_rand() % 2 ? hm_sm_lid : hm_lid(), c == 0x01 ||
	    c == 0x81 ? 0 : 1);
	if (c == 0x81) {
		m->mad[4] = 0;		/* outbound */
		m->mad[6] = 1;
		m->mad[7] = (uint8_t)(hm_rand() % 3);
		m->mad[32] = m->mad[33] = m->mad[34] = m->mad[35] = 0xff;
	} else if (c == 0x03 && hm_rand() % 3)
		hm_report(m);
	else if (c == 0x08 && hm_rand() % 3)
		hm_tunnel_send(m);
	else if (c == 0x04)
		m->mad[17] = (uint8_t)(0x10 + hm_rand() % 8);
	if (hm_rand() % 2)
		hm_mutate(m, -1);
}

/* A copy of a real answer seen, if any. */
static int
hm_pick_real(struct hm_mad *m, int newest)
{
	unsigned n = hm_ring_n < HM_RING ? hm_ring_n : HM_RING;

	if (n == 0)
		return -1;
	*m = hm_ring[(newest ? hm_ring_n - 1 - hm_rand() % (n < 4 ? n : 4) :
	    hm_rand() % n) % HM_RING];
	return 0;
}

/* An answer to a request in flight, garbled. */
static int
hm_garbled(struct hm_mad *m)
{
	uint8_t req[HM_SZ];
	struct hm_mad tmpl;

	pthread_mutex_lock(&hm_lock);
	if (hm_sent_n == 0) {
		pthread_mutex_unlock(&hm_lock);
		return -1;
	}
	memcpy(req, hm_sent[(hm_sent_n - 1 - hm_rand() % 4) % HM_SENT],
	    HM_SZ);
	pthread_mutex_unlock(&hm_lock);
	if (hm_pick_real(m, 0) == -1)
		return -1;
	/* The answer of another request, or the request itself turned
	 * round: then the payload says what the same attribute said. */
	tmpl = *m;
	for (unsigned i = 0; i < HM_RING && i < hm_ring_n; i++) {
		const struct hm_mad *r = &hm_ring[i];

		if (r->mad[1] == req[1] && r->mad[16] == req[16] &&
		    r->mad[17] == req[17]) {
			tmpl = *r;
			break;
		}
	}
	*m = tmpl;
	memcpy(m->mad, req, 24);
	m->mad[3] = (uint8_t)(req[3] | 0x80);
	if (req[1] == 0x81)
		m->mad[4] |= 0x80;
	m->len = HM_SZ;
	hm_mutate(m, -1);
	return 0;
}

static ssize_t
hm_deliver(const struct hm_mad *m, void *buf, size_t count)
{
	size_t n = umad_size() + (size_t)m->len;

	if (n > count)
		n = count;
	memcpy(buf, &m->hdr, umad_size());
	memcpy((uint8_t *)buf + umad_size(), m->mad, n - umad_size());
	((struct ib_user_mad *)buf)->length = (uint32_t)n;
	return (ssize_t)n;
}

/* What the gateway's reader will make of m (proxy/mad_rx.c, mad.c). */
static void
hm_classify(const struct hm_mad *m, int known_tid)
{
	int ours = 0;

	for (int i = 0; i < hm_nagents; i++)
		ours |= hm_agents[i] == m->hdr.agent_id;
	if (!ours) {
		hm_stray++;
		return;
	}
	if (m->len < 24) {
		hm_short++;
		return;
	}
	if (!(m->mad[3] & 0x80) && m->hdr.status != 110) {
		hm_requests++;
		if (m->mad[1] == 0x03 && m->mad[3] == 0x06 &&
		    m->mad[16] == 0 && m->mad[17] == 0x02 &&
		    ntohs(m->hdr.addr.lid) != hm_sm_lid)
			hm_foreign++;
	}
	else if (!known_tid && m->hdr.status != 110)
		hm_stale++;
}

/* An oversized answer: an SA table the buffer cannot hold. */
static void
hm_oversize(int fd, const struct hm_mad *m)
{
	static const size_t lens[] = { 257, 300, 1000, 4096, 65536,
	    1u << 20, HM_RMPP_MAX };
	size_t len = lens[hm_rand() % (sizeof(lens) / sizeof(lens[0]))];
	enum hm_kind k = HM_OVERSIZE;

	/* The first, and then rarely, more than the gateway takes. */
	if (hm_count[HM_HUGE] == 0 || hm_rand() % 2000 == 0) {
		len = hm_rand() % 2 ? HM_RMPP_MAX + 1 : 0x7fffff00u;
		k = HM_HUGE;
	}
	hm_pend_len = len;
	hm_pend_fd = fd;
	/* A mapping of its own, so as to leave the gateway's heap as it
	 * was (the RSS the test checks is the gateway's, not ours). The
	 * header and first segment only: the rest reads as zeros, without
	 * faulting in a 16 MB source for each copy. */
	hm_pend_sz = umad_size() + HM_SZ;
	hm_pend = mmap(NULL, hm_pend_sz, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (hm_pend == MAP_FAILED) {
		hm_pend = NULL;
		hm_pend_fd = -1;
		return;
	}
	memcpy(hm_pend, &m->hdr, umad_size());
	memcpy(hm_pend + umad_size(), m->mad, HM_SZ);
	((struct ib_user_mad *)hm_pend)->length = (uint32_t)(umad_size() +
	    len);
	hm_spend(k);
}

/* The kernel's answer to a read of the pending oversized MAD. */
static ssize_t
hm_read_pending(void *buf, size_t count)
{
	size_t have = hm_pend_len < HM_RMPP_MAX + 1 ? hm_pend_len : HM_SZ;

	if (count >= umad_size() + hm_pend_len) {
		memcpy(buf, hm_pend, umad_size() + HM_SZ);
		memset((uint8_t *)buf + umad_size() + HM_SZ, 0, have - HM_SZ);
		munmap(hm_pend, hm_pend_sz);
		hm_pend = NULL;
		hm_pend_fd = -1;
		return (ssize_t)(umad_size() + hm_pend_len);
	}
	/* Header and first segment, -ENOSPC, and it stays queued. */
	memcpy(buf, hm_pend, count < umad_size() + HM_SZ ? count :
	    umad_size() + HM_SZ);
	errno = ENOSPC;
	return -1;
}

/* One injected MAD into buf; -1: none this time. */
static ssize_t
hm_inject(int fd, void *buf, size_t count)
{
	struct hm_mad m;
	unsigned r = hm_rand() % 100;
	enum hm_kind k;
	int known = 0;

	if (hm_pick_real(&m, 0) == -1 || hm_nagents == 0)
		return -1;	/* nothing learned yet */
	m.hdr.status = 0;
	m.hdr.agent_id = hm_agents[hm_rand() % (unsigned)hm_nagents];
	if (r < 12) {
		k = HM_REPLAY;	/* an old answer, late or again */
		m = hm_ring[(hm_ring_n - 1 - hm_rand() % (hm_ring_n <
		    HM_RING ? hm_ring_n : HM_RING)) % HM_RING];
		known = 1;
	} else if (r < 27) {
		k = HM_NEVER_SENT;
		if (hm_rand() % 2)
			hm_mutate(&m, (int)(hm_rand() % 2 ? 0 : 5));
		m.mad[3] |= 0x80;
		hm_put32(m.mad + 12, hm_fresh_tid());
	} else if (r < 45) {
		k = HM_GARBLED;
		if (hm_garbled(&m) == -1)
			return -1;
		known = 1;
	} else if (r < 88) {
		k = HM_REQUEST;
		hm_request(&m);
		known = 1;
	} else if (r < 93) {
		k = HM_SHORT;
		m.len = (int)(hm_rand() % 24);
	} else if (r < 96) {
		k = HM_STRAY;
		/* umad_recv() returns it as an int: negative ones are
		 * errno values, which no kernel hands over as agents. */
		m.hdr.agent_id = hm_rand() % 2 ? 100 + hm_rand() % 100 :
		    hm_rand() & 0x7fffffff;
	} else {
		if (hm_rand() % 2)
			(void)hm_garbled(&m);
		hm_oversize(fd, &m);
		return hm_pend != NULL ? hm_read_pending(buf, count) : -1;
	}
	hm_classify(&m, known);
	hm_spend(k);
	return hm_deliver(&m, buf, count);
}

/* A real MAD read: learned from, and perhaps mutated or doubled. */
static ssize_t
hm_real(void *buf, ssize_t n)
{
	struct hm_mad m;
	int known = 1;

	if (n < (ssize_t)umad_size() + 24)
		return n;
	memset(&m, 0, sizeof(m));
	memcpy(&m.hdr, buf, umad_size());
	m.len = (int)(n - (ssize_t)umad_size()) < HM_SZ ?
	    (int)(n - (ssize_t)umad_size()) : HM_SZ;
	memcpy(m.mad, (uint8_t *)buf + umad_size(), (size_t)m.len);
	m.at = hm_now();
	if (!(m.mad[3] & 0x80)) {
		/* A request to us, or our own back on a timeout. */
		if (m.hdr.status != 110)
			hm_real_requests++;
		return n;
	}
	hm_ring[hm_ring_n++ % HM_RING] = m;
	if (!hm_left() || n > (ssize_t)umad_size() + HM_SZ)
		return n;
	switch (hm_rand() % 10) {
	case 0:
	case 1:
		hm_mutate(&m, -1);
		if (hm_be32(m.mad + 12) != hm_be32((uint8_t *)buf +
		    umad_size() + 12))
			known = 0;
		hm_classify(&m, known);
		hm_spend(HM_MUTATED);
		return hm_deliver(&m, buf, (size_t)n);
	case 2:
		hm_dup = m;
		hm_dup_on = 1;
		break;
	}
	return n;
}

/* read() on umad2sim's descriptors in hostile mode. */
static ssize_t
hm_read(int fd, void *buf, size_t count,
    ssize_t (*next)(int, void *, size_t))
{
	ssize_t n;

	if (hm_on < 0)
		hm_init();
	if (hm_pend != NULL && fd == hm_pend_fd)
		return hm_read_pending(buf, count);
	if (hm_dup_on && hm_left()) {
		hm_dup_on = 0;
		hm_stale++;	/* its twin took the TID */
		hm_spend(HM_DUPLICATE);
		return hm_deliver(&hm_dup, buf, count);
	}
	if (hm_left() && hm_token(NULL) && hm_rand() % 4 != 0 &&
	    (n = hm_inject(fd, buf, count)) >= 0)
		return n;
	n = next(fd, buf, count);
	if (n <= 0)
		return n;
	return hm_real(buf, n);
}

/* poll() on umad2sim's descriptor: ready when a hostile MAD is due. */
static int
hm_poll(struct pollfd *fds, nfds_t nfds, int timeout,
    int (*next)(struct pollfd *, nfds_t, int))
{
	int wait = timeout;

	if (hm_on < 0)
		hm_init();
	if (nfds != 1 || fds[0].fd < 1024 || !(hm_on > 0))
		return next(fds, nfds, timeout);
	if ((hm_pend != NULL && fds[0].fd == hm_pend_fd) ||
	    (hm_left() && (hm_dup_on || hm_token(&wait)))) {
		fds[0].revents = POLLIN;
		return 1;
	}
	if (hm_left() && (timeout < 0 || wait < timeout))
		timeout = wait > 0 ? wait : 1;
	return next(fds, nfds, timeout);
}

/* The gateway registered an agent (umad_register's ioctl): injected
 * MADs carry one of these, or one it never had (stray). */
static void
hm_note_agent(unsigned long req, void *arg, int rc)
{
	if (rc == 0 && _IOC_TYPE(req) == IB_IOCTL_MAGIC &&
	    _IOC_NR(req) == 1 && arg != NULL && hm_nagents < 8) {
		/* struct ib_user_mad_reg_req (rdma/ib_user_mad.h): id,
		 * a 128-bit method mask, qpn, mgmt_class. */
		hm_agent_class[hm_nagents] = ((const uint8_t *)arg)[21];
		hm_agents[hm_nagents++] = *(uint32_t *)arg;
	}
}

/* The gateway closed the port (reopening it): the queue goes too. */
static void
hm_close(int fd)
{
	if (hm_pend != NULL && fd == hm_pend_fd) {
		munmap(hm_pend, hm_pend_sz);
		hm_pend = NULL;
		hm_pend_fd = -1;
	}
	/* The port's agents go with it (its answers still on their way
	 * come for agents it has no more). */
	hm_nagents = 0;
	hm_ring_n = 0;
	hm_dup_on = 0;
}
