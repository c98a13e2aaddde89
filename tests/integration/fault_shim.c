/* Test-only fault injection: an LD_PRELOAD shim, loaded before
 * libumad2sim, that edits the MADs the gateway reads.
 *
 * - $SHIM_MKEY_PROT: ibsim 0.10 neither checks M_Keys nor keeps
 *   PortInfo:MKeyProtectBits, so PortInfo answers are made to say what a
 *   protected SMA says to a requester with the wrong key (IBA 14.2.4.1):
 *   MKeyProtectBits = $SHIM_MKEY_PROT, M_Key zeroed (health.py).
 * - $SHIM_SHORT_ATTR (an attribute ID): answers carrying that attribute
 *   are cut to $SHIM_SHORT_LEN octets of MAD, as a broken agent or HCA
 *   driver might deliver them (health.py). With $SHIM_SHORT_DROP, only
 *   the first is cut short and every later one is lost.
 * - $SHIM_FUZZ (percent) and $SHIM_FUZZ_SEED: that share of the SMP and
 *   PerfMgt answers is corrupted at random (data octets, all-zero or
 *   all-ones payloads, status, method, hop fields, length), the TID
 *   kept so that the answer reaches its request (chaos.py).
 * - $SHIM_STATUS_ATTR and $SHIM_STATUS_MOD: answers for that attribute
 *   ID and modifier carry MAD status $SHIM_STATUS (default 0x1c, "an
 *   attribute or modifier value is invalid", IBA 13.4.7 Table 119), as
 *   an agent refusing one port (cluster.py).
 * - $SHIM_DESC_PATH (a directed route, "0,1,5") and $SHIM_DESC_TEXT:
 *   the NodeDescription answer of the node at that route says that text,
 *   as after an HCA driver sets the host name at boot (cluster.py).
 * - $SHIM_DOWN_FILE: while that file exists, the umad device is gone:
 *   reads and writes on umad2sim's descriptors fail with EIO and opening
 *   /dev/infiniband/ fails with ENODEV, as after an HCA reset or a
 *   driver reload (portdown.py).
 * - $SHIM_VLARB_PORT: PortInfo answers for that port say VLArbHighCap
 *   100, outside the MIB's 0..64, as a broken SMA might (cluster.py).
 * - $SHIM_HOSTILE (a count): hostile MADs, mutated answers and
 *   injected ones, from the engine in hostile_mad.c (hostilemad.py).
 * - $SHIM_DROP_PERF_LID: PerfMgt answers from that LID are lost, as
 *   while a link on that port's LID route is down and the SM has not
 *   moved the route; directed-route SMPs still get through (health.py).
 * - $SHIM_NOTICE_FILE: once that file exists, holding "TRAP GUID" (trap
 *   64 or 65 and a port GUID), the gateway reads an SA Report of that
 *   Notice from LID $SHIM_SM_LID, as the SM sends one late or wrongly
 *   (staletrap.py); the file is renamed to its name and ".taken" as it
 *   is read, so each one goes in once.
 * Everything else passes through unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "hostile_mad.c"

static unsigned	fuzz_state;

/* A DR SMP's initial path is hops 1..hop count at offset 128 (IBA
 * 14.2.1.2); path is "0,h1,h2,...". */
static int
dr_path_is(const uint8_t *mad, const char *path)
{
	char *end;
	int k = 0;

	for (;;) {
		long h = strtol(path, &end, 10);
		if (end == path || h < 0 || h > 255 || k > 63)
			return 0;
		if (k > 0 && mad[128 + k] != h)
			return 0;
		k++;
		if (*end != ',')
			break;
		path = end + 1;
	}
	return *end == '\0' && mad[7] == k - 1;
}

static unsigned
fuzz_rand(void)
{
	/* xorshift32: the same sequence for the same seed */
	fuzz_state ^= fuzz_state << 13;
	fuzz_state ^= fuzz_state >> 17;
	fuzz_state ^= fuzz_state << 5;
	return fuzz_state;
}

static ssize_t
fuzz(uint8_t *mad, ssize_t n)
{
	static int rate = -1;
	uint8_t *data = mad + 64;

	if (rate < 0) {
		const char *s = getenv("SHIM_FUZZ_SEED");

		rate = atoi(getenv("SHIM_FUZZ"));
		fuzz_state = s ? (unsigned)strtoul(s, NULL, 0) : 1;
		if (fuzz_state == 0)
			fuzz_state = 1;
	}
	if (mad[1] != 0x01 && mad[1] != 0x81 && mad[1] != 0x04)
		return n;
	if ((int)(fuzz_rand() % 100) >= rate)
		return n;
	switch (fuzz_rand() % 8) {
	case 0:		/* a few random payload octets */
	case 1:
	case 2:
		for (unsigned i = fuzz_rand() % 8 + 1; i > 0; i--)
			data[fuzz_rand() % 192] = (uint8_t)fuzz_rand();
		break;
	case 3:		/* everything all ones: counts, ports, LIDs */
		memset(data, 0xff, 192);
		break;
	case 4:		/* all zero */
		memset(data, 0, 192);
		break;
	case 5:		/* status, or the D bit and hop fields */
		mad[4 + fuzz_rand() % 4] = (uint8_t)fuzz_rand();
		break;
	case 6:		/* method: a GetResp that is not one */
		mad[3] = (uint8_t)fuzz_rand();
		break;
	default:	/* truncated anywhere */
		return (ssize_t)umad_size() + (ssize_t)(fuzz_rand() % 256);
	}
	return n;
}

/* $SHIM_NOTICE_FILE: whether one is waiting, and the gateway has an
 * agent to read it on (else poll would say so for ever). */
static int
notice_due(int fd)
{
	const char *f = getenv("SHIM_NOTICE_FILE");

	return fd >= 1024 && f != NULL && hm_nagents > 0 &&
	    access(f, F_OK) == 0;
}

/* The agent the gateway reads SA MADs on (any of its agents would do
 * for its reader; the kernel would use this one). */
static uint32_t
notice_agent(void)
{
	for (int i = 0; i < hm_nagents; i++)
		if (hm_agent_class[i] == 0x03)
			return hm_agents[i];
	return hm_agents[0];
}

/* The waiting Notice (IBA 13.4.8.2; traps 64/65 15.2.5.1) in an SA
 * Report, as read from the SM: -1 if another read took it first. */
static ssize_t
notice_read(void *buf, size_t count)
{
	const char *f = getenv("SHIM_NOTICE_FILE");
	char taken[4096];
	unsigned trap = 0;
	unsigned long long guid = 0;
	struct hm_mad m;
	uint8_t *nt = m.mad + 56;
	FILE *fp;

	snprintf(taken, sizeof(taken), "%s.taken", f);
	if (rename(f, taken) == -1 || (fp = fopen(taken, "r")) == NULL)
		return -1;
	if (fscanf(fp, "%u %llx", &trap, &guid) != 2)
		trap = 0;
	fclose(fp);
	if (trap == 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.len = HM_SZ;
	m.hdr.agent_id = notice_agent();
	m.mad[0] = 1;
	m.mad[1] = 0x03;		/* SubnAdm */
	m.mad[2] = 2;
	m.mad[3] = 0x06;		/* Report */
	hm_put32(m.mad + 12, 0x5a000000u | (trap & 0xffff));
	m.mad[17] = 0x02;		/* Notice */
	nt[0] = 0x84;			/* generic, informational */
	nt[3] = 4;			/* ProducerType: class manager */
	nt[4] = (uint8_t)(trap >> 8);
	nt[5] = (uint8_t)trap;
	nt[6] = (uint8_t)(hm_sm_lid >> 8);
	nt[7] = (uint8_t)hm_sm_lid;
	/* DataDetails: 6 reserved octets, then GIDADDR (subnet prefix
	 * fe80::, the port GUID). */
	nt[16] = 0xfe;
	nt[17] = 0x80;
	for (int i = 0; i < 8; i++)
		nt[24 + i] = (uint8_t)(guid >> (56 - 8 * i));
	hm_addr(&m, hm_sm_lid, 1);
	return hm_deliver(&m, buf, count);
}

static int
port_gone(void)
{
	const char *f = getenv("SHIM_DOWN_FILE");

	return f != NULL && access(f, F_OK) == 0;
}

ssize_t
write(int fd, const void *buf, size_t count)
{
	static ssize_t (*next)(int, const void *, size_t);

	if (next == NULL)
		next = (ssize_t (*)(int, const void *, size_t))dlsym(
		    RTLD_NEXT, "write");
	if (fd >= 1024 && port_gone()) {
		errno = EIO;
		return -1;
	}
	if (fd >= 1024 && getenv("SHIM_HOSTILE") != NULL)
		hm_note_sent(buf, count);
	return next(fd, buf, count);
}

int
poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	static int (*next)(struct pollfd *, nfds_t, int);

	if (next == NULL)
		next = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT,
		    "poll");
	if (getenv("SHIM_NOTICE_FILE") != NULL && nfds == 1) {
		if (notice_due(fds[0].fd)) {
			fds[0].revents = POLLIN;
			return 1;
		}
		/* The file is looked for ten times a second. */
		if (fds[0].fd >= 1024 && (timeout < 0 || timeout > 100))
			timeout = 100;
	}
	if (getenv("SHIM_HOSTILE") == NULL)
		return next(fds, nfds, timeout);
	return hm_poll(fds, nfds, timeout, next);
}

int
ioctl(int fd, unsigned long req, ...)
{
	static int (*next)(int, unsigned long, ...);
	va_list ap;
	void *arg;
	int rc;

	if (next == NULL)
		next = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT,
		    "ioctl");
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	rc = next(fd, req, arg);
	if (fd >= 1024 && (getenv("SHIM_HOSTILE") != NULL ||
	    getenv("SHIM_NOTICE_FILE") != NULL))
		hm_note_agent(req, arg, rc);
	return rc;
}

int
close(int fd)
{
	static int (*next)(int);

	if (next == NULL)
		next = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (fd >= 1024 && (getenv("SHIM_HOSTILE") != NULL ||
	    getenv("SHIM_NOTICE_FILE") != NULL))
		hm_close(fd);
	return next(fd);
}

int
open(const char *path, int flags, ...)
{
	static int (*next)(const char *, int, ...);
	mode_t mode = 0;

	if (next == NULL)
		next = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT,
		    "open");
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (strncmp(path, "/dev/infiniband/", 16) == 0 && port_gone()) {
		errno = ENODEV;
		return -1;
	}
	return next(path, flags, mode);
}

ssize_t
read(int fd, void *buf, size_t count)
{
	static ssize_t (*next)(int, void *, size_t);
	const char *prot = getenv("SHIM_MKEY_PROT");
	const char *short_attr = getenv("SHIM_SHORT_ATTR");
	ssize_t n;
	uint8_t *mad;

	if (next == NULL)
		next = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT,
		    "read");
	if (fd >= 1024 && port_gone()) {
		errno = EIO;
		return -1;
	}
	if (notice_due(fd)) {
		if (hm_on < 0)
			hm_init();
		if ((n = notice_read(buf, count)) >= 0)
			return n;
	}
	if (fd >= 1024 && getenv("SHIM_HOSTILE") != NULL)
		return hm_read(fd, buf, count, next);
	n = next(fd, buf, count);
	/* Only umad2sim's fake umad descriptors (1024 and up). */
	if (fd < 1024 || n < 0 || (size_t)n < umad_size() + 128)
		return n;
	mad = (uint8_t *)buf + umad_size();
	if (getenv("SHIM_DROP_PERF_LID") != NULL && mad[1] == 0x04 &&
	    ntohs(((struct ib_user_mad *)buf)->addr.lid) ==
	    (uint16_t)strtoul(getenv("SHIM_DROP_PERF_LID"), NULL, 0)) {
		errno = EAGAIN;
		return -1;
	}
	if (short_attr != NULL &&
	    (mad[16] << 8 | mad[17]) == (int)strtol(short_attr, NULL, 0)) {
		static int seen;
		const char *len = getenv("SHIM_SHORT_LEN");

		/* $SHIM_SHORT_DROP: only the first is cut short, the later
		 * ones are lost (a garbled answer, then silence). */
		if (getenv("SHIM_SHORT_DROP") != NULL && seen++) {
			errno = EAGAIN;
			return -1;
		}
		return (ssize_t)umad_size() + (len ? atoi(len) : 100);
	}
	if (getenv("SHIM_FUZZ") != NULL)
		return fuzz(mad, n);
	if (getenv("SHIM_DESC_PATH") != NULL && mad[1] == 0x81 &&
	    mad[3] == 0x81 && mad[16] == 0x00 && mad[17] == 0x10 &&
	    dr_path_is(mad, getenv("SHIM_DESC_PATH"))) {
		const char *t = getenv("SHIM_DESC_TEXT") ?
		    getenv("SHIM_DESC_TEXT") : "";

		memset(mad + 64, 0, 64);
		memcpy(mad + 64, t, strnlen(t, 64));
		return n;
	}
	if (getenv("SHIM_VLARB_PORT") != NULL && mad[3] == 0x81 &&
	    mad[16] == 0x00 && mad[17] == 0x15 && mad[20] == 0 &&
	    mad[21] == 0 && mad[22] == 0 &&
	    mad[23] == (uint8_t)atoi(getenv("SHIM_VLARB_PORT"))) {
		mad_set_field(mad + 64, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F,
		    100);
		return n;
	}
	if (getenv("SHIM_STATUS_ATTR") != NULL && (mad[3] & 0x80) &&
	    (mad[16] << 8 | mad[17]) ==
	    (int)strtol(getenv("SHIM_STATUS_ATTR"), NULL, 0) &&
	    ((uint32_t)mad[20] << 24 | (uint32_t)mad[21] << 16 |
	    (uint32_t)mad[22] << 8 | mad[23]) ==
	    (uint32_t)strtoul(getenv("SHIM_STATUS_MOD") ?
	    getenv("SHIM_STATUS_MOD") : "0", NULL, 0)) {
		const char *st = getenv("SHIM_STATUS");
		unsigned v = st ? (unsigned)strtoul(st, NULL, 0) : 0x1c;

		/* The D bit of a directed-route SMP stays (IBA 14.2.1.2). */
		mad[4] = (uint8_t)((mad[4] & (mad[1] == 0x81 ? 0x80 : 0)) |
		    ((v >> 8) & 0x7f));
		mad[5] = (uint8_t)v;
		return n;
	}
	if (prot == NULL)
		return n;
	/* SubnGetResp(PortInfo), LID-routed or directed route */
	if ((mad[1] == 0x01 || mad[1] == 0x81) && mad[3] == 0x81 &&
	    mad[16] == 0x00 && mad[17] == 0x15) {
		uint8_t *data = mad + 64;
		uint32_t bits = (uint32_t)atoi(prot);

		mad_set_field64(data, 0, IB_PORT_MKEY_F, 0);
		mad_set_field(data, 0, IB_PORT_MKEY_PROT_BITS_F, bits);
	}
	return n;
}
