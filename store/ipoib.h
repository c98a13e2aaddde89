/* ipoib: the IPoIB link-layer addresses the gateway host knows, for
 * IB-IF-MIB's ibIpoibLinkLayerAddrTable.
 *
 * An IPoIB hardware address (RFC 4391 9.1.1) is a reserved octet, the
 * 24-bit QPN of the host's IPoIB interface and the port GID. No SMP,
 * PerfMgt or SA attribute carries the QPN; only a host on the IPoIB
 * subnet learns it. So the gateway host's own view is read: its IPoIB
 * interfaces (sysfs, type 32 = ARPHRD_INFINIBAND) and the neighbours
 * it has resolved (the ARP table, HW type 0x20). The GID's port GUID
 * names the node and port in the inventory. */
#ifndef IBSNMPGW_IPOIB_H
#define IBSNMPGW_IPOIB_H

#include <stddef.h>
#include <stdint.h>

#define IPOIB_ADDR_LEN	20

struct ipoib_ent {
	uint32_t	node;		/* inventory index */
	uint8_t		port;
	uint16_t	idx;		/* ibIpoibLinkLayerIndex, 1..65535 */
	uint8_t		addr[IPOIB_ADDR_LEN];
};

/* Sources and refresh period (seconds, 0: never read). Also on reload. */
int	 ipoib_init(const char *net_dir, const char *arp_file, int refresh);
void	 ipoib_finalise(void);
int	 ipoib_configure(const char *net_dir, const char *arp_file,
	    int refresh);
/* Read the sources again (also after a sweep: new ports map). */
void	 ipoib_refresh(void);
/* The addresses of (node, port) in ascending idx order: *first and the
 * count (0 if none). An address keeps its idx for as long as it is
 * seen; a new one takes the lowest idx free on its port. */
size_t	 ipoib_port_addrs(uint32_t node, uint8_t port,
	    const struct ipoib_ent **first);

/* Parsers, exposed for unit tests. "80:00:04:04:fe:80:..." (20 octets,
 * colon-separated hex) into out; 0 or -1. */
int	 ipoib_parse_addr(const char *s, uint8_t *out);

#endif
