/* congestion: PortXmitWait and the error counters from the 64-bit
 * copies in PortCountersExtended where ClassPortInfo has them, the
 * switch between the two sources, and the congestion ratio; on values
 * ibsim cannot produce (it sets no CapabilityMask2). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/mad.h>
#include <sqlite3.h>

#include "codec/perf.h"
#include "codec/smp.h"
#include "store/counters.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"

static uint64_t fake_ms;

static uint64_t
fake_clock(void)
{
	return fake_ms;
}

/* Ticks over an interval at a rate: a tick is 64 octets' time. */
static void
test_ratio_arithmetic(void **state)
{
	/* 4x EDR, 100,000 Mb/s: a tick is 5.12 ns; 2 s half spent
	 * waiting are 195,312,500 ticks. */
	assert_int_equal(perf_xmit_wait_ppm(195312500, 2000, 100000),
	    500000);
	assert_int_equal(perf_xmit_wait_ppm(0, 2000, 100000), 0);
	/* One tick in an hour rounds to 0; 1x SDR ticks are 256 ns. */
	assert_int_equal(perf_xmit_wait_ppm(1, 3600000, 100000), 0);
	assert_int_equal(perf_xmit_wait_ppm(1000, 1000, 2000), 256);
	/* Unknown rate or interval: nothing to say. */
	assert_int_equal(perf_xmit_wait_ppm(1000, 0, 100000), 0);
	assert_int_equal(perf_xmit_wait_ppm(1000, 1000, 0), 0);
	/* More ticks than the interval holds (a tick longer than we
	 * take it): at most all of it; no overflow at 2^64 ticks. */
	assert_int_equal(perf_xmit_wait_ppm(UINT64_MAX, 1000, 100000),
	    1000000);
	assert_int_equal(perf_xmit_wait_ppm(UINT64_MAX / 2, 1, 1), 1000000);
}

static void
test_capmask2_and_decode(void **state)
{
	uint8_t d[192];
	uint64_t want[CTR_MAX], got[CTR_MAX];
	uint32_t v;

	/* CapabilityMask2 is 27 bits at octets 4-7, RespTimeValue the
	 * low 5 bits of octet 7. */
	memset(d, 0, sizeof(d));
	v = PERF_CAP2_ADDL_EXT;
	mad_encode_field(d, IB_CPI_CAPMASK2_F, &v);
	v = 0x1f;
	mad_encode_field(d, IB_CPI_RESP_TIME_VALUE_F, &v);
	assert_int_equal(perf_cpi_capmask2(d, sizeof(d)), PERF_CAP2_ADDL_EXT);
	assert_int_equal(perf_cpi_capmask2(d, 4), 0);

	/* The 64-bit copies at libibmad's offsets, into PortCounters'
	 * indexes (IB_PC_EXT_ERR_SYM_F .. IB_PC_EXT_XMT_WAIT_F). */
	srandom(35);
	memset(d, 0, sizeof(d));
	for (int f = IB_PC_EXT_ERR_SYM_F; f <= IB_PC_EXT_XMT_WAIT_F; f++) {
		uint64_t x = (uint64_t)random() << 33 ^ (uint64_t)random();
		int i = f == IB_PC_EXT_XMT_WAIT_F ? CTR_XMIT_WAIT :
		    f - IB_PC_EXT_ERR_SYM_F;

		mad_encode_field(d, f, &x);
		want[i] = x;
	}
	memset(got, 0, sizeof(got));
	assert_int_equal(perf_decode_ext_addl(d, sizeof(d), got), 0);
	for (int i = 0; i < CTR_EXT_XMIT_DATA; i++)
		if (perf_ctr_addl(i))
			assert_true(got[i] == want[i]);
	assert_false(perf_ctr_addl(CTR_XMIT_DATA));
	assert_false(perf_ctr_addl(CTR_EXT_XMIT_DATA));
	assert_int_equal(perf_decode_ext_addl(d, 183, got), -1);
	assert_string_equal(perf_addl_name(CTR_XMIT_WAIT), "PortXmitWait64");
	assert_string_equal(perf_addl_name(CTR_XMIT_DATA), "PortXmitData");
	/* The saved names stay distinct from every other counter's. */
	for (int i = 0; i <= CTR_XMIT_WAIT; i++)
		for (int j = 0; j < CTR_MAX && perf_ctr_addl(i); j++)
			assert_string_not_equal(perf_addl_name(i),
			    perf_ctrs[j].name);
}

/* A PortCounters answer: PortXmitWait and SymbolErrorCounter. */
static void
put_pc(uint8_t *d, uint32_t wait, uint32_t sym)
{
	memset(d, 0, 192);
	mad_encode_field(d, IB_PC_XMT_WAIT_F, &wait);
	mad_encode_field(d, IB_PC_ERR_SYM_F, &sym);
}

/* A PortCountersExtended answer with the 64-bit copies. */
static void
put_ext(uint8_t *d, uint64_t wait, uint64_t sym)
{
	memset(d, 0, 192);
	mad_encode_field(d, IB_PC_EXT_XMT_WAIT_F, &wait);
	mad_encode_field(d, IB_PC_EXT_ERR_SYM_F, &sym);
}

static uint8_t cpi_addl[192], cpi_base[192];

static void
caps(uint32_t node, const uint8_t *cpi)
{
	counters_pma_caps(node, perf_cpi_capmask2(cpi, 192));
}

/* One CA, its port 1 Active at 4x QDR (32,000 Mb/s). */
static void
open_ca(const char *path)
{
	struct store_node n;
	struct store_port p[3];
	struct smp_portinfo pi;
	unsigned nodes, lost, v;

	unlink(path);
	log_init("test_congestion", 1, LOG_ERR);
	ev_init();
	ev_set_clock(fake_clock);
	assert_int_equal(store_init(path), 0);
	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = 0x35;
	n.type = STORE_NODE_CA;
	n.num_ports = 2;
	p[1].pinfo_ok = 1;
	v = 2;					/* 4x */
	mad_encode_field(p[1].pinfo, IB_PORT_LINK_WIDTH_ACTIVE_F, &v);
	v = 4;					/* QDR */
	mad_encode_field(p[1].pinfo, IB_PORT_LINK_SPEED_ACTIVE_F, &v);
	v = 4;					/* Active */
	mad_encode_field(p[1].pinfo, IB_PORT_STATE_F, &v);
	assert_int_equal(smp_decode_portinfo(p[1].pinfo, STORE_SMP_LEN, &pi),
	    0);
	assert_true(smp_port_rate_mbps(&pi) == 32000);
	store_sweep_begin();
	store_sweep_node(&n, p);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_int_equal(counters_init(), 0);
	v = PERF_CAP_EXT_WIDTH;
	mad_encode_field(cpi_base, IB_CPI_CAPMASK_F, &v);
	mad_encode_field(cpi_addl, IB_CPI_CAPMASK_F, &v);
	v = PERF_CAP2_ADDL_EXT;
	mad_encode_field(cpi_addl, IB_CPI_CAPMASK2_F, &v);
}

static int
row_exists(const char *path, const char *name)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int found;

	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT 1 FROM counters "
	    "WHERE port = 1 AND counter = ?1", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	sqlite3_close(h);
	return found;
}

/* 32-bit PortXmitWait: saturation and a reset, as every counter. */
static void
test_32bit_source(void **state)
{
	char path[64];
	uint8_t d[192];
	const struct ctr_port *cp;

	snprintf(path, sizeof(path), "/tmp/ibsnmpgw-cong32-%d.db", getpid());
	fake_ms = 1000000;
	open_ca(path);
	caps(0, cpi_base);
	put_pc(d, 100, 1);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	cp = counters_port(0, 1);
	assert_non_null(cp);
	assert_int_equal(cp->ext_src, 0);
	assert_int_equal(counters_width(cp, CTR_XMIT_WAIT), 32);
	fake_ms += 10000;
	put_pc(d, 0xffffffffu, 1);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_true(cp->c[CTR_XMIT_WAIT].total == 0xffffffffULL);
	assert_true(ctr_saturated(&cp->c[CTR_XMIT_WAIT], 32));
	assert_true(cp->disc_ms == 1010000);
	/* A PortCountersExtended answer of a node without the copies
	 * changes nothing of them. */
	put_ext(d, 5, 5);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS_EXT, d, sizeof(d));
	assert_true(cp->c[CTR_XMIT_WAIT].total == 0xffffffffULL);
	fake_ms += 10000;
	put_pc(d, 7, 1);		/* reset by someone */
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_true(cp->c[CTR_XMIT_WAIT].total == 0xffffffffULL + 7);
	assert_true(cp->disc_ms == 1020000);
	counters_finalise();
	store_finalise();
	ev_set_clock(NULL);
	ev_finalise();
	unlink(path);
}

/* The node's ClassPortInfo learns of the 64-bit copies: they take over
 * from their next reading without a step in the totals, a restart
 * knows where they come from, and a node that loses them goes back. */
static void
test_source_switch(void **state)
{
	char path[64];
	uint8_t d[192];
	const struct ctr_port *cp;

	snprintf(path, sizeof(path), "/tmp/ibsnmpgw-congsw-%d.db", getpid());
	fake_ms = 1000000;
	open_ca(path);
	/* ClassPortInfo not read yet: PortCounters feeds them. */
	put_pc(d, 1000, 3);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	cp = counters_port(0, 1);
	assert_true(cp->c[CTR_XMIT_WAIT].total == 1000);
	caps(0, cpi_addl);
	/* The 32-bit ones are ignored from now on, even going down. */
	fake_ms += 1000;
	put_pc(d, 10, 1);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(cp->ext_src, 0);
	assert_true(cp->c[CTR_XMIT_WAIT].total == 1000);
	/* The switch: a new base, nothing added, a discontinuity. */
	fake_ms += 1000;
	put_ext(d, 50000000000ULL, 900);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS_EXT, d, sizeof(d));
	assert_int_equal(cp->ext_src, 1);
	assert_true(cp->c[CTR_XMIT_WAIT].total == 1000);
	assert_true(cp->c[CTR_SYMBOL_ERRORS].total == 3);
	assert_true(cp->disc_ms == 1002000);
	assert_int_equal(counters_width(cp, CTR_XMIT_WAIT), 64);
	assert_int_equal(counters_width(cp, CTR_LINK_DOWNED), 64);
	assert_int_equal(counters_width(cp, CTR_XMIT_DATA), 32);
	/* 64-bit counting: past 2^32 without saturating. */
	fake_ms += 1000;
	put_ext(d, 50000000000ULL + 5000000000ULL, 65536 + 900);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS_EXT, d, sizeof(d));
	assert_true(cp->c[CTR_XMIT_WAIT].total == 1000 + 5000000000ULL);
	assert_true(cp->c[CTR_SYMBOL_ERRORS].total == 3 + 65536);
	assert_false(ctr_saturated(&cp->c[CTR_SYMBOL_ERRORS],
	    counters_width(cp, CTR_SYMBOL_ERRORS)));
	/* No reset is asked for a 64-bit copy past 3/4 of 16 bits. */
	assert_int_equal(counters_reset_mask(0, 1, PERF_ATTR_PORT_COUNTERS),
	    0);
	counters_finalise();
	store_finalise();
	assert_true(row_exists(path, "PortXmitWait64"));
	assert_false(row_exists(path, "PortXmitWait"));

	/* Restart: the source comes back with the totals, before any
	 * ClassPortInfo is read. */
	assert_int_equal(store_init(path), 0);
	assert_int_equal(counters_init(), 0);
	cp = counters_port(0, 1);
	assert_non_null(cp);
	assert_int_equal(cp->ext_src, 1);
	assert_true(cp->c[CTR_XMIT_WAIT].total == 1000 + 5000000000ULL);
	put_pc(d, 20, 1);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	put_ext(d, 55000000100ULL, 65536 + 900);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS_EXT, d, sizeof(d));
	assert_true(cp->c[CTR_XMIT_WAIT].total == 1100 + 5000000000ULL);
	/* New firmware without them: back to PortCounters, a new base. */
	caps(0, cpi_base);
	put_pc(d, 30, 1);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(cp->ext_src, 0);
	assert_true(cp->c[CTR_XMIT_WAIT].total == 1100 + 5000000000ULL);
	put_pc(d, 35, 1);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_true(cp->c[CTR_XMIT_WAIT].total == 1105 + 5000000000ULL);
	counters_finalise();
	store_finalise();
	assert_true(row_exists(path, "PortXmitWait"));
	assert_false(row_exists(path, "PortXmitWait64"));
	ev_set_clock(NULL);
	ev_finalise();
	unlink(path);
}

/* The ratio of the last interval between readings, at 4x QDR: a tick
 * is 16 ns. */
static void
test_ratio_intervals(void **state)
{
	char path[64];
	uint8_t d[192];
	const struct ctr_port *cp;
	uint32_t dt;

	snprintf(path, sizeof(path), "/tmp/ibsnmpgw-congr-%d.db", getpid());
	fake_ms = 1000000;
	open_ca(path);
	caps(0, cpi_base);
	put_pc(d, 1000, 0);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	cp = counters_port(0, 1);
	assert_int_equal(counters_xmit_wait(cp, &dt), 0);
	assert_int_equal(dt, 0);		/* no interval yet */
	/* 2 s, a quarter of it waiting: 31,250,000 ticks. */
	fake_ms += 2000;
	put_pc(d, 1000 + 31250000, 0);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(counters_xmit_wait(cp, &dt), 250000);
	assert_int_equal(dt, 2000);
	/* A reading 10 ms later (a GET's) does not end the interval: the
	 * next one covers both. */
	fake_ms += 10;
	put_pc(d, 1000 + 31250000 + 625000, 0);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(counters_xmit_wait(cp, &dt), 250000);
	fake_ms += 990;
	put_pc(d, 1000 + 31250000 + 625000, 0);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(counters_xmit_wait(cp, &dt), 10000);	/* 1 % */
	assert_int_equal(dt, 1000);
	/* A reset in the interval: what counted since it, a lower
	 * bound. */
	fake_ms += 1000;
	put_pc(d, 625000, 0);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(counters_xmit_wait(cp, &dt), 10000);
	/* Saturated: the counts are lost, and so is the ratio (0). */
	fake_ms += 1000;
	put_pc(d, 0xffffffffu, 0);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(counters_xmit_wait(cp, &dt), 1000000);
	fake_ms += 1000;
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS, d, sizeof(d));
	assert_int_equal(counters_xmit_wait(cp, &dt), 0);
	/* A source switch ends the interval with no ratio. */
	caps(0, cpi_addl);
	fake_ms += 1000;
	put_ext(d, 1ULL << 40, 0);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS_EXT, d, sizeof(d));
	assert_int_equal(counters_xmit_wait(cp, &dt), 0);
	assert_int_equal(dt, 0);
	fake_ms += 4000;		/* all of 4 s: 250,000,000 ticks */
	put_ext(d, (1ULL << 40) + 250000000, 0);
	counters_feed(0, 1, PERF_ATTR_PORT_COUNTERS_EXT, d, sizeof(d));
	assert_int_equal(counters_xmit_wait(cp, &dt), 1000000);
	assert_int_equal(dt, 4000);
	counters_finalise();
	store_finalise();
	ev_set_clock(NULL);
	ev_finalise();
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ratio_arithmetic),
		cmocka_unit_test(test_capmask2_and_decode),
		cmocka_unit_test(test_32bit_source),
		cmocka_unit_test(test_source_switch),
		cmocka_unit_test(test_ratio_intervals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
