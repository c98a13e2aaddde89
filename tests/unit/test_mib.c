/* mib: value helpers. A getter's range check must come back as GW_BAD,
 * the only "out of range" the evaluator knows (genErr). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "gateway/mib.h"

static void
test_ranges(void **state)
{
	struct gw_val v;

	assert_int_equal(gw_val_uint_in(&v, 20, 0, 20), 0);
	assert_int_equal(v.type, ASN_UNSIGNED);
	assert_int_equal(v.l, 20);
	assert_int_equal(gw_val_uint_in(&v, 21, 0, 20), GW_BAD);
	assert_int_equal(gw_val_uint_in(&v, 0, 1, 255), GW_BAD);
	assert_int_equal(gw_val_uint_in(&v, 0xffffffffUL, 0, 49151), GW_BAD);
	assert_int_equal(gw_val_int_in(&v, 254, 1, 254), 0);
	assert_int_equal(v.type, ASN_INTEGER);
	assert_int_equal(gw_val_int_in(&v, 255, 1, 254), GW_BAD);
	assert_int_equal(gw_val_int_in(&v, 0, 1, 254), GW_BAD);
	/* Getters return these directly: nothing may turn GW_BAD into a
	 * plain "true". */
	assert_true(GW_BAD < 0 && GW_NEED < 0 && GW_ABSENT < 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
