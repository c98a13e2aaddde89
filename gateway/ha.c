/* gw_ha: the standby pair's roles (docs/ha.md). keepalived decides who
 * is active and says so through `ctl ha master|backup|yield|fault`; this file
 * makes the change: what a standby keeps closed, and a promotion that
 * managers see as one agent's clean restart (RFC 3414 2.2.2: boots up,
 * on disk before the listener answers). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gateway/ha.h"
#include "gateway/ha_int.h"
#include "gateway/notify.h"
#include "gateway/snmp.h"
#include "proxy/poller.h"
#include "store/counters.h"
#include "store/events.h"
#include "store/schema.h"
#include "util/ev.h"
#include "util/log.h"

#define PEER_BOOTS_KEY	"ha-peer-boots"

static struct ha_conf	 ha_hc;
static int		 ha_on;
static int		 ha_linked;	/* gw_ha_stop is due */
static enum repl_role	 ha_role = REPL_STANDALONE;
static const struct gw_conf *ha_conf;
static uint32_t		 ha_peer_boots;
static char		 ha_last_active[64];	/* the peer, when it was */
/* keepalived made this node BACKUP while it was the only active (ctl ha
 * yield): it stays active until a HELLO shows an active peer. */
static int		 ha_yield_pending;
/* The events this node posted while active (seq above ha_promote_seq),
 * kept at its demotion: its history is replaced by the new active's
 * snapshot, and in a split brain the new active never had them. */
static uint64_t		 ha_promote_seq;
static struct store_event *ha_handover;
static size_t		 ha_nhandover;
static const struct gw_ha_subnets *ha_subnets;

static void
peer_boots(uint32_t boots)
{
	if (boots <= ha_peer_boots)
		return;
	ha_peer_boots = boots;
	/* On disk: a standby restarted after its active died must still
	 * promote above the boots managers saw. */
	if (store_meta_put_int(PEER_BOOTS_KEY, boots, 1) == -1)
		log_warnx("ha: the peer's boots (%u) could not be stored",
		    boots);
}

static void	stand_down(enum repl_role r);
static void	refresh(void);

static void
post_ha_event(int type, const char *other, const char *text)
{
	struct store_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint8_t)type;
	ev.source = STORE_SRC_GATEWAY;
	snprintf((char *)ev.data, 32, "%.31s", other);
	snprintf((char *)ev.data + 32, 32, "%.31s", ha_hc.name);
	snprintf(ev.text, sizeof(ev.text), "%s", text);
	store_event_post(&ev);
}

static void
peer_role(enum repl_role r, const char *name)
{
	struct repl_status *st = store_repl_status();
	char text[128];

	if (r == REPL_ACTIVE)
		snprintf(ha_last_active, sizeof(ha_last_active), "%s", name);
	if (r != REPL_ACTIVE || ha_role != REPL_ACTIVE) {
		st->split_brain = 0;
		return;
	}
	/* Two actives: both say so (each hears the other's HELLO). */
	if (!st->split_brain) {
		log_warnx("ha: split brain: the peer %s is active too; "
		    "keepalived must demote one (ctl ha backup)", name);
		snprintf(text, sizeof(text), "split brain: %.32s and %.32s are both "
		    "active", ha_hc.name, name);
		post_ha_event(STORE_EV_HA_SPLIT_BRAIN, name, text);
	}
	st->split_brain = 1;
	/* Not ha_link_reset(): its reconnect at the next tick would find
	 * the same active again twice a second, on both sides. */
	ha_link_drop();
	if (ha_yield_pending) {
		log_info("ha: keepalived made this node BACKUP and %s is "
		    "active: standing down", name);
		ha_yield_pending = 0;
		ha_link_unsync();
		stand_down(REPL_STANDBY);
	}
}

/* ---- A split brain's events, handed over when it ends */

static void
handover_free(void)
{
	free(ha_handover);
	ha_handover = NULL;
	ha_nhandover = 0;
}

/* A node demoted from active (a split brain's end, or a switchover),
 * once the new active's snapshot is in: the events it posted while
 * active go to the new active, which keeps those it lacks. */
static void
hand_over(const char *peer)
{
	uint8_t b[256];
	size_t n = 0;

	for (size_t i = 0; i < ha_nhandover; i++) {
		struct repl_w w = { b, 0, sizeof(b), 0 };

		store_repl_event_put(&w, &ha_handover[i]);
		if (w.over || ha_link_send(REPL_HANDOVER, b, w.n) == -1)
			break;
		n++;
	}
	if (n > 0)
		log_info("ha: handed %zu events of the time this node was "
		    "active to %s", n, peer);
	handover_free();
}

/* Whether the active's history has the event already: the same kind
 * about the same port within 10 s (both gateways saw the fabric's
 * events), or the very one (replicated before the split). A gateway's
 * own events differ by their text, which names it. */
static int
have_event(const struct store_event *x)
{
	for (size_t i = store_event_count(); i-- > 0;) {
		const struct store_event *e = store_event_at(i);
		int64_t d = e->when - x->when;

		if (e->type != x->type || e->node_guid != x->node_guid ||
		    e->port != x->port || e->trap != x->trap ||
		    d > 10000 || d < -10000)
			continue;
		if (x->source != STORE_SRC_GATEWAY ||
		    strcmp(e->text, x->text) == 0)
			return 1;
	}
	return 0;
}

/* An event the peer handed over (REPL_HANDOVER): kept here, marked with
 * the gateway that posted it, unless this history has it. */
static void
adopt(const struct store_event *x, const char *peer)
{
	struct store_event ev = *x;
	char tag[48];
	size_t t, room;

	if (ha_role != REPL_ACTIVE || have_event(x))
		return;
	snprintf(tag, sizeof(tag), " [%.24s, split brain]", peer);
	room = sizeof(ev.text) - 1 - strlen(tag);
	if ((t = strnlen(x->text, sizeof(x->text))) > room)
		t = room;
	memcpy(ev.text, x->text, t);
	memcpy(ev.text + t, tag, strlen(tag) + 1);
	ev.seq = 0;
	store_event_adopt(&ev);
	log_info("ha: kept an event %s posted in the split brain (%s)", peer,
	    store_event_type_name(ev.type));
}

/* ---- Roles */

/* At a demotion: the events posted since the promotion, the newest of
 * the history (oldest first, seq rising). */
static void
collect_handover(void)
{
	size_t n = store_event_count(), k = 0;

	handover_free();
	while (k < n && store_event_at(n - 1 - k)->seq > ha_promote_seq)
		k++;
	if (k == 0 || (ha_handover = calloc(k, sizeof(*ha_handover))) == NULL)
		return;
	for (size_t i = n - k; i < n; i++)
		ha_handover[ha_nhandover++] = *store_event_at(i);
}

/* Standby or fault: nothing goes out but the sweeps' MADs. */
static void
stand_down(enum repl_role r)
{
	if (ha_role == REPL_ACTIVE)
		collect_handover();
	ha_role = r;
	store_repl_status()->role = r;
	store_repl_status()->split_brain = 0;
	gw_snmp_listeners_pause(ha_conf, 1);
	proxy_poll_pause(1);
	gw_notify_pause(1);
	store_event_set_replica(1);
	counters_flush();
}

/* The promotion: boots first (on disk), then the replicated state, then
 * the listener, the poller and the informs that wait. */
static int
promote(int failover)
{
	char text[128];

	if (gw_snmp_engine_boots_raise(ha_peer_boots) == -1) {
		log_warnx("ha: not promoted: the engine boots could not be "
		    "stored");
		return -1;
	}
	ha_role = REPL_ACTIVE;
	store_repl_status()->role = REPL_ACTIVE;
	store_event_set_replica(0);
	ha_promote_seq = store_event_last_seq();
	if (counters_repl_reload() == -1)
		log_warnx("ha: the replicated accumulators could not all be "
		    "loaded; the database's are served");
	if (gw_snmp_listeners_pause(ha_conf, 0) == -1)
		log_warnx("ha: a listener did not open (see above)");
	proxy_poll_pause(0);
	gw_notify_pause(0);
	log_info("ha: active (engine boots %u%s%s)", gw_snmp_engine_boots(),
	    failover && ha_last_active[0] ? ", took over from " : "",
	    failover ? ha_last_active : "");
	if (failover) {
		snprintf(store_repl_status()->previous,
		    sizeof(store_repl_status()->previous), "%s",
		    ha_last_active);
		/* RFC 3418 coldStart: an agent (re)initialised. */
		snprintf(text, sizeof(text), "ibsnmpgw %.40s took over as "
		    "the active gateway", ha_hc.name);
		post_ha_event(STORE_EV_GW_START, "", text);
		snprintf(text, sizeof(text), "%.40s took over from %.40s",
		    ha_hc.name, ha_last_active[0] ? ha_last_active : "?");
		post_ha_event(STORE_EV_HA_FAILOVER, ha_last_active, text);
	}
	return 0;
}

/* Role r; takeover: an active is a takeover (notified), not a start. */
static int
set_role_as(FILE *f, enum repl_role r, int takeover)
{
	ha_yield_pending = 0;
	if (r == ha_role) {
		fprintf(f, "already %s\n", store_repl_role_name(r));
		return 0;
	}
	ha_link_reset(NULL);
	if (ha_role == REPL_ACTIVE && r != REPL_ACTIVE)
		ha_link_unsync();
	if (r == REPL_ACTIVE) {
		if (promote(takeover) == -1) {
			fprintf(f, "error: not promoted (see the log)\n");
			return 1;
		}
	} else {
		log_info("ha: %s (was %s)", store_repl_role_name(r),
		    store_repl_role_name(ha_role));
		stand_down(r);
	}
	fprintf(f, "%s\n", store_repl_role_name(r));
	return 0;
}

static int
set_role(FILE *f, enum repl_role r)
{
	return set_role_as(f, r, 1);
}

/* keepalived's BACKUP or FAULT (packaging/keepalived/ibsnmpgw-notify):
 * a standby, except for an active that no standby protects, whose
 * demotion would leave nothing to promote. That one stays active until
 * it learns the peer is active too (VRRP chose the peer: a split brain
 * ends), now or at a later handshake. */
static int
yield(FILE *f)
{
	const char *why;

	refresh();
	if (ha_role != REPL_ACTIVE || store_repl_status()->protected ||
	    store_repl_status()->split_brain) {
		if (ha_role == REPL_ACTIVE && store_repl_status()->split_brain)
			log_info("ha: keepalived made this node BACKUP and the "
			    "peer is active: standing down");
		return set_role(f, REPL_STANDBY);
	}
	why = store_repl_status()->reason;
	ha_yield_pending = 1;
	log_warnx("ha: keepalived made this node BACKUP, but no standby "
	    "holds a copy (%s): staying active until the peer is", why);
	fprintf(f, "active: unprotected (%s); stays active until the peer "
	    "is\n", why);
	return 0;
}

/* ---- Status */

static int
eligible(const char **why)
{
	switch (ha_role) {
	case REPL_ACTIVE:
		*why = "";
		return 1;
	case REPL_FAULT:
		*why = "in fault";
		return 0;
	case REPL_STANDBY:
		if (store_repl_status()->split_brain)
			break;
		*why = ha_link_synced() ? "" : "no complete snapshot from an "
		    "active yet";
		return ha_link_synced();
	default:
		*why = "no ha: section";
		return 0;
	}
	*why = "split brain";
	return 0;
}

/* The status of store/repl.h, as of now. */
static void
refresh(void)
{
	struct repl_status *st = store_repl_status();
	const char *why = "no ha: section";

	st->protected = ha_on && ha_role == REPL_ACTIVE &&
	    !st->split_brain && ha_link_protected(&why);
	if (st->split_brain)
		why = "split brain: the peer is active too";
	else if (ha_on && ha_role != REPL_ACTIVE)
		why = ha_role == REPL_FAULT ? "in fault" : "standby";
	snprintf(st->reason, sizeof(st->reason), "%s", st->protected ? "" :
	    why);
	st->eligible = eligible(&why);
	st->events_dropped = store_event_replica_dropped();
	if (ha_role != REPL_ACTIVE)
		st->lag = 0;
	if (st->peer[0] == '\0')
		snprintf(st->peer, sizeof(st->peer), "%s", ha_hc.peer_addr);
}

/* The further subnets' lines (gw_ha_set_subnets), and whether they
 * leave this node eligible and protected. A buffer: they are printed
 * last, but count in the lines above them. */
static char *
subnets_status(int *ok, int *prot, char *why, size_t wlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int sub_ok = 1;

	if (ha_subnets == NULL || (m = open_memstream(&buf, &len)) == NULL)
		return NULL;
	ha_subnets->status(m, &sub_ok, prot, why, wlen);
	fclose(m);
	/* The active is eligible whatever its further subnets say: VRRP
	 * would otherwise take it down with nothing ready to promote. */
	if (ha_role != REPL_ACTIVE && !sub_ok)
		*ok = 0;
	return buf;
}

static int
status(FILE *f)
{
	const struct repl_status *st = store_repl_status();
	uint64_t sent, acked;
	const char *why;
	char swhy[128] = "", *sub;
	int ok, prot;

	refresh();
	ok = eligible(&why);
	prot = st->protected;
	sub = subnets_status(&ok, &prot, swhy, sizeof(swhy));
	if (ok == 0 && why[0] == '\0')
		why = swhy;
	fprintf(f, "role %s\nname %s\npeer %s\n%s%s%s\nlag %llu frames\n"
	    "last-frame-ms %lld\nboots %u peer-boots %u\neligible %s%s%s\n"
	    "access ",
	    store_repl_role_name(ha_role), ha_hc.name, st->peer,
	    prot ? "protected" : "unprotected", prot ? "" : ": ",
	    prot ? "" : !st->protected ? st->reason : swhy,
	    (unsigned long long)st->lag, st->last_rx_ms ?
	    (long long)(ev_now() - (uint64_t)st->last_rx_ms) : -1LL,
	    gw_snmp_engine_boots(), ha_peer_boots, ok ? "yes" : "no",
	    ok ? "" : ": ", why);
	for (size_t i = 0; i < sizeof(ha_hc.access); i++)
		fprintf(f, "%02x", ha_hc.access[i]);
	fprintf(f, "\n");
	ha_link_seqs(&sent, &acked);
	fprintf(f, "frames sent %llu acked %llu\n", (unsigned long long)sent,
	    (unsigned long long)acked);
	if (ha_yield_pending)
		fprintf(f, "yield-pending yes\n");
	if (sub != NULL)
		fputs(sub, f);
	free(sub);
	return ok ? 0 : 1;
}

/* A ctl command without an ha: section: the error, and 1. */
static int
ha_off(FILE *f)
{
	if (ha_on)
		return 0;
	fprintf(f, "error: no ha: section in the configuration\n");
	return 1;
}

int
gw_ha_ctl(FILE *f, const char *arg)
{
	int rc;

	if (ha_off(f))
		return 1;
	if (arg == NULL || strcmp(arg, "status") == 0)
		return status(f);
	if (strcmp(arg, "master") == 0)
		rc = set_role(f, REPL_ACTIVE);
	else if (strcmp(arg, "backup") == 0)
		rc = set_role(f, REPL_STANDBY);
	else if (strcmp(arg, "fault") == 0)
		rc = set_role(f, REPL_FAULT);
	else if (strcmp(arg, "yield") == 0)
		rc = yield(f);
	else {
		fprintf(f, "error: ctl ha master|backup|yield|fault|status\n");
		return 1;
	}
	/* keepalived's word is for the whole gateway: every subnet. */
	if (ha_subnets != NULL)
		ha_subnets->role(arg);
	return rc;
}

int
gw_ha_resume(FILE *f, const char *arg)
{
	if (ha_off(f))
		return 1;
	if (strcmp(arg, "master") == 0)
		return set_role_as(f, REPL_ACTIVE, 0);
	return gw_ha_ctl(f, arg);
}

const struct repl_status *
gw_ha_status(const char **why)
{
	refresh();
	(void)eligible(why);
	return store_repl_status();
}

void
gw_ha_set_subnets(const struct gw_ha_subnets *ops)
{
	ha_subnets = ops;
}

void
gw_ha_stats(FILE *f)
{
	const struct repl_status *st = store_repl_status();

	refresh();
	fprintf(f, "ha role %s %s%s%s peer %s lag %llu frames-out %llu "
	    "frames-in %llu refused %llu snapshots %llu events-dropped %llu "
	    "split-brain %d bytes-out %llu\n", store_repl_role_name(ha_role),
	    st->protected ? "protected" : "unprotected", st->protected ? "" :
	    ": ", st->protected ? "" : st->reason, st->peer,
	    (unsigned long long)st->lag, (unsigned long long)st->frames_out,
	    (unsigned long long)st->frames_in,
	    (unsigned long long)st->refused, (unsigned long long)st->snapshots,
	    (unsigned long long)st->events_dropped, st->split_brain,
	    (unsigned long long)st->bytes_out);
}

/* ---- Start and stop */

static int
load_conf(const struct gw_conf *c, struct ha_conf *hc, FILE *err)
{
	const struct gw_ha_conf *h = &c->ha;
	int n;

	memset(hc, 0, sizeof(*hc));
	if (gw_conf_ha_addr(h->listen, &hc->listen, &hc->listen_len) ==
	    -1 || gw_conf_ha_addr(h->peer, &hc->peer, &hc->peer_len) == -1)
		return -1;
	if ((n = gw_conf_read_ha_key(h->key_file, hc->key, err)) == -1) {
		fprintf(err, "ha: %s: the key file cannot be used\n",
		    h->key_file);
		return -1;
	}
	hc->keylen = (size_t)n;
	if (h->name != NULL)
		snprintf(hc->name, sizeof(hc->name), "%s", h->name);
	else if (gethostname(hc->name, sizeof(hc->name) - 1) == -1)
		snprintf(hc->name, sizeof(hc->name), "%s", h->listen);
	snprintf(hc->peer_addr, sizeof(hc->peer_addr), "%s", h->peer);
	memcpy(hc->engine_id, c->engine_id, c->engine_id_len);
	hc->engine_id_len = c->engine_id_len;
	hc->timeout_ms = h->takeover_timeout * 1000;
	if (ha_access_digest(c, hc->access) == -1) {
		fprintf(err, "ha: cannot digest the SNMP access "
		    "configuration\n");
		return -1;
	}
	return 0;
}

/* ---- Reload: the ha: section's settings, not whether there is one */

static struct ha_conf	 ha_next;
static int		 ha_next_set;
static int		 ha_next_fd = -1;

static int
same_addr(const struct sockaddr_storage *a, unsigned alen,
    const struct sockaddr_storage *b, unsigned blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

int
gw_ha_reload_prepare(const struct gw_conf *c, FILE *err)
{
	ha_next_set = 0;
	if (ha_on != c->ha.enabled) {
		log_warnx("reload: %s the ha: section takes a restart; the "
		    "pair's settings in force stay", ha_on ? "removing" :
		    "adding");
		return 0;
	}
	if (!ha_on)
		return 0;
	if (load_conf(c, &ha_next, err) == -1)
		return -1;
	/* The engine is the running one (snmp.engine-id is read at
	 * start): HELLO must go on naming it. */
	memcpy(ha_next.engine_id, ha_hc.engine_id, ha_hc.engine_id_len);
	ha_next.engine_id_len = ha_hc.engine_id_len;
	if (!same_addr(&ha_next.listen, ha_next.listen_len, &ha_hc.listen,
	    ha_hc.listen_len) && (ha_next_fd = ha_link_listen(&ha_next)) ==
	    -1) {
		fprintf(err, "ha.listen: %s: cannot listen there\n",
		    c->ha.listen);
		explicit_bzero(&ha_next, sizeof(ha_next));
		return -1;
	}
	if (c->ha.role != ha_conf->ha.role)
		log_info("reload: ha.role applies at start; ctl ha changes "
		    "the role of a running gateway");
	ha_next_set = 1;
	return 0;
}

void
gw_ha_reload_abort(void)
{
	if (ha_next_fd >= 0)
		close(ha_next_fd);
	ha_next_fd = -1;
	ha_next_set = 0;
	explicit_bzero(&ha_next, sizeof(ha_next));
}

static void
add(char *b, const char *w, size_t len)
{
	size_t n = strlen(b);

	snprintf(b + n, len - n, "%s", w);
}

/* What changed, in the order of the ha: keys. */
static void
changes(char *b, size_t len)
{
	const struct ha_conf *o = &ha_hc, *n = &ha_next;

	b[0] = '\0';
	if (!same_addr(&o->listen, o->listen_len, &n->listen, n->listen_len))
		add(b, " listen", len);
	if (!same_addr(&o->peer, o->peer_len, &n->peer, n->peer_len))
		add(b, " peer", len);
	if (o->keylen != n->keylen || memcmp(o->key, n->key, o->keylen))
		add(b, " key", len);
	if (strcmp(o->name, n->name) != 0)
		add(b, " name", len);
	if (o->timeout_ms != n->timeout_ms)
		add(b, " takeover-timeout", len);
	if (memcmp(o->access, n->access, sizeof(o->access)) != 0)
		add(b, " snmp-access", len);
}

void
gw_ha_reload_commit(void)
{
	char what[96];

	if (!ha_next_set)
		return;
	ha_next_set = 0;
	changes(what, sizeof(what));
	if (what[0] == '\0') {
		explicit_bzero(&ha_next, sizeof(ha_next));
		return;
	}
	ha_hc = ha_next;
	explicit_bzero(&ha_next, sizeof(ha_next));
	if (ha_next_fd >= 0)
		ha_link_set_listener(ha_next_fd);
	ha_next_fd = -1;
	snprintf(store_repl_status()->name, sizeof(store_repl_status()->name),
	    "%s", ha_hc.name);
	store_repl_status()->peer[0] = '\0';
	log_info("reload: ha:%s changed; the link to the peer starts again",
	    what);
	ha_link_reset("the ha: settings were reloaded");
}

int
gw_ha_init(const struct gw_conf *c)
{
	int64_t pb;

	ha_conf = c;
	store_repl_status()->role = REPL_STANDALONE;
	if (!c->ha.enabled)
		return 0;
	if (load_conf(c, &ha_hc, stderr) == -1) {
		log_warnx("ha: the ha: section cannot be used (see above)");
		return -1;
	}
	ha_on = ha_linked = 1;
	if (store_meta_get_int(PEER_BOOTS_KEY, &pb) == 0 && pb > 0 &&
	    pb <= GW_SNMP_BOOTS_MAX)
		ha_peer_boots = (uint32_t)pb;
	snprintf(store_repl_status()->name, sizeof(store_repl_status()->name),
	    "%s", ha_hc.name);
	/* Every pair member starts as a standby: nothing answers before
	 * the promotion has raised the boots. */
	stand_down(REPL_STANDBY);
	log_info("ha: %s starts as standby (role %s), peer %s", ha_hc.name,
	    c->ha.role == GW_HA_ACTIVE ? "active" : c->ha.role ==
	    GW_HA_STANDBY ? "standby" : "auto", ha_hc.peer_addr);
	return 0;
}

static const struct ha_link_ops link_ops = { peer_boots, peer_role,
    hand_over, adopt };

int
gw_ha_start(void)
{
	if (!ha_on)
		return 0;
	if (ha_link_init(&ha_hc, &link_ops) == -1)
		return -1;
	if (ha_conf->ha.role == GW_HA_ACTIVE)
		return promote(0);
	return 0;
}

void
gw_ha_set_conf(const struct gw_conf *c)
{
	ha_conf = c;
}

/* gw_ha_start's reverse: the link to the peer closes (what a start
 * that failed half way left too). */
void
gw_ha_stop(void)
{
	if (!ha_linked)
		return;
	ha_linked = 0;
	gw_ha_reload_abort();
	handover_free();
	ha_link_finalise();
}

void
gw_ha_finalise(void)
{
	if (!ha_on)
		return;
	gw_ha_stop();
	explicit_bzero(ha_hc.key, sizeof(ha_hc.key));
	ha_on = 0;
}
