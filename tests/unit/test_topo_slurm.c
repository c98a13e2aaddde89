/* gw_topo_slurm: switch and host names Slurm takes, hostlist ranges,
 * tiers counted from the leaves whatever the cabling, and what is left
 * out of topology.conf (unreachable nodes, hosts without a name) said
 * in comments that no description can break. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gateway/topo_slurm.h"

#define MAXN	24
#define MAXP	40

static struct store_node nodes[MAXN];
static struct store_port ports[MAXN][MAXP + 1];
static size_t nn;

static int
reset(void **state)
{
	memset(nodes, 0, sizeof(nodes));
	memset(ports, 0, sizeof(ports));
	nn = 0;
	return 0;
}

static struct store_node *
add(int type, uint64_t guid, int nports, const char *desc, char *alias)
{
	struct store_node *n = &nodes[nn];

	n->idx = (uint32_t)nn;
	n->type = (uint8_t)type;
	n->guid = guid;
	n->num_ports = (uint8_t)nports;
	n->reachable = 1;
	n->ports = ports[nn++];
	n->alias = alias;
	snprintf(n->desc, sizeof(n->desc), "%s", desc);
	for (int p = 0; p <= nports; p++) {
		n->ports[p].num = (uint8_t)p;
		n->ports[p].valid = 1;
	}
	return n;
}

static void
cable(struct store_node *a, int pa, struct store_node *b, int pb)
{
	a->ports[pa].remote_guid = b->guid;
	a->ports[pa].remote_port = (uint8_t)pb;
	b->ports[pb].remote_guid = a->guid;
	b->ports[pb].remote_port = (uint8_t)pa;
}

static const struct store_node *
at(size_t i, void *arg)
{
	return i < nn ? &nodes[i] : NULL;
}

/* The whole output of gw_topo_slurm, to be freed. */
static char *
conf(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(gw_topo_slurm(f, nn, at, NULL), 0);
	fclose(f);
	return buf;
}

static const char *
sw_name(const char *desc, char *alias)
{
	static char buf[GW_TOPO_NAME];
	struct store_node n;

	memset(&n, 0, sizeof(n));
	n.guid = 0x0002c90300aa0002ULL;
	n.alias = alias;
	snprintf(n.desc, sizeof(n.desc), "%s", desc);
	return gw_topo_slurm_switch_name(&n, buf, sizeof(buf));
}

static void
test_switch_names(void **state)
{
	assert_string_equal(sw_name("MF0;leaf01:MSB7800/U1", NULL), "leaf01");
	assert_string_equal(sw_name("Core switch 2 (row B, rack 7)", NULL),
	    "Core_switch_2_row_B_rack_7");
	assert_string_equal(sw_name("Core switch 2", "core02"), "core02");
	/* An alias Slurm would split is made safe too. */
	assert_string_equal(sw_name("x", "row b,  rack[7]"), "row_b_rack_7");
	/* An MF0 name Slurm would not take: the whole description. */
	assert_string_equal(sw_name("MF0;le af:MSB7800/U1", NULL),
	    "MF0_le_af_MSB7800_U1");
	assert_string_equal(sw_name("MF0;:X", NULL), "MF0_X");
	assert_string_equal(sw_name("spine01", NULL), "spine01");
	assert_string_equal(sw_name("a\nSwitchName=b #c", NULL),
	    "a_SwitchName_b_c");
	assert_string_equal(sw_name("", NULL), "sw0002c90300aa0002");
	assert_string_equal(sw_name(" ;;# ", NULL), "sw0002c90300aa0002");
}

static const char *
host(const char *desc, char *alias, const char **why)
{
	static char buf[GW_TOPO_NAME];
	struct store_node n;

	memset(&n, 0, sizeof(n));
	n.alias = alias;
	snprintf(n.desc, sizeof(n.desc), "%s", desc);
	return gw_topo_slurm_host_name(&n, buf, sizeof(buf), why);
}

static void
test_host_names(void **state)
{
	char longer[200];
	const char *why;

	assert_string_equal(host("cn0001 mlx5_0", NULL, &why), "cn0001");
	assert_null(why);
	assert_string_equal(host("gpu7", NULL, &why), "gpu7");
	assert_string_equal(host("localhost mlx5_0", "cn0009", &why),
	    "cn0009");
	assert_string_equal(host("x", "cn0001 HCA-2", &why), "cn0001");
	assert_null(host("localhost mlx5_0", NULL, &why));
	assert_non_null(strstr(why, "localhost"));
	assert_null(host("localhost.localdomain mlx5_0", NULL, &why));
	assert_non_null(host("localhostx mlx5_0", NULL, &why));
	assert_null(host("", NULL, &why));
	assert_string_equal(why, "no NodeDescription");
	assert_null(host(" cn1", NULL, &why));
	assert_null(host("cn[1] mlx5_0", NULL, &why));
	assert_null(host("a,b mlx5_0", NULL, &why));
	assert_null(host("a\nb", NULL, &why));
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_null(host("x", longer, &why));
	assert_string_equal(why, "host name too long");
}

static char *
hostlist(const char **names, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(gw_topo_slurm_hostlist(f, names, n), 0);
	fclose(f);
	return buf;
}

static void
test_hostlist(void **state)
{
	const char *a[] = { "cn0003", "cn0001", "cn0006", "cn0002",
	    "cn0001" };
	const char *b[] = { "login", "cn10", "gpu1", "cn9", "42", "cn09" };
	const char *c[] = { "leaf02" };
	const char *d[] = { "n1", "n2", "n3", "m1", "m3", "cn", "cn1",
	    "n1234567890123456789" };
	char *s;

	s = hostlist(a, 5);
	assert_string_equal(s, "cn[0001-0003,0006]");
	free(s);
	/* Widths apart: cn9 and cn09 are two hosts to Slurm. */
	s = hostlist(b, 6);
	assert_string_equal(s, "42,cn[9,09-10],gpu1,login");
	free(s);
	s = hostlist(c, 1);
	assert_string_equal(s, "leaf02");
	free(s);
	s = hostlist(c, 0);
	assert_string_equal(s, "");
	free(s);
	/* Numbers too long for a range stay names. */
	s = hostlist(d, 8);
	assert_string_equal(s, "cn,cn1,m[1,3],n[1-3],n1234567890123456789");
	free(s);
}

/* Two spines above two leaves, parallel cables, a host on both leaves,
 * a leaf-to-leaf cable, and equal switch descriptions. */
static void
test_two_tiers(void **state)
{
	struct store_node *s1 = add(2, 0x11, 36, "SwitchIB Mellanox", NULL);
	struct store_node *s2 = add(2, 0x12, 36, "SwitchIB Mellanox", NULL);
	struct store_node *l1 = add(2, 0x21, 36, "MF0;leaf01:X/U1", NULL);
	struct store_node *l2 = add(2, 0x22, 36, "MF0;leaf02:X/U1", NULL);
	struct store_node *h[4];
	char *s;

	for (int i = 0; i < 4; i++) {
		char d[32];

		snprintf(d, sizeof(d), "cn%04d mlx5_0", i + 1);
		h[i] = add(1, 0x100 + i, 2, d, NULL);
	}
	cable(s1, 1, l1, 1);
	cable(s1, 2, l1, 2);
	cable(s1, 3, l2, 1);
	cable(s2, 1, l1, 3);
	cable(s2, 2, l2, 2);
	cable(l1, 30, l2, 30);
	cable(l1, 10, h[0], 1);
	cable(l1, 11, h[1], 1);
	cable(l2, 10, h[2], 1);
	cable(l2, 11, h[3], 1);
	cable(l2, 12, h[0], 2);		/* cn0001 on both leaves */
	s = conf();
	assert_string_equal(s,
	    "# Slurm topology.conf (TopologyPlugin=topology/tree) from "
	    "ibsnmpgw's inventory\n"
	    "SwitchName=leaf01 Nodes=cn[0001-0002]\n"
	    "SwitchName=leaf02 Nodes=cn[0001,0003-0004]\n"
	    "SwitchName=SwitchIB_Mellanox_0000000000000011 "
	    "Switches=leaf[01-02]\n"
	    "SwitchName=SwitchIB_Mellanox_0000000000000012 "
	    "Switches=leaf[01-02]\n");
	free(s);
}

/* Three tiers; a spine linked to nothing with hosts below; what is not
 * reachable, has no name, or is a router. */
static void
test_three_tiers_and_left_out(void **state)
{
	struct store_node *core = add(2, 0x1, 8, "core", NULL);
	struct store_node *sp = add(2, 0x2, 8, "spine", NULL);
	struct store_node *lone = add(2, 0x3, 8, "lone", NULL);
	struct store_node *l1 = add(2, 0x4, 8, "leaf1", NULL);
	struct store_node *l2 = add(2, 0x5, 8, "leaf2", NULL);
	struct store_node *a = add(1, 0x10, 1, "a1 mlx5_0", NULL);
	struct store_node *b = add(1, 0x11, 1, "localhost mlx5_0", NULL);
	struct store_node *c = add(1, 0x12, 1, "c1\nSwitchName=x", NULL);
	struct store_node *r = add(3, 0x13, 2, "router", NULL);
	struct store_node *d = add(1, 0x14, 1, "d1 mlx5_0", NULL);
	char *s;

	cable(core, 1, sp, 1);
	cable(sp, 2, l1, 1);
	cable(sp, 3, l2, 1);
	cable(l1, 2, a, 1);
	cable(l2, 2, b, 1);	/* leaf2: only a host with no name */
	cable(l1, 3, c, 1);
	cable(l1, 4, r, 1);
	c->reachable = 0;	/* gone; leaf1's port still says so */
	l1->ports[5].remote_guid = 0x999;	/* never swept */
	l1->ports[6].remote_guid = l1->guid;	/* itself */
	(void)lone;
	(void)d;		/* reachable, on no switch */
	s = conf();
	assert_string_equal(s,
	    "# Slurm topology.conf (TopologyPlugin=topology/tree) from "
	    "ibsnmpgw's inventory\n"
	    "SwitchName=leaf1 Nodes=a1\n"
	    "SwitchName=spine Switches=leaf1\n"
	    "SwitchName=core Switches=spine\n"
	    "# left out: switch 0x0000000000000005 'leaf2': none of its hosts "
	    "has a name\n"
	    "# left out: switch 0x0000000000000003 'lone': no host below it\n"
	    "# left out: host 0x0000000000000011 'localhost mlx5_0': no host "
	    "name in it (localhost)\n"
	    "# left out: router 0x0000000000000013 'router': a router\n"
	    "# left out: host 0x0000000000000014 'd1 mlx5_0': on no switch\n"
	    "# left out: host 0x0000000000000012 'c1?SwitchName=x': "
	    "unreachable at the last sweep\n");
	free(s);
}

/* An empty inventory, and a fabric of one switch without hosts. */
static void
test_empty(void **state)
{
	char *s = conf();

	assert_string_equal(s, "# Slurm topology.conf (TopologyPlugin="
	    "topology/tree) from ibsnmpgw's inventory\n");
	free(s);
	add(2, 0x1, 0, "", NULL);
	s = conf();
	assert_non_null(strstr(s, "# left out: switch 0x0000000000000001 '': "
	    "no host below it\n"));
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_names),
		cmocka_unit_test(test_host_names),
		cmocka_unit_test(test_hostlist),
		cmocka_unit_test_setup(test_two_tiers, reset),
		cmocka_unit_test_setup(test_three_tiers_and_left_out, reset),
		cmocka_unit_test_setup(test_empty, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
