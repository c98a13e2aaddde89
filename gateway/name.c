/* gw_name: community and context name parsing. */
#include "config.h"

#include <string.h>

#include "gateway/name.h"

int
gw_name_split(const void *s, size_t len, struct gw_name *out)
{
	const char *p = s, *at;

	memset(out, 0, sizeof(*out));
	if (p == NULL || len == 0 || len > 2 * GW_NAME_MAX + 1 ||
	    memchr(p, '\0', len) != NULL)
		return -1;
	at = memchr(p, '@', len);
	if (at == NULL) {
		if (len > GW_NAME_MAX)
			return -1;
		out->comm = p;
		out->comm_len = len;
		return 0;
	}
	out->comm = p;
	out->comm_len = at - p;
	out->node = at + 1;
	out->node_len = len - out->comm_len - 1;
	if (out->comm_len == 0 || out->node_len == 0 ||
	    out->comm_len > GW_NAME_MAX || out->node_len > GW_NAME_MAX ||
	    memchr(out->node, '@', out->node_len) != NULL) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return 0;
}

int
gw_name_check_context(const void *s, size_t len)
{
	if (len == 0)
		return 0;
	/* RFC 3411 SnmpAdminString context names are at most 32 octets;
	 * accept longer aliases, but never NUL or '@'. */
	if (s == NULL || len > GW_NAME_MAX || memchr(s, '\0', len) != NULL ||
	    memchr(s, '@', len) != NULL)
		return -1;
	return 0;
}
