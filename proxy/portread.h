/* proxy_portread: the ports an SM Report names, read at once (IBA
 * 14.2.5.1 trap 128) and posted as link events. */
#ifndef IBSNMPGW_PROXY_PORTREAD_H
#define IBSNMPGW_PROXY_PORTREAD_H

#include <stdint.h>

struct store_node;

/* Every port of switch n (at LID lid) read by route and by LID; its
 * cached attributes flushed, so SNMP reads the new states too. */
void	proxy_portread_switch(const struct store_node *n, uint16_t lid);
/* Post port's link event (state: PortState after; trap: the Report's)
 * unless the stream, or the inventory if never reported on, already
 * says so. Returns 1 if posted. */
int	proxy_portread_link_changed(const struct store_node *n, uint8_t port,
	    uint16_t lid, uint8_t state, uint16_t trap);

#endif
