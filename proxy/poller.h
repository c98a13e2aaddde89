/* proxy_poll: background polling by YAML policy (see poller.c). */
#ifndef IBSNMPGW_PROXY_POLLER_H
#define IBSNMPGW_PROXY_POLLER_H

#include <stdint.h>

#include "store/select.h"

struct proxy_threshold {
	int	 ctr;			/* enum perf_ctr */
	double	 per_minute;
	/* > 0: a threshold on PortXmitWait's share of the interval
	 * instead (counters_xmit_wait; ctr is CTR_XMIT_WAIT and
	 * per_minute unused): ibsnmpgw.yaml(5) xmit-wait-ppm. */
	int	 ratio_ppm;
};

/* A polling policy (ibsnmpgw.yaml(5) polling[]): the nodes it matches,
 * which ATTR_POLL_* groups are read, how often and how hard. */
struct proxy_policy {
	char			*name;
	int			 line;
	struct store_select	 match;
	unsigned		 groups;	/* ATTR_POLL_* */
	int			 interval;	/* seconds */
	int			 ttl;		/* seconds */
	int			 max_inflight;
	int			 reset;		/* may reset PortCounters */
	struct proxy_threshold	*thresholds;
	int			 nthresholds;
	/* IB SNMP Tunneling (docs/tunneling.md): which OIDs go to the
	 * node's own agent, with which community, cached how long. */
	int			 tunnel;	/* PROXY_TUNNEL_* */
	char			*tunnel_community;
	int			 tunnel_ttl;	/* seconds, 0: not cached */
};

enum {
	PROXY_TUNNEL_OFF = 0,	/* the gateway's subtrees only */
	PROXY_TUNNEL_AUTO,	/* the rest from the node's agent */
	PROXY_TUNNEL_PREFER,	/* the agent's subtrees win */
};

/* pols stays owned by the caller and must outlive the poller (or the
 * next proxy_poll_set_policies()). */
int		 proxy_poll_init(const struct proxy_policy *pols, int n);
void		 proxy_poll_finalise(void);
int		 proxy_poll_set_policies(const struct proxy_policy *pols, int n);
/* After a sweep: new nodes get a policy and a timer. */
void		 proxy_poll_inventory_changed(void);
/* When the node's last polling round ended (unix seconds) and how long
 * it took: 0, or -1 when none has ended yet. */
int		 proxy_poll_last(uint32_t node, int64_t *when, uint64_t *ms);
/* The node's policy, or NULL when none matches (the defaults). */
const struct proxy_policy *proxy_poll_policy(uint32_t node);
/* "off", "auto", "prefer" for PROXY_TUNNEL_*; NULL for anything else. */
const char	*proxy_poll_tunnel_mode_name(int mode);
/* The name of the node's policy ("default" when none matches). */
const char	*proxy_poll_policy_name(uint32_t node);
/* Poll every reachable node now (flushing the cache first) and log
 * "poll done: N nodes, M MADs in T ms" when all answered. */
int		 proxy_poll_all_now(void);
/* An HA standby polls nothing (no PerfMgt MAD): timers keep running
 * and skip their rounds while paused. */
void		 proxy_poll_pause(int paused);

#endif
