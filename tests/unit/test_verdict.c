/* proxy_verdict: each rule gives its verdict and stands until its
 * window passed quietly (a timer), the worst rule names the reason,
 * each change is one STORE_EV_PORT_HEALTH, the unhealthy ports come in
 * (node, port) order, the history read back at start counts once (a
 * replicated copy of an event does not count again), a port that has
 * nothing to remember costs no state; health.ports is parsed with
 * file:line errors. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <malloc.h>
#include <infiniband/mad.h>

#include "codec/perf.h"
#include "gateway/conf.h"
#include "proxy/verdict.h"
#include "store/counters.h"
#include "store/events.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"

#define G0	0x1000ULL	/* the inventory's nodes 0 and 1 */
#define G1	0x1001ULL
#define MIN	60000ULL
#define HOUR	(60 * MIN)

static uint64_t			 now_ms = 1000000;
static char			 dbpath[64];
static struct store_event	 heard[32];
static size_t			 nheard;
static struct proxy_verdict_conf conf;

static uint64_t
clock_fn(void)
{
	return now_ms;
}

/* The notifier's place: the verdict changes. */
static void
listener(const struct store_event *ev, void *arg)
{
	(void)arg;
	if (ev->type == STORE_EV_PORT_HEALTH && nheard < 32)
		heard[nheard++] = *ev;
}

/* Time passes; the timers due run. */
static void
advance(uint64_t ms)
{
	now_ms += ms;
	ev_run_once(0);
}

/* n CAs of nports ports, GUIDs from G0, LIDs 1, 2, ... */
static void
sweep(int n, int nports)
{
	struct store_node sn;
	struct store_port p[8];
	unsigned nodes, lost;

	store_sweep_begin();
	for (int i = 0; i < n; i++) {
		memset(&sn, 0, sizeof(sn));
		memset(p, 0, sizeof(p));
		sn.guid = G0 + (uint64_t)i;
		sn.type = STORE_NODE_CA;
		sn.num_ports = (uint8_t)nports;
		sn.lid = (uint16_t)(nports * i + 1);
		for (int k = 1; k <= nports; k++)
			p[k].lid = (uint16_t)(sn.lid + k - 1);
		snprintf(sn.desc, sizeof(sn.desc), "node%d HCA-1", i);
		store_sweep_node(&sn, p);
	}
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
}

static void
start(void)
{
	struct store_event_conf ec = { 100, 30000, 4, 60000, 30000, 0 };

	assert_int_equal(store_event_init(&ec), 0);
	store_event_listen(listener, NULL);
	assert_int_equal(proxy_verdict_init(&conf), 0);
	ev_run_once(0);		/* the start-up evaluation */
}

static void
stop(void)
{
	proxy_verdict_finalise();
	store_event_finalise();
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-verdict-%d.db",
	    getpid());
	unlink(dbpath);
	log_init("test_verdict", 1, LOG_ERR);
	ev_init();
	ev_set_clock(clock_fn);
	now_ms = 1000000;
	nheard = 0;
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(counters_init(), 0);
	sweep(2, 2);
	proxy_verdict_defaults(&conf);
	start();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	stop();
	counters_finalise();
	store_finalise();
	ev_set_clock(NULL);
	ev_finalise();
	unlink(dbpath);
	return 0;
}

static void
post(int type, uint64_t guid, int port)
{
	struct store_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint8_t)type;
	ev.source = STORE_SRC_SWEEP;
	ev.node_guid = guid;
	ev.port = (uint8_t)port;
	snprintf(ev.text, sizeof(ev.text), "node 0x%llx",
	    (unsigned long long)guid);
	store_event_post(&ev);
}

/* A link down and back up, a minute later. */
static void
bounce(uint64_t guid, int port)
{
	post(STORE_EV_LINK_DOWN, guid, port);
	advance(MIN);
	post(STORE_EV_LINK_UP, guid, port);
	advance(MIN);
}

static int
verdict(uint64_t guid, int port, char *why)
{
	struct proxy_verdict_info vi;

	proxy_verdict_get(guid, (uint8_t)port, &vi);
	if (why != NULL)
		strcpy(why, vi.reason);
	return vi.verdict;
}

static void
test_link_downs(void **state)
{
	char why[64];

	(void)state;
	bounce(G0, 1);
	assert_int_equal(verdict(G0, 1, why), VERDICT_HEALTHY);
	assert_int_equal(nheard, 0);
	bounce(G0, 1);
	/* The anchor: two in 24 h. */
	assert_int_equal(verdict(G0, 1, why), VERDICT_UNHEALTHY);
	assert_string_equal(why, "2 link-downs in 24h");
	assert_int_equal(nheard, 1);
	assert_string_equal(heard[0].text, "unhealthy: 2 link-downs in 24h");
	assert_int_equal(heard[0].node_guid, G0);
	assert_int_equal(heard[0].port, 1);
	assert_int_equal(heard[0].lid, 1);
	assert_int_equal(verdict(G0, 2, NULL), VERDICT_HEALTHY);
	assert_int_equal(proxy_verdict_count(), 1);
	/* 24 h after the second link-down, less a second: still. */
	advance(24 * HOUR - 2 * MIN - 1000);
	assert_int_equal(verdict(G0, 1, NULL), VERDICT_UNHEALTHY);
	advance(1000);
	assert_int_equal(verdict(G0, 1, why), VERDICT_HEALTHY);
	assert_string_equal(why, "");
	assert_int_equal(nheard, 2);
	assert_string_equal(heard[1].text, "healthy");
	assert_int_equal(proxy_verdict_count(), 0);
	assert_int_equal(proxy_verdict_states(), 0);
}

/* Two link-downs further apart than the window: nothing, and the
 * first one's memory goes when it leaves the window. */
static void
test_link_downs_apart(void **state)
{
	(void)state;
	bounce(G0, 1);
	assert_int_equal(proxy_verdict_states(), 1);
	advance(25 * HOUR);
	assert_int_equal(proxy_verdict_states(), 0);
	bounce(G0, 1);
	assert_int_equal(verdict(G0, 1, NULL), VERDICT_HEALTHY);
	assert_int_equal(nheard, 0);
}

/* The entry point of the degraded-link check; the worst rule wins,
 * and the reason follows the rules in force. */
static void
test_precedence(void **state)
{
	char why[64];

	(void)state;
	proxy_verdict_link_degraded(G1, 2, 1);
	assert_int_equal(verdict(G1, 2, why), VERDICT_DEGRADED);
	assert_string_equal(why, "link degraded");
	bounce(G1, 2);
	bounce(G1, 2);
	assert_int_equal(verdict(G1, 2, why), VERDICT_UNHEALTHY);
	assert_string_equal(why, "2 link-downs in 24h");
	assert_int_equal(nheard, 2);
	advance(25 * HOUR);
	/* Only the degraded link holds. */
	assert_int_equal(verdict(G1, 2, why), VERDICT_DEGRADED);
	assert_string_equal(why, "link degraded");
	assert_int_equal(nheard, 3);
	assert_string_equal(heard[2].text, "degraded: link degraded");
	proxy_verdict_link_degraded(G1, 2, 0);
	assert_int_equal(verdict(G1, 2, NULL), VERDICT_DEGRADED);
	advance(10 * MIN - 1);
	assert_int_equal(verdict(G1, 2, NULL), VERDICT_DEGRADED);
	advance(1);
	assert_int_equal(verdict(G1, 2, NULL), VERDICT_HEALTHY);
	assert_int_equal(nheard, 4);
	/* Healthy and not degraded: nothing kept. */
	proxy_verdict_link_degraded(G1, 1, 0);
	assert_int_equal(proxy_verdict_states(), 0);
}

/* The stream damps a flapping port: the flapping rule, even with the
 * link-down count off. */
static void
test_flapping(void **state)
{
	char why[64];

	(void)state;
	conf.r[VR_LINK_DOWNS].verdict = 0;
	proxy_verdict_config(&conf);
	for (int i = 0; i < 3; i++) {
		post(STORE_EV_LINK_DOWN, G0, 2);
		advance(1000);
		post(STORE_EV_LINK_UP, G0, 2);
		advance(1000);
	}
	assert_int_equal(verdict(G0, 2, why), VERDICT_UNHEALTHY);
	assert_string_equal(why, "flapping");
	advance(HOUR);
	assert_int_equal(verdict(G0, 2, NULL), VERDICT_HEALTHY);
	assert_int_equal(nheard, 2);
	conf.r[VR_FLAPPING].verdict = VERDICT_DEGRADED;
	proxy_verdict_config(&conf);
	for (int i = 0; i < 3; i++) {
		post(STORE_EV_LINK_DOWN, G0, 2);
		advance(1000);
		post(STORE_EV_LINK_UP, G0, 2);
		advance(1000);
	}
	assert_int_equal(verdict(G0, 2, NULL), VERDICT_DEGRADED);
}

/* A node that does not answer: port 0, and every port of it. */
static void
test_unresponsive(void **state)
{
	struct proxy_verdict_info vi;
	uint32_t node;
	char why[64];

	(void)state;
	post(STORE_EV_NODE_GONE, G1, 0);
	assert_int_equal(verdict(G1, 0, why), VERDICT_UNHEALTHY);
	assert_string_equal(why, "node not answering");
	assert_int_equal(verdict(G1, 2, NULL), VERDICT_UNHEALTHY);
	assert_int_equal(proxy_verdict_next(0, 0, 1, &node, &vi), 1);
	assert_int_equal(node, 1);
	assert_int_equal(vi.port, 0);
	assert_int_equal(vi.clears, 0);		/* while it holds */
	advance(2 * HOUR);
	assert_int_equal(verdict(G1, 0, NULL), VERDICT_UNHEALTHY);
	post(STORE_EV_NODE_BACK, G1, 0);
	proxy_verdict_get(G1, 0, &vi);
	assert_true(vi.clears > 0);
	advance(10 * MIN);
	assert_int_equal(verdict(G1, 1, NULL), VERDICT_HEALTHY);
	assert_int_equal(nheard, 2);
	assert_int_equal(proxy_verdict_states(), 0);
	/* On hold (proxy/health.c): the same rule, its own condition. */
	proxy_verdict_silent(1, 1);
	assert_int_equal(verdict(G1, 2, why), VERDICT_UNHEALTHY);
	assert_string_equal(why, "node not answering");
	post(STORE_EV_NODE_GONE, G1, 0);
	proxy_verdict_silent(1, 0);		/* answers, still unreachable */
	advance(HOUR);
	assert_int_equal(verdict(G1, 0, NULL), VERDICT_UNHEALTHY);
	post(STORE_EV_NODE_BACK, G1, 0);
	advance(10 * MIN);
	assert_int_equal(verdict(G1, 0, NULL), VERDICT_HEALTHY);
	proxy_verdict_silent(0, 0);		/* never held: nothing kept */
	assert_int_equal(proxy_verdict_states(), 0);
}

static void
feed(uint32_t node, int port, uint32_t sym, uint32_t recov)
{
	uint8_t d[192];

	memset(d, 0, sizeof(d));
	mad_encode_field(d, IB_PC_ERR_SYM_F, &sym);
	mad_encode_field(d, IB_PC_LINK_RECOVERS_F, &recov);
	counters_feed(node, (uint8_t)port, PERF_ATTR_PORT_COUNTERS, d,
	    sizeof(d));
}

/* Rates between the poller's rounds, from the accumulators. */
static void
test_rates(void **state)
{
	char why[64];

	(void)state;
	feed(0, 1, 0, 0);
	proxy_verdict_polled(0);
	advance(MIN);
	feed(0, 1, 10, 1);		/* at the limits: not above */
	proxy_verdict_polled(0);
	assert_int_equal(verdict(G0, 1, NULL), VERDICT_HEALTHY);
	advance(30000);
	feed(0, 1, 16, 1);		/* 12/min */
	proxy_verdict_polled(0);
	assert_int_equal(verdict(G0, 1, why), VERDICT_DEGRADED);
	assert_string_equal(why, "symbol errors 12.0/min above 10/min");
	/* A round less than a second later is no rate. */
	advance(10);
	feed(0, 1, 116, 1);
	proxy_verdict_polled(0);
	advance(MIN - 10);
	feed(0, 1, 116, 4);		/* 100 in 1 min, 3 recoveries */
	proxy_verdict_polled(0);
	assert_string_equal((verdict(G0, 1, why), why),
	    "symbol errors 100.0/min above 10/min");
	advance(HOUR - 1);
	assert_int_equal(verdict(G0, 1, NULL), VERDICT_DEGRADED);
	advance(1);
	assert_int_equal(verdict(G0, 1, NULL), VERDICT_HEALTHY);
	assert_int_equal(nheard, 2);
	/* Recoveries alone. */
	conf.r[VR_SYMBOL_ERRORS].verdict = 0;
	proxy_verdict_config(&conf);
	proxy_verdict_polled(0);
	feed(0, 1, 500, 10);
	advance(MIN);
	proxy_verdict_polled(0);
	assert_string_equal((verdict(G0, 1, why), why),
	    "link recoveries 6.0/min above 1/min");
}

/* (node, port) order; visibility is the table's. */
static void
test_order(void **state)
{
	struct proxy_verdict_info vi;
	uint32_t node;

	(void)state;
	proxy_verdict_link_degraded(G1, 1, 1);
	proxy_verdict_link_degraded(G0, 2, 1);
	proxy_verdict_link_degraded(G0, 1, 1);
	proxy_verdict_link_degraded(0x9999, 1, 1);	/* not in the inventory */
	assert_int_equal(proxy_verdict_count(), 4);
	assert_int_equal(proxy_verdict_next(0, 0, 1, &node, &vi), 1);
	assert_true(node == 0 && vi.port == 1 && vi.guid == G0);
	assert_int_equal(proxy_verdict_next(0, 1, 1, &node, &vi), 1);
	assert_true(node == 0 && vi.port == 1);
	assert_int_equal(proxy_verdict_next(0, 1, 0, &node, &vi), 1);
	assert_true(node == 0 && vi.port == 2);
	assert_int_equal(proxy_verdict_next(0, 2, 0, &node, &vi), 1);
	assert_true(node == 1 && vi.port == 1 && vi.guid == G1);
	assert_int_equal(proxy_verdict_next(1, 1, 0, &node, &vi), 0);
	proxy_verdict_link_degraded(G0, 2, 0);
	advance(HOUR);
	assert_int_equal(proxy_verdict_next(0, 1, 0, &node, &vi), 1);
	assert_true(node == 1 && vi.port == 1);
}

/* A restart: link-downs of the history count, once; a standby's
 * replicated copy of an event already counted does not count again;
 * a verdict posted before the restart that no longer stands is
 * cleared, with an event. */
static void
test_history(void **state)
{
	struct store_event copy;
	char why[64];

	(void)state;
	bounce(G0, 1);
	copy = *store_event_at(store_event_count() - 2);
	assert_int_equal(copy.type, STORE_EV_LINK_DOWN);
	stop();
	start();
	assert_int_equal(proxy_verdict_states(), 1);
	store_event_repl_apply(&copy);		/* seen already */
	assert_int_equal(verdict(G0, 1, NULL), VERDICT_HEALTHY);
	bounce(G0, 1);
	assert_int_equal(verdict(G0, 1, why), VERDICT_UNHEALTHY);
	assert_string_equal(why, "2 link-downs in 24h");
	assert_int_equal(nheard, 1);
	/* The same history recomputed after a restart, without an event
	 * (the stream has the verdict); with the rule off meanwhile, the
	 * verdict the stream has is taken back. */
	stop();
	nheard = 0;
	start();
	assert_int_equal(verdict(G0, 1, NULL), VERDICT_UNHEALTHY);
	assert_int_equal(nheard, 0);
	stop();
	conf.r[VR_LINK_DOWNS].verdict = 0;
	start();
	assert_int_equal(verdict(G0, 1, NULL), VERDICT_HEALTHY);
	assert_int_equal(nheard, 1);
	assert_string_equal(heard[0].text, "healthy");
}

static size_t
heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* The cost at bench (e)'s size: 10,016 nodes, ~50,000 ports, every
 * node polled (rates kept) and all healthy: no state, under 24 bytes a
 * port; a port that is not healthy costs one state. (Built with ASan,
 * malloc is ASan's: only the counts are checked.) */
static void
test_cost(void **state)
{
	size_t before, rates, states;

	(void)state;
	sweep(10016, 5);
	before = heap_used();
	for (uint32_t i = 0; i < 10016; i++)
		proxy_verdict_polled(i);
	rates = heap_used() - before;
	assert_int_equal(proxy_verdict_states(), 0);
	before = heap_used();
	for (uint64_t i = 0; i < 1000; i++)
		proxy_verdict_link_degraded(G0 + i, 1, 1);
	states = heap_used() - before;
	assert_int_equal(proxy_verdict_count(), 1000);
	print_message("rates of 50,080 ports: %zu bytes (%.1f a port); "
	    "a port not healthy: %zu bytes\n", rates, rates / 50080.0,
	    states / 1000);
#ifndef __SANITIZE_ADDRESS__
	assert_true(rates < 50080 * 24);
	assert_true(states < 1000 * 512);
#endif
}

static const char *yaml_head =
    "snmp:\n  listen: [\"udp:127.0.0.1:1161\"]\n"
    "  communities: [{name: public}]\n";

static struct gw_conf *
load(const char *text, char *err, size_t len)
{
	char path[64];
	FILE *f, *ef;
	struct gw_conf *c;

	snprintf(path, sizeof(path), "/tmp/ibsnmpgw-verdict-%d.yaml",
	    getpid());
	assert_non_null(f = fopen(path, "w"));
	fputs(yaml_head, f);
	fputs(text, f);
	fclose(f);
	memset(err, 0, len);
	assert_non_null(ef = fmemopen(err, len - 1, "w"));
	c = gw_conf_load(path, ef);
	fclose(ef);
	unlink(path);
	return c;
}

static void
test_conf(void **state)
{
	struct gw_conf *c;
	char err[2048];

	(void)state;
	assert_non_null(c = load("", err, sizeof(err)));
	assert_int_equal(c->health_ports.r[VR_LINK_DOWNS].count, 2);
	assert_int_equal(c->health_ports.r[VR_LINK_DOWNS].window_s, 86400);
	assert_int_equal(c->health_ports.r[VR_SYMBOL_ERRORS].verdict,
	    VERDICT_DEGRADED);
	gw_conf_free(c);
	assert_non_null(c = load("health:\n  ports:\n"
	    "    link-downs: {count: 3, window: 2h, verdict: degraded}\n"
	    "    symbol-errors: {per-minute: 2.5, window: 90}\n"
	    "    flapping: degraded\n"
	    "    link-degraded: {verdict: off}\n"
	    "    unresponsive: {window: 1d}\n", err, sizeof(err)));
	assert_string_equal(err, "");
	assert_int_equal(c->health_ports.r[VR_LINK_DOWNS].count, 3);
	assert_int_equal(c->health_ports.r[VR_LINK_DOWNS].window_s, 7200);
	assert_int_equal(c->health_ports.r[VR_LINK_DOWNS].verdict,
	    VERDICT_DEGRADED);
	assert_true(c->health_ports.r[VR_SYMBOL_ERRORS].per_minute == 2.5);
	assert_int_equal(c->health_ports.r[VR_SYMBOL_ERRORS].window_s, 90);
	assert_int_equal(c->health_ports.r[VR_FLAPPING].verdict,
	    VERDICT_DEGRADED);
	assert_int_equal(c->health_ports.r[VR_LINK_DEGRADED].verdict, 0);
	assert_int_equal(c->health_ports.r[VR_UNRESPONSIVE].window_s, 86400);
	gw_conf_free(c);
	/* Every error, each at its line. */
	assert_null(load("health:\n  ports:\n"
	    "    link-downs: {count: 9, window: 0s}\n"
	    "    symbol-errors: {per-minute: -1, count: 2}\n"
	    "    flapping: healthy\n"
	    "    unresponsive: {window: 31d}\n"
	    "    link-degraded: {window: 5x}\n"
	    "    link-recovers: {per-minute: nan}\n"
	    "    bogus: {}\n"
	    "  expected: 1\n", err, sizeof(err)));
	assert_non_null(strstr(err, ":11: 'per-minute' must be a number"));
	assert_non_null(strstr(err, ":6: 'count' is 9, out of range"));
	assert_non_null(strstr(err, ":6: 'window' must be a duration"));
	assert_non_null(strstr(err, ":7: 'per-minute' must be a number"));
	assert_non_null(strstr(err, ":7: unknown key 'count'"));
	assert_non_null(strstr(err, ":8: 'flapping' must be unhealthy, "
	    "degraded or off"));
	assert_non_null(strstr(err, ":9: 'window' must be a duration"));
	assert_non_null(strstr(err, ":10: 'window' must be a duration"));
	assert_non_null(strstr(err, ":12: unknown key 'bogus'"));
	assert_non_null(strstr(err, ":13: unknown key 'expected'"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_link_downs, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_link_downs_apart, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_precedence, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_flapping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unresponsive, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cost, setup, teardown),
		cmocka_unit_test(test_conf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
