/* proxy_portread: the ports an SM Report names (trap 128 names the
 * switch), read at once rather than at the next sweep: by the sweep's
 * directed route and by LID together, the link's other end too when
 * it is a switch. What changed is posted as a link event and handed to
 * proxy/reread.c for the inventory. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "codec/attr.h"
#include "codec/smp.h"
#include "proxy/mad.h"
#include "proxy/portread.h"
#include "proxy/reread.h"
#include "proxy/route.h"
#include "store/cache.h"
#include "store/events.h"
#include "store/store.h"
#include "util/ev.h"

struct port_read {
	uint64_t	guid;
	uint8_t		port;
	uint16_t	lid;
	uint8_t		peer;		/* read for its peer: no further */
	uint8_t		pending;	/* MADs out: by route and by LID */
	uint8_t		done;		/* one answered */
	uint8_t		retried;
	struct store_path route;	/* cnt 0, hop[0] 0xff: none */
	struct ev_timer	timer;
};

static void	read_port(const struct store_node *n, int port, uint16_t lid,
		    int peer, const struct store_path *route);
static int	submit_read(const struct store_node *n, struct port_read *pr,
		    int by_lid);

int
proxy_portread_link_changed(const struct store_node *n, uint8_t port, uint16_t lid,
    uint8_t state, uint16_t trap)
{
	int was = store_event_link_state(n->guid, port), now;
	struct store_event ev;

	if (was == 0) {
		const struct store_port *p = &n->ports[port];

		if (!p->valid || p->state == 0)
			return 0;
		was = p->state == 1 ? STORE_EV_LINK_DOWN : STORE_EV_LINK_UP;
	}
	now = state == 1 ? STORE_EV_LINK_DOWN : STORE_EV_LINK_UP;
	if (now == was)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.type = (uint8_t)now;
	ev.source = STORE_SRC_SM;
	ev.node_guid = n->guid;
	ev.port = port;
	ev.lid = lid;
	ev.trap = trap;
	ev.data[0] = state;	/* PortState after, as the sweep's */
	snprintf(ev.text, sizeof(ev.text), "%s", store_node_ident(n));
	store_event_post(&ev);
	return 1;
}

static void
port_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct port_read *pr = arg;
	const struct store_node *n = store_node_by_guid(pr->guid), *peer;
	const struct store_port *p;
	struct smp_portinfo pi;

	pr->pending--;
	if (pr->done || status != 0) {
		if (pr->pending > 0)
			return;
		if (!pr->done && !pr->retried && pr->lid != 0) {
			/* Neither way through yet: by LID again once the
			 * SM has had time to route around the dead link. */
			pr->retried = 1;
			ev_timer_add(&pr->timer, 1000);
			return;
		}
		if (!pr->done)
			proxy_reread_failed("a port a Report named did not "
			    "answer");
		free(pr);
		return;
	}
	pr->done = 1;
	if (n == NULL || pr->port > n->num_ports ||
	    smp_decode_portinfo(mad + SMP_DATA_OFFS, SMP_DATA_SIZE, &pi) ||
	    pi.state == 0) {
		if (pr->pending == 0)
			free(pr);
		return;
	}
	/* Trap 128 names one end of a link. The other end, if a switch
	 * (reachable by other routes when this link is down), is read
	 * too; a CA's port is reported by traps 64/65. */
	p = &n->ports[pr->port];
	peer = p->remote_guid ? store_node_by_guid(p->remote_guid) : NULL;
	if (proxy_portread_link_changed(n, pr->port, pr->lid, pi.state, 128) && !pr->peer &&
	    peer != NULL && peer->type == STORE_NODE_SWITCH &&
	    p->remote_port <= peer->num_ports && peer->lid != 0) {
		struct store_path around;

		if (pi.state != 1 || proxy_route_around(peer, n, pr->port,
		    &around) == -1) {
			around.cnt = 0;
			around.hop[0] = 0xff;
		}
		read_port(peer, p->remote_port, peer->lid, 1, &around);
	}
	/* Then the inventory, without a sweep where it can. */
	proxy_reread_port(pr->guid, pr->port, mad + SMP_DATA_OFFS);
	if (pr->pending == 0)
		free(pr);
}

/* PortInfo of one port, by the sweep's directed route and by LID at
 * once: either may lead over the link that just went down (the LID
 * route until the SM has swept; IBA 14.2.2: DR SMPs do not use the
 * forwarding tables), and waiting for one to time out before trying
 * the other would cost the time this is for. The first answer wins. */
static int
submit_read(const struct store_node *n, struct port_read *pr, int by_lid)
{
	struct proxy_mad_args a;

	memset(&a, 0, sizeof(a));
	a.node_key = n->guid;
	if (by_lid) {
		/* Its own queue: a timeout of the other (the engine then
		 * fails what waits for the same node) must not stop it. */
		a.node_key = 1ULL << 63 | pr->lid;
		a.target.lid = pr->lid;
		a.mgmt_class = ATTR_CLASS_SMI;
	} else {
		a.target.path = pr->route;
		a.mgmt_class = ATTR_CLASS_SMI_DR;
	}
	a.method = IB_MAD_METHOD_GET;
	a.attr_id = IB_ATTR_PORT_INFO;
	a.attr_mod = pr->port;
	a.optional = 1;		/* a lost one must not fail the node's queue */
	pr->pending++;		/* the callback may come at once */
	if (proxy_mad_submit(&a, port_cb, pr) == -1) {
		pr->pending--;
		return -1;
	}
	return 0;
}

static void
retry_cb(void *arg)
{
	struct port_read *pr = arg;
	const struct store_node *n = store_node_by_guid(pr->guid);

	if (n == NULL || submit_read(n, pr, 1) == -1)
		free(pr);
}

static void
read_port(const struct store_node *n, int port, uint16_t lid, int peer,
    const struct store_path *route)
{
	struct port_read *pr = calloc(1, sizeof(*pr));

	if (pr == NULL)
		return;
	pr->guid = n->guid;
	pr->port = (uint8_t)port;
	pr->lid = lid;
	pr->peer = (uint8_t)peer;
	pr->route = route != NULL && !(route->cnt == 0 &&
	    route->hop[0] == 0xff) ? *route : n->route;
	ev_timer_init(&pr->timer, retry_cb, pr);
	pr->pending = 1;	/* ours, until both are out */
	if (!(pr->route.cnt == 0 && pr->route.hop[0] == 0xff))
		(void)submit_read(n, pr, 0);
	if (lid != 0)
		(void)submit_read(n, pr, 1);
	if (--pr->pending == 0)
		free(pr);
}

void
proxy_portread_switch(const struct store_node *n, uint16_t lid)
{
	cache_flush(n->idx);	/* SNMP reads the new states too */
	for (int p = 1; p <= n->num_ports; p++)
		read_port(n, p, lid, 0, NULL);
}
