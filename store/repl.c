/* store_repl: replication frames, HMAC-SHA256 (OpenSSL's libcrypto,
 * which net-snmp links already) and records. */
#include "config.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdlib.h>
#include <string.h>

#include "store/events.h"
#include "store/repl.h"

static const uint8_t magic[4] = { 'I', 'B', 'H', 'A' };
#define REPL_VERSION	1

static void
be_put(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t
be_get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static int
mac(const struct repl_auth *a, const uint8_t *hdr, const uint8_t *payload,
    size_t len, uint8_t out[REPL_MAC])
{
	static EVP_MAC *m;
	OSSL_PARAM params[2];
	EVP_MAC_CTX *h;
	size_t olen = 0;
	int ok;

	if (m == NULL && (m = EVP_MAC_fetch(NULL, "HMAC", NULL)) == NULL)
		return -1;
	if ((h = EVP_MAC_CTX_new(m)) == NULL)
		return -1;
	params[0] = OSSL_PARAM_construct_utf8_string("digest", "SHA256", 0);
	params[1] = OSSL_PARAM_construct_end();
	ok = EVP_MAC_init(h, a->key, a->keylen, params) &&
	    EVP_MAC_update(h, a->nonce, REPL_NONCE) &&
	    EVP_MAC_update(h, hdr, REPL_HDR) &&
	    (len == 0 || EVP_MAC_update(h, payload, len)) &&
	    EVP_MAC_final(h, out, &olen, REPL_MAC);
	EVP_MAC_CTX_free(h);
	return ok && olen == REPL_MAC ? 0 : -1;
}

int
store_repl_frame_put(struct repl_auth *a, uint8_t type, const void *payload,
    size_t len, uint8_t **buf, size_t *len_io, size_t *cap)
{
	size_t need = *len_io + REPL_HDR + len + REPL_MAC;
	uint8_t *f;

	if (len > REPL_MAX_PAYLOAD)
		return -1;
	if (need > *cap) {
		size_t c = *cap ? *cap : 4096;
		uint8_t *nb;

		while (c < need)
			c *= 2;
		if ((nb = realloc(*buf, c)) == NULL)
			return -1;
		*buf = nb;
		*cap = c;
	}
	f = *buf + *len_io;
	memset(f, 0, REPL_HDR);
	memcpy(f, magic, 4);
	f[4] = REPL_VERSION;
	f[5] = type;
	be_put(f + 8, len, 4);
	be_put(f + 12, type == REPL_HELLO ? 0 : a->seq, 8);
	if (len)
		memcpy(f + REPL_HDR, payload, len);
	if (mac(a, f, f + REPL_HDR, len, f + REPL_HDR + len) == -1)
		return -1;
	/* After a HELLO the frames count from 1, as the receiver does. */
	a->seq = type == REPL_HELLO ? 1 : a->seq + 1;
	*len_io = need;
	return 0;
}

long
store_repl_frame_get(struct repl_auth *a, const uint8_t *buf, size_t len,
    struct repl_frame *f, const char **why)
{
	uint8_t want[REPL_MAC];
	uint64_t plen, seq;

	if (len < REPL_HDR)
		return 0;
	if (memcmp(buf, magic, 4) != 0) {
		*why = "not a replication frame (bad magic)";
		return -1;
	}
	if (buf[4] != REPL_VERSION) {
		*why = "unsupported replication version";
		return -1;
	}
	if (buf[5] == 0 || buf[5] >= REPL_TYPE_MAX) {
		*why = "unknown frame type";
		return -1;
	}
	if ((plen = be_get(buf + 8, 4)) > REPL_MAX_PAYLOAD) {
		*why = "frame too long";
		return -1;
	}
	if (len < REPL_HDR + plen + REPL_MAC)
		return 0;
	if (mac(a, buf, buf + REPL_HDR, (size_t)plen, want) == -1 ||
	    CRYPTO_memcmp(want, buf + REPL_HDR + plen, REPL_MAC) != 0) {
		*why = "bad MAC (a wrong key, or a frame of another "
		    "connection)";
		return -1;
	}
	seq = be_get(buf + 12, 8);
	if (buf[5] == REPL_HELLO ? seq != 0 || a->seq != 0 : seq != a->seq ||
	    seq == 0) {
		*why = "out of sequence (a replayed, dropped or reordered "
		    "frame)";
		return -1;
	}
	if (buf[5] == REPL_HELLO)
		a->seq = 1;
	else
		a->seq++;
	f->type = buf[5];
	f->seq = seq;
	f->payload = buf + REPL_HDR;
	f->len = (size_t)plen;
	return (long)(REPL_HDR + plen + REPL_MAC);
}

/* ---- Records */

void
repl_putb(struct repl_w *w, const void *b, size_t n)
{
	if (w->over || w->n + n > w->cap) {
		w->over = 1;
		return;
	}
	memcpy(w->p + w->n, b, n);
	w->n += n;
}

static void
put_be(struct repl_w *w, uint64_t v, int n)
{
	uint8_t b[8];

	be_put(b, v, n);
	repl_putb(w, b, (size_t)n);
}

void repl_put8(struct repl_w *w, uint8_t v) { repl_putb(w, &v, 1); }
void repl_put16(struct repl_w *w, uint16_t v) { put_be(w, v, 2); }
void repl_put32(struct repl_w *w, uint32_t v) { put_be(w, v, 4); }
void repl_put64(struct repl_w *w, uint64_t v) { put_be(w, v, 8); }

void
repl_putsn(struct repl_w *w, const char *s, size_t max)
{
	size_t n = strnlen(s, max < 255 ? max : 255);

	repl_put8(w, (uint8_t)n);
	repl_putb(w, s, n);
}

void
repl_puts(struct repl_w *w, const char *s)
{
	repl_putsn(w, s, 255);
}

void
repl_getb(struct repl_r *r, void *b, size_t n)
{
	if (r->bad || r->off + n > r->n) {
		r->bad = 1;
		memset(b, 0, n);
		return;
	}
	memcpy(b, r->p + r->off, n);
	r->off += n;
}

static uint64_t
get_be(struct repl_r *r, int n)
{
	uint8_t b[8];

	repl_getb(r, b, (size_t)n);
	return be_get(b, n);
}

uint8_t repl_get8(struct repl_r *r) { return (uint8_t)get_be(r, 1); }
uint16_t repl_get16(struct repl_r *r) { return (uint16_t)get_be(r, 2); }
uint32_t repl_get32(struct repl_r *r) { return (uint32_t)get_be(r, 4); }
uint64_t repl_get64(struct repl_r *r) { return get_be(r, 8); }

void
repl_gets(struct repl_r *r, char *s, size_t size)
{
	size_t n = repl_get8(r);

	if (n >= size) {
		r->bad = 1;
		n = 0;
	}
	repl_getb(r, s, n);
	s[r->bad ? 0 : n] = '\0';
	if (strlen(s) != n && !r->bad)
		r->bad = 1;
}

void
store_repl_ctr_put(struct repl_w *w, const struct repl_ctr *c)
{
	repl_put64(w, c->guid);
	repl_put8(w, c->port);
	repl_put8(w, c->ctr);
	repl_put64(w, c->total);
	repl_put64(w, c->last);
}

int
store_repl_ctr_get(struct repl_r *r, struct repl_ctr *c)
{
	c->guid = repl_get64(r);
	c->port = repl_get8(r);
	c->ctr = repl_get8(r);
	c->total = repl_get64(r);
	c->last = repl_get64(r);
	return r->bad ? -1 : 0;
}

/* ---- Status */

static struct repl_status repl_st;

struct repl_status *
store_repl_status(void)
{
	return &repl_st;
}

const char *
store_repl_role_name(enum repl_role r)
{
	static const char *n[] = { "standalone", "active", "standby",
	    "fault" };

	return (unsigned)r < 4 ? n[r] : "?";
}

/* An event record (REPL_EVENT): the store_event's fields in order. */
void
store_repl_event_put(struct repl_w *w, const struct store_event *ev)
{
	repl_put64(w, ev->seq);
	repl_put64(w, (uint64_t)ev->when);
	repl_put8(w, ev->type);
	repl_put8(w, ev->source);
	repl_put8(w, ev->port);
	repl_put16(w, ev->lid);
	repl_put16(w, ev->trap);
	repl_put64(w, ev->node_guid);
	repl_put32(w, ev->suppressed);
	repl_putb(w, ev->data, sizeof(ev->data));
	repl_putsn(w, ev->text, sizeof(ev->text));
}

/* -1: short, long, or not an event the store would keep. */
int
store_repl_event_get(struct repl_r *r, struct store_event *ev)
{
	char t[256];

	memset(ev, 0, sizeof(*ev));
	ev->seq = repl_get64(r);
	ev->when = (int64_t)repl_get64(r);
	ev->type = repl_get8(r);
	ev->source = repl_get8(r);
	ev->port = repl_get8(r);
	ev->lid = repl_get16(r);
	ev->trap = repl_get16(r);
	ev->node_guid = repl_get64(r);
	ev->suppressed = repl_get32(r);
	repl_getb(r, ev->data, sizeof(ev->data));
	repl_gets(r, t, sizeof(t));
	memcpy(ev->text, t, sizeof(ev->text) - 1);
	if (r->bad || r->off != r->n || ev->seq == 0 || ev->type == 0 ||
	    ev->type >= STORE_EV_MAX)
		return -1;
	return 0;
}
