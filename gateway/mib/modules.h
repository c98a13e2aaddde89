/* Every MIB module the gateway serves, one line each, in the order
 * they start (gw_mib_init) and the reverse of the order they stop.
 * GW_MODULE(x) names the gw_mib_module gw_mod_x of one table file.
 * Included by gateway/mib_reg.c only, with its own GW_MODULE. */
GW_MODULE(snmpv2_mib)		/* snmpv2_mib.c: system, snmp, USM, target */
GW_MODULE(ib_sma_mib)		/* ib_sma_mib.c: NodeInfo .. PortInfo */
GW_MODULE(ib_sma_mib_tables)	/* ib_sma_mib_tables.c: GUID .. LED */
GW_MODULE(if_mib)		/* if_mib.c: ifTable, ifXTable */
GW_MODULE(ib_if_mib)		/* ib_if_mib.c */
GW_MODULE(ibsnmpgw_mib_ports)	/* ibsnmpgw_mib_ports.c */
GW_MODULE(ibsnmpgw_mib_nodes)	/* ibsnmpgw_mib_nodes.c: fabric context */
GW_MODULE(ibsnmpgw_mib_events)	/* ibsnmpgw_mib_events.c */
GW_MODULE(ib_sm_mib)		/* ib_sm_mib.c: node, switch info */
GW_MODULE(ib_sm_mib_ports)	/* ib_sm_mib_ports.c */
GW_MODULE(ib_sm_mib_part)	/* ib_sm_mib_part.c: partitions */
GW_MODULE(ib_sm_mib_vl)		/* ib_sm_mib_vl.c: SL to VL, VL arb. */
GW_MODULE(ib_sm_mib_query)	/* ib_sm_mib_query.c: path, trace */
GW_MODULE(ib_sm_mib_sa)		/* ib_sm_mib_sa.c: the SA's tables */
GW_MODULE(tunnel)		/* ../mib_tunnel.c: the nodes' own agents */
