/* counters: accumulators and their persistence (schema v4). */
#include "config.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/counters.h"
#include "store/schema.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"
#include "util/pool.h"

/* (node, port) -> ctr_port: a slot array per node, by inventory index
 * (dense and stable) and port; a pointer a port, where a hash table
 * entry took ~60 bytes. */
struct ctr_node {
	unsigned		 nslots;
	uint8_t			 caps;		/* CAPS_*, in the padding */
	struct ctr_port		*slot[];
};
/* What the node's PerfMgt ClassPortInfo said (counters_pma_caps). */
#define CAPS_UNKNOWN	0		/* not read yet */
#define CAPS_BASE	1		/* no 64-bit error counters */
#define CAPS_ADDL	2		/* PERF_CAP2_ADDL_EXT */
static struct pool	 ctr_pool;	/* the ctr_ports */
/* GUIDs with rows load() could not place (no such node or port in the
 * inventory then): their rows may be stale, so a first reading of 0
 * on such a node is saved over them like any other. */
static struct htab	 ctr_orphans;
static struct ctr_node	**ctr_nodes;
static size_t		 ctr_nnodes;
static int64_t		 ctr_start_ms;
static struct ev_timer	 ctr_timer;
/* An accumulator's offset (total - last) changed: commit before any
 * value is served (ctr_sync), so nothing served is lost to a crash. */
static int		 ctr_urgent;
static uint64_t		 ctr_commits, ctr_rows;
/* The ports with unsaved changes: a flush costs what changed, not a walk
 * of every port (one per event-loop iteration while ports are first
 * read, at 36,000 ports that walk was half the gateway's CPU). */
static struct ctr_port	*ctr_dirty;
#define DIRTY_END	((struct ctr_port *)&ctr_dirty)	/* list's end mark */
static sqlite3_stmt	*ctr_stmt;	/* the accumulator UPSERT */

/* The UPSERT takes CTR_BATCH rows at once: a statement's own cost (its
 * step, its end) was most of a row's when each row had one (~12,000
 * instructions a row, the poll's largest cost). A short batch repeats
 * its last row, which updates that row to the same values again. */
#define CTR_BATCH	32

struct ctr_row {
	int64_t		 guid;
	int		 port;
	const char	*name;
	int64_t		 total, last;
	int		 sat;
};

static struct ctr_row	 ctr_rowbuf[CTR_BATCH];
static int		 ctr_nrows;
static struct counters_tap ctr_tap;

#define FLUSH_MS	10000

unsigned
ctr_update(struct ctr_acc *a, uint64_t raw, unsigned width)
{
	uint64_t max = width >= 64 ? CTR_NONE - 1 : (1ULL << width) - 1;
	int was_saturated = ctr_saturated(a, width);
	unsigned ev = 0;

	if (raw > max)
		raw = max;	/* a field wider than its counter: garbage */
	if (!ctr_valid(a)) {
		/* Counters start at zero with the port: a first reading
		 * is the count so far. */
		a->total += raw;
		ev |= CTR_EV_FIRST;
	} else if (raw >= a->last) {
		a->total += raw - a->last;
	} else {
		/* Went down: reset by someone else or by a reboot. What
		 * came before the reset since our last reading is lost. */
		a->total += raw;
		ev |= CTR_EV_RESET;
	}
	a->last = raw;
	if (ctr_saturated(a, width) && !was_saturated)
		ev |= CTR_EV_SATURATED;
	return ev;
}

void
ctr_acc_init(struct ctr_acc *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		a[i].total = 0;
		a[i].last = CTR_NONE;
	}
}

void
ctr_repl_merge(struct ctr_acc *a, uint64_t total, uint64_t last)
{
	if (ctr_valid(a) && total < a->total)
		return;		/* an older state */
	a->total = total;
	a->last = last == CTR_NONE ? last - 1 : last;
}

void
ctr_was_reset(struct ctr_acc *a)
{
	a->last = 0;
}

/* The slot of (node, port), the arrays grown to hold it; NULL when
 * memory is short. */
static struct ctr_port **
slot_grow(uint32_t node, uint8_t port)
{
	const struct store_node *sn = store_node_at(node);
	unsigned want = port + 1u;
	struct ctr_node *cn;

	if (node >= ctr_nnodes) {
		size_t n = ctr_nnodes ? ctr_nnodes : 1024;
		struct ctr_node **a;

		while (n <= node)
			n *= 2;
		if ((a = realloc(ctr_nodes, n * sizeof(*a))) == NULL)
			return NULL;
		memset(a + ctr_nnodes, 0, (n - ctr_nnodes) * sizeof(*a));
		ctr_nodes = a;
		ctr_nnodes = n;
	}
	cn = ctr_nodes[node];
	if (cn == NULL || cn->nslots < want) {
		unsigned have = cn ? cn->nslots : 0;

		if (sn != NULL && sn->num_ports + 1u > want)
			want = sn->num_ports + 1u;
		if ((cn = realloc(cn, sizeof(*cn) + want * sizeof(cn->slot[0])))
		    == NULL)
			return NULL;
		memset(cn->slot + have, 0, (want - have) * sizeof(cn->slot[0]));
		if (have == 0)
			cn->caps = CAPS_UNKNOWN;
		cn->nslots = want;
		ctr_nodes[node] = cn;
	}
	return &cn->slot[port];
}

static struct ctr_port *
port_get(uint32_t node, uint8_t port, int create)
{
	struct ctr_port **slot, *p;

	if (node < ctr_nnodes && ctr_nodes[node] != NULL &&
	    port < ctr_nodes[node]->nslots && ctr_nodes[node]->slot[port])
		return ctr_nodes[node]->slot[port];
	if (!create || (slot = slot_grow(node, port)) == NULL ||
	    (p = pool_get(&ctr_pool)) == NULL)
		return NULL;
	ctr_acc_init(p->c, CTR_BASE);
	p->node = node;
	p->port = port;
	p->disc_ms = ctr_start_ms;
	p->change_ms = ctr_start_ms;
	if (ctr_orphans.n > 0) {
		const struct store_node *sn = store_node_at(node);

		p->orphaned = sn != NULL &&
		    htab_get_u64(&ctr_orphans, sn->guid) != NULL;
	}
	*slot = p;
	return p;
}

const struct ctr_port *
counters_port(uint32_t node, uint8_t port)
{
	return port_get(node, port, 0);
}

static uint64_t
dirty_bit(int i)
{
	return i < CTR_BASE ? 1ULL << i : 1ULL << 63;
}

static void
mark_dirty(struct ctr_port *p, uint64_t bits)
{
	p->dirty |= bits;
	if (p->dirty_next == NULL) {
		p->dirty_next = ctr_dirty != NULL ? ctr_dirty : DIRTY_END;
		ctr_dirty = p;
	}
}

static void
tap_changed(const struct ctr_port *p, int i, const struct ctr_acc *a)
{
	const struct store_node *sn;

	if (ctr_tap.changed != NULL && (sn = store_node_at(p->node)) != NULL)
		ctr_tap.changed(sn->guid, p->port, i, a, ctr_tap.arg);
}

const struct ctr_acc *
counters_acc(const struct ctr_port *p, int i)
{
	static const struct ctr_acc zero = CTR_ACC_INIT;

	if (i < CTR_BASE)
		return &p->c[i];
	return p->vl != NULL && i < CTR_MAX ? &p->vl[i - CTR_BASE] : &zero;
}

/* A counter to update; NULL if its per-VL block cannot be had. */
static struct ctr_acc *
acc_mut(struct ctr_port *p, int i)
{
	if (i < CTR_BASE)
		return &p->c[i];
	if (p->vl == NULL) {
		if ((p->vl = malloc((CTR_MAX - CTR_BASE) *
		    sizeof(*p->vl))) == NULL)
			return NULL;
		ctr_acc_init(p->vl, CTR_MAX - CTR_BASE);
	}
	return &p->vl[i - CTR_BASE];
}

int
counters_port_read(const struct ctr_port *p)
{
	return p != NULL && ctr_valid(&p->c[CTR_SYMBOL_ERRORS]);
}

const struct ctr_port *
counters_placeholder(uint32_t node, uint8_t port)
{
	struct ctr_port *p = port_get(node, port, 1);

	if (p != NULL && !counters_port_read(p) && !p->placeholder) {
		p->placeholder = 1;
		p->disc_ms = (int64_t)ev_now();
	}
	return p;
}

uint32_t
counters_ticks(int64_t ms)
{
	return ms <= ctr_start_ms ? 0 : (uint32_t)((ms - ctr_start_ms) / 10);
}

/* The periodic save, due within FIRST_SAVE_MS. */
#define FIRST_SAVE_MS	1000

static void
first_soon(void)
{
	if (!ev_timer_pending(&ctr_timer) ||
	    ctr_timer.when > ev_now() + FIRST_SAVE_MS)
		ev_timer_add(&ctr_timer, FIRST_SAVE_MS);
}

/* The counters one reading found reset or saturated, for one line. */
struct ev_names {
	char	buf[512];
	size_t	len;
	int	n;
};

static void
ev_name(struct ev_names *en, int i, uint64_t val)
{
	int w;

	if (en->len >= sizeof(en->buf))
		return;
	w = snprintf(en->buf + en->len, sizeof(en->buf) - en->len, "%s%s at "
	    "%llu", en->n ? ", " : "", perf_ctrs[i].name,
	    (unsigned long long)val);
	en->len += w > 0 ? (size_t)w : 0;
	en->n++;
}

static sqlite3	*db(void);

/* One answer's pass over a port's accumulators. */
struct feed {
	struct ctr_port		*p;
	unsigned		 ev, seen;
	struct ev_names		 down, sat;	/* buf written before read */
};

/* Counter i's new reading raw, of width bits; keep: saved even if a
 * first 0 (an attribute's first counter). */
static void
feed_one(struct feed *f, int i, uint64_t raw, unsigned width, int keep)
{
	struct ctr_port *p = f->p;
	struct ctr_acc *a = acc_mut(p, i);
	uint64_t last;
	unsigned e;

	if (a == NULL)
		return;
	last = a->last;
	e = ctr_update(a, raw, width);
	/* Only a change needs saving: an idle port costs no write
	 * (every change moves the reading or is an event). */
	if (e || a->last != last) {
		/* Except a first reading of 0 (total = last = 0): a restart
		 * without its row reads the counter afresh and counts the
		 * same from there, since 0 cannot go down. Most of a
		 * fabric's error counters read 0: the first poll's save
		 * shrinks to the counters that count. An attribute's first
		 * counter is saved all the same: its validity says the
		 * attribute was read (counters_port_read, the HA snapshot,
		 * IF-MIB's stale answers). */
		if (e != CTR_EV_FIRST || raw != 0 || keep || p->orphaned)
			mark_dirty(p, dirty_bit(i));
		tap_changed(p, i, a);
	}
	/* Steady counting keeps total - last: a restart recomputes the
	 * same total from a saved pair. Events change it. A first reading
	 * leaves total = last, which a restart reading the counter afresh
	 * finds too, unless the counter went down meanwhile: saved within
	 * a second, not in this iteration (the first poll of a large
	 * fabric committed once per loop iteration, 458 times at 8,000
	 * ports). */
	if (e & ~CTR_EV_FIRST)
		ctr_urgent = 1;
	f->seen |= e;
	if (e & (CTR_EV_SATURATED | CTR_EV_RESET))
		ev_name(e & CTR_EV_RESET ? &f->down : &f->sat, i, raw);
	/* A counter seen for the first time on a port that has others is
	 * no discontinuity of the interface. */
	if (!(e & CTR_EV_FIRST))
		f->ev |= e;
}

unsigned
counters_width(const struct ctr_port *p, int i)
{
	return p->ext_src && perf_ctr_addl(i) ? 64 : perf_ctrs[i].width;
}

/* Whether the port's error counters and PortXmitWait are to come from
 * PortCountersExtended: as its node's ClassPortInfo says, or as they
 * came so far while it has not been read. */
static int
want_ext(const struct ctr_port *p)
{
	const struct ctr_node *cn = ctr_nodes[p->node];

	return cn->caps == CAPS_UNKNOWN ? p->ext_src : cn->caps == CAPS_ADDL;
}

void
counters_pma_caps(uint32_t node, uint32_t cap2)
{
	struct ctr_port **slot = slot_grow(node, 0);

	if (slot != NULL)
		ctr_nodes[node]->caps = (cap2 & PERF_CAP2_ADDL_EXT) ?
		    CAPS_ADDL : CAPS_BASE;
}

/* The rows of the source a port no longer has (a switch): a restart
 * must not find both. Rare (a first ClassPortInfo, new firmware). */
static void
forget_rows(const struct ctr_port *p, int ext)
{
	const struct store_node *sn = store_node_at(p->node);
	sqlite3_stmt *st;

	if (db() == NULL || sn == NULL || sqlite3_prepare_v2(db(), "DELETE "
	    "FROM counters WHERE node_guid = ?1 AND port = ?2 AND "
	    "counter = ?3", -1, &st, NULL) != SQLITE_OK)
		return;
	for (int i = 0; i <= CTR_XMIT_WAIT; i++) {
		if (!perf_ctr_addl(i))
			continue;
		sqlite3_bind_int64(st, 1, (int64_t)sn->guid);
		sqlite3_bind_int(st, 2, p->port);
		sqlite3_bind_text(st, 3, ext ? perf_addl_name(i) :
		    perf_ctrs[i].name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			log_warnx("counters: %s", sqlite3_errmsg(db()));
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

/* ms since start + 1, mod 2^32, never 0: the wait interval's clock. */
static uint32_t
wait_clock(void)
{
	uint32_t t = (uint32_t)((int64_t)ev_now() - ctr_start_ms + 1);

	return t ? t : 1;
}

/* The error counters and PortXmitWait change source: each goes on from
 * its new reading (nothing added: the two counters' bases differ), a
 * discontinuity. */
static void
switch_src(struct feed *f, int ext, const uint64_t *vals)
{
	struct ctr_port *p = f->p;

	p->ext_src = (uint8_t)ext;
	for (int i = 0; i <= CTR_XMIT_WAIT; i++) {
		struct ctr_acc *a = &p->c[i];
		unsigned w = counters_width(p, i);

		if (!perf_ctr_addl(i))
			continue;
		if (!ctr_valid(a)) {
			feed_one(f, i, vals[i], w, i == CTR_SYMBOL_ERRORS);
			continue;
		}
		a->last = w >= 64 ? (vals[i] >= CTR_NONE ? CTR_NONE - 1 :
		    vals[i]) : vals[i] & ((1ULL << w) - 1);
		mark_dirty(p, dirty_bit(i));
		tap_changed(p, i, a);
	}
	forget_rows(p, !ext);
	ctr_urgent = 1;
	f->ev |= CTR_EV_RESET;
	ctr_wait_start(p, wait_clock());	/* none across the switch */
	log_info("counters: %s port %u: error counters and PortXmitWait "
	    "from %s from now on", store_node_ident_idx(p->node), p->port,
	    ext ? "PortCountersExtended (64 bits)" : "PortCounters");
}

/* The attribute's own counters; PortCounters' error counters and
 * PortXmitWait not where their 64-bit copies are to feed them (ext). */
static void
feed_attr(struct feed *f, uint16_t attr, const uint64_t *vals, int ext)
{
	int first, n;

	perf_attr_ctrs(attr, &first, &n);
	for (int i = first; i < first + n; i++) {
		if (attr == PERF_ATTR_PORT_COUNTERS && ext && perf_ctr_addl(i))
			continue;
		feed_one(f, i, vals[i], perf_ctrs[i].width, i == first);
	}
}

/* PortCountersExtended's 64-bit copies, where the port takes them. */
static void
feed_addl(struct feed *f, const uint64_t *vals)
{
	for (int i = 0; i <= CTR_XMIT_WAIT; i++)
		if (perf_ctr_addl(i))
			feed_one(f, i, vals[i], 64, i == CTR_SYMBOL_ERRORS);
}

/* After an answer: one log line per kind of event (a reset takes all
 * of a port's counters), the discontinuity. */
static void
feed_done(struct feed *f, uint16_t attr)
{
	struct ctr_port *p = f->p;

	if (f->down.n)
		log_info("counters: %s port %u: %s went down (reset or "
		    "reboot)", store_node_ident_idx(p->node), p->port,
		    f->down.buf);
	if (f->sat.n)
		log_info("counters: %s port %u: %s saturated",
		    store_node_ident_idx(p->node), p->port, f->sat.buf);
	if (f->seen & CTR_EV_FIRST)
		first_soon();
	/* Real counts replace the zeros served so far. */
	if (p->placeholder && attr == PERF_ATTR_PORT_COUNTERS) {
		p->placeholder = 0;
		f->ev |= CTR_EV_RESET;
	}
	if (f->ev & (CTR_EV_SATURATED | CTR_EV_RESET)) {
		ctr_urgent = 1;	/* disc_ms is not saved; the pairs are */
		p->disc_ms = (int64_t)ev_now();
	}
}

void
counters_feed(uint32_t node, uint8_t port, uint16_t attr, const uint8_t *data,
    size_t len)
{
	struct ctr_port *p = port_get(node, port, 1);
	uint64_t vals[CTR_MAX];
	struct feed f;
	int ext, wait = 0;

	if (p == NULL || perf_decode(attr, data, len, vals) == -1)
		return;
	memset(&f, 0, sizeof(f));
	f.p = p;
	ext = want_ext(p);
	if (attr == PERF_ATTR_PORT_COUNTERS) {
		if (!ext && p->ext_src)
			switch_src(&f, 0, vals);
		else
			wait = !ext;
	}
	feed_attr(&f, attr, vals, ext);
	if (attr == PERF_ATTR_PORT_COUNTERS_EXT && ext &&
	    perf_decode_ext_addl(data, len, vals) == 0) {
		if (!p->ext_src)
			switch_src(&f, 1, vals);
		else {
			feed_addl(&f, vals);
			wait = 1;
		}
	}
	feed_done(&f, attr);
	if (wait)
		ctr_wait_update(p, wait_clock());
}

void
counters_port_state(uint32_t node, uint8_t port, uint8_t state)
{
	struct ctr_port *p = port_get(node, port, 1);

	if (p == NULL || p->state == state)
		return;
	if (p->state != 0) {
		p->change_ms = (int64_t)ev_now();
		/* A port that went down may come back from a reboot with
		 * fresh counters: distrust differences across it. */
		p->disc_ms = p->change_ms;
	}
	p->state = state;
}

/* The counter that CounterSelect bit b of attr names, or -1: the
 * PortCounters counters are in Table 227's bit order (PortXmitWait,
 * the 17th, has no bit), the per-VL ones a bit per VL. */
static int
select_ctr(uint16_t attr, int b)
{
	switch (attr) {
	case PERF_ATTR_PORT_COUNTERS:
		return b < CTR_XMIT_WAIT ? b : -1;
	case PERF_ATTR_VL_OP_PACKETS:
		return CTR_VL_OP_PKTS0 + b;
	case PERF_ATTR_VL_OP_DATA:
		return CTR_VL_OP_DATA0 + b;
	}
	return -1;
}

uint16_t
counters_reset_mask(uint32_t node, uint8_t port, uint16_t attr)
{
	struct ctr_port *p = port_get(node, port, 0);
	uint16_t mask = 0;

	if (p == NULL)
		return 0;
	for (int b = 0; b < 16; b++) {
		int i = select_ctr(attr, b);
		uint64_t max;

		/* A 64-bit copy needs no reset, and clearing PortCounters
		 * may not clear it. */
		if (i < 0 || counters_width(p, i) == 64)
			continue;
		const struct ctr_acc *a = counters_acc(p, i);

		max = (1ULL << perf_ctrs[i].width) - 1;
		if (ctr_valid(a) && a->last >= max - max / 4)
			mask |= 1u << b;
	}
	/* The Set clears what the unsaved pair counted: on disk first, or
	 * a crash before its answer would restart from the cleared counter
	 * below what was served. */
	if (mask != 0 && p->dirty != 0)
		counters_flush();
	return mask;
}

void
counters_was_reset(uint32_t node, uint8_t port, uint16_t attr, uint16_t mask)
{
	struct ctr_port *p = port_get(node, port, 0);

	if (p == NULL)
		return;
	for (int b = 0; b < 16; b++) {
		int i = select_ctr(attr, b);
		struct ctr_acc *a;

		if (i >= 0 && (mask & (1u << b)) && counters_width(p, i) < 64 &&
		    (a = acc_mut(p, i))) {
			ctr_was_reset(a);
			mark_dirty(p, dirty_bit(i));
			tap_changed(p, i, a);
		}
	}
	ctr_urgent = 1;
}

/* Persistence */

static sqlite3 *
db(void)
{
	return store_db_handle();
}

static int
load(void)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	if (db() == NULL)
		return 0;
	if (sqlite3_prepare_v2(db(), "SELECT node_guid, port, counter, total, "
	    "last, saturated FROM counters", -1, &st, NULL) != SQLITE_OK) {
		log_warnx("counters: %s", sqlite3_errmsg(db()));
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_node *sn = store_node_by_guid(
		    (uint64_t)sqlite3_column_int64(st, 0));
		int port = sqlite3_column_int(st, 1);
		const char *name = (const char *)sqlite3_column_text(st, 2);
		struct ctr_port *p;
		struct ctr_acc *a;
		int i, ext = 0;

		if (sn == NULL || port < 0 || port > sn->num_ports || !name) {
			uint64_t g = (uint64_t)sqlite3_column_int64(st, 0);

			if (htab_get_u64(&ctr_orphans, g) == NULL &&
			    htab_put_u64(&ctr_orphans, g, &ctr_orphans) == -1)
				log_warn("counters: orphans");
			continue;
		}
		for (i = 0; i < CTR_MAX; i++)
			if (strcmp(perf_ctrs[i].name, name) == 0)
				break;
		/* A 64-bit copy's row says where the port's come from. */
		for (int j = 0; i == CTR_MAX && j <= CTR_XMIT_WAIT; j++)
			if (perf_ctr_addl(j) &&
			    strcmp(perf_addl_name(j), name) == 0)
				i = j, ext = 1;
		if (i == CTR_MAX || (p = port_get(sn->idx, port, 1)) == NULL ||
		    (a = acc_mut(p, i)) == NULL)
			continue;
		if (ext)
			p->ext_src = 1;
		/* saturated (column 5) is last == all ones: derived. */
		ctr_repl_merge(a, (uint64_t)sqlite3_column_int64(st, 3),
		    (uint64_t)sqlite3_column_int64(st, 4));
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		log_warnx("counters: %s", sqlite3_errmsg(db()));
		return -1;
	}
	log_info("counters: %d accumulators loaded", n);
	return 0;
}

/* The batch's rows, written by one step of st. */
static int
rows_step(sqlite3_stmt *st)
{
	int rc;

	if (ctr_nrows == 0)
		return 0;
	for (int k = 0; k < CTR_BATCH; k++) {
		const struct ctr_row *r = &ctr_rowbuf[k < ctr_nrows ? k :
		    ctr_nrows - 1];

		sqlite3_bind_int64(st, 6 * k + 1, r->guid);
		sqlite3_bind_int(st, 6 * k + 2, r->port);
		sqlite3_bind_text(st, 6 * k + 3, r->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 6 * k + 4, r->total);
		sqlite3_bind_int64(st, 6 * k + 5, r->last);
		sqlite3_bind_int(st, 6 * k + 6, r->sat);
	}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	ctr_nrows = 0;
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Saves one port's changed counters: how many rows, -1 when one fails. */
static int
flush_port(sqlite3_stmt *st, const struct ctr_port *p)
{
	const struct store_node *sn = store_node_at(p->node);
	int rows = 0;

	if (sn == NULL)
		return 0;
	for (int i = 0; i < CTR_MAX; i++) {
		const struct ctr_acc *a = counters_acc(p, i);
		struct ctr_row *r;

		/* Only what changed: a busy port moves a few counters. */
		if (!ctr_valid(a) || !(p->dirty & dirty_bit(i)))
			continue;
		r = &ctr_rowbuf[ctr_nrows++];
		r->guid = (int64_t)sn->guid;
		r->port = p->port;
		r->name = p->ext_src ? perf_addl_name(i) : perf_ctrs[i].name;
		r->total = (int64_t)a->total;
		r->last = (int64_t)a->last;
		r->sat = ctr_saturated(a, counters_width(p, i));
		if (ctr_nrows == CTR_BATCH && rows_step(st) == -1)
			return -1;
		ctr_rows++;
		rows++;
	}
	return rows;
}

/* Saves the dirty ports from the list's head, in one transaction, until
 * max_rows rows are written: 0 when the list is empty then, 1 when some
 * are left, -1 when the save failed (the list stays for the next). */
static int
flush_some(size_t max_rows)
{
	sqlite3_stmt *st;
	struct ctr_port *p, *next;
	size_t rows = 0;
	int n;

	if (db() == NULL || ctr_dirty == NULL)
		return 0;	/* nothing changed: no transaction */
	/* Prepared once: flushes are frequent. An upsert changes the row
	 * in place; REPLACE deleted it and its index entry and inserted
	 * both again (half of a flush's cost). */
	if (ctr_stmt == NULL && store_sql_prepare_list(db(), "INSERT INTO "
	    "counters (node_guid, port, counter, total, last, saturated) "
	    "VALUES ", "(?,?,?,?,?,?)", CTR_BATCH, " ON CONFLICT (node_guid, "
	    "port, counter) DO UPDATE SET total = excluded.total, last = "
	    "excluded.last, saturated = excluded.saturated", &ctr_stmt) == -1)
		goto fail;
	st = ctr_stmt;
	if (sqlite3_exec(db(), "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	ctr_nrows = 0;
	for (p = ctr_dirty; p != DIRTY_END && rows < max_rows;
	    p = p->dirty_next) {
		if ((n = flush_port(st, p)) == -1) {
			sqlite3_exec(db(), "ROLLBACK", NULL, NULL, NULL);
			goto fail;
		}
		rows += (size_t)n;
	}
	if (rows_step(st) == -1) {
		sqlite3_exec(db(), "ROLLBACK", NULL, NULL, NULL);
		goto fail;
	}
	if (sqlite3_exec(db(), "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_exec(db(), "ROLLBACK", NULL, NULL, NULL);
		goto fail;
	}
	/* After COMMIT only: a failed save leaves the list for the next.
	 * The ports saved are the head of the list, up to p. */
	for (struct ctr_port *q = ctr_dirty; q != p; q = next) {
		next = q->dirty_next;
		q->dirty = 0;
		q->dirty_next = NULL;
	}
	ctr_dirty = p == DIRTY_END ? NULL : p;
	ctr_commits++;
	return ctr_dirty != NULL;
fail:
	log_warnx("counters: cannot save accumulators: %s",
	    sqlite3_errmsg(db()));
	return -1;
}

int
counters_flush(void)
{
	return flush_some(SIZE_MAX) == -1 ? -1 : 0;
}

/* The periodic save, a slice at a time: after a first poll of a large
 * fabric every accumulator is new, and one transaction for all of them
 * held the loop for most of a second at 8,000 ports. */
#define FLUSH_SLICE_ROWS	8192

static void
flush_timer(void *arg)
{
	ev_timer_add(&ctr_timer, flush_some(FLUSH_SLICE_ROWS) == 1 ? 1 :
	    FLUSH_MS);
}

/* An event-loop hook that runs after the MAD answers of an iteration
 * were fed and before the SNMP hook (registered later) answers anything
 * from them: one transaction for all offsets changed in the iteration.
 * A failed commit is logged by counters_flush and tried again by the
 * timer; answers are not held back by a broken disk. */
static int
sync_prepare(void *arg, struct pollfd *pfd, int max, int *timeout_ms)
{
	return 0;
}

static void
sync_dispatch(void *arg, struct pollfd *pfd, int n)
{
	if (ctr_tap.flush != NULL)
		ctr_tap.flush(ctr_tap.arg);
	if (!ctr_urgent)
		return;
	ctr_urgent = 0;
	counters_flush();
}

/* ---- HA (docs/ha.md) */

void
counters_set_tap(const struct counters_tap *t)
{
	if (t != NULL)
		ctr_tap = *t;
	else
		memset(&ctr_tap, 0, sizeof(ctr_tap));
}

int
counters_walk(uint32_t *node, unsigned *port,
    int (*fn)(uint64_t, const struct ctr_port *, void *), void *arg)
{
	for (; *node < ctr_nnodes; (*node)++, *port = 0) {
		const struct ctr_node *cn = ctr_nodes[*node];
		const struct store_node *sn = store_node_at(*node);

		for (; cn != NULL && sn != NULL && *port < cn->nslots;
		    (*port)++) {
			const struct ctr_port *p = cn->slot[*port];

			if (p != NULL && counters_port_read(p) &&
			    fn(sn->guid, p, arg) == -1)
				return 0;
		}
	}
	return 1;
}

/* A node the inventory does not have (yet): its row, if newer. */
static void
repl_save_row(uint64_t guid, uint8_t port, int ctr, uint64_t total,
    uint64_t last)
{
	sqlite3_stmt *st;

	if (db() == NULL || sqlite3_prepare_v2(db(), "INSERT INTO counters "
	    "(node_guid, port, counter, total, last, saturated) VALUES "
	    "(?1, ?2, ?3, ?4, ?5, 0) ON CONFLICT (node_guid, port, counter) "
	    "DO UPDATE SET total = ?4, "
	    "last = ?5 WHERE total <= ?4", -1, &st, NULL) != SQLITE_OK) {
		log_warnx("counters: %s", sqlite3_errmsg(db()));
		return;
	}
	sqlite3_bind_int64(st, 1, (int64_t)guid);
	sqlite3_bind_int(st, 2, port);
	sqlite3_bind_text(st, 3, perf_ctrs[ctr].name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)total);
	sqlite3_bind_int64(st, 5, (int64_t)last);
	if (sqlite3_step(st) != SQLITE_DONE)
		log_warnx("counters: %s", sqlite3_errmsg(db()));
	sqlite3_finalize(st);
}

void
counters_repl_apply(uint64_t guid, uint8_t port, int ctr, uint64_t total,
    uint64_t last)
{
	const struct store_node *sn = store_node_by_guid(guid);
	struct ctr_port *p;
	struct ctr_acc *a;

	if (ctr < 0 || ctr >= CTR_MAX)
		return;
	if (sn == NULL || port > sn->num_ports ||
	    (p = port_get(sn->idx, port, 1)) == NULL ||
	    (a = acc_mut(p, ctr)) == NULL) {
		repl_save_row(guid, port, ctr, total, last);
		return;
	}
	ctr_repl_merge(a, total, last);
	mark_dirty(p, dirty_bit(ctr));
}

int
counters_repl_reload(void)
{
	if (counters_flush() == -1)
		return -1;
	return load();
}

void
counters_stats(uint64_t *commits, uint64_t *rows)
{
	*commits = ctr_commits;
	*rows = ctr_rows;
}

int
counters_init(void)
{
	pool_init(&ctr_pool, sizeof(struct ctr_port));
	/* A restart is a discontinuity: sysUpTime starts again. */
	ctr_start_ms = (int64_t)ev_now();
	static const struct ev_hook hook = { sync_prepare, sync_dispatch,
	    NULL };

	ev_timer_init(&ctr_timer, flush_timer, NULL);
	ev_timer_add(&ctr_timer, FLUSH_MS);
	if (ev_hook_add(&hook) == -1)
		return -1;
	return load();
}


void
counters_finalise(void)
{
	ev_timer_del(&ctr_timer);
	counters_flush();
	sqlite3_finalize(ctr_stmt);
	ctr_stmt = NULL;
	ctr_dirty = NULL;
	ctr_urgent = 0;
	for (size_t i = 0; i < ctr_nnodes; i++) {
		struct ctr_node *cn = ctr_nodes[i];

		for (unsigned j = 0; cn != NULL && j < cn->nslots; j++) {
			if (cn->slot[j] != NULL)
				free(cn->slot[j]->vl);
			pool_put(&ctr_pool, cn->slot[j]);
		}
		free(cn);
	}
	free(ctr_nodes);
	ctr_nodes = NULL;
	ctr_nnodes = 0;
	pool_free(&ctr_pool);
	htab_free(&ctr_orphans);
}
