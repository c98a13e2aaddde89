/* madfloor: the least a client can spend on N MADs through umad2sim,
 * for bench (b) and (d).
 *
 * One thread (umad2sim adds its receiver) sends N Gets with W in
 * flight, cycling over the targets, and does nothing with the answers
 * but count them. What it takes is the floor under any client of the
 * simulator with the same window: ibsim's own work for each MAD plus
 * umad2sim's socket and thread hand-offs. The gateway's sweep and poll
 * are compared with it in the same run.
 *
 *   madfloor -c smp  -f FILE [-n N] [-w W]   SubnGet(NodeInfo), LID-
 *       routed (IBA 14.2.5.3), to each "LID" of FILE
 *   madfloor -c dr   -f FILE [-n N] [-w W]   SubnGet(NodeInfo) by
 *       directed route (IBA 14.2.2), along each "P1,P2,...,Pn" of FILE
 *       (the initial path's ports, as a sweep sends them)
 *   madfloor -c perf -f FILE [-n N] [-w W]   PerfMgt Get(PortCounters)
 *       (IBA 16.1.3.5) to each "LID PORT" of FILE
 *
 * Prints: mads N answered A lost L ms T cpu_ms C us_per_mad U
 * csw_per_mad S (CPU and context switches: this process, umad2sim's
 * thread included). Run under umad2sim
 * with SIM_HOST set.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#define MAD_SIZE	256
#define MAX_TARGETS	(1 << 20)
#define MAX_WINDOW	256

#define MAX_HOPS	63	/* IBA 14.2.1.2: InitialPath[1..63] */

struct target {
	uint16_t	lid;
	uint8_t		port;
	uint8_t		hops;
	uint8_t		path[MAX_HOPS + 1];
};

static struct target	targets[MAX_TARGETS];
static size_t		ntargets;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t
cpu_us(long *csw)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*csw = ru.ru_nvcsw + ru.ru_nivcsw;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

enum cls { CLS_SMP, CLS_DR, CLS_PERF };

/* "P1,P2,...": the hops of a directed route; 0 if it is not one. */
static int
parse_path(const char *s, struct target *t)
{
	char *end;

	t->hops = 0;
	while (*s != '\0' && *s != '\n') {
		unsigned long p = strtoul(s, &end, 10);

		if (end == s || p == 0 || p > 254 || t->hops == MAX_HOPS)
			return 0;
		t->path[++t->hops] = (uint8_t)p;
		s = *end == ',' ? end + 1 : end;
	}
	return t->hops > 0;
}

static int
read_targets(const char *path, enum cls c)
{
	FILE *f = fopen(path, "r");
	unsigned lid, port;
	char line[512];

	if (f == NULL) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL && ntargets < MAX_TARGETS) {
		struct target *t = &targets[ntargets];

		port = 0;
		if (c == CLS_DR) {
			ntargets += parse_path(line, t);
			continue;
		}
		if (sscanf(line, "%u %u", &lid, &port) < 1 + (c == CLS_PERF) ||
		    lid == 0 || lid >= 0xc000 || port > 254)
			continue;
		t->lid = (uint16_t)lid;
		t->port = (uint8_t)port;
		ntargets++;
	}
	fclose(f);
	return ntargets > 0 ? 0 : -1;
}

/* The Get for target t with TID tid (its low 32 bits: umad2sim and
 * ibsim own the upper ones). */
static int
send_one(int fd, int agent, enum cls c, const struct target *t, uint32_t tid)
{
	static const uint8_t mclass[] = { 0x01, 0x81, 0x04 };
	uint8_t buf[512], *mad = umad_get_mad(buf);

	memset(buf, 0, umad_size() + MAD_SIZE);
	if (c == CLS_PERF)	/* GSI: QP1, the well-known Q_Key (13.5.1) */
		umad_set_addr(buf, t->lid, 1, 0, 0x80010000);
	else		/* a DR SMP goes to the permissive LID */
		umad_set_addr(buf, c == CLS_DR ? 0xffff : t->lid, 0, 0, 0);
	mad[0] = 1;				/* BaseVersion */
	mad[1] = mclass[c];			/* MgmtClass */
	mad[2] = 1;				/* ClassVersion */
	mad[3] = 0x01;				/* Get */
	for (int k = 0; k < 4; k++)
		mad[12 + k] = (uint8_t)(tid >> (24 - 8 * k));
	mad[17] = c == CLS_PERF ? 0x12 : 0x11;	/* PortCounters, NodeInfo */
	if (c == CLS_PERF) {
		mad[64 + 1] = t->port;		/* PortSelect */
		mad[64 + 2] = 0xff;		/* CounterSelect */
		mad[64 + 3] = 0xff;
	} else if (c == CLS_DR) {
		/* IBA 14.2.1.2: HopCount, DrSLID and DrDLID permissive,
		 * InitialPath[1..HopCount] at octet 128. */
		mad[7] = t->hops;
		mad[32] = mad[33] = mad[34] = mad[35] = 0xff;
		memcpy(mad + 128 + 1, t->path + 1, t->hops);
	}
	return umad_send(fd, agent, buf, MAD_SIZE, 0, 0);
}

int
main(int argc, char **argv)
{
	/* umad2sim's read() fills sizeof(struct ib_user_mad) + 256
	 * (tests/sim/README.md): room for it. */
	uint8_t buf[512], *mad;
	const char *file = NULL, *cls = "";
	uint32_t outstanding[MAX_WINDOW];
	umad_port_t p;
	int ch, fd, agent, win = 64, len;
	enum cls c;
	size_t n = 0, sent = 0, answered = 0, lost = 0, busy = 0;
	uint64_t t0, c0, ms, cpu;
	long csw0, csw;

	while ((ch = getopt(argc, argv, "c:f:n:w:")) != -1)
		switch (ch) {
		case 'c': cls = optarg; break;
		case 'f': file = optarg; break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'w': win = atoi(optarg); break;
		default: file = NULL; break;
		}
	c = strcmp(cls, "perf") == 0 ? CLS_PERF :
	    strcmp(cls, "dr") == 0 ? CLS_DR : CLS_SMP;
	if (file == NULL || (c == CLS_SMP && strcmp(cls, "smp") != 0) ||
	    win < 1 || win > MAX_WINDOW) {
		fprintf(stderr, "usage: madfloor -c smp|dr|perf -f FILE "
		    "[-n N] [-w W]\n");
		return 2;
	}
	if (read_targets(file, c) < 0) {
		fprintf(stderr, "madfloor: no targets in %s\n", file);
		return 2;
	}
	if (n == 0)
		n = ntargets;
	if (umad_init() < 0 || umad_get_port(NULL, 0, &p) < 0 ||
	    (fd = umad_open_port(p.ca_name, p.portnum)) < 0 ||
	    (agent = umad_register(fd, c == CLS_PERF ? 0x04 :
	    c == CLS_DR ? 0x81 : 0x01, 1, 0, NULL)) < 0 ||
	    /* umad2sim crashes on a MAD of a class nobody registered */
	    umad_register(fd, c == CLS_DR ? 0x01 : 0x81, 1, 0, NULL) < 0) {
		fprintf(stderr, "madfloor: cannot open the port\n");
		return 2;
	}
	/* Only now: opening the port (IB_USER_MAD_ENABLE_PKEY) moves
	 * libibumad to the 64-octet header. */
	mad = umad_get_mad(buf);
	memset(outstanding, 0, sizeof(outstanding));
	t0 = now_ns();
	c0 = cpu_us(&csw0);
	/* TID t lives in slot t % win: the slot is free again once its
	 * answer came (or it was given up). */
	while (answered + lost < n) {
		while (sent < n && busy < (size_t)win) {
			uint32_t tid = (uint32_t)sent + 1;

			if (send_one(fd, agent, c,
			    &targets[sent % ntargets], tid) < 0) {
				fprintf(stderr, "madfloor: umad_send failed\n");
				return 1;
			}
			outstanding[tid % win] = tid;
			sent++;
			busy++;
		}
		len = MAD_SIZE;
		if (umad_recv(fd, buf, &len, 1000) < 0) {
			/* A second without an answer: what is out is lost. */
			for (int i = 0; i < win; i++)
				if (outstanding[i] != 0) {
					outstanding[i] = 0;
					lost++;
				}
			busy = 0;
			continue;
		}
		if ((mad[3] & 0x80) == 0)
			continue;
		uint32_t tid = (uint32_t)(mad[12] << 24 | mad[13] << 16 |
		    mad[14] << 8 | mad[15]);
		if (tid == 0 || outstanding[tid % win] != tid)
			continue;	/* late, or not ours */
		outstanding[tid % win] = 0;
		busy--;
		/* Answered, with no error in the MAD's Status either (for a
		 * DR SMP the D bit shares its first octet: IBA 14.2.1.2). */
		if (umad_status(buf) == 0 &&
		    ((mad[4] & (c == CLS_DR ? 0x7f : 0xff)) | mad[5]) == 0)
			answered++;
		else
			lost++;
	}
	ms = (now_ns() - t0) / 1000000;
	cpu = cpu_us(&csw) - c0;
	printf("mads %zu answered %zu lost %zu ms %llu cpu_ms %llu "
	    "us_per_mad %.1f csw_per_mad %.2f\n", n, answered, lost,
	    (unsigned long long)ms, (unsigned long long)(cpu / 1000),
	    n ? (double)cpu / n : 0.0, n ? (double)(csw - csw0) / n : 0.0);
	/* The port is left to exit: umad2sim crashes on a MAD for a
	 * closed fd (tests/sim/README.md). */
	return answered == n ? 0 : 1;
}
