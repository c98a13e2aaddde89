/* counters: PortXmitWait's share of the interval between readings
 * (docs/health.md, "Congestion"). */
#include "config.h"

#include <stdint.h>

#include "codec/perf.h"
#include "codec/smp.h"
#include "store/counters_wait.h"
#include "store/store.h"

/* The port's data rate now (the inventory's PortInfo), 0 if unknown. */
static uint64_t
port_rate(const struct ctr_port *p)
{
	const struct store_node *sn = store_node_at(p->node);
	const struct store_port *pt;
	struct smp_portinfo pi;

	if (sn == NULL || sn->ports == NULL || p->port > sn->num_ports)
		return 0;
	pt = &sn->ports[p->port];
	if (!pt->pinfo_ok || smp_decode_portinfo(pt->pinfo, sizeof(pt->pinfo),
	    &pi) == -1)
		return 0;
	return smp_port_rate_mbps(&pi);
}

void
ctr_wait_start(struct ctr_port *p, uint32_t now)
{
	p->wait_at = now;
	p->wait_total = p->c[CTR_XMIT_WAIT].total;
	p->wait_dt_ms = p->wait_ppm = 0;
}

/* The interval since the last reading at least CTR_WAIT_MIN_MS ago
 * ends; a shorter one goes on into the next. */
void
ctr_wait_update(struct ctr_port *p, uint32_t now)
{
	const struct ctr_acc *a = &p->c[CTR_XMIT_WAIT];
	uint32_t dt;

	if (!ctr_valid(a))
		return;
	if (p->wait_at != 0) {
		if ((dt = now - p->wait_at) < CTR_WAIT_MIN_MS)
			return;
		p->wait_ppm = perf_xmit_wait_ppm(a->total - p->wait_total, dt,
		    port_rate(p));
		p->wait_dt_ms = dt;
	}
	p->wait_at = now;
	p->wait_total = a->total;
}

uint32_t
counters_xmit_wait(const struct ctr_port *p, uint32_t *dt_ms)
{
	*dt_ms = p->wait_dt_ms;
	return p->wait_ppm;
}
