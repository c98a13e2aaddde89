/* sa-client: what a host does to the SA that no stock tool does, so the
 * tests can give the simulated SM real multicast members and services.
 *
 *   sa-client service ID NAME     register a service (lease: forever)
 *   sa-client join MGID           join a multicast group as a full member
 *   sa-client inform TRAP RTV     subscribe to generic trap TRAP, with
 *                                 RespTimeValue RTV (InformInfo, 13.4.8.3)
 *
 * Runs as a umad2sim client (SIM_HOST names the host); the records
 * stay with the SA after it exits. Exit 0 when the SA accepted. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#define SA_METHOD_SET	0x02

/* The port's GID and its SM's LID, as the (fake) sysfs has them: no
 * SMP, whose answer umad2sim would crash on without an SMI agent. */
static int
own_port(uint8_t gid[16], ib_portid_t *sm)
{
	umad_port_t p;

	if (umad_get_port(NULL, 0, &p) < 0)
		return -1;
	memcpy(gid, &p.gid_prefix, 8);	/* both network order */
	memcpy(gid + 8, &p.port_guid, 8);
	if (p.gid_prefix == 0) {
		/* umad2sim's sysfs has none: the default (IBA 4.1.1). */
		gid[0] = 0xfe;
		gid[1] = 0x80;
	}
	sm->lid = (int)p.sm_lid;
	umad_release_port(&p);
	return sm->lid != 0 ? 0 : -1;
}

static int
set_record(struct ibmad_port *port, ib_portid_t *sm, unsigned attr,
    uint64_t mask, uint8_t *rec)
{
	ib_sa_call_t sa = { 0 };
	uint8_t *r;

	sa.attrid = attr;
	sa.method = SA_METHOD_SET;
	sa.mask = mask;
	r = sa_rpc_call(port, rec, sm, &sa, 2000);
	if (r == NULL) {
		fprintf(stderr, "sa-client: no answer from the SA\n");
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int classes[] = { IB_SA_CLASS };
	struct ibmad_port *port;
	ib_portid_t sm = { 0 };
	uint8_t rec[IB_SA_DATA_SIZE] = { 0 }, gid[16];
	int rc;

	if (!(argc == 4 && strcmp(argv[1], "service") == 0) &&
	    !(argc == 4 && strcmp(argv[1], "inform") == 0) &&
	    !(argc == 3 && strcmp(argv[1], "join") == 0)) {
		fprintf(stderr, "usage: sa-client service ID NAME\n"
		    "       sa-client join MGID\n"
		    "       sa-client inform TRAP RTV\n");
		return 2;
	}
	madrpc_show_errors(1);
	if ((port = mad_rpc_open_port(NULL, 0, classes, 1)) == NULL ||
	    own_port(gid, &sm) == -1) {
		fprintf(stderr, "sa-client: cannot open the port or find "
		    "the SM\n");
		return 1;
	}
	if (argc == 3) {
		/* MCMemberRecord (15.2.5.17): MGID, PortGID, JoinState
		 * (bits 0, 1, 16) join a group that exists; JoinState 1 is
		 * full membership. */
		if (inet_pton(AF_INET6, argv[2], rec) != 1) {
			fprintf(stderr, "sa-client: bad MGID %s\n", argv[2]);
			return 2;
		}
		memcpy(rec + 16, gid, 16);
		rec[48] = 0x01;
		rc = set_record(port, &sm, IB_SA_ATTR_MCRECORD,
		    1ULL << 0 | 1ULL << 1 | 1ULL << 16, rec);
		mad_rpc_close_port(port);
		return rc == 0 ? 0 : 1;
	}
	if (strcmp(argv[1], "inform") == 0) {
		/* InformInfo (13.4.8.3 Table 107): GID 0 and LIDRangeBegin
		 * 0xFFFF (all producers), IsGeneric, Subscribe, Type 0xFFFF,
		 * TrapNumber, QPN 1 and RespTimeValue, ProducerType any. */
		unsigned trap = (unsigned)strtoul(argv[2], NULL, 0);

		rec[16] = rec[17] = 0xff;
		rec[22] = 1;
		rec[23] = 1;
		rec[24] = rec[25] = 0xff;
		rec[26] = (uint8_t)(trap >> 8);
		rec[27] = (uint8_t)trap;
		rec[30] = 0x01;
		rec[31] = (uint8_t)(strtoul(argv[3], NULL, 0) & 0x1f);
		rec[33] = rec[34] = rec[35] = 0xff;
		rc = set_record(port, &sm, 0x0003, 0, rec);
		mad_rpc_close_port(port);
		return rc == 0 ? 0 : 1;
	}
	/* ServiceRecord (15.2.5.14): ID, GID, P_Key, Lease, Name
	 * (bits 0, 1, 2, 4, 6). */
	uint64_t id = strtoull(argv[2], NULL, 0);

	for (int k = 0; k < 8; k++)
		rec[k] = (uint8_t)(id >> (56 - 8 * k));
	memcpy(rec + 8, gid, 16);
	rec[24] = rec[25] = 0xff;
	memset(rec + 28, 0xff, 4);
	strncpy((char *)rec + 48, argv[3], 63);
	rc = set_record(port, &sm, IB_SA_ATTR_SERVICERECORD,
	    1ULL << 0 | 1ULL << 1 | 1ULL << 2 | 1ULL << 4 | 1ULL << 6,
	    rec);
	mad_rpc_close_port(port);
	return rc == 0 ? 0 : 1;
}
