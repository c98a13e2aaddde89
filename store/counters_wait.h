/* counters_wait: PortXmitWait's share of a port's time between two
 * readings (store/counters_wait.c, docs/health.md). */
#ifndef IBSNMPGW_COUNTERS_WAIT_H
#define IBSNMPGW_COUNTERS_WAIT_H

#include <stdint.h>

#include "store/counters_port.h"

/* PortXmitWait's share of the port's last interval between readings,
 * in ppm (perf_xmit_wait_ppm), and that interval in ms (0: no interval
 * yet, or a source switch ended it). An interval shorter than
 * CTR_WAIT_MIN_MS is merged into the next. */
#define CTR_WAIT_MIN_MS	1000
uint32_t counters_xmit_wait(const struct ctr_port *p, uint32_t *dt_ms);
/* The interval's clock is now (ms since start + 1, mod 2^32, never 0).
 * A new interval begins (a switch of source: none across it);
 * PortXmitWait was read. */
void	 ctr_wait_start(struct ctr_port *p, uint32_t now);
void	 ctr_wait_update(struct ctr_port *p, uint32_t now);

#endif
