/* log: syslog/journald or stderr, with levels. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

static int log_fg = 1;
static int log_level = LOG_INFO;
static const char *log_ident = "ibsnmpgw";

void
log_init(const char *ident, int foreground, int level)
{
	log_ident = ident;
	log_fg = foreground;
	log_level = level;
	if (!log_fg)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void
log_finalise(void)
{
	if (!log_fg)
		closelog();
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

		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(stderr, "%s.%03ld %s[%s]: %s\n", tbuf,
		    ts.tv_nsec / 1000000, log_ident,
		    names[pri & 7], buf);
		fflush(stderr);
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
