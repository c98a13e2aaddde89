/* gw_mib: the one handler behind every node-context table.
 *
 * Each varbind is a job: evaluate it (GET: instance -> value; GETNEXT:
 * next instance -> value) against the cache; if an attribute is missing,
 * delegate the varbind, fetch the attribute (one MAD however many jobs
 * want it), and evaluate again when it arrives. Instances come from the
 * inventory and from attributes, never from probing OIDs one by one.
 * A GETBULK is the same GETNEXT, repeated here while answered at once.
 *
 * A job picks its source up front: the tables, or a tunneled node's
 * agent (mib_tunnel.c; `tunnel: prefer` first asks the agent whether it
 * has the table's subtree). Either way it waits the same way, on one
 * deadline, and a GETBULK's varbind is moved on once when it ends.
 *
 * An unreachable node answers genErr once the MAD engine gives up
 * (mad.timeout-ms x (mad.retries + 1)); the failure is then remembered
 * for cache.ttl.error seconds so a walk fails fast. See docs/errors.md. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "codec/attr.h"
#include "codec/smp.h"
#include "gateway/mib.h"
#include "gateway/subnet.h"
#include "gateway/mib_int.h"
#include "proxy/poller.h"
#include "util/ev.h"
#include "util/log.h"

#include <net-snmp/agent/bulk_to_next.h>

/* Attributes one varbind may wait for: a GETNEXT may cross a whole
 * forwarding table of empty entries (MFT: 512 blocks x 16 positions). */
#define MAX_PASSES	16384

enum { DONE = GW_EVAL_DONE, NEED = GW_EVAL_NEED, AGAIN };

/* Where a job's answer comes from. */
enum { SRC_TABLE, SRC_AGENT, SRC_OWNER };

/* Messages one varbind may wait for from a node's agent. */
#define MAX_ROUNDS	4

struct gw_job {
	struct gw_eval		 e;
	const struct store_node	*node;		/* the context's node */
	netsnmp_mib_handler	*h;
	netsnmp_handler_registration *reg;
	netsnmp_delegated_cache	*dc;	/* NULL until delegated */
	struct ev_timer		 deadline;	/* while delegated */
	int			 waiting;	/* on wait or tw */
	struct cache_key	 wait;		/* the entry waited for */
	int			 mode;
	int			 passes;
	int			 src;		/* SRC_* */
	int			 no_agent;	/* the tunnel found none */
	int			 rounds;	/* messages to the agent */
	uint32_t		 tgen;		/* of the last one */
	struct gw_tun_key	 tw;		/* the answer waited for */
};

static uint64_t mib_deadline_ms = 10000;	/* snmp.request-timeout-ms */
static uint64_t mib_deadlines;		/* varbinds answered by it */

/* The node's agent as the source (mib_tunnel.c) */

static int
under(const oid *name, size_t len, const oid *base, size_t blen)
{
	return len >= blen && snmp_oid_compare(name, blen, base, blen) == 0;
}

static void
tun_key(struct gw_job *j, int kind, const oid *name, size_t len)
{
	j->tw.node = j->node->idx;
	j->tw.kind = kind;
	j->tw.len = len;
	memcpy(j->tw.name, name, len * sizeof(oid));
}

/* Nothing of the agent's here: the table itself answers (prefer), or
 * nothing does (the agent's range: noSuchObject for a GET; a GETNEXT
 * moves on to the next registration, untouched). */
static int
not_agents(struct gw_job *j, netsnmp_agent_request_info *ri,
    netsnmp_request_info *r)
{
	if (!j->e.t->agent) {
		j->src = SRC_TABLE;
		return AGAIN;
	}
	if (j->mode == MODE_GET)
		netsnmp_set_request_error(ri, r, SNMP_NOSUCHOBJECT);
	return DONE;
}

/* A varbind from the agent's answers: GET by its OID, GETNEXT by the
 * OID it starts from. With prefer, first whether the agent has
 * anything under the table's subtree (its successor of the base). */
static int
eval_agent(struct gw_job *j, netsnmp_agent_request_info *ri,
    netsnmp_request_info *r)
{
	netsnmp_variable_list *vb = r->requestvb;
	const netsnmp_handler_registration *reg = j->reg;
	struct gw_tun_val v;

	if (j->no_agent || gw_tun_mode(j->node) == PROXY_TUNNEL_OFF)
		return not_agents(j, ri, r);
	if (j->src == SRC_OWNER) {
		tun_key(j, GW_TUN_NEXT, reg->rootoid, reg->rootoid_len);
		if (gw_tun_lookup(&j->tw, j->tgen, &v, NULL, NULL) != 0)
			return NEED;
		if (v.type == SNMP_ENDOFMIBVIEW || !under(v.next, v.next_len,
		    reg->rootoid, reg->rootoid_len))
			return not_agents(j, ri, r);
		j->src = SRC_AGENT;
	}
	if (vb->name_length > MAX_OID_LEN) {
		netsnmp_set_request_error(ri, r, SNMP_ERR_GENERR);
		return DONE;
	}
	tun_key(j, j->mode == MODE_GET ? GW_TUN_GET : GW_TUN_NEXT, vb->name,
	    vb->name_length);
	if (gw_tun_lookup(&j->tw, j->tgen, &v, NULL, NULL) != 0)
		return NEED;
	if (j->mode == MODE_GETNEXT) {
		/* Past the agent's last object, or past this range: the
		 * next registration answers (net-snmp moves on from an
		 * empty one). */
		if (v.type == SNMP_ENDOFMIBVIEW || (r->range_end != NULL &&
		    snmp_oid_compare(v.next, v.next_len, r->range_end,
		    r->range_end_len) >= 0))
			return DONE;
		snmp_set_var_objid(vb, v.next, v.next_len);
	}
	snmp_set_var_typed_value(vb, v.type, v.val, v.vlen);
	j->e.answered = 1;
	return DONE;
}

/* A GETNEXT that reaches the agent from a registration before it still
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

/* Jobs */

static void job_cb(void *arg, int status, const uint8_t *data, size_t len);
static void job_tun_cb(void *arg, int status, uint32_t gen);
static void job_deadline(void *arg);

/* A GETBULK's varbind answered: move it (only this one) to its next
 * repetition, as net-snmp's bulk_to_next does after a pass. 1 when it
 * moved, 0 when it is done, left the table or was not answered. */
static int
bulk_fix(netsnmp_agent_request_info *ri, netsnmp_request_info *r)
{
	netsnmp_request_info *next;
	int left = r->repeat;

	if (ri->asp->pdu->command != SNMP_MSG_GETBULK)
		return 0;
	next = r->next;
	r->next = NULL;
	netsnmp_bulk_to_next_fix_requests(r);
	r->next = next;
	return r->repeat < left;
}

static void
job_free(struct gw_job *j)
{
	ev_timer_del(&j->deadline);
	netsnmp_free_delegated_cache(j->dc);
	free(j);
}

static void
job_finish(struct gw_job *j, netsnmp_agent_request_info *ri,
    netsnmp_request_info *r)
{
	if (j->dc == NULL)
		return;		/* answered inside the handler */
	r->delegated = 0;
	if (j->e.answered)
		bulk_fix(ri, r);
	job_free(j);
}

/* The job waits from now: it moves to the heap (*jp) and the request is
 * delegated, with its one deadline. -1: answered genErr now. */
static int
job_delegate(struct gw_job **jp, netsnmp_agent_request_info *ri,
    netsnmp_request_info *r)
{
	struct gw_job *j = *jp, *h;

	if (j->dc != NULL)
		return 0;
	if ((h = malloc(sizeof(*h))) == NULL)
		return -1;
	*h = *j;
	h->dc = netsnmp_create_delegated_cache(h->h, h->reg, ri, r, NULL);
	if (h->dc == NULL) {
		free(h);	/* no memory: answered now, never delegated */
		return -1;
	}
	*jp = h;
	r->delegated = 1;
	/* Its own timer: a MAD queued behind the caps or the rate limit,
	 * or a slow agent, must not hold the answer past it. */
	ev_timer_init(&h->deadline, job_deadline, h);
	ev_timer_at(&h->deadline, h->e.since + mib_deadline_ms);
	return 0;
}

/* NEED from the tables: whether to wait (0) or answer genErr now. */
static int
table_may_wait(struct gw_job *j)
{
	/* NEED with nothing to wait for: an answer too short to decode or
	 * a missing accumulator. Waiting cannot help. */
	if (!j->e.need && !j->e.failed) {
		log_warnx("%s: %s: unusable answer from the fabric",
		    store_node_ident(j->e.n), j->e.t->name);
		return -1;
	}
	/* Untrusted input: no varbind may keep the fabric busy longer
	 * than the request deadline. */
	if (j->e.failed || ++j->passes > MAX_PASSES ||
	    ev_now() - j->e.since > mib_deadline_ms) {
		if (!j->e.failed)
			log_warnx("%s: %s: gave up after %d fetches in %llu ms",
			    store_node_ident(j->e.n), j->e.t->name, j->passes,
			    (unsigned long long)(ev_now() - j->e.since));
		else
			log_debug("%s: %s: %s", store_node_ident(j->e.n),
			    j->e.t->name, strerror(-j->e.failed));
		return -1;
	}
	return 0;
}

/* Wait for what the evaluation missed: 1 waiting, 0 it is there now,
 * -1 genErr. */
static int
job_wait(struct gw_job *j)
{
	const uint8_t *d;
	struct gw_tun_val v;
	size_t len;
	int rc;

	if (j->src != SRC_TABLE) {
		rc = gw_tun_lookup(&j->tw, j->tgen, &v, job_tun_cb, j);
		j->waiting = rc == 1;
		return rc;
	}
	j->wait = j->e.key;
	rc = cache_lookup(&j->wait, j->e.cls, &d, &len, job_cb, j);
	if (rc > 0 && j->mode == MODE_GETNEXT && j->e.t->read_ahead)
		j->e.t->read_ahead(&j->e, &j->e.key);
	j->waiting = rc > 0;
	return rc < 0 ? -1 : rc > 0;
}

static int
job_eval(struct gw_job *j, netsnmp_agent_request_info *ri,
    netsnmp_request_info *r)
{
	j->e.need = 0;
	j->e.failed = 0;
	j->e.n = j->node;
	/* The node itself was checked on arrival; the selector is looked
	 * up when a row first asks (sel_lookup), once per handler call. */
	j->e.ri = ri;
	j->e.answered = 0;
	if (j->src != SRC_TABLE)
		return eval_agent(j, ri, r);
	return j->mode == MODE_GET ? gw_eval_get(&j->e, r) :
	    gw_eval_getnext(&j->e, r);
}

/* Evaluate until done or waiting. j may be on the handler's stack until
 * the first wait; *jp is updated when it moves to the heap. */
static void
job_run(struct gw_job **jp, netsnmp_agent_request_info *ri,
    netsnmp_request_info *r)
{
	struct gw_job *j = *jp;
	int rc;

	for (;;) {
		if ((rc = job_eval(j, ri, r)) == DONE)
			break;
		if (rc == AGAIN)
			continue;	/* the source changed */
		if ((j->src == SRC_TABLE ? table_may_wait(j) :
		    ++j->rounds > MAX_ROUNDS ? -1 : 0) == -1 ||
		    job_delegate(jp, ri, r) == -1) {
			netsnmp_set_request_error(ri, r, SNMP_ERR_GENERR);
			break;
		}
		j = *jp;
		if ((rc = job_wait(j)) == 1)
			return;
		if (rc == -1) {
			netsnmp_set_request_error(ri, r, SNMP_ERR_GENERR);
			break;
		}
	}
	job_finish(j, ri, r);
}

/* A wait ended: the request may be gone meanwhile (the job is then
 * freed, its fetch goes on), else evaluate again. */
static netsnmp_delegated_cache *
job_resume(struct gw_job *j)
{
	netsnmp_delegated_cache *dc = netsnmp_handler_check_cache(j->dc);

	j->waiting = 0;
	j->e.sel_ok = -1;	/* a reload may have come meanwhile */
	if (dc == NULL)
		job_free(j);
	return dc;
}

static void
job_cb(void *arg, int status, const uint8_t *data, size_t len)
{
	struct gw_job *j = arg;
	netsnmp_delegated_cache *dc = job_resume(j);

	/* Evaluate again: the cache now holds the answer or the error. */
	if (dc != NULL)
		job_run(&j, dc->reqinfo, dc->requests);
}

static void
job_tun_cb(void *arg, int status, uint32_t gen)
{
	struct gw_job *j = arg;
	netsnmp_delegated_cache *dc = job_resume(j);

	if (dc == NULL)
		return;
	j->tgen = gen;
	if (status == -ENOENT)
		j->no_agent = 1;	/* the probe found none */
	else if (status != 0) {
		netsnmp_set_request_error(dc->reqinfo, dc->requests,
		    SNMP_ERR_GENERR);
		job_finish(j, dc->reqinfo, dc->requests);
		return;
	}
	job_run(&j, dc->reqinfo, dc->requests);
}

/* snmp.request-timeout-ms passed while the varbind still waits (for a
 * MAD held back by the caps or the rate limit, a slow node or agent):
 * genErr now. The fetch goes on and fills the cache for the next
 * request. */
static void
job_deadline(void *arg)
{
	struct gw_job *j = arg;
	netsnmp_delegated_cache *dc = netsnmp_handler_check_cache(j->dc);

	if (j->waiting && j->src == SRC_TABLE)
		cache_cancel(&j->wait, job_cb, j);
	else if (j->waiting)
		gw_tun_cancel(&j->tw, job_tun_cb, j);
	mib_deadlines++;
	if (dc == NULL) {
		job_free(j);
		return;
	}
	log_debug("%s: %s: no answer within %llu ms", store_node_ident(j->node),
	    j->e.t->name, (unsigned long long)mib_deadline_ms);
	netsnmp_set_request_error(dc->reqinfo, dc->requests, SNMP_ERR_GENERR);
	job_finish(j, dc->reqinfo, dc->requests);
}

void
gw_mib_set_deadline(int ms)
{
	mib_deadline_ms = (uint64_t)ms;
}

uint64_t
gw_mib_get_deadline(void)
{
	return mib_deadline_ms;
}

uint64_t
gw_mib_deadlines(void)
{
	return mib_deadlines;
}

/* Where r's answer comes from: SRC_*, or -1 when there is none here
 * (answered or left untouched). */
static int
job_source(const struct gw_table *t, const struct store_node *n,
    netsnmp_handler_registration *reg, netsnmp_agent_request_info *ri,
    netsnmp_request_info *r)
{
	int tun = n != NULL ? gw_tun_mode(n) : PROXY_TUNNEL_OFF;

	if (t->agent) {
		if (tun != PROXY_TUNNEL_OFF)
			return SRC_AGENT;
		/* Not tunneled: nothing here but the gateway's tables. */
		if (ri->mode == MODE_GET)
			netsnmp_set_request_error(ri, r, SNMP_NOSUCHOBJECT);
		return -1;
	}
	if (n == NULL && t->context == NULL) {
		netsnmp_set_request_error(ri, r, SNMP_ERR_GENERR);
		return -1;
	}
	/* tunnel: prefer, and the agent may have this subtree */
	if (tun == PROXY_TUNNEL_PREFER && !t->not_tunneled &&
	    reg->rootoid_len <= MAX_OID_LEN)
		return SRC_OWNER;
	return SRC_TABLE;
}

/* The requester's selection, looked up by the first row that asks in
 * a handler call and kept for the rest of it. */
struct sel_memo {
	const struct store_select *sel;
	int			 ok;	/* -1: not looked up yet */
};

/* One varbind: evaluate it, delegating while the fabric or the agent
 * answers. */
static void
serve(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *reqinfo, netsnmp_request_info *r,
    const struct store_node *n, struct sel_memo *sm)
{
	const struct gw_table *t = h->myvoid;
	struct gw_job job, *j = &job;
	int src;

	if (reqinfo->mode != MODE_GET && reqinfo->mode != MODE_GETNEXT) {
		/* Read-only by design: no SET reaches the fabric. */
		netsnmp_set_request_error(reqinfo, r, SNMP_ERR_NOTWRITABLE);
		return;
	}
	if ((src = job_source(t, n, reg, reqinfo, r)) == -1)
		return;
	if (src != SRC_TABLE)
		from_range_start(r, reqinfo->mode);
	memset(&job, 0, offsetof(struct gw_job, tw));
	job.e.t = t;
	job.node = n;
	job.e.since = ev_now();
	job.h = h;
	job.reg = reg;
	job.mode = reqinfo->mode;
	job.src = src;
	job.e.sel = sm->sel;
	job.e.sel_ok = sm->ok;
	job_run(&j, reqinfo, r);
	/* Delegated or not, what it looked up holds for this call. */
	sm->sel = job.e.sel;
	sm->ok = job.e.sel_ok;
}

int
gw_mib_handler(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	const struct gw_table *t = h->myvoid;
	/* Fabric rows name their nodes; the context names none. The
	 * request's node was resolved once, as it arrived (snmp_addr.c). */
	const struct store_node *n = t->context == NULL ?
	    gw_snmp_request_node(reqinfo) : NULL;
	int bulk = reqinfo->mode == MODE_GETBULK;
	struct sel_memo sm = { NULL, -1 };

	/* GETBULK (RFC 3416 4.2.3): each varbind's repetitions here, one
	 * after another while each is answered at once. Through
	 * bulk_to_next, every repetition cost a pass of net-snmp's loop
	 * (request cache, subtree lookup, handler chain). A varbind that
	 * waits, fails or leaves the table is left to that loop, which goes
	 * on from it. Views are not net-snmp's here (UCD_MSG_FLAG_ALWAYS_IN_
	 * VIEW, snmp_addr.c): no repetition skips its check. */
	if (bulk)
		reqinfo->mode = MODE_GETNEXT;
	for (netsnmp_request_info *r = requests; r != NULL; r = r->next) {
		if (r->processed || r->delegated)
			continue;
		for (;;) {
			serve(h, reg, reqinfo, r, n, &sm);
			if (!bulk || r->delegated || r->processed ||
			    r->status != SNMP_ERR_NOERROR ||
			    !bulk_fix(reqinfo, r))
				break;
			/* The next repetition as net-snmp's loop hands one
			 * over (netsnmp_reassign_requests): ASN_NULL, not
			 * bulk_to_next's ASN_PRIV_RETRY, so one that finds
			 * nothing here, or waits and fails, moves on to the
			 * next subtree rather than being asked here again. */
			r->requestvb->type = ASN_NULL;
		}
	}
	if (bulk)
		reqinfo->mode = MODE_GETBULK;
	if (n != NULL)
		gw_tun_flush();	/* the agent's share of this call, at once */
	return SNMP_ERR_NOERROR;
}

void
gw_context_name(const struct store_node *n, char *buf, size_t len)
{
	size_t w;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (n == NULL)
		return;
	/* A further subnet's names go through the first process, which
	 * takes "NAME/node" (gateway/subnet.c). */
	if (*gw_subnet_self() != '\0') {
		w = (size_t)snprintf(buf, len, "%s/", gw_subnet_self());
		if (w >= len)
			return;
		buf += w;
		len -= w;
	}
	if (n->alias != NULL && strlen(n->alias) <= 64) {
		snprintf(buf, len, "%s", n->alias);
		return;
	}
	w = strcspn(n->desc, " \t");
	if (w > 0 && w < len && store_node_resolve(n->desc, w) == n) {
		memcpy(buf, n->desc, w);
		buf[w] = '\0';
		return;
	}
	snprintf(buf, len, "0x%016llx", (unsigned long long)n->guid);
}
