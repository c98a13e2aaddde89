/* gw_subnet: a process per further subnet, and the requests handed to
 * it (docs/subnets.md).
 *
 * Why processes: under ibsim a process is one client at port 1 of one
 * node (tests/sim/README.md, "Two subnets"), so one process cannot hold
 * two ports, and a design that only hardware could run would go
 * untested. A process per subnet also keeps a dead SM, a lost port or
 * a flood of Reports on one subnet from stalling the others.
 *
 * The link is a SOCK_DGRAM socket pair: a datagram is one SNMP message.
 * Only we hold the other end, so the process trusts what comes on it:
 * the community "c public\x1fcn01" says that community public (its node
 * selection applies) asks about cn01; "u NAME..." a v3 user. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gateway/subnet.h"
#include "gateway/subnet_ha.h"
#include "proxy/mad.h"
#include "util/ev.h"
#include "util/log.h"

extern char **environ;

/* The binary this process runs, even once an upgrade has replaced the
 * file: a further subnet's process is always the same release as the
 * first (the link's format is theirs alone). */
#define SELF_EXE	"/proc/self/exe"
#define BACKOFF_MIN_MS	1000
#define BACKOFF_MAX_MS	30000
#define STABLE_MS	60000	/* ran this long: the next start is quick */

struct sub_proc {
	char			 name[GW_SUBNET_NAME + 1];
	char			 sim_host[32];
	char			 store[PATH_MAX];
	pid_t			 pid;
	int			 fd;		/* our end of the link */
	netsnmp_session		*sess;
	sqlite3			*db;		/* its store, read-only */
	sqlite3_stmt		*by_guid;
	sqlite3_stmt		*by_name;
	sqlite3_stmt		*our_port;	/* one subnet with ours? */
	int			 refused;	/* so: not started again */
	int			 send_warned;	/* logged a failed send */
	int			 backoff_ms;
	uint64_t		 started;	/* ev_now() */
	struct ev_timer		 respawn;
};

/* One request handed on: the client's PDU, cloned, to answer from. */
struct sub_fwd {
	netsnmp_session		*listener;
	netsnmp_pdu		*req;
	/* Inside snmp_async_send(): net-snmp calls the callback there on a
	 * failed send (OP_SEND_FAILED) and then returns 0 as well, so the
	 * sender alone answers and frees. */
	int			 sending;
};

static struct sub_proc	 sub_procs[GW_SUBNETS_MAX];
static int		 sub_n;		/* subnets, this process's included */
static char		 sub_first[GW_SUBNET_NAME + 1];
static char		 sub_self_name[GW_SUBNET_NAME + 1];	/* -s NAME */
static char		*sub_conf;
static int		 sub_debug;
static int		 sub_timeout_ms;
static struct gw_subnet_stats sub_st;

/* ---- The link as a net-snmp transport */

/* transportDomainLocal (RFC 3419 TRANSPORT-ADDRESS-MIB): a local
 * socket. */
static const oid link_domain[] = { 1, 3, 6, 1, 2, 1, 100, 1, 13 };

static int
link_recv(netsnmp_transport *t, void *buf, int size, void **opaque,
    int *olen)
{
	ssize_t n;

	*opaque = NULL;
	*olen = 0;
	do
		n = recv(t->sock, buf, (size_t)size, MSG_DONTWAIT);
	while (n == -1 && errno == EINTR);
	return (int)n;
}

static int
link_send(netsnmp_transport *t, const void *buf, int size, void **opaque,
    int *olen)
{
	ssize_t n;

	(void)opaque;
	(void)olen;
	do
		n = send(t->sock, buf, (size_t)size, MSG_DONTWAIT);
	while (n == -1 && errno == EINTR);
	return (int)n;
}

static int
link_close(netsnmp_transport *t)
{
	int rc = t->sock >= 0 ? close(t->sock) : 0;

	t->sock = -1;
	return rc;
}

static char *
link_fmtaddr(netsnmp_transport *t, const void *data, int len)
{
	(void)t;
	(void)data;
	(void)len;
	return strdup("subnet link");
}

netsnmp_transport *
gw_subnet_link_transport(int fd)
{
	netsnmp_transport *t = calloc(1, sizeof(*t));
	int sz = 256 * 1024;

	if (t == NULL)
		return NULL;
	/* A GETBULK answer of a switch can be large: room for several. */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	t->domain = link_domain;
	t->domain_length = OID_LENGTH(link_domain);
	t->sock = fd;
	t->msgMaxSize = 65507;
	t->f_recv = link_recv;
	t->f_send = link_send;
	t->f_close = link_close;
	t->f_fmtaddr = link_fmtaddr;
	return t;
}

/* ---- The processes */

static void	respawn_cb(void *arg);

/* fd moved above the descriptors the process is to get theirs on, so
 * that no dup2 of the spawn overwrites another's source. */
static int
above(int fd)
{
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, GW_SUBNET_CTL_FD + 1);

	close(fd);
	return hi;
}

static char **
child_env(const struct sub_proc *p, char *simenv, size_t slen, char *penv,
    size_t plen)
{
	size_t ne = 0, k = 0;
	char **envp;

	while (environ[ne] != NULL)
		ne++;
	if ((envp = calloc(ne + 3, sizeof(*envp))) == NULL)
		return NULL;
	for (size_t i = 0; i < ne; i++)
		if ((p->sim_host[0] == '\0' ||
		    strncmp(environ[i], "SIM_HOST=", 9) != 0) &&
		    strncmp(environ[i], GW_SUBNET_PARENT_ENV "=",
		    sizeof(GW_SUBNET_PARENT_ENV)) != 0)
			envp[k++] = environ[i];
	if (p->sim_host[0] != '\0') {
		snprintf(simenv, slen, "SIM_HOST=%s", p->sim_host);
		envp[k++] = simenv;
	}
	snprintf(penv, plen, GW_SUBNET_PARENT_ENV "=%ld", (long)getpid());
	envp[k++] = penv;
	return envp;
}

static int
proc_spawn(struct sub_proc *p)
{
	posix_spawn_file_actions_t fa;
	char *argv[9], **envp, simenv[48], penv[48];
	int sv[2], cv[2] = { -1, -1 }, n = 0, rc;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == -1) {
		log_warn("subnet %s: socketpair", p->name);
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cv) == -1 ||
	    (sv[1] = above(sv[1])) == -1 || (cv[1] = above(cv[1])) == -1) {
		log_warn("subnet %s: socketpair", p->name);
		goto fail;
	}
	if ((envp = child_env(p, simenv, sizeof(simenv), penv,
	    sizeof(penv))) == NULL)
		goto fail;
	argv[n++] = "ibsnmpgw";
	argv[n++] = "-f";
	if (sub_debug)
		argv[n++] = "-d";
	argv[n++] = "-c";
	argv[n++] = sub_conf;
	argv[n++] = "-s";
	argv[n++] = p->name;
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	/* Its log where ours goes, not into our captured stderr. */
	if (log_stderr_fd() >= 0)
		posix_spawn_file_actions_adddup2(&fa, log_stderr_fd(),
		    STDERR_FILENO);
	posix_spawn_file_actions_adddup2(&fa, sv[1], GW_SUBNET_LINK_FD);
	posix_spawn_file_actions_adddup2(&fa, cv[1], GW_SUBNET_CTL_FD);
	rc = posix_spawn(&p->pid, SELF_EXE, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	free(envp);
	if (rc != 0) {
		errno = rc;
		log_warn("subnet %s: cannot start %s", p->name, SELF_EXE);
		goto fail;
	}
	close(sv[1]);
	close(cv[1]);
	p->fd = sv[0];
	p->started = ev_now();
	p->send_warned = 0;
	gw_subnet_ha_spawned((int)(p - sub_procs), p->name, cv[0]);
	log_info("subnet %s: process %ld started%s%s", p->name, (long)p->pid,
	    p->sim_host[0] ? " as SIM_HOST " : "", p->sim_host);
	return 0;
fail:
	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (cv[0] >= 0)
		close(cv[0]);
	if (cv[1] >= 0)
		close(cv[1]);
	p->pid = 0;
	return -1;
}

static int
proc_session(struct sub_proc *p)
{
	netsnmp_transport *t = gw_subnet_link_transport(p->fd);
	netsnmp_session sess;

	if (t == NULL) {
		close(p->fd);
		p->fd = -1;
		return -1;
	}
	snmp_sess_init(&sess);
	sess.version = SNMP_VERSION_2c;
	/* The process has its own deadline (snmp.request-timeout-ms); a
	 * second more, and no retry: the client retries. */
	sess.timeout = (long)(sub_timeout_ms + 1000) * 1000;
	sess.retries = 0;
	if ((p->sess = snmp_add(&sess, t, NULL, NULL)) == NULL) {
		log_warnx("subnet %s: cannot open its link", p->name);
		netsnmp_transport_free(t);
		p->fd = -1;
		return -1;
	}
	p->fd = -1;		/* the session's now */
	return 0;
}

static void
proc_start(struct sub_proc *p)
{
	if (proc_spawn(p) == -1 || proc_session(p) == -1) {
		if (p->pid > 0)
			kill(p->pid, SIGTERM);
		ev_timer_add(&p->respawn, (uint64_t)p->backoff_ms);
	}
}

static void
respawn_cb(void *arg)
{
	struct sub_proc *p = arg;

	if (p->pid != 0 || p->refused)
		return;		/* still running: reaped later */
	sub_st.restarts++;
	proc_start(p);
}

static void
db_close(struct sub_proc *p)
{
	sqlite3_finalize(p->by_guid);
	p->by_guid = NULL;
	sqlite3_finalize(p->by_name);
	p->by_name = NULL;
	sqlite3_finalize(p->our_port);
	p->our_port = NULL;
	sqlite3_close(p->db);
	p->db = NULL;
}

void
gw_subnet_reap(void)
{
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (int i = 1; i < sub_n; i++) {
			struct sub_proc *p = &sub_procs[i];

			if (p->pid != pid)
				continue;
			log_warnx("subnet %s: process %ld %s %d", p->name,
			    (long)pid, WIFSIGNALED(status) ? "killed by "
			    "signal" : "exited with",
			    WIFSIGNALED(status) ? WTERMSIG(status) :
			    WEXITSTATUS(status));
			p->pid = 0;
			gw_subnet_ha_gone(i);
			if (p->sess != NULL) {
				snmp_close(p->sess);	/* fails what waits */
				p->sess = NULL;
			}
			if (p->refused)
				continue;
			if (ev_now() - p->started > STABLE_MS)
				p->backoff_ms = BACKOFF_MIN_MS;
			ev_timer_add(&p->respawn, (uint64_t)p->backoff_ms);
			if ((p->backoff_ms *= 2) > BACKOFF_MAX_MS)
				p->backoff_ms = BACKOFF_MAX_MS;
		}
	}
}


static int	db_open(struct sub_proc *p);

/* Two ports on one subnet (two cables into one fabric) would serve it
 * twice: a further subnet whose inventory has our own port, cabled, is
 * ours. Its process is stopped and not started again (ib.ports is
 * wrong), once its first sweep shows it, and checked again every
 * SAME_CHECK_MS after. */
#define SAME_CHECK_MS	2000
static struct ev_timer	 sub_same_timer;

static void
same_check(void *arg)
{
	struct proxy_local_port lp;

	(void)arg;
	if (proxy_mad_local(&lp) == 0 && lp.port_guid != 0)
		for (int i = 1; i < sub_n; i++) {
			struct sub_proc *p = &sub_procs[i];
			int same;

			if (p->refused || db_open(p) == -1)
				continue;
			sqlite3_bind_int64(p->our_port, 1,
			    (sqlite3_int64)lp.port_guid);
			same = sqlite3_step(p->our_port) == SQLITE_ROW;
			sqlite3_reset(p->our_port);
			if (!same)
				continue;
			log_warnx("subnet %s: its port is on subnet %s (its "
			    "fabric has our port 0x%016llx): one subnet served "
			    "twice; its process stops: fix ib.ports", p->name,
			    sub_first, (unsigned long long)lp.port_guid);
			p->refused = 1;
			ev_timer_del(&p->respawn);
			if (p->pid > 0)
				kill(p->pid, SIGTERM);
		}
	ev_timer_add(&sub_same_timer, SAME_CHECK_MS);
}

int
gw_subnet_init(const struct gw_conf *c, const char *conf_path, int debug)
{
	sub_n = c->subnet_child != NULL ? 1 : c->nsubnets;
	if (c->subnet_child != NULL)
		gw_subnet_ha_child(GW_SUBNET_CTL_FD, c->ha.enabled);
	if (sub_n <= 1) {
		sub_n = 1;
		return 0;
	}
	snprintf(sub_first, sizeof(sub_first), "%s", c->subnets[0].name);
	if ((sub_conf = realpath(conf_path, NULL)) == NULL) {
		log_warn("subnet: %s", conf_path);
		return -1;
	}
	sub_debug = debug;
	sub_timeout_ms = c->request_timeout_ms;
	for (int i = 1; i < sub_n; i++) {
		struct sub_proc *p = &sub_procs[i];
		char *store;

		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", c->subnets[i].name);
		if (c->subnets[i].sim_host != NULL)
			snprintf(p->sim_host, sizeof(p->sim_host), "%s",
			    c->subnets[i].sim_host);
		/* Where its store will be (gw_conf_subnet_child). */
		store = gw_conf_subnet_store(c, i);
		snprintf(p->store, sizeof(p->store), "%s", store ? store : "");
		free(store);
		p->fd = -1;
		p->backoff_ms = BACKOFF_MIN_MS;
		ev_timer_init(&p->respawn, respawn_cb, p);
		proc_start(p);
	}
	ev_timer_init(&sub_same_timer, same_check, NULL);
	ev_timer_add(&sub_same_timer, SAME_CHECK_MS);
	return 0;
}

void
gw_subnet_finalise(void)
{
	if (sub_n > 1)
		ev_timer_del(&sub_same_timer);
	for (int i = 1; i < sub_n; i++) {
		struct sub_proc *p = &sub_procs[i];

		ev_timer_del(&p->respawn);
		if (p->pid > 0)
			kill(p->pid, SIGTERM);
	}
	/* Each stops as we do; a process that does not within 10 s is
	 * killed. */
	for (int t = 0; t < 1000; t++) {
		int left = 0;

		for (int i = 1; i < sub_n; i++) {
			struct sub_proc *p = &sub_procs[i];

			if (p->pid > 0 && waitpid(p->pid, NULL, WNOHANG) ==
			    p->pid)
				p->pid = 0;
			left += p->pid > 0;
		}
		if (left == 0)
			break;
		usleep(10000);
	}
	for (int i = 1; i < sub_n; i++) {
		struct sub_proc *p = &sub_procs[i];

		if (p->pid > 0) {
			log_warnx("subnet %s: process %ld did not stop: killed",
			    p->name, (long)p->pid);
			kill(p->pid, SIGKILL);
			waitpid(p->pid, NULL, 0);
		}
		if (p->sess != NULL)
			snmp_close(p->sess);
		p->sess = NULL;
		db_close(p);
	}
	gw_subnet_ha_finalise();
	free(sub_conf);
	sub_conf = NULL;
	sub_n = 0;
}

void
gw_subnet_reload(const struct gw_conf *c)
{
	int same = c->nsubnets == sub_n;

	for (int i = 1; same && i < sub_n; i++)
		same = strcmp(c->subnets[i].name, sub_procs[i].name) == 0;
	if (sub_n > 1 && !same)
		log_warnx("subnet: ib.ports changed: the subnets served "
		    "change at a restart");
	sub_timeout_ms = c->request_timeout_ms;
	for (int i = 1; i < sub_n; i++)
		if (sub_procs[i].pid > 0)
			kill(sub_procs[i].pid, SIGHUP);
}

int
gw_subnet_child_guard(void)
{
	const char *parent = getenv(GW_SUBNET_PARENT_ENV);

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		return -1;
	/* Gone before the line above: we belong to init now. By hand
	 * (no variable), there is nothing to check. */
	if (parent != NULL && strtol(parent, NULL, 10) != (long)getppid())
		return -1;
	return 0;
}

void
gw_subnet_set_self(const char *name)
{
	snprintf(sub_self_name, sizeof(sub_self_name), "%s", name);
}

const char *
gw_subnet_self(void)
{
	return sub_self_name;
}

int
gw_subnet_count(void)
{
	return sub_n > 1 ? sub_n : 1;
}

int
gw_subnet_find(const char *name, size_t len)
{
	if (sub_n <= 1)
		return -1;
	if (len == strlen(sub_first) && memcmp(name, sub_first, len) == 0)
		return 0;
	for (int i = 1; i < sub_n; i++)
		if (len == strlen(sub_procs[i].name) &&
		    memcmp(name, sub_procs[i].name, len) == 0)
			return i;
	return -1;
}

const char *
gw_subnet_name(int i)
{
	return i == 0 ? sub_first : i < sub_n ? sub_procs[i].name : "";
}

/* Its store, read-only, as the process writes it (WAL: readers do not
 * wait for the writer). Opened at the first lookup: the process may
 * not have made it before then. */
static int
db_open(struct sub_proc *p)
{
	if (p->by_guid != NULL)
		return 0;
	/* A name as store_node_resolve() takes it: an alias of the
	 * node-name-map, a whole description or its first word. */
	if (p->store[0] == '\0' || sqlite3_open_v2(p->store, &p->db,
	    SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(p->db, "SELECT 1 FROM nodes WHERE guid = ?1",
	    -1, &p->by_guid, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(p->db, "SELECT 1 FROM nodes WHERE guid IN "
	    "(SELECT node_guid FROM aliases WHERE name = ?1) OR "
	    "description = ?1 OR substr(description, 1, length(?1) + 1) = "
	    "?1 || ' ' LIMIT 1", -1, &p->by_name, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(p->db, "SELECT 1 FROM ports WHERE guid = ?1 "
	    "AND remote_guid != 0 LIMIT 1", -1, &p->our_port, NULL) !=
	    SQLITE_OK) {
		db_close(p);
		return -1;
	}
	sqlite3_busy_timeout(p->db, 50);
	return 0;
}

int
gw_subnet_by_guid(uint64_t guid)
{
	for (int i = 1; i < sub_n; i++) {
		struct sub_proc *p = &sub_procs[i];
		int found;

		if (db_open(p) == -1)
			continue;
		sqlite3_bind_int64(p->by_guid, 1, (sqlite3_int64)guid);
		found = sqlite3_step(p->by_guid) == SQLITE_ROW;
		sqlite3_reset(p->by_guid);
		if (found)
			return i;
	}
	return -1;
}

int
gw_subnet_by_name(const char *name, size_t len)
{
	int found = -1;

	for (int i = 1; i < sub_n; i++) {
		struct sub_proc *p = &sub_procs[i];
		int hit;

		if (db_open(p) == -1)
			continue;
		sqlite3_bind_text(p->by_name, 1, name, (int)len,
		    SQLITE_TRANSIENT);
		hit = sqlite3_step(p->by_name) == SQLITE_ROW;
		sqlite3_reset(p->by_name);
		if (hit && found != -1)
			return -2;
		if (hit)
			found = i;
	}
	return found;
}

/* ---- Requests handed on */

static void
fwd_free(struct sub_fwd *f)
{
	if (f->req != NULL)
		snmp_free_pdu(f->req);
	free(f);
}

/* The client's answer: its request as a Response with the process's
 * varbinds and error. One too big for the client is tooBig with no
 * varbinds (RFC 3416 4.2.1), as the agent's own are. With no answer
 * (resp NULL: the process is down, or did not answer in time), genErr
 * on the request's varbinds, as for a node that does not answer
 * (docs/errors.md). */
static void
answer(struct sub_fwd *f, const netsnmp_pdu *resp)
{
	netsnmp_pdu *r = f->req;

	f->req = NULL;
	r->command = SNMP_MSG_RESPONSE;
	r->flags &= ~UCD_MSG_FLAG_EXPECT_RESPONSE;
	if (resp != NULL) {
		snmp_free_varbind(r->variables);
		r->variables = snmp_clone_varbind(resp->variables);
		r->errstat = resp->errstat;
		r->errindex = resp->errindex;
	} else {
		r->errstat = SNMP_ERR_GENERR;
		r->errindex = 1;
	}
	/* A reload may have closed the listener meanwhile: net-snmp's
	 * list of open sessions says. */
	if (snmp_sess_pointer(f->listener) == NULL) {
		snmp_free_pdu(r);
		return;
	}
	if (snmp_send(f->listener, r) == 0) {
		snmp_free_varbind(r->variables);
		r->variables = NULL;
		r->errstat = SNMP_ERR_TOOBIG;
		r->errindex = 0;
		if (snmp_send(f->listener, r) == 0)
			snmp_free_pdu(r);
	}
}

static int
fwd_cb(int op, netsnmp_session *sess, int reqid, netsnmp_pdu *resp,
    void *magic)
{
	struct sub_fwd *f = magic;

	(void)sess;
	(void)reqid;
	if (f->sending)
		return 1;	/* gw_subnet_forward sees the 0 */
	if (op == NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE && resp != NULL &&
	    resp->command == SNMP_MSG_RESPONSE) {
		answer(f, resp);
		sub_st.answered++;
	} else {
		answer(f, NULL);
		sub_st.lost++;
	}
	fwd_free(f);
	return 1;
}

int
gw_subnet_forward(int i, netsnmp_session *listener, netsnmp_pdu *pdu,
    char kind, const char *access, size_t alen, const char *node,
    size_t nlen)
{
	struct sub_proc *p = i > 0 && i < sub_n ? &sub_procs[i] : NULL;
	netsnmp_pdu *out;
	struct sub_fwd *f;
	u_char *comm;
	int rc;

	if (p == NULL)
		return -1;
	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (f->req = snmp_clone_pdu(pdu)) == NULL) {
		log_warn("subnet %s", p->name);
		free(f);
		sub_st.lost++;
		return -1;
	}
	f->listener = listener;
	if (p->sess == NULL || (out = snmp_pdu_create(pdu->command)) ==
	    NULL) {
		answer(f, NULL);	/* the process is down: genErr */
		fwd_free(f);
		sub_st.lost++;
		return -1;
	}
	out->version = pdu->version == SNMP_VERSION_1 ? SNMP_VERSION_1 :
	    SNMP_VERSION_2c;
	out->non_repeaters = pdu->non_repeaters;	/* GETBULK */
	out->max_repetitions = pdu->max_repetitions;
	out->variables = snmp_clone_varbind(pdu->variables);
	if ((comm = malloc(alen + nlen + 2)) == NULL) {
		snmp_free_pdu(out);
		answer(f, NULL);
		fwd_free(f);
		sub_st.lost++;
		return -1;
	}
	comm[0] = (u_char)kind;
	memcpy(comm + 1, access, alen);
	comm[1 + alen] = GW_SUBNET_SEP;
	memcpy(comm + 2 + alen, node, nlen);
	out->community = comm;
	out->community_len = alen + nlen + 2;
	f->sending = 1;
	rc = snmp_async_send(p->sess, out, fwd_cb, f);
	f->sending = 0;
	if (rc == 0) {
		/* Once per process: a dead one fails every send until it is
		 * reaped. */
		if (!p->send_warned++)
			log_warnx("subnet %s: cannot hand a request on: %s",
			    p->name, snmp_api_errstring(p->sess->s_snmp_errno));
		snmp_free_pdu(out);
		answer(f, NULL);
		fwd_free(f);
		sub_st.lost++;
		return -1;
	}
	sub_st.forwarded++;
	return 0;
}

void
gw_subnet_get_stats(struct gw_subnet_stats *st)
{
	*st = sub_st;
}
