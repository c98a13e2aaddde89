/* libFuzzer target: community and context names from the wire
 * (tests/fuzz/run.sh). Checks the split's own promises as well. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/name.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gw_name n;

	if (gw_name_split(data, size, &n) == 0) {
		/* Both parts lie inside the input, are non-empty, and hold
		 * no NUL and (the community) no '@'. */
		if (n.comm_len == 0 || n.comm < (const char *)data ||
		    n.comm + n.comm_len > (const char *)data + size ||
		    memchr(n.comm, '\0', n.comm_len) != NULL ||
		    memchr(n.comm, '@', n.comm_len) != NULL)
			abort();
		if (n.node != NULL && (n.node_len == 0 ||
		    n.node < (const char *)data ||
		    n.node + n.node_len > (const char *)data + size ||
		    memchr(n.node, '\0', n.node_len) != NULL))
			abort();
	}
	(void)gw_name_check_context(data, size);
	return 0;
}
