/* store_ckpt: WAL checkpoints off the loop.
 *
 * In WAL mode the commit that takes the log past wal_autocheckpoint
 * pages copies it back into the database and syncs both, in the thread
 * that commits: the loop, which then answered nothing for 20-23 ms
 * every few sweeps of 2,000 nodes. Here the loop's connection never
 * checkpoints. Its commits say how long the log is (sqlite3_wal_hook),
 * and past STORE_CKPT_PAGES a thread of its own, on a connection of its
 * own, runs a PASSIVE checkpoint, which never waits for the writer nor
 * makes it wait (sqlite.org/wal.html, "Checkpointing"). The writer's
 * next transaction after a complete one starts the log over, so the log
 * stays near that length.
 *
 * Should the thread fall behind (a slow disk) or fail, the loop
 * checkpoints itself once the log is STORE_CKPT_BACKSTOP times longer:
 * a stall, not a log without bound. */
#include "config.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "store/ckpt.h"
#include "util/log.h"

/* sqlite's own wal_autocheckpoint default: about 4 MB of log. */
#define STORE_CKPT_PAGES	1000
#define STORE_CKPT_BACKSTOP	8

static struct {
	sqlite3		*db;		/* the thread's; NULL: no thread */
	pthread_t	 thread;
	pthread_mutex_t	 lock;
	pthread_cond_t	 cv;
	int		 want, stop;	/* under lock */
	int		 err;		/* under lock: the last failure */
	char		 errmsg[128];	/* under lock */
	atomic_ulong	 done;		/* checkpoints the thread ran */
	unsigned long	 inline_done;	/* the loop's own (backstop) */
	unsigned long	 asked;		/* commits that asked for one */
} ck = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
};

static void *
ckpt_thread(void *arg)
{
	int nlog, nckpt, rc;

	(void)arg;
	pthread_mutex_lock(&ck.lock);
	for (;;) {
		while (!ck.want && !ck.stop)
			pthread_cond_wait(&ck.cv, &ck.lock);
		if (ck.stop)
			break;
		ck.want = 0;
		pthread_mutex_unlock(&ck.lock);
		rc = sqlite3_wal_checkpoint_v2(ck.db, NULL,
		    SQLITE_CHECKPOINT_PASSIVE, &nlog, &nckpt);
		pthread_mutex_lock(&ck.lock);
		if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
			/* Told by the loop, which logs (log.c is the loop's). */
			ck.err = rc;
			snprintf(ck.errmsg, sizeof(ck.errmsg), "%s",
			    sqlite3_errmsg(ck.db));
		} else
			atomic_fetch_add(&ck.done, 1);
	}
	pthread_mutex_unlock(&ck.lock);
	return NULL;
}

/* After each commit of the loop's connection, in the loop. */
static int
wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	int nlog, nckpt, err;
	char msg[sizeof(ck.errmsg)];

	(void)arg;
	if (pages < STORE_CKPT_PAGES)
		return SQLITE_OK;
	ck.asked++;
	pthread_mutex_lock(&ck.lock);
	ck.want = 1;
	err = ck.err;
	ck.err = 0;
	memcpy(msg, ck.errmsg, sizeof(msg));
	pthread_cond_signal(&ck.cv);
	pthread_mutex_unlock(&ck.lock);
	if (err != 0)
		log_warnx("store: checkpoint: %s", msg);
	if (pages >= STORE_CKPT_PAGES * STORE_CKPT_BACKSTOP) {
		/* The thread is behind: the loop waits this once. */
		if (sqlite3_wal_checkpoint_v2(db, name,
		    SQLITE_CHECKPOINT_PASSIVE, &nlog, &nckpt) == SQLITE_OK)
			ck.inline_done++;
	}
	return SQLITE_OK;
}

static int
is_wal(sqlite3 *db)
{
	sqlite3_stmt *st;
	int wal = 0;

	if (sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st,
	    NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) &&
	    strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0)
		wal = 1;
	sqlite3_finalize(st);
	return wal;
}

int
store_ckpt_init(sqlite3 *db, const char *path)
{
	const char *file = sqlite3_db_filename(db, "main");

	if (ck.db != NULL || file == NULL || *file == '\0')
		return 0;	/* already, or in memory: no log */
	if (sqlite3_open_v2(path, &ck.db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		log_warnx("store: %s: a connection for checkpoints: %s; the "
		    "loop checkpoints", path, ck.db != NULL ?
		    sqlite3_errmsg(ck.db) : "cannot open");
		sqlite3_close(ck.db);
		ck.db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(ck.db, 2000);
	/* A connection reads the file, and finds the log, only when first
	 * used: before, a checkpoint on it does nothing. */
	if (!is_wal(ck.db)) {
		sqlite3_close(ck.db);
		ck.db = NULL;
		return 0;	/* no log: sqlite's own way */
	}
	ck.want = ck.stop = ck.err = 0;
	if (pthread_create(&ck.thread, NULL, ckpt_thread, NULL) != 0) {
		log_warnx("store: no checkpoint thread; the loop checkpoints");
		sqlite3_close(ck.db);
		ck.db = NULL;
		return -1;
	}
	/* Replaces the automatic checkpoint, which the hook also is. */
	sqlite3_wal_hook(db, wal_hook, NULL);
	return 0;
}

void
store_ckpt_finalise(sqlite3 *db)
{
	if (ck.db == NULL)
		return;
	if (db != NULL)
		sqlite3_wal_hook(db, NULL, NULL);
	pthread_mutex_lock(&ck.lock);
	ck.stop = 1;
	pthread_cond_signal(&ck.cv);
	pthread_mutex_unlock(&ck.lock);
	pthread_join(ck.thread, NULL);
	sqlite3_close(ck.db);
	ck.db = NULL;
}

void
store_ckpt_stats(struct store_ckpt_stats *s)
{
	s->asked = ck.asked;
	s->done = atomic_load(&ck.done);
	s->loop = ck.inline_done;
}
