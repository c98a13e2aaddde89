/* gw_ctl: a unix stream socket for day-2 operations. One request line,
 * one answer, then the server closes the connection:
 *
 *   nodes            every node: GUID, name, type, LID, reachability,
 *                    route and polling policy
 *   node NAME        one node and its ports
 *   sweep            start a discovery sweep
 *   flush [NAME]     drop cached attributes and what the node lacks
 *   stats            MAD engine, cache, SNMP and sweep statistics
 *   links --degraded the links below what they should run at
 *   congestion [NAME] PortXmitWait and its ratio per port of a node, or
 *                    the fabric's ports with a ratio above 0
 *   topology SUB     the fabric's topology: pin, diff, show (the
 *                    blueprint), slurm (topology.conf; docs/health.md)
 *
 * The socket is created mode 0660 so only the service user, its group
 * and root can use it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "codec/attr.h"
#include "gateway/control.h"
#include "gateway/ha.h"
#include "gateway/mib.h"
#include "gateway/notify.h"
#include "gateway/snmp.h"
#include "gateway/subnet.h"
#include "gateway/topo_slurm.h"
#include "proxy/discover.h"
#include "proxy/health.h"
#include "proxy/inform.h"
#include "proxy/linkcheck.h"
#include "proxy/mad.h"
#include "proxy/poller.h"
#include "proxy/reread.h"
#include "proxy/sa.h"
#include "proxy/watch.h"
#include "proxy/tunnel.h"
#include "store/blueprint.h"
#include "proxy/verdict.h"
#include "store/cache.h"
#include "store/ckpt.h"
#include "store/counters.h"
#include "store/events.h"
#include "store/schema.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"

static int	ctl_fd = -1;
static char	ctl_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

static const char *
type_name(uint8_t t)
{
	return t == STORE_NODE_SWITCH ? "switch" : t == STORE_NODE_CA ? "ca" :
	    t == STORE_NODE_ROUTER ? "router" : "?";
}

static void
node_line(FILE *f, const struct store_node *n)
{
	char route[4 * STORE_PATH_MAX + 4], names[2 * STORE_DESC_LEN + 40];
	struct proxy_health_info hi;

	store_path_format(&n->route, route, sizeof(route));
	proxy_health_get(n->idx, &hi);
	fprintf(f, "0x%016llx %-16s %-6s lid %-5u %-11s route %s policy %s "
	    "state %s", (unsigned long long)n->guid,
	    n->alias ? n->alias : n->desc, type_name(n->type), n->lid,
	    !proxy_mad_port_up() ? "stale" : n->reachable ? "reachable" :
	    "unreachable", route,
	    proxy_poll_policy_name(n->idx), proxy_health_name(hi.state));
	/* A description shared with other nodes names none of them. */
	if (strstr(store_descname_names(n, names, sizeof(names)),
	    "(ambiguous)") != NULL)
		fprintf(f, " names %s", names);
	fprintf(f, "\n");
}

/* The node's error state (proxy/health.h). */
static void
health_lines(FILE *f, const struct store_node *n)
{
	struct proxy_health_info hi;
	uint64_t now = ev_now();
	char buf[256];

	proxy_health_get(n->idx, &hi);
	fprintf(f, "state: %s", proxy_health_name(hi.state));
	if (hi.state != HEALTH_OK) {
		fprintf(f, " (requests by %s fail at once; next probe in "
		    "%llu ms, hold-down %llu s", proxy_health_ways_name(hi.held,
		    buf, sizeof(buf)), (unsigned long long)(hi.until > now ?
		    hi.until - now : 0), (unsigned long long)(hi.hold_ms /
		    1000));
		if (hi.good)
			fprintf(f, "; answering by %s", proxy_health_ways_name(
			    hi.good, buf, sizeof(buf)));
		fprintf(f, ")");
	} else if (hi.fails)
		fprintf(f, " (%u requests in a row unanswered)", hi.fails);
	fprintf(f, "\n");
	if (hi.mkey_prot < 0)
		fprintf(f, "mkey: protection unknown (no PortInfo read yet)\n");
	else
		fprintf(f, "mkey: protection bits %d, our M_Key %s\n",
		    hi.mkey_prot, hi.mkey_mismatch ? "does NOT match" :
		    hi.mkey_prot ? "matches" : "is not checked for reads");
}

static void
cmd_node(FILE *f, const char *name)
{
	const struct store_node *n = store_node_resolve(name, strlen(name));
	const struct gw_degraded *dg;
	char lacks[256], names[2 * STORE_DESC_LEN + 40];

	if (n == NULL) {
		fprintf(f, "error: no node named '%s'\n", name);
		return;
	}
	node_line(f, n);
	fprintf(f, "description: %s\nnames: %s\nports: %u\nvendor 0x%06x "
	    "device 0x%04x revision 0x%08x\nfirst seen %lld, last seen %lld\n",
	    n->desc, store_descname_names(n, names, sizeof(names)),
	    n->num_ports, n->vendor_id, n->device_id, n->revision,
	    (long long)n->first_seen, (long long)n->last_seen);
	health_lines(f, n);
	fprintf(f, "lacks: %s\n", attr_unsup_names(n->unsupported,
	    lacks, sizeof(lacks)));
	{
		/* IB SNMP Tunneling: the policy's mode, the last probe. */
		const struct proxy_policy *pol = proxy_poll_policy(n->idx);
		static const char *states[] = { "not probed", "agent answers",
		    "no agent" };
		enum store_tun ts = proxy_tun_state(n);

		fprintf(f, "tunnel: %s, %s",
		    proxy_poll_tunnel_mode_name(pol ? pol->tunnel : 0),
		    states[ts <= STORE_TUN_NONE ? ts : 0]);
		if (n->tunnel_probed)
			fprintf(f, " (probed %lld)", (long long)n->tunnel_probed);
		fprintf(f, ", last RAddress %u, messages at once %d\n",
		    proxy_tun_last_raddr(n->idx),
		    proxy_tun_node_inflight(n->idx));
	}
	{
		struct proxy_mad_node_stats ms;

		(void)proxy_mad_node_stats(n->guid, &ms);	/* zero if none */
		fprintf(f, "mads: sent %llu (PerfMgt %llu, retries %llu) "
		    "timeouts %llu errors %llu\n",
		    (unsigned long long)ms.sent,
		    (unsigned long long)ms.perf_sent,
		    (unsigned long long)ms.retries,
		    (unsigned long long)ms.timeouts,
		    (unsigned long long)ms.errors);
	}
	dg = gw_degraded_get(n->idx);
	fprintf(f, "cache entries: %zu\n", cache_node_entries(n->idx));
	fprintf(f, "degraded answers: stale %llu zero %llu skipped %llu\n",
	    (unsigned long long)dg->stale, (unsigned long long)dg->zero,
	    (unsigned long long)dg->skipped);
	for (int p = 0; p <= n->num_ports; p++) {
		const struct store_port *pt = &n->ports[p];
		char route[4 * STORE_PATH_MAX + 4] = "-";

		if (!pt->valid)
			continue;
		if (pt->route.hop[0] != 0xff)
			store_path_format(&pt->route, route, sizeof(route));
		fprintf(f, "port %3d lid %-5u state %u phys %u width %u speed "
		    "0x%02x", p, pt->lid, pt->state, pt->phys_state, pt->width,
		    pt->speed);
		if (pt->remote_guid)
			fprintf(f, " -> 0x%016llx[%u]",
			    (unsigned long long)pt->remote_guid,
			    pt->remote_port);
		fprintf(f, " route %s\n", route);
	}
}

/* IB SNMP Tunneling: the client's counters (proxy/tunnel.h) and the
 * answers the node contexts keep (mib_tunnel.c). */
static void
cmd_stats_tunnel(FILE *f)
{
	struct proxy_tun_stats t;
	struct gw_mib_tunnel_stats g;

	proxy_tun_get_stats(&t);
	gw_mib_tunnel_stats(&g);
	fprintf(f, "tunnel probes %llu agents %llu none %llu requests %llu "
	    "answers %llu timeouts %llu retries %llu refused %llu "
	    "segments-out %llu segments-in %llu malformed %llu spoofed %llu "
	    "unmatched %llu broken %llu pending %zu out-peak %llu cached "
	    "%llu deadlines %llu errors %llu\n", (unsigned long long)t.probes,
	    (unsigned long long)t.probe_ok, (unsigned long long)t.probe_none,
	    (unsigned long long)t.requests, (unsigned long long)t.answers,
	    (unsigned long long)t.timeouts, (unsigned long long)t.retries,
	    (unsigned long long)t.refused, (unsigned long long)t.segments_out,
	    (unsigned long long)t.segments_in, (unsigned long long)t.malformed,
	    (unsigned long long)t.spoofed, (unsigned long long)t.unmatched,
	    (unsigned long long)t.broken, proxy_tun_pending(),
	    (unsigned long long)t.out_peak, (unsigned long long)g.cached, (unsigned long long)g.deadlines,
	    (unsigned long long)g.errors);
}

/* The database's schema and the releases that opened it
 * (docs/upgrades.md). */
static void
cmd_stats_store(FILE *f)
{
	struct store_info si;
	struct store_ckpt_stats ck;

	store_info(&si);
	fprintf(f, "store schema %d release %s previous-release %s", si.schema,
	    si.release[0] ? si.release : "-", si.previous[0] ? si.previous :
	    "-");
	if (si.migrated_from > 0)
		fprintf(f, " migrated-from %d backup %s", si.migrated_from,
		    si.backup);
	store_ckpt_stats(&ck);
	fprintf(f, " checkpoints-asked %lu checkpoints %lu loop-checkpoints "
	    "%lu\n", ck.asked, ck.done, ck.loop);
}

/* Several subnets (docs/subnets.md): the requests handed on. */
static void
cmd_stats_subnets(FILE *f)
{
	struct gw_subnet_stats ss;

	if (gw_subnet_count() <= 1)
		return;
	gw_subnet_get_stats(&ss);
	fprintf(f, "subnets %d forwarded %llu answered %llu lost %llu "
	    "restarts %llu\n", gw_subnet_count(),
	    (unsigned long long)ss.forwarded, (unsigned long long)ss.answered,
	    (unsigned long long)ss.lost, (unsigned long long)ss.restarts);
}

static void
cmd_stats(FILE *f)
{
	struct proxy_mad_stats m;
	struct cache_stats c;
	struct gw_snmp_stats g;
	struct proxy_sweep_stats s;
	struct proxy_sa_stats sa;
	struct proxy_inform_stats inf;
	struct proxy_watch_stats w;
	struct proxy_reread_stats rr;
	uint64_t commits, rows;

	proxy_mad_get_stats(&m);
	cache_get_stats(&c);
	gw_snmp_get_stats(&g);
	proxy_discover_get_stats(&s);
	fprintf(f, "mad sent %llu answered %llu timeouts %llu retries %llu "
	    "errors %llu malformed %llu throttled %llu inflight %llu queued "
	    "%llu unknown-tid %llu foreign-agent %llu perfmgt %llu\n",
	    (unsigned long long)m.sent,
	    (unsigned long long)m.answered, (unsigned long long)m.timeouts,
	    (unsigned long long)m.retries, (unsigned long long)m.errors,
	    (unsigned long long)m.malformed, (unsigned long long)m.throttled,
	    (unsigned long long)m.inflight, (unsigned long long)m.queued,
	    (unsigned long long)m.stale, (unsigned long long)m.stray,
	    (unsigned long long)m.perf_sent);
	fprintf(f, "cache hits %llu misses %llu coalesced %llu fetches %llu "
	    "failures %llu entries %llu stale %llu\n",
	    (unsigned long long)c.hits, (unsigned long long)c.misses,
	    (unsigned long long)c.coalesced, (unsigned long long)c.fetches,
	    (unsigned long long)c.failures, (unsigned long long)c.entries,
	    (unsigned long long)c.stale);
	fprintf(f, "port %s failures %llu reopens %llu\n", m.port_down ?
	    "down" : "up", (unsigned long long)m.port_failures,
	    (unsigned long long)m.reopens);
	cmd_stats_store(f);
	counters_stats(&commits, &rows);
	fprintf(f, "counters commits %llu rows %llu\n",
	    (unsigned long long)commits, (unsigned long long)rows);
	fprintf(f, "snmp requests %llu node-requests %llu fabric-requests "
	    "%llu bad-names %llu unknown-contexts %llu deadlines %llu\n",
	    (unsigned long long)g.requests,
	    (unsigned long long)g.node_requests,
	    (unsigned long long)g.fabric_requests,
	    (unsigned long long)g.bad_names,
	    (unsigned long long)g.unknown_contexts,
	    (unsigned long long)gw_mib_deadlines());
	cmd_stats_subnets(f);
	fprintf(f, "sweeps %u nodes %u links %u lost %u last %llu ms "
	    "abandoned %u\n", s.sweeps, s.nodes, s.links, s.lost,
	    (unsigned long long)s.duration_ms, s.abandoned);
	/* How sweeps are driven now (docs/design.md, "Sweeps"). */
	fprintf(f, "sweep-driver %s period %d s event-sweeps %u checks %u "
	    "next-in-ms %lld light-sweeps %u last-descriptions %u\n",
	    s.safety ? "sm-events" :
	    "interval", proxy_discover_period(), s.event_sweeps, s.checks,
	    s.next_ms == 0 ? -1LL : s.next_ms > ev_now() ?
	    (long long)(s.next_ms - ev_now()) : 0LL, s.light_sweeps, s.descs);
	proxy_reread_get_stats(&rr);
	fprintf(f, "reread readings %llu changes %llu smps %llu sweeps %llu "
	    "last-sweep-why %s\n", (unsigned long long)rr.readings,
	    (unsigned long long)rr.changes, (unsigned long long)rr.smps,
	    (unsigned long long)rr.sweeps, rr.why ? rr.why : "-");
	proxy_watch_get_stats(&w);
	fprintf(f, "watch now %u longest-s %u watched %llu flapping %llu "
	    "reads %llu changes %llu settled %llu dropped %llu\n", w.now,
	    w.longest_s, (unsigned long long)w.watched,
	    (unsigned long long)w.flapping, (unsigned long long)w.reads,
	    (unsigned long long)w.changes, (unsigned long long)w.settled,
	    (unsigned long long)w.dropped);
	proxy_sa_get_stats(&sa);
	fprintf(f, "sa sm-lid %u queries %llu answers %llu failures %llu "
	    "truncated %llu mcmember-records %zu services %zu\n",
	    sa.sm_lid, (unsigned long long)sa.queries,
	    (unsigned long long)sa.answers, (unsigned long long)sa.failures,
	    (unsigned long long)sa.truncated,
	    store_sa_peek(STORE_SA_MCMEMBER)->n,
	    store_sa_peek(STORE_SA_SERVICE)->n);
	proxy_inform_get_stats(&inf);
	fprintf(f, "sm-events %s sm-lid %u subscriptions %llu failures %llu "
	    "lost %llu reports %llu malformed %llu requests %llu unexpected "
	    "%llu foreign %llu master-checks %llu unverified %llu\n",
	    inf.state, inf.sm_lid,
	    (unsigned long long)inf.subscriptions,
	    (unsigned long long)inf.failures, (unsigned long long)inf.lost,
	    (unsigned long long)inf.reports,
	    (unsigned long long)inf.malformed,
	    (unsigned long long)m.requests,
	    (unsigned long long)m.unexpected,
	    (unsigned long long)inf.foreign,
	    (unsigned long long)inf.master_checks,
	    (unsigned long long)inf.unverified);
	cmd_stats_tunnel(f);
	gw_ha_stats(f);
}

/* The last events kept (store/events.h), oldest first: time, seq,
 * source, type, node and port, what it says. */
static void
cmd_events(FILE *f, const char *arg)
{
	size_t n = store_event_count(), from = 0;
	struct store_event_stats st;
	char *end;
	unsigned long want;

	if (arg != NULL) {
		want = strtoul(arg, &end, 10);
		if (*arg == '\0' || *end != '\0') {
			fprintf(f, "error: events [COUNT]\n");
			return;
		}
		if (want < n)
			from = n - want;
	}
	store_event_get_stats(&st);
	fprintf(f, "events posted %llu kept %llu duplicates %llu damped "
	    "%llu burst %llu\n", (unsigned long long)st.posted,
	    (unsigned long long)st.kept, (unsigned long long)st.duplicates,
	    (unsigned long long)st.damped, (unsigned long long)st.burst);
	for (size_t i = from; i < n; i++) {
		const struct store_event *ev = store_event_at(i);
		time_t t = (time_t)(ev->when / 1000);
		struct tm tm;
		char ts[32];

		gmtime_r(&t, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(f, "%s.%03dZ %llu %s %s port %u %s", ts,
		    (int)(ev->when % 1000), (unsigned long long)ev->seq,
		    store_event_source_name(ev->source),
		    store_event_type_name(ev->type), ev->port, ev->text);
		if (ev->suppressed && ev->node_guid != 0)	/* else a sum */
			fprintf(f, " (after %u damped)", ev->suppressed);
		fputc('\n', f);
	}
}

/* One end of a link: its context name (gw_context_name) and port. */
static const char *
link_end(const struct store_node *n, uint64_t guid, unsigned port,
    char *buf, size_t len)
{
	char ctx[GW_CONTEXT_LEN];

	if (n != NULL)
		gw_context_name(n, ctx, sizeof(ctx));
	else
		snprintf(ctx, sizeof(ctx), "0x%016llx",
		    (unsigned long long)guid);
	snprintf(buf, len, "%s[%u]", ctx, port);
	return buf;
}

static void
link_line(FILE *f, const struct proxy_link_row *r)
{
	char a[GW_CONTEXT_LEN + 8], b[GW_CONTEXT_LEN + 8], ts[32];
	time_t t = (time_t)(r->since / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "%s <-> %s %ux %s expected %ux %s (width: %s, speed: %s) "
	    "since %s\n", link_end(store_node_at(r->node), r->guid, r->port,
	    a, sizeof(a)), link_end(store_node_by_guid(r->peer_guid),
	    r->peer_guid, r->peer_port, b, sizeof(b)), r->act_lanes,
	    smp_speed_name(r->act_speed), r->exp_lanes,
	    smp_speed_name(r->exp_speed), proxy_linkcheck_rule_name(
	    r->rule_width), proxy_linkcheck_rule_name(r->rule_speed), ts);
}

/* links --degraded: ibsnmpgwDegradedLinkTable, as the last check
 * found it (docs/health.md). */
static void
cmd_links(FILE *f, const char *arg)
{
	size_t n = proxy_linkcheck_count();

	if (arg == NULL || strcmp(arg, "--degraded") != 0) {
		fprintf(f, "error: links --degraded\n");
		return;
	}
	fprintf(f, "degraded links %zu\n", n);
	for (size_t i = 0; i < n; i++)
		link_line(f, proxy_linkcheck_at(i));
}

/* The notification targets and what they were sent. */
static void
cmd_targets(FILE *f)
{
	static const char *kind[] = { "trap v2c", "inform v2c", "trap v3",
	    "inform v3" };
	struct gw_notify_stats st;
	const struct gw_target *t;
	u_char eid[SNMP_MAXBUF_SMALL];
	size_t eidlen = snmpv3_get_engineID(eid, sizeof(eid));

	/* v3 trap receivers need it (snmptrapd: createUser -e ID). */
	fprintf(f, "targets %zu engine-id 0x", gw_notify_count());
	for (size_t i = 0; i < eidlen; i++)
		fprintf(f, "%02x", eid[i]);
	fputc('\n', f);
	for (size_t i = 0; (t = gw_notify_target(i, &st)) != NULL; i++)
		fprintf(f, "%s %s %s sent %llu acked %llu failed %llu retried "
		    "%llu dropped %llu queued %llu filtered %llu\n", t->name,
		    t->address, kind[(t->version == 3) * 2 + t->inform],
		    (unsigned long long)st.sent, (unsigned long long)st.acked,
		    (unsigned long long)st.failed,
		    (unsigned long long)st.retried,
		    (unsigned long long)st.dropped,
		    (unsigned long long)st.queued,
		    (unsigned long long)st.filtered);
}

static const struct store_node *
topo_node(size_t i, void *arg)
{
	return store_node_at((uint32_t)i);
}

/* Slurm's topology.conf (gateway/topo_slurm.c). */
static void
cmd_topology_slurm(FILE *f, char *args)
{
	if (!proxy_mad_port_up())
		fprintf(f, "# the gateway's port is down: the fabric as last "
		    "swept\n");
	gw_topo_slurm(f, store_node_count(), topo_node, NULL);
}

/* docs/health.md, "Congestion": one port's line. */
static int
congestion_line(uint64_t guid, const struct ctr_port *p, void *arg)
{
	FILE *f = arg;
	const struct ctr_acc *a = &p->c[CTR_XMIT_WAIT];
	const struct store_node *n = store_node_at(p->node);
	uint32_t dt, ppm = counters_xmit_wait(p, &dt);

	if (!ctr_valid(a) || n == NULL)
		return 0;
	fprintf(f, "0x%016llx %-16s port %3u xmit-wait %llu ratio %u ppm "
	    "interval %u ms source %s%s\n", (unsigned long long)guid,
	    n->alias ? n->alias : n->desc, p->port,
	    (unsigned long long)a->total, ppm, dt,
	    p->ext_src ? "PortCountersExtended" : "PortCounters",
	    ctr_saturated(a, counters_width(p, CTR_XMIT_WAIT)) ?
	    " saturated" : "");
	return 0;
}

static int
congested_line(uint64_t guid, const struct ctr_port *p, void *arg)
{
	uint32_t dt;

	return counters_xmit_wait(p, &dt) > 0 ?
	    congestion_line(guid, p, arg) : 0;
}

static void
cmd_congestion(FILE *f, const char *name)
{
	const struct store_node *n;
	uint32_t node = 0;
	unsigned port = 0;

	if (name == NULL) {
		counters_walk(&node, &port, congested_line, f);
		return;
	}
	if ((n = store_node_resolve(name, strlen(name))) == NULL) {
		fprintf(f, "error: no node named '%s'\n", name);
		return;
	}
	for (int p = 1; p <= n->num_ports; p++) {
		const struct ctr_port *cp = counters_port(n->idx, (uint8_t)p);

		if (cp != NULL)
			congestion_line(n->guid, cp, f);
	}
}

/* ---- ctl topology (docs/health.md) */

/* The fabric as it is now becomes the blueprint. */
static void
topo_pin(FILE *f, char *args)
{
	char why[PATH_MAX + 128], desc[PATH_MAX + 128];

	if (store_blueprint_pin(why, sizeof(why)) == -1) {
		fprintf(f, "error: %s\n", why);
		return;
	}
	store_blueprint_describe(desc, sizeof(desc));
	fprintf(f, "pinned: %s\n", desc);
}

static char
diff_mark(int kind)
{
	switch (kind) {
	case STORE_BP_NODE_MISSING:
	case STORE_BP_CABLE_MISSING:
		return '<';		/* the blueprint's, not the fabric's */
	case STORE_BP_NODE_UNEXPECTED:
	case STORE_BP_CABLE_UNEXPECTED:
		return '>';		/* the fabric's, not the blueprint's */
	}
	return '!';			/* both, differently */
}

/* One line per difference, as ibnetdiscover --diff marks them. */
static void
topo_diff(FILE *f, char *args)
{
	char desc[PATH_MAX + 128], ts[32];

	store_blueprint_describe(desc, sizeof(desc));
	fprintf(f, "%s\n", desc);
	for (size_t i = 0; i < store_blueprint_count(); i++) {
		const struct store_bp_diff *d = store_blueprint_at(i);
		time_t t = (time_t)d->since;
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(f, "%c %u %s: ", diff_mark(d->kind), d->index,
		    store_blueprint_kind_name(d->kind));
		if (d->expected[0] && d->found[0])
			fprintf(f, "%s planned, %s found", d->expected,
			    d->found);
		else
			fprintf(f, "%s", d->expected[0] ? d->expected :
			    d->found);
		fprintf(f, " (since %s)\n", ts);
	}
}

/* The blueprint in ibnetdiscover's format. */
static void
topo_show(FILE *f, char *args)
{
	store_blueprint_write(f);
}

/* One line per subcommand. */
static const struct {
	const char	*name;
	void		(*fn)(FILE *f, char *args);
} topo_cmds[] = {
	{ "pin", topo_pin },
	{ "diff", topo_diff },
	{ "show", topo_show },
	{ "slurm", cmd_topology_slurm },
};

static void
cmd_topology(FILE *f, char *sub, char *args)
{
	size_t i, n = sizeof(topo_cmds) / sizeof(topo_cmds[0]);

	for (i = 0; sub != NULL && i < n; i++)
		if (strcmp(sub, topo_cmds[i].name) == 0) {
			topo_cmds[i].fn(f, args);
			return;
		}
	fprintf(f, "error: topology");
	for (i = 0; i < n; i++)
		fprintf(f, "%c%s", i ? '|' : ' ', topo_cmds[i].name);
	fputc('\n', f);
}

static void
handle(FILE *f, char *line)
{
	char *cmd = strtok(line, " \t\r\n"), *arg = strtok(NULL, " \t\r\n");

	if (cmd == NULL)
		fprintf(f, "error: empty command\n");
	else if (strcmp(cmd, "nodes") == 0) {
		for (size_t i = 0; i < store_node_count(); i++)
			node_line(f, store_node_at(i));
	} else if (strcmp(cmd, "node") == 0 && arg)
		cmd_node(f, arg);
	else if (strcmp(cmd, "sweep") == 0)
		fprintf(f, proxy_discover_start() == 0 ? "sweep started\n" :
		    proxy_discover_running() ? "a sweep is already running\n" :
		    !proxy_mad_port_up() ? "error: the local port is down; a "
		    "sweep starts when it is back\n" : "error: the sweep "
		    "failed at once (see the log)\n");
	else if (strcmp(cmd, "flush") == 0) {
		if (arg == NULL) {
			long dropped = cache_flush(UINT32_MAX);

			for (size_t i = 0; i < store_node_count(); i++)
				store_node_clear_unsupported((uint32_t)i);
			fprintf(f, "cache flushed, %ld entries dropped\n",
			    dropped);
		} else {
			const struct store_node *n = store_node_resolve(arg,
			    strlen(arg));
			if (n == NULL)
				fprintf(f, "error: no node named '%s'\n", arg);
			else {
				long dropped = cache_flush(n->idx);

				store_node_clear_unsupported(n->idx);
				fprintf(f, "cache of %s flushed, %ld entries "
				    "dropped\n", arg, dropped);
			}
		}
	} else if (strcmp(cmd, "stats") == 0)
		cmd_stats(f);
	else if (strcmp(cmd, "events") == 0)
		cmd_events(f, arg);
	else if (strcmp(cmd, "targets") == 0)
		cmd_targets(f);
	else if (strcmp(cmd, "links") == 0)
		cmd_links(f, arg);
	else if (strcmp(cmd, "ha") == 0)
		gw_ha_ctl(f, arg);
	else if (strcmp(cmd, "topology") == 0)
		cmd_topology(f, arg, strtok(NULL, "\r\n"));
	else if (strcmp(cmd, "congestion") == 0)
		cmd_congestion(f, arg);
	else if (strcmp(cmd, "ports") == 0 && arg != NULL &&
	    strcmp(arg, "--unhealthy") == 0)
		proxy_verdict_print(f);		/* docs/health.md */
	else
		fprintf(f, "error: unknown command '%s' (nodes, node NAME, "
		    "sweep, flush [NAME], stats, events [COUNT], targets, "
		    "links --degraded, ha master|backup|yield|fault|status, "
		    "topology pin|diff|show|slurm, congestion [NAME], "
		    "ports --unhealthy)\n", cmd);
}

static void
accept_cb(int fd, short revents, void *arg)
{
	char line[GW_CTL_MAX_LINE];
	struct timeval tv = { 1, 0 };
	ssize_t n, len = 0;
	int c = accept(fd, NULL, NULL);
	FILE *f;

	if (c == -1)
		return;
	/* Local and privileged, but still: timed reads and writes, so a
	 * client that stops reading cannot stall the event loop. */
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (len < (ssize_t)sizeof(line) - 1 &&
	    (n = read(c, line + len, sizeof(line) - 1 - len)) > 0) {
		len += n;
		if (memchr(line, '\n', len))
			break;
	}
	line[len > 0 ? len : 0] = '\0';
	if ((f = fdopen(c, "w")) == NULL) {
		close(c);
		return;
	}
	handle(f, line);
	fclose(f);
}

/* Remove a socket left by an earlier run; refuse to take the socket of
 * a running instance or to remove anything that is not a socket. */
static int
remove_stale(const struct sockaddr_un *sun)
{
	struct stat st;
	int s;

	if (lstat(sun->sun_path, &st) == -1)
		return 0;
	if (!S_ISSOCK(st.st_mode)) {
		log_warnx("control: %s exists and is not a socket",
		    sun->sun_path);
		return -1;
	}
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) != -1 &&
	    connect(s, (const struct sockaddr *)sun, sizeof(*sun)) == 0) {
		close(s);
		log_warnx("control: %s: another ibsnmpgw is listening",
		    sun->sun_path);
		return -1;
	}
	if (s != -1)
		close(s);
	unlink(sun->sun_path);
	return 0;
}

int
gw_ctl_init(const char *path)
{
	struct sockaddr_un sun;
	mode_t old;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		log_warnx("control: socket path too long: %s", path);
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, path);
	if ((ctl_fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1) {
		log_warn("control: socket");
		return -1;
	}
	if (remove_stale(&sun) == -1) {
		close(ctl_fd);
		ctl_fd = -1;
		return -1;
	}
	old = umask(0117);		/* the socket is created 0660 */
	if (bind(ctl_fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(ctl_fd, 4) == -1) {
		umask(old);
		log_warn("control: %s", path);
		close(ctl_fd);
		ctl_fd = -1;
		return -1;
	}
	umask(old);
	snprintf(ctl_path, sizeof(ctl_path), "%s", path);
	return ev_fd_add(ctl_fd, POLLIN, accept_cb, NULL);
}

void
gw_ctl_finalise(void)
{
	if (ctl_fd >= 0) {
		ev_fd_del(ctl_fd);
		close(ctl_fd);
		unlink(ctl_path);
	}
	ctl_fd = -1;
}
