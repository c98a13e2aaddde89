/* proxy_poll: background polling by YAML policy (see poller.c). */
#ifndef IBSNMPGW_PROXY_POLLER_H
#define IBSNMPGW_PROXY_POLLER_H

#include <stdint.h>

#include "gateway/conf.h"

/* pols stays owned by the caller and must outlive the poller (or the
 * next proxy_poll_set_policies()). */
int		 proxy_poll_init(const struct gw_policy *pols, int n);
void		 proxy_poll_finalise(void);
int		 proxy_poll_set_policies(const struct gw_policy *pols, int n);
/* After a sweep: new nodes get a policy and a timer. */
void		 proxy_poll_inventory_changed(void);
/* The name of the node's policy ("default" when none matches). */
const char	*proxy_poll_policy_name(uint32_t node);
/* Poll every reachable node now (flushing the cache first) and log
 * "poll done: N nodes, M MADs in T ms" when all answered. */
int		 proxy_poll_all_now(void);

#endif
