/* attr: every row of the catalogue against the rules the rest of the
 * gateway assumes of it (lookups, unsup bits, groups, decoders). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codec/attr.h"
#include "codec/perf.h"
#include "codec/smp.h"

static unsigned
all_groups(void)
{
	unsigned g = 0;

	for (size_t i = 0; i < attr_npoll_groups; i++)
		g |= attr_poll_groups[i].bit;
	return g;
}

static void
test_rows(void **state)
{
	for (int i = 0; i < ATTR_MAX; i++) {
		const struct attr_def *a = &attr_defs[i];
		size_t max = a->mclass == ATTR_CLASS_PERF ? PERF_DATA_SIZE :
		    SMP_DATA_SIZE;

		assert_non_null(a->name);
		assert_true(a->mclass == ATTR_CLASS_SMI_DR ||
		    a->mclass == ATTR_CLASS_PERF);
		assert_true(a->min_len > 0 && a->min_len <= max);
		assert_true(a->ttl < ATTR_TTL_MAX && a->ttl != ATTR_TTL_ERROR);
		assert_true(a->scope <= ATTR_SCOPE_BLOCK);
		assert_int_equal(a->flags & ~ATTR_F_SWITCH, 0);
		assert_int_equal(a->poll & ~all_groups(), 0);
		/* No two rows for one attribute on the wire. */
		for (int j = i + 1; j < ATTR_MAX; j++)
			assert_false(attr_defs[j].mclass == a->mclass &&
			    attr_defs[j].id == a->id);
	}
}

static void
test_lookups(void **state)
{
	for (int i = 0; i < ATTR_MAX; i++) {
		const struct attr_def *a = &attr_defs[i];

		assert_int_equal(attr_index(a->mclass, a->id), i);
		assert_ptr_equal(attr_find(a->mclass, a->id), a);
		if (a->mclass == ATTR_CLASS_SMI_DR)	/* LID-routed too */
			assert_int_equal(attr_index(ATTR_CLASS_SMI, a->id), i);
		/* Not in another class. */
		assert_int_equal(attr_index(0x03, a->id), -1);
	}
	/* Every ID that is not catalogued, in both ranges. */
	for (uint32_t id = 0; id <= 0xffff; id++) {
		int s = attr_index(ATTR_CLASS_SMI_DR, (uint16_t)id);
		int p = attr_index(ATTR_CLASS_PERF, (uint16_t)id);

		assert_true(s == -1 || (attr_defs[s].id == id &&
		    attr_defs[s].mclass == ATTR_CLASS_SMI_DR));
		assert_true(p == -1 || (attr_defs[p].id == id &&
		    attr_defs[p].mclass == ATTR_CLASS_PERF));
	}
}

/* An ID past the direct table, as a vendor attribute is (0xff00 up),
 * is found, not silently missing. */
static void
test_vendor_ids(void **state)
{
	const struct attr_def cat[] = {
		{ .mclass = ATTR_CLASS_SMI_DR, .id = SMP_ATTR_NODE_INFO,
		    .name = "NodeInfo" },
		{ .mclass = ATTR_CLASS_SMI_DR, .id = 0xff10, .name = "V" },
		{ .mclass = ATTR_CLASS_PERF, .id = 0x0040, .name = "P" },
	};

	assert_int_equal(attr_search(cat, 3, ATTR_CLASS_SMI_DR, 0xff10), 1);
	assert_int_equal(attr_search(cat, 3, ATTR_CLASS_SMI, 0xff10), 1);
	assert_int_equal(attr_search(cat, 3, ATTR_CLASS_PERF, 0x0040), 2);
	assert_int_equal(attr_search(cat, 3, ATTR_CLASS_PERF, 0xff10), -1);
	assert_int_equal(attr_search(cat, 3, ATTR_CLASS_SMI_DR, 0x0040), -1);
	assert_int_equal(attr_search(cat, 0, ATTR_CLASS_SMI_DR, 0xff10), -1);
}

/* The unsup bits are stored per node: one bit each, all distinct, and
 * their names are the rows' names. */
static void
test_unsup_bits(void **state)
{
	unsigned seen = 0;
	char buf[1024];

	for (int i = 0; i < ATTR_MAX; i++) {
		unsigned u = attr_defs[i].unsup;

		if (u == ATTR_UNSUP_NONE)
			continue;
		assert_int_equal(u & (u - 1), 0);
		assert_int_equal(seen & u, 0);
		seen |= u;
		assert_string_equal(attr_unsup_names(u, buf, sizeof(buf)),
		    attr_defs[i].name);
	}
	/* The ones the database holds today (never renumbered). */
	assert_int_equal(attr_defs[ATTR_VENDOR_DIAG].unsup, 0x0001);
	assert_int_equal(attr_defs[ATTR_FLOW_CTL_COUNTERS].unsup, 0x0200);
	assert_int_equal(attr_defs[ATTR_PORT_INFO_EXT].unsup, 0x4000);
	/* The mandatory ones have none (IBA 14.2.5 Table 145, 16.1.3.5). */
	assert_int_equal(attr_defs[ATTR_NODE_INFO].unsup, 0);
	assert_int_equal(attr_defs[ATTR_PORT_INFO].unsup, 0);
	assert_int_equal(attr_defs[ATTR_PORT_COUNTERS].unsup, 0);
	assert_string_equal(attr_unsup_names(0, buf, sizeof(buf)), "-");
	/* A short buffer is cut, never overrun. */
	assert_true(strlen(attr_unsup_names(seen, buf, 8)) < 8);
}

/* Decoders take any length up to the row's and never read past it
 * (checked under the sanitizer build): garbage is -1, not a crash. */
static void
test_decoders(void **state)
{
	for (int i = 0; i < ATTR_MAX; i++) {
		const struct attr_def *a = &attr_defs[i];
		union { uint64_t align; uint8_t b[4096]; } out;

		if (a->decode == NULL)
			continue;
		for (size_t len = 0; len <= a->min_len; len++) {
			uint8_t *d = malloc(len ? len : 1);
			int rc;

			assert_non_null(d);
			memset(d, 0xff, len);
			rc = a->decode(d, len, &out);
			assert_true(rc == 0 || rc == -1);
			memset(d, 0, len);
			rc = a->decode(d, len, &out);
			assert_true(rc == 0 || rc == -1);
			free(d);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_vendor_ids),
		cmocka_unit_test(test_unsup_bits),
		cmocka_unit_test(test_decoders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
