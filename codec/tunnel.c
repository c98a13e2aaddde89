/* codec/tunnel: IB SNMP Tunneling framing (docs/tunneling.md). Pure
 * functions on MAD buffers: no I/O, no allocation. */
#include "config.h"

#include <string.h>

#include "codec/tunnel.h"

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void
put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* The common MAD header (IBA 13.4.3 Table 92). */
static void
header(uint8_t *mad, uint8_t method, uint16_t attr, uint64_t tid)
{
	mad[0] = 1;				/* BaseVersion */
	mad[1] = TUN_MGMT_CLASS;
	mad[2] = TUN_CLASS_VERSION;
	mad[3] = method;
	put64(mad + 8, tid);
	put16(mad + 16, attr);
}

int
tun_encode(uint8_t (*mads)[TUN_MAD_SIZE], size_t nmads, const uint8_t *pdu,
    size_t len, size_t seg, uint32_t raddr, uint16_t slid, uint64_t tid)
{
	size_t n;

	if (seg == 0 || seg > TUN_SEG_DATA || len == 0)
		return -1;
	n = (len + seg - 1) / seg;
	if (n > TUN_SEG_MAX || n > nmads)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint8_t *m = mads[i];
		size_t off = i * seg;
		size_t take = len - off < seg ? len - off : seg;

		memset(m, 0, TUN_MAD_SIZE);
		header(m, TUN_METHOD_SEND, TUN_ATTR_PDU, tid + i);
		put32(m + 56, raddr);
		m[60] = (uint8_t)take;
		m[61] = (uint8_t)((i + 1) | (i + 1 == n ? TUN_SEG_LAST : 0));
		put16(m + 62, slid);
		memcpy(m + TUN_DATA_OFFS, pdu + off, take);
	}
	return (int)n;
}

int
tun_decode(const uint8_t *mad, size_t len, struct tun_seg *s)
{
	uint8_t num;

	if (len < TUN_MAD_SIZE || mad[1] != TUN_MGMT_CLASS ||
	    mad[2] != TUN_CLASS_VERSION || mad[3] != TUN_METHOD_SEND ||
	    get16(mad + 16) != TUN_ATTR_PDU)
		return -1;
	num = mad[61] & ~TUN_SEG_LAST;
	if (mad[60] == 0 || mad[60] > TUN_SEG_DATA || num == 0 ||
	    num > TUN_SEG_MAX)
		return -1;
	s->tid = (uint64_t)get32(mad + 8) << 32 | get32(mad + 12);
	s->raddr = get32(mad + 56);
	s->len = mad[60];
	s->num = num;
	s->last = (mad[61] & TUN_SEG_LAST) != 0;
	s->slid = get16(mad + 62);
	s->data = mad + TUN_DATA_OFFS;
	return 0;
}

void
tun_reasm_reset(struct tun_reasm *r)
{
	r->next = 0;
	r->len = 0;
	r->raddr = 0;
	r->slid = 0;
}

int
tun_reasm_busy(const struct tun_reasm *r)
{
	return r->next != 0;
}

int
tun_reasm_add(struct tun_reasm *r, const struct tun_seg *s)
{
	if (s->num == 1) {
		r->raddr = s->raddr;
		r->slid = s->slid;
		r->len = 0;
		r->next = 1;
	}
	if (r->next == 0 || s->num != r->next || s->raddr != r->raddr ||
	    s->slid != r->slid || r->len + s->len > TUN_PDU_MAX) {
		tun_reasm_reset(r);
		return TUN_BAD;
	}
	memcpy(r->buf + r->len, s->data, s->len);
	r->len += s->len;
	if (s->last) {
		r->next = 0;
		return TUN_DONE;
	}
	if (r->next == TUN_SEG_MAX) {	/* 127 and no end */
		tun_reasm_reset(r);
		return TUN_BAD;
	}
	r->next++;
	return TUN_MORE;
}

void
tun_encode_cpi_get(uint8_t *mad, uint64_t tid)
{
	memset(mad, 0, TUN_MAD_SIZE);
	header(mad, TUN_METHOD_GET, TUN_ATTR_CLASS_PORT_INFO, tid);
}

/* ClassPortInfo (IBA 13.4.8.1 Table 104): BaseVersion, ClassVersion,
 * CapabilityMask (2), CapabilityMask2/RespTimeValue (4) at the data. */
int
tun_encode_cpi_resp(uint8_t *mad, const uint8_t *req, uint16_t cap,
    uint8_t resp_time)
{
	memset(mad, 0, TUN_MAD_SIZE);
	memcpy(mad, req, 24);
	mad[3] = TUN_METHOD_GET_RESP;
	mad[4] = mad[5] = 0;			/* status */
	mad[TUN_DATA_OFFS] = 1;
	mad[TUN_DATA_OFFS + 1] = TUN_CLASS_VERSION;
	mad[TUN_DATA_OFFS + 2] = (uint8_t)(cap >> 8);
	mad[TUN_DATA_OFFS + 3] = (uint8_t)cap;
	mad[TUN_DATA_OFFS + 7] = resp_time & 0x1f;
	return 0;
}

uint16_t
tun_cpi_cap(const uint8_t *mad)
{
	return (uint16_t)(mad[TUN_DATA_OFFS + 2] << 8 | mad[TUN_DATA_OFFS + 3]);
}
