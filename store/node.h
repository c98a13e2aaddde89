/* store/node.h: what a node and a port of the inventory are, and the
 * stateless helpers on them (store/path.c): parsing names and routes,
 * formatting them for log lines. The store's lower files (rows.c,
 * descname.c) take these without the store's state. */
#ifndef IBSNMPGW_STORE_NODE_H
#define IBSNMPGW_STORE_NODE_H

#include <stddef.h>
#include <stdint.h>

#define STORE_DESC_LEN		64	/* NodeDescription, IBA 14.2.5.2 */
#define STORE_PATH_MAX		64	/* IB_SUBNET_PATH_HOPS_MAX */
#define STORE_SMP_LEN		64	/* an SMP's data, IBA 14.2.1.1 */

/* IBA 14.2.5.3 NodeInfo:NodeType */
enum store_node_type {
	STORE_NODE_CA = 1, STORE_NODE_SWITCH = 2, STORE_NODE_ROUTER = 3
};

/* A directed route: hop[0] is unused (always 0), hop[1..cnt] are the
 * output ports, as in ib_dr_path_t and smpquery -D "0,1,3". */
struct store_path {
	uint8_t	cnt;
	uint8_t	hop[STORE_PATH_MAX];
};

struct store_port {
	uint8_t			 num;
	uint8_t			 valid;		/* PortInfo was read */
	uint64_t		 guid;
	uint16_t		 lid;
	uint8_t			 lmc;
	uint8_t			 state;		/* PortInfo:PortState */
	uint8_t			 phys_state;	/* PortInfo:PortPhysicalState */
	uint8_t			 width;		/* LinkWidthActive */
	uint8_t			 speed;		/* LinkSpeedActive, or 0x80 | LinkSpeedExtActive */
	uint64_t		 remote_guid;	/* 0 if not linked */
	uint8_t			 remote_port;
	struct store_path	 route;		/* cnt 0 and hop[0] 0xff: none */
	/* The sweep's PortInfo as read, so a fabric walk (IB-SM-MIB)
	 * decodes every field without a MAD. */
	uint8_t			 pinfo_ok;
	uint8_t			 pinfo[STORE_SMP_LEN];
};

/* IB SNMP Tunneling (proxy/tunnel.c): the node's agent as last probed. */
enum store_tun {
	STORE_TUN_UNKNOWN = 0,	/* never probed */
	STORE_TUN_OK = 1,	/* answered ClassPortInfo */
	STORE_TUN_NONE = 2,	/* did not */
};

struct store_node {
	/* What a fabric walk reads of every node first, in one cache
	 * line: the IB-SM-MIB tables visit 10,000 nodes per column. */
	uint32_t		 idx;		/* stable index, cache keys */
	uint64_t		 guid;
	uint8_t			 type;
	uint8_t			 num_ports;
	/* The sweep's NodeInfo and (switches) SwitchInfo were read. */
	uint8_t			 ninfo_ok, sinfo_ok;
	int			 reachable;
	uint16_t		 lid;		/* base LID (port 0 or entry port) */
	/* ports[0..num_ports]; ports[0] is the switch management port. */
	struct store_port	*ports;
	char			*alias;
	unsigned		 unsupported;	/* attr_def.unsup bits: optional
						   attributes the node lacks */
	char			 desc[STORE_DESC_LEN + 1];
	uint32_t		 vendor_id;
	uint16_t		 device_id;
	uint32_t		 revision;
	uint64_t		 system_guid;
	int64_t			 first_seen, last_seen;	/* unix seconds */
	struct store_path	 route;
	uint8_t			 ninfo[STORE_SMP_LEN];
	uint8_t			 sinfo[STORE_SMP_LEN];
	uint8_t			 tunnel;	/* enum store_tun */
	int64_t			 tunnel_probed;	/* unix seconds; 0: never */
	/* What the database holds of it (store.c: a sweep that reads the
	 * same writes only last_seen); 0: unknown, written next sweep. */
	uint64_t		 disk_row, disk_ports;
	int64_t			 disk_seen;
};

/* "node 0xGUID (name)" for log lines: the alias, else the
 * NodeDescription. Four calls may share one log line. */
const char	*store_node_ident(const struct store_node *n);

/* Parse helpers (exposed for unit tests). Return 0 on success. Every
 * parser of a name takes (pointer, length) and refuses NUL, so hostile
 * community strings cannot reach further than here. */
int	 store_parse_guid(const char *s, size_t len, uint64_t *guid);
int	 store_parse_lid(const char *s, size_t len, uint16_t *lid);
int	 store_path_parse(const char *s, struct store_path *p);
void	 store_path_format(const struct store_path *p, char *buf, size_t len);
int	 store_path_eq(const struct store_path *a, const struct store_path *b);

#endif
