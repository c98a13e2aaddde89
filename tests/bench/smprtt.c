/* smprtt: the round trip of one SMP through the fabric, for bench (h).
 *
 * A SubnGet(NodeInfo) (IBA 14.2.5.3), LID-routed like the tunnel's
 * Sends, to one LID, one in flight at a time, for some seconds; prints
 * the same fields as snmpload (rate, p50_us, p99_us). Under ibsim the
 * simulator itself answers SMPs, so this is the fabric's share of a
 * tunneled GET: one MAD each way through ibsim and umad2sim.
 *
 *   smprtt -l LID [-d seconds]      (run under umad2sim, SIM_HOST set)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#define MAD_SIZE	256
#define MAX_SAMPLES	(1 << 20)

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One Get and its answer (the low 32 bits of the TID: ibsim and
 * umad2sim own the upper ones). Returns the round trip in ns, 0 if
 * none came within a second. */
static uint64_t
one(int fd, int agent, uint16_t lid, uint32_t tid, uint8_t *buf)
{
	uint8_t *mad = umad_get_mad(buf);
	uint64_t t0;
	int len;

	memset(buf, 0, umad_size() + MAD_SIZE);
	umad_set_addr(buf, lid, 0, 0, 0);
	mad[0] = 1;		/* BaseVersion */
	mad[1] = 0x01;		/* SubnMgt, LID-routed */
	mad[2] = 1;		/* ClassVersion */
	mad[3] = 0x01;		/* Get */
	for (int k = 0; k < 4; k++)
		mad[12 + k] = (uint8_t)(tid >> (24 - 8 * k));
	mad[17] = 0x11;		/* NodeInfo */
	t0 = now_ns();
	if (umad_send(fd, agent, buf, MAD_SIZE, 1000, 0) < 0)
		return 0;
	for (;;) {
		len = MAD_SIZE;
		if (umad_recv(fd, buf, &len, 1000) < 0)
			return 0;
		if ((mad[3] & 0x80) && (uint32_t)(mad[12] << 24 |
		    mad[13] << 16 | mad[14] << 8 | mad[15]) == tid)
			return umad_status(buf) ? 0 : now_ns() - t0;
	}
}

int
main(int argc, char **argv)
{
	static uint64_t lat[MAX_SAMPLES];
	/* umad2sim's read() fills sizeof(struct ib_user_mad) + 256
	 * (tests/sim/README.md): room for it. */
	uint8_t buf[512];
	umad_port_t p;
	int ch, fd, agent, dur = 5, lost = 0;
	uint16_t lid = 0;
	size_t n = 0;
	uint64_t end, t0;

	while ((ch = getopt(argc, argv, "d:l:")) != -1)
		switch (ch) {
		case 'd': dur = atoi(optarg); break;
		case 'l': lid = (uint16_t)strtoul(optarg, NULL, 0); break;
		default: lid = 0; break;
		}
	if (lid == 0 || dur < 1) {
		fprintf(stderr, "usage: smprtt -l LID [-d seconds]\n");
		return 2;
	}
	if (umad_init() < 0 || umad_get_port(NULL, 0, &p) < 0 ||
	    (fd = umad_open_port(p.ca_name, p.portnum)) < 0 ||
	    (agent = umad_register(fd, 0x01, 1, 0, NULL)) < 0 ||
	    /* umad2sim crashes on a MAD of a class nobody registered */
	    umad_register(fd, 0x81, 1, 0, NULL) < 0) {
		fprintf(stderr, "smprtt: cannot open the port\n");
		return 2;
	}
	t0 = now_ns();
	end = t0 + (uint64_t)dur * 1000000000ULL;
	for (uint32_t tid = 1; now_ns() < end && n < MAX_SAMPLES; tid++) {
		uint64_t ns = one(fd, agent, lid, tid, buf);

		if (ns == 0)
			lost++;
		else
			lat[n++] = ns;
	}
	if (n == 0) {
		fprintf(stderr, "smprtt: no answer from LID %u\n", lid);
		return 1;
	}
	qsort(lat, n, sizeof(lat[0]), cmp_u64);
	printf("requests %zu lost %d rate %.0f p50_us %.1f p99_us %.1f\n",
	    n + (size_t)lost, lost, n * 1e9 / (double)(now_ns() - t0),
	    lat[n / 2] / 1e3, lat[n * 99 / 100] / 1e3);
	/* The port is left to exit: umad2sim crashes on a MAD for a
	 * closed fd (tests/sim/README.md). */
	return 0;
}
