/* proxy_reread: a port read that waits goes by the node's route as it
 * is when sent, and one that went unanswered while its route moved is
 * sent again by the new one (twice at most), with no sweep asked for.
 * The race behind it (a Report reroutes the node between the two) came
 * up 5 times in 75 runs of tests/integration/reread.py under ASan; here
 * it is driven step by step.
 *
 * proxy/reread.c is included, so its requests can be looked at; the
 * MAD engine, the sweep and the health module are stubbed, the store is
 * the real one. The clock is ev_set_clock()'s. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/mad.h>

#include "proxy/reread.c"

#define SW_GUID		0x0002c90300aa0103ULL
#define SW_PORTS	36

static char dbpath[64];
static uint64_t now_ms = 1000;

/* What proxy_mad_submit() took, the newest last. */
static struct {
	struct store_path path;
	uint16_t	attr;
	uint32_t	mod;
	proxy_mad_cb	cb;
	void		*arg;
} sub[16];
static int nsub;
static int nsweeps;
static const char *sweep_why;

int
proxy_mad_submit(const struct proxy_mad_args *a, proxy_mad_cb cb, void *arg)
{
	assert_true(nsub < 16);
	sub[nsub].path = a->target.path;
	sub[nsub].attr = a->attr_id;
	sub[nsub].mod = a->attr_mod;
	sub[nsub].cb = cb;
	sub[nsub].arg = arg;
	nsub++;
	return 0;
}

void
proxy_discover_event(const char *why)
{
	nsweeps++;
	sweep_why = why;
}

void
proxy_health_answer(uint32_t node, unsigned way)
{
	(void)node;
	(void)way;
}

static uint64_t
fake_clock(void)
{
	return now_ms;
}

/* PortInfo (IBA 14.2.5.6) with this state and physical state. */
static void
portinfo(uint8_t *d, unsigned state, unsigned phys)
{
	memset(d, 0, SMP_DATA_SIZE);
	mad_set_field(d, 0, IB_PORT_LOCAL_PORT_F, 1);
	mad_set_field(d, 0, IB_PORT_STATE_F, state);
	mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, phys);
	mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F, 1);
}

/* A reachable switch by route 0,1,7, every port Active. */
static int
setup(void **state)
{
	struct store_node n;
	struct store_port p[SW_PORTS + 1];
	unsigned nodes, lost;

	(void)state;
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-reread-%d.db",
	    getpid());
	unlink(dbpath);
	ev_init();
	now_ms = 1000;
	ev_set_clock(fake_clock);
	assert_int_equal(store_init(dbpath), 0);
	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = SW_GUID;
	n.type = STORE_NODE_SWITCH;
	n.num_ports = SW_PORTS;
	n.lid = 3;
	n.reachable = 1;
	snprintf(n.desc, sizeof(n.desc), "leaf03");
	store_path_parse("0,1,7", &n.route);
	for (int i = 0; i <= SW_PORTS; i++) {
		p[i].num = (uint8_t)i;
		p[i].valid = 1;
		p[i].state = 4;
		p[i].phys_state = 5;
		p[i].route.hop[0] = 0xff;
	}
	store_sweep_begin();
	store_sweep_node(&n, p);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_non_null(store_node_by_guid(SW_GUID));
	nsub = nsweeps = 0;
	sweep_why = NULL;
	proxy_reread_init();
	proxy_watch_init(proxy_reread_check);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	proxy_watch_finalise();
	proxy_reread_finalise();
	/* Those in flight end with their (cancelled) answer. */
	while (rr_live != NULL)
		rr_cb(rr_live, -ECANCELED, NULL, 0);
	store_finalise();
	ev_finalise();
	unlink(dbpath);
	return 0;
}

static void
move_to(const char *path)
{
	struct store_node *n = store_node_by_guid(SW_GUID);

	assert_int_equal(store_path_parse(path, &n->route), 0);
}

static void
assert_path(int i, const char *want)
{
	char got[64];

	store_path_format(&sub[i].path, got, sizeof(got));
	assert_string_equal(got, want);
}

static unsigned
watched(void)
{
	struct proxy_watch_stats st;

	proxy_watch_get_stats(&st);
	return st.now;
}

/* Port 9 came up but is not yet Active: the watch reads it 1 s later. */
static void
port_armed(void)
{
	uint8_t d[SMP_DATA_SIZE];

	portinfo(d, 2, 5);		/* Init, LinkUp */
	proxy_reread_port(SW_GUID, 9, d);
	assert_int_equal(nsub, 0);
	assert_null(rr_live);
	assert_int_equal(watched(), 1);
}

static void
fire(void)
{
	now_ms += PROXY_WATCH_MIN_MS + 1;
	assert_int_equal(ev_run_once(0), 0);
}

/* Rerouted while the read waited: it goes the new way. */
static void
test_wait_takes_new_route(void **state)
{
	uint8_t mad[256] = { 0 };

	(void)state;
	port_armed();
	move_to("0,1,9,6");
	fire();
	assert_int_equal(nsub, 1);
	assert_int_equal(sub[0].attr, SMP_ATTR_PORT_INFO);
	assert_int_equal(sub[0].mod, 9);
	assert_path(0, "0,1,9,6");
	/* Answered Active: done, no sweep, nothing left. */
	portinfo(mad + SMP_DATA_OFFS, 4, 5);
	sub[0].cb(sub[0].arg, 0, mad, sizeof(mad));
	assert_int_equal(nsweeps, 0);
	assert_null(rr_live);
	assert_int_equal(watched(), 0);
	assert_int_equal(store_node_by_guid(SW_GUID)->ports[9].state, 4);
}

/* Unanswered while the route moved: sent again by the new one, twice
 * at most; then, as when the route did not move, no sweep: the watch
 * reads it again a step later. */
static void
test_unanswered_after_move(void **state)
{
	(void)state;
	port_armed();
	fire();
	assert_int_equal(nsub, 1);
	assert_path(0, "0,1,7");
	move_to("0,1,9,6");
	sub[0].cb(sub[0].arg, -ETIMEDOUT, NULL, 0);
	assert_int_equal(nsub, 2);
	assert_path(1, "0,1,9,6");
	assert_int_equal(nsweeps, 0);
	move_to("0,2,9,6");
	sub[1].cb(sub[1].arg, -ETIMEDOUT, NULL, 0);
	assert_int_equal(nsub, 3);
	assert_path(2, "0,2,9,6");
	assert_int_equal(nsweeps, 0);
	move_to("0,2,10,6");
	sub[2].cb(sub[2].arg, -ETIMEDOUT, NULL, 0);
	assert_int_equal(nsub, 3);		/* RR_MOVES spent */
	assert_int_equal(nsweeps, 0);
	assert_null(rr_live);
	assert_int_equal(watched(), 1);
	now_ms += 2 * PROXY_WATCH_MIN_MS + 1;
	assert_int_equal(ev_run_once(0), 0);
	assert_int_equal(nsub, 4);		/* the watch's next read */
	assert_path(3, "0,2,10,6");
}

static void
test_unanswered_same_route(void **state)
{
	(void)state;
	port_armed();
	fire();
	sub[0].cb(sub[0].arg, -ETIMEDOUT, NULL, 0);
	assert_int_equal(nsub, 1);
	assert_int_equal(nsweeps, 0);
	assert_null(rr_live);
	assert_int_equal(watched(), 1);
}

/* A read for a Report (trap 128's far end, not the watch's) that goes
 * unanswered still asks for a sweep. */
static void
test_report_read_unanswered(void **state)
{
	(void)state;
	check_now(store_node_by_guid(SW_GUID), 4, 0);
	assert_int_equal(nsub, 1);
	sub[0].cb(sub[0].arg, -ETIMEDOUT, NULL, 0);
	assert_int_equal(nsweeps, 1);
	assert_string_equal(sweep_why, "no answer to a read for a Report");
	assert_null(rr_live);
}

/* No route any more, or unreachable (a sweep found it so): the read is
 * dropped; the Report that brings it back reads it. */
static void
test_unrouted_dropped(void **state)
{
	struct store_node *n;

	(void)state;
	port_armed();
	n = store_node_by_guid(SW_GUID);
	memset(&n->route, 0, sizeof(n->route));
	n->route.hop[0] = 0xff;
	fire();
	assert_int_equal(nsub, 0);
	assert_int_equal(nsweeps, 0);
	assert_null(rr_live);
	assert_int_equal(watched(), 0);
}

static void
test_unreachable_dropped(void **state)
{
	(void)state;
	port_armed();
	store_node_by_guid(SW_GUID)->reachable = 0;
	fire();
	assert_int_equal(nsub, 0);
	assert_int_equal(nsweeps, 0);
	assert_null(rr_live);
	assert_int_equal(watched(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wait_takes_new_route,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_unanswered_after_move,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_unanswered_same_route,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_read_unanswered,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_unrouted_dropped, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_unreachable_dropped,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
