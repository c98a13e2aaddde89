/* store_rows: a sweep that reads what it last wrote writes no row but
 * its sweeps record; a change writes that node's rows; a write outside
 * the sweep (a re-read's save, a tunnel probe) or a rolled-back sweep
 * makes the next sweep write whole again, so the database never keeps
 * an older state than memory. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include <cmocka.h>

#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"
#include "tests/unit/unit_db.h"

static char dbpath[64];
static int64_t wall = 1700000000;	/* the sweeps' clock */

static int64_t
test_wall(void)
{
	return wall;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-rows-%d.db", getpid());
	unlink(dbpath);
	log_init("test_rows", 1, LOG_CRIT);
	wall = 1700000000;
	ev_set_wall(test_wall);
	assert_int_equal(store_init(dbpath), 0);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	store_finalise();
	ev_set_wall(NULL);
	unit_db_remove(dbpath);
	return 0;
}

static sqlite3 *
db(void)
{
	return store_db_handle();
}

static long long
q_int(const char *q)
{
	sqlite3_stmt *st;
	long long v;

	assert_int_equal(sqlite3_prepare_v2(db(), q, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void
q_exec(const char *q)
{
	assert_int_equal(sqlite3_exec(db(), q, NULL, NULL, NULL), SQLITE_OK);
}

/* A four-port switch (GUID g) whose ports 1-3 are Active (state 4), or
 * port 2 in state st2; port 4 uncabled. */
static void
sweep_switch(uint64_t g, int st2)
{
	struct store_node n;
	struct store_port p[5];

	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = g;
	n.type = STORE_NODE_SWITCH;
	n.num_ports = 4;
	snprintf(n.desc, sizeof(n.desc), "switch %llx", (unsigned long long)g);
	store_path_parse("0,1", &n.route);
	for (int i = 0; i <= 4; i++) {
		p[i].num = (uint8_t)i;
		p[i].valid = i < 4;
		p[i].state = i == 2 ? (uint8_t)st2 : 4;
		p[i].lid = i == 0 ? (uint16_t)(g & 0xff) : 0;
		p[i].route.hop[0] = 0xff;
	}
	store_sweep_node(&n, p);
}

/* One sweep over switches 1..3, switch 2's port 2 in state st2. Returns
 * the rows it changed. */
static int
sweep(int st2)
{
	unsigned nodes, lost;
	int before = sqlite3_total_changes(db());

	store_sweep_begin();
	for (uint64_t g = 1; g <= 3; g++)
		sweep_switch(g, g == 2 ? st2 : 4);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_int_equal(nodes, 3);
	return sqlite3_total_changes(db()) - before;
}

static void
test_unchanged(void **state)
{
	(void)state;
	/* First: 3 node rows, 3 x 4 port rows, the sweeps record. */
	assert_int_equal(sweep(4), 3 + 12 + 1);
	/* The same fabric, within the same second: the record alone. */
	assert_int_equal(sweep(4), 1);
	assert_int_equal(q_int("SELECT count(*) FROM ports"), 12);
	assert_int_equal(q_int("SELECT count(*) FROM sweeps"), 2);
}

static void
test_changed(void **state)
{
	(void)state;
	sweep(4);
	/* Switch 2's port 2 goes Down: that switch's 4 port rows. */
	assert_int_equal(sweep(1), 4 + 1);
	assert_int_equal(q_int("SELECT state FROM ports WHERE node_guid = 2 "
	    "AND port_num = 2"), 1);
	assert_int_equal(sweep(4), 4 + 1);
	assert_int_equal(q_int("SELECT state FROM ports WHERE node_guid = 2 "
	    "AND port_num = 2"), 4);
}

/* last_seen alone moved: an UPDATE of it, not the whole row. */
static void
test_last_seen(void **state)
{
	struct store_node *n;

	(void)state;
	sweep(4);
	/* A row the sweep believes it wrote, told apart by its text. */
	q_exec("UPDATE nodes SET description = 'kept' WHERE guid = 3");
	wall += 60;
	assert_int_equal(sweep(4), 3 + 1);
	assert_int_equal(q_int("SELECT count(*) FROM nodes WHERE "
	    "last_seen = 1700000060"), 3);
	assert_int_equal(q_int("SELECT count(*) FROM nodes WHERE guid = 3 AND "
	    "description = 'kept'"), 1);
	assert_non_null(n = store_node_by_guid(3));
	assert_int_equal(n->last_seen, 1700000060);
}

/* Many nodes whose last_seen alone moved: written in batches (a full
 * one, and the rest), every node once; a row outside the sweep's
 * nodes keeps its value. */
static void
test_last_seen_many(void **state)
{
	unsigned nodes, lost;

	(void)state;
	for (int k = 0; k < 2; k++) {
		store_sweep_begin();
		for (uint64_t g = 1; g <= 300; g++)
			sweep_switch(g, 4);
		assert_int_equal(store_sweep_end(&nodes, &lost), 0);
		assert_int_equal(nodes, 300);
		if (k == 0) {
			/* Outside every sweep: a node this one lost. */
			q_exec("UPDATE nodes SET last_seen = 5 WHERE guid = 300");
			store_sweep_begin();
			for (uint64_t g = 1; g <= 299; g++)
				sweep_switch(g, 4);
			assert_int_equal(store_sweep_end(&nodes, &lost), 0);
		}
		wall += 60;
	}
	assert_int_equal(q_int("SELECT count(*) FROM nodes WHERE "
	    "last_seen = 1700000060"), 300);
	assert_int_equal(q_int("SELECT count(*) FROM nodes"), 300);
}

/* A re-read saves port 2 Down between sweeps; the next sweep reads it
 * Active again, which is what the sweep last wrote: it must still be
 * written, as the database now says Down. */
static void
test_save_between(void **state)
{
	struct store_node *n;
	struct store_port pt;

	(void)state;
	sweep(4);
	assert_non_null(n = store_node_by_guid(2));
	pt = n->ports[2];
	pt.state = 1;
	store_node_port_set(n, 2, &pt);
	assert_int_equal(store_node_save(n), 0);
	assert_int_equal(q_int("SELECT state FROM ports WHERE node_guid = 2 "
	    "AND port_num = 2"), 1);
	sweep(4);
	assert_int_equal(q_int("SELECT state FROM ports WHERE node_guid = 2 "
	    "AND port_num = 2"), 4);
	/* And the save left nothing to write twice. */
	assert_int_equal(sweep(4), 1);
}

/* A tunnel probe writes its columns itself; they are in the row's hash,
 * so the next sweep rewrites the row (once), whatever the probe's UPDATE
 * did, and not the ports. */
static void
test_tunnel_write(void **state)
{
	struct store_node *n;

	(void)state;
	sweep(4);
	assert_non_null(n = store_node_by_guid(1));
	store_node_set_tunnel(n->idx, STORE_TUN_OK, 1000);
	q_exec("UPDATE nodes SET description = 'stale' WHERE guid = 1");
	assert_int_equal(sweep(4), 1 + 1);
	assert_int_equal(q_int("SELECT count(*) FROM nodes WHERE guid = 1 AND "
	    "description = 'switch 1' AND tunnel = 1"), 1);
	assert_int_equal(sweep(4), 1);
}

/* A sweep whose transaction fails is rolled back: the next one writes
 * every row, not only what changed since the failed one. */
static void
test_rollback(void **state)
{
	unsigned nodes, lost;

	(void)state;
	sweep(4);
	q_exec("CREATE TRIGGER fail BEFORE INSERT ON sweeps BEGIN "
	    "SELECT RAISE(ABORT, 'test'); END");
	store_sweep_begin();
	for (uint64_t g = 1; g <= 3; g++)
		sweep_switch(g, g == 2 ? 1 : 4);
	assert_int_equal(store_sweep_end(&nodes, &lost), -1);
	assert_int_equal(q_int("SELECT state FROM ports WHERE node_guid = 2 "
	    "AND port_num = 2"), 4);
	q_exec("DROP TRIGGER fail");
	assert_int_equal(sweep(1), 3 + 12 + 1);
	assert_int_equal(q_int("SELECT state FROM ports WHERE node_guid = 2 "
	    "AND port_num = 2"), 1);
}

/* What a restart loads is written whole by its first sweep (nothing
 * known of the file), then not again. */
static void
test_restart(void **state)
{
	(void)state;
	sweep(4);
	store_finalise();
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(sweep(4), 3 + 12 + 1);
	assert_int_equal(sweep(4), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unchanged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_seen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_seen_many, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_save_between, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_tunnel_write, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rollback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
