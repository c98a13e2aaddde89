/* conf: load and validate ibsnmpgw.yaml.
 *
 * The whole file is checked and every problem is reported as
 * "file:line: message" (chrony style, util/yaml.c), so one run of
 * `ibsnmpgw -n` shows everything that needs fixing. The sections are
 * here; events: and notify: are in conf_notify.c, listeners, communities,
 * users and node selectors in conf_access.c (gateway/conf_int.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gateway/conf.h"
#include "gateway/conf_int.h"
#include "codec/perf.h"
#include "store/cache.h"
#include "store/store.h"
#include "util/log.h"
#include "util/yaml.h"

static int
valid_oid(const char *s)
{
	int n = 0;

	if (*s == '.')
		s++;
	while (*s) {
		if (*s < '0' || *s > '9')
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
		n++;
		if (*s == '.' && s[1] != '\0')
			s++;
		else if (*s)
			return 0;
	}
	return n >= 2 && n <= 24;	/* room for .2.N.0 below it */
}

/* RFC 3411 5, SnmpEngineID: 5 to 32 octets, neither all zeros nor all
 * 'ff'H; a first bit of 0 (the RFC 1910 form) means exactly 12 octets;
 * with a first bit of 1, octet 5 is the format: 1 IPv4 (9 octets),
 * 2 IPv6 (21), 3 MAC (11), 4 text, 5 octets, 128-255 enterprise
 * specific; 0 and 6-127 are reserved. */
const char *
gw_conf_engine_id(const char *s, uint8_t *id, size_t *len)
{
	size_t n, zeros = 0, ffs = 0;

	if (conf_hex_engine_id(s, id, len) == -1)
		return "must be 0x and 5 to 32 octets in hex";
	for (size_t i = 0; i < (n = *len); i++) {
		zeros += id[i] == 0;
		ffs += id[i] == 0xff;
	}
	if (zeros == n || ffs == n)
		return "may not be all zeros or all ff (RFC 3411)";
	if (!(id[0] & 0x80))
		return n == 12 ? NULL : "has a first bit of 0, so must be 12 "
		    "octets (RFC 3411)";
	if (id[4] == 0 || (id[4] >= 6 && id[4] < 128))
		return "has a reserved format octet (the fifth; RFC 3411)";
	if ((id[4] == 1 && n != 9) || (id[4] == 2 && n != 21) ||
	    (id[4] == 3 && n != 11))
		return "is not the length its format octet (the fifth) says";
	return NULL;
}

/* A name a community suffix and an SNMPv3 context can both carry
 * (RFC 3411 SnmpAdminString, at most 32 octets). */
static int
valid_context(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s == '@' || *s == 0x7f)
			return 0;
	return 1;
}

static void
snmp_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;

	if (strcmp(key, "listen") == 0)
		conf_parse_listen(x, v, c);
	else if (strcmp(key, "communities") == 0)
		conf_parse_communities(x, v, c);
	else if (strcmp(key, "users") == 0)
		conf_parse_users(x, v, c);
	else if (strcmp(key, "sys-contact") == 0)
		yaml_str(x, v, key, &c->sys_contact, 255);
	else if (strcmp(key, "sys-location") == 0)
		yaml_str(x, v, key, &c->sys_location, 255);
	else if (strcmp(key, "max-repetitions") == 0)
		yaml_int(x, v, key, &c->max_repetitions, 1, 10000);
	else if (strcmp(key, "request-timeout-ms") == 0)
		yaml_int(x, v, key, &c->request_timeout_ms, 100, 600000);
	else if (strcmp(key, "fabric-query-age") == 0)
		yaml_int(x, v, key, &c->fabric_query_age, 10, 86400);
	else if (strcmp(key, "fabric-query-max") == 0)
		yaml_int(x, v, key, &c->fabric_query_max, 1, 1000);
	else if (strcmp(key, "fabric-context") == 0) {
		if (yaml_str(x, v, key, &c->fabric_context, 32) == 0 &&
		    !valid_context(c->fabric_context))
			yaml_err(x, v, "fabric-context must be a non-empty name "
			    "without '@', spaces or control characters");
	} else if (strcmp(key, "fabric-name") == 0)
		yaml_str(x, v, key, &c->fabric_name, 255);
	else if (strcmp(key, "engine-id") == 0) {
		char *id = NULL;
		const char *why;

		if (yaml_str(x, v, key, &id, 2 + 2 * GW_ENGINE_ID_MAX + 2) ==
		    0 && (why = gw_conf_engine_id(id, c->engine_id,
		    &c->engine_id_len)) != NULL) {
			yaml_err(x, v, "engine-id %s", why);
			c->engine_id_len = 0;
		}
		free(id);
	} else if (strcmp(key, "sys-object-id-base") == 0) {
		if (yaml_str(x, v, key, &c->sys_object_id_base, 200) == 0 &&
		    !valid_oid(c->sys_object_id_base))
			yaml_err(x, v, "sys-object-id-base must be a dotted OID "
			    "such as 1.3.6.1.4.1.99999");
	}
	else
		yaml_unknown(x, k, key, "snmp");
}

static void
ib_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;

	if (strcmp(key, "ca") == 0)
		yaml_str(x, v, key, &c->ib_ca, 64);
	else if (strcmp(key, "port") == 0)
		yaml_int(x, v, key, &c->ib_port, 0, 254);
	else if (strcmp(key, "node-name-map") == 0)
		yaml_path(x, v, key, &c->node_name_map, PATH_MAX);
	else if (strcmp(key, "mkey-file") == 0)
		yaml_path(x, v, key, &c->mkey_file, PATH_MAX);
	else if (strcmp(key, "sa-key-file") == 0)
		yaml_path(x, v, key, &c->sa_key_file, PATH_MAX);
	else if (strcmp(key, "sim-issm") == 0)
		yaml_bool(x, v, key, &c->sim_issm);
	else if (strcmp(key, "ports") == 0)
		conf_parse_ports(x, v, c);
	else
		yaml_unknown(x, k, key, "ib");
}

static void
store_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;

	if (strcmp(key, "path") == 0)
		yaml_path(x, v, key, &c->store_path, PATH_MAX);
	else if (strcmp(key, "state-dir") == 0)
		yaml_path(x, v, key, &c->state_dir, PATH_MAX);
	else if (strcmp(key, "control-socket") == 0)
		yaml_path(x, v, key, &c->control_socket, 100);
	else
		yaml_unknown(x, k, key, "store");
}

static void
discovery_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;

	if (strcmp(key, "interval") == 0)
		yaml_int(x, v, key, &c->sweep_interval, 10, 86400);
	else if (strcmp(key, "safety-interval") == 0)
		yaml_int(x, v, key, &c->sweep_safety, 10, 604800);
	else if (strcmp(key, "event-delay-ms") == 0)
		yaml_int(x, v, key, &c->sweep_event_ms, 0, 60000);
	else if (strcmp(key, "event-min-gap") == 0)
		yaml_int(x, v, key, &c->sweep_event_gap, 0, 3600);
	else
		yaml_unknown(x, k, key, "discovery");
}

static void
mad_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;

	if (strcmp(key, "timeout-ms") == 0)
		yaml_int(x, v, key, &c->mad_timeout_ms, 10, 60000);
	else if (strcmp(key, "retries") == 0)
		yaml_int(x, v, key, &c->mad_retries, 0, 10);
	else if (strcmp(key, "hold-down") == 0)
		yaml_int(x, v, key, &c->mad_hold_down, 0, 300);
	else if (strcmp(key, "max-in-flight") == 0)
		yaml_int(x, v, key, &c->mad_max_inflight, 1, 1024);
	else if (strcmp(key, "max-in-flight-per-node") == 0)
		yaml_int(x, v, key, &c->mad_max_inflight_node, 1, 64);
	else if (strcmp(key, "rate-limit") == 0)
		yaml_int(x, v, key, &c->mad_rate, 0, 1000000);
	else
		yaml_unknown(x, k, key, "mad");
}

static void
ttl_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;

	for (int i = 0; i < ATTR_TTL_MAX; i++)
		if (strcmp(key, attr_ttls[i].key) == 0) {
			yaml_int(x, v, key, &c->ttl[i], 0, 86400);
			return;
		}
	yaml_unknown(x, k, key, "cache.ttl");
}

static void
cache_key_fn(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	if (strcmp(key, "ttl") == 0)
		yaml_each_pair(x, v, "ttl", ttl_key, arg);
	else
		yaml_unknown(x, k, key, "cache");
}

static void
log_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;

	if (strcmp(key, "level") == 0) {
		if (yaml_str(x, v, key, &c->log_level, 16) == 0 &&
		    log_level_from_name(c->log_level) == -1)
			yaml_err(x, v, "log level must be debug, info, notice, "
			    "warning or error");
	} else
		yaml_unknown(x, k, key, "log");
}

static void
ipoib_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;

	if (strcmp(key, "net-dir") == 0)
		yaml_path(x, v, key, &c->ipoib_net_dir, PATH_MAX);
	else if (strcmp(key, "arp-file") == 0)
		yaml_path(x, v, key, &c->ipoib_arp_file, PATH_MAX);
	else if (strcmp(key, "refresh") == 0)
		yaml_int(x, v, key, &c->ipoib_refresh, 0, 86400);
	else
		yaml_unknown(x, k, key, "ipoib");
}

/* polling: a list of policies. */

static void
threshold_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct proxy_threshold *t = arg;
	char *s = NULL, *end;

	if (strcmp(key, "counter") == 0) {
		if (yaml_str(x, v, key, &s, 64) == 0) {
			for (t->ctr = 0; t->ctr < CTR_MAX; t->ctr++)
				if (strcmp(perf_ctrs[t->ctr].name, s) == 0)
					break;
			if (t->ctr == CTR_MAX) {
				yaml_err(x, v, "unknown counter '%s' (IBA names, "
				    "e.g. SymbolErrorCounter)", s);
				t->ctr = -1;
			}
		}
	} else if (strcmp(key, "per-minute") == 0) {
		if (yaml_str(x, v, key, &s, 32) == 0) {
			errno = 0;
			t->per_minute = strtod(s, &end);
			if (*s == '\0' || *end || errno || t->per_minute < 0)
				yaml_err(x, v, "'per-minute' must be a number >= 0");
		}
	} else if (strcmp(key, "xmit-wait-ppm") == 0) {
		/* docs/health.md, "Congestion". */
		if (yaml_int(x, v, key, &t->ratio_ppm, 1, 1000000) == -1)
			t->ratio_ppm = -1;
	} else
		yaml_unknown(x, k, key, "thresholds");
	free(s);
}

static void
policy_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct proxy_policy *p = arg;
	yaml_node_item_t *it;

	if (strcmp(key, "name") == 0)
		yaml_str(x, v, key, &p->name, 64);
	else if (strcmp(key, "match") == 0)
		yaml_each_pair(x, v, "match", conf_match_key, &p->match);
	else if (strcmp(key, "groups") == 0) {
		if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, key) == -1)
			return;
		p->groups = 0;
		for (it = v->data.sequence.items.start;
		    it < v->data.sequence.items.top; it++) {
			yaml_node_t *e = yaml_item(x, it);
			const char *g = yaml_scalar(e);
			size_t i;
			for (i = 0; g && i < attr_npoll_groups; i++)
				if (strcmp(g, attr_poll_groups[i].name) == 0)
					break;
			if (g == NULL || i == attr_npoll_groups)
				yaml_err(x, e, "unknown group '%s' (nodeinfo, "
				    "portinfo, counters, error-details, "
				    "vl-counters, forwarding)", g ? g : "");
			else
				p->groups |= attr_poll_groups[i].bit;
		}
	} else if (strcmp(key, "interval") == 0)
		yaml_int(x, v, key, &p->interval, 1, 86400);
	else if (strcmp(key, "ttl") == 0)
		yaml_int(x, v, key, &p->ttl, 0, 86400);
	else if (strcmp(key, "max-in-flight") == 0)
		yaml_int(x, v, key, &p->max_inflight, 1, 1024);
	else if (strcmp(key, "reset-counters") == 0) {
		const char *b = yaml_scalar(v);
		if (b && (strcmp(b, "true") == 0 || strcmp(b, "false") == 0))
			p->reset = b[0] == 't';
		else
			yaml_err(x, v, "'reset-counters' must be true or false");
	} else if (strcmp(key, "thresholds") == 0) {
		if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, key) == -1)
			return;
		p->thresholds = calloc(v->data.sequence.items.top -
		    v->data.sequence.items.start + 1, sizeof(*p->thresholds));
		if (p->thresholds == NULL)
			fatal("conf");
		for (it = v->data.sequence.items.start;
		    it < v->data.sequence.items.top; it++) {
			yaml_node_t *e = yaml_item(x, it);
			struct proxy_threshold t = { -1, -1, 0 };
			yaml_each_pair(x, e, "thresholds", threshold_key, &t);
			if (t.ratio_ppm != 0) {
				if (t.ctr >= 0 || t.per_minute >= 0)
					yaml_err(x, e, "'xmit-wait-ppm' is a "
					    "threshold of its own, without "
					    "'counter' or 'per-minute'");
				if (t.ratio_ppm < 0 || t.ctr >= 0 ||
				    t.per_minute >= 0)
					continue;
				t.ctr = CTR_XMIT_WAIT;
			} else if (t.ctr < 0 || t.per_minute < 0) {
				if (e->type == YAML_MAPPING_NODE)
					yaml_err(x, e, "a threshold needs 'counter' "
					    "and 'per-minute', or 'xmit-wait-ppm'");
				continue;
			}
			p->thresholds[p->nthresholds++] = t;
		}
	} else if (strcmp(key, "tunnel") == 0) {
		const char *m = yaml_scalar(v), *name;
		int i;

		for (i = 0; m != NULL &&
		    (name = proxy_poll_tunnel_mode_name(i)) != NULL; i++)
			if (strcmp(m, name) == 0)
				break;
		if (m == NULL || proxy_poll_tunnel_mode_name(i) == NULL)
			yaml_err(x, v, "'tunnel' must be off, auto or prefer");
		else
			p->tunnel = i;
	} else if (strcmp(key, "tunnel-community") == 0)
		yaml_str(x, v, key, &p->tunnel_community, 64);
	else if (strcmp(key, "tunnel-ttl") == 0)
		yaml_int(x, v, key, &p->tunnel_ttl, 0, 3600);
	else
		yaml_unknown(x, k, key, "polling");
}

static void
parse_polling(struct yaml_ctx *x, yaml_node_t *v, struct gw_conf *c)
{
	yaml_node_item_t *it;
	int n;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, "polling") == -1)
		return;
	n = v->data.sequence.items.top - v->data.sequence.items.start;
	if ((c->policies = calloc(n ? n : 1, sizeof(*c->policies))) == NULL)
		fatal("conf");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	    it++) {
		yaml_node_t *e = yaml_item(x, it);
		struct proxy_policy *p = &c->policies[c->npolicies];

		memset(p, 0, sizeof(*p));
		p->line = e->start_mark.line + 1;
		p->groups = ATTR_POLL_COUNTERS;
		p->interval = 60;
		p->ttl = -1;
		p->max_inflight = 16;
		p->tunnel_ttl = 5;
		yaml_each_pair(x, e, "polling", policy_key, p);
		if (e->type != YAML_MAPPING_NODE)
			continue;
		/* The agent's community is the node's own secret: no
		 * default, which would send one the node never set. */
		if (p->tunnel != PROXY_TUNNEL_OFF && p->tunnel_community == NULL)
			yaml_err(x, e, "a policy with 'tunnel' needs "
			    "'tunnel-community'");
		if (p->name == NULL) {
			char buf[32];
			snprintf(buf, sizeof(buf), "policy-%d", p->line);
			if ((p->name = strdup(buf)) == NULL)
				fatal("conf");
		}
		if (p->ttl < 0)
			p->ttl = p->interval;
		c->npolicies++;
	}
}

/* tunnel: the tunnel client (docs/tunneling.md). */
static void
tunnel_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;
	struct proxy_tun_conf *t = &c->tunnel;

	if (strcmp(key, "segment-octets") == 0)
		yaml_int(x, v, key, &t->segment_octets, 1, 192);
	else if (strcmp(key, "probe-interval") == 0)
		yaml_int(x, v, key, &t->probe_interval, 10, 86400);
	else if (strcmp(key, "timeout-ms") == 0)
		yaml_int(x, v, key, &t->timeout_ms, 50, 60000);
	else if (strcmp(key, "retries") == 0)
		yaml_int(x, v, key, &t->retries, 0, 10);
	else if (strcmp(key, "max-in-flight-per-node") == 0)
		yaml_int(x, v, key, &t->max_inflight_node, 1, 256);
	else if (strcmp(key, "max-queue-per-node") == 0)
		yaml_int(x, v, key, &t->max_queue_node, 1, 4096);
	else if (strcmp(key, "read-ahead") == 0)
		yaml_int(x, v, key, &c->tunnel_read_ahead, 1, 100);
	else
		yaml_unknown(x, k, key, "tunnel");
}

/* topology: the blueprint is read and checked with the rest, so a
 * reload with a bad one keeps the running configuration. */
static void
topology_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;

	if (strcmp(key, "expected") == 0) {
		if (yaml_path(x, v, key, &c->topo_expected, PATH_MAX) == -1)
			return;
		store_topo_free(c->topo_blueprint);
		if ((c->topo_blueprint = store_topo_load(c->topo_expected,
		    x->err)) == NULL)
			yaml_err(x, v, "topology.expected: %s is no usable "
			    "blueprint (ibnetdiscover's output)",
			    c->topo_expected);
	} else
		yaml_unknown(x, k, key, "topology");
}

static void
top_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	static const struct {
		const char *name;
		yaml_pair_fn fn;
	} sections[] = {
		{ "snmp", snmp_key }, { "ib", ib_key }, { "store", store_key },
		{ "discovery", discovery_key }, { "mad", mad_key },
		{ "cache", cache_key_fn }, { "log", log_key },
		{ "ipoib", ipoib_key }, { "events", conf_events_key },
		{ "notify", conf_notify_key }, { "tunnel", tunnel_key },
		{ "ha", conf_ha_key }, { "health", conf_health_key },
		{ "topology", topology_key },
	};

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (strcmp(key, sections[i].name) == 0) {
			if (sections[i].fn == conf_ha_key) {
				((struct gw_conf *)arg)->ha.enabled = 1;
				((struct gw_conf *)arg)->ha.line =
				    (int)k->start_mark.line + 1;
			}
			yaml_each_pair(x, v, key, sections[i].fn, arg);
			return;
		}
	if (strcmp(key, "polling") == 0)
		parse_polling(x, v, arg);
	else
		yaml_err(x, k, "unknown section '%s'", key);
}

static void
set_defaults(struct gw_conf *c)
{
	c->ib_port = 0;
	c->sweep_interval = 300;
	c->sweep_safety = 3600;
	c->sweep_event_ms = 500;
	c->sweep_event_gap = 2;
	c->sm_events = 1;
	c->master_check_ms = 2500;
	c->ipoib_refresh = 60;
	c->mad_timeout_ms = 200;
	c->mad_retries = 3;
	c->mad_hold_down = 10;
	c->mad_max_inflight = 64;
	c->mad_max_inflight_node = 4;
	/* Safe for a production fabric, above what a sweep of 10,000
	 * nodes needs to finish in a few seconds. */
	c->mad_rate = 20000;
	c->max_repetitions = 100;
	c->tunnel.segment_octets = 192;
	c->tunnel.probe_interval = 300;
	c->tunnel.timeout_ms = 1000;
	c->tunnel.retries = 1;
	/* To an agent that takes several at once (docs/tunneling.md);
	 * ibsnmp-tunneld holds 32 per requester by default. */
	c->tunnel.max_inflight_node = 16;
	c->tunnel.max_queue_node = 64;
	c->tunnel_read_ahead = 20;
	c->request_timeout_ms = 10000;
	c->fabric_query_age = 600;
	c->fabric_query_max = 8;
	c->events.history = 1000;
	c->events.dedup_ms = 30000;
	c->events.flap_changes = 4;
	c->events.flap_window_ms = 60000;
	c->events.hold_down_ms = 30000;
	c->events.burst = 100;
	c->ha.takeover_timeout = 3;
	proxy_verdict_defaults(&c->health_ports);
	for (int i = 0; i < ATTR_TTL_MAX; i++)
		c->ttl[i] = cache_get_ttl(i);
}

/* Defaults that follow from other keys: state and socket next to the
 * store. */
static void
derive_paths(struct gw_conf *c)
{
	if (c->fabric_context == NULL)
		c->fabric_context = conf_xstrdup("fabric");
	if (c->store_path == NULL)
		c->store_path = conf_xstrdup("/var/lib/ibsnmpgw/inventory.db");
	if (c->state_dir == NULL) {
		/* The store's directory: "." for a bare name, "/" for the
		 * root, else everything before the last '/'. */
		const char *p = c->store_path, *slash = strrchr(p, '/');

		if (slash == NULL)
			c->state_dir = conf_xstrdup(".");
		else if (slash == p)
			c->state_dir = conf_xstrdup("/");
		else if ((c->state_dir = strndup(p, (size_t)(slash - p))) ==
		    NULL)
			fatal("conf");
	}
	if (c->control_socket == NULL) {
		size_t len = strlen(c->state_dir) + 16;
		if ((c->control_socket = malloc(len)) == NULL)
			fatal("conf");
		snprintf(c->control_socket, len, "%s/ibsnmpgw.sock",
		    c->state_dir);
	}
	if (c->ipoib_net_dir == NULL)
		c->ipoib_net_dir = conf_xstrdup("/sys/class/net");
	if (c->ipoib_arp_file == NULL)
		c->ipoib_arp_file = conf_xstrdup("/proc/net/arp");
}

/* Checks across sections, at the top-level mapping's line. */
static void
check_whole(struct yaml_ctx *x, const yaml_node_t *root,
    struct gw_conf *c)
{
	if (c->nlisten == 0)
		yaml_err(x, root, "no snmp.listen addresses");
	if (c->ncommunities == 0 && c->nusers == 0)
		yaml_err(x, root, "no snmp.communities or snmp.users: nobody "
		    "could query the gateway");
	conf_check_targets(x, c);
	conf_check_ha(x, root, c);
	conf_check_subnets(x, c);
	if (c->mad_max_inflight_node > c->mad_max_inflight)
		yaml_err(x, root, "mad.max-in-flight-per-node (%d) exceeds "
		    "mad.max-in-flight (%d)", c->mad_max_inflight_node,
		    c->mad_max_inflight);
}

struct gw_conf *
gw_conf_load(const char *path, FILE *err)
{
	struct yaml_ctx x;
	struct gw_conf *c;
	yaml_node_t *root;

	if ((root = yaml_load(&x, path, err)) == NULL) {
		yaml_unload(&x);
		return NULL;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL)
		fatal("conf");
	set_defaults(c);
	c->path = conf_xstrdup(path);
	yaml_each_pair(&x, root, "top level", top_key, c);
	check_whole(&x, root, c);
	derive_paths(c);
	yaml_unload(&x);
	if (x.nerr) {
		gw_conf_free(c);
		return NULL;
	}
	return c;
}

void
gw_conf_free(struct gw_conf *c)
{
	if (c == NULL)
		return;
	conf_access_free(c);
	free(c->sys_contact);
	free(c->sys_location);
	free(c->sys_object_id_base);
	free(c->fabric_context);
	free(c->fabric_name);
	free(c->ib_ca);
	free(c->node_name_map);
	free(c->mkey_file);
	free(c->sa_key_file);
	free(c->ipoib_net_dir);
	free(c->ipoib_arp_file);
	free(c->store_path);
	free(c->state_dir);
	free(c->control_socket);
	free(c->log_level);
	for (int i = 0; i < c->npolicies; i++) {
		struct proxy_policy *p = &c->policies[i];
		free(p->name);
		store_select_free(&p->match);
		free(p->thresholds);
		free(p->tunnel_community);
	}
	free(c->policies);
	conf_health_free(c);
	conf_targets_free(c);
	conf_ha_free(c);
	conf_subnets_free(c);
	free(c->topo_expected);
	store_topo_free(c->topo_blueprint);
	free(c->path);
	free(c);
}
