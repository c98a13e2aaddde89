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

#include "gateway/mib_int.h"
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

/* One sweep that sees the CAs of guids[0..n), each with port 1. */
static void
sweep_cas(const uint64_t *guids, size_t n)
{
	unsigned nodes, lost;

	store_sweep_begin();
	for (size_t i = 0; i < n; i++) {
		struct store_node nd;
		struct store_port p[2];

		memset(&nd, 0, sizeof(nd));
		memset(p, 0, sizeof(p));
		nd.guid = guids[i];
		nd.type = STORE_NODE_CA;
		nd.num_ports = 1;
		snprintf(nd.desc, sizeof(nd.desc), "cn%04zu HCA-1", i);
		p[0].route.hop[0] = 0xff;
		p[1].num = 1;
		p[1].route.hop[0] = 0;
		p[1].route.hop[1] = (uint8_t)(i + 1);
		p[1].pinfo_ok = 1;
		p[1].pinfo[8] = 0xfe;
		p[1].pinfo[9] = 0x80;
		store_sweep_node(&nd, p);
	}
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
}

/* A row per node, as ibSmNodeInfoTable's: the bound's own row only
 * when inclusive. */
static int
one_row(struct gw_eval *e, const struct store_node *n, const uint32_t *tail,
    int incl, struct gw_row *out)
{
	(void)e;
	(void)n;
	(void)out;
	return tail == NULL || incl;
}

/* The GUID of the row after lb (0: none). */
static uint64_t
row_after(struct gw_eval *e, const struct gw_row *lb, int incl)
{
	struct gw_row out;
	uint64_t g;

	if (gw_sm_node_rows(e, lb, incl, &out, one_row) != 1)
		return 0;
	assert_int_equal(gw_sm_get64(out.i + 8, &g), 0);
	assert_true(gw_sm_row_node(&out, 8)->guid == g);
	return g;
}

static struct gw_row
row_of(uint64_t guid)
{
	struct gw_row r;

	memset(&r, 0, sizeof(r));
	gw_sm_put64(r.i, 0xfe80000000000000ULL);
	gw_sm_put64(r.i + 8, guid);
	return r;
}

/* A walk's next step starts from the row given last; a node found
 * between two steps (the GUID-sorted view rebuilt, positions moved)
 * and a bound that is not the last row both take the search. */
static void
test_walk_steps(void **state)
{
	static const uint64_t three[] = { 0x20, 0x30, 0x40 };
	static const uint64_t four[] = { 0x20, 0x30, 0x40, 0x10 };
	struct gw_eval e;
	struct gw_row lb;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.sel_ok = 1;		/* a requester that sees every node */
	sweep_cas(three, 3);
	memset(&lb, 0, sizeof(lb));
	assert_true(row_after(&e, &lb, 1) == 0x20);
	lb = row_of(0x20);
	assert_true(row_after(&e, &lb, 0) == 0x30);	/* from the last */
	lb = row_of(0x30);
	assert_true(row_after(&e, &lb, 1) == 0x30);	/* inclusive */
	assert_true(row_after(&e, &lb, 0) == 0x40);
	lb = row_of(0x20);
	assert_true(row_after(&e, &lb, 0) == 0x30);	/* not the last */
	sweep_cas(four, 4);	/* 0x10 sorts first: every position moves */
	lb = row_of(0x30);
	assert_true(row_after(&e, &lb, 0) == 0x40);
	lb = row_of(0x40);
	assert_true(row_after(&e, &lb, 0) == 0);
	memset(&lb, 0, sizeof(lb));
	assert_true(row_after(&e, &lb, 1) == 0x10);
	/* The last sweep missed 0x30: unreachable, out of the walk. */
	sweep_cas((const uint64_t[]){ 0x10, 0x20, 0x40 }, 3);
	lb = row_of(0x20);
	assert_true(row_after(&e, &lb, 0) == 0x40);
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
		cmocka_unit_test_setup_teardown(test_walk_steps, setup,
		    teardown),
		cmocka_unit_test(test_guid_subids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
