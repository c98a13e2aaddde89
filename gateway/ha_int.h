/* gw_ha's internal header: what gateway/ha.c (roles) and
 * gateway/ha_link.c (the replication link) share. ha.c calls the link;
 * the link tells ha.c what it learns of the peer through the
 * ha_link_ops ha.c hands it. */
#ifndef IBSNMPGW_GW_HA_INT_H
#define IBSNMPGW_GW_HA_INT_H

#include <sys/socket.h>
#include <stdint.h>

#include "gateway/conf.h"
#include "store/repl.h"

struct ha_conf {
	struct sockaddr_storage	listen, peer;
	unsigned		listen_len, peer_len;
	uint8_t			key[GW_HA_KEY_MAX];
	size_t			keylen;
	char			name[64];
	char			peer_addr[64];
	uint8_t			engine_id[GW_ENGINE_ID_MAX];
	size_t			engine_id_len;
	int			timeout_ms;
	uint8_t			access[32];	/* ha_access_digest() */
};

/* ha_access.c: SHA-256 over the SNMP access both gateways must share
 * (USM users, communities). 0, or -1. */
struct gw_conf;
int	ha_access_digest(const struct gw_conf *c, uint8_t out[32]);

/* ha_link.c */
struct ha_link_ops;
int	ha_link_init(const struct ha_conf *hc, const struct ha_link_ops *ops);
void	ha_link_finalise(void);
/* A listening socket on hc's listen address (not yet watched), or -1
 * (logged); ha_link_set_listener() puts it in place of the old one. */
int	ha_link_listen(const struct ha_conf *hc);
void	ha_link_set_listener(int fd);
/* Our role changed: the link is closed (a new one takes a snapshot)
 * and the peer is connected again at the next tick. */
void	ha_link_reset(const char *why);
/* Split brain: the link is closed; the next try waits the usual
 * interval from now (an active's few seconds), not the next tick. */
void	ha_link_drop(void);
/* Whether the link is up with a standby that has the whole snapshot. */
int	ha_link_protected(const char **why);
/* The active: the last frame sent to the standby and the last one it
 * acknowledged (it does at each beat), this connection's; 0s without
 * one. */
void	ha_link_seqs(uint64_t *sent, uint64_t *acked);
/* A frame to the peer on the link that is up: 0, or -1 without one. */
int	ha_link_send(uint8_t type, const void *p, size_t len);
/* The standby: a snapshot was received whole (latched until the next
 * one begins). */
int	ha_link_synced(void);
void	ha_link_unsync(void);

/* What the link tells ha.c as it learns of the peer: handed to
 * ha_link_init, so the calls run one way (the role itself the link
 * reads from the replication status, store/repl.h). */
struct store_event;
struct ha_link_ops {
	/* The peer's boots (the highest heard, kept on disk). */
	void	(*peer_boots)(uint32_t boots);
	/* A handshake found the peer in role r (its name). */
	void	(*peer_role)(enum repl_role r, const char *name);
	/* The events this node posted while it was active, kept when it
	 * was demoted, for the new active (REPL_HANDOVER). */
	void	(*hand_over)(const char *peer);
	/* The active: an event the standby handed over. */
	void	(*adopt)(const struct store_event *ev, const char *peer);
};

#endif
