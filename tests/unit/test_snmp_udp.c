/* gw_snmp_udp (gateway/snmp_udp.c): a UDP/IPv4 listener's datagrams
 * read up to GW_SNMP_UDP_BATCH at a time and handed out one by one,
 * each with its sender and the local address it came to, as net-snmp's
 * own receive gives them; the answer sent back from that address, or to
 * an address given alone; what
 * a batch holds counted as pending; a forgotten socket's batch gone;
 * other transports left alone. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <net-snmp/library/large_fd_set.h>

#include "gateway/snmp.h"

static int
client(struct sockaddr_in *to, netsnmp_transport *t)
{
	socklen_t sl = sizeof(*to);
	int c = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(c >= 0);
	assert_int_equal(getsockname(t->sock, (struct sockaddr *)to, &sl), 0);
	return c;
}

static int
pending(void)
{
	netsnmp_large_fd_set fds;
	int n;

	netsnmp_large_fd_set_init(&fds, FD_SETSIZE);
	n = gw_snmp_udp_pending(&fds);
	netsnmp_large_fd_set_cleanup(&fds);
	return n;
}

static void
test_batch(void **state)
{
	netsnmp_transport *t = netsnmp_transport_open_server("snmp",
	    "udp:127.0.0.1:0");
	struct sockaddr_in to, me, from;
	socklen_t sl = sizeof(me);
	char buf[64], msg[16];
	void *op;
	int olen, c, n;

	(void)state;
	assert_non_null(t);
	gw_snmp_udp_tune(t);
	c = client(&to, t);
	for (int i = 0; i < 3; i++) {
		snprintf(msg, sizeof(msg), "request %d", i);
		assert_int_equal(sendto(c, msg, strlen(msg), 0,
		    (struct sockaddr *)&to, sizeof(to)), (ssize_t)strlen(msg));
	}
	usleep(20000);
	assert_int_equal(getsockname(c, (struct sockaddr *)&me, &sl), 0);
	for (int i = 0; i < 3; i++) {
		const netsnmp_indexed_addr_pair *ap;

		n = t->f_recv(t, buf, sizeof(buf), &op, &olen);
		snprintf(msg, sizeof(msg), "request %d", i);
		assert_int_equal(n, (int)strlen(msg));
		assert_memory_equal(buf, msg, n);
		assert_int_equal(olen, (int)sizeof(netsnmp_indexed_addr_pair));
		ap = op;
		assert_int_equal(ap->remote_addr.sin.sin_port, me.sin_port);
		assert_int_equal(ap->local_addr.sin.sin_family, AF_INET);
		assert_int_equal(ap->local_addr.sin.sin_port, to.sin_port);
		assert_int_equal(ap->local_addr.sin.sin_addr.s_addr,
		    htonl(INADDR_LOOPBACK));
		/* One recvmmsg() brought all three: the rest is pending. */
		assert_int_equal(pending(), i < 2 ? 1 : 0);
		if (i == 2) {
			/* The answer, to the sender, from the address. */
			assert_int_equal(t->f_send(t, "answer", 6, &op, &olen),
			    6);
			sl = sizeof(from);
			n = (int)recvfrom(c, buf, sizeof(buf), 0,
			    (struct sockaddr *)&from, &sl);
			assert_int_equal(n, 6);
			assert_int_equal(from.sin_port, to.sin_port);
		}
		free(op);
	}
	/* An address alone as the opaque, as net-snmp's send takes it. */
	{
		struct sockaddr_in *to_me = malloc(sizeof(*to_me));
		int tl = sizeof(*to_me);

		assert_non_null(to_me);
		sl = sizeof(*to_me);
		assert_int_equal(getsockname(c, (struct sockaddr *)to_me, &sl),
		    0);
		op = to_me;
		assert_int_equal(t->f_send(t, "bare", 4, &op, &tl), 4);
		n = (int)recv(c, buf, sizeof(buf), 0);
		assert_int_equal(n, 4);
		assert_memory_equal(buf, "bare", 4);
		free(to_me);
	}
	/* Nothing more: -1, as a recvmsg() that would block. */
	assert_int_equal(t->f_recv(t, buf, sizeof(buf), &op, &olen), -1);
	free(op);
	close(c);
	gw_snmp_udp_forget(t->sock);
	netsnmp_transport_free(t);
}

/* A datagram longer than the agent's buffer is cut, as recvmsg() cuts
 * it; a forgotten socket's unread datagrams are dropped with it. */
static void
test_cut_and_forget(void **state)
{
	netsnmp_transport *t = netsnmp_transport_open_server("snmp",
	    "udp:127.0.0.1:0");
	char big[3000], buf[100];
	struct sockaddr_in to;
	void *op;
	int olen, c;

	(void)state;
	assert_non_null(t);
	gw_snmp_udp_tune(t);
	c = client(&to, t);
	memset(big, 'x', sizeof(big));
	for (int i = 0; i < 2; i++)
		assert_int_equal(sendto(c, big, sizeof(big), 0,
		    (struct sockaddr *)&to, sizeof(to)), (ssize_t)sizeof(big));
	usleep(20000);
	assert_int_equal(t->f_recv(t, buf, sizeof(buf), &op, &olen),
	    (int)sizeof(buf));
	free(op);
	assert_int_equal(pending(), 1);
	gw_snmp_udp_forget(t->sock);
	assert_int_equal(pending(), 0);
	close(c);
	netsnmp_transport_free(t);
}

/* Not UDP/IPv4: net-snmp's own functions stay. */
static void
test_others(void **state)
{
	netsnmp_transport *t = netsnmp_transport_open_server("snmp",
	    "udp6:[::1]:0");
	void *r;

	(void)state;
	if (t == NULL)
		skip();		/* no IPv6 loopback here */
	r = (void *)t->f_recv;
	gw_snmp_udp_tune(t);
	assert_ptr_equal((void *)t->f_recv, r);
	netsnmp_transport_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_cut_and_forget),
		cmocka_unit_test(test_others),
	};

	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
	    NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
	netsnmp_tdomain_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
