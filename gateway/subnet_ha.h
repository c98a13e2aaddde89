/* gw_subnet_ha: a pair of gateways on several subnets (docs/subnets.md,
 * docs/ha.md). Each further subnet's process is a pair member of its
 * own, replicating its subnet to the peer's process of that subnet on
 * a link of its own. keepalived speaks to the first process only; it
 * hands the role on to the others and counts their copies in its
 * status, over a second socket pair to each (GW_SUBNET_CTL_FD). */
#ifndef IBSNMPGW_GW_SUBNET_HA_H
#define IBSNMPGW_GW_SUBNET_HA_H

#include <stddef.h>
#include <stdio.h>

/* The descriptor a further subnet's process gets its role on. */
#define GW_SUBNET_CTL_FD	4

/* The first process. Subnet i's process started with fd as our end
 * (we close it): it is told the role in force at once. */
void	gw_subnet_ha_spawned(int i, const char *name, int fd);
/* Subnet i's process is gone: no status from it until the next. */
void	gw_subnet_ha_gone(int i);
/* What gw_ha_set_subnets takes (gateway/ha.h), main hands on: the
 * command to every further subnet, and a line per further subnet on f,
 * clearing *may (a copy not whole) and *prot, with why. */
void	gw_subnet_ha_role(const char *cmd);
void	gw_subnet_ha_status(FILE *f, int *may, int *prot, char *why,
	    size_t wlen);

/* The pair's code (gateway/ha.c) as a further subnet's process uses
 * it, handed by main: so this file, below ha.c, calls nothing above. */
struct repl_status;
struct gw_subnet_ha_pair {
	int	(*ctl)(FILE *f, const char *arg);
	int	(*resume)(FILE *f, const char *arg);	/* the role at spawn */
	const struct repl_status *(*status)(const char **why);
};
void	gw_subnet_ha_set_pair(const struct gw_subnet_ha_pair *pair);

/* A further subnet's process: follow the role the first hands on, and
 * (ha: an ha: section) report our status to it every second. */
void	gw_subnet_ha_child(int fd, int ha);
/* Both: stop watching, close. */
void	gw_subnet_ha_finalise(void);

#endif
