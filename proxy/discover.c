/* proxy_discover: breadth-first directed-route sweep. */
#include "config.h"

#include <errno.h>
#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/diff.h"
#include "proxy/discover.h"
#include "proxy/health.h"
#include "proxy/mad.h"
#include "proxy/sa.h"
#include "proxy/watch.h"
#include "codec/smp.h"
#include "store/cache.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"
#include "util/pool.h"

/* One outstanding SMP. */
#define DISC_GARBLED_RETRIES	2

struct dreq {
	uint16_t		 attr;
	uint32_t		 mod;
	uint64_t		 key;		/* proxy_mad node key */
	uint8_t			 garbled;	/* answers not decoded */
	uint8_t			 port;		/* PortInfo modifier */
	struct store_path	 path;
	uint64_t		 from_guid;	/* NodeInfo probes: link origin */
	uint8_t			 from_port;
	struct proxy_dnode		*dn;
};

static struct htab		 disc_nodes;
/* The sweep's dnodes and their ports: gone together at its end. */
static struct pool_region	 disc_mem = POOL_REGION_INIT;
static struct proxy_dnode		**disc_list;
static size_t			 disc_n, disc_cap;
static int			 disc_running, disc_outstanding;
static struct proxy_sweep_conf	 disc_conf;
static int			 disc_on;	/* between init and finalise */
static int			 disc_sm_up;	/* SM events flow */
static int			 disc_want;	/* a sweep is asked for */
static int			 disc_again;	/* asked for during a sweep */
/* NodeDescription changes only with trap 144 (14.2.5.1, its
 * NodeDescription-changed flag): an event sweep reads none unless one
 * came, or Reports may have been missed; every other sweep reads all. */
static int			 disc_desc_due = 1;
static int			 disc_light;	/* this sweep reads none */
static int			 disc_sm_seen;	/* SM events flowed once */
static unsigned			 disc_descs;	/* NodeDescriptions asked */
static const char		*disc_why;	/* of the sweep asked for */
static const char		*disc_cause;	/* of the running sweep */
static uint64_t			 disc_due;	/* ev_now() the timer fires */
static uint64_t			 disc_last_end;	/* ev_now() */
static uint64_t			 disc_started;
static struct ev_timer		 disc_timer;
static struct proxy_sweep_stats	 disc_st;
static unsigned			 disc_links, disc_errors;
static unsigned			 disc_gaps;	/* see walk_gap() */
static uint64_t			 disc_smps;
static void			(*disc_done_fn)(void *);
static void			*disc_done_arg;
static void			(*disc_check_fn)(void *);
static void			*disc_check_arg;
static struct store_sm		*disc_sms;	/* SMInfo answers */
static size_t			 disc_nsms, disc_smcap;

static void dreq_cb(void *arg, int status, const uint8_t *mad, size_t len);

/* A read that steers the walk (NodeInfo, PortInfo) did not happen:
 * what lies behind it was not reached, and the sweep is no word on what
 * it did not reach (proxy_sweep_view.complete). SMInfo, NodeDescription
 * and SwitchInfo steer nothing. */
static void
walk_gap(uint16_t attr)
{
	if (attr == SMP_ATTR_NODE_INFO || attr == SMP_ATTR_PORT_INFO)
		disc_gaps++;
}

static uint64_t
path_key(const struct store_path *p)
{
	/* Requests before the GUID is known are grouped by route. */
	return htab_hash(p->hop, p->cnt + 1) | 1ULL << 63;
}

static int
send_smp(uint16_t attr, uint32_t mod, const struct store_path *path,
    uint64_t key, struct dreq *proto)
{
	struct proxy_mad_args a;
	struct dreq *r = malloc(sizeof(*r));

	if (r == NULL) {
		log_warn("discover");
		walk_gap(attr);
		return -1;
	}
	*r = *proto;
	r->attr = attr;
	r->mod = mod;
	r->key = key;
	r->path = *path;
	memset(&a, 0, sizeof(a));
	a.node_key = key;
	a.target.path = *path;
	a.mgmt_class = ATTR_CLASS_SMI_DR;
	a.method = SMP_METHOD_GET;
	a.attr_id = attr;
	a.attr_mod = mod;
	/* A port that claims IsSM without an SM answering (a stale or
	 * garbled CapabilityMask) must not fail the node's other SMPs. */
	a.optional = attr == SMP_ATTR_SM_INFO;
	/* Counted before the submit: a send that fails at once calls
	 * dreq_cb from inside it. */
	disc_outstanding++;
	if (proxy_mad_submit(&a, dreq_cb, r) == -1) {
		disc_outstanding--;
		walk_gap(attr);
		free(r);
		disc_errors++;
		return -1;
	}
	disc_smps++;
	return 0;
}

static void
probe(const struct store_path *path, uint64_t from_guid, uint8_t from_port)
{
	struct dreq proto = { 0 };

	proto.from_guid = from_guid;
	proto.from_port = from_port;
	send_smp(SMP_ATTR_NODE_INFO, 0, path, path_key(path), &proto);
}

static void
query_port(struct proxy_dnode *dn, uint8_t port, const struct store_path *path)
{
	struct dreq proto = { 0 };

	proto.dn = dn;
	proto.port = port;
	send_smp(SMP_ATTR_PORT_INFO, port, path, dn->n.guid, &proto);
}

static struct proxy_dnode *
dnode_add(const struct smp_nodeinfo *ni, const struct store_path *path)
{
	struct proxy_dnode *dn = pool_region_alloc(&disc_mem, sizeof(*dn));

	if (dn == NULL || (dn->ports = pool_region_alloc(&disc_mem,
	    (ni->num_ports + 1) * sizeof(*dn->ports))) == NULL) {
		log_warn("discover");
		return NULL;
	}
	if (disc_n == disc_cap) {
		size_t cap = disc_cap ? disc_cap * 2 : 256;
		struct proxy_dnode **v = realloc(disc_list, cap * sizeof(*v));
		if (v == NULL)
			return NULL;
		disc_list = v;
		disc_cap = cap;
	}
	dn->n.guid = ni->node_guid;
	dn->n.type = ni->node_type;
	dn->n.num_ports = ni->num_ports;
	dn->n.vendor_id = ni->vendor_id;
	dn->n.device_id = ni->device_id;
	dn->n.revision = ni->revision;
	dn->n.system_guid = ni->system_image_guid;
	dn->n.route = *path;
	dn->entry_port = ni->local_port;
	for (int p = 0; p <= ni->num_ports; p++) {
		dn->ports[p].num = p;
		dn->ports[p].route.hop[0] = 0xff;
	}
	if (htab_put_u64(&disc_nodes, ni->node_guid, dn) == -1)
		return NULL;
	disc_list[disc_n++] = dn;
	return dn;
}

static void
link_ports(uint64_t a_guid, uint8_t a_port, struct proxy_dnode *b, uint8_t b_port)
{
	struct proxy_dnode *a = htab_get_u64(&disc_nodes, a_guid);

	if (a == NULL || a_port > a->n.num_ports || b_port > b->n.num_ports)
		return;
	if (a->ports[a_port].remote_guid == 0)
		disc_links++;
	a->ports[a_port].remote_guid = b->n.guid;
	a->ports[a_port].remote_port = b_port;
	b->ports[b_port].remote_guid = a_guid;
	b->ports[b_port].remote_port = a_port;
}

/* got_*: -1 when the answer does not decode (dreq_cb asks again). */
static int
got_nodeinfo(struct dreq *r, const uint8_t *data)
{
	struct smp_nodeinfo ni;
	struct dreq proto;
	struct proxy_dnode *dn;
	int is_new = 0;

	if (smp_decode_nodeinfo(data, SMP_DATA_SIZE, &ni) == -1) {
		static struct log_limit lim;	/* a peer's to cause */
		char p[256];
		store_path_format(&r->path, p, sizeof(p));
		log_limited(&lim, LOG_WARNING, "discover: garbage NodeInfo "
		    "at route %s", p);
		return -1;
	}
	if ((dn = htab_get_u64(&disc_nodes, ni.node_guid)) == NULL) {
		const struct store_node *old = store_node_by_guid(ni.node_guid);

		/* The first answer of a sweep sets the node's port count for
		 * the rest of it: one that differs from the inventory's is
		 * read again before it is believed (new hardware says it
		 * twice, a garbled answer does not). */
		if (old != NULL && old->num_ports != ni.num_ports &&
		    r->garbled == 0) {
			log_info("discover: node 0x%016llx reports %u ports, "
			    "%u before; asking again",
			    (unsigned long long)ni.node_guid, ni.num_ports,
			    old->num_ports);
			return -1;
		}
		if ((dn = dnode_add(&ni, &r->path)) == NULL) {
			disc_gaps++;
			return 0;
		}
		is_new = 1;
	} else if (dn->n.num_ports != ni.num_ports) {
		log_warnx("discover: node 0x%016llx reports %u ports, "
		    "earlier %u", (unsigned long long)ni.node_guid,
		    ni.num_ports, dn->n.num_ports);
		return -1;
	}
	if (r->from_guid)
		link_ports(r->from_guid, r->from_port, dn, ni.local_port);
	if (is_new) {
		/* IBA 14.2.5.3: the fields but LocalPortNum and PortGUID
		 * are the node's; the first arrival's are kept. */
		memcpy(dn->n.ninfo, data, SMP_DATA_SIZE);
		dn->n.ninfo_ok = 1;
	}

	if (dn->n.type != STORE_NODE_SWITCH) {
		/* A CA or router port has its own GUID and route. */
		struct store_port *pt = &dn->ports[ni.local_port];
		if (pt->route.hop[0] == 0xff) {
			pt->route = r->path;
			pt->guid = ni.port_guid;
			query_port(dn, ni.local_port, &r->path);
		}
	}
	if (!is_new)
		return 0;
	memset(&proto, 0, sizeof(proto));
	proto.dn = dn;
	/* Kept from the inventory when not read (finish_sweep). */
	if (!disc_light || store_node_by_guid(dn->n.guid) == NULL) {
		disc_descs++;
		send_smp(SMP_ATTR_NODE_DESC, 0, &r->path, dn->n.guid, &proto);
	}
	if (dn->n.type == STORE_NODE_SWITCH) {
		dn->ports[0].guid = ni.port_guid;
		dn->ports[0].route = r->path;
		send_smp(SMP_ATTR_SWITCH_INFO, 0, &r->path, dn->n.guid, &proto);
		for (int p = 0; p <= ni.num_ports; p++)
			query_port(dn, p, &r->path);
	}
	return 0;
}

/* IBA 14.2.5.4; checked by the decoder before it is kept. */
static int
got_switchinfo(struct dreq *r, const uint8_t *data)
{
	struct smp_switchinfo si;

	if (smp_decode_switchinfo(data, SMP_DATA_SIZE, &si) == -1) {
		log_warnx("discover: garbage SwitchInfo from 0x%016llx",
		    (unsigned long long)r->dn->n.guid);
		return -1;
	}
	memcpy(r->dn->n.sinfo, data, SMP_DATA_SIZE);
	r->dn->n.sinfo_ok = 1;
	return 0;
}

/* IBA 14.2.5.13: an SMInfo Get is answered by the SM of that port
 * (or, on a port without one running, by nothing: a timeout). */
static int
got_sminfo(struct dreq *r, const uint8_t *data)
{
	struct smp_sminfo sm;
	struct store_sm s;

	if (smp_decode_sminfo(data, SMP_DATA_SIZE, &sm) == -1) {
		log_warnx("discover: garbage SMInfo from 0x%016llx port %u",
		    (unsigned long long)r->dn->n.guid, r->port);
		return -1;
	}
	memset(&s, 0, sizeof(s));
	s.node_guid = r->dn->n.guid;
	s.port_guid = r->dn->ports[r->port].guid;
	s.port = r->port;
	memcpy(s.sminfo, data, SMP_DATA_SIZE);
	if (disc_nsms == disc_smcap) {
		size_t cap = disc_smcap ? disc_smcap * 2 : 4;
		struct store_sm *a = realloc(disc_sms, cap * sizeof(*a));

		if (a == NULL) {
			log_warn("discover");
			return 0;
		}
		disc_sms = a;
		disc_smcap = cap;
	}
	disc_sms[disc_nsms++] = s;
	return 0;
}

/* Whether the inventory's PortInfo of the port (the last sweep's)
 * has IsSM. */
static int
was_sm(uint64_t guid, int port)
{
	const struct store_node *old = store_node_by_guid(guid);
	struct smp_portinfo pi;

	if (old == NULL || port > old->num_ports ||
	    !old->ports[port].pinfo_ok)
		return 0;
	return smp_decode_portinfo(old->ports[port].pinfo, SMP_DATA_SIZE,
	    &pi) == 0 && (pi.cap_mask & 0x2);
}

static int
got_portinfo(struct dreq *r, const uint8_t *data)
{
	struct proxy_dnode *dn = r->dn;
	struct store_port *pt = &dn->ports[r->port];
	struct smp_portinfo pi;
	struct store_path next;

	if (smp_decode_portinfo(data, SMP_DATA_SIZE, &pi) == -1) {
		static struct log_limit lim;
		log_limited(&lim, LOG_WARNING, "discover: garbage PortInfo "
		    "from 0x%016llx port %u", (unsigned long long)dn->n.guid,
		    r->port);
		return -1;
	}
	store_port_fill(pt, data, &pi);
	/* CapabilityMask.IsSM (IBA 14.2.5.6 Table 155, bit 1): an SM runs
	 * behind the port; its SMInfo goes into the SMInfo table. The
	 * master's port (its own MasterSMLID) is asked at once; another is
	 * asked once the previous sweep saw IsSM there too, so a garbled
	 * CapabilityMask does not cost a timeout (the SMP is optional: it
	 * never fails the node's other SMPs). Switches report it on port 0
	 * only. */
	if ((pi.cap_mask & 0x2) && pi.state >= 2 && pi.lid != 0 &&
	    (pi.lid == pi.sm_lid || was_sm(dn->n.guid, r->port)) &&
	    (dn->n.type != STORE_NODE_SWITCH || r->port == 0)) {
		struct dreq proto = { 0 };

		proto.dn = dn;
		proto.port = r->port;
		send_smp(SMP_ATTR_SM_INFO, 0, &r->path, dn->n.guid, &proto);
	}
	if (dn->n.type == STORE_NODE_SWITCH) {
		pt->route = dn->n.route;
		if (r->port == 0) {
			dn->n.lid = pi.lid;
			return 0;
		}
		/* Switch port 0 carries the LID; data ports copy it. */
	}

	/* Expand through switches, and out of our own CA (route "0"). */
	if (dn->n.type != STORE_NODE_SWITCH && r->path.cnt != 0)
		return 0;
	if (r->port == 0 || pi.phys_state != 5 /* LinkUp */ || pi.state < 2)
		return 0;
	if (r->path.cnt > 0 && r->port == dn->entry_port &&
	    dn->n.type == STORE_NODE_SWITCH)
		return 0;		/* the way we came in */
	/* The far end's probe already found this link (a fat tree's
	 * every uplink is seen first from the spine side): a NodeInfo
	 * through it would say the same again. */
	if (pt->remote_guid != 0)
		return 0;
	if (r->path.cnt + 1 >= STORE_PATH_MAX) {
		disc_gaps++;	/* a link the walk cannot follow */
		return 0;
	}
	next = r->path;
	next.hop[++next.cnt] = r->port;
	probe(&next, dn->n.guid, r->port);
	return 0;
}

/* ---- When sweeps run */

/* Full sweeps are this far apart now, in ms. */
static uint64_t
period_ms(void)
{
	int p = disc_conf.interval;

	if (disc_sm_up && disc_conf.safety > p)
		p = disc_conf.safety;
	return (uint64_t)p * 1000;
}

int
proxy_discover_period(void)
{
	return (int)(period_ms() / 1000);
}

static void
arm(uint64_t at)
{
	uint64_t now = ev_now();

	ev_timer_del(&disc_timer);
	disc_due = at > now ? at : now;
	ev_timer_add(&disc_timer, disc_due - now);
}

/* The timer fires at the next of: the sweep asked for (after the event
 * delay, and not sooner than event_gap after the last sweep), the full
 * sweep due one period after the last, or the next light check. */
static void
schedule_next(void)
{
	uint64_t full = disc_last_end + period_ms();
	uint64_t check = disc_last_end + (uint64_t)disc_conf.interval * 1000;

	if (disc_running || !disc_on)
		return;		/* not initialised: nothing to drive */
	if (disc_want) {
		uint64_t gap = disc_last_end +
		    (uint64_t)disc_conf.event_gap * 1000;
		uint64_t at = ev_now() + (uint64_t)disc_conf.event_ms;

		arm(at > gap ? at : gap);
		return;
	}
	if (disc_conf.interval <= 0)
		return;
	/* Light checks run every interval while the period is longer. */
	while (check < full && check <= ev_now())
		check += (uint64_t)disc_conf.interval * 1000;
	arm(check < full ? check : full);
}

void
proxy_discover_event(const char *why)
{
	if (disc_running) {
		if (!disc_again)
			log_debug("discover: %s: another sweep after this one",
			    why);
		disc_again = 1;
		disc_why = why;
		return;
	}
	disc_why = why;
	if (disc_want)
		return;		/* armed by the first: a storm cannot push it */
	log_debug("discover: %s: a sweep in %d ms", why, disc_conf.event_ms);
	disc_want = 1;
	schedule_next();
}

void
proxy_discover_desc_changed(void)
{
	disc_desc_due = 1;
}

void
proxy_discover_sm_events(int up)
{
	if (up == disc_sm_up)
		return;
	disc_sm_up = up;
	proxy_watch_configure(up, disc_conf.interval);
	/* Events back after a gap: a Report may have been missed (the
	 * first subscription follows the start sweep, which read all). */
	if (up && disc_sm_seen)
		disc_desc_due = 1;
	disc_sm_seen |= up;
	log_info("discover: SM events %s: full sweeps every %d s", up ?
	    "flow" : "stopped", proxy_discover_period());
	if (!disc_want)
		schedule_next();
}

void
proxy_discover_on_check(void (*fn)(void *), void *arg)
{
	disc_check_fn = fn;
	disc_check_arg = arg;
}

static uint64_t			 disc_port_failures;	/* at start */

static uint64_t
port_failures(void)
{
	struct proxy_mad_stats m;

	proxy_mad_get_stats(&m);
	return m.port_failures;
}

static void
free_sweep(void)
{
	pool_region_free(&disc_mem);
	disc_n = 0;
	disc_nsms = 0;
	htab_free(&disc_nodes);
	/* A sweep's nodes and queued SMPs (~10 MB at 10,000 nodes) sat
	 * between chunks that live on (cache entries, accumulators): glibc
	 * keeps such holes mapped. Give their pages back (a few ms). */
#ifdef HAVE_MALLOC_TRIM
	malloc_trim(0);
#endif
	disc_running = 0;
	disc_last_end = ev_now();
	if (disc_again) {
		disc_again = 0;
		disc_want = 1;
	}
	schedule_next();
}

static void
finish_sweep(void)
{
	const struct proxy_sweep_view view = { disc_list, disc_n, &disc_nodes,
	    disc_sms, disc_nsms, disc_started, disc_gaps == 0 };
	unsigned nodes, lost;

	/* Our own port went down under the sweep: what it did not reach
	 * says nothing about the fabric. The inventory stays as it was
	 * (stale, not unreachable) until a sweep runs on a working port. */
	if (!proxy_mad_port_up() || port_failures() != disc_port_failures ||
	    proxy_diff_local_link_down(&view)) {
		disc_st.abandoned++;
		log_notice("sweep abandoned: the local port went down or has no "
		    "link; the inventory is kept as it was");
		free_sweep();
		return;
	}
	/* Our own port's MasterSMLID: where the SA is now. */
	if (disc_n > 0) {
		const struct proxy_dnode *me = disc_list[0];
		struct smp_portinfo pi;

		if (me->entry_port <= me->n.num_ports &&
		    me->ports[me->entry_port].pinfo_ok &&
		    smp_decode_portinfo(me->ports[me->entry_port].pinfo,
		    SMP_DATA_SIZE, &pi) == 0)
			proxy_sa_set_master(pi.sm_lid);
	}
	if (proxy_diff_sweep(&view)) {
		/* The SM reported a link while the sweep ran, and not as the
		 * sweep read it: the reading may be the older. */
		disc_again = 1;
		disc_why = "a Report during the sweep";
	}
	store_sweep_begin();
	for (size_t i = 0; i < disc_nsms; i++)
		store_sweep_sm(&disc_sms[i]);
	for (size_t i = 0; i < disc_n; i++) {
		struct proxy_dnode *dn = disc_list[i];
		struct store_node *old = store_node_by_guid(dn->n.guid);
		uint32_t idx;
		int moved, changed;

		/* A CA or router is addressed through its lowest-numbered
		 * reachable port, whichever way the sweep met it first, so
		 * node-level answers (LocalPortNum, PortGUID) are stable. */
		if (dn->n.type != STORE_NODE_SWITCH)
			for (int p = 1; p <= dn->n.num_ports; p++)
				if (dn->ports[p].route.hop[0] != 0xff) {
					dn->n.route = dn->ports[p].route;
					dn->n.lid = dn->ports[p].lid;
					break;
				}

		if (!dn->desc_ok && old != NULL)
			memcpy(dn->n.desc, old->desc, sizeof(dn->n.desc));
		moved = old != NULL && proxy_diff_routes_moved(old, dn);
		changed = old != NULL && proxy_diff_ports_changed(old, dn);
		idx = store_sweep_node(&dn->n, dn->ports)->idx;
		/* A port the SM activated (no trap says so) or that went
		 * down unreported: its cached PortInfo must not be served
		 * for cache.ttl.portinfo more (the convergence bound). */
		if (changed)
			cache_flush(idx);
		/* It answered: any hold on it ends. Failures remembered
		 * for cache.ttl.error on a route that is gone (a pulled
		 * cable on the way) are forgotten: the new one may work. */
		proxy_health_answer(idx, HEALTH_ALL_WAYS);
		if (moved && cache_drop_failures(idx) > 0)
			log_debug("discover: %s: new route, its failures "
			    "forgotten", store_node_ident(old));
	}
	if (store_sweep_end(&nodes, &lost) == -1)
		disc_errors++;
	disc_st.sweeps++;
	disc_st.nodes = nodes;
	disc_st.lost = lost;
	disc_st.links = disc_links;
	disc_st.errors = disc_errors;
	disc_st.smps = disc_smps;
	disc_st.duration_ms = ev_now() - disc_started;
	disc_st.finished = ev_wall();
	if (!disc_light)
		disc_desc_due = 0;
	disc_st.light_sweeps += disc_light;
	disc_st.descs = disc_descs;
	log_info("sweep %u done: %u nodes, %u links, %u unreachable, "
	    "%llu SMPs, %u errors in %llu ms (%s)", disc_st.sweeps, nodes,
	    disc_links, lost, (unsigned long long)disc_smps, disc_errors,
	    (unsigned long long)disc_st.duration_ms, disc_cause);
	free_sweep();
	if (disc_done_fn)
		disc_done_fn(disc_done_arg);
}

static void
dreq_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct dreq *r = arg;

	/* This request stays counted until its answer is processed, so a
	 * send that fails at once inside that processing (its dreq_cb runs
	 * nested) cannot end the sweep under us. */
	if (status == 0) {
		const uint8_t *data = mad + SMP_DATA_OFFS;
		int rc = 0;

		switch (r->attr) {
		case SMP_ATTR_NODE_INFO:
			rc = got_nodeinfo(r, data);
			break;
		case SMP_ATTR_NODE_DESC:
			r->dn->desc_ok = smp_decode_nodedesc(data,
			    SMP_DATA_SIZE, r->dn->n.desc,
			    sizeof(r->dn->n.desc)) == 0;
			break;
		case SMP_ATTR_PORT_INFO:
			rc = got_portinfo(r, data);
			break;
		case SMP_ATTR_SWITCH_INFO:
			rc = got_switchinfo(r, data);
			break;
		case SMP_ATTR_SM_INFO:
			rc = got_sminfo(r, data);
			break;
		}
		/* An answer that does not make sense was most likely
		 * garbled: ask again, a few times, before the sweep goes
		 * on without that node or port. */
		if (rc == -1 && ++r->garbled > DISC_GARBLED_RETRIES) {
			disc_errors++;
			walk_gap(r->attr);
		}
		else if (rc == -1)	/* counts its own failure */
			(void)send_smp(r->attr, r->mod, &r->path, r->key, r);
	} else if (status != -ECANCELED) {
		char p[256];
		store_path_format(&r->path, p, sizeof(p));
		log_debug("discover: attribute 0x%04x at route %s: %s",
		    r->attr, p, strerror(-status));
		disc_errors++;
		walk_gap(r->attr);
	}
	free(r);
	if (--disc_outstanding == 0 && disc_running && status != -ECANCELED)
		finish_sweep();
}

static int
start(const char *cause, int light)
{
	struct store_path local = { 0 };

	if (disc_running)
		return -1;
	if (!proxy_mad_port_up()) {
		/* Started again when the port is back (proxy_mad_on_port_up);
		 * the timer keeps its period meanwhile. */
		log_debug("discover: the local port is down; no sweep");
		return -1;
	}
	disc_port_failures = port_failures();
	ev_timer_del(&disc_timer);
	htab_init(&disc_nodes);
	disc_running = 1;
	disc_cause = cause;
	/* Set here, past the running check: a sweep asked for while one
	 * runs must not change how that one ends (finish_sweep). */
	disc_light = light;
	disc_want = 0;
	disc_links = disc_errors = disc_gaps = 0;
	disc_smps = 0;
	disc_descs = 0;
	disc_started = ev_now();
	log_debug("discover: sweep %u starting", disc_st.sweeps + 1);
	probe(&local, 0, 0);
	/* A send that failed inside the submit may have ended the sweep
	 * already (dreq_cb); it must not be finished a second time. */
	if (!disc_running)
		return -1;
	if (disc_outstanding == 0) {
		log_warnx("discover: cannot send the first SMP");
		finish_sweep();
		return -1;
	}
	return 0;
}

/* ctl sweep, SIGUSR1, the local port back. */
int
proxy_discover_start(void)
{
	return start("asked", 0);
}

static void
timer_cb(void *arg)
{
	const char *cause;
	int event = 0;

	if (disc_want) {
		cause = disc_why ? disc_why : "event";
		event = disc_last_end != 0;	/* not the first sweep */
	} else if (ev_now() < disc_last_end + period_ms()) {
		/* SM events flow: what a sweep would find they report. A
		 * light check keeps the SA records and the subscription
		 * current, and notices another master (on_check). */
		disc_st.checks++;
		if (disc_check_fn)
			disc_check_fn(disc_check_arg);
		schedule_next();
		return;
	} else
		cause = disc_sm_up ? "safety" : "interval";
	if (start(cause, event && !disc_desc_due) == 0)
		disc_st.event_sweeps += event;
	else if (!disc_running && proxy_mad_port_up())
		schedule_next();
	/* The local port down: proxy_mad_on_port_up starts the next. */
}

int
proxy_discover_init(const struct proxy_sweep_conf *c)
{
	disc_conf = *c;
	proxy_watch_configure(disc_sm_up, c->interval);
	ev_timer_init(&disc_timer, timer_cb, NULL);
	disc_on = 1;
	disc_want = 1;
	disc_why = "start";
	arm(ev_now());
	return 0;
}

/* A reload's discovery section: the next sweep is due a period after
 * the last one ended (now, if that is past). */
void
proxy_discover_configure(const struct proxy_sweep_conf *c)
{
	if (memcmp(c, &disc_conf, sizeof(*c)) == 0)
		return;
	disc_conf = *c;
	proxy_watch_configure(disc_sm_up, c->interval);
	schedule_next();
}

void
proxy_discover_finalise(void)
{
	if (!disc_on)
		return;		/* an init failure before ours */
	ev_timer_del(&disc_timer);
	disc_on = 0;
	disc_want = disc_again = disc_sm_up = disc_sm_seen = 0;
	disc_desc_due = 1;
	pool_region_free(&disc_mem);
	free(disc_list);
	disc_list = NULL;
	disc_n = disc_cap = 0;
	free(disc_sms);
	disc_sms = NULL;
	disc_nsms = disc_smcap = 0;
	htab_free(&disc_nodes);
	disc_running = 0;
}

int
proxy_discover_running(void)
{
	return disc_running;
}

void
proxy_discover_get_stats(struct proxy_sweep_stats *st)
{
	*st = disc_st;
	st->next_ms = disc_running ? 0 : disc_due;
	st->safety = disc_sm_up && disc_conf.safety > disc_conf.interval;
}

void
proxy_discover_on_done(void (*fn)(void *), void *arg)
{
	disc_done_fn = fn;
	disc_done_arg = arg;
}
