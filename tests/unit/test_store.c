/* store: schema creation, migration (with its copy and meta record),
 * refusal of newer or foreign files without a byte changed, reading a
 * database without touching it, the table of releases, persistence
 * across restarts and unreachable marking. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sqlite3.h>
#include <cmocka.h>

#include "codec/attr.h"
#include "store/schema.h"
#include "store/store.h"
#include "util/log.h"
#include "tests/unit/unit_db.h"

static char dbpath[64];

static int
setup(void **state)
{
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-store-%d.db", getpid());
	unlink(dbpath);
	log_init("test_store", 1, LOG_ERR);
	return 0;
}

static void
unlink_db(const char *path)
{
	unit_db_remove(path);
}

static int
teardown(void **state)
{
	char p[96];

	store_finalise();
	unlink_db(dbpath);
	for (int v = 1; v < STORE_SCHEMA_VERSION; v++) {
		snprintf(p, sizeof(p), "%s.schema%d.bak", dbpath, v);
		unlink_db(p);
		rmdir(p);
	}
	return 0;
}

static int
exists(const char *path, const char *suffix)
{
	char p[128];

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return access(p, F_OK) == 0;
}

/* The file's bytes; *len its length. */
static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void
assert_same_bytes(const unsigned char *a, size_t alen, const char *path)
{
	size_t blen;
	unsigned char *b = slurp(path, &blen);

	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	free(b);
}

static void
sql(const char *path, const char *q)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, q, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static int
sql_int(const char *path, const char *q)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int v = -1;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* A CA of nports ports seen by a sweep, port lp active at lid. */
static void
sweep_ports(uint64_t guid, const char *desc, int nports, int lp, int lid)
{
	struct store_node n;
	struct store_port p[9];

	assert_true(nports >= 1 && nports < 9 && lp >= 1 && lp <= nports);
	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = guid;
	n.type = STORE_NODE_CA;
	n.num_ports = (uint8_t)nports;
	snprintf(n.desc, sizeof(n.desc), "%s", desc);
	store_path_parse("0,1,5", &n.route);
	for (int i = 0; i <= nports; i++) {
		p[i].num = (uint8_t)i;
		p[i].route.hop[0] = 0xff;
	}
	p[lp].valid = 1;
	p[lp].lid = (uint16_t)lid;
	p[lp].state = 4;
	store_path_parse("0,1,5", &p[lp].route);
	store_sweep_node(&n, p);
}

static void
sweep_one(uint64_t guid, const char *desc, int lid)
{
	sweep_ports(guid, desc, 2, 1, lid);
}

static void
test_fresh_schema(void **state)
{
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(store_schema_version(), STORE_SCHEMA_VERSION);
	store_finalise();
	assert_int_equal(sql_int(dbpath, "PRAGMA user_version"),
	    STORE_SCHEMA_VERSION);
	{
		sqlite3 *db;
		sqlite3_stmt *st;
		assert_int_equal(sqlite3_open(dbpath, &db), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode",
		    -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0),
		    "wal");
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
}

static void
test_migration_keeps_data(void **state)
{
	unsigned nodes, lost;

	/* A version-1 database, as the first release wrote it. */
	sql(dbpath,
	    "CREATE TABLE nodes (guid INTEGER PRIMARY KEY, type INTEGER NOT "
	    "NULL, description TEXT NOT NULL, num_ports INTEGER NOT NULL, "
	    "vendor_id INTEGER NOT NULL, device_id INTEGER NOT NULL, revision "
	    "INTEGER NOT NULL, system_guid INTEGER NOT NULL, lid INTEGER NOT "
	    "NULL, route TEXT NOT NULL, first_seen INTEGER NOT NULL, last_seen "
	    "INTEGER NOT NULL, reachable INTEGER NOT NULL);"
	    "CREATE TABLE ports (node_guid INTEGER NOT NULL, port_num INTEGER "
	    "NOT NULL, guid INTEGER NOT NULL, lid INTEGER NOT NULL, lmc INTEGER "
	    "NOT NULL, state INTEGER NOT NULL, phys_state INTEGER NOT NULL, "
	    "width INTEGER NOT NULL, speed INTEGER NOT NULL, remote_guid "
	    "INTEGER NOT NULL, remote_port INTEGER NOT NULL, route TEXT NOT "
	    "NULL, PRIMARY KEY (node_guid, port_num));"
	    "CREATE INDEX ports_lid ON ports(lid);"
	    "CREATE TABLE aliases (name TEXT PRIMARY KEY, node_guid INTEGER NOT "
	    "NULL);"
	    "INSERT INTO nodes VALUES (4660, 1, 'old node', 2, 713, 4099, 1, "
	    "4660, 7, '0,1', 100, 200, 1);"
	    "INSERT INTO ports VALUES (4660, 1, 4661, 7, 0, 4, 5, 2, 4, 0, 0, "
	    "'0,1');"
	    "PRAGMA user_version = 1;");
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(store_schema_version(), STORE_SCHEMA_VERSION);
	{
		struct store_node *n = store_node_by_guid(4660);
		assert_non_null(n);
		assert_string_equal(n->desc, "old node");
		assert_int_equal(n->first_seen, 100);
		/* Not reachable until a sweep has seen it. */
		assert_int_equal(n->reachable, 0);
		assert_ptr_equal(store_node_by_lid(7), n);
		assert_int_equal(n->route.cnt, 1);
	}
	/* Version 2 added the sweep history, 3 the unsupported flags. */
	assert_int_equal(store_node_by_guid(4660)->unsupported, 0);
	store_node_set_unsupported(store_node_by_guid(4660)->idx,
	    attr_defs[ATTR_LED_INFO].unsup);
	store_sweep_begin();
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	store_finalise();
	assert_int_equal(sql_int(dbpath, "SELECT count(*) FROM sweeps"), 1);
	assert_int_equal(sql_int(dbpath, "SELECT count(*) FROM nodes"), 1);
	assert_int_equal(sql_int(dbpath, "SELECT unsupported FROM nodes"),
	    attr_defs[ATTR_LED_INFO].unsup);
	/* And it survives a restart. */
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(store_node_by_guid(4660)->unsupported,
	    attr_defs[ATTR_LED_INFO].unsup);
	/* ctl flush forgets it, in memory and on disk. */
	store_node_clear_unsupported(store_node_by_guid(4660)->idx);
	assert_int_equal(store_node_by_guid(4660)->unsupported, 0);
	store_finalise();
	assert_int_equal(sql_int(dbpath, "SELECT unsupported FROM nodes"), 0);
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(store_node_by_guid(4660)->unsupported, 0);
}

static void
test_unsupported_names(void **state)
{
	char buf[256], tiny[12];

	(void)state;
	assert_string_equal(attr_unsup_names(0, buf, sizeof(buf)), "-");
	assert_string_equal(attr_unsup_names(attr_defs[ATTR_LED_INFO].unsup |
	    attr_defs[ATTR_VL_OP_DATA].unsup, buf, sizeof(buf)), "LedInfo,PortVLOpData");
	/* Every flag has a name: the whole set names 14 attributes. */
	attr_unsup_names(0x3fff, buf, sizeof(buf));
	assert_null(strstr(buf, ",,"));
	{
		int commas = 0;

		for (const char *c = buf; *c; c++)
			commas += *c == ',';
		assert_int_equal(commas, 13);
	}
	/* Truncated, never overrun. */
	attr_unsup_names(0x3fff, tiny, sizeof(tiny));
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

/* A newer release's database, in either journal mode: refused, and not
 * a byte of it changed, no copy taken, no file left next to it. */
static void
test_newer_schema_refused(void **state)
{
	static const char *const make[] = {
		"CREATE TABLE x (a); PRAGMA user_version = 99;",
		"PRAGMA journal_mode = WAL; CREATE TABLE x (a); "
		"PRAGMA user_version = 9;",
	};

	for (size_t i = 0; i < 2; i++) {
		unsigned char *before;
		size_t len;

		unlink_db(dbpath);
		sql(dbpath, make[i]);
		before = slurp(dbpath, &len);
		assert_int_equal(store_init(dbpath), -1);
		assert_int_equal(store_schema_version(), -1);
		assert_same_bytes(before, len, dbpath);
		assert_false(exists(dbpath, "-wal"));
		assert_false(exists(dbpath, "-shm"));
		assert_false(exists(dbpath, "-journal"));
		assert_false(exists(dbpath, i ? ".schema9.bak" :
		    ".schema99.bak"));
		free(before);
	}
}

/* A schema-6 database as 0.1.0 left it: the schema-7 and -8 tables of
 * a new one dropped again, a node and an accumulator in it. */
static void
make_schema6(void)
{
	assert_int_equal(store_init(dbpath), 0);
	store_finalise();
	sql(dbpath, "DROP TABLE blueprint; DROP TABLE topology_diffs; "
	    "DROP TABLE meta; DROP TABLE events; "
	    "DROP TABLE notify_queue; ALTER TABLE nodes DROP COLUMN idx;"
	    "INSERT INTO nodes (guid, type, description, num_ports, "
	    "vendor_id, device_id, revision, system_guid, lid, route, "
	    "first_seen, last_seen, reachable) VALUES (4660, 1, 'old node', "
	    "2, 713, 4099, 1, 4660, 7, '0,1', 100, 200, 1), (4096, 1, 'older', "
	    "2, 713, 4099, 1, 4096, 8, '0,2', 100, 200, 1), (8192, 1, 'first', "
	    "2, 713, 4099, 1, 8192, 9, '0,3', 90, 200, 1);"
	    "INSERT INTO counters VALUES (4660, 1, 'PortXmitData', 77, 77, 0);"
	    "PRAGMA user_version = 6;");
}

/* 6 -> 7 -> 8: a copy of the schema-6 database first, then the
 * migrations; the data stay, and meta says who migrated what from
 * where. */
static void
test_migration_6_to_8(void **state)
{
	struct store_info si;
	char bak[96];

	(void)state;
	make_schema6();
	snprintf(bak, sizeof(bak), "%s.schema6.bak", dbpath);
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(store_schema_version(), STORE_SCHEMA_VERSION);
	assert_non_null(store_node_by_guid(4660));
	/* Indexes in the order a restart of 0.1.0 gave them: first_seen,
	 * then GUID. */
	assert_int_equal(store_node_by_guid(8192)->idx, 0);
	assert_int_equal(store_node_by_guid(4096)->idx, 1);
	assert_int_equal(store_node_by_guid(4660)->idx, 2);
	store_info(&si);
	assert_int_equal(si.schema, STORE_SCHEMA_VERSION);
	assert_string_equal(si.release, PACKAGE_VERSION);
	assert_true(si.opened > 0);
	assert_string_equal(si.previous, "0.1.0");
	assert_int_equal(si.migrated_from, 6);
	assert_true(si.migrated > 0);
	assert_string_equal(si.backup, bak);
	store_finalise();
	/* The version is in the file itself, not only in its WAL. */
	{
		size_t len;
		unsigned char *b = slurp(dbpath, &len);

		assert_true(len > 64);
		assert_int_equal(b[60] << 24 | b[61] << 16 | b[62] << 8 | b[63],
		    STORE_SCHEMA_VERSION);
		free(b);
	}
	assert_int_equal(sql_int(dbpath, "SELECT total FROM counters"), 77);
	/* Schema 8: the blueprint's tables, empty. */
	assert_int_equal(sql_int(dbpath, "SELECT count(*) FROM blueprint"), 0);
	assert_int_equal(sql_int(dbpath, "SELECT count(*) FROM "
	    "topology_diffs"), 0);
	assert_int_equal(sql_int(bak, "PRAGMA user_version"), 6);
	assert_int_equal(sql_int(bak, "SELECT total FROM counters"), 77);
	assert_int_equal(sql_int(bak, "SELECT count(*) FROM sqlite_master "
	    "WHERE name = 'meta'"), 0);
	assert_false(exists(bak, ".tmp"));
	/* Opened again: no second migration, the record stays. */
	assert_int_equal(store_init(dbpath), 0);
	store_info(&si);
	assert_string_equal(si.previous, "0.1.0");
	assert_int_equal(si.migrated_from, 6);
	assert_string_equal(si.backup, bak);
}

/* No copy, no migration: a schema-6 database stays one. */
static void
test_migration_needs_copy(void **state)
{
	char bak[96];

	(void)state;
	make_schema6();
	snprintf(bak, sizeof(bak), "%s.schema6.bak", dbpath);
	assert_int_equal(mkdir(bak, 0700), 0);	/* rename() onto it fails */
	assert_int_equal(store_init(dbpath), -1);
	assert_int_equal(sql_int(dbpath, "PRAGMA user_version"), 6);
	assert_false(exists(bak, ".tmp"));
}

/* Looking at a database changes nothing and creates nothing. */
static void
test_inspect(void **state)
{
	struct store_info si;
	unsigned char *before;
	size_t len;
	FILE *f;

	(void)state;
	assert_int_equal(store_schema_inspect(dbpath, &si), 0);
	assert_int_equal(si.schema, 0);
	assert_false(exists(dbpath, ""));
	assert_int_equal(store_init(dbpath), 0);
	/* Open in the daemon: read through its WAL. */
	assert_int_equal(store_schema_inspect(dbpath, &si), 0);
	assert_int_equal(si.schema, STORE_SCHEMA_VERSION);
	assert_string_equal(si.release, PACKAGE_VERSION);
	store_finalise();
	assert_false(exists(dbpath, "-wal"));
	before = slurp(dbpath, &len);
	assert_int_equal(store_schema_inspect(dbpath, &si), 0);
	assert_int_equal(si.schema, STORE_SCHEMA_VERSION);
	assert_string_equal(si.release, PACKAGE_VERSION);
	assert_true(si.opened > 0);
	assert_string_equal(si.previous, "");
	assert_int_equal(si.migrated_from, 0);
	assert_same_bytes(before, len, dbpath);
	assert_false(exists(dbpath, "-wal"));
	assert_false(exists(dbpath, "-shm"));
	free(before);
	f = fopen(dbpath, "w");
	assert_non_null(f);
	for (int i = 0; i < 512; i++)
		fputs("this is not a database ", f);
	fclose(f);
	assert_int_equal(store_schema_inspect(dbpath, &si), -1);
}

/* Which release reads which schema; this release is the table's last. */
static void
test_releases(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(store_schema_of_release(PACKAGE_VERSION),
	    STORE_SCHEMA_VERSION);
	assert_int_equal(store_schema_of_release("0.1.0"), 6);
	assert_int_equal(store_schema_of_release("0.2.0"), 8);
	/* An epoch, a Debian revision; a release between two rows. */
	assert_int_equal(store_schema_of_release("1:0.1.0-3"), 6);
	assert_int_equal(store_schema_of_release("0.1.9"), 6);
	/* A pre-release counts as the one before. */
	assert_int_equal(store_schema_of_release("0.2.0~rc1"), 6);
	assert_int_equal(store_schema_of_release("0.0.9"), 0);
	assert_int_equal(store_schema_of_release("99.0"), -1);
	assert_true(store_release_cmp("0.10.0", "0.9.1") > 0);
	assert_true(store_release_cmp("0.2", "0.2.0") == 0);
	assert_true(store_release_cmp("0.2.0~rc1", "0.2.0") < 0);
	assert_true(store_release_cmp("0.2.0", "0.2.0-1") == 0);
	assert_string_equal(store_schema_releases(6, buf, sizeof(buf)),
	    "0.1.0");
	assert_string_equal(store_schema_releases(5, buf, sizeof(buf)),
	    "unknown");
}

static void
test_garbage_file_refused(void **state)
{
	FILE *f = fopen(dbpath, "w");

	assert_non_null(f);
	for (int i = 0; i < 512; i++)
		fputs("this is not a database ", f);
	fclose(f);
	assert_int_equal(store_init(dbpath), -1);
}

static void
test_bad_rows(void **state)
{
	assert_int_equal(store_init(dbpath), 0);
	store_finalise();
	/* Hostile contents: absurd port count, broken route. */
	sql(dbpath, "INSERT INTO nodes VALUES (1, 1, 'x', 9999, 0, 0, 0, 0, 0, "
	    "'0', 0, 0, 1, 0, NULL, NULL, 0, 0, NULL);"
	    "INSERT INTO nodes VALUES (2, 1, 'y', 1, 0, 0, 0, 0, 0, "
	    "'0,zz,,', 0, 0, 1, 0, NULL, NULL, -7, 5, NULL);"
	    "INSERT INTO ports VALUES (2, 77, 0, 0, 0, 0, 0, 0, 0, 0, 0, '', "
	    "NULL);");
	assert_int_equal(store_init(dbpath), 0);
	assert_null(store_node_by_guid(1));
	assert_non_null(store_node_by_guid(2));
	assert_int_equal(store_node_by_guid(2)->route.cnt, 0);
	/* A tunnel state out of range: probed again. */
	assert_int_equal(store_node_by_guid(2)->tunnel, STORE_TUN_UNKNOWN);
}

/* What a tunnel probe found survives a restart and a later sweep. */
static void
test_tunnel_state(void **state)
{
	unsigned nodes, lost;
	struct store_node *n;

	assert_int_equal(store_init(dbpath), 0);
	store_sweep_begin();
	sweep_one(0x1000, "a", 10);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	n = store_node_by_guid(0x1000);
	assert_int_equal(n->tunnel, STORE_TUN_UNKNOWN);
	store_node_set_tunnel(n->idx, STORE_TUN_OK, 1234);
	store_sweep_begin();
	sweep_one(0x1000, "a", 10);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	n = store_node_by_guid(0x1000);
	assert_int_equal(n->tunnel, STORE_TUN_OK);
	store_finalise();
	assert_int_equal(store_init(dbpath), 0);
	n = store_node_by_guid(0x1000);
	assert_non_null(n);
	assert_int_equal(n->tunnel, STORE_TUN_OK);
	assert_int_equal(n->tunnel_probed, 1234);
	store_node_set_tunnel(n->idx, STORE_TUN_NONE, 99);
	store_finalise();
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(store_node_by_guid(0x1000)->tunnel, STORE_TUN_NONE);
	(void)state;
}

/* A node keeps its index (ibsnmpgwNodeIndex) across restarts, also
 * when nodes first seen in the same second came in GUID-descending
 * order (the load used to renumber them by GUID). */
static void
test_index_stable(void **state)
{
	unsigned nodes, lost;

	(void)state;
	assert_int_equal(store_init(dbpath), 0);
	store_sweep_begin();
	sweep_one(0x3000, "c", 30);
	sweep_one(0x1000, "a", 10);
	sweep_one(0x2000, "b", 20);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	for (int restart = 0; restart < 2; restart++) {
		store_finalise();
		assert_int_equal(store_init(dbpath), 0);
		assert_int_equal(store_node_by_guid(0x3000)->idx, 0);
		assert_int_equal(store_node_by_guid(0x1000)->idx, 1);
		assert_int_equal(store_node_by_guid(0x2000)->idx, 2);
		store_sweep_begin();
		sweep_one(0x4000, "d", 40);
		assert_int_equal(store_sweep_end(&nodes, &lost), 0);
		assert_int_equal(store_node_by_guid(0x4000)->idx, 3);
	}
}

static void
test_persist_and_unreachable(void **state)
{
	unsigned nodes, lost;
	struct store_node *n;

	assert_int_equal(store_init(dbpath), 0);
	store_sweep_begin();
	sweep_one(0x1000, "a", 10);
	sweep_one(0x2000, "b", 20);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_int_equal(nodes, 2);
	assert_int_equal(lost, 0);
	/* b disappears: kept, marked unreachable, still resolvable. */
	store_sweep_begin();
	sweep_one(0x1000, "a", 10);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_int_equal(nodes, 1);
	assert_int_equal(lost, 1);
	n = store_node_by_guid(0x2000);
	assert_non_null(n);
	assert_int_equal(n->reachable, 0);
	assert_ptr_equal(store_node_by_lid(20), n);
	store_finalise();
	/* Restart: everything is back from SQLite. */
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(store_node_count(), 2);
	n = store_node_by_guid(0x1000);
	assert_non_null(n);
	assert_string_equal(n->desc, "a");
	assert_int_equal(n->ports[1].lid, 10);
	assert_int_equal(n->ports[1].route.cnt, 2);
	assert_int_equal(n->ports[1].route.hop[2], 5);
	assert_int_equal(sql_int(dbpath, "SELECT reachable FROM nodes WHERE "
	    "guid = 8192"), 0);
}

static void
write_map(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A name map whose database copy cannot be written (here a trigger
 * refuses the second row) is used, the database keeps the previous
 * names, and no transaction is left open: the next writes are kept. */
static void
test_name_map_write_fails(void **state)
{
	char map[80];
	unsigned nodes, lost;
	sqlite3 *db;

	snprintf(map, sizeof(map), "%s.map", dbpath);
	assert_int_equal(store_init(dbpath), 0);
	store_sweep_begin();
	sweep_one(0x1000, "a", 10);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	write_map(map, "0x1000 \"old\"\n");
	assert_int_equal(store_load_name_map(map), 1);
	db = store_db_handle();
	assert_int_equal(sqlite3_exec(db, "CREATE TRIGGER refuse BEFORE "
	    "INSERT ON aliases WHEN NEW.name = 'two' BEGIN SELECT "
	    "RAISE(ABORT, 'refused'); END", NULL, NULL, NULL), SQLITE_OK);
	write_map(map, "0x1000 \"one\"\n0x2000 \"two\"\n");
	assert_int_equal(store_load_name_map(map), 2);
	unlink(map);
	assert_non_null(store_node_by_alias("one"));
	assert_null(store_node_by_alias("old"));
	assert_int_equal(sqlite3_get_autocommit(db), 1);
	/* What the database held is there, whole. */
	store_sweep_begin();
	sweep_one(0x1000, "a", 10);
	sweep_one(0x3000, "c", 30);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	store_finalise();
	assert_int_equal(sql_int(dbpath, "SELECT count(*) FROM aliases WHERE "
	    "name = 'old'"), 1);
	assert_int_equal(sql_int(dbpath, "SELECT count(*) FROM aliases"), 1);
	assert_int_equal(sql_int(dbpath, "SELECT count(*) FROM nodes"), 2);
}

/* The sweep's raw NodeInfo, SwitchInfo and PortInfo survive a restart
 * byte for byte (the fabric context decodes them); a blob of the wrong
 * length in the database is dropped, not read past; a SwitchInfo a later
 * sweep could not read keeps the last one; the SM list is replaced per
 * sweep, in port GUID order. */
static void
test_raw_attributes(void **state)
{
	struct store_node n, *got;
	struct store_port p[3];
	struct store_sm sm;
	unsigned nodes, lost;

	assert_int_equal(store_init(dbpath), 0);
	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = 0x3000;
	n.type = STORE_NODE_SWITCH;
	n.num_ports = 2;
	store_path_parse("0,1", &n.route);
	n.ninfo_ok = n.sinfo_ok = 1;
	for (int i = 0; i < STORE_SMP_LEN; i++) {
		n.ninfo[i] = (uint8_t)i;
		n.sinfo[i] = (uint8_t)(0xff - i);
	}
	/* Copies that decode (they are checked at load): a 2-port switch
	 * (IBA 14.2.5.3 NodeInfo: NodeType, NumPorts, LocalPortNum) and a
	 * LinearFDBTop under the cap (14.2.5.4 SwitchInfo). */
	n.ninfo[2] = 2;
	n.ninfo[3] = 2;
	n.ninfo[36] = 0;
	n.sinfo[6] = 0;
	n.sinfo[7] = 0x10;
	for (int i = 0; i <= 2; i++) {
		p[i].num = (uint8_t)i;
		p[i].valid = 1;
		p[i].route = n.route;
		p[i].pinfo_ok = i != 1;
		memset(p[i].pinfo, 0x40 + i, STORE_SMP_LEN);
	}
	store_sweep_begin();
	store_sweep_node(&n, p);
	memset(&sm, 0, sizeof(sm));
	sm.port_guid = 0x9;
	sm.sminfo[0] = 9;
	store_sweep_sm(&sm);
	sm.port_guid = 0x5;
	sm.sminfo[0] = 5;
	store_sweep_sm(&sm);
	sm.sminfo[0] = 6;		/* the same port again: replaced */
	store_sweep_sm(&sm);
	assert_int_equal(store_sm_count(), 0);	/* until the sweep ends */
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_int_equal(store_sm_count(), 2);
	assert_int_equal(store_sm_at(0)->port_guid, 0x5);
	assert_int_equal(store_sm_at(0)->sminfo[0], 6);
	assert_int_equal(store_sm_at(1)->port_guid, 0x9);
	assert_null(store_sm_at(2));

	/* A sweep without a SwitchInfo answer keeps the last one. */
	n.sinfo_ok = 0;
	memset(n.sinfo, 0, sizeof(n.sinfo));
	store_sweep_begin();
	store_sweep_node(&n, p);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_int_equal(store_sm_count(), 0);	/* no SM seen this time */
	got = store_node_by_guid(0x3000);
	assert_int_equal(got->sinfo_ok, 1);
	assert_int_equal(got->sinfo[1], 0xfe);
	store_finalise();

	assert_int_equal(store_init(dbpath), 0);
	got = store_node_by_guid(0x3000);
	assert_non_null(got);
	assert_int_equal(got->ninfo_ok, 1);
	assert_memory_equal(got->ninfo, n.ninfo, STORE_SMP_LEN);
	assert_int_equal(got->sinfo_ok, 1);
	assert_int_equal(got->sinfo[63], 0xff - 63);
	assert_int_equal(got->ports[0].pinfo_ok, 1);
	assert_int_equal(got->ports[0].pinfo[10], 0x40);
	assert_int_equal(got->ports[1].pinfo_ok, 0);
	assert_int_equal(got->ports[2].pinfo[63], 0x42);
	store_finalise();

	/* Damaged rows: a short blob and text where a blob belongs. */
	sql(dbpath, "UPDATE nodes SET nodeinfo = x'0102', switchinfo = 'abc';"
	    "UPDATE ports SET portinfo = zeroblob(65) WHERE port_num = 2;");
	assert_int_equal(store_init(dbpath), 0);
	got = store_node_by_guid(0x3000);
	assert_non_null(got);
	assert_int_equal(got->ninfo_ok, 0);
	assert_int_equal(got->sinfo_ok, 0);
	assert_int_equal(got->ports[0].pinfo_ok, 1);
	assert_int_equal(got->ports[2].pinfo_ok, 0);
	store_finalise();

	/* Copies of the right length that do not decode (NodeType 0, a
	 * PortState of 7) are dropped at load too: the fabric context
	 * serves them without decoding again. */
	sql(dbpath, "UPDATE nodes SET nodeinfo = zeroblob(64);"
	    "UPDATE ports SET portinfo = x'" "0000000000000000" "00000000"
	    "00000000" "0000000000000000" "0000000000000000" "0700000000000000"
	    "0000000000000000" "0000000000000000" "0000000000000000'"
	    " WHERE port_num = 0;");
	assert_int_equal(store_init(dbpath), 0);
	got = store_node_by_guid(0x3000);
	assert_non_null(got);
	assert_int_equal(got->ninfo_ok, 0);
	assert_int_equal(got->ports[0].pinfo_ok, 0);
}

/* A node whose port count changes (replaced hardware, or a NodeInfo
 * answer that says so): the old ports' LIDs are dropped, nothing is read
 * past the new port array (ASan builds catch that), and the new count is
 * what is saved. */
static void
test_port_count_changes(void **state)
{
	unsigned nodes, lost;
	struct store_node *n;

	(void)state;
	assert_int_equal(store_init(dbpath), 0);
	store_sweep_begin();
	sweep_ports(0x3000, "wide", 8, 8, 80);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	n = store_node_by_guid(0x3000);
	assert_ptr_equal(store_node_by_lid(80), n);
	store_sweep_begin();
	sweep_ports(0x3000, "narrow", 1, 1, 10);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	n = store_node_by_guid(0x3000);
	assert_int_equal(n->num_ports, 1);
	assert_null(store_node_by_lid(80));
	assert_ptr_equal(store_node_by_lid(10), n);
	store_sweep_begin();
	sweep_ports(0x3000, "wide again", 8, 8, 81);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_null(store_node_by_lid(10));
	store_finalise();
	assert_int_equal(store_init(dbpath), 0);
	n = store_node_by_guid(0x3000);
	assert_int_equal(n->num_ports, 8);
	assert_int_equal(n->ports[8].lid, 81);
	assert_ptr_equal(store_node_by_lid(81), n);
}

static void
test_path(void **state)
{
	struct store_path p;
	char buf[64];

	assert_int_equal(store_path_parse("0", &p), 0);
	assert_int_equal(p.cnt, 0);
	assert_int_equal(store_path_parse("0,1,36,2", &p), 0);
	assert_int_equal(p.cnt, 3);
	store_path_format(&p, buf, sizeof(buf));
	assert_string_equal(buf, "0,1,36,2");
	assert_int_equal(store_path_parse("1,2", &p), -1);
	assert_int_equal(store_path_parse("0,0", &p), -1);
	assert_int_equal(store_path_parse("0,256", &p), -1);
	assert_int_equal(store_path_parse("0,1,", &p), -1);
	assert_int_equal(store_path_parse("", &p), -1);
}

/* Two cables between the same switches: routes that differ in their
 * last hop only are not the same route. */
static void
test_path_eq(void **state)
{
	struct store_path a, b;

	assert_int_equal(store_path_parse("0,1,7,5", &a), 0);
	assert_int_equal(store_path_parse("0,1,7,5", &b), 0);
	assert_true(store_path_eq(&a, &b));
	assert_int_equal(store_path_parse("0,1,7,6", &b), 0);
	assert_false(store_path_eq(&a, &b));
	assert_int_equal(store_path_parse("0,1,7", &b), 0);
	assert_false(store_path_eq(&a, &b));
	assert_int_equal(store_path_parse("0", &a), 0);
	assert_int_equal(store_path_parse("0", &b), 0);
	assert_true(store_path_eq(&a, &b));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fresh_schema, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_migration_keeps_data,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_schema_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_6_to_8,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_needs_copy,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_inspect, setup, teardown),
		cmocka_unit_test(test_releases),
		cmocka_unit_test_setup_teardown(test_garbage_file_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raw_attributes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_tunnel_state, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_persist_and_unreachable,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_stable, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_port_count_changes, setup,
		    teardown),
		cmocka_unit_test(test_path),
		cmocka_unit_test_setup_teardown(test_name_map_write_fails,
		    setup, teardown),
		cmocka_unit_test(test_path_eq),
		cmocka_unit_test(test_unsupported_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
