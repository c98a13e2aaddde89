/* gw_sm: helpers shared by the IB-SM-MIB table files (ib_sm_mib*.c): the
 * subnet prefix and GUID-ordered rows of the fabric context. Their
 * indexes spell octet strings one subid per octet (RFC 2578 7.7). */
#ifndef IBSNMPGW_GW_MIB_SM_H
#define IBSNMPGW_GW_MIB_SM_H

#include "gateway/mib.h"

uint64_t gw_sm_prefix(void);
void	 gw_sm_put64(uint32_t *sub, uint64_t x);
int	 gw_sm_get64(const uint32_t *sub, uint64_t *x);
int	 gw_sm_cmp(const uint32_t *a, const uint32_t *b, int n);

/* A node's rows after the 16-subid (prefix, node GUID) part of the
 * index, which is already in out. tail: NULL when every row of n is
 * past the bound, else the bound's subids after the first 16 (the
 * node is the bound's own; incl as for row_next). Returns 1 with out
 * completed, 0 when n has no such row, or GW_BAD. */
typedef int (*gw_sm_node_fn)(struct gw_eval *e, const struct store_node *n,
    const uint32_t *tail, int incl, struct gw_row *out);
/* row_next over the visible nodes in GUID order. */
int	 gw_sm_node_rows(struct gw_eval *e, const struct gw_row *lb,
	    int incl, struct gw_row *out, gw_sm_node_fn fn);
/* The node whose GUID the index holds at subid at; for a row that
 * gw_sm_node_rows() gave, the node it found the row on (at is not
 * read): the GUID at subid 8. */
const struct store_node *gw_sm_row_node(const struct gw_row *row, int at);


#endif
