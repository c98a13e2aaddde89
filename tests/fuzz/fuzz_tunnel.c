/* libFuzzer target: tunneled segments from the fabric (tests/fuzz/run.sh).
 * The input is a run of 256-octet MADs (the last may be short), fed to
 * one reassembly as ibsnmp-tunneld and the gateway do; checks the
 * codec's promises: a finished PDU fits, and never outgrows what was
 * fed. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "codec/tunnel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tun_reasm r;
	size_t fed = 0;

	tun_reasm_reset(&r);
	for (size_t off = 0; off < size; off += TUN_MAD_SIZE) {
		struct tun_seg s;
		size_t len = size - off < TUN_MAD_SIZE ? size - off :
		    TUN_MAD_SIZE;
		int rc;

		if (tun_decode(data + off, len, &s) == -1)
			continue;
		if (s.len == 0 || s.len > TUN_SEG_DATA || s.num == 0 ||
		    s.num > TUN_SEG_MAX)
			abort();
		if (s.num == 1)
			fed = 0;
		fed += s.len;
		rc = tun_reasm_add(&r, &s);
		if (rc == TUN_DONE && (r.len == 0 || r.len > TUN_PDU_MAX ||
		    r.len > fed))
			abort();
		if (rc != TUN_MORE)
			fed = 0;
	}
	return 0;
}
