/* gw_snmp: net-snmp's agent inside the daemon's poll loop.
 *
 * One net-snmp context list entry serves every node: requests for a
 * node are rewritten on arrival to the internal context GW_NODE_CONTEXT,
 * and the handlers find the node again from the request (see snmp.c).
 * Lookup cost therefore does not grow with the fabric. */
#ifndef IBSNMPGW_GW_SNMP_H
#define IBSNMPGW_GW_SNMP_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "gateway/conf.h"
#include "store/select.h"
#include "store/store.h"

/* Never a valid node name (has '@'), so no client can select it. */
#define GW_NODE_CONTEXT	"@ibsnmpgw-node"
/* The whole fabric (snmp.fabric-context, "fabric" by default): IB-SM-MIB
 * and the node table. */
#define GW_FABRIC_CONTEXT "@ibsnmpgw-fabric"

struct gw_snmp_stats {
	uint64_t	requests, node_requests, fabric_requests, bad_names,
			unknown_contexts;
};

/* Library setup: logging, persistent directory, USM. Before MIB
 * registration. */
int	gw_snmp_init(const struct gw_conf *c);
/* Open listeners and create users. After MIB registration. */
int	gw_snmp_start(const struct gw_conf *c);
void	gw_snmp_finalise(void);
/* Reload of snmp.listen, in two steps: prepare opens the listeners c
 * adds (all or none: -1 leaves the set as it was); commit closes those
 * c no longer lists, answering their outstanding requests first; abort
 * undoes prepare. */
int	gw_snmp_listeners_prepare(const struct gw_conf *c);
void	gw_snmp_listeners_commit(const struct gw_conf *c);
void	gw_snmp_listeners_abort(void);
/* An HA standby's listeners (docs/ha.md): paused, every one is closed
 * (and none opens at start or reload); resumed, c's open again. -1
 * (logged) if one cannot open; the others stay open. */
int	gw_snmp_listeners_pause(const struct gw_conf *c, int paused);
/* Communities, their sources and node selectors, users' node selectors:
 * from c, which must stay valid until the next call. */
void	gw_snmp_set_access(const struct gw_conf *c);
void	gw_snmp_reload_users(const struct gw_conf *old,
	    const struct gw_conf *c);

/* A request's addressing is worked out once, as it arrives, and goes
 * with the request from the first of these calls on (its agent data),
 * so that a delegated request finds it as it was. */
/* The node a request in GW_NODE_CONTEXT is for, or NULL. */
const struct store_node *gw_snmp_request_node(netsnmp_agent_request_info *reqinfo);
/* The nodes the requester (community or user) may see: 0 and *sel (an
 * unset selector: all), or -1 when it is no longer configured (a
 * reload removed it while the request waited): it sees nothing. */
/* Who sent the request: "community NAME" or "user NAME" into owner,
 * and whether its configuration grants fabric-queries. 0, or -1 when
 * the requester is no longer configured. */
int	gw_snmp_request_owner(netsnmp_agent_request_info *reqinfo,
	    char *owner, size_t len, int *grant);
int	gw_snmp_request_select(netsnmp_agent_request_info *reqinfo,
	    const struct store_select **sel);

void	gw_snmp_get_stats(struct gw_snmp_stats *st);
/* snmpEngineMaxMessageSize (RFC 3411 5): the least msgMaxSize of the
 * listeners, the one the v3 header carries. */
long	gw_snmp_max_msg_size(void);


/* The engine's identity (snmp_engine.c; docs/snmp-engine.md). */
#define GW_SNMP_BOOTS_MAX	2147483647u	/* RFC 3414 2.2.2 */
/* Before init_snmp(): the engine ID, snmp.engine-id or the one the
 * store keeps. -1 (logged) if the stored one is unreadable. */
int	gw_snmp_engine_prepare(const struct gw_conf *c);
/* After init_snmp(), before any listener: snmpEngineBoots one up from
 * the last start's, on disk before it returns. -1 (logged): the boots
 * are unknown or could not be stored; do not start. */
int	gw_snmp_engine_start(void);
/* max(this engine's boots, seen) + 1, on disk and then in force: the
 * boots a promoted HA gateway answers with (seen: its peer's). -1
 * (logged) if it could not be stored; the boots are then unchanged. */
int	gw_snmp_engine_boots_raise(uint32_t seen);
uint32_t gw_snmp_engine_boots(void);
/* b + 1, or b at GW_SNMP_BOOTS_MAX. */
uint32_t gw_snmp_boots_next(uint32_t b);

/* snmp_udp.c: a UDP/IPv4 listener's receive and send without a system
 * call per datagram each; others are left as they are. forget: its
 * socket is about to close. */
void	gw_snmp_udp_tune(netsnmp_transport *t);
void	gw_snmp_udp_forget(int fd);
#define GW_SNMP_UDP_BATCH	8	/* datagrams per recvmmsg() */
/* The listeners with datagrams read but not yet handed to the agent,
 * set in fds unless it is NULL: how many. */
int	gw_snmp_udp_pending(netsnmp_large_fd_set *fds);

#endif
