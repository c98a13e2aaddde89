/* gw_mib: value helpers for getters (gw_val_*) and single-index row
 * enumeration. */
#include "config.h"

#include <string.h>

#include "gateway/mib.h"

/* Values */

int
gw_val_int(struct gw_val *v, long l)
{
	v->type = ASN_INTEGER;
	v->l = l;
	return 0;
}

int
gw_val_uint(struct gw_val *v, unsigned long ul)
{
	v->type = ASN_UNSIGNED;
	v->l = (long)(ul & 0xffffffffUL);
	return 0;
}

int
gw_val_counter(struct gw_val *v, unsigned long ul)
{
	v->type = ASN_COUNTER;
	v->l = (long)(ul & 0xffffffffUL);
	return 0;
}

int
gw_val_counter64(struct gw_val *v, uint64_t x)
{
	v->type = ASN_COUNTER64;
	v->c64.high = (u_long)(x >> 32);
	v->c64.low = (u_long)(x & 0xffffffff);
	return 0;
}

int
gw_val_truth(struct gw_val *v, int b)
{
	return gw_val_int(v, b ? 1 : 2);	/* TruthValue, RFC 2579 */
}

int
gw_val_octets(struct gw_val *v, const void *p, size_t len)
{
	v->type = ASN_OCTET_STR;
	if (len > sizeof(v->buf))
		len = sizeof(v->buf);
	memcpy(v->buf, p, len);
	v->len = len;
	return 0;
}

int
gw_val_guid(struct gw_val *v, uint64_t guid)
{
	/* IbGuid: 8 octets, network order. */
	v->type = ASN_OCTET_STR;
	for (int i = 0; i < 8; i++)
		v->buf[i] = guid >> (56 - 8 * i);
	v->len = 8;
	return 0;
}

int
gw_val_gauge(struct gw_val *v, uint64_t x)
{
	v->type = ASN_GAUGE;
	v->l = (long)(x > 0xffffffffULL ? 0xffffffffULL : x);
	return 0;
}

int
gw_val_oid(struct gw_val *v, const oid *o, size_t n)
{
	v->type = ASN_OBJECT_ID;
	v->len = n * sizeof(oid);
	if (v->len > sizeof(v->buf))
		v->len = 0;
	memcpy(v->buf, o, v->len);
	return 0;
}

/* Set v and check it against the MIB's range: GW_BAD (genErr) when the
 * fabric answered a value the object cannot hold. */
int
gw_val_uint_in(struct gw_val *v, unsigned long ul, unsigned long lo,
    unsigned long hi)
{
	gw_val_uint(v, ul);
	return ul >= lo && ul <= hi ? 0 : GW_BAD;
}

int
gw_val_int_in(struct gw_val *v, long l, long lo, long hi)
{
	gw_val_int(v, l);
	return l >= lo && l <= hi ? 0 : GW_BAD;
}

void
gw_val_set(netsnmp_request_info *r, const struct gw_val *v)
{
	if (v->type == ASN_OCTET_STR || v->type == ASN_OBJECT_ID)
		snmp_set_var_typed_value(r->requestvb, v->type, v->buf, v->len);
	else if (v->type == ASN_COUNTER64)
		snmp_set_var_typed_value(r->requestvb, v->type, &v->c64,
		    sizeof(v->c64));
	else
		snmp_set_var_typed_value(r->requestvb, v->type, &v->l,
		    sizeof(v->l));
}

/* Rows */

int
gw_row_range(const struct gw_row *lb, int inclusive, uint32_t lo, uint32_t hi,
    struct gw_row *out)
{
	uint64_t want = (uint64_t)lb->i[0] + (inclusive ? 0 : 1);

	if (want < lo)
		want = lo;
	if (want > hi)
		return 0;
	memset(out, 0, sizeof(*out));
	out->i[0] = (uint32_t)want;
	return 1;
}

