/* gw_mib internals, shared by the evaluator (mib.c), the registration
 * of modules (mib_reg.c) and the tunnel source (mib_tunnel.c) only;
 * table files never see them (libibnetdisc's internal.h). */
#ifndef IBSNMPGW_GW_MIB_INT_H
#define IBSNMPGW_GW_MIB_INT_H

#include "gateway/mib.h"

/* The handler behind every gw_table (myvoid: the table). */
int	gw_mib_handler(netsnmp_mib_handler *h,
	    netsnmp_handler_registration *reg,
	    netsnmp_agent_request_info *reqinfo,
	    netsnmp_request_info *requests);

/* One varbind against a table (mib_eval.c): GW_EVAL_DONE (answered,
 * an error set, or left for the next registration), or GW_EVAL_NEED
 * with the missing attribute in e->key (or e->failed set). */
enum { GW_EVAL_DONE, GW_EVAL_NEED };

struct gw_eval {
	const struct gw_table	*t;
	const struct store_node	*n;
	uint64_t		 since;		/* job start, ms */
	int			 need;		/* key below is missing */
	struct cache_key	 key;
	enum attr_ttl		 cls;
	int			 failed;	/* negative errno */
	int			 have_last;	/* last: the attribute */
	struct cache_key	 last;		/* a getter read last */
	const struct gw_col	*col;		/* being evaluated */
	netsnmp_agent_request_info *ri;		/* the request */
	const struct store_select *sel;		/* requester's nodes */
	int			 sel_ok;	/* requester still configured;
						   -1: not looked up yet */
	int			 answered;	/* value (not error) set */
};

int	gw_eval_get(struct gw_eval *e, netsnmp_request_info *r);
int	gw_eval_getnext(struct gw_eval *e, netsnmp_request_info *r);

/* The node's agent as a source (mib_tunnel.c), with store/cache.c's
 * contract. gw_tun_lookup: 0 and *v (valid until the next lookup) from
 * the answers kept; 1 when cb is queued for the message that will
 * carry the answer; -1 (no memory, or cb NULL: a peek). cb runs once,
 * from the loop, never inside the lookup: status 0 and the generation
 * to look again with (an answer fetched for a waiter is its own even
 * past its TTL), -ENOENT when the node has no agent (any more), or
 * another negative errno when the message failed. */
#define GW_TUN_GET	1
#define GW_TUN_NEXT	2

struct gw_tun_key {
	uint32_t	node;
	int		kind;		/* GW_TUN_GET, GW_TUN_NEXT */
	size_t		len;
	oid		name[MAX_OID_LEN];
};

struct gw_tun_val {
	u_char		 type;		/* SNMP_ENDOFMIBVIEW: nothing next */
	const oid	*next;		/* GW_TUN_NEXT: the successor */
	size_t		 next_len;
	const u_char	*val;
	size_t		 vlen;
};

typedef void (*gw_tun_waiter)(void *arg, int status, uint32_t gen);

/* The node's tunnel mode (PROXY_TUNNEL_*: OFF when it has no agent). */
int	gw_tun_mode(const struct store_node *n);
int	gw_tun_lookup(const struct gw_tun_key *key, uint32_t gen,
	    struct gw_tun_val *v, gw_tun_waiter cb, void *arg);
/* Send what the lookups so far asked (the end of a handler's call: all
 * its varbinds for a node in one message); else it goes at the end of
 * the loop's turn. */
void	gw_tun_flush(void);
/* Take back a waiter (its request gave up: a deadline). */
void	gw_tun_cancel(const struct gw_tun_key *key, gw_tun_waiter cb,
	    void *arg);

#endif
