/* conf's internal header: what its files (gateway/conf*.c) share with
 * each other, not with other modules (the model: libibnetdisc's
 * internal.h). Calls run one way: conf.c calls conf_notify.c,
 * conf_access.c, conf_ha.c and conf_health.c, conf_notify.c and
 * conf_health.c call conf_access.c, all
 * call util/yaml.c, and conf.c and conf_ha.c call conf_secret.c;
 * nothing calls back.
 *
 * conf.c holds the sections and the load, conf_notify.c events: and
 * notify:, conf_access.c who may reach the agent and how (listeners,
 * communities, users, node selectors, CIDRs). Section callbacks get the
 * gw_conf being filled as their arg. */
#ifndef IBSNMPGW_CONF_INT_H
#define IBSNMPGW_CONF_INT_H

#include <string.h>

#include "gateway/conf.h"
#include "util/log.h"
#include "util/yaml.h"

/* conf_access.c: snmp.listen, snmp.communities, snmp.users into c. */
void	conf_parse_listen(struct yaml_ctx *x, yaml_node_t *v,
	    struct gw_conf *c);
void	conf_parse_communities(struct yaml_ctx *x, yaml_node_t *v,
	    struct gw_conf *c);
void	conf_parse_users(struct yaml_ctx *x, yaml_node_t *v,
	    struct gw_conf *c);
/* "udp:ADDR:PORT" or "udp6:[ADDR]:PORT": 0 and the normalised form in
 * norm, or -1 and why. */
int	conf_check_listener(const char *s, char *norm, size_t nlen,
	    const char **why);
/* A community or user name: printable, no spaces, no '@'. */
int	conf_valid_name(const char *s);
/* "0x" and 5 to 32 octets in hex (an SnmpEngineID): 0, or -1. */
int	conf_hex_engine_id(const char *s, uint8_t *id, size_t *len);
/* A node selector's keys (arg: a store_select), a user's (a gw_user). */
void	conf_match_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
	    yaml_node_t *v, void *arg);
void	conf_user_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
	    yaml_node_t *v, void *arg);
/* Clears the passphrases. */
void	conf_user_free(struct gw_user *u);
/* Listeners, communities and users of c. */
void	conf_access_free(struct gw_conf *c);

/* conf_notify.c: the sections events: and notify: (arg: the gw_conf). */
void	conf_events_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
	    yaml_node_t *v, void *arg);
void	conf_notify_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
	    yaml_node_t *v, void *arg);
void	conf_targets_free(struct gw_conf *c);
/* After the whole file: targets against snmp.users and each other. */
void	conf_check_targets(struct yaml_ctx *x, const struct gw_conf *c);

/* conf_secret.c: a secret's file, refused unless a regular file only
 * its owner may read (mode 0600 or 0400). The bytes read, or -1 with
 * the reason on err (the content is never echoed). */
ssize_t	conf_read_secret(const char *path, void *buf, size_t size, FILE *err);

/* conf_health.c: the health: section (arg: the gw_conf). */
void	conf_health_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
	    yaml_node_t *v, void *arg);
void	conf_health_free(struct gw_conf *c);

/* strdup(), fatal when out of memory: here, so that the files of the
 * sections need nothing of conf.c, which calls them. */
static inline char *
conf_xstrdup(const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		fatal("conf");
	return d;
}

/* ib.ports (conf_subnet.c). */
void	conf_parse_ports(struct yaml_ctx *x, yaml_node_t *v,
	    struct gw_conf *c);
void	conf_check_subnets(struct yaml_ctx *x, struct gw_conf *c);
void	conf_subnets_free(struct gw_conf *c);

/* conf_ha.c: the ha: section (arg: the gw_conf); checks after it. */
void	conf_ha_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
	    yaml_node_t *v, void *arg);
void	conf_check_ha(struct yaml_ctx *x, const yaml_node_t *root,
	    struct gw_conf *c);
void	conf_ha_free(struct gw_conf *c);

/* conf_verdict.c: health.ports, the port verdicts' rules. */
void	conf_health_ports(struct yaml_ctx *x, yaml_node_t *v,
	    struct gw_conf *c);

#endif
