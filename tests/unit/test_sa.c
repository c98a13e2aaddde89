/* proxy_sa's reading of GetTable answers (IBA 15.2.1.1, 13.6.2), and
 * store_sarec's snapshots: replaced whole, changes noticed, a refresh
 * asked for when stale and not otherwise. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "codec/attr.h"
#include "proxy/sa.h"
#include "store/cache.h"
#include "store/sarec.h"
#include "util/ev.h"

static uint64_t now_ms = 1000;

static uint64_t
clock_fn(void)
{
	return now_ms;
}

/* An answer: stride in octets, records filled with their number + 1. */
static size_t
answer(uint8_t *m, int version, int flags, uint32_t paylen, size_t stride,
    size_t nrec)
{
	memset(m, 0, 4096);
	m[0] = 1;
	m[1] = 0x03;
	m[2] = 2;
	m[3] = 0x92;
	m[24] = (uint8_t)version;
	m[26] = (uint8_t)flags;
	m[32] = (uint8_t)(paylen >> 24);
	m[33] = (uint8_t)(paylen >> 16);
	m[34] = (uint8_t)(paylen >> 8);
	m[35] = (uint8_t)paylen;
	m[44] = (uint8_t)(stride / 8 >> 8);
	m[45] = (uint8_t)(stride / 8);
	for (size_t i = 0; i < nrec; i++)
		memset(m + 56 + i * stride, (int)i + 1, stride);
	return 56 + nrec * stride;
}

static void
test_reassembled(void **state)
{
	uint8_t m[4096];
	const uint8_t *recs;
	size_t n, stride, ann;
	size_t len = answer(m, 1, 0x07, 20 + 40 * 56, 56, 40);

	/* The kernel's reassembly: 40 records in one buffer. */
	assert_int_equal(proxy_sa_records(m, len, 52, &recs, &n, &stride,
	    &ann), 0);
	assert_int_equal(n, 40);
	assert_int_equal(ann, 40);
	assert_int_equal(stride, 56);
	assert_ptr_equal(recs, m + 56);
	assert_int_equal(recs[39 * 56], 40);
	/* Fewer octets than the header announced: what came, and the
	 * count that should have. */
	assert_int_equal(proxy_sa_records(m, 56 + 10 * 56, 52, &recs, &n,
	    &stride, &ann), 0);
	assert_int_equal(n, 10);
	assert_int_equal(ann, 40);
}

static void
test_first_segment_only(void **state)
{
	uint8_t m[4096];
	const uint8_t *recs;
	size_t n, stride, ann;

	/* ibsim: the SA's own MAD cut at 256 octets, RMPP Active but never
	 * numbered: one 176-octet ServiceRecord and a partial one. */
	answer(m, 0, 0x01, 0, 176, 1);
	memset(m + 56 + 176, 0x5a, 256 - 56 - 176);
	assert_int_equal(proxy_sa_records(m, 256, 176, &recs, &n, &stride,
	    &ann), 0);
	assert_int_equal(n, 1);
	assert_true(ann > n);
	/* Three 56-octet records in 224 octets: the whole answer. */
	answer(m, 0, 0x01, 0, 56, 3);
	assert_int_equal(proxy_sa_records(m, 224, 52, &recs, &n, &stride,
	    &ann), 0);
	assert_int_equal(n, 3);
	assert_int_equal(ann, 3);
}

static void
test_bad_answers(void **state)
{
	uint8_t m[4096];
	const uint8_t *recs;
	size_t n, stride, ann;

	answer(m, 0, 0, 0, 0, 0);
	assert_int_equal(proxy_sa_records(m, 56, 52, &recs, &n, &stride,
	    &ann), 0);
	assert_int_equal(n, 0);		/* no records: AttributeOffset 0 */
	assert_int_equal(proxy_sa_records(m, 40, 52, &recs, &n, &stride,
	    &ann), -1);			/* shorter than the SA header */
	answer(m, 0, 0, 0, 48, 2);
	assert_int_equal(proxy_sa_records(m, 256, 52, &recs, &n, &stride,
	    &ann), -1);			/* records shorter than the kind's */
	answer(m, 1, 0x03, 10, 56, 2);
	assert_int_equal(proxy_sa_records(m, 256, 52, &recs, &n, &stride,
	    &ann), -1);			/* PayloadLength below the header */
	/* opensm under ibsim: a GetMultiResp with one 64-octet PathRecord
	 * in a 120-octet MAD, under the request's RMPP header (payload 76:
	 * a MultiPathRecord with two GIDs). */
	answer(m, 1, 0x07, 20 + 24 + 2 * 16, 64, 1);
	assert_int_equal(proxy_sa_records(m, 120, 64, &recs, &n, &stride,
	    &ann), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ann, 1);
	assert_int_equal(stride, 64);
	/* Trailing zero padding is not records. */
	answer(m, 0, 0, 0, 56, 2);
	assert_int_equal(proxy_sa_records(m, 256, 52, &recs, &n, &stride,
	    &ann), 0);
	assert_int_equal(n, 2);
}

static int refreshes;

static void
hook(enum store_sa_kind kind, void *arg)
{
	(void)kind;
	(void)arg;
	refreshes++;
}

static void
test_snapshots(void **state)
{
	const struct store_sa_set *s;
	uint8_t recs[2 * 52];

	ev_set_clock(clock_fn);
	cache_set_ttl(ATTR_TTL_SA, 60);
	store_sa_set_refresh(hook, NULL);
	refreshes = 0;
	s = store_sa_get(STORE_SA_MCMEMBER);
	assert_int_equal(s->n, 0);
	assert_int_equal(refreshes, 1);		/* never read: ask */
	memset(recs, 7, sizeof(recs));
	assert_int_equal(store_sa_put(STORE_SA_MCMEMBER, recs, 2, 52, 2), 0);
	memset(recs, 0, sizeof(recs));		/* a copy was kept */
	s = store_sa_get(STORE_SA_MCMEMBER);
	assert_int_equal(refreshes, 1);		/* fresh: no query */
	assert_int_equal(s->n, 2);
	assert_int_equal(s->recs[103], 7);
	assert_int_equal(s->changes, 1);
	now_ms += 30000;
	memset(recs, 7, sizeof(recs));
	store_sa_put(STORE_SA_MCMEMBER, recs, 2, 52, 3);
	s = store_sa_peek(STORE_SA_MCMEMBER);
	assert_int_equal(s->changes, 1);	/* same records */
	assert_int_equal(s->announced, 3);
	now_ms += 60000;
	store_sa_peek(STORE_SA_MCMEMBER);
	assert_int_equal(refreshes, 1);		/* peek never asks */
	store_sa_get(STORE_SA_MCMEMBER);
	assert_int_equal(refreshes, 2);		/* stale: asked, served */
	store_sa_failed(STORE_SA_MCMEMBER);
	assert_int_equal(store_sa_failures(STORE_SA_MCMEMBER), 1);
	assert_int_equal(store_sa_peek(STORE_SA_MCMEMBER)->n, 2);
	recs[0] = 1;
	store_sa_put(STORE_SA_MCMEMBER, recs, 1, 52, 1);
	s = store_sa_peek(STORE_SA_MCMEMBER);
	assert_int_equal(s->changes, 2);
	assert_int_equal(s->changed, now_ms);
	store_sa_put(STORE_SA_MCMEMBER, NULL, 0, 52, 0);
	assert_int_equal(store_sa_peek(STORE_SA_MCMEMBER)->n, 0);
	store_sa_finalise();
	ev_set_clock(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reassembled),
		cmocka_unit_test(test_first_segment_only),
		cmocka_unit_test(test_bad_answers),
		cmocka_unit_test(test_snapshots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
