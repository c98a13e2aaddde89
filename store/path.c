/* store/path.c: the stateless helpers of store/node.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/node.h"

int
store_parse_guid(const char *s, size_t len, uint64_t *guid)
{
	uint64_t v = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2, len -= 2;
	if (len == 0 || len > 16)
		return -1;
	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)s[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	*guid = v;
	return 0;
}

int
store_parse_lid(const char *s, size_t len, uint16_t *lid)
{
	uint32_t v = 0;

	if (len < 5 || memcmp(s, "lid-", 4) != 0)
		return -1;
	s += 4, len -= 4;
	if (len > 5 || (len > 1 && s[0] == '0'))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	/* Unicast LIDs only: IBA 4.1.3 / IbUnicastLid. */
	if (v < 1 || v > 0xbfff)
		return -1;
	*lid = v;
	return 0;
}

int
store_path_parse(const char *s, struct store_path *p)
{
	char *end;
	long v;
	int i = 0;

	memset(p, 0, sizeof(*p));
	for (;;) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (end == s || errno || v < 0 || v > 255)
			return -1;
		if (i == 0 && v != 0)
			return -1;
		if (i > 0 && v == 0)
			return -1;
		if (i >= STORE_PATH_MAX)
			return -1;
		p->hop[i++] = v;
		if (*end == '\0')
			break;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
	p->cnt = i - 1;
	return 0;
}

void
store_path_format(const struct store_path *p, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i <= p->cnt && o < len; i++)
		o += snprintf(buf + o, len - o, i ? ",%u" : "%u", p->hop[i]);
}

/* Same hops: 1..cnt are the ports out of each switch (hop[0] is the
 * local end, 14.2.2.2), so the last one counts too. */
int
store_path_eq(const struct store_path *a, const struct store_path *b)
{
	return a->cnt == b->cnt && a->cnt < STORE_PATH_MAX &&
	    memcmp(a->hop, b->hop, (size_t)a->cnt + 1) == 0;
}

const char *
store_node_ident(const struct store_node *n)
{
	static char buf[4][STORE_DESC_LEN + 40];
	static unsigned next;
	char *b = buf[next++ % 4];

	if (n == NULL)
		return "node (unknown)";
	snprintf(b, sizeof(buf[0]), "node 0x%016llx (%s)",
	    (unsigned long long)n->guid, n->alias ? n->alias : n->desc);
	return b;
}
