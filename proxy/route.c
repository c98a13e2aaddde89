/* proxy_route: directed routes (IBA 14.2.2) worked out from the
 * inventory's links, without a sweep: around a link that just went
 * down (proxy/inform.c reads the far end of it, proxy/reread.c moves
 * the routes that crossed it). */
#include "config.h"

#include <stdlib.h>

#include "proxy/mad.h"
#include "proxy/route.h"

/* The CA or router port with this port GUID (traps 64/65 name a GID).
 * A scan: these traps are rare. */
const struct store_node *
proxy_route_port_owner(uint64_t g, uint8_t *port)
{
	for (size_t i = 0; i < store_node_count(); i++) {
		const struct store_node *n = store_node_at((uint32_t)i);

		for (int p = 0; n != NULL && p <= n->num_ports; p++)
			if (n->ports[p].guid == g) {
				*port = (uint8_t)p;
				return n;
			}
	}
	return NULL;
}

/* A directed route from our port to node to that does not cross the
 * link at node a's port ap (which just went down, while the inventory
 * still has it): breadth first over the inventory's links, through
 * switches only. 0, or -1 if there is none. */
int
proxy_route_around(const struct store_node *to, const struct store_node *a,
    uint8_t ap, struct store_path *out)
{
	size_t cnt = store_node_count(), head = 0, tail = 0;
	struct proxy_local_port lp;
	const struct store_node *me, *first;
	struct store_path *paths = NULL;
	uint32_t *queue = NULL;
	uint8_t *seen = NULL, myport = 0;
	int rc = -1;

	if (proxy_mad_local(&lp) == -1 ||
	    (me = proxy_route_port_owner(lp.port_guid, &myport)) == NULL ||
	    me->ports[myport].remote_guid == 0 ||
	    (first = store_node_by_guid(me->ports[myport].remote_guid)) ==
	    NULL)
		return -1;
	paths = calloc(cnt, sizeof(*paths));
	queue = calloc(cnt, sizeof(*queue));
	seen = calloc(cnt, 1);
	if (paths == NULL || queue == NULL || seen == NULL)
		goto out;
	seen[me->idx] = seen[first->idx] = 1;
	paths[first->idx].cnt = 1;
	paths[first->idx].hop[1] = myport;
	queue[tail++] = first->idx;
	while (head < tail) {
		const struct store_node *n = store_node_at(queue[head++]);
		const struct store_path *pn = &paths[n->idx];

		if (n == to) {
			*out = *pn;
			rc = 0;
			break;
		}
		if (n->type != STORE_NODE_SWITCH || pn->cnt + 1 >= STORE_PATH_MAX)
			continue;
		for (int p = 1; p <= n->num_ports; p++) {
			const struct store_port *sp = &n->ports[p];
			const struct store_node *r;

			if (sp->remote_guid == 0 || (n == a && p == ap) ||
			    (r = store_node_by_guid(sp->remote_guid)) == NULL ||
			    seen[r->idx] || !r->reachable ||
			    (r == a && sp->remote_port == ap))
				continue;
			seen[r->idx] = 1;
			paths[r->idx] = *pn;
			paths[r->idx].cnt++;
			paths[r->idx].hop[pn->cnt + 1] = (uint8_t)p;
			queue[tail++] = r->idx;
		}
	}
out:
	free(paths);
	free(queue);
	free(seen);
	return rc;
}
