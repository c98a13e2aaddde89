/* proxy_health: hold-downs for silent nodes and M_Key verdicts. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/health.h"
#include "proxy/mad.h"
#include "proxy/verdict.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"

/* M_Key verdicts are per port (a CA port has its own M_Key; a switch's
 * is port 0's), bit p for port p; ports past 63 share bit 63. */
#define PORT_BIT(p)	(1ULL << ((p) < 64 ? (p) : 63))

struct health {
	uint8_t		state;		/* enum proxy_health_state */
	uint8_t		probing;	/* the one request let through */
	uint8_t		run;		/* ways of the silent run */
	uint8_t		held;		/* ways held (HEALTH_WAY_BIT) */
	uint8_t		scouting;	/* other ways, a scout out */
	uint8_t		good;		/* ways answering, since the hold */
	uint8_t		fails;		/* up to HEALTH_FAILS */
	uint16_t	way_fails;	/* 2 bits a way: wf_get() */
	uint32_t	hold_ms;
	uint64_t	until;
	uint64_t	seen;		/* ports whose PortInfo was read */
	uint64_t	mismatch;	/* ... showing a key other than ours */
	uint64_t	prot_lo, prot_hi;	/* MKeyProtectBits, 2 bits */
};

/* One array entry a node index: kept at its old 56 octets. */
_Static_assert(HEALTH_FAILS <= 3, "a way's count fits 2 bits");
_Static_assert(sizeof(struct health) <= 56, "struct health grew");

static struct health	*health;
static size_t		 health_n;
static uint64_t		 health_hold_ms;

static struct health *
get(uint32_t node)
{
	if (node >= health_n) {
		size_t n = health_n ? health_n : 64;
		struct health *h;

		while (n <= node)
			n *= 2;
		if ((h = realloc(health, n * sizeof(*h))) == NULL) {
			log_warn("health");
			return NULL;
		}
		memset(h + health_n, 0, (n - health_n) * sizeof(*h));
		health = h;
		health_n = n;
	}
	return &health[node];
}

const char *
proxy_health_name(enum proxy_health_state s)
{
	switch (s) {
	case HEALTH_OK:		return "ok";
	case HEALTH_SILENT:	return "silent";
	case HEALTH_BAD_MKEY:	return "bad-mkey";
	}
	return "?";
}

static unsigned
wf_get(const struct health *h, unsigned way)
{
	return (h->way_fails >> (2 * (way & 7))) & 3;
}

static void
wf_set(struct health *h, unsigned way, unsigned v)
{
	unsigned sh = 2 * (way & 7);

	if (v > 3)
		v = 3;
	h->way_fails = (uint16_t)((h->way_fails & ~(3U << sh)) | (v << sh));
}

static uint8_t
way_bit(unsigned way)
{
	return way == HEALTH_ALL_WAYS ? 0xff : (uint8_t)HEALTH_WAY_BIT(way & 7);
}

static const char *
way_name(unsigned way, char *buf, size_t len)
{
	unsigned port = way & 3;

	if (port)
		snprintf(buf, len, "%s to port %u%s", way & HEALTH_WAY_LID ?
		    "LID" : "directed route", port, port == 3 ? "+" : "");
	else
		snprintf(buf, len, "%s", way & HEALTH_WAY_LID ? "LID" :
		    "directed route");
	return buf;
}

const char *
proxy_health_ways_name(unsigned mask, char *buf, size_t len)
{
	char one[32];
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned w = 0; w < 8 && off < len; w++)
		if (mask & HEALTH_WAY_BIT(w))
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
			    off ? " and " : "",
			    way_name(w, one, sizeof(one)));
	return buf;
}

int
proxy_health_allow(uint32_t node, unsigned way, int can_probe)
{
	struct health *h = node < health_n ? &health[node] : NULL;
	uint8_t bit = way_bit(way);

	if (h == NULL || h->state == HEALTH_OK || (h->good & bit))
		return 1;
	if (!can_probe)
		return 0;
	if ((h->held & bit) == 0) {
		/* A way the silent requests did not go: one request finds
		 * out whether it works. */
		if (h->scouting & bit)
			return 0;
		h->scouting |= bit;
		return HEALTH_SCOUT;
	}
	if (h->probing || ev_now() < h->until)
		return 0;
	h->probing = 1;		/* one request probes; the rest wait */
	return HEALTH_PROBE;
}

void
proxy_health_unsent(uint32_t node, unsigned way, int token)
{
	if (node >= health_n)
		return;
	if (token == HEALTH_PROBE)
		health[node].probing = 0;
	else if (token == HEALTH_SCOUT)
		health[node].scouting &= (uint8_t)~way_bit(way);
}

void
proxy_health_answer(uint32_t node, unsigned way)
{
	struct health *h = node < health_n ? &health[node] : NULL;
	uint8_t bit = way_bit(way);
	char buf[192];

	if (h == NULL)
		return;
	/* Every answer comes here: a node that is well costs two tests. */
	if (h->state == HEALTH_OK) {
		if (way == HEALTH_ALL_WAYS)
			h->way_fails = 0;
		else {
			if (h->way_fails)
				wf_set(h, way, 0);
			if ((h->good & bit) == 0)
				h->good |= bit;	/* answering since the hold */
		}
		if (h->fails != 0)
			h->fails = h->run = 0;
		return;
	}
	if (way != HEALTH_ALL_WAYS && (h->held & bit) == 0) {
		/* A scout, or a way that answers: the held ways stay held
		 * until their probe, but the node answers (the port
		 * verdicts). */
		if (h->way_fails)
			wf_set(h, way, 0);
		if ((h->good & bit) == 0) {
			log_info("%s answers by %s; by %s it stays on hold",
			    store_node_ident_idx(node), way_name(way, buf, 32),
			    proxy_health_ways_name(h->held, buf + 32,
			    sizeof(buf) - 32));
			if (h->good == 0)
				proxy_verdict_silent(node, 0);
		}
		h->good |= bit;
		h->scouting &= (uint8_t)~bit;
		return;
	}
	log_notice("%s answers again after %s", store_node_ident_idx(node),
	    h->state == HEALTH_BAD_MKEY ? "refusing our M_Key" :
	    "being silent");
	proxy_verdict_silent(node, 0);	/* the port verdicts */
	h->state = HEALTH_OK;
	h->fails = 0;
	h->probing = 0;
	h->hold_ms = 0;
	h->run = h->held = h->scouting = h->good = 0;
	h->way_fails = 0;
}

/* A way that answered during the hold is silent: HEALTH_FAILS in a row
 * and it is held too (the node may have died after the hold began). */
static void
good_silent(uint32_t node, struct health *h, unsigned way)
{
	uint8_t bit = way_bit(way);
	unsigned wf = wf_get(h, way) + 1;
	char buf[32];

	wf_set(h, way, wf);
	if (wf < HEALTH_FAILS)
		return;
	h->good &= (uint8_t)~bit;
	h->held |= bit;
	log_info("%s: %u requests in a row by %s unanswered; held by it as "
	    "well", store_node_ident_idx(node), wf,
	    way_name(way, buf, sizeof(buf)));
}

/* A scout was silent: its way is held too. */
static void
scout_silent(uint32_t node, struct health *h, unsigned way)
{
	uint8_t bit = way_bit(way);
	char buf[32];

	if ((h->held & bit) == 0)
		log_info("%s: silent by %s too; held by it as well",
		    store_node_ident_idx(node),
		    way_name(way, buf, sizeof(buf)));
	h->held |= bit;
}

void
proxy_health_silent(uint32_t node, unsigned way, int token)
{
	struct health *h = get(node);
	uint64_t now = ev_now(), max;
	char buf[192], one[32];
	int bad_mkey, lone = 0;
	uint8_t ways;

	if (h == NULL || health_hold_ms == 0)
		return;
	/* A probe or a scout of an earlier hold, which an answer (a
	 * sweep) ended while it was out: sent before this hold, so stale
	 * like any other request. This hold's own probe goes only after its
	 * hold-down, long after that one's silence. */
	if (h->state != HEALTH_OK && ((token == HEALTH_PROBE && !h->probing) ||
	    (token == HEALTH_SCOUT && way != HEALTH_ALL_WAYS &&
	    !(h->scouting & way_bit(way)))))
		token = 0;
	if (h->state != HEALTH_OK && token != HEALTH_PROBE) {
		if (way == HEALTH_ALL_WAYS)
			return;
		if (token == HEALTH_SCOUT)
			h->scouting &= (uint8_t)~way_bit(way);
		if (h->good & way_bit(way))
			good_silent(node, h, way);
		else if (token == HEALTH_SCOUT)
			scout_silent(node, h, way);
		/* else sent before the hold: stale */
		return;
	}
	h->probing = 0;
	if (h->state == HEALTH_OK) {
		unsigned wf = wf_get(h, way) + 1;

		h->run |= way_bit(way);
		wf_set(h, way, wf);
		if (++h->fails < HEALTH_FAILS && wf < HEALTH_FAILS)
			return;
		/* One way silent while others answer in between: a link
		 * on that way is down, the node is not. */
		lone = h->fails < HEALTH_FAILS;
	}
	ways = lone ? way_bit(way) : h->state == HEALTH_OK ? h->run : h->held;
	/* At protection level 3 an SMA drops what carries a wrong key;
	 * PerfMgt MADs carry none. */
	bad_mkey = (ways & 0x0f) != 0 && (h->mismatch != 0 ||
	    ((h->prot_lo & h->prot_hi) != 0 && proxy_mad_mkey_is(0)));
	if (h->state != HEALTH_OK) {
		max = health_hold_ms > HEALTH_MAX_HOLD_MS ? health_hold_ms :
		    HEALTH_MAX_HOLD_MS;
		h->hold_ms = (uint32_t)(2ULL * h->hold_ms > max ? max :
		    2ULL * h->hold_ms);
		/* Silent through a hold-down and its probe, and by every
		 * way tried: not a route that moved under a request, a node
		 * that does not answer (the port verdicts). */
		if (h->good == 0)
			proxy_verdict_silent(node, 1);
	} else {
		h->hold_ms = (uint32_t)health_hold_ms;
		h->held = ways;
		/* Alone: the ways that answered go on, no scout needed.
		 * Silent by every way tried: each other way scouts. */
		h->good = lone ? (uint8_t)(h->good & ~ways) : 0;
		if (lone)
			log_warnx("%s: %u requests in a row by %s unanswered "
			    "while other ways answer (%s)%s; requests by it "
			    "fail at once for %llu s, then one probes",
			    store_node_ident_idx(node), wf_get(h, way),
			    way_name(way, one, sizeof(one)),
			    proxy_health_ways_name(h->good, buf, sizeof(buf)),
			    bad_mkey ? ": it protects its M_Key and ours is "
			    "not its key (fix ib.mkey-file and reload)" : "",
			    (unsigned long long)(h->hold_ms / 1000));
		else
			log_warnx("%s: %u requests in a row unanswered%s; "
			    "requests for it fail at once for %llu s, then one "
			    "probes (by %s; other ways are tried once)",
			    store_node_ident_idx(node), h->fails, bad_mkey ?
			    ": it protects its M_Key and ours is not its key "
			    "(fix ib.mkey-file and reload)" : "",
			    (unsigned long long)(h->hold_ms / 1000),
			    proxy_health_ways_name(ways, buf, sizeof(buf)));
	}
	h->state = bad_mkey ? HEALTH_BAD_MKEY : HEALTH_SILENT;
	h->until = now + h->hold_ms;
}

/* The highest MKeyProtectBits seen on any port, or -1. */
static int
max_prot(const struct health *h)
{
	if (h->seen == 0)
		return -1;
	if (h->prot_hi & h->prot_lo)
		return 3;
	return h->prot_hi ? 2 : h->prot_lo ? 1 : 0;
}

/* IBA 14.2.4.1: with MKeyProtectBits > 0 the SMA returns PortInfo:M_Key
 * only when the requester's key matches (zero otherwise). */
void
proxy_health_portinfo(uint32_t node, uint8_t port,
    const struct smp_portinfo *pi)
{
	const struct store_node *n = store_node_at(node);
	struct health *h = get(node);
	uint64_t bit = PORT_BIT(port);
	int mismatch, was;

	/* On a switch M_Key and MKeyProtectBits are port 0's (IBA
	 * 14.2.5.6). */
	if (h == NULL || n == NULL || (n->type == STORE_NODE_SWITCH &&
	    port != 0))
		return;
	mismatch = pi->mkey_prot != 0 && !proxy_mad_mkey_is(pi->mkey);
	was = h->mismatch != 0;
	h->seen |= bit;
	h->prot_lo = (pi->mkey_prot & 1) ? h->prot_lo | bit : h->prot_lo & ~bit;
	h->prot_hi = (pi->mkey_prot & 2) ? h->prot_hi | bit : h->prot_hi & ~bit;
	h->mismatch = mismatch ? h->mismatch | bit : h->mismatch & ~bit;
	if (mismatch && !was)
		log_warnx("%s port %u: protects its M_Key (MKeyProtectBits "
		    "%u) and ours does not match it; %s",
		    store_node_ident_idx(node), port, pi->mkey_prot,
		    pi->mkey_prot == 3 ? "it will drop our SMPs" :
		    "reads still work, SMPs will be dropped if the SM raises "
		    "the protection to 3");
	else if (was && h->mismatch == 0)
		log_notice("%s: our M_Key matches it again",
		    store_node_ident_idx(node));
}

void
proxy_health_reset(void)
{
	for (size_t i = 0; i < health_n; i++) {
		if (health[i].state != HEALTH_OK)
			proxy_verdict_silent((uint32_t)i, 0);
		memset(&health[i], 0, sizeof(health[i]));
	}
}

void
proxy_health_get(uint32_t node, struct proxy_health_info *hi)
{
	const struct health *h = node < health_n ? &health[node] : NULL;

	memset(hi, 0, sizeof(*hi));
	hi->mkey_prot = -1;
	if (h == NULL)
		return;
	hi->state = h->state;
	hi->fails = h->fails;
	hi->held = h->held;
	hi->good = h->good;
	hi->hold_ms = h->hold_ms;
	hi->until = h->until;
	hi->mkey_prot = max_prot(h);
	hi->mkey_mismatch = h->mismatch != 0;
}

void
proxy_health_set_hold(int hold_s)
{
	health_hold_ms = (uint64_t)(hold_s > 0 ? hold_s : 0) * 1000;
	if (health_hold_ms > UINT32_MAX)	/* 49 days: held for good */
		health_hold_ms = UINT32_MAX;
	if (health_hold_ms == 0)
		for (size_t i = 0; i < health_n; i++) {
			if (health[i].state != HEALTH_OK)
				proxy_verdict_silent((uint32_t)i, 0);
			health[i].state = HEALTH_OK;
			health[i].fails = 0;
			health[i].probing = 0;
			health[i].run = health[i].held = 0;
			health[i].scouting = health[i].good = 0;
			health[i].way_fails = 0;
		}
}

int
proxy_health_init(int hold_s)
{
	proxy_health_set_hold(hold_s);
	return 0;
}

void
proxy_health_finalise(void)
{
	free(health);
	health = NULL;
	health_n = 0;
}
