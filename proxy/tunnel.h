/* proxy_tun: the gateway's end of IB SNMP Tunneling (IBA 16.4, class
 * 0x08; wire rules in docs/tunneling.md).
 *
 * One SNMP message goes to a node's agent (ibsnmp-tunneld) as PduInfo
 * Sends, through the MAD engine's queues, caps and rate limit; the
 * reply's Sends are matched by (source LID, RAddress) and put back
 * together. Whether a node has an agent is found by a ClassPortInfo
 * probe, at most once per probe interval, and kept in the inventory. */
#ifndef IBSNMPGW_PROXY_TUNNEL_H
#define IBSNMPGW_PROXY_TUNNEL_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct proxy_tun_conf {
	int	segment_octets;		/* 1..192 (160 under ibsim) */
	int	probe_interval;		/* seconds between probes of a node */
	int	timeout_ms;		/* per try, the agent's answer */
	int	retries;		/* tries after the first */
	/* Messages out to one node at once, to an agent whose
	 * ClassPortInfo says it takes several (TUN_CAP_CONCURRENT); one
	 * to any other (docs/tunneling.md). */
	int	max_inflight_node;
	int	max_queue_node;		/* waiting behind them */
};

struct proxy_tun_stats {
	uint64_t probes, probe_ok, probe_none;
	uint64_t requests, answers, timeouts, retries, refused;
	uint64_t segments_out, segments_in;
	uint64_t malformed;	/* not a PduInfo segment */
	uint64_t spoofed;	/* SourceLID not the MAD's source */
	uint64_t unmatched;	/* no request waits for it */
	uint64_t broken;	/* out of order: the reply was dropped */
	uint64_t out_peak;	/* most messages out to one node at once */
};

/* status: 0 (pdu, len: the agent's whole reply, valid during the call),
 * -ENOENT (the node has no agent), -ETIMEDOUT, -ENETDOWN, -EMSGSIZE,
 * -ECANCELED (shutdown). */
typedef void (*proxy_tun_cb)(void *arg, int status, const uint8_t *pdu,
    size_t len);

struct proxy_tun_req;

int	proxy_tun_init(const struct proxy_tun_conf *c);
void	proxy_tun_finalise(void);
void	proxy_tun_set_conf(const struct proxy_tun_conf *c);

/* What is known of node n's agent: STORE_TUN_OK or STORE_TUN_NONE, or
 * STORE_TUN_UNKNOWN when it has to be probed (proxy_tun_request then
 * probes first). PortInfo CapabilityMask bit 17 (IsSNMPTunneling-
 * Supported, IBA 14.2.5.6 Table 146) counts as an answered probe. */
enum store_tun proxy_tun_state(const struct store_node *n);

/* Send one SNMP message (len octets) to node n's agent. Returns a handle
 * and calls cb exactly once later (never from inside this call), or
 * NULL with errno set: ENOENT (no agent), EMSGSIZE (over 127 segments),
 * ENOBUFS (the node's queue is full), ENETDOWN. */
struct proxy_tun_req *proxy_tun_request(const struct store_node *n,
	    const uint8_t *pdu, size_t len, proxy_tun_cb cb, void *arg);
/* Forget the request: cb is not called. */
void	proxy_tun_cancel(struct proxy_tun_req *r);

void	proxy_tun_get_stats(struct proxy_tun_stats *st);
/* The RAddress of the last message to node idx (0: none yet); the next
 * one is one more (docs/tunneling.md). */
uint32_t proxy_tun_last_raddr(uint32_t idx);
/* Messages node idx may have out at once now: 0 until its agent was
 * probed in this run, then 1 or tunnel.max-in-flight-per-node. */
int	proxy_tun_node_inflight(uint32_t idx);
/* Requests held now (waiting, out, or finishing): tests, `ctl`. */
size_t	proxy_tun_pending(void);

#endif
