/* codec/tunnel: segmentation and reassembly of tunneled SNMP PDUs
 * (docs/tunneling.md): round trips at every length boundary, the last
 * mark, and every kind of bad segment ending the PDU, never more. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codec/tunnel.h"

static uint8_t mads[TUN_SEG_MAX + 1][TUN_MAD_SIZE];
static struct tun_reasm r;

static void
fill(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + 3);
}

/* Encode len octets, feed every segment back, expect the same PDU. */
static void
round_trip_seg(size_t len, size_t seg)
{
	static uint8_t pdu[TUN_PDU_MAX];
	struct tun_seg s;
	int n, rc = TUN_MORE;

	fill(pdu, len);
	n = tun_encode(mads, TUN_SEG_MAX, pdu, len, seg, 0x12345678, 7, 100);
	assert_int_equal(n, (int)((len + seg - 1) / seg));
	tun_reasm_reset(&r);
	for (int i = 0; i < n; i++) {
		assert_int_equal(tun_decode(mads[i], TUN_MAD_SIZE, &s), 0);
		assert_int_equal(s.num, i + 1);
		assert_int_equal(s.last, i == n - 1);
		assert_true(s.tid == 100 + (uint64_t)i);
		assert_int_equal(s.raddr, 0x12345678);
		assert_int_equal(s.slid, 7);
		assert_int_equal(rc, TUN_MORE);
		rc = tun_reasm_add(&r, &s);
	}
	assert_int_equal(rc, TUN_DONE);
	assert_int_equal(r.len, len);
	assert_memory_equal(r.buf, pdu, len);
	assert_false(tun_reasm_busy(&r));
}

static void
round_trip(size_t len)
{
	round_trip_seg(len, TUN_SEG_DATA);
}

static void
test_round_trips(void **state)
{
	static const size_t lens[] = { 1, 2, 191, 192, 193, 383, 384, 385,
	    1472, 4096, TUN_PDU_MAX - 1, TUN_PDU_MAX };

	(void)state;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		round_trip(lens[i]);
	/* Shorter segments (ibsim keeps 160 octets of data whole). */
	round_trip_seg(1650, 160);
	round_trip_seg(127 * 160, 160);
	round_trip_seg(1, 1);
	round_trip_seg(127, 1);
}

static void
test_layout(void **state)
{
	uint8_t pdu[200];

	(void)state;
	fill(pdu, sizeof(pdu));
	assert_int_equal(tun_encode(mads, 2, pdu, sizeof(pdu), TUN_SEG_DATA,
	    0xa1b2c3d4, 0x0102, 0x1122334455667788ULL), 2);
	assert_int_equal(mads[0][1], 0x08);		/* class */
	assert_int_equal(mads[0][2], 1);		/* class version */
	assert_int_equal(mads[0][3], 0x03);		/* SNMPSend */
	assert_int_equal(mads[0][16] << 8 | mads[0][17], 0x0011);
	assert_int_equal(mads[0][8], 0x11);		/* TID */
	assert_int_equal(mads[1][15], 0x89);		/* next TID */
	for (int i = 24; i < 56; i++)
		assert_int_equal(mads[0][i], 0);	/* reserved */
	assert_int_equal(mads[0][56], 0xa1);		/* RAddress */
	assert_int_equal(mads[0][59], 0xd4);
	assert_int_equal(mads[0][60], 192);		/* PayloadLength */
	assert_int_equal(mads[0][61], 1);		/* SegmentNumber */
	assert_int_equal(mads[1][60], 8);
	assert_int_equal(mads[1][61], 0x82);		/* 2, the last */
	assert_int_equal(mads[1][62] << 8 | mads[1][63], 0x0102);
	assert_memory_equal(mads[1] + 64, pdu + 192, 8);
}

static void
test_encode_limits(void **state)
{
	static uint8_t pdu[TUN_PDU_MAX + 1];

	(void)state;
	assert_int_equal(tun_encode(mads, TUN_SEG_MAX, pdu, 0, 192, 1, 1, 1),
	    -1);
	assert_int_equal(tun_encode(mads, TUN_SEG_MAX, pdu, TUN_PDU_MAX + 1,
	    192, 1, 1, 1), -1);
	assert_int_equal(tun_encode(mads, TUN_SEG_MAX, pdu, 128, 1, 1, 1, 1),
	    -1);			/* 128 segments */
	assert_int_equal(tun_encode(mads, TUN_SEG_MAX, pdu, 10, 0, 1, 1, 1),
	    -1);
	assert_int_equal(tun_encode(mads, TUN_SEG_MAX, pdu, 10, 193, 1, 1, 1),
	    -1);
	/* Room for fewer MADs than needed. */
	assert_int_equal(tun_encode(mads, 1, pdu, 193, 192, 1, 1, 1), -1);
}

static void
test_bad_segments(void **state)
{
	uint8_t pdu[500], m[TUN_MAD_SIZE];
	struct tun_seg s;

	(void)state;
	fill(pdu, sizeof(pdu));
	assert_int_equal(tun_encode(mads, 3, pdu, sizeof(pdu), 192, 9, 4, 1),
	    3);
	/* Not PduInfo Sends, or out of range: not segments at all. */
	memcpy(m, mads[0], sizeof(m));
	m[1] = 0x81;
	assert_int_equal(tun_decode(m, sizeof(m), &s), -1);
	memcpy(m, mads[0], sizeof(m));
	m[3] = 0x81;
	assert_int_equal(tun_decode(m, sizeof(m), &s), -1);
	memcpy(m, mads[0], sizeof(m));
	m[17] = 0x10;
	assert_int_equal(tun_decode(m, sizeof(m), &s), -1);
	memcpy(m, mads[0], sizeof(m));
	m[60] = 0;
	assert_int_equal(tun_decode(m, sizeof(m), &s), -1);
	m[60] = 193;
	assert_int_equal(tun_decode(m, sizeof(m), &s), -1);
	m[60] = 100;		/* short and not the last: allowed */
	assert_int_equal(tun_decode(m, sizeof(m), &s), 0);
	assert_int_equal(s.len, 100);
	memcpy(m, mads[0], sizeof(m));
	m[61] = 0;
	assert_int_equal(tun_decode(m, sizeof(m), &s), -1);
	m[61] = 0x80;		/* "last" with number 0 */
	assert_int_equal(tun_decode(m, sizeof(m), &s), -1);
	assert_int_equal(tun_decode(mads[0], 255, &s), -1);

	/* Out of order: the PDU is dropped, and the next segment 1
	 * starts afresh. */
	tun_reasm_reset(&r);
	assert_int_equal(tun_decode(mads[1], TUN_MAD_SIZE, &s), 0);
	assert_int_equal(tun_reasm_add(&r, &s), TUN_BAD);
	assert_int_equal(tun_decode(mads[0], TUN_MAD_SIZE, &s), 0);
	assert_int_equal(tun_reasm_add(&r, &s), TUN_MORE);
	assert_int_equal(tun_decode(mads[2], TUN_MAD_SIZE, &s), 0);
	assert_int_equal(tun_reasm_add(&r, &s), TUN_BAD);
	assert_false(tun_reasm_busy(&r));
	/* A segment of another RAddress or source in the middle. */
	assert_int_equal(tun_decode(mads[0], TUN_MAD_SIZE, &s), 0);
	assert_int_equal(tun_reasm_add(&r, &s), TUN_MORE);
	assert_int_equal(tun_decode(mads[1], TUN_MAD_SIZE, &s), 0);
	s.raddr++;
	assert_int_equal(tun_reasm_add(&r, &s), TUN_BAD);
	assert_int_equal(tun_decode(mads[0], TUN_MAD_SIZE, &s), 0);
	assert_int_equal(tun_reasm_add(&r, &s), TUN_MORE);
	assert_int_equal(tun_decode(mads[1], TUN_MAD_SIZE, &s), 0);
	s.slid++;
	assert_int_equal(tun_reasm_add(&r, &s), TUN_BAD);
	/* A duplicate of the segment just taken. */
	assert_int_equal(tun_decode(mads[0], TUN_MAD_SIZE, &s), 0);
	assert_int_equal(tun_reasm_add(&r, &s), TUN_MORE);
	assert_int_equal(tun_reasm_add(&r, &s), TUN_MORE);	/* a new 1 */
	assert_int_equal(tun_decode(mads[1], TUN_MAD_SIZE, &s), 0);
	assert_int_equal(tun_reasm_add(&r, &s), TUN_MORE);
	assert_int_equal(tun_reasm_add(&r, &s), TUN_BAD);
}

/* 127 full segments and none marked last: no more room. */
static void
test_no_end(void **state)
{
	struct tun_seg s;
	uint8_t data[TUN_SEG_DATA];

	(void)state;
	fill(data, sizeof(data));
	tun_reasm_reset(&r);
	memset(&s, 0, sizeof(s));
	s.len = TUN_SEG_DATA;
	s.data = data;
	for (int i = 1; i < TUN_SEG_MAX; i++) {
		s.num = (uint8_t)i;
		assert_int_equal(tun_reasm_add(&r, &s), TUN_MORE);
	}
	s.num = TUN_SEG_MAX;
	assert_int_equal(tun_reasm_add(&r, &s), TUN_BAD);
	assert_false(tun_reasm_busy(&r));
}

static void
test_class_port_info(void **state)
{
	uint8_t get[TUN_MAD_SIZE], resp[TUN_MAD_SIZE];

	(void)state;
	tun_encode_cpi_get(get, 0xabcdef);
	assert_int_equal(get[1], 0x08);
	assert_int_equal(get[3], 0x01);
	assert_int_equal(get[16] << 8 | get[17], 0x0001);
	assert_int_equal(tun_encode_cpi_resp(resp, get, 0, 19), 0);
	assert_int_equal(resp[3], 0x81);
	assert_memory_equal(resp + 8, get + 8, 8);	/* TID */
	assert_int_equal(resp[64], 1);
	assert_int_equal(resp[65], 1);
	assert_int_equal(resp[71], 19);
	assert_int_equal(tun_cpi_cap(resp), 0);
	/* CapabilityMask at data octets 2-3, big-endian: bit 8 is the
	 * class-specific "several messages at once". */
	tun_encode_cpi_resp(resp, get, TUN_CAP_CONCURRENT, 19);
	assert_int_equal(resp[66], 0x01);
	assert_int_equal(resp[67], 0x00);
	assert_int_equal(tun_cpi_cap(resp), TUN_CAP_CONCURRENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_encode_limits),
		cmocka_unit_test(test_bad_segments),
		cmocka_unit_test(test_no_end),
		cmocka_unit_test(test_class_port_info),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
