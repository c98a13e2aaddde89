/* gw_snmp internals: the addressing hooks (snmp_addr.c) the listeners
 * (snmp.c) carry. */
#ifndef IBSNMPGW_GW_SNMP_INT_H
#define IBSNMPGW_GW_SNMP_INT_H

#include "gateway/snmp.h"

/* net-snmp's session hooks (snmp_add_full). */
int	gw_snmp_pre_parse(netsnmp_session *sess, netsnmp_transport *t,
	    void *addr, int addrlen);
/* A further subnet's link to the first process (gateway/subnet.c):
 * what comes on it names its access on the link itself. */
void	gw_snmp_addr_set_link(const netsnmp_session *link);
int	gw_snmp_post_parse(netsnmp_session *sess, netsnmp_pdu *pdu,
	    int result);
int	gw_snmp_rbuild(netsnmp_session *sess, netsnmp_pdu *pdu, u_char **pkt,
	    size_t *pkt_len, size_t *offset);
/* A v1/v2c Response as snmp_build() would encode it, at the start of
 * *pkt (grown as needed); -1 where net-snmp must (snmp_enc.c). */
int	gw_snmp_encode(const netsnmp_pdu *pdu, u_char **pkt, size_t *pkt_len,
	    size_t *len);
/* The access tables go (shutdown). */
void	gw_snmp_addr_finalise(void);

#endif
