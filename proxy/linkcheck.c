/* proxy_linkcheck: links that run below what they should (linkcheck.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxy/linkcheck.h"
#include "proxy/verdict.h"
#include "store/events.h"
#include "store/store.h"
#include "util/htab.h"
#include "util/ev.h"
#include "util/log.h"

static struct proxy_link_row	*lc_rows;	/* by (node, port) */
static size_t			 lc_n;
static const struct proxy_link_expect *lc_rules;
static int			 lc_nrules;
static int			 lc_ran;	/* since the start */

int
proxy_linkcheck_init(const struct proxy_link_expect *rules, int n)
{
	lc_rows = NULL;
	lc_n = 0;
	lc_ran = 0;
	proxy_linkcheck_configure(rules, n);
	return 0;
}

void
proxy_linkcheck_finalise(void)
{
	free(lc_rows);
	lc_rows = NULL;
	lc_n = 0;
}

void
proxy_linkcheck_configure(const struct proxy_link_expect *rules, int n)
{
	lc_rules = rules;
	lc_nrules = n;
	if (lc_ran)		/* a reload: the rows by the new rules */
		proxy_linkcheck_run();
}

const char *
proxy_linkcheck_rule_name(int rule)
{
	return rule == LINK_RULE_EXPECTED ? "expected" : "capability";
}

/* ---- What a link should run at */

/* The most lanes of a LinkWidth mask (IBA 14.2.5.6: 1 1x, 2 4x, 4 8x,
 * 8 12x, 16 2x). */
static uint8_t
best_lanes(uint8_t mask)
{
	int best = 0;

	for (int bit = 0; bit < 5; bit++)
		if (mask & (1u << bit) && smp_width_lanes(1u << bit) > best)
			best = smp_width_lanes(1u << bit);
	return (uint8_t)best;
}

static uint8_t
best_speed(const struct smp_portinfo *a, const struct smp_portinfo *b)
{
	/* LinkSpeedExt (1 FDR, 2 EDR, 4 HDR, 8 NDR) is 0 on ports without
	 * extended speeds; LinkSpeedExtSupported2 bit 0 is XDR, which has
	 * no Enabled field we read: supported by both counts. */
	uint8_t ext = a->speed_ext_supported & a->speed_ext_enabled &
	    b->speed_ext_supported & b->speed_ext_enabled & 0x0f;
	uint8_t std = a->speed_supported & a->speed_enabled &
	    b->speed_supported & b->speed_enabled & 0x07;

	if (a->speed_ext2_supported & b->speed_ext2_supported & 1)
		return SMP_SPEED_XDR;
	if (ext & 8)
		return SMP_SPEED_NDR;
	if (ext & 4)
		return SMP_SPEED_HDR;
	if (ext & 2)
		return SMP_SPEED_EDR;
	if (ext & 1)
		return SMP_SPEED_FDR;
	if (std & 4)
		return SMP_SPEED_QDR;
	if (std & 2)
		return SMP_SPEED_DDR;
	return std & 1 ? SMP_SPEED_SDR : SMP_SPEED_UNKNOWN;
}

void
proxy_linkcheck_capability(const struct smp_portinfo *a,
    const struct smp_portinfo *b, uint8_t *lanes, uint8_t *speed)
{
	*lanes = best_lanes(a->width_supported & a->width_enabled &
	    b->width_supported & b->width_enabled);
	*speed = best_speed(a, b);
}

/* The operator's expectation for one dimension: the first rule that
 * sets it and whose selector takes either end. */
static const struct proxy_link_expect *
expectation(const struct store_node *n, const struct store_node *m,
    int width)
{
	for (int i = 0; i < lc_nrules; i++) {
		const struct proxy_link_expect *r = &lc_rules[i];

		if ((width ? r->lanes : r->speed) == 0)
			continue;
		if (store_select_match(&r->nodes, n) ||
		    (m != NULL && store_select_match(&r->nodes, m)))
			return r;
	}
	return NULL;
}

/* ---- One link */

static int
port_pi(const struct store_node *n, uint8_t port, struct smp_portinfo *pi)
{
	const struct store_port *sp;

	if (n == NULL || port > n->num_ports || n->ports == NULL)
		return -1;
	sp = &n->ports[port];
	if (!sp->pinfo_ok)
		return -1;
	return smp_decode_portinfo(sp->pinfo, STORE_SMP_LEN, pi);
}

int
proxy_linkcheck_judge(const struct smp_portinfo *a,
    const struct smp_portinfo *b, uint8_t want_lanes, uint8_t want_speed,
    struct proxy_link_row *r)
{
	uint8_t cl, cs;

	memset(r, 0, sizeof(*r));
	if (a->state < 2)	/* Down: the Active fields mean nothing */
		return 0;
	r->act_lanes = (uint8_t)smp_width_lanes(a->width_active);
	r->act_speed = (uint8_t)smp_speed_active(a);
	if (r->act_lanes == 0 || r->act_speed == SMP_SPEED_UNKNOWN)
		return 0;
	proxy_linkcheck_capability(a, b, &cl, &cs);
	r->exp_lanes = want_lanes ? want_lanes : cl;
	r->exp_speed = want_speed ? want_speed : cs;
	r->rule_width = want_lanes ? LINK_RULE_EXPECTED : LINK_RULE_CAPABILITY;
	r->rule_speed = want_speed ? LINK_RULE_EXPECTED : LINK_RULE_CAPABILITY;
	return r->act_lanes < r->exp_lanes || r->act_speed < r->exp_speed;
}

/* Fills r if the link from (n, port) is degraded; 0 if not (or it
 * cannot be judged). */
static int
judge(const struct store_node *n, uint8_t port, const struct store_node *m,
    struct proxy_link_row *r)
{
	const struct store_port *sp = &n->ports[port];
	const struct proxy_link_expect *ew, *es;
	struct smp_portinfo a, b;

	if (port_pi(n, port, &a) == -1)
		return 0;
	/* The far end's PortInfo, when the inventory has it; else this
	 * end's own enables stand for both. */
	if (port_pi(m, sp->remote_port, &b) == -1)
		b = a;
	ew = expectation(n, m, 1);
	es = expectation(n, m, 0);
	if (!proxy_linkcheck_judge(&a, &b, ew ? ew->lanes : 0,
	    es ? es->speed : 0, r))
		return 0;
	r->node = n->idx;
	r->port = port;
	r->guid = n->guid;
	r->peer_guid = sp->remote_guid;
	r->peer_port = sp->remote_port;
	return 1;
}

/* Whether (n, port) is the end a link is judged from: the lower (node
 * index, port), or the only end the inventory knows. */
static int
end_a(const struct store_node *n, uint8_t port, const struct store_node *m,
    uint8_t mport)
{
	if (m == NULL || !m->reachable)
		return 1;
	return n->idx < m->idx || (n->idx == m->idx && port < mport);
}

static int
push(struct proxy_link_row **v, size_t *n, size_t *cap,
    const struct proxy_link_row *r)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct proxy_link_row *p = realloc(*v, c * sizeof(*p));

		if (p == NULL) {
			log_warn("linkcheck");
			return -1;
		}
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = *r;
	return 0;
}

/* Every degraded link of the inventory, by (node, port). */
static int
collect(struct proxy_link_row **out, size_t *nout)
{
	struct proxy_link_row *v = NULL, r;
	size_t n = 0, cap = 0, count = store_node_count();

	for (uint32_t i = 0; i < count; i++) {
		const struct store_node *nd = store_node_at(i);

		if (nd == NULL || !nd->reachable || nd->ports == NULL)
			continue;
		for (int p = 1; p <= nd->num_ports; p++) {
			const struct store_port *sp = &nd->ports[p];
			const struct store_node *m;

			if (sp->remote_guid == 0)
				continue;
			m = store_node_by_guid(sp->remote_guid);
			if (!end_a(nd, (uint8_t)p, m, sp->remote_port) ||
			    !judge(nd, (uint8_t)p, m, &r))
				continue;
			if (push(&v, &n, &cap, &r) == -1) {
				free(v);
				return -1;
			}
		}
	}
	*out = v;
	*nout = n;
	return 0;
}

/* ---- Events */

static const char *
ws(char *buf, size_t len, uint8_t lanes, uint8_t speed)
{
	snprintf(buf, len, "%ux %s", lanes, smp_speed_name(speed));
	return buf;
}

/* Both ends' ports get the degraded-link rule of their verdicts
 * (proxy/verdict.h). */
static void
tell_verdict(const struct proxy_link_row *r, int degraded)
{
	proxy_verdict_link_degraded(r->guid, r->port, degraded);
	if (r->peer_guid != 0)
		proxy_verdict_link_degraded(r->peer_guid, r->peer_port,
		    degraded);
}

/* Returns when the event was posted (the row's time). */
static int64_t
post(int type, const struct proxy_link_row *r, const char *why)
{
	const struct store_node *n = store_node_at(r->node);
	struct store_event ev;
	char e[24], a[24];

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint8_t)type;
	ev.source = STORE_SRC_SWEEP;
	ev.node_guid = r->guid;
	ev.port = r->port;
	if (n != NULL && n->ports != NULL && r->port <= n->num_ports)
		ev.lid = n->ports[r->port].lid ? n->ports[r->port].lid :
		    n->lid;
	/* The peer in data[0..8], for the event's readers. */
	for (int i = 0; i < 8; i++)
		ev.data[i] = (uint8_t)(r->peer_guid >> (56 - 8 * i));
	ev.data[8] = r->peer_port;
	if (type == STORE_EV_LINK_DEGRADED)
		snprintf(ev.text, sizeof(ev.text), "%.16s, expected %.16s (%s); "
		    "peer 0x%016llx[%u]", ws(a, sizeof(a), r->act_lanes,
		    r->act_speed), ws(e, sizeof(e), r->exp_lanes,
		    r->exp_speed), proxy_linkcheck_rule_name(
		    r->rule_width == LINK_RULE_EXPECTED ||
		    r->rule_speed == LINK_RULE_EXPECTED ? LINK_RULE_EXPECTED :
		    LINK_RULE_CAPABILITY),
		    (unsigned long long)r->peer_guid, r->peer_port);
	else
		snprintf(ev.text, sizeof(ev.text), "%.40s; peer 0x%016llx[%u]",
		    why, (unsigned long long)r->peer_guid, r->peer_port);
	store_event_post(&ev);
	/* One of a burst is not logged: its sum is. */
	if (!store_event_summed()) {
		if (type == STORE_EV_LINK_DEGRADED)
			log_warnx("link degraded: %s port %u: %s", n ?
			    store_node_ident(n) : "?", r->port, ev.text);
		else
			log_info("link restored: %s port %u: %s", n ?
			    store_node_ident(n) : "?", r->port, ev.text);
	}
	tell_verdict(r, type == STORE_EV_LINK_DEGRADED);
	return ev.when ? ev.when : ev_wall_ms();	/* a standby drops it */
}

static int
row_cmp(const struct proxy_link_row *a, const struct proxy_link_row *b)
{
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return a->port < b->port ? -1 : a->port > b->port;
}

/* Why a row went: the link's state now. */
static const char *
gone_why(const struct proxy_link_row *r)
{
	const struct store_node *n = store_node_at(r->node);
	struct smp_portinfo pi;

	if (n == NULL || !n->reachable)
		return "node unreachable";
	if (port_pi(n, r->port, &pi) == -1 || pi.state < 2)
		return "link down";
	return "runs as expected";
}

/* ---- The first run: the rows the event history left open */

struct open_key {
	uint64_t	guid;
	uint64_t	port;		/* wide: no padding in the key */
};

struct open_row {
	struct open_key	k;
	int64_t		when;
	int		seen;		/* still degraded now */
};

static struct open_key
open_key(uint64_t guid, uint8_t port)
{
	struct open_key k = { guid, port };

	return k;
}

/* The history, oldest first (the database, as the verdicts read it):
 * a link is open from its newest "degraded" until a "restored". A
 * hash, not a scan: a wrong expectation can open thousands. */
static void
history_event(const struct store_event *ev, void *arg)
{
	struct htab *open = arg;
	struct open_key k = open_key(ev->node_guid, ev->port);
	struct open_row *o;

	if (ev->node_guid == 0)
		return;		/* a burst's sum (store/events.c) */
	if (ev->type == STORE_EV_LINK_RESTORED)
		free(htab_del(open, &k, sizeof(k)));
	else if (ev->type == STORE_EV_LINK_DEGRADED) {
		if ((o = htab_get(open, &k, sizeof(k))) == NULL &&
		    (o = calloc(1, sizeof(*o))) != NULL &&
		    htab_put(open, &k, sizeof(k), o) == -1) {
			free(o);
			o = NULL;
		}
		if (o != NULL) {
			o->k = k;
			o->when = ev->when;
		}
	}
}

/* Recovered while the gateway was away. */
static void
history_restored(const void *key, size_t len, void *val, void *arg)
{
	struct open_row *o = val;
	const struct store_node *nd;
	struct proxy_link_row r;

	(void)key;
	(void)len;
	(void)arg;
	if (o->seen)
		return;
	nd = store_node_by_guid(o->k.guid);
	memset(&r, 0, sizeof(r));
	r.node = nd ? nd->idx : 0;
	r.guid = o->k.guid;
	r.port = (uint8_t)o->k.port;
	if (nd != NULL && nd->ports != NULL && r.port <= nd->num_ports) {
		r.peer_guid = nd->ports[r.port].remote_guid;
		r.peer_port = nd->ports[r.port].remote_port;
	}
	post(STORE_EV_LINK_RESTORED, &r, nd ? gone_why(&r) : "node gone");
}

static void
free_open(const void *key, size_t len, void *val, void *arg)
{
	(void)key;
	(void)len;
	(void)arg;
	free(val);
}

static void
first_run(struct proxy_link_row *rows, size_t n)
{
	struct htab open;

	htab_init(&open);
	store_event_db_each(history_event, &open);
	for (size_t i = 0; i < n; i++) {
		struct open_key k = open_key(rows[i].guid, rows[i].port);
		struct open_row *o = htab_get(&open, &k, sizeof(k));

		if (o != NULL && !o->seen) {	/* still degraded: as it was */
			o->seen = 1;
			rows[i].since = o->when;
			tell_verdict(&rows[i], 1);
		} else
			rows[i].since = post(STORE_EV_LINK_DEGRADED, &rows[i],
			    NULL);
	}
	htab_foreach(&open, history_restored, NULL);
	htab_foreach(&open, free_open, NULL);
	htab_free(&open);
}

/* Posts what appeared and what went; rows keep their first time. */
static void
compare(struct proxy_link_row *rows, size_t n)
{
	size_t i = 0, j = 0;

	while (i < lc_n || j < n) {
		int c = i == lc_n ? 1 : j == n ? -1 :
		    row_cmp(&lc_rows[i], &rows[j]);

		if (c < 0) {
			post(STORE_EV_LINK_RESTORED, &lc_rows[i],
			    gone_why(&lc_rows[i]));
			i++;
		} else if (c > 0) {
			rows[j].since = post(STORE_EV_LINK_DEGRADED, &rows[j],
			    NULL);
			j++;
		} else {
			rows[j++].since = lc_rows[i++].since;
		}
	}
}

void
proxy_linkcheck_run(void)
{
	struct proxy_link_row *rows;
	struct timespec t0, t1;
	size_t n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (collect(&rows, &n) == -1)
		return;		/* the rows in force stay */
	if (!lc_ran)
		first_run(rows, n);
	else
		compare(rows, n);
	lc_ran = 1;
	free(lc_rows);
	lc_rows = rows;
	lc_n = n;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	log_debug("linkcheck: %zu degraded links, %lld us", n,
	    (long long)(t1.tv_sec - t0.tv_sec) * 1000000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000);
}

/* ---- The rows */

size_t
proxy_linkcheck_count(void)
{
	return lc_n;
}

const struct proxy_link_row *
proxy_linkcheck_at(size_t i)
{
	return i < lc_n ? &lc_rows[i] : NULL;
}

const struct proxy_link_row *
proxy_linkcheck_from(uint32_t node, uint8_t port)
{
	size_t lo = 0, hi = lc_n;
	struct proxy_link_row key;

	key.node = node;
	key.port = port;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (row_cmp(&lc_rows[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < lc_n ? &lc_rows[lo] : NULL;
}

