/* pool: objects come zeroed, freed ones are reused, many blocks hold
 * many objects, and pool_free unmaps them all; regions hand out zeroed,
 * aligned memory of any size and free it at once. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/pool.h"

struct obj {
	uint64_t	a, b;
	char		s[57];
};

static void
test_zero_and_reuse(void **state)
{
	struct pool p;
	struct obj *x, *y;

	pool_init(&p, sizeof(struct obj));
	assert_true(p.size >= sizeof(struct obj) && p.size % 8 == 0);
	x = pool_get(&p);
	assert_non_null(x);
	assert_true(x->a == 0 && x->b == 0 && x->s[56] == 0);
	memset(x, 0xff, sizeof(*x));
	pool_put(&p, x);
	assert_int_equal(p.nobj, 0);
	y = pool_get(&p);
	assert_non_null(y);
	/* A reused object is zeroed again. */
	assert_true(y->a == 0 && y->b == 0 && y->s[0] == 0 && y->s[56] == 0);
	pool_put(&p, y);
	pool_free(&p);
}

static void
test_many(void **state)
{
	enum { N = 20000 };
	static struct obj *v[N];
	struct pool p;

	pool_init(&p, sizeof(struct obj));
	for (int i = 0; i < N; i++) {
		v[i] = pool_get(&p);
		assert_non_null(v[i]);
		v[i]->a = (uint64_t)i;
	}
	assert_int_equal(p.nobj, N);
	/* Distinct objects, each kept its value. */
	for (int i = 0; i < N; i++)
		assert_true(v[i]->a == (uint64_t)i);
	for (int i = 0; i < N; i += 2)
		pool_put(&p, v[i]);
	assert_int_equal(p.nobj, N / 2);
	size_t mapped = pool_mapped(&p);
	/* Freed objects are reused before any new block is mapped. */
	for (int i = 0; i < N; i += 2)
		assert_non_null(v[i] = pool_get(&p));
	assert_int_equal(pool_mapped(&p), mapped);
	for (int i = 0; i < N; i++)
		pool_put(&p, v[i]);
	pool_free(&p);
	assert_int_equal(pool_mapped(&p), 0);
	assert_int_equal(p.nobj, 0);
}

static void
test_region(void **state)
{
	struct pool_region r = POOL_REGION_INIT;
	char *big, *v[3000];

	/* Zeroed, aligned, distinct, of any size, across many blocks. */
	for (int i = 0; i < 3000; i++) {
		size_t len = 1 + (size_t)(i * 37) % 700;

		v[i] = pool_region_alloc(&r, len);
		assert_non_null(v[i]);
		assert_true(((uintptr_t)v[i] & 15) == 0);
		for (size_t k = 0; k < len; k++)
			assert_int_equal(v[i][k], 0);
		memset(v[i], i & 0xff, len);
	}
	for (int i = 0; i < 3000; i++)
		assert_int_equal((unsigned char)v[i][0], i & 0xff);
	/* Larger than a block. */
	big = pool_region_alloc(&r, 1 << 20);
	assert_non_null(big);
	big[(1 << 20) - 1] = 1;
	assert_true(r.used >= (1 << 20));
	pool_region_free(&r);
	assert_null(r.blocks);
	assert_int_equal(r.used, 0);
	/* Usable again after it was freed. */
	assert_non_null(pool_region_alloc(&r, 100));
	pool_region_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_and_reuse),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_region),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
