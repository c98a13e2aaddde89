/* cache: TTL, expiry, negative caching and request coalescing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "store/cache.h"
#include "util/ev.h"

static uint64_t now_ms;
static int fetches, fail_start, complete_inside;
static struct cache_key last;
static const struct cache_key *last_ptr;	/* as the fetch got it */

static uint64_t
fake_clock(void)
{
	return now_ms;
}

static int
fake_fetch(const struct cache_key *k, void *arg)
{
	if (fail_start)
		return -1;
	fetches++;
	last = *k;
	last_ptr = k;
	/* A send that fails at once completes inside the fetch. */
	if (complete_inside)
		cache_complete(k, -EIO, NULL, 0);
	return 0;
}

struct waiter {
	int	calls, status;
	uint8_t	first;
	int	order;		/* when it was called, from 1 */
};
static int calls_so_far;

static void
waiter_cb(void *arg, int status, const uint8_t *data, size_t len)
{
	struct waiter *w = arg;

	w->calls++;
	w->order = ++calls_so_far;
	w->status = status;
	w->first = data && len ? data[0] : 0;
}

static int
setup(void **state)
{
	now_ms = 1000000;
	fetches = fail_start = complete_inside = 0;
	ev_set_clock(fake_clock);
	cache_init(fake_fetch, NULL);
	cache_set_ttl(ATTR_TTL_PORTINFO, 30);
	cache_set_ttl(ATTR_TTL_ERROR, 5);
	return 0;
}

static int
teardown(void **state)
{
	cache_finalise();
	ev_set_clock(NULL);
	return 0;
}

static const struct cache_key K = { 7, 0x15, 0x81, 0, 3 };

static void
test_miss_then_hit(void **state)
{
	struct waiter w = { 0 };
	const uint8_t *d;
	size_t len;
	uint8_t payload[64] = { 42 };

	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w), 1);
	assert_int_equal(fetches, 1);
	assert_int_equal(w.calls, 0);	/* never called inline */
	assert_int_equal(cache_peek(&K, &d, &len), -1);
	cache_complete(&K, 0, payload, sizeof(payload));
	assert_int_equal(w.calls, 1);
	assert_int_equal(w.status, 0);
	assert_int_equal(w.first, 42);
	/* A hit sends nothing. */
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w), 0);
	assert_int_equal(d[0], 42);
	assert_int_equal(len, 64);
	assert_int_equal(fetches, 1);
	assert_int_equal(cache_peek(&K, &d, &len), 0);
}

/* An answer the MIB layer found unusable: failed for the error TTL (5 s
 * here), then read again, not kept for the PortInfo TTL (30 s). */
static void
test_reject(void **state)
{
	struct waiter w = { 0 };
	const uint8_t *d;
	size_t len;
	uint8_t payload[64] = { 9 };

	cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb, &w);
	cache_complete(&K, 0, payload, sizeof(payload));
	cache_reject(&K, -ERANGE);
	assert_int_equal(cache_read(&K, 0, &d, &len), -ERANGE);
	assert_int_equal(cache_peek(&K, &d, &len), -1);
	now_ms += 4999;
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w), -ERANGE);
	assert_int_equal(fetches, 1);
	now_ms += 1;
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w), 1);
	assert_int_equal(fetches, 2);
	/* Only a valid entry can be rejected: a pending one stays pending
	 * and its waiter is answered by the fetch. */
	cache_reject(&K, -ERANGE);
	cache_complete(&K, 0, payload, sizeof(payload));
	assert_int_equal(w.status, 0);
	assert_int_equal(w.first, 9);
	assert_int_equal(cache_read(&K, 0, &d, &len), 0);
	/* The same contents again: the node means it. The entry stays. */
	cache_reject(&K, -ERANGE);
	assert_int_equal(cache_read(&K, 0, &d, &len), 0);
	assert_int_equal(d[0], 9);
	/* New contents can be rejected again. */
	now_ms += 30000;
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w), 1);
	payload[0] = 10;
	cache_complete(&K, 0, payload, sizeof(payload));
	cache_reject(&K, -ERANGE);
	assert_int_equal(cache_read(&K, 0, &d, &len), -ERANGE);
	/* An unknown key is ignored. */
	{
		struct cache_key other = K;

		other.port = 99;
		cache_reject(&other, -ERANGE);
		assert_int_equal(cache_read(&other, 0, &d, &len), 1);
	}
}

static void
test_expiry(void **state)
{
	struct waiter w = { 0 };
	const uint8_t *d;
	size_t len;
	uint8_t payload[64] = { 1 };

	cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb, &w);
	cache_complete(&K, 0, payload, sizeof(payload));
	now_ms += 29999;
	assert_int_equal(cache_peek(&K, &d, &len), 0);
	now_ms += 1;	/* exactly the TTL: stale */
	assert_int_equal(cache_peek(&K, &d, &len), -1);
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w), 1);
	assert_int_equal(fetches, 2);
	payload[0] = 2;
	cache_complete(&K, 0, payload, sizeof(payload));
	assert_int_equal(w.first, 2);
}

static void
test_coalescing(void **state)
{
	struct waiter w[5] = { { 0 } };
	const uint8_t *d;
	size_t len;
	uint8_t payload[64] = { 9 };
	struct cache_stats st;

	for (int i = 0; i < 5; i++)
		assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len,
		    waiter_cb, &w[i]), 1);
	/* Five readers, one MAD. */
	assert_int_equal(fetches, 1);
	cache_complete(&K, 0, payload, sizeof(payload));
	for (int i = 0; i < 5; i++) {
		assert_int_equal(w[i].calls, 1);
		assert_int_equal(w[i].first, 9);
	}
	cache_get_stats(&st);
	assert_int_equal(st.misses, 1);
	assert_int_equal(st.coalesced, 4);
	/* A prefetch of a fresh entry sends nothing either. */
	cache_prefetch(&K, ATTR_TTL_PORTINFO);
	assert_int_equal(fetches, 1);
}

static void
test_negative(void **state)
{
	struct waiter w = { 0 }, w2 = { 0 };
	const uint8_t *d;
	size_t len;

	cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb, &w);
	cache_complete(&K, -ETIMEDOUT, NULL, 0);
	assert_int_equal(w.status, -ETIMEDOUT);
	/* Remembered for the error TTL: no new MAD. */
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w2), -ETIMEDOUT);
	assert_int_equal(fetches, 1);
	now_ms += 5000;
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w2), 1);
	assert_int_equal(fetches, 2);
}

static void
test_start_failure(void **state)
{
	struct waiter w = { 0 };
	const uint8_t *d;
	size_t len;

	fail_start = 1;
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w), -EAGAIN);
	assert_int_equal(w.calls, 0);
	fail_start = 0;
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w), 1);
}

/* Waiters are answered in the order they came, a cancelled one not at
 * all; the table holds many entries (it grows) and flushes a node's. */
static void
test_order_and_many(void **state)
{
	struct waiter w[4] = { { 0 } };
	const uint8_t *d;
	size_t len;
	uint8_t payload[64] = { 1 };

	calls_so_far = 0;
	for (int i = 0; i < 4; i++)
		cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb, &w[i]);
	assert_int_equal(cache_cancel(&K, waiter_cb, &w[2]), 1);
	assert_int_equal(cache_cancel(&K, waiter_cb, &w[2]), 0);
	cache_complete(&K, 0, payload, sizeof(payload));
	assert_int_equal(w[0].order, 1);
	assert_int_equal(w[1].order, 2);
	assert_int_equal(w[2].calls, 0);
	assert_int_equal(w[3].order, 3);
	for (uint32_t n = 100; n < 120; n++)
		for (uint32_t m = 0; m < 500; m++) {
			struct cache_key k = { n, 0x15, 0x81, 0, m };
			struct waiter x = { 0 };

			cache_lookup(&k, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
			    &x);
			cache_complete(&k, 0, payload, sizeof(payload));
			assert_int_equal(x.calls, 1);
		}
	for (uint32_t m = 0; m < 500; m += 97) {
		struct cache_key k = { 113, 0x15, 0x81, 0, m };

		assert_int_equal(cache_peek(&k, &d, &len), 0);
	}
	assert_int_equal(cache_node_entries(113), 500);
	assert_int_equal(cache_flush(113), 500);
	assert_int_equal(cache_node_entries(113), 0);
	assert_int_equal(cache_node_entries(114), 500);
	assert_int_equal(cache_flush(UINT32_MAX), 19 * 500 + 1);
}

/* A node reached by a new route forgets its failures, and only its
 * failures. */
static void
test_drop_failures(void **state)
{
	struct waiter w = { 0 };
	const uint8_t *d;
	size_t len;
	uint8_t payload[64] = { 5 };
	struct cache_key ok = K, other = K;

	ok.mod = 4;
	other.node = 8;
	cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb, &w);
	cache_complete(&K, -ETIMEDOUT, NULL, 0);
	cache_lookup(&ok, ATTR_TTL_PORTINFO, &d, &len, waiter_cb, &w);
	cache_complete(&ok, 0, payload, sizeof(payload));
	cache_lookup(&other, ATTR_TTL_PORTINFO, &d, &len, waiter_cb, &w);
	cache_complete(&other, -ETIMEDOUT, NULL, 0);
	/* The failure is remembered: no new fetch. */
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len,
	    waiter_cb, &w), -ETIMEDOUT);
	assert_int_equal(cache_drop_failures(K.node), 1);
	assert_int_equal(cache_peek(&ok, &d, &len), 0);
	assert_int_equal(cache_lookup(&other, ATTR_TTL_PORTINFO, &d, &len,
	    waiter_cb, &w), -ETIMEDOUT);
	/* Asked again, it is fetched again. */
	fetches = 0;
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len,
	    waiter_cb, &w), 1);
	assert_int_equal(fetches, 1);
	cache_complete(&K, 0, payload, sizeof(payload));
}

static void
test_flush(void **state)
{
	struct waiter w = { 0 };
	const uint8_t *d;
	size_t len;
	uint8_t payload[64] = { 5 };
	struct cache_key other = K;

	other.node = 8;
	cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb, &w);
	cache_complete(&K, 0, payload, sizeof(payload));
	cache_lookup(&other, ATTR_TTL_PORTINFO, &d, &len, waiter_cb, &w);
	cache_complete(&other, 0, payload, sizeof(payload));
	assert_int_equal(cache_node_entries(K.node), 1);
	assert_int_equal(cache_flush(7), 1);
	assert_int_equal(cache_node_entries(K.node), 0);
	assert_int_equal(cache_node_entries(other.node), 1);
	assert_int_equal(cache_peek(&K, &d, &len), -1);
	assert_int_equal(cache_peek(&other, &d, &len), 0);
	/* A pending entry survives a flush and still answers. */
	assert_int_equal(cache_flush(UINT32_MAX), 1);
	cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb, &w);
	assert_int_equal(cache_flush(UINT32_MAX), 0);
	assert_int_equal(cache_node_entries(K.node), 1);
	cache_complete(&K, 0, payload, sizeof(payload));
	assert_int_equal(w.calls, 3);
}

static void
test_late_completion(void **state)
{
	uint8_t payload[64] = { 0 };
	const uint8_t *d;
	size_t len;

	/* A completion nobody asked for is ignored. */
	cache_complete(&K, 0, payload, sizeof(payload));
	assert_int_equal(cache_peek(&K, &d, &len), -1);
}

/* A fetch that completes before cache_lookup() could add its waiter:
 * the caller gets the outcome now instead of a callback that never
 * comes. */
static void
test_complete_inside_fetch(void **state)
{
	struct waiter w = { 0 };
	const uint8_t *d;
	size_t len;

	complete_inside = 1;
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w), -EIO);
	assert_int_equal(fetches, 1);
	assert_int_equal(w.calls, 0);
	/* ... and it is remembered as a failure like any other. */
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len, waiter_cb,
	    &w), -EIO);
	assert_int_equal(fetches, 1);
}

/* The fetch's own key pointer completes its entry without a lookup:
 * it must still name that entry after the table grew around it and a
 * flush passed it. */
static void
test_complete_fetched(void **state)
{
	struct waiter w = { 0 }, w2 = { 0 };
	const struct cache_key *p;
	const uint8_t *d;
	size_t len;
	uint8_t payload[64] = { 7 }, other[64] = { 8 };

	(void)state;
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len,
	    waiter_cb, &w), 1);
	p = last_ptr;
	for (uint32_t i = 0; i < 5000; i++) {
		struct cache_key k = K;

		k.node = 1000 + i;
		cache_prefetch(&k, ATTR_TTL_PORTINFO);
		cache_complete(&k, 0, other, sizeof(other));
	}
	assert_int_equal(cache_flush(UINT32_MAX), 5000);
	assert_int_equal(w.calls, 0);
	cache_complete_fetched(p, &K, 0, payload, sizeof(payload));
	assert_int_equal(w.calls, 1);
	assert_int_equal(w.status, 0);
	assert_int_equal(w.first, 7);
	assert_int_equal(cache_read(&K, 0, &d, &len), 0);
	assert_int_equal(d[0], 7);
	assert_int_equal(cache_lookup(&K, ATTR_TTL_PORTINFO, &d, &len,
	    waiter_cb, &w2), 0);
	assert_int_equal(w2.calls, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_miss_then_hit, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_expiry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reject, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coalescing, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_negative, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_failure, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_and_many, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_drop_failures, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_complete_inside_fetch,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_complete_fetched, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_late_completion, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
