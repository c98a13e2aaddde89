/* proxy_reread: the inventory follows the SM's link Reports between
 * sweeps.
 *
 * A trap 128 has proxy/inform.c read every port of the switch it names
 * (and the far end of a link that changed); traps 64/65 name a CA port.
 * Each reading comes here. Most link changes touch two ports and at
 * most one CA, and those are written into the inventory at once: a few
 * SMPs, where an event sweep costs about four per node (42,000 at
 * 10,000 nodes). A change the inventory's directed routes depend on is
 * left to a sweep, as before:
 *  - a link going down that a route in the inventory crosses (other
 *    than the route to the CA port right behind it);
 *  - a link coming up to a node the inventory does not know, or to a
 *    switch it has as unreachable (a subtree may come with it);
 *  - a reading that does not fit (a port the inventory never read, a
 *    NodeInfo with another port count, no answer).
 * Full sweeps still run as the safety net (docs/design.md, "How sweeps
 * are driven"). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/attr.h"
#include "codec/smp.h"
#include "proxy/discover.h"
#include "proxy/health.h"
#include "proxy/mad.h"
#include "proxy/reread.h"
#include "proxy/watch.h"
#include "store/cache.h"
#include "store/events.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"

#define RR_MOVES	2	/* a read sent again as its route moves */

enum rr_kind {
	RR_NODEINFO,		/* who is behind a port that came up */
	RR_FILL,		/*   then its port: linked, routed */
	RR_CHECK,		/* a port again (proxy/watch.c asks) */
	RR_VERIFY,		/* trap 64: is the CA routed by now? */
};

/* One SMP of ours, and what its answer is for. */
struct rr_req {
	enum rr_kind	 kind;
	uint64_t	 guid;		/* the node asked */
	uint8_t		 port;
	uint8_t		 moved;		/* sent again by a new route */
	uint8_t		 watch;		/* the watch's: it tries again */
	uint64_t	 port_guid;	/* RR_FILL of a CA port */
	uint64_t	 from_guid;	/* RR_NODEINFO, RR_FILL: the switch */
	uint8_t		 from_port;	/*   and port it went out of */
	struct store_path path;
	struct ev_timer	 timer;		/* RR_VERIFY: later */
	struct rr_req	*next, **prevp;	/* rr_live */
};

static int			 rr_on;
static struct rr_req		*rr_live;	/* in flight or waiting */
static struct proxy_reread_stats rr_st;
static void			(*rr_changed_fn)(void *);
static void			*rr_changed_arg;
static struct ev_timer		 rr_changed_timer;
static uint64_t			 rr_changed_next;	/* ev_now() ms */

static void	rr_send(struct rr_req *r);
static void	rr_free(struct rr_req *r);
static void	check_now(const struct store_node *n, uint8_t p, int watch);

static int
link_up(const struct store_port *pt)
{
	/* As a sweep goes through a port (proxy/discover.c). */
	return pt->valid && pt->state >= 2 && pt->phys_state == 5;
}

static int
no_route(const struct store_path *p)
{
	return p->cnt == 0 && p->hop[0] == 0xff;
}

static void
sweep(const char *why)
{
	rr_st.sweeps++;
	rr_st.why = why;
	proxy_discover_event(why);
}

static void
changed(void)
{
	rr_st.changes++;
	/* The hook walks every node (the poller's lists, LLDP-MIB, the
	 * IPoIB map): once for all the readings of a loop iteration, not
	 * once per reading (a trap 128 reads every port of a switch). */
	uint64_t now = ev_now();

	if (!ev_timer_pending(&rr_changed_timer))
		ev_timer_add(&rr_changed_timer, rr_changed_next > now ?
		    rr_changed_next - now : 0);
}

/* The hook costs ~35 ms at 10k nodes (every link judged, the blueprint
 * compared): a Report storm (a spine rebooting) must not run it back to
 * back. The next run waits four times this one's cost, so the checks
 * take at most a fifth of the loop; on a small fabric that is nothing. */
static void
changed_cb(void *arg)
{
	uint64_t t0 = ev_now(), t1;

	(void)arg;
	if (rr_changed_fn)
		rr_changed_fn(rr_changed_arg);
	t1 = ev_now();
	rr_changed_next = t1 + 4 * (t1 - t0);
}

/* An event of ours, from the SM's Report (state: a link event's
 * PortState after, as the sweep's). store_event_post drops one the
 * stream already has (trap 64/65's own, or inform.c's). */
static void
post(int type, const struct store_node *n, uint8_t port, uint16_t lid,
    uint8_t state, const char *what)
{
	struct store_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint8_t)type;
	ev.source = STORE_SRC_SM;
	ev.node_guid = n->guid;
	ev.port = port;
	ev.lid = lid;
	ev.data[0] = state;
	snprintf(ev.text, sizeof(ev.text), "%s%s%s", store_node_ident(n),
	    what ? ": " : "", what ? what : "");
	store_event_post(&ev);
}

/* The directed route that leads out of port p of n, as the inventory
 * reaches n: a switch's own, or a CA port's. */
static int
route_out(const struct store_node *n, uint8_t p, struct store_path *out)
{
	const struct store_path *base = n->type == STORE_NODE_SWITCH ?
	    &n->route : &n->ports[p].route;

	if (no_route(base) || base->cnt + 1 >= STORE_PATH_MAX)
		return -1;
	*out = *base;
	out->hop[++out->cnt] = p;
	return 0;
}

/* Whether route r leads through via (begins with it). */
static int
starts_with(const struct store_path *r, const struct store_path *via)
{
	return !no_route(r) && r->cnt >= via->cnt && memcmp(r->hop + 1,
	    via->hop + 1, via->cnt) == 0;
}

/* Whether a route of the inventory (a node's, or a CA port's) leads
 * out of port p of n, other than the route that ends at the CA behind
 * it (ca, which loses that port anyway; a CA does not forward). The
 * sweeps' routes are a breadth-first tree, so a route over the link
 * leaves through one of its ends. A scan: links go down rarely. */
static int
routes_use(const struct store_node *n, uint8_t p, uint64_t ca)
{
	struct store_path via;

	if (route_out(n, p, &via) == -1)
		return 1;
	for (size_t i = 0; i < store_node_count(); i++) {
		const struct store_node *m = store_node_at((uint32_t)i);

		if (m == NULL || !m->reachable || m->guid == ca)
			continue;
		if (starts_with(&m->route, &via))
			return 1;
		if (m->type == STORE_NODE_SWITCH)
			continue;
		for (int q = 1; q <= m->num_ports; q++)
			if (starts_with(&m->ports[q].route, &via))
				return 1;
	}
	return 0;
}

/* r with its first via->cnt hops (via) replaced by around. */
static int
splice(struct store_path *r, const struct store_path *via,
    const struct store_path *around)
{
	struct store_path x;
	int tail = r->cnt - via->cnt;

	if (around->cnt + tail >= STORE_PATH_MAX)
		return -1;
	x = *around;
	memcpy(x.hop + around->cnt + 1, r->hop + via->cnt + 1, (size_t)tail);
	x.cnt = (uint8_t)(around->cnt + tail);
	*r = x;
	return 0;
}

/* Node m's routes that begin with via, moved (dry: only checked). */
static int
move_node(struct store_node *m, const struct store_path *via,
    const struct store_path *around, int dry)
{
	struct store_path t;
	int moved = 0;

	for (int q = -1; q <= m->num_ports; q++) {
		struct store_path *r = q < 0 ? &m->route : &m->ports[q].route;

		if (!starts_with(r, via))
			continue;
		t = *r;
		if (splice(&t, via, around) == -1)
			return -1;
		if (!dry)
			*r = t;
		moved = 1;
	}
	return moved;
}

/* The way around the link at n's port p to node `to` just behind it:
 * the route of a reachable switch next to `to` (by another link, its
 * route over the link in neither direction) and its port to `to`, the
 * shortest such. Not a path worked out afresh (proxy_route_around):
 * the inventory's routes are a tree, each one's beginning the route of
 * the node it leads through, and routes_use() finds the routes over a
 * link by the route of its near end; a fresh path through switches
 * whose own routes differ would hide the moved routes from the next
 * link that goes down on it. -1 if `to` has no such neighbour. */
static int
around_of(const struct store_node *n, uint8_t p, const struct store_node *to,
    struct store_path *out)
{
	uint8_t tp = n->ports[p].remote_port;
	struct store_path fwd, back;
	int have_back, rc = -1;

	if (route_out(n, p, &fwd) == -1)
		return -1;
	have_back = tp >= 1 && tp <= to->num_ports &&
	    route_out(to, tp, &back) == 0;
	for (int q = 1; q <= to->num_ports; q++) {
		const struct store_port *sp = &to->ports[q];
		const struct store_node *x;
		uint8_t xp = sp->remote_port;

		if (q == tp || sp->remote_guid == 0 || !link_up(sp) ||
		    (x = store_node_by_guid(sp->remote_guid)) == NULL ||
		    x == to || x->type != STORE_NODE_SWITCH || !x->reachable ||
		    xp < 1 || xp > x->num_ports ||
		    x->ports[xp].remote_guid != to->guid || (x == n && xp == p) ||
		    no_route(&x->route) || x->route.cnt + 1 >= STORE_PATH_MAX ||
		    starts_with(&x->route, &fwd) ||
		    (have_back && starts_with(&x->route, &back)))
			continue;
		if (rc == 0 && x->route.cnt + 1 >= out->cnt)
			continue;
		*out = x->route;
		out->hop[++out->cnt] = xp;
		rc = 0;
	}
	return rc;
}

/* The routes that cross the link at n's port p (they begin with via,
 * route_out(n, p), and lead into to) go around it instead: around_of()
 * replaces that beginning; the rest of each route is unchanged
 * (directed routes name output ports only, IBA 14.2.2). -1 if there
 * is no way or a route would grow too long: a sweep's then. */
static int
reroute(const struct store_node *n, uint8_t p, const struct store_node *to)
{
	struct store_path via, around;
	unsigned moved = 0;

	if (route_out(n, p, &via) == -1 ||
	    around_of(n, p, to, &around) == -1)
		return -1;
	for (int pass = 1; pass >= 0; pass--)
		for (size_t i = 0; i < store_node_count(); i++) {
			struct store_node *m = store_node_at((uint32_t)i);
			int rc;

			if (m == NULL || !m->reachable)
				continue;
			if ((rc = move_node(m, &via, &around, pass)) == -1)
				return -1;
			if (rc == 0 || pass)
				continue;
			moved++;
			(void)cache_drop_failures(m->idx);
			(void)store_node_save(m);
		}
	log_info("reread: %u nodes routed around %s port %u", moved,
	    store_node_ident(n), p);
	return 0;
}

/* A port's link event, as inform.c's read or trap 64/65 would post it
 * (whichever comes second finds it posted). */
static void
post_link(const struct store_node *n, uint8_t p, uint8_t state)
{
	post(state == 1 ? STORE_EV_LINK_DOWN : STORE_EV_LINK_UP, n, p,
	    n->ports[p].lid, state, NULL);
}

/* A CA or router is reached through its lowest-numbered routed port
 * whose link is up (finish_sweep's rule: node-level answers stay the
 * same). -1 if none. */
static int
ca_route(struct store_node *n)
{
	for (int q = 1; q <= n->num_ports; q++)
		if (!no_route(&n->ports[q].route) && link_up(&n->ports[q])) {
			n->route = n->ports[q].route;
			n->lid = n->ports[q].lid;
			return 0;
		}
	return -1;
}

/* CA (or router) n lost the link of port p (phys: the switch end's
 * PortPhysicalState; the CA's own cannot be read now). The port is
 * Down with no route or link; the node unreachable if no other port is
 * routed, else reached through its lowest routed port (finish_sweep's
 * rule). */
static void
ca_port_down(struct store_node *n, uint8_t p, uint8_t phys)
{
	struct store_port pt = n->ports[p];

	pt.state = 1;
	pt.phys_state = phys;
	pt.pinfo_ok = 0;	/* the attribute as read is history */
	pt.remote_guid = 0;
	pt.remote_port = 0;
	memset(&pt.route, 0, sizeof(pt.route));
	pt.route.hop[0] = 0xff;
	store_node_port_set(n, p, &pt);
	post_link(n, p, 1);
	if (ca_route(n) == -1) {
		n->reachable = 0;
		log_notice("reread: %s is unreachable (port %u)",
		    store_node_ident(n), p);
		post(STORE_EV_NODE_GONE, n, 0, n->lid, 0, NULL);
	}
	cache_flush(n->idx);
	(void)store_node_save(n);
}

/* Port p of switch n went down (pt: its reading). */
static void
link_down(struct store_node *n, uint8_t p, struct store_port *pt)
{
	const struct store_port *old = &n->ports[p];
	struct store_node *peer = old->remote_guid ?
	    store_node_by_guid(old->remote_guid) : NULL;
	uint8_t rp = old->remote_port;
	int peer_ca = peer != NULL && peer->type != STORE_NODE_SWITCH;

	/* Routes across it go around it, from either end, if the
	 * inventory has another way. */
	if ((routes_use(n, p, peer_ca ? peer->guid : 0) && (peer == NULL ||
	    peer_ca || reroute(n, p, peer) == -1)) || (peer != NULL &&
	    !peer_ca && rp >= 1 && rp <= peer->num_ports &&
	    routes_use(peer, rp, 0) && reroute(peer, rp, n) == -1)) {
		sweep("a link on the inventory's routes went down, no way "
		    "around it");
		return;
	}
	pt->remote_guid = 0;
	pt->remote_port = 0;
	store_node_port_set(n, p, pt);
	(void)store_node_save(n);
	if (peer != NULL && rp >= 1 && rp <= peer->num_ports &&
	    peer->ports[rp].remote_guid == n->guid) {
		if (peer_ca)
			ca_port_down(peer, rp, pt->phys_state);
		else if (peer->reachable)
			/* Its own reading (its route does not cross the
			 * link): the same path through port_reading. */
			check_now(peer, rp, 0);
	}
	changed();
}

static void	timer_cb(void *arg);

static struct rr_req *
rr_new(enum rr_kind kind, uint64_t guid, uint8_t port,
    const struct store_path *path)
{
	struct rr_req *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		log_warn("reread");
		return NULL;
	}
	r->kind = kind;
	r->guid = guid;
	r->port = port;
	r->path = *path;
	ev_timer_init(&r->timer, timer_cb, r);
	if ((r->next = rr_live) != NULL)
		rr_live->prevp = &r->next;
	r->prevp = &rr_live;
	rr_live = r;
	return r;
}

/* Port p of switch n came up (pt: its reading): who is behind it. */
static void
link_up_at(struct store_node *n, uint8_t p, struct store_port *pt)
{
	struct store_path path;
	struct rr_req *r;

	if (route_out(n, p, &path) == -1 ||
	    (r = rr_new(RR_NODEINFO, 0, 0, &path)) == NULL) {
		sweep("a link came up where the inventory has no route");
		return;
	}
	r->from_guid = n->guid;
	r->from_port = p;
	store_node_port_set(n, p, pt);
	rr_send(r);
}

static void
rr_free(struct rr_req *r)
{
	ev_timer_del(&r->timer);
	if (r->next != NULL)
		r->next->prevp = r->prevp;
	*r->prevp = r->next;
	free(r);
}

/* The route a read of port p of n takes: the switch's own, or the CA
 * port's (each CA port has its own). */
static struct store_path
check_route(const struct store_node *n, uint8_t p)
{
	return n->type == STORE_NODE_SWITCH ? n->route : n->ports[p].route;
}

/* A read of a port that waited (the watch's) or went unanswered goes
 * by the node's route as it is now: a Report since may have moved it
 * around a pulled cable that the route it was asked by crosses. -1 if
 * the node is gone, unreachable or has no route: the Report that brings
 * it back reads it. */
static int
route_now(const struct rr_req *r, struct store_path *path)
{
	const struct store_node *n = store_node_by_guid(r->guid);

	if (n == NULL || !n->reachable || r->port < 1 || r->port > n->num_ports)
		return -1;
	*path = check_route(n, r->port);
	return no_route(path) ? -1 : 0;
}

/* Port p of n read again now, its answer through port_reading. One
 * such read per port at a time. watch: proxy/watch.c asked, and reads
 * again itself if this goes unanswered (no sweep for it). */
static void
check_now(const struct store_node *n, uint8_t p, int watch)
{
	struct store_path path = check_route(n, p);
	struct rr_req *r;

	if (no_route(&path))
		return;
	for (r = rr_live; r != NULL; r = r->next)
		if (r->kind == RR_CHECK && r->guid == n->guid && r->port == p)
			return;
	if ((r = rr_new(RR_CHECK, n->guid, p, &path)) != NULL) {
		r->watch = (uint8_t)watch;
		rr_send(r);
	}
}

int
proxy_reread_check(uint64_t guid, uint8_t port)
{
	const struct store_node *n = store_node_by_guid(guid);
	struct store_path path;

	if (!rr_on || n == NULL || !n->reachable || port < 1 ||
	    port > n->num_ports)
		return -1;
	path = check_route(n, port);
	if (no_route(&path))
		return -1;
	check_now(n, port, 1);
	return 0;
}

static void
post_port_changed(const struct store_node *n, const struct store_port *o,
    const struct store_port *pt)
{
	char what[64];

	snprintf(what, sizeof(what), "port %u width 0x%x->0x%x speed "
	    "0x%x->0x%x", pt->num, o->width, pt->width, o->speed, pt->speed);
	post(STORE_EV_PORT_CHANGED, n, pt->num, pt->lid, 0, what);
}

static int
same_reading(const struct store_port *a, const struct store_port *b)
{
	return a->state == b->state && a->phys_state == b->phys_state &&
	    a->width == b->width && a->speed == b->speed && a->lid == b->lid &&
	    a->lmc == b->lmc;
}

/* Port p of n reads its link up (pt) where the stream has a CA's end
 * of it down. Trap 65 posts the CA's link down at once
 * (proxy/portread.c) and the SM may send it late: opensm sweeps after
 * the flaps of a storm it stopped reporting ("Ignoring noisy traps"),
 * and a link that trained again meanwhile stays Init with no trap
 * after. Nothing but a reading then tells that the link is back (IF-MIB
 * wants linkUp for Down -> dormant). A switch's end reads who is behind
 * it, as when the link comes up, and got_fill posts the CA's end from
 * its own PortInfo, read after the event. The CA's own reading may be
 * older than the event: its switch's end is read now, and goes on so. */
static void
stale_ca_down(struct store_node *n, uint8_t p, struct store_port *pt)
{
	const struct store_node *peer = pt->remote_guid ?
	    store_node_by_guid(pt->remote_guid) : NULL;
	uint8_t rp = pt->remote_port;

	/* A standby's link states are as it left them: its posts are
	 * dropped, and reads for them would go on for ever. */
	if (store_event_is_replica())
		return;
	if (n->type != STORE_NODE_SWITCH) {
		if (peer != NULL && peer->type == STORE_NODE_SWITCH &&
		    peer->reachable && rp >= 1 && rp <= peer->num_ports &&
		    store_event_link_state(n->guid, p) == STORE_EV_LINK_DOWN)
			check_now(peer, rp, 0);
		return;
	}
	if (peer == NULL || peer->type == STORE_NODE_SWITCH || rp < 1 ||
	    rp > peer->num_ports ||
	    store_event_link_state(peer->guid, rp) != STORE_EV_LINK_DOWN)
		return;
	for (const struct rr_req *r = rr_live; r != NULL; r = r->next)
		if ((r->kind == RR_NODEINFO || r->kind == RR_FILL) &&
		    r->from_guid == n->guid && r->from_port == p)
			return;		/* already asked who is behind */
	link_up_at(n, p, pt);
}

static void
port_reading(struct store_node *n, uint8_t p, const uint8_t *data)
{
	struct smp_portinfo pi;
	struct store_port pt, old;
	int was, now;

	rr_st.readings++;
	if (smp_decode_portinfo(data, SMP_DATA_SIZE, &pi) == -1)
		return;
	if (!n->ports[p].valid) {
		sweep("a Report on a port the inventory never read");
		return;
	}
	old = pt = n->ports[p];
	was = link_up(&old);
	store_port_fill(&pt, data, &pi);
	now = link_up(&pt);
	/* Not yet Active, or just gone Down: read until it holds. */
	proxy_watch_reading(n->guid, &pt, old.state != pt.state ||
	    old.phys_state != pt.phys_state);
	if (was == now || n->type != STORE_NODE_SWITCH) {
		/* A CA port's link is followed from its switch's end. */
		if (!same_reading(&old, &pt)) {
			if (old.state == 4 && pt.state == 4 &&
			    (old.width != pt.width || old.speed != pt.speed))
				post_port_changed(n, &old, &pt);
			store_node_port_set(n, p, &pt);
			cache_flush(n->idx);
			(void)store_node_save(n);
			changed();
		}
		if (now)
			stale_ca_down(n, p, &pt);
		return;
	}
	/* As trap 128's own port read posts it (the first reading of
	 * the two, this or proxy/inform.c's, does). */
	post_link(n, p, pt.state);
	cache_flush(n->idx);
	if (was)
		link_down(n, p, &pt);
	else
		link_up_at(n, p, &pt);
}

void
proxy_reread_port(uint64_t guid, uint8_t port, const uint8_t *data)
{
	struct store_node *n = store_node_by_guid(guid);

	if (rr_on && n != NULL && port >= 1 && port <= n->num_ports)
		port_reading(n, port, data);
}

/* NodeInfo (IBA 14.2.5.3) of whoever is behind the port that came up:
 * a node the inventory knows, reachable if a switch, is linked; its
 * port is read next (RR_FILL). Anything else is a sweep's. */
static void
got_nodeinfo(struct rr_req *r, const uint8_t *data)
{
	struct store_node *n = store_node_by_guid(r->from_guid), *m;
	struct smp_nodeinfo ni;
	struct store_port np;
	struct store_path now;

	/* A sweep in between may have found n with fewer ports. */
	if (n == NULL || r->from_port > n->num_ports ||
	    smp_decode_nodeinfo(data, SMP_DATA_SIZE, &ni) == -1) {
		sweep("a garbled NodeInfo behind a link that came up");
		rr_free(r);
		return;
	}
	/* A sweep moved n's route while this was out (cables moved): the
	 * path it went by may end at another node now. */
	if (route_out(n, r->from_port, &now) == -1 ||
	    !store_path_eq(&now, &r->path)) {
		sweep("a route moved under a NodeInfo behind a link that came "
		    "up");
		rr_free(r);
		return;
	}
	m = store_node_by_guid(ni.node_guid);
	if (m == NULL || m == n || m->num_ports != ni.num_ports ||
	    ni.local_port < 1 || ni.local_port > m->num_ports ||
	    (m->type == STORE_NODE_SWITCH && !m->reachable)) {
		sweep("a link came up to a new or unreachable node");
		rr_free(r);
		return;
	}
	np = n->ports[r->from_port];
	np.remote_guid = m->guid;
	np.remote_port = ni.local_port;
	store_node_port_set(n, r->from_port, &np);
	(void)store_node_save(n);
	r->kind = RR_FILL;
	r->guid = m->guid;
	r->port = ni.local_port;
	r->port_guid = ni.port_guid;
	if (m->type == STORE_NODE_SWITCH)
		r->path = m->route;	/* r->path leads to n's side */
	rr_send(r);
}

/* The far end of a link that came up, linked to the switch port it
 * came up at; a CA that was unreachable is back, reached this way. */
static void
got_fill(struct rr_req *r, const uint8_t *data)
{
	struct store_node *m = store_node_by_guid(r->guid);
	struct smp_portinfo pi;
	struct store_port pt;

	if (m == NULL || r->port > m->num_ports ||
	    smp_decode_portinfo(data, SMP_DATA_SIZE, &pi) == -1) {
		sweep("a garbled PortInfo behind a link that came up");
		rr_free(r);
		return;
	}
	rr_st.readings++;
	pt = m->ports[r->port];
	store_port_fill(&pt, data, &pi);
	pt.num = r->port;
	pt.remote_guid = r->from_guid;
	pt.remote_port = r->from_port;
	if (m->type == STORE_NODE_SWITCH) {
		pt.route = m->route;
	} else {
		pt.route = r->path;
		pt.guid = r->port_guid;
	}
	store_node_port_set(m, r->port, &pt);
	/* It answered: a hold on it ends. */
	proxy_health_answer(m->idx, HEALTH_ALL_WAYS);
	/* A CA's end comes up where the stream has it down (ca_port_down
	 * posted it): a sweep cannot read a CA port whose link is gone and
	 * posts nothing for it, so whoever reads the link back first, the
	 * stream is the same. */
	if (link_up(&pt) && (m->type == STORE_NODE_SWITCH ||
	    store_event_link_state(m->guid, r->port) == STORE_EV_LINK_DOWN))
		post_link(m, r->port, pt.state);
	if (m->type != STORE_NODE_SWITCH && link_up(&pt))
		(void)ca_route(m);
	if (m->type != STORE_NODE_SWITCH && link_up(&pt) && !m->reachable) {
		m->reachable = 1;
		m->last_seen = ev_wall();
		log_notice("reread: %s is reachable again (port %u)",
		    store_node_ident(m), r->port);
		post(STORE_EV_NODE_BACK, m, 0, pt.lid, 0, NULL);
	}
	cache_flush(m->idx);
	(void)store_node_save(m);
	changed();
	proxy_watch_reading(m->guid, &pt, 1);
	rr_free(r);
}

static void
rr_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct rr_req *r = arg;
	struct store_node *n;
	struct store_path now;

	if (!rr_on) {
		rr_free(r);
		return;
	}
	if (status != 0 && r->kind == RR_CHECK && r->moved < RR_MOVES &&
	    route_now(r, &now) == 0 && !store_path_eq(&now, &r->path)) {
		r->moved++;
		r->path = now;
		rr_send(r);
		return;
	}
	if (status != 0) {
		char path[256];

		store_path_format(&r->path, path, sizeof(path));
		if (r->watch) {
			/* The watch reads it again a step later; a node
			 * that stopped answering is the health module's. */
			log_debug("reread: watched 0x%016llx port %u by "
			    "route %s: %s", (unsigned long long)r->guid,
			    r->port, path, strerror(-status));
			rr_free(r);
			return;
		}
		log_info("reread: %s of 0x%016llx port %u by route %s: %s",
		    r->kind == RR_NODEINFO ? "NodeInfo" : "PortInfo",
		    (unsigned long long)(r->kind == RR_NODEINFO ?
		    r->from_guid : r->guid), r->kind == RR_NODEINFO ?
		    r->from_port : r->port, path, strerror(-status));
		sweep("no answer to a read for a Report");
		rr_free(r);
		return;
	}
	switch (r->kind) {
	case RR_NODEINFO:
		got_nodeinfo(r, mad + SMP_DATA_OFFS);
		return;
	case RR_FILL:
		got_fill(r, mad + SMP_DATA_OFFS);
		return;
	default: {
		uint64_t guid = r->guid;
		uint8_t port = r->port;

		rr_free(r);	/* first: the reading may ask for another */
		if ((n = store_node_by_guid(guid)) != NULL &&
		    port <= n->num_ports && port >= 1)
			port_reading(n, port, mad + SMP_DATA_OFFS);
	}
	}
}

static void
rr_send(struct rr_req *r)
{
	struct proxy_mad_args a;

	memset(&a, 0, sizeof(a));
	a.node_key = r->kind == RR_NODEINFO ? r->from_guid : r->guid;
	a.target.path = r->path;
	a.mgmt_class = ATTR_CLASS_SMI_DR;
	a.method = SMP_METHOD_GET;
	a.attr_id = r->kind == RR_NODEINFO ? SMP_ATTR_NODE_INFO :
	    SMP_ATTR_PORT_INFO;
	a.attr_mod = r->kind == RR_NODEINFO ? 0 : r->port;
	a.optional = 1;		/* a lost one must not fail the node's queue */
	rr_st.smps++;
	if (proxy_mad_submit(&a, rr_cb, r) == -1) {
		sweep("a read for a Report could not be sent");
		rr_free(r);
	}
}

/* Trap 64 came before the switch's end was read: is the CA routed
 * now? */
static void
verify(struct rr_req *r)
{
	const struct store_node *n = store_node_by_guid(r->guid);

	if (n == NULL || !n->reachable || r->port > n->num_ports ||
	    no_route(&n->ports[r->port].route) ||
	    !link_up(&n->ports[r->port]))
		sweep("a CA port in service the inventory has no way to");
	rr_free(r);
}

static void
timer_cb(void *arg)
{
	struct rr_req *r = arg;

	verify(r);		/* RR_VERIFY's: the only one that waits */
}

void
proxy_reread_ca_port(uint64_t guid, uint8_t port, int in_service)
{
	const struct store_node *n = store_node_by_guid(guid);
	const struct store_port *pt;
	const struct store_node *sw;
	struct rr_req *r;

	if (!rr_on)
		return;
	if (n == NULL || port < 1 || port > n->num_ports) {
		sweep(in_service ? "trap 64, GID in service" :
		    "trap 65, GID out of service");
		return;
	}
	pt = &n->ports[port];
	/* The switch's end says what the link did (trap 128 read it, or
	 * reads it now); the CA's own port, if routed, its state. */
	sw = pt->remote_guid ? store_node_by_guid(pt->remote_guid) : NULL;
	if (sw != NULL && sw->type == STORE_NODE_SWITCH && sw->reachable &&
	    (r = rr_new(RR_CHECK, sw->guid, pt->remote_port, &sw->route)) !=
	    NULL)
		rr_send(r);
	else if (!in_service && n->reachable && link_up(pt))
		sweep("trap 65 for a CA port the inventory has no link of");
	if (in_service && n->reachable && !no_route(&pt->route) &&
	    (r = rr_new(RR_CHECK, n->guid, port, &pt->route)) != NULL)
		rr_send(r);
	else if (in_service && (r = rr_new(RR_VERIFY, n->guid, port,
	    &pt->route)) != NULL)
		ev_timer_add(&r->timer, 2000);
}

void
proxy_reread_failed(const char *why)
{
	if (rr_on)
		sweep(why);
}

void
proxy_reread_on_changed(void (*fn)(void *), void *arg)
{
	rr_changed_fn = fn;
	rr_changed_arg = arg;
}

void
proxy_reread_get_stats(struct proxy_reread_stats *st)
{
	*st = rr_st;
}

void
proxy_reread_init(void)
{
	rr_on = 1;
	rr_changed_next = 0;
	ev_timer_init(&rr_changed_timer, changed_cb, NULL);
}

void
proxy_reread_finalise(void)
{
	ev_timer_del(&rr_changed_timer);
	/* Those waiting on a timer go now; those in flight when their
	 * answer (or the engine's cancel) comes. */
	for (struct rr_req *r = rr_live, *nx; r != NULL; r = nx) {
		nx = r->next;
		if (ev_timer_pending(&r->timer))
			rr_free(r);
	}
	rr_on = 0;
}
