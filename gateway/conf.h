/* conf: the daemon's YAML configuration (ibsnmpgw.yaml(5)). */
#ifndef IBSNMPGW_CONF_H
#define IBSNMPGW_CONF_H

#include <stdint.h>
#include <stdio.h>

#include "codec/attr.h"
#include "proxy/linkcheck.h"
#include "proxy/poller.h"
#include "proxy/tunnel.h"
#include "proxy/verdict.h"
#include "store/events.h"
#include "store/select.h"
#include "store/topo.h"

enum gw_auth_proto {
	GW_AUTH_NONE, GW_AUTH_MD5, GW_AUTH_SHA, GW_AUTH_SHA224,
	GW_AUTH_SHA256, GW_AUTH_SHA384, GW_AUTH_SHA512
};

enum gw_priv_proto {
	GW_PRIV_NONE, GW_PRIV_DES, GW_PRIV_AES, GW_PRIV_AES192, GW_PRIV_AES256
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
	struct store_select	 nodes;		/* unset: every node */
	int			 fabric_queries;	/* may create IB-SM-MIB
						   path and trace rows */
};

struct gw_user {
	char			*name;
	enum gw_auth_proto	 auth;
	char			*auth_pass;
	enum gw_priv_proto	 priv;
	char			*priv_pass;
	int			 line;
	struct store_select	 nodes;		/* unset: every node */
	int			 fabric_queries;
};

/* Notification targets (docs/events.md). */
enum gw_event_cat {	/* a target's event filter, one bit each */
	GW_CAT_LINK = 1 << 0,		/* link down/up, port changes */
	GW_CAT_NODE = 1 << 1,		/* unreachable/reachable */
	GW_CAT_SM = 1 << 2,		/* master changes */
	GW_CAT_THRESHOLD = 1 << 3,
	GW_CAT_SUBSCRIPTION = 1 << 4,	/* the SA subscription */
	GW_CAT_TRAP = 1 << 5,		/* SMA traps the SM forwarded */
	GW_CAT_GATEWAY = 1 << 6,	/* coldStart/warmStart */
	GW_CAT_HEALTH = 1 << 7,		/* fabric health (docs/health.md) */
	GW_CAT_ALL = 0xff
};

struct gw_target {
	char			*name;
	int			 line;
	char			*address;	/* udp:HOST:PORT, udp6:... */
	int			 version;	/* 2 (v2c) or 3 */
	int			 inform;	/* else trap */
	char			*community;	/* v2c */
	struct gw_user		 user;		/* v3 (name NULL: none) */
	/* v3 informs: the receiver's engine ID (RFC 3414 4: it is the
	 * authoritative one), given so no discovery waits in the loop. */
	unsigned char		 engine_id[32];
	size_t			 engine_id_len;
	struct store_select	 nodes;		/* unset: every node */
	unsigned		 events;	/* GW_CAT_* */
	int			 timeout_ms;	/* informs: per attempt */
	int			 retries;	/*   and further attempts */
	int			 queue;		/*   events waiting, at most */
};

/* Ports whose IF-MIB linkDown/linkUp are off (ifLinkUpDownTrapEnable
 * disabled(2)): a node selector and port numbers (none: all). */
struct gw_updown_off {
	struct store_select	 nodes;
	uint8_t			 ports[32];	/* bitmap, port 0..255 */
	int			 any_port;
	int			 line;
};

#define GW_ENGINE_ID_MAX	32	/* octets, RFC 3411 SnmpEngineID */

/* ha: the standby pair (docs/ha.md). */
enum gw_ha_role { GW_HA_AUTO, GW_HA_ACTIVE, GW_HA_STANDBY };

struct gw_ha_conf {
	int		 enabled;	/* an ha: section */
	enum gw_ha_role	 role;		/* at start */
	char		*listen;	/* ADDR:PORT, [ADDR6]:PORT */
	char		*peer;
	char		*key_file;	/* HMAC key, mode 0600/0400 */
	char		*name;		/* this node; NULL: the host name */
	int		 takeover_timeout;	/* seconds of peer silence */
	int		 line;
};
#define GW_HA_KEY_MIN	16
#define GW_HA_KEY_MAX	256

/* ib.ports: a local port and the subnet it serves (docs/subnets.md).
 * The first is served by this process; each further one by a process
 * of its own (gateway/subnet.c). */
#define GW_SUBNETS_MAX	8
#define GW_SUBNET_NAME	16	/* characters, [a-z0-9][a-z0-9-]* */
struct gw_subnet {
	char	*name;
	char	*ca;		/* NULL: the first CA */
	int	 port;		/* 0: the first active */
	char	*sim_host;	/* ibsim only: SIM_HOST of its process */
	int	 line;
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
	char			*fabric_context;	/* "fabric" */
	char			*fabric_name;	/* sysName there; NULL: from
						 * the subnet prefix */
	/* snmp.engine-id (RFC 3411 SnmpEngineID); len 0: the gateway's
	 * own, generated once (gateway/snmp_engine.c). */
	uint8_t			 engine_id[GW_ENGINE_ID_MAX];
	size_t			 engine_id_len;

	char			*ib_ca;		/* NULL: first CA, as -C */
	int			 ib_port;	/* 0: first active, as -P */
	char			*node_name_map;
	char			*mkey_file;	/* M_Key for SMPs, never logged */
	char			*sa_key_file;	/* SM_Key for the SA, likewise */

	char			*store_path;
	char			*state_dir;	/* net-snmp persistent data */
	char			*control_socket;	/* ibsnmpgw ctl */

	int			 sweep_interval;	/* seconds */
	int			 sweep_safety;	/* seconds, while SM events flow */
	int			 sweep_event_ms; /* an SM event's sweep after */
	int			 sweep_event_gap; /* seconds after the last sweep */

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
	int			 fabric_query_age;	/* seconds a path or
							   trace row lives */
	int			 fabric_query_max;	/* rows per requester */

	int			 ttl[ATTR_TTL_MAX];	/* seconds */

	char			*log_level;

	struct proxy_tun_conf	 tunnel;	/* tunnel: */
	int			 tunnel_read_ahead;	/* GETNEXT repetitions */

	struct proxy_policy	*policies;	/* first match wins */
	int			 npolicies;

	/* health: (docs/health.md) */
	struct proxy_link_expect *expect;	/* health.expect */
	int			 nexpect;

	struct store_event_conf	 events;
	int			 sm_events;	/* events.sm-events */
	int			 master_check_ms; /* events.master-check-ms */
	int			 sim_issm;	/* ib.sim-issm */
	struct gw_subnet	 subnets[GW_SUBNETS_MAX];	/* ib.ports */
	int			 nsubnets;
	/* Set in a further subnet's process (-s NAME): which one. */
	const struct gw_subnet	*subnet_child;
	struct gw_target	*targets;
	int			 ntargets;
	struct gw_updown_off	*updown_off;
	int			 nupdown_off;
	struct gw_ha_conf	 ha;

	/* topology: the fabric against a blueprint (docs/health.md). */
	char			*topo_expected;	/* NULL: none (or pinned) */
	struct store_topo	*topo_blueprint;	/* the file, parsed */

	struct proxy_verdict_conf health_ports;	/* health.ports */
};

/* Load and validate path. Every error is printed to err as
 * "file:line: message". Returns NULL if there was any error. */
struct gw_conf	*gw_conf_load(const char *path, FILE *err);
void		 gw_conf_free(struct gw_conf *c);
/* A further subnet's process (-s NAME): its port, and its own store,
 * state directory and control socket beside the first's; no listener
 * of the configuration's (it answers the first process only). -1 and
 * a message on err if NAME is not a further subnet of c. */
int		 gw_conf_subnet_child(struct gw_conf *c, const char *name,
		    FILE *err);
/* Where further subnet i's process keeps its store (malloc'd). */
char		*gw_conf_subnet_store(const struct gw_conf *c, int i);
/* Read the M_Key file: one 64-bit hex key, the file mode 0600/0400.
 * Errors go to err as file:line without the key. */
/* One 64-bit key (what: "M_Key", "SM_Key") from a file only its owner
 * may read; errors never echo the content. */
int		 gw_conf_read_key(const char *path, const char *what,
		    uint64_t *key, FILE *err);

/* The HA key (ha.key-file): 16 to 256 octets, trailing white space
 * dropped, from a file only its owner may read. Returns the length, or
 * -1 (why to err, never the content). */
int		 gw_conf_read_ha_key(const char *path, uint8_t *key,
		    FILE *err);
/* "ADDR:PORT" or "[ADDR6]:PORT", numeric: 0 and the address, or -1. */
struct sockaddr_storage;
int		 gw_conf_ha_addr(const char *s, struct sockaddr_storage *ss,
		    unsigned *len);

const char	*gw_auth_name(enum gw_auth_proto p);
/* An SnmpEngineID written "0x" and 10 to 64 hex digits into id (at
 * least GW_ENGINE_ID_MAX octets): NULL, or why it is not one. */
const char	*gw_conf_engine_id(const char *s, uint8_t *id, size_t *len);

/* Whether a socket address lies in one of the CIDRs. */
struct sockaddr;
int		 gw_cidr_match(const struct gw_cidr *c, int n,
		    const struct sockaddr *sa);
const char	*gw_priv_name(enum gw_priv_proto p);

#endif
