/* proxy_poll: a full poll keeps at most FULL_WINDOW reads outstanding
 * (but enough nodes asked to fill the MAD engine's window) and asks the
 * next nodes as reads come back; a node that moves to another policy
 * while its reads are in flight takes their count along
 * (else the old policy's max-in-flight stayed reached, and its nodes
 * were never polled again).
 *
 * proxy/poller.c is included, so its counts can be looked at; the
 * store and the cache are the real ones, the cache's fetch is ours:
 * it records what the poller asked and answers nothing until told. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proxy/poller.c"

#define MAX_FETCH	16384

static struct cache_key	 fetched[MAX_FETCH];
static int		 nfetched;
static char		 dbpath[64];
static uint64_t		 now_ms = 1000000;

static uint64_t
fake_clock(void)
{
	return now_ms;
}

static int
fetch_fn(const struct cache_key *k, void *arg)
{
	assert_true(nfetched < MAX_FETCH);
	fetched[nfetched++] = *k;
	return 0;
}

/* Every read asked so far answers "timed out" (the poller counts it
 * back either way). */
static void
answer_all(void)
{
	int n = nfetched;

	nfetched = 0;
	for (int i = 0; i < n; i++)
		cache_complete(&fetched[i], -ETIMEDOUT, NULL, 0);
}

/* n nodes named prefix + number: two-port CAs with a LID per port, or
 * (sw) switches of nports ports, every port with the switch's LID. */
static void
sweep_nodes(int n, const char *prefix, int sw, int nports)
{
	struct store_node sn;
	struct store_port p[256];
	unsigned nodes, lost;

	store_sweep_begin();
	for (int i = 0; i < n; i++) {
		memset(&sn, 0, sizeof(sn));
		memset(p, 0, sizeof(p));
		sn.guid = 0x1000 + (uint64_t)i;
		sn.type = sw ? STORE_NODE_SWITCH : STORE_NODE_CA;
		sn.num_ports = (uint8_t)(sw ? nports : 2);
		sn.lid = (uint16_t)(sw ? i + 1 : 2 * i + 1);
		for (int k = sw ? 0 : 1; k <= sn.num_ports; k++)
			p[k].lid = (uint16_t)(sw ? sn.lid : 2 * i + k);
		snprintf(sn.desc, sizeof(sn.desc), sw ? "%s%d" : "%s%d HCA-1",
		    prefix, i);
		store_sweep_node(&sn, p);
	}
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
}

static void
sweep(int n, const char *prefix)
{
	sweep_nodes(n, prefix, 0, 2);
}

static struct proxy_policy pols[1];

static int
setup(void **state)
{
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-poller-%d.db",
	    getpid());
	unlink(dbpath);
	log_init("test_poller", 1, LOG_ERR);
	ev_init();
	ev_set_clock(fake_clock);
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(cache_init(fetch_fn, NULL), 0);
	assert_int_equal(counters_init(), 0);
	memset(pols, 0, sizeof(pols));
	pols[0].name = "foo";
	pols[0].match.set = 1;
	pols[0].match.glob = "foo*";
	pols[0].groups = ATTR_POLL_COUNTERS;
	pols[0].interval = 60;
	pols[0].ttl = 60;
	pols[0].max_inflight = 16;
	nfetched = 0;
	return 0;
}

static int
teardown(void **state)
{
	proxy_poll_finalise();
	counters_finalise();
	cache_finalise();
	store_finalise();
	ev_set_clock(NULL);
	ev_finalise();
	unlink(dbpath);
	return 0;
}

/* Reads per two-port CA: ClassPortInfo, then PortCounters,
 * PortFlowCtlCounters and PortCountersExtended of each port. */
#define READS_PER_CA	7

static void
test_full_poll_window(void **state)
{
	int nodes = 200, asked = 0, rounds = 0;

	sweep(nodes, "host");
	assert_int_equal(proxy_poll_init(pols, 1), 0);
	assert_int_equal(proxy_poll_all_now(), 0);
	/* Node by node up to the window: never the whole fabric. */
	while (nfetched > 0) {
		assert_true(full_outstanding <= FULL_WINDOW + READS_PER_CA);
		assert_true(nfetched == full_outstanding);
		asked += nfetched;
		answer_all();
		rounds++;
	}
	assert_int_equal(asked, nodes * READS_PER_CA);
	assert_true(rounds > 1);
	assert_int_equal(full_started, 0);	/* "poll done" logged */
	assert_int_equal(full_nodes, nodes);
	assert_int_equal(poll_inflight[0], 0);
	assert_int_equal(poll_inflight[1], 0);
}

/* The window: 64 MADs in flight, 4 to a node, takes 16 nodes. */
static void
test_spread_of(void **state)
{
	struct proxy_mad_stats st = { 0 };

	assert_int_equal(spread_of(&st), 1);	/* no engine */
	st.max_inflight = 64;
	st.max_inflight_node = 4;
	assert_int_equal(spread_of(&st), 16);
	st.max_inflight_node = 5;
	assert_int_equal(spread_of(&st), 13);
	st.max_inflight_node = 64;
	assert_int_equal(spread_of(&st), 1);
}

/* Big switches: FULL_WINDOW reads are two or three of them, which
 * kept 8-12 MADs in flight at 4 a node. Twice the spread of nodes
 * are kept asked whatever the reads outstanding. */
static void
test_full_poll_spread(void **state)
{
	int sw = 40, ports = 80, asked = 0;

	sweep_nodes(sw, "switch", 1, ports);
	assert_int_equal(proxy_poll_init(pols, 1), 0);
	assert_int_equal(proxy_poll_all_now(), 0);
	/* No engine here: a spread of 1, the reads' window decides. */
	assert_true(full_active >= 2 && full_active <= 3);
	assert_true(full_outstanding >= FULL_WINDOW);
	full_spread = 16;
	full_issue();
	assert_int_equal(full_active, 32);
	assert_int_equal(full_nodes, 32);
	assert_true(full_outstanding > 10 * FULL_WINDOW);
	while (nfetched > 0) {
		asked += nfetched;
		answer_all();
		assert_true(full_next >= (size_t)sw || full_active >= 32);
	}
	assert_int_equal(full_active, 0);
	assert_int_equal(full_nodes, sw);
	assert_int_equal(full_started, 0);	/* "poll done" logged */
	assert_int_equal(asked, full_nodes * (1 + 3 * ports));
}

static void
test_moved_node_takes_count(void **state)
{
	sweep(1, "foo");
	assert_int_equal(proxy_poll_init(pols, 1), 0);
	assert_int_equal(poll_nodes[0]->policy, 0);
	assert_int_equal(proxy_poll_all_now(), 0);
	assert_int_equal(nfetched, READS_PER_CA);
	assert_int_equal(poll_inflight[1], READS_PER_CA);
	/* Renamed while its reads are out: the default policy's now. */
	sweep(1, "bar");
	proxy_poll_inventory_changed();
	assert_int_equal(poll_nodes[0]->policy, -1);
	assert_int_equal(poll_inflight[1], 0);
	assert_int_equal(poll_inflight[0], READS_PER_CA);
	answer_all();
	assert_int_equal(poll_inflight[0], 0);
	assert_int_equal(poll_inflight[1], 0);
	/* And back, with nothing in flight: nothing to move. */
	sweep(1, "foo");
	proxy_poll_inventory_changed();
	assert_int_equal(poll_nodes[0]->policy, 0);
	assert_int_equal(poll_inflight[0], 0);
	assert_int_equal(poll_inflight[1], 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_full_poll_window, setup,
		    teardown),
		cmocka_unit_test(test_spread_of),
		cmocka_unit_test_setup_teardown(test_full_poll_spread, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_moved_node_takes_count,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
