/* ibsnmp-tunneld's configuration: a small YAML mapping, errors as
 * file:line (util/yaml.h); keys in ibsnmp-tunneld(8). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/tunnel.h"
#include "tunneld/tunneld.h"
#include "util/yaml.h"

struct td_conf td_conf;

static int
set_agent(const char *s)
{
	char host[64];
	int port;

	if (sscanf(s, "udp:%63[^:]:%d", host, &port) != 2 || port < 1 ||
	    port > 65535)
		return -1;
	memset(&td_conf.agent, 0, sizeof(td_conf.agent));
	td_conf.agent.sin_family = AF_INET;
	td_conf.agent.sin_port = htons((uint16_t)port);
	/* Loopback only: the tunnel never leads anywhere else. */
	if (inet_pton(AF_INET, host, &td_conf.agent.sin_addr) != 1 ||
	    (ntohl(td_conf.agent.sin_addr.s_addr) >> 24) != 127)
		return -1;
	return 0;
}

/* A unicast LID, in any base. */
static int
add_lid(const char *s)
{
	char *end;
	long n = strtol(s, &end, 0);

	if (*s == '\0' || *end != '\0' || n < 1 || n > 0xbfff ||
	    td_conf.nlids == TD_MAX_LIDS)
		return -1;
	td_conf.lids[td_conf.nlids++] = (uint16_t)n;
	return 0;
}

/* A port GUID, 0x and hex. */
static int
add_guid(const char *s)
{
	unsigned long long g;
	char *end;

	errno = 0;
	g = strtoull(s, &end, 16);
	if (strncmp(s, "0x", 2) != 0 || *end != '\0' || errno || g == 0 ||
	    td_conf.nguids == TD_MAX_LIDS)
		return -1;
	td_conf.guids[td_conf.nguids++] = g;
	return 0;
}

/* allow-lids, allow-guids: the first bad entry is reported. */
static void
conf_allow(struct yaml_ctx *x, const char *key, yaml_node_t *v, int guids)
{
	yaml_node_item_t *it;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, key) == -1)
		return;
	for (it = v->data.sequence.items.start;
	    it < v->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_item(x, it);
		const char *s = yaml_scalar(e) ? yaml_scalar(e) : "";

		if ((guids ? add_guid(s) : add_lid(s)) == -1) {
			yaml_err(x, e, "not a %s (or more than %d): '%s'",
			    guids ? "port GUID 0x..." : "unicast LID",
			    TD_MAX_LIDS, s);
			return;
		}
	}
}

/* A string key: agent, community, ca. */
static void
conf_string(struct yaml_ctx *x, const char *key, yaml_node_t *v)
{
	char *s = NULL;

	if (strcmp(key, "agent") == 0) {
		if (yaml_str(x, v, key, &s, 0) == 0 && set_agent(s) == -1)
			yaml_err(x, v, "agent must be udp:127.x.y.z:PORT, not "
			    "'%s'", s);
	} else if (strcmp(key, "community") == 0) {
		if (yaml_str(x, v, key, &s, 0) == -1)
			return;
		if (*s == '\0' || strlen(s) >= sizeof(td_conf.community))
			yaml_err(x, v, "community must be 1 to %zu characters: "
			    "'%s'", sizeof(td_conf.community) - 1, s);
		else
			memcpy(td_conf.community, s, strlen(s) + 1);
	} else if (yaml_str(x, v, key, &s, sizeof(td_conf.ca) - 1) == 0)
		memcpy(td_conf.ca, s, strlen(s) + 1);		/* ca */
	free(s);
}

static void
conf_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	if (strcmp(key, "allow-lids") == 0)
		conf_allow(x, key, v, 0);
	else if (strcmp(key, "allow-guids") == 0)
		conf_allow(x, key, v, 1);
	else if (strcmp(key, "agent") == 0 || strcmp(key, "community") == 0 ||
	    strcmp(key, "ca") == 0)
		conf_string(x, key, v);
	else if (strcmp(key, "sim-issm") == 0)
		yaml_bool(x, v, key, &td_conf.sim_issm);
	else if (strcmp(key, "port") == 0)
		yaml_int(x, v, key, &td_conf.port, 0, 600000);
	else if (strcmp(key, "max-peers") == 0)
		yaml_int(x, v, key, &td_conf.max_peers, 1, 1024);
	else if (strcmp(key, "max-requests-per-peer") == 0)
		yaml_int(x, v, key, &td_conf.max_requests, 1, 256);
	else if (strcmp(key, "reassembly-timeout-ms") == 0)
		yaml_int(x, v, key, &td_conf.reasm_ms, 0, 600000);
	else if (strcmp(key, "agent-timeout-ms") == 0)
		yaml_int(x, v, key, &td_conf.agent_ms, 0, 600000);
	else if (strcmp(key, "segment-octets") == 0)
		yaml_int(x, v, key, &td_conf.segment, 1, TUN_SEG_DATA);
	else
		yaml_err(x, k, "unknown key '%s'", key);
}

int
td_conf_load(const char *path)
{
	struct yaml_ctx x;
	yaml_node_t *root;

	memset(&td_conf, 0, sizeof(td_conf));
	(void)set_agent("udp:127.0.0.1:161");
	td_conf.max_peers = 16;
	td_conf.max_requests = 32;
	td_conf.reasm_ms = 1000;
	td_conf.agent_ms = 2000;
	td_conf.segment = TUN_SEG_DATA;
	if ((root = yaml_load(&x, path, stderr)) != NULL) {
		yaml_each_pair(&x, root, "top level", conf_key, NULL);
		if (x.nerr == 0 && (td_conf.community[0] == '\0' ||
		    td_conf.nlids + td_conf.nguids == 0))
			yaml_err(&x, root, "'community', and 'allow-lids' or "
			    "'allow-guids', are required: nobody could use "
			    "the tunnel");
	}
	yaml_unload(&x);
	return x.nerr ? -1 : 0;
}
