/* gw_snmp addressing: who a request is for, decided once per PDU.
 *
 * Why not one registration per node context: net-snmp keeps contexts
 * and com2sec entries in linked lists searched per request, which costs
 * O(nodes) per varbind (measured: 51k GET/s at 10 contexts, ~2k at
 * 10,000). Instead our listeners carry a post-parse hook that resolves
 * the community ("public@leaf01") or the v3 context through the
 * inventory's hash indexes and rewrites the request to one internal
 * context, GW_NODE_CONTEXT. The client's v3 context name is parked in
 * pdu->community, which SNMPv3 does not use and snmp_clone_pdu() copies,
 * so the build hook can put the name back into the response (RFC 3412
 * 7.1: the response carries the request's contextName).
 *
 * What the hook found (the node, the community or user) goes with the
 * request (struct gw_req, in the request's agent data): the handlers of
 * its varbinds read it there, not from the PDU again. Only a reload
 * while the request waits makes it be worked out anew. */
#include "config.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "gateway/name.h"
#include "gateway/snmp.h"
#include "gateway/snmp_int.h"
#include "gateway/subnet.h"
#include "util/htab.h"
#include "util/log.h"

/* The agent data a request's addressing is kept under. */
#define GW_REQ_DATA	"ibsnmpgw-req"

struct gw_req {
	uint32_t			 gen;	/* addr_gen it holds for */
	const struct store_node		*node;	/* NULL: none named */
	const struct gw_community	*cm;	/* v1/v2c */
	const struct gw_user		*u;	/* v3 */
	int				 fabric; /* the fabric context */
	int				 named;	/* a node was named */
	/* The PDU it was made for (the hand-over, below). */
	long				 reqid;
	long				 version;
	size_t				 comm_len;
	u_char				 comm[256];
	size_t				 user_len;
	char				 user[64];	/* v3 */
};

static struct htab	 snmp_communities;	/* name -> gw_community */
static struct htab	 snmp_users;		/* name -> gw_user */
static char		 snmp_fabric[33];	/* snmp.fabric-context */
static struct gw_snmp_stats snmp_st;
/* The access tables' generation: one up at every reload, when the
 * communities and users a waiting request points at are freed. */
static uint32_t		 addr_gen = 1;
/* The post-parse hook's result for the PDU it just let through: net-snmp
 * runs that PDU's handlers next, in the same call, on a copy of the PDU
 * (asp->pdu), which finds it here by its request ID and community. */
static struct gw_req	 addr_parsed;
/* A further subnet's process: its link to the first (subnet.c). */
static const netsnmp_session *addr_link;

/* snmpUnknownContexts.0, SNMP-TARGET-MIB (RFC 3413). */
static const oid unknown_contexts_oid[] = { 1, 3, 6, 1, 6, 3, 12, 1, 5, 0 };

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

void
gw_snmp_addr_set_link(const netsnmp_session *link)
{
	addr_link = link;
}

/* Pre-parse hook. net-snmp's own also consults tcp-wrappers on every
 * packet (Debian builds it with libwrap); we only count. */
int
gw_snmp_pre_parse(netsnmp_session *sess, netsnmp_transport *t, void *addr,
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

/* What a node name says of its subnet, with several (docs/subnets.md):
 * "fabric-NAME" is subnet NAME's fabric context, "NAME/node" its node,
 * and a bare "lid-N" names a node of one subnet only when there is
 * one. */
enum sn_kind { SN_PLAIN, SN_FABRIC, SN_NODE, SN_LID };
struct sn_name {
	enum sn_kind	 kind;
	int		 subnet;	/* SN_FABRIC, SN_NODE: gw_subnet_find */
	const char	*rest;		/* SN_NODE: the node's name there */
	size_t		 rlen;
};

/* The node subnet_of() resolved a name of this PDU to (it is ours):
 * req_resolve() takes it rather than resolve the name again. The same
 * pointer into the same PDU; forgotten at each PDU's start. */
static struct {
	const char		*name;
	size_t			 len;
	const struct store_node	*node;
} sn_hint;

static void
sn_parse(const char *name, size_t len, struct sn_name *sn)
{
	size_t cl = strlen(snmp_fabric);
	const char *slash;

	memset(sn, 0, sizeof(*sn));
	if (len > cl + 1 && memcmp(name, snmp_fabric, cl) == 0 &&
	    name[cl] == '-' && (sn->subnet = gw_subnet_find(name + cl + 1,
	    len - cl - 1)) >= 0)
		sn->kind = SN_FABRIC;
	else if ((slash = memchr(name, '/', len)) != NULL &&
	    (sn->subnet = gw_subnet_find(name, (size_t)(slash - name))) >= 0) {
		sn->kind = SN_NODE;
		sn->rest = slash + 1;
		sn->rlen = len - (size_t)(slash - name) - 1;
	} else if (len > 4 && memcmp(name, "lid-", 4) == 0)
		sn->kind = SN_LID;
}

/* This process's own names, with several subnets: its subnet's
 * "fabric-NAME" and "NAME/node". Returns 1 for the fabric context;
 * *len 0 for a name that can name none of our nodes. */
static int
local_alias(const char **name, size_t *len)
{
	struct sn_name sn;

	if (gw_subnet_count() <= 1)
		return is_fabric(*name, *len);
	sn_parse(*name, *len, &sn);
	switch (sn.kind) {
	case SN_FABRIC:
		if (sn.subnet == 0)
			return 1;
		break;
	case SN_NODE:
		if (sn.subnet != 0)
			break;
		*name = sn.rest;
		*len = sn.rlen;
		return is_fabric(*name, *len);
	case SN_LID:
		break;		/* ambiguous: resolves to nothing */
	case SN_PLAIN:
		return is_fabric(*name, *len);
	}
	*len = 0;
	return 0;
}

/* Who pdu's sender is and which node it names: the community's parts
 * (v1/v2c), or the user and the v3 context name in name. */
static void
req_resolve(struct gw_req *q, long version, const void *name, size_t len,
    const char *user, size_t ulen)
{
	struct gw_name nm;

	memset(q, 0, offsetof(struct gw_req, comm_len));
	q->gen = addr_gen;
	if (version != SNMP_VERSION_3) {
		if (name == NULL || gw_name_split(name, len, &nm) == -1)
			return;
		q->cm = htab_get(&snmp_communities, nm.comm, nm.comm_len);
		if (nm.node == NULL)
			return;
	} else {
		q->u = user != NULL ? htab_get(&snmp_users, user, ulen) : NULL;
		if (len == 0)
			return;		/* the gateway itself */
		nm.node = name;
		nm.node_len = len;
	}
	q->named = 1;
	if (local_alias(&nm.node, &nm.node_len))
		q->fabric = 1;
	else if (nm.node == sn_hint.name && nm.node_len == sn_hint.len)
		q->node = sn_hint.node;		/* subnet_of's, this PDU's */
	else if (nm.node_len > 0)
		q->node = store_node_resolve(nm.node, nm.node_len);
	sn_hint.name = NULL;
}

/* ---- Several subnets (gateway/subnet.c) */

/* The further subnet a node name is for, and its name there; -1 if it
 * is this process's (or nobody's). */
static int
subnet_of(const char *name, size_t len, const char **rest, size_t *rlen)
{
	const struct store_node *local;
	struct sn_name sn;
	uint64_t guid;
	int i;

	sn_parse(name, len, &sn);
	if (sn.kind == SN_FABRIC && sn.subnet > 0) {
		*rest = snmp_fabric;
		*rlen = strlen(snmp_fabric);
		return sn.subnet;
	}
	if (sn.kind == SN_NODE && sn.subnet > 0) {
		*rest = sn.rest;
		*rlen = sn.rlen;
		return sn.rlen > 0 ? sn.subnet : -1;
	}
	if (sn.kind != SN_PLAIN)
		return -1;	/* ours, or a bare LID: local_alias decides */
	if (is_fabric(name, len))
		return -1;	/* ours, and asked often: no lookup */
	local = store_node_resolve(name, len);
	sn_hint.name = name;		/* req_resolve needs it too */
	sn_hint.len = len;
	sn_hint.node = local;
	/* GUIDs are global: one no node of ours has may be another's; one
	 * we have is ours, and no host name. */
	if (store_parse_guid(name, len, &guid) == 0) {
		if (local != NULL || (i = gw_subnet_by_guid(guid)) <= 0)
			return -1;
		*rest = name;
		*rlen = len;
		return i;
	}
	/* A host name: one subnet's, or nobody's if several have it
	 * (two HCAs of one host, one in each subnet). */
	if ((i = gw_subnet_by_name(name, len)) == -1)
		return -1;
	if (i > 0 && local == NULL) {
		*rest = name;
		*rlen = len;
		return i;
	}
	/* One node seen from two subnets (an HCA with a port in each) is
	 * one node: ours, as its GUID is. */
	if (i > 0 && gw_subnet_by_guid(local->guid) == i)
		return -1;
	return -2;
}

/* pdu handed to the further subnet it names: 0 (handed on, or refused
 * as an unknown name is), 1 if it is this process's to answer. */
static int
subnet_route(netsnmp_session *sess, netsnmp_pdu *pdu)
{
	const char *name, *acc, *rest;
	size_t len, alen, rlen;
	struct gw_name nm;
	char kind;
	int i;

	if (pdu->version == SNMP_VERSION_3) {
		if (pdu->contextNameLen == 0 || gw_name_check_context(
		    pdu->contextName, pdu->contextNameLen) == -1)
			return 1;
		name = pdu->contextName;
		len = pdu->contextNameLen;
		acc = pdu->securityName;
		alen = pdu->securityNameLen;
		kind = 'u';
	} else {
		if (pdu->community == NULL || gw_name_split(pdu->community,
		    pdu->community_len, &nm) == -1 || nm.node == NULL)
			return 1;
		name = nm.node;
		len = nm.node_len;
		acc = nm.comm;
		alen = nm.comm_len;
		kind = 'c';
	}
	if ((i = subnet_of(name, len, &rest, &rlen)) == -1)
		return 1;
	if (i == -2) {		/* ambiguous: as an unknown name */
		if (kind == 'u')
			report_unknown_context(sess, pdu);
		else {
			snmp_increment_statistic(STAT_SNMPINBADCOMMUNITYNAMES);
			snmp_st.bad_names++;
		}
		return 0;
	}
	if (kind == 'u' && (acc == NULL || htab_get(&snmp_users, acc, alen) ==
	    NULL)) {
		report_unknown_context(sess, pdu);
		return 0;
	}
	if (kind == 'c') {
		const struct gw_community *cm = htab_get(&snmp_communities,
		    acc, alen);

		if (cm == NULL || !gw_cidr_match(cm->sources, cm->nsources,
		    request_source(pdu))) {
			snmp_increment_statistic(STAT_SNMPINBADCOMMUNITYNAMES);
			snmp_st.bad_names++;
			return 0;
		}
	}
	snmp_st.node_requests++;
	(void)gw_subnet_forward(i, sess, pdu, kind, acc, alen, rest, rlen);
	return 0;
}

/* On a further subnet's link: "KIND ACCESS SEP NODE" from the first
 * process, which has checked the access already (subnet.c). */
static int
link_resolve(struct gw_req *q, const netsnmp_pdu *pdu)
{
	const char *c = (const char *)pdu->community, *sep;
	size_t len = pdu->community_len;

	memset(q, 0, offsetof(struct gw_req, comm_len));
	q->gen = addr_gen;
	if (c == NULL || len < 3 || (sep = memchr(c, GW_SUBNET_SEP, len)) ==
	    NULL || sep == c + 1 || sep == c + len - 1)
		return -1;
	if (c[0] == 'c')
		q->cm = htab_get(&snmp_communities, c + 1, (size_t)(sep - c - 1));
	else if (c[0] == 'u')
		q->u = htab_get(&snmp_users, c + 1, (size_t)(sep - c - 1));
	if (q->cm == NULL && q->u == NULL)
		return -1;
	q->named = 1;
	len -= (size_t)(sep + 1 - c);
	if (is_fabric(sep + 1, len))
		q->fabric = 1;
	else if ((q->node = store_node_resolve(sep + 1, len)) == NULL ||
	    !store_select_match(q->u ? &q->u->nodes : &q->cm->nodes, q->node))
		return -1;
	return 0;
}

/* Keep q for pdu's handlers (req_of). */
static void
req_hand_over(const struct gw_req *q, const netsnmp_pdu *pdu)
{
	addr_parsed = *q;
	addr_parsed.reqid = pdu->reqid;
	addr_parsed.version = pdu->version;
	addr_parsed.comm_len = 0;
	if (pdu->community != NULL && pdu->community_len <=
	    sizeof(addr_parsed.comm)) {
		memcpy(addr_parsed.comm, pdu->community, pdu->community_len);
		addr_parsed.comm_len = pdu->community_len;
	} else if (pdu->community != NULL)
		addr_parsed.gen = 0;	/* cannot be matched: none */
	addr_parsed.user_len = 0;
	if (pdu->securityName != NULL && pdu->securityNameLen <=
	    sizeof(addr_parsed.user)) {
		memcpy(addr_parsed.user, pdu->securityName,
		    pdu->securityNameLen);
		addr_parsed.user_len = pdu->securityNameLen;
	} else if (pdu->securityName != NULL)
		addr_parsed.gen = 0;
}

/* Whether the post-parse hook's result is pdu's: its request ID and
 * what it was resolved from (the result is a function of those). */
static int
parsed_is(const netsnmp_pdu *pdu)
{
	const struct gw_req *p = &addr_parsed;

	return p->gen == addr_gen && p->reqid == pdu->reqid &&
	    p->version == pdu->version &&
	    p->comm_len == (pdu->community ? pdu->community_len : 0) &&
	    (p->comm_len == 0 ||
	    memcmp(p->comm, pdu->community, p->comm_len) == 0) &&
	    p->user_len == (pdu->securityName ? pdu->securityNameLen : 0) &&
	    (p->user_len == 0 ||
	    memcmp(p->user, pdu->securityName, p->user_len) == 0);
}

/* Post-parse hook: decide who the request is for, or drop it. Returns
 * 0 to drop, non-zero to let the agent process it. */
int
gw_snmp_post_parse(netsnmp_session *sess, netsnmp_pdu *pdu, int result)
{
	struct gw_req q;

	/* Whatever happens to this PDU, the last one's result is not its. */
	addr_parsed.gen = 0;
	sn_hint.name = NULL;
	/* Counts and drops what did not parse (USM reports are already
	 * sent by then). Raw community and contextName are not
	 * NUL-terminated here: lengths only. */
	if (!netsnmp_agent_check_parse(sess, pdu, result))
		return 0;
	if (!is_request(pdu))
		return 1;
	snmp_st.requests++;
	if (gw_subnet_count() > 1 && subnet_route(sess, pdu) == 0) {
		sn_hint.name = NULL;
		return 0;
	}
	switch (pdu->version) {
	case SNMP_VERSION_1:
	case SNMP_VERSION_2c:
		if (sess == addr_link && sess != NULL) {
			if (link_resolve(&q, pdu) == -1)
				goto bad_community;
			if (set_context(pdu, q.fabric ? GW_FABRIC_CONTEXT :
			    GW_NODE_CONTEXT) == -1)
				return 0;
			break;
		}
		req_resolve(&q, pdu->version, pdu->community,
		    pdu->community_len, NULL, 0);
		/* Source restrictions, then the community's nodes: a node
		 * it may not see looks exactly like an unknown one. */
		if (q.cm == NULL || !gw_cidr_match(q.cm->sources,
		    q.cm->nsources, request_source(pdu)) ||
		    (q.named && !q.fabric && (q.node == NULL ||
		    !store_select_match(&q.cm->nodes, q.node))))
			goto bad_community;
		if (set_context(pdu, !q.named ? "" : q.fabric ?
		    GW_FABRIC_CONTEXT : GW_NODE_CONTEXT) == -1)
			return 0;
		break;
	case SNMP_VERSION_3:
		if (pdu->contextNameLen == 0) {
			req_resolve(&q, pdu->version, NULL, 0,
			    pdu->securityName, pdu->securityNameLen);
			break;
		}
		if (gw_name_check_context(pdu->contextName,
		    pdu->contextNameLen) == -1) {
			report_unknown_context(sess, pdu);
			return 0;
		}
		req_resolve(&q, pdu->version, pdu->contextName,
		    pdu->contextNameLen, pdu->securityName,
		    pdu->securityNameLen);
		/* A user USM still knows but a reload removed from the
		 * file may see nothing. */
		if (q.u == NULL || (!q.fabric && (q.node == NULL ||
		    !store_select_match(&q.u->nodes, q.node)))) {
			report_unknown_context(sess, pdu);
			return 0;
		}
		/* Park the client's context name; see the file comment. */
		free(pdu->community);
		pdu->community = (u_char *)pdu->contextName;
		pdu->community_len = pdu->contextNameLen;
		pdu->contextName = NULL;
		pdu->contextNameLen = 0;
		if (set_context(pdu, q.fabric ? GW_FABRIC_CONTEXT :
		    GW_NODE_CONTEXT) == -1)
			return 0;
		break;
	default:
		return 0;
	}
	if (q.fabric)
		snmp_st.fabric_requests++;
	else if (q.named)
		snmp_st.node_requests++;
	req_hand_over(&q, pdu);
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
 * the response is encoded, then encode as net-snmp would (a v1/v2c
 * response in one pass, snmp_enc.c). The caller
 * wants the packet at the start of the buffer, and may call us twice
 * (GETBULK too big: forward encoding at msgMaxSize), so this is
 * idempotent. */
int
gw_snmp_rbuild(netsnmp_session *sess, netsnmp_pdu *pdu, u_char **pkt,
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
	} else if (gw_snmp_encode(pdu, pkt, pkt_len, offset) == 0) {
		/* as snmp_build() leaves them on success */
		sess->s_snmp_errno = 0;
		sess->s_errno = 0;
		rc = 0;
	} else {
		rc = snmp_build(pkt, pkt_len, &o, sess, pdu);
		if (rc == 0)
			memmove(*pkt, *pkt + *pkt_len - o, o);
		*offset = o;
	}
	return rc;
}

/* The last request's addressing: each varbind of a PDU asks for it
 * (its node, the fabric rows' selection), and net-snmp's data list is
 * a search by name. Forgotten when freed with its request. */
static netsnmp_agent_request_info	*req_last_ri;
static struct gw_req			*req_last;

static void
req_free(void *k)
{
	if (k == req_last) {
		req_last = NULL;
		req_last_ri = NULL;
	}
	free(k);
}

static struct gw_req *
req_keep(netsnmp_agent_request_info *ri, struct gw_req *q)
{
	req_last_ri = ri;
	return req_last = q;
}

/* The request ri's own addressing, kept as its agent data (freed with
 * it), or NULL without memory. Only the part before comm: the PDU's
 * strings are the PDU's. */
static struct gw_req *
req_new(netsnmp_agent_request_info *ri)
{
	netsnmp_data_list *dl;
	struct gw_req *k;

	if ((k = malloc(offsetof(struct gw_req, comm_len))) == NULL)
		return NULL;
	if ((dl = netsnmp_create_data_list(GW_REQ_DATA, k, req_free)) ==
	    NULL) {
		free(k);
		return NULL;
	}
	netsnmp_agent_add_list_data(ri, dl);
	return k;
}

/* The addressing of the request ri belongs to, made once per PDU and
 * carried with the request from its first handler on: the hook's result
 * while its handlers run in the hook's wake; the PDU's own, resolved
 * again, after a reload while it waited or for a PDU that came another
 * way (a SET net-snmp queued). */
static const struct gw_req *
req_of(netsnmp_agent_request_info *ri)
{
	const netsnmp_pdu *pdu;
	struct gw_req *q;

	if (ri == NULL || ri->asp == NULL || (pdu = ri->asp->pdu) == NULL)
		return NULL;
	if (ri == req_last_ri && req_last->gen == addr_gen)
		return req_last;
	q = netsnmp_agent_get_list_data(ri, GW_REQ_DATA);
	if (q != NULL && q->gen == addr_gen)
		return req_keep(ri, q);
	if (q == NULL && (q = req_new(ri)) == NULL)
		return parsed_is(pdu) ? &addr_parsed : NULL;
	if (parsed_is(pdu))
		memcpy(q, &addr_parsed, offsetof(struct gw_req, comm_len));
	else
		req_resolve(q, pdu->version, pdu->community, pdu->community ?
		    pdu->community_len : 0, pdu->securityName,
		    pdu->securityNameLen);
	return req_keep(ri, q);
}

const struct store_node *
gw_snmp_request_node(netsnmp_agent_request_info *reqinfo)
{
	const struct gw_req *q = req_of(reqinfo);

	return q != NULL ? q->node : NULL;
}

int
gw_snmp_request_select(netsnmp_agent_request_info *reqinfo,
    const struct store_select **sel)
{
	const struct gw_req *q = req_of(reqinfo);

	*sel = NULL;
	if (q == NULL || (q->u == NULL && q->cm == NULL))
		return -1;
	*sel = q->u != NULL ? &q->u->nodes : &q->cm->nodes;
	return 0;
}

int
gw_snmp_request_owner(netsnmp_agent_request_info *reqinfo, char *owner,
    size_t len, int *grant)
{
	const struct gw_req *q = req_of(reqinfo);

	*grant = 0;
	if (q == NULL || (q->u == NULL && q->cm == NULL))
		return -1;
	if (q->u != NULL) {
		snprintf(owner, len, "user %s", q->u->name);
		*grant = q->u->fabric_queries;
	} else {
		snprintf(owner, len, "community %s", q->cm->name);
		*grant = q->cm->fabric_queries;
	}
	return 0;
}

void
gw_snmp_set_access(const struct gw_conf *c)
{
	/* The tables point into c, which the caller keeps until the next
	 * call (a reload). */
	htab_free(&snmp_communities);
	htab_free(&snmp_users);
	if (++addr_gen == 0)
		addr_gen = 1;
	snprintf(snmp_fabric, sizeof(snmp_fabric), "%s", c->fabric_context ?
	    c->fabric_context : "fabric");
	for (int i = 0; i < c->ncommunities; i++)
		htab_put(&snmp_communities, c->communities[i].name,
		    strlen(c->communities[i].name), &c->communities[i]);
	for (int i = 0; i < c->nusers; i++)
		htab_put(&snmp_users, c->users[i].name, strlen(c->users[i].name),
		    &c->users[i]);
}

void
gw_snmp_addr_finalise(void)
{
	htab_free(&snmp_communities);
	htab_free(&snmp_users);
	addr_parsed.gen = 0;
}

void
gw_snmp_get_stats(struct gw_snmp_stats *st)
{
	*st = snmp_st;
}
