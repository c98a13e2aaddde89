/* Big-endian loads at the IBA's offsets, for the decoders of the
 * attributes every sweep and poll reads (codec/smp.c, codec/perf.c): a
 * walk of libibmad's field table per field (mad_decode_field) cost ~60
 * instructions a field. */
#ifndef IBSNMPGW_CODEC_BE_H
#define IBSNMPGW_CODEC_BE_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t
ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static inline uint64_t
ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

#endif
