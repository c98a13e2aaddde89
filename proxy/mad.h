/* proxy_mad: non-blocking MAD engine on libibumad.
 *
 * Requests wait in one queue per node and are sent round-robin across
 * nodes, with a global and a per-node cap on requests in flight (as in
 * libibnetdisc's SMP engine). Each request in flight has its own
 * deadline and retry count; every request ends in exactly one callback:
 * an answer, an error or a timeout. */
#ifndef IBSNMPGW_PROXY_MAD_H
#define IBSNMPGW_PROXY_MAD_H

#include <stddef.h>
#include <stdint.h>

#include "codec/attr.h"
#include "store/store.h"

#include "proxy/mad_encode.h"
#include "proxy/mad_types.h"

int	proxy_mad_init(const char *ca, int port, int timeout_ms, int retries,
	    int max_inflight, int max_inflight_node);
/* Shutdown's first step: what is in flight or queued fails now, its
 * callbacks run, nothing new is taken. finalise does it too. */
void	proxy_mad_stop(void);
void	proxy_mad_finalise(void);
/* The process is about to exit: finalise leaves the umad port open for
 * the kernel to close. umad2sim (ibsim 0.10) crashes in its receiver
 * thread when a MAD arrives for an agent whose fd was closed (it locks
 * the fd's data before checking it for NULL), and at exit answers and
 * Reports may still be on their way. */
void	proxy_mad_exiting(void);
int	proxy_mad_local(struct proxy_local_port *lp);
/* The M_Key carried in every SMP (0: none). Never logged. */
void	proxy_mad_set_mkey(uint64_t mkey);
/* Whether mkey is the one in force, without handing it out. */
int	proxy_mad_mkey_is(uint64_t mkey);
/* The SM_Key SA requests carry (15.2.1.1); 0: none, untrusted. */
void	proxy_mad_set_sa_key(uint64_t key);
int	proxy_mad_sa_key_is(uint64_t key);
int	proxy_mad_has_sa_key(void);
/* Cap MADs sent per second (0: no cap). */
void	proxy_mad_set_rate(int per_second);
/* Queue a request. Returns 0, or -1 if it cannot even be queued. */
int	proxy_mad_submit(const struct proxy_mad_args *a, proxy_mad_cb cb,
	    void *arg);
void	proxy_mad_get_stats(struct proxy_mad_stats *st);
/* 0, or -1 (all zero) when nothing was ever sent for key. */
int	proxy_mad_node_stats(uint64_t key, struct proxy_mad_node_stats *st);
/* Whether the local port is usable. While it is not, proxy_mad_submit
 * fails at once with errno ENETDOWN, and what was queued or in flight
 * has failed with -ENETDOWN; the port is reopened with backoff and fn
 * is called when it is back. */
int	proxy_mad_port_up(void);
void	proxy_mad_on_port_up(void (*fn)(void *), void *arg);
/* Encode a request into buf (umad_size() + PROXY_MAD_SIZE bytes, zeroed
 * here) with libibmad. mkey goes into SMPs (IBA 14.2.4), sa_key into SA
 * requests that are a->sa_trusted (15.2.1.1). Returns 0, or -1 if it
 * cannot be encoded. */

/* Requests to us, not answers: see proxy_mad_request_fn in
 * proxy/mad_types.h. One handler per management class; fn NULL removes
 * it. */
void	proxy_mad_on_request(uint8_t mgmt_class, proxy_mad_request_fn fn,
	    void *arg);
/* The source LID a request to us came from (its umad address). */
uint16_t proxy_mad_request_slid(const void *req);
/* Whether the port registered the IB SNMP Tunneling class (another
 * agent on the port, such as an ibsnmp-tunneld, may hold it). */
int	proxy_mad_has_tunnel(void);
/* Send mad (len octets, a response method) back to req's sender. */
int	proxy_mad_respond(const void *req, const uint8_t *mad, size_t len);
/* Whether the SA agent receives Reports (no other agent has them). */
int	proxy_mad_takes_reports(void);
/* ib.sim-issm: set IsSM on the port, answer SMInfo as NOTACTIVE. */
void	proxy_mad_set_issm(int on);

/* MAD status of an answer (IBA 13.4.7 Table 119); for DR SMPs the D
 * bit and hop fields are excluded. */
int	proxy_mad_status(const uint8_t *mad);

#endif
