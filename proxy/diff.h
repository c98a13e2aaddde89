/* proxy_diff: what a finished sweep found changed since the last one.
 *
 * The walk (proxy/discover.c) builds the sweep's view of the fabric;
 * before the inventory takes it, this compares the two, posts the
 * events (store/events.h) and hands the ports still settling to the
 * watch (proxy/watch.h). libibnetdisc and ibnetdiscover --diff make
 * the same split between the walk and the comparison. */
#ifndef IBSNMPGW_PROXY_DIFF_H
#define IBSNMPGW_PROXY_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/htab.h"

/* A node as a sweep sees it. */
struct proxy_dnode {
	struct store_node	 n;
	struct store_port	*ports;		/* 0..num_ports */
	uint8_t			 entry_port;	/* port of first arrival */
	int			 desc_ok;
};

/* A finished sweep: its nodes in the order met (the first is the
 * gateway's own, route "0"), by node GUID too, its SMInfo answers,
 * when it started (ev_now()), and whether the walk went everywhere:
 * every NodeInfo and PortInfo answered, every link followed. */
struct proxy_sweep_view {
	struct proxy_dnode *const	*nodes;
	size_t				 n;
	const struct htab		*by_guid;
	const struct store_sm		*sms;
	size_t				 nsms;
	uint64_t			 started;
	int				 complete;	/* the walk went
							 * everywhere */
};

/* Posts what changed. Returns 1 when the SM reported a link during the
 * sweep and not as the sweep read it: another sweep settles it. */
int	proxy_diff_sweep(const struct proxy_sweep_view *v);
/* The sweep reached only ourselves and our own PortInfo says the link
 * is down: what it did not reach says nothing about the fabric. */
int	proxy_diff_local_link_down(const struct proxy_sweep_view *v);
/* A known node is now reached another way (its route or a CA port's). */
int	proxy_diff_routes_moved(const struct store_node *old,
	    const struct proxy_dnode *dn);
/* A port of a known node is not as the inventory had it (state,
 * physical state, width, speed): its cached PortInfo is old. */
int	proxy_diff_ports_changed(const struct store_node *old,
	    const struct proxy_dnode *dn);

#endif
