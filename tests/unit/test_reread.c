/* proxy_reread: a port read that waits goes by the node's route as it
 * is when sent, and one that went unanswered while its route moved is
 * sent again by the new one (twice at most), with no sweep asked for.
 * The race behind it (a Report reroutes the node between the two) came
 * up 5 times in 75 runs of tests/integration/reread.py under ASan; here
 * it is driven step by step. And a link an HCA's late trap 65 left
 * down in the event stream, though it reads up, is put right.
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
#define CA_GUID		0x0002c90300bb0800ULL
#define CA_PORT		2		/* linked to switch port 11 */
#define CA_AT		11

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

/* A dual-port HCA, port 1 uncabled, port 2 Active at switch port 11
 * by route 0,1,7,11. */
static void
sweep_ca(void)
{
	struct store_node n;
	struct store_port p[3];

	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = CA_GUID;
	n.type = STORE_NODE_CA;
	n.num_ports = 2;
	n.lid = 116;
	n.reachable = 1;
	snprintf(n.desc, sizeof(n.desc), "node08 HCA-1");
	store_path_parse("0,1,7,11", &n.route);
	for (int i = 0; i <= 2; i++) {
		p[i].num = (uint8_t)i;
		p[i].valid = 1;
		p[i].state = 1;
		p[i].phys_state = 2;
		p[i].route.hop[0] = 0xff;
	}
	p[CA_PORT].state = 4;
	p[CA_PORT].phys_state = 5;
	p[CA_PORT].lid = 116;
	p[CA_PORT].guid = CA_GUID + CA_PORT;
	p[CA_PORT].remote_guid = SW_GUID;
	p[CA_PORT].remote_port = CA_AT;
	p[CA_PORT].route = n.route;
	store_sweep_node(&n, p);
}

/* A reachable switch by route 0,1,7, every port Active; the HCA
 * behind port 11. */
static int
setup(void **state)
{
	struct store_event_conf ec = { 100, 30000, 4, 60000, 3000, 0 };
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
	p[CA_AT].remote_guid = CA_GUID;
	p[CA_AT].remote_port = CA_PORT;
	store_sweep_begin();
	store_sweep_node(&n, p);
	sweep_ca();
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	assert_non_null(store_node_by_guid(SW_GUID));
	assert_int_equal(store_event_init(&ec), 0);
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
	store_event_finalise();
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

/* What trap 65 posts for the HCA's port (proxy/portread.c). */
static void
trap65_posted(void)
{
	struct store_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = STORE_EV_LINK_DOWN;
	ev.source = STORE_SRC_SM;
	ev.node_guid = CA_GUID;
	ev.port = CA_PORT;
	ev.data[0] = 1;
	assert_int_equal(store_event_post(&ev), 1);
	assert_int_equal(store_event_link_state(CA_GUID, CA_PORT),
	    STORE_EV_LINK_DOWN);
}

static void
answer_nodeinfo(int i)
{
	uint8_t mad[256] = { 0 }, *d = mad + SMP_DATA_OFFS;

	assert_int_equal(sub[i].attr, SMP_ATTR_NODE_INFO);
	mad_set_field(d, 0, IB_NODE_BASE_VERS_F, 1);
	mad_set_field(d, 0, IB_NODE_TYPE_F, 1);		/* CA */
	mad_set_field(d, 0, IB_NODE_NPORTS_F, 2);
	mad_set_field64(d, 0, IB_NODE_GUID_F, CA_GUID);
	mad_set_field64(d, 0, IB_NODE_PORT_GUID_F, CA_GUID + CA_PORT);
	mad_set_field(d, 0, IB_NODE_LOCAL_PORT_F, CA_PORT);
	sub[i].cb(sub[i].arg, 0, mad, sizeof(mad));
}

/* After a trap 65 for the HCA's end, the switch's end reads the link
 * up (Init, into d): who is behind it is asked, by the switch's route
 * and the port. */
static void
switch_end_reads_up(uint8_t *d)
{
	trap65_posted();
	portinfo(d, 2, 5);		/* Init, LinkUp */
	proxy_reread_port(SW_GUID, CA_AT, d);
	assert_int_equal(nsub, 1);
	assert_path(0, "0,1,7,11");
}

/* Trap 65 came late, after a flap storm: the link trained again and
 * stays Init (the SM stopped sweeping for it). The switch's end reads
 * the link up as the inventory has it; who is behind it is read, and
 * the HCA's end goes back up in the stream from its own PortInfo
 * (converge.py, seed 1 step 3: the last notification stayed linkDown). */
static void
test_late_trap65_switch_end(void **state)
{
	uint8_t d[SMP_DATA_SIZE], mad[256] = { 0 };

	(void)state;
	switch_end_reads_up(d);
	answer_nodeinfo(0);
	assert_int_equal(nsub, 2);
	assert_int_equal(sub[1].attr, SMP_ATTR_PORT_INFO);
	assert_int_equal(sub[1].mod, CA_PORT);
	assert_path(1, "0,1,7,11");
	/* Read again meanwhile: one question about it at a time. */
	proxy_reread_port(SW_GUID, CA_AT, d);
	assert_int_equal(nsub, 2);
	portinfo(mad + SMP_DATA_OFFS, 2, 5);
	sub[1].cb(sub[1].arg, 0, mad, sizeof(mad));
	assert_int_equal(store_event_link_state(CA_GUID, CA_PORT),
	    STORE_EV_LINK_UP);
	assert_int_equal(store_node_by_guid(CA_GUID)->ports[CA_PORT].state, 2);
	assert_int_equal(nsweeps, 0);
	assert_null(rr_live);
	/* Up in the stream: a reading alike asks nothing more. */
	proxy_reread_port(SW_GUID, CA_AT, d);
	assert_int_equal(nsub, 2);
}

/* A sweep moved the switch's route while its NodeInfo was out: the
 * answer came by the old path, which may end elsewhere now. It links
 * nothing; a sweep decides. */
static void
test_nodeinfo_route_moved(void **state)
{
	uint8_t d[SMP_DATA_SIZE];

	(void)state;
	switch_end_reads_up(d);
	move_to("0,1,8");
	answer_nodeinfo(0);
	assert_int_equal(nsub, 1);	/* no PortInfo of the far end */
	assert_int_equal(nsweeps, 1);
	assert_null(rr_live);
	assert_int_equal(store_event_link_state(CA_GUID, CA_PORT),
	    STORE_EV_LINK_DOWN);
}

/* The HCA's own reading (the watch's, of an Init port) may be older
 * than the trap: the switch's end is read now, and that goes on as
 * above. */
static void
test_late_trap65_ca_end(void **state)
{
	uint8_t d[SMP_DATA_SIZE], mad[256] = { 0 };

	(void)state;
	trap65_posted();
	portinfo(d, 2, 5);
	proxy_reread_port(CA_GUID, CA_PORT, d);
	assert_int_equal(nsub, 1);
	assert_int_equal(sub[0].attr, SMP_ATTR_PORT_INFO);
	assert_int_equal(sub[0].mod, CA_AT);
	assert_path(0, "0,1,7");
	assert_int_equal(store_event_link_state(CA_GUID, CA_PORT),
	    STORE_EV_LINK_DOWN);
	portinfo(mad + SMP_DATA_OFFS, 2, 5);
	sub[0].cb(sub[0].arg, 0, mad, sizeof(mad));
	assert_int_equal(nsub, 2);
	answer_nodeinfo(1);
	assert_int_equal(nsub, 3);
	assert_int_equal(sub[2].mod, CA_PORT);
	sub[2].cb(sub[2].arg, 0, mad, sizeof(mad));
	assert_int_equal(store_event_link_state(CA_GUID, CA_PORT),
	    STORE_EV_LINK_UP);
	assert_int_equal(nsweeps, 0);
	assert_null(rr_live);
}

/* The switch's end reads the link down after all (the trap was right,
 * the HCA's reading old): it goes down there too, and nothing more is
 * asked of the HCA. */
static void
test_late_trap65_right_after_all(void **state)
{
	uint8_t d[SMP_DATA_SIZE], mad[256] = { 0 };

	(void)state;
	trap65_posted();
	portinfo(d, 4, 5);
	proxy_reread_port(CA_GUID, CA_PORT, d);
	assert_int_equal(nsub, 1);
	portinfo(mad + SMP_DATA_OFFS, 1, 2);	/* Down, Polling */
	sub[0].cb(sub[0].arg, 0, mad, sizeof(mad));
	assert_int_equal(nsub, 1);
	assert_int_equal(store_event_link_state(CA_GUID, CA_PORT),
	    STORE_EV_LINK_DOWN);
	assert_int_equal(store_event_link_state(SW_GUID, CA_AT),
	    STORE_EV_LINK_DOWN);
}

/* A switch's end read up, the HCA's end up in the stream (or never
 * posted): nothing to ask. */
static void
test_ca_up_nothing_asked(void **state)
{
	uint8_t d[SMP_DATA_SIZE];

	(void)state;
	portinfo(d, 4, 5);
	proxy_reread_port(SW_GUID, CA_AT, d);
	assert_int_equal(nsub, 0);
	assert_int_equal(store_event_link_state(CA_GUID, CA_PORT), 0);
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
		cmocka_unit_test_setup_teardown(test_nodeinfo_route_moved,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_trap65_switch_end,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_trap65_ca_end,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_late_trap65_right_after_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ca_up_nothing_asked,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
