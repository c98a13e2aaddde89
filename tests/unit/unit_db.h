/* unit_db: what a unit test's store leaves on disk, removed: the
 * database and SQLite's WAL and shared-memory files beside it. */
#ifndef IBSNMPGW_UNIT_DB_H
#define IBSNMPGW_UNIT_DB_H

#include <limits.h>
#include <stdio.h>
#include <unistd.h>

static inline void
unit_db_remove(const char *path)
{
	char p[PATH_MAX];

	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
}

#endif
