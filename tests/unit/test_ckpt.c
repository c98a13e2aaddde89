/* store_ckpt (store/ckpt.c): the loop's connection never checkpoints
 * (its commits return at once), the thread does once the log passes a
 * thousand pages, so the log stays near that length however much is
 * written; nothing written is lost; an in-memory database starts no
 * thread, so one opened after it gets its own; finalise stops it and
 * init works again. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <cmocka.h>

#include "store/ckpt.h"
#include "unit_db.h"

static char db_path[64];

static sqlite3 *
open_wal(void)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = WAL; "
	    "PRAGMA synchronous = NORMAL; CREATE TABLE IF NOT EXISTS t "
	    "(k INTEGER PRIMARY KEY, v BLOB)", NULL, NULL, NULL), SQLITE_OK);
	return db;
}

static off_t
wal_size(void)
{
	char p[80];
	struct stat st;

	snprintf(p, sizeof(p), "%s-wal", db_path);
	return stat(p, &st) == 0 ? st.st_size : 0;
}

static struct store_ckpt_stats
stats(void)
{
	struct store_ckpt_stats s;

	store_ckpt_stats(&s);
	return s;
}

static unsigned long
thread_done(void)
{
	return stats().done;
}

/* One transaction of n 4 KB rows from key k. */
static void
put(sqlite3 *db, int k, int n)
{
	static uint8_t blob[4000];
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO t "
	    "VALUES (?, ?)", -1, &st, NULL), SQLITE_OK);
	for (int i = 0; i < n; i++) {
		memset(blob, k + i, sizeof(blob));
		sqlite3_bind_int(st, 1, k + i);
		sqlite3_bind_blob(st, 2, blob, sizeof(blob), SQLITE_STATIC);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL),
	    SQLITE_OK);
}

/* Until the thread has run more than before (bounded). */
static void
wait_thread(unsigned long before)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };

	for (int i = 0; i < 2000 && thread_done() <= before; i++)
		nanosleep(&ts, NULL);
	assert_true(thread_done() > before);
}

/* 1,200 rows (4.8 MB, past the thread's 1,000 pages), then until the
 * thread has checkpointed. */
static void
fill(sqlite3 *db)
{
	unsigned long before = thread_done();

	for (int k = 0; k < 1200; k += 25)
		put(db, k, 25);
	wait_thread(before);
}

static void
test_bounded(void **state)
{
	sqlite3 *db;
	struct store_ckpt_stats s;
	unsigned long before, asked;
	off_t peak = 0;

	(void)state;
	db = open_wal();
	assert_int_equal(store_ckpt_init(db, db_path), 0);
	/* 40 MB in 100 KB transactions: ten times the log's bound. A
	 * commit that asked for a checkpoint waits for the thread to run
	 * one, as a writer slower than the disk would not need to. */
	for (int k = 0; k < 10000; k += 25) {
		before = thread_done();
		asked = stats().asked;
		put(db, k, 25);
		if (stats().asked > asked)
			wait_thread(before);
		if (wal_size() > peak)
			peak = wal_size();
	}
	s = stats();
	print_message("log at most %lld octets; %lu asked, %lu run, %lu by "
	    "the loop\n", (long long)peak, s.asked, s.done, s.loop);
	assert_true(s.asked >= 5);
	assert_true(s.done >= 5);
	assert_int_equal(s.loop, 0);	/* the loop never waited */
	/* Two thousand pages at most, with the frames' headers (a
	 * checkpoint under way when one is asked may miss that commit's
	 * frames: the next one takes them); 40 MB without the thread. */
	assert_true(peak > 0);
	assert_true(peak < 2100 * (4096 + 24) + 32);
	store_ckpt_finalise(db);
	sqlite3_close(db);

	/* Everything is there. */
	db = open_wal();
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*), "
	    "sum(length(v)) FROM t", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 10000);
	assert_int_equal(sqlite3_column_int64(st, 1), 10000LL * 4000);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Without the thread, the hook is gone: sqlite's own checkpoints. */
static void
test_again(void **state)
{
	sqlite3 *db = open_wal();

	(void)state;
	assert_int_equal(store_ckpt_init(db, db_path), 0);
	store_ckpt_finalise(db);
	assert_int_equal(store_ckpt_init(db, db_path), 0);
	fill(db);
	store_ckpt_finalise(db);
	sqlite3_close(db);
}

/* An in-memory database has no log: no thread, and a file's database
 * opened after it gets one. */
static void
test_memory(void **state)
{
	sqlite3 *mem = NULL, *db;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &mem), SQLITE_OK);
	assert_int_equal(store_ckpt_init(mem, ":memory:"), 0);
	assert_int_equal(sqlite3_exec(mem, "CREATE TABLE t (k, v)", NULL,
	    NULL, NULL), SQLITE_OK);
	db = open_wal();
	assert_int_equal(store_ckpt_init(db, db_path), 0);
	fill(db);
	store_ckpt_finalise(db);
	store_ckpt_finalise(mem);	/* nothing of its own to stop */
	sqlite3_close(db);
	sqlite3_close(mem);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(db_path, sizeof(db_path), "/tmp/test_ckpt.%d.db",
	    (int)getpid());
	unit_db_remove(db_path);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unit_db_remove(db_path);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
