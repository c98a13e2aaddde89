/* gw_snmp: net-snmp's agent in our poll loop, and node addressing.
 *
 * Why not one registration per node context: net-snmp keeps contexts
 * and com2sec entries in linked lists searched per request, which costs
 * O(nodes) per varbind (measured: 51k GET/s at 10 contexts, ~2k at
 * 10,000). Instead our listeners carry a post-parse hook that resolves
 * the community ("public@leaf01") or the v3 context through the
 * inventory's hash indexes and rewrites the request to one internal
 * context, GW_NODE_CONTEXT. The client's v3 context name is parked in
 * pdu->community, which SNMPv3 does not use and snmp_clone_pdu() copies,
 * so handlers can resolve the node again and the build hook can put the
 * name back into the response (RFC 3412 7.1: the response carries the
 * request's contextName).
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

#include "gateway/name.h"
#include "gateway/snmp.h"
#include "util/ev.h"
#include "util/htab.h"
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
/* Removed listeners whose requests are still in progress: closed as
 * soon as none is (close_listener). */
static netsnmp_session	*snmp_closing[GW_MAX_LISTENERS];
static int		 snmp_nclosing;

static int	session_in_use(netsnmp_session *sess);
static void	close_session(netsnmp_session *sp);
static struct htab	 snmp_communities;	/* name -> gw_community */
static struct htab	 snmp_users;		/* name -> gw_user */
static char		 snmp_fabric[33];	/* snmp.fabric-context */
static struct gw_snmp_stats snmp_st;
static char		 snmp_logbuf[1024];
static size_t		 snmp_loglen;

/* snmpUnknownContexts.0, SNMP-TARGET-MIB (RFC 3413). */
static const oid unknown_contexts_oid[] = { 1, 3, 6, 1, 6, 3, 12, 1, 5, 0 };

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

/* Addressing. */

/* The UDP source of a request (IPv4 transports keep an address pair,
 * IPv6 ones a sockaddr_in6; both start with the remote sockaddr). */
static const struct sockaddr *
request_source(const netsnmp_pdu *pdu)
{
	if (pdu->transport_data == NULL ||
	    pdu->transport_data_length < (int)sizeof(struct sockaddr_in))
		return NULL;
	return pdu->transport_data;
}

/* RFC 3413 3.2 step (5) and RFC 3412 7.1 (3): an unknown contextName is
 * counted and, for a reportable request, answered with a noAuthNoPriv
 * Report carrying snmpUnknownContexts. snmpv3_make_report() has no case
 * for it, so the Report is built here the way usm_handle_report() builds
 * its own. */
static void
report_unknown_context(netsnmp_session *sess, netsnmp_pdu *pdu)
{
	struct snmp_secmod_def *sm;
	void *slp = snmp_sess_pointer(sess);
	netsnmp_pdu *r;
	u_long v;

	snmp_increment_statistic(STAT_SNMPUNKNOWNCONTEXTS);
	snmp_st.unknown_contexts++;
	if (slp == NULL || !SNMP_CMD_CONFIRMED(pdu->command) ||
	    !(pdu->flags & SNMP_MSG_FLAG_RPRT_BIT))
		return;
	if ((r = snmp_clone_pdu(pdu)) == NULL)
		return;
	snmp_free_varbind(r->variables);
	r->variables = NULL;
	r->command = SNMP_MSG_REPORT;
	r->errstat = r->errindex = 0;
	SNMP_FREE(r->community);
	r->community_len = 0;
	SNMP_FREE(r->securityEngineID);
	r->securityEngineID = snmpv3_generate_engineID(&r->securityEngineIDLen);
	SNMP_FREE(r->contextEngineID);
	r->contextEngineID = snmpv3_generate_engineID(&r->contextEngineIDLen);
	SNMP_FREE(r->contextName);
	r->contextName = strdup("");
	r->contextNameLen = 0;
	if (r->securityStateRef != NULL &&
	    (sm = find_sec_mod(r->securityModel)) != NULL &&
	    sm->pdu_free_state_ref != NULL)
		sm->pdu_free_state_ref(r->securityStateRef);
	r->securityStateRef = NULL;
	r->securityLevel = SNMP_SEC_LEVEL_NOAUTH;
	v = snmp_get_statistic(STAT_SNMPUNKNOWNCONTEXTS);
	snmp_pdu_add_variable(r, unknown_contexts_oid,
	    OID_LENGTH(unknown_contexts_oid), ASN_COUNTER, &v, sizeof(v));
	if (snmp_sess_send(slp, r) == 0) {
		log_debug("snmp: cannot send an unknownContexts report");
		snmp_free_pdu(r);
	}
}

static int
is_fabric(const char *name, size_t len)
{
	return len == strlen(snmp_fabric) && memcmp(name, snmp_fabric, len) ==
	    0;
}

/* Pre-parse hook. net-snmp's own also consults tcp-wrappers on every
 * packet (Debian builds it with libwrap); we only count. */
static int
gw_pre_parse(netsnmp_session *sess, netsnmp_transport *t, void *addr,
    int addrlen)
{
	snmp_increment_statistic(STAT_SNMPINPKTS);
	return 1;
}

static int
is_request(const netsnmp_pdu *pdu)
{
	switch (pdu->command) {
	case SNMP_MSG_GET:
	case SNMP_MSG_GETNEXT:
	case SNMP_MSG_GETBULK:
	case SNMP_MSG_SET:
		return 1;
	}
	return 0;
}

static int
set_context(netsnmp_pdu *pdu, const char *name)
{
	char *c = strdup(name);

	if (c == NULL)
		return -1;
	free(pdu->contextName);
	pdu->contextName = c;
	pdu->contextNameLen = strlen(c);
	return 0;
}

/* Post-parse hook: decide who the request is for, or drop it. Returns
 * 0 to drop, non-zero to let the agent process it. */
static int
gw_post_parse(netsnmp_session *sess, netsnmp_pdu *pdu, int result)
{
	const struct gw_community *cm;
	const struct gw_user *user;
	const struct store_node *node;
	struct gw_name nm;
	int fabric;

	/* Counts and drops what did not parse (USM reports are already
	 * sent by then). Raw community and contextName are not
	 * NUL-terminated here: lengths only. */
	if (!netsnmp_agent_check_parse(sess, pdu, result))
		return 0;
	if (!is_request(pdu))
		return 1;
	snmp_st.requests++;
	switch (pdu->version) {
	case SNMP_VERSION_1:
	case SNMP_VERSION_2c:
		if (gw_name_split(pdu->community, pdu->community_len, &nm) ==
		    -1 || (cm = htab_get(&snmp_communities, nm.comm,
		    nm.comm_len)) == NULL)
			goto bad_community;
		/* Source restrictions, then the community's nodes: a node
		 * it may not see looks exactly like an unknown one. */
		if (!gw_cidr_match(cm->sources, cm->nsources,
		    request_source(pdu)))
			goto bad_community;
		if (nm.node == NULL) {
			/* The gateway itself: default context. */
			if (set_context(pdu, "") == -1)
				return 0;
			break;
		}
		if (is_fabric(nm.node, nm.node_len)) {
			if (set_context(pdu, GW_FABRIC_CONTEXT) == -1)
				return 0;
			snmp_st.fabric_requests++;
			break;
		}
		if ((node = store_node_resolve(nm.node, nm.node_len)) == NULL ||
		    !store_select_match(&cm->nodes, node))
			goto bad_community;
		if (set_context(pdu, GW_NODE_CONTEXT) == -1)
			return 0;
		snmp_st.node_requests++;
		break;
	case SNMP_VERSION_3:
		if (pdu->contextNameLen == 0)
			break;
		user = pdu->securityName ? htab_get(&snmp_users,
		    pdu->securityName, pdu->securityNameLen) : NULL;
		fabric = is_fabric(pdu->contextName, pdu->contextNameLen);
		if (gw_name_check_context(pdu->contextName,
		    pdu->contextNameLen) == -1 || (!fabric &&
		    (node = store_node_resolve(pdu->contextName,
		    pdu->contextNameLen)) == NULL) ||
		    /* A user USM still knows but a reload removed from the
		     * file may see nothing. */
		    user == NULL ||
		    (!fabric && !store_select_match(&user->nodes, node))) {
			report_unknown_context(sess, pdu);
			return 0;
		}
		/* Park the client's context name; see the file comment. */
		free(pdu->community);
		pdu->community = (u_char *)pdu->contextName;
		pdu->community_len = pdu->contextNameLen;
		pdu->contextName = NULL;
		pdu->contextNameLen = 0;
		if (set_context(pdu, fabric ? GW_FABRIC_CONTEXT :
		    GW_NODE_CONTEXT) == -1)
			return 0;
		if (fabric)
			snmp_st.fabric_requests++;
		else
			snmp_st.node_requests++;
		break;
	default:
		return 0;
	}
	/* Access was decided above; VACM is not in use. */
	pdu->flags |= UCD_MSG_FLAG_ALWAYS_IN_VIEW;
	return 1;

bad_community:
	/* RFC 3584 / RFC 1157: no answer, just the counter. */
	snmp_increment_statistic(STAT_SNMPINBADCOMMUNITYNAMES);
	snmp_st.bad_names++;
	return 0;
}

/* Realloc-build hook: put a v3 node request's context name back before
 * the response is encoded, then encode as net-snmp would. The caller
 * wants the packet at the start of the buffer, and may call us twice
 * (GETBULK too big: forward encoding at msgMaxSize), so this is
 * idempotent. */
static int
gw_rbuild(netsnmp_session *sess, netsnmp_pdu *pdu, u_char **pkt,
    size_t *pkt_len, size_t *offset)
{
	size_t o = 0, len;
	int rc;

	/* net-snmp 5.9.3 encodes a GETBULK that a handler failed part way
	 * (wrap_up with status 0, asp->status genErr) as it stands, with
	 * varbinds still marked for retry: no encoding exists for them.
	 * Fail it quietly (snmp_build would log "unknown failure"); the
	 * agent then answers genErr with the request's varbinds, as RFC
	 * 3416 4.2.1 says. Only an error response is looked at: every
	 * response comes through here. */
	for (netsnmp_variable_list *v = pdu->errstat != SNMP_ERR_NOERROR ?
	    pdu->variables : NULL; v != NULL; v = v->next_variable)
		if (v->type == ASN_PRIV_RETRY) {
			sess->s_snmp_errno = SNMPERR_BAD_ASN1_BUILD;
			return -1;
		}
	if (pdu->version == SNMP_VERSION_3 && pdu->community != NULL &&
	    pdu->contextName != NULL &&
	    (strcmp(pdu->contextName, GW_NODE_CONTEXT) == 0 ||
	    strcmp(pdu->contextName, GW_FABRIC_CONTEXT) == 0)) {
		free(pdu->contextName);
		pdu->contextName = (char *)pdu->community;
		pdu->contextNameLen = pdu->community_len;
		pdu->community = NULL;
		pdu->community_len = 0;
	}
	if ((pdu->flags & (UCD_MSG_FLAG_FORWARD_ENCODE |
	    UCD_MSG_FLAG_BULK_TOOBIG)) ||
	    !netsnmp_ds_get_boolean(NETSNMP_DS_LIBRARY_ID,
	    NETSNMP_DS_LIB_REVERSE_ENCODE)) {
		pdu->flags |= UCD_MSG_FLAG_FORWARD_ENCODE;
		len = *pkt_len;
		rc = snmp_build(pkt, &len, &o, sess, pdu);
		*offset = len;
	} else {
		rc = snmp_build(pkt, pkt_len, &o, sess, pdu);
		if (rc == 0)
			memmove(*pkt, *pkt + *pkt_len - o, o);
		*offset = o;
	}
	return rc;
}

struct store_node *
gw_snmp_request_node(netsnmp_agent_request_info *reqinfo)
{
	netsnmp_pdu *pdu;
	struct gw_name nm;

	if (reqinfo == NULL || reqinfo->asp == NULL ||
	    (pdu = reqinfo->asp->pdu) == NULL || pdu->community == NULL)
		return NULL;
	if (pdu->version == SNMP_VERSION_3)
		return store_node_resolve((const char *)pdu->community,
		    pdu->community_len);
	if (gw_name_split(pdu->community, pdu->community_len, &nm) == -1 ||
	    nm.node == NULL)
		return NULL;
	return store_node_resolve(nm.node, nm.node_len);
}

/* The configured user (v3) or community (v1/v2c) a request came
 * under; exactly one of *u, *cm is set on success. */
static int
request_principal(netsnmp_agent_request_info *reqinfo,
    const struct gw_user **u, const struct gw_community **cm)
{
	netsnmp_pdu *pdu;
	struct gw_name nm;

	*u = NULL;
	*cm = NULL;
	if (reqinfo == NULL || reqinfo->asp == NULL ||
	    (pdu = reqinfo->asp->pdu) == NULL)
		return -1;
	if (pdu->version == SNMP_VERSION_3) {
		if (pdu->securityName == NULL || (*u = htab_get(&snmp_users,
		    pdu->securityName, pdu->securityNameLen)) == NULL)
			return -1;
		return 0;
	}
	if (pdu->community == NULL || gw_name_split(pdu->community,
	    pdu->community_len, &nm) == -1 || (*cm = htab_get(
	    &snmp_communities, nm.comm, nm.comm_len)) == NULL)
		return -1;
	return 0;
}

int
gw_snmp_request_select(netsnmp_agent_request_info *reqinfo,
    const struct store_select **sel)
{
	const struct gw_community *cm;
	const struct gw_user *u;

	*sel = NULL;
	if (request_principal(reqinfo, &u, &cm) == -1)
		return -1;
	*sel = u != NULL ? &u->nodes : &cm->nodes;
	return 0;
}

int
gw_snmp_request_owner(netsnmp_agent_request_info *reqinfo, char *owner,
    size_t len, int *grant)
{
	const struct gw_community *cm;
	const struct gw_user *u;

	*grant = 0;
	if (request_principal(reqinfo, &u, &cm) == -1)
		return -1;
	if (u != NULL) {
		snprintf(owner, len, "user %s", u->name);
		*grant = u->fabric_queries;
	} else {
		snprintf(owner, len, "community %s", cm->name);
		*grant = cm->fabric_queries;
	}
	return 0;
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

void
gw_snmp_set_access(const struct gw_conf *c)
{
	/* The tables point into c, which the caller keeps until the next
	 * call (a reload). */
	htab_free(&snmp_communities);
	htab_free(&snmp_users);
	snprintf(snmp_fabric, sizeof(snmp_fabric), "%s", c->fabric_context ?
	    c->fabric_context : "fabric");
	for (int i = 0; i < c->ncommunities; i++)
		htab_put(&snmp_communities, c->communities[i].name,
		    strlen(c->communities[i].name), &c->communities[i]);
	for (int i = 0; i < c->nusers; i++)
		htab_put(&snmp_users, c->users[i].name, strlen(c->users[i].name),
		    &c->users[i]);
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

static int
open_listener(const char *spec, const char *norm)
{
	netsnmp_transport *t;
	netsnmp_session sess, *sp;

	if (snmp_nsessions == GW_MAX_LISTENERS) {
		log_warnx("snmp: too many listeners");
		return -1;
	}
	if ((t = netsnmp_transport_open_server("snmp", spec)) == NULL) {
		log_warnx("snmp: cannot listen on %s", spec);
		return -1;
	}
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
	sp = snmp_add_full(&sess, t, gw_pre_parse, NULL, gw_post_parse, NULL,
	    gw_rbuild, NULL, NULL);
	if (sp == NULL) {
		log_warnx("snmp: cannot create session for %s", spec);
		netsnmp_transport_free(t);
		return -1;
	}
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
	if (main_session == sp)
		main_session = snmp_nsessions > 0 ? snmp_sessions[0] : NULL;
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
	return ev_hook_add(&hook);
}

void
gw_snmp_finalise(void)
{
	for (int i = 0; i < snmp_nsessions; i++) {
		snmp_close(snmp_sessions[i]);
		free(snmp_specs[i]);
	}
	snmp_nsessions = 0;
	htab_free(&snmp_communities);
	htab_free(&snmp_users);
	snmp_shutdown("ibsnmpgw");
	shutdown_agent();
}

void
gw_snmp_get_stats(struct gw_snmp_stats *st)
{
	*st = snmp_st;
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
