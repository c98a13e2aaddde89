/* proxy_reread: the inventory follows the SM's link Reports between
 * sweeps, with a few SMPs instead of a sweep. */
#ifndef PROXY_REREAD_H
#define PROXY_REREAD_H

#include <stdint.h>

struct proxy_reread_stats {
	uint64_t	 readings;	/* PortInfo readings looked at */
	uint64_t	 changes;	/* written into the inventory */
	uint64_t	 smps;		/* sent by this module */
	uint64_t	 sweeps;	/* changes left to a sweep */
	const char	*why;		/*   the last one's reason */
};

void	proxy_reread_init(void);
void	proxy_reread_finalise(void);
/* Called after the inventory changed here (as after a sweep). */
void	proxy_reread_on_changed(void (*fn)(void *), void *arg);
/* A PortInfo (IBA 14.2.5.6) of port p of node guid, read now for a
 * Report (proxy/inform.c): follow it into the inventory, or ask for a
 * sweep when the change is one the inventory's routes depend on. */
void	proxy_reread_port(uint64_t guid, uint8_t port, const uint8_t *data);
/* Port p of node guid read again now (proxy/watch.c's read); -1 if it
 * has no route: unreachable, unknown or unrouted. */
int	proxy_reread_check(uint64_t guid, uint8_t port);
/* A port the Report concerned could not be read: a sweep. */
void	proxy_reread_failed(const char *why);
/* Trap 64/65 (GID in/out of service) for CA port p of guid: read it
 * (and the switch port it is cabled to), or a sweep if the inventory
 * has no way to it. */
void	proxy_reread_ca_port(uint64_t guid, uint8_t port, int in_service);
void	proxy_reread_get_stats(struct proxy_reread_stats *st);

#endif
