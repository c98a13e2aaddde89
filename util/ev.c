/* ev: poll() loop with a binary heap of timers. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ev.h"
#include "log.h"

#define EV_MAX_FDS	64
#define EV_MAX_HOOKS	4
#define EV_HOOK_FDS	256

struct ev_fd {
	int		 fd;
	short		 events;
	ev_fd_cb	 cb;
	void		*arg;
};

static struct ev_fd	 ev_fds[EV_MAX_FDS];
static int		 ev_nfds;
static struct ev_hook	 ev_hooks[EV_MAX_HOOKS];
static int		 ev_nhooks;
static struct ev_timer	**ev_heap;
static int		 ev_heap_len, ev_heap_cap;
static int		 ev_stop;

int
ev_init(void)
{
	ev_nfds = ev_nhooks = ev_heap_len = 0;
	ev_stop = 0;
	return 0;
}

void
ev_finalise(void)
{
	free(ev_heap);
	ev_heap = NULL;
	ev_heap_len = ev_heap_cap = 0;
	ev_nfds = ev_nhooks = 0;
}

static uint64_t (*ev_clock)(void);
/* Under a test clock, the wall clock moves with it, as it does with
 * the real one: event times and the ev_now() times derived from them
 * stay one timeline. */
static int64_t		 ev_wall_base;

static int64_t	(*ev_wall_fn)(void);

static struct ev_waiter	 ev_waiter;
/* When the loop last polled its own descriptors (ev_now, ms), and
 * whether the waiter ran alone since: what it completed (an answer to a
 * delegated SNMP request) is for the hooks to send, at once. */
static uint64_t		 ev_polled_at;
static int		 ev_owed;

void
ev_waiter_set(const struct ev_waiter *w)
{
	if (w != NULL)
		ev_waiter = *w;
	else
		memset(&ev_waiter, 0, sizeof(ev_waiter));
}

void
ev_set_clock(uint64_t (*fn)(void))
{
	ev_clock = NULL;
	if (fn != NULL)
		ev_wall_base = ev_wall_ms() - (int64_t)fn();
	ev_clock = fn;
}

uint64_t
ev_now(void)
{
	struct timespec ts;

	if (ev_clock != NULL)
		return ev_clock();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
ev_set_wall(int64_t (*fn)(void))
{
	ev_wall_fn = fn;
}

int64_t
ev_wall(void)
{
	return ev_wall_fn != NULL ? ev_wall_fn() : (int64_t)time(NULL);
}

int64_t
ev_wall_ms(void)
{
	struct timespec ts;

	if (ev_clock != NULL)
		return ev_wall_base + (int64_t)ev_clock();
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
ev_fd_add(int fd, short events, ev_fd_cb cb, void *arg)
{
	if (ev_nfds == EV_MAX_FDS) {
		log_warnx("ev: too many descriptors");
		return -1;
	}
	ev_fds[ev_nfds++] = (struct ev_fd){ fd, events, cb, arg };
	return 0;
}

int
ev_fd_events(int fd, short events)
{
	for (int i = 0; i < ev_nfds; i++)
		if (ev_fds[i].fd == fd) {
			ev_fds[i].events = events;
			return 0;
		}
	return -1;
}

void
ev_fd_del(int fd)
{
	for (int i = 0; i < ev_nfds; i++)
		if (ev_fds[i].fd == fd) {
			ev_fds[i] = ev_fds[--ev_nfds];
			return;
		}
}

/* Timer heap, ordered by 'when'. */

static void
heap_set(int i, struct ev_timer *t)
{
	ev_heap[i] = t;
	t->slot = i;
}

static void
heap_up(int i)
{
	struct ev_timer *t = ev_heap[i];

	while (i > 0) {
		int p = (i - 1) / 2;
		if (ev_heap[p]->when <= t->when)
			break;
		heap_set(i, ev_heap[p]);
		i = p;
	}
	heap_set(i, t);
}

static void
heap_down(int i)
{
	struct ev_timer *t = ev_heap[i];

	for (;;) {
		int c = 2 * i + 1;
		if (c >= ev_heap_len)
			break;
		if (c + 1 < ev_heap_len && ev_heap[c + 1]->when < ev_heap[c]->when)
			c++;
		if (t->when <= ev_heap[c]->when)
			break;
		heap_set(i, ev_heap[c]);
		i = c;
	}
	heap_set(i, t);
}

void
ev_timer_init(struct ev_timer *t, ev_timer_cb cb, void *arg)
{
	t->cb = cb;
	t->arg = arg;
	t->slot = -1;
	t->when = 0;
}

int
ev_timer_pending(const struct ev_timer *t)
{
	return t->slot >= 0;
}

void
ev_timer_del(struct ev_timer *t)
{
	int i = t->slot;

	if (i < 0)
		return;
	t->slot = -1;
	if (--ev_heap_len == i)
		return;
	struct ev_timer *m = ev_heap[ev_heap_len];
	heap_set(i, m);
	heap_down(i);
	heap_up(m->slot);
}

void
ev_timer_at(struct ev_timer *t, uint64_t when)
{
	/* Already set for then: the MAD engine re-arms its timer for the
	 * oldest request at every dispatch, mostly to the same time. */
	if (t->slot >= 0 && t->when == when)
		return;
	ev_timer_del(t);
	if (ev_heap_len == ev_heap_cap) {
		int cap = ev_heap_cap ? ev_heap_cap * 2 : 64;
		struct ev_timer **h = realloc(ev_heap, cap * sizeof(*h));
		if (h == NULL)
			fatal("ev: timer heap");
		ev_heap = h;
		ev_heap_cap = cap;
	}
	t->when = when;
	heap_set(ev_heap_len, t);
	heap_up(ev_heap_len++);
}

void
ev_timer_add(struct ev_timer *t, uint64_t delay_ms)
{
	ev_timer_at(t, ev_now() + delay_ms);
}

int
ev_hook_add(const struct ev_hook *h)
{
	if (ev_nhooks == EV_MAX_HOOKS)
		return -1;
	ev_hooks[ev_nhooks++] = *h;
	return 0;
}

static void
run_timers(void)
{
	uint64_t now = ev_now();

	while (ev_heap_len > 0 && ev_heap[0]->when <= now) {
		struct ev_timer *t = ev_heap[0];
		ev_timer_del(t);
		t->cb(t->arg);
	}
}

/* timeout (ms, -1: none), lowered to the first timer's. */
static int
timers_timeout(int timeout, uint64_t now)
{
	int64_t d;

	if (ev_heap_len == 0)
		return timeout;
	d = ev_heap[0]->when > now ? (int64_t)(ev_heap[0]->when - now) : 0;
	return timeout < 0 || d < timeout ? (int)d : timeout;
}

/* While the waiter is active its descriptor is read at every iteration,
 * and the loop's own descriptors and hooks once a millisecond, not at
 * every MAD (their poll() was half the loop's system calls during a
 * sweep). 1 if this iteration was the waiter's alone. */
static int
run_waiter(int max_wait_ms)
{
	uint64_t now = ev_now();
	int timeout;

	if (ev_waiter.active == NULL || now != ev_polled_at)
		return 0;
	timeout = timers_timeout(max_wait_ms, now);
	if (timeout == 0 || !ev_waiter.active(ev_waiter.arg))
		return 0;
	ev_waiter.wait(ev_waiter.arg, timeout < 0 || timeout > 1 ? 1 :
	    timeout);
	run_timers();
	ev_owed = 1;
	return 1;
}

int
ev_run_once(int max_wait_ms)
{
	struct pollfd pfd[EV_MAX_FDS + EV_HOOK_FDS];
	int hook_start[EV_MAX_HOOKS], hook_n[EV_MAX_HOOKS];
	int n, timeout = max_wait_ms, nfds, waiter, ready;

	if (run_waiter(max_wait_ms))
		return 0;

	for (n = 0; n < ev_nfds; n++)
		pfd[n] = (struct pollfd){ ev_fds[n].fd, ev_fds[n].events, 0 };
	nfds = n;
	for (int h = 0; h < ev_nhooks; h++) {
		hook_start[h] = n;
		hook_n[h] = ev_hooks[h].prepare(ev_hooks[h].arg, pfd + n,
		    EV_MAX_FDS + EV_HOOK_FDS - n, &timeout);
		n += hook_n[h];
	}
	timeout = timers_timeout(timeout, ev_now());
	if (ev_owed) {
		/* The hooks dispatch this iteration, not after a wait. */
		timeout = 0;
		ev_owed = 0;
	}
	waiter = ev_waiter.active != NULL && timeout != 0 &&
	    ev_waiter.active(ev_waiter.arg);
	ready = poll(pfd, n, waiter ? 0 : timeout);
	ev_polled_at = ev_now();
	if (ready == -1 && errno != EINTR) {
		log_warn("ev: poll");
		return -1;
	}
	/* The waiter's descriptor is read at every iteration, whatever is
	 * ready here; with nothing ready here it is waited on, a
	 * millisecond at most, so these are not left longer. */
	if (waiter)
		ev_waiter.wait(ev_waiter.arg, ready > 0 ? 0 :
		    timeout < 0 || timeout > 1 ? 1 : timeout);
	/* Callbacks may add or delete descriptors: match by fd. */
	for (int i = 0; i < nfds; i++) {
		if (pfd[i].revents == 0)
			continue;
		for (int j = 0; j < ev_nfds; j++)
			if (ev_fds[j].fd == pfd[i].fd) {
				ev_fds[j].cb(pfd[i].fd, pfd[i].revents,
				    ev_fds[j].arg);
				break;
			}
	}
	/* Timers before hooks: a timer may complete work (a MAD timeout
	 * answering a delegated SNMP request) that a hook must flush in
	 * this iteration, not after the next poll() wakes up. */
	run_timers();
	for (int h = 0; h < ev_nhooks; h++)
		ev_hooks[h].dispatch(ev_hooks[h].arg, pfd + hook_start[h],
		    hook_n[h]);
	return 0;
}

void
ev_run(void)
{
	ev_stop = 0;
	while (!ev_stop)
		if (ev_run_once(-1) == -1)
			break;
}

void
ev_break(void)
{
	ev_stop = 1;
}
