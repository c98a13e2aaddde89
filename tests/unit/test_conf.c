/* gw_conf: YAML validation, every error reported as file:line: the
 * whole file, SNMP listeners, communities and users, and paths (the
 * fixture: conf_fixture.h; the sections' own checks: test_conf_sections). */
#include "tests/unit/conf_fixture.h"

static void
test_good(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(good, err, sizeof(err));

	assert_non_null(c);
	assert_string_equal(err, "");
	assert_int_equal(c->nlisten, 2);
	assert_string_equal(c->listen[1].spec, "udp6:[::1]:1161");
	assert_string_equal(c->listen[1].norm, "udp6:[::1]:1161");
	assert_int_equal(c->ncommunities, 1);
	assert_int_equal(c->nusers, 1);
	assert_int_equal(c->users[0].auth, GW_AUTH_SHA256);
	assert_int_equal(c->users[0].priv, GW_PRIV_AES);
	assert_string_equal(c->ib_ca, "mlx5_0");
	assert_int_equal(c->ib_port, 1);
	assert_int_equal(c->sweep_interval, 120);
	assert_int_equal(c->mad_timeout_ms, 150);
	assert_int_equal(c->mad_max_inflight_node, 2);
	assert_int_equal(c->ttl[ATTR_TTL_PORTINFO], 10);
	assert_string_equal(c->state_dir, "/tmp/x");
	gw_conf_free(c);
}

static void
test_errors(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(
	    "snmp:\n"					/* 1 */
	    "  listen: [\"udp:127.0.0.1:161\",\n"	/* 2 */
	    "           \"udp:127.0.0.1:161\"]\n"	/* 3 */
	    "  communities:\n"				/* 4 */
	    "    - name: public\n"			/* 5 */
	    "  colour: blue\n"				/* 6 */
	    "mad:\n"					/* 7 */
	    "  timeout-ms: soon\n"			/* 8 */
	    "  retries: 99\n"				/* 9 */
	    "ib:\n"					/* 10 */
	    "  port: [1]\n",				/* 11 */
	    err, sizeof(err));
	char want[256];

	assert_null(c);
	snprintf(want, sizeof(want), "%s:3: duplicate listener", path);
	assert_non_null(strstr(err, want));
	snprintf(want, sizeof(want), "%s:6: unknown key 'colour' in 'snmp'",
	    path);
	assert_non_null(strstr(err, want));
	snprintf(want, sizeof(want), "%s:8: 'timeout-ms' must be an integer",
	    path);
	assert_non_null(strstr(err, want));
	snprintf(want, sizeof(want), "%s:9: 'retries' is 99, out of range",
	    path);
	assert_non_null(strstr(err, want));
	snprintf(want, sizeof(want), "%s:11: 'port' must be a scalar", path);
	assert_non_null(strstr(err, want));
	assert_int_equal(count_lines(err), 5);
}

/* snmp.fabric-context: default, a name of one's own, and names no
 * community suffix or v3 context could carry. */
static void
test_fabric_context(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: a}]\n", err, sizeof(err));

	assert_non_null(c);
	assert_string_equal(c->fabric_context, "fabric");
	gw_conf_free(c);
	c = load("snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: a}]\n"
	    "  fabric-context: ib-all\n", err, sizeof(err));
	assert_non_null(c);
	assert_string_equal(c->fabric_context, "ib-all");
	gw_conf_free(c);
	static const char *bad[] = { "\"\"", "\"a b\"", "x@y",
	    "abcdefghijklmnopqrstuvwxyz0123456789" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[256];

		snprintf(text, sizeof(text), "snmp:\n"
		    "  listen: [\"udp:127.0.0.1:1161\"]\n"
		    "  communities: [{name: a}]\n"
		    "  fabric-context: %s\n", bad[i]);
		memset(err, 0, sizeof(err));
		c = load(text, err, sizeof(err));
		assert_null(c);
		assert_non_null(strstr(err, ":4: "));
		assert_non_null(strstr(err, "fabric-context"));
	}
}

/* snmp.engine-id: unset by default; an RFC 3411 SnmpEngineID, and the
 * forms that RFC rules out refused with the line and the reason. */
static void
test_engine_id(void **state)
{
	static const uint8_t want[] = { 0x80, 0x00, 0x1f, 0x88, 0x04, 'g',
	    'w', '1' };
	static const char *ok[] = { "0x80001f880467773100",
	    "0x8000000001c0000201", "0x000000000000000000000001",
	    "0x80001f8880c670b11cf4a5076b00000000" };
	static const struct { const char *id, *why; } bad[] = {
		{ "80001f880467", "must be 0x" },
		{ "0x80001f88", "must be 0x" },			/* 4 octets */
		{ "0x80001f880", "must be 0x" },		/* odd */
		{ "0x80001f8804zz", "must be 0x" },
		{ "0x80001f880400000000000000000000000000000000000000000000000000"
		    "000000", "must be 0x" },			/* 33 */
		{ "0x0000000000", "all zeros" },
		{ "0xffffffffff", "all zeros or all ff" },
		{ "0x0000000001", "first bit of 0" },
		{ "0x80001f880067", "reserved format" },
		{ "0x80001f884067", "reserved format" },
		{ "0x80001f8801c00002", "length its format" },	/* IPv4: 9 */
	};
	char err[4096] = "", text[512];
	uint8_t id[GW_ENGINE_ID_MAX];
	size_t len;
	struct gw_conf *c = load(good, err, sizeof(err));

	assert_non_null(c);
	assert_int_equal(c->engine_id_len, 0);
	gw_conf_free(c);
	c = load("snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: a}]\n"
	    "  engine-id: 0x80001F880467773 1\n", err, sizeof(err));
	assert_null(c);
	c = load("snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: a}]\n"
	    "  engine-id: 0x80001F8804677731\n", err, sizeof(err));
	assert_non_null(c);
	assert_int_equal(c->engine_id_len, sizeof(want));
	assert_memory_equal(c->engine_id, want, sizeof(want));
	gw_conf_free(c);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_null(gw_conf_engine_id(ok[i], id, &len));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = gw_conf_engine_id(bad[i].id, id, &len);

		assert_non_null(why);
		assert_non_null(strstr(why, bad[i].why));
		snprintf(text, sizeof(text), "snmp:\n"
		    "  listen: [\"udp:127.0.0.1:1161\"]\n"
		    "  communities: [{name: a}]\n"
		    "  engine-id: \"%s\"\n", bad[i].id);
		memset(err, 0, sizeof(err));
		assert_null(load(text, err, sizeof(err)));
		assert_non_null(strstr(err, ":4: "));
		assert_non_null(strstr(err, bad[i].why));
	}
}

/* snmp.fabric-name: unset by default (the MIB derives one from the
 * subnet prefix), a string of one's own, a non-string refused. */
static void
test_fabric_name(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: a}]\n", err, sizeof(err));

	assert_non_null(c);
	assert_null(c->fabric_name);
	gw_conf_free(c);
	c = load("snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: a}]\n"
	    "  fabric-name: \"cluster A\"\n", err, sizeof(err));
	assert_non_null(c);
	assert_string_equal(c->fabric_name, "cluster A");
	gw_conf_free(c);
	memset(err, 0, sizeof(err));
	c = load("snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: a}]\n"
	    "  fabric-name: [a, b]\n", err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, ":4: "));
}

/* The grant to create IB-SM-MIB path and trace rows is off unless a
 * community or user says true; the rows' age and cap have bounds. */
static void
test_fabric_queries(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: a}, {name: b, fabric-queries: true}]\n"
	    "  users:\n"
	    "    - {name: u, auth-protocol: SHA, auth-passphrase: abcdefgh,\n"
	    "       fabric-queries: true}\n"
	    "  fabric-query-age: 30\n"
	    "  fabric-query-max: 2\n", err, sizeof(err));

	assert_non_null(c);
	assert_string_equal(err, "");
	assert_int_equal(c->communities[0].fabric_queries, 0);
	assert_int_equal(c->communities[1].fabric_queries, 1);
	assert_int_equal(c->users[0].fabric_queries, 1);
	assert_int_equal(c->fabric_query_age, 30);
	assert_int_equal(c->fabric_query_max, 2);
	gw_conf_free(c);
	c = load("snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: a, fabric-queries: yes}]\n"
	    "  fabric-query-age: 1\n"
	    "  fabric-query-max: 0\n", err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, ":3: 'fabric-queries' must be true or "
	    "false"));
	assert_non_null(strstr(err, ":4: 'fabric-query-age' is 1, out of "
	    "range"));
	assert_non_null(strstr(err, ":5: 'fabric-query-max' is 0, out of "
	    "range"));
}

static void
test_listeners(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:01161\", \"udp6:[0:0::1]:1161\"]\n"
	    "  communities: [{name: a}]\n", err, sizeof(err));

	assert_non_null(c);
	assert_string_equal(c->listen[0].norm, "udp:127.0.0.1:1161");
	assert_string_equal(c->listen[1].norm, "udp6:[::1]:1161");
	gw_conf_free(c);

	c = load("snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1\", \"udp:127.0.0.1:2\",\n"
	    "           \"udp:127.0.0.1:3\", \"udp:127.0.0.1:4\",\n"
	    "           \"udp:127.0.0.1:5\", \"udp:127.0.0.1:6\",\n"
	    "           \"udp:127.0.0.1:7\", \"udp:127.0.0.1:8\",\n"
	    "           \"udp:127.0.0.1:9\"]\n"
	    "  communities: [{name: a}]\n", err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, ":6: more than 8 listeners"));
}

/* Whether a community's sources take the address s. */
static int
source_ok(const struct gw_community *cm, const char *s)
{
	struct sockaddr_in in4 = { .sin_family = AF_INET };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };

	if (inet_pton(AF_INET, s, &in4.sin_addr) == 1)
		return gw_cidr_match(cm->sources, cm->nsources,
		    (struct sockaddr *)&in4);
	assert_int_equal(inet_pton(AF_INET6, s, &in6.sin6_addr), 1);
	return gw_cidr_match(cm->sources, cm->nsources,
	    (struct sockaddr *)&in6);
}

static void
test_sources(void **state)
{
	char err[4096] = "";
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities:\n"
	    "    - name: a\n"
	    "      sources: [\"192.0.2.0/23\", \"2001:db8::/33\", 10.1.2.3]\n"
	    "    - name: b\n"
	    "    - name: c\n"
	    "      sources: [\"0.0.0.0/0\"]\n", err, sizeof(err));
	static const struct {
		int		 cm;	/* a, b or c above */
		const char	*addr;
		int		 ok;
	} cases[] = {
		/* A prefix that ends inside an octet. */
		{ 0, "192.0.2.0", 1 }, { 0, "192.0.3.255", 1 },
		{ 0, "192.0.4.0", 0 }, { 0, "192.0.1.255", 0 },
		/* An address alone is a /32. */
		{ 0, "10.1.2.3", 1 }, { 0, "10.1.2.4", 0 },
		{ 0, "2001:db8:7fff::1", 1 }, { 0, "2001:db8:8000::1", 0 },
		/* An IPv4 client on a dual-stack socket is an IPv4 one. */
		{ 0, "::ffff:192.0.2.9", 1 }, { 0, "::ffff:10.1.2.4", 0 },
		/* No sources: any. */
		{ 1, "198.51.100.1", 1 }, { 1, "2001:db8::1", 1 },
		/* /0 takes every address of its family only. */
		{ 2, "198.51.100.1", 1 }, { 2, "2001:db8::1", 0 },
	};
	const struct gw_community *a;

	assert_non_null(c);
	assert_int_equal(c->communities[0].nsources, 3);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (source_ok(&c->communities[cases[i].cm], cases[i].addr) !=
		    cases[i].ok)
			fail_msg("community %d, %s: not %d", cases[i].cm,
			    cases[i].addr, cases[i].ok);
	a = &c->communities[0];
	assert_false(gw_cidr_match(a->sources, a->nsources, NULL));
	assert_false(gw_cidr_match(a->sources, a->nsources,
	    (struct sockaddr *)&un));
	/* No sources: even no address. */
	assert_true(gw_cidr_match(c->communities[1].sources, 0, NULL));
	gw_conf_free(c);

	c = load("snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities:\n"
	    "    - name: a\n"
	    "      sources: [\"192.0.2.0/33\", \"::/129\", 300.1.1.1,\n"
	    "                \"10.0.0.0/\", x, [1], \"10.0.0.0/-1\"]\n",
	    err, sizeof(err));
	assert_null(c);
	assert_int_equal(count_lines(err), 7);
	assert_non_null(strstr(err, ":5: not an address or prefix: "
	    "'192.0.2.0/33' (e.g. 192.0.2.0/24, 2001:db8::/32)"));
	assert_non_null(strstr(err, ":6: not an address or prefix: ''"));
}

static void
test_bad_values(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"tcp:1.2.3.4:161\", \"udp:300.1.1.1:161\",\n"
	    "           \"udp:127.0.0.1:0\", \"udp6:::1:161\"]\n"
	    "  communities:\n"
	    "    - name: \"pub@lic\"\n"
	    "  users:\n"
	    "    - name: u\n"
	    "      auth-protocol: SHA-999\n"
	    "      auth-passphrase: short\n"
	    "bogus: 1\n", err, sizeof(err));

	assert_null(c);
	assert_non_null(strstr(err, "must start with udp: or udp6:"));
	assert_non_null(strstr(err, "not a numeric address"));
	assert_non_null(strstr(err, "port must be 1..65535"));
	assert_non_null(strstr(err, "udp6:[ADDRESS]:PORT"));
	assert_non_null(strstr(err, "without spaces or '@'"));
	assert_non_null(strstr(err, "unknown auth-protocol 'SHA-999'"));
	assert_non_null(strstr(err, "at least 8 characters"));
	assert_non_null(strstr(err, "unknown section 'bogus'"));
	/* Every line starts with the file name. */
	for (char *l = err; *l; l = strchr(l, '\n') + 1)
		assert_int_equal(strncmp(l, path, strlen(path)), 0);
}

static void
test_syntax_error(void **state)
{
	char err[1024] = "";
	struct gw_conf *c = load("snmp:\n  listen: [\n  - x\n", err,
	    sizeof(err));
	char want[128];

	assert_null(c);
	snprintf(want, sizeof(want), "%s:", path);
	assert_int_equal(strncmp(err, want, strlen(want)), 0);
	assert_int_equal(count_lines(err), 1);
}

static void
test_empty_and_missing(void **state)
{
	char err[1024] = "";

	assert_null(load("", err, sizeof(err)));
	assert_non_null(strstr(err, ":1: empty configuration"));
	err[0] = '\0';
	assert_null(load("snmp:\n  listen: [\"udp:127.0.0.1:161\"]\n", err,
	    sizeof(err)));
	assert_non_null(strstr(err, "no snmp.communities or snmp.users"));
	err[0] = '\0';
	{
		FILE *e = fmemopen(err, sizeof(err), "w");
		assert_null(gw_conf_load("/nonexistent/ibsnmpgw.yaml", e));
		fclose(e);
	}
	assert_non_null(strstr(err, "/nonexistent/ibsnmpgw.yaml:0: cannot "
	    "open"));
}

/* Found by tests/fuzz: "path:" with nothing after it. Every file and
 * directory name must be non-empty; the state directory derived from the
 * store path is right for a bare name, the root and a nested path. */
static void
test_paths(void **state)
{
	static const char *head =
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:161\"]\n"
	    "  communities: [{name: a}]\n";
	static const struct {
		const char *yaml, *err, *state_dir;
	} t[] = {
		{ "store:\n  path: # nothing\n", ":5: 'path' must not be empty",
		    NULL },
		{ "store:\n  path: \"\"\n", ":5: 'path' must not be empty",
		    NULL },
		{ "store:\n  state-dir: \"\"\n",
		    ":5: 'state-dir' must not be empty", NULL },
		{ "ib:\n  node-name-map: \"\"\n",
		    ":5: 'node-name-map' must not be empty", NULL },
		{ "ib:\n  sa-key-file: \"\"\n",
		    ":5: 'sa-key-file' must not be empty", NULL },
		{ "ipoib:\n  arp-file: \"\"\n",
		    ":5: 'arp-file' must not be empty", NULL },
		{ "store:\n  path: inv.db\n", NULL, "." },
		{ "store:\n  path: /inv.db\n", NULL, "/" },
		{ "store:\n  path: /a/b/inv.db\n", NULL, "/a/b" },
	};
	char text[512], err[1024];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct gw_conf *c;

		snprintf(text, sizeof(text), "%s%s", head, t[i].yaml);
		err[0] = '\0';
		c = load(text, err, sizeof(err));
		if (t[i].err != NULL) {
			assert_null(c);
			assert_non_null(strstr(err, t[i].err));
		} else {
			assert_non_null(c);
			assert_string_equal(c->state_dir, t[i].state_dir);
			gw_conf_free(c);
		}
	}
}

static void
test_empty_section(void **state)
{
	char err[1024] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:161\"]\n"
	    "  communities: [{name: a}]\n"
	    "ib:\n"
	    "  # ca: mlx5_0\n"
	    "cache: ~\n", err, sizeof(err));

	assert_non_null(c);
	assert_string_equal(err, "");
	assert_null(c->ib_ca);
	assert_int_equal(c->ib_port, 0);
	gw_conf_free(c);
}

static void
test_duplicate_keys(void **state)
{
	char err[1024] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:161\"]\n"
	    "  communities: [{name: a}, {name: a}]\n"
	    "mad:\n"
	    "  retries: 1\n"
	    "  retries: 2\n", err, sizeof(err));

	assert_null(c);
	assert_non_null(strstr(err, "duplicate community 'a'"));
	assert_non_null(strstr(err, ":6: duplicate key 'retries'"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_listeners),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_fabric_context),
		cmocka_unit_test(test_fabric_name),
		cmocka_unit_test(test_engine_id),
		cmocka_unit_test(test_fabric_queries),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_empty_and_missing),
		cmocka_unit_test(test_empty_section),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_duplicate_keys),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
