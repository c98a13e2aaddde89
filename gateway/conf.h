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

/* Which nodes something applies to: all given conditions must hold. Used
 * by polling policies and by per-community / per-user access. */
struct gw_selector {
	int			 set;		/* any condition given */
	int			 type;		/* 0 any, else NodeType */
	char			*glob;		/* on alias or NodeDescription */
	char			*regex_src;
	void			*regex;		/* regex_t */
	uint64_t		*guids;
	int			 nguids;
};

#define GW_MAX_LISTEN	8	/* half the agent's sessions: a reload
				 * opens the new ones before closing */

struct gw_listener {
	char	*spec;		/* net-snmp transport spec, "udp:127.0.0.1:161" */
	char	*norm;		/* the same, normalised: compared on reload */
	int	 line;
};

struct gw_cidr {
	int		family;		/* AF_INET or AF_INET6 */
	uint8_t		addr[16];
	int		bits;
};

struct gw_community {
	char			*name;
	int			 line;
	struct gw_cidr		*sources;	/* none: any source */
	int			 nsources;
	struct gw_selector	 nodes;		/* unset: every node */
};

struct gw_user {
	char			*name;
	enum gw_auth_proto	 auth;
	char			*auth_pass;
	enum gw_priv_proto	 priv;
	char			*priv_pass;
	int			 line;
	struct gw_selector	 nodes;		/* unset: every node */
};

/* Polling policy groups. */
#define GW_POLL_NODEINFO	0x01	/* NodeInfo, NodeDescription */
#define GW_POLL_PORTINFO	0x02
#define GW_POLL_COUNTERS	0x04	/* PortCounters(Extended), flow ctl */
#define GW_POLL_ERROR_DETAILS	0x08	/* Rcv error / xmit discard details */
#define GW_POLL_FORWARDING	0x10	/* linear forwarding table */
#define GW_POLL_VL_COUNTERS	0x20	/* PortVLOpPackets, PortVLOpData */

struct gw_threshold {
	int	 ctr;			/* enum perf_ctr */
	double	 per_minute;
};

struct gw_policy {
	char			*name;
	int			 line;
	struct gw_selector	 match;
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
	char			*mkey_file;	/* M_Key for SMPs, never logged */

	char			*store_path;
	char			*state_dir;	/* net-snmp persistent data */
	char			*control_socket;	/* ibsnmpgw ctl */

	int			 sweep_interval;	/* seconds */

	/* IPoIB addresses the host knows (store/ipoib.h). */
	char			*ipoib_net_dir;
	char			*ipoib_arp_file;
	int			 ipoib_refresh;		/* seconds, 0: off */

	int			 mad_timeout_ms;
	int			 mad_retries;
	int			 mad_max_inflight;
	int			 mad_max_inflight_node;
	int			 mad_rate;	/* MADs per second, 0: no cap */
	int			 mad_hold_down;	/* seconds, 0: never hold */
	int			 max_repetitions;	/* GETBULK cap */
	int			 request_timeout_ms;	/* per varbind */

	int			 ttl[CACHE_CLASS_MAX];	/* seconds */

	char			*log_level;

	struct gw_policy	*policies;	/* first match wins */
	int			 npolicies;
};

/* Load and validate path. Every error is printed to err as
 * "file:line: message". Returns NULL if there was any error. */
struct gw_conf	*gw_conf_load(const char *path, FILE *err);
void		 gw_conf_free(struct gw_conf *c);
/* Read the M_Key file: one 64-bit hex key, the file mode 0600/0400.
 * Errors go to err as file:line without the key. */
int		 gw_conf_read_mkey(const char *path, uint64_t *mkey, FILE *err);

const char	*gw_auth_name(enum gw_auth_proto p);

struct store_node;
/* Whether a node is selected (an unset selector selects all). */
int		 gw_selector_match(const struct gw_selector *sel,
		    const struct store_node *n);
/* Whether a socket address lies in one of the CIDRs. */
struct sockaddr;
int		 gw_cidr_match(const struct gw_cidr *c, int n,
		    const struct sockaddr *sa);
const char	*gw_priv_name(enum gw_priv_proto p);

#endif
