/* conf: ib.ports, the local ports and the subnet each one serves
 * (docs/subnets.md).
 *
 *   ib:
 *     ports:
 *       - { ca: mlx5_0, port: 1, subnet: compute }
 *       - { ca: mlx5_1, port: 1, subnet: storage }
 *
 * The single ib.ca / ib.port form is a list of one. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "gateway/conf.h"
#include "gateway/conf_int.h"
#include "util/log.h"
#include "util/yaml.h"

/* A subnet's name is part of context names ("fabric-NAME",
 * "NAME/cn01") and of file names: short, lower case, no separators. */
static int
valid_subnet(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > GW_SUBNET_NAME || !((*s >= 'a' && *s <= 'z') ||
	    (*s >= '0' && *s <= '9')))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		    *s == '-'))
			return 0;
	return 1;
}

static void
port_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_subnet *sn = arg;

	if (strcmp(key, "ca") == 0)
		yaml_str(x, v, key, &sn->ca, 64);
	else if (strcmp(key, "port") == 0)
		yaml_int(x, v, key, &sn->port, 1, 254);
	else if (strcmp(key, "subnet") == 0) {
		if (yaml_str(x, v, key, &sn->name, GW_SUBNET_NAME) == 0 &&
		    !valid_subnet(sn->name))
			yaml_err(x, v, "subnet '%s' must be lower-case letters, "
			    "digits and '-', starting with a letter or digit",
			    sn->name);
	} else if (strcmp(key, "sim-host") == 0)
		yaml_str(x, v, key, &sn->sim_host, 31);
	else
		yaml_unknown(x, k, key, "ib.ports");
}

static void
subnet_free(struct gw_subnet *sn)
{
	free(sn->name);
	free(sn->ca);
	free(sn->sim_host);
	memset(sn, 0, sizeof(*sn));
}

static int
same_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL &&
	    strcmp(a, b) == 0);
}

/* Under ibsim every client is port 1 of its node's one CA: there a
 * port is also its sim-host. */
static int
same_port(const struct gw_subnet *a, const struct gw_subnet *b)
{
	return a->port == b->port && same_str(a->ca, b->ca) &&
	    same_str(a->sim_host, b->sim_host);
}

void
conf_parse_ports(struct yaml_ctx *x, yaml_node_t *v, struct gw_conf *c)
{
	yaml_node_item_t *it;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, "ports") == -1)
		return;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	    it++) {
		yaml_node_t *e = yaml_item(x, it);
		struct gw_subnet sn;
		int bad = 0;

		memset(&sn, 0, sizeof(sn));
		sn.line = e->start_mark.line + 1;
		yaml_each_pair(x, e, "ib.ports", port_key, &sn);
		if (e->type == YAML_MAPPING_NODE && sn.name == NULL) {
			yaml_err(x, e, "a port needs a 'subnet' name");
			bad = 1;
		}
		if (e->type == YAML_MAPPING_NODE && sn.port == 0) {
			yaml_err(x, e, "a port needs its 'port' number");
			bad = 1;
		}
		for (int i = 0; !bad && i < c->nsubnets; i++) {
			const struct gw_subnet *o = &c->subnets[i];

			if (strcmp(o->name, sn.name) == 0) {
				yaml_err(x, e, "subnet '%s' is served already "
				    "(line %d)", sn.name, o->line);
				bad = 1;
			} else if (same_port(o, &sn)) {
				yaml_err(x, e, "%s port %d already serves "
				    "subnet '%s' (line %d)", sn.ca ? sn.ca :
				    "the first CA", sn.port, o->name, o->line);
				bad = 1;
			}
		}
		if (!bad && sn.name != NULL && c->nsubnets == GW_SUBNETS_MAX) {
			yaml_err(x, e, "at most %d ports", GW_SUBNETS_MAX);
			bad = 1;
		}
		if (bad || sn.name == NULL)
			subnet_free(&sn);
		else
			c->subnets[c->nsubnets++] = sn;
	}
}

/* ADDR:PORT's port; 0 if it has none (the ha: checks said so). */
static int
ha_port(const char *addr)
{
	const char *colon = addr ? strrchr(addr, ':') : NULL;

	return colon ? atoi(colon + 1) : 0;
}

/* addr with its port plus i: a further subnet's replication link. */
static char *
ha_port_plus(const char *addr, int i)
{
	const char *colon = strrchr(addr, ':');
	size_t n = strlen(addr) + 8;
	char *s;

	if (colon == NULL)
		return conf_xstrdup(addr);
	if ((s = malloc(n)) == NULL)
		fatal("conf");
	snprintf(s, n, "%.*s:%d", (int)(colon - addr), addr,
	    atoi(colon + 1) + i);
	return s;
}

void
conf_check_subnets(struct yaml_ctx *x, struct gw_conf *c)
{
	if (c->nsubnets == 0)
		return;
	if (c->ib_ca != NULL || c->ib_port != 0) {
		yaml_err_at(x, (unsigned long)c->subnets[0].line,
		    "ib.ca/ib.port and ib.ports: one or the other");
		return;
	}
	/* A pair: subnet i replicates on the ports of ha.listen and
	 * ha.peer plus i (docs/subnets.md). */
	if (c->nsubnets > 1 && c->ha.enabled &&
	    (ha_port(c->ha.listen) + c->nsubnets - 1 > 65535 ||
	    ha_port(c->ha.peer) + c->nsubnets - 1 > 65535))
		yaml_err_at(x, (unsigned long)c->ha.line, "ha.listen/ha.peer: "
		    "with %d subnets, ports up to PORT+%d are used: too high",
		    c->nsubnets, c->nsubnets - 1);
	/* The first port is this process's: as ib.ca / ib.port. */
	if (c->subnets[0].ca != NULL)
		c->ib_ca = conf_xstrdup(c->subnets[0].ca);
	c->ib_port = c->subnets[0].port;
}

void
conf_subnets_free(struct gw_conf *c)
{
	for (int i = 0; i < c->nsubnets; i++)
		subnet_free(&c->subnets[i]);
	c->nsubnets = 0;
}

/* path with "-NAME" before its extension: inventory-b.db. */
static char *
beside(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	size_t n = strlen(path) + strlen(name) + 2;
	char *s = malloc(n);

	if (s == NULL)
		fatal("conf");
	if (dot == NULL || (slash != NULL && dot < slash) || dot == path ||
	    (slash != NULL && dot == slash + 1))
		snprintf(s, n, "%s-%s", path, name);
	else
		snprintf(s, n, "%.*s-%s%s", (int)(dot - path), path, name, dot);
	return s;
}

char *
gw_conf_subnet_store(const struct gw_conf *c, int i)
{
	return i > 0 && i < c->nsubnets ? beside(c->store_path,
	    c->subnets[i].name) : NULL;
}

int
gw_conf_subnet_child(struct gw_conf *c, const char *name, FILE *err)
{
	const struct gw_subnet *sn = NULL;
	size_t n;
	char *p;

	for (int i = 1; i < c->nsubnets; i++)
		if (strcmp(c->subnets[i].name, name) == 0)
			sn = &c->subnets[i];
	if (sn == NULL) {
		fprintf(err, "%s: no further subnet '%s' in ib.ports\n",
		    c->path ? c->path : "", name);
		return -1;
	}
	c->subnet_child = sn;
	if (c->ha.enabled) {
		int i = (int)(sn - c->subnets);

		p = ha_port_plus(c->ha.listen, i);
		free(c->ha.listen);
		c->ha.listen = p;
		p = ha_port_plus(c->ha.peer, i);
		free(c->ha.peer);
		c->ha.peer = p;
		/* keepalived's word reaches it through the first process
		 * (gateway/subnet_ha.c): a standby until then. */
		c->ha.role = GW_HA_AUTO;
	}
	free(c->ib_ca);
	c->ib_ca = sn->ca ? conf_xstrdup(sn->ca) : NULL;
	c->ib_port = sn->port;
	p = beside(c->store_path, sn->name);
	free(c->store_path);
	c->store_path = p;
	n = strlen(c->state_dir) + strlen(sn->name) + 9;
	if ((p = malloc(n)) == NULL)
		fatal("conf");
	snprintf(p, n, "%s/subnet-%s", c->state_dir, sn->name);
	free(c->state_dir);
	c->state_dir = p;
	p = beside(c->control_socket, sn->name);
	free(c->control_socket);
	c->control_socket = p;
	/* The configuration's listeners are the first process's. */
	for (int i = 0; i < c->nlisten; i++) {
		free(c->listen[i].spec);
		free(c->listen[i].norm);
	}
	c->nlisten = 0;
	return 0;
}
