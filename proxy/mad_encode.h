/* proxy_mad_encode: a request into a umad buffer, pure (the keys are
 * arguments). */
#ifndef IBSNMPGW_PROXY_MAD_ENCODE_H
#define IBSNMPGW_PROXY_MAD_ENCODE_H

#include "proxy/mad_types.h"

/* Encode a request into buf (umad_size() + PROXY_MAD_SIZE bytes, zeroed
 * here): SMPs carry mkey, trusted SA requests sa_key. Returns 0, or -1
 * if it cannot be encoded. */
int	proxy_mad_encode(const struct proxy_mad_args *a, uint64_t mkey,
	    uint64_t sa_key, uint8_t *buf);

#endif
