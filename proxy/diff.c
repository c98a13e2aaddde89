/* proxy_diff: what a finished sweep found changed since the last one
 * (proxy/diff.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "proxy/diff.h"
#include "proxy/watch.h"
#include "codec/smp.h"
#include "store/events.h"
#include "store/store.h"
#include "util/htab.h"

static void
post_state(int type, const struct store_node *n, int port, uint16_t lid,
    const char *what, uint8_t state)
{
	struct store_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.data[0] = state;	/* link events: PortState after */
	ev.type = (uint8_t)type;
	ev.source = STORE_SRC_SWEEP;
	ev.node_guid = n->guid;
	ev.port = (uint8_t)port;
	ev.lid = lid;
	snprintf(ev.text, sizeof(ev.text), "%s%s%s", store_node_ident(n),
	    what ? ": " : "", what ? what : "");
	store_event_post(&ev);
}

static void
post(int type, const struct store_node *n, int port, uint16_t lid,
    const char *what)
{
	post_state(type, n, port, lid, what, 0);
}

/* Port p of a node both sweeps read: its link went down (PortState
 * Down, as IF-MIB's linkDown means it) or left Down, or its active
 * width or speed changed while it stayed Active. Returns DIFF_* for
 * the caller: the events are posted here. */
#define DIFF_MOVED	0x1	/* state or physical state not as it was */
#define DIFF_AGAIN	0x2	/* reported during the sweep otherwise */

static int
diff_port(const struct store_node *old, const struct store_port *o,
    const struct store_port *p, uint64_t started)
{
	char what[64];
	int now, stream, r;

	r = o->valid && (o->state != p->state || o->phys_state !=
	    p->phys_state) ? DIFF_MOVED : 0;
	if (!p->valid || p->state == 0)
		return r;
	now = p->state == 1 ? STORE_EV_LINK_DOWN : STORE_EV_LINK_UP;
	/* Where the event stream has the link (0: never reported): the
	 * SM's Reports may have moved it since the last sweep, and the SM
	 * does not report every change (opensm drops repeated traps). */
	stream = store_event_link_state(old->guid, p->num);
	if (stream != now && store_event_link_since(old->guid, p->num,
	    started))
		return r | DIFF_AGAIN;	/* the reading may be the older */
	if (!o->valid || o->state == 0) {
		/* Not read by the last sweep (a CA port with no link
		 * then, diff_unreached): the stream is put right. */
		if (stream != 0 && stream != now)
			post_state(now, old, p->num, p->lid, NULL, p->state);
		return r;
	}
	if (stream != now && ((p->state == 1) != (o->state == 1) ||
	    stream != 0)) {
		post_state(now, old, p->num, p->lid, NULL, p->state);
		return r;
	}
	if (o->state == 4 && p->state == 4 && (o->width != p->width ||
	    o->speed != p->speed)) {
		snprintf(what, sizeof(what), "port %u width 0x%x->0x%x speed "
		    "0x%x->0x%x", p->num, o->width, p->width, o->speed,
		    p->speed);
		post(STORE_EV_PORT_CHANGED, old, p->num, p->lid, what);
	}
	return r;
}

/* Port p of CA (or router) old, which a sweep with no SMP failed did
 * not reach: it has no link, since the walk reads a CA port as it
 * arrives through it from the switch at the other end. Nothing else
 * says so when the stream has its link up (a trap 64 the SM sent late,
 * for a port down since): a port with no link cannot be read. */
static int
diff_unreached(const struct store_node *old, int p, uint64_t started)
{
	const struct store_port *o = &old->ports[p];

	if (old->type == STORE_NODE_SWITCH ||
	    store_event_link_state(old->guid, (uint8_t)p) != STORE_EV_LINK_UP)
		return 0;
	/* It may have come up since the walk passed: a link event of its
	 * own or of its switch's end since the sweep began, or a reading
	 * of it up (proxy/reread.c) that posted none, the stream being up
	 * already. */
	if (store_event_link_since(old->guid, (uint8_t)p, started) ||
	    (o->remote_guid != 0 && store_event_link_since(o->remote_guid,
	    o->remote_port, started)) || (o->valid && o->state >= 2 &&
	    o->phys_state == 5))
		return DIFF_AGAIN;
	post_state(STORE_EV_LINK_DOWN, old, p, o->lid, NULL, 1);
	return 0;
}

static uint64_t
master_of(const struct store_sm *sms, size_t n)
{
	struct smp_sminfo sm;

	for (size_t i = 0; i < n; i++)
		if (smp_decode_sminfo(sms[i].sminfo, sizeof(sms[i].sminfo),
		    &sm) == 0 && sm.state == 3)
			return sms[i].port_guid;
	return 0;
}

/* Before the inventory takes the sweep's view. A first sweep (empty
 * inventory) has nothing to compare with. */
int
proxy_diff_sweep(const struct proxy_sweep_view *v)
{
	size_t count = store_node_count();
	uint64_t was, now;
	int again = 0;

	for (size_t i = 0; i < v->n; i++) {
		const struct proxy_dnode *dn = v->nodes[i];
		const struct store_node *old = store_node_by_guid(dn->n.guid);

		if (old == NULL) {
			/* New (or the first sweep): nothing to compare, but
			 * a port the SM has yet to activate is watched. */
			for (int p = 1; p <= dn->n.num_ports; p++)
				proxy_watch_reading(dn->n.guid, &dn->ports[p],
				    0);
			continue;
		}
		if (!old->reachable)
			post(STORE_EV_NODE_BACK, old, 0, dn->n.lid, NULL);
		for (int p = 1; p <= dn->n.num_ports && p <= old->num_ports;
		    p++) {
			int r = diff_port(old, &old->ports[p], &dn->ports[p],
			    v->started);

			if (!dn->ports[p].valid && v->complete)
				r |= diff_unreached(old, p, v->started);

			/* Init or Armed, or gone Down: read until it holds
			 * (the SM's activation raises no trap). */
			proxy_watch_reading(old->guid, &dn->ports[p],
			    r & DIFF_MOVED);
			again |= r & DIFF_AGAIN;
		}
	}
	for (size_t i = 0; i < count; i++) {
		const struct store_node *n = store_node_at((uint32_t)i);

		if (htab_get_u64(v->by_guid, n->guid) != NULL)
			continue;
		if (n->reachable)
			post(STORE_EV_NODE_GONE, n, 0, n->lid, NULL);
		/* Not reached at all: none of its links is up. */
		for (int p = 1; v->complete && p <= n->num_ports; p++)
			again |= diff_unreached(n, p, v->started);
	}
	if (count == 0)
		return again != 0;
	/* The master SM (its port GUID) is another one. */
	was = store_sm_count() ? master_of(store_sm_at(0), store_sm_count()) :
	    0;
	now = master_of(v->sms, v->nsms);
	if (was != 0 && now != 0 && was != now) {
		for (size_t i = 0; i < v->nsms; i++)
			if (v->sms[i].port_guid == now) {
				const struct store_node *n = store_node_by_guid(
				    v->sms[i].node_guid);
				char what[64];

				snprintf(what, sizeof(what), "master SM now on "
				    "port %u (was port GUID 0x%016llx)",
				    v->sms[i].port, (unsigned long long)was);
				if (n != NULL)
					post(STORE_EV_SM_MASTER, n,
					    v->sms[i].port, 0, what);
			}
	}
	return again != 0;
}

/* Whether a known node is now reached another way: its own route, or a
 * CA port's (each CA port has its own). */
int
proxy_diff_routes_moved(const struct store_node *old,
    const struct proxy_dnode *dn)
{
	if (!store_path_eq(&old->route, &dn->n.route))
		return 1;
	if (old->num_ports != dn->n.num_ports || dn->n.type ==
	    STORE_NODE_SWITCH)
		return 0;
	for (int p = 1; p <= dn->n.num_ports; p++)
		if (dn->ports[p].route.hop[0] != 0xff &&
		    !store_path_eq(&old->ports[p].route, &dn->ports[p].route))
			return 1;
	return 0;
}

/* What the cache served from such a port's PortInfo (ifOperStatus, ...)
 * is old. */
int
proxy_diff_ports_changed(const struct store_node *old,
    const struct proxy_dnode *dn)
{
	for (int p = 1; p <= dn->n.num_ports && p <= old->num_ports; p++) {
		const struct store_port *o = &old->ports[p], *q = &dn->ports[p];

		if (q->valid && (o->state != q->state || o->phys_state !=
		    q->phys_state || o->width != q->width || o->speed !=
		    q->speed))
			return 1;
	}
	return 0;
}

/* A pulled cable at our own port: the sweep reached only ourselves,
 * and its own PortInfo says so (PortState Down or no physical link),
 * whatever the device's sysfs says (proxy/mad_port.c looks at that). */
int
proxy_diff_local_link_down(const struct proxy_sweep_view *v)
{
	const struct proxy_dnode *me;
	const struct store_port *lp;

	if (v->n == 0)
		return 0;
	me = v->nodes[0];		/* the first NodeInfo: route "0" */
	if (me->n.type == STORE_NODE_SWITCH || me->entry_port == 0 ||
	    me->entry_port > me->n.num_ports)
		return 0;
	lp = &me->ports[me->entry_port];
	return lp->valid && (lp->state <= 1 || lp->phys_state != 5);
}
