/* libFuzzer target: a node agent's SNMP reply as it comes back through
 * the tunnel (tests/fuzz/run.sh), into the gateway's answer cache
 * (gateway/mib_tunnel.c): parsed with net-snmp, checked against the
 * request (request ID, varbinds asked), chained in GETBULK order. The
 * first octet picks a GET or a GETBULK of two varbinds; the rest is the
 * message. No crash, no leak, and the cache stays bounded. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "gateway/conf.h"
#include "gateway/mib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The tunnel module's reload: an empty cache (gateway/mib_tunnel.c). */
static void
reload(void)
{
	struct gw_conf c = { .tunnel_read_ahead = 20 };

	gw_mod_mib_tunnel.configure(&c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int inited;
	static const oid a[] = { 1, 3, 6, 1, 2, 1, 1, 1, 0 };
	static const oid b[] = { 1, 3, 6, 1, 2, 1, 25 };
	const oid *prev[2] = { a, b };
	size_t prevlen[2] = { OID_LENGTH(a), OID_LENGTH(b) };

	if (!inited) {
		reload();	/* an empty cache */
		inited = 1;
	}
	if (size < 1)
		return 0;
	(void)gw_mib_tunnel_absorb(7, 1, 1, data[0] & 1, prev, prevlen, 2,
	    data + 1, size - 1, 5);
	if (gw_mib_tunnel_cached() > 50000)
		abort();
	if (data[0] & 2)
		reload();	/* frees what was cached */
	return 0;
}
