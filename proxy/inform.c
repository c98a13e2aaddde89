/* proxy_inform: the master SM's events (IBA 13.4.8). The gateway
 * subscribes at the SA with SubnAdmSet(InformInfo) (15.4.3, attribute
 * 0x0003) to the SMA traps (14.2.5.1: 128-131, 144, 145, and 256-259
 * when it holds the SA key) and to the SM's GID in/out of service
 * (64, 65), answers every Report(Notice) with ReportResp (13.4.8.2) and
 * posts it to the event stream. A Trap 128 also reads the switch's
 * ports' PortInfo at once, so link changes are events within
 * milliseconds rather than at the next sweep.
 *
 * Every sweep checks the subscription with SubnAdmGetTable(
 * InformInfoRecord) for our port GID; gone (the SM restarted), or made
 * at another master, it is made again, and subscription-lost and
 * -restored are posted. Nothing here blocks: every MAD goes through the
 * engine with its caps, timeout and retries. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "codec/attr.h"
#include "codec/be.h"
#include "codec/smp.h"
#include "proxy/discover.h"
#include "proxy/inform.h"
#include "proxy/mad.h"
#include "proxy/portread.h"
#include "proxy/reread.h"
#include "proxy/route.h"
#include "proxy/sa.h"
#include "store/events.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"

#define ATTR_NOTICE		0x0002	/* IBA 13.4.8.2 Table 106 */
#define ATTR_INFORM_INFO	0x0003	/* 13.4.8.3 Table 107 */
#define ATTR_INFORM_RECORD	0x00f3	/* 15.2.5.12 Table 214 */
#define INFORM_LEN		36
#define NOTICE_OFFS		IB_SA_DATA_OFFS	/* 56: after the SA header */
#define NOTICE_LEN		80
#define RETRY_MS		10000	/* after failed subscriptions: at most */
#define RETRY_FIRST_MS		1000	/*   the first, doubling */

static const uint16_t sub_traps[] = { 64, 65, 128, 129, 130, 131, 144, 145,
    256, 257, 258, 259 };
#define NTRAPS	(sizeof(sub_traps) / sizeof(sub_traps[0]))

enum sub_state { SUB_OFF, SUB_PENDING, SUB_UP, SUB_FAILED };

static int		 inf_on;
static enum sub_state	 inf_state;
static uint16_t		 inf_sm_lid;	/* where the subscription is */
static unsigned		 inf_pending, inf_ok, inf_failed;
static uint32_t		 inf_gen;	/* of the current round */
static int		 inf_lost;	/* restored is news */
static int		 inf_inited;
static int		 inf_verifying;
static int		 inf_verify_fails;	/* unanswered checks in a row */
static unsigned		 inf_retry_ms = RETRY_FIRST_MS;
static uint32_t		 inf_act_count;	/* the master's ActCount, last read */
static uint16_t		 inf_act_lid;	/*   at this LID (0: none yet) */
static int		 inf_act_suspect;	/* it went back: the SA decides */
static struct ev_timer	 inf_timer;
static struct ev_timer	 inf_master_timer;
static unsigned		 inf_master_ms;	/* events.master-check-ms */
static int		 inf_master_reading;
static struct proxy_inform_stats inf_st;

static void	subscribe(void);
static void	check_subscription(void);
static int	report_cb(void *arg, const void *req, const uint8_t *mad,
		    size_t len);

/* ---- Events */

static void
post(int type, const struct store_node *n, uint8_t port, uint16_t lid,
    uint16_t trap, const uint8_t *data, size_t dlen, const char *text)
{
	struct store_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint8_t)type;
	ev.source = STORE_SRC_SM;
	ev.node_guid = n ? n->guid : 0;
	ev.port = port;
	ev.lid = lid;
	ev.trap = trap;
	if (data != NULL)
		memcpy(ev.data, data, dlen < sizeof(ev.data) ? dlen :
		    sizeof(ev.data));
	snprintf(ev.text, sizeof(ev.text), "%s%s%s", n ?
	    store_node_ident(n) : "", n ? ": " : "", text);
	store_event_post(&ev);
}

static void
post_sub(int type, const char *text)
{
	post(type, NULL, 0, inf_sm_lid, 0, NULL, 0, text);
}

/* ---- Reports (IBA 13.4.8.2) */

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The node and port a Notice is about (its data details, 14.2.5.1
 * Tables 120-126, 15.2.5.1 for 64/65); the issuer's if none. */
static const struct store_node *
notice_node(const uint8_t *nt, uint16_t trap, uint16_t *lid, uint8_t *port)
{
	const uint8_t *dd = nt + 10;
	const struct store_node *n = NULL;
	uint64_t g = 0;

	*port = 0;
	*lid = 0;
	switch (trap) {
	case 64: case 65:			/* GIDADDR */
		for (int i = 8; i < 16; i++)
			g = g << 8 | dd[6 + i];
		if ((n = proxy_route_port_owner(g, port)) != NULL)
			*lid = n->ports[*port].lid;
		return n;
	case 128:				/* LIDADDR: the switch */
		*lid = be16(dd);
		break;
	case 129: case 130: case 131:
		*lid = be16(dd + 2);
		*port = dd[4];
		break;
	default:				/* LIDADDR (1) */
		*lid = be16(dd + 2);
		break;
	}
	if (*lid == 0)
		*lid = be16(nt + 6);		/* IssuerLID */
	n = store_node_by_lid(*lid);
	if (n != NULL && *port == 0 && n->type != STORE_NODE_SWITCH)
		for (int p = 1; p <= n->num_ports; p++)
			if (n->ports[p].lid == *lid)
				*port = (uint8_t)p;
	return n;
}

static void
notice_post(const uint8_t *nt, uint16_t trap, const struct store_node *n,
    uint16_t lid, uint8_t port)
{
	char text[64];

	snprintf(text, sizeof(text), "trap %u (LID %u%s)", trap, lid,
	    n ? "" : ", not in the inventory");
	/* The Notice from ProducerType on (store/events.h). */
	post(STORE_EV_TRAP, n, port, lid, trap, nt + 1, NOTICE_LEN - 1 - 16,
	    text);
	if (trap == 128 && n != NULL && n->type == STORE_NODE_SWITCH)
		proxy_portread_switch(n, lid);
	/* 64/65: the port's GID is in or out of service (15.2.5.1): a
	 * CA port that went Active, or down. */
	if ((trap == 64 || trap == 65) && n != NULL && port != 0 &&
	    port <= n->num_ports && n->type != STORE_NODE_SWITCH)
		(void)proxy_portread_link_changed(n, port, lid,
		    trap == 65 ? 1 : 4, trap);
	/* What the inventory and the fabric view hold changed: the ports
	 * named are read into it (proxy/reread.c), or a sweep soon where
	 * that cannot be done, in place of the periodic ones. */
	switch (trap) {
	case 64: case 65:
		proxy_reread_ca_port(n != NULL && n->type != STORE_NODE_SWITCH ?
		    n->guid : 0, port, trap == 64);
		break;
	case 128:
		if (n == NULL || n->type != STORE_NODE_SWITCH)
			proxy_discover_event("trap 128, link state");
		break;
	case 144:
		/* Capabilities or NodeDescription changed (14.2.5.1):
		 * the sweep it asks for reads every description. */
		proxy_discover_desc_changed();
		proxy_discover_event("trap 144, capabilities or description");
		break;
	case 145:
		proxy_discover_event("trap 145, system image GUID");
		break;
	}
}

/* A port GID the inventory does not know (the sweep cannot read a CA's
 * port whose link was down): its NodeRecord (15.2.5.2) by PortGUID,
 * component 8. */
struct gid_lookup {
	uint8_t		notice[NOTICE_LEN];
};

static void
gid_cb(void *arg, int status, const uint8_t *recs, size_t n, size_t stride,
    size_t announced)
{
	struct gid_lookup *gl = arg;
	const struct store_node *node = NULL;
	uint16_t lid = 0;
	uint8_t port = 0;

	(void)stride;
	(void)announced;
	if (status == 0 && n >= 1) {
		uint64_t g = 0;

		for (int i = 16; i < 24; i++)	/* NodeInfo.NodeGUID */
			g = g << 8 | recs[i];
		node = store_node_by_guid(g);
		lid = be16(recs);
		port = recs[40];		/* NodeInfo.LocalPortNum */
	}
	notice_post(gl->notice, be16(gl->notice + 4), node, lid, port);
	free(gl);
}

static int
lookup_gid(const uint8_t *nt)
{
	struct gid_lookup *gl = malloc(sizeof(*gl));
	uint8_t rec[44];

	if (gl == NULL)
		return -1;
	memcpy(gl->notice, nt, NOTICE_LEN);
	memset(rec, 0, sizeof(rec));
	memcpy(rec + 24, nt + 10 + 6 + 8, 8);	/* GIDADDR's GUID */
	if (proxy_sa_query(PROXY_SA_GET_TABLE, 0x0011, 1ull << 8, rec,
	    sizeof(rec), 44, gid_cb, gl) == -1) {
		free(gl);
		return -1;
	}
	return 0;
}

int
proxy_inform_report(const void *req, const uint8_t *mad, size_t len)
{
	return report_cb(NULL, req, mad, len);
}

/* Where Reports may come from: the SM we subscribed at; before our
 * first subscription, the master SM. A subscription is the port's, not
 * the process's (13.4.8.3: GID or LID, QPN), so one made by the
 * gateway before a restart delivers to this one at once. */
static uint16_t
report_sm(void)
{
	uint64_t key = 0;

	return inf_sm_lid != 0 ? inf_sm_lid : proxy_sa_master_lid(&key);
}

static int
report_cb(void *arg, const void *req, const uint8_t *mad, size_t len)
{
	uint8_t resp[PROXY_MAD_SIZE];
	const uint8_t *nt = mad + NOTICE_OFFS;
	const struct store_node *n;
	uint16_t trap, lid, sm;
	uint8_t port;

	(void)arg;
	if (len < 24 || mad[1] != IB_SA_CLASS ||
	    mad[3] != IB_MAD_METHOD_REPORT ||
	    be16(mad + 16) != ATTR_NOTICE)
		return -1;
	if (req != NULL && proxy_mad_request_slid(req) != (sm = report_sm())) {
		static struct log_limit lim;

		/* Reports come from the SA we subscribed at (13.4.8.2);
		 * the source LID is the sending port's, set by its HCA.
		 * Another port's would post made-up link events and cost
		 * a switch's PortInfo reads each: not answered, dropped. */
		inf_st.foreign++;
		log_limited(&lim, LOG_WARNING, "inform: Report from LID %u "
		    "dropped: the master SM is LID %u",
		    proxy_mad_request_slid(req), sm);
		return 0;
	}
	inf_st.reports++;
	if (len < NOTICE_OFFS + NOTICE_LEN || !(nt[0] & 0x80)) {
		/* Too short, or a vendor Notice (IsGeneric 0): answered
		 * all the same, so the SA does not resend it. */
		static struct log_limit lim;

		inf_st.malformed++;
		log_limited(&lim, LOG_WARNING, "inform: %s Report dropped (%zu "
		    "octets)",
		    len < NOTICE_OFFS + NOTICE_LEN ? "short" : "vendor", len);
	}
	/* ReportResp (13.4.5 Table 104): the Report back, same TID. */
	memset(resp, 0, sizeof(resp));
	memcpy(resp, mad, len < sizeof(resp) ? len : sizeof(resp));
	resp[3] = IB_MAD_METHOD_REPORT_RESPONSE;
	resp[4] = resp[5] = 0;
	if (req != NULL)
		(void)proxy_mad_respond(req, resp, sizeof(resp));
	if (len < NOTICE_OFFS + NOTICE_LEN || !(nt[0] & 0x80))
		return 0;
	trap = be16(nt + 4);
	n = notice_node(nt, trap, &lid, &port);
	if (n == NULL && (trap == 64 || trap == 65) && lookup_gid(nt) == 0)
		return 0;	/* posted when the SA has answered */
	notice_post(nt, trap, n, lid, port);
	return 0;
}

/* ---- Subscribing (13.4.8.3, 15.4.3: SubnAdmSet(InformInfo)) */

void
proxy_inform_encode(uint8_t *d, uint16_t trap, int subscribe)
{
	memset(d, 0, INFORM_LEN);
	d[16] = d[17] = 0xff;		/* LIDRangeBegin 0xFFFF: all LIDs */
	d[22] = 1;			/* IsGeneric */
	d[23] = (uint8_t)subscribe;
	d[24] = d[25] = 0xff;		/* Type: all */
	d[26] = (uint8_t)(trap >> 8);
	d[27] = (uint8_t)trap;
	/* QPN 1 (Reports to QP1), RespTimeValue 19 (~2 s). */
	d[30] = 0x01;
	d[31] = 0x13;
	/* ProducerType: the SM (class manager, 4) for 64/65; any
	 * producer for the SMA traps. */
	if (trap < 128)
		d[35] = 4;
	else
		d[33] = d[34] = d[35] = 0xff;
}

static void
round_done(void)
{
	if (inf_ok == 0 || inf_failed > 0) {
		inf_state = SUB_FAILED;
		proxy_discover_sm_events(0);
		inf_st.failures++;
		static struct log_limit lim;

		log_limited(&lim, LOG_WARNING, "inform: subscription at the "
		    "SM (LID %u) failed for %u of %u traps; again in %.1f s "
		    "(events from sweeps meanwhile)", inf_sm_lid, inf_failed,
		    inf_ok + inf_failed, inf_retry_ms / 1000.0);
		/* A new master's SA may take a moment to answer: tried
		 * again soon, then less often. */
		ev_timer_add(&inf_timer, inf_retry_ms);
		inf_retry_ms = inf_retry_ms * 2 > RETRY_MS ? RETRY_MS :
		    inf_retry_ms * 2;
		return;
	}
	inf_retry_ms = RETRY_FIRST_MS;
	/* The SM we subscribed at counts from here: its ActCount before
	 * (a restart found by a check) is no baseline. */
	inf_act_lid = 0;
	inf_state = SUB_UP;
	inf_st.subscriptions++;
	log_info("inform: subscribed at the SM (LID %u) to %u traps",
	    inf_sm_lid, inf_ok);
	proxy_discover_sm_events(1);
	if (inf_lost) {
		inf_lost = 0;
		post_sub(STORE_EV_SUB_RESTORED, "SM event subscription in "
		    "place again");
		/* What happened while no Report came. */
		proxy_discover_desc_changed();
		proxy_discover_event("SM subscription restored");
	}
}

static void
set_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	(void)mad;
	if ((uint32_t)(uintptr_t)arg != inf_gen)
		return;		/* an older round's */
	if (status == 0)
		inf_ok++;
	else
		inf_failed++;
	if (--inf_pending == 0)
		round_done();
}

/* Traps 256-259 carry keys: the SM gives them to trusted requesters
 * only (15.4.1). */
static int
trap_allowed(uint16_t trap)
{
	return trap < 256 || proxy_mad_has_sa_key();
}

/* SubnAdmSet(InformInfo) of d (INFORM_LEN octets). */
static int
send_info(const uint8_t *d, uint64_t key, uint16_t lid, proxy_mad_cb cb,
    void *arg)
{
	uint16_t trap = (uint16_t)(d[26] << 8 | d[27]);
	struct proxy_mad_args a;

	memset(&a, 0, sizeof(a));
	a.node_key = key;
	a.target.lid = lid;
	a.mgmt_class = IB_SA_CLASS;
	a.method = IB_MAD_METHOD_SET;
	a.attr_id = ATTR_INFORM_INFO;
	a.data = d;
	a.data_len = INFORM_LEN;
	a.sa_trusted = trap >= 256;
	return proxy_mad_submit(&a, cb, arg);
}

static int
send_set(uint16_t trap, int on, uint64_t key, uint16_t lid, proxy_mad_cb cb,
    void *arg)
{
	uint8_t d[INFORM_LEN];

	proxy_inform_encode(d, trap, on);
	return send_info(d, key, lid, cb, arg);
}

static void
subscribe(void)
{
	uint64_t key = 0;
	uint16_t lid = proxy_sa_master_lid(&key);

	ev_timer_del(&inf_timer);
	if (!inf_on || lid == 0 || !proxy_mad_takes_reports())
		return;
	inf_sm_lid = lid;
	inf_state = SUB_PENDING;
	inf_pending = inf_ok = inf_failed = 0;
	inf_gen++;
	for (size_t i = 0; i < NTRAPS; i++) {
		if (!trap_allowed(sub_traps[i]))
			continue;
		inf_pending++;
		if (send_set(sub_traps[i], 1, key, lid, set_cb,
		    (void *)(uintptr_t)inf_gen) == -1) {
			inf_pending--;
			inf_failed++;
		}
	}
	if (inf_pending == 0)
		round_done();
}

static void
unset_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	(void)arg;
	(void)mad;
	if (status != 0)
		log_debug("inform: an unsubscription was not answered");
}

/* Subscribe 0 (13.4.8.3) for every trap we subscribe to; *out counts
 * those sent, raised before each send (an answer may come at once). */
static void
unset_all(uint64_t key, uint16_t lid, proxy_mad_cb cb, unsigned *out)
{
	for (size_t i = 0; i < NTRAPS; i++) {
		if (!trap_allowed(sub_traps[i]))
			continue;
		(*out)++;
		if (send_set(sub_traps[i], 0, key, lid, cb, NULL) == -1)
			(*out)--;
	}
}

/* Events turned off by a reload. */
static void
unsubscribe(void)
{
	uint64_t key = 0;
	uint16_t lid = proxy_sa_master_lid(&key);
	unsigned sent = 0;

	if (lid != 0)
		unset_all(key, lid, unset_cb, &sent);
	log_info("inform: unsubscribed at the SM (LID %u)", lid);
}

/* The port GUID in an InformInfoRecord's SubscriberGID (15.2.5.12). */
static uint64_t
record_guid(const uint8_t *r)
{
	return ld64(r + 8);
}

/* SubnAdmGetTable(InformInfoRecord), every record: SubscriberGID's
 * prefix is the SM's to set, so ours is found by its port GUID. */
static int
read_records(proxy_sa_cb cb)
{
	uint8_t rec[24];

	memset(rec, 0, sizeof(rec));
	return proxy_sa_query(PROXY_SA_GET_TABLE, ATTR_INFORM_RECORD, 0, rec,
	    sizeof(rec), 24, cb, NULL);
}

/* The process stops: Subscribe 0 for every trap (13.4.8.3), so the SM
 * sends no Report to a port about to close, nor keeps resending it to
 * a subscriber that is gone. (Under umad2sim a Report arriving during
 * the exit can hang it: tests/sim/README.md.) Then the SA's records of
 * our port are read back, and any still there (an older subscription
 * the SA keeps in another form: it refuses the Subscribe 0 of ours as
 * matching nothing) is unsubscribed as the SA lists it, a few rounds
 * at most. */
#define LEAVE_ROUNDS		3
#define IIR_INFORM_OFFS		24	/* InformInfo in InformInfoRecord
					   (15.2.5.12 Table 214) */
static unsigned		 inf_leaving;	/* unsubscriptions unanswered */
static unsigned		 inf_leave_round;
static int		 inf_gone;	/* proxy_inform_leave was called */
static void		(*inf_left_fn)(void *);
static void		*inf_left_arg;

static void	leave_read(void);

static void
leave_done(void)
{
	void (*fn)(void *) = inf_left_fn;

	inf_left_fn = NULL;
	if (fn != NULL)
		fn(inf_left_arg);
}

static void
leave_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	(void)arg;
	(void)mad;
	(void)len;
	/* Refused (matching nothing): the read-back finds what is left.
	 * Canceled: the stop's wait ended first (and said so). */
	if (status != 0 && status != -ECANCELED)
		log_debug("inform: an unsubscription at exit was refused: %s",
		    strerror(status < 0 ? -status : status));
	if (inf_leaving > 0 && --inf_leaving == 0 && inf_left_fn != NULL &&
	    status != -ECANCELED)
		leave_read();
}

static void
leave_table_cb(void *arg, int status, const uint8_t *recs, size_t n,
    size_t stride, size_t announced)
{
	struct proxy_local_port lp;
	uint64_t key = 0;
	uint16_t lid = proxy_sa_master_lid(&key);

	(void)arg;
	(void)announced;
	if (status != 0 || lid == 0 || stride < IIR_INFORM_OFFS +
	    INFORM_LEN || proxy_mad_local(&lp) == -1) {
		leave_done();	/* none (-ENOENT), or nothing more to do */
		return;
	}
	inf_leaving++;		/* until all are out: answers may come at once */
	for (size_t i = 0; i < n; i++) {
		const uint8_t *r = recs + i * stride;
		uint8_t d[INFORM_LEN];

		if (record_guid(r) != lp.port_guid)
			continue;
		memcpy(d, r + IIR_INFORM_OFFS, INFORM_LEN);
		d[23] = 0;	/* Subscribe */
		/* QPN: the SA lists none (opensm: 0) and keeps the one the
		 * Set came from, always ours, QP1 (13.4.8.3). */
		d[28] = d[29] = 0;
		d[30] = 0x01;
		log_info("inform: the SA still lists trap %u for us: "
		    "unsubscribing it as listed", d[26] << 8 | d[27]);
		inf_leaving++;
		if (send_info(d, key, lid, leave_cb, NULL) == -1)
			inf_leaving--;
	}
	if (--inf_leaving == 0)
		leave_done();	/* none of ours left */
}

/* Read the SA's records back. */
static void
leave_read(void)
{
	if (inf_leave_round++ >= LEAVE_ROUNDS ||
	    read_records(leave_table_cb) == -1)
		leave_done();
}

unsigned
proxy_inform_leave(void (*left)(void *), void *arg)
{
	uint64_t key = 0;
	uint16_t lid = proxy_sa_master_lid(&key);
	enum sub_state was = inf_state;

	if (!inf_inited)
		return 0;
	inf_gone = 1;
	ev_timer_del(&inf_timer);
	ev_timer_del(&inf_master_timer);
	inf_on = 0;
	inf_state = SUB_OFF;
	inf_gen++;		/* a round under way ends unheard */
	/* Pending: its Sets may be taken; the zeroes after them undo it. */
	if ((was != SUB_UP && was != SUB_PENDING) || lid == 0)
		return 0;
	inf_leaving = 0;
	inf_leave_round = 0;
	inf_left_fn = NULL;
	unset_all(key, lid, leave_cb, &inf_leaving);
	inf_left_fn = left;
	inf_left_arg = arg;
	if (inf_leaving > 0)
		log_info("inform: unsubscribing at the SM (LID %u)", lid);
	return inf_leaving;
}

/* ---- Checking it (15.2.5.12: InformInfoRecord by SubscriberGID) */

static void
lost(const char *why)
{
	inf_st.lost++;
	inf_verify_fails = 0;
	log_warnx("inform: %s: subscribing again", why);
	proxy_discover_sm_events(0);
	if (!inf_lost)
		post_sub(STORE_EV_SUB_LOST, why);
	inf_lost = 1;
	subscribe();
}

static void
verify_cb(void *arg, int status, const uint8_t *recs, size_t n,
    size_t stride, size_t announced)
{
	struct proxy_local_port lp;

	(void)arg;
	inf_verifying = 0;
	if (inf_state != SUB_UP)
		return;
	if (status == 0 || status == -ENOENT)
		inf_act_suspect = 0;	/* the SA said: no need to ask again */
	if (status == -ENOENT || (status == 0 && n == 0)) {
		lost("the SM has no subscription of ours");
		return;
	}
	if (status < 0) {
		/* The SA did not answer. Twice in a row, and the master is
		 * taken for gone (no standby took over, or it has not yet):
		 * subscribing again fails until an SM answers, and sweeps
		 * go back to discovery.interval meanwhile. */
		if (++inf_verify_fails >= 2)
			lost("the SA does not answer");
		return;
	}
	inf_verify_fails = 0;
	if (proxy_mad_local(&lp) == -1)
		return;
	for (size_t i = 0; i < n; i++)
		if (record_guid(recs + i * stride) == lp.port_guid)
			return;
	/* Only part of the table came (no RMPP under ibsim; a pair's or a
	 * fabric manager's subscriptions fill the first MAD): ours may be
	 * in the rest. Not a loss; the other checks still see an SM
	 * that forgot us (a new master, a restart, an empty table). */
	if (n < announced) {
		inf_st.unverified++;
		return;
	}
	lost("the SM lists no subscription of ours");
}

void
proxy_inform_check(void)
{
	uint64_t key = 0;
	uint16_t lid;

	if (!inf_on || inf_state == SUB_PENDING)
		return;
	lid = proxy_sa_master_lid(&key);
	if (inf_state == SUB_OFF || inf_state == SUB_FAILED) {
		subscribe();
		return;
	}
	if (lid != 0 && lid != inf_sm_lid) {
		lost("the master SM moved");
		return;
	}
	check_subscription();
}

/* One GetTable: is our subscription still listed at the master? */
static void
check_subscription(void)
{
	struct proxy_local_port lp;

	if (inf_state != SUB_UP || inf_verifying ||
	    proxy_mad_local(&lp) == -1)
		return;
	inf_verifying = 1;
	if (read_records(verify_cb) == -1)
		inf_verifying = 0;
}

static void
timer_cb(void *arg)
{
	(void)arg;
	if (inf_state == SUB_FAILED)
		subscribe();
}

/* ---- A new master or a restarted one
 *
 * A standby takes over within seconds of the master's death (and sets
 * MasterSMLID in every port, IBA 14.4.8); a restarted SM has forgotten
 * every subscription. A light check comes only every discovery.interval
 * (300 s by default): Reports would go unforwarded that long. So every
 * events.master-check-ms / 2 one local or nearly local SMP, in turn:
 *  - our own port's PortInfo: another MasterSMLID than the one we
 *    subscribed at is a new master: subscribe there at once;
 *  - the master's SMInfo (14.2.5.13): ActCount lower than last time
 *    (a restarted SM counts from 0 again), much higher (the SM swept:
 *    a topology change, or a restart whose first sweep overtook the
 *    old count), or an answer after one that did not come asks the SA
 *    whether the subscription still stands (one InformInfoRecord
 *    query); none of ours listed, and it is made again.
 * Each round of the two ends with the subscription round's own sweep
 * where one was made (sm-master, and what changed meanwhile). */

#define MASTER_ACT_JUMP		64	/* ActCount steps that mean a sweep */
#define MASTER_VERIFY_MS	3000	/* between the queries it asks for */

static uint64_t		 inf_act_verified;	/* ms: the last it asked */

static unsigned		 inf_master_tick;
static int		 inf_act_missed;	/* a read since went unanswered */

/* Only where Reports can come: with none to receive there is no
 * subscription to keep, and each sweep reads our MasterSMLID anyway. */
static void
master_arm(void)
{
	if (inf_on && inf_master_ms > 0 && proxy_mad_takes_reports() &&
	    !ev_timer_pending(&inf_master_timer))
		ev_timer_add(&inf_master_timer, inf_master_ms / 2);
}

static void
master_read(void *arg)
{
	uint64_t key = 0;
	uint16_t lid = proxy_sa_master_lid(&key);

	(void)arg;
	inf_master_reading = 0;
	if (inf_on && lid != 0 && inf_sm_lid != 0 && lid != inf_sm_lid) {
		inf_retry_ms = RETRY_FIRST_MS;
		if (inf_state == SUB_UP)
			lost("the master SM moved");
		else if (inf_state == SUB_FAILED || inf_state == SUB_PENDING) {
			/* Still trying the old one: the new one now (a
			 * new round; the old round's answers are ignored). */
			log_notice("inform: the master SM moved to LID %u; "
			    "subscribing there", lid);
			inf_lost = 1;
			subscribe();
		}
	}
	master_arm();
}

static void
sminfo_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct smp_sminfo sm;
	uint16_t lid = (uint16_t)(uintptr_t)arg;
	uint32_t was = inf_act_count;
	int known = inf_act_lid == lid;

	inf_master_reading = 0;
	if (!inf_on)
		return;
	/* Unanswered or not (yet) master: dead, restarting, or replaced
	 * (the PortInfo read finds a new one). The count is kept: the
	 * next answer is compared with it. */
	if (status != 0 || smp_decode_sminfo(mad + SMP_DATA_OFFS,
	    SMP_DATA_SIZE, &sm) == -1 || sm.state != 3) {
		inf_act_missed = 1;
		master_arm();
		return;
	}
	inf_act_lid = lid;
	inf_act_count = sm.act_count;
	if (known && lid == inf_sm_lid && inf_state == SUB_UP) {
		/* Gone back: restarted, most likely. The SA's list of our
		 * subscriptions decides (one query, asked at every read
		 * until it answers), not one SMInfo answer, which a broken
		 * or hostile port could fake. */
		if (sm.act_count < was && was - sm.act_count < 0x80000000u) {
			log_debug("inform: the master SM's ActCount went back "
			    "from %u to %u", was, sm.act_count);
			inf_act_suspect = 1;
		}
		/* At most one such query every MASTER_VERIFY_MS: answers
		 * that keep changing (a broken port) cost no more. */
		if ((inf_act_suspect || inf_act_missed ||
		    sm.act_count - was > MASTER_ACT_JUMP) &&
		    ev_now() - inf_act_verified >= MASTER_VERIFY_MS) {
			inf_act_verified = ev_now();
			inf_act_missed = 0;
			check_subscription();
		}
	} else
		inf_act_missed = 0;	/* another SM, or not subscribed */
	master_arm();
}

static int
read_sminfo(void)
{
	struct proxy_mad_args a;
	uint64_t key = 0;
	uint16_t lid = proxy_sa_master_lid(&key);

	if (lid == 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.node_key = key;
	a.target.lid = lid;
	a.mgmt_class = ATTR_CLASS_SMI;
	a.method = SMP_METHOD_GET;
	a.attr_id = SMP_ATTR_SM_INFO;
	a.optional = 1;
	return proxy_mad_submit(&a, sminfo_cb, (void *)(uintptr_t)lid);
}

static void
master_timer_cb(void *arg)
{
	int rc;

	(void)arg;
	if (!inf_on || inf_master_reading)
		return;
	inf_master_reading = 1;
	inf_st.master_checks++;
	if (inf_master_tick++ % 2 == 0)
		rc = proxy_sa_check_master(master_read, NULL);
	else
		rc = read_sminfo();
	if (rc == -1) {
		inf_master_reading = 0;
		master_arm();
	}
}

void
proxy_inform_set_master_check(unsigned ms)
{
	inf_master_ms = ms;
	ev_timer_del(&inf_master_timer);
	if (!inf_master_reading)
		master_arm();
}

int
proxy_inform_init(int on)
{
	inf_on = on;
	inf_gone = 0;
	inf_state = SUB_OFF;
	ev_timer_init(&inf_timer, timer_cb, NULL);
	ev_timer_init(&inf_master_timer, master_timer_cb, NULL);
	inf_inited = 1;
	proxy_mad_on_request(IB_SA_CLASS, report_cb, NULL);
	if (on && !proxy_mad_takes_reports())
		log_warnx("inform: SA Reports cannot be received: SM events "
		    "off");
	return 0;
}

void
proxy_inform_set(int on)
{
	/* A reload in the stop's last second subscribes nothing again. */
	if (on == inf_on || inf_gone)
		return;
	inf_on = on;
	if (!on) {
		ev_timer_del(&inf_timer);
		ev_timer_del(&inf_master_timer);
		if (inf_state == SUB_UP)
			unsubscribe();
		inf_state = SUB_OFF;
		inf_gen++;
		proxy_discover_sm_events(0);
	} else {
		subscribe();
		master_arm();
	}
}

void
proxy_inform_finalise(void)
{
	if (!inf_inited)
		return;		/* an init failure before ours */
	inf_inited = 0;
	ev_timer_del(&inf_timer);
	ev_timer_del(&inf_master_timer);
	proxy_mad_on_request(IB_SA_CLASS, NULL, NULL);
	inf_on = 0;
}

void
proxy_inform_get_stats(struct proxy_inform_stats *st)
{
	*st = inf_st;
	st->state = inf_state == SUB_UP ? "up" : inf_state == SUB_PENDING ?
	    "subscribing" : inf_state == SUB_FAILED ? "failed" : "off";
	st->sm_lid = inf_sm_lid;
}
