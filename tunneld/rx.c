/* td_rx: the umad fd's reader thread, and the lock it shares with the
 * main loop.
 *
 * Why a thread: the main loop is one poll() over every real fd (the
 * agent sockets, a timerfd for the timers, this module's wake-up pipe)
 * with no timeout, so nothing waits for a fixed tick. The umad fd
 * cannot be in that poll() under ibsim: umad2sim's poll() waits only
 * for the first fake fd of the array and ignores every real fd next to
 * it (tests/sim/README.md). On hardware it could, but one design for
 * both keeps the tested path the shipped one.
 *
 * The thread blocks in poll() on the umad fd with no timeout and
 * handles each MAD itself, under td_lock: a message goes on to the
 * agent from here, with no hand-over to the main loop and the thread
 * switch it would cost (10-30 us on the 2-core development VM when it
 * lands on the idle core). The main loop reads the agents' answers and
 * runs the timers; this thread arms the timerfd for its deadlines, and
 * writes the pipe only when the poll set must change (td_rx_poke). */
#define _GNU_SOURCE		/* pthread_timedjoin_np */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "codec/tunnel.h"
#include "tunneld/tunneld.h"
#include "util/log.h"

/* umad2sim's read() fills sizeof(struct ib_user_mad), padded to 64,
 * plus 256 octets: 8 more than umad_size() + 256 (tests/sim/README.md). */
#define RX_BUF		(sizeof(struct ib_user_mad) + TUN_MAD_SIZE)

static pthread_mutex_t	 rx_lock = PTHREAD_MUTEX_INITIALIZER;
static void		(*rx_handle)(uint8_t *umad, int len);
static unsigned long long rx_dropped;
static int		 rx_wake[2] = { -1, -1 };	/* to the main loop */
static int		 rx_stop_pipe[2] = { -1, -1 };	/* to the reader */
static atomic_int	 rx_stop;
static pthread_t	 rx_thread;
static int		 rx_on;

void
td_lock(void)
{
	pthread_mutex_lock(&rx_lock);
}

void
td_unlock(void)
{
	pthread_mutex_unlock(&rx_lock);
}

/* Longer than a MAD (we register no RMPP): the kernel keeps it queued
 * until it is read, so read it to drop it. */
static int
rx_drop_long(int len)
{
	static uint8_t big[sizeof(struct ib_user_mad) + 8192];

	if (len <= 0 || (size_t)len > sizeof(big) - sizeof(struct ib_user_mad))
		len = (int)(sizeof(big) - sizeof(struct ib_user_mad));
	(void)umad_recv(td_port.fd, big, &len, 0);
	td_lock();
	rx_dropped++;
	td_unlock();
	return 1;
}

/* One MAD read and handled. 1: one; 0: none waiting; -1: port error. */
static int
rx_read_one(void)
{
	static uint8_t buf[RX_BUF];
	int len = TUN_MAD_SIZE, rc;

	rc = umad_recv(td_port.fd, buf, &len, 0);
	if (rc == -EWOULDBLOCK || rc == -EAGAIN || rc == -ETIMEDOUT)
		return 0;
	if (rc == -ENOSPC)
		return rx_drop_long(len);
	if (rc < 0) {
		log_warnx("tunneld: umad_recv: %s", strerror(-rc));
		return -1;
	}
	td_lock();
	rx_handle(buf, len);
	td_unlock();
	return 1;
}

static void *
rx_main(void *arg)
{
	/* The umad fd first: umad2sim's poll() waits for it alone; the
	 * kernel's waits for either, so td_rx_stop's pipe ends the wait
	 * on hardware at once. */
	struct pollfd pfd[2] = {
		{ td_port.fd, POLLIN, 0 }, { rx_stop_pipe[0], POLLIN, 0 },
	};
	int rc;

	(void)arg;
	while (!atomic_load(&rx_stop)) {
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("tunneld: poll on the umad fd");
			break;
		}
		if (atomic_load(&rx_stop))
			break;
		while ((rc = rx_read_one()) == 1)
			;
		if (rc == -1)
			break;
	}
	if (!atomic_load(&rx_stop)) {
		atomic_store(&rx_stop, 2);	/* failed: tell the loop */
		td_rx_poke();
	}
	return NULL;
}

static int
rx_pipe(int fds[2])
{
	if (pipe(fds) == -1) {
		log_warn("tunneld: pipe");
		return -1;
	}
	for (int i = 0; i < 2; i++)
		(void)fcntl(fds[i], F_SETFL, O_NONBLOCK);
	return 0;
}

int
td_rx_start(void (*handle)(uint8_t *umad, int len))
{
	sigset_t all, old;
	int rc;

	if (rx_pipe(rx_wake) == -1 || rx_pipe(rx_stop_pipe) == -1)
		return -1;
	/* Signals go to the main thread, whose handlers wake its poll(). */
	rx_handle = handle;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&rx_thread, NULL, rx_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		log_warnx("tunneld: reader thread: %s", strerror(rc));
		return -1;
	}
	rx_on = 1;
	return 0;
}

int
td_rx_wake_fd(void)
{
	return rx_wake[0];
}

void
td_rx_poke(void)
{
	int saved = errno;

	(void)!write(rx_wake[1], "", 1);
	errno = saved;
}

void
td_rx_drain(void)
{
	char buf[64];

	/* One read takes what a burst of pokes left (a byte each). */
	while (read(rx_wake[0], buf, sizeof(buf)) == (ssize_t)sizeof(buf))
		;
}

int
td_rx_failed(void)
{
	return atomic_load(&rx_stop) == 2;
}

/* Under td_lock. */
unsigned long long
td_rx_dropped(void)
{
	return rx_dropped;
}

static int
rx_join(int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return pthread_timedjoin_np(rx_thread, NULL, &ts);
}

/* A SubnGet(NodeInfo) by directed route with hop count 0 (IBA
 * 14.2.1.2 for the layout, 14.2.2 for the route): our own port's SMA answers it, with no LID and no SM
 * needed, and its answer ends umad2sim's wait on the umad fd. */
static void
rx_wake_smp(int agent_dr)
{
	uint8_t mad[TUN_MAD_SIZE];
	ib_mad_addr_t self;
	uint64_t tid = td_tids(1);

	memset(mad, 0, sizeof(mad));
	mad[0] = 1;		/* BaseVersion */
	mad[1] = 0x81;		/* SubnMgt, directed route */
	mad[2] = 1;		/* ClassVersion */
	mad[3] = 0x01;		/* Get; hop pointer and count 0 */
	for (int k = 0; k < 4; k++)
		mad[12 + k] = (uint8_t)(tid >> (24 - 8 * k));
	mad[17] = 0x11;		/* NodeInfo */
	memset(mad + 32, 0xff, 4);	/* DrSLID, DrDLID: permissive */
	memset(&self, 0, sizeof(self));
	self.lid = htons(0xffff);
	(void)td_send_mad(agent_dr, &self, mad, 1);
}

void
td_rx_stop(int agent_dr)
{
	if (!rx_on)
		return;
	rx_on = 0;
	if (atomic_load(&rx_stop) == 2) {
		pthread_join(rx_thread, NULL);
		return;
	}
	atomic_store(&rx_stop, 1);
	(void)!write(rx_stop_pipe[1], "", 1);	/* the kernel's umad */
	if (agent_dr >= 0)
		rx_wake_smp(agent_dr);		/* umad2sim (sim-issm) */
	if (rx_join(2000) == 0)
		return;
	/* Left blocked, umad2sim's exit handler may wake it inside a
	 * freed condition variable. */
	log_warnx("tunneld: the umad reader did not stop");
}
