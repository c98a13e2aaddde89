/* snmpload: a small SNMPv2c GET load generator for the benchmarks.
 *
 * It pre-encodes one GetRequest per community (so 10,000 node names cost
 * nothing per request), keeps a window of requests outstanding on one UDP
 * socket, and reports throughput and latency percentiles. The same binary
 * drives stock snmpd and ibsnmpgw, so the comparison is like for like.
 *
 *   snmpload -t udp:127.0.0.1:161 -o 1.3.6.1.2.1.1.1.0 -c public
 *            [-f communities.txt] [-d seconds] [-w window] [-W warmup]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct pkt {
	uint8_t	buf[512];
	size_t	len;
	size_t	reqid_off;	/* 4-byte request-id, patched per send */
};

struct slot {
	uint32_t	reqid;
	uint64_t	sent;	/* ns */
	int		busy;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* BER helpers: definite lengths, short or long form. */
static size_t
put_len(uint8_t *p, size_t len)
{
	if (len < 128) {
		p[0] = len;
		return 1;
	}
	p[0] = 0x82;
	p[1] = len >> 8;
	p[2] = len;
	return 3;
}

static size_t
enc_oid(uint8_t *out, const char *s)
{
	unsigned long v[128] = { 0 };
	size_t n = 0, o = 0;
	char *end;

	while (*s && n < 128) {
		v[n++] = strtoul(s, &end, 10);
		s = *end == '.' ? end + 1 : end;
		if (end == s && *s)
			break;
	}
	out[o++] = 40 * v[0] + v[1];
	for (size_t i = 2; i < n; i++) {
		uint8_t tmp[10];
		int k = 0;
		unsigned long x = v[i];
		do {
			tmp[k++] = x & 0x7f;
			x >>= 7;
		} while (x);
		while (k > 1)
			out[o++] = tmp[--k] | 0x80;
		out[o++] = tmp[0];
	}
	return o;
}

/* GetRequest, built inside out. */
static void
build(struct pkt *p, const char *comm, const char *oid)
{
	uint8_t oidb[256], vb[300], vbl[310], pdu[400], msg[512];
	size_t ol = enc_oid(oidb, oid), l, m, pl, ml;

	l = 0;
	vb[l++] = 0x06;
	l += put_len(vb + l, ol);
	memcpy(vb + l, oidb, ol);
	l += ol;
	vb[l++] = 0x05;
	vb[l++] = 0x00;
	m = 0;
	vbl[m++] = 0x30;
	m += put_len(vbl + m, l);
	memcpy(vbl + m, vb, l);
	m += l;
	/* varbind list */
	pl = 0;
	pdu[pl++] = 0x02; pdu[pl++] = 4;	/* request-id, fixed 4 octets */
	size_t rid = pl;
	memset(pdu + pl, 0, 4);
	pl += 4;
	pdu[pl++] = 0x02; pdu[pl++] = 1; pdu[pl++] = 0;	/* error-status */
	pdu[pl++] = 0x02; pdu[pl++] = 1; pdu[pl++] = 0;	/* error-index */
	pdu[pl++] = 0x30;
	pl += put_len(pdu + pl, m);
	memcpy(pdu + pl, vbl, m);
	pl += m;
	ml = 0;
	msg[ml++] = 0x02; msg[ml++] = 1; msg[ml++] = 1;	/* version 2c */
	msg[ml++] = 0x04;
	ml += put_len(msg + ml, strlen(comm));
	memcpy(msg + ml, comm, strlen(comm));
	ml += strlen(comm);
	msg[ml++] = 0xa0;
	ml += put_len(msg + ml, pl);
	size_t pdu_start = ml;
	memcpy(msg + ml, pdu, pl);
	ml += pl;
	p->len = 0;
	p->buf[p->len++] = 0x30;
	p->len += put_len(p->buf + p->len, ml);
	p->reqid_off = p->len + pdu_start + rid;
	memcpy(p->buf + p->len, msg, ml);
	p->len += ml;
}

/* Minimal parse of a response: request-id and error-status. */
static int
parse(const uint8_t *b, size_t n, uint32_t *reqid, int *errstat)
{
	size_t o = 0;

#define SKIPHDR() do { \
	if (o + 2 > n) return -1; \
	o++; \
	if (b[o] & 0x80) o += 1 + (b[o] & 0x7f); else o++; \
} while (0)
	SKIPHDR();			/* message SEQUENCE */
	if (o + 3 > n) return -1;
	o += 2 + b[o + 1];		/* version */
	if (o + 2 > n) return -1;
	if (b[o + 1] & 0x80) return -1;
	o += 2 + b[o + 1];		/* community */
	SKIPHDR();			/* PDU */
	if (o + 2 > n || b[o] != 0x02) return -1;
	{
		size_t l = b[o + 1];
		uint32_t v = 0;
		if (l > 5 || o + 2 + l > n) return -1;
		for (size_t i = 0; i < l; i++)
			v = v << 8 | b[o + 2 + i];
		*reqid = v;
		o += 2 + l;
	}
	if (o + 3 > n) return -1;
	*errstat = b[o + 2];
	return 0;
}

static int
cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	const char *target = "udp:127.0.0.1:161", *oid = "1.3.6.1.2.1.1.1.0";
	const char *comm = "public", *file = NULL;
	double dur = 5, warm = 1;
	int window = 32, ch;
	struct pkt *pkts;
	size_t npkts = 0;

	while ((ch = getopt(argc, argv, "t:o:c:f:d:w:W:")) != -1) {
		switch (ch) {
		case 't': target = optarg; break;
		case 'o': oid = optarg; break;
		case 'c': comm = optarg; break;
		case 'f': file = optarg; break;
		case 'd': dur = atof(optarg); break;
		case 'w': window = atoi(optarg); break;
		case 'W': warm = atof(optarg); break;
		default:
			fprintf(stderr, "usage: snmpload -t udp:HOST:PORT -o OID "
			    "[-c COMMUNITY | -f FILE] [-d SEC] [-w WINDOW]\n");
			return 2;
		}
	}
	if (window < 1 || window > 4096)
		window = 32;
	if (file) {
		FILE *f = fopen(file, "r");
		char line[512];
		size_t cap = 1024;
		if (f == NULL) {
			perror(file);
			return 2;
		}
		pkts = malloc(cap * sizeof(*pkts));
		while (pkts && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\r\n")] = '\0';
			if (!*line)
				continue;
			if (npkts == cap)
				pkts = realloc(pkts, (cap *= 2) * sizeof(*pkts));
			build(&pkts[npkts++], line, oid);
		}
		fclose(f);
	} else {
		pkts = malloc(sizeof(*pkts));
		build(&pkts[npkts++], comm, oid);
	}
	if (pkts == NULL || npkts == 0) {
		fprintf(stderr, "snmpload: no communities\n");
		return 2;
	}

	char host[64];
	int port;
	if (sscanf(target, "udp:%63[^:]:%d", host, &port) != 2) {
		fprintf(stderr, "snmpload: bad target %s\n", target);
		return 2;
	}
	struct sockaddr_in sa = { .sin_family = AF_INET,
	    .sin_port = htons(port) };
	inet_pton(AF_INET, host, &sa.sin_addr);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("socket");
		return 2;
	}

	struct slot *slots = calloc(window, sizeof(*slots));
	size_t lat_cap = 1 << 20, nlat = 0;
	uint64_t *lat = malloc(lat_cap * sizeof(*lat));
	uint32_t next = 1;
	size_t pi = 0;
	uint64_t start = now_ns(), measure = start + warm * 1e9,
	    stop = measure + dur * 1e9, sent = 0, got = 0, errs = 0, lost = 0;

	for (;;) {
		uint64_t t = now_ns();
		if (t >= stop)
			break;
		/* Fill the window; expire requests older than 1 s. */
		for (int i = 0; i < window; i++) {
			struct slot *sl = &slots[i];
			if (sl->busy && t - sl->sent > 1000000000ULL) {
				sl->busy = 0;
				if (sl->sent >= measure)
					lost++;
			}
			if (sl->busy)
				continue;
			struct pkt *p = &pkts[pi++ % npkts];
			uint32_t rid = (next++ * (uint32_t)window + i) & 0x7fffffff;
			p->buf[p->reqid_off] = rid >> 24;
			p->buf[p->reqid_off + 1] = rid >> 16;
			p->buf[p->reqid_off + 2] = rid >> 8;
			p->buf[p->reqid_off + 3] = rid;
			if (send(s, p->buf, p->len, 0) < 0 && errno != EAGAIN)
				break;
			sl->busy = 1;
			sl->reqid = rid;
			sl->sent = now_ns();
			if (sl->sent >= measure)
				sent++;
		}
		struct pollfd pfd = { s, POLLIN, 0 };
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		uint8_t buf[2048];
		ssize_t n;
		while ((n = recv(s, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
			uint32_t rid;
			int es;
			if (parse(buf, n, &rid, &es) < 0)
				continue;
			struct slot *sl = &slots[rid % window];
			if (!sl->busy || sl->reqid != rid)
				continue;
			sl->busy = 0;
			uint64_t t2 = now_ns();
			if (sl->sent < measure)
				continue;
			got++;
			if (es)
				errs++;
			if (nlat == lat_cap)
				lat = realloc(lat, (lat_cap *= 2) * sizeof(*lat));
			lat[nlat++] = t2 - sl->sent;
		}
	}
	qsort(lat, nlat, sizeof(*lat), cmp64);
	double p50 = nlat ? lat[nlat / 2] / 1e3 : 0;
	double p99 = nlat ? lat[(size_t)(nlat * 0.99)] / 1e3 : 0;
	printf("requests %llu responses %llu errors %llu lost %llu "
	    "rate %.0f p50_us %.0f p99_us %.0f\n", (unsigned long long)sent,
	    (unsigned long long)got, (unsigned long long)errs,
	    (unsigned long long)lost, got / dur, p50, p99);
	return got == 0;
}
