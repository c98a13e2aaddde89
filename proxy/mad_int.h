/* proxy_mad's inside: the engine's state, one struct mad_engine (as
 * libibnetdisc's struct smp_engine), and what its files share. Included
 * by proxy/mad*.c only; the API is proxy/mad.h. */
#ifndef IBSNMPGW_PROXY_MAD_INT_H
#define IBSNMPGW_PROXY_MAD_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/umad.h>

#include "proxy/mad.h"
#include "util/ev.h"
#include "util/htab.h"

#define SLOT_BITS	12
#define SLOT_COUNT	(1u << SLOT_BITS)	/* > any max-in-flight */
/* The largest RMPP answer taken (an SA table of a large fabric). */
#define MAD_RMPP_MAX	(16 << 20)
/* An RMPP answer past which its buffer is a mapping of its own. */
#define MAD_BIG		(1 << 20)

struct mad_req;

struct mad_node {
	uint64_t			 key;
	struct proxy_mad_node_stats	 st;
	int				 inflight;
	int				 ready;	/* on the ready list */
	TAILQ_HEAD(, mad_req)		 queue;
	TAILQ_ENTRY(mad_node)		 rlink;
};

struct mad_req {
	TAILQ_ENTRY(mad_req)	 link;		/* node queue or in flight */
	struct mad_node		*node;
	proxy_mad_cb		 cb;
	void			*arg;
	uint32_t		 tid;		/* 0 while queued */
	int			 agent;
	int			 tries;		/* sends left */
	int			 optional;	/* proxy_mad_args.optional */
	int			 no_answer;	/* a Send: done when sent */
	int			 garbled;	/* a malformed answer came */
	uint64_t		 deadline;
	uint8_t			 attr_check[4];	/* class, attr id (be16) */
	uint8_t			 mod_check[4];	/* attr modifier (be32) */
	uint8_t			 check_mod;	/* answers echo it */
	uint64_t		 ctx[PROXY_MAD_CTX / 8];	/* args.ctx */
	uint8_t			 umad[];	/* umad_size() + MAD */
};

_Static_assert(PROXY_MAD_CTX % 8 == 0, "mad_req.ctx is in 8-octet words");

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

#define BACKOFF_MIN_MS	1000
#define BACKOFF_MAX_MS	60000

/* Reader thread. umad2sim's poll() waits only on its fake fd whenever one
 * is in the set and ignores the others, so the umad fd cannot share the
 * loop's poll(). A thread blocks on it alone and hands each answer to the
 * loop through a queue and a self-pipe; with the kernel's umad device the
 * same design costs one wake-up per batch. */
struct mad_rx {
	struct mad_rx	*next;
	int		 len;
	size_t		 mapped;	/* its own mapping's size, or 0 */
	uint8_t		 umad[];
};

#define DIRECT_IDLE_MS	5

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
	TAILQ_HEAD(, mad_node)	 ready;
	/* In send order; equal timeouts keep it sorted by deadline. */
	TAILQ_HEAD(, mad_req)	 inflight;
	struct ev_timer		 timer;
	/* Fabric protection: a token bucket on MADs put on the wire, on
	 * top of the caps on MADs in flight. No SNMP load can push past
	 * it. */
	int			 rate;		/* per second, 0: none */
	uint64_t		 mkey;	/* M_Key for SMPs (IBA 14.2.4) */
	uint64_t		 sa_key;	/* SM_Key for the SA (15.2.1.1) */
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
	void			*up_arg;
	uint64_t		 state_checked;
	uint64_t		 send_errs, send_err_logged;
	/* Requests to us: one handler per management class. */
	struct {
		uint8_t			 mgmt_class;
		proxy_mad_request_fn	 fn;
		void			*arg;
	} req_fns[MAD_REQ_CLASSES];
	int			 issm, issm_fd;
	int			 reports;	/* SA agent takes Reports */
	uint64_t		 port_guid;
	/* The process is about to exit (proxy_mad_exiting). */
	int			 exiting;

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

/* The one engine proxy/mad.h's API works on. */
struct mad_engine *mad_engine_default(void);

#endif
