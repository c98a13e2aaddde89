/* store_schema: the database's schema version and its migrations, the
 * copy taken before a migration, what the database records about the
 * releases that opened it, and which release reads which schema
 * (docs/upgrades.md). */
#ifndef IBSNMPGW_STORE_SCHEMA_H
#define IBSNMPGW_STORE_SCHEMA_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct sqlite3;
struct sqlite3_stmt;

/* The schema this release writes (store/schema.c: its migrations and
 * the table of releases, to be extended together). */
#define STORE_SCHEMA_VERSION	8
#define STORE_RELEASE_LEN	32

/* What a database says about itself. Empty strings and zeros: not
 * recorded (a database of schema 6 or older has no meta table). */
struct store_info {
	int	schema;		/* PRAGMA user_version; 0: no database */
	char	release[STORE_RELEASE_LEN];	/* last opened by */
	int64_t	opened;		/* then; unix seconds */
	char	previous[STORE_RELEASE_LEN];	/* the release before */
	int	migrated_from;	/* schema before the last migration */
	int64_t	migrated;	/* when; unix seconds */
	char	backup[PATH_MAX];	/* the copy taken before it */
};

/* The store's open database (NULL: closed), where the meta values
 * below are kept. */
void	 store_schema_attach(struct sqlite3 *db);
/* sqlite3_exec, its error logged; -1 then. */
int	 store_sql_exec(struct sqlite3 *db, const char *sql);
int	 store_sql_commit(struct sqlite3 *db);
/* Prepare head, then item n times joined by commas, then tail: a
 * statement that writes n rows at once (a statement's own cost is most
 * of a small row's). 0, or -1 (logged). */
int	 store_sql_prepare_list(struct sqlite3 *db, const char *head,
	    const char *item, int n, const char *tail,
	    struct sqlite3_stmt **st);
int	 store_sql_rollback(struct sqlite3 *db);
/* The schema version of an open database; -1 if it is not one. */
int	 store_schema_get(struct sqlite3 *db);
/* Before anything is written: the version of the database at path,
 * or -1 (logged) if it is unreadable or newer than this release
 * supports, in which case it is left exactly as it was. */
int	 store_schema_check(struct sqlite3 *db, const char *path);
/* Take the database from schema version from to this release's: a
 * copy first (path.schemaN.bak), then one transaction per step; then
 * record this release in meta. Returns -1 (logged) on failure, the
 * database unchanged by the failed step. */
int	 store_schema_migrate(struct sqlite3 *db, const char *path, int from);
/* The meta records of an open database of this release's schema. */
void	 store_schema_meta(struct sqlite3 *db, struct store_info *info);
/* Read the database at path without changing anything there, nor
 * creating a file next to it: schema 0 if there is none. -1 (logged)
 * if it cannot be read. */
int	 store_schema_inspect(const char *path, struct store_info *info);

/* Values of other modules in the meta table of the open database
 * (store_init): get returns 1 and the value, 0 if the key is absent,
 * -1 (logged, naming key and value) if it cannot be read or is not of
 * the type asked. put replaces the value in one transaction; durable:
 * that commit is synced to disk before it returns (synchronous=FULL),
 * where the store otherwise syncs only at checkpoints. -1 (logged) if
 * the value was not written. */
int	 store_meta_get_int(const char *key, int64_t *v);
int	 store_meta_get_text(const char *key, char *buf, size_t len);
int	 store_meta_put_int(const char *key, int64_t v, int durable);
int	 store_meta_put_text(const char *key, const char *v, int durable);

/* The schema version release rel reads and writes (an epoch and a
 * Debian revision ignored): 0 if it is older than the first release,
 * -1 if it is newer than this one. */
int	 store_schema_of_release(const char *rel);
/* The releases that write schema, "0.1.0" or "0.1.0 to 0.1.2";
 * "unknown" if none. */
const char *store_schema_releases(int schema, char *buf, size_t len);
/* <0, 0, >0 as release a is older than, the same as or newer than b. */
int	 store_release_cmp(const char *a, const char *b);

#endif
