/* gateway/mib_tunnel.c: a node agent's replies into the gateway's
 * answer cache. A GET's answer is kept by OID; a GETBULK's answers are
 * chained (each OID to its successor) per requested varbind; a reply to
 * another request, with an error, or with other varbinds is refused;
 * an agent whose GETNEXT goes backwards has its walk ended there
 * (RFC 3416 4.2.2), so a walk through the tunnel always increases;
 * tunnel-ttl 0 keeps answers for their own request only; UCD-SNMP-MIB's
 * Opaque floats pass (a walk of a host failed on them once). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gateway/mib.h"

/* Generated with pysnmp's BER encoder (v2c, community public). */
static const uint8_t get_ok[] = {
	0x30, 0x43, 0x02, 0x01, 0x01, 0x04, 0x06, 0x70, 0x75, 0x62,
	0x6c, 0x69, 0x63, 0xa2, 0x36, 0x02, 0x01, 0x01, 0x02, 0x01,
	0x00, 0x02, 0x01, 0x00, 0x30, 0x2b, 0x30, 0x19, 0x06, 0x08,
	0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x01, 0x00, 0x04, 0x0d,
	0x74, 0x75, 0x6e, 0x6e, 0x65, 0x6c, 0x65, 0x64, 0x20, 0x68,
	0x6f, 0x73, 0x74, 0x30, 0x0e, 0x06, 0x09, 0x2b, 0x06, 0x01,
	0x02, 0x01, 0x19, 0x01, 0x01, 0x00, 0x43, 0x01, 0x05
};
static const uint8_t get_other_id[] = {
	0x30, 0x37, 0x02, 0x01, 0x01, 0x04, 0x06, 0x70, 0x75, 0x62,
	0x6c, 0x69, 0x63, 0xa2, 0x2a, 0x02, 0x01, 0x02, 0x02, 0x01,
	0x00, 0x02, 0x01, 0x00, 0x30, 0x1f, 0x30, 0x0d, 0x06, 0x08,
	0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x01, 0x00, 0x04, 0x01,
	0x78, 0x30, 0x0e, 0x06, 0x09, 0x2b, 0x06, 0x01, 0x02, 0x01,
	0x19, 0x01, 0x01, 0x00, 0x43, 0x01, 0x05
};
static const uint8_t get_error[] = {
	0x30, 0x36, 0x02, 0x01, 0x01, 0x04, 0x06, 0x70, 0x75, 0x62,
	0x6c, 0x69, 0x63, 0xa2, 0x29, 0x02, 0x01, 0x01, 0x02, 0x01,
	0x05, 0x02, 0x01, 0x00, 0x30, 0x1e, 0x30, 0x0d, 0x06, 0x08,
	0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x01, 0x00, 0x04, 0x01,
	0x78, 0x30, 0x0d, 0x06, 0x09, 0x2b, 0x06, 0x01, 0x02, 0x01,
	0x19, 0x01, 0x01, 0x00, 0x05, 0x00
};
static const uint8_t bulk[] = {
	0x30, 0x7e, 0x02, 0x01, 0x01, 0x04, 0x06, 0x70, 0x75, 0x62,
	0x6c, 0x69, 0x63, 0xa2, 0x71, 0x02, 0x01, 0x01, 0x02, 0x01,
	0x00, 0x02, 0x01, 0x00, 0x30, 0x66, 0x30, 0x13, 0x06, 0x08,
	0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x02, 0x00, 0x06, 0x07,
	0x2b, 0x06, 0x01, 0x04, 0x01, 0xbf, 0x08, 0x30, 0x0f, 0x06,
	0x09, 0x2b, 0x06, 0x01, 0x02, 0x01, 0x19, 0x01, 0x01, 0x00,
	0x43, 0x02, 0x04, 0xd2, 0x30, 0x0d, 0x06, 0x08, 0x2b, 0x06,
	0x01, 0x02, 0x01, 0x01, 0x03, 0x00, 0x43, 0x01, 0x63, 0x30,
	0x0d, 0x06, 0x08, 0x2b, 0x06, 0x01, 0x02, 0x01, 0x19, 0x01,
	0x00, 0x02, 0x01, 0x01, 0x30, 0x10, 0x06, 0x08, 0x2b, 0x06,
	0x01, 0x02, 0x01, 0x01, 0x04, 0x00, 0x04, 0x04, 0x72, 0x6f,
	0x6f, 0x74, 0x30, 0x0e, 0x06, 0x09, 0x2b, 0x06, 0x01, 0x02,
	0x01, 0x19, 0x01, 0x02, 0x00, 0x02, 0x01, 0x02
};
static const uint8_t get_null[] = {
	0x30, 0x36, 0x02, 0x01, 0x01, 0x04, 0x06, 0x70, 0x75, 0x62,
	0x6c, 0x69, 0x63, 0xa2, 0x29, 0x02, 0x01, 0x01, 0x02, 0x01,
	0x00, 0x02, 0x01, 0x00, 0x30, 0x1e, 0x30, 0x0d, 0x06, 0x08,
	0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x01, 0x00, 0x04, 0x01,
	0x78, 0x30, 0x0d, 0x06, 0x09, 0x2b, 0x06, 0x01, 0x02, 0x01,
	0x19, 0x01, 0x01, 0x00, 0x05, 0x00
};
static const uint8_t get_float[] = {
	0x30, 0x3d, 0x02, 0x01, 0x01, 0x04, 0x06, 0x70, 0x75, 0x62,
	0x6c, 0x69, 0x63, 0xa2, 0x30, 0x02, 0x01, 0x01, 0x02, 0x01,
	0x00, 0x02, 0x01, 0x00, 0x30, 0x25, 0x30, 0x0d, 0x06, 0x08,
	0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x01, 0x00, 0x04, 0x01,
	0x78, 0x30, 0x14, 0x06, 0x09, 0x2b, 0x06, 0x01, 0x02, 0x01,
	0x19, 0x01, 0x01, 0x00, 0x44, 0x07, 0x9f, 0x78, 0x04, 0x3f,
	0x00, 0x00, 0x00
};

static const oid a[] = { 1, 3, 6, 1, 2, 1, 1, 1, 0 };
static const oid b[] = { 1, 3, 6, 1, 2, 1, 25 };
static const oid b_get[] = { 1, 3, 6, 1, 2, 1, 25, 1, 1, 0 };

static int
setup(void **state)
{
	(void)state;
	gw_mib_tunnel_config(20);	/* empty */
	return 0;
}

static int
absorb(int get, const oid *x, size_t xl, const oid *y, size_t yl,
    const uint8_t *msg, size_t len, long reqid, int ttl, uint32_t gen)
{
	const oid *prev[2] = { x, y };
	size_t prevlen[2] = { xl, yl };

	return gw_mib_tunnel_absorb(3, gen, reqid, get, prev, prevlen, 2, msg,
	    len, ttl);
}

static void
test_get(void **state)
{
	oid next[MAX_OID_LEN];
	size_t nl;
	u_char type;

	(void)state;
	assert_int_equal(absorb(1, a, OID_LENGTH(a), b_get, OID_LENGTH(b_get),
	    get_ok, sizeof(get_ok), 1, 5, 1), 0);
	assert_int_equal(gw_mib_tunnel_cached(), 2);
	assert_int_equal(gw_mib_tunnel_peek(3, 1, a, OID_LENGTH(a), 0, next,
	    &nl, &type), 0);
	assert_int_equal(type, ASN_OCTET_STR);
	assert_int_equal(gw_mib_tunnel_peek(3, 1, b_get, OID_LENGTH(b_get), 0,
	    next, &nl, &type), 0);
	assert_int_equal(type, ASN_TIMETICKS);
	/* UCD's floats: an Opaque net-snmp unwraps, kept as it is. */
	assert_int_equal(absorb(1, a, OID_LENGTH(a), b_get, OID_LENGTH(b_get),
	    get_float, sizeof(get_float), 1, 5, 1), 0);
	assert_int_equal(gw_mib_tunnel_peek(3, 1, b_get, OID_LENGTH(b_get), 0,
	    next, &nl, &type), 0);
	assert_int_equal(type, ASN_OPAQUE_FLOAT);
	/* Another node's cache is another's. */
	assert_int_equal(gw_mib_tunnel_peek(4, 1, a, OID_LENGTH(a), 0, next,
	    &nl, &type), -1);
}

static void
test_refused(void **state)
{
	(void)state;
	/* Request ID 2 answers another request. */
	assert_int_equal(absorb(1, a, OID_LENGTH(a), b_get, OID_LENGTH(b_get),
	    get_other_id, sizeof(get_other_id), 1, 5, 1), -1);
	/* errorStatus genErr. */
	assert_int_equal(absorb(1, a, OID_LENGTH(a), b_get, OID_LENGTH(b_get),
	    get_error, sizeof(get_error), 1, 5, 1), -1);
	/* Not the varbinds asked for. */
	assert_int_equal(absorb(1, b_get, OID_LENGTH(b_get), a, OID_LENGTH(a),
	    get_ok, sizeof(get_ok), 1, 5, 1), -1);
	/* A NULL value is no answer (net-snmp would read it as none). */
	assert_int_equal(absorb(1, a, OID_LENGTH(a), b_get, OID_LENGTH(b_get),
	    get_null, sizeof(get_null), 1, 5, 1), -1);
	/* Truncated, and not SNMP at all. */
	assert_int_equal(absorb(1, a, OID_LENGTH(a), b_get, OID_LENGTH(b_get),
	    get_ok, sizeof(get_ok) - 3, 1, 5, 1), -1);
	assert_int_equal(absorb(0, a, OID_LENGTH(a), b, OID_LENGTH(b),
	    (const uint8_t *)"\x30\x03\x02\x01\x01", 5, 1, 5, 1), -1);
	assert_int_equal(gw_mib_tunnel_cached(), 0);
}

static void
test_bulk_chains(void **state)
{
	static const oid a1[] = { 1, 3, 6, 1, 2, 1, 1, 2, 0 };
	static const oid a2[] = { 1, 3, 6, 1, 2, 1, 1, 3, 0 };
	static const oid b1[] = { 1, 3, 6, 1, 2, 1, 25, 1, 1, 0 };
	oid next[MAX_OID_LEN];
	size_t nl;
	u_char type;

	(void)state;
	assert_int_equal(absorb(0, a, OID_LENGTH(a), b, OID_LENGTH(b), bulk,
	    sizeof(bulk), 1, 5, 1), 0);
	/* a's column: a -> a1 -> a2 -> sysContact. */
	assert_int_equal(gw_mib_tunnel_peek(3, 0, a, OID_LENGTH(a), 0, next,
	    &nl, &type), 0);
	assert_int_equal(snmp_oid_compare(next, nl, a1, OID_LENGTH(a1)), 0);
	assert_int_equal(gw_mib_tunnel_peek(3, 0, a1, OID_LENGTH(a1), 0, next,
	    &nl, &type), 0);
	assert_int_equal(snmp_oid_compare(next, nl, a2, OID_LENGTH(a2)), 0);
	assert_int_equal(gw_mib_tunnel_peek(3, 0, a2, OID_LENGTH(a2), 0, next,
	    &nl, &type), 0);
	assert_int_equal(type, ASN_OCTET_STR);
	/* b's column: b -> b1, then backwards (25.1.0 < 25.1.1.0): ends
	 * there, and nothing is kept past the end. */
	assert_int_equal(gw_mib_tunnel_peek(3, 0, b, OID_LENGTH(b), 0, next,
	    &nl, &type), 0);
	assert_int_equal(snmp_oid_compare(next, nl, b1, OID_LENGTH(b1)), 0);
	assert_int_equal(gw_mib_tunnel_peek(3, 0, b1, OID_LENGTH(b1), 0, next,
	    &nl, &type), 0);
	assert_int_equal(type, SNMP_ENDOFMIBVIEW);
	assert_int_equal(gw_mib_tunnel_cached(), 5);
}

static void
test_ttl_zero(void **state)
{
	oid next[MAX_OID_LEN];
	size_t nl;
	u_char type;

	(void)state;
	assert_int_equal(absorb(1, a, OID_LENGTH(a), b_get, OID_LENGTH(b_get),
	    get_ok, sizeof(get_ok), 1, 0, 42), 0);
	/* For the request that asked (its generation), and no other. */
	assert_int_equal(gw_mib_tunnel_peek(3, 1, a, OID_LENGTH(a), 42, next,
	    &nl, &type), 0);
	assert_int_equal(gw_mib_tunnel_peek(3, 1, a, OID_LENGTH(a), 43, next,
	    &nl, &type), -1);
	/* A reload empties the cache. */
	assert_int_equal(absorb(1, a, OID_LENGTH(a), b_get, OID_LENGTH(b_get),
	    get_ok, sizeof(get_ok), 1, 5, 44), 0);
	gw_mib_tunnel_config(20);
	assert_int_equal(gw_mib_tunnel_cached(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_get, setup),
		cmocka_unit_test_setup(test_refused, setup),
		cmocka_unit_test_setup(test_bulk_chains, setup),
		cmocka_unit_test_setup(test_ttl_zero, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
