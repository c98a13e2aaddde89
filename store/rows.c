/* store_rows: the nodes and ports tables as sweeps and re-reads write
 * them. A sweep compares each node with what it last wrote and writes
 * only what changed: rewriting every row was a third of a sweep's CPU
 * at 2,000 nodes, for a fabric that almost never changes. */
#include "config.h"

#include <sqlite3.h>
#include <string.h>

#include "store/rows.h"
#include "store/schema.h"
#include "store/node.h"
#include "util/ev.h"
#include "util/log.h"

static void
blob_bind(sqlite3_stmt *st, int col, int ok, const uint8_t *b)
{
	if (ok)
		sqlite3_bind_blob(st, col, b, STORE_SMP_LEN, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, col);
}

#define NODE_ROW_SQL "INSERT OR REPLACE INTO nodes (guid, type, " \
	"description, num_ports, vendor_id, device_id, revision, " \
	"system_guid, lid, route, first_seen, last_seen, reachable, " \
	"unsupported, nodeinfo, switchinfo, tunnel, tunnel_probed, idx) " \
	"VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
#define PORT_ROW_SQL "INSERT OR REPLACE INTO ports (node_guid, " \
	"port_num, guid, lid, lmc, state, phys_state, width, speed, " \
	"remote_guid, remote_port, route, portinfo) VALUES " \
	"(?,?,?,?,?,?,?,?,?,?,?,?,?)"

static int
bind_port_row(sqlite3_stmt *st, const struct store_node *n,
    const struct store_port *p)
{
	char route[4 * STORE_PATH_MAX + 4] = "";

	if (p->route.hop[0] != 0xff)
		store_path_format(&p->route, route, sizeof(route));
	sqlite3_bind_int64(st, 1, (int64_t)n->guid);
	sqlite3_bind_int(st, 2, p->num);
	sqlite3_bind_int64(st, 3, (int64_t)p->guid);
	sqlite3_bind_int(st, 4, p->lid);
	sqlite3_bind_int(st, 5, p->lmc);
	sqlite3_bind_int(st, 6, p->state);
	sqlite3_bind_int(st, 7, p->phys_state);
	sqlite3_bind_int(st, 8, p->width);
	sqlite3_bind_int(st, 9, p->speed);
	sqlite3_bind_int64(st, 10, (int64_t)p->remote_guid);
	sqlite3_bind_int(st, 11, p->remote_port);
	sqlite3_bind_text(st, 12, route, -1, SQLITE_TRANSIENT);
	blob_bind(st, 13, p->pinfo_ok, p->pinfo);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
}

static void
bind_node_row(sqlite3_stmt *nst, const struct store_node *n)
{
	char route[4 * STORE_PATH_MAX + 4];

	store_path_format(&n->route, route, sizeof(route));
	sqlite3_bind_int64(nst, 1, (int64_t)n->guid);
	sqlite3_bind_int(nst, 2, n->type);
	sqlite3_bind_text(nst, 3, n->desc, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(nst, 4, n->num_ports);
	sqlite3_bind_int(nst, 5, n->vendor_id);
	sqlite3_bind_int(nst, 6, n->device_id);
	sqlite3_bind_int64(nst, 7, n->revision);
	sqlite3_bind_int64(nst, 8, (int64_t)n->system_guid);
	sqlite3_bind_int(nst, 9, n->lid);
	sqlite3_bind_text(nst, 10, route, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(nst, 11, n->first_seen);
	sqlite3_bind_int64(nst, 12, n->last_seen);
	sqlite3_bind_int(nst, 13, n->reachable);
	sqlite3_bind_int(nst, 14, n->unsupported);
	blob_bind(nst, 15, n->ninfo_ok, n->ninfo);
	blob_bind(nst, 16, n->sinfo_ok, n->sinfo);
	sqlite3_bind_int(nst, 17, n->tunnel);
	sqlite3_bind_int64(nst, 18, n->tunnel_probed);
	sqlite3_bind_int64(nst, 19, n->idx);
}

/* A hash of the values a row binds: what a sweep read against what it
 * last wrote (kept in memory only). A multiply and a shift per 8 octets
 * (a switch's rows hash ~4 kB: byte-wise FNV-1a was ~4,000 instructions
 * a node a sweep). */
#define ROW_HASH0	0xcbf29ce484222325ULL
#define ROW_MUL		0x9e3779b97f4a7c15ULL

static uint64_t
row_hash(uint64_t h, const void *v, size_t len)
{
	const uint8_t *b = v;
	uint64_t w;

	for (; len >= 8; b += 8, len -= 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * ROW_MUL;
		h ^= h >> 32;
	}
	if (len > 0) {
		w = 0;
		memcpy(&w, b, len);
		h = (h ^ w ^ (uint64_t)len << 56) * ROW_MUL;
		h ^= h >> 32;
	}
	return h;
}

#define ROW_HASH(h, x)	((h) = row_hash((h), &(x), sizeof(x)))

static uint64_t
path_hash(uint64_t h, const struct store_path *r)
{
	/* The hops store_path_format() writes, and no more. */
	size_t n = r->cnt < STORE_PATH_MAX ? r->cnt + 1u : STORE_PATH_MAX;

	ROW_HASH(h, r->cnt);
	return row_hash(h, r->hop, n);
}

/* bind_node_row()'s values but last_seen. */
static uint64_t
node_row_hash(const struct store_node *n)
{
	uint64_t h = ROW_HASH0;

	ROW_HASH(h, n->type);
	h = row_hash(h, n->desc, strnlen(n->desc, sizeof(n->desc)) + 1);
	ROW_HASH(h, n->num_ports);
	ROW_HASH(h, n->vendor_id);
	ROW_HASH(h, n->device_id);
	ROW_HASH(h, n->revision);
	ROW_HASH(h, n->system_guid);
	ROW_HASH(h, n->lid);
	h = path_hash(h, &n->route);
	ROW_HASH(h, n->first_seen);
	ROW_HASH(h, n->reachable);
	ROW_HASH(h, n->unsupported);
	ROW_HASH(h, n->ninfo_ok);
	if (n->ninfo_ok)
		ROW_HASH(h, n->ninfo);
	ROW_HASH(h, n->sinfo_ok);
	if (n->sinfo_ok)
		ROW_HASH(h, n->sinfo);
	ROW_HASH(h, n->tunnel);
	ROW_HASH(h, n->tunnel_probed);
	ROW_HASH(h, n->idx);
	return h | 1;	/* never 0, "unknown" */
}

/* bind_port_row()'s values for every valid port of n. */
static uint64_t
ports_row_hash(const struct store_node *n)
{
	uint64_t h = ROW_HASH0;

	for (int i = 0; i <= n->num_ports; i++) {
		const struct store_port *p = &n->ports[i];

		if (!p->valid)
			continue;
		ROW_HASH(h, p->num);
		ROW_HASH(h, p->guid);
		ROW_HASH(h, p->lid);
		ROW_HASH(h, p->lmc);
		ROW_HASH(h, p->state);
		ROW_HASH(h, p->phys_state);
		ROW_HASH(h, p->width);
		ROW_HASH(h, p->speed);
		ROW_HASH(h, p->remote_guid);
		ROW_HASH(h, p->remote_port);
		ROW_HASH(h, p->route.hop[0]);
		if (p->route.hop[0] != 0xff)
			h = path_hash(h, &p->route);
		ROW_HASH(h, p->pinfo_ok);
		if (p->pinfo_ok)
			ROW_HASH(h, p->pinfo);
	}
	return h | 1;
}

/* What the database holds of n is not known: its next sweep writes it
 * whole. */
static void
rows_forget(struct store_node *n)
{
	n->disk_row = n->disk_ports = 0;
	n->disk_seen = 0;
}

/* A sweep of an unchanged fabric moves only last_seen, to one value
 * for every node it saw: one UPDATE for LAST_BATCH nodes, not one each
 * (a statement's step was ~10,000 instructions). */
#define LAST_BATCH	128

struct last_batch {
	sqlite3_stmt		*st;
	int64_t			 value;
	int			 n;
	struct store_node	*nodes[LAST_BATCH];
};

static int
last_flush(struct last_batch *lb)
{
	if (lb->n == 0)
		return 0;
	sqlite3_bind_int64(lb->st, 1, lb->value);
	/* The batch's last GUID again fills the unused places. */
	for (int i = 0; i < LAST_BATCH; i++)
		sqlite3_bind_int64(lb->st, 2 + i,
		    (int64_t)lb->nodes[i < lb->n ? i : lb->n - 1]->guid);
	if (sqlite3_step(lb->st) != SQLITE_DONE)
		return -1;
	sqlite3_reset(lb->st);
	for (int i = 0; i < lb->n; i++)
		lb->nodes[i]->disk_seen = lb->value;
	lb->n = 0;
	return 0;
}

/* n's last_seen, with the batch's when they agree. */
static int
last_add(struct last_batch *lb, sqlite3_stmt *lst, struct store_node *n)
{
	if (lb->n > 0 && n->last_seen != lb->value) {
		sqlite3_bind_int64(lst, 1, n->last_seen);
		sqlite3_bind_int64(lst, 2, (int64_t)n->guid);
		if (sqlite3_step(lst) != SQLITE_DONE)
			return -1;
		sqlite3_reset(lst);
		n->disk_seen = n->last_seen;
		return 0;
	}
	lb->value = n->last_seen;
	lb->nodes[lb->n++] = n;
	return lb->n == LAST_BATCH ? last_flush(lb) : 0;
}

/* n's rows, those that differ from what the database holds. */
static int
sweep_write(sqlite3_stmt *nst, sqlite3_stmt *pst, sqlite3_stmt *lst,
    struct last_batch *lb, struct store_node *n, int seen)
{
	uint64_t h = node_row_hash(n);

	if (h != n->disk_row) {
		bind_node_row(nst, n);
		if (sqlite3_step(nst) != SQLITE_DONE)
			return -1;
		sqlite3_reset(nst);
		n->disk_row = h;
		n->disk_seen = n->last_seen;
	} else if (n->last_seen != n->disk_seen &&
	    last_add(lb, lst, n) == -1)
		return -1;
	if (!seen)
		return 0;	/* ports keep their last known state */
	if ((h = ports_row_hash(n)) == n->disk_ports)
		return 0;
	for (int p = 0; p <= n->num_ports; p++) {
		if (!n->ports[p].valid)
			continue;
		if (bind_port_row(pst, n, &n->ports[p]) == -1)
			return -1;
		sqlite3_reset(pst);
	}
	n->disk_ports = h;
	return 0;
}

/* nodes[0..count) in one transaction, each as sweep_write() says; the
 * sweeps record after them if nseen is not NULL. */
static int
rows_write(sqlite3 *db, struct store_node **nodes, const uint8_t *seen,
    size_t count, const unsigned *nseen, unsigned ngone, const char *what)
{
	sqlite3_stmt *nst = NULL, *pst = NULL, *sst = NULL, *lst = NULL;
	struct last_batch lb;
	int rc = -1;

	lb.st = NULL;
	lb.n = 0;
	if (store_sql_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	if (sqlite3_prepare_v2(db, NODE_ROW_SQL, -1, &nst,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, PORT_ROW_SQL, -1, &pst, NULL) !=
	    SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO sweeps (finished, nodes, "
	    "lost) VALUES (?,?,?)", -1, &sst, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE nodes SET last_seen = ? "
	    "WHERE guid = ?", -1, &lst, NULL) != SQLITE_OK ||
	    store_sql_prepare_list(db, "UPDATE nodes SET last_seen = ?1 "
	    "WHERE guid IN (", "?", LAST_BATCH, ")", &lb.st) == -1)
		goto out;
	for (size_t i = 0; i < count; i++)
		if (sweep_write(nst, pst, lst, &lb, nodes[i], seen[i]) == -1)
			goto out;
	if (last_flush(&lb) == -1)
		goto out;
	if (nseen != NULL) {
		sqlite3_bind_int64(sst, 1, ev_wall());
		sqlite3_bind_int(sst, 2, *nseen);
		sqlite3_bind_int(sst, 3, ngone);
		if (sqlite3_step(sst) != SQLITE_DONE)
			goto out;
	}
	rc = 0;
out:
	if (rc == -1)
		log_warnx("store: writing %s: %s", what, sqlite3_errmsg(db));
	sqlite3_finalize(nst);
	sqlite3_finalize(pst);
	sqlite3_finalize(sst);
	sqlite3_finalize(lst);
	sqlite3_finalize(lb.st);
	if (rc == 0)
		rc = store_sql_commit(db);
	else
		(void)store_sql_rollback(db);
	if (rc == -1) {
		/* What the database holds is no longer known. */
		for (size_t i = 0; i < count; i++)
			rows_forget(nodes[i]);
	}
	return rc;
}

int
store_rows_sweep(sqlite3 *db, struct store_node **nodes, const uint8_t *seen,
    size_t count, unsigned nseen, unsigned ngone)
{
	return rows_write(db, nodes, seen, count, &nseen, ngone, "sweep");
}

int
store_rows_save(sqlite3 *db, struct store_node *n)
{
	static const uint8_t seen = 1;

	rows_forget(n);		/* written whole, hashes taken anew */
	return rows_write(db, &n, &seen, 1, NULL, 0, store_node_ident(n));
}
