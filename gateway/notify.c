/* gw_notify: the event stream (store/events.h) as SNMP notifications to
 * the YAML's targets (docs/events.md).
 *
 * Every target has its own net-snmp client session, which the agent's
 * loop already serves (snmp_select_info2, snmp_timeout). A trap is sent
 * and forgotten. Informs (RFC 3416 4.2.7) go one at a time from a
 * bounded queue per target: acknowledged, the next goes; unanswered
 * after the session's retries, the same one is tried again later with
 * a growing pause; a full queue drops its oldest. Queues belong to the
 * target's name, so they outlive a reload. */
#include "config.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/mib.h"
#include "gateway/notify.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"

#define RETRY_MIN_MS	1000
#define RETRY_MAX_MS	60000

struct nt_target {
	char			*name;
	const struct gw_target	*c;		/* into the running conf */
	char			*key;		/* what the session was made of */
	netsnmp_session		*ss;
	/* Informs waiting, oldest first (a ring); the head may be out. */
	struct store_event	*q;
	size_t			 qcap, qhead, qn;
	int			 busy;
	uint64_t		 gen;		/* of the inform out */
	unsigned		 backoff_ms;
	struct ev_timer		 timer;
	struct gw_notify_stats	 st;
};

static struct nt_target	**nt_targets;
static size_t		  nt_n;
static const struct gw_conf *nt_conf;
static uint64_t		  nt_gen;
static int		  nt_paused;	/* an HA standby */

/* ---- OIDs */

static const oid snmptrap_oid[] = { 1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0 };
static const oid sysuptime_oid[] = { 1, 3, 6, 1, 2, 1, 1, 3, 0 };
static const oid cold_start[] = { 1, 3, 6, 1, 6, 3, 1, 1, 5, 1 };
static const oid link_down[] = { 1, 3, 6, 1, 6, 3, 1, 1, 5, 3 };
static const oid link_up[] = { 1, 3, 6, 1, 6, 3, 1, 1, 5, 4 };
static const oid if_entry[] = { 1, 3, 6, 1, 2, 1, 2, 2, 1 };

/* Under IBSNMPGW-MIB's base (configurable): ibsnmpgwNotifications (7)
 * .0.N, and ibsnmpgwEventEntry (6.1.1) columns for the varbinds. */
#define NT_NOTIF	7
#define NT_EVENT_ENTRY	6, 1, 1

static size_t
gw_oid(oid *o, const oid *tail, size_t n)
{
	size_t len = gw_mib_sys_base(o, MAX_OID_LEN - n);

	memcpy(o + len, tail, n * sizeof(oid));
	return len + n;
}

/* IBSNMPGW-MIB's notification for an event type; 0: none. */
static oid
notif_number(int type)
{
	switch (type) {
	case STORE_EV_NODE_GONE: return 1;	/* ibsnmpgwNodeUnreachable */
	case STORE_EV_NODE_BACK: return 2;	/* ibsnmpgwNodeReachable */
	case STORE_EV_SM_MASTER: return 3;	/* ibsnmpgwSmMasterChanged */
	case STORE_EV_THRESHOLD: return 4;	/* ibsnmpgwThresholdCrossed */
	case STORE_EV_SUB_LOST: return 5;	/* ibsnmpgwSubscriptionLost */
	case STORE_EV_SUB_RESTORED: return 6;
	case STORE_EV_PORT_CHANGED: return 7;	/* ibsnmpgwPortChanged */
	case STORE_EV_TRAP: return 8;		/* ibsnmpgwSmaTrap */
	case STORE_EV_HA_FAILOVER: return 9;	/* ibsnmpgwHaFailover */
	case STORE_EV_HA_SPLIT_BRAIN: return 10;	/* ibsnmpgwHaSplitBrain */
	case STORE_EV_LINK_DEGRADED: return 11;	/* ibsnmpgwLinkDegraded */
	case STORE_EV_LINK_RESTORED: return 12;	/* ibsnmpgwLinkRestored */
	case STORE_EV_TOPO_MISMATCH: return 13;	/* ibsnmpgwTopologyMismatch */
	case STORE_EV_TOPO_MATCH: return 14;	/* ibsnmpgwTopologyMatch */
	case STORE_EV_PORT_HEALTH: return 15;	/* ibsnmpgwPortHealthChanged */
	}
	return 0;
}

/* ---- Building one notification (RFC 3416 4.2.6: sysUpTime.0 and
 * snmpTrapOID.0 first) */

static void
add_int(netsnmp_pdu *pdu, const oid *name, size_t len, long v)
{
	snmp_pdu_add_variable(pdu, name, len, ASN_INTEGER, &v, sizeof(v));
}

/* ---- IB-SMA-MIB ibSmaNotifications (IBA 14.2.5.1 traps) */

static const oid sma_prefix[] = { 1, 3, 6, 1, 3, 117, 3, 2, 0 };
static const oid sma_node_info[] = { 1, 3, 6, 1, 3, 117, 3, 1, 1 };

/* ibSmaNotificationPrefix.N for an IBA trap number; 0: none. */
static oid
sma_number(unsigned trap)
{
	static const unsigned traps[] = { 128, 129, 130, 131, 144, 145, 256,
	    257, 258, 259 };

	for (size_t i = 0; i < sizeof(traps) / sizeof(traps[0]); i++)
		if (traps[i] == trap)
			return i + 1;
	return 0;
}

/* ibSmaNodeInfo.sub.0 (an accessible-for-notify scalar's instance). */
static void
add_sma(netsnmp_pdu *pdu, oid sub, u_char type, const void *val, size_t len)
{
	oid o[OID_LENGTH(sma_node_info) + 2];

	memcpy(o, sma_node_info, sizeof(sma_node_info));
	o[OID_LENGTH(sma_node_info)] = sub;
	o[OID_LENGTH(sma_node_info) + 1] = 0;
	snmp_pdu_add_variable(pdu, o, OID_LENGTH(o), type, val, len);
}

static void
add_sma_uint(netsnmp_pdu *pdu, oid sub, u_long v)
{
	add_sma(pdu, sub, ASN_UNSIGNED, &v, sizeof(v));
}

static u_long
be(const uint8_t *p, int n)
{
	u_long v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

/* The OBJECTS of the trap's notification from its DataDetails (IBA
 * 14.2.5.1 tables 120-125; dd = data + 9: the event keeps the Notice
 * from ProducerType on). A threshold of the poller has no Notice: its
 * LID and port are the event's. */
static void
add_sma_objects(netsnmp_pdu *pdu, const struct store_event *ev)
{
	const uint8_t *dd = ev->data + 9;

	if (ev->type == STORE_EV_THRESHOLD) {
		add_sma_uint(pdu, 14, ev->lid);		/* ibSmaNodeLid */
		add_sma_uint(pdu, 15, ev->port);	/* ibSmaNodePortNum */
		return;
	}
	switch (ev->trap) {
	case 128:					/* Table 120 */
		add_sma_uint(pdu, 14, be(dd, 2));
		break;
	case 129: case 130: case 131:			/* Table 121 */
		add_sma_uint(pdu, 14, be(dd + 2, 2));
		add_sma_uint(pdu, 15, dd[4]);
		break;
	case 144:					/* Table 122 */
		add_sma_uint(pdu, 14, be(dd + 2, 2));
		add_sma(pdu, 26, ASN_OCTET_STR, dd + 6, 4);
		break;
	case 145:					/* Table 123 */
		add_sma_uint(pdu, 14, be(dd + 2, 2));
		add_sma(pdu, 6, ASN_OCTET_STR, dd + 6, 8);
		break;
	case 256:					/* Table 124 */
		add_sma(pdu, 19, ASN_OCTET_STR, dd + 16, 8);
		add_sma_uint(pdu, 14, be(dd + 2, 2));
		add_sma_uint(pdu, 16, dd[6]);
		add_sma_uint(pdu, 17, be(dd + 8, 2));
		add_sma_uint(pdu, 18, be(dd + 12, 4));
		break;
	default:				/* 257, 258 (Table 125), 259 */
		add_sma(pdu, 19, ASN_OCTET_STR, dd + 6, 4);
		add_sma_uint(pdu, 14, be(dd + 2, 2));
		add_sma(pdu, 24, ASN_OCTET_STR, dd + 19, 16);
		add_sma_uint(pdu, 22, be(dd + 12, 3));
		add_sma_uint(pdu, 20, be(dd + 4, 2));
		add_sma(pdu, 25, ASN_OCTET_STR, dd + 35, 16);
		add_sma_uint(pdu, 23, be(dd + 16, 3));
		add_sma_uint(pdu, 21, dd[10] >> 4);
		break;
	}
}

/* The event's row of ibsnmpgwEventTable as varbinds: who and what. */
static void
add_identity(netsnmp_pdu *pdu, const struct store_event *ev)
{
	static const oid entry[] = { NT_EVENT_ENTRY };
	oid o[MAX_OID_LEN];
	size_t n = gw_oid(o, entry, 3);
	uint8_t guid[8];
	char name[GW_CONTEXT_LEN];
	const struct store_node *node = ev->node_guid ?
	    store_node_by_guid(ev->node_guid) : NULL;
	u_long port = ev->port;

	o[n + 1] = (oid)(ev->seq & 0xffffffff);
	for (int k = 0; k < 8; k++)
		guid[k] = (uint8_t)(ev->node_guid >> (56 - 8 * k));
	o[n] = 3;
	snmp_pdu_add_variable(pdu, o, n + 2, ASN_OCTET_STR, guid, 8);
	gw_context_name(node, name, sizeof(name));
	o[n] = 4;
	snmp_pdu_add_variable(pdu, o, n + 2, ASN_OCTET_STR, name, strlen(name));
	o[n] = 5;
	snmp_pdu_add_variable(pdu, o, n + 2, ASN_UNSIGNED, &port, sizeof(port));
	o[n] = 8;
	snmp_pdu_add_variable(pdu, o, n + 2, ASN_OCTET_STR, ev->text,
	    strnlen(ev->text, sizeof(ev->text)));
	if (ev->type == STORE_EV_TRAP) {
		u_long trap = ev->trap;

		o[n] = 11;
		snmp_pdu_add_variable(pdu, o, n + 2, ASN_UNSIGNED, &trap,
		    sizeof(trap));
	}
}

/* ibsnmpgwHaFailover, ibsnmpgwHaSplitBrain: the other gateway (the old
 * active, the peer) in data[0..31], this one in data[32..63], as the
 * event recorded them, into ibsnmpgwHa (8) scalars. */
static void
add_ha(netsnmp_pdu *pdu, const struct store_event *ev)
{
	oid tail[3] = { 8, 0, 0 }, o[MAX_OID_LEN];
	size_t n;

	tail[1] = ev->type == STORE_EV_HA_FAILOVER ? 7 : 4;
	n = gw_oid(o, tail, 3);
	snmp_pdu_add_variable(pdu, o, n, ASN_OCTET_STR, ev->data,
	    strnlen((const char *)ev->data, 32));
	tail[1] = 6;
	n = gw_oid(o, tail, 3);
	snmp_pdu_add_variable(pdu, o, n, ASN_OCTET_STR, ev->data + 32,
	    strnlen((const char *)ev->data + 32, 32));
}

/* coldStart has no objects (RFC 3418); ibsnmpgwEventText of its row
 * gives receivers its number too (docs/ha.md: dropping duplicates). */
static void
add_seq(netsnmp_pdu *pdu, const struct store_event *ev)
{
	static const oid entry[] = { NT_EVENT_ENTRY, 8 };
	oid o[MAX_OID_LEN];
	size_t n = gw_oid(o, entry, 4);

	o[n] = (oid)(ev->seq & 0xffffffff);
	snmp_pdu_add_variable(pdu, o, n + 1, ASN_OCTET_STR, ev->text,
	    strnlen(ev->text, sizeof(ev->text)));
}

/* IF-MIB linkDown/linkUp (RFC 2863): ifIndex, ifAdminStatus and
 * ifOperStatus of the port, ifIndex = port number. */
static void
add_link(netsnmp_pdu *pdu, const struct store_event *ev)
{
	oid o[16];
	int up = ev->type == STORE_EV_LINK_UP;
	/* PortState after the change (data[0]): Active up(1), Init or
	 * Armed dormant(5). */
	long oper = !up ? 2 : ev->data[0] == 4 ? 1 : 5;

	memcpy(o, if_entry, sizeof(if_entry));
	o[10] = ev->port;
	o[9] = 1;
	add_int(pdu, o, 11, ev->port);
	o[9] = 7;
	add_int(pdu, o, 11, 1);		/* ifAdminStatus: not disabled */
	o[9] = 8;
	add_int(pdu, o, 11, oper);
}

/* The notification an event is sent as; 0 and no PDU if none. */
static netsnmp_pdu *
build(const struct nt_target *t, const struct store_event *ev, int inform)
{
	netsnmp_pdu *pdu = snmp_pdu_create(inform ? SNMP_MSG_INFORM :
	    SNMP_MSG_TRAP2);
	oid trap[MAX_OID_LEN];
	size_t tlen;
	/* sysUpTime when the event was seen, not when (an inform that
	 * waited) it is sent. */
	long ago = (long)((ev_wall_ms() - ev->when) / 10);
	u_long now = netsnmp_get_agent_uptime();
	u_long up = ago > 0 && (u_long)ago < now ? now - (u_long)ago : now;
	char ctx[GW_CONTEXT_LEN];
	const struct store_node *node = ev->node_guid ?
	    store_node_by_guid(ev->node_guid) : NULL;

	if (pdu == NULL)
		return NULL;
	switch (ev->type) {
	case STORE_EV_LINK_DOWN:
	case STORE_EV_LINK_UP:
		tlen = OID_LENGTH(link_down);
		memcpy(trap, ev->type == STORE_EV_LINK_UP ? link_up :
		    link_down, sizeof(link_down));
		break;
	case STORE_EV_GW_START:
		tlen = OID_LENGTH(cold_start);
		memcpy(trap, cold_start, sizeof(cold_start));
		break;
	case STORE_EV_TRAP:
	case STORE_EV_THRESHOLD:
		/* IB-SMA-MIB's, for the traps it has (a threshold on
		 * LocalLinkIntegrityErrors or ExcessiveBufferOverrunErrors
		 * stands for trap 129 or 130). */
		if (sma_number(ev->trap) != 0 && ev->trap != 259) {
			memcpy(trap, sma_prefix, sizeof(sma_prefix));
			trap[OID_LENGTH(sma_prefix)] = sma_number(ev->trap);
			tlen = OID_LENGTH(sma_prefix) + 1;
			break;
		}
		/* FALLTHROUGH */
	default: {
		/* IBSNMPGW-MIB ibsnmpgwNotifications.0.N */
		oid tail[3] = { NT_NOTIF, 0, 0 };

		tail[2] = notif_number(ev->type);
		if (tail[2] == 0) {
			snmp_free_pdu(pdu);
			return NULL;
		}
		tlen = gw_oid(trap, tail, 3);
	}
	}
	snmp_pdu_add_variable(pdu, sysuptime_oid, OID_LENGTH(sysuptime_oid),
	    ASN_TIMETICKS, &up, sizeof(up));
	snmp_pdu_add_variable(pdu, snmptrap_oid, OID_LENGTH(snmptrap_oid),
	    ASN_OBJECT_ID, trap, tlen * sizeof(oid));
	if (ev->type == STORE_EV_LINK_DOWN || ev->type == STORE_EV_LINK_UP)
		add_link(pdu, ev);
	else if (trap[0] == 1 && tlen == OID_LENGTH(sma_prefix) + 1 &&
	    memcmp(trap, sma_prefix, sizeof(sma_prefix)) == 0)
		add_sma_objects(pdu, ev);
	if (ev->type != STORE_EV_GW_START)
		add_identity(pdu, ev);
	else
		add_seq(pdu, ev);
	if (ev->type == STORE_EV_HA_FAILOVER ||
	    ev->type == STORE_EV_HA_SPLIT_BRAIN)
		add_ha(pdu, ev);
	/* SNMPv3: in the node's context (RFC 3411 3.3.1). */
	if (t->c->version == 3 && node != NULL) {
		gw_context_name(node, ctx, sizeof(ctx));
		pdu->contextName = strdup(ctx);
		pdu->contextNameLen = strlen(ctx);
	}
	return pdu;
}

/* ---- Which target hears what */

static unsigned
category(int type)
{
	switch (type) {
	case STORE_EV_LINK_DOWN:
	case STORE_EV_LINK_UP:
	case STORE_EV_PORT_CHANGED:
		return GW_CAT_LINK;
	case STORE_EV_NODE_GONE:
	case STORE_EV_NODE_BACK:
		return GW_CAT_NODE;
	case STORE_EV_SM_MASTER:
		return GW_CAT_SM;
	case STORE_EV_THRESHOLD:
		return GW_CAT_THRESHOLD;
	case STORE_EV_SUB_LOST:
	case STORE_EV_SUB_RESTORED:
		return GW_CAT_SUBSCRIPTION;
	case STORE_EV_TRAP:
		return GW_CAT_TRAP;
	case STORE_EV_LINK_DEGRADED:
	case STORE_EV_LINK_RESTORED:
	case STORE_EV_TOPO_MISMATCH:
	case STORE_EV_TOPO_MATCH:
	case STORE_EV_PORT_HEALTH:
		return GW_CAT_HEALTH;
	}
	return GW_CAT_GATEWAY;
}

static int
wants(const struct nt_target *t, const struct store_event *ev)
{
	const struct store_node *n;

	if (!(t->c->events & category(ev->type)))
		return 0;
	if (ev->node_guid == 0 || !t->c->nodes.set)
		return 1;
	/* A tenant hears about its nodes only. */
	n = store_node_by_guid(ev->node_guid);
	return n != NULL && store_select_match(&t->c->nodes, n);
}

/* ifLinkUpDownTrapEnable (RFC 2863), from notify.link-updown-disabled. */
int
gw_notify_updown_enabled(const struct store_node *n, int port)
{
	if (nt_conf == NULL || n == NULL)
		return 1;
	for (int i = 0; i < nt_conf->nupdown_off; i++) {
		const struct gw_updown_off *u = &nt_conf->updown_off[i];

		if (u->nodes.set &&
		    !store_select_match(&u->nodes, n))
			continue;
		if (u->any_port || (u->ports[port / 8] >> (port % 8) & 1))
			return 0;
	}
	return 1;
}

/* ---- Sending */

static void send_head(struct nt_target *t);

static int
inform_cb(int op, netsnmp_session *ss, int reqid, netsnmp_pdu *pdu,
    void *magic)
{
	uint64_t gen = (uint64_t)(uintptr_t)magic;
	struct nt_target *t = NULL;

	(void)ss;
	(void)reqid;
	(void)pdu;
	/* An entry is NULL while a reload or the stop takes its target out:
	 * closing a session calls this for the inform it had out. */
	for (size_t i = 0; i < nt_n; i++)
		if (nt_targets[i] != NULL && nt_targets[i]->busy &&
		    nt_targets[i]->gen == gen)
			t = nt_targets[i];
	if (t == NULL)
		return 1;	/* a target reloaded away */
	t->busy = 0;
	if (op == NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE) {
		t->st.acked++;
		store_event_queue_del(t->name, t->q[t->qhead].seq);
		t->qhead = (t->qhead + 1) % t->qcap;
		t->qn--;
		t->backoff_ms = 0;
		send_head(t);
		return 1;
	}
	/* Unanswered after the session's retries: the same inform again,
	 * later. */
	t->st.failed++;
	t->backoff_ms = t->backoff_ms ? t->backoff_ms * 2 : RETRY_MIN_MS;
	if (t->backoff_ms > RETRY_MAX_MS)
		t->backoff_ms = RETRY_MAX_MS;
	if (t->st.failed == 1 || t->backoff_ms == RETRY_MAX_MS)
		log_warnx("notify: target %s does not acknowledge informs; "
		    "%zu waiting, trying again in %u s", t->name, t->qn,
		    t->backoff_ms / 1000);
	ev_timer_add(&t->timer, t->backoff_ms);
	return 1;
}

static void
retry_cb(void *arg)
{
	struct nt_target *t = arg;

	t->st.retried++;
	send_head(t);
}

static void
send_head(struct nt_target *t)
{
	netsnmp_pdu *pdu;

	if (nt_paused || t->busy || t->qn == 0 || t->ss == NULL ||
	    ev_timer_pending(&t->timer))
		return;
	if ((pdu = build(t, &t->q[t->qhead], 1)) == NULL) {
		store_event_queue_del(t->name, t->q[t->qhead].seq);
		t->qhead = (t->qhead + 1) % t->qcap;
		t->qn--;
		send_head(t);
		return;
	}
	t->gen = ++nt_gen;
	if (snmp_async_send(t->ss, pdu, inform_cb,
	    (void *)(uintptr_t)t->gen) == 0) {
		snmp_free_pdu(pdu);
		t->st.failed++;
		t->backoff_ms = RETRY_MAX_MS;
		ev_timer_add(&t->timer, t->backoff_ms);
		return;
	}
	t->busy = 1;
	t->st.sent++;
}

static void
enqueue(struct nt_target *t, const struct store_event *ev)
{
	if (t->qcap == 0)
		return;
	if (t->qn == t->qcap) {
		/* Full: the oldest not on the wire goes. */
		size_t drop = t->busy ? (t->qhead + 1) % t->qcap : t->qhead;

		if (t->busy && t->qn == 1)
			return;
		store_event_queue_del(t->name, t->q[drop].seq);
		for (size_t i = drop; i != (t->qhead + t->qn - 1) % t->qcap;
		    i = (i + 1) % t->qcap)
			t->q[i] = t->q[(i + 1) % t->qcap];
		t->qn--;
		if (t->st.dropped++ == 0)
			log_warnx("notify: target %s: inform queue full (%zu); "
			    "the oldest are dropped", t->name, t->qcap);
	}
	t->q[(t->qhead + t->qn) % t->qcap] = *ev;
	t->qn++;
	store_event_queue_add(t->name, ev->seq);
	send_head(t);
}

static void
deliver(const struct store_event *ev, void *arg)
{
	(void)arg;
	if (nt_paused)
		return;
	if ((ev->type == STORE_EV_LINK_DOWN || ev->type == STORE_EV_LINK_UP) &&
	    !gw_notify_updown_enabled(store_node_by_guid(ev->node_guid),
	    ev->port))
		return;
	for (size_t i = 0; i < nt_n; i++) {
		struct nt_target *t = nt_targets[i];
		netsnmp_pdu *pdu;

		if (!wants(t, ev)) {
			t->st.filtered++;
			continue;
		}
		if (t->c->inform) {
			enqueue(t, ev);
			continue;
		}
		if (t->ss == NULL || (pdu = build(t, ev, 0)) == NULL)
			continue;
		if (snmp_send(t->ss, pdu) == 0) {
			snmp_free_pdu(pdu);
			t->st.failed++;
		} else
			t->st.sent++;
	}
}

/* ---- Targets */

/* Everything a session is made of, to tell whether a reload changed
 * it (secrets included: compared, never logged). */
static char *
session_key(const struct gw_target *c)
{
	char *k = NULL;
	char eid[2 * sizeof(c->engine_id) + 1] = "";

	for (size_t i = 0; i < c->engine_id_len; i++)
		snprintf(eid + 2 * i, 3, "%02x", c->engine_id[i]);
	if (asprintf(&k, "%s|%s|%d|%d|%s|%s|%d|%s|%d|%s|%d|%d", eid, c->address,
	    c->version, c->inform, c->community ? c->community : "",
	    c->user.name ? c->user.name : "", c->user.auth,
	    c->user.auth_pass ? c->user.auth_pass : "", c->user.priv,
	    c->user.priv_pass ? c->user.priv_pass : "", c->timeout_ms,
	    c->retries) == -1)
		return NULL;
	return k;
}

static const char *auth_tok[] = { "", "MD5", "SHA", "SHA-224", "SHA-256",
    "SHA-384", "SHA-512" };
static const char *priv_tok[] = { "", "DES", "AES", "AES-192", "AES-256" };

/* SNMPv3 (RFC 3414 4): a trap's authoritative engine is ours, an
 * inform's the receiver's (from the YAML). Either way it is known, so
 * net-snmp sends no discovery probe (a synchronous wait in our loop)
 * and localizes the keys to it. */
static int
v3_session(netsnmp_session *s, const struct gw_target *c, u_char *eid,
    size_t eidlen)
{
	const struct gw_user *u = &c->user;
	int at = usm_lookup_auth_type(auth_tok[u->auth]);
	oid *ao;
	size_t aolen;

	s->version = SNMP_VERSION_3;
	s->securityName = strdup(u->name);
	s->securityNameLen = strlen(u->name);
	s->securityEngineID = eid;
	s->securityEngineIDLen = eidlen;
	s->securityLevel = u->priv ? SNMP_SEC_LEVEL_AUTHPRIV :
	    SNMP_SEC_LEVEL_AUTHNOPRIV;
	if (at < 0 || (ao = sc_get_auth_oid(at, &aolen)) == NULL)
		return -1;
	s->securityAuthProto = snmp_duplicate_objid(ao, aolen);
	s->securityAuthProtoLen = aolen;
	s->securityAuthKeyLen = USM_AUTH_KU_LEN;
	if (generate_Ku(s->securityAuthProto, aolen,
	    (const u_char *)u->auth_pass, strlen(u->auth_pass),
	    s->securityAuthKey, &s->securityAuthKeyLen) != SNMPERR_SUCCESS)
		return -1;
	if (u->priv) {
		int pt = usm_lookup_priv_type(priv_tok[u->priv]);
		oid *po;
		size_t polen;

		if (pt < 0 || (po = sc_get_priv_oid(pt, &polen)) == NULL)
			return -1;
		s->securityPrivProto = snmp_duplicate_objid(po, polen);
		s->securityPrivProtoLen = polen;
		s->securityPrivKeyLen = USM_PRIV_KU_LEN;
		if (generate_Ku(s->securityAuthProto, aolen,
		    (const u_char *)u->priv_pass, strlen(u->priv_pass),
		    s->securityPrivKey, &s->securityPrivKeyLen) !=
		    SNMPERR_SUCCESS)
			return -1;
	}
	return 0;
}

static int
open_session(struct nt_target *t)
{
	const struct gw_target *c = t->c;
	netsnmp_session s;
	u_char eid[SNMP_MAXBUF_SMALL];
	size_t eidlen = snmpv3_get_engineID(eid, sizeof(eid));

	snmp_sess_init(&s);
	s.peername = c->address;
	s.timeout = (long)c->timeout_ms * 1000;
	s.retries = c->retries;
	if (c->version == 2) {
		s.version = SNMP_VERSION_2c;
		s.community = (u_char *)c->community;
		s.community_len = strlen(c->community);
	} else if (v3_session(&s, c, c->inform ? (u_char *)c->engine_id : eid,
	    c->inform ? c->engine_id_len : eidlen) == -1) {
		log_warnx("notify: target %s: user %s: %s/%s not supported by "
		    "this net-snmp", t->name, c->user.name,
		    auth_tok[c->user.auth], priv_tok[c->user.priv]);
		free(s.securityName);
		free(s.securityAuthProto);
		free(s.securityPrivProto);
		return -1;
	}
	t->ss = snmp_open(&s);
	if (c->version == 3) {
		explicit_bzero(s.securityAuthKey, sizeof(s.securityAuthKey));
		explicit_bzero(s.securityPrivKey, sizeof(s.securityPrivKey));
		free(s.securityName);
		free(s.securityAuthProto);
		free(s.securityPrivProto);
	}
	if (t->ss == NULL) {
		log_warnx("notify: target %s: cannot open %s", t->name,
		    c->address);
		return -1;
	}
	return 0;
}

static void
target_close(struct nt_target *t)
{
	if (t->ss != NULL)
		snmp_close(t->ss);	/* an inform out: inform_cb, ignored */
	t->ss = NULL;
	t->busy = 0;
}

/* removed: by a reload (its queue is dropped), else at the stop (its
 * queue waits in the database for the next start). */
static void
target_free(struct nt_target *t, int removed)
{
	target_close(t);
	ev_timer_del(&t->timer);
	if (t->qn > 0)
		log_info("notify: target %s %s with %zu informs waiting",
		    t->name, removed ? "removed" : "stopped", t->qn);
	free(t->q);
	free(t->key);
	free(t->name);
	free(t);
}

/* Target i out of the list, then freed: its session's close calls
 * inform_cb, which must not find it, nor one freed before it. */
static void
target_take(size_t i, int removed)
{
	struct nt_target *t = nt_targets[i];

	nt_targets[i] = NULL;
	target_free(t, removed);
}

/* The queue to qcap, keeping the newest. */
static int
resize_queue(struct nt_target *t, size_t qcap)
{
	struct store_event *q = NULL;
	size_t n = 0, skip;

	if (qcap == t->qcap)
		return 0;
	if ((q = calloc(qcap, sizeof(*q))) == NULL)
		return -1;
	skip = t->qn > qcap ? t->qn - qcap : 0;
	for (size_t i = 0; i < skip; i++)
		store_event_queue_del(t->name, t->q[(t->qhead + i) %
		    t->qcap].seq);
	for (size_t i = skip; i < t->qn; i++)
		q[n++] = t->q[(t->qhead + i) % t->qcap];
	t->st.dropped += skip;
	free(t->q);
	t->q = q;
	t->qcap = qcap;
	t->qhead = 0;
	t->qn = n;
	t->busy = 0;		/* the one out is sent again */
	return 0;
}

/* A target new to this process takes up the informs its name left
 * waiting in the database (a restart, an upgrade). */
static void
queue_restore(struct nt_target *t)
{
	if (t->qcap == 0 || (t->qn = store_event_queue_load(t->name, t->q,
	    t->qcap)) == 0)
		return;
	t->qhead = 0;
	log_info("notify: target %s: %zu informs waiting from before the "
	    "restart", t->name, t->qn);
}

void
gw_notify_pause(int paused)
{
	nt_paused = paused;
	if (paused)
		return;
	for (size_t i = 0; i < nt_n; i++) {
		struct nt_target *t = nt_targets[i];

		/* An inform out before the pause is answered to nobody
		 * (busy 0): it goes again from the queue. */
		t->busy = 0;
		t->qn = 0;
		t->qhead = 0;
		ev_timer_del(&t->timer);
		t->backoff_ms = 0;
		queue_restore(t);
		send_head(t);
	}
}

/* The queues of the inform targets stay in the database, no other. */
static void
queues_keep(struct nt_target **nt, size_t n)
{
	const char **names = calloc(n ? n : 1, sizeof(*names));
	size_t k = 0;

	if (names == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		if (nt[i]->c->inform)
			names[k++] = nt[i]->name;
	store_event_queue_keep(names, k);
	free(names);
}

int
gw_notify_config(const struct gw_conf *c)
{
	struct nt_target **nt;
	size_t n = 0;

	if ((nt = calloc(c->ntargets ? c->ntargets : 1, sizeof(*nt))) == NULL)
		return -1;
	for (int i = 0; i < c->ntargets; i++) {
		const struct gw_target *tc = &c->targets[i];
		struct nt_target *t = NULL;
		char *key = session_key(tc);
		int fresh = 0;

		for (size_t j = 0; j < nt_n; j++)
			if (nt_targets[j] && strcmp(nt_targets[j]->name,
			    tc->name) == 0) {
				t = nt_targets[j];
				nt_targets[j] = NULL;
			}
		if (t == NULL) {
			if ((t = calloc(1, sizeof(*t))) == NULL ||
			    (t->name = strdup(tc->name)) == NULL) {
				free(t);
				free(key);
				continue;
			}
			ev_timer_init(&t->timer, retry_cb, t);
			fresh = 1;
		}
		t->c = tc;
		if (key == NULL || t->key == NULL || strcmp(key, t->key) != 0) {
			target_close(t);
			free(t->key);
			t->key = key;
			(void)open_session(t);	/* logged; no session: no
						 * notification until fixed */
		} else
			free(key);
		if (resize_queue(t, tc->inform ? (size_t)tc->queue : 0) == -1)
			log_warn("notify: target %s", t->name);
		else if (fresh)
			queue_restore(t);
		nt[n++] = t;
		send_head(t);
	}
	for (size_t j = 0; j < nt_n; j++)
		if (nt_targets[j] != NULL)
			target_take(j, 1);
	free(nt_targets);
	nt_targets = nt;
	nt_n = n;
	nt_conf = c;
	queues_keep(nt, n);
	return 0;
}

int
gw_notify_init(const struct gw_conf *c)
{
	store_event_listen(deliver, NULL);
	return gw_notify_config(c);
}

void
gw_notify_finalise(void)
{
	store_event_listen(NULL, NULL);
	for (size_t i = 0; i < nt_n; i++)
		target_take(i, 0);
	free(nt_targets);
	nt_targets = NULL;
	nt_n = 0;
	nt_conf = NULL;
}

size_t
gw_notify_count(void)
{
	return nt_n;
}

const struct gw_target *
gw_notify_target(size_t i, struct gw_notify_stats *st)
{
	if (i >= nt_n)
		return NULL;
	*st = nt_targets[i]->st;
	st->queued = nt_targets[i]->qn;
	return nt_targets[i]->c;
}
