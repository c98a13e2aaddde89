/* ibsnmp-tunneld's umad side: the port, the agents registered on it,
 * sends, TIDs and the drop log (tunneld/tunneld.h). */
#include "config.h"

#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "codec/tunnel.h"
#include "tunneld/tunneld.h"
#include "util/log.h"

struct td_port	 td_port = { -1, -1, -1, -1, -1, -1, 0, 0 };
static uint64_t	 next_tid = 1;

uint64_t
td_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t
td_tids(int n)
{
	uint64_t t = next_tid;

	next_tid += (uint64_t)n;
	return t;
}

void
td_drop_log(const char *what, uint16_t lid)
{
	/* One entry per kind: the callers pass string literals. */
	static struct {
		const char		*what;
		uint64_t		 at;
		unsigned long long	 n;
	} k[16];
	uint64_t now = td_now_ms();
	int i;

	for (i = 0; i < 15 && k[i].what != NULL && k[i].what != what; i++)
		;
	k[i].what = what;
	k[i].n++;
	if (k[i].at != 0 && now - k[i].at < 10000)
		return;
	log_info("tunneld: dropped: %s, LID %u (%llu such since the last "
	    "line)", what, lid, k[i].n);
	k[i].at = now;
	k[i].n = 0;
}

int
td_send_mad(int agent, const ib_mad_addr_t *to, const uint8_t *mad, int qp0)
{
	uint8_t buf[sizeof(struct ib_user_mad) + TUN_MAD_SIZE];

	memset(buf, 0, sizeof(buf));
	umad_set_addr(buf, ntohs(to->lid), ntohl(to->qpn), to->sl,
	    qp0 ? 0 : (int)IB_DEFAULT_QP1_QKEY);
	umad_set_pkey(buf, to->pkey_index);
	memcpy(umad_get_mad(buf), mad, TUN_MAD_SIZE);
	if (umad_send(td_port.fd, agent, buf, TUN_MAD_SIZE, 0, 0) < 0) {
		td_drop_log("a MAD that umad_send refused", ntohs(to->lid));
		return -1;
	}
	return 0;
}

int
td_port_open(void)
{
	umad_port_t p;
	long mask[16 / sizeof(long)];
	const unsigned bits = 8 * sizeof(long);

	if (umad_init() < 0 || umad_get_port(td_conf.ca[0] ? td_conf.ca : NULL,
	    td_conf.port, &p) < 0) {
		log_warnx("tunneld: no usable IB port");
		return -1;
	}
	td_port.lid = (uint16_t)p.base_lid;
	td_port.guid = be64toh(p.port_guid);
	if ((td_port.fd = umad_open_port(p.ca_name, p.portnum)) < 0) {
		log_warnx("tunneld: cannot open %s port %d", p.ca_name,
		    p.portnum);
		umad_release_port(&p);
		return -1;
	}
	/* Requests to us: ClassPortInfo Gets and SNMPSends. */
	memset(mask, 0, sizeof(mask));
	mask[TUN_METHOD_GET / bits] |= 1L << (TUN_METHOD_GET % bits);
	mask[TUN_METHOD_SEND / bits] |= 1L << (TUN_METHOD_SEND % bits);
	td_port.agent_tun = umad_register(td_port.fd, TUN_MGMT_CLASS, TUN_CLASS_VERSION,
	    0, mask);
	if (td_port.agent_tun < 0) {
		log_warnx("tunneld: cannot register class 0x08 on %s port %d "
		    "(another tunnel agent?)", p.ca_name, p.portnum);
		umad_release_port(&p);
		return -1;
	}
	if (td_conf.nguids > 0 &&
	    (td_port.agent_sa = umad_register(td_port.fd, 0x03, 2, 0, NULL)) < 0)
		log_warnx("tunneld: cannot register the SA class: allow-guids "
		    "are not resolved, only allow-lids are accepted");
	if (td_conf.sim_issm) {
		char path[256];

		/* ibsim hands requests only to IsSM clients, and then the
		 * SM's SMInfo Gets too (tests/sim/README.md). */
		td_port.agent_smi = umad_register(td_port.fd, 0x01, 1, 0, NULL);
		td_port.agent_dr = umad_register(td_port.fd, 0x81, 1, 0, NULL);
		if (umad_get_issm_path(p.ca_name, p.portnum, path,
		    sizeof(path)) < 0 || (td_port.issm_fd = open(path, O_RDWR)) < 0)
			log_warn("tunneld: cannot set IsSM");
	}
	log_info("tunneld: %s port %d LID %u, agent %s:%u, %d allowed LIDs, "
	    "%d allowed port GUIDs", p.ca_name, p.portnum, td_port.lid,
	    inet_ntoa(td_conf.agent.sin_addr), ntohs(td_conf.agent.sin_port),
	    td_conf.nlids, td_conf.nguids);
	umad_release_port(&p);
	return 0;
}

void
td_port_close(void)
{
	/* The umad port is left to the kernel: umad2sim (ibsim 0.10)
	 * crashes in its receiver thread on a MAD that arrives for an
	 * agent whose fd was closed (proxy/mad.h, proxy_mad_exiting). */
	if (td_port.issm_fd >= 0)
		close(td_port.issm_fd);
	td_port.issm_fd = -1;
}
