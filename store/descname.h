/* store_descname: names from NodeDescriptions (store/descname.c).
 *
 * Store-internal, like libibnetdisc's internal.h: only the files in store/
 * include this header. Other modules resolve a name with
 * store_node_resolve() and list a node's names with
 * store_descname_names(), both in store/store.h.
 *
 * The calls run one way: store.c keeps the index (init, update, settle,
 * finalise) and asks it (lookup). The index keeps node pointers (the
 * store never frees a node before its finalise) and reads their
 * reachability; the node-name-map comes as a function at init, so as
 * not to warn about a name an alias settles. */
#ifndef IBSNMPGW_STORE_DESCNAME_H
#define IBSNMPGW_STORE_DESCNAME_H

#include <stddef.h>

#include "store/node.h"

void	 store_descname_init(struct store_node *(*by_alias)(const char *));
void	 store_descname_finalise(void);
/* n->desc was old (NULL: a new node) and may have changed. */
void	 store_descname_update(struct store_node *n, const char *old);
/* After a sweep: names shared by several nodes resolve again (to the
 * one reachable node, if there is one), and each that resolves to none
 * is logged. Returns how many names resolve to none. */
unsigned store_descname_settle(void);
/* store.h's, defined here. */
const char	*store_descname_names(const struct store_node *n, char *buf,
		    size_t size);
/* The node a whole description, else a first word, names; NULL if none
 * or ambiguous. */
struct store_node *store_descname_lookup(const char *name, size_t len);

#endif
