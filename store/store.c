/* store: SQLite inventory and its in-memory mirror. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "codec/attr.h"
#include "codec/smp.h"
#include "store/ckpt.h"
#include "store/descname.h"
#include "store/rows.h"
#include "store/schema.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

static sqlite3		 *store_db;
static struct store_node **store_nodes;
static size_t		  store_nnodes, store_cap;
/* Bumped when a node is made or the store closed, by every sweep (each
 * node it stores, and its end: reachability) and by a port read between
 * sweeps (store_node_port_set). Not by what proxy/reread.c moves in
 * place (routes, a CA's LID) nor by flags and aliases: a memo of
 * PortInfo copies, GUIDs or node positions is good while it is
 * unchanged, a memo of routes is not. */
static uint64_t		  store_gen = 1;
static struct htab	  store_by_guid, store_by_alias;
static struct htab	  store_alias_of;	/* guid -> name */
static struct store_node *store_by_lid[0xc000];	/* unicast LIDs */
static uint8_t		 *store_seen;	/* per idx, in the current sweep */
static struct store_sm	 *store_sms, *store_sms_next;
static size_t		  store_nsms, store_nsms_next;

static void aliases_clear(void);

static int
db_exec(const char *sql)
{
	return store_sql_exec(store_db, sql);
}

void *
store_db_handle(void)
{
	return store_db;
}

int
store_schema_version(void)
{
	return store_db ? store_schema_get(store_db) : -1;
}

void
store_info(struct store_info *info)
{
	store_schema_meta(store_db, info);
}

/* In-memory mirror. */

static void
index_lids(struct store_node *n)
{
	for (int p = 0; p <= n->num_ports; p++) {
		struct store_port *pt = &n->ports[p];
		uint32_t lo = pt->lid, cnt = 1u << (pt->lmc & 7);

		if (!pt->valid || lo == 0 || lo >= 0xc000)
			continue;
		/* Switch ports 1..N share port 0's LID: index port 0 only. */
		if (n->type == STORE_NODE_SWITCH && p != 0)
			continue;
		for (uint32_t l = lo; l < lo + cnt && l < 0xc000; l++)
			store_by_lid[l] = n;
	}
}

static void
unindex_lids(struct store_node *n)
{
	for (int p = 0; p <= n->num_ports; p++) {
		struct store_port *pt = &n->ports[p];
		uint32_t lo = pt->lid, cnt = 1u << (pt->lmc & 7);

		for (uint32_t l = lo; l < lo + cnt && l < 0xc000 && lo; l++)
			if (store_by_lid[l] == n)
				store_by_lid[l] = NULL;
	}
}

static struct store_node *
node_new(uint64_t guid, int num_ports)
{
	struct store_node *n;
	const char *name;

	store_gen++;
	if (store_nnodes == store_cap) {
		size_t cap = store_cap ? store_cap * 2 : 256;
		struct store_node **v = realloc(store_nodes, cap * sizeof(*v));
		uint8_t *s = realloc(store_seen, cap);
		if (v == NULL || s == NULL)
			fatal("store: grow");
		store_nodes = v;
		store_seen = s;
		store_cap = cap;
	}
	if ((n = calloc(1, sizeof(*n))) == NULL ||
	    (n->ports = calloc(num_ports + 1, sizeof(*n->ports))) == NULL)
		fatal("store: node");
	n->idx = store_nnodes;
	n->guid = guid;
	n->num_ports = num_ports;
	store_seen[n->idx] = 0;
	store_nodes[store_nnodes++] = n;
	if ((name = htab_get_u64(&store_alias_of, guid)) != NULL &&
	    (n->alias = strdup(name)) == NULL)
		fatal("store: alias");
	if (htab_put_u64(&store_by_guid, guid, n) == -1)
		fatal("store: index");
	return n;
}

static void
node_free(struct store_node *n)
{
	free(n->ports);
	free(n->alias);
	free(n);
}

/* A raw attribute column: 1 if it holds exactly one SMP's data (older
 * rows and damaged ones hold none; the next sweep fills them). */
static int
blob_get(sqlite3_stmt *st, int col, uint8_t *out)
{
	const void *b = sqlite3_column_blob(st, col);

	if (b == NULL || sqlite3_column_bytes(st, col) != STORE_SMP_LEN)
		return 0;
	memcpy(out, b, STORE_SMP_LEN);
	return 1;
}

/* The inventory's attribute copies are read by the fabric context
 * without decoding them again (gateway/mib.c): what a sweep stores was
 * decoded first, and what the database held is checked here, once at
 * load. A garbled copy is dropped; the next sweep reads it again. */
static void
check_copies(void)
{
	size_t count = store_node_count(), bad = 0;
	struct smp_nodeinfo ni;
	struct smp_switchinfo si;
	struct smp_portinfo pi;

	for (size_t i = 0; i < count; i++) {
		struct store_node *n = store_node_at((uint32_t)i);

		if (n->ninfo_ok && smp_decode_nodeinfo(n->ninfo,
		    SMP_DATA_SIZE, &ni) == -1) {
			n->ninfo_ok = 0;
			bad++;
		}
		if (n->sinfo_ok && smp_decode_switchinfo(n->sinfo,
		    SMP_DATA_SIZE, &si) == -1) {
			n->sinfo_ok = 0;
			bad++;
		}
		for (int p = 0; p <= n->num_ports; p++)
			if (n->ports[p].pinfo_ok && smp_decode_portinfo(
			    n->ports[p].pinfo, SMP_DATA_SIZE, &pi) == -1) {
				n->ports[p].pinfo_ok = 0;
				bad++;
			}
	}
	if (bad > 0)
		log_warnx("store: %zu attribute copies in the inventory "
		    "are garbled; the next sweep reads them again", bad);
}

static int
load_inventory(void)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(store_db, "SELECT guid, type, description, "
	    "num_ports, vendor_id, device_id, revision, system_guid, lid, "
	    "route, first_seen, last_seen, reachable, unsupported, nodeinfo, "
	    "switchinfo, tunnel, tunnel_probed FROM nodes "
	    "ORDER BY idx IS NULL, idx, first_seen, guid", -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int np = sqlite3_column_int(st, 3);
		const char *d = (const char *)sqlite3_column_text(st, 2);
		const char *r = (const char *)sqlite3_column_text(st, 9);
		struct store_node *n;

		if (np < 0 || np > 254) {
			log_warnx("store: node 0x%016llx has %d ports; "
			    "skipped", (unsigned long long)
			    sqlite3_column_int64(st, 0), np);
			continue;
		}
		n = node_new((uint64_t)sqlite3_column_int64(st, 0), np);
		n->type = sqlite3_column_int(st, 1);
		snprintf(n->desc, sizeof(n->desc), "%s", d ? d : "");
		n->vendor_id = sqlite3_column_int(st, 4);
		n->device_id = sqlite3_column_int(st, 5);
		n->revision = sqlite3_column_int(st, 6);
		n->system_guid = sqlite3_column_int64(st, 7);
		n->lid = sqlite3_column_int(st, 8);
		if (r == NULL || store_path_parse(r, &n->route) == -1) {
			log_warnx("store: %s has a bad route; it is "
			    "rediscovered", store_node_ident(n));
			n->route.cnt = 0;
		}
		n->first_seen = sqlite3_column_int64(st, 10);
		n->last_seen = sqlite3_column_int64(st, 11);
		n->reachable = 0;	/* until the first sweep says so */
		n->unsupported = sqlite3_column_int(st, 13);
		n->ninfo_ok = blob_get(st, 14, n->ninfo);
		n->sinfo_ok = blob_get(st, 15, n->sinfo);
		n->tunnel = sqlite3_column_int(st, 16);
		if (n->tunnel > STORE_TUN_NONE)
			n->tunnel = STORE_TUN_UNKNOWN;	/* probed again */
		n->tunnel_probed = sqlite3_column_int64(st, 17);
		store_descname_update(n, NULL);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto fail;

	if (sqlite3_prepare_v2(store_db, "SELECT node_guid, port_num, guid, "
	    "lid, lmc, state, phys_state, width, speed, remote_guid, "
	    "remote_port, route, portinfo FROM ports", -1, &st, NULL) !=
	    SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_node *n = store_node_by_guid(
		    (uint64_t)sqlite3_column_int64(st, 0));
		int pn = sqlite3_column_int(st, 1);
		const char *r = (const char *)sqlite3_column_text(st, 11);
		struct store_port *p;

		if (n == NULL || pn < 0 || pn > n->num_ports)
			continue;
		p = &n->ports[pn];
		p->num = pn;
		p->valid = 1;
		p->guid = sqlite3_column_int64(st, 2);
		p->lid = sqlite3_column_int(st, 3);
		p->lmc = sqlite3_column_int(st, 4) & 7;
		p->state = sqlite3_column_int(st, 5);
		p->phys_state = sqlite3_column_int(st, 6);
		p->width = sqlite3_column_int(st, 7);
		p->speed = sqlite3_column_int(st, 8);
		p->remote_guid = sqlite3_column_int64(st, 9);
		p->remote_port = sqlite3_column_int(st, 10);
		if (r == NULL || *r == '\0' ||
		    store_path_parse(r, &p->route) == -1)
			p->route.hop[0] = 0xff;
		p->pinfo_ok = blob_get(st, 12, p->pinfo);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto fail;
	for (size_t i = 0; i < store_nnodes; i++)
		index_lids(store_nodes[i]);
	check_copies();
	log_info("store: %zu nodes loaded", store_nnodes);
	return 0;
fail:
	log_warnx("store: loading inventory: %s", sqlite3_errmsg(store_db));
	return -1;
}

int
store_init(const char *path)
{
	int v;

	htab_init(&store_by_guid);
	htab_init(&store_by_alias);
	htab_init(&store_alias_of);
	store_descname_init(store_node_by_alias);
	memset(store_by_lid, 0, sizeof(store_by_lid));
	if (sqlite3_open_v2(path, &store_db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		log_warnx("store: %s: %s", path, store_db ?
		    sqlite3_errmsg(store_db) : "cannot open");
		goto fail;
	}
	sqlite3_busy_timeout(store_db, 2000);
	store_schema_attach(store_db);
	/* The version first: a newer database is left as it is, even its
	 * journal mode. */
	if ((v = store_schema_check(store_db, path)) == -1 ||
	    db_exec("PRAGMA journal_mode = WAL") == -1 ||
	    db_exec("PRAGMA synchronous = NORMAL") == -1 ||
	    db_exec("PRAGMA foreign_keys = ON") == -1 ||
	    store_schema_migrate(store_db, path, v) == -1 ||
	    load_inventory() == -1)
		goto fail;
	/* Checkpoints off the loop; without a thread, sqlite's own. */
	(void)store_ckpt_init(store_db, path);
	return 0;
fail:
	store_finalise();
	return -1;
}

void
store_finalise(void)
{
	aliases_clear();
	store_descname_finalise();
	for (size_t i = 0; i < store_nnodes; i++)
		node_free(store_nodes[i]);
	free(store_nodes);
	free(store_seen);
	free(store_sms);
	free(store_sms_next);
	store_sms = store_sms_next = NULL;
	store_nsms = store_nsms_next = 0;
	store_nodes = NULL;
	store_seen = NULL;
	store_nnodes = store_cap = 0;
	store_gen++;
	htab_free(&store_by_guid);
	store_schema_attach(NULL);
	store_ckpt_finalise(store_db);
	if (store_db != NULL)
		sqlite3_close(store_db);
	store_db = NULL;
}

size_t
store_node_count(void)
{
	return store_nnodes;
}

uint64_t
store_generation(void)
{
	return store_gen;
}

struct store_node *
store_node_at(uint32_t idx)
{
	return idx < store_nnodes ? store_nodes[idx] : NULL;
}

struct store_node *
store_node_by_guid(uint64_t guid)
{
	return htab_get_u64(&store_by_guid, guid);
}

struct store_node *
store_node_by_lid(uint16_t lid)
{
	return lid < 0xc000 ? store_by_lid[lid] : NULL;
}

struct store_node *
store_node_by_alias(const char *name)
{
	uint64_t *g = htab_get(&store_by_alias, name, strlen(name));

	return g ? store_node_by_guid(*g) : NULL;
}

struct store_node *
store_node_resolve(const char *name, size_t len)
{
	struct store_node *n;
	uint64_t guid;
	uint16_t lid;
	uint64_t *g;

	if (len == 0 || len > 255 || memchr(name, '\0', len) != NULL ||
	    memchr(name, '@', len) != NULL)
		return NULL;
	/* An alias wins over the other forms; aliases never hold '@'. */
	if ((g = htab_get(&store_by_alias, name, len)) != NULL &&
	    (n = store_node_by_guid(*g)) != NULL)
		return n;
	/* Then the forms only the gateway writes, if they name a node (a
	 * host called "cafe01" is not GUID 0xcafe01), then descriptions. */
	if (store_parse_lid(name, len, &lid) == 0 &&
	    (n = store_node_by_lid(lid)) != NULL)
		return n;
	if (store_parse_guid(name, len, &guid) == 0 &&
	    (n = store_node_by_guid(guid)) != NULL)
		return n;
	return store_descname_lookup(name, len);
}

void
store_port_fill(struct store_port *pt, const uint8_t *data,
    const struct smp_portinfo *pi)
{
	pt->valid = 1;
	memcpy(pt->pinfo, data, SMP_DATA_SIZE);
	pt->pinfo_ok = 1;
	pt->lid = pi->lid;
	pt->lmc = pi->lmc;
	pt->state = pi->state;
	pt->phys_state = pi->phys_state;
	pt->width = pi->width_active;
	pt->speed = pi->speed_ext_active ? 0x80 | pi->speed_ext_active :
	    pi->speed_active;
}

/* node-name-map */

static void
alias_set(uint64_t guid, const char *name, const char *file, int line)
{
	uint64_t *g = htab_get(&store_by_alias, name, strlen(name));
	struct store_node *n;

	if (g != NULL) {
		if (*g != guid)
			log_warnx("%s:%d: name '%s' already names "
			    "0x%016llx; ignored", file, line, name,
			    (unsigned long long)*g);
		return;
	}
	if ((g = malloc(sizeof(*g))) == NULL)
		fatal("store: alias");
	*g = guid;
	if (htab_put(&store_by_alias, name, strlen(name), g) == -1)
		fatal("store: alias");
	if (htab_get_u64(&store_alias_of, guid) == NULL) {
		char *d = strdup(name);
		if (d == NULL || htab_put_u64(&store_alias_of, guid, d) == -1)
			fatal("store: alias");
	}
	if ((n = store_node_by_guid(guid)) != NULL && n->alias == NULL)
		n->alias = strdup(name);
}

static void
free_alias(const void *k, size_t len, void *v, void *arg)
{
	free(v);
}

static void
aliases_clear(void)
{
	htab_foreach(&store_by_alias, free_alias, NULL);
	htab_foreach(&store_alias_of, free_alias, NULL);
	htab_free(&store_by_alias);
	htab_free(&store_alias_of);
	for (size_t i = 0; i < store_nnodes; i++) {
		free(store_nodes[i]->alias);
		store_nodes[i]->alias = NULL;
	}
}

int
store_load_name_map(const char *path)
{
	char line[1024];
	FILE *f;
	int ln = 0, count = 0, txn = 0, dbfail = 0;
	sqlite3_stmt *ins = NULL;

	if ((f = fopen(path, "r")) == NULL) {
		log_warn("%s", path);
		return -1;
	}
	aliases_clear();
	/* The database's copy (for ctl and the schema tools) is replaced
	 * whole or not at all; a transaction left open would take in every
	 * later write, and lose them with the process. */
	if (store_db != NULL) {
		txn = db_exec("BEGIN IMMEDIATE") == 0;
		if (!txn || db_exec("DELETE FROM aliases") == -1 ||
		    sqlite3_prepare_v2(store_db, "INSERT OR IGNORE INTO aliases "
		    "(name, node_guid) VALUES (?, ?)", -1, &ins, NULL) !=
		    SQLITE_OK)
			dbfail = 1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line, *q, *name;
		uint64_t guid;

		ln++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			log_warnx("%s:%d: line too long; skipped", path, ln);
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '#' || *p == '\0')
			continue;
		for (q = p; *q && !isspace((unsigned char)*q); q++)
			;
		if (store_parse_guid(p, q - p, &guid) == -1) {
			log_warnx("%s:%d: bad GUID; skipped", path, ln);
			continue;
		}
		while (isspace((unsigned char)*q))
			q++;
		if (*q != '"' || (p = strchr(q + 1, '"')) == NULL) {
			log_warnx("%s:%d: name must be in double quotes; "
			    "skipped", path, ln);
			continue;
		}
		name = q + 1;
		*p = '\0';
		if (*name == '\0' || strchr(name, '@') != NULL ||
		    strlen(name) > 255) {
			log_warnx("%s:%d: name is empty, too long or has '@'; "
			    "skipped", path, ln);
			continue;
		}
		alias_set(guid, name, path, ln);
		if (ins != NULL && !dbfail) {
			sqlite3_bind_text(ins, 1, name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(ins, 2, (int64_t)guid);
			if (sqlite3_step(ins) != SQLITE_DONE)
				dbfail = 1;
			sqlite3_reset(ins);
		}
		count++;
	}
	fclose(f);
	if (dbfail)
		log_warnx("%s: the names are in use; the database keeps the "
		    "previous ones: %s", path, sqlite3_errmsg(store_db));
	sqlite3_finalize(ins);
	if (txn && (dbfail ? store_sql_rollback(store_db) :
	    store_sql_commit(store_db)) == -1)
		log_warnx("%s: the database keeps the previous names", path);
	log_info("%s: %d names", path, count);
	return count;
}

static void
save_unsupported(const struct store_node *n)
{
	sqlite3_stmt *st;

	if (store_db == NULL || sqlite3_prepare_v2(store_db, "UPDATE nodes SET "
	    "unsupported = ? WHERE guid = ?", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int(st, 1, (int)n->unsupported);
	sqlite3_bind_int64(st, 2, (int64_t)n->guid);
	if (sqlite3_step(st) != SQLITE_DONE)
		log_warnx("store: %s", sqlite3_errmsg(store_db));
	sqlite3_finalize(st);
}

const char *
store_node_ident_idx(uint32_t idx)
{
	return store_node_ident(store_node_at(idx));
}

void
store_node_set_unsupported(uint32_t idx, unsigned flag)
{
	struct store_node *n = store_node_at(idx);
	char names[128];

	if (n == NULL || (n->unsupported & flag))
		return;
	n->unsupported |= flag;
	log_info("%s does not support %s; not asked again",
	    store_node_ident(n), attr_unsup_names(flag, names, sizeof(names)));
	save_unsupported(n);
}

/* Forget what the node was found to lack (ctl flush): the next read asks
 * again, for a PMA or SMA that was reconfigured without a new revision. */
void
store_node_clear_unsupported(uint32_t idx)
{
	struct store_node *n = store_node_at(idx);

	if (n == NULL || n->unsupported == 0)
		return;
	n->unsupported = 0;
	save_unsupported(n);
}

/* What the last tunnel probe found (proxy/tunnel.c), kept across
 * restarts so a restart does not probe every node at once. */
void
store_node_set_tunnel(uint32_t idx, enum store_tun state, int64_t when)
{
	struct store_node *n = store_node_at(idx);
	sqlite3_stmt *st;

	if (n == NULL)
		return;
	n->tunnel = state;
	n->tunnel_probed = when;
	if (store_db == NULL || sqlite3_prepare_v2(store_db, "UPDATE nodes SET "
	    "tunnel = ?, tunnel_probed = ? WHERE guid = ?", -1, &st,
	    NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int(st, 1, state);
	sqlite3_bind_int64(st, 2, when);
	sqlite3_bind_int64(st, 3, (int64_t)n->guid);
	if (sqlite3_step(st) != SQLITE_DONE)
		log_warnx("store: %s", sqlite3_errmsg(store_db));
	sqlite3_finalize(st);
}

/* Sweeps */

void
store_sweep_begin(void)
{
	if (store_nnodes)
		memset(store_seen, 0, store_nnodes);
	free(store_sms_next);
	store_sms_next = NULL;
	store_nsms_next = 0;
}

void
store_sweep_sm(const struct store_sm *sm)
{
	struct store_sm *a;
	size_t i;

	for (i = 0; i < store_nsms_next; i++)
		if (store_sms_next[i].port_guid == sm->port_guid) {
			store_sms_next[i] = *sm;
			return;
		}
	if ((a = realloc(store_sms_next, (store_nsms_next + 1) *
	    sizeof(*a))) == NULL) {
		log_warn("store: SMs");
		return;
	}
	store_sms_next = a;
	store_sms_next[store_nsms_next++] = *sm;
}

static int
sm_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct store_sm *)a)->port_guid;
	uint64_t y = ((const struct store_sm *)b)->port_guid;

	return x < y ? -1 : x > y;
}

size_t
store_sm_count(void)
{
	return store_nsms;
}

const struct store_sm *
store_sm_at(size_t i)
{
	return i < store_nsms ? &store_sms[i] : NULL;
}

struct store_node *
store_sweep_node(const struct store_node *seen, const struct store_port *ports)
{
	struct store_node *n = store_node_by_guid(seen->guid);
	int64_t now = ev_wall();
	char old[STORE_DESC_LEN + 1];
	char *alias;
	uint32_t idx;

	store_gen++;
	if (n == NULL) {
		n = node_new(seen->guid, seen->num_ports);
		n->first_seen = now;
	} else {
		unindex_lids(n);
		if (n->num_ports != seen->num_ports) {
			/* A changed port count (replaced hardware). */
			struct store_port *p = calloc(seen->num_ports + 1,
			    sizeof(*p));

			if (p == NULL)
				fatal("store: ports");
			free(n->ports);
			n->ports = p;
		}
	}
	idx = n->idx;
	alias = n->alias;
	memcpy(old, n->desc, sizeof(old));
	{
		struct store_port *keep = n->ports;
		int64_t first = n->first_seen;
		uint8_t tun = n->tunnel;
		int64_t probed = n->tunnel_probed;
		uint64_t drow = n->disk_row, dports = n->disk_ports;
		int64_t dseen = n->disk_seen;
		/* New firmware may support what the old one did not. */
		unsigned unsup = n->revision == seen->revision &&
		    n->device_id == seen->device_id ? n->unsupported : 0;
		/* A SwitchInfo this sweep could not read: the last one. */
		int sok = n->sinfo_ok && n->type == seen->type;
		uint8_t si[STORE_SMP_LEN];

		memcpy(si, n->sinfo, sizeof(si));
		*n = *seen;
		if (!n->sinfo_ok && sok) {
			memcpy(n->sinfo, si, sizeof(si));
			n->sinfo_ok = 1;
		}
		n->ports = keep;
		n->idx = idx;
		n->first_seen = first ? first : now;
		n->unsupported = unsup;
		n->tunnel = tun;
		n->tunnel_probed = probed;
		n->disk_row = drow;
		n->disk_ports = dports;
		n->disk_seen = dseen;
	}
	n->alias = alias;
	n->last_seen = now;
	n->reachable = 1;
	memcpy(n->ports, ports, (n->num_ports + 1) * sizeof(*ports));
	index_lids(n);
	/* A host name set after boot moves the node's names with it. */
	store_descname_update(n, old);
	store_seen[idx] = 1;
	return n;
}

#define STORE_LOST_NAMED	4

int
store_sweep_end(unsigned *nodes, unsigned *lost)
{
	unsigned seen = 0, gone = 0;

	store_gen++;
	for (size_t i = 0; i < store_nnodes; i++) {
		if (store_seen[i])
			seen++;
		else if (store_nodes[i]->reachable) {
			store_nodes[i]->reachable = 0;
			/* A switch gone takes its hosts: a few by name, then
			 * a count (the sweep's line has the total too). */
			if (++gone <= STORE_LOST_NAMED)
				log_notice("store: %s is unreachable",
				    store_node_ident(store_nodes[i]));
		}
	}
	if (gone > STORE_LOST_NAMED)
		log_notice("store: and %u more nodes are unreachable",
		    gone - STORE_LOST_NAMED);
	*nodes = seen;
	*lost = gone;
	store_descname_settle();
	free(store_sms);
	store_sms = store_sms_next;
	store_nsms = store_nsms_next;
	store_sms_next = NULL;
	store_nsms_next = 0;
	if (store_nsms > 1)
		qsort(store_sms, store_nsms, sizeof(*store_sms), sm_cmp);
	if (store_db == NULL)
		return 0;
	return store_rows_sweep(store_db, store_nodes, store_seen,
	    store_nnodes, seen, gone);
}

/* Port p of n as read between sweeps; its LIDs re-indexed. */
void
store_node_port_set(struct store_node *n, uint8_t p,
    const struct store_port *pt)
{
	if (p > n->num_ports)
		return;
	store_gen++;
	unindex_lids(n);
	n->ports[p] = *pt;
	n->ports[p].num = p;
	index_lids(n);
}

/* One node and its ports as they are now in memory (proxy/reread.c:
 * a link the SM reported, followed without a sweep). */
int
store_node_save(struct store_node *n)
{
	return store_db == NULL ? 0 : store_rows_save(store_db, n);
}
