/* proxy_mad's inside: the engine's state, one struct mad_engine (as
 * libibnetdisc's struct smp_engine), and what its files share. Included
 * by proxy/mad*.c only; the API is proxy/mad.h. */
#ifndef IBSNMPGW_PROXY_MAD_INT_H
#define IBSNMPGW_PROXY_MAD_INT_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/umad.h>

#include "proxy/mad_encode.h"
#include "proxy/mad_types.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

#define SLOT_BITS	12
#define SLOT_COUNT	(1u << SLOT_BITS)	/* > any max-in-flight */

struct mad_node;
struct mad_req;
struct mad_rx;

/* A counter poll makes and ends tens of thousands of requests: ended
 * ones are kept for the next (at most REQ_SPARE, ~110 kB) instead of a
 * calloc and a free of ~440 octets each, and the direct reader keeps
 * its answer buffer. Under ASan (POOL_MALLOC) each is its own
 * allocation, so that every use after its end is caught. */
#ifdef POOL_MALLOC
#define REQ_SPARE	0
#else
#define REQ_SPARE	256
#endif

/* Requests to us (SA Reports; SMInfo under ibsim's IsSM): the handler
 * and, with IsSM, the issm device that keeps the capability set. */
#define MAD_REQ_CLASSES	4

struct mad_engine {
	/* The request pool (REQ_SPARE). */
	struct mad_req		*req_spare[REQ_SPARE + 1];
	int			 req_nspare;

	int			 fd;
	int			 agent_dr, agent_lid;
	int			 agent_perf;
	int			 agent_sa;
	int			 agent_tun;	/* class 0x08 */
	int			 timeout, retries;
	int			 max, max_node;
	int			 inflight_n, queued_n;
	size_t			 umad_len;
	uint32_t		 gen;
	struct mad_req		*slots[SLOT_COUNT];
	uint32_t		 next_slot;
	struct htab		 nodes;
	struct mad_node		*last_node;	/* node_get's last answer */
	TAILQ_HEAD(, mad_node)	 ready;
	/* In send order; equal timeouts keep it sorted by deadline, but
	 * for a grace (mad.c late_grace): one behind a graced request
	 * waits at most MAD_GRACE_MS more. */
	TAILQ_HEAD(, mad_req)	 inflight;
	struct ev_timer		 timer;
	/* Fabric protection: a token bucket on MADs put on the wire, on
	 * top of the caps on MADs in flight. No SNMP load can push past
	 * it. */
	int			 rate;		/* per second, 0: none */
	uint64_t		 mkey;	/* M_Key for SMPs (IBA 14.2.4) */
	uint64_t		 sa_key;	/* SM_Key, SA (15.2.1.1) */
	double			 tokens;
	uint64_t		 tokens_at;
	struct ev_timer		 rate_timer;
	struct proxy_mad_stats	 st;
	char			 ca[UMAD_CA_NAME_LEN];
	int			 port;
	/* The local port went away (HCA reset, driver reload, cable, a
	 * simulator restart): everything fails at once with -ENETDOWN
	 * until a reopen with bounded backoff works. One log line per
	 * change. */
	int			 down;
	uint64_t		 down_at, backoff_ms;
	unsigned		 reopen_tries;
	struct ev_timer		 reopen_timer;
	void			(*up_fn)(void *);
	/* Set by the scheduler (mad.c) for the rooms below it: the reader
	 * hands it each MAD, and a failure of the port. */
	void			(*deliver)(struct mad_engine *e, uint8_t *umad,
				    int len);
	void			(*port_failed)(struct mad_engine *e,
				    const char *what, int err);
	/* A batch of answers: what their callbacks submit is sent when
	 * the batch ends (deliver_end), back to back, unless fewer than
	 * half the window is out (mad_dispatch). */
	int			 batch;
	int			 last_batch;	/* answers the last direct read took */
	void			(*deliver_end)(struct mad_engine *e);
	void			*up_arg;
	uint64_t		 state_checked;
	uint64_t		 send_errs, send_err_logged;
	/* Answers too short for a header, and malformed ones: each
	 * engine's own lines, rate-limited. */
	struct log_limit	 lim_short, lim_malformed;
	/* Requests to us: one handler per management class. */
	struct {
		uint8_t			 mgmt_class;
		proxy_mad_request_fn	 fn;
		void			*arg;
	} req_fns[MAD_REQ_CLASSES];
	int			 issm, issm_fd;
	int			 reports;	/* SA agent takes Reports */
	uint64_t		 port_guid;
	/* The process is about to exit (proxy_mad_exiting); the engine
	 * stops: nothing more is sent (proxy_mad_stop). */
	int			 exiting, stopping;

	/* The reader thread and its hand-off to the loop. */
	pthread_t		 thread;
	int			 thread_on;
	atomic_int		 stop;
	atomic_int		 rx_err;	/* the reader's fatal errno */
	atomic_uint_fast64_t	 stray;		/* for agents not ours */
	pthread_mutex_t		 rx_lock;
	struct mad_rx		*rx_head, **rx_tail;
	int			 wake[2];
	/* While MADs are in flight the loop reads the port itself
	 * (ev_waiter): an answer then costs no hand-off between threads.
	 * The reader stays parked meanwhile; it serves requests to us and
	 * a quiet port. */
	atomic_int		 direct;
	pthread_mutex_t		 park_lock;
	pthread_cond_t		 park_cv;
	pthread_mutex_t		 read_lock;
	/* The last send or answer (ev_now): the loop reads the port itself
	 * only while MADs flow, not through a timeout's wait (a wake-up a
	 * ms). */
	uint64_t		 last_io;
	struct ev_waiter	 waiter;
	/* The loop's rx for the next answer it reads itself: one malloc
	 * and free less per MAD. */
	struct mad_rx		*direct_spare;
};

/* Errors that mean the port or the device is gone, not this MAD. */
static inline int
mad_port_error(int err)
{
	switch (err) {
	case EIO: case ENODEV: case ENXIO: case EBADF: case ENOTCONN:
	case EPIPE: case ECONNRESET: case ECONNREFUSED: case ENETDOWN:
	case ESHUTDOWN:
		return 1;
	}
	return 0;
}

/* The rooms, each called only from above: mad.c (the scheduler and the
 * API) -> mad_serve.c -> mad_port.c -> mad_rx.c; mad_encode.c is pure.
 * What goes up goes through e->deliver, e->port_failed and e->up_fn. */

/* proxy/mad_port.c: the local port. */
int	mad_port_init(struct mad_engine *e, const char *ca, int port);
void	mad_port_close(struct mad_engine *e);
int	mad_local_port_active(struct mad_engine *e);
int	mad_agent_of(struct mad_engine *e, uint8_t mgmt_class);
/* The port failed (e->down set): reopen it with bounded backoff. */
void	mad_port_reopen(struct mad_engine *e);
int	mad_port_local(struct mad_engine *e, struct proxy_local_port *lp);
void	mad_port_set_issm(struct mad_engine *e, int on);

/* proxy/mad_rx.c: reading the port. */
int	mad_rx_start(struct mad_engine *e);
void	mad_rx_stop(struct mad_engine *e);
/* What the reader queued and what the port has now, handled at once,
 * without waiting (before a MAD timeout). */
void	mad_rx_take_now(struct mad_engine *e);
void	mad_rx_close(struct mad_engine *e);
void	mad_rx_drain(struct mad_engine *e, int ms,
	    void (*drop)(struct mad_engine *, uint8_t *, int));
void	mad_rx_finalise(struct mad_engine *e);
int	mad_reader_start(struct mad_engine *e);
void	mad_reader_stop(struct mad_engine *e);

/* proxy/mad_serve.c: requests to us. */
void	mad_handle_request(struct mad_engine *e, uint8_t *umad, int len);
void	mad_serve_on(struct mad_engine *e, uint8_t mgmt_class,
	    proxy_mad_request_fn fn, void *arg);
int	mad_serve_respond(struct mad_engine *e, const void *req,
	    const uint8_t *mad, size_t len);

#endif
