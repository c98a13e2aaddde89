/* gateway/conf_subnet.c: ib.ports, its errors as file:line, and what a
 * further subnet's process derives from the file. */
#include "tests/unit/conf_fixture.h"

#define HEAD \
    "snmp:\n" \
    "  listen: [\"udp:127.0.0.1:1161\"]\n" \
    "  communities:\n" \
    "    - name: public\n" \
    "store:\n" \
    "  path: /tmp/x/inventory.db\n"

/* A pair's gateways share one engine. */
#define HEAD_EID \
    "snmp:\n" \
    "  engine-id: 0x80001f8880aabbccdd\n" \
    "  listen: [\"udp:127.0.0.1:1161\"]\n" \
    "  communities:\n" \
    "    - name: public\n" \
    "store:\n" \
    "  path: /tmp/x/inventory.db\n"

static void
want_err(const char *err, int line, const char *what)
{
	char want[256];

	snprintf(want, sizeof(want), "%s:%d: %s", path, line, what);
	if (strstr(err, want) == NULL)
		fail_msg("no \"%s\" in:\n%s", want, err);
}

/* Two ports: the first is this process's ib.ca / ib.port. */
static void
test_two(void **state)
{
	char err[2048] = "";
	struct gw_conf *c = load(HEAD
	    "ib:\n"
	    "  ports:\n"
	    "    - { ca: mlx5_0, port: 1, subnet: compute }\n"
	    "    - { ca: mlx5_0, port: 2, subnet: storage }\n",
	    err, sizeof(err));

	(void)state;
	assert_non_null(c);
	assert_string_equal(err, "");
	assert_int_equal(c->nsubnets, 2);
	assert_string_equal(c->ib_ca, "mlx5_0");
	assert_int_equal(c->ib_port, 1);
	assert_string_equal(c->subnets[1].name, "storage");
	assert_int_equal(c->subnets[1].port, 2);
	assert_null(c->subnet_child);
	gw_conf_free(c);
}

/* One file, several mistakes, each at its line. */
static void
test_errors(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(HEAD			/* 1-6 */
	    "ib:\n"					/* 7 */
	    "  ports:\n"				/* 8 */
	    "    - { port: 1, subnet: a }\n"		/* 9 */
	    "    - { port: 2, subnet: a }\n"		/* 10 */
	    "    - { port: 1, subnet: b }\n"		/* 11 */
	    "    - { port: 3, subnet: Big_One }\n"	/* 12 */
	    "    - { port: 4 }\n"			/* 13 */
	    "    - { subnet: c }\n"			/* 14 */
	    "    - { port: 5, subnet: d, colour: red }\n",	/* 15 */
	    err, sizeof(err));

	(void)state;
	assert_null(c);
	want_err(err, 10, "subnet 'a' is served already (line 9)");
	want_err(err, 11, "the first CA port 1 already serves subnet 'a' "
	    "(line 9)");
	want_err(err, 12, "subnet 'Big_One' must be lower-case letters");
	want_err(err, 13, "a port needs a 'subnet' name");
	want_err(err, 14, "a port needs its 'port' number");
	want_err(err, 15, "unknown key 'colour' in 'ib.ports'");
}

/* ib.ca/ib.port and ib.ports; several subnets and ha:. */
static void
test_conflicts(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(HEAD			/* 1-6 */
	    "ib:\n"					/* 7 */
	    "  ca: mlx5_0\n"				/* 8 */
	    "  ports:\n"				/* 9 */
	    "    - { port: 1, subnet: a }\n",		/* 10 */
	    err, sizeof(err));

	(void)state;
	assert_null(c);
	want_err(err, 10, "ib.ca/ib.port and ib.ports: one or the other");
}

/* A pair on several subnets: subnet i's link is on the ports of
 * ha.listen and ha.peer plus i, which must exist; its process starts
 * a standby whatever ha.role says (the first hands keepalived's word
 * on). */
static void
test_ha(void **state)
{
	char err[4096] = "";
	const char *text = HEAD_EID			/* 1-7 */
	    "ib:\n"					/* 8 */
	    "  ports:\n"				/* 9 */
	    "    - { port: 1, subnet: a }\n"		/* 10 */
	    "    - { port: 2, subnet: b }\n"		/* 11 */
	    "    - { port: 3, subnet: c }\n"		/* 12 */
	    "ha:\n"					/* 13 */
	    "  role: active\n"
	    "  listen: \"127.0.0.1:7000\"\n"
	    "  peer: \"[::1]:7100\"\n"
	    "  key-file: /nonexistent\n";
	struct gw_conf *c = load(text, err, sizeof(err));

	(void)state;
	if (c == NULL)
		fail_msg("refused:\n%s", err);
	assert_int_equal(gw_conf_subnet_child(c, "c", stderr), 0);
	assert_string_equal(c->ha.listen, "127.0.0.1:7002");
	assert_string_equal(c->ha.peer, "[::1]:7102");
	assert_int_equal(c->ha.role, GW_HA_AUTO);
	gw_conf_free(c);

	c = load(HEAD_EID				/* 1-7 */
	    "ib:\n"					/* 8 */
	    "  ports:\n"				/* 9 */
	    "    - { port: 1, subnet: a }\n"		/* 10 */
	    "    - { port: 2, subnet: b }\n"		/* 11 */
	    "ha:\n"					/* 12 */
	    "  listen: \"127.0.0.1:7000\"\n"
	    "  peer: \"127.0.0.2:65535\"\n"
	    "  key-file: /nonexistent\n",
	    err, sizeof(err));
	assert_null(c);
	want_err(err, 12, "ha.listen/ha.peer: with 2 subnets, ports up to "
	    "PORT+1 are used: too high");
}

/* Under ibsim a port is also its sim-host: the same CA and port twice
 * are two ports there. */
static void
test_sim_host(void **state)
{
	char err[2048] = "";
	struct gw_conf *c = load(HEAD
	    "ib:\n"
	    "  ports:\n"
	    "    - { port: 1, subnet: a }\n"
	    "    - { port: 1, subnet: b, sim-host: gw-p2 }\n",
	    err, sizeof(err));

	(void)state;
	assert_non_null(c);
	assert_string_equal(c->subnets[1].sim_host, "gw-p2");
	gw_conf_free(c);
}

/* A further subnet's process: its port, its files beside the first's,
 * no listener of the file's; an unknown subnet is refused. */
static void
test_child(void **state)
{
	char err[2048] = "";
	const char *text = HEAD
	    "  state-dir: /tmp/x/state\n"
	    "ib:\n"
	    "  ports:\n"
	    "    - { ca: mlx5_0, port: 1, subnet: compute }\n"
	    "    - { ca: mlx5_1, port: 1, subnet: storage }\n";
	struct gw_conf *c = load(text, err, sizeof(err));
	FILE *e;
	char *store;

	(void)state;
	assert_non_null(c);
	store = gw_conf_subnet_store(c, 1);
	assert_string_equal(store, "/tmp/x/inventory-storage.db");
	free(store);
	assert_null(gw_conf_subnet_store(c, 0));
	assert_int_equal(gw_conf_subnet_child(c, "storage", stderr), 0);
	assert_non_null(c->subnet_child);
	assert_string_equal(c->ib_ca, "mlx5_1");
	assert_int_equal(c->ib_port, 1);
	assert_string_equal(c->store_path, "/tmp/x/inventory-storage.db");
	assert_string_equal(c->state_dir, "/tmp/x/state/subnet-storage");
	assert_string_equal(c->control_socket,
	    "/tmp/x/state/ibsnmpgw-storage.sock");
	assert_int_equal(c->nlisten, 0);
	gw_conf_free(c);

	c = load(text, err, sizeof(err));
	assert_non_null(c);
	err[0] = '\0';
	e = fmemopen(err, sizeof(err), "w");
	/* The first subnet is the first process's, not a child's. */
	assert_int_equal(gw_conf_subnet_child(c, "compute", e), -1);
	assert_int_equal(gw_conf_subnet_child(c, "nope", e), -1);
	fclose(e);
	assert_non_null(strstr(err, "no further subnet 'nope' in ib.ports"));
	gw_conf_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_conflicts),
		cmocka_unit_test(test_ha),
		cmocka_unit_test(test_sim_host),
		cmocka_unit_test(test_child),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
