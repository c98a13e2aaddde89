/* store_select: which nodes something applies to (polling policies,
 * community and user access, tenants). The YAML parser fills it; every
 * layer that picks nodes matches with it. */
#ifndef IBSNMPGW_STORE_SELECT_H
#define IBSNMPGW_STORE_SELECT_H

#include <stdint.h>

#include "store/store.h"

/* All given conditions must hold. */
struct store_select {
	int			 set;		/* any condition given */
	int			 type;		/* 0 any, else NodeType */
	char			*glob;		/* on alias or NodeDescription */
	char			*regex_src;
	void			*regex;		/* regex_t */
	uint64_t		*guids;
	int			 nguids;
};

/* Whether a node is selected (an unset selector selects all). */
int	store_select_match(const struct store_select *sel,
	    const struct store_node *n);
void	store_select_free(struct store_select *sel);

#endif
