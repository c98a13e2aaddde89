/* proxy_mad's types: a request, its callback, the engine's counters.
 * Shared by the engine's API (proxy/mad.h) and its rooms
 * (proxy/mad_int.h). */
#ifndef IBSNMPGW_PROXY_MAD_TYPES_H
#define IBSNMPGW_PROXY_MAD_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

#define PROXY_MAD_SIZE		256

struct proxy_target {
	uint16_t		lid;	/* 0: use the directed route */
	struct store_path	path;
};

struct proxy_mad_args {
	uint64_t		 node_key;	/* groups requests per node */
	struct proxy_target	 target;
	uint8_t			 mgmt_class;
	uint8_t			 method;
	uint16_t		 attr_id;
	uint32_t		 attr_mod;
	const uint8_t		*data;		/* request payload or NULL */
	uint8_t			 data_len;
	/* SA (class 0x03, IBA 15.2.1.1): the component mask; LID-routed
	 * to QP1 like PerfMgt. */
	uint64_t		 comp_mask;
	/* A request sent as a one-segment RMPP transfer (IBA 13.6.2.1):
	 * SubnAdmGetMulti is the dual-sided RMPP method (15.4.5). */
	uint8_t			 rmpp_request;
	/* The attribute the answer carries when not the request's (a
	 * GetMulti(MultiPathRecord) is answered with PathRecords). */
	uint16_t		 answer_attr;
	/* SA: carry the SA key set with proxy_mad_set_sa_key (a trusted
	 * requester, IBA 15.4.1); else SM_Key 0. */
	uint8_t			 sa_trusted;
	/* An optional attribute a live node may drop: its timeout does
	 * not fail the rest of the node's queue. */
	uint8_t			 optional;
	/* A whole MAD (PROXY_MAD_SIZE octets) to send as it is but for
	 * its TID, LID-routed to QP1 (the tunnel's segments, built by
	 * codec/tunnel.c); the fields above but node_key, target and
	 * mgmt_class are then unused. */
	const uint8_t		*raw;
	/* A Send (IBA 13.4.5): no answer comes. The callback runs with
	 * status 0 once it is on the wire. */
	uint8_t			 no_answer;
	/* The caller's state, up to PROXY_MAD_CTX octets, copied into the
	 * request: the callback's arg is then that copy (valid during the
	 * callback), and the caller allocates nothing per MAD. */
	const void		*ctx;
	uint8_t			 ctx_len;
};

#define PROXY_MAD_CTX	32

/* status: 0, or -ETIMEDOUT (no answer after all retries),
 * -EHOSTUNREACH (not sent: another request to the node by the same LID
 * or directed route just timed out),
 * -EIO (MAD status error; *mad holds the answer), -EPROTO (malformed
 * answer), -ECANCELED (engine shut down). mad is the whole MAD or NULL,
 * valid during the callback, and len its octets (0 with NULL): 256 for
 * SMPs and PerfMgt, or for an SA answer the RMPP reassembly the kernel
 * made. */
typedef void (*proxy_mad_cb)(void *arg, int status, const uint8_t *mad,
    size_t len);

struct proxy_mad_stats {
	uint64_t sent, answered, timeouts, retries, errors, malformed;
	uint64_t throttled;	/* times the rate limit held MADs back */
	uint64_t inflight, queued;
	uint64_t port_failures;	/* times the local port went down */
	uint64_t requests;	/* requests to us (SA Reports, SMInfo) */
	uint64_t unexpected;	/* of those, none of ours took */
	uint64_t stale;		/* answers whose TID nothing waits for */
	uint64_t stray;		/* MADs for an agent not ours */
	uint64_t responses;	/* answers we sent to requests */
	uint64_t reopens;	/* and came back */
	uint64_t perf_sent;	/* of sent, PerfMgt (class 0x04) */
	int	 port_down;
	/* The window: MADs in flight at most, and to one node_key. */
	int	 max_inflight, max_inflight_node;
};

/* Per node_key (a node's GUID for every MAD but the sweep's first
 * NodeInfo, which goes by route): MADs on the wire (retries too),
 * requests that ended without an answer, and answers that were a MAD
 * status error or malformed. */
struct proxy_mad_node_stats {
	uint64_t sent, timeouts, errors;
	uint64_t retries;	/* of sent, sends again (timeout, garbled) */
	uint64_t perf_sent;	/* of sent, PerfMgt requests, first sends */
};

struct proxy_local_port {
	char		ca[32];
	int		port;
	uint16_t	lid;
	uint16_t	sm_lid;
	uint64_t	port_guid;
	int		state;
};

/* Requests to us, not answers (the SA's Reports, IBA 13.4.8.2; the
 * tunnel's Sends, 16.4): mad is the whole MAD, req what
 * proxy_mad_respond and proxy_mad_request_slid need. Return 0 if taken,
 * -1 if not ours (counted as unexpected). One handler per management
 * class; fn NULL removes it. */
typedef int (*proxy_mad_request_fn)(void *arg, const void *req,
    const uint8_t *mad, size_t len);

#endif
