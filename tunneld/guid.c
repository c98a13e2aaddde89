/* allow-guids: the LIDs behind the port GUIDs, from the SA.
 * SubnAdmGet(NodeRecord) with the PortGUID component (IBA 15.2.5.2:
 * the record's LID at 0, NodeInfo at 4, its PortGUID at NodeInfo
 * offset 20, IBA 14.2.5.3 Table 145; component 8), asked again every
 * minute, as the SM may move a LID, and every 5 s while unknown. */
#include "config.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/umad.h>

#include "codec/tunnel.h"
#include "tunneld/tunneld.h"
#include "util/log.h"

#define SA_DATA		56	/* IBA 15.2.1.1: SA header before data */
#define SA_NODE_RECORD	0x0011

/* The LID of each allow-guids entry, as the SA last told it (0: not
 * known), and when to ask again. */
static struct {
	uint16_t	 lid;
	uint64_t	 next_ms;
	uint32_t	 tid;		/* of the query out; 0: none */
} guid_lids[TD_MAX_LIDS];

int
td_guid_allowed(uint16_t lid)
{
	for (int i = 0; i < td_conf.nlids; i++)
		if (td_conf.lids[i] == lid)
			return 1;
	for (int i = 0; i < td_conf.nguids; i++)
		if (guid_lids[i].lid != 0 && guid_lids[i].lid == lid)
			return 1;
	return 0;
}

static void
guid_query(int i)
{
	umad_port_t p;
	uint8_t mad[TUN_MAD_SIZE];
	ib_mad_addr_t to;

	guid_lids[i].next_ms = td_now_ms() + 5000;
	if (td_port.agent_sa < 0 || umad_get_port(td_conf.ca[0] ? td_conf.ca :
	    NULL, td_conf.port, &p) < 0)
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
	guid_lids[i].tid = (uint32_t)td_tids(1);
	for (int k = 0; k < 4; k++)
		mad[12 + k] = (uint8_t)(guid_lids[i].tid >> (24 - 8 * k));
	mad[16] = SA_NODE_RECORD >> 8;
	mad[17] = SA_NODE_RECORD & 0xff;
	mad[54] = 0x01;	/* ComponentMask (octets 48-55): bit 8, PortGUID */
	for (int k = 0; k < 8; k++)
		mad[SA_DATA + 4 + 20 + k] = (uint8_t)(td_conf.guids[i] >>
		    (56 - 8 * k));
	(void)td_send_mad(td_port.agent_sa, &to, mad, 0);
}

uint64_t
td_guid_timers(uint64_t now)
{
	uint64_t next = UINT64_MAX;

	for (int i = 0; i < td_conf.nguids; i++) {
		if (now >= guid_lids[i].next_ms)
			guid_query(i);
		if (guid_lids[i].next_ms < next)
			next = guid_lids[i].next_ms;
	}
	return next;
}

void
td_guid_answer(const uint8_t *mad)
{
	uint32_t tid = (uint32_t)mad[12] << 24 | mad[13] << 16 |
	    mad[14] << 8 | mad[15];
	uint16_t status = (uint16_t)(mad[4] << 8 | mad[5]);

	for (int i = 0; i < td_conf.nguids; i++) {
		uint16_t lid;

		if (guid_lids[i].tid == 0 || guid_lids[i].tid != tid)
			continue;
		guid_lids[i].tid = 0;
		lid = status ? 0 : (uint16_t)(mad[SA_DATA] << 8 |
		    mad[SA_DATA + 1]);
		if (lid >= 0xc000)
			lid = 0;	/* not unicast: not believed */
		if (lid != guid_lids[i].lid && lid != 0)
			log_info("tunneld: port GUID 0x%016llx is LID %u",
			    (unsigned long long)td_conf.guids[i], lid);
		else if (lid != guid_lids[i].lid)
			log_info("tunneld: port GUID 0x%016llx is unknown to "
			    "the SA, status 0x%04x",
			    (unsigned long long)td_conf.guids[i], status);
		guid_lids[i].lid = lid;
		guid_lids[i].next_ms = td_now_ms() + (lid ? 60000 : 5000);
	}
}
