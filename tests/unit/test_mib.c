/* gw_mib: the evaluator and the row enumerators, chrony style:
 * mib_eval.c, mib.c and mib/ib_sma_mib_tables.c are included, so their static functions are tested
 * directly; the cache is the real one, filled with answers built with
 * libibmad, and a fetch function that only counts. A fake table
 * exercises GET and GETNEXT on index bounds the wire can carry
 * (components above 2^32-1, partial indexes) and on absent rows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <cmocka.h>

#include "gateway/mib_eval.c"
#include "gateway/mib.c"
#include "gateway/mib/ib_sma_mib_tables.c"

#include "util/log.h"

/* The fake tables' columns, as gateway/oids.h would name them. */
#define GW_ARC_c1	1
#define GW_ARC_c2	2
#define GW_ARC_c3	3
#define GW_ARC_e	1
#define GW_ARC_b	1
#define GW_ARC_t	1
#define GW_ARC_r	1
#define GW_ARC_o	1

static int fetches;

static int
count_fetch(const struct cache_key *k, void *arg)
{
	fetches++;
	return 0;		/* stays pending: "being fetched" */
}

static void
nop_waiter(void *arg, int status, const uint8_t *d, size_t len)
{
}

/* Put an answer for (node, attribute, modifier, port) in the cache. */
static void
prime(uint32_t node, enum attr_idx a, uint32_t mod, uint8_t port,
    const uint8_t *data)
{
	struct cache_key k = { node, attr_defs[a].id, attr_defs[a].mclass,
	    port, mod };
	const uint8_t *d;
	size_t len;

	if (cache_lookup(&k, attr_defs[a].ttl, &d, &len, nop_waiter, NULL) ==
	    1)
		cache_complete(&k, 0, data, SMP_DATA_SIZE);
}

/* A fake node: a CA whose ports all have routes of their own. */
static struct store_port ports[5];
static struct store_node node = {
	.idx = 0, .guid = 0x1122, .type = STORE_NODE_CA, .num_ports = 4,
	.desc = "test node", .ports = ports,
};

/* The fake table: (a, b) rows for a in 1..3, b in 1..2, except row
 * (2, 1), and the largest row (2^32-1, 2^32-1); column 2 has no instance in row (1, 2), column 3 answers a
 * value outside the MIB's range in row (3, 1). */
static int
fake_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	static const uint32_t rows[][2] = { {1, 1}, {1, 2}, {2, 2}, {3, 1},
	    {3, 2}, {UINT32_MAX, UINT32_MAX} };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct gw_row r = { { rows[i][0], rows[i][1] }, 0 };
		int c = row_cmp(&r, lb, 2);
		if (c > 0 || (c == 0 && incl)) {
			*out = r;
			return 1;
		}
	}
	return 0;
}

static int
fake_val(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	long col = gw_column(e)->arg;

	if (col == 2 && row->i[0] == 1 && row->i[1] == 2)
		return GW_ABSENT;
	if (col == 3 && row->i[0] == 3 && row->i[1] == 1)
		return gw_val_uint_in(v, 99, 0, 10);
	return gw_val_int(v, (long)(col * 100 + row->i[0] * 10 + row->i[1]));
}

static const struct gw_col fake_cols[] = {
	GW_GETA(c1, fake_val, 1),
	GW_GETA(c2, fake_val, 2),
	GW_GETA(c3, fake_val, 3),
};

static const struct gw_table fake = {
	.name = "fake",
	.GW_OID(1, 3, 6, 1, 3, 9999, 1, 1),
	.nindex = 2,
	.GW_COLS(fake_cols),
	.row_next = fake_rows,
};

static const struct gw_table fake_scalars = {
	.name = "scalars",
	.GW_OID(1, 3, 6, 1, 3, 9999, 2),
	.GW_COLS(fake_cols),
};

struct result {
	oid	name[MAX_OID_LEN];
	size_t	len;
	int	type;		/* ASN_* or an exception, 0: untouched */
	long	val;
	int	status;		/* SNMP_ERR_* set by the evaluator */
};

/* Evaluate one varbind as the handler would, answered inline. */
static struct result
eval(const struct gw_table *t, int mode, const oid *name, size_t len)
{
	netsnmp_variable_list vb;
	netsnmp_request_info r;
	netsnmp_agent_request_info ri;
	struct gw_eval e;
	struct result res;

	memset(&vb, 0, sizeof(vb));
	memset(&r, 0, sizeof(r));
	memset(&ri, 0, sizeof(ri));
	memset(&e, 0, sizeof(e));
	memset(&res, 0, sizeof(res));
	snmp_set_var_objid(&vb, name, len);
	vb.type = ASN_NULL;
	r.requestvb = &vb;
	ri.mode = mode;
	e.t = t;
	e.n = &node;
	e.since = ev_now();
	e.ri = &ri;
	assert_int_equal(mode == MODE_GET ? gw_eval_get(&e, &r) :
	    gw_eval_getnext(&e, &r), GW_EVAL_DONE);
	memcpy(res.name, vb.name, vb.name_length * sizeof(oid));
	res.len = vb.name_length;
	res.type = vb.type == ASN_NULL ? 0 : vb.type;
	if (vb.type == ASN_INTEGER || vb.type == ASN_UNSIGNED)
		res.val = *vb.val.integer;
	res.status = r.status;
	snmp_free_var_internals(&vb);
	return res;
}

#define BASE	1, 3, 6, 1, 3, 9999, 1, 1
#define OIDV(...)	(const oid[]){ __VA_ARGS__ }, \
	sizeof((oid[]){ __VA_ARGS__ }) / sizeof(oid)

static void
assert_at(struct result r, const oid *want, size_t wlen, long val)
{
	assert_int_equal(r.len, wlen);
	assert_memory_equal(r.name, want, wlen * sizeof(oid));
	assert_int_equal(r.type, ASN_INTEGER);
	assert_int_equal(r.val, val);
}

static void
test_getnext_bounds(void **state)
{
	struct result r;

	/* From the table's base: column 1, first row. */
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE));
	assert_at(r, OIDV(BASE, 1, 1, 1), 111);
	/* Before the table altogether. */
	r = eval(&fake, MODE_GETNEXT, OIDV(1, 3, 6, 1, 3, 9999, 1));
	assert_at(r, OIDV(BASE, 1, 1, 1), 111);
	/* A full index is passed; the next row. */
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 1, 1, 2));
	assert_at(r, OIDV(BASE, 1, 2, 2), 122);
	/* A partial index is not passed: (2) is before (2, 2). */
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 1, 2));
	assert_at(r, OIDV(BASE, 1, 2, 2), 122);
	/* An index longer than the table's is passed like the full one. */
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 1, 2, 2, 7, 7));
	assert_at(r, OIDV(BASE, 1, 3, 1), 131);
	/* A component above 2^32-1 (the wire allows any arc) is after
	 * every row, the largest one too: the next column. */
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 1, 4294967296ULL));
	assert_at(r, OIDV(BASE, 2, 1, 1), 211);
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 1, 4294967295ULL,
	    4294967296ULL));
	assert_at(r, OIDV(BASE, 2, 1, 1), 211);
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 1, 3, 4294967296ULL));
	assert_int_equal(r.name[9], 4294967295ULL);	/* the largest row */
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 1, 4294967295ULL, 0));
	assert_int_equal(r.name[10], 4294967295ULL);
	/* A column subid between columns starts the next column. */
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 0));
	assert_at(r, OIDV(BASE, 1, 1, 1), 111);
	/* Past the last row of the last column: untouched, the agent
	 * moves on to the next registration. */
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 3, 4294967295ULL,
	    4294967295ULL));
	assert_int_equal(r.type, 0);
	assert_int_equal(r.status, 0);
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 4));
	assert_int_equal(r.type, 0);
}

static void
test_getnext_absent_and_bad(void **state)
{
	struct result r;
	uint64_t skipped = gw_degraded_get(node.idx)->skipped;

	/* Column 2 has no instance in row (1, 2): skipped. */
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 2, 1, 1));
	assert_at(r, OIDV(BASE, 2, 2, 2), 222);
	/* Column 3 is out of range in row (3, 1): the walk leaves that
	 * row out (counted) and goes on. */
	r = eval(&fake, MODE_GETNEXT, OIDV(BASE, 3, 2, 2));
	assert_at(r, OIDV(BASE, 3, 3, 2), 332);
	assert_int_equal(gw_degraded_get(node.idx)->skipped, skipped + 1);
}

static void
test_get(void **state)
{
	struct result r;

	r = eval(&fake, MODE_GET, OIDV(BASE, 1, 3, 2));
	assert_at(r, OIDV(BASE, 1, 3, 2), 132);
	/* A row the table lacks, an instance a column lacks, a bad index
	 * length, an index above 2^32-1: noSuchInstance. */
	r = eval(&fake, MODE_GET, OIDV(BASE, 1, 2, 1));
	assert_int_equal(r.type, SNMP_NOSUCHINSTANCE);
	r = eval(&fake, MODE_GET, OIDV(BASE, 2, 1, 2));
	assert_int_equal(r.type, SNMP_NOSUCHINSTANCE);
	r = eval(&fake, MODE_GET, OIDV(BASE, 1, 1));
	assert_int_equal(r.type, SNMP_NOSUCHINSTANCE);
	r = eval(&fake, MODE_GET, OIDV(BASE, 1, 1, 4294967297ULL));
	assert_int_equal(r.type, SNMP_NOSUCHINSTANCE);
	/* A column the table lacks: noSuchObject. */
	r = eval(&fake, MODE_GET, OIDV(BASE, 9, 1, 1));
	assert_int_equal(r.type, SNMP_NOSUCHOBJECT);
	/* Out of range on GET: genErr. */
	r = eval(&fake, MODE_GET, OIDV(BASE, 3, 3, 1));
	assert_int_equal(r.status, SNMP_ERR_GENERR);
}

static void
test_scalars(void **state)
{
	struct result r;

	r = eval(&fake_scalars, MODE_GETNEXT, OIDV(1, 3, 6, 1, 3, 9999, 2));
	assert_at(r, OIDV(1, 3, 6, 1, 3, 9999, 2, 1, 0), 100);
	r = eval(&fake_scalars, MODE_GETNEXT, OIDV(1, 3, 6, 1, 3, 9999, 2, 1,
	    0));
	assert_at(r, OIDV(1, 3, 6, 1, 3, 9999, 2, 2, 0), 200);
	r = eval(&fake_scalars, MODE_GET, OIDV(1, 3, 6, 1, 3, 9999, 2, 3, 0));
	assert_at(r, OIDV(1, 3, 6, 1, 3, 9999, 2, 3, 0), 300);
	r = eval(&fake_scalars, MODE_GET, OIDV(1, 3, 6, 1, 3, 9999, 2, 3, 1));
	assert_int_equal(r.type, SNMP_NOSUCHINSTANCE);
}

static void
test_field_values(void **state)
{
	const struct gw_col en = GW_FIELD(e, ATTR_PORT_INFO, 0, GW_K_ENUM,
	    GW_CODES(1, 4, 0, 5));
	const struct gw_col bias = GW_FIELD(b, ATTR_SM_INFO, 0,
	    GW_K_ENUM, GW_CODES(0, 3, 1, 5));
	const struct gw_col truth = GW_FIELD(t, ATTR_PORT_INFO, 0,
	    GW_K_TRUTH, GW_MASK(1u << 9));
	const struct gw_col ranged = GW_FIELD(r, ATTR_PORT_INFO, 0,
	    GW_K_UINT, GW_RANGE(1, 255));
	const struct gw_col oct = GW_FIELD(o, ATTR_NODE_INFO, 0,
	    GW_K_OCTETS, GW_NOCTETS(3));
	struct gw_val v;

	assert_int_equal(gw_field_value(&en, 4, &v), 0);
	assert_int_equal(v.l, 4);
	assert_int_equal(gw_field_value(&en, 0, &v), 0);
	assert_int_equal(v.l, 5);			/* other */
	assert_int_equal(gw_field_value(&bias, 3, &v), 0);
	assert_int_equal(v.l, 4);			/* master(4) */
	assert_int_equal(gw_field_value(&truth, 0x200, &v), 0);
	assert_int_equal(v.l, 1);
	assert_int_equal(gw_field_value(&truth, 0x100, &v), 0);
	assert_int_equal(v.l, 2);
	assert_int_equal(gw_field_value(&ranged, 255, &v), 0);
	assert_int_equal(v.type, ASN_UNSIGNED);
	assert_int_equal(gw_field_value(&ranged, 0, &v), GW_BAD);
	assert_int_equal(gw_field_value(&ranged, 256, &v), GW_BAD);
	assert_int_equal(gw_field_value(&oct, 0x02c903, &v), 0);
	assert_int_equal(v.len, 3);
	assert_memory_equal(v.buf, "\x02\xc9\x03", 3);
}

/* Getters return range errors directly: nothing may turn GW_BAD into
 * a plain "true". */
static void
test_ranges(void **state)
{
	struct gw_val v;

	assert_int_equal(gw_val_uint_in(&v, 20, 0, 20), 0);
	assert_int_equal(v.type, ASN_UNSIGNED);
	assert_int_equal(gw_val_uint_in(&v, 21, 0, 20), GW_BAD);
	assert_int_equal(gw_val_uint_in(&v, 0, 1, 255), GW_BAD);
	assert_int_equal(gw_val_uint_in(&v, 0xffffffffUL, 0, 49151), GW_BAD);
	assert_int_equal(gw_val_int_in(&v, 254, 1, 254), 0);
	assert_int_equal(gw_val_int_in(&v, 255, 1, 254), GW_BAD);
	assert_true(GW_BAD < 0 && GW_NEED < 0 && GW_ABSENT < 0);
}

/* Row enumerators */

static struct gw_eval *
eval_ctx(struct gw_eval *e)
{
	memset(e, 0, sizeof(*e));
	e->n = &node;
	e->since = ev_now();
	return e;
}

static void
test_row_range(void **state)
{
	struct gw_row lb = { { 0 }, 0 }, out;

	assert_int_equal(gw_row_range(&lb, 1, 1, 4, &out), 1);
	assert_int_equal(out.i[0], 1);
	lb.i[0] = 4;
	assert_int_equal(gw_row_range(&lb, 1, 1, 4, &out), 1);
	assert_int_equal(gw_row_range(&lb, 0, 1, 4, &out), 0);
	/* A clamped bound must not wrap around to the first row. */
	lb.i[0] = UINT32_MAX;
	assert_int_equal(gw_row_range(&lb, 0, 1, UINT32_MAX, &out), 0);
	assert_int_equal(gw_row_range(&lb, 1, 1, UINT32_MAX, &out), 1);
}

static void
test_data_ports(void **state)
{
	struct gw_eval e;

	/* Port 3 has no route of its own (uncabled): no port attributes. */
	for (int p = 0; p <= 4; p++)
		ports[p].route.hop[0] = p == 3 ? 0xff : 0;
	eval_ctx(&e);
	assert_int_equal(next_data_port(&e, 0), 1);
	assert_int_equal(next_data_port(&e, 2), 4);
	assert_int_equal(next_data_port(&e, 4), 0);
	assert_int_equal(next_data_port(&e, UINT32_MAX), 0);
	/* A CA has no management row (255); a switch has. */
	assert_int_equal(next_port_or_mgmt(&e, 4), 0);
	node.type = STORE_NODE_SWITCH;
	assert_int_equal(next_port_or_mgmt(&e, 4), MGMT_PORT);
	assert_int_equal(next_port_or_mgmt(&e, MGMT_PORT), 0);
	node.type = STORE_NODE_CA;
}

/* Two entries on port 1, none on 2, three on 4. */
static int
fake_count(struct gw_eval *e, uint32_t port, uint32_t *count)
{
	*count = port == 1 ? 2 : port == 4 ? 3 : 0;
	return 0;
}

static void
test_two_level(void **state)
{
	struct gw_eval e;
	struct gw_row lb = { { 0 }, 0 }, out;

	for (int p = 0; p <= 4; p++)
		ports[p].route.hop[0] = 0;
	eval_ctx(&e);
	assert_int_equal(two_level(&e, &lb, 1, next_data_port, fake_count, 1,
	    &out), 1);
	assert_true(out.i[0] == 1 && out.i[1] == 1);
	lb.i[0] = 1;
	lb.i[1] = 2;
	assert_int_equal(two_level(&e, &lb, 0, next_data_port, fake_count, 1,
	    &out), 1);
	assert_true(out.i[0] == 4 && out.i[1] == 1);	/* port 2, 3 empty */
	/* A partial bound (port only) starts at its first entry. */
	lb.i[0] = 4;
	lb.i[1] = 0;
	assert_int_equal(two_level(&e, &lb, 1, next_data_port, fake_count, 1,
	    &out), 1);
	assert_true(out.i[0] == 4 && out.i[1] == 1);
	/* Entry bound above 2^32-1, clamped: past port 4's entries. */
	lb.i[1] = UINT32_MAX;
	assert_int_equal(two_level(&e, &lb, 0, next_data_port, fake_count, 1,
	    &out), 0);
	/* A port bound that is not a port: the next one's first entry. */
	lb.i[0] = 3;
	lb.i[1] = 7;
	assert_int_equal(two_level(&e, &lb, 0, next_data_port, fake_count, 1,
	    &out), 1);
	assert_true(out.i[0] == 4 && out.i[1] == 1);
}

static void
test_sl2vl_rows(void **state)
{
	struct gw_eval e;
	struct gw_row lb = { { 0 }, 0 }, out;
	int n = 0;

	for (int p = 0; p <= 4; p++)
		ports[p].route.hop[0] = 0;
	eval_ctx(&e);
	/* A CA: (port, 255, SL 0..15) per port: 4 x 16 rows, in order. */
	while (sl2vl_rows(&e, &lb, n == 0, &out) == 1) {
		assert_true(n == 0 || row_cmp(&lb, &out, 3) < 0);
		assert_int_equal(out.i[1], MGMT_PORT);
		lb = out;
		n++;
	}
	assert_int_equal(n, 4 * 16);
	/* A switch: every output port with input ports 1..4 and 255. */
	node.type = STORE_NODE_SWITCH;
	memset(&lb, 0, sizeof(lb));
	n = 0;
	while (sl2vl_rows(&e, &lb, n == 0, &out) == 1) {
		assert_true(n == 0 || row_cmp(&lb, &out, 3) < 0);
		lb = out;
		n++;
	}
	assert_int_equal(n, 4 * 5 * 16);
	/* Bounds past every input port of the last output port. */
	lb.i[0] = 4;
	lb.i[1] = 4000;
	lb.i[2] = 0;
	assert_int_equal(sl2vl_rows(&e, &lb, 1, &out), 0);
	node.type = STORE_NODE_CA;
}

/* The VL arbitration rows come from PortInfo:VLArbHighCap, read through
 * the cache; a row enumerator that needs an attribute asks for it. */
static void
test_vlarb_rows(void **state)
{
	struct gw_eval e;
	struct gw_row lb = { { 0 }, 0 }, out;
	uint8_t pi[SMP_DATA_SIZE];
	int before = fetches;

	for (int p = 0; p <= 4; p++)
		ports[p].route.hop[0] = 0;
	eval_ctx(&e);
	assert_int_equal(vlarb_hi_rows(&e, &lb, 1, &out), GW_NEED);
	assert_true(e.need);
	assert_int_equal(e.key.attr, SMP_ATTR_PORT_INFO);
	assert_int_equal(e.key.mod, 1);
	/* Only a job's wait starts the fetch: nothing was sent yet. */
	assert_int_equal(fetches, before);
	memset(pi, 0, sizeof(pi));
	mad_set_field(pi, 0, IB_PORT_STATE_F, 4);
	mad_set_field(pi, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F, 2);
	for (uint32_t p = 1; p <= 4; p++)
		prime(node.idx, ATTR_PORT_INFO, p, (uint8_t)p, pi);
	eval_ctx(&e);
	assert_int_equal(vlarb_hi_rows(&e, &lb, 1, &out), 1);
	assert_true(out.i[0] == 1 && out.i[1] == 1);
	lb.i[0] = 1;
	lb.i[1] = 2;
	assert_int_equal(vlarb_hi_rows(&e, &lb, 0, &out), 1);
	assert_true(out.i[0] == 2 && out.i[1] == 1);
}

static int
setup(void **state)
{
	log_init("test_mib", 1, LOG_CRIT);
	cache_init(count_fetch, NULL);
	return 0;
}

static int
teardown(void **state)
{
	cache_finalise();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getnext_bounds),
		cmocka_unit_test(test_getnext_absent_and_bad),
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_field_values),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_row_range),
		cmocka_unit_test(test_data_ports),
		cmocka_unit_test(test_two_level),
		cmocka_unit_test(test_sl2vl_rows),
		cmocka_unit_test(test_vlarb_rows),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
