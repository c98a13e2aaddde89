/* gw_name and store_node_resolve: community and context parsing,
 * including hostile strings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gateway/name.h"
#include "store/store.h"

static void
test_split_plain(void **state)
{
	struct gw_name n;

	assert_int_equal(gw_name_split("public", 6, &n), 0);
	assert_int_equal(n.comm_len, 6);
	assert_null(n.node);
	assert_int_equal(gw_name_split("public@leaf01", 13, &n), 0);
	assert_int_equal(n.comm_len, 6);
	assert_memory_equal(n.comm, "public", 6);
	assert_int_equal(n.node_len, 6);
	assert_memory_equal(n.node, "leaf01", 6);
}

static void
test_split_hostile(void **state)
{
	struct gw_name n;
	char *big = malloc(65536);

	assert_non_null(big);
	memset(big, 'a', 65536);
	assert_int_equal(gw_name_split("", 0, &n), -1);
	assert_int_equal(gw_name_split(NULL, 5, &n), -1);
	assert_int_equal(gw_name_split(big, 65536, &n), -1);
	big[100] = '@';
	assert_int_equal(gw_name_split(big, 65536, &n), -1);
	free(big);
	assert_int_equal(gw_name_split("pub\0lic@leaf01", 14, &n), -1);
	assert_int_equal(gw_name_split("public@lea\0f01", 14, &n), -1);
	assert_int_equal(gw_name_split("a@b@c", 5, &n), -1);
	assert_int_equal(gw_name_split("@leaf01", 7, &n), -1);
	assert_int_equal(gw_name_split("public@", 7, &n), -1);
	assert_int_equal(gw_name_split("@", 1, &n), -1);
	/* Failure leaves nothing half-filled. */
	assert_null(n.comm);
	assert_null(n.node);
}

static void
test_context(void **state)
{
	assert_int_equal(gw_name_check_context("", 0), 0);
	assert_int_equal(gw_name_check_context("leaf01", 6), 0);
	assert_int_equal(gw_name_check_context("le\0af", 5), -1);
	assert_int_equal(gw_name_check_context("a@b", 3), -1);
}

static void
test_parse_guid(void **state)
{
	uint64_t g;

	assert_int_equal(store_parse_guid("0x0002c903000a1b2c", 18, &g), 0);
	assert_true(g == 0x0002c903000a1b2cULL);
	assert_int_equal(store_parse_guid("0002C903000A1B2C", 16, &g), 0);
	assert_true(g == 0x0002c903000a1b2cULL);
	assert_int_equal(store_parse_guid("0x", 2, &g), -1);
	assert_int_equal(store_parse_guid("0xZZ", 4, &g), -1);
	assert_int_equal(store_parse_guid("0x10002c903000a1b2c", 19, &g), -1);
	assert_int_equal(store_parse_guid("leaf01", 6, &g), -1);
	assert_int_equal(store_parse_guid("12 4", 4, &g), -1);
}

static void
test_parse_lid(void **state)
{
	uint16_t l;

	assert_int_equal(store_parse_lid("lid-1", 5, &l), 0);
	assert_int_equal(l, 1);
	assert_int_equal(store_parse_lid("lid-49151", 9, &l), 0);
	assert_int_equal(l, 49151);
	assert_int_equal(store_parse_lid("lid-0", 5, &l), -1);
	assert_int_equal(store_parse_lid("lid-49152", 9, &l), -1);
	assert_int_equal(store_parse_lid("lid-65535", 9, &l), -1);
	assert_int_equal(store_parse_lid("lid-4294967297", 14, &l), -1);
	assert_int_equal(store_parse_lid("lid-99999999999999999999", 24, &l),
	    -1);
	assert_int_equal(store_parse_lid("lid-012", 7, &l), -1);
	assert_int_equal(store_parse_lid("lid--5", 6, &l), -1);
	assert_int_equal(store_parse_lid("lid-", 4, &l), -1);
	assert_int_equal(store_parse_lid("lid-1x", 6, &l), -1);
}

static struct store_node *
add_node(uint64_t guid, uint8_t type, int nports, uint16_t lid, uint8_t lmc)
{
	struct store_node n;
	struct store_port p[4];

	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = guid;
	n.type = type;
	n.num_ports = nports;
	snprintf(n.desc, sizeof(n.desc), "node %llx", (unsigned long long)guid);
	for (int i = 0; i <= nports; i++) {
		p[i].num = i;
		p[i].route.hop[0] = 0xff;
	}
	/* A switch's LID is on port 0, a CA's on its port. */
	p[type == STORE_NODE_SWITCH ? 0 : 1].valid = 1;
	p[type == STORE_NODE_SWITCH ? 0 : 1].lid = lid;
	p[type == STORE_NODE_SWITCH ? 0 : 1].lmc = lmc;
	return store_sweep_node(&n, p);
}

static int
setup_store(void **state)
{
	char path[] = "/tmp/ibsnmpgw-name-XXXXXX";
	int fd = mkstemp(path);
	unsigned nodes, lost;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "# comment\n0x0002c90300aa0101 \"leaf01\"\n"
	    "0x0002c90300bb0100 \"node01\"\n"
	    "0x0002c90300bb0200 \"bad@name\"\n"
	    "nothex \"x\"\n"
	    "0x0002c90300aa0101 \"cafe\"\n");
	fclose(f);
	assert_int_equal(store_init(":memory:"), 0);
	assert_int_equal(store_load_name_map(path), 3);
	unlink(path);
	store_sweep_begin();
	add_node(0x0002c90300aa0101ULL, STORE_NODE_SWITCH, 3, 3, 0);
	add_node(0x0002c90300bb0100ULL, STORE_NODE_CA, 2, 100, 2);
	add_node(0x000000000000cafeULL, STORE_NODE_CA, 1, 200, 0);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_int_equal(nodes, 3);
	return 0;
}

static int
teardown_store(void **state)
{
	store_finalise();
	return 0;
}

#define RES(s) store_node_resolve(s, sizeof(s) - 1)

static void
test_resolve(void **state)
{
	struct store_node *sw = store_node_by_guid(0x0002c90300aa0101ULL);
	struct store_node *ca = store_node_by_guid(0x0002c90300bb0100ULL);

	assert_non_null(sw);
	assert_non_null(ca);
	assert_ptr_equal(RES("leaf01"), sw);
	assert_ptr_equal(RES("node01"), ca);
	assert_ptr_equal(RES("0x0002c90300aa0101"), sw);
	assert_ptr_equal(RES("0002c90300aa0101"), sw);
	assert_ptr_equal(RES("lid-3"), sw);
	/* LMC 2: LIDs 100..103 all name the CA. */
	assert_ptr_equal(RES("lid-100"), ca);
	assert_ptr_equal(RES("lid-103"), ca);
	assert_null(RES("lid-104"));
	/* An alias wins over the same string read as a GUID. */
	assert_ptr_equal(RES("cafe"), sw);
	assert_ptr_equal(RES("0xcafe"), store_node_by_guid(0xcafe));
	assert_non_null(sw->alias);
	assert_string_equal(sw->alias, "leaf01");
}

static void
test_resolve_hostile(void **state)
{
	char big[65536];

	memset(big, 'a', sizeof(big));
	assert_null(store_node_resolve("", 0));
	assert_null(store_node_resolve(big, sizeof(big)));
	assert_null(RES("leaf\0001"));
	assert_null(RES("leaf01\0"));
	assert_null(RES("leaf01@x"));
	assert_null(RES("bad@name"));
	assert_null(RES("0xZZZZ"));
	assert_null(RES("lid-99999999999999999999"));
	assert_null(RES("lid-70000"));
	assert_null(RES("unknown"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_plain),
		cmocka_unit_test(test_split_hostile),
		cmocka_unit_test(test_context),
		cmocka_unit_test(test_parse_guid),
		cmocka_unit_test(test_parse_lid),
		cmocka_unit_test_setup_teardown(test_resolve, setup_store,
		    teardown_store),
		cmocka_unit_test_setup_teardown(test_resolve_hostile,
		    setup_store, teardown_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
