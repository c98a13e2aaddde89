/* gw_subnet_ha: the role of a pair handed from the first process to
 * each further subnet's, and their status back (gateway/subnet_ha.h).
 *
 * Messages on a SOCK_SEQPACKET socket pair (its end reads as one),
 * text: "ha CMD" down (CMD as `ctl ha`
 * takes it; "role CMD" at spawn, the role in force, which a process
 * started again takes as at start, not as a takeover), "st ROLE MAY
 * PROT LAG WHY" up, once a second and after
 * each command. The first process keeps the last status of each; one
 * older than STALE_MS, or none, counts as a process that may not be
 * promoted and does not protect. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gateway/conf.h"
#include "gateway/subnet_ha.h"
#include "store/repl.h"
#include "util/ev.h"
#include "util/log.h"

#define REPORT_MS	1000
#define STALE_MS	3500	/* three reports missed, and some */
#define MSG_MAX		256

struct sha_sub {
	char		 name[GW_SUBNET_NAME + 1];
	int		 fd;		/* -1: no process */
	uint64_t	 at;		/* ev_now() of its last status */
	char		 role[16];
	int		 may, prot;
	unsigned long long lag;
	char		 why[128];
};

static struct sha_sub	 sha_subs[GW_SUBNETS_MAX] = {
	[0 ... GW_SUBNETS_MAX - 1] = { .fd = -1 }
};
static int		 sha_child_fd = -1;
static struct ev_timer	 sha_report;
static int		 sha_reporting;	/* an ha: section */
static const struct gw_subnet_ha_pair *sha_pair;

static void
say(int fd, const char *msg)
{
	/* Best effort: a process that does not read is down or stuck, and
	 * gets the role again when it is started again. */
	(void)send(fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* ---- The first process */

static void
sub_read(int fd, short revents, void *arg)
{
	struct sha_sub *s = arg;
	char buf[MSG_MAX + 1], role[16];
	int may, prot, off = 0;
	unsigned long long lag;
	ssize_t n;

	(void)revents;
	while ((n = recv(fd, buf, MSG_MAX, MSG_DONTWAIT)) > 0) {
		buf[n] = '\0';
		if (sscanf(buf, "st %15s %d %d %llu %n", role, &may, &prot,
		    &lag, &off) < 4 || off == 0) {
			log_warnx("subnet %s: a status not understood", s->name);
			continue;
		}
		snprintf(s->role, sizeof(s->role), "%s", role);
		s->may = may == 1;
		s->prot = prot == 1;
		s->lag = lag;
		snprintf(s->why, sizeof(s->why), "%s", buf + off);
		s->at = ev_now();
	}
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		ev_fd_del(fd);		/* the process is gone */
		close(fd);
		s->fd = -1;
		s->at = 0;
	}
}

static const char *
role_cmd(void)
{
	switch (store_repl_status()->role) {
	case REPL_ACTIVE:
		return "role master";
	case REPL_FAULT:
		return "role fault";
	default:
		return NULL;	/* it starts a standby */
	}
}

void
gw_subnet_ha_spawned(int i, const char *name, int fd)
{
	struct sha_sub *s;
	const char *cmd;

	if (i < 1 || i >= GW_SUBNETS_MAX) {
		close(fd);
		return;
	}
	s = &sha_subs[i];
	gw_subnet_ha_gone(i);
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->fd = fd;
	if (ev_fd_add(fd, POLLIN, sub_read, s) == -1) {
		log_warnx("subnet %s: its role link cannot be watched", name);
		close(fd);
		s->fd = -1;
		return;
	}
	if ((cmd = role_cmd()) != NULL)
		say(fd, cmd);
}

void
gw_subnet_ha_gone(int i)
{
	struct sha_sub *s;

	if (i < 1 || i >= GW_SUBNETS_MAX)
		return;
	s = &sha_subs[i];
	if (s->fd >= 0) {
		ev_fd_del(s->fd);
		close(s->fd);
	}
	s->fd = -1;
	s->at = 0;
}

void
gw_subnet_ha_role(const char *cmd)
{
	char msg[32];

	snprintf(msg, sizeof(msg), "ha %s", cmd);
	for (int i = 1; i < GW_SUBNETS_MAX; i++)
		if (sha_subs[i].fd >= 0)
			say(sha_subs[i].fd, msg);
}

static void
note(char *why, size_t wlen, const char *name, const char *what)
{
	if (why[0] == '\0')
		snprintf(why, wlen, "subnet %s: %s", name, what);
}

void
gw_subnet_ha_status(FILE *f, int *may, int *prot, char *why, size_t wlen)
{
	for (int i = 1; i < GW_SUBNETS_MAX; i++) {
		struct sha_sub *s = &sha_subs[i];
		int fresh = s->at != 0 && ev_now() - s->at <= STALE_MS;

		if (s->name[0] == '\0')
			continue;
		if (!fresh) {
			fprintf(f, "subnet %s role down: no status from its "
			    "process\n", s->name);
			*may = *prot = 0;
			note(why, wlen, s->name, "no status from its process");
			continue;
		}
		/* Not "eligible": ctl's exit status looks for that word. */
		fprintf(f, "subnet %s role %s may-promote %s protected %s "
		    "lag %llu%s%s\n", s->name, s->role, s->may ? "yes" : "no",
		    s->prot ? "yes" : "no", s->lag, s->why[0] ? " why " : "",
		    s->why);
		if (!s->may) {
			*may = 0;
			note(why, wlen, s->name, s->why);
		}
		if (!s->prot) {
			*prot = 0;
			note(why, wlen, s->name, s->why[0] ? s->why :
			    "not protected");
		}
	}
}

/* ---- A further subnet's process */

static void
report(void *arg)
{
	const struct repl_status *st;
	const char *why;
	char msg[MSG_MAX];

	(void)arg;
	if (sha_pair == NULL)
		return;
	st = sha_pair->status(&why);
	snprintf(msg, sizeof(msg), "st %s %d %d %llu %s",
	    store_repl_role_name(st->role), st->eligible, st->protected,
	    (unsigned long long)st->lag, why[0] ? why : st->reason);
	say(sha_child_fd, msg);
	ev_timer_add(&sha_report, REPORT_MS);
}

static void
child_cmd(const char *cmd, int at_spawn)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m;

	if (sha_pair == NULL)
		return;
	if ((m = open_memstream(&out, &len)) == NULL) {
		log_warn("subnet: ha %s", cmd);
		return;
	}
	(void)(at_spawn ? sha_pair->resume : sha_pair->ctl)(m, cmd);
	fclose(m);
	if (len > 0 && out[len - 1] == '\n')
		out[len - 1] = '\0';
	log_info("ha %s (from the first process%s): %s", cmd, at_spawn ?
	    ", the role in force" : "", out);
	free(out);
}

static void
child_read(int fd, short revents, void *arg)
{
	char buf[MSG_MAX + 1];
	ssize_t n;

	(void)revents;
	(void)arg;
	while ((n = recv(fd, buf, MSG_MAX, MSG_DONTWAIT)) > 0) {
		size_t k = n > 3 && memcmp(buf, "ha ", 3) == 0 ? 3 :
		    n > 5 && memcmp(buf, "role ", 5) == 0 ? 5 : 0;

		buf[n] = '\0';
		if (k > 0 && strcspn(buf + k, " \n") == strlen(buf + k))
			child_cmd(buf + k, k == 5);
		else
			log_warnx("subnet: a message from the first process "
			    "not understood");
	}
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		/* The first process is gone; its death signal stops us. */
		ev_fd_del(fd);
		close(fd);
		sha_child_fd = -1;
		ev_timer_del(&sha_report);
		return;
	}
	if (sha_reporting) {
		ev_timer_del(&sha_report);
		report(NULL);
	}
}

void
gw_subnet_ha_child(int fd, int ha)
{
	sha_child_fd = fd;
	sha_reporting = ha;
	if (ev_fd_add(fd, POLLIN, child_read, NULL) == -1) {
		log_warnx("subnet: the role link cannot be watched");
		close(fd);
		sha_child_fd = -1;
		return;
	}
	ev_timer_init(&sha_report, report, NULL);
	if (ha)
		report(NULL);
}

void
gw_subnet_ha_set_pair(const struct gw_subnet_ha_pair *pair)
{
	sha_pair = pair;
}

void
gw_subnet_ha_finalise(void)
{
	for (int i = 1; i < GW_SUBNETS_MAX; i++) {
		gw_subnet_ha_gone(i);
		sha_subs[i].name[0] = '\0';
	}
	if (sha_child_fd >= 0) {
		ev_timer_del(&sha_report);
		ev_fd_del(sha_child_fd);
		close(sha_child_fd);
		sha_child_fd = -1;
	}
}
