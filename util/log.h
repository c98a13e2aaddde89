/* log: one logger for the daemon, libibmad and net-snmp (style of
 * OpenBSD's log.c: log once where a failure happens, then return -1). */
#ifndef IBSNMPGW_LOG_H
#define IBSNMPGW_LOG_H

#include <stdarg.h>
#include <syslog.h>

#define LOG_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* foreground: log to stderr instead of syslog. level: a syslog priority. */
void log_init(const char *ident, int foreground, int level);
void log_finalise(void);
void log_set_level(int level);
int log_get_level(void);
/* "debug", "info", "notice", "warning", "error" -> priority, or -1. */
int log_level_from_name(const char *name);

/* Route stderr (fd 2) into the logger: what libraries print there
 * (libibumad, libibmad, umad2sim) becomes log lines. Returns the pipe's
 * read end for the event loop, which calls log_drain_stderr() when it
 * is readable; -1 on error. log_release_stderr() restores fd 2 (also
 * done by log_finalise()). Under -f the log itself still goes to the
 * original stderr. */
int log_capture_stderr(void);
/* 0, or -1 when the pipe has no writer any more (fd 2 was replaced):
 * stop watching it and release. */
int log_drain_stderr(void);
void log_release_stderr(void);
/* Where the log goes under -f (the stderr we started with), or -1. */
int log_stderr_fd(void);

void log_vmsg(int pri, const char *fmt, va_list ap) LOG_PRINTF(2, 0);
void log_msg(int pri, const char *fmt, ...) LOG_PRINTF(2, 3);
void log_debug(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_info(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_notice(const char *fmt, ...) LOG_PRINTF(1, 2);
/* log_warn appends strerror(errno); log_warnx does not. */
void log_warn(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_warnx(const char *fmt, ...) LOG_PRINTF(1, 2);
/* A line a peer can cause at will (a hostile fabric's MADs): at most
 * one per LOG_LIMIT_MS for each limiter (zeroed static storage), the
 * next one saying how many were left out since. */
#define LOG_LIMIT_MS	10000
struct log_limit {
	unsigned long long	at_ms;
	unsigned long		skipped;
};
void log_limited(struct log_limit *l, int pri, const char *fmt, ...)
    LOG_PRINTF(3, 4);
void fatal(const char *fmt, ...) LOG_PRINTF(1, 2) __attribute__((noreturn));
void fatalx(const char *fmt, ...) LOG_PRINTF(1, 2) __attribute__((noreturn));

#endif
