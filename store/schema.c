/* store_schema: schema versions, migrations and the releases behind
 * them (docs/upgrades.md). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/schema.h"
#include "util/log.h"

/* Migrations: entry i takes the schema from version i to i + 1.
 * Never edit a released entry (releases[] below says which are);
 * append a new one. */
static const char *migrations[STORE_SCHEMA_VERSION] = {
	/* 0 -> 1: the inventory. GUIDs are stored as signed 64-bit. */
	"CREATE TABLE nodes ("
	"  guid INTEGER PRIMARY KEY,"
	"  type INTEGER NOT NULL,"
	"  description TEXT NOT NULL,"
	"  num_ports INTEGER NOT NULL,"
	"  vendor_id INTEGER NOT NULL,"
	"  device_id INTEGER NOT NULL,"
	"  revision INTEGER NOT NULL,"
	"  system_guid INTEGER NOT NULL,"
	"  lid INTEGER NOT NULL,"
	"  route TEXT NOT NULL,"
	"  first_seen INTEGER NOT NULL,"
	"  last_seen INTEGER NOT NULL,"
	"  reachable INTEGER NOT NULL);"
	"CREATE TABLE ports ("
	"  node_guid INTEGER NOT NULL REFERENCES nodes(guid),"
	"  port_num INTEGER NOT NULL,"
	"  guid INTEGER NOT NULL,"
	"  lid INTEGER NOT NULL,"
	"  lmc INTEGER NOT NULL,"
	"  state INTEGER NOT NULL,"
	"  phys_state INTEGER NOT NULL,"
	"  width INTEGER NOT NULL,"
	"  speed INTEGER NOT NULL,"
	"  remote_guid INTEGER NOT NULL,"
	"  remote_port INTEGER NOT NULL,"
	"  route TEXT NOT NULL,"
	"  PRIMARY KEY (node_guid, port_num));"
	"CREATE INDEX ports_lid ON ports(lid);"
	"CREATE TABLE aliases ("
	"  name TEXT PRIMARY KEY,"
	"  node_guid INTEGER NOT NULL);",
	/* 1 -> 2: sweep history. */
	"CREATE TABLE sweeps ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  finished INTEGER NOT NULL,"
	"  nodes INTEGER NOT NULL,"
	"  lost INTEGER NOT NULL);",
	/* 2 -> 3: optional attributes a node does not support. */
	"ALTER TABLE nodes ADD COLUMN unsupported INTEGER NOT NULL DEFAULT 0;",
	/* 3 -> 4: counter accumulators (64-bit, stored as signed). */
	"CREATE TABLE counters ("
	"  node_guid INTEGER NOT NULL,"
	"  port INTEGER NOT NULL,"
	"  counter TEXT NOT NULL,"
	"  total INTEGER NOT NULL,"
	"  last INTEGER NOT NULL,"
	"  saturated INTEGER NOT NULL,"
	"  PRIMARY KEY (node_guid, port, counter));",
	/* 4 -> 5: the sweep's raw attributes, for the fabric context. */
	"ALTER TABLE nodes ADD COLUMN nodeinfo BLOB;"
	"ALTER TABLE nodes ADD COLUMN switchinfo BLOB;"
	"ALTER TABLE ports ADD COLUMN portinfo BLOB;",
	/* 5 -> 6: IB SNMP Tunneling: whether the node's agent answered the
	 * last probe (enum store_tun), and when that was. */
	"ALTER TABLE nodes ADD COLUMN tunnel INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE nodes ADD COLUMN tunnel_probed INTEGER NOT NULL "
	"DEFAULT 0;",
	/* 6 -> 7 (0.2.0): which releases opened the database and what a
	 * migration left behind (meta: key, value); the event history and
	 * the inform queues (store/events.c), which a restart or an upgrade
	 * used to lose (a queued inform names its event); and each node's
	 * index (ibsnmpgwNodeIndex), which a restart used to renumber in
	 * (first_seen, guid) order: that order is where it starts. */
	"ALTER TABLE nodes ADD COLUMN idx INTEGER;"
	"UPDATE nodes SET idx = (SELECT count(*) FROM nodes AS o WHERE "
	"  o.first_seen < nodes.first_seen OR (o.first_seen = "
	"  nodes.first_seen AND o.guid < nodes.guid));"
	"CREATE TABLE meta ("
	"  key TEXT PRIMARY KEY,"
	"  value NOT NULL);"
	"CREATE TABLE events ("
	"  seq INTEGER PRIMARY KEY,"
	"  at_ms INTEGER NOT NULL,"
	"  type INTEGER NOT NULL,"
	"  source INTEGER NOT NULL,"
	"  port INTEGER NOT NULL,"
	"  lid INTEGER NOT NULL,"
	"  trap INTEGER NOT NULL,"
	"  node_guid INTEGER NOT NULL,"
	"  suppressed INTEGER NOT NULL,"
	"  data BLOB NOT NULL,"
	"  text TEXT NOT NULL);"
	"CREATE TABLE notify_queue ("
	"  target TEXT NOT NULL,"
	"  seq INTEGER NOT NULL,"
	"  PRIMARY KEY (target, seq));",
	/* 7 -> 8 (0.2.0): the fabric against a blueprint (store/blueprint.c):
	 * the blueprint `ctl topology pin` took, in ibnetdiscover's format,
	 * and the differences found, with their numbers and since when
	 * (ibsnmpgwTopologyDiffTable), so a restart notifies none again. */
	"CREATE TABLE blueprint ("
	"  id INTEGER PRIMARY KEY CHECK (id = 1),"
	"  pinned INTEGER NOT NULL,"
	"  text TEXT NOT NULL);"
	"CREATE TABLE topology_diffs ("
	"  idx INTEGER PRIMARY KEY,"
	"  key TEXT NOT NULL UNIQUE,"
	"  since INTEGER NOT NULL,"
	"  kind INTEGER NOT NULL,"
	"  guid INTEGER NOT NULL,"
	"  port INTEGER NOT NULL,"
	"  rguid INTEGER NOT NULL,"
	"  rport INTEGER NOT NULL,"
	"  description TEXT NOT NULL,"
	"  expected TEXT NOT NULL,"
	"  found TEXT NOT NULL);",
};

/* Every release and the schema it reads and writes, oldest first. No
 * release opens a database of a newer schema than its own; the
 * packages ask this table (ibsnmpgw schema RELEASE) before a downgrade.
 * tests/unit/test_store.c checks that this release is the last row. */
static const struct {
	const char	*release;
	int		 schema;
} releases[] = {
	{ "0.1.0", 6 },
	{ "0.2.0", 8 },
};
#define NRELEASES	(sizeof(releases) / sizeof(releases[0]))

/* The first meta table is in schema 7. */
#define META_SCHEMA	7

int
store_sql_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		log_warnx("store: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int
store_sql_prepare_list(sqlite3 *db, const char *head, const char *item,
    int n, const char *tail, sqlite3_stmt **st)
{
	size_t hl = strlen(head), il = strlen(item), tl = strlen(tail), off;
	char *sql = malloc(hl + (size_t)n * (il + 1) + tl + 1);
	int rc;

	if (sql == NULL) {
		log_warn("store");
		return -1;
	}
	memcpy(sql, head, hl);
	off = hl;
	for (int i = 0; i < n; i++) {
		if (i > 0)
			sql[off++] = ',';
		memcpy(sql + off, item, il);
		off += il;
	}
	memcpy(sql + off, tail, tl + 1);
	rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
	free(sql);
	if (rc != SQLITE_OK) {
		log_warnx("store: %s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

/* ROLLBACK, unless the failed statement ended the transaction already
 * (SQLite does on some errors): then it would only fail again. */
int
store_sql_rollback(sqlite3 *db)
{
	if (sqlite3_get_autocommit(db))
		return 0;
	return store_sql_exec(db, "ROLLBACK");
}

/* COMMIT, or ROLLBACK when it fails: a transaction left open would take
 * in every later write, and lose them all with the process. */
int
store_sql_commit(sqlite3 *db)
{
	if (store_sql_exec(db, "COMMIT") == 0)
		return 0;
	(void)store_sql_rollback(db);
	return -1;
}

int
store_schema_get(sqlite3 *db)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

int
store_schema_check(sqlite3 *db, const char *path)
{
	int v = store_schema_get(db);

	if (v < 0) {
		log_warnx("store: %s: not a readable SQLite database: %s",
		    path, sqlite3_errmsg(db));
		return -1;
	}
	if (v > STORE_SCHEMA_VERSION) {
		/* Never touch data written by a newer release. */
		log_warnx("store: %s: schema version %d (a later release) is "
		    "newer than this release supports (%d); the database is "
		    "left untouched (docs/upgrades.md)", path, v,
		    STORE_SCHEMA_VERSION);
		return -1;
	}
	return v;
}

/* ---- Releases */

/* A release as numbers: "1:0.2.0~rc1-3" is 0, 2, 0, before 0.2.0. */
struct rel {
	unsigned long	n[4];
	int		tilde;
};

static void
rel_parse(const char *v, struct rel *r)
{
	const char *epoch = strchr(v, ':');
	char *end;

	memset(r, 0, sizeof(*r));
	if (epoch != NULL)
		v = epoch + 1;
	for (int i = 0; i < 4 && isdigit((unsigned char)*v); i++) {
		r->n[i] = strtoul(v, &end, 10);
		v = end;
		if (*v != '.')
			break;
		v++;
	}
	r->tilde = *v == '~';
}

int
store_release_cmp(const char *a, const char *b)
{
	struct rel x, y;

	rel_parse(a, &x);
	rel_parse(b, &y);
	for (int i = 0; i < 4; i++)
		if (x.n[i] != y.n[i])
			return x.n[i] < y.n[i] ? -1 : 1;
	return y.tilde - x.tilde;
}

int
store_schema_of_release(const char *rel)
{
	int schema = 0;

	if (store_release_cmp(rel, releases[NRELEASES - 1].release) > 0)
		return -1;
	for (size_t i = 0; i < NRELEASES &&
	    store_release_cmp(releases[i].release, rel) <= 0; i++)
		schema = releases[i].schema;
	return schema;
}

const char *
store_schema_releases(int schema, char *buf, size_t len)
{
	const char *first = NULL, *last = NULL;

	for (size_t i = 0; i < NRELEASES; i++)
		if (releases[i].schema == schema) {
			if (first == NULL)
				first = releases[i].release;
			last = releases[i].release;
		}
	if (first == NULL)
		snprintf(buf, len, "unknown");
	else if (first == last)
		snprintf(buf, len, "%s", first);
	else
		snprintf(buf, len, "%s to %s", first, last);
	return buf;
}

/* ---- Meta */

static void
meta_row(sqlite3_stmt *st, struct store_info *info)
{
	const char *k = (const char *)sqlite3_column_text(st, 0);
	const char *v = (const char *)sqlite3_column_text(st, 1);

	if (k == NULL || v == NULL)
		return;
	if (strcmp(k, "release") == 0)
		snprintf(info->release, sizeof(info->release), "%s", v);
	else if (strcmp(k, "previous-release") == 0)
		snprintf(info->previous, sizeof(info->previous), "%s", v);
	else if (strcmp(k, "backup") == 0)
		snprintf(info->backup, sizeof(info->backup), "%s", v);
	else if (strcmp(k, "opened") == 0)
		info->opened = sqlite3_column_int64(st, 1);
	else if (strcmp(k, "migrated") == 0)
		info->migrated = sqlite3_column_int64(st, 1);
	else if (strcmp(k, "migrated-from") == 0)
		info->migrated_from = sqlite3_column_int(st, 1);
}

void
store_schema_meta(sqlite3 *db, struct store_info *info)
{
	sqlite3_stmt *st;

	memset(info, 0, sizeof(*info));
	if (db == NULL)
		return;
	info->schema = store_schema_get(db);
	if (info->schema < META_SCHEMA || sqlite3_prepare_v2(db,
	    "SELECT key, value FROM meta", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW)
		meta_row(st, info);
	sqlite3_finalize(st);
}

static int
meta_set(sqlite3 *db, const char *key, const char *text, int64_t num)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta (key, value) "
	    "VALUES (?1, ?2)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (text != NULL)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 2, num);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Values other modules keep in meta (gateway/snmp_engine.c: the SNMP
 * engine's ID and boots). The table is schema 7's key/value, so such a
 * key needs no migration, and store_schema_meta() reads past keys it
 * does not know, as release 0.2.0 does. Off every hot path: these run
 * at start and on an HA promotion. */

static sqlite3 *schema_db;

void
store_schema_attach(sqlite3 *db)
{
	schema_db = db;
}

static sqlite3_stmt *
meta_lookup(const char *key, int *rc)
{
	sqlite3 *db = schema_db;
	sqlite3_stmt *st = NULL;

	*rc = -1;
	if (db == NULL || sqlite3_prepare_v2(db, "SELECT value FROM meta "
	    "WHERE key = ?1", -1, &st, NULL) != SQLITE_OK) {
		log_warnx("store: meta %s: %s", key, db ? sqlite3_errmsg(db) :
		    "no database open");
		return NULL;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		*rc = 1;
		return st;
	case SQLITE_DONE:
		*rc = 0;
		break;
	default:
		log_warnx("store: meta %s: %s", key, sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	return NULL;
}

int
store_meta_get_int(const char *key, int64_t *v)
{
	int rc;
	sqlite3_stmt *st = meta_lookup(key, &rc);

	if (st == NULL)
		return rc;
	if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
		log_warnx("store: meta %s is '%.40s', not an integer", key,
		    (const char *)sqlite3_column_text(st, 0));
		rc = -1;
	} else
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc;
}

int
store_meta_get_text(const char *key, char *buf, size_t len)
{
	int rc;
	sqlite3_stmt *st = meta_lookup(key, &rc);
	const char *t;

	if (st == NULL)
		return rc;
	t = (const char *)sqlite3_column_text(st, 0);
	if (sqlite3_column_type(st, 0) != SQLITE_TEXT || t == NULL ||
	    (size_t)snprintf(buf, len, "%s", t) >= len) {
		log_warnx("store: meta %s is '%.40s', not a text of at most "
		    "%zu characters", key, t ? t : "", len - 1);
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

static int
meta_put(const char *key, const char *text, int64_t num, int durable)
{
	sqlite3 *db = schema_db;
	int rc;

	if (db == NULL) {
		log_warnx("store: meta %s: no database open", key);
		return -1;
	}
	/* In WAL mode, FULL syncs the WAL at this commit (NORMAL waits
	 * for a checkpoint); outside a transaction, so it applies. */
	if (durable && store_sql_exec(db, "PRAGMA synchronous = FULL") == -1)
		return -1;
	rc = meta_set(db, key, text, num);
	if (rc == -1)
		log_warnx("store: meta %s not written: %s", key,
		    sqlite3_errmsg(db));
	if (durable && store_sql_exec(db, "PRAGMA synchronous = NORMAL") == -1)
		rc = -1;
	return rc;
}

int
store_meta_put_int(const char *key, int64_t v, int durable)
{
	return meta_put(key, NULL, v, durable);
}

int
store_meta_put_text(const char *key, const char *v, int durable)
{
	return meta_put(key, v, 0, durable);
}

/* This release opened the database at now; before it, old.release (or,
 * on a database without meta, a release of schema from) had. */
static int
meta_record(sqlite3 *db, int from, const struct store_info *old,
    const char *backup, int64_t now)
{
	char prev[STORE_RELEASE_LEN];
	int migrated = from > 0 && from < STORE_SCHEMA_VERSION;

	if (old->release[0] != '\0')
		snprintf(prev, sizeof(prev), "%s", old->release);
	else if (from > 0)
		store_schema_releases(from, prev, sizeof(prev));
	else
		prev[0] = '\0';
	if (store_sql_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	if (meta_set(db, "release", PACKAGE_VERSION, 0) == -1 ||
	    meta_set(db, "opened", NULL, now) == -1 ||
	    (prev[0] != '\0' && strcmp(prev, PACKAGE_VERSION) != 0 &&
	    meta_set(db, "previous-release", prev, 0) == -1) ||
	    (migrated && (meta_set(db, "migrated-from", NULL, from) == -1 ||
	    meta_set(db, "migrated", NULL, now) == -1 ||
	    meta_set(db, "backup", backup, 0) == -1))) {
		log_warnx("store: recording this release in meta: %s",
		    sqlite3_errmsg(db));
		(void)store_sql_rollback(db);
		return -1;
	}
	return store_sql_commit(db);
}

/* ---- Migrations */

/* The database as it is before a migration, at out: the way back to
 * the release that wrote it. Written under a temporary name and
 * renamed, so that a file under that name is always whole. */
static int
backup(sqlite3 *db, const char *path, int from, char *out, size_t len)
{
	char tmp[PATH_MAX + 16];
	sqlite3 *dst = NULL;
	sqlite3_backup *b;
	int rc = SQLITE_NOMEM;

	if ((size_t)snprintf(out, len, "%s.schema%d.bak", path, from) >= len) {
		log_warnx("store: %s: path too long for a copy; not migrated",
		    path);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	unlink(tmp);
	if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE, NULL) == SQLITE_OK &&
	    (b = sqlite3_backup_init(dst, "main", db, "main")) != NULL) {
		rc = sqlite3_backup_step(b, -1);
		sqlite3_backup_finish(b);
	}
	if (rc != SQLITE_DONE) {
		log_warnx("store: %s: cannot copy the database before "
		    "migrating it (%s); not migrated", tmp, dst ?
		    sqlite3_errmsg(dst) : "out of memory");
		sqlite3_close(dst);
		unlink(tmp);
		return -1;
	}
	sqlite3_close(dst);
	if (rename(tmp, out) == -1) {
		log_warn("store: %s", out);
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int
migrate_step(sqlite3 *db, const char *path, int v)
{
	char sql[64];

	if (store_sql_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
	if (store_sql_exec(db, migrations[v]) == -1 ||
	    store_sql_exec(db, sql) == -1) {
		(void)store_sql_rollback(db);
		log_warnx("store: %s: migration to version %d failed", path,
		    v + 1);
		return -1;
	}
	if (store_sql_commit(db) == -1)
		return -1;
	log_info("store: %s: schema now at version %d", path, v + 1);
	return 0;
}

int
store_schema_migrate(sqlite3 *db, const char *path, int from)
{
	struct store_info old;
	char copy[PATH_MAX] = "", rel[64];
	int64_t now = (int64_t)time(NULL);

	store_schema_meta(db, &old);
	if (from > 0 && from < STORE_SCHEMA_VERSION &&
	    backup(db, path, from, copy, sizeof(copy)) == -1)
		return -1;
	for (int v = from; v < STORE_SCHEMA_VERSION; v++)
		if (migrate_step(db, path, v) == -1)
			return -1;
	/* The new version in the file itself, not only in the WAL. */
	if (from < STORE_SCHEMA_VERSION)
		store_sql_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
	if (meta_record(db, from, &old, copy, now) == -1)
		return -1;
	if (copy[0] != '\0')
		log_info("store: %s: written by ibsnmpgw %s (schema %d), "
		    "migrated to schema %d; the schema-%d copy is %s", path,
		    store_schema_releases(from, rel, sizeof(rel)), from,
		    STORE_SCHEMA_VERSION, from, copy);
	else if (old.release[0] != '\0' &&
	    strcmp(old.release, PACKAGE_VERSION) != 0)
		log_info("store: %s: last opened by ibsnmpgw %s, now by %s",
		    path, old.release, PACKAGE_VERSION);
	return 0;
}

/* ---- Looking without touching */

/* "file:" URI of path (RFC 3986 percent-encoding) with a query. */
static int
uri(const char *path, const char *query, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "file:");

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (n + 4 >= len)
			return -1;
		if (isalnum(*p) || strchr("/._-~", *p))
			buf[n++] = (char)*p;
		else
			n += (size_t)snprintf(buf + n, len - n, "%%%02X", *p);
	}
	return (size_t)snprintf(buf + n, len - n, "?%s", query) < len - n ?
	    0 : -1;
}

/* Both -wal and -shm exist while a connection has the database open: a
 * read-only connection uses them and creates nothing. Otherwise the
 * file alone is the whole database, read as immutable: a read-only
 * connection would create both files, as the user asking (root, in a
 * maintainer script), where the daemon could no longer open them. */
static int
open_ro(const char *path, sqlite3 **db)
{
	char side[PATH_MAX + 8], u[3 * PATH_MAX + 32];
	int live;

	snprintf(side, sizeof(side), "%s-wal", path);
	live = access(side, F_OK) == 0;
	snprintf(side, sizeof(side), "%s-shm", path);
	live = live && access(side, F_OK) == 0;
	if (uri(path, live ? "mode=ro" : "immutable=1", u, sizeof(u)) == -1)
		return -1;
	return sqlite3_open_v2(u, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
	    NULL) == SQLITE_OK ? 0 : -1;
}

int
store_schema_inspect(const char *path, struct store_info *info)
{
	sqlite3 *db = NULL;

	memset(info, 0, sizeof(*info));
	if (access(path, F_OK) == -1) {
		if (errno == ENOENT)
			return 0;
		log_warn("store: %s", path);
		return -1;
	}
	if (open_ro(path, &db) == -1 || store_schema_get(db) < 0) {
		log_warnx("store: %s: not a readable SQLite database: %s",
		    path, db ? sqlite3_errmsg(db) : "path too long");
		sqlite3_close(db);
		return -1;
	}
	store_schema_meta(db, info);
	sqlite3_close(db);
	return 0;
}
