/* IBSNMPGW-MIB ibsnmpgwNodeErrorTable in the fabric context: each
 * node's PortCounters error counters (IBA 16.1.3.5 Table 227) summed
 * over its ports, from the accumulators the poller and SNMP requests
 * have filled (store/counters.c). One walk shows which nodes have link
 * trouble; reading it sends no MAD. */
#include "config.h"

#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"

/* Counter i summed over the node's read ports; ports[0] of a switch is
 * its management port, which has no link to count. */
static int
err_sum(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);
	uint64_t sum = 0;

	if (n == NULL)
		return GW_ABSENT;
	for (int p = 1; p <= n->num_ports; p++) {
		const struct ctr_port *cp = counters_port(n->idx, (uint8_t)p);

		if (cp != NULL && counters_port_read(cp))
			sum += counters_acc(cp, (int)gw_column(e)->arg)->total;
	}
	return gw_val_counter64(v, sum);
}

/* A port's errors, every counter of this table added. */
static uint64_t
port_errors(const struct ctr_port *cp)
{
	uint64_t sum = 0;

	for (int i = CTR_SYMBOL_ERRORS; i <= CTR_VL15_DROPPED; i++)
		sum += counters_acc(cp, i)->total;
	return sum;
}

static int
err_ports(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_inventory_row_node(row);
	unsigned read = 0, worst = 0;
	uint64_t most = 0;

	if (n == NULL)
		return GW_ABSENT;
	for (int p = 1; p <= n->num_ports; p++) {
		const struct ctr_port *cp = counters_port(n->idx, (uint8_t)p);

		if (cp == NULL || !counters_port_read(cp))
			continue;
		read++;
		if (port_errors(cp) > most) {
			most = port_errors(cp);
			worst = (unsigned)p;
		}
	}
	if (gw_column(e)->arg == 0)
		return gw_val_gauge(v, read);
	return gw_val_uint(v, worst);
}

#define SUM(nm, ctr)	GW_GETA(nm, err_sum, ctr)

static const struct gw_col err_cols[] = {
	GW_GETA(ibsnmpgwNodeErrPorts, err_ports, 0),
	SUM(ibsnmpgwNodeErrSymbolErrors, CTR_SYMBOL_ERRORS),
	SUM(ibsnmpgwNodeErrLinkRecovers, CTR_LINK_RECOVERS),
	SUM(ibsnmpgwNodeErrLinkDowned, CTR_LINK_DOWNED),
	SUM(ibsnmpgwNodeErrRcvErrors, CTR_RCV_ERRORS),
	SUM(ibsnmpgwNodeErrRcvRemotePhysErrors, CTR_RCV_REMOTE_PHYS),
	SUM(ibsnmpgwNodeErrRcvSwitchRelayErrors, CTR_RCV_SWITCH_RELAY),
	SUM(ibsnmpgwNodeErrXmitDiscards, CTR_XMIT_DISCARDS),
	SUM(ibsnmpgwNodeErrXmitConstraintErrors, CTR_XMIT_CONSTRAINT),
	SUM(ibsnmpgwNodeErrRcvConstraintErrors, CTR_RCV_CONSTRAINT),
	SUM(ibsnmpgwNodeErrLocalIntegrityErrors, CTR_LOCAL_INTEGRITY),
	SUM(ibsnmpgwNodeErrExcessiveOverruns, CTR_EXCESS_OVERRUN),
	SUM(ibsnmpgwNodeErrVL15Dropped, CTR_VL15_DROPPED),
	GW_GETA(ibsnmpgwNodeErrWorstPort, err_ports, 1),
};

static const struct gw_table err_table = {
	.name = "ibsnmpgwNodeErrorTable",
	.GW_OID(GW_OID_ibsnmpgwNodeErrorEntry),
	.under_sys_base = 1,
	.nindex = 1,
	.GW_COLS(err_cols),
	.row_next = gw_inventory_rows,
	.context = GW_FABRIC_CONTEXT,
};

static const struct gw_table *const tables[] = { &err_table, NULL };

const struct gw_mib_module gw_mod_ibsnmpgw_mib_node_errors = {
	.name = "IBSNMPGW-MIB node errors",
	.tables = tables,
};
