/* gw_mib internals, shared by the evaluator (mib.c) and the
 * registration of modules (mib_reg.c) only; table files never see
 * them (libibnetdisc's internal.h). */
#ifndef IBSNMPGW_GW_MIB_INT_H
#define IBSNMPGW_GW_MIB_INT_H

#include "gateway/mib.h"

/* The handler behind every gw_table (myvoid: the table). */
int	gw_mib_handler(netsnmp_mib_handler *h,
	    netsnmp_handler_registration *reg,
	    netsnmp_agent_request_info *reqinfo,
	    netsnmp_request_info *requests);

#endif
