/* tun-send: a minimal IB SNMP Tunneling requester for the tests, on the
 * same codec as ibsnmp-tunneld (docs/tunneling.md).
 *
 *   tun-send -p LID          ClassPortInfo probe: prints its fields
 *   tun-send LID < msg > ans one SNMP message through the tunnel
 *   tun-send -r LID < mads   raw class 0x08 MADs, 256 octets each, sent
 *                            as they are (the tests' fault injection:
 *                            only the class byte is forced)
 *
 * Run under umad2sim with SIM_HOST set. It sets IsSM on its port, as
 * ibsim forwards the agent's answers (Sends, so requests) only to IsSM
 * clients, and answers the SM's SMInfo Gets meanwhile. Exit status 0,
 * 1 (no answer within 3 s), 2 (usage or setup). */
#include "config.h"

#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "codec/smp.h"
#include "codec/tunnel.h"

static int fd, agent_tun, agent_smi, agent_dr;
static uint16_t my_lid;
static uint64_t my_guid;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int
send_to(int agent, uint16_t lid, int qp, const uint8_t *mad)
{
	uint8_t buf[sizeof(struct ib_user_mad) + TUN_MAD_SIZE];

	memset(buf, 0, sizeof(buf));
	umad_set_addr(buf, lid, qp, 0, qp ? (int)IB_DEFAULT_QP1_QKEY : 0);
	memcpy(umad_get_mad(buf), mad, TUN_MAD_SIZE);
	return umad_send(fd, agent, buf, TUN_MAD_SIZE, 0, 0);
}

/* The SM's SMInfo Gets to our IsSM port: answered, NOTACTIVE. */
static void
answer_sm(uint8_t *umad)
{
	const uint8_t *mad = umad_get_mad(umad);
	const ib_mad_addr_t *from = umad_get_mad_addr(umad);
	uint8_t resp[TUN_MAD_SIZE];
	uint8_t buf[sizeof(struct ib_user_mad) + TUN_MAD_SIZE];

	if (smp_sminfo_notactive(resp, mad, my_guid) == -1)
		return;
	memset(buf, 0, sizeof(buf));
	umad_set_addr(buf, ntohs(from->lid), ntohl(from->qpn), from->sl, 0);
	memcpy(umad_get_mad(buf), resp, TUN_MAD_SIZE);
	(void)umad_send(fd, mad[1] == 0x81 ? agent_dr : agent_smi, buf,
	    TUN_MAD_SIZE, 0, 0);
}

static int
setup(void)
{
	umad_port_t p;
	long mask[16 / sizeof(long)];
	char path[256];

	if (umad_init() < 0 || umad_get_port(NULL, 0, &p) < 0)
		return -1;
	my_lid = (uint16_t)p.base_lid;
	my_guid = be64toh(p.port_guid);
	if ((fd = umad_open_port(p.ca_name, p.portnum)) < 0)
		return -1;
	memset(mask, 0, sizeof(mask));
	mask[0] = 1L << TUN_METHOD_SEND;
	agent_tun = umad_register(fd, TUN_MGMT_CLASS, TUN_CLASS_VERSION, 0,
	    mask);
	agent_smi = umad_register(fd, 0x01, 1, 0, NULL);
	agent_dr = umad_register(fd, 0x81, 1, 0, NULL);
	if (agent_tun < 0 || agent_smi < 0 || agent_dr < 0 ||
	    umad_get_issm_path(p.ca_name, p.portnum, path, sizeof(path)) < 0 ||
	    open(path, O_RDWR) < 0)
		return -1;
	umad_release_port(&p);
	return 0;
}

int
main(int argc, char **argv)
{
	static uint8_t msg[TUN_PDU_MAX + 1];
	static uint8_t mads[TUN_SEG_MAX][TUN_MAD_SIZE];
	static struct tun_reasm r;
	uint8_t umad[sizeof(struct ib_user_mad) + TUN_MAD_SIZE];
	int probe = argc == 3 && strcmp(argv[1], "-p") == 0, segs = 0;
	int raw = argc == 3 && strcmp(argv[1], "-r") == 0;
	uint16_t lid;
	uint32_t raddr = (uint32_t)getpid() | 1;
	size_t len = 0;
	uint64_t end;

	if (argc != 2 + (probe || raw) || (lid = (uint16_t)strtoul(
	    argv[argc - 1], NULL, 0)) == 0) {
		fprintf(stderr, "usage: tun-send [-p | -r] LID\n");
		return 2;
	}
	if (raw) {
		size_t n;

		while (segs < TUN_SEG_MAX && (n = fread(mads[segs], 1,
		    TUN_MAD_SIZE, stdin)) == TUN_MAD_SIZE) {
			mads[segs][1] = TUN_MGMT_CLASS;
			segs++;
		}
		if (setup() == -1) {
			fprintf(stderr, "tun-send: cannot open the port\n");
			return 2;
		}
		for (int i = 0; i < segs; i++)
			if (send_to(agent_tun, lid, 1, mads[i]) < 0)
				return 2;
		/* Let them leave before the client detaches. */
		usleep(200000);
		fprintf(stderr, "tun-send: %d raw MADs sent\n", segs);
		return 0;
	}
	if (!probe) {
		size_t n;

		while ((n = fread(msg + len, 1, sizeof(msg) - len, stdin)) > 0)
			len += n;
		/* 160: ibsim loses MAD octets 224-255 between clients. */
		if ((segs = tun_encode(mads, TUN_SEG_MAX, msg, len, 160, raddr,
		    0, 1)) < 0) {
			fprintf(stderr, "tun-send: %zu octets: empty or over "
			    "%d\n", len, TUN_PDU_MAX);
			return 2;
		}
	}
	if (setup() == -1) {
		fprintf(stderr, "tun-send: cannot open the port\n");
		return 2;
	}
	if (probe) {
		tun_encode_cpi_get(mads[0], 1);
		segs = 1;
	} else
		/* SourceLID: ours, now that it is known. */
		for (int i = 0; i < segs; i++) {
			mads[i][62] = (uint8_t)(my_lid >> 8);
			mads[i][63] = (uint8_t)my_lid;
		}
	for (int i = 0; i < segs; i++)
		if (send_to(agent_tun, lid, 1, mads[i]) < 0) {
			fprintf(stderr, "tun-send: send failed\n");
			return 2;
		}
	tun_reasm_reset(&r);
	for (end = now_ms() + 3000; now_ms() < end;) {
		int n = TUN_MAD_SIZE;
		const uint8_t *mad = umad_get_mad(umad);
		struct tun_seg s;

		if (umad_recv(fd, umad, &n, 50) < 0)
			continue;
		if (mad[1] == 0x01 || mad[1] == 0x81) {
			answer_sm(umad);
			continue;
		}
		if (probe && mad[1] == TUN_MGMT_CLASS &&
		    mad[3] == TUN_METHOD_GET_RESP) {
			if (umad_status(umad) != 0)
				return 1;	/* ibsim: nobody there */
			printf("ClassPortInfo: BaseVersion %u ClassVersion %u "
			    "RespTimeValue %u\n", mad[64], mad[65],
			    mad[71] & 0x1f);
			return 0;
		}
		if (tun_decode(mad, (size_t)n, &s) == -1 ||
		    s.raddr != raddr || s.slid != lid)
			continue;
		if (tun_reasm_add(&r, &s) == TUN_DONE) {
			fwrite(r.buf, 1, r.len, stdout);
			fprintf(stderr, "tun-send: %zu octets in, %zu out, %d "
			    "and %u segments\n", len, r.len, segs, s.num);
			return 0;
		}
	}
	fprintf(stderr, "tun-send: no answer from LID %u\n", lid);
	return 1;
}
