/* store_blueprint: which blueprint, the rows of its differences, their
 * events, and both kept in the database (schema 8: tables blueprint
 * and topology_diffs). The comparison is store/bp_compare.c. */
#include "config.h"

#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/blueprint.h"
#include "store/events.h"
#include "store/schema.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

#define KEY_LEN		(STORE_DESC_LEN + 64)
#define META_NEXT	"topology-diff-next"

static struct store_topo	*bp;		/* NULL: no blueprint */
static struct store_topo	*bp_pinned;
static int64_t			 bp_pinned_at;
static char			 bp_file[PATH_MAX];	/* "": pinned */
static struct store_bp_diff	*rows;
static size_t			 nrows;
static uint32_t			 next_index = 1;
static int			 compared;	/* the inventory is current */
static uint64_t			 ncompares, last_us;	/* and its cost */

static const char *kind_names[STORE_BP_KIND_MAX] = {
	[STORE_BP_NODE_MISSING] = "node-missing",
	[STORE_BP_NODE_UNEXPECTED] = "node-unexpected",
	[STORE_BP_CABLE_MISSING] = "cable-missing",
	[STORE_BP_CABLE_UNEXPECTED] = "cable-unexpected",
	[STORE_BP_CABLE_MOVED] = "cable-moved",
	[STORE_BP_LINK_BELOW] = "link-below-plan",
	[STORE_BP_NODE_AMBIGUOUS] = "node-ambiguous",
};

const char *
store_blueprint_kind_name(int kind)
{
	return kind > 0 && kind < STORE_BP_KIND_MAX ? kind_names[kind] : "?";
}

/* What makes a difference the same one at the next comparison. */
static void
diff_key(const struct store_bp_diff *r, char *k, size_t len)
{
	snprintf(k, len, "%u %016llx %u %016llx %u %s", r->kind,
	    (unsigned long long)r->guid, r->port,
	    (unsigned long long)r->rguid, r->rport, r->guid ? "" : r->desc);
}

static struct store_topo *
topo_dup(const struct store_topo *t)
{
	struct store_topo *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return NULL;
	d->nodes = calloc(t->nnodes + 1, sizeof(*d->nodes));
	d->links = calloc(t->nlinks + 1, sizeof(*d->links));
	if (d->nodes == NULL || d->links == NULL) {
		store_topo_free(d);
		return NULL;
	}
	memcpy(d->nodes, t->nodes, t->nnodes * sizeof(*d->nodes));
	memcpy(d->links, t->links, t->nlinks * sizeof(*d->links));
	d->nnodes = t->nnodes;
	d->nlinks = t->nlinks;
	return d;
}

/* ---- The database */

static sqlite3 *
db(void)
{
	return store_db_handle();
}

static void
db_row_load(sqlite3_stmt *st)
{
	struct store_bp_diff *r, *nr;

	if ((nr = reallocarray(rows, nrows + 1, sizeof(*rows))) == NULL)
		return;
	rows = nr;
	r = &rows[nrows++];
	memset(r, 0, sizeof(*r));
	r->index = (uint32_t)sqlite3_column_int64(st, 0);
	r->since = sqlite3_column_int64(st, 1);
	r->kind = (uint8_t)sqlite3_column_int(st, 2);
	r->guid = (uint64_t)sqlite3_column_int64(st, 3);
	r->port = (uint8_t)sqlite3_column_int(st, 4);
	r->rguid = (uint64_t)sqlite3_column_int64(st, 5);
	r->rport = (uint8_t)sqlite3_column_int(st, 6);
	snprintf(r->desc, sizeof(r->desc), "%s", (const char *)
	    sqlite3_column_text(st, 7));
	snprintf(r->expected, sizeof(r->expected), "%s", (const char *)
	    sqlite3_column_text(st, 8));
	snprintf(r->found, sizeof(r->found), "%s", (const char *)
	    sqlite3_column_text(st, 9));
	if (r->index >= next_index)
		next_index = r->index + 1;
}

static void
db_load(void)
{
	sqlite3_stmt *st;
	int64_t next;

	if (sqlite3_prepare_v2(db(), "SELECT pinned, text FROM blueprint "
	    "WHERE id = 1", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *txt = (const char *)sqlite3_column_text(st,
			    1);

			bp_pinned_at = sqlite3_column_int64(st, 0);
			bp_pinned = store_topo_parse("store: pinned blueprint",
			    txt ? txt : "", txt ? strlen(txt) : 0, stderr);
		}
		sqlite3_finalize(st);
	}
	if (sqlite3_prepare_v2(db(), "SELECT idx, since, kind, guid, port, "
	    "rguid, rport, description, expected, found FROM topology_diffs "
	    "ORDER BY idx", -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			db_row_load(st);
		sqlite3_finalize(st);
	}
	if (store_meta_get_int(META_NEXT, &next) == 0 && next > next_index &&
	    next <= UINT32_MAX)
		next_index = (uint32_t)next;
}

static int
db_put(sqlite3_stmt *st, const struct store_bp_diff *r)
{
	char key[KEY_LEN];

	diff_key(r, key, sizeof(key));
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, r->index);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, r->since);
	sqlite3_bind_int(st, 4, r->kind);
	sqlite3_bind_int64(st, 5, (int64_t)r->guid);
	sqlite3_bind_int(st, 6, r->port);
	sqlite3_bind_int64(st, 7, (int64_t)r->rguid);
	sqlite3_bind_int(st, 8, r->rport);
	sqlite3_bind_text(st, 9, r->desc, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, r->expected, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, r->found, -1, SQLITE_STATIC);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
}

/* The rows as they are now replace the database's: a handful of rows
 * when the fabric is as planned, so written whole on each change. */
static void
db_save(void)
{
	sqlite3_stmt *st = NULL;
	int ok;

	if (db() == NULL || store_sql_exec(db(), "BEGIN IMMEDIATE") == -1)
		return;
	ok = store_sql_exec(db(), "DELETE FROM topology_diffs") == 0 &&
	    sqlite3_prepare_v2(db(), "INSERT INTO topology_diffs (idx, key, "
	    "since, kind, guid, port, rguid, rport, description, expected, "
	    "found) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st,
	    NULL) == SQLITE_OK;
	for (size_t i = 0; ok && i < nrows; i++)
		ok = db_put(st, &rows[i]) == 0;
	sqlite3_finalize(st);
	if (!ok) {
		log_warnx("store: topology differences not saved: %s",
		    sqlite3_errmsg(db()));
		store_sql_rollback(db());
		return;
	}
	store_sql_commit(db());
	(void)store_meta_put_int(META_NEXT, next_index, 0);
}

/* ---- Rows and their events */

static void
post(int type, const struct store_bp_diff *r)
{
	struct store_event ev;
	const struct store_node *n = store_node_by_guid(r->guid);
	char text[2 * STORE_BP_TEXT_LEN + 32] = "";

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint8_t)type;
	ev.source = STORE_SRC_SWEEP;
	ev.node_guid = r->guid;
	ev.port = r->port;
	ev.lid = n ? n->lid : 0;
	if (r->expected[0] && r->found[0])
		snprintf(text, sizeof(text), "%s: %s, found %s",
		    store_blueprint_kind_name(r->kind), r->expected, r->found);
	else
		snprintf(text, sizeof(text), "%s: %s",
		    store_blueprint_kind_name(r->kind), r->expected[0] ?
		    r->expected : r->found);
	/* The event's text is shorter: its start, whole words or not. */
	memcpy(ev.text, text, sizeof(ev.text) - 1);
	(void)store_event_post(&ev);
}

static int
by_index(const void *a, const void *b)
{
	const struct store_bp_diff *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* The new rows take the numbers and times of the same old ones; the
 * rest of either side is news. */
static void
merge(struct store_bp_diff *nw, size_t nn)
{
	struct htab old;
	char key[KEY_LEN];
	uint8_t *kept = calloc(nrows + 1, 1);
	int changed = 0;

	htab_init(&old);
	for (size_t i = 0; i < nrows; i++) {
		diff_key(&rows[i], key, sizeof(key));
		(void)htab_put(&old, key, strlen(key), &rows[i]);
	}
	for (size_t i = 0; i < nn; i++) {
		struct store_bp_diff *o;

		diff_key(&nw[i], key, sizeof(key));
		if ((o = htab_get(&old, key, strlen(key))) != NULL) {
			nw[i].index = o->index;
			nw[i].since = o->since;
			/* The same difference, told anew (a link slower
			 * still): kept as it reads now, not news. */
			if (strcmp(o->found, nw[i].found) != 0 ||
			    strcmp(o->expected, nw[i].expected) != 0)
				changed = 1;
			if (kept != NULL)
				kept[o - rows] = 1;
			continue;
		}
		nw[i].index = next_index++;
		nw[i].since = ev_wall();
		post(STORE_EV_TOPO_MISMATCH, &nw[i]);
		changed = 1;
	}
	for (size_t i = 0; i < nrows; i++)
		if (kept == NULL || !kept[i]) {
			post(STORE_EV_TOPO_MATCH, &rows[i]);
			changed = 1;
		}
	htab_free(&old);
	free(kept);
	free(rows);
	if (nn > 1)	/* qsort's array may not be NULL, even empty */
		qsort(nw, nn, sizeof(*nw), by_index);
	rows = nw;
	nrows = nn;
	if (changed)
		db_save();
}

void
store_blueprint_compare(void)
{
	struct store_bp_diff *nw = NULL;
	struct timespec t0, t1;
	long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	compared = 1;
	ncompares++;
	if (bp != NULL && (n = store_bp_compare(bp, &nw)) < 0) {
		log_warnx("store: no memory to compare the fabric with its "
		    "blueprint");
		return;
	}
	merge(nw, (size_t)n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	last_us = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000);
}

/* ---- The blueprint */

static void
use(const struct store_topo *t)
{
	store_topo_free(bp);
	bp = t ? topo_dup(t) : NULL;
	if (compared)
		store_blueprint_compare();
}

int
store_blueprint_use_file(const char *path, const struct store_topo *t)
{
	snprintf(bp_file, sizeof(bp_file), "%s", path ? path : "");
	use(path ? t : bp_pinned);
	return 0;
}

/* Whether the cable n[p] - r[rp] is taken from r's end: the lower
 * (GUID, port) end, if it records the cable too (a CA's port that a
 * sweep did not reach it by may know nothing of its cable). */
static int
from_other_end(const struct store_node *n, uint8_t p,
    const struct store_node *r, uint8_t rp)
{
	const struct store_port *back = rp <= r->num_ports ? &r->ports[rp] :
	    NULL;

	return back != NULL && back->remote_guid == n->guid &&
	    back->remote_port == p && (r->guid < n->guid || (r->guid ==
	    n->guid && rp < p));
}

/* The reachable inventory as a topology. */
static struct store_topo *
from_inventory(void)
{
	struct store_topo *t = calloc(1, sizeof(*t));
	size_t nn = store_node_count(), lcap = 0;
	uint32_t *at = calloc(nn + 1, sizeof(*at));	/* 1 + topo index */

	for (size_t i = 0; t && at && i < nn; i++) {
		const struct store_node *n = store_node_at((uint32_t)i);
		struct store_topo_node *tn;

		if (n == NULL || !n->reachable || n->num_ports == 0)
			continue;
		if (t->nodes == NULL && (t->nodes = calloc(nn,
		    sizeof(*t->nodes))) == NULL)
			break;
		tn = &t->nodes[t->nnodes++];
		tn->guid = n->guid, tn->type = n->type;
		tn->nports = n->num_ports;
		snprintf(tn->id, sizeof(tn->id), "%c-%016llx",
		    n->type == STORE_NODE_SWITCH ? 'S' : n->type ==
		    STORE_NODE_CA ? 'H' : 'R', (unsigned long long)n->guid);
		snprintf(tn->desc, sizeof(tn->desc), "%s", n->desc);
		at[i] = (uint32_t)t->nnodes;
	}
	for (size_t i = 0; t && at && i < nn; i++) {
		const struct store_node *n = store_node_at((uint32_t)i), *r;

		for (unsigned p = 1; at[i] && p <= n->num_ports; p++) {
			const struct store_port *pt = &n->ports[p];
			struct store_topo_link *l;

			if (pt->remote_guid == 0 || (r = store_node_by_guid(
			    pt->remote_guid)) == NULL || !at[r->idx] ||
			    from_other_end(n, (uint8_t)p, r, pt->remote_port))
				continue;
			if (t->nlinks == lcap) {
				size_t nc = lcap ? 2 * lcap : 256;

				if ((l = reallocarray(t->links, nc,
				    sizeof(*l))) == NULL)
					break;
				t->links = l;
				lcap = nc;
			}
			l = &t->links[t->nlinks++];
			memset(l, 0, sizeof(*l));
			l->a = at[i] - 1, l->pa = (uint8_t)p;
			l->b = at[r->idx] - 1, l->pb = pt->remote_port;
			store_topo_port_rate(pt->valid ? pt :
			    &r->ports[pt->remote_port <= r->num_ports ?
			    pt->remote_port : 0], &l->lanes, &l->speed);
		}
	}
	free(at);
	return t;
}

static int
db_pin(const char *text, int64_t when)
{
	sqlite3_stmt *st;
	int rc;

	if (db() == NULL)
		return 0;
	if (sqlite3_prepare_v2(db(), "INSERT OR REPLACE INTO blueprint (id, "
	    "pinned, text) VALUES (1, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, when);
	sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

int
store_blueprint_pin(char *why, size_t len)
{
	struct store_topo *t, *back = NULL;
	char *text = NULL;
	size_t tlen = 0;
	FILE *f;

	if (bp_file[0] != '\0') {
		snprintf(why, len, "topology.expected (%s) is the blueprint; "
		    "remove it from the configuration to pin", bp_file);
		return -1;
	}
	if ((t = from_inventory()) == NULL || (f = open_memstream(&text,
	    &tlen)) == NULL) {
		store_topo_free(t);
		snprintf(why, len, "no memory");
		return -1;
	}
	store_topo_write(t, f);
	fclose(f);
	store_topo_free(t);
	/* Kept as text and read back by the file's parser: what is
	 * compared is what the database holds. */
	if (text == NULL || (back = store_topo_parse("pinned", text, tlen,
	    stderr)) == NULL || db_pin(text, ev_wall()) == -1) {
		snprintf(why, len, "%s", back == NULL ? "the fabric has no "
		    "node to pin" : sqlite3_errmsg(db()));
		free(text);
		store_topo_free(back);
		return -1;
	}
	free(text);
	store_topo_free(bp_pinned);
	bp_pinned = back;
	bp_pinned_at = ev_wall();
	log_info("topology: the fabric pinned as the blueprint: %zu nodes, "
	    "%zu cables", back->nnodes, back->nlinks);
	use(bp_pinned);
	return 0;
}

/* ---- Reading */

size_t
store_blueprint_count(void)
{
	return nrows;
}

const struct store_bp_diff *
store_blueprint_at(size_t i)
{
	return i < nrows ? &rows[i] : NULL;
}

const struct store_bp_diff *
store_blueprint_from(uint32_t index)
{
	size_t lo = 0, hi = nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nrows ? &rows[lo] : NULL;
}

void
store_blueprint_describe(char *buf, size_t len)
{
	char ts[32];
	time_t t = (time_t)bp_pinned_at;
	struct tm tm;

	if (bp == NULL) {
		snprintf(buf, len, "blueprint none differences %zu", nrows);
		return;
	}
	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(buf, len, "blueprint %s %s nodes %zu cables %zu differences "
	    "%zu comparisons %llu last-us %llu", bp_file[0] ? "file" :
	    "pinned", bp_file[0] ? bp_file : ts, bp->nnodes, bp->nlinks,
	    nrows, (unsigned long long)ncompares,
	    (unsigned long long)last_us);
}

void
store_blueprint_write(FILE *f)
{
	if (bp != NULL)
		store_topo_write(bp, f);
}

int
store_blueprint_init(void)
{
	if (db() != NULL)
		db_load();
	return 0;
}

void
store_blueprint_finalise(void)
{
	store_topo_free(bp);
	store_topo_free(bp_pinned);
	bp = bp_pinned = NULL;
	free(rows);
	rows = NULL;
	nrows = 0;
	next_index = 1;
	compared = 0;
	ncompares = last_us = 0;
	bp_file[0] = '\0';
	bp_pinned_at = 0;
}
