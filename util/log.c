/* log: syslog/journald or stderr, with levels. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int log_fg = 1;
static int log_level = LOG_INFO;
static const char *log_ident = "ibsnmpgw";
static FILE *log_out;		/* foreground output; NULL: stderr */

/* Captured stderr (log_capture_stderr). */
static int log_cap_rd = -1, log_cap_saved = -1;
static char log_cap_buf[1024];
static size_t log_cap_len;
static int log_cap_eof;
static pthread_mutex_t log_cap_lock = PTHREAD_MUTEX_INITIALIZER;

void
log_init(const char *ident, int foreground, int level)
{
	log_ident = ident;
	log_fg = foreground;
	log_level = level;
	if (!log_fg)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

int
log_stderr_fd(void)
{
	return log_out != NULL ? fileno(log_out) : -1;
}

void
log_finalise(void)
{
	log_release_stderr();
	if (!log_fg)
		closelog();
}

/* What libibumad, libibmad (IBWARN, IBPANIC, IBDEBUG) and anything else
 * print on stderr arrives here a line at a time. */
static void
cap_line(char *l)
{
	int pri = LOG_WARNING;

	if (*l == '\0')
		return;
	if (strncmp(l, "ibpanic", 7) == 0)
		pri = LOG_CRIT;
	else if (strncmp(l, "ibdebug", 7) == 0)
		pri = LOG_DEBUG;
	log_msg(pri, "%s", l);
}

/* The buffer is the main thread's; exit() from another thread (a
 * library's panic) may drain it too, hence the lock. */
static void
drain_locked(void)
{
	ssize_t n;

	fflush(stderr);
	for (;;) {
		n = read(log_cap_rd, log_cap_buf + log_cap_len,
		    sizeof(log_cap_buf) - 1 - log_cap_len);
		if (n == 0)
			log_cap_eof = 1;	/* no writer is left */
		if (n <= 0)
			break;	/* EAGAIN: all read */
		log_cap_len += (size_t)n;
		char *start = log_cap_buf, *nl;
		while ((nl = memchr(start, '\n', log_cap_len -
		    (size_t)(start - log_cap_buf))) != NULL) {
			*nl = '\0';
			cap_line(start);
			start = nl + 1;
		}
		log_cap_len -= (size_t)(start - log_cap_buf);
		memmove(log_cap_buf, start, log_cap_len);
		if (log_cap_len == sizeof(log_cap_buf) - 1) {
			/* A line longer than the buffer: log what came. */
			log_cap_buf[log_cap_len] = '\0';
			cap_line(log_cap_buf);
			log_cap_len = 0;
		}
	}
}

int
log_drain_stderr(void)
{
	if (log_cap_rd < 0)
		return -1;
	pthread_mutex_lock(&log_cap_lock);
	drain_locked();
	pthread_mutex_unlock(&log_cap_lock);
	return log_cap_eof ? -1 : 0;
}

static void
cap_atexit(void)
{
	/* exit() from inside a library (IBPANIC): say why first. If the
	 * main thread is draining right now, it logs those lines itself. */
	if (log_cap_rd < 0 || pthread_mutex_trylock(&log_cap_lock) != 0)
		return;
	drain_locked();
	if (log_cap_len) {
		log_cap_buf[log_cap_len] = '\0';
		cap_line(log_cap_buf);
		log_cap_len = 0;
	}
	pthread_mutex_unlock(&log_cap_lock);
}

int
log_capture_stderr(void)
{
	static int registered;
	int p[2] = { -1, -1 }, saved;

	if (log_cap_rd >= 0)
		return log_cap_rd;
	if ((saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)) == -1) {
		/* No stderr at all: nothing can be printed there. Under -f
		 * the log itself would loop into the pipe. */
		return -1;
	}
	if (log_fg && (log_out = fdopen(saved, "w")) == NULL) {
		log_warn("log: stderr");
		close(saved);
		return -1;
	}
	/* Non-blocking: a writer never blocks on a full pipe; lines are
	 * lost instead. */
	if (pipe(p) == -1 || fcntl(p[0], F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(p[0], F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(p[1], F_SETFL, O_NONBLOCK) == -1) {
		log_warn("log: stderr pipe");
		goto fail;
	}
	fflush(stderr);
	if (dup2(p[1], STDERR_FILENO) == -1) {
		log_warn("log: stderr");
		goto fail;
	}
	close(p[1]);
	log_cap_rd = p[0];
	log_cap_saved = saved;
	if (!registered && atexit(cap_atexit) == 0)
		registered = 1;
	return log_cap_rd;
fail:
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	if (log_out)
		fclose(log_out);
	else
		close(saved);
	log_out = NULL;
	return -1;
}

void
log_release_stderr(void)
{
	if (log_cap_rd < 0)
		return;
	cap_atexit();
	fflush(stderr);
	if (log_cap_saved >= 0)
		dup2(log_cap_saved, STDERR_FILENO);
	else
		close(STDERR_FILENO);
	if (log_out)
		fclose(log_out);	/* closes log_cap_saved */
	else if (log_cap_saved >= 0)
		close(log_cap_saved);
	log_out = NULL;
	log_cap_saved = -1;
	close(log_cap_rd);
	log_cap_rd = -1;
	log_cap_eof = 0;
}

void
log_set_level(int level)
{
	log_level = level;
}

int
log_get_level(void)
{
	return log_level;
}

int
log_level_from_name(const char *name)
{
	static const struct { const char *n; int p; } tab[] = {
		{ "debug", LOG_DEBUG }, { "info", LOG_INFO },
		{ "notice", LOG_NOTICE }, { "warning", LOG_WARNING },
		{ "error", LOG_ERR },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(name, tab[i].n) == 0)
			return tab[i].p;
	return -1;
}

void
log_vmsg(int pri, const char *fmt, va_list ap)
{
	static const char *names[] = { "emerg", "alert", "crit", "error",
	    "warning", "notice", "info", "debug" };
	char buf[1024];

	if (pri > log_level)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (log_fg) {
		struct timespec ts;
		struct tm tm;
		char tbuf[32];
		FILE *out = log_out ? log_out : stderr;

		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(out, "%s.%03ld %s[%s]: %s\n", tbuf,
		    ts.tv_nsec / 1000000, log_ident,
		    names[pri & 7], buf);
		fflush(out);
	} else
		syslog(pri, "%s", buf);
}

void
log_msg(int pri, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(pri, fmt, ap);
	va_end(ap);
}

#define LOG_FN(name, pri) \
void \
name(const char *fmt, ...) \
{ \
	va_list ap; \
	va_start(ap, fmt); \
	log_vmsg(pri, fmt, ap); \
	va_end(ap); \
}

LOG_FN(log_debug, LOG_DEBUG)
LOG_FN(log_info, LOG_INFO)
LOG_FN(log_notice, LOG_NOTICE)
LOG_FN(log_warnx, LOG_WARNING)

static void log_errno(int pri, const char *fmt, va_list ap)
    LOG_PRINTF(2, 0);

static void
log_errno(int pri, const char *fmt, va_list ap)
{
	char buf[900];
	int saved = errno;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	log_msg(pri, "%s: %s", buf, strerror(saved));
	errno = saved;
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_errno(LOG_WARNING, fmt, ap);
	va_end(ap);
}

void
log_limited(struct log_limit *l, int pri, const char *fmt, ...)
{
	struct timespec ts;
	unsigned long long now;
	char buf[512];
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (unsigned long long)ts.tv_sec * 1000 +
	    (unsigned long long)ts.tv_nsec / 1000000 + 1;
	if (l->at_ms != 0 && now - l->at_ms < LOG_LIMIT_MS) {
		l->skipped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (l->skipped > 0)
		log_msg(pri, "%s (and %lu more like it not logged in %d s)",
		    buf, l->skipped, LOG_LIMIT_MS / 1000);
	else
		log_msg(pri, "%s", buf);
	l->at_ms = now;
	l->skipped = 0;
}

void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_errno(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}
