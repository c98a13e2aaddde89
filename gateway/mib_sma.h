/* Shared by the IB-SMA-MIB modules (mib_sma.c, mib_sma_tables.c). */
#ifndef IBSNMPGW_GW_MIB_SMA_H
#define IBSNMPGW_GW_MIB_SMA_H

#include "gateway/mib.h"
#include "proxy/smp.h"

/* ibSmaMIB = experimental.117.3; ibSmaObjects = ibSmaMIB.1 */
#define SMA_OBJECTS	1, 3, 6, 1, 3, 117, 3, 1

int	 sma_is_switch(const struct store_node *n);
/* The cache key port for a port attribute (see proxy/fetch.c). */
uint8_t	 sma_route_port(const struct store_node *n, uint32_t port);
/* Whether port attributes of this port can be read (a CA port needs
 * its own route). */
int	 sma_port_reachable(const struct store_node *n, uint32_t port);
uint32_t sma_mgmt_port(const struct store_node *n);
/* 0, GW_NEED or GW_BAD. */
int	 sma_nodeinfo(struct gw_eval *e, struct smp_nodeinfo *ni);
int	 sma_switchinfo(struct gw_eval *e, struct smp_switchinfo *si);
int	 sma_portinfo(struct gw_eval *e, uint32_t port, struct smp_portinfo *pi);
int	 sma_data_ports(struct gw_eval *e, const struct gw_row *lb, int incl,
	    struct gw_row *out);

#endif
