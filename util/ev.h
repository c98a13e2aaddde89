/* ev: the daemon's single poll() loop.
 *
 * poll() only: under simulation libumad2sim hands out a fake umad fd
 * (1024 and up) and wraps open/read/write/ioctl/poll/close, so select,
 * epoll and fcntl must never see that fd. */
#ifndef IBSNMPGW_EV_H
#define IBSNMPGW_EV_H

#include <poll.h>
#include <stdint.h>

typedef void (*ev_fd_cb)(int fd, short revents, void *arg);
typedef void (*ev_timer_cb)(void *arg);

struct ev_timer {
	uint64_t	 when;		/* monotonic ms */
	ev_timer_cb	 cb;
	void		*arg;
	int		 slot;		/* heap index, -1 when idle */
};

/* A hook lets a library with changing descriptors (net-snmp) add
 * pollfds for one iteration and see their revents afterwards. */
struct ev_hook {
	/* Append up to max pollfds at pfd; return how many. May lower
	 * *timeout_ms (-1 means none). */
	int	(*prepare)(void *arg, struct pollfd *pfd, int max,
		    int *timeout_ms);
	/* Called after poll(), descriptor callbacks and due timers, with
	 * the same pollfds and their revents. */
	void	(*dispatch)(void *arg, struct pollfd *pfd, int n);
	void	*arg;
};

int	 ev_init(void);
void	 ev_finalise(void);

/* Monotonic clock in milliseconds, and wall clock in seconds. */
uint64_t ev_now(void);
/* Tests only: replace the monotonic clock (NULL restores it); the
 * wall clock in milliseconds then moves with it. */
void	 ev_set_clock(uint64_t (*fn)(void));
int64_t	 ev_wall(void);
/* Tests only: replace the wall clock in seconds (NULL restores it). */
void	 ev_set_wall(int64_t (*fn)(void));
/* Wall clock in milliseconds (event times). */
int64_t	 ev_wall_ms(void);

int	 ev_fd_add(int fd, short events, ev_fd_cb cb, void *arg);
int	 ev_fd_events(int fd, short events);
void	 ev_fd_del(int fd);

void	 ev_timer_init(struct ev_timer *t, ev_timer_cb cb, void *arg);
void	 ev_timer_add(struct ev_timer *t, uint64_t delay_ms);
void	 ev_timer_at(struct ev_timer *t, uint64_t when);
void	 ev_timer_del(struct ev_timer *t);
int	 ev_timer_pending(const struct ev_timer *t);

int	 ev_hook_add(const struct ev_hook *h);

/* A waiter reads a descriptor poll() cannot share (umad2sim's fake umad
 * fd) while it has work outstanding: active() says whether it has; then
 * the loop polls its own descriptors without waiting and calls wait()
 * at every iteration, with wait_ms 0 when any of them is ready, else at
 * most a millisecond. */
struct ev_waiter {
	int	(*active)(void *arg);
	void	(*wait)(void *arg, int wait_ms);
	void	*arg;
};
void	 ev_waiter_set(const struct ev_waiter *w);

/* Run one iteration, waiting at most max_wait_ms (-1: no limit). */
int	 ev_run_once(int max_wait_ms);
/* Run until ev_break(). */
void	 ev_run(void);
void	 ev_break(void);

#endif
