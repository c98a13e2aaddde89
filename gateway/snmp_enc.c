/* gw_snmp_encode: a v1/v2c Response encoded in one pass.
 *
 * net-snmp's reverse encoder checks the room left, and may grow the
 * buffer, for every octet it writes; a fabric row's name has 30
 * subidentifiers (IB-SM-MIB's 17-subid index), so a walk spends more in
 * encoding names than in finding rows. Here the message's size is
 * bounded first, then it is written backwards without checks.
 *
 * The octets are exactly net-snmp's (RFC 3416 section 3 in BER, X.690
 * 8.1-8.19, definite lengths in the fewest octets). Whatever it would
 * change or refuse -- a value it truncates to 32 bits, a name it
 * cannot encode, a special Opaque type, a defaulted error field -- is
 * left to it: the caller falls back to snmp_build(). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/snmp_int.h"

/* Tag and length octets at most (lengths fit in 4 octets). */
#define HDR	6
/* Varbinds kept on the stack; a longer response allocates. */
#define VB_LOCAL	128

static u_char *
put_len(u_char *p, size_t n)
{
	u_char *e = p;

	if (n < 0x80) {
		*--p = (u_char)n;
		return p;
	}
	do {
		*--p = (u_char)n;
		n >>= 8;
	} while (n != 0);
	p[-1] = (u_char)(0x80 | (e - p));
	return p - 1;
}

static u_char *
put_hdr(u_char *p, u_char tag, size_t n)
{
	p = put_len(p, n);
	*--p = tag;
	return p;
}

/* X.690 8.3: two's complement in the fewest octets. */
static u_char *
put_int(u_char *p, long v, u_char tag)
{
	u_char *e = p;
	long t = v < 0 ? -1 : 0;

	*--p = (u_char)v;
	for (v >>= 8; v != t; v >>= 8)
		*--p = (u_char)v;
	if ((*p & 0x80) != (t & 0x80))
		*--p = (u_char)t;
	return put_hdr(p, tag, (size_t)(e - p));
}

/* Counter32, Gauge32, TimeTicks, Counter64 (RFC 2578 7.1): unsigned,
 * so a leading zero when the top bit is set. */
static u_char *
put_uint(u_char *p, uint64_t v, u_char tag)
{
	u_char *e = p;

	do {
		*--p = (u_char)v;
		v >>= 8;
	} while (v != 0);
	if (*p & 0x80)
		*--p = 0;
	return put_hdr(p, tag, (size_t)(e - p));
}

/* X.690 8.19: base 128, the first two arcs as one. NULL for what
 * net-snmp refuses or truncates, and for names of fewer than two arcs,
 * which its versions encode differently (5.9.3 "0.0" for none). */
static u_char *
put_oid(u_char *p, const oid *o, size_t n, u_char tag)
{
	u_char *e = p;
	oid s;

	if (n < 2 || o[0] > 2 || (o[1] >= 40 && o[0] < 2) ||
	    o[1] > UINT32_MAX - o[0] * 40)
		return NULL;
	for (size_t i = n - 1; i >= 2; i--) {
		if ((s = o[i]) < 0x80) {
			*--p = (u_char)s;
			continue;
		}
		if (s > UINT32_MAX)
			return NULL;
		*--p = (u_char)(s & 0x7f);
		for (s >>= 7; s != 0; s >>= 7)
			*--p = (u_char)(s | 0x80);
	}
	s = o[0] * 40 + o[1];
	*--p = (u_char)(s & 0x7f);
	for (s >>= 7; s != 0; s >>= 7)
		*--p = (u_char)(s | 0x80);
	return put_hdr(p, tag, (size_t)(e - p));
}

static u_char *
put_value(u_char *p, const netsnmp_variable_list *v)
{
	const struct counter64 *c;
	u_long u;
	long i;

	switch (v->type) {
	case ASN_INTEGER:
		if (v->val_len != sizeof(long))
			return NULL;
		i = *v->val.integer;
		if (i > INT32_MAX || i < INT32_MIN)
			return NULL;
		return put_int(p, i, v->type);
	case ASN_COUNTER:
	case ASN_GAUGE:
	case ASN_TIMETICKS:
	case ASN_UINTEGER:
		if (v->val_len != sizeof(u_long))
			return NULL;
		if ((u = *(const u_long *)v->val.integer) > UINT32_MAX)
			return NULL;
		return put_uint(p, u, v->type);
	case ASN_COUNTER64:
		if (v->val_len != sizeof(struct counter64))
			return NULL;
		c = v->val.counter64;
		if (c->high > UINT32_MAX || c->low > UINT32_MAX)
			return NULL;
		return put_uint(p, (uint64_t)c->high << 32 | c->low, v->type);
	case ASN_OCTET_STR:
	case ASN_IPADDRESS:
	case ASN_OPAQUE:
	case ASN_NSAP:
		if (v->val_len > 0) {
			if (v->val.string == NULL)
				return NULL;
			p -= v->val_len;
			memcpy(p, v->val.string, v->val_len);
		}
		return put_hdr(p, v->type, v->val_len);
	case ASN_OBJECT_ID:
		return put_oid(p, v->val.objid, v->val_len / sizeof(oid),
		    v->type);
	case ASN_NULL:
	case SNMP_NOSUCHOBJECT:
	case SNMP_NOSUCHINSTANCE:
	case SNMP_ENDOFMIBVIEW:
		return put_hdr(p, v->type, 0);
	default:
		return NULL;	/* ASN_PRIV_RETRY and the like: net-snmp's say */
	}
}

/* VarBind ::= SEQUENCE { name, value } */
static u_char *
put_varbind(u_char *p, const netsnmp_variable_list *v)
{
	u_char *e = p;

	if ((p = put_value(p, v)) == NULL ||
	    (p = put_oid(p, v->name, v->name_length, ASN_OBJECT_ID)) == NULL)
		return NULL;
	return put_hdr(p, ASN_SEQUENCE | ASN_CONSTRUCTOR, (size_t)(e - p));
}

static int
fits_int32(long v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* The message, backwards from e. */
static u_char *
put_message(u_char *p, const netsnmp_pdu *pdu,
    netsnmp_variable_list *const *vb, size_t n)
{
	u_char *e = p;

	while (n > 0)
		if ((p = put_varbind(p, vb[--n])) == NULL)
			return NULL;
	p = put_hdr(p, ASN_SEQUENCE | ASN_CONSTRUCTOR, (size_t)(e - p));
	p = put_int(p, pdu->errindex, ASN_INTEGER);
	p = put_int(p, pdu->errstat, ASN_INTEGER);
	p = put_int(p, pdu->reqid, ASN_INTEGER);
	p = put_hdr(p, (u_char)pdu->command, (size_t)(e - p));
	p -= pdu->community_len;
	memcpy(p, pdu->community, pdu->community_len);
	p = put_hdr(p, ASN_OCTET_STR, pdu->community_len);
	p = put_int(p, pdu->version, ASN_INTEGER);
	return put_hdr(p, ASN_SEQUENCE | ASN_CONSTRUCTOR, (size_t)(e - p));
}

int
gw_snmp_encode(const netsnmp_pdu *pdu, u_char **pkt, size_t *pkt_len,
    size_t *len)
{
	netsnmp_variable_list *local[VB_LOCAL], **vb = local, **more;
	size_t n = 0, cap = VB_LOCAL, bound;
	u_char *p, *e;
	int rc = -1;

	if ((pdu->version != SNMP_VERSION_1 &&
	    pdu->version != SNMP_VERSION_2c) ||
	    pdu->command != SNMP_MSG_RESPONSE ||
	    pdu->community == NULL || pdu->community_len == 0 ||
	    !fits_int32(pdu->reqid) || pdu->errstat < 0 ||
	    pdu->errstat > INT32_MAX || pdu->errindex < 0 ||
	    pdu->errindex > INT32_MAX)
		return -1;
	bound = 12 * HDR + pdu->community_len;
	/* net-snmp ends a GETBULK cut short for size at ASN_PRIV_STOP. */
	for (netsnmp_variable_list *v = pdu->variables;
	    v != NULL && v->type != ASN_PRIV_STOP; v = v->next_variable) {
		if (n == cap) {
			more = realloc(vb == local ? NULL : vb,
			    2 * cap * sizeof(*vb));
			if (more == NULL)
				goto out;
			if (vb == local)
				memcpy(more, local, sizeof(local));
			vb = more;
			cap *= 2;
		}
		vb[n++] = v;
		/* name in 5 octets a subid at most, value in its own length
		 * (an OID value's 8-octet subids in 5) plus 16 */
		bound += 4 * HDR + 5 * v->name_length + v->val_len + 16;
	}
	if (*pkt_len < bound) {
		if ((p = realloc(*pkt, bound)) == NULL)
			goto out;
		*pkt = p;
		*pkt_len = bound;
	}
	e = *pkt + *pkt_len;
	if ((p = put_message(e, pdu, vb, n)) != NULL) {
		*len = (size_t)(e - p);
		memmove(*pkt, p, *len);
		rc = 0;
	}
out:
	if (vb != local)
		free(vb);
	return rc;
}
