/* conf: the ha: section (docs/ha.md). */
#include "config.h"

#include <sys/socket.h>
#include <netdb.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "gateway/conf.h"
#include "gateway/conf_int.h"
#include "util/yaml.h"

int
gw_conf_ha_addr(const char *s, struct sockaddr_storage *ss, unsigned *len)
{
	char host[INET6_ADDRSTRLEN + 2], *port;
	struct addrinfo hints, *ai = NULL;
	const char *colon = strrchr(s, ':');
	size_t hl;

	if (colon == NULL || colon == s || colon[1] == '\0')
		return -1;
	hl = (size_t)(colon - s);
	if (s[0] == '[') {
		if (hl < 3 || s[hl - 1] != ']')
			return -1;
		s++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, s, hl);
	host[hl] = '\0';
	port = (char *)colon + 1;
	for (const char *p = port; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	if (atoi(port) < 1 || atoi(port) > 65535)
		return -1;
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &ai) != 0 || ai == NULL)
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = (unsigned)ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

int
gw_conf_read_ha_key(const char *path, uint8_t *key, FILE *err)
{
	uint8_t buf[GW_HA_KEY_MAX + 2];
	ssize_t n;

	if ((n = conf_read_secret(path, buf, sizeof(buf), err)) == -1)
		return -1;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
	    buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	if (n < GW_HA_KEY_MIN || n > GW_HA_KEY_MAX) {
		fprintf(err, "%s:1: the HA key must be %d to %d octets "
		    "(e.g. openssl rand -hex 32)\n", path, GW_HA_KEY_MIN,
		    GW_HA_KEY_MAX);
		explicit_bzero(buf, sizeof(buf));
		return -1;
	}
	memcpy(key, buf, (size_t)n);
	explicit_bzero(buf, sizeof(buf));
	return (int)n;
}

static void
ha_addr_key(struct yaml_ctx *x, yaml_node_t *v, const char *key,
    char **out)
{
	struct sockaddr_storage ss;
	unsigned len;

	if (yaml_str(x, v, key, out, 64) == -1)
		return;
	if (gw_conf_ha_addr(*out, &ss, &len) == -1)
		yaml_err(x, v, "ha.%s: expected ADDR:PORT or [ADDR6]:PORT with "
		    "a numeric address, not '%s'", key, *out);
}

void
conf_ha_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_ha_conf *h = &((struct gw_conf *)arg)->ha;
	const char *s;

	if (strcmp(key, "role") == 0) {
		s = yaml_scalar(v);
		if (s && strcmp(s, "auto") == 0)
			h->role = GW_HA_AUTO;
		else if (s && strcmp(s, "active") == 0)
			h->role = GW_HA_ACTIVE;
		else if (s && strcmp(s, "standby") == 0)
			h->role = GW_HA_STANDBY;
		else
			yaml_err(x, v, "ha.role: expected auto, active or "
			    "standby");
	} else if (strcmp(key, "listen") == 0)
		ha_addr_key(x, v, key, &h->listen);
	else if (strcmp(key, "peer") == 0)
		ha_addr_key(x, v, key, &h->peer);
	else if (strcmp(key, "key-file") == 0)
		yaml_path(x, v, key, &h->key_file, PATH_MAX);
	else if (strcmp(key, "name") == 0)
		yaml_str(x, v, key, &h->name, 63);
	else if (strcmp(key, "takeover-timeout") == 0)
		yaml_int(x, v, key, &h->takeover_timeout, 1, 600);
	else
		yaml_unknown(x, k, key, "ha");
}

void
conf_check_ha(struct yaml_ctx *x, const yaml_node_t *root, struct gw_conf *c)
{
	struct gw_ha_conf *h = &c->ha;

	if (!h->enabled)
		return;
	if (h->listen == NULL || h->peer == NULL || h->key_file == NULL)
		yaml_err_at(x, (unsigned long)h->line, "ha: listen, peer and "
		    "key-file are all needed");
	else if (strcmp(h->listen, h->peer) == 0)
		yaml_err_at(x, (unsigned long)h->line, "ha: peer is the same "
		    "address as listen");
	if (c->engine_id_len == 0)
		yaml_err_at(x, (unsigned long)h->line, "ha: snmp.engine-id "
		    "must be set, the same on both gateways (one SNMP engine, "
		    "RFC 3411 3.1.1)");
}

void
conf_ha_free(struct gw_conf *c)
{
	free(c->ha.listen);
	free(c->ha.peer);
	free(c->ha.key_file);
	free(c->ha.name);
}
