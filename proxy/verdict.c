/* proxy_verdict: a standing verdict per port (docs/health.md). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/perf.h"
#include "proxy/verdict.h"
#include "store/counters.h"
#include "store/events.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

/* Times are ev_now() milliseconds, signed: an event of the history
 * (wall clock) maps to before the gateway's start. */
struct vd_key {
	uint64_t	guid;
	uint64_t	port;		/* uint8 in 8 bytes: no padding */
};

struct vd_state {
	struct vd_key	 key;
	uint8_t		 verdict;	/* as last posted */
	int8_t		 rule;		/* its reason's, -1: none */
	uint8_t		 holding;	/* bit per rule: condition holds;
					 * VD_SILENT: held (proxy/health.c) */
	uint8_t		 ndowns;	/* link-downs in downs[] */
	uint8_t		 fired_downs;	/* link-downs counted when it fired */
	uint8_t		 listed;	/* in vd_list */
	float		 rate[2];	/* symbol errors, link recoveries */
	uint32_t	 node;		/* inventory index, UINT32_MAX */
	int64_t		 since;
	int64_t		 downs[VERDICT_DOWNS_MAX];
	int64_t		 until[VR_MAX];	/* a rule stands until then */
	struct ev_timer	 timer;
};

/* A polled node's totals at its last round, for the rates: the low
 * 32 bits of two accumulators per port (a round does not see 2^32
 * errors), UINT32_MAX before a first reading. */
struct vd_rates {
	int64_t		 ms;
	unsigned	 nports;
	uint32_t	 last[][2];
};

/* The second condition of VR_UNRESPONSIVE: the node is on hold. */
#define VD_SILENT	(1u << VR_MAX)

static struct proxy_verdict_conf vd_conf;
static struct htab		 vd_states;
static struct vd_state		**vd_list;	/* not healthy, sorted */
static size_t			 vd_nlist, vd_caplist;
static struct vd_rates		**vd_rates;	/* by inventory index */
static size_t			 vd_nrates;
static uint64_t			 vd_seq;	/* newest event seq fed */
static int			 vd_replaying;	/* the history: no posts */
static int			 vd_posting;	/* our own event */
static struct ev_timer		 vd_start_timer;

static const char *rule_names[VR_MAX] = {
	[VR_LINK_DOWNS] = "link-downs", [VR_FLAPPING] = "flapping",
	[VR_UNRESPONSIVE] = "unresponsive",
	[VR_SYMBOL_ERRORS] = "symbol-errors",
	[VR_LINK_RECOVERS] = "link-recovers",
	[VR_LINK_DEGRADED] = "link-degraded",
};

const char *
proxy_verdict_name(int v)
{
	switch (v) {
	case VERDICT_HEALTHY: return "healthy";
	case VERDICT_DEGRADED: return "degraded";
	case VERDICT_UNHEALTHY: return "unhealthy";
	}
	return "off";
}

const char *
proxy_verdict_rule_name(int rule)
{
	return rule >= 0 && rule < VR_MAX ? rule_names[rule] : "none";
}

/* The anchors (docs/health.md): two link-downs of one port in 24 h
 * mean replace something (NVIDIA's cluster bring-up guide); symbol
 * errors as the sample policy's threshold (etc/ibsnmpgw.yaml); each
 * link error recovery is a retraining (IBA 16.1.3.5 Table 227). */
void
proxy_verdict_defaults(struct proxy_verdict_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->r[VR_LINK_DOWNS] = (struct proxy_verdict_rule_conf){
	    VERDICT_UNHEALTHY, 2, 0, 86400 };
	c->r[VR_FLAPPING] = (struct proxy_verdict_rule_conf){
	    VERDICT_UNHEALTHY, 0, 0, 3600 };
	c->r[VR_UNRESPONSIVE] = (struct proxy_verdict_rule_conf){
	    VERDICT_UNHEALTHY, 0, 0, 600 };
	c->r[VR_SYMBOL_ERRORS] = (struct proxy_verdict_rule_conf){
	    VERDICT_DEGRADED, 0, 10, 3600 };
	c->r[VR_LINK_RECOVERS] = (struct proxy_verdict_rule_conf){
	    VERDICT_DEGRADED, 0, 1, 3600 };
	c->r[VR_LINK_DEGRADED] = (struct proxy_verdict_rule_conf){
	    VERDICT_DEGRADED, 0, 0, 600 };
}

static int64_t
now_ms(void)
{
	return (int64_t)ev_now();
}

static int64_t
window_ms(int rule)
{
	return (int64_t)vd_conf.r[rule].window_s * 1000;
}

/* Our time for an event's wall-clock time, and back. */
static int64_t
mono_of(int64_t wall)
{
	return now_ms() - (ev_wall_ms() - wall);
}

static int64_t
wall_of(int64_t mono)
{
	return ev_wall_ms() - (now_ms() - mono);
}

/* ---- The sorted list of ports that are not healthy */

static int
list_cmp(uint32_t node, uint64_t port, const struct vd_state *s)
{
	if (node != s->node)
		return node < s->node ? -1 : 1;
	if (port != s->key.port)
		return port < s->key.port ? -1 : 1;
	return 0;
}

/* The first entry >= (node, port). */
static size_t
list_find(uint32_t node, uint64_t port)
{
	size_t lo = 0, hi = vd_nlist;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (list_cmp(node, port, vd_list[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
list_add(struct vd_state *s)
{
	const struct store_node *n = store_node_by_guid(s->key.guid);
	struct vd_state **l;
	size_t i;

	if (s->listed)
		return;
	if (vd_nlist == vd_caplist) {
		size_t cap = vd_caplist ? vd_caplist * 2 : 64;

		if ((l = realloc(vd_list, cap * sizeof(*l))) == NULL) {
			log_warnx("verdict: no memory for the unhealthy port "
			    "table");
			return;
		}
		vd_list = l;
		vd_caplist = cap;
	}
	s->node = n != NULL ? n->idx : UINT32_MAX;
	i = list_find(s->node, s->key.port);
	memmove(vd_list + i + 1, vd_list + i, (vd_nlist - i) *
	    sizeof(*vd_list));
	vd_list[i] = s;
	vd_nlist++;
	s->listed = 1;
}

static void
list_del(struct vd_state *s)
{
	size_t i;

	if (!s->listed)
		return;
	for (i = list_find(s->node, s->key.port); i < vd_nlist &&
	    vd_list[i] != s; i++)
		;
	if (i < vd_nlist) {
		memmove(vd_list + i, vd_list + i + 1, (vd_nlist - i - 1) *
		    sizeof(*vd_list));
		vd_nlist--;
	}
	s->listed = 0;
}

/* ---- States */

static void	state_timer(void *);

static struct vd_state *
state_get(uint64_t guid, uint8_t port)
{
	struct vd_key k = { guid, port };

	return htab_get(&vd_states, &k, sizeof(k));
}

static struct vd_state *
state_of(uint64_t guid, uint8_t port)
{
	struct vd_key k = { guid, port };
	struct vd_state *s;

	if ((s = htab_get(&vd_states, &k, sizeof(k))) != NULL)
		return s;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->key = k;
	s->verdict = VERDICT_HEALTHY;
	s->rule = -1;
	s->node = UINT32_MAX;
	ev_timer_init(&s->timer, state_timer, s);
	if (htab_put(&vd_states, &k, sizeof(k), s) == -1) {
		free(s);
		return NULL;
	}
	return s;
}

static void
state_free(struct vd_state *s)
{
	ev_timer_del(&s->timer);
	list_del(s);
	htab_del(&vd_states, &s->key, sizeof(s->key));
	free(s);
}

/* Whether a condition of rule r holds now. */
static int
holds(const struct vd_state *s, int r)
{
	return (s->holding & (1u << r)) || (r == VR_UNRESPONSIVE &&
	    (s->holding & VD_SILENT));
}

static int
rule_active(const struct vd_state *s, int r, int64_t now)
{
	if (vd_conf.r[r].verdict == 0)
		return 0;
	return holds(s, r) || s->until[r] > now;
}

/* The worst rule in force, -1 if none (ties: the lower rule). */
static int
worst_rule(const struct vd_state *s, int64_t now)
{
	int best = -1;

	for (int r = 0; r < VR_MAX; r++)
		if (rule_active(s, r, now) && (best == -1 ||
		    vd_conf.r[r].verdict > vd_conf.r[best].verdict))
			best = r;
	return best;
}

static void
fmt_window(unsigned s, char *buf, size_t len)
{
	/* Days from two on: "2 link-downs in 24h", as the anchor says. */
	if (s % 86400 == 0 && s >= 2 * 86400)
		snprintf(buf, len, "%ud", s / 86400);
	else if (s % 3600 == 0)
		snprintf(buf, len, "%uh", s / 3600);
	else if (s % 60 == 0)
		snprintf(buf, len, "%um", s / 60);
	else
		snprintf(buf, len, "%us", s);
}

static void
reason(const struct vd_state *s, int rule, char *buf, size_t len)
{
	char w[16];

	switch (rule) {
	case VR_LINK_DOWNS:
		fmt_window(vd_conf.r[rule].window_s, w, sizeof(w));
		snprintf(buf, len, "%u link-downs in %s", s->fired_downs, w);
		break;
	case VR_SYMBOL_ERRORS:
	case VR_LINK_RECOVERS:
		snprintf(buf, len, "%s %.1f/min above %g/min", rule ==
		    VR_SYMBOL_ERRORS ? "symbol errors" : "link recoveries",
		    s->rate[rule - VR_SYMBOL_ERRORS],
		    vd_conf.r[rule].per_minute);
		break;
	case VR_FLAPPING:
		snprintf(buf, len, "flapping");
		break;
	case VR_UNRESPONSIVE:
		snprintf(buf, len, "node not answering");
		break;
	case VR_LINK_DEGRADED:
		snprintf(buf, len, "link degraded");
		break;
	default:
		buf[0] = '\0';
	}
}

static void
post(const struct vd_state *s, int rule)
{
	const struct store_node *n = store_node_by_guid(s->key.guid);
	struct store_event ev;
	char why[64];

	memset(&ev, 0, sizeof(ev));
	ev.type = STORE_EV_PORT_HEALTH;
	ev.source = STORE_SRC_GATEWAY;
	ev.node_guid = s->key.guid;
	ev.port = (uint8_t)s->key.port;
	if (n != NULL)
		ev.lid = s->key.port <= n->num_ports &&
		    n->ports[s->key.port].lid ? n->ports[s->key.port].lid :
		    n->lid;
	ev.data[0] = s->verdict;
	ev.data[1] = (uint8_t)(rule + 1);
	reason(s, rule, why, sizeof(why));
	snprintf(ev.text, sizeof(ev.text), "%s%s%s",
	    proxy_verdict_name(s->verdict), rule >= 0 ? ": " : "", why);
	vd_posting = 1;
	store_event_post(&ev);
	vd_posting = 0;
	if (!store_event_summed())	/* else a burst's: its sum is */
		log_info("verdict: %s port %u %s", n ?
		    store_node_ident(n) : "node ?", ev.port, ev.text);
}

/* The next time something of s runs out: a rule's quiet window, or
 * its oldest link-down leaving the window. 0: nothing. */
static int64_t
next_change(const struct vd_state *s, int64_t now)
{
	int64_t next = 0;

	for (int r = 0; r < VR_MAX; r++)
		if (!holds(s, r) && s->until[r] > now &&
		    (next == 0 || s->until[r] < next))
			next = s->until[r];
	for (unsigned i = 0; i < s->ndowns; i++) {
		int64_t t = s->downs[i] + window_ms(VR_LINK_DOWNS);

		if (t > now && (next == 0 || t < next))
			next = t;
	}
	return next;
}

/* Link-downs that left the window go. */
static void
prune_downs(struct vd_state *s, int64_t now)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->ndowns; i++)
		if (s->downs[i] + window_ms(VR_LINK_DOWNS) > now)
			s->downs[n++] = s->downs[i];
	s->ndowns = (uint8_t)n;
}

/* The verdict now: posted if it changed, the list and the timer set,
 * and the state freed once it has nothing left to remember. */
static void
evaluate(struct vd_state *s)
{
	int64_t now = now_ms(), next;
	int rule = worst_rule(s, now);
	uint8_t v = rule >= 0 ? vd_conf.r[rule].verdict : VERDICT_HEALTHY;

	prune_downs(s, now);
	if (v != s->verdict) {
		s->verdict = v;
		s->since = now;
		if (!vd_replaying)
			post(s, rule);
	}
	s->rule = (int8_t)rule;
	if (v != VERDICT_HEALTHY)
		list_add(s);
	else
		list_del(s);
	if ((next = next_change(s, now)) != 0)
		ev_timer_add(&s->timer, (uint64_t)(next - now));
	else
		ev_timer_del(&s->timer);
	if (v == VERDICT_HEALTHY && next == 0 && s->holding == 0 &&
	    !vd_replaying)
		state_free(s);
}

static void
state_timer(void *arg)
{
	evaluate(arg);
}

/* ---- Feeds */

static void
link_down(struct vd_state *s, int64_t t)
{
	const struct proxy_verdict_rule_conf *rc = &vd_conf.r[VR_LINK_DOWNS];
	unsigned n = 0, old = 0;

	/* Full: the oldest makes room (count is at most the size). */
	if (s->ndowns < VERDICT_DOWNS_MAX)
		old = s->ndowns++;
	else
		for (unsigned i = 1; i < s->ndowns; i++)
			if (s->downs[i] < s->downs[old])
				old = i;
	s->downs[old] = t;
	for (unsigned i = 0; i < s->ndowns; i++)
		if (s->downs[i] > t - window_ms(VR_LINK_DOWNS) &&
		    s->downs[i] <= t)
			n++;
	if (rc->count > 0 && n >= rc->count &&
	    t + window_ms(VR_LINK_DOWNS) > s->until[VR_LINK_DOWNS]) {
		s->until[VR_LINK_DOWNS] = t + window_ms(VR_LINK_DOWNS);
		s->fired_downs = (uint8_t)n;
	}
}

/* A condition (bit) of rule that holds (on) or ended (off) at t: the
 * rule stands for its window after it ended. */
static void
hold(struct vd_state *s, int rule, unsigned bit, int on, int64_t t)
{
	if (on)
		s->holding |= (uint8_t)bit;
	else if (s->holding & bit) {
		s->holding &= (uint8_t)~bit;
		if (t + window_ms(rule) > s->until[rule])
			s->until[rule] = t + window_ms(rule);
	}
}

/* A verdict the stream has (our own, the history's, the active's): the
 * last word said of the port, which evaluate() compares with. */
static void
said(const struct store_event *ev)
{
	struct vd_state *s;

	if (vd_posting || ev->data[0] < VERDICT_HEALTHY ||
	    ev->data[0] > VERDICT_UNHEALTHY)
		return;
	if ((s = ev->data[0] == VERDICT_HEALTHY ?
	    state_get(ev->node_guid, ev->port) :
	    state_of(ev->node_guid, ev->port)) == NULL)
		return;
	s->verdict = ev->data[0];
	s->since = mono_of(ev->when);
	if (!vd_replaying)
		evaluate(s);
}

void
proxy_verdict_event(const struct store_event *ev, int damped, void *arg)
{
	int64_t t = mono_of(ev->when);
	struct vd_state *s;

	(void)arg;
	if (ev->node_guid == 0)
		return;		/* about no one port: a burst's sum */
	/* Each event once: the history read back at start, then a
	 * standby's snapshot of it, carry the same numbers. */
	if (ev->seq != 0) {
		if (ev->seq <= vd_seq)
			return;
		vd_seq = ev->seq;
	}
	switch (ev->type) {
	case STORE_EV_PORT_HEALTH:
		said(ev);
		return;
	case STORE_EV_LINK_DOWN:
	case STORE_EV_LINK_UP:
	case STORE_EV_NODE_GONE:
	case STORE_EV_NODE_BACK:
		break;
	default:
		return;
	}
	if ((s = state_of(ev->node_guid, ev->port)) == NULL)
		return;
	if (ev->type == STORE_EV_LINK_DOWN)
		link_down(s, t);
	if (damped && (ev->type == STORE_EV_LINK_DOWN ||
	    ev->type == STORE_EV_LINK_UP) &&
	    t + window_ms(VR_FLAPPING) > s->until[VR_FLAPPING])
		s->until[VR_FLAPPING] = t + window_ms(VR_FLAPPING);
	if (ev->type == STORE_EV_NODE_GONE || ev->type == STORE_EV_NODE_BACK)
		hold(s, VR_UNRESPONSIVE, 1u << VR_UNRESPONSIVE,
		    ev->type == STORE_EV_NODE_GONE, t);
	if (!vd_replaying)
		evaluate(s);
}

void
proxy_verdict_link_degraded(uint64_t guid, uint8_t port, int degraded)
{
	struct vd_state *s = degraded ? state_of(guid, port) :
	    state_get(guid, port);

	if (s == NULL)
		return;
	hold(s, VR_LINK_DEGRADED, 1u << VR_LINK_DEGRADED, degraded, now_ms());
	evaluate(s);
}

void
proxy_verdict_silent(uint32_t node, int silent)
{
	const struct store_node *n = store_node_at(node);
	struct vd_state *s;

	if (n == NULL || (s = silent ? state_of(n->guid, 0) :
	    state_get(n->guid, 0)) == NULL)
		return;
	hold(s, VR_UNRESPONSIVE, VD_SILENT, silent, now_ms());
	evaluate(s);
}

/* ---- Rates, from the poller's rounds */

static struct vd_rates *
rates_of(uint32_t node, unsigned nports)
{
	struct vd_rates *r;

	if (node >= vd_nrates) {
		size_t n = node + 64;
		struct vd_rates **a = realloc(vd_rates, n * sizeof(*a));

		if (a == NULL)
			return NULL;
		memset(a + vd_nrates, 0, (n - vd_nrates) * sizeof(*a));
		vd_rates = a;
		vd_nrates = n;
	}
	/* New hardware behind the GUID: the rates start afresh. */
	if ((r = vd_rates[node]) != NULL && r->nports == nports)
		return r;
	free(r);
	if ((r = malloc(sizeof(*r) + (nports + 1) * sizeof(r->last[0]))) ==
	    NULL)
		return vd_rates[node] = NULL;
	r->ms = 0;
	r->nports = nports;
	memset(r->last, 0xff, (nports + 1) * sizeof(r->last[0]));
	return vd_rates[node] = r;
}

static void
rate_seen(uint64_t guid, uint8_t port, int rule, double rate)
{
	struct vd_state *s;

	if (vd_conf.r[rule].verdict == 0 ||
	    rate <= vd_conf.r[rule].per_minute ||
	    (s = state_of(guid, port)) == NULL)
		return;
	s->rate[rule - VR_SYMBOL_ERRORS] = (float)rate;
	s->until[rule] = now_ms() + window_ms(rule);
	evaluate(s);
}

void
proxy_verdict_polled(uint32_t node)
{
	static const int ctrs[2] = { CTR_SYMBOL_ERRORS, CTR_LINK_RECOVERS };
	const struct store_node *n = store_node_at(node);
	int64_t now = now_ms();
	struct vd_rates *r;
	double minutes;

	if (n == NULL || (vd_conf.r[VR_SYMBOL_ERRORS].verdict == 0 &&
	    vd_conf.r[VR_LINK_RECOVERS].verdict == 0) ||
	    (r = rates_of(node, n->num_ports)) == NULL)
		return;
	/* Rounds closer than a second: wait for a rate worth the name. */
	if (r->ms != 0 && now - r->ms < 1000)
		return;
	minutes = r->ms != 0 ? (double)(now - r->ms) / 60000.0 : 0;
	for (unsigned port = 1; port <= r->nports; port++) {
		const struct ctr_port *cp = counters_port(node, (uint8_t)port);

		if (cp == NULL || !counters_port_read(cp))
			continue;
		for (int k = 0; k < 2; k++) {
			uint32_t total = (uint32_t)counters_acc(cp,
			    ctrs[k])->total, *last = &r->last[port][k];

			if (minutes > 0 && *last != UINT32_MAX)
				rate_seen(n->guid, (uint8_t)port,
				    VR_SYMBOL_ERRORS + k,
				    (uint32_t)(total - *last) / minutes);
			*last = total == UINT32_MAX ? 0 : total;
		}
	}
	r->ms = now;
}

/* ---- Queries */

static void
info(const struct vd_state *s, struct proxy_verdict_info *vi)
{
	int64_t now = now_ms(), next;

	memset(vi, 0, sizeof(*vi));
	vi->guid = s->key.guid;
	vi->port = (uint8_t)s->key.port;
	vi->verdict = s->verdict;
	vi->rule = s->rule;
	vi->since = s->since != 0 ? wall_of(s->since) : 0;
	if (s->verdict != VERDICT_HEALTHY && s->rule >= 0 &&
	    !holds(s, s->rule)) {
		next = 0;
		for (int r = 0; r < VR_MAX; r++) {
			if (!rule_active(s, r, now))
				continue;
			if (holds(s, r)) {
				next = 0;
				break;
			}
			if (s->until[r] > next)
				next = s->until[r];
		}
		vi->clears = next != 0 ? wall_of(next) : 0;
	}
	reason(s, s->rule, vi->reason, sizeof(vi->reason));
}

int
proxy_verdict_get(uint64_t guid, uint8_t port, struct proxy_verdict_info *vi)
{
	const struct vd_state *s = state_get(guid, port), *node = NULL;

	if (port != 0)
		node = state_get(guid, 0);
	if (node != NULL && node->verdict != VERDICT_HEALTHY && (s == NULL ||
	    node->verdict > s->verdict))
		s = node;
	if (s == NULL) {
		memset(vi, 0, sizeof(*vi));
		vi->guid = guid;
		vi->port = port;
		vi->verdict = VERDICT_HEALTHY;
		vi->rule = -1;
		return -1;
	}
	info(s, vi);
	vi->port = port;
	return 0;
}

int
proxy_verdict_next(uint32_t node, unsigned port, int incl, uint32_t *out_node,
    struct proxy_verdict_info *vi)
{
	size_t i = list_find(node, port);

	if (!incl && i < vd_nlist && list_cmp(node, port, vd_list[i]) == 0)
		i++;
	if (i >= vd_nlist || vd_list[i]->node == UINT32_MAX)
		return 0;
	*out_node = vd_list[i]->node;
	info(vd_list[i], vi);
	return 1;
}

size_t
proxy_verdict_count(void)
{
	return vd_nlist;
}

size_t
proxy_verdict_states(void)
{
	return vd_states.n;
}

void
proxy_verdict_print(FILE *f)
{
	fprintf(f, "ports not healthy %zu states %zu\n", vd_nlist,
	    (size_t)vd_states.n);
	for (size_t i = 0; i < vd_nlist; i++) {
		const struct store_node *n = store_node_by_guid(
		    vd_list[i]->key.guid);
		struct proxy_verdict_info vi;

		info(vd_list[i], &vi);
		fprintf(f, "0x%016llx port %u %s %s: %s", (unsigned long long)
		    vi.guid, vi.port, n ? (n->alias ? n->alias : n->desc) :
		    "?", proxy_verdict_name(vi.verdict),
		    vi.reason);
		if (vi.clears != 0)
			fprintf(f, " (clears in %llds if quiet)", (long long)
			    ((vi.clears - ev_wall_ms() + 999) / 1000));
		fputc('\n', f);
	}
}

/* ---- Setup */

static void
each_state(const void *key, size_t len, void *val, void *arg)
{
	struct vd_state ***p = arg;

	(void)key;
	(void)len;
	*(*p)++ = val;
}

/* Every state evaluated again (a reload, the end of the history). */
static void
evaluate_all(void)
{
	size_t n = vd_states.n;
	struct vd_state **all, **p;

	if (n == 0 || (all = calloc(n, sizeof(*all))) == NULL)
		return;
	p = all;
	htab_foreach(&vd_states, each_state, &p);
	for (size_t i = 0; i < n; i++)
		evaluate(all[i]);
	free(all);
}

static void
replayed(const struct store_event *ev, void *arg)
{
	proxy_verdict_event(ev, 0, arg);
}

/* After start-up, in the loop: what changed while the gateway was
 * away is posted when the notifier listens. */
static void
start_timer(void *arg)
{
	(void)arg;
	evaluate_all();
}

void
proxy_verdict_config(const struct proxy_verdict_conf *c)
{
	vd_conf = *c;
	evaluate_all();
}

int
proxy_verdict_init(const struct proxy_verdict_conf *c)
{
	htab_init(&vd_states);
	vd_conf = *c;
	vd_seq = 0;
	/* Link-downs within their window, node states and the verdicts
	 * last posted, from the history (docs/health.md). */
	vd_replaying = 1;
	store_event_db_each(replayed, NULL);
	vd_replaying = 0;
	store_event_observe(proxy_verdict_event, NULL);
	ev_timer_init(&vd_start_timer, start_timer, NULL);
	ev_timer_add(&vd_start_timer, 0);
	if (vd_states.n > 0)
		log_info("verdict: %zu ports with a history", (size_t)
		    vd_states.n);
	return 0;
}

static void
free_state(const void *key, size_t len, void *val, void *arg)
{
	struct vd_state *s = val;

	(void)key;
	(void)len;
	(void)arg;
	ev_timer_del(&s->timer);
	free(s);
}

void
proxy_verdict_finalise(void)
{
	store_event_observe(NULL, NULL);
	ev_timer_del(&vd_start_timer);
	htab_foreach(&vd_states, free_state, NULL);
	htab_free(&vd_states);
	free(vd_list);
	vd_list = NULL;
	vd_nlist = vd_caplist = 0;
	for (size_t i = 0; i < vd_nrates; i++)
		free(vd_rates[i]);
	free(vd_rates);
	vd_rates = NULL;
	vd_nrates = 0;
}
