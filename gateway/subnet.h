/* gw_subnet: the further subnets of ib.ports (docs/subnets.md).
 *
 * The first port's subnet is served by this process, as a gateway of
 * one subnet is. Each further port gets a process of its own: this
 * binary with -s NAME, which serves that subnet alone (its engine,
 * discovery, store, SM subscription, events) and answers SNMP only on
 * a socket pair to us. A request for one of its nodes is handed to it
 * whole and its answer sent back to the client as ours. Access is
 * decided here; the process applies the community's or user's node
 * selection, named on the link. */
#ifndef IBSNMPGW_GW_SUBNET_H
#define IBSNMPGW_GW_SUBNET_H

#include <stddef.h>
#include <stdint.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "gateway/conf.h"

/* The descriptor a further subnet's process reads its link on. */
#define GW_SUBNET_LINK_FD	3
/* The first process's pid, in a further subnet's environment. */
#define GW_SUBNET_PARENT_ENV	"IBSNMPGW_PARENT"
/* Separates the access name from the node name on the link. */
#define GW_SUBNET_SEP		'\x1f'

/* Parent: start a process for each further subnet. self: this binary;
 * conf_path: the configuration file it is to read. */
int	gw_subnet_init(const struct gw_conf *c, const char *conf_path,
	    int debug);
void	gw_subnet_finalise(void);
/* A reload: the processes read the file again (SIGHUP). */
void	gw_subnet_reload(const struct gw_conf *c);
/* SIGCHLD: reap, and start again after a backoff. */
void	gw_subnet_reap(void);

/* How many subnets this process routes between: 1 unless it is the
 * first of several. */
int	gw_subnet_count(void);
/* name's subnet index (0: this process's), or -1. */
int	gw_subnet_find(const char *name, size_t len);
const char *gw_subnet_name(int i);
/* The further subnet whose inventory holds GUID, or -1. */
int	gw_subnet_by_guid(uint64_t guid);
/* The further subnet whose inventory has a node of that name (an
 * alias, a description or its first word): its index, -1 if none,
 * -2 if several. */
int	gw_subnet_by_name(const char *name, size_t len);
/* A further subnet's process: its subnet, which its context names
 * carry ("NAME/cn01", as the first process takes them); "" otherwise. */
void	gw_subnet_set_self(const char *name);
const char *gw_subnet_self(void);
/* Hand pdu (a request, its access granted) to subnet i as a v1/v2c
 * request with the community "KIND ACCESS SEP NODE" (KIND 'c' or 'u').
 * 0: sent (the answer goes to the client through listener), -1: not
 * (logged, counted; the client gets nothing, as from a lost packet). */
int	gw_subnet_forward(int i, netsnmp_session *listener, netsnmp_pdu *pdu,
	    char kind, const char *access, size_t alen, const char *node,
	    size_t nlen);

struct gw_subnet_stats {
	uint64_t	forwarded;	/* requests handed on */
	uint64_t	answered;	/* answers sent back */
	uint64_t	lost;		/* no answer, or none could be sent */
	uint64_t	restarts;	/* processes started again */
};
void	gw_subnet_get_stats(struct gw_subnet_stats *st);

/* Child, first thing: it stops when the first process does, even by
 * SIGKILL (an orphan would serve, and in a pair stay active, alone).
 * -1 if that has already happened. */
int	gw_subnet_child_guard(void);

/* Child: the link to the first process as a net-snmp transport. */
netsnmp_transport *gw_subnet_link_transport(int fd);

#endif
