/* Test-only fault injection for health.py: ibsim 0.10 neither checks
 * M_Keys nor keeps PortInfo:MKeyProtectBits, so this LD_PRELOAD shim
 * (loaded before libumad2sim) edits the PortInfo answers the gateway
 * reads to say what a protected SMA says to a requester with the wrong
 * key (IBA 14.2.4.1): MKeyProtectBits = $SHIM_MKEY_PROT, M_Key zeroed.
 * With $SHIM_SHORT_ATTR (an attribute ID), answers carrying that
 * attribute are cut to $SHIM_SHORT_LEN octets of MAD, as a broken
 * agent or HCA driver might deliver them.
 * Everything else passes through unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

ssize_t
read(int fd, void *buf, size_t count)
{
	static ssize_t (*next)(int, void *, size_t);
	const char *prot = getenv("SHIM_MKEY_PROT");
	const char *short_attr = getenv("SHIM_SHORT_ATTR");
	ssize_t n;
	uint8_t *mad;

	if (next == NULL)
		next = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT,
		    "read");
	n = next(fd, buf, count);
	/* Only umad2sim's fake umad descriptors (1024 and up). */
	if (fd < 1024 || n < 0 || (size_t)n < umad_size() + 128)
		return n;
	mad = (uint8_t *)buf + umad_size();
	if (short_attr != NULL &&
	    (mad[16] << 8 | mad[17]) == (int)strtol(short_attr, NULL, 0)) {
		const char *len = getenv("SHIM_SHORT_LEN");

		return (ssize_t)umad_size() + (len ? atoi(len) : 100);
	}
	if (prot == NULL)
		return n;
	/* SubnGetResp(PortInfo), LID-routed or directed route */
	if ((mad[1] == 0x01 || mad[1] == 0x81) && mad[3] == 0x81 &&
	    mad[16] == 0x00 && mad[17] == 0x15) {
		uint8_t *data = mad + 64;
		uint32_t bits = (uint32_t)atoi(prot);

		mad_set_field64(data, 0, IB_PORT_MKEY_F, 0);
		mad_set_field(data, 0, IB_PORT_MKEY_PROT_BITS_F, bits);
	}
	return n;
}
