/* proxy_route: directed routes from the inventory's links. */
#ifndef PROXY_ROUTE_H
#define PROXY_ROUTE_H

#include <stdint.h>

#include "store/store.h"

/* The CA or router port with this port GUID (traps 64/65 name a GID),
 * its number in *port; NULL if none. A scan: such lookups are rare. */
const struct store_node *proxy_route_port_owner(uint64_t g, uint8_t *port);
/* A directed route from our port to node to that does not cross the
 * link at node a's port ap, breadth first over the inventory's links
 * between reachable nodes, through switches only. 0, or -1 if none. */
int	proxy_route_around(const struct store_node *to,
	    const struct store_node *a, uint8_t ap, struct store_path *out);

#endif
