/* ipoib: IPoIB hardware address parsing with hostile strings, and the
 * host's sources (sysfs-shaped directory, ARP file) mapped to inventory
 * ports. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "store/ipoib.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"

#define GUID	0x0002c90300bb0300ULL
#define A1	"00:00:00:49:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03:01"
#define A1B	"00:00:12:34:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03:01"
#define A2	"00:00:00:4a:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03:02"
#define AX	"00:00:00:4a:fe:80:00:00:00:00:00:00:11:22:33:44:55:66:77:88"
#define A2I	"00:00:00:4b:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03:02"
#define A2E	"00:00:00:4c:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03:02"
#define A2N	"00:00:00:4d:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03:02"
#define A1N	"00:00:00:01:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03:01"

static char dir[64], dbpath[96], arp[96], net[96];

static void
test_parse(void **state)
{
	uint8_t a[IPOIB_ADDR_LEN];
	static const char *bad[] = {
		"", ":", "00", A1 ":00", A1 "x", 
		"-1:00:00:49:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03:01",
		"0x:00:00:49:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03:01",
		"zz:00:00:49:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03:01",
		"00-00-00-49-fe-80-00-00-00-00-00-00-00-02-c9-03-00-bb-03-01",
		"00:00:00:49:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03",
		"52:54:00:12:34:56", "000:00:00:49:fe:80:00:00:00:00:00:00:00:02",
		" 0:00:00:49:fe:80:00:00:00:00:00:00:00:02:c9:03:00:bb:03:01",
	};

	assert_int_equal(ipoib_parse_addr(A1, a), 0);
	assert_int_equal(a[3], 0x49);
	assert_int_equal(a[19], 0x01);
	assert_int_equal(ipoib_parse_addr(A1 "\n", a), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ipoib_parse_addr(bad[i], a) != -1)
			fail_msg("accepted bad[%zu] \"%s\"", i, bad[i]);
}

static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
sweep_ca(void)
{
	struct store_node n;
	struct store_port p[3];

	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = GUID;
	n.type = STORE_NODE_CA;
	n.num_ports = 2;
	store_path_parse("0,1", &n.route);
	for (int i = 0; i < 3; i++) {
		p[i].num = i;
		p[i].guid = i ? GUID + i : 0;
		p[i].valid = i != 0;
		p[i].route.hop[0] = 0xff;
	}
	store_sweep_begin();
	store_sweep_node(&n, p);
	unsigned nodes, lost;

	store_sweep_end(&nodes, &lost);
}

static void
test_sources(void **state)
{
	const struct ipoib_ent *e;
	char p[160];
	uint32_t node;

	snprintf(dir, sizeof(dir), "/tmp/ibsnmpgw-ipoib-%d", getpid());
	snprintf(dbpath, sizeof(dbpath), "%s/inv.db", dir);
	snprintf(arp, sizeof(arp), "%s/arp", dir);
	snprintf(net, sizeof(net), "%s/net", dir);
	mkdir(dir, 0700);
	mkdir(net, 0700);
	snprintf(p, sizeof(p), "%s/ib0", net);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/ib0/type", net);
	put(p, "32\n");
	snprintf(p, sizeof(p), "%s/ib0/address", net);
	put(p, A2 "\n");
	{
		/* A line longer than any ARP entry, whose tail would parse
		 * as one: skipped whole. */
		char longline[1500];
		memset(longline, 'x', sizeof(longline));
		FILE *f = fopen(arp, "w");
		assert_non_null(f);
		fputs("IP address HW type Flags HW address Mask Device\n"
		    "10.0.0.1 0x20 0x2 " A1B " * ib0\n"
		    "10.0.0.2 0x20 0x2 " A1 " * ib0\n"
		    "10.0.0.3 0x20 0x2 " A1 " * ib0\n"	/* duplicate */
		    "10.0.0.4 0x20 0x0 " A2I " * ib0\n"	/* incomplete */
		    "10.0.0.5 0x20 0x2 " AX " * ib0\n"	/* other fabric */
		    "10.0.0.6 0x1 0x2 " A2E " * eth0\n"	/* not IPoIB */
		    "garbage\n"
		    "10.0.0.7 0x20 0x2 00:zz * ib0\n", f);
		fputs("10.0.0.8 0x20 0x2 ", f);
		fwrite(longline, 1, sizeof(longline), f);
		/* 19 + 492 = 511 octets: the tail starts exactly where a
		 * 512-octet read ends. */
		fputs("\n10.0.0.10 0x20 0x2 ", f);
		fwrite(longline, 1, 492, f);
		fputs("10.9.9.9 0x20 0x2 " A2N " * ib0\n", f);
		/* The last line has no newline: still read. */
		fputs("10.0.0.9 0x20 0x2 " A1N " * ib0", f);
		fclose(f);
	}

	log_init("test_ipoib", 1, LOG_ERR);
	ev_init();
	assert_int_equal(store_init(dbpath), 0);
	sweep_ca();
	node = store_node_by_guid(GUID)->idx;
	assert_int_equal(ipoib_init(net, arp, 60), 0);
	ipoib_refresh();

	uint8_t a[IPOIB_ADDR_LEN];
	assert_int_equal(ipoib_port_addrs(node, 1, &e), 3);
	/* First refresh: indexes in address order. */
	ipoib_parse_addr(A1N, a);
	assert_memory_equal(e[0].addr, a, IPOIB_ADDR_LEN);
	assert_int_equal(e[0].idx, 1);
	ipoib_parse_addr(A1, a);
	assert_memory_equal(e[1].addr, a, IPOIB_ADDR_LEN);
	assert_int_equal(e[1].idx, 2);
	ipoib_parse_addr(A1B, a);
	assert_memory_equal(e[2].addr, a, IPOIB_ADDR_LEN);
	assert_int_equal(e[2].idx, 3);
	/* Port 2: only the sysfs address; the incomplete entry, the
	 * Ethernet one and the long line's tail are not rows. */
	assert_int_equal(ipoib_port_addrs(node, 2, &e), 1);
	ipoib_parse_addr(A2, a);
	assert_memory_equal(e[0].addr, a, IPOIB_ADDR_LEN);

	/* A1 goes: the others keep their index; a new one takes 2. */
	put(arp, "IP address HW type Flags HW address Mask Device\n"
	    "10.0.0.1 0x20 0x2 " A1B " * ib0\n"
	    "10.0.0.9 0x20 0x2 " A1N " * ib0\n");
	ipoib_refresh();
	assert_int_equal(ipoib_port_addrs(node, 1, &e), 2);
	assert_int_equal(e[0].idx, 1);
	assert_int_equal(e[1].idx, 3);
	put(arp, "IP address HW type Flags HW address Mask Device\n"
	    "10.0.0.1 0x20 0x2 " A1B " * ib0\n"
	    "10.0.0.2 0x20 0x2 " A1 " * ib0\n"
	    "10.0.0.9 0x20 0x2 " A1N " * ib0\n");
	ipoib_refresh();
	assert_int_equal(ipoib_port_addrs(node, 1, &e), 3);
	assert_int_equal(e[1].idx, 2);
	ipoib_parse_addr(A1, a);
	assert_memory_equal(e[1].addr, a, IPOIB_ADDR_LEN);
	assert_int_equal(ipoib_port_addrs(node, 3, &e), 0);
	assert_null(e);
	assert_int_equal(ipoib_port_addrs(node + 1, 1, &e), 0);

	/* A source that goes away: its rows go, nothing breaks. */
	unlink(arp);
	ipoib_refresh();
	assert_int_equal(ipoib_port_addrs(node, 1, &e), 0);
	assert_int_equal(ipoib_port_addrs(node, 2, &e), 1);

	/* refresh 0 switches it off. */
	assert_int_equal(ipoib_configure(net, arp, 0), 0);
	assert_int_equal(ipoib_port_addrs(node, 2, &e), 0);

	ipoib_finalise();
	store_finalise();
	ev_finalise();
	snprintf(p, sizeof(p), "rm -rf %s", dir);
	assert_int_equal(system(p), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
