/* gw_sm helpers (gateway/mib/ib_sm_mib.c): the subnet prefix a fabric
 * row's index starts with, as the inventory changes, and GUIDs as 8
 * octet subids. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gateway/mib/ib_sm_mib.h"
#include "store/store.h"
#include "tests/unit/unit_db.h"

static char dbpath[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(dbpath, sizeof(dbpath), "/tmp/test_ib_sm_mib.%d.db",
	    (int)getpid());
	unlink(dbpath);
	return store_init(dbpath) == 0 ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	store_finalise();
	unit_db_remove(dbpath);
	return 0;
}

/* One CA with a PortInfo on port 1: M_Key mkey, GIDPrefix prefix
 * (octets 0-7 and 8-15 of PortInfo, IBA 14.2.5.6 Table 155). */
static void
sweep_ca(uint64_t mkey, uint64_t prefix, int with_pinfo)
{
	struct store_node n;
	struct store_port p[2];
	unsigned nodes, lost;

	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = 0x0002c903000a1b2cULL;
	n.type = STORE_NODE_CA;
	n.num_ports = 1;
	snprintf(n.desc, sizeof(n.desc), "cn0001 HCA-1");
	for (int i = 0; i <= 1; i++) {
		p[i].num = (uint8_t)i;
		p[i].route.hop[0] = 0xff;
	}
	p[1].route.hop[0] = 0;
	p[1].pinfo_ok = (uint8_t)with_pinfo;
	for (int k = 0; k < 8; k++) {
		p[1].pinfo[k] = (uint8_t)(mkey >> (56 - 8 * k));
		p[1].pinfo[8 + k] = (uint8_t)(prefix >> (56 - 8 * k));
	}
	store_sweep_begin();
	store_sweep_node(&n, p);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
}

/* The prefix is GIDPrefix, not the M_Key before it. */
static void
test_prefix_from_portinfo(void **state)
{
	(void)state;
	sweep_ca(0x1122334455667788ULL, 0xfec0000000000042ULL, 1);
	assert_true(gw_sm_prefix() == 0xfec0000000000042ULL);
}

/* No PortInfo read yet: the default fe80::/64 (IBA 4.1.1). */
static void
test_prefix_default(void **state)
{
	(void)state;
	assert_true(gw_sm_prefix() == 0xfe80000000000000ULL);
	sweep_ca(0x1122334455667788ULL, 0xfec0000000000042ULL, 0);
	assert_true(gw_sm_prefix() == 0xfe80000000000000ULL);
}

/* The prefix is remembered between walk steps, and read again once the
 * inventory changes: a port read between sweeps, then a sweep. */
static void
test_prefix_follows_changes(void **state)
{
	struct store_node *n;
	struct store_port pt;

	(void)state;
	sweep_ca(0, 0xfec0000000000042ULL, 1);
	assert_true(gw_sm_prefix() == 0xfec0000000000042ULL);
	assert_true(gw_sm_prefix() == 0xfec0000000000042ULL);
	n = store_node_by_guid(0x0002c903000a1b2cULL);
	assert_non_null(n);
	pt = n->ports[1];
	pt.pinfo[15] = 0x43;
	store_node_port_set(n, 1, &pt);
	assert_true(gw_sm_prefix() == 0xfec0000000000043ULL);
	sweep_ca(0, 0xfec0000000000044ULL, 1);
	assert_true(gw_sm_prefix() == 0xfec0000000000044ULL);
	sweep_ca(0, 0xfec0000000000044ULL, 0);
	assert_true(gw_sm_prefix() == 0xfe80000000000000ULL);
}

/* A GUID as 8 octet subids and back; a subid over 255 is no octet. */
static void
test_guid_subids(void **state)
{
	uint32_t sub[8], other[8];
	uint64_t x = 1;

	(void)state;
	gw_sm_put64(sub, 0x0002c903000a1b2cULL);
	assert_int_equal(sub[0], 0x00);
	assert_int_equal(sub[2], 0xc9);
	assert_int_equal(sub[7], 0x2c);
	assert_int_equal(gw_sm_get64(sub, &x), 0);
	assert_true(x == 0x0002c903000a1b2cULL);
	gw_sm_put64(other, 0x0002c903000a1b2dULL);
	assert_int_equal(gw_sm_cmp(sub, other, 8), -1);
	assert_int_equal(gw_sm_cmp(other, sub, 8), 1);
	assert_int_equal(gw_sm_cmp(sub, sub, 8), 0);
	sub[3] = 256;
	assert_int_equal(gw_sm_get64(sub, &x), -1);
	assert_true(x == 0);
	gw_sm_put64(sub, UINT64_MAX);
	for (int k = 0; k < 8; k++)
		assert_int_equal(sub[k], 0xff);
	assert_int_equal(gw_sm_get64(sub, &x), 0);
	assert_true(x == UINT64_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_prefix_from_portinfo,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_prefix_default, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_prefix_follows_changes,
		    setup, teardown),
		cmocka_unit_test(test_guid_subids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
