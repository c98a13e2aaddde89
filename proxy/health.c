/* proxy_health: hold-downs for silent nodes and M_Key verdicts. */
#include "config.h"

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
	unsigned	fails;
	uint64_t	hold_ms;
	uint64_t	until;
	uint64_t	seen;		/* ports whose PortInfo was read */
	uint64_t	mismatch;	/* ... showing a key other than ours */
	uint64_t	prot_lo, prot_hi;	/* MKeyProtectBits, 2 bits */
};

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

int
proxy_health_allow(uint32_t node, int can_probe)
{
	struct health *h = node < health_n ? &health[node] : NULL;

	if (h == NULL || h->state == HEALTH_OK)
		return 1;
	if (!can_probe || h->probing || ev_now() < h->until)
		return 0;
	h->probing = 1;		/* one request probes; the rest wait */
	return HEALTH_PROBE;
}

void
proxy_health_unsent(uint32_t node, int probe)
{
	if (probe && node < health_n)
		health[node].probing = 0;
}

void
proxy_health_answer(uint32_t node)
{
	struct health *h = node < health_n ? &health[node] : NULL;

	if (h == NULL || (h->state == HEALTH_OK && h->fails == 0))
		return;
	if (h->state != HEALTH_OK)
		log_notice("%s answers again after %s",
		    store_node_ident_idx(node),
		    h->state == HEALTH_BAD_MKEY ? "refusing our M_Key" :
		    "being silent");
	if (h->state != HEALTH_OK)
		proxy_verdict_silent(node, 0);	/* the port verdicts */
	h->state = HEALTH_OK;
	h->fails = 0;
	h->probing = 0;
	h->hold_ms = 0;
}

void
proxy_health_silent(uint32_t node, int probe)
{
	struct health *h = get(node);
	uint64_t now = ev_now(), max;
	int bad_mkey;

	if (h == NULL || health_hold_ms == 0)
		return;
	if (h->state != HEALTH_OK && !probe)
		return;		/* sent before the hold: stale */
	h->probing = 0;
	if (h->state == HEALTH_OK && ++h->fails < HEALTH_FAILS)
		return;
	/* At protection level 3 an SMA drops what carries a wrong key. */
	bad_mkey = h->mismatch != 0 || ((h->prot_lo & h->prot_hi) != 0 &&
	    proxy_mad_mkey_is(0));
	if (h->state == HEALTH_OK) {
		h->hold_ms = health_hold_ms;
		log_warnx("%s: %u requests in a row unanswered%s; requests "
		    "for it fail at once for %llu s, then one probes",
		    store_node_ident_idx(node), h->fails,
		    bad_mkey ? ": it protects its M_Key and ours is not its "
		    "key (fix ib.mkey-file and reload)" : "",
		    (unsigned long long)(h->hold_ms / 1000));
	} else {
		max = health_hold_ms > HEALTH_MAX_HOLD_MS ? health_hold_ms :
		    HEALTH_MAX_HOLD_MS;
		if ((h->hold_ms *= 2) > max)
			h->hold_ms = max;
		/* Silent through a hold-down and its probe: not a route
		 * that moved under a request, a node that does not answer
		 * (the port verdicts). */
		proxy_verdict_silent(node, 1);
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
	hi->hold_ms = h->hold_ms;
	hi->until = h->until;
	hi->mkey_prot = max_prot(h);
	hi->mkey_mismatch = h->mismatch != 0;
}

void
proxy_health_set_hold(int hold_s)
{
	health_hold_ms = (uint64_t)(hold_s > 0 ? hold_s : 0) * 1000;
	if (health_hold_ms == 0)
		for (size_t i = 0; i < health_n; i++) {
			if (health[i].state != HEALTH_OK)
				proxy_verdict_silent((uint32_t)i, 0);
			health[i].state = HEALTH_OK;
			health[i].fails = 0;
			health[i].probing = 0;
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
