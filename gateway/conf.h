/* conf: the daemon's YAML configuration (ibsnmpgw.yaml(5)). */
#ifndef IBSNMPGW_CONF_H
#define IBSNMPGW_CONF_H

#include <stdint.h>
#include <stdio.h>

#include "store/cache.h"

enum gw_auth_proto {
	GW_AUTH_NONE, GW_AUTH_MD5, GW_AUTH_SHA, GW_AUTH_SHA224,
	GW_AUTH_SHA256, GW_AUTH_SHA384, GW_AUTH_SHA512
};

enum gw_priv_proto {
	GW_PRIV_NONE, GW_PRIV_DES, GW_PRIV_AES, GW_PRIV_AES192, GW_PRIV_AES256
};

struct gw_listener {
	char	*spec;		/* net-snmp transport spec, "udp:127.0.0.1:161" */
	int	 line;
};

struct gw_community {
	char	*name;
	int	 line;
};

struct gw_user {
	char			*name;
	enum gw_auth_proto	 auth;
	char			*auth_pass;
	enum gw_priv_proto	 priv;
	char			*priv_pass;
	int			 line;
};

/* Polling policy groups. */
#define GW_POLL_NODEINFO	0x01	/* NodeInfo, NodeDescription */
#define GW_POLL_PORTINFO	0x02
#define GW_POLL_COUNTERS	0x04	/* PortCounters(Extended), flow ctl */
#define GW_POLL_ERROR_DETAILS	0x08	/* Rcv error / xmit discard details */
#define GW_POLL_FORWARDING	0x10	/* linear forwarding table */

struct gw_threshold {
	int	 ctr;			/* enum perf_ctr */
	double	 per_minute;
};

struct gw_policy {
	char			*name;
	int			 line;
	int			 type;		/* 0 any, else NodeType */
	char			*glob;		/* on alias or NodeDescription */
	char			*regex_src;
	void			*regex;		/* regex_t */
	uint64_t		*guids;
	int			 nguids;
	unsigned		 groups;
	int			 interval;	/* seconds */
	int			 ttl;		/* seconds */
	int			 max_inflight;
	int			 reset;		/* may reset PortCounters */
	struct gw_threshold	*thresholds;
	int			 nthresholds;
};

struct gw_conf {
	char			*path;

	struct gw_listener	*listen;
	int			 nlisten;
	struct gw_community	*communities;
	int			 ncommunities;
	struct gw_user		*users;
	int			 nusers;
	char			*sys_contact;
	char			*sys_location;
	char			*sys_object_id_base;	/* dotted OID */

	char			*ib_ca;		/* NULL: first CA, as -C */
	int			 ib_port;	/* 0: first active, as -P */
	char			*node_name_map;

	char			*store_path;
	char			*state_dir;	/* net-snmp persistent data */

	int			 sweep_interval;	/* seconds */

	int			 mad_timeout_ms;
	int			 mad_retries;
	int			 mad_max_inflight;
	int			 mad_max_inflight_node;

	int			 ttl[CACHE_CLASS_MAX];	/* seconds */

	char			*log_level;

	struct gw_policy	*policies;	/* first match wins */
	int			 npolicies;
};

/* Load and validate path. Every error is printed to err as
 * "file:line: message". Returns NULL if there was any error. */
struct gw_conf	*gw_conf_load(const char *path, FILE *err);
void		 gw_conf_free(struct gw_conf *c);

const char	*gw_auth_name(enum gw_auth_proto p);
const char	*gw_priv_name(enum gw_priv_proto p);

#endif
