/* store_repl: the HA link's frames (a good stream, a wrong key, a
 * replay, a truncated or oversized frame, a foreign connection's
 * frame: refused with a reason), records read past their end, and the
 * counters' continuity across a promotion (docs/ha.md). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "store/counters.h"
#include "store/repl.h"

static void
auth_init(struct repl_auth *a, const char *key, uint8_t nonce)
{
	memset(a, 0, sizeof(*a));
	a->keylen = strlen(key);
	memcpy(a->key, key, a->keylen);
	memset(a->nonce, nonce, sizeof(a->nonce));
}

/* A HELLO and two frames from tx, read by rx. */
static size_t
stream(struct repl_auth *tx, uint8_t **buf)
{
	size_t len = 0, cap = 0;

	assert_int_equal(store_repl_frame_put(tx, REPL_HELLO, "hi", 2, buf,
	    &len, &cap), 0);
	assert_int_equal(store_repl_frame_put(tx, REPL_BEAT, "12345678", 8,
	    buf, &len, &cap), 0);
	assert_int_equal(store_repl_frame_put(tx, REPL_ACK, NULL, 0, buf,
	    &len, &cap), 0);
	return len;
}

static void
test_good_stream(void **state)
{
	struct repl_auth tx, rx;
	struct repl_frame f;
	const char *why = NULL;
	uint8_t *buf = NULL;
	size_t len, off = 0;
	long n;

	auth_init(&tx, "0123456789abcdef-key", 7);
	auth_init(&rx, "0123456789abcdef-key", 7);
	len = stream(&tx, &buf);
	n = store_repl_frame_get(&rx, buf, len, &f, &why);
	assert_true(n > 0);
	assert_int_equal(f.type, REPL_HELLO);
	assert_int_equal(f.len, 2);
	off += (size_t)n;
	n = store_repl_frame_get(&rx, buf + off, len - off, &f, &why);
	assert_true(n > 0);
	assert_int_equal(f.type, REPL_BEAT);
	assert_true(f.seq == 1);
	assert_memory_equal(f.payload, "12345678", 8);
	off += (size_t)n;
	/* Byte by byte: 0 (more needed) until the whole frame is in. */
	for (size_t k = 0; k < len - off - 1; k++)
		assert_int_equal(store_repl_frame_get(&rx, buf + off, k, &f,
		    &why), 0);
	n = store_repl_frame_get(&rx, buf + off, len - off, &f, &why);
	assert_true(n > 0 && off + (size_t)n == len);
	assert_int_equal(f.type, REPL_ACK);
	free(buf);
}

static void
test_wrong_key(void **state)
{
	struct repl_auth tx, rx;
	struct repl_frame f;
	const char *why = NULL;
	uint8_t *buf = NULL;
	size_t len;

	auth_init(&tx, "0123456789abcdef-key", 7);
	auth_init(&rx, "0123456789abcdef-KEY", 7);
	len = stream(&tx, &buf);
	assert_int_equal(store_repl_frame_get(&rx, buf, len, &f, &why), -1);
	assert_non_null(strstr(why, "bad MAC"));
	free(buf);
}

/* The same key, another connection (the receiver's nonce differs). */
static void
test_other_connection(void **state)
{
	struct repl_auth tx, rx;
	struct repl_frame f;
	const char *why = NULL;
	uint8_t *buf = NULL;
	size_t len;

	auth_init(&tx, "0123456789abcdef-key", 7);
	auth_init(&rx, "0123456789abcdef-key", 8);
	len = stream(&tx, &buf);
	assert_int_equal(store_repl_frame_get(&rx, buf, len, &f, &why), -1);
	assert_non_null(strstr(why, "bad MAC"));
	free(buf);
}

static void
test_replay(void **state)
{
	struct repl_auth tx, rx;
	struct repl_frame f;
	const char *why = NULL;
	uint8_t *buf = NULL;
	size_t len;
	long h, b;

	auth_init(&tx, "0123456789abcdef-key", 7);
	auth_init(&rx, "0123456789abcdef-key", 7);
	len = stream(&tx, &buf);
	h = store_repl_frame_get(&rx, buf, len, &f, &why);
	b = store_repl_frame_get(&rx, buf + h, len - h, &f, &why);
	assert_true(h > 0 && b > 0);
	/* The BEAT again: its seq was used. */
	assert_int_equal(store_repl_frame_get(&rx, buf + h, len - h, &f,
	    &why), -1);
	assert_non_null(strstr(why, "out of sequence"));
	/* A HELLO after the handshake, likewise. */
	auth_init(&rx, "0123456789abcdef-key", 7);
	assert_true(store_repl_frame_get(&rx, buf, len, &f, &why) > 0);
	assert_int_equal(store_repl_frame_get(&rx, buf, len, &f, &why), -1);
	/* A frame skipped (the ACK before the BEAT). */
	auth_init(&rx, "0123456789abcdef-key", 7);
	assert_true(store_repl_frame_get(&rx, buf, len, &f, &why) > 0);
	assert_int_equal(store_repl_frame_get(&rx, buf + h + b, len - h - b,
	    &f, &why), -1);
	assert_non_null(strstr(why, "out of sequence"));
	free(buf);
}

static void
test_malformed(void **state)
{
	struct repl_auth tx, rx;
	struct repl_frame f;
	const char *why = NULL;
	uint8_t *buf = NULL;
	size_t len;

	auth_init(&tx, "0123456789abcdef-key", 7);
	auth_init(&rx, "0123456789abcdef-key", 7);
	len = stream(&tx, &buf);
	/* A flipped payload octet. */
	buf[REPL_HDR] ^= 1;
	assert_int_equal(store_repl_frame_get(&rx, buf, len, &f, &why), -1);
	assert_non_null(strstr(why, "bad MAC"));
	buf[REPL_HDR] ^= 1;
	/* A length beyond the limit: refused before waiting for it. */
	buf[8] = 0x7f;
	assert_int_equal(store_repl_frame_get(&rx, buf, REPL_HDR, &f, &why),
	    -1);
	assert_non_null(strstr(why, "too long"));
	buf[8] = 0;
	buf[0] = 'X';
	assert_int_equal(store_repl_frame_get(&rx, buf, len, &f, &why), -1);
	assert_non_null(strstr(why, "magic"));
	buf[0] = 'I';
	buf[5] = 0;
	assert_int_equal(store_repl_frame_get(&rx, buf, len, &f, &why), -1);
	buf[5] = REPL_HELLO;
	/* Truncated: never a frame (the link reports it at EOF). */
	assert_int_equal(store_repl_frame_get(&rx, buf, REPL_HDR + 1, &f,
	    &why), 0);
	free(buf);
}

static void
test_records(void **state)
{
	uint8_t b[64];
	struct repl_w w = { b, 0, sizeof(b), 0 };
	struct repl_r r;
	struct repl_ctr c = { 0x0002c90300001234ULL, 3, 5, 1000, 400 }, d;
	char s[256];

	store_repl_ctr_put(&w, &c);
	repl_puts(&w, "target-1");
	assert_false(w.over);
	assert_int_equal(w.n, REPL_CTR_SIZE + 9);
	r = (struct repl_r){ b, w.n, 0, 0 };
	assert_int_equal(store_repl_ctr_get(&r, &d), 0);
	assert_memory_equal(&c.total, &d.total, 8);
	assert_true(d.guid == c.guid && d.port == 3 && d.ctr == 5 &&
	    d.last == 400);
	repl_gets(&r, s, sizeof(s));
	assert_string_equal(s, "target-1");
	assert_false(r.bad);
	/* Past the end: bad, zeros, never a read beyond. */
	r = (struct repl_r){ b, REPL_CTR_SIZE - 1, 0, 0 };
	assert_int_equal(store_repl_ctr_get(&r, &d), -1);
	/* A string longer than what is left. */
	b[0] = 200;
	r = (struct repl_r){ b, 10, 0, 0 };
	repl_gets(&r, s, sizeof(s));
	assert_true(r.bad);
	/* Too much for the buffer: over, nothing written past it. */
	w = (struct repl_w){ b, 60, sizeof(b), 0 };
	repl_put64(&w, 1);
	assert_true(w.over);
}

/* The old active served total; the standby took (total, last). */
static void
test_continuity(void **state)
{
	struct ctr_acc act = CTR_ACC_INIT, sb = CTR_ACC_INIT, sb2;
	uint64_t served;

	ctr_update(&act, 5000, 32);
	ctr_update(&act, 7000, 32);
	ctr_update(&act, 100, 32);		/* a reset the active saw */
	ctr_update(&act, 900, 32);
	served = act.total;			/* 7000 + 900 */
	assert_true(served == 7900);
	/* Replicated; an older state arriving late changes nothing. */
	ctr_repl_merge(&sb, act.total, act.last);
	ctr_repl_merge(&sb, 7000, 7000);
	assert_true(sb.total == served && sb.last == 900);
	sb2 = sb;
	/* The port counted on in the gap: exactly on. */
	assert_int_equal(ctr_update(&sb, 1500, 32), 0);
	assert_true(sb.total == served + 600);
	/* Reset in the gap: on from the last served, a discontinuity. */
	assert_int_equal(ctr_update(&sb2, 40, 32), CTR_EV_RESET);
	assert_true(sb2.total == served + 40 && sb2.total >= served);
	/* A standby that never had the counter takes it as it is. */
	sb = (struct ctr_acc)CTR_ACC_INIT;
	ctr_repl_merge(&sb, 10, 10);
	assert_true(ctr_valid(&sb) && sb.total == 10);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_stream),
		cmocka_unit_test(test_wrong_key),
		cmocka_unit_test(test_other_connection),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_continuity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
