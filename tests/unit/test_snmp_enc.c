/* gw_snmp_encode (gateway/snmp_enc.c): a v1/v2c Response encoded in one
 * pass is octet for octet what net-snmp's snmp_build() makes of it --
 * random PDUs of every type the agent answers with, each length-octet
 * boundary, a GETBULK cut at ASN_PRIV_STOP, more varbinds than the
 * stack holds; what net-snmp would truncate or refuse, or what its
 * versions encode differently, is left to it (-1); the session hook
 * takes the same path. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gateway/snmp_int.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
rnd(void)
{
	/* xorshift64: the same PDUs every run */
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t
pick(uint64_t n)
{
	return rnd() % n;
}

/* Values near each encoding boundary as often as random ones. */
static uint32_t
u32(void)
{
	static const uint32_t edge[] = { 0, 1, 0x7f, 0x80, 0xff, 0x100,
	    0x7fff, 0x8000, 0xffff, 0x3fff, 0x4000, 0x1fffff, 0x200000,
	    0x7fffff, 0x800000, 0xfffffff, 0x10000000, 0x7fffffff,
	    0x80000000, 0xffffffff };

	switch (pick(3)) {
	case 0:
		return edge[pick(sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return (uint32_t)pick(300);
	default:
		return (uint32_t)rnd();
	}
}

static size_t
slen(void)
{
	static const size_t edge[] = { 0, 1, 4, 64, 126, 127, 128, 129, 255,
	    256, 1000 };

	if (pick(40) == 0)
		return 65536 + pick(300);	/* a 3-octet length */
	return pick(2) ? edge[pick(sizeof(edge) / sizeof(edge[0]))] :
	    pick(200);
}

static size_t
rand_oid(oid *o, size_t max)
{
	size_t n = 2 + pick(max - 1);

	for (size_t k = 0; k < n; k++)
		o[k] = u32();
	if (n > 0)
		o[0] = pick(3);
	if (n > 1 && o[0] < 2)
		o[1] = pick(40);
	else if (n > 1)
		o[1] = pick(1000);
	return n;
}

static void
add_random(netsnmp_pdu *pdu)
{
	static const u_char types[] = { ASN_INTEGER, ASN_COUNTER, ASN_GAUGE,
	    ASN_TIMETICKS, ASN_UINTEGER, ASN_COUNTER64, ASN_OCTET_STR,
	    ASN_IPADDRESS, ASN_OPAQUE, ASN_OBJECT_ID, ASN_NULL,
	    SNMP_NOSUCHOBJECT, SNMP_NOSUCHINSTANCE, SNMP_ENDOFMIBVIEW };
	u_char type = types[pick(sizeof(types))];
	oid name[MAX_OID_LEN], val[MAX_OID_LEN];
	size_t nl, vl = 0;
	u_char *buf = NULL;
	struct counter64 c;
	long l;
	u_long u;
	const void *v = NULL;

	nl = rand_oid(name, 40);
	switch (type) {
	case ASN_INTEGER:
		l = (long)(int32_t)u32();
		v = &l;
		vl = sizeof(l);
		break;
	case ASN_COUNTER:
	case ASN_GAUGE:
	case ASN_TIMETICKS:
	case ASN_UINTEGER:
		u = u32();
		v = &u;
		vl = sizeof(u);
		break;
	case ASN_COUNTER64:
		c.high = pick(2) ? 0 : u32();
		c.low = u32();
		v = &c;
		vl = sizeof(c);
		break;
	case ASN_IPADDRESS:
		u = u32();
		v = &u;
		vl = 4;
		break;
	case ASN_OCTET_STR:
	case ASN_OPAQUE:
		vl = slen();
		buf = malloc(vl + 1);
		assert_non_null(buf);
		for (size_t k = 0; k < vl; k++)
			buf[k] = (u_char)rnd();
		v = buf;
		break;
	case ASN_OBJECT_ID:
		vl = rand_oid(val, 20) * sizeof(oid);
		v = val;
		break;
	default:
		break;
	}
	assert_non_null(snmp_pdu_add_variable(pdu, name, nl, type, v, vl));
	free(buf);
}

static netsnmp_pdu *
response(int version, size_t nvb)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	size_t cl = pick(4) == 0 ? 128 + pick(300) : 1 + pick(20);

	assert_non_null(pdu);
	pdu->version = version;
	pdu->community = malloc(cl);
	assert_non_null(pdu->community);
	for (size_t k = 0; k < cl; k++)
		pdu->community[k] = (u_char)('a' + pick(26));
	pdu->community_len = cl;
	pdu->reqid = (long)(int32_t)u32();
	pdu->errstat = pick(4) == 0 ? (long)pick(19) : 0;
	pdu->errindex = pdu->errstat ? (long)pick(nvb + 1) : 0;
	for (size_t k = 0; k < nvb; k++)
		add_random(pdu);
	return pdu;
}

/* net-snmp's octets: built at the end of its buffer. */
static u_char *
theirs(netsnmp_pdu *pdu, size_t *len)
{
	netsnmp_session s;
	size_t blen = SNMP_MIN_MAX_LEN, off = 0;
	u_char *b = malloc(blen), *out;

	memset(&s, 0, sizeof(s));
	assert_non_null(b);
	assert_int_equal(snmp_build(&b, &blen, &off, &s, pdu), 0);
	out = malloc(off);
	assert_non_null(out);
	memcpy(out, b + blen - off, off);
	free(b);
	*len = off;
	return out;
}

static void
same(netsnmp_pdu *pdu)
{
	size_t blen = SNMP_MIN_MAX_LEN, len = 0, tlen;
	u_char *b = malloc(blen), *t;

	assert_non_null(b);
	assert_int_equal(gw_snmp_encode(pdu, &b, &blen, &len), 0);
	assert_true(len <= blen);
	t = theirs(pdu, &tlen);
	assert_int_equal(len, tlen);
	assert_memory_equal(b, t, len);
	free(t);
	free(b);
}

static void
test_random(void **state)
{
	(void)state;
	for (int k = 0; k < 3000; k++) {
		netsnmp_pdu *pdu = response(pick(2) ? SNMP_VERSION_2c :
		    SNMP_VERSION_1, pick(12) == 0 ? 0 : 1 + pick(40));

		same(pdu);
		snmp_free_pdu(pdu);
	}
}

/* Every type and boundary in one PDU each, and a fabric row's name. */
static void
test_edges(void **state)
{
	static const long ints[] = { 0, 1, -1, 127, 128, -128, -129, 255,
	    256, 32767, 32768, -32768, -32769, 8388607, 8388608, -8388608,
	    -8388609, INT32_MAX, INT32_MIN };
	static const u_long uns[] = { 0, 0x7f, 0x80, 0xff, 0x100, 0x7fff,
	    0x8000, 0x7fffff, 0x800000, 0x7fffffff, 0x80000000,
	    0xffffffff };
	oid row[] = { 1, 3, 6, 1, 3, 117, 7, 1, 3, 1, 5, 254, 128, 0, 0, 0,
	    0, 0, 0, 2, 201, 3, 0, 10, 27, 44, 255, 128, 0, 36 };
	struct counter64 c;
	netsnmp_pdu *pdu;

	(void)state;
	for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) {
		pdu = response(SNMP_VERSION_2c, 0);
		snmp_pdu_add_variable(pdu, row, OID_LENGTH(row), ASN_INTEGER,
		    &ints[k], sizeof(long));
		pdu->reqid = ints[k];
		same(pdu);
		snmp_free_pdu(pdu);
	}
	for (size_t k = 0; k < sizeof(uns) / sizeof(uns[0]); k++) {
		pdu = response(SNMP_VERSION_1, 0);
		snmp_pdu_add_variable(pdu, row, OID_LENGTH(row), ASN_COUNTER,
		    &uns[k], sizeof(u_long));
		snmp_pdu_add_variable(pdu, row, OID_LENGTH(row), ASN_TIMETICKS,
		    &uns[k], sizeof(u_long));
		c.high = uns[k];
		c.low = uns[(k + 5) % (sizeof(uns) / sizeof(uns[0]))];
		snmp_pdu_add_variable(pdu, row, OID_LENGTH(row),
		    ASN_COUNTER64, &c, sizeof(c));
		row[OID_LENGTH(row) - 1] = uns[k];
		same(pdu);
		snmp_free_pdu(pdu);
	}
}

/* net-snmp stops encoding a GETBULK's answer at ASN_PRIV_STOP. */
static void
test_stop(void **state)
{
	netsnmp_pdu *pdu = response(SNMP_VERSION_2c, 10);
	netsnmp_variable_list *v = pdu->variables;

	(void)state;
	for (int k = 0; k < 4; k++)
		v = v->next_variable;
	v->type = ASN_PRIV_STOP;
	same(pdu);
	snmp_free_pdu(pdu);
}

static void
test_many(void **state)
{
	netsnmp_pdu *pdu = response(SNMP_VERSION_2c, 700);

	(void)state;
	same(pdu);
	snmp_free_pdu(pdu);
}

static void
refused(netsnmp_pdu *pdu)
{
	size_t blen = 16, len = 0;
	u_char *b = malloc(blen);

	assert_non_null(b);
	assert_int_equal(gw_snmp_encode(pdu, &b, &blen, &len), -1);
	free(b);
	snmp_free_pdu(pdu);
}

/* What net-snmp truncates, refuses or fills in stays its own. */
static void
test_refused(void **state)
{
	oid bad0[] = { 3, 6, 1 }, bad1[] = { 1, 40, 1 }, big[] = { 1, 3,
	    0x100000000ULL };
	long l = 0;
	netsnmp_pdu *pdu;

	(void)state;
	pdu = response(SNMP_VERSION_2c, 0);
	snmp_pdu_add_variable(pdu, big, 2, ASN_INTEGER, &l, sizeof(l));
	*pdu->variables->val.integer = (long)INT32_MAX + 1;
	refused(pdu);
	pdu = response(SNMP_VERSION_2c, 0);
	snmp_pdu_add_variable(pdu, big, OID_LENGTH(big), ASN_NULL, NULL, 0);
	refused(pdu);
	pdu = response(SNMP_VERSION_2c, 0);
	snmp_pdu_add_variable(pdu, bad0, OID_LENGTH(bad0), ASN_NULL, NULL, 0);
	refused(pdu);
	pdu = response(SNMP_VERSION_2c, 0);
	snmp_pdu_add_variable(pdu, bad0 + 1, 1, ASN_NULL, NULL, 0);
	refused(pdu);
	pdu = response(SNMP_VERSION_2c, 0);
	snmp_pdu_add_variable(pdu, big, 2, ASN_OBJECT_ID, NULL, 0);
	refused(pdu);
	pdu = response(SNMP_VERSION_1, 0);
	snmp_pdu_add_variable(pdu, bad1, OID_LENGTH(bad1), ASN_NULL, NULL, 0);
	refused(pdu);
	pdu = response(SNMP_VERSION_2c, 2);
	pdu->variables->type = ASN_PRIV_RETRY;
	refused(pdu);
	pdu = response(SNMP_VERSION_2c, 0);
	snmp_pdu_add_variable(pdu, big, 2, ASN_INTEGER, &l, sizeof(l));
	pdu->variables->val_len = 4;
	refused(pdu);
	pdu = response(SNMP_VERSION_2c, 1);
	pdu->errstat = SNMP_DEFAULT_ERRSTAT;
	refused(pdu);
	pdu = response(SNMP_VERSION_2c, 1);
	pdu->command = SNMP_MSG_TRAP2;
	refused(pdu);
	pdu = response(SNMP_VERSION_3, 1);
	refused(pdu);
	pdu = response(SNMP_VERSION_2c, 1);
	free(pdu->community);
	pdu->community = NULL;
	pdu->community_len = 0;
	refused(pdu);
}

/* The session hook: the packet at the buffer's start, its length in
 * offset, net-snmp's octets. */
static void
test_hook(void **state)
{
	netsnmp_session s;
	netsnmp_pdu *pdu = response(SNMP_VERSION_2c, 30);
	size_t blen = SNMP_MIN_MAX_LEN, off = 0, tlen;
	u_char *b = malloc(blen), *t;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.s_snmp_errno = SNMPERR_BAD_ASN1_BUILD;
	assert_non_null(b);
	assert_int_equal(gw_snmp_rbuild(&s, pdu, &b, &blen, &off), 0);
	assert_int_equal(s.s_snmp_errno, 0);
	t = theirs(pdu, &tlen);
	assert_int_equal(off, tlen);
	assert_memory_equal(b, t, tlen);
	free(t);
	free(b);
	snmp_free_pdu(pdu);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_hook),
	};

	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
	    NETSNMP_DS_LIB_REVERSE_ENCODE, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
