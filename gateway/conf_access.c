/* conf: who may reach the agent and how: snmp.listen, snmp.communities
 * (with their source CIDRs), snmp.users, and the node selectors these
 * and other sections share (gateway/conf_int.h). */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <netinet/in.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "gateway/conf.h"
#include "gateway/conf_int.h"
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

void
conf_access_free(struct gw_conf *c)
{
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

void
conf_parse_listen(struct yaml_ctx *x, yaml_node_t *v, struct gw_conf *c)
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

void
conf_parse_communities(struct yaml_ctx *x, yaml_node_t *v,
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

void
conf_parse_users(struct yaml_ctx *x, yaml_node_t *v, struct gw_conf *c)
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

/* "0x800000020109840301" (snmptrapd's and snmpd's form): "0x" and 5 to
 * 32 octets in hex, RFC 3411 SnmpEngineID's length. 0, or -1 with *id
 * and *len unspecified and unchanged respectively. */
int
conf_hex_engine_id(const char *s, uint8_t *id, size_t *len)
{
	size_t n = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	for (s += 2; s[0] && s[1] && n < GW_ENGINE_ID_MAX; s += 2) {
		unsigned b;

		if (sscanf(s, "%2x", &b) != 1 || !isxdigit((unsigned char)s[1]))
			return -1;
		id[n++] = (uint8_t)b;
	}
	if (*s != '\0' || n < 5)
		return -1;
	*len = n;
	return 0;
}
