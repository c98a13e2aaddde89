/* proxy_fetch: an optional PerfMgt attribute that times out is taken as
 * missing only when a PortCounters read sent after the timeout is
 * answered and the attribute, asked again, is silent again; its cache
 * entry waits for that verdict. The MAD engine is the real one over the
 * fixture's fake device (mad_fixture.h): sent[] is what went out,
 * answer() and expire() are the fabric. */
#include "tests/unit/mad_fixture.h"

#include <unistd.h>

#include "codec/attr.h"
#include "codec/perf.h"
#include "proxy/fetch.h"
#include "proxy/health.h"
#include "store/cache.h"
#include "store/counters.h"
#include "store/store.h"
#include "tests/unit/unit_db.h"

static char dbpath[64];
static uint32_t ca;		/* node03's inventory index */

/* What a cache waiter heard: its calls and the last status. */
static int wcalls, wstatus;

static void
waiter(void *arg, int status, const uint8_t *data, size_t len)
{
	wcalls++;
	wstatus = status;
}

/* A two-port CA, LIDs 105 and 106, as in the bundled fabric. */
static void
sweep_ca(void)
{
	struct store_node n;
	struct store_port p[3];
	unsigned nodes, lost;

	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = 0x2c90300bb0300ULL;
	n.type = STORE_NODE_CA;
	n.num_ports = 2;
	store_path_parse("0,1", &n.route);
	for (int i = 0; i < 3; i++) {
		p[i].num = (uint8_t)i;
		p[i].route.hop[0] = 0xff;
		p[i].state = 4;
		p[i].lid = i ? (uint16_t)(104 + i) : 0;
	}
	store_sweep_begin();
	store_sweep_node(&n, p);
	store_sweep_end(&nodes, &lost);
	ca = store_node_by_guid(n.guid)->idx;
}

static int
setup_fetch(void **state)
{
	log_init("test_fetch", 1, LOG_CRIT);
	start(0, 8, 8);		/* no retries: expire() ends a request */
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-fetch-%d.db",
	    getpid());
	unlink(dbpath);
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(counters_init(), 0);
	sweep_ca();
	assert_int_equal(cache_init(proxy_fetch, NULL), 0);
	proxy_health_init(10);
	wcalls = 0;
	wstatus = 1;
	return 0;
}

static int
teardown_fetch(void **state)
{
	proxy_mad_finalise();
	proxy_health_finalise();
	cache_finalise();
	counters_finalise();
	store_finalise();
	unit_db_remove(dbpath);
	ev_finalise();
	ev_set_clock(NULL);
	return 0;
}

static uint16_t
attr_of(int i)
{
	return (uint16_t)mad_get_field(umad_get_mad(sent[i].umad), 0,
	    IB_MAD_ATTRID_F);
}

/* Ask for PortFlowCtlCounters of port 1 (optional: a PMA may lack
 * it), with waiter() to hear the outcome. */
static void
ask_flow_ctl(void)
{
	const struct attr_def *a = attr_find(ATTR_CLASS_PERF,
	    PERF_ATTR_FLOW_CTL_COUNTERS);
	struct cache_key k = { ca, PERF_ATTR_FLOW_CTL_COUNTERS,
	    ATTR_CLASS_PERF, 1, 1 };
	const uint8_t *d;
	size_t len;

	assert_non_null(a);
	assert_int_not_equal(a->unsup, 0);
	assert_int_equal(cache_lookup(&k, a->ttl, &d, &len, waiter, NULL), 1);
}

static unsigned
lacks_flow_ctl(void)
{
	return store_node_at(ca)->unsupported &
	    attr_find(ATTR_CLASS_PERF, PERF_ATTR_FLOW_CTL_COUNTERS)->unsup;
}

/* The race seen in the simulator: PortCounters was in flight (sent
 * before a link went down on the way) when the optional attribute
 * bounced; joining that read answered "the PMA is there" and the
 * inventory kept a verdict on a node that has the attribute. */
static void
test_transient_is_not_missing(void **state)
{
	struct cache_key pc = { ca, PERF_ATTR_PORT_COUNTERS, ATTR_CLASS_PERF,
	    1, 1 };
	const uint8_t *d;
	size_t len;
	int before;

	ask_flow_ctl();
	now_ms += 500;
	assert_int_equal(cache_lookup(&pc, ATTR_TTL_COUNTERS, &d, &len,
	    waiter, NULL), 1);
	assert_int_equal(nsent, 2);
	assert_int_equal(attr_of(0), PERF_ATTR_FLOW_CTL_COUNTERS);
	assert_int_equal(attr_of(1), PERF_ATTR_PORT_COUNTERS);
	/* The optional read alone times out, on time (later is the
	 * engine's grace for a host that ran late): PortCounters stays
	 * out. */
	now_ms += 500;
	mad_timeout_cb(e);
	assert_int_equal(nsent, 3);
	assert_int_equal(attr_of(2), PERF_ATTR_PORT_COUNTERS);
	answer(1, 0);			/* the read from before */
	assert_int_equal(wcalls, 1);	/* PortCounters' own waiter */
	answer(2, 0);			/* the fresh one: asked again */
	assert_int_equal(nsent, 4);
	assert_int_equal(attr_of(3), PERF_ATTR_FLOW_CTL_COUNTERS);
	assert_int_equal(wcalls, 1);	/* no verdict yet */
	before = wcalls;
	answer(3, 0);
	assert_int_equal(wcalls, before + 1);
	assert_int_equal(wstatus, 0);
	assert_int_equal(lacks_flow_ctl(), 0);
}

static void
test_missing_twice(void **state)
{
	ask_flow_ctl();
	expire();
	assert_int_equal(nsent, 2);
	assert_int_equal(attr_of(1), PERF_ATTR_PORT_COUNTERS);
	assert_int_equal(wcalls, 0);
	answer(1, 0);
	assert_int_equal(nsent, 3);
	assert_int_equal(attr_of(2), PERF_ATTR_FLOW_CTL_COUNTERS);
	expire();
	assert_int_equal(wcalls, 1);
	assert_int_equal(wstatus, -EOPNOTSUPP);
	assert_int_not_equal(lacks_flow_ctl(), 0);
	assert_int_equal(nsent, 3);	/* nothing more */
}

/* PortCounters silent too: the PMA or the way to it, not the
 * attribute. */
static void
test_pma_silent(void **state)
{
	ask_flow_ctl();
	expire();
	assert_int_equal(attr_of(1), PERF_ATTR_PORT_COUNTERS);
	expire();
	assert_int_equal(wcalls, 1);
	assert_int_equal(wstatus, -ETIMEDOUT);
	assert_int_equal(lacks_flow_ctl(), 0);
	assert_int_equal(nsent, 2);
}

/* The engine stops during the confirmation: the entry's waiter hears
 * of it, nothing is re-sent. */
static void
test_stop_during_confirmation(void **state)
{
	ask_flow_ctl();
	expire();
	assert_int_equal(nsent, 2);
	proxy_mad_finalise();
	assert_int_equal(wcalls, 1);
	assert_true(wstatus < 0);
	assert_int_equal(nsent, 2);
	assert_int_equal(lacks_flow_ctl(), 0);
	/* teardown's finalise again: a no-op */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_transient_is_not_missing,
		    setup_fetch, teardown_fetch),
		cmocka_unit_test_setup_teardown(test_missing_twice,
		    setup_fetch, teardown_fetch),
		cmocka_unit_test_setup_teardown(test_pma_silent,
		    setup_fetch, teardown_fetch),
		cmocka_unit_test_setup_teardown(test_stop_during_confirmation,
		    setup_fetch, teardown_fetch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
