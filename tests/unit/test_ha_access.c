/* ha_access_digest (gateway/ha_access.c): the SNMP access both gateways
 * of a pair must share. The same access written in another order digests
 * alike; any change a manager would notice after a failover (a
 * passphrase, the nodes a user or community sees, a community's source
 * networks, fabric queries) digests differently; a host's own listen
 * addresses do not count. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gateway/conf.h"
#include "gateway/ha_int.h"
#include "util/log.h"

static char path[64];

/* The base: two users, two communities, selectors and sources. */
#define U_MON	"    - {name: mon, auth-protocol: SHA-256, " \
		"auth-passphrase: aaaaaaaa, priv-protocol: AES, " \
		"priv-passphrase: bbbbbbbb, nodes: {type: switch}}\n"
#define U_OPS	"    - {name: ops, auth-protocol: SHA, " \
		"auth-passphrase: cccccccc, fabric-queries: true}\n"
#define C_PUB	"    - {name: public, sources: [\"192.0.2.0/24\", " \
		"\"2001:db8::/32\"]}\n"
#define C_LEAF	"    - {name: leafs, nodes: {name: \"leaf*\", guids: " \
		"[\"0x0002c90000000002\", \"0x0002c90000000001\"]}}\n"

static void
digest(const char *listen, const char *users, const char *comms,
    uint8_t out[32])
{
	FILE *f = fopen(path, "w");
	char text[2048];
	struct gw_conf *c;

	assert_non_null(f);
	snprintf(text, sizeof(text), "snmp:\n  listen: [\"%s\"]\n"
	    "  users:\n%s  communities:\n%s", listen, users, comms);
	fputs(text, f);
	fclose(f);
	c = gw_conf_load(path, stderr);
	assert_non_null(c);
	assert_int_equal(ha_access_digest(c, out), 0);
	gw_conf_free(c);
}

static uint8_t base[32];

static int
setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/ibsnmpgw-haacc-%d.yaml",
	    getpid());
	log_init("test_ha_access", 1, LOG_CRIT);
	digest("udp:127.0.0.1:1161", U_MON U_OPS, C_PUB C_LEAF, base);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void
test_order_and_listen(void **state)
{
	uint8_t d[32];

	(void)state;
	/* Users and communities swapped, sources and GUIDs reordered. */
	digest("udp:127.0.0.1:1161", U_OPS U_MON,
	    "    - {name: leafs, nodes: {name: \"leaf*\", guids: "
	    "[\"0x0002c90000000001\", \"0x0002c90000000002\"]}}\n"
	    "    - {name: public, sources: [\"2001:db8::/32\", "
	    "\"192.0.2.0/24\"]}\n", d);
	assert_memory_equal(d, base, 32);
	/* Each host listens on its own address. */
	digest("udp:10.0.0.11:161", U_MON U_OPS, C_PUB C_LEAF, d);
	assert_memory_equal(d, base, 32);
}

static void
test_changes(void **state)
{
	static const struct {
		const char *what, *users, *comms;
	} v[] = {
		{ "a passphrase", U_OPS "    - {name: mon, auth-protocol: "
		    "SHA-256, auth-passphrase: aaaaaaaX, priv-protocol: AES, "
		    "priv-passphrase: bbbbbbbb, nodes: {type: switch}}\n",
		    C_PUB C_LEAF },
		{ "a user's nodes", U_OPS "    - {name: mon, auth-protocol: "
		    "SHA-256, auth-passphrase: aaaaaaaa, priv-protocol: AES, "
		    "priv-passphrase: bbbbbbbb, nodes: {type: ca}}\n",
		    C_PUB C_LEAF },
		{ "a user's fabric queries", U_MON "    - {name: ops, "
		    "auth-protocol: SHA, auth-passphrase: cccccccc}\n",
		    C_PUB C_LEAF },
		{ "a source network more", U_MON U_OPS,
		    "    - {name: public, sources: [\"192.0.2.0/24\", "
		    "\"2001:db8::/32\", \"10.0.0.0/8\"]}\n" C_LEAF },
		{ "a prefix length", U_MON U_OPS,
		    "    - {name: public, sources: [\"192.0.2.0/25\", "
		    "\"2001:db8::/32\"]}\n" C_LEAF },
		{ "a community's glob", U_MON U_OPS, C_PUB
		    "    - {name: leafs, nodes: {name: \"spine*\", guids: "
		    "[\"0x0002c90000000002\", \"0x0002c90000000001\"]}}\n" },
		{ "a GUID fewer", U_MON U_OPS, C_PUB
		    "    - {name: leafs, nodes: {name: \"leaf*\", guids: "
		    "[\"0x0002c90000000002\"]}}\n" },
		{ "a regex for a glob", U_MON U_OPS, C_PUB
		    "    - {name: leafs, nodes: {regex: \"leaf*\", guids: "
		    "[\"0x0002c90000000002\", \"0x0002c90000000001\"]}}\n" },
		{ "a community fewer", U_MON U_OPS, C_PUB },
	};
	uint8_t d[32];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		digest("udp:127.0.0.1:1161", v[i].users, v[i].comms, d);
		if (memcmp(d, base, 32) == 0)
			fail_msg("%s: the digest did not change", v[i].what);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_listen),
		cmocka_unit_test(test_changes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
