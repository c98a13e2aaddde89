/* gw_name: how an SNMP request names its target node.
 *
 * v1/v2c: the community is "COMMUNITY" (the gateway itself) or
 * "COMMUNITY@NODE". v3: the context name is "" (the gateway) or NODE.
 * NODE is resolved by store_node_resolve(). Octet strings from the wire
 * are (pointer, length) and may hold anything; nothing here trusts them
 * to be NUL-terminated. */
#ifndef IBSNMPGW_GW_NAME_H
#define IBSNMPGW_GW_NAME_H

#include <stddef.h>

#define GW_NAME_MAX	255	/* longest community or node name */

struct gw_name {
	const char	*comm;		/* community part */
	size_t		 comm_len;
	const char	*node;		/* NULL: the gateway itself */
	size_t		 node_len;
};

/* Split a community. Returns 0, or -1 for a string that can name
 * nothing: empty, too long, a NUL byte, an empty part, or more than one
 * '@'. */
int	gw_name_split(const void *s, size_t len, struct gw_name *out);

/* Validate a v3 context name: 0 for "" (gateway) or a plausible node
 * name, -1 otherwise. */
int	gw_name_check_context(const void *s, size_t len);

#endif
