/* proxy_diff: a host port that a finished sweep did not reach.
 *
 * The walk reads a CA's port as it arrives through it from the switch
 * at the other end, so a sweep with no SMP failed that did not reach a
 * port found it with no link. When the event stream has that link up (a
 * trap 64 the SM sent late, after the cable was pulled), the sweep posts
 * it down; nothing else could, the port being unreadable. So too for a
 * host the sweep did not reach at all. A sweep with gaps says nothing of
 * what it did not reach; a link the stream moved while the sweep ran,
 * or that a reading found up meanwhile, is for another sweep; and a
 * sweep that reaches the port again puts the stream right.
 *
 * The store and the event stream are the real ones; the clock is
 * ev_set_clock()'s. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proxy/diff.h"
#include "proxy/watch.h"
#include "store/events.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/htab.h"

#define CA_GUID		0x0002c90300bb0700ULL

static char dbpath[64];
static uint64_t now_ms = 1000;

static uint64_t
fake_clock(void)
{
	return now_ms;
}

/* node07: port 1 Active, port 2 Down (its cable pulled). */
static void
ca_ports(struct store_node *n, struct store_port *p)
{
	memset(n, 0, sizeof(*n));
	memset(p, 0, 3 * sizeof(*p));
	n->guid = CA_GUID;
	n->type = STORE_NODE_CA;
	n->num_ports = 2;
	n->lid = 113;
	n->reachable = 1;
	snprintf(n->desc, sizeof(n->desc), "node07 HCA-1");
	store_path_parse("0,1,5,7,1", &n->route);
	for (int i = 0; i <= 2; i++) {
		p[i].num = (uint8_t)i;
		p[i].route.hop[0] = 0xff;
	}
	p[1].valid = 1;
	p[1].state = 4;
	p[1].phys_state = 5;
	p[1].lid = 113;
	p[1].route = n->route;
	p[2].valid = 1;
	p[2].state = 1;
	p[2].phys_state = 2;
	p[2].lid = 114;
}

static int
setup(void **state)
{
	struct store_event_conf ec = { 100, 30000, 4, 60000, 3000, 0 };
	struct store_node n;
	struct store_port p[3];
	unsigned nodes, lost;

	(void)state;
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-diff-%d.db",
	    getpid());
	unlink(dbpath);
	ev_init();
	now_ms = 1000;
	ev_set_clock(fake_clock);
	assert_int_equal(store_init(dbpath), 0);
	ca_ports(&n, p);
	store_sweep_begin();
	store_sweep_node(&n, p);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_int_equal(store_event_init(&ec), 0);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	store_event_finalise();
	store_finalise();
	ev_finalise();
	unlink(dbpath);
	return 0;
}

/* What trap 64 posts for port 2 (proxy/portread.c). */
static void
trap64_posted(void)
{
	struct store_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = STORE_EV_LINK_UP;
	ev.source = STORE_SRC_SM;
	ev.node_guid = CA_GUID;
	ev.port = 2;
	ev.data[0] = 4;
	assert_int_equal(store_event_post(&ev), 1);
}

/* The inventory's node07 as a sweep with port 2 unreached left it. */
static void
store_unreached(void)
{
	struct store_node n;
	struct store_port p[3];
	unsigned nodes, lost;

	ca_ports(&n, p);
	memset(&p[2], 0, sizeof(p[2]));
	p[2].num = 2;
	p[2].route.hop[0] = 0xff;
	store_sweep_begin();
	store_sweep_node(&n, p);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
}

/* A sweep that met node07 through port 1 only (reach 1), through both
 * ports, port 2 Active (reach 2), or not at all (reach 0); started at
 * started. */
static int
sweep_reach(int reach, int complete, uint64_t started)
{
	static struct proxy_dnode dn;
	static struct store_port p[3];
	struct proxy_dnode *list[1] = { &dn };
	struct htab by_guid;
	struct proxy_sweep_view v;
	int r;

	ca_ports(&dn.n, p);
	if (reach == 2) {
		p[2].state = 4;
		p[2].phys_state = 5;
	} else {
		memset(&p[2], 0, sizeof(p[2]));	/* not reached */
		p[2].num = 2;
		p[2].route.hop[0] = 0xff;
	}
	dn.ports = p;
	dn.entry_port = 1;
	dn.desc_ok = 1;
	htab_init(&by_guid);
	if (reach > 0)
		assert_int_equal(htab_put_u64(&by_guid, CA_GUID, &dn), 0);
	memset(&v, 0, sizeof(v));
	v.nodes = list;
	v.n = reach > 0;
	v.by_guid = &by_guid;
	v.started = started;
	v.complete = complete;
	r = proxy_diff_sweep(&v);
	htab_free(&by_guid);
	return r;
}

static int
sweep(int complete, uint64_t started)
{
	return sweep_reach(1, complete, started);
}

static void
test_late_trap64_put_right(void **state)
{
	(void)state;
	trap64_posted();
	now_ms += 2500;
	assert_int_equal(sweep(1, now_ms - 20), 0);
	assert_int_equal(store_event_link_state(CA_GUID, 2),
	    STORE_EV_LINK_DOWN);
	/* Port 1, reached and as before: nothing. */
	assert_int_equal(store_event_link_state(CA_GUID, 1), 0);
}

/* Some SMP failed: what the sweep did not reach says nothing. */
static void
test_incomplete_says_nothing(void **state)
{
	(void)state;
	trap64_posted();
	now_ms += 2500;
	assert_int_equal(sweep(0, now_ms - 20), 0);
	assert_int_equal(store_event_link_state(CA_GUID, 2),
	    STORE_EV_LINK_UP);
}

/* Up in the stream since the sweep began: the reading may be the
 * older, another sweep settles it. */
static void
test_moved_during_sweep(void **state)
{
	uint64_t started = now_ms;

	(void)state;
	now_ms += 10;
	trap64_posted();
	now_ms += 10;
	assert_int_equal(sweep(1, started), 1);
	assert_int_equal(store_event_link_state(CA_GUID, 2),
	    STORE_EV_LINK_UP);
}

/* Never reported (an uncabled port of a dual-port HCA): nothing. */
static void
test_never_reported(void **state)
{
	struct store_event_stats st;

	(void)state;
	assert_int_equal(sweep(1, now_ms), 0);
	assert_int_equal(store_event_link_state(CA_GUID, 2), 0);
	store_event_get_stats(&st);
	assert_int_equal(st.posted, 0);
}

/* node07 not reached at all (both cables pulled, one trap 64 late). */
static void
test_host_unreached(void **state)
{
	(void)state;
	trap64_posted();
	now_ms += 2500;
	assert_int_equal(sweep_reach(0, 1, now_ms - 20), 0);
	assert_int_equal(store_event_link_state(CA_GUID, 2),
	    STORE_EV_LINK_DOWN);
}

/* A reading (proxy/reread.c) has port 2 up in the inventory, and the
 * stream up already: it came up after the walk passed. */
static void
test_read_up_meanwhile(void **state)
{
	struct store_node *n;

	(void)state;
	trap64_posted();
	n = store_node_by_guid(CA_GUID);
	n->ports[2].state = 4;
	n->ports[2].phys_state = 5;
	now_ms += 2500;
	assert_int_equal(sweep(1, now_ms - 20), 1);
	assert_int_equal(store_event_link_state(CA_GUID, 2),
	    STORE_EV_LINK_UP);
}

/* The sweep after reaches port 2 Active where the one before did not:
 * the stream goes up again, though the inventory has no reading of the
 * port to compare with. */
static void
test_reached_again(void **state)
{
	(void)state;
	trap64_posted();
	now_ms += 2500;
	assert_int_equal(sweep(1, now_ms - 20), 0);
	store_unreached();
	assert_int_equal(store_event_link_state(CA_GUID, 2),
	    STORE_EV_LINK_DOWN);
	now_ms += 5000;
	assert_int_equal(sweep_reach(2, 1, now_ms - 20), 0);
	assert_int_equal(store_event_link_state(CA_GUID, 2),
	    STORE_EV_LINK_UP);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_late_trap64_put_right,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_incomplete_says_nothing,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_moved_during_sweep,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_never_reported,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_unreached,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_up_meanwhile,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_reached_again,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
