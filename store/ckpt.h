/* store_ckpt: WAL checkpoints in a thread of their own (ckpt.c). */
#ifndef IBSNMPGW_STORE_CKPT_H
#define IBSNMPGW_STORE_CKPT_H

#include <sqlite3.h>

/* db's checkpoints from now on run in a thread, on a connection of its
 * own to path. -1, logged, when one cannot be had: db then checkpoints
 * as sqlite does by itself. An in-memory database has none to run. */
int	store_ckpt_init(sqlite3 *db, const char *path);
void	store_ckpt_finalise(sqlite3 *db);
struct store_ckpt_stats {
	unsigned long	asked;	/* commits that left the log long */
	unsigned long	done;	/* checkpoints the thread ran */
	unsigned long	loop;	/* the loop's own: the log far too long */
};
void	store_ckpt_stats(struct store_ckpt_stats *s);

#endif
