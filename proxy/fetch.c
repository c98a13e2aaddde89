/* proxy_fetch: cache misses become SMPs or PerfMgt MADs. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "codec/attr.h"
#include "codec/perf.h"
#include "codec/smp.h"
#include "proxy/fetch.h"
#include "proxy/health.h"
#include "proxy/mad.h"
#include "store/counters.h"
#include "store/store.h"
#include "util/log.h"

struct fetch {
	struct cache_key	key;
	const struct cache_key	*entry;		/* the cache's, until complete */
	uint16_t		offs, len;	/* the attribute in the MAD */
	uint8_t			probe;		/* proxy_health_allow()'s token */
	uint8_t			way;		/* HEALTH_WAY() it went */
	uint8_t			confirming;	/* an optional attribute asked
						 * again, PortCounters answered */
};

static int	fetch_submit(struct store_node *, const struct fetch *);

/* An optional attribute's bit in the inventory's per-node set (its
 * catalogue row), 0 for one every node answers. An "unsupported"
 * answer sets it, so neither the poller nor a walk asks again. */
static unsigned
optional_flag(const struct cache_key *k)
{
	const struct attr_def *a = attr_find(k->mclass, k->attr);

	return a ? a->unsup : 0;
}

/* Optional attributes a live node may leave unanswered: their silence
 * is not the node's (proxy/health.h), and they cannot probe a held
 * node. */
static int
may_drop(const struct cache_key *k)
{
	return optional_flag(k) != 0;
}

/* A PMA that ignores PortSelect answers for the port the MAD came in
 * through (IBA 16.1.3.5 leaves other ports optional): counts for
 * another port than asked are a refusal, never this port's counts. */
static int
perf_wrong_port(const struct fetch *f, const uint8_t *mad)
{
	return f->key.mclass == ATTR_CLASS_PERF &&
	    f->key.attr != PERF_ATTR_CLASS_PORT_INFO &&
	    mad[f->offs + 1] != (uint8_t)f->key.mod;
}

/* What a request's outcome says of its node (proxy/health.h). */
static void
health_outcome(const struct cache_key *k, unsigned way, int status,
    const uint8_t *mad, int token)
{
	if (status == 0 || status == -EPROTO || (status == -EIO && mad))
		proxy_health_answer(k->node, way);	/* it answered */
	else if (status == -ETIMEDOUT && !may_drop(k))
		proxy_health_silent(k->node, way, token);
	else
		proxy_health_unsent(k->node, way, token);
}

/* An optional PerfMgt attribute timed out. Some PMAs drop what they do
 * not implement (ibsim too) rather than answer "unsupported"; but the
 * way to the port may also have broken under the request (a link-down,
 * the SM's routes not yet moved), and the inventory keeps a verdict.
 * So its entry stays pending while the port's PortCounters (mandatory,
 * IBA 16.1.3.5) is read afresh, not joined to a read sent before the
 * timeout, and, if that is answered, the attribute is asked once more:
 * silent again, the PMA lacks it. The confirmation carries a copy of
 * the fetch, entry and all. */
static void
confirm_end(struct fetch *c, int status)
{
	cache_complete_fetched(c->entry, &c->key, status, NULL, 0);
	free(c);
}

static void
confirm_pc_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct fetch *c = arg;
	struct cache_key pc = c->key;
	struct store_node *n;

	pc.attr = PERF_ATTR_PORT_COUNTERS;	/* its silence is the node's */
	health_outcome(&pc, c->way, status, mad, 0);
	if (status == 0 && !perf_wrong_port(c, mad))
		counters_feed(pc.node, (uint8_t)pc.mod, pc.attr,
		    mad + c->offs, c->len);
	if (status != 0 || (n = store_node_at(pc.node)) == NULL) {
		confirm_end(c, -ETIMEDOUT);	/* the PMA, or the way */
		return;
	}
	c->confirming = 1;
	c->probe = 0;
	if (fetch_submit(n, c) == -1) {
		confirm_end(c, -ETIMEDOUT);
		return;
	}
	free(c);		/* the request carries its own copy */
}

/* 0: the confirmation carries the entry on; -1: it could not start. */
static int
confirm_pma(const struct fetch *f)
{
	const struct store_node *n = store_node_at(f->key.node);
	struct fetch *c;

	if (n == NULL || (c = malloc(sizeof(*c))) == NULL)
		return -1;
	*c = *f;
	if (proxy_perf_send(n, (uint8_t)f->key.mod, SMP_METHOD_GET,
	    PERF_ATTR_PORT_COUNTERS, 0, confirm_pc_cb, c) == -1) {
		free(c);
		return -1;
	}
	return 0;
}

static void
confirmed_missing(const struct fetch *f)
{
	log_info("fetch: %s port %u: the PMA answers PortCounters but twice "
	    "not attribute 0x%04x: taken as unsupported",
	    store_node_ident_idx(f->key.node), f->key.mod, f->key.attr);
	store_node_set_unsupported(f->key.node, optional_flag(&f->key));
}

static void
fetch_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct fetch *f = arg;

	health_outcome(&f->key, f->way, status, mad, f->probe);
	/* The waiters hear of an optional attribute's timeout only with
	 * the verdict on it. */
	if (status == -ETIMEDOUT && optional_flag(&f->key) &&
	    f->key.mclass == ATTR_CLASS_PERF) {
		if (f->confirming) {
			confirmed_missing(f);
			cache_complete_fetched(f->entry, &f->key, -EOPNOTSUPP,
			    NULL, 0);
			return;
		}
		if (confirm_pma(f) == 0)
			return;
	}
	if (status == 0 && perf_wrong_port(f, mad)) {
		log_debug("fetch: %s: the PMA answered port %u for port %u",
		    store_node_ident_idx(f->key.node), mad[f->offs + 1],
		    f->key.mod);
		status = -EINVAL;
		mad = NULL;
	}
	if (status == 0) {
		const uint8_t *d = mad + f->offs;
		/* Every answer that carries counters or a port state feeds
		 * the accumulators, whoever asked for it. */
		if (f->key.mclass == ATTR_CLASS_PERF &&
		    f->key.attr != PERF_ATTR_CLASS_PORT_INFO)
			counters_feed(f->key.node, (uint8_t)f->key.mod,
			    f->key.attr, d, f->len);
		else if (f->key.mclass == ATTR_CLASS_PERF)
			/* Which counters PortCountersExtended carries. */
			counters_pma_caps(f->key.node,
			    perf_cpi_capmask2(d, f->len));
		else if (f->key.attr == SMP_ATTR_PORT_INFO &&
		    f->key.mod <= 254) {
			struct smp_portinfo pi;
			if (smp_decode_portinfo(d, f->len, &pi) == 0) {
				counters_port_state(f->key.node,
				    (uint8_t)f->key.mod, pi.state);
				proxy_health_portinfo(f->key.node,
				    (uint8_t)f->key.mod, &pi);
			}
		}
		cache_complete_fetched(f->entry, &f->key, 0, d, f->len);
	} else {
		if (status == -EIO && mad != NULL) {
			int st = proxy_mad_status(mad);
			log_debug("fetch: %s attribute 0x%04x/0x%x: MAD "
			    "status 0x%04x", store_node_ident_idx(f->key.node),
			    f->key.attr, f->key.mod, st);
			/* IBA 13.4.7 Table 119, bits 4:2: 2 method and 3
			 * method/attribute unsupported; 7 bad field. */
			switch ((st >> 2) & 7) {
			case 2:
			case 3:
				status = -EOPNOTSUPP;
				if (optional_flag(&f->key))
					store_node_set_unsupported(f->key.node,
					    optional_flag(&f->key));
				break;
			case 7:
				status = -EINVAL;
				break;
			}
		}
		cache_complete_fetched(f->entry, &f->key, status, NULL,
		    0);
	}
}

/* Where to send an SMP for this node: a CA or router answers port
 * attributes (PortInfo, GUIDInfo, P_KeyTable, SL-to-VL, VL arbitration)
 * for the port the SMP arrives through, so key->port selects that port's
 * own route. */
static const struct store_path *
route_for(const struct store_node *n, const struct cache_key *key)
{
	if (n->type != STORE_NODE_SWITCH && key->port >= 1 &&
	    key->port <= n->num_ports &&
	    n->ports[key->port].route.hop[0] != 0xff)
		return &n->ports[key->port].route;
	return &n->route;
}

/* The CA port whose own LID a PerfMgt MAD for port goes to; 0: the
 * node's LID. */
static uint8_t
perf_lid_port(const struct store_node *n, uint8_t port)
{
	return n->type != STORE_NODE_SWITCH && port >= 1 &&
	    port <= n->num_ports && n->ports[port].lid ? port : 0;
}

/* The way a request goes (proxy/health.h), as fetch_submit sends it. */
static unsigned
way_of(const struct store_node *n, const struct cache_key *key)
{
	if (key->mclass == ATTR_CLASS_SMI_DR)
		return HEALTH_WAY(0, route_for(n, key) == &n->route ? 0 :
		    key->port);
	return HEALTH_WAY(1, perf_lid_port(n, (uint8_t)key->mod));
}

/* A PerfMgt MAD's arguments (IBA 16.1.3.5: PortSelect and
 * CounterSelect in sel, which must live until the submit); -1 while the
 * node has no LID (no PerfMgt yet). */
static int
perf_args(const struct store_node *n, uint8_t port, uint8_t method,
    uint16_t attr, uint16_t counter_select, struct proxy_mad_args *a,
    uint8_t sel[4])
{
	uint8_t lport = perf_lid_port(n, port);
	uint16_t lid = lport ? n->ports[lport].lid : n->lid;

	if (lid == 0 || lid >= 0xc000)
		return -1;
	memset(a, 0, sizeof(*a));
	a->node_key = n->guid;
	a->target.lid = lid;
	a->mgmt_class = ATTR_CLASS_PERF;
	a->method = method;
	a->attr_id = attr;
	if (attr != PERF_ATTR_CLASS_PORT_INFO) {
		/* PortSelect at octet 1, CounterSelect at 2-3, in every
		 * counter attribute (IBA 16.1.3.5, 16.1.4). */
		sel[0] = 0;
		sel[1] = port;
		sel[2] = (uint8_t)(counter_select >> 8);
		sel[3] = (uint8_t)counter_select;
		a->data = sel;
		a->data_len = 4;
	}
	return 0;
}

int
proxy_perf_send(const struct store_node *n, uint8_t port, uint8_t method,
    uint16_t attr, uint16_t counter_select, proxy_mad_cb cb, void *arg)
{
	struct proxy_mad_args a;
	uint8_t sel[4];

	if (!proxy_health_allow(n->idx, HEALTH_WAY(1, perf_lid_port(n, port)),
	    0) ||
	    perf_args(n, port, method, attr, counter_select, &a, sel) == -1)
		return -1;
	return proxy_mad_submit(&a, cb, arg);
}

/* The fetch's state travels in the request (proxy_mad_args.ctx). */
_Static_assert(sizeof(struct fetch) <= PROXY_MAD_CTX, "fetch in a MAD ctx");

/* Sends f's request; the engine copies f into it. */
static int
fetch_submit(struct store_node *n, const struct fetch *f)
{
	const struct cache_key *key = &f->key;
	struct proxy_mad_args a = { 0 };
	uint8_t sel[4];

	if (key->mclass == ATTR_CLASS_SMI_DR) {
		a.node_key = n->guid;
		a.mgmt_class = key->mclass;
		a.method = SMP_METHOD_GET;
		a.attr_id = key->attr;
		a.attr_mod = key->mod;
		a.target.path = *route_for(n, key);
	} else {
		if (perf_args(n, (uint8_t)key->mod, SMP_METHOD_GET, key->attr,
		    0, &a, sel) == -1)
			return -1;
		/* The optional attributes' timeouts say nothing of the rest
		 * of the node's queue. */
		a.optional = optional_flag(key) != 0;
	}
	a.ctx = f;
	a.ctx_len = sizeof(*f);
	return proxy_mad_submit(&a, fetch_cb, NULL);
}

static int
fetch_send(struct store_node *n, const struct cache_key *key, unsigned way,
    int token)
{
	struct fetch f = { .key = *key, .entry = key, .probe = (uint8_t)token,
	    .way = (uint8_t)way };
	int dr = key->mclass == ATTR_CLASS_SMI_DR;

	f.offs = dr ? SMP_DATA_OFFS : PERF_DATA_OFFS;
	f.len = dr ? SMP_DATA_SIZE : PERF_DATA_SIZE;
	return fetch_submit(n, &f);
}

int
proxy_fetch(const struct cache_key *key, void *arg)
{
	struct store_node *n = store_node_at(key->node);
	unsigned way;
	int allow;

	if (n == NULL)
		return -1;
	if (!proxy_mad_port_up())
		return -ENETDOWN;	/* the cache serves what it had */
	/* A node on hold costs no MAD by the ways it is held (proxy/
	 * health.h); only an attribute every node answers can probe it. */
	way = way_of(n, key);
	if ((allow = proxy_health_allow(key->node, way, !may_drop(key))) == 0)
		return -1;
	if (fetch_send(n, key, way, allow) == -1) {
		proxy_health_unsent(key->node, way, allow);
		return -1;
	}
	return 0;
}
