/* counters: an accumulator and a port's accumulators, the types both
 * store/counters.c and store/counters_wait.c work on. */
#ifndef IBSNMPGW_COUNTERS_PORT_H
#define IBSNMPGW_COUNTERS_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "codec/perf.h"

/* 16 bytes, at 10,000 nodes most of the gateway's memory: whether a
 * reading was ever taken is last != CTR_NONE, and whether it saturated
 * is last == all ones of the counter's width, so neither takes a byte
 * (and with padding, 8). */
struct ctr_acc {
	uint64_t	total;		/* accumulated count */
	uint64_t	last;		/* last raw reading, or CTR_NONE */
};
/* No reading yet. A 64-bit counter reading all ones (which at NDR's
 * rate takes decades) is held one below it. */
#define CTR_NONE	UINT64_MAX

static inline int
ctr_valid(const struct ctr_acc *a)
{
	return a->last != CTR_NONE;
}

/* Whether the last reading was all ones of width bits: IB counters
 * stop there, and counts are lost until a reset. */
static inline int
ctr_saturated(const struct ctr_acc *a, unsigned width)
{
	return width < 64 && ctr_valid(a) && a->last == (1ULL << width) - 1;
}

/* Events ctr_update() reports. */
#define CTR_EV_FIRST		0x1	/* first reading ever */
#define CTR_EV_SATURATED	0x2	/* reached all ones: counts lost */
#define CTR_EV_RESET		0x4	/* went down: reset or reboot */

/* The counters every polled port has; the 32 per-VL ones are held
 * apart and allocated only for ports whose PMA is asked for them (at
 * 10,000 nodes they would double the accumulators' memory). */
#define CTR_BASE	CTR_VL_OP_PKTS0

struct ctr_port {
	uint32_t	node;
	uint8_t		port;
	struct ctr_acc	c[CTR_BASE];
	struct ctr_acc	*vl;		/* [CTR_MAX - CTR_BASE] or NULL */
	int64_t		disc_ms;	/* ev_now() of the last discontinuity */
	int64_t		change_ms;	/* ev_now() of the last state change */
	uint8_t		state;		/* last PortState seen, 0: none */
	uint8_t		placeholder;	/* zeros served, never read */
	uint8_t		orphaned;	/* rows of its GUID were not loaded */
	/* The error counters and PortXmitWait are fed from their 64-bit
	 * copies in PortCountersExtended (perf_ctr_addl), saved under
	 * perf_addl_name(): the node's ClassPortInfo says it has them. */
	uint8_t		ext_src;
	/* The congestion ratio of the last interval between two readings
	 * of PortXmitWait (counters_xmit_wait): its ppm and length; the
	 * interval under way started at wait_at (ms since start + 1, mod
	 * 2^32; 0: none yet) with PortXmitWait's total at wait_total. */
	uint32_t	wait_ppm;
	uint32_t	wait_dt_ms;
	uint32_t	wait_at;
	uint64_t	wait_total;
	uint64_t	dirty;		/* changed since saved: bit i for
					   counter i < CTR_BASE, bit 63 for
					   the per-VL ones */
	struct ctr_port	*dirty_next;	/* on the dirty list while dirty */
};

#endif
