/* gw_mib_tunnel: a node context's second source, the node's own SNMP
 * agent reached through IB SNMP Tunneling (docs/tunneling.md).
 *
 * One registration at .1 in the node context, below every table the
 * gateway serves: net-snmp's registry hands it only the OID ranges
 * between them, so a GETNEXT it cannot answer inside its range moves
 * on to the next table, and a walk of .1 merges both sources in order
 * (RFC 3416 4.2.2). With `tunnel: prefer`, gw_mib_handler asks first
 * whether the agent has anything under a table's subtree; if it does,
 * the agent answers that subtree whole.
 *
 * The gateway terminates v1, v2c and v3 and its access rules; the node
 * sees a v2c message with the policy's tunnel community. Answers are
 * kept by OID for the policy's tunnel-ttl: a GET's by its OID, a
 * GETNEXT's by the OID it started from, and a GETNEXT asks the agent
 * for tunnel.read-ahead successors at once (a GETBULK), so a walk costs
 * one round trip per read-ahead, not one per object. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/mib.h"
#include "proxy/poller.h"
#include "proxy/tunnel.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

#define TC_MAX		50000	/* cached answers, all nodes */
#define TC_GET		1
#define TC_NEXT		2
#define MAX_ROUNDS	4	/* messages one varbind may need */

/* One allocation each, sized to its OID and value: a walk of a host
 * caches thousands of them. */
struct tc_ent {
	uint64_t	 expires;	/* ms */
	uint32_t	 gen;		/* the job that fetched it */
	u_char		 type;		/* SNMP_ENDOFMIBVIEW: nothing next */
	size_t		 next_len;	/* TC_NEXT: the successor */
	size_t		 vlen;
	u_char		*val;		/* after next[] */
	oid		 next[];
};

struct tjob {
	netsnmp_mib_handler	*h;		/* ours, for delegation */
	netsnmp_handler_registration *reg;
	netsnmp_delegated_cache	*dc;		/* NULL until delegated */
	struct proxy_tun_req	*tr;
	struct ev_timer		 deadline;
	uint32_t		 node;
	uint32_t		 gen;
	long			 reqid;
	int			 mode;		/* MODE_GET, MODE_GETNEXT */
	int			 miss;		/* what was asked (R_MISS_*) */
	int			 rounds;
	/* prefer: the table's subtree and its own handler */
	netsnmp_mib_handler	*fb_h;
	netsnmp_handler_registration *fb_reg;
	oid			 base[MAX_OID_LEN];
	size_t			 base_len;
	int			 nreq;
	netsnmp_request_info	*req[];
};

enum { R_DONE, R_MISS_GET, R_MISS_NEXT, R_MISS_OWNER, R_FALLBACK };

static struct htab	tc;
static size_t		tc_n;
static uint32_t		tc_gen;
static long		tun_reqid;
static int		tun_read_ahead = 20;
static uint64_t		tun_deadlines, tun_errors;

/* The answer cache */

static size_t
tc_key(uint8_t *k, uint32_t node, int kind, const oid *name, size_t len)
{
	memcpy(k, &node, 4);
	k[4] = (uint8_t)kind;
	memcpy(k + 5, name, len * sizeof(oid));
	return 5 + len * sizeof(oid);
}

static void
tc_free_one(const void *key, size_t len, void *val, void *arg)
{
	(void)key;
	(void)len;
	(void)arg;
	free(val);
}

static void
tc_flush(void)
{
	htab_foreach(&tc, tc_free_one, NULL);
	htab_free(&tc);
	htab_init(&tc);
	tc_n = 0;
}

static const struct tc_ent *
tc_get(uint32_t node, int kind, const oid *name, size_t len, uint32_t gen)
{
	uint8_t k[5 + MAX_OID_LEN * sizeof(oid)];
	size_t kl;
	struct tc_ent *e;

	if (len > MAX_OID_LEN)
		return NULL;
	kl = tc_key(k, node, kind, name, len);
	if ((e = htab_get(&tc, k, kl)) == NULL)
		return NULL;
	if (e->expires > ev_now() || (gen != 0 && e->gen == gen))
		return e;
	htab_del(&tc, k, kl);
	free(e);
	tc_n--;
	return NULL;
}

static void
tc_put(uint32_t node, int kind, const oid *name, size_t len,
    const netsnmp_variable_list *v, int ttl, uint32_t gen)
{
	uint8_t k[5 + MAX_OID_LEN * sizeof(oid)];
	/* An exception has no value octets whatever its length says. */
	size_t kl, nl, vlen = v->type == SNMP_ENDOFMIBVIEW ||
	    v->type == SNMP_NOSUCHOBJECT || v->type == SNMP_NOSUCHINSTANCE ?
	    0 : v->val_len;
	struct tc_ent *e, *old;

	if (len > MAX_OID_LEN || v->name_length > MAX_OID_LEN)
		return;
	if (tc_n >= TC_MAX)
		tc_flush();	/* crude, bounded; a full cache is rare */
	nl = kind == TC_NEXT ? v->name_length : 0;
	if ((e = malloc(sizeof(*e) + nl * sizeof(oid) + vlen)) == NULL)
		return;
	e->expires = ev_now() + (uint64_t)ttl * 1000;
	e->gen = gen;
	e->type = v->type;
	e->next_len = nl;
	memcpy(e->next, v->name, nl * sizeof(oid));
	e->val = (u_char *)(e->next + nl);
	e->vlen = vlen;
	if (vlen)
		memcpy(e->val, v->val.string, vlen);
	kl = tc_key(k, node, kind, name, len);
	if ((old = htab_get(&tc, k, kl)) != NULL) {
		free(old);
		tc_n--;
	}
	if (htab_put(&tc, k, kl, e) == -1) {
		htab_del(&tc, k, kl);
		free(e);
		return;
	}
	tc_n++;
}

/* Which source: the node's policy */

static const struct proxy_policy *
policy_of(const struct store_node *n)
{
	const struct proxy_policy *p = n ? proxy_poll_policy(n->idx) : NULL;

	return p != NULL && p->tunnel != PROXY_TUNNEL_OFF &&
	    proxy_tun_state(n) != STORE_TUN_NONE ? p : NULL;
}

static int
under(const oid *name, size_t len, const oid *base, size_t blen)
{
	return len >= blen && snmp_oid_compare(name, blen, base, blen) == 0;
}

/* Answer r from the cache: R_DONE (answered, or left for the next
 * registration), or what must be asked first. */
static int
resolve(struct tjob *j, netsnmp_request_info *r)
{
	netsnmp_variable_list *vb = r->requestvb;
	const struct tc_ent *e;

	if (j->base_len) {
		e = tc_get(j->node, TC_NEXT, j->base, j->base_len, j->gen);
		if (e == NULL)
			return R_MISS_OWNER;
		if (e->type == SNMP_ENDOFMIBVIEW ||
		    !under(e->next, e->next_len, j->base, j->base_len))
			return R_FALLBACK;	/* nothing of the agent's */
	}
	if (j->mode == MODE_GET) {
		if ((e = tc_get(j->node, TC_GET, vb->name, vb->name_length,
		    j->gen)) == NULL)
			return R_MISS_GET;
		snmp_set_var_typed_value(vb, e->type, e->vlen ? e->val : NULL,
		    e->vlen);
		return R_DONE;
	}
	if ((e = tc_get(j->node, TC_NEXT, vb->name, vb->name_length,
	    j->gen)) == NULL)
		return R_MISS_NEXT;
	/* Past the agent's last object, or past this range: the next
	 * registration answers (net-snmp moves on from an empty one). */
	if (e->type == SNMP_ENDOFMIBVIEW || (r->range_end != NULL &&
	    snmp_oid_compare(e->next, e->next_len, r->range_end,
	    r->range_end_len) >= 0))
		return R_DONE;
	snmp_set_var_objid(vb, e->next, e->next_len);
	snmp_set_var_typed_value(vb, e->type, e->vlen ? e->val : NULL, e->vlen);
	return R_DONE;
}

/* The message to the agent */

static int
build(const struct tjob *j, int miss, const char *community, u_char **out,
    size_t *outlen, u_char **buf)
{
	netsnmp_session s;
	netsnmp_pdu *pdu;
	size_t blen = 4096, off = 0;
	int rc;

	pdu = snmp_pdu_create(miss == R_MISS_GET ? SNMP_MSG_GET :
	    SNMP_MSG_GETBULK);
	if (pdu == NULL)
		return -1;
	pdu->version = SNMP_VERSION_2c;
	pdu->reqid = j->reqid;
	if (miss != R_MISS_GET) {
		pdu->non_repeaters = 0;
		pdu->max_repetitions = tun_read_ahead;
	}
	if (miss == R_MISS_OWNER)
		snmp_add_null_var(pdu, j->base, j->base_len);
	else
		for (int i = 0; i < j->nreq; i++)
			snmp_add_null_var(pdu, j->req[i]->requestvb->name,
			    j->req[i]->requestvb->name_length);
	memset(&s, 0, sizeof(s));
	s.version = SNMP_VERSION_2c;
	s.community = (u_char *)community;
	s.community_len = strlen(community);
	pdu->community = (u_char *)strdup(community);
	pdu->community_len = s.community_len;
	if ((*buf = malloc(blen)) == NULL) {
		snmp_free_pdu(pdu);
		return -1;
	}
	rc = snmp_build(buf, &blen, &off, &s, pdu);
	snmp_free_pdu(pdu);
	if (rc != 0)
		return -1;
	/* Reverse encoding (net-snmp-config.h): the message ends the
	 * buffer. */
	*out = *buf + blen - off;
	*outlen = off;
	return 0;
}

/* A varbind value a response may carry (RFC 3416 3): the SMIv2 types
 * (and the numbers in an Opaque that net-snmp's parser unwraps, UCD's
 * floats), and the exceptions of its kind (noSuch* for a GET,
 * endOfMibView for a GETNEXT), with the octets its length says.
 * NULL and anything else is not an answer (an empty varbind would read
 * as not answered to net-snmp). */
static int
value_ok(const netsnmp_variable_list *v, int get)
{
	switch (v->type) {
	case ASN_INTEGER: case ASN_OCTET_STR: case ASN_OBJECT_ID:
	case ASN_IPADDRESS: case ASN_COUNTER: case ASN_GAUGE:
	case ASN_TIMETICKS: case ASN_OPAQUE: case ASN_COUNTER64:
#ifdef NETSNMP_WITH_OPAQUE_SPECIAL_TYPES
	case ASN_OPAQUE_COUNTER64: case ASN_OPAQUE_FLOAT:
	case ASN_OPAQUE_DOUBLE: case ASN_OPAQUE_I64: case ASN_OPAQUE_U64:
#endif
		return v->val_len == 0 || v->val.string != NULL;
	case SNMP_NOSUCHOBJECT: case SNMP_NOSUCHINSTANCE:
		return get;		/* GET's exceptions */
	case SNMP_ENDOFMIBVIEW:
		return !get;		/* GETNEXT's */
	}
	return 0;
}

/* The agent's reply (msg, len: untrusted) into node's cache: the
 * answer to request reqid, a GET (get) or a GETBULK of n varbinds
 * prev[0..n) (overwritten as the chains advance). 0, or -1 if it is no
 * such answer. tests/fuzz/fuzz_tunreply.c feeds it arbitrary octets. */
int
gw_mib_tunnel_absorb(uint32_t node, uint32_t gen, long reqid, int get,
    const oid **prev, size_t *prevlen, int n, const uint8_t *msg,
    size_t len, int ttl)
{
	u_char comm[256];
	size_t clen = sizeof(comm), left = len;
	long ver = -1;
	u_char *d;
	netsnmp_pdu *pdu;
	netsnmp_variable_list *v;
	int i, rc = -1;

	d = snmp_comstr_parse((u_char *)msg, &left, comm, &clen, &ver);
	if (d == NULL || ver != SNMP_VERSION_2c || n < 1 ||
	    (pdu = snmp_pdu_create(SNMP_MSG_RESPONSE)) == NULL)
		return -1;
	if (snmp_pdu_parse(pdu, d, &left) != 0 ||
	    pdu->command != SNMP_MSG_RESPONSE || pdu->reqid != reqid) {
		snmp_free_pdu(pdu);
		return -1;
	}
	if (pdu->errstat != SNMP_ERR_NOERROR) {
		log_debug("%s: the agent answered error %ld",
		    store_node_ident_idx(node), pdu->errstat);
		snmp_free_pdu(pdu);
		return -1;
	}
	for (v = pdu->variables; v != NULL; v = v->next_variable)
		if (!value_ok(v, get) || v->name_length > MAX_OID_LEN) {
			log_debug("%s: the agent answered a value of type 0x%02x",
			    store_node_ident_idx(node), v->type);
			goto out;
		}
	for (i = 0, v = pdu->variables; v != NULL; v = v->next_variable, i++) {
		int k = i % n;

		if (get) {
			if (i >= n || snmp_oid_compare(v->name, v->name_length,
			    prev[k], prevlen[k]) != 0)
				goto out;	/* not what was asked */
			tc_put(node, TC_GET, prev[k], prevlen[k], v, ttl, gen);
			continue;
		}
		if (prev[k] == NULL)
			continue;	/* that column ended */
		/* RFC 3416 4.2.2: strictly increasing, or the agent is
		 * broken and its walk ends here. */
		if (v->type != SNMP_ENDOFMIBVIEW && snmp_oid_compare(v->name,
		    v->name_length, prev[k], prevlen[k]) <= 0) {
			log_warnx("%s: the agent's GETNEXT does not increase; "
			    "its walk ends there", store_node_ident_idx(node));
			v->type = SNMP_ENDOFMIBVIEW;
		}
		tc_put(node, TC_NEXT, prev[k], prevlen[k], v, ttl, gen);
		if (v->type == SNMP_ENDOFMIBVIEW)
			prev[k] = NULL;
		else {
			prev[k] = v->name;
			prevlen[k] = v->name_length;
		}
	}
	rc = i > 0 ? 0 : -1;
out:
	snmp_free_pdu(pdu);
	return rc;
}

static int
absorb(struct tjob *j, int miss, const uint8_t *msg, size_t len,
    const struct proxy_policy *pol)
{
	int n = miss == R_MISS_OWNER ? 1 : j->nreq, rc = -1;
	const oid **prev = calloc(n, sizeof(*prev));
	size_t *prevlen = calloc(n, sizeof(*prevlen));

	if (prev != NULL && prevlen != NULL) {
		for (int i = 0; i < n; i++) {
			netsnmp_variable_list *q = miss == R_MISS_OWNER ?
			    NULL : j->req[i]->requestvb;

			prev[i] = q ? q->name : j->base;
			prevlen[i] = q ? q->name_length : j->base_len;
		}
		rc = gw_mib_tunnel_absorb(j->node, j->gen, j->reqid,
		    miss == R_MISS_GET, prev, prevlen, n, msg, len,
		    pol->tunnel_ttl);
	}
	free(prev);
	free(prevlen);
	return rc;
}

/* Jobs: the varbinds of one handler call for one node */

/* A GETNEXT that reaches this range from a registration before it still
 * carries that one's OID (net-snmp passes it on as it was): the agent's
 * next object after it may lie below this range, inside the gateway's
 * own table. Ask from the range's start instead. (An agent object at
 * exactly the start is then skipped: docs/tunneling.md.) */
static void
from_range_start(netsnmp_request_info *r, int mode)
{
	netsnmp_variable_list *vb = r->requestvb;
	const struct netsnmp_subtree_s *st = r->subtree;

	if (mode != MODE_GETNEXT || st == NULL || st->start_a == NULL)
		return;
	if (snmp_oid_compare(vb->name, vb->name_length, st->start_a,
	    st->start_len) < 0)
		snmp_set_var_objid(vb, st->start_a, st->start_len);
}

static void job_run(struct tjob *j, netsnmp_agent_request_info *ri);

static void
job_free(struct tjob *j)
{
	ev_timer_del(&j->deadline);
	proxy_tun_cancel(j->tr);
	if (j->dc != NULL)
		netsnmp_free_delegated_cache(j->dc);
	free(j);
}

/* r is answered (or left for the next registration, or err set). */
static void
end_req(netsnmp_agent_request_info *ri, netsnmp_request_info *r, int err)
{
	if (err)
		netsnmp_set_request_error(ri, r, err);
	if (!r->delegated)
		return;
	r->delegated = 0;
	if (!err && r->requestvb->type != ASN_NULL)
		gw_mib_bulk_fix(ri, r);
}

/* r is not the agent's: the table's own handler (prefer), or nothing
 * here (noSuchObject for a GET; a GETNEXT moves on). */
static void
not_agents(struct tjob *j, netsnmp_agent_request_info *ri,
    netsnmp_request_info *r)
{
	int was = r->delegated, mode = ri->mode;

	r->delegated = 0;
	if (j->base_len) {
		/* Once delegated, reqinfo's mode is the PDU's again
		 * (GETBULK); the table evaluates this varbind as the
		 * GET or GETNEXT it came as. */
		ri->mode = j->mode;
		gw_mib_serve(j->fb_h, j->fb_reg, ri, r);
		ri->mode = mode;
		if (was && !r->delegated && r->requestvb->type != ASN_NULL)
			gw_mib_bulk_fix(ri, r);	/* answered at once */
	} else if (j->mode == MODE_GET)
		netsnmp_set_request_error(ri, r, SNMP_NOSUCHOBJECT);
}

static void
job_fail(struct tjob *j, netsnmp_agent_request_info *ri, int err)
{
	for (int i = 0; i < j->nreq; i++)
		end_req(ri, j->req[i], err);
	job_free(j);
}

static void
no_agent(struct tjob *j, netsnmp_agent_request_info *ri)
{
	for (int i = 0; i < j->nreq; i++)
		not_agents(j, ri, j->req[i]);
	job_free(j);
}

static void
tun_cb(void *arg, int status, const uint8_t *pdu, size_t len)
{
	struct tjob *j = arg;
	netsnmp_delegated_cache *dc = netsnmp_handler_check_cache(j->dc);
	const struct proxy_policy *pol = policy_of(store_node_at(j->node));

	j->tr = NULL;
	if (dc == NULL) {
		job_free(j);	/* the request is gone */
		return;
	}
	if (status == -ENOENT || pol == NULL) {
		no_agent(j, dc->reqinfo);	/* the probe found none */
		return;
	}
	if (status != 0 || absorb(j, j->miss, pdu, len, pol) == -1) {
		tun_errors++;
		log_debug("%s: tunneled request failed: %s",
		    store_node_ident_idx(j->node),
		    status ? strerror(-status) : "unusable answer");
		job_fail(j, dc->reqinfo, SNMP_ERR_GENERR);
		return;
	}
	job_run(j, dc->reqinfo);
}

static void
job_deadline(void *arg)
{
	struct tjob *j = arg;
	netsnmp_delegated_cache *dc = netsnmp_handler_check_cache(j->dc);

	tun_deadlines++;
	if (dc == NULL) {
		job_free(j);
		return;
	}
	log_debug("%s: no answer through the tunnel in time",
	    store_node_ident_idx(j->node));
	job_fail(j, dc->reqinfo, SNMP_ERR_GENERR);
}

/* Resolve what the cache holds; ask the agent for the rest. */
static void
job_run(struct tjob *j, netsnmp_agent_request_info *ri)
{
	const struct store_node *n = store_node_at(j->node);
	const struct proxy_policy *pol = policy_of(n);
	int miss = R_DONE, k = 0, rc;
	u_char *msg, *buf = NULL;
	size_t len;

	for (int i = 0; i < j->nreq; i++) {
		rc = pol == NULL ? R_FALLBACK : resolve(j, j->req[i]);
		if (rc == R_DONE)
			end_req(ri, j->req[i], 0);
		else if (rc == R_FALLBACK)
			not_agents(j, ri, j->req[i]);
		else {
			miss = rc;
			j->req[k++] = j->req[i];
		}
	}
	if ((j->nreq = k) == 0) {
		job_free(j);
		return;
	}
	if (++j->rounds > MAX_ROUNDS) {
		job_fail(j, ri, SNMP_ERR_GENERR);
		return;
	}
	j->miss = miss;
	j->reqid = ++tun_reqid & 0x7fffffff;
	if (build(j, miss, pol->tunnel_community, &msg, &len, &buf) == -1) {
		j->tr = NULL;
		errno = EIO;
	} else
		j->tr = proxy_tun_request(n, msg, len, tun_cb, j);
	free(buf);
	if (j->tr == NULL) {
		if (errno == ENOENT) {
			no_agent(j, ri);
			return;
		}
		tun_errors++;
		log_debug("%s: cannot tunnel: %s", store_node_ident(n),
		    strerror(errno));
		job_fail(j, ri, SNMP_ERR_GENERR);
		return;
	}
	if (j->dc == NULL) {
		j->dc = netsnmp_create_delegated_cache(j->h, j->reg, ri,
		    j->req[0], NULL);
		if (j->dc == NULL) {
			job_fail(j, ri, SNMP_ERR_GENERR);	/* no memory */
			return;
		}
		ev_timer_init(&j->deadline, job_deadline, j);
		ev_timer_add(&j->deadline, gw_mib_get_deadline());
	}
	for (int i = 0; i < j->nreq; i++)
		j->req[i]->delegated = 1;
}

static struct tjob *
job_new(int nreq, const struct store_node *n, int mode,
    netsnmp_mib_handler *h, netsnmp_handler_registration *reg)
{
	struct tjob *j = calloc(1, sizeof(*j) + nreq * sizeof(j->req[0]));

	if (j == NULL)
		return NULL;
	j->node = n->idx;
	j->mode = mode;
	j->h = h;
	j->reg = reg;
	if (++tc_gen == 0)
		tc_gen = 1;
	j->gen = tc_gen;
	ev_timer_init(&j->deadline, job_deadline, j);
	return j;
}

/* The registration at .1.3 (net-snmp's registry takes no
 * one-subidentifier root): whatever the gateway's tables do not cover. */
static int
tun_handler(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *ri, netsnmp_request_info *requests)
{
	const struct store_node *n = gw_snmp_request_node(ri);
	struct tjob *j;
	int nreq = 0;

	for (netsnmp_request_info *r = requests; r; r = r->next)
		if (!r->processed && !r->delegated)
			nreq++;
	if (nreq == 0)
		return SNMP_ERR_NOERROR;
	if (ri->mode != MODE_GET && ri->mode != MODE_GETNEXT) {
		for (netsnmp_request_info *r = requests; r; r = r->next)
			if (!r->processed && !r->delegated)
				netsnmp_set_request_error(ri, r,
				    SNMP_ERR_NOTWRITABLE);
		return SNMP_ERR_NOERROR;
	}
	if (n == NULL || policy_of(n) == NULL) {
		/* Not tunneled: nothing here but the gateway's tables. */
		if (ri->mode == MODE_GET)
			for (netsnmp_request_info *r = requests; r; r = r->next)
				if (!r->processed && !r->delegated)
					netsnmp_set_request_error(ri, r,
					    SNMP_NOSUCHOBJECT);
		return SNMP_ERR_NOERROR;
	}
	if ((j = job_new(nreq, n, ri->mode, h, reg)) == NULL) {
		netsnmp_set_request_error(ri, requests, SNMP_ERR_GENERR);
		return SNMP_ERR_NOERROR;
	}
	for (netsnmp_request_info *r = requests; r; r = r->next)
		if (!r->processed && !r->delegated) {
			from_range_start(r, ri->mode);
			j->req[j->nreq++] = r;
		}
	job_run(j, ri);
	return SNMP_ERR_NOERROR;
}

static netsnmp_mib_handler	*tun_h;
static netsnmp_handler_registration *tun_reg;

int
gw_mib_tunnel_prefer(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *ri, netsnmp_request_info *r,
    const struct store_node *n)
{
	const struct proxy_policy *pol = policy_of(n);
	struct tjob *j;

	if (pol == NULL || pol->tunnel != PROXY_TUNNEL_PREFER ||
	    tun_reg == NULL ||
	    (ri->mode != MODE_GET && ri->mode != MODE_GETNEXT) ||
	    reg->rootoid_len > MAX_OID_LEN)
		return 0;
	if ((j = job_new(1, n, ri->mode, tun_h, tun_reg)) == NULL)
		return 0;
	j->fb_h = h;
	j->fb_reg = reg;
	memcpy(j->base, reg->rootoid, reg->rootoid_len * sizeof(oid));
	j->base_len = reg->rootoid_len;
	from_range_start(r, ri->mode);
	j->req[j->nreq++] = r;
	job_run(j, ri);
	return 1;
}

/* At start and on every reload: the policies' tunnel modes,
 * communities and TTLs may have changed, so no answer cached under the
 * old ones is used again. */
static void
tunnel_configure(const struct gw_conf *c)
{
	tun_read_ahead = c->tunnel_read_ahead;
	tc_flush();
}

int
gw_mib_tunnel_peek(uint32_t node, int get, const oid *name, size_t len,
    uint32_t gen, oid *next, size_t *next_len, u_char *type)
{
	const struct tc_ent *e = tc_get(node, get ? TC_GET : TC_NEXT, name,
	    len, gen);

	if (e == NULL)
		return -1;
	*type = e->type;
	*next_len = e->next_len;
	memcpy(next, e->next, e->next_len * sizeof(oid));
	return 0;
}

size_t
gw_mib_tunnel_cached(void)
{
	return tc_n;
}

void
gw_mib_tunnel_stats(struct gw_mib_tunnel_stats *st)
{
	st->cached = tc_n;
	st->deadlines = tun_deadlines;
	st->errors = tun_errors;
}

static int
tunnel_init(const struct gw_conf *c)
{
	static oid one[] = { 1, 3 };

	htab_init(&tc);
	tun_reg = netsnmp_create_handler_registration("ibsnmpgwTunnel",
	    tun_handler, one, 2, HANDLER_CAN_RONLY);
	if (tun_reg == NULL)
		return -1;
	tun_reg->contextName = strdup(GW_NODE_CONTEXT);
	/* Below every table: the lowest priority (highest number). */
	tun_reg->priority = 255;
	tun_h = tun_reg->handler;
	if (netsnmp_register_handler(tun_reg) != MIB_REGISTERED_OK) {
		log_warnx("mib: cannot register the tunnel");
		tun_reg = NULL;
		return -1;
	}
	return 0;
}

static void
tunnel_finalise(void)
{
	tc_flush();
	htab_free(&tc);
	tun_reg = NULL;
	tun_h = NULL;
}

const struct gw_mib_module gw_mod_mib_tunnel = {
	.name = "IB SNMP Tunneling",
	.init = tunnel_init,
	.configure = tunnel_configure,
	.finalise = tunnel_finalise,
};
