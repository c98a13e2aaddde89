/* gw_mib registration: what it refuses (columns out of order, an index
 * without rows, overlapping subtrees), and that every table of every
 * module (MIB_MODULES in Makefile.am) passes those checks. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gateway/conf.h"
#include "gateway/mib.h"
#include "util/ev.h"

static int
get0(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_int(v, 0);
}

static int
rows0(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return 0;
}

static const struct gw_col good_cols[] = {
	{ .subid = 1, .name = "a", .get = get0 },
	{ .subid = 3, .name = "b", .get = get0 },
};
static const struct gw_col desc_cols[] = {
	{ .subid = 3, .name = "b", .get = get0 },
	{ .subid = 1, .name = "a", .get = get0 },
};
static const struct gw_col dup_cols[] = {
	{ .subid = 2, .name = "a", .get = get0 },
	{ .subid = 2, .name = "b", .get = get0 },
};
static const struct gw_col noattr_cols[] = {
	{ .subid = 1, .name = "a", .attr = -1 },
};

static void
test_check(void **state)
{
	struct gw_table t = { .name = "t", .GW_OID(1, 3, 6, 1, 4, 1, 99),
	    .GW_COLS(good_cols), .nindex = 1, .row_next = rows0 };
	char why[80];

	assert_int_equal(gw_mib_table_check(&t, why, sizeof(why)), 0);
	t.cols = desc_cols;
	assert_int_equal(gw_mib_table_check(&t, why, sizeof(why)), -1);
	assert_string_equal(why, "columns not in ascending order");
	t.cols = dup_cols;
	assert_int_equal(gw_mib_table_check(&t, why, sizeof(why)), -1);
	t.cols = noattr_cols;
	t.ncols = 1;
	assert_int_equal(gw_mib_table_check(&t, why, sizeof(why)), -1);
	assert_string_equal(why, "a field column without an attribute");
	t.cols = good_cols;
	t.ncols = 2;
	t.row_next = NULL;
	assert_int_equal(gw_mib_table_check(&t, why, sizeof(why)), -1);
	assert_string_equal(why, "an index but no row enumerator");
	t.nindex = 0;		/* scalars need none */
	assert_int_equal(gw_mib_table_check(&t, why, sizeof(why)), 0);
	t.nindex = GW_MAX_INDEX + 1;
	t.row_next = rows0;
	assert_int_equal(gw_mib_table_check(&t, why, sizeof(why)), -1);
	t.nindex = 1;
	t.ncols = 0;
	assert_int_equal(gw_mib_table_check(&t, why, sizeof(why)), -1);
	assert_string_equal(why, "no columns");
}

static void
test_overlap(void **state)
{
	/* b's entry sits under a's column 3; c is a's sibling. */
	struct gw_table a = { .name = "a", .GW_OID(1, 3, 6, 1, 4, 1, 99, 1),
	    .GW_COLS(good_cols), .nindex = 1 };
	struct gw_table b = { .name = "b", .GW_OID(1, 3, 6, 1, 4, 1, 99, 1,
	    3, 1), .GW_COLS(good_cols), .nindex = 1 };
	struct gw_table c = { .name = "c", .GW_OID(1, 3, 6, 1, 4, 1, 99, 2),
	    .GW_COLS(good_cols), .nindex = 1 };
	/* A scalar group may hold a table beside its scalars (IF-MIB's
	 * interfaces: ifNumber.0 and ifTable at .2). */
	struct gw_table s = { .name = "s", .GW_OID(1, 3, 6, 1, 4, 1, 99, 1),
	    .GW_COLS(good_cols) };
	struct gw_table in = { .name = "in", .GW_OID(1, 3, 6, 1, 4, 1, 99, 1,
	    2, 1), .GW_COLS(good_cols), .nindex = 1 };

	assert_true(gw_mib_tables_overlap(&a, &b));
	assert_true(gw_mib_tables_overlap(&b, &a));
	assert_false(gw_mib_tables_overlap(&a, &c));
	assert_false(gw_mib_tables_overlap(&s, &in));
	/* ... but not at one of its scalars' instances. */
	in.base[8] = 3;
	in.base[9] = 0;
	assert_true(gw_mib_tables_overlap(&s, &in));
	/* ... nor registered at a scalar's arc: net-snmp would hand that
	 * scalar's requests to the deeper registration. */
	in.base_len = 9;
	assert_true(gw_mib_tables_overlap(&s, &in));
	assert_true(gw_mib_tables_overlap(&in, &s));
	/* The same subtree in another context is another table. */
	b.context = GW_FABRIC_CONTEXT;
	assert_false(gw_mib_tables_overlap(&a, &b));
	a.context = GW_FABRIC_CONTEXT;
	assert_true(gw_mib_tables_overlap(&a, &b));
}

/* The shipped modules: each table passes the checks and no two tables
 * overlap (those under the IBSNMPGW-MIB base among themselves). */
static void
test_modules(void **state)
{
	const struct gw_table *all[128];
	size_t n, nall = 0;
	const struct gw_mib_module *const *m = gw_mib_modules(&n);
	char why[80];

	assert_true(n >= 15);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(m[i]->name);
		for (const struct gw_table *const *t = m[i]->tables;
		    t && *t; t++) {
			if (gw_mib_table_check(*t, why, sizeof(why)) != 0)
				fail_msg("%s: %s: %s", m[i]->name,
				    (*t)->name, why);
			assert_true(nall < 128);
			all[nall++] = *t;
		}
	}
	assert_true(nall >= 40);
	for (size_t i = 0; i < nall; i++)
		for (size_t j = i + 1; j < nall; j++)
			if (all[i]->under_sys_base == all[j]->under_sys_base &&
			    gw_mib_tables_overlap(all[i], all[j]))
				fail_msg("%s overlaps %s", all[i]->name,
				    all[j]->name);
}

/* For real, in net-snmp: every shipped table registers, under the
 * default IBSNMPGW-MIB base; a base that would put ibsnmpgwStats under
 * the system group's sysObjectID is refused. */
static void
test_register(void **state)
{
	struct gw_conf c;

	memset(&c, 0, sizeof(c));
	setenv("MIBS", "", 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
	    NETSNMP_DS_LIB_DONT_LOAD_HOST_FILES, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID,
	    NETSNMP_DS_AGENT_ROLE, 0);
	ev_init();
	assert_int_equal(init_agent("test_mib_reg"), 0);
	assert_int_equal(gw_mib_init(&c), 0);
	gw_mib_finalise();
	shutdown_agent();

	assert_int_equal(init_agent("test_mib_reg"), 0);
	c.sys_object_id_base = "1.3.6.1.2.1.1";
	assert_int_equal(gw_mib_init(&c), -1);
	gw_mib_finalise();
	shutdown_agent();
	ev_finalise();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_register),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
