/* libFuzzer target: gw_conf_load() on arbitrary bytes as the YAML file
 * (tests/fuzz/run.sh). Every input must give a configuration or
 * file:line errors; never a crash, a hang or a leak. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gateway/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static FILE *sink;
	struct gw_conf *c;
	FILE *f;

	if (path[0] == '\0') {
		snprintf(path, sizeof(path), "/tmp/ibsnmpgw-fuzz-conf.%d",
		    (int)getpid());
		sink = fopen("/dev/null", "w");
	}
	if ((f = fopen(path, "w")) == NULL)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	c = gw_conf_load(path, sink);
	if (c != NULL)
		gw_conf_free(c);
	unlink(path);
	return 0;
}
