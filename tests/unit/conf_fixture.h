/* conf_fixture: what test_conf, test_conf_sections and test_conf_subnet
 * share: a YAML text loaded through a file (gw_conf_load reads a path),
 * a good base configuration, and the file's removal. Included by one
 * test file per program. */
#ifndef IBSNMPGW_CONF_FIXTURE_H
#define IBSNMPGW_CONF_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <cmocka.h>

#include "codec/smp.h"
#include "gateway/conf.h"
#include "codec/perf.h"

static char path[64];

static const char *good __attribute__((unused)) =
    "snmp:\n"
    "  listen:\n"
    "    - \"udp:127.0.0.1:1161\"\n"
    "    - \"udp6:[::1]:1161\"\n"
    "  communities:\n"
    "    - name: public\n"
    "  users:\n"
    "    - name: admin\n"
    "      auth-protocol: SHA-256\n"
    "      auth-passphrase: \"secret123\"\n"
    "      priv-protocol: AES\n"
    "      priv-passphrase: \"secret456\"\n"
    "ib:\n"
    "  ca: mlx5_0\n"
    "  port: 1\n"
    "store:\n"
    "  path: /tmp/x/inventory.db\n"
    "discovery:\n"
    "  interval: 120\n"
    "mad:\n"
    "  timeout-ms: 150\n"
    "  retries: 2\n"
    "  max-in-flight: 32\n"
    "  max-in-flight-per-node: 2\n"
    "cache:\n"
    "  ttl:\n"
    "    portinfo: 10\n";

/* Load text; return the conf (or NULL) and the error text in errbuf. */
static __attribute__((unused)) struct gw_conf *
load(const char *text, char *errbuf, size_t len)
{
	FILE *f = fopen(path, "w"), *err;
	struct gw_conf *c;

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	err = fmemopen(errbuf, len, "w");
	assert_non_null(err);
	c = gw_conf_load(path, err);
	fclose(err);
	return c;
}

static __attribute__((unused)) int
count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static __attribute__((unused)) int
setup(void **state)
{
	snprintf(path, sizeof(path), "/tmp/ibsnmpgw-conf-%d.yaml", getpid());
	return 0;
}

static __attribute__((unused)) int
teardown(void **state)
{
	unlink(path);
	return 0;
}

#endif
