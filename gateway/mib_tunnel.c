/* gw_mib_tunnel: a node context's second source, the node's own SNMP
 * agent reached through IB SNMP Tunneling (docs/tunneling.md).
 *
 * Its table, at .1.3 in the node context below every table the gateway
 * serves, gets from net-snmp's registry only the OID ranges between
 * them: a GETNEXT it cannot answer inside its range moves on to the
 * next table, and a walk of .1 merges both sources in order (RFC 3416
 * 4.2.2). With `tunnel: prefer`, a table's job (mib.c) first asks
 * whether the agent has anything under the table's subtree; if it
 * does, the agent answers that subtree whole.
 *
 * This file is the source, not a job engine: the answers kept by OID,
 * and the messages that fetch them, with store/cache.c's contract
 * (gw_tun_lookup: an answer, or a waiter called when the message ends).
 * The lookups of one handler call for one node go out as one message
 * as the call ends (gw_tun_flush; a callback's at the end of the loop's
 * turn): a GET for GETs, a GETBULK of tunnel.read-ahead for GETNEXTs.
 *
 * The gateway terminates v1, v2c and v3 and its access rules; the node
 * sees a v2c message with the policy's tunnel community. Answers are
 * kept for the policy's tunnel-ttl: a GET's by its OID, a GETNEXT's by
 * the OID it started from, so a walk costs one round trip per
 * read-ahead, not one per object. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/mib.h"
#include "gateway/mib_int.h"
#include "proxy/poller.h"
#include "proxy/tunnel.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

#define TC_MAX		50000	/* cached answers, all nodes */
#define TC_GET		GW_TUN_GET
#define TC_NEXT		GW_TUN_NEXT
#define FETCH_MAX	32	/* OIDs one message asks for */

/* One allocation each, sized to its OID and value: a walk of a host
 * caches thousands of them. */
struct tc_ent {
	uint64_t	 expires;	/* ms */
	uint32_t	 gen;		/* the message that fetched it */
	u_char		 type;		/* SNMP_ENDOFMIBVIEW: nothing next */
	size_t		 next_len;	/* TC_NEXT: the successor */
	size_t		 vlen;
	u_char		*val;		/* after next[] */
	oid		 next[];
};

struct tc_waiter {
	gw_tun_waiter		 cb;
	void			*arg;
	struct tc_waiter	*next;
};

/* One message to a node's agent: open (gathering OIDs for this turn
 * of the loop) until sent, then in flight until its answer. */
struct tc_fetch {
	uint32_t		 node;
	int			 kind;
	uint32_t		 gen;
	long			 reqid;
	int			 sent;
	int			 status;	/* on tf_done */
	struct proxy_tun_req	*tr;
	struct tc_waiter	*waiters;
	struct tc_fetch		*next;		/* on tf_open */
	int			 n;
	oid			*name[FETCH_MAX];
	size_t			 len[FETCH_MAX];
};

static struct htab	tc;
static size_t		tc_n;
static uint32_t		tc_gen;
static struct htab	tf_keys;	/* a waited-for key -> its fetch */
static struct tc_fetch	*tf_open;	/* not sent yet */
/* Ended while a handler sent (gw_tun_flush): its waiters are called
 * from the loop, never under the handler that queued them. */
static struct tc_fetch	*tf_done;
static int		 tf_deferring;
static size_t		tf_n;		/* fetches open or in flight */
static struct ev_timer	tf_timer;	/* sends the open ones */
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

int
gw_tun_mode(const struct store_node *n)
{
	const struct proxy_policy *p = policy_of(n);

	return p != NULL ? p->tunnel : PROXY_TUNNEL_OFF;
}

/* The message to the agent */

static int
build(const struct tc_fetch *f, const char *community, u_char **out,
    size_t *outlen, u_char **buf)
{
	netsnmp_session s;
	netsnmp_pdu *pdu;
	size_t blen = 4096, off = 0;
	int rc;

	pdu = snmp_pdu_create(f->kind == TC_GET ? SNMP_MSG_GET :
	    SNMP_MSG_GETBULK);
	if (pdu == NULL)
		return -1;
	pdu->version = SNMP_VERSION_2c;
	pdu->reqid = f->reqid;
	if (f->kind != TC_GET) {
		pdu->non_repeaters = 0;
		pdu->max_repetitions = tun_read_ahead;
	}
	for (int i = 0; i < f->n; i++)
		snmp_add_null_var(pdu, f->name[i], f->len[i]);
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
absorb(struct tc_fetch *f, const uint8_t *msg, size_t len,
    const struct proxy_policy *pol)
{
	const oid *prev[FETCH_MAX];
	size_t prevlen[FETCH_MAX];

	for (int i = 0; i < f->n; i++) {
		prev[i] = f->name[i];
		prevlen[i] = f->len[i];
	}
	return gw_mib_tunnel_absorb(f->node, f->gen, f->reqid,
	    f->kind == TC_GET, prev, prevlen, f->n, msg, len,
	    pol->tunnel_ttl);
}

/* Fetches */

static size_t
key_of(uint8_t *k, const struct gw_tun_key *key)
{
	return tc_key(k, key->node, key->kind, key->name, key->len);
}

/* f ends: its keys are no longer waited for, and every waiter is
 * called once, with the generation its entries carry. */
static void
tf_complete(struct tc_fetch *f, int status)
{
	uint8_t k[5 + MAX_OID_LEN * sizeof(oid)];

	if (tf_deferring) {
		f->status = status;
		f->next = tf_done;
		tf_done = f;
		if (!ev_timer_pending(&tf_timer))
			ev_timer_add(&tf_timer, 0);
		return;
	}
	struct tc_waiter *w, *nw;
	uint32_t gen = f->gen;

	for (int i = 0; i < f->n; i++) {
		size_t kl = tc_key(k, f->node, f->kind, f->name[i], f->len[i]);

		if (htab_get(&tf_keys, k, kl) == f)
			htab_del(&tf_keys, k, kl);
		free(f->name[i]);
	}
	w = f->waiters;
	tf_n--;
	free(f);
	/* A waiter may look up again: f is gone by then. */
	for (; w != NULL; w = nw) {
		nw = w->next;
		w->cb(w->arg, status, gen);
		free(w);
	}
}

static void
tun_cb(void *arg, int status, const uint8_t *pdu, size_t len)
{
	struct tc_fetch *f = arg;
	const struct proxy_policy *pol = policy_of(store_node_at(f->node));

	f->tr = NULL;
	if (status == -ENOENT || pol == NULL) {
		tf_complete(f, -ENOENT);	/* the probe found none */
		return;
	}
	if (status != 0 || absorb(f, pdu, len, pol) == -1) {
		tun_errors++;
		log_debug("%s: tunneled request failed: %s",
		    store_node_ident_idx(f->node),
		    status ? strerror(-status) : "unusable answer");
		tf_complete(f, status ? status : -EPROTO);
		return;
	}
	tf_complete(f, 0);
}

static void
tf_send(struct tc_fetch *f)
{
	const struct store_node *n = store_node_at(f->node);
	const struct proxy_policy *pol = policy_of(n);
	u_char *msg, *buf = NULL;
	size_t len;

	f->sent = 1;
	if (pol == NULL) {
		tf_complete(f, -ENOENT);
		return;
	}
	f->reqid = ++tun_reqid & 0x7fffffff;
	if (build(f, pol->tunnel_community, &msg, &len, &buf) == -1) {
		f->tr = NULL;
		errno = EIO;
	} else
		f->tr = proxy_tun_request(n, msg, len, tun_cb, f);
	free(buf);
	if (f->tr != NULL)
		return;
	if (errno != ENOENT) {
		tun_errors++;
		log_debug("%s: cannot tunnel: %s", store_node_ident(n),
		    strerror(errno));
	}
	tf_complete(f, errno == ENOENT ? -ENOENT : -EIO);
}

static void
send_open(void)
{
	struct tc_fetch *f;

	while ((f = tf_open) != NULL) {
		tf_open = f->next;
		tf_send(f);
	}
}

void
gw_tun_flush(void)
{
	tf_deferring = 1;
	send_open();
	tf_deferring = 0;
}

/* The loop's turn ended: what ended under a handler is told, and what
 * callbacks asked goes out, a message a node and kind (a handler's
 * lookups go at its end: gw_tun_flush). */
static void
tf_timer_cb(void *arg)
{
	struct tc_fetch *f;

	while ((f = tf_done) != NULL) {
		tf_done = f->next;
		tf_complete(f, f->status);
	}
	send_open();
}

/* The open fetch for key's node and kind with room, or a new one. */
static struct tc_fetch *
tf_for(const struct gw_tun_key *key)
{
	struct tc_fetch *f;

	for (f = tf_open; f != NULL; f = f->next)
		if (f->node == key->node && f->kind == key->kind &&
		    f->n < FETCH_MAX)
			return f;
	if ((f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	f->node = key->node;
	f->kind = key->kind;
	if (++tc_gen == 0)
		tc_gen = 1;
	f->gen = tc_gen;
	f->next = tf_open;
	tf_open = f;
	tf_n++;
	if (!ev_timer_pending(&tf_timer))
		ev_timer_add(&tf_timer, 0);
	return f;
}

int
gw_tun_lookup(const struct gw_tun_key *key, uint32_t gen,
    struct gw_tun_val *v, gw_tun_waiter cb, void *arg)
{
	uint8_t k[5 + MAX_OID_LEN * sizeof(oid)];
	const struct tc_ent *e;
	struct tc_fetch *f;
	struct tc_waiter *w;
	size_t kl;

	if (key->len > MAX_OID_LEN)
		return -1;
	if ((e = tc_get(key->node, key->kind, key->name, key->len,
	    gen)) != NULL) {
		v->type = e->type;
		v->next = e->next;
		v->next_len = e->next_len;
		v->val = e->vlen ? e->val : NULL;
		v->vlen = e->vlen;
		return 0;
	}
	if (cb == NULL || (w = malloc(sizeof(*w))) == NULL)
		return -1;
	kl = key_of(k, key);
	if ((f = htab_get(&tf_keys, k, kl)) == NULL) {
		if ((f = tf_for(key)) == NULL ||
		    (f->name[f->n] = malloc(key->len * sizeof(oid))) == NULL) {
			free(w);
			return -1;
		}
		memcpy(f->name[f->n], key->name, key->len * sizeof(oid));
		f->len[f->n++] = key->len;
		if (htab_put(&tf_keys, k, kl, f) == -1) {
			free(w);
			return -1;	/* asked anyway; nobody waits */
		}
	}
	w->cb = cb;
	w->arg = arg;
	w->next = f->waiters;
	f->waiters = w;
	return 1;
}

void
gw_tun_cancel(const struct gw_tun_key *key, gw_tun_waiter cb, void *arg)
{
	uint8_t k[5 + MAX_OID_LEN * sizeof(oid)];
	struct tc_fetch *f;
	struct tc_waiter **wp, *w;

	if (key->len > MAX_OID_LEN ||
	    (f = htab_get(&tf_keys, k, key_of(k, key))) == NULL)
		return;
	for (wp = &f->waiters; (w = *wp) != NULL; wp = &w->next)
		if (w->cb == cb && w->arg == arg) {
			*wp = w->next;
			free(w);
			tun_deadlines++;
			return;
		}
}

/* The registration at .1.3 (net-snmp's registry takes no
 * one-subidentifier root): whatever the gateway's tables do not cover.
 * Its jobs are the engine's (mib.c), with the agent as their source. */
static const struct gw_table tun_table = {
	.name = "ibsnmpgwTunnel",
	.base = { 1, 3 },
	.base_len = 2,
	.agent = 1,
};

static const struct gw_table *const tun_tables[] = { &tun_table, NULL };

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
	htab_init(&tc);
	htab_init(&tf_keys);
	ev_timer_init(&tf_timer, tf_timer_cb, NULL);
	return 0;
}

/* After the MAD engine stopped (its requests ended with their
 * callbacks): what was never sent ends now. */
static void
tunnel_finalise(void)
{
	struct tc_fetch *f;

	ev_timer_del(&tf_timer);
	while ((f = tf_done) != NULL) {
		tf_done = f->next;
		tf_complete(f, f->status);
	}
	while ((f = tf_open) != NULL) {
		tf_open = f->next;
		tf_complete(f, -ECANCELED);
	}
	tc_flush();
	htab_free(&tc);
	htab_free(&tf_keys);
}

const struct gw_mib_module gw_mod_mib_tunnel = {
	.name = "IB SNMP Tunneling",
	.tables = tun_tables,
	.init = tunnel_init,
	.configure = tunnel_configure,
	.finalise = tunnel_finalise,
};
