/* libibmad's field IDs (enum MAD_FIELDS: IB_PORT_LID_F, ...) and
 * mad_get_field(), for code that also includes net-snmp: both libraries
 * declare an xdump() of their own, so libibmad's is renamed here. */
#ifndef IBSNMPGW_CODEC_FIELDS_H
#define IBSNMPGW_CODEC_FIELDS_H

#define xdump	ibmad_xdump
#include <infiniband/mad.h>
#undef xdump

#endif
