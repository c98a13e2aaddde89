/* store_rows: the nodes and ports tables as sweeps and re-reads write
 * them (store.c keeps the inventory in memory). */
#ifndef IBSNMPGW_STORE_ROWS_H
#define IBSNMPGW_STORE_ROWS_H

#include <stddef.h>
#include <stdint.h>

struct sqlite3;
struct store_node;

/* The end of a sweep, in one transaction: each node's row and (seen[i]
 * set) its ports' rows where they differ from what was last written,
 * last_seen where only it moved, and the sweeps record. -1 (logged,
 * rolled back, every node then written again next time) on failure. */
int	 store_rows_sweep(struct sqlite3 *db, struct store_node **nodes,
	    const uint8_t *seen, size_t count, unsigned nseen, unsigned ngone);
/* n and all its ports as they are in memory, in one transaction. */
int	 store_rows_save(struct sqlite3 *db, struct store_node *n);

#endif
