/* counters: 64-bit monotonic accumulators for every PerfMgt counter of
 * every port, persisted in SQLite.
 *
 * IB's PortCounters are 4..32 bits wide and saturate at all ones
 * instead of wrapping; anyone may reset them. The accumulator adds what
 * each new reading adds, notices saturation (counts lost from then on)
 * and resets (a reading that went down: count from the new base), and
 * marks a discontinuity when continuity is lost, so Counter64 objects
 * stay monotonic and ifCounterDiscontinuityTime says when to distrust
 * a difference. */
#ifndef IBSNMPGW_COUNTERS_H
#define IBSNMPGW_COUNTERS_H

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

/* The state machine (pure; unit-tested). width in bits, 64 for the
 * extended counters. Returns CTR_EV_* flags. A new accumulator is
 * CTR_ACC_INIT (ctr_acc_init for arrays). */
#define CTR_ACC_INIT	{ 0, CTR_NONE }
void	 ctr_acc_init(struct ctr_acc *a, size_t n);
unsigned ctr_update(struct ctr_acc *a, uint64_t raw, unsigned width);
/* The gateway reset the counter itself: count on from zero. */
void	 ctr_was_reset(struct ctr_acc *a);

/* HA (docs/ha.md): a replicated state (total, last) taken if it is
 * not older than a's (totals only grow). */
void	 ctr_repl_merge(struct ctr_acc *a, uint64_t total, uint64_t last);

int	 counters_init(void);	/* after store_init() */
void	 counters_finalise(void);	/* flushes */
/* A PerfMgt answer for (node, port). */
void	 counters_feed(uint32_t node, uint8_t port, uint16_t attr,
	    const uint8_t *data, size_t len);
/* A PortInfo answer: state changes feed ifLastChange. */
void	 counters_port_state(uint32_t node, uint8_t port, uint8_t state);
const struct ctr_port *counters_port(uint32_t node, uint8_t port);
/* Counter i of a port (a zero accumulator for a per-VL counter that
 * was never read). */
const struct ctr_acc *counters_acc(const struct ctr_port *p, int i);
/* Whether the port's PortCounters were ever read (here or before a
 * restart). */
int	 counters_port_read(const struct ctr_port *p);
/* A port that was never read and whose PMA will not count it (it
 * refuses the PortSelect): its counters are zero from now on, with a
 * discontinuity now, and another when a first reading replaces them. */
const struct ctr_port *counters_placeholder(uint32_t node, uint8_t port);
/* The node's PerfMgt ClassPortInfo CapabilityMask2 (proxy/fetch.c, on every
 * answer): whether its PortCountersExtended carries the 64-bit error
 * counters and PortXmitWait (PERF_CAP2_ADDL_EXT), which are then
 * preferred over PortCounters'. Until the first, a port keeps the
 * source it was last fed from. */
void	 counters_pma_caps(uint32_t node, uint32_t cap2);
/* Counter i's width as the port is fed: 64 for a 64-bit copy. */
unsigned counters_width(const struct ctr_port *p, int i);
/* PortXmitWait's share of the port's last interval between readings,
 * in ppm (perf_xmit_wait_ppm), and that interval in ms (0: no interval
 * yet, or a source switch ended it). An interval shorter than
 * CTR_WAIT_MIN_MS is merged into the next. */
#define CTR_WAIT_MIN_MS	1000
uint32_t counters_xmit_wait(const struct ctr_port *p, uint32_t *dt_ms);
/* store/counters_wait.c: the interval's clock is now (ms since start
 * + 1, mod 2^32, never 0). A new interval begins (a switch of source:
 * none across it); PortXmitWait was read. */
void	 ctr_wait_start(struct ctr_port *p, uint32_t now);
void	 ctr_wait_update(struct ctr_port *p, uint32_t now);
/* TimeTicks since the gateway started for an ev_now() time. */
uint32_t counters_ticks(int64_t ms);
/* Counters of attr (PortCounters, PortVLOpPackets, PortVLOpData) of a
 * port past 3/4 of their range, as that attribute's CounterSelect mask
 * (IBA 16.1.3.5 Table 227; bit n is VLn for the per-VL ones), for
 * policies that may reset; 0 if none. When not 0, the port's unsaved
 * accumulators are saved first: the Set is about to clear them. */
uint16_t counters_reset_mask(uint32_t node, uint8_t port, uint16_t attr);
/* The gateway reset those counters: count on from zero. */
void	 counters_was_reset(uint32_t node, uint8_t port, uint16_t attr,
	    uint16_t mask);

/* Write changed accumulators in one transaction. An accumulator whose
 * offset changed (a first reading, saturation, a reset) is written in
 * the event-loop iteration that saw it, before the SNMP front end
 * answers from it; steady counts wait for the 10 s timer, which a crash
 * cannot harm (total - last does not move). */
int	 counters_flush(void);
/* HA: changed(guid, port, counter, acc) for every accumulator that
 * changed, in the event-loop iteration that changed it, and flush()
 * once per iteration after them, before the SNMP front end answers
 * (an active's replication). NULL: none. */
struct counters_tap {
	void	(*changed)(uint64_t guid, uint8_t port, int ctr,
		    const struct ctr_acc *a, void *arg);
	void	(*flush)(void *arg);
	void	*arg;
};
void	 counters_set_tap(const struct counters_tap *t);
/* Every valid accumulator, from the cursor on (0, 0 to start); fn
 * returns -1 to stop before that port, which the cursor then names.
 * Returns 1 when all were walked, 0 when stopped. */
int	 counters_walk(uint32_t *node, unsigned *port,
	    int (*fn)(uint64_t guid, const struct ctr_port *p, void *arg),
	    void *arg);
/* A standby's replicated state (ctr_repl_merge), by GUID: in memory if
 * the inventory has the node, else in the database. */
void	 counters_repl_apply(uint64_t guid, uint8_t port, int ctr,
	    uint64_t total, uint64_t last);
/* Promotion: saved, and the database's states merged into memory
 * (nodes found since they were replicated). */
int	 counters_repl_reload(void);

/* Transactions committed and accumulator rows written since start. */
void	 counters_stats(uint64_t *commits, uint64_t *rows);

#endif
