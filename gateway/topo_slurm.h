/* gw_topo_slurm: Slurm's topology.conf (its topology/tree plugin) made
 * from the inventory, for `ibsnmpgw ctl topology slurm`. A pure function
 * of the nodes it is handed, so the unit tests build fabrics of their
 * own; docs/health.md says what it writes and why. */
#ifndef IBSNMPGW_GW_TOPO_SLURM_H
#define IBSNMPGW_GW_TOPO_SLURM_H

#include <stddef.h>
#include <stdio.h>

#include "store/node.h"

/* Room for a name: a NodeDescription or alias, and a GUID suffix. */
#define GW_TOPO_NAME	(STORE_DESC_LEN + 20)

/* The node numbered i (i < count); NULL for none. */
typedef const struct store_node *(*gw_topo_node_fn)(size_t i, void *arg);

/* Write topology.conf to f: one SwitchName line per switch that has
 * hosts or switches below it, and comment lines for what was left out.
 * 0, or -1 (and an "error:" line) when memory ran out. */
int	 gw_topo_slurm(FILE *f, size_t count, gw_topo_node_fn at, void *arg);

/* For the unit tests. A switch's name (never empty): its node-name-map
 * alias, else the name in an "MF0;NAME:..." description, else the
 * description with every run of other characters than letters, digits,
 * '-', '_' and '.' made one '_', else "sw" and its GUID. */
const char *gw_topo_slurm_switch_name(const struct store_node *n,
	    char *buf, size_t size);
/* A host's name: the first word of its alias, else of its description;
 * NULL, with *why set, when there is none Slurm could know. */
const char *gw_topo_slurm_host_name(const struct store_node *n,
	    char *buf, size_t size, const char **why);
/* names as one Slurm hostlist expression ("cn[0001-0004,0006],gpu1"):
 * sorted and without duplicates; names[] is reordered. */
int	 gw_topo_slurm_hostlist(FILE *f, const char **names, size_t n);

#endif
