/* IF-MIB and IB-IF-MIB port counters (mib_if.c, mib_ibif.c). */
#ifndef IBSNMPGW_GW_MIB_IF_H
#define IBSNMPGW_GW_MIB_IF_H

#include "gateway/mib.h"
#include "store/counters.h"

/* Draft 3.4's octet terms: packet overhead (start and end delimiters,
 * VCRC) and a link flow control packet. */
#define IF_POH	4
#define IF_SLP	8

/* A port's IF-MIB counters per draft-ietf-ipoib-ibif-mib 3.4. */
struct if_counts {
	uint64_t		 in_octets, in_pkts, in_discards, in_errors;
	uint64_t		 out_octets, out_pkts, out_discards;
	/* ifHC*Ucast/Multicast: PortCountersExtended's unicast and
	 * multicast counters where the PMA has them, else the packet
	 * counters and zero. */
	uint64_t		 hc_in_ucast, hc_in_mcast, hc_out_ucast,
				 hc_out_mcast;
	uint32_t		 disc_ticks;
};

/* A PerfMgt attribute of a port's PMA (a switch's on port 0), fresh
 * within its TTL: gw_attr_class / gw_attr_opt_class for PerfMgt. */
const uint8_t	*if_perf_attr(struct gw_eval *e, uint16_t attr, uint32_t port);
const uint8_t	*if_perf_attr_opt(struct gw_eval *e, uint16_t attr,
		    uint32_t port, unsigned flag, int *unsupported);

/* A port's accumulators (*pp): 0 when PortCounters (and, with ext,
 * PortCountersExtended) are fresh; IF_STALE when the port cannot be
 * read now and *pp holds what was read before, or zeros for a port the
 * PMA refuses and that never was read; GW_NEED while they are read or
 * when the node itself fails. */
#define IF_STALE	1
int	if_port_ctrs(struct gw_eval *e, uint32_t port, int ext,
	    const struct ctr_port **pp);

/* Counters of a port: 0, or GW_NEED while they are read. */
int	if_counters(struct gw_eval *e, uint32_t port, struct if_counts *c);

int	gw_mib_if_init(void);
int	gw_mib_ibif_init(void);

#endif
