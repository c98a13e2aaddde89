/* gw_snmp engine identity (gateway/snmp_engine.c): snmpEngineBoots
 * persisted in the store's meta table, one up at every start, never
 * backwards (RFC 3414 2.2.2), latched at 2147483647, raised to
 * max(local, seen) + 1 for an HA promotion; an unreadable stored value
 * stops the start; the engine ID configured, or generated once and
 * kept. A "start" here is what gw_snmp_start() does around
 * init_snmp(): prepare, then start on a freshly opened store. */
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

#include "gateway/conf.h"
#include "gateway/snmp.h"
#include "store/schema.h"
#include "store/store.h"
#include "util/log.h"
#include "tests/unit/unit_db.h"

static char dbpath[64];
static struct gw_conf conf;

static const uint8_t netsnmp_id[] = { 0x80, 0x00, 0x1f, 0x88, 0x80, 1, 2,
    3, 4, 5, 6, 7, 8 };

static void
unlink_db(void)
{
	unit_db_remove(dbpath);
}

static int
setup(void **state)
{
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-engine-%d.db",
	    getpid());
	unlink_db();
	log_init("test_snmp_engine", 1, LOG_CRIT);
	memset(&conf, 0, sizeof(conf));
	/* What net-snmp would have made (or read from its own file). */
	assert_int_equal(set_exact_engineID(netsnmp_id, sizeof(netsnmp_id)),
	    SNMPERR_SUCCESS);
	engineBoots_conf("engineBoots", "0");	/* net-snmp's: 1 */
	assert_int_equal(store_init(dbpath), 0);
	return 0;
}

static int
teardown(void **state)
{
	store_finalise();
	unlink_db();
	return 0;
}

/* The daemon stopped and started again on the same database; netsnmp:
 * what net-snmp's own file gives (0: as it was left). */
static int
restart(unsigned long netsnmp)
{
	char s[16];

	store_finalise();
	assert_int_equal(store_init(dbpath), 0);
	if (netsnmp > 0) {
		snprintf(s, sizeof(s), "%lu", netsnmp - 1);
		engineBoots_conf("engineBoots", s);
	}
	if (gw_snmp_engine_prepare(&conf) == -1)
		return -1;
	return gw_snmp_engine_start();
}

static int64_t
stored(void)
{
	int64_t v = -1;

	assert_int_equal(store_meta_get_int("snmp-engine-boots", &v), 1);
	return v;
}

static void
set_stored(const char *value)
{
	char q[128];

	snprintf(q, sizeof(q), "INSERT OR REPLACE INTO meta VALUES "
	    "('snmp-engine-boots', %s)", value);
	assert_int_equal(sqlite3_exec(store_db_handle(), q, NULL, NULL,
	    NULL), SQLITE_OK);
}

static void
test_next(void **state)
{
	assert_int_equal(gw_snmp_boots_next(0), 1);
	assert_int_equal(gw_snmp_boots_next(41), 42);
	assert_int_equal(gw_snmp_boots_next(2147483646u), 2147483647u);
	assert_int_equal(gw_snmp_boots_next(2147483647u), 2147483647u);
	assert_int_equal(gw_snmp_boots_next(0xffffffffu), 2147483647u);
}

/* First start: 1, on disk; each start after it: one more. */
static void
test_persist_increment(void **state)
{
	assert_int_equal(restart(0), 0);
	assert_int_equal(gw_snmp_engine_boots(), 1);
	assert_int_equal(stored(), 1);
	for (uint32_t want = 2; want <= 5; want++) {
		assert_int_equal(restart(0), 0);
		assert_int_equal(gw_snmp_engine_boots(), want);
		assert_int_equal(snmpv3_local_snmpEngineBoots(), want);
		assert_int_equal(stored(), want);
	}
}

/* An installation older than the meta row: net-snmp's own file has
 * the boots (one up already); the start continues from them. Then
 * the store wins over a lower net-snmp file (lost, restored). */
static void
test_never_backwards(void **state)
{
	assert_int_equal(restart(42), 0);
	assert_int_equal(gw_snmp_engine_boots(), 42);
	assert_int_equal(stored(), 42);
	assert_int_equal(restart(1), 0);	/* net-snmp's file lost */
	assert_int_equal(gw_snmp_engine_boots(), 43);
	set_stored("100");
	assert_int_equal(restart(7), 0);
	assert_int_equal(gw_snmp_engine_boots(), 101);
	assert_int_equal(restart(500), 0);	/* net-snmp's higher */
	assert_int_equal(gw_snmp_engine_boots(), 500);
}

static void
test_latch(void **state)
{
	set_stored("2147483646");
	assert_int_equal(restart(0), 0);
	assert_int_equal(gw_snmp_engine_boots(), 2147483647u);
	assert_int_equal(restart(0), 0);
	assert_int_equal(gw_snmp_engine_boots(), 2147483647u);
	assert_int_equal(stored(), 2147483647);
	assert_int_equal(gw_snmp_engine_boots_raise(2147483647u), 0);
	assert_int_equal(gw_snmp_engine_boots(), 2147483647u);
}

/* HA promotion: max(local, seen) + 1, on disk. */
static void
test_raise(void **state)
{
	assert_int_equal(restart(0), 0);
	set_stored("9");
	assert_int_equal(restart(0), 0);
	assert_int_equal(gw_snmp_engine_boots(), 10);
	assert_int_equal(gw_snmp_engine_boots_raise(5), 0);	/* lower */
	assert_int_equal(gw_snmp_engine_boots(), 11);
	assert_int_equal(gw_snmp_engine_boots_raise(100), 0);	/* higher */
	assert_int_equal(gw_snmp_engine_boots(), 101);
	assert_int_equal(stored(), 101);
	assert_int_equal(restart(0), 0);
	assert_int_equal(gw_snmp_engine_boots(), 102);
	/* Not stored: not in force either. */
	store_finalise();
	assert_int_equal(gw_snmp_engine_boots_raise(500), -1);
	assert_int_equal(gw_snmp_engine_boots(), 102);
}

/* A value that is not a boots count stops the start, the row as it
 * was; a missing row is a first start (1, or net-snmp's). */
static void
test_corrupt(void **state)
{
	static const char *bad[] = { "'abc'", "0", "-5", "2147483648",
	    "1.5", "x'01'" };

	assert_int_equal(restart(0), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t v = 0;

		set_stored(bad[i]);
		assert_int_equal(restart(0), -1);
		assert_true(store_meta_get_int("snmp-engine-boots", &v) == -1 ||
		    v < 1 || v > 2147483647);
	}
	assert_int_equal(sqlite3_exec(store_db_handle(), "DELETE FROM meta "
	    "WHERE key = 'snmp-engine-boots'", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(restart(0), 0);
	assert_true(gw_snmp_engine_boots() >= 1);
	assert_int_equal(stored(), gw_snmp_engine_boots());
}

static size_t
engine_id(u_char *buf)
{
	return snmpv3_get_engineID(buf, SNMP_MAXBUF_SMALL);
}

/* No snmp.engine-id: net-snmp's on the first start, kept in meta and
 * used from there on; a configured one is used instead, and the
 * generated one comes back without it. An unreadable stored ID stops
 * the start. */
static void
test_engine_id(void **state)
{
	static const uint8_t mine[] = { 0x80, 0x00, 0x1f, 0x88, 0x04, 'g',
	    'w' };
	static const uint8_t other[] = { 0x80, 0x00, 0x1f, 0x88, 0x80, 9, 9,
	    9, 9, 9 };
	u_char eid[SNMP_MAXBUF_SMALL];
	char text[80];

	assert_int_equal(restart(0), 0);
	assert_int_equal(store_meta_get_text("snmp-engine-id", text,
	    sizeof(text)), 1);
	assert_string_equal(text, "0x80001f88800102030405060708");
	/* net-snmp would make another one (its file lost): ours stays. */
	set_exact_engineID(other, sizeof(other));
	assert_int_equal(restart(0), 0);
	assert_int_equal(engine_id(eid), sizeof(netsnmp_id));
	assert_memory_equal(eid, netsnmp_id, sizeof(netsnmp_id));
	memcpy(conf.engine_id, mine, sizeof(mine));
	conf.engine_id_len = sizeof(mine);
	assert_int_equal(restart(0), 0);
	assert_int_equal(engine_id(eid), sizeof(mine));
	assert_memory_equal(eid, mine, sizeof(mine));
	conf.engine_id_len = 0;
	assert_int_equal(restart(0), 0);
	assert_int_equal(engine_id(eid), sizeof(netsnmp_id));
	assert_memory_equal(eid, netsnmp_id, sizeof(netsnmp_id));
	assert_int_equal(sqlite3_exec(store_db_handle(), "UPDATE meta SET "
	    "value = '0x1234' WHERE key = 'snmp-engine-id'", NULL, NULL,
	    NULL), SQLITE_OK);
	assert_int_equal(restart(0), -1);
}

/* Configured on the very first start: a generated one is still kept,
 * in net-snmp's form, for when the key goes. */
static void
test_engine_id_configured_first(void **state)
{
	static const uint8_t mine[] = { 0x80, 0x00, 0x1f, 0x88, 0x04, 'g',
	    'w' };
	char text[80];

	memcpy(conf.engine_id, mine, sizeof(mine));
	conf.engine_id_len = sizeof(mine);
	assert_int_equal(restart(0), 0);
	assert_int_equal(store_meta_get_text("snmp-engine-id", text,
	    sizeof(text)), 1);
	assert_int_equal(strlen(text), 2 + 2 * 17);
	assert_memory_equal(text, "0x80001f8880", 12);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next),
		cmocka_unit_test_setup_teardown(test_persist_increment, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_never_backwards, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_latch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raise, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engine_id, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_engine_id_configured_first, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
