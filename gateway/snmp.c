/* gw_snmp: net-snmp's agent in our poll loop, its listeners and users.
 * Who a request is for is decided by the listeners' hooks
 * (snmp_addr.c).
 *
 * Keepalived-style loop integration: snmp_select_info2() gives the
 * descriptors and the next timeout; snmp_read2(), snmp_timeout(),
 * run_alarms() and netsnmp_check_outstanding_agent_requests() run
 * after every poll(). */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <net-snmp/library/large_fd_set.h>

#include "gateway/snmp.h"
#include "gateway/snmp_int.h"
#include "gateway/subnet.h"
#include "util/ev.h"
#include "util/log.h"

#define GW_MAX_LISTENERS	(2 * GW_MAX_LISTEN)

/* Exported by libnetsnmpagent but declared in no installed header. */
extern netsnmp_session *main_session;
extern netsnmp_agent_session *agent_delegated_list;
extern SNMPCallback vacm_warn_if_not_configured;

static netsnmp_session	*snmp_sessions[GW_MAX_LISTENERS];
static char		*snmp_specs[GW_MAX_LISTENERS];	/* normalised */
static int		 snmp_nsessions;
static int		 snmp_nkept;	/* listeners before a reload's new ones */
static netsnmp_session	*snmp_link;	/* a further subnet's: to the first */
/* Removed listeners whose requests are still in progress: closed as
 * soon as none is (close_listener). */
static netsnmp_session	*snmp_closing[GW_MAX_LISTENERS];
static int		 snmp_nclosing;

static int	session_in_use(netsnmp_session *sess);
static int	open_link(void);
static void	close_session(netsnmp_session *sp);
static char		 snmp_logbuf[1024];
static size_t		 snmp_loglen;


/* net-snmp's log goes through ours; it may arrive in pieces. */
static int
snmp_log_cb(int major, int minor, void *serverarg, void *clientarg)
{
	struct snmp_log_message *m = serverarg;
	const char *s = m->msg;
	size_t n = strlen(s);

	while (n > 0) {
		const char *nl = memchr(s, '\n', n);
		size_t take = nl ? (size_t)(nl - s) : n;

		if (take > sizeof(snmp_logbuf) - 1 - snmp_loglen)
			take = sizeof(snmp_logbuf) - 1 - snmp_loglen;
		memcpy(snmp_logbuf + snmp_loglen, s, take);
		snmp_loglen += take;
		s += take;
		n -= take;
		if (nl != NULL || snmp_loglen == sizeof(snmp_logbuf) - 1) {
			snmp_logbuf[snmp_loglen] = '\0';
			if (snmp_loglen > 0)
				log_msg(m->priority, "snmp: %s", snmp_logbuf);
			snmp_loglen = 0;
			if (nl != NULL && n > 0 && *s == '\n')
				s++, n--;
		}
	}
	return 0;
}

/* Poll hook. */

static int
snmp_prepare(void *arg, struct pollfd *pfd, int max, int *timeout)
{
	netsnmp_large_fd_set fds;
	struct timeval tv = { 0, 0 };
	int numfds = 0, block = 1, n = 0;

	netsnmp_large_fd_set_init(&fds, FD_SETSIZE);
	snmp_select_info2(&numfds, &fds, &tv, &block);
	for (int fd = 0; fd < numfds && n < max; fd++)
		if (NETSNMP_LARGE_FD_ISSET(fd, &fds))
			pfd[n++] = (struct pollfd){ fd, POLLIN, 0 };
	netsnmp_large_fd_set_cleanup(&fds);
	if (gw_snmp_udp_pending(NULL) > 0)
		*timeout = 0;		/* read, not yet handed on */
	if (!block) {
		int ms = tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000;
		if (*timeout < 0 || ms < *timeout)
			*timeout = ms;
	}
	return n;
}

static void
snmp_dispatch(void *arg, struct pollfd *pfd, int n)
{
	netsnmp_large_fd_set fds;
	int ready = 0;

	netsnmp_large_fd_set_init(&fds, FD_SETSIZE);
	for (int i = 0; i < n; i++)
		if (pfd[i].revents & (POLLIN | POLLERR | POLLHUP)) {
			NETSNMP_LARGE_FD_SET(pfd[i].fd, &fds);
			ready++;
		}
	if (ready)
		snmp_read2(&fds);
	/* What a listener's recvmmsg() brought beyond the first: read now,
	 * not after another poll(). */
	for (int r = 0; r < GW_SNMP_UDP_BATCH &&
	    gw_snmp_udp_pending(NULL) > 0; r++) {
		netsnmp_large_fd_set_cleanup(&fds);
		netsnmp_large_fd_set_init(&fds, FD_SETSIZE);
		(void)gw_snmp_udp_pending(&fds);
		snmp_read2(&fds);
	}
	netsnmp_large_fd_set_cleanup(&fds);
	snmp_timeout();
	run_alarms();
	/* Delegated varbinds completed by MAD answers since the last
	 * iteration are sent from here, never from inside a handler. */
	netsnmp_check_outstanding_agent_requests();
	for (int i = 0; i < snmp_nclosing; i++)
		if (!session_in_use(snmp_closing[i])) {
			close_session(snmp_closing[i]);
			snmp_closing[i--] = snmp_closing[--snmp_nclosing];
		}
	snmp_store_if_needed();
}

/* USM users, from the configuration. */

static int
add_user(const struct gw_user *u)
{
	static const char *auth_tok[] = { "", "MD5", "SHA", "SHA-224",
	    "SHA-256", "SHA-384", "SHA-512" };
	static const char *priv_tok[] = { "", "DES", "AES", "AES-192",
	    "AES-256" };
	struct usmUser *uu;
	u_char eid[SNMP_MAXBUF_SMALL];
	size_t eidlen;
	char line[1024];

	/* createUser syntax (snmpd.conf(5)); passphrases are quoted. */
	if (u->priv != GW_PRIV_NONE)
		snprintf(line, sizeof(line), "%s %s \"%s\" %s \"%s\"", u->name,
		    auth_tok[u->auth], u->auth_pass, priv_tok[u->priv],
		    u->priv_pass);
	else
		snprintf(line, sizeof(line), "%s %s \"%s\"", u->name,
		    auth_tok[u->auth], u->auth_pass);
	usm_parse_create_usmUser(NULL, line);
	explicit_bzero(line, sizeof(line));
	eidlen = snmpv3_get_engineID(eid, sizeof(eid));
	uu = usm_get_user(eid, eidlen, u->name);
	if (uu == NULL) {
		log_warnx("snmp: user '%s': %s/%s not supported by this "
		    "net-snmp", u->name, auth_tok[u->auth],
		    priv_tok[u->priv]);
		return -1;
	}
	/* Users come from our YAML on every start: never persist them. */
	uu->userStorageType = ST_VOLATILE;
	return 0;
}

/* SIGHUP: replace the usmUserTable rows (RFC 3414 5) made from the old
 * configuration with those of the new one; the engine ID and boots stay
 * (the users' keys are localised to the ID). */
void
gw_snmp_reload_users(const struct gw_conf *old, const struct gw_conf *c)
{
	u_char eid[SNMP_MAXBUF_SMALL];
	size_t eidlen = snmpv3_get_engineID(eid, sizeof(eid));
	struct usmUser *uu;

	if (old->engine_id_len != c->engine_id_len ||
	    memcmp(old->engine_id, c->engine_id, c->engine_id_len) != 0)
		log_warnx("reload: snmp.engine-id changed; it takes effect at "
		    "the next start");

	for (int i = 0; i < old->nusers; i++) {
		uu = usm_get_user(eid, eidlen, old->users[i].name);
		if (uu != NULL && usm_remove_user(uu) != NULL)
			usm_free_user(uu);
	}
	for (int i = 0; i < c->nusers; i++)
		(void)add_user(&c->users[i]);	/* logs what it refuses */
}


int
gw_snmp_init(const struct gw_conf *c)
{
	char dir[4096];

	snmp_disable_log();
	snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_LOGGING,
	    snmp_log_cb, NULL);
	snmp_enable_calllog();

	/* Read no snmpd.conf/snmp.conf (DONT_READ_CONFIGS would also skip
	 * the persistent file); keep engineBoots and the engine ID in our
	 * own state directory. */
	snprintf(dir, sizeof(dir), "%s/snmp", c->state_dir);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		log_warn("snmp: %s", dir);
		return -1;
	}
	unsetenv("SNMPCONFPATH");
	unsetenv("SNMP_PERSISTENT_FILE");
	setenv("MIBS", "", 1);
	set_persistent_directory(dir);
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/no-config");
	set_configuration_directory(dir);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
	    NETSNMP_DS_LIB_DONT_LOAD_HOST_FILES, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID,
	    NETSNMP_DS_AGENT_ROLE, 0);	/* master agent */

	if (init_agent("ibsnmpgw") != 0) {
		log_warnx("snmp: init_agent failed");
		return -1;
	}
	/* Access control is ours (post-parse hook), not VACM's: drop the
	 * "no access control information configured" warning. */
	snmp_unregister_callback(SNMP_CALLBACK_LIBRARY,
	    SNMP_CALLBACK_POST_READ_CONFIG, vacm_warn_if_not_configured, NULL,
	    1);
	gw_snmp_set_access(c);
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID,
	    NETSNMP_DS_AGENT_MAX_GETBULKREPEATS, c->max_repetitions);
	return 0;
}

/* An agent session on transport t (freed on failure), or NULL. */
static netsnmp_session *
agent_session(netsnmp_transport *t, const char *spec)
{
	netsnmp_session sess, *sp;

	/* As netsnmp_register_agent_nsap() sets up a master listener. */
	snmp_sess_init(&sess);
	sess.version = SNMP_DEFAULT_VERSION;
	sess.peername = SNMP_DEFAULT_PEERNAME;
	sess.community_len = SNMP_DEFAULT_COMMUNITY_LEN;
	sess.local_port = SNMP_DEFAULT_REMPORT;
	sess.callback = handle_snmp_packet;
	sess.authenticator = NULL;
	sess.flags = netsnmp_ds_get_int(NETSNMP_DS_APPLICATION_ID,
	    NETSNMP_DS_AGENT_FLAGS);
	sess.isAuthoritative = SNMP_SESS_AUTHORITATIVE;
	/* callback_magic stays NULL: handle_snmp_packet() reads it as an
	 * existing agent session. */
	t->flags |= NETSNMP_TRANSPORT_FLAG_OPENED;
	/* snmp_add_full, not snmp_sess_add_ex: only the former puts the
	 * session on the list snmp_select_info2() and wrap-up use. */
	sp = snmp_add_full(&sess, t, gw_snmp_pre_parse, NULL, gw_snmp_post_parse,
	    NULL, gw_snmp_rbuild, NULL, NULL);
	if (sp == NULL) {
		log_warnx("snmp: cannot create session for %s", spec);
		netsnmp_transport_free(t);
	}
	return sp;
}

static int
open_listener(const char *spec, const char *norm)
{
	netsnmp_transport *t;
	netsnmp_session *sp;

	if (snmp_nsessions == GW_MAX_LISTENERS) {
		log_warnx("snmp: too many listeners");
		return -1;
	}
	if ((t = netsnmp_transport_open_server("snmp", spec)) == NULL) {
		log_warnx("snmp: cannot listen on %s", spec);
		return -1;
	}
	gw_snmp_udp_tune(t);
	if ((sp = agent_session(t, spec)) == NULL)
		return -1;
	if ((snmp_specs[snmp_nsessions] = strdup(norm)) == NULL) {
		log_warn("snmp");
		snmp_close(sp);
		return -1;
	}
	snmp_sessions[snmp_nsessions++] = sp;
	if (main_session == NULL)
		main_session = sp;
	log_info("snmp: listening on %s", spec);
	return 0;
}

/* Answer genErr now to every request that came in on sess and still
 * waits on the fabric, and send those answers: net-snmp's own session
 * close does not look at the delegated list, so closing with requests
 * outstanding would leave them pointing at a freed session. The jobs
 * find their request gone when their attribute arrives (mib.c). */
static int
session_in_use(netsnmp_session *sess)
{
	for (netsnmp_agent_session *asp = agent_delegated_list; asp;
	    asp = asp->next)
		if (asp->session == sess)
			return 1;
	return 0;
}

static int
drain_session(netsnmp_session *sess)
{
	int n = 0;

	for (netsnmp_agent_session *asp = agent_delegated_list; asp;
	    asp = asp->next) {
		if (asp->session != sess)
			continue;
		for (int i = 0; i <= asp->treecache_num; i++)
			for (netsnmp_request_info *r =
			    asp->treecache[i].requests_begin; r; r = r->next)
				if (r->delegated) {
					netsnmp_request_set_error(r,
					    SNMP_ERR_GENERR);
					r->delegated = 0;
					n++;
				}
		/* No further GETBULK repetitions for it. */
		asp->flags |= SNMP_AGENT_FLAGS_CANCEL_IN_PROGRESS;
	}
	/* Always: a request whose last varbind was answered in this loop
	 * pass is still listed, with nothing delegated, until net-snmp
	 * wraps it up; that must happen while its session exists. */
	netsnmp_check_outstanding_agent_requests();
	return n;
}

static void
close_listener(int i)
{
	netsnmp_session *sp = snmp_sessions[i];
	int n = drain_session(sp), in_use = session_in_use(sp);

	if (in_use) {
		/* Not expected after the drain; closing now would leave
		 * requests pointing at a freed session. */
		log_warnx("snmp: %s still has requests in progress; it is "
		    "closed when they end", snmp_specs[i]);
		if (snmp_nclosing < GW_MAX_LISTENERS)
			snmp_closing[snmp_nclosing++] = sp;
	} else
		log_info("snmp: no longer listening on %s%s", snmp_specs[i],
		    n ? " (its requests waiting on the fabric were answered "
		    "genErr)" : "");
	free(snmp_specs[i]);
	for (; i + 1 < snmp_nsessions; i++) {
		snmp_sessions[i] = snmp_sessions[i + 1];
		snmp_specs[i] = snmp_specs[i + 1];
	}
	snmp_nsessions--;
	if (!in_use)
		close_session(sp);
}

/* Close a listener session; main_session (the agent's default) moves to
 * one that stays. */
static void
close_session(netsnmp_session *sp)
{
	netsnmp_transport *t = snmp_sess_transport(snmp_sess_pointer(sp));

	if (main_session == sp)
		main_session = snmp_nsessions > 0 ? snmp_sessions[0] : NULL;
	if (t != NULL)
		gw_snmp_udp_forget(t->sock);
	snmp_close(sp);
}

static int
listed(const struct gw_conf *c, const char *spec)
{
	for (int i = 0; i < c->nlisten; i++)
		if (strcmp(c->listen[i].norm, spec) == 0)
			return 1;
	return 0;
}

static int
open_now(const char *spec)
{
	for (int i = 0; i < snmp_nsessions; i++)
		if (strcmp(snmp_specs[i], spec) == 0)
			return 1;
	return 0;
}

static int snmp_paused;

int
gw_snmp_listeners_pause(const struct gw_conf *c, int paused)
{
	int rc = 0;

	snmp_paused = paused;
	if (paused) {
		while (snmp_nsessions > 0)
			close_listener(snmp_nsessions - 1);
	} else
		for (int i = 0; i < c->nlisten; i++)
			if (!open_now(c->listen[i].norm) && open_listener(
			    c->listen[i].spec, c->listen[i].norm) == -1)
				rc = -1;
	snmp_nkept = snmp_nsessions;
	return rc;
}

int
gw_snmp_listeners_prepare(const struct gw_conf *c)
{
	snmp_nkept = snmp_nsessions;
	if (snmp_paused)
		return 0;
	for (int i = 0; i < c->nlisten; i++)
		if (!open_now(c->listen[i].norm) &&
		    open_listener(c->listen[i].spec, c->listen[i].norm) == -1) {
			gw_snmp_listeners_abort();
			return -1;
		}
	return 0;
}

void
gw_snmp_listeners_abort(void)
{
	while (snmp_nsessions > snmp_nkept)
		close_listener(snmp_nsessions - 1);
}

void
gw_snmp_listeners_commit(const struct gw_conf *c)
{
	for (int i = snmp_nsessions - 1; i >= 0; i--)
		if (!listed(c, snmp_specs[i]))
			close_listener(i);
	snmp_nkept = snmp_nsessions;
}

int
gw_snmp_start(const struct gw_conf *c)
{
	static const struct ev_hook hook = { snmp_prepare, snmp_dispatch,
	    NULL };

	if (gw_snmp_engine_prepare(c) == -1)
		return -1;
	init_snmp("ibsnmpgw");
	/* Our boots on disk before any listener opens (snmp_engine.c);
	 * net-snmp's file then gets them too. */
	if (gw_snmp_engine_start() == -1)
		return -1;
	snmp_store("ibsnmpgw");
	for (int i = 0; i < c->nusers; i++)
		if (add_user(&c->users[i]) == -1)
			return -1;
	for (int i = 0; i < c->nlisten && !snmp_paused; i++)
		if (open_listener(c->listen[i].spec, c->listen[i].norm) == -1)
			return -1;
	if (c->subnet_child != NULL && open_link() == -1)
		return -1;
	return ev_hook_add(&hook);
}

/* A further subnet's process: its only listener, the link to the first
 * process (gateway/subnet.c), which no reload closes. */
static int
open_link(void)
{
	netsnmp_transport *t = gw_subnet_link_transport(GW_SUBNET_LINK_FD);

	if (t == NULL || (snmp_link = agent_session(t, "subnet link")) ==
	    NULL) {
		log_warnx("snmp: no link to the first process on descriptor %d",
		    GW_SUBNET_LINK_FD);
		return -1;
	}
	if (main_session == NULL)
		main_session = snmp_link;
	gw_snmp_addr_set_link(snmp_link);
	log_info("snmp: answering the first process on its link");
	return 0;
}

void
gw_snmp_finalise(void)
{
	if (snmp_link != NULL)
		snmp_close(snmp_link);
	snmp_link = NULL;
	gw_snmp_addr_set_link(NULL);
	for (int i = 0; i < snmp_nsessions; i++) {
		snmp_close(snmp_sessions[i]);
		free(snmp_specs[i]);
	}
	snmp_nsessions = 0;
	gw_snmp_addr_finalise();
	snmp_shutdown("ibsnmpgw");
	shutdown_agent();
}

long
gw_snmp_max_msg_size(void)
{
	/* As snmpv3_header_build() computes msgMaxSize (RFC 3412 6.1). */
	long m = (long)netsnmp_max_send_msg_size();

	for (int i = 0; i < snmp_nsessions; i++)
		if (snmp_sessions[i]->rcvMsgMaxSize < (size_t)m)
			m = (long)snmp_sessions[i]->rcvMsgMaxSize;
	return m;
}
