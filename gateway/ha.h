/* gw_ha: the standby pair (docs/ha.md): roles, promotion, the
 * replication link, and `ctl ha`. Without an ha: section every call
 * is a no-op and the gateway is standalone. */
#ifndef IBSNMPGW_GW_HA_H
#define IBSNMPGW_GW_HA_H

#include <stdio.h>

#include "gateway/conf.h"

/* Before the SNMP listeners and the notifier start: a pair starts
 * standby (listeners, poller and notifier paused). -1 (logged): the
 * key file cannot be read. */
int	gw_ha_init(const struct gw_conf *c);
/* After the modules started: the link, and role: active promoted. */
int	gw_ha_start(void);
/* The configuration in force (a reload). */
void	gw_ha_set_conf(const struct gw_conf *c);
/* A reload of the ha: section's settings (adding or removing the
 * section takes a restart): prepare reads the key file and opens a
 * moved listener, -1 with why on err; commit applies them and starts
 * the link again if anything changed; abort forgets them. */
int	gw_ha_reload_prepare(const struct gw_conf *c, FILE *err);
void	gw_ha_reload_commit(void);
void	gw_ha_reload_abort(void);
/* gw_ha_start's reverse; finalise does it too. */
void	gw_ha_stop(void);
void	gw_ha_finalise(void);
/* `ctl ha ARG`: master, backup, fault, status. Returns 0 (status: this
 * node may be promoted), 1 otherwise. */
int	gw_ha_ctl(FILE *f, const char *arg);
/* A further subnet's process started while the first is active (or in
 * fault): it takes that role as it would have at start, not as a
 * takeover (no failover notification; its coldStart says it started).
 * ARG as gw_ha_ctl's. */
int	gw_ha_resume(FILE *f, const char *arg);
/* The `ctl stats` line. */
void	gw_ha_stats(FILE *f);

/* This gateway's replication status as of now; *why says why it may
 * not be promoted ("" if it may). A further subnet's process reports
 * it to the first (gateway/subnet_ha.c). */
struct repl_status;
const struct repl_status *gw_ha_status(const char **why);

/* Several subnets (docs/subnets.md): each further subnet's process is
 * a pair member of its own, on its own link. The first process hands
 * them keepalived's word and counts them in its status through these,
 * which main sets (so this file calls nothing of gateway/subnet*.c). */
struct gw_ha_subnets {
	/* master, backup, yield or fault: to every further subnet. */
	void	(*role)(const char *cmd);
	/* A line per further subnet on f; clears *eligible (a standby:
	 * one has no whole copy) and *protected (one is not), with why. */
	void	(*status)(FILE *f, int *eligible, int *protected,
		    char *why, size_t wlen);
};
void	gw_ha_set_subnets(const struct gw_ha_subnets *ops);

#endif
