/* store_blueprint: the inventory against a blueprint. Exactly the
 * differences there are (a node or cable missing or unexpected, a
 * cable on other ports, a link below plan, a description that names
 * several nodes), none for a port uncabled in both, one event per row
 * appearing and going, and the rows kept across a restart. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "codec/smp.h"
#include "store/blueprint.h"
#include "store/events.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"
#include "tests/unit/unit_db.h"

#define SW	0x100ULL
#define HA	0x200ULL
#define HB	0x300ULL
#define HC	0x400ULL

static char dbpath[64];
static int mism, match;

static void
listener(const struct store_event *ev, void *arg)
{
	(void)arg;
	if (ev->type == STORE_EV_TOPO_MISMATCH)
		mism++;
	else if (ev->type == STORE_EV_TOPO_MATCH)
		match++;
}

static void
open_all(void)
{
	struct store_event_conf c = { 100, 30000, 4, 60000, 30000, 0 };

	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(store_event_init(&c), 0);
	store_event_listen(listener, NULL);
	assert_int_equal(store_blueprint_init(), 0);
}

static void
close_all(void)
{
	store_blueprint_finalise();
	store_event_finalise();
	store_finalise();
}

static int
setup(void **state)
{
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-bp-%d.db", getpid());
	unlink(dbpath);
	log_init("test_blueprint", 1, LOG_ERR);
	ev_init();
	mism = match = 0;
	open_all();
	return 0;
}

static int
teardown(void **state)
{
	close_all();
	unit_db_remove(dbpath);
	return 0;
}

/* A cable as the sweep records it: both ends, 4xEDR (or 1xSDR). */
struct cab {
	uint64_t	a;
	uint8_t		pa;
	uint64_t	b;
	uint8_t		pb;
	int		slow;
};

static void
node(uint64_t guid, int type, int nports, const char *desc,
    const struct cab *cabs, size_t ncab)
{
	struct store_node n;
	struct store_port p[9];

	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = guid;
	n.type = (uint8_t)type;
	n.num_ports = (uint8_t)nports;
	snprintf(n.desc, sizeof(n.desc), "%s", desc);
	for (int i = 0; i <= nports; i++) {
		p[i].num = (uint8_t)i;
		p[i].route.hop[0] = 0xff;
		p[i].valid = 1;
		p[i].state = 1;
	}
	for (size_t k = 0; k < ncab; k++)
		for (int end = 0; end < 2; end++) {
			uint64_t me = end ? cabs[k].b : cabs[k].a;
			uint8_t mp = end ? cabs[k].pb : cabs[k].pa;
			struct store_port *pt = &p[mp];

			if (me != guid)
				continue;
			pt->remote_guid = end ? cabs[k].a : cabs[k].b;
			pt->remote_port = end ? cabs[k].pa : cabs[k].pb;
			pt->state = 4;
			pt->width = cabs[k].slow ? 1 : 2;
			pt->speed = cabs[k].slow ? 1 : 0x80 | 2;
		}
	store_sweep_node(&n, p);
}

/* One sweep of: SW (8 ports), HA and HB (2 ports, port 2 uncabled),
 * HC if asked, with these cables. */
static void
sweep(const struct cab *cabs, size_t n, int with_c, const char *desc_b)
{
	unsigned nodes, lost;

	store_sweep_begin();
	node(SW, STORE_NODE_SWITCH, 8, "leaf01", cabs, n);
	node(HA, STORE_NODE_CA, 2, "cn0001 mlx5_0", cabs, n);
	node(HB, STORE_NODE_CA, 2, desc_b, cabs, n);
	if (with_c)
		node(HC, STORE_NODE_CA, 2, "cn0003 mlx5_0", cabs, n);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
}

static const char plan[] =
    "switchguid=0x100(100)\n"
    "Switch 8 \"S-0000000000000100\" # \"leaf01\"\n"
    "[1] \"H-0000000000000200\"[1] # \"cn0001 mlx5_0\" lid 2 4xEDR\n"
    "[2] \"H-0000000000000300\"[1] # \"cn0002 mlx5_0\" lid 3 4xEDR\n"
    "caguid=0x200\n"
    "Ca 2 \"H-0000000000000200\" # \"cn0001 mlx5_0\"\n"
    "[1] \"S-0000000000000100\"[1] # lid 2 lmc 0 \"leaf01\" lid 1 4xEDR\n"
    "caguid=0x300\n"
    "Ca 2 \"H-0000000000000300\" # \"cn0002 mlx5_0\"\n"
    "[1] \"S-0000000000000100\"[2] # lid 3 lmc 0 \"leaf01\" lid 1 4xEDR\n";

static const struct cab as_planned[] = {
	{ SW, 1, HA, 1, 0 }, { SW, 2, HB, 1, 0 },
};

static struct store_topo *
topo(const char *txt)
{
	struct store_topo *t = store_topo_parse("plan", txt, strlen(txt),
	    stderr);

	assert_non_null(t);
	return t;
}

static void
use(const char *txt)
{
	struct store_topo *t = topo(txt);

	store_blueprint_use_file("plan", t);
	store_topo_free(t);
}

static const struct store_bp_diff *
only_row(void)
{
	assert_int_equal(store_blueprint_count(), 1);
	return store_blueprint_at(0);
}

static void
test_as_planned(void **state)
{
	sweep(as_planned, 2, 0, "cn0002 mlx5_0");
	use(plan);
	store_blueprint_compare();
	/* Port 2 of each HCA is uncabled in both: no difference. */
	assert_int_equal(store_blueprint_count(), 0);
	assert_int_equal(mism + match, 0);
}

static void
test_cable_missing_and_back(void **state)
{
	static const struct cab one[] = { { SW, 1, HA, 1, 0 } };
	const struct store_bp_diff *r;

	use(plan);
	sweep(one, 1, 0, "cn0002 mlx5_0");
	store_blueprint_compare();
	r = only_row();
	assert_int_equal(r->kind, STORE_BP_CABLE_MISSING);
	assert_int_equal(r->guid, SW);
	assert_int_equal(r->port, 2);
	assert_int_equal(r->rguid, HB);
	assert_int_equal(r->rport, 1);
	assert_string_equal(r->expected, "leaf01[2] - cn0002 mlx5_0[1]");
	assert_int_equal(r->index, 1);
	assert_int_equal(mism, 1);
	/* The same again: the same row, no news. */
	store_blueprint_compare();
	assert_int_equal(only_row()->index, 1);
	assert_int_equal(mism, 1);
	sweep(as_planned, 2, 0, "cn0002 mlx5_0");
	store_blueprint_compare();
	assert_int_equal(store_blueprint_count(), 0);
	assert_int_equal(match, 1);
}

static void
test_unexpected_and_moved(void **state)
{
	static const struct cab extra[] = {
		{ SW, 1, HA, 1, 0 }, { SW, 2, HB, 1, 0 }, { SW, 4, HB, 2, 0 },
	};
	static const struct cab moved[] = {
		{ SW, 5, HA, 1, 0 }, { SW, 2, HB, 1, 0 },
	};
	const struct store_bp_diff *r;

	use(plan);
	sweep(extra, 3, 0, "cn0002 mlx5_0");
	store_blueprint_compare();
	r = only_row();
	assert_int_equal(r->kind, STORE_BP_CABLE_UNEXPECTED);
	assert_string_equal(r->found, "leaf01[4] - cn0002 mlx5_0[2]");
	/* HA's cable on leaf01 port 5, not 1: one row, not two. */
	sweep(moved, 2, 0, "cn0002 mlx5_0");
	store_blueprint_compare();
	r = only_row();
	assert_int_equal(r->kind, STORE_BP_CABLE_MOVED);
	assert_string_equal(r->expected, "leaf01[1] - cn0001 mlx5_0[1]");
	assert_string_equal(r->found, "leaf01[5] - cn0001 mlx5_0[1]");
	assert_int_equal(r->index, 2);
	assert_int_equal(mism, 2);
	assert_int_equal(match, 1);
}

static void
test_nodes(void **state)
{
	static const struct cab with_c[] = {
		{ SW, 1, HA, 1, 0 }, { SW, 2, HB, 1, 0 }, { SW, 3, HC, 1, 0 },
	};
	static const struct cab no_b[] = { { SW, 1, HA, 1, 0 } };
	unsigned nodes, lost;

	use(plan);
	/* HC unplanned: the node is the difference, its cable is not. */
	sweep(with_c, 3, 1, "cn0002 mlx5_0");
	store_blueprint_compare();
	assert_int_equal(only_row()->kind, STORE_BP_NODE_UNEXPECTED);
	assert_int_equal(only_row()->guid, HC);
	/* HB gone: one row for it, none for its cable. */
	store_sweep_begin();
	node(SW, STORE_NODE_SWITCH, 8, "leaf01", no_b, 1);
	node(HA, STORE_NODE_CA, 2, "cn0001 mlx5_0", no_b, 1);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	store_blueprint_compare();
	assert_int_equal(only_row()->kind, STORE_BP_NODE_MISSING);
	assert_int_equal(only_row()->guid, HB);
	assert_string_equal(only_row()->expected, "Ca \"cn0002 mlx5_0\"");
}

static void
test_link_below_plan(void **state)
{
	static const struct cab slow[] = {
		{ SW, 1, HA, 1, 1 }, { SW, 2, HB, 1, 0 },
	};

	use(plan);
	sweep(slow, 2, 0, "cn0002 mlx5_0");
	store_blueprint_compare();
	assert_int_equal(only_row()->kind, STORE_BP_LINK_BELOW);
	assert_string_equal(only_row()->expected, "4xEDR");
	assert_string_equal(only_row()->found, "1xSDR");
}

/* A plan that names hosts by description alone. */
static void
test_by_description(void **state)
{
	static const char byd[] =
	    "switchguid=0x100\n"
	    "Switch 8 \"leaf01\"\n"
	    "[1] \"cn0001\"[1]\n"
	    "[2] \"cn0002\"[1]\n"
	    "Ca 2 \"cn0001\" # \"cn0001 mlx5_0\"\n"
	    "Ca 2 \"cn0002\" # \"localhost mlx5_0\"\n";

	sweep(as_planned, 2, 0, "cn0002 mlx5_0");
	use(byd);
	store_blueprint_compare();
	/* cn0002 is "localhost mlx5_0" nowhere: missing, HB unexpected. */
	assert_int_equal(store_blueprint_count(), 2);
	assert_int_equal(store_blueprint_at(0)->kind, STORE_BP_NODE_MISSING);
	assert_string_equal(store_blueprint_at(0)->desc, "localhost mlx5_0");
	assert_int_equal(store_blueprint_at(0)->guid, 0);
	assert_int_equal(store_blueprint_at(1)->kind,
	    STORE_BP_NODE_UNEXPECTED);
	sweep(as_planned, 2, 0, "localhost mlx5_0");
	store_blueprint_compare();
	assert_int_equal(store_blueprint_count(), 0);
	/* Two nodes with that description: ambiguous, and neither is
	 * unexpected. */
	{
		static const struct cab c3[] = {
			{ SW, 1, HA, 1, 0 }, { SW, 2, HB, 1, 0 },
			{ SW, 3, HC, 1, 0 },
		};
		unsigned nodes, lost;

		store_sweep_begin();
		node(SW, STORE_NODE_SWITCH, 8, "leaf01", c3, 3);
		node(HA, STORE_NODE_CA, 2, "cn0001 mlx5_0", c3, 3);
		node(HB, STORE_NODE_CA, 2, "localhost mlx5_0", c3, 3);
		node(HC, STORE_NODE_CA, 2, "localhost mlx5_0", c3, 3);
		assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	}
	store_blueprint_compare();
	assert_int_equal(only_row()->kind, STORE_BP_NODE_AMBIGUOUS);
	assert_string_equal(only_row()->found, "2 nodes with that "
	    "description");
}

/* The rows, their numbers and times outlive a restart, and are not
 * notified again. */
static void
test_restart(void **state)
{
	static const struct cab one[] = { { SW, 1, HA, 1, 0 } };
	int64_t since;

	use(plan);
	sweep(one, 1, 0, "cn0002 mlx5_0");
	store_blueprint_compare();
	since = only_row()->since;
	assert_int_equal(mism, 1);
	close_all();
	open_all();
	assert_int_equal(only_row()->index, 1);
	assert_int_equal(only_row()->since, since);
	/* Compared after the first sweep, as the daemon does. */
	use(plan);
	sweep(one, 1, 0, "cn0002 mlx5_0");
	store_blueprint_compare();
	assert_int_equal(only_row()->index, 1);
	assert_int_equal(mism, 1);
	assert_int_equal(match, 0);
}

/* Pinned: the inventory is the plan, kept in the database. */
static void
test_pin(void **state)
{
	static const struct cab one[] = { { SW, 1, HA, 1, 0 } };
	char why[256];

	sweep(as_planned, 2, 0, "cn0002 mlx5_0");
	store_blueprint_use_file(NULL, NULL);
	assert_int_equal(store_blueprint_pin(why, sizeof(why)), 0);
	assert_int_equal(store_blueprint_count(), 0);
	close_all();
	open_all();
	store_blueprint_use_file(NULL, NULL);
	sweep(one, 1, 0, "cn0002 mlx5_0");
	store_blueprint_compare();
	assert_int_equal(only_row()->kind, STORE_BP_CABLE_MISSING);
	/* A file wins, and pinning is refused while it does. */
	use(plan);
	assert_int_equal(store_blueprint_pin(why, sizeof(why)), -1);
	assert_non_null(strstr(why, "topology.expected"));
}

/* A cable only one end records (the sweep reads a CA's PortInfo at
 * the port it reaches the CA by) is pinned all the same, whichever end
 * has the lower GUID. */
static void
test_pin_one_end(void **state)
{
	static const struct cab sw_only[] = {
		{ SW, 1, HA, 1, 0 }, { SW, 2, HB, 1, 0 }, { SW, 3, 0x50, 2, 0 },
	};
	char why[256], *text = NULL;
	size_t len = 0;
	FILE *f;
	unsigned nodes, lost;

	store_sweep_begin();
	node(SW, STORE_NODE_SWITCH, 8, "leaf01", sw_only, 3);
	node(HA, STORE_NODE_CA, 2, "cn0001 mlx5_0", sw_only, 3);
	node(HB, STORE_NODE_CA, 2, "cn0002 mlx5_0", sw_only, 3);
	node(0x50, STORE_NODE_CA, 2, "cn0050 mlx5_0", NULL, 0);
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	store_blueprint_use_file(NULL, NULL);
	assert_int_equal(store_blueprint_pin(why, sizeof(why)), 0);
	f = open_memstream(&text, &len);
	store_blueprint_write(f);
	fclose(f);
	assert_non_null(strstr(text, "\"H-0000000000000050\"[2]"));
	free(text);
	store_blueprint_compare();
	assert_int_equal(store_blueprint_count(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_as_planned, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_cable_missing_and_back,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_unexpected_and_moved,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_nodes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_below_plan, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_by_description, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pin_one_end, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
