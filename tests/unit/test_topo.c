/* store_topo: ibnetdiscover's output is read as ibnetdiscover wrote it
 * (this one from the simulated fabric), the bundled topologies parse,
 * bad input is refused with file:line, and what the writer prints
 * reads back the same. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codec/smp.h"
#include "store/topo.h"

/* ibnetdiscover on tests/sim/topologies/fabric.topo, cut to leaf04,
 * spine01 and node08 (their other cables dropped). */
static const char ibnd[] =
    "#\n"
    "# Topology file: generated on Sun Nov 29 08:09:15 2026\n"
    "#\n"
    "# Initiated from node 0002c90300bb0200 port 0002c90300bb0201\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0xcf08\n"
    "sysimgguid=0x2c90300aa0104\n"
    "switchguid=0x2c90300aa0104(2c90300aa0104)\n"
    "Switch\t36 \"S-0002c90300aa0104\"\t\t# \"leaf04\" enhanced port 0 "
    "lid 6 lmc 0\n"
    "[2]\t\"H-0002c90300bb0800\"[1](2c90300bb0801) \t\t# \"node08 HCA-1\""
    " lid 115 4xEDR\n"
    "[5]\t\"S-0002c90300aa0001\"[7]\t\t# \"spine01\" lid 1 4xEDR\n"
    "[6]\t\"S-0002c90300aa0001\"[8]\t\t# \"spine01\" lid 1 4xEDR s=4 "
    "w=2 v=4\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0xcf08\n"
    "sysimgguid=0x2c90300aa0001\n"
    "switchguid=0x2c90300aa0001(2c90300aa0001)\n"
    "Switch\t36 \"S-0002c90300aa0001\"\t\t# \"spine01\" enhanced port 0 "
    "lid 1 lmc 0\n"
    "[7]\t\"S-0002c90300aa0104\"[5]\t\t# \"leaf04\" lid 6 4xEDR\n"
    "[8]\t\"S-0002c90300aa0104\"[6]\t\t# \"leaf04\" lid 6 4xEDR\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0x1017\n"
    "sysimgguid=0x2c90300bb0800\n"
    "caguid=0x2c90300bb0800\n"
    "Ca\t2 \"H-0002c90300bb0800\"\t\t# \"node08 HCA-1\"\n"
    "[1](2c90300bb0801) \t\"S-0002c90300aa0104\"[2]\t\t# lid 115 lmc 0 "
    "\"leaf04\" lid 6 1xFDR10\n";

static const struct store_topo_link *
find_link(const struct store_topo *t, uint64_t ga, uint8_t pa)
{
	for (size_t i = 0; i < t->nlinks; i++) {
		const struct store_topo_link *l = &t->links[i];

		if (t->nodes[l->a].guid == ga && l->pa == pa)
			return l;
		if (t->nodes[l->b].guid == ga && l->pb == pa)
			return l;
	}
	return NULL;
}

static void
test_ibnetdiscover(void **state)
{
	struct store_topo *t = store_topo_parse("t", ibnd, strlen(ibnd),
	    stderr);
	const struct store_topo_link *l;

	assert_non_null(t);
	assert_int_equal(t->nnodes, 3);
	assert_int_equal(t->nlinks, 3);	/* each listed from both ends */
	assert_int_equal(t->nodes[0].guid, 0x2c90300aa0104ULL);
	assert_int_equal(t->nodes[0].type, STORE_NODE_SWITCH);
	assert_int_equal(t->nodes[0].nports, 36);
	assert_string_equal(t->nodes[0].desc, "leaf04");
	assert_int_equal(t->nodes[2].type, STORE_NODE_CA);
	assert_string_equal(t->nodes[2].desc, "node08 HCA-1");
	l = find_link(t, 0x2c90300aa0001ULL, 7);
	assert_non_null(l);
	assert_int_equal(t->nodes[l->a].guid == 0x2c90300aa0104ULL ? l->pa :
	    l->pb, 5);
	assert_int_equal(l->lanes, 4);
	assert_int_equal(l->speed, SMP_SPEED_EDR);
	/* The switch's line came first and gave the rate. */
	l = find_link(t, 0x2c90300bb0800ULL, 1);
	assert_non_null(l);
	assert_int_equal(l->speed, SMP_SPEED_EDR);
	store_topo_free(t);
}

/* ibsim's topologies: ids that are names, GUIDs from the guid lines. */
static void
test_bundled(void **state)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	struct store_topo *t;

	snprintf(path, sizeof(path), "%s/tests/sim/topologies/fabric.topo",
	    top ? top : "../..");
	assert_non_null(t = store_topo_load(path, stderr));
	assert_int_equal(t->nnodes, 14);
	assert_int_equal(t->nlinks, 32);
	store_topo_free(t);
	snprintf(path, sizeof(path), "%s/tests/sim/topologies/cluster.topo",
	    top ? top : "../..");
	assert_non_null(t = store_topo_load(path, stderr));
	assert_int_equal(t->nnodes, 14);
	/* node05..09 have port 2 uncabled: no cable, no fault. */
	assert_null(find_link(t, 0x2c90300bb0500ULL, 2));
	assert_non_null(find_link(t, 0x2c90300bb0500ULL, 1));
	store_topo_free(t);
}

/* A hand-written plan: no GUIDs, nodes named by description. */
static void
test_description_only(void **state)
{
	static const char txt[] =
	    "Switch 36 \"leaf01\" # \"MF0;leaf01:MSB7800/U1\"\n"
	    "[1] \"cn0001\"[1] # 4xHDR\n"
	    "Ca 2 \"cn0001\"\n"
	    "[1] \"leaf01\"[1]\n";
	struct store_topo *t = store_topo_parse("plan", txt, strlen(txt),
	    stderr);

	assert_non_null(t);
	assert_int_equal(t->nodes[0].guid, 0);
	assert_string_equal(t->nodes[0].desc, "MF0;leaf01:MSB7800/U1");
	assert_int_equal(t->nodes[1].guid, 0);
	assert_string_equal(t->nodes[1].desc, "cn0001");	/* its id */
	assert_int_equal(t->nlinks, 1);
	assert_int_equal(t->links[0].lanes, 4);
	assert_int_equal(t->links[0].speed, SMP_SPEED_HDR);
	store_topo_free(t);
	/* A node-name-map name longer than a NodeDescription: its start. */
	t = store_topo_parse("long", "Ca 1 \"x\" # \"" "0123456789"
	    "0123456789012345678901234567890123456789012345678901234567890"
	    "123456789\"\n", 94, stderr);
	assert_non_null(t);
	assert_int_equal(strlen(t->nodes[0].desc), STORE_DESC_LEN);
	store_topo_free(t);
}

static void
refused_len(const char *txt, size_t len, const char *want)
{
	char buf[2048] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	struct store_topo *t;

	assert_non_null(f);
	t = store_topo_parse("bp.txt", txt, len, f);
	fclose(f);
	if (t != NULL || strstr(buf, want) == NULL)
		fail_msg("%s: got \"%s\", want \"%s\"", txt, buf, want);
}

static void
refused(const char *txt, const char *want)
{
	refused_len(txt, strlen(txt), want);
}

static void
test_refused(void **state)
{
	refused("", "bp.txt:0: no node");
	refused("hello world\n", "bp.txt:1: unknown line");
	refused("\nSwitch 0 \"a\"\n", "bp.txt:2: a node's port count must "
	    "be 1 to 254");
	refused("Switch 4 a\n", "bp.txt:1: expected the node's id");
	refused("[1] \"a\"[1]\n", "bp.txt:1: a port line before any node");
	refused("Switch 4 \"a\"\n[5] \"a\"[1]\n", "bp.txt:2: expected [PORT] "
	    "with PORT 1 to 4");
	refused("Switch 4 \"a\"\n[1] \"b\"[1]\n", "bp.txt:2: \"b\" is no "
	    "node of the file");
	refused("Switch 4 \"a\"\n[1] \"a\"[1]\n", "bp.txt:2: a port cabled "
	    "to itself");
	refused("Switch 4 \"a\"\n[1] \"b\"[1]\nCa 1 \"b\"\n[1] \"a\"[2]\n",
	    "bp.txt:4: \"b\"[1] - \"a\"[2] disagrees with line 2");
	refused("Switch 4 \"a\"\nSwitch 4 \"a\"\n", "bp.txt:2: node \"a\" "
	    "again (first at line 1)");
	refused("caguid=0x1\nCa 1 \"a\"\ncaguid=0x1\nCa 1 \"b\"\n",
	    "bp.txt:4: GUID 0x0000000000000001 again (first at line 2)");
	refused("caguid=0xzz\nCa 1 \"a\"\n", "bp.txt:1: bad GUID in caguid");
	refused("Ca 1 \"a\"\n[1] \"b\"[3]\nCa 1 \"b\"\n", "bp.txt:2: \"b\" "
	    "has 1 ports, not 3");
	refused("Ca 1 \"a\" x\n", "bp.txt:1: unexpected text after the "
	    "node's id");
	refused("Ca 1 \"a\"\n[1] \"b\"[1] junk\nCa 1 \"b\"\n", "bp.txt:2: "
	    "unexpected text after the remote port");
	refused_len("Ca 1 \"a\"\n\0x\n", 11, "bp.txt:2: a NUL character");
}

/* The writer's output reads back as the same nodes and cables. */
static void
test_roundtrip(void **state)
{
	struct store_topo *t = store_topo_parse("t", ibnd, strlen(ibnd),
	    stderr), *u;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(t);
	store_topo_write(t, f);
	fclose(f);
	u = store_topo_parse("written", buf, len, stderr);
	assert_non_null(u);
	assert_int_equal(u->nnodes, t->nnodes);
	assert_int_equal(u->nlinks, t->nlinks);
	for (size_t i = 0; i < t->nnodes; i++) {
		int found = 0;

		for (size_t j = 0; j < u->nnodes; j++)
			if (u->nodes[j].guid == t->nodes[i].guid) {
				assert_string_equal(u->nodes[j].desc,
				    t->nodes[i].desc);
				assert_int_equal(u->nodes[j].nports,
				    t->nodes[i].nports);
				found = 1;
			}
		assert_true(found);
	}
	for (size_t k = 0; k < t->nlinks; k++) {
		const struct store_topo_link *a = &t->links[k], *b;

		b = find_link(u, t->nodes[a->a].guid, a->pa);
		assert_non_null(b);
		assert_int_equal(b->lanes, a->lanes);
		assert_int_equal(b->speed, a->speed);
	}
	store_topo_free(t);
	store_topo_free(u);
	free(buf);
}

static void
test_rate(void **state)
{
	char b[16];
	struct store_port pt;
	uint8_t lanes, speed;

	assert_string_equal(store_topo_rate(4, SMP_SPEED_EDR, b, sizeof(b)),
	    "4xEDR");
	assert_string_equal(store_topo_rate(0, 0, b, sizeof(b)), "");
	memset(&pt, 0, sizeof(pt));
	pt.state = 4;
	pt.width = 2;			/* 4x */
	pt.speed = 0x80 | 2;		/* LinkSpeedExtActive EDR */
	store_topo_port_rate(&pt, &lanes, &speed);
	assert_int_equal(lanes, 4);
	assert_int_equal(speed, SMP_SPEED_EDR);
	pt.width = 1;
	pt.speed = 1;			/* 1xSDR */
	store_topo_port_rate(&pt, &lanes, &speed);
	assert_int_equal(lanes, 1);
	assert_int_equal(speed, SMP_SPEED_SDR);
	pt.state = 1;			/* Down: nothing is active */
	store_topo_port_rate(&pt, &lanes, &speed);
	assert_int_equal(lanes, 0);
	assert_int_equal(speed, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibnetdiscover),
		cmocka_unit_test(test_bundled),
		cmocka_unit_test(test_description_only),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
