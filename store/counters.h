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

#include "store/counters_port.h"

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
#include "store/counters_wait.h"
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
