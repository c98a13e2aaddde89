/* store_descname: names from NodeDescriptions resolve when unique,
 * never silently when shared, follow a changed description, lose to
 * node-name-map aliases and to GUIDs that name a node, and come back
 * after a restart. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <cmocka.h>

#include "store/store.h"
#include "util/log.h"
#include "tests/unit/unit_db.h"

static char dbpath[64], mappath[64];

static int
setup(void **state)
{
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-dn-%d.db", getpid());
	snprintf(mappath, sizeof(mappath), "/tmp/ibsnmpgw-dn-%d.map",
	    getpid());
	unlink(dbpath);
	log_init("test_descname", 1, LOG_ERR);
	return store_init(dbpath);
}

static int
teardown(void **state)
{
	store_finalise();
	unit_db_remove(dbpath);
	unlink(mappath);
	return 0;
}

static void
seen(uint64_t guid, const char *desc)
{
	struct store_node n;
	struct store_port p[2];

	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = guid;
	n.type = STORE_NODE_CA;
	n.num_ports = 1;
	snprintf(n.desc, sizeof(n.desc), "%s", desc);
	p[0].route.hop[0] = p[1].route.hop[0] = 0xff;
	p[1].num = 1;
	store_sweep_node(&n, p);
}

static void
sweep_end(void)
{
	unsigned nodes, lost;

	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
}

static uint64_t
resolve(const char *name)
{
	struct store_node *n = store_node_resolve(name, strlen(name));

	return n ? n->guid : 0;
}

static void
test_unique_and_shared(void **state)
{
	char buf[256];

	store_sweep_begin();
	seen(0x11, "cn0001 mlx5_0");
	seen(0x12, "localhost mlx5_0");
	seen(0x13, "localhost mlx5_0");
	seen(0x14, "Core switch 2 (row B, rack 7)");
	seen(0x15, "leaf01");
	seen(0x16, "leaf01 spare");
	seen(0x17, "cafe01 mlx5_0");
	sweep_end();
	assert_int_equal(resolve("cn0001"), 0x11);
	assert_int_equal(resolve("cn0001 mlx5_0"), 0x11);
	assert_int_equal(resolve("cn0001 mlx5"), 0);	/* exact only */
	assert_int_equal(resolve("CN0001"), 0);
	/* Shared: neither the host name nor the description resolves. */
	assert_int_equal(resolve("localhost"), 0);
	assert_int_equal(resolve("localhost mlx5_0"), 0);
	assert_int_equal(resolve("0x12"), 0x12);
	assert_string_equal(store_descname_names(store_node_by_guid(0x12), buf,
	    sizeof(buf)), "'localhost mlx5_0' (ambiguous), 'localhost' "
	    "(ambiguous)");
	assert_string_equal(store_descname_names(store_node_by_guid(0x11), buf,
	    sizeof(buf)), "'cn0001 mlx5_0', 'cn0001'");
	assert_int_equal(resolve("Core switch 2 (row B, rack 7)"), 0x14);
	assert_int_equal(resolve("Core"), 0x14);
	/* The whole description wins over another node's first word. */
	assert_int_equal(resolve("leaf01"), 0x15);
	assert_int_equal(resolve("leaf01 spare"), 0x16);
	/* Looks like a GUID, names no node by GUID: the host name. */
	assert_int_equal(resolve("cafe01"), 0x17);
	assert_int_equal(resolve("0x17"), 0x17);
}

static void
test_follows_the_node(void **state)
{
	store_sweep_begin();
	seen(0x21, "localhost mlx5_0");
	seen(0x22, "localhost mlx5_0");
	sweep_end();
	assert_int_equal(resolve("localhost"), 0);
	/* The driver sets the host name after boot. */
	store_sweep_begin();
	seen(0x21, "cn0021 mlx5_0");
	seen(0x22, "localhost mlx5_0");
	sweep_end();
	assert_int_equal(resolve("cn0021"), 0x21);
	assert_int_equal(resolve("localhost"), 0x22);
	/* A replaced HCA: same host name, new GUID; the old one is kept,
	 * unreachable, and the name goes to the reachable one. */
	store_sweep_begin();
	seen(0x23, "cn0021 mlx5_0");
	seen(0x22, "localhost mlx5_0");
	sweep_end();
	assert_int_equal(store_node_by_guid(0x21)->reachable, 0);
	assert_int_equal(resolve("cn0021"), 0x23);
	/* Restart: names come back from the inventory; until a sweep says
	 * which is reachable, a shared one resolves to none. */
	store_finalise();
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(resolve("localhost"), 0x22);
	assert_int_equal(resolve("cn0021"), 0);
	store_sweep_begin();
	seen(0x23, "cn0021 mlx5_0");
	seen(0x22, "localhost mlx5_0");
	sweep_end();
	assert_int_equal(resolve("cn0021"), 0x23);
}

static void
test_alias_wins(void **state)
{
	FILE *f = fopen(mappath, "w");

	assert_non_null(f);
	fprintf(f, "0x32 \"cn0031\"\n");
	fclose(f);
	assert_int_equal(store_load_name_map(mappath), 1);
	store_sweep_begin();
	seen(0x31, "cn0031 mlx5_0");
	seen(0x32, "spare mlx5_0");
	sweep_end();
	assert_int_equal(resolve("cn0031"), 0x32);
	assert_int_equal(resolve("cn0031 mlx5_0"), 0x31);
	assert_int_equal(resolve("spare"), 0x32);
}

/* The lines of stderr that contain what, while fn runs. */
static int
warnings(void (*fn)(void), const char *what)
{
	char path[64], line[512];
	int fd, saved, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/ibsnmpgw-dn-%d.err", getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	close(fd);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_non_null(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, what) != NULL;
	fclose(f);
	unlink(path);
	return n;
}

static void
both_shared(void)
{
	store_sweep_begin();
	seen(0x41, "localhost mlx5_0");
	seen(0x42, "localhost mlx5_0");
	sweep_end();
}

static void
one_gone(void)
{
	store_sweep_begin();
	seen(0x42, "localhost mlx5_0");
	sweep_end();
}

static void
one_renamed(void)
{
	store_sweep_begin();
	seen(0x41, "cn0041 mlx5_0");
	seen(0x42, "localhost mlx5_0");
	sweep_end();
}

/* A shared name is worth a warning when it becomes ambiguous, not at
 * every sweep while it stays so (hosts left at a default description
 * would repeat it forever). */
static void
test_ambiguous_warned_once(void **state)
{
	log_set_level(LOG_WARNING);
	/* The whole description and the host name. */
	assert_int_equal(warnings(both_shared, "resolves to none"), 2);
	assert_int_equal(warnings(both_shared, "resolves to none"), 0);
	assert_int_equal(resolve("localhost"), 0);
	/* One of them unreachable for a sweep: the name resolves, then is
	 * ambiguous again among the same nodes. */
	assert_int_equal(warnings(one_gone, "resolves to none"), 0);
	assert_int_equal(resolve("localhost"), 0x42);
	assert_int_equal(warnings(both_shared, "resolves to none"), 0);
	/* Another node takes the name: worth a line again. */
	assert_int_equal(warnings(one_renamed, "resolves to none"), 0);
	assert_int_equal(resolve("localhost"), 0x42);
	assert_int_equal(warnings(both_shared, "resolves to none"), 2);
	log_set_level(LOG_ERR);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unique_and_shared, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ambiguous_warned_once,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_follows_the_node, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_alias_wins, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
