/* counters: the accumulator state machine over every transition, and
 * persistence across a restart. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/mad.h>
#include <sqlite3.h>

#include "codec/perf.h"
#include "store/counters.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"

static void
test_first_and_growth(void **state)
{
	struct ctr_acc a = CTR_ACC_INIT;

	/* A first reading is the count so far. */
	assert_int_equal(ctr_update(&a, 100, 32), CTR_EV_FIRST);
	assert_true(a.total == 100);
	assert_int_equal(ctr_update(&a, 150, 32), 0);
	assert_true(a.total == 150);
	assert_int_equal(ctr_update(&a, 150, 32), 0);
	assert_true(a.total == 150);
}

static void
test_saturation(void **state)
{
	struct ctr_acc a = CTR_ACC_INIT;
	uint64_t max = 0xffffffffULL;

	ctr_update(&a, max - 10, 32);
	/* Reaching all ones: counted, and flagged once. */
	assert_int_equal(ctr_update(&a, max, 32), CTR_EV_SATURATED);
	assert_true(a.total == max);
	assert_true(ctr_saturated(&a, 32));
	/* Stuck at all ones: nothing more can be counted. */
	assert_int_equal(ctr_update(&a, max, 32), 0);
	assert_true(a.total == max);
	/* Someone resets it: count from the new base. */
	assert_int_equal(ctr_update(&a, 7, 32), CTR_EV_RESET);
	assert_true(a.total == max + 7);
	assert_false(ctr_saturated(&a, 32));
	/* Narrow counters saturate at their own width (4 bits). */
	struct ctr_acc b = CTR_ACC_INIT;
	ctr_update(&b, 14, 4);
	assert_int_equal(ctr_update(&b, 15, 4), CTR_EV_SATURATED);
	assert_int_equal(ctr_update(&b, 99, 4), 0);	/* garbage: clamped */
	assert_true(b.total == 15);
}

static void
test_reset_and_reboot(void **state)
{
	struct ctr_acc a = CTR_ACC_INIT;

	ctr_update(&a, 1000, 32);
	/* External reset (perfquery -R) then 5 new counts. */
	assert_int_equal(ctr_update(&a, 5, 32), CTR_EV_RESET);
	assert_true(a.total == 1005);
	assert_int_equal(ctr_update(&a, 25, 32), 0);
	assert_true(a.total == 1025);
	/* Reset to exactly zero. */
	assert_int_equal(ctr_update(&a, 0, 32), CTR_EV_RESET);
	assert_true(a.total == 1025);
	/* The gateway's own reset: no event, count on from zero. */
	ctr_was_reset(&a);
	assert_int_equal(ctr_update(&a, 3, 32), 0);
	assert_true(a.total == 1028);
}

static void
test_64bit_no_saturation(void **state)
{
	struct ctr_acc a = CTR_ACC_INIT;

	assert_false(ctr_valid(&a));
	ctr_update(&a, UINT64_MAX - 2, 64);
	assert_int_equal(ctr_update(&a, UINT64_MAX, 64), 0);
	assert_false(ctr_saturated(&a, 64));
	/* All ones would read as "no reading": held one below, and the
	 * accumulator stays valid. */
	assert_true(ctr_valid(&a));
	assert_true(a.last == UINT64_MAX - 1);
	assert_true(a.total == UINT64_MAX - 1);
}

static void
test_monotonic_random(void **state)
{
	struct ctr_acc a = CTR_ACC_INIT;
	uint64_t prev = 0, raw = 0, seed = 42;

	/* Whatever the readings do, the total never goes down. */
	for (int i = 0; i < 100000; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		switch (seed >> 62) {
		case 0: raw = 0; break;
		case 1: raw += seed >> 40 & 0xffff; break;
		case 2: raw = 0xffff; break;
		default: raw = (seed >> 20) & 0xffff; break;
		}
		ctr_update(&a, raw, 16);
		assert_true(a.total >= prev);
		prev = a.total;
	}
}

static void
put_pc(uint8_t *d, uint32_t rcv_data, uint32_t sym)
{
	memset(d, 0, 192);
	mad_encode_field(d, IB_PC_RCV_BYTES_F, &rcv_data);
	mad_encode_field(d, IB_PC_ERR_SYM_F, &sym);
}

/* Every PortCounters counter nonzero: rcv_data, sym, the rest 1. */
static void
put_pc_all(uint8_t *d, uint32_t rcv_data, uint32_t sym)
{
	uint32_t one = 1;

	memset(d, 0, 192);
	for (int i = 0; i < CTR_MAX; i++)
		if (perf_ctrs[i].attr == PERF_ATTR_PORT_COUNTERS)
			mad_encode_field(d, perf_ctrs[i].field, &one);
	mad_encode_field(d, IB_PC_RCV_BYTES_F, &rcv_data);
	mad_encode_field(d, IB_PC_ERR_SYM_F, &sym);
}

/* A fresh database in /tmp holding one two-port CA, and the counters
 * on it. */
/* A sweep that finds one two-port CA. */
static void
sweep_one_ca(uint64_t guid)
{
	struct store_node n;
	struct store_port p[3];
	unsigned nodes, lost;

	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = guid;
	n.type = STORE_NODE_CA;
	n.num_ports = 2;
	store_sweep_begin();
	store_sweep_node(&n, p);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
}

static void
open_one_ca(char *path, size_t len, const char *tag, uint64_t guid,
    int level)
{
	snprintf(path, len, "/tmp/ibsnmpgw-%s-%d.db", tag, getpid());
	unlink(path);
	log_init("test_counters", 1, level);
	ev_init();
	assert_int_equal(store_init(path), 0);
	sweep_one_ca(guid);
	assert_int_equal(counters_init(), 0);
}

static void
test_feed_and_restart(void **state)
{
	char path[64];
	uint8_t d[192];
	const struct ctr_port *cp;

	open_one_ca(path, sizeof(path), "ctr", 0x1234, LOG_ERR);
	put_pc(d, 1000, 3);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	put_pc(d, 0xffffffff, 3);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	cp = counters_port(0, 1);
	assert_non_null(cp);
	assert_true(cp->c[CTR_RCV_DATA].total == 0xffffffffULL);
	assert_true(cp->c[CTR_SYMBOL_ERRORS].total == 3);
	counters_finalise();		/* flushes */
	store_finalise();

	/* Restart: the accumulators come back; a reset after it counts. */
	assert_int_equal(store_init(path), 0);
	assert_int_equal(counters_init(), 0);
	cp = counters_port(0, 1);
	assert_non_null(cp);
	assert_true(cp->c[CTR_RCV_DATA].total == 0xffffffffULL);
	put_pc(d, 10, 4);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_true(cp->c[CTR_RCV_DATA].total == 0xffffffffULL + 10);
	assert_true(cp->c[CTR_SYMBOL_ERRORS].total == 4);
	/* Garbage: too short a payload changes nothing. */
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, 10);
	assert_true(cp->c[CTR_SYMBOL_ERRORS].total == 4);

	/* Reset masks per attribute: PortCounters' Table 227 bits, one bit
	 * per VL for the per-VL counters (16-bit packets: 3/4 is 49152). */
	put_pc(d, 0xf0000000u, 4);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(counters_reset_mask(0, 1, PERF_ATTR_PORT_COUNTERS),
	    1u << 13);				/* PortRcvData */
	memset(d, 0, sizeof(d));
	uint32_t v = 50000, w = 100;
	mad_encode_field(d, IB_PC_PORT_VL_OP_PACKETS0_F + 3, &v);
	mad_encode_field(d, IB_PC_PORT_VL_OP_PACKETS0_F + 4, &w);
	counters_feed(0, 1, PERF_ATTR_VL_OP_PACKETS, d, sizeof(d));
	assert_int_equal(counters_reset_mask(0, 1, PERF_ATTR_VL_OP_PACKETS),
	    1u << 3);
	assert_int_equal(counters_reset_mask(0, 1, PERF_ATTR_VL_OP_DATA), 0);
	counters_was_reset(0, 1, PERF_ATTR_VL_OP_PACKETS, 1u << 3);
	v = 7;
	mad_encode_field(d, IB_PC_PORT_VL_OP_PACKETS0_F + 3, &v);
	counters_feed(0, 1, PERF_ATTR_VL_OP_PACKETS, d, sizeof(d));
	assert_true(counters_acc(cp, CTR_VL_OP_PKTS0 + 3)->total == 50007);
	assert_true(counters_acc(cp, CTR_VL_OP_PKTS0 + 4)->total == 100);
	counters_finalise();
	store_finalise();
	ev_finalise();
	unlink(path);
}

/* A saved total; guid 0: of any node (the tests with one). */
static uint64_t
saved_total(sqlite3 *h, uint64_t guid, int port, const char *ctr)
{
	sqlite3_stmt *st;
	uint64_t v = UINT64_MAX;

	assert_int_equal(sqlite3_prepare_v2(h, "SELECT total FROM counters "
	    "WHERE (?1 = 0 OR node_guid = ?1) AND port = ?2 AND "
	    "counter = ?3", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, (int64_t)guid);
	sqlite3_bind_int(st, 2, port);
	sqlite3_bind_text(st, 3, ctr, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* A flush of more rows than one UPSERT takes (its batches, and a short
 * one): every changed counter of both ports saved as it is in memory,
 * once. */
static void
test_flush_batches(void **state)
{
	char path[64];
	uint8_t d[192];
	uint64_t c0, r0, c1, r1;
	sqlite3 *other;
	int want = 0, got;
	sqlite3_stmt *st;

	open_one_ca(path, sizeof(path), "ctrb", 0x9abc, LOG_CRIT);
	counters_stats(&c0, &r0);
	for (uint8_t port = 1; port <= 2; port++) {
		put_pc(d, 1000 + port, 3 + port);
		counters_feed(0, port, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
		/* PortVLOpPackets: 16 counters, each non-zero. */
		memset(d, 0x11, sizeof(d));
		counters_feed(0, port, PERF_ATTR_VL_OP_PACKETS, d, sizeof(d));
	}
	assert_int_equal(counters_flush(), 0);
	counters_stats(&c1, &r1);
	assert_true(c1 == c0 + 1);
	assert_true(r1 - r0 > 32);	/* more than one batch */
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	for (uint8_t port = 1; port <= 2; port++) {
		const struct ctr_port *cp = counters_port(0, port);

		assert_non_null(cp);
		for (int i = 0; i < CTR_MAX; i++) {
			const struct ctr_acc *a = counters_acc(cp, i);

			if (a == NULL || !ctr_valid(a) ||
			    saved_total(other, 0, port, perf_ctrs[i].name) ==
			    UINT64_MAX)
				continue;
			assert_true(saved_total(other, 0, port,
			    perf_ctrs[i].name) == a->total);
			want++;
		}
	}
	assert_int_equal(sqlite3_prepare_v2(other, "SELECT count(*) FROM "
	    "counters", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	got = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	assert_int_equal(got, want);
	assert_true((uint64_t)got == r1 - r0);
	sqlite3_close(other);
	counters_finalise();
	store_finalise();
	ev_finalise();
	unlink(path);
}

/* A flush writes the ports that changed since the last one, and only
 * those; a commit that fails keeps them for the next. */
static void
test_flush_dirty_only(void **state)
{
	char path[64];
	uint8_t d[192];
	uint64_t commits, rows, c0, r0;
	sqlite3 *other;
	const char *rcv = perf_ctrs[CTR_RCV_DATA].name;

	open_one_ca(path, sizeof(path), "ctrd", 0x5678, LOG_CRIT);
	counters_stats(&c0, &r0);
	assert_int_equal(counters_flush(), 0);	/* nothing: no transaction */
	counters_stats(&commits, &rows);
	assert_true(commits == c0 && rows == r0);

	put_pc(d, 1000, 3);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	counters_feed(0, 2, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(counters_flush(), 0);
	counters_stats(&c0, &r0);
	assert_true(c0 == commits + 1 && r0 > rows);
	/* Port 2 alone moves one counter: one row. */
	put_pc(d, 1500, 3);
	counters_feed(0, 2, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(counters_flush(), 0);
	counters_stats(&commits, &rows);
	assert_true(commits == c0 + 1 && rows == r0 + 1);
	assert_int_equal(counters_flush(), 0);
	counters_stats(&c0, &r0);
	assert_true(c0 == commits && r0 == rows);

	/* Another writer holds the database: the flush fails, and the
	 * change is written by the next one. */
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL,
	    NULL), SQLITE_OK);
	sqlite3_busy_timeout(store_db_handle(), 0);
	put_pc(d, 2000, 3);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(counters_flush(), -1);
	assert_int_equal(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL),
	    SQLITE_OK);
	assert_true(saved_total(other, 0, 1, rcv) == 1000);
	assert_int_equal(counters_flush(), 0);
	assert_true(saved_total(other, 0, 1, rcv) == 2000);
	assert_true(saved_total(other, 0, 2, rcv) == 1500);
	sqlite3_close(other);
	counters_finalise();
	store_finalise();
	ev_finalise();
	unlink(path);
}

static uint64_t fake_ms;

static uint64_t
fake_clock(void)
{
	return fake_ms;
}

static long
saved_rows(sqlite3 *h)
{
	sqlite3_stmt *st;
	long n = -1;

	assert_int_equal(sqlite3_prepare_v2(h, "SELECT count(*) FROM counters",
	    -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* A first reading leaves total - last as a restart would find it (0):
 * no commit in the loop's hook for it but a save within a second, while
 * a reset gets one at once. The save goes in slices: three 254-port
 * switches' new accumulators (over 8,192 rows) take several commits, a
 * millisecond apart, and all of them are saved. */
static void
test_first_not_urgent_sliced(void **state)
{
	char path[64];
	uint8_t d[192];
	struct store_node n;
	struct store_port p[255];
	unsigned nodes, lost;
	uint64_t commits, rows, c0, r0;
	sqlite3 *other;
	long want = 0;

	snprintf(path, sizeof(path), "/tmp/ibsnmpgw-ctrs-%d.db", getpid());
	unlink(path);
	log_init("test_counters", 1, LOG_ERR);
	ev_init();
	fake_ms = 1000000;
	ev_set_clock(fake_clock);
	assert_int_equal(store_init(path), 0);
	memset(p, 0, sizeof(p));
	store_sweep_begin();
	for (int s = 0; s < 3; s++) {
		memset(&n, 0, sizeof(n));
		n.guid = 0x100 + (uint64_t)s;
		n.type = STORE_NODE_SWITCH;
		n.num_ports = 254;
		store_sweep_node(&n, p);
	}
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_int_equal(counters_init(), 0);

	counters_stats(&c0, &r0);
	put_pc_all(d, 1000, 3);
	for (uint32_t s = 0; s < 3; s++)
		for (int port = 1; port <= 254; port++)
			counters_feed(s, (uint8_t)port,
			    PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(ev_run_once(0), 0);
	counters_stats(&commits, &rows);
	assert_true(commits == c0 && rows == r0);

	/* Within a second, the timer saves them slice by slice, a
	 * millisecond apart. */
	fake_ms += 999;
	assert_int_equal(ev_run_once(0), 0);
	counters_stats(&commits, &rows);
	assert_true(commits == c0 && rows == r0);
	fake_ms += 1;
	assert_int_equal(ev_run_once(0), 0);
	counters_stats(&commits, &rows);
	assert_true(commits == c0 + 1);
	assert_true(rows - r0 >= 8192 && rows - r0 < 8192 + 64);
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	assert_true(saved_rows(other) == (long)(rows - r0));
	for (int i = 0; i < 10; i++) {
		fake_ms += 1;
		assert_int_equal(ev_run_once(0), 0);
	}
	counters_stats(&commits, &rows);
	assert_true(commits >= c0 + 2);
	want = saved_rows(other);
	assert_true(want == (long)(rows - r0) && want > 8192 + 64);

	/* A reset (the reading went down): committed in this iteration,
	 * its row alone. */
	put_pc_all(d, 10, 3);
	counters_feed(2, 254, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(ev_run_once(0), 0);
	counters_stats(&c0, &r0);
	assert_true(c0 == commits + 1 && r0 == rows + 1);
	assert_true(saved_rows(other) == want);
	assert_true(saved_total(other, 0x102, 254,
	    perf_ctrs[CTR_RCV_DATA].name) == 1010);
	sqlite3_close(other);
	counters_finalise();
	store_finalise();
	ev_set_clock(NULL);
	ev_finalise();
	unlink(path);
}

/* A first reading of 0 makes no row: a restart reads the counter
 * afresh and counts what the saved pair would have counted. */
static void
test_first_zero_not_saved(void **state)
{
	char path[64];
	uint8_t d[192];
	const struct ctr_port *cp;
	sqlite3 *other;

	open_one_ca(path, sizeof(path), "ctrz", 0x5678, LOG_ERR);
	put_pc(d, 1000, 0);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	counters_flush();
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	/* PortRcvData, and SymbolErrorCounter, PortCounters' first: its
	 * pair says the port was read. */
	assert_true(saved_rows(other) == 2);
	assert_true(saved_total(other, 0x5678, 1,
	    perf_ctrs[CTR_RCV_DATA].name) == 1000);
	assert_true(saved_total(other, 0x5678, 1,
	    perf_ctrs[CTR_SYMBOL_ERRORS].name) == 0);
	assert_true(saved_total(other, 0x5678, 1,
	    perf_ctrs[CTR_LINK_DOWNED].name) == UINT64_MAX);
	sqlite3_close(other);
	counters_finalise();
	store_finalise();

	/* After a restart, before any reading: read before, as served
	 * stale when the node does not answer, and in an HA snapshot. */
	assert_int_equal(store_init(path), 0);
	assert_int_equal(counters_init(), 0);
	cp = counters_port(0, 1);
	assert_non_null(cp);
	assert_true(counters_port_read(cp));
	assert_true(cp->c[CTR_RCV_DATA].total == 1000);
	assert_true(cp->c[CTR_LINK_DOWNED].total == 0);
	put_pc(d, 1500, 2);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	cp = counters_port(0, 1);
	assert_non_null(cp);
	assert_true(cp->c[CTR_RCV_DATA].total == 1500);
	assert_true(cp->c[CTR_SYMBOL_ERRORS].total == 2);
	/* Now it counted: saved. */
	counters_finalise();
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	assert_true(saved_total(other, 0x5678, 1,
	    perf_ctrs[CTR_SYMBOL_ERRORS].name) == 2);
	sqlite3_close(other);
	store_finalise();
	ev_finalise();
	unlink(path);
}

/* Rows of a GUID the inventory did not hold at start may be stale: when
 * the node is read again, a first reading of 0 replaces them. */
static void
test_first_zero_over_orphan(void **state)
{
	char path[64];
	uint8_t d[192];
	sqlite3 *other;

	open_one_ca(path, sizeof(path), "ctro", 0x1111, LOG_ERR);
	counters_finalise();
	store_finalise();
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	/* 8738 is 0x2222, a GUID the inventory does not hold yet. */
	assert_int_equal(sqlite3_exec(other, "INSERT INTO counters (node_guid, "
	    "port, counter, total, last, saturated) VALUES (8738, 1, "
	    "'LinkDownedCounter', 500, 500, 0)", NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(other);
	assert_int_equal(store_init(path), 0);
	assert_int_equal(counters_init(), 0);
	sweep_one_ca(0x2222);
	put_pc(d, 0, 0);
	counters_feed(store_node_by_guid(0x2222)->idx, 1,
	    PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	counters_flush();
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	assert_true(saved_total(other, 0x2222, 1,
	    perf_ctrs[CTR_LINK_DOWNED].name) == 0);
	sqlite3_close(other);
	counters_finalise();
	store_finalise();
	ev_finalise();
	unlink(path);
}

/* The gateway's own reset clears what an unsaved first reading counted:
 * the pair is saved before the mask that orders the Set is returned. */
static void
test_reset_saves_first(void **state)
{
	char path[64];
	uint8_t d[192];
	sqlite3 *other;

	open_one_ca(path, sizeof(path), "ctrr", 0x9abc, LOG_CRIT);
	put_pc(d, 0xf0000000u, 3);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(ev_run_once(0), 0);
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	assert_true(saved_total(other, 0, 1, perf_ctrs[CTR_RCV_DATA].name) ==
	    UINT64_MAX);			/* not saved yet */
	assert_int_equal(counters_reset_mask(0, 1, PERF_ATTR_PORT_COUNTERS),
	    1u << 13);
	assert_true(saved_total(other, 0, 1, perf_ctrs[CTR_RCV_DATA].name) ==
	    0xf0000000u);
	sqlite3_close(other);
	counters_finalise();
	store_finalise();
	ev_finalise();
	unlink(path);
}

/* perf_decode's own loads give what libibmad's field tables give, for
 * every counter of every attribute, on random answers (the packed
 * 4-bit pair of PortCounters octet 19 included). vals is filled with a
 * poison before each decode, so a counter the decoder leaves out
 * fails. */
static void
test_decode_matches_libibmad(void **state)
{
	uint8_t d[192];
	uint64_t vals[CTR_MAX];
	unsigned seed = 12345;

	(void)state;
	for (int round = 0; round < 10000; round++) {
		for (size_t b = 0; b < sizeof(d); b++) {
			seed = seed * 1103515245u + 12345u;
			d[b] = (uint8_t)(seed >> 16);
		}
		for (int i = 0; i < CTR_MAX; i++) {
			uint64_t want = 0;
			uint32_t w32 = 0;
			int first, n;

			assert_int_equal(perf_attr_ctrs(perf_ctrs[i].attr,
			    &first, &n), 0);
			memset(vals, 0xa5, sizeof(vals));
			assert_int_equal(perf_decode(perf_ctrs[i].attr, d,
			    sizeof(d), vals), 0);
			if (perf_ctrs[i].width == 64)
				mad_decode_field(d, perf_ctrs[i].field, &want);
			else {
				mad_decode_field(d, perf_ctrs[i].field, &w32);
				want = w32;
			}
			if (vals[i] != want)
				fail_msg("%s: %llu, libibmad %llu",
				    perf_ctrs[i].name,
				    (unsigned long long)vals[i],
				    (unsigned long long)want);
		}
	}
}

/* PortVLOpPackets (16 x 16 bits) and PortVLOpData (16 x 32 bits): each
 * VL lands in its own counter, with its own width. */
static void
test_vl_decode(void **state)
{
	uint8_t d[192];
	uint64_t vals[CTR_MAX];
	int first, n;

	memset(d, 0, sizeof(d));
	for (uint32_t vl = 0; vl < PERF_NVL; vl++) {
		uint32_t pk = 0xff00 + vl;
		mad_encode_field(d, IB_PC_PORT_VL_OP_PACKETS0_F + vl, &pk);
	}
	assert_int_equal(perf_attr_ctrs(PERF_ATTR_VL_OP_PACKETS, &first, &n),
	    0);
	assert_int_equal(first, CTR_VL_OP_PKTS0);
	assert_int_equal(n, PERF_NVL);
	assert_int_equal(perf_decode(PERF_ATTR_VL_OP_PACKETS, d, sizeof(d),
	    vals), 0);
	for (int vl = 0; vl < PERF_NVL; vl++) {
		assert_true(vals[CTR_VL_OP_PKTS0 + vl] == 0xff00u + vl);
		assert_int_equal(perf_ctrs[CTR_VL_OP_PKTS0 + vl].width, 16);
	}
	memset(d, 0, sizeof(d));
	for (uint32_t vl = 0; vl < PERF_NVL; vl++) {
		uint32_t da = 0xfffff000u + vl;
		mad_encode_field(d, IB_PC_PORT_VL_OP_DATA0_F + vl, &da);
	}
	assert_int_equal(perf_decode(PERF_ATTR_VL_OP_DATA, d, sizeof(d),
	    vals), 0);
	for (int vl = 0; vl < PERF_NVL; vl++) {
		assert_true(vals[CTR_VL_OP_DATA0 + vl] == 0xfffff000u + vl);
		assert_int_equal(perf_ctrs[CTR_VL_OP_DATA0 + vl].width, 32);
	}
	/* Names are the SQL keys: all distinct. */
	for (int i = 0; i < CTR_MAX; i++)
		for (int j = i + 1; j < CTR_MAX; j++)
			assert_string_not_equal(perf_ctrs[i].name,
			    perf_ctrs[j].name);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_and_growth),
		cmocka_unit_test(test_decode_matches_libibmad),
		cmocka_unit_test(test_saturation),
		cmocka_unit_test(test_reset_and_reboot),
		cmocka_unit_test(test_64bit_no_saturation),
		cmocka_unit_test(test_monotonic_random),
		cmocka_unit_test(test_feed_and_restart),
		cmocka_unit_test(test_flush_dirty_only),
		cmocka_unit_test(test_flush_batches),
		cmocka_unit_test(test_first_not_urgent_sliced),
		cmocka_unit_test(test_first_zero_not_saved),
		cmocka_unit_test(test_first_zero_over_orphan),
		cmocka_unit_test(test_reset_saves_first),
		cmocka_unit_test(test_vl_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
