/* proxy_poll: the background poller behind the YAML polling policies.
 *
 * Every node gets the first policy that matches it (or the default).
 * Each node polls on its own timer, offset by a hash of its GUID across
 * the interval, so the fabric sees an even trickle of MADs instead of a
 * burst at the top of the minute. A poll asks the cache for the node's
 * attributes; entries still fresh cost nothing, the others become MADs,
 * and counter answers feed the accumulators. A policy also caps its own
 * MADs in flight and may set thresholds on counter rates. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/attr.h"
#include "codec/perf.h"
#include "codec/smp.h"
#include "proxy/fetch.h"
#include "proxy/mad.h"
#include "proxy/poller.h"
#include "proxy/verdict.h"
#include "store/cache.h"
#include "store/counters.h"
#include "store/events.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

struct poll_node {
	struct ev_timer		 timer;
	uint32_t		 node;
	int			 policy;	/* index, -1: default */
	int			 outstanding;
	int			 full_out;	/* of those, a full poll's */
	/* Threshold bookkeeping: totals at the last check. */
	uint64_t		*last_totals;	/* ports x thresholds */
	uint8_t			*above;		/* the same: rate above now */
	int			 last_ports;	/* num_ports it was sized for */
	uint64_t		 last_ms;
	/* The round under way and the last one that ended. */
	uint64_t		 round_started;	/* ev_now() */
	int64_t			 done_at;	/* ev_wall() */
	uint64_t		 done_ms;
};

static int			 poll_full_now;	/* while issuing one */
static int			 poll_paused;	/* an HA standby's */

struct poll_reset {
	uint32_t		 node;
	uint8_t			 port;
	uint16_t		 attr;
	uint16_t		 mask;
};

static const struct proxy_policy	*poll_pols;
static int			 poll_npols;
static struct proxy_policy		 poll_default = {
	.name = "default", .groups = ATTR_POLL_COUNTERS, .interval = 60,
	.ttl = 60, .max_inflight = 16,
};
static struct poll_node		**poll_nodes;
static size_t			 poll_n;
static int			*poll_inflight;	/* per policy, +1: default */
static int			 poll_ninflight;
/* A full poll on demand (SIGUSR2, benchmarks): its own bookkeeping.
 * It asks node after node while fewer than FULL_WINDOW of its reads are
 * outstanding: enough to keep the MAD engine's window full, and unlike
 * asking the whole fabric at once (89,000 requests queued at 10,000
 * nodes, each with its MAD), it keeps the heap small and its
 * allocations short-lived. */
#define FULL_WINDOW	512
static int			 full_outstanding;
/* Nodes with reads outstanding, and how many it takes to fill the MAD
 * engine's window (max-in-flight over max-in-flight-per-node): FULL_WINDOW
 * reads of two 80-port switches kept 8 MADs in flight, not 64. Twice
 * that many are kept asked: a node near its last reads has fewer in
 * flight than its share (with one spread, answers came in at 0-63 in
 * flight evenly; with two, most at 56-64). */
static int			 full_active, full_spread;
static uint64_t			 full_started, full_sent0;
static unsigned			 full_nodes;
static size_t			 full_next;	/* the next node to ask */
static int			 full_issuing;

static const struct proxy_policy *
policy_of(int idx)
{
	return idx < 0 ? &poll_default : &poll_pols[idx];
}

/* Index of the first matching policy, -1 for the default. */
static int
policy_index(uint32_t node)
{
	const struct store_node *n = store_node_at(node);

	if (n == NULL)
		return -1;
	for (int i = 0; i < poll_npols; i++)
		if (store_select_match(&poll_pols[i].match, n))
			return i;
	return -1;
}

int
proxy_poll_last(uint32_t node, int64_t *when, uint64_t *ms)
{
	const struct poll_node *pn = node < poll_n ? poll_nodes[node] : NULL;

	if (pn == NULL || pn->done_at == 0)
		return -1;
	*when = pn->done_at;
	*ms = pn->done_ms;
	return 0;
}

/* On every SNMP request of a node context (mib_tunnel.c): the
 * assignment assign() made, not the selectors' regexes again; a node
 * not assigned yet (before the first sweep's assign()) is matched. */
const struct proxy_policy *
proxy_poll_policy(uint32_t node)
{
	int i = node < poll_n && poll_nodes[node] != NULL &&
	    poll_nodes[node]->policy >= -1 ? poll_nodes[node]->policy :
	    policy_index(node);

	return i < 0 ? NULL : &poll_pols[i];
}

const char *
proxy_poll_tunnel_mode_name(int mode)
{
	static const char *names[] = { "off", "auto", "prefer" };

	return mode >= 0 && mode < 3 ? names[mode] : NULL;
}

const char *
proxy_poll_policy_name(uint32_t node)
{
	return node < poll_n && poll_nodes[node] ?
	    policy_of(poll_nodes[node]->policy)->name : "default";
}

/* The per-port attributes a node's policy polls (PortInfo, counters)
 * live as long as the policy says; the rest keep their class's TTL. */
static int
ttl_hook(const struct cache_key *k, enum attr_ttl cls)
{
	const struct proxy_policy *p;
	const struct attr_def *a;

	if (k->node >= poll_n || poll_nodes[k->node] == NULL ||
	    (a = attr_find(k->mclass, k->attr)) == NULL)
		return -1;
	p = policy_of(poll_nodes[k->node]->policy);
	return (a->poll & p->groups) && a->scope == ATTR_SCOPE_PORT ?
	    p->ttl : -1;
}

/* IBA 14.2.5.1: traps 129 and 130 are the SMA's own thresholds of
 * these two counters; a policy's threshold on them stands for the
 * trap on fabrics whose SMAs or SM send none. */
static uint16_t
threshold_trap(int ctr)
{
	if (ctr == CTR_LOCAL_INTEGRITY)
		return 129;
	if (ctr == CTR_EXCESS_OVERRUN)
		return 130;
	return 0;
}

/* A crossing: value and limit are /min for a counter's rate, ppm for
 * PortXmitWait's share of the interval (dt_ms long). */
static void
post_threshold(const struct store_node *n, int port,
    const struct proxy_threshold *th, double rate, uint32_t dt_ms,
    const char *policy)
{
	struct store_event ev;
	double limit = th->ratio_ppm > 0 ? th->ratio_ppm : th->per_minute;
	uint64_t r = rate * 1000 > 1e18 ? (uint64_t)1e18 :
	    (uint64_t)(rate * 1000), l = (uint64_t)(limit * 1000);
	char what[96];

	if (th->ratio_ppm > 0)
		snprintf(what, sizeof(what), "%s %.0f ppm of %.1f s above "
		    "%d ppm", perf_ctrs[th->ctr].name, rate, dt_ms / 1000.0,
		    th->ratio_ppm);
	else
		snprintf(what, sizeof(what), "%s %.1f/min above %.1f/min",
		    perf_ctrs[th->ctr].name, rate, th->per_minute);
	memset(&ev, 0, sizeof(ev));
	ev.type = STORE_EV_THRESHOLD;
	ev.source = STORE_SRC_POLLER;
	ev.node_guid = n->guid;
	ev.port = (uint8_t)port;
	ev.lid = n->ports[port].lid ? n->ports[port].lid : n->lid;
	ev.trap = threshold_trap(th->ctr);
	for (int i = 0; i < 8; i++) {
		ev.data[i] = (uint8_t)(r >> (56 - 8 * i));
		ev.data[8 + i] = (uint8_t)(l >> (56 - 8 * i));
	}
	snprintf(ev.text, sizeof(ev.text), "%s", what);
	store_event_post(&ev);
	if (!store_event_summed())	/* else a burst's: its sum is */
		log_warnx("threshold: %s port %d %s (policy %s)",
		    store_node_ident(n), port, what, policy);
}

/* One threshold of one port: the rate (or ratio) now, an event when
 * it crosses upward; it must fall back to the limit to re-arm. */
static void
check_cell(struct poll_node *pn, const struct store_node *n, int port,
    int t, double minutes)
{
	const struct proxy_policy *p = policy_of(pn->policy);
	const struct proxy_threshold *th = &p->thresholds[t];
	const struct ctr_port *cp = counters_port(pn->node, port);
	size_t cell = (size_t)port * p->nthresholds + t;
	uint64_t *last = &pn->last_totals[cell];
	uint64_t total = counters_acc(cp, th->ctr)->total;
	uint32_t dt = 0;
	double rate;

	if (th->ratio_ppm > 0) {
		/* The ratio of the last interval between readings (the
		 * poller's), computed when PortXmitWait was read. */
		rate = counters_xmit_wait(cp, &dt);
		if (dt > 0 && rate > th->ratio_ppm && !pn->above[cell])
			post_threshold(n, port, th, rate, dt, p->name);
		if (dt > 0)
			pn->above[cell] = rate > th->ratio_ppm;
	} else if (pn->last_ms && minutes > 0) {
		rate = (total - *last) / minutes;
		if (rate > th->per_minute && !pn->above[cell])
			post_threshold(n, port, th, rate, 0, p->name);
		pn->above[cell] = rate > th->per_minute;
	}
	*last = total;
}

static void
check_thresholds(struct poll_node *pn)
{
	const struct proxy_policy *p = policy_of(pn->policy);
	const struct store_node *n = store_node_at(pn->node);
	uint64_t now = ev_now();
	double minutes;

	if (p->nthresholds == 0 || n == NULL)
		return;
	/* Sized per port: a node whose port count changed (a sweep saw
	 * new hardware behind the GUID) starts its rates afresh. */
	if (pn->last_totals != NULL && pn->last_ports != n->num_ports) {
		free(pn->last_totals);
		free(pn->above);
		pn->last_totals = NULL;
		pn->above = NULL;
	}
	if (pn->last_totals == NULL) {
		size_t cells = (size_t)(n->num_ports + 1) * p->nthresholds;

		pn->last_totals = calloc(cells, sizeof(uint64_t));
		pn->above = calloc(cells, 1);
		if (pn->last_totals == NULL || pn->above == NULL) {
			free(pn->last_totals);
			free(pn->above);
			pn->last_totals = NULL;
			pn->above = NULL;
			return;
		}
		pn->last_ports = n->num_ports;
		pn->last_ms = 0;
	}
	minutes = pn->last_ms ? (now - pn->last_ms) / 60000.0 : 0;
	for (int port = 1; port <= n->num_ports; port++) {
		if (counters_port(pn->node, port) == NULL)
			continue;
		for (int t = 0; t < p->nthresholds; t++)
			check_cell(pn, n, port, t, minutes);
	}
	pn->last_ms = now;
}

static void
reset_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct poll_reset *r = arg;

	if (status == 0) {
		counters_was_reset(r->node, r->port, r->attr, r->mask);
		log_debug("poll: %s port %u: attribute 0x%04x counters 0x%04x "
		    "reset", store_node_ident_idx(r->node), r->port, r->attr,
		    r->mask);
	} else
		log_warnx("poll: %s port %u: counter reset (attribute 0x%04x) "
		    "failed", store_node_ident_idx(r->node), r->port, r->attr);
	free(r);
}

/* OpenSM PerfMgr style: a policy with reset-counters clears PortCounters
 * (and, with vl-counters, the per-VL counters) past 3/4 of their range,
 * right after reading them, and the accumulators count on from zero.
 * Off by default: resets disturb other tools. */
static void
reset_port(const struct store_node *n, int port, uint16_t attr)
{
	uint16_t mask = counters_reset_mask(n->idx, (uint8_t)port, attr);
	struct poll_reset *r;

	if (mask == 0 || (r = malloc(sizeof(*r))) == NULL)
		return;
	r->node = n->idx;
	r->port = (uint8_t)port;
	r->attr = attr;
	r->mask = mask;
	if (proxy_perf_send(n, (uint8_t)port, 0x02 /* Set */, attr, mask,
	    reset_cb, r) == -1)
		free(r);
}

static void
maybe_reset(struct poll_node *pn)
{
	const struct proxy_policy *p = policy_of(pn->policy);
	const struct store_node *n = store_node_at(pn->node);

	if (!p->reset || n == NULL)
		return;
	for (int port = 1; port <= n->num_ports; port++) {
		reset_port(n, port, PERF_ATTR_PORT_COUNTERS);
		/* The 16-bit per-VL packet counters fill in seconds. */
		if (p->groups & ATTR_POLL_VL_COUNTERS) {
			reset_port(n, port, PERF_ATTR_VL_OP_PACKETS);
			reset_port(n, port, PERF_ATTR_VL_OP_DATA);
		}
	}
}

static void
full_done_check(void)
{
	struct proxy_mad_stats st;

	if (full_started == 0 || full_outstanding > 0 || full_next < poll_n)
		return;
	proxy_mad_get_stats(&st);
	log_info("poll done: %u nodes, %llu MADs in %llu ms", full_nodes,
	    (unsigned long long)(st.sent - full_sent0),
	    (unsigned long long)(ev_now() - full_started));
	full_started = 0;
}

static void	poll_node_now(struct poll_node *);

/* The full poll's next nodes, up to its window; then, once the last
 * node was asked and everything answered, its log line. Not re-entered
 * from a read completed while it asks (a send that failed at once). */
static void
full_issue(void)
{
	if (full_issuing || full_started == 0)
		return;
	full_issuing = 1;
	poll_full_now = 1;
	while (full_next < poll_n && (full_outstanding < FULL_WINDOW ||
	    full_active < 2 * full_spread)) {
		size_t i = full_next++;
		const struct store_node *n = store_node_at((uint32_t)i);

		/* Paused mid-poll (an HA standby now): no more asks. */
		if (poll_paused) {
			full_next = poll_n;
			break;
		}
		if (poll_nodes[i] != NULL && n != NULL && n->reachable) {
			full_nodes++;
			poll_node_now(poll_nodes[i]);
		}
	}
	poll_full_now = 0;
	full_issuing = 0;
	full_done_check();
}

static void
round_done(struct poll_node *pn)
{
	pn->done_at = ev_wall();
	pn->done_ms = ev_now() - pn->round_started;
}

/* A read of pn's round came back; full: one of a full poll's. It was
 * counted under pn's policy as it is now (assign() moves the count). */
static void
read_done(struct poll_node *pn, int full)
{
	if (full) {
		full_outstanding--;
		if (pn->full_out > 0 && --pn->full_out == 0)
			full_active--;
		full_issue();
	}
	if (pn->outstanding > 0 && --pn->outstanding == 0) {
		round_done(pn);
		check_thresholds(pn);
		proxy_verdict_polled(pn->node);	/* the port verdicts' rates */
		maybe_reset(pn);
	}
	if (pn->policy + 1 < poll_ninflight && poll_inflight[pn->policy + 1] > 0)
		poll_inflight[pn->policy + 1]--;
}

/* The waiter's arg is the node itself, the callback says which poll:
 * no allocation per read. */
static void
wait_cb(void *arg, int status, const uint8_t *data, size_t len)
{
	read_done(arg, 0);
}

static void
wait_full_cb(void *arg, int status, const uint8_t *data, size_t len)
{
	read_done(arg, 1);
}

static void
want(struct poll_node *pn, const struct attr_def *a, uint32_t mod,
    uint8_t port)
{
	struct cache_key k = { pn->node, a->id, a->mclass, port, mod };
	const uint8_t *d;
	size_t len;

	if (cache_lookup(&k, a->ttl, &d, &len, poll_full_now ? wait_full_cb :
	    wait_cb, pn) == 1) {
		pn->outstanding++;
		poll_inflight[pn->policy + 1]++;
		if (poll_full_now) {
			full_outstanding++;
			if (pn->full_out++ == 0)
				full_active++;
		}
	}	/* else fresh (or failing): nothing to send */
}

/* Every port's read of a per-port attribute, with the cache keys the
 * MIB handlers use too (one entry for both). A switch's port 0 carries
 * its LID, SM and M_Key fields; a CA port without a LID has no PMA. */
static void
want_ports(struct poll_node *pn, const struct store_node *n,
    const struct attr_def *a)
{
	int sw = n->type == STORE_NODE_SWITCH;
	int perf = a->mclass == ATTR_CLASS_PERF;

	for (int port = sw && !perf ? 0 : 1; port <= n->num_ports; port++) {
		if (perf && !sw && n->ports[port].lid == 0)
			continue;
		want(pn, a, port, sw ? 0 : (uint8_t)port);
	}
}

/* The linear forwarding table, block by block up to LinearFDBTop, as
 * far as a cached SwitchInfo tells (the next poll reads the rest). */
static void
want_lft(struct poll_node *pn, const struct attr_def *a)
{
	const struct attr_def *sia = &attr_defs[ATTR_SWITCH_INFO];
	struct cache_key k = { pn->node, sia->id, sia->mclass, 0, 0 };
	struct smp_switchinfo si;
	const uint8_t *d;
	size_t len;

	if (cache_peek(&k, &d, &len) == 0 &&
	    smp_decode_switchinfo(d, len, &si) == 0)
		for (uint32_t b = 0; b <= si.linear_top / 64u; b++)
			want(pn, a, b, 0);
}

/* What a policy's groups read: the catalogue's rows in those groups,
 * except optional ones the node is known to lack. */
static void
poll_node_now(struct poll_node *pn)
{
	const struct proxy_policy *p = policy_of(pn->policy);
	const struct store_node *n = store_node_at(pn->node);

	if (n == NULL || !n->reachable)
		return;
	if (pn->outstanding == 0)
		pn->round_started = ev_now();
	for (int i = 0; i < ATTR_MAX; i++) {
		const struct attr_def *a = &attr_defs[i];

		if (!(a->poll & p->groups) || (n->unsupported & a->unsup) ||
		    ((a->flags & ATTR_F_SWITCH) &&
		    n->type != STORE_NODE_SWITCH))
			continue;
		switch (a->scope) {
		case ATTR_SCOPE_NODE:
			want(pn, a, 0, 0);
			break;
		case ATTR_SCOPE_PORT:
			want_ports(pn, n, a);
			break;
		case ATTR_SCOPE_BLOCK:
			if (i == ATTR_LFT)
				want_lft(pn, a);
			break;
		}
	}
	if (pn->outstanding == 0) {
		round_done(pn);		/* all of it was cached */
		check_thresholds(pn);
		proxy_verdict_polled(pn->node);
	}
}

void
proxy_poll_pause(int paused)
{
	poll_paused = paused;
}

static void
node_timer(void *arg)
{
	struct poll_node *pn = arg;
	const struct proxy_policy *p = policy_of(pn->policy);

	if (poll_paused) {
		ev_timer_add(&pn->timer, (uint64_t)p->interval * 1000);
		return;
	}
	/* The policy's cap on MADs in flight: come back shortly. */
	if (poll_inflight[pn->policy + 1] >= p->max_inflight) {
		ev_timer_add(&pn->timer, 50 + (pn->node % 50));
		return;
	}
	poll_node_now(pn);
	ev_timer_add(&pn->timer, (uint64_t)p->interval * 1000);
}

/* Give every known node a policy and a timer; keep running timers. */
static void
assign(void)
{
	size_t n = store_node_count();

	if (n > poll_n) {
		struct poll_node **v = realloc(poll_nodes, n * sizeof(*v));
		if (v == NULL) {
			log_warn("poll");
			return;
		}
		memset(v + poll_n, 0, (n - poll_n) * sizeof(*v));
		poll_nodes = v;
		poll_n = n;
	}
	for (size_t i = 0; i < n; i++) {
		struct poll_node *pn = poll_nodes[i];
		int pol = policy_index(i);
		const struct proxy_policy *p = policy_of(pol);

		if (pn == NULL) {
			if ((pn = calloc(1, sizeof(*pn))) == NULL)
				continue;
			pn->node = i;
			ev_timer_init(&pn->timer, node_timer, pn);
			poll_nodes[i] = pn;
		}
		/* Its reads in flight count against the policy it has now
		 * (read_done uncounts them there): a node that moves takes
		 * them along, or the old policy's cap would stay reached. */
		if (pn->policy != pol && pn->outstanding > 0) {
			int o = pn->policy + 1, k = pn->outstanding;

			if (o >= 0 && o < poll_ninflight)
				poll_inflight[o] = poll_inflight[o] > k ?
				    poll_inflight[o] - k : 0;
			poll_inflight[pol + 1] += k;
		}
		if (pn->policy != pol || !ev_timer_pending(&pn->timer)) {
			/* Spread nodes over the interval by GUID. */
			uint64_t g = store_node_at(i)->guid;
			uint64_t off = htab_hash(&g, sizeof(g)) %
			    ((uint64_t)p->interval * 1000);
			free(pn->last_totals);
			free(pn->above);
			pn->last_totals = NULL;
			pn->above = NULL;
			pn->policy = pol;
			ev_timer_add(&pn->timer, off);
		}
	}
}

int
proxy_poll_set_policies(const struct proxy_policy *pols, int n)
{
	int *f = calloc(n + 1, sizeof(*f));

	if (f == NULL)
		return -1;
	/* The new numbering starts from zero; assign() counts each node's
	 * reads in flight under its new policy. */
	free(poll_inflight);
	poll_inflight = f;
	poll_ninflight = n + 1;
	poll_pols = pols;
	poll_npols = n;
	for (size_t i = 0; i < poll_n; i++)
		if (poll_nodes[i])
			poll_nodes[i]->policy = -2;	/* force re-assignment */
	assign();
	return 0;
}

void
proxy_poll_inventory_changed(void)
{
	assign();
}

int
proxy_poll_init(const struct proxy_policy *pols, int n)
{
	cache_set_ttl_hook(ttl_hook);
	return proxy_poll_set_policies(pols, n);
}

void
proxy_poll_finalise(void)
{
	for (size_t i = 0; i < poll_n; i++)
		if (poll_nodes[i]) {
			ev_timer_del(&poll_nodes[i]->timer);
			free(poll_nodes[i]->last_totals);
			free(poll_nodes[i]->above);
			free(poll_nodes[i]);
		}
	free(poll_nodes);
	free(poll_inflight);
	poll_nodes = NULL;
	poll_inflight = NULL;
	poll_n = 0;
	/* A full poll under way ends with its nodes. */
	full_started = 0;
	full_outstanding = full_active = 0;
	full_next = 0;
	cache_set_ttl_hook(NULL);
}

/* The nodes it takes to fill the MAD engine's window. */
static int
spread_of(const struct proxy_mad_stats *st)
{
	if (st->max_inflight_node <= 0 || st->max_inflight <= 0)
		return 1;
	return (st->max_inflight + st->max_inflight_node - 1) /
	    st->max_inflight_node;
}

int
proxy_poll_all_now(void)
{
	struct proxy_mad_stats st;

	if (full_started != 0 || poll_paused)
		return -1;
	/* Whatever is cached is stale for this purpose. */
	cache_flush(UINT32_MAX);
	proxy_mad_get_stats(&st);
	full_sent0 = st.sent;
	full_spread = spread_of(&st);
	full_started = ev_now();
	full_nodes = 0;
	full_next = 0;
	full_issue();
	return 0;
}

