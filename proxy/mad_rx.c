/* proxy_mad: reading the port. A reader thread, or the loop itself while
 * MADs flow (direct mode), takes MADs off the umad descriptor; RMPP
 * answers get buffers of their size. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include <infiniband/umad.h>

#include "codec/attr.h"
#include "proxy/mad_int.h"
#include "util/ev.h"
#include "util/log.h"

/* The largest RMPP answer taken (an SA table of a large fabric). */
#define MAD_RMPP_MAX	(16 << 20)
/* An RMPP answer past which its buffer is a mapping of its own. */
#define MAD_BIG		(1 << 20)

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

/* The loop reads the port itself until this long after the last send
 * or answer (mad_engine.last_io). */
#define DIRECT_IDLE_MS	5

/* The reader cannot go on: the loop takes the port down and reopens it
 * (e->port_failed), and this thread is done. */
static void *
reader_quit(struct mad_engine *e, int err)
{
	atomic_store(&e->rx_err, err);
	(void)!write(e->wake[1], "", 1);
	return NULL;
}

/* A buffer for an RMPP answer of len octets. One over a megabyte gets
 * a mapping of its own, unmapped when freed: from malloc, once glibc
 * had handed out one that size it kept them in the reader's arena, and
 * 16 MB answers left 33 MB of RSS for good (hostilemad.py). */
static struct mad_rx *
rx_alloc_big(struct mad_rx *rx, int len)
{
	size_t sz = sizeof(*rx) + umad_size() + (size_t)len;
	struct mad_rx *big;

	if (len <= PROXY_MAD_SIZE || len > MAD_RMPP_MAX) {
		free(rx);
		return NULL;
	}
	if (sz < MAD_BIG) {
		if ((big = realloc(rx, sz)) == NULL)
			free(rx);
		return big;
	}
	free(rx);
	/* Populated: the read fills all of it, and one call costs half
	 * what a fault per page does (60 -> 31 ms for 16 MB in a VM). */
	big = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (big == MAP_FAILED)
		return NULL;
	big->mapped = sz;
	return big;
}

static void
rx_free(struct mad_rx *rx)
{
	if (rx != NULL && rx->mapped != 0)
		munmap(rx, rx->mapped);
	else
		free(rx);
}

/* An rx of the usual size for the next reader_take (spare: the
 * direct reader's), or freed. */
static void
rx_keep(struct mad_rx *rx, struct mad_rx **spare)
{
	if (REQ_SPARE > 0 && spare != NULL && *spare == NULL &&
	    rx->mapped == 0 && rx->len <= (int)umad_size() + PROXY_MAD_SIZE)
		*spare = rx;
	else
		rx_free(rx);
}

/* One MAD off the port into a new mad_rx (or *spare, taken): 0, 1 when
 * there is none now, or an errno that ends the reader. */
static int
reader_take(struct mad_engine *e, struct mad_rx **out, struct mad_rx **spare)
{
	struct mad_rx *rx;
	int len = PROXY_MAD_SIZE, agent, big = 0;

	if (spare != NULL && *spare != NULL) {
		rx = *spare;
		*spare = NULL;
	} else if ((rx = malloc(sizeof(*rx) + e->umad_len)) == NULL)
		return 1;
	rx->mapped = 0;
	rx->len = 0;
	agent = umad_recv(e->fd, rx->umad, &len, 0);
	if (agent == -ENOSPC) {
		/* An RMPP reassembly (the SA's GetTable answers): the
		 * kernel keeps it first in the queue and says how long it
		 * is. One we cannot take would stay there and block every
		 * later MAD: closing the port drops it (the reopen has a
		 * new queue). */
		if ((rx = rx_alloc_big(rx, len)) == NULL)
			return EMSGSIZE;
		big = 1;
		agent = umad_recv(e->fd, rx->umad, &len, 0);
	}
	/* What rx_keep decides on: whether the buffer was grown, not
	 * the length a failed umad_recv may leave undefined. */
	rx->len = big ? INT_MAX : 0;
	if (agent < 0) {
		rx_keep(rx, spare);
		return mad_port_error(-agent) ? -agent : 1;
	}
	if (agent != e->agent_dr && agent != e->agent_lid &&
	    agent != e->agent_perf && agent != e->agent_sa &&
	    agent != e->agent_tun) {
		atomic_fetch_add(&e->stray, 1);
		rx_keep(rx, spare);
		*out = NULL;
		return 0;
	}
	rx->len = len + (int)umad_size();
	rx->next = NULL;
	*out = rx;
	return 0;
}

/* The reader waits while the loop reads the port (e->direct). */
static void
reader_park(struct mad_engine *e)
{
	pthread_mutex_lock(&e->park_lock);
	while (atomic_load(&e->direct) && !atomic_load(&e->stop))
		pthread_cond_wait(&e->park_cv, &e->park_lock);
	pthread_mutex_unlock(&e->park_lock);
}

static void *
mad_reader(void *arg)
{
	struct mad_engine *e = arg;
	struct pollfd pfd = { e->fd, POLLIN, 0 };

	while (!atomic_load(&e->stop)) {
		reader_park(e);
		/* Bounded wait so finalise can stop us. */
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		/* The loop reads the port now: what came is left to it. One
		 * thread reads at a time (a read is not always one call: an
		 * RMPP answer is sized, then taken). */
		if (atomic_load(&e->direct))
			continue;
		pthread_mutex_lock(&e->read_lock);
		for (;;) {
			struct mad_rx *rx;
			int wake, rc = reader_take(e, &rx, NULL);

			if (rc == 1)
				break;
			if (rc != 0) {
				pthread_mutex_unlock(&e->read_lock);
				return reader_quit(e, rc);
			}
			if (rx == NULL)
				continue;
			pthread_mutex_lock(&e->rx_lock);
			/* The loop takes the whole queue at each wake-up:
			 * only the first answer of a batch wakes it (a
			 * write and a context switch per MAD were a third
			 * of a sweep's CPU). */
			wake = e->rx_head == NULL;
			*e->rx_tail = rx;
			e->rx_tail = &rx->next;
			pthread_mutex_unlock(&e->rx_lock);
			if (wake)
				(void)!write(e->wake[1], "", 1);
		}
		pthread_mutex_unlock(&e->read_lock);
	}
	return NULL;
}

static void
direct_end(struct mad_engine *e)
{
	pthread_mutex_lock(&e->park_lock);
	atomic_store(&e->direct, 0);
	pthread_cond_signal(&e->park_cv);
	pthread_mutex_unlock(&e->park_lock);
}

/* ev_waiter: MADs in flight on an open port, and one sent or answered
 * within DIRECT_IDLE_MS. */
static int
direct_active(void *arg)
{
	struct mad_engine *e = arg;

	if (e->inflight_n > 0 && !e->down && e->fd >= 0 &&
	    e->thread_on && ev_now() - e->last_io <= DIRECT_IDLE_MS) {
		atomic_store(&e->direct, 1);
		return 1;
	}
	if (atomic_load(&e->direct))
		direct_end(e);
	return 0;
}

/* At most a batch a call: a flood of MADs does not keep the loop from
 * its other descriptors and timers. */
#define DIRECT_BATCH	64

static int
direct_batch(struct mad_engine *e)
{
	int k;

	for (k = 0; k < DIRECT_BATCH; k++) {
		struct mad_rx *rx;
		int rc;

		/* The reader still taking a batch it began hands it over.
		 * The lock is not held while an answer is handled: its
		 * callbacks may close the port (e->port_failed joins it). */
		if (pthread_mutex_trylock(&e->read_lock) != 0)
			return k;
		rc = reader_take(e, &rx, &e->direct_spare);
		pthread_mutex_unlock(&e->read_lock);
		if (rc == 1)
			return k;
		if (rc != 0) {
			e->port_failed(e, "umad_recv", rc);
			return k;
		}
		if (rx == NULL)
			continue;
		e->last_io = ev_now();
		if (!e->down)
			e->deliver(e, rx->umad, rx->len);
		rx_keep(rx, &e->direct_spare);
		if (e->down || e->fd < 0)
			return k;
	}
	return k;
}

/* Coalescing: with a wide window mostly out, the first answer of a
 * run wakes the loop while the rest are still on their way, and each
 * wake-up takes one or two. Waiting MAD_COALESCE_US then takes about a
 * tenth of the window at once, for one wake-up (alternated with the
 * code before it: 2,000-node sweeps 442 -> 389 ms, 25,810-MAD polls
 * 391 -> 348 ms, medians, and less CPU). Not while the last read took
 * a batch already, nor with few MADs out, whose answers it would only
 * delay. */
#define MAD_COALESCE_US		80
#define MAD_COALESCE_BATCH	8	/* a last read this big: no wait */
#define MAD_COALESCE_OUT	16	/* in flight, at least, and half max */

static int
coalesce_us(const struct mad_engine *e)
{
	if (e->last_batch >= MAD_COALESCE_BATCH ||
	    e->inflight_n < MAD_COALESCE_OUT || e->inflight_n < e->max / 2)
		return 0;
	return MAD_COALESCE_US;
}

static void
direct_wait(void *arg, int wait_ms)
{
	struct mad_engine *e = arg;
	struct pollfd pfd = { e->fd, POLLIN, 0 };
	int us;

	if (poll(&pfd, 1, wait_ms) <= 0)
		return;
	if ((us = coalesce_us(e)) > 0) {
		struct timespec ts = { 0, us * 1000L };

		(void)nanosleep(&ts, NULL);
	}
	/* What the batch's callbacks submit is sent after it, back to
	 * back, while half the window is still out (mad_dispatch): the
	 * simulator (or the HCA's send queue) takes the run in one
	 * wake-up, not one per answer (a sweep's CPU at 18,602 SMPs,
	 * alternated: medians 385-445 -> 340-395 ms). */
	e->batch = 1;
	e->last_batch = direct_batch(e);
	e->deliver_end(e);
}

/* What the reader thread queued for the loop, all of it. */
static struct mad_rx *
rx_take_all(struct mad_engine *e)
{
	struct mad_rx *rx;

	pthread_mutex_lock(&e->rx_lock);
	rx = e->rx_head;
	e->rx_head = NULL;
	e->rx_tail = &e->rx_head;
	pthread_mutex_unlock(&e->rx_lock);
	return rx;
}

/* What the reader thread queued, handled now. */
static void
rx_deliver_queued(struct mad_engine *e)
{
	struct mad_rx *rx, *nx;

	if ((rx = rx_take_all(e)) != NULL)
		e->last_io = ev_now();
	for (; rx != NULL; rx = nx) {
		nx = rx->next;
		if (!e->down)
			e->deliver(e, rx->umad, rx->len);
		rx_free(rx);
	}
}

static void
mad_wake_cb(int fd, short revents, void *arg)
{
	struct mad_engine *e = arg;
	char buf[256];

	/* One read empties the pipe unless it was full: the reader
	 * writes a byte per batch, and a byte written after this read
	 * wakes the loop again (an empty batch then). */
	while (read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
		;
	e->batch = 1;
	rx_deliver_queued(e);
	e->deliver_end(e);
	if (atomic_load(&e->rx_err) != 0) {
		int err = atomic_exchange(&e->rx_err, 0);

		e->port_failed(e, err == EMSGSIZE ? "umad_recv of an answer "
		    "over 16 MB, which would block the queue" : "umad_recv",
		    err);
	}
}

void
mad_rx_take_now(struct mad_engine *e)
{
	if (e->down || e->fd < 0 || e->stopping)
		return;
	e->batch = 1;
	rx_deliver_queued(e);
	/* The port's own queue too. A reader thread that is mid-read
	 * (read_lock) queues what it takes: looked at again after. */
	if (!e->down && e->fd >= 0)
		direct_batch(e);
	rx_deliver_queued(e);
	e->deliver_end(e);
}

int
mad_reader_start(struct mad_engine *e)
{
	atomic_store(&e->stop, 0);
	atomic_store(&e->rx_err, 0);
	if (pthread_create(&e->thread, NULL, mad_reader, e) != 0)
		return -1;
	e->thread_on = 1;
	return 0;
}

void
mad_reader_stop(struct mad_engine *e)
{
	if (!e->thread_on)
		return;
	atomic_store(&e->stop, 1);
	direct_end(e);
	pthread_join(e->thread, NULL);
	e->thread_on = 0;
}

/* The wake pipe, the reader thread and the loop's waiter (the direct
 * reads); -1, logged, if one cannot be had. */
int
mad_rx_start(struct mad_engine *e)
{
	if (pipe(e->wake) == -1) {
		log_warn("mad: pipe");
		return -1;
	}
	for (int i = 0; i < 2; i++)
		fcntl(e->wake[i], F_SETFL, O_NONBLOCK);
	if (ev_fd_add(e->wake[0], POLLIN, mad_wake_cb, e) == -1 ||
	    mad_reader_start(e) == -1) {
		log_warnx("mad: cannot start the reader");
		return -1;
	}
	e->waiter.active = direct_active;
	e->waiter.wait = direct_wait;
	e->waiter.arg = e;
	ev_waiter_set(&e->waiter);
	return 0;
}

/* Shutdown: the loop reads the port no more, the reader is joined. */
void
mad_rx_stop(struct mad_engine *e)
{
	ev_waiter_set(NULL);
	mad_reader_stop(e);
}

/* Before the process exits, the answers to what is still in flight
 * are read, for at most ms, and handed to drop. Under umad2sim (ibsim
 * 0.10) a MAD that arrives during its exit handler hangs the exit: the
 * handler holds the lock its receiver thread takes for each MAD, then
 * waits for that thread (tests/sim/README.md). Called with the reader
 * thread stopped. */
void
mad_rx_drain(struct mad_engine *e, int ms,
    void (*drop)(struct mad_engine *, uint8_t *, int))
{
	struct mad_rx *rx, *nx, *spare = NULL;
	uint64_t end = ev_now() + (uint64_t)ms, now;

	/* First what the reader took and the loop has not handled yet. */
	for (rx = rx_take_all(e); rx != NULL; rx = nx) {
		nx = rx->next;
		drop(e, rx->umad, rx->len);
		rx_free(rx);
	}
	while (e->inflight_n > 0 && (now = ev_now()) < end) {
		struct pollfd pfd = { e->fd, POLLIN, 0 };
		int rc = 1;

		if (poll(&pfd, 1, (int)(end - now)) < 0 && errno != EINTR)
			break;
		/* Until the queue is empty (1) or the port fails: a failed
		 * port answers every poll at once, and no answer comes. */
		while (e->inflight_n > 0 &&
		    (rc = reader_take(e, &rx, &spare)) == 0)
			if (rx != NULL) {
				drop(e, rx->umad, rx->len);
				rx_keep(rx, &spare);
			}
		if (e->inflight_n > 0 && rc != 1) {
			log_warnx("mad: exit: the answers in flight cannot be "
			    "read: %s", strerror(rc));
			break;
		}
	}
	if (spare != NULL)
		rx_free(spare);
}

/* Shutdown, after mad_rx_stop: the wake pipe closes, and answers the
 * reader queued and the loop did not take go with it. */
void
mad_rx_close(struct mad_engine *e)
{
	if (e->wake[0] >= 0) {
		struct mad_rx *rx, *nx;
		ev_fd_del(e->wake[0]);
		close(e->wake[0]);
		close(e->wake[1]);
		e->wake[0] = e->wake[1] = -1;
		for (rx = rx_take_all(e); rx != NULL; rx = nx) {
			nx = rx->next;
			rx_free(rx);
		}
	}
}

/* The direct reader's kept buffer. */
void
mad_rx_finalise(struct mad_engine *e)
{
	rx_free(e->direct_spare);
	e->direct_spare = NULL;
}
