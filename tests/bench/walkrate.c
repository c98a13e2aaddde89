/* walkrate: a GETBULK walk of one subtree that counts varbinds and
 * prints nothing else, for the benchmarks: snmpbulkwalk spends as much
 * CPU formatting long OIDs as the agent spends answering them, which
 * would measure the client. Both walks of bench (f) use it.
 *
 *   walkrate -c COMMUNITY [-r repetitions] udp:HOST:PORT OID
 *
 * Prints "walk varbinds N ms M rate R" (varbinds per second). */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int
main(int argc, char **argv)
{
	netsnmp_session s, *ss;
	oid root[MAX_OID_LEN], cur[MAX_OID_LEN];
	size_t rootlen = MAX_OID_LEN, curlen;
	const char *comm = "public";
	long reps = 30, n = 0;
	double t0;
	int ch, done = 0;

	while ((ch = getopt(argc, argv, "c:r:")) != -1) {
		switch (ch) {
		case 'c': comm = optarg; break;
		case 'r': reps = atol(optarg); break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	init_snmp("walkrate");
	snmp_sess_init(&s);
	s.peername = argv[optind];
	s.version = SNMP_VERSION_2c;
	s.community = (u_char *)strdup(comm);
	s.community_len = strlen(comm);
	s.timeout = 30 * 1000000L;
	if ((ss = snmp_open(&s)) == NULL ||
	    !read_objid(argv[optind + 1], root, &rootlen)) {
		fprintf(stderr, "walkrate: cannot open %s or parse %s\n",
		    argv[optind], argv[optind + 1]);
		return 1;
	}
	memcpy(cur, root, rootlen * sizeof(oid));
	curlen = rootlen;
	t0 = now_ms();
	while (!done) {
		netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETBULK), *resp;
		netsnmp_variable_list *vb;

		pdu->non_repeaters = 0;
		pdu->max_repetitions = reps;
		snmp_add_null_var(pdu, cur, curlen);
		if (snmp_synch_response(ss, pdu, &resp) != STAT_SUCCESS ||
		    resp == NULL || resp->errstat != SNMP_ERR_NOERROR) {
			fprintf(stderr, "walkrate: request failed after %ld "
			    "varbinds\n", n);
			return 1;
		}
		for (vb = resp->variables; vb; vb = vb->next_variable) {
			if (vb->type == SNMP_ENDOFMIBVIEW ||
			    vb->name_length < rootlen ||
			    snmp_oid_compare(vb->name, rootlen, root,
			    rootlen) != 0) {
				done = 1;
				break;
			}
			n++;
			memcpy(cur, vb->name, vb->name_length * sizeof(oid));
			curlen = vb->name_length;
		}
		if (resp->variables == NULL)
			done = 1;
		snmp_free_pdu(resp);
	}
	t0 = now_ms() - t0;
	printf("walk varbinds %ld ms %.0f rate %.0f\n", n, t0,
	    t0 > 0 ? n * 1000 / t0 : 0);
	snmp_close(ss);
	return 0;
usage:
	fprintf(stderr, "usage: walkrate -c COMMUNITY [-r reps] AGENT OID\n");
	return 2;
}
