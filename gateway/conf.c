/* conf: load and validate ibsnmpgw.yaml.
 *
 * The whole file is checked and every problem is reported as
 * "file:line: message" (chrony style, util/yaml.c), so one run of
 * `ibsnmpgw -n` shows everything that needs fixing. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gateway/conf.h"
#include "gateway/conf_int.h"
#include "codec/perf.h"
#include "store/cache.h"
#include "store/select.h"
#include "store/store.h"
#include "util/log.h"
#include "util/yaml.h"

static void
free_secret(char *s)
{
	if (s != NULL)
		explicit_bzero(s, strlen(s));
	free(s);
}

static void
community_free(struct gw_community *cm)
{
	free(cm->name);
	free(cm->sources);
	store_select_free(&cm->nodes);
}

/* Passphrases are cleared, wherever a user is dropped. */
void
conf_user_free(struct gw_user *u)
{
	free(u->name);
	free_secret(u->auth_pass);
	free_secret(u->priv_pass);
	store_select_free(&u->nodes);
}

int
conf_valid_name(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (*s == '@' || (unsigned char)*s < 0x21 ||
		    (unsigned char)*s > 0x7e)
			return 0;
	return 1;
}

int
conf_check_listener(const char *s, char *norm, size_t nlen, const char **why)
{
	char host[INET6_ADDRSTRLEN + 2], buf[sizeof(struct in6_addr)];
	const char *p, *colon;
	char *end;
	long port;
	int v6;

	if (strncmp(s, "udp:", 4) == 0)
		v6 = 0, p = s + 4;
	else if (strncmp(s, "udp6:", 5) == 0)
		v6 = 1, p = s + 5;
	else {
		*why = "must start with udp: or udp6:";
		return -1;
	}
	if (v6) {
		const char *rb;
		if (*p != '[' || (rb = strchr(p, ']')) == NULL || rb[1] != ':') {
			*why = "IPv6 form is udp6:[ADDRESS]:PORT";
			return -1;
		}
		if ((size_t)(rb - p - 1) >= sizeof(host)) {
			*why = "address too long";
			return -1;
		}
		memcpy(host, p + 1, rb - p - 1);
		host[rb - p - 1] = '\0';
		colon = rb + 1;
	} else {
		if ((colon = strrchr(p, ':')) == NULL) {
			*why = "IPv4 form is udp:ADDRESS:PORT";
			return -1;
		}
		if ((size_t)(colon - p) >= sizeof(host)) {
			*why = "address too long";
			return -1;
		}
		memcpy(host, p, colon - p);
		host[colon - p] = '\0';
	}
	if (inet_pton(v6 ? AF_INET6 : AF_INET, host, buf) != 1) {
		*why = "not a numeric address";
		return -1;
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || errno || port < 1 ||
	    port > 65535) {
		*why = "port must be 1..65535";
		return -1;
	}
	inet_ntop(v6 ? AF_INET6 : AF_INET, buf, host, sizeof(host));
	snprintf(norm, nlen, "%s%s%s%s:%ld", v6 ? "udp6:" : "udp:",
	    v6 ? "[" : "", host, v6 ? "]" : "", port);
	return 0;
}

static void
parse_listen(struct yaml_ctx *x, yaml_node_t *v, struct gw_conf *c)
{
	char norm[INET6_ADDRSTRLEN + 16];
	yaml_node_item_t *it;
	int n;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, "listen") == -1)
		return;
	n = v->data.sequence.items.top - v->data.sequence.items.start;
	if ((c->listen = calloc(n ? n : 1, sizeof(*c->listen))) == NULL)
		fatal("conf");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	    it++) {
		yaml_node_t *e = yaml_item(x, it);
		char *spec = NULL;
		const char *why;
		int dup = 0;

		if (yaml_str(x, e, "listen", &spec, 128) == -1)
			continue;
		if (conf_check_listener(spec, norm, sizeof(norm), &why) == -1) {
			yaml_err(x, e, "bad listener '%s': %s", spec, why);
			free(spec);
			continue;
		}
		for (int i = 0; i < c->nlisten; i++)
			if (strcmp(c->listen[i].norm, norm) == 0) {
				yaml_err(x, e, "duplicate listener '%s' (first at "
				    "line %d)", spec, c->listen[i].line);
				dup = 1;
			}
		if (dup) {
			free(spec);
			continue;
		}
		if (c->nlisten == GW_MAX_LISTEN) {
			yaml_err(x, e, "more than %d listeners", GW_MAX_LISTEN);
			free(spec);
			continue;
		}
		if ((c->listen[c->nlisten].norm = strdup(norm)) == NULL)
			fatal("conf");
		c->listen[c->nlisten].spec = spec;
		c->listen[c->nlisten++].line = e->start_mark.line + 1;
	}
}

static int
parse_cidr(const char *s, struct gw_cidr *c)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	long bits;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	memset(c, 0, sizeof(*c));
	if ((slash = strchr(buf, '/')) != NULL)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, c->addr) == 1)
		c->family = AF_INET, c->bits = 32;
	else if (inet_pton(AF_INET6, buf, c->addr) == 1)
		c->family = AF_INET6, c->bits = 128;
	else
		return -1;
	if (slash) {
		errno = 0;
		bits = strtol(slash + 1, &end, 10);
		if (slash[1] == '\0' || *end || errno || bits < 0 ||
		    bits > c->bits)
			return -1;
		c->bits = bits;
	}
	return 0;
}

int
gw_cidr_match(const struct gw_cidr *c, int n, const struct sockaddr *sa)
{
	const uint8_t *a;
	uint8_t mapped[16];
	int family;

	if (n == 0)
		return 1;
	if (sa == NULL)
		return 0;
	family = sa->sa_family;
	if (family == AF_INET)
		a = (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
	else if (family == AF_INET6) {
		a = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		/* An IPv4 client on a dual-stack socket. */
		static const uint8_t v4pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		    0xff, 0xff };
		if (memcmp(a, v4pre, 12) == 0) {
			memcpy(mapped, a + 12, 4);
			a = mapped;
			family = AF_INET;
		}
	} else
		return 0;
	for (int i = 0; i < n; i++) {
		int bits = c[i].bits, full = bits / 8, rest = bits % 8;
		if (c[i].family != family)
			continue;
		if (memcmp(c[i].addr, a, full) != 0)
			continue;
		if (rest && ((c[i].addr[full] ^ a[full]) &
		    (0xff << (8 - rest)) & 0xff))
			continue;
		return 1;
	}
	return 0;
}

static void
parse_sources(struct yaml_ctx *x, yaml_node_t *v, struct gw_community *cm)
{
	yaml_node_item_t *it;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, "sources") == -1)
		return;
	cm->sources = calloc(v->data.sequence.items.top -
	    v->data.sequence.items.start + 1, sizeof(*cm->sources));
	if (cm->sources == NULL)
		fatal("conf");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	    it++) {
		yaml_node_t *e = yaml_item(x, it);
		const char *a = yaml_scalar(e);
		if (a == NULL || parse_cidr(a, &cm->sources[cm->nsources]) == -1)
			yaml_err(x, e, "not an address or prefix: '%s' (e.g. "
			    "192.0.2.0/24, 2001:db8::/32)", a ? a : "");
		else
			cm->nsources++;
	}
}

void
conf_match_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct store_select *p = arg;
	char *s = NULL;

	p->set = 1;
	if (strcmp(key, "type") == 0) {
		if (yaml_str(x, v, key, &s, 16) == 0) {
			if (strcmp(s, "ca") == 0)
				p->type = STORE_NODE_CA;
			else if (strcmp(s, "switch") == 0)
				p->type = STORE_NODE_SWITCH;
			else if (strcmp(s, "router") == 0)
				p->type = STORE_NODE_ROUTER;
			else
				yaml_err(x, v, "type must be ca, switch or router");
		}
	} else if (strcmp(key, "name") == 0)
		yaml_str(x, v, key, &p->glob, 255);
	else if (strcmp(key, "regex") == 0) {
		if (yaml_str(x, v, key, &p->regex_src, 255) == 0) {
			regex_t *re = calloc(1, sizeof(*re));
			if (re == NULL)
				fatal("conf");
			if (regcomp(re, p->regex_src, REG_EXTENDED | REG_NOSUB)) {
				yaml_err(x, v, "bad regular expression '%s'",
				    p->regex_src);
				free(re);
			} else
				p->regex = re;
		}
	} else if (strcmp(key, "guids") == 0) {
		yaml_node_item_t *it;
		if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, key) == -1)
			return;
		p->nguids = 0;
		p->guids = calloc(v->data.sequence.items.top -
		    v->data.sequence.items.start + 1, sizeof(*p->guids));
		if (p->guids == NULL)
			fatal("conf");
		for (it = v->data.sequence.items.start;
		    it < v->data.sequence.items.top; it++) {
			yaml_node_t *e = yaml_item(x, it);
			const char *g = yaml_scalar(e);
			if (g == NULL || store_parse_guid(g, strlen(g),
			    &p->guids[p->nguids]) == -1)
				yaml_err(x, e, "not a GUID: '%s'", g ? g : "");
			else
				p->nguids++;
		}
	} else
		yaml_unknown(x, k, key, "match");
	free(s);
}

static void
community_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_community *cm = arg;

	if (strcmp(key, "name") == 0) {
		if (yaml_str(x, v, key, &cm->name, 64) == 0 &&
		    !conf_valid_name(cm->name)) {
			yaml_err(x, v, "community '%s' must be printable, "
			    "without spaces or '@'", cm->name);
			free(cm->name);
			cm->name = NULL;
		}
	} else if (strcmp(key, "sources") == 0)
		parse_sources(x, v, cm);
	else if (strcmp(key, "nodes") == 0)
		yaml_each_pair(x, v, "nodes", conf_match_key, &cm->nodes);
	else if (strcmp(key, "fabric-queries") == 0)
		yaml_bool(x, v, key, &cm->fabric_queries);
	else
		yaml_unknown(x, k, key, "communities");
}

static void
parse_communities(struct yaml_ctx *x, yaml_node_t *v,
    struct gw_conf *c)
{
	yaml_node_item_t *it;
	int n;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, "communities") == -1)
		return;
	n = v->data.sequence.items.top - v->data.sequence.items.start;
	if ((c->communities = calloc(n ? n : 1, sizeof(*c->communities))) ==
	    NULL)
		fatal("conf");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	    it++) {
		yaml_node_t *e = yaml_item(x, it);
		struct gw_community cm;

		memset(&cm, 0, sizeof(cm));
		cm.line = e->start_mark.line + 1;
		int dup = 0;

		yaml_each_pair(x, e, "communities", community_key, &cm);
		if (cm.name == NULL) {
			if (e->type == YAML_MAPPING_NODE)
				yaml_err(x, e, "community needs a 'name'");
			community_free(&cm);
			continue;
		}
		for (int i = 0; i < c->ncommunities; i++)
			if (strcmp(c->communities[i].name, cm.name) == 0) {
				yaml_err(x, e, "duplicate community '%s' (first "
				    "at line %d)", cm.name,
				    c->communities[i].line);
				dup = 1;
			}
		if (dup) {
			community_free(&cm);
			continue;
		}
		c->communities[c->ncommunities++] = cm;
	}
}

static const char *auth_names[] = { "none", "MD5", "SHA", "SHA-224",
    "SHA-256", "SHA-384", "SHA-512" };
static const char *priv_names[] = { "none", "DES", "AES", "AES-192",
    "AES-256" };

const char *
gw_auth_name(enum gw_auth_proto p)
{
	return auth_names[p];
}

const char *
gw_priv_name(enum gw_priv_proto p)
{
	return priv_names[p];
}

static int
lookup_name(const char *s, const char **names, int n)
{
	for (int i = 1; i < n; i++)
		if (strcasecmp(s, names[i]) == 0)
			return i;
	/* Accepted aliases. */
	if (strcasecmp(s, "SHA1") == 0 && names == auth_names)
		return GW_AUTH_SHA;
	if (strcasecmp(s, "AES128") == 0 && names == priv_names)
		return GW_PRIV_AES;
	return -1;
}

void
conf_user_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_user *u = arg;
	char *s = NULL;
	int p;

	if (strcmp(key, "name") == 0) {
		if (yaml_str(x, v, key, &u->name, 32) == 0 && !conf_valid_name(u->name)) {
			yaml_err(x, v, "user name '%s' must be printable, without "
			    "spaces or '@'", u->name);
			free(u->name);
			u->name = NULL;
		}
	} else if (strcmp(key, "auth-protocol") == 0) {
		if (yaml_str(x, v, key, &s, 16) == 0) {
			if ((p = lookup_name(s, auth_names, 7)) == -1)
				yaml_err(x, v, "unknown auth-protocol '%s' (MD5, "
				    "SHA, SHA-224, SHA-256, SHA-384, SHA-512)",
				    s);
			else
				u->auth = p;
		}
	} else if (strcmp(key, "priv-protocol") == 0) {
		if (yaml_str(x, v, key, &s, 16) == 0) {
			if ((p = lookup_name(s, priv_names, 5)) == -1)
				yaml_err(x, v, "unknown priv-protocol '%s' (DES, "
				    "AES, AES-192, AES-256)", s);
			else
				u->priv = p;
		}
	} else if (strcmp(key, "auth-passphrase") == 0 ||
	    strcmp(key, "priv-passphrase") == 0) {
		char **dst = key[0] == 'a' ? &u->auth_pass : &u->priv_pass;
		if (yaml_str(x, v, key, dst, 256) == 0 && strlen(*dst) < 8) {
			/* RFC 3414 A.1: at least 8 octets. */
			yaml_err(x, v, "'%s' must be at least 8 characters", key);
			free_secret(*dst);
			*dst = NULL;
		}
	} else if (strcmp(key, "nodes") == 0)
		yaml_each_pair(x, v, "nodes", conf_match_key, &u->nodes);
	else if (strcmp(key, "fabric-queries") == 0)
		yaml_bool(x, v, key, &u->fabric_queries);
	else
		yaml_unknown(x, k, key, "users");
	free(s);
}

static void
parse_users(struct yaml_ctx *x, yaml_node_t *v, struct gw_conf *c)
{
	yaml_node_item_t *it;
	int n;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, "users") == -1)
		return;
	n = v->data.sequence.items.top - v->data.sequence.items.start;
	if ((c->users = calloc(n ? n : 1, sizeof(*c->users))) == NULL)
		fatal("conf");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	    it++) {
		yaml_node_t *e = yaml_item(x, it);
		struct gw_user u = { 0 };
		int bad = 0;

		u.line = e->start_mark.line + 1;
		yaml_each_pair(x, e, "users", conf_user_key, &u);
		if (e->type != YAML_MAPPING_NODE)
			bad = 1;
		else if (u.name == NULL)
			yaml_err(x, e, "user needs a 'name'"), bad = 1;
		else if (u.auth == GW_AUTH_NONE || u.auth_pass == NULL)
			yaml_err(x, e, "user '%s' needs auth-protocol and "
			    "auth-passphrase", u.name), bad = 1;
		else if ((u.priv == GW_PRIV_NONE) != (u.priv_pass == NULL))
			yaml_err(x, e, "user '%s': priv-protocol and "
			    "priv-passphrase go together", u.name), bad = 1;
		for (int i = 0; !bad && i < c->nusers; i++)
			if (strcmp(c->users[i].name, u.name) == 0) {
				yaml_err(x, e, "duplicate user '%s' (first at line "
				    "%d)", u.name, c->users[i].line);
				bad = 1;
			}
		if (bad) {
			conf_user_free(&u);
			continue;
		}
		c->users[c->nusers++] = u;
	}
}

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
		parse_listen(x, v, c);
	else if (strcmp(key, "communities") == 0)
		parse_communities(x, v, c);
	else if (strcmp(key, "users") == 0)
		parse_users(x, v, c);
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
			struct proxy_threshold t = { -1, -1 };
			yaml_each_pair(x, e, "thresholds", threshold_key, &t);
			if (t.ctr < 0 || t.per_minute < 0) {
				if (e->type == YAML_MAPPING_NODE)
					yaml_err(x, e, "a threshold needs 'counter' "
					    "and 'per-minute'");
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
	else if (strcmp(key, "max-queue-per-node") == 0)
		yaml_int(x, v, key, &t->max_queue_node, 1, 4096);
	else if (strcmp(key, "read-ahead") == 0)
		yaml_int(x, v, key, &c->tunnel_read_ahead, 1, 100);
	else
		yaml_unknown(x, k, key, "tunnel");
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
	};

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (strcmp(key, sections[i].name) == 0) {
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
	c->tunnel.max_inflight_node = 1;	/* docs/tunneling.md */
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
	for (int i = 0; i < ATTR_TTL_MAX; i++)
		c->ttl[i] = cache_get_ttl(i);
}

static char *
xstrdup(const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		fatal("conf");
	return d;
}

int
gw_conf_read_key(const char *path, const char *what, uint64_t *mkey,
    FILE *err)
{
	char buf[64];
	struct stat st;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW)) == -1 ||
	    fstat(fd, &st) == -1) {
		fprintf(err, "%s:0: cannot open: %s\n", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	/* A secret: refuse a file others may read or write. */
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077)) {
		fprintf(err, "%s:0: must be a regular file readable only by "
		    "its owner (mode 0600 or 0400)\n", path);
		close(fd);
		return -1;
	}
	/* read(), not stdio: no copy of the key in a stdio buffer. */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, " \t\r\n")] = '\0';
	if (n <= 0 || store_parse_guid(buf, strlen(buf), mkey) == -1) {
		/* The content is never echoed. */
		fprintf(err, "%s:1: expected one 64-bit %s in hex\n", path,
		    what);
		explicit_bzero(buf, sizeof(buf));
		return -1;
	}
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

/* Defaults that follow from other keys: state and socket next to the
 * store. */
static void
derive_paths(struct gw_conf *c)
{
	if (c->fabric_context == NULL)
		c->fabric_context = xstrdup("fabric");
	if (c->store_path == NULL)
		c->store_path = xstrdup("/var/lib/ibsnmpgw/inventory.db");
	if (c->state_dir == NULL) {
		/* The store's directory: "." for a bare name, "/" for the
		 * root, else everything before the last '/'. */
		const char *p = c->store_path, *slash = strrchr(p, '/');

		if (slash == NULL)
			c->state_dir = xstrdup(".");
		else if (slash == p)
			c->state_dir = xstrdup("/");
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
		c->ipoib_net_dir = xstrdup("/sys/class/net");
	if (c->ipoib_arp_file == NULL)
		c->ipoib_arp_file = xstrdup("/proc/net/arp");
}

/* Checks across sections, at the top-level mapping's line. */
static void
check_whole(struct yaml_ctx *x, const yaml_node_t *root,
    const struct gw_conf *c)
{
	if (c->nlisten == 0)
		yaml_err(x, root, "no snmp.listen addresses");
	if (c->ncommunities == 0 && c->nusers == 0)
		yaml_err(x, root, "no snmp.communities or snmp.users: nobody "
		    "could query the gateway");
	conf_check_targets(x, c);
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
	c->path = xstrdup(path);
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
	for (int i = 0; i < c->nlisten; i++) {
		free(c->listen[i].spec);
		free(c->listen[i].norm);
	}
	free(c->listen);
	for (int i = 0; i < c->ncommunities; i++)
		community_free(&c->communities[i]);
	free(c->communities);
	for (int i = 0; i < c->nusers; i++)
		conf_user_free(&c->users[i]);
	free(c->users);
	free(c->sys_contact);
	free(c->sys_location);
	free(c->sys_object_id_base);
	free(c->fabric_context);
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
	conf_targets_free(c);
	free(c->path);
	free(c);
}
