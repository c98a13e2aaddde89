/* IB-SM-MIB's per-port VL tables in the fabric context:
 * ibSmSwSLtoVLMapTable, ibSmCaSLtoVLMapTable (SLtoVLMappingTable, IBA
 * 14.2.5.8) and ibSmVLArbitrationTable (VLArbitrationTable, 14.2.5.9).
 *
 * Rows follow the inventory (which ports are linked, VLArbHighCap and
 * VLArbLowCap from the sweep's PortInfo), so enumerating costs no MAD;
 * the values come through the attribute cache the node contexts'
 * ibSmaSL2VLMapTable and VL arbitration tables use. Only linked ports
 * (PortState Init or better) have rows: the SM programs those, and a
 * 36-port switch would otherwise list 1,332 mostly meaningless port
 * pairs. Input port 0 (the switch's own) is index 255, as in
 * IB-SMA-MIB. */
#include "config.h"

#include <string.h>

#include "codec/smp.h"
#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"
#include "gateway/mib/ib_sm_mib.h"

#define MGMT	255		/* port 0 as an index */

static int
linked(const struct store_node *n, unsigned p)
{
	return p <= n->num_ports && n->ports[p].valid &&
	    n->ports[p].state >= 2;
}

/* Whether the candidate c (k subids) is the next row after tail. */
static int
after(const uint32_t *c, const uint32_t *tail, int incl, int k)
{
	int r;

	if (tail == NULL)
		return 1;
	r = gw_sm_cmp(c, tail, k);
	return r > 0 || (r == 0 && incl);
}

/* ---- ibSmSwSLtoVLMapTable: (in port, out port) of every switch */

static unsigned
next_in(const struct store_node *n, unsigned in)
{
	/* Data ports 1..N that are linked, then 255 (port 0). */
	for (in++; in <= n->num_ports; in++)
		if (linked(n, in))
			return in;
	return in <= MGMT ? MGMT : 0;
}

static int
sw_one(struct gw_eval *e, const struct store_node *n, const uint32_t *tail,
    int incl, struct gw_row *out)
{
	(void)e;
	if (n->type != STORE_NODE_SWITCH)
		return 0;
	for (unsigned in = next_in(n, 0); in != 0;
	    in = in == MGMT ? 0 : next_in(n, in))
		for (unsigned o = 1; o <= n->num_ports; o++) {
			uint32_t c[2] = { in, o };

			if (!linked(n, o) || !after(c, tail, incl, 2))
				continue;
			out->i[16] = in;
			out->i[17] = o;
			return 1;
		}
	return 0;
}

static int
sw_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return gw_sm_node_rows(e, lb, incl, out, sw_one);
}

static int
sl2vl(struct gw_eval *e, const struct store_node *n, uint32_t mod,
    uint8_t port, unsigned sl, struct gw_val *v)
{
	int err;
	const uint8_t *d;

	if (n == NULL)
		return GW_ABSENT;
	d = gw_attr_of(e, n, ATTR_SL2VL_TABLE, mod, port, &err);
	if (d == NULL) {
		gw_fail(e, err);
		return GW_NEED;
	}
	return gw_val_int(v, smp_sl2vl(d, (int)sl));
}

static int
sw_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	uint32_t in = row->i[16] == MGMT ? 0 : row->i[16];

	/* 14.2.5.8: bits 15:8 input port, 7:0 output port. */
	return sl2vl(e, gw_sm_row_node(row, 8), in << 8 | row->i[17], 0,
	    (unsigned)gw_column(e)->arg - 5, v);
}

#define SL(nm, fn) GW_GETA(nm, fn, GW_ARC_##nm)

static const struct gw_col sw_cols[] = {
	SL(ibSmSwSLtoVLMapSL0toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL1toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL2toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL3toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL4toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL5toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL6toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL7toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL8toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL9toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL10toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL11toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL12toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL13toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL14toVL, sw_get),
	SL(ibSmSwSLtoVLMapSL15toVL, sw_get),
};

static const struct gw_table sw_table = {
	.name = "ibSmSwSLtoVLMapTable",
	.GW_OID(GW_OID_ibSmSwSLtoVLMapEntry),
	.nindex = 18,
	.GW_COLS(sw_cols),
	.row_next = sw_rows,
	.context = GW_FABRIC_CONTEXT,
};

/* ---- ibSmCaSLtoVLMapTable: the reachable ports of CAs and routers */

static int
ca_one(struct gw_eval *e, const struct store_node *n, const uint32_t *tail,
    int incl, struct gw_row *out)
{
	(void)e;
	if (n->type == STORE_NODE_SWITCH)
		return 0;
	for (unsigned p = 1; p <= n->num_ports; p++) {
		uint32_t c[1] = { p };

		if (!gw_port_reachable(n, p) || !after(c, tail, incl, 1))
			continue;
		out->i[16] = p;
		return 1;
	}
	return 0;
}

static int
ca_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return gw_sm_node_rows(e, lb, incl, out, ca_one);
}

static int
ca_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_sm_row_node(row, 8);

	/* A CA port's own table: the SMP goes in through that port. */
	return sl2vl(e, n, 0, n ? gw_route_port(n, row->i[16]) : 0,
	    (unsigned)gw_column(e)->arg - 4, v);
}

static const struct gw_col ca_cols[] = {
	SL(ibSmCaSLtoVLMapSL0toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL1toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL2toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL3toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL4toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL5toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL6toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL7toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL8toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL9toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL10toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL11toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL12toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL13toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL14toVL, ca_get),
	SL(ibSmCaSLtoVLMapSL15toVL, ca_get),
};

static const struct gw_table ca_table = {
	.name = "ibSmCaSLtoVLMapTable",
	.GW_OID(GW_OID_ibSmCaSLtoVLMapEntry),
	.nindex = 17,
	.GW_COLS(ca_cols),
	.row_next = ca_rows,
	.context = GW_FABRIC_CONTEXT,
};

/* ---- ibSmVLArbitrationTable: (port, priority, entry) */

/* Entries in a port's list: VLArbLowCap / VLArbHighCap of its PortInfo
 * as the sweep read it (at most 64, the attribute's four blocks). */
static unsigned
vlarb_cap(const struct store_node *n, unsigned p, int high)
{
	unsigned cap;

	if (!n->ports[p].pinfo_ok)
		return 0;
	cap = mad_get_field((void *)n->ports[p].pinfo, 0, high ?
	    IB_PORT_VL_ARBITRATION_HIGH_CAP_F :
	    IB_PORT_VL_ARBITRATION_LOW_CAP_F);
	return cap > 64 ? 64 : cap;
}

static int
vlarb_port(const struct store_node *n, unsigned p)
{
	return n->type == STORE_NODE_SWITCH ? p >= 1 && linked(n, p) :
	    gw_port_reachable(n, p);
}

static int
vlarb_one(struct gw_eval *e, const struct store_node *n,
    const uint32_t *tail, int incl, struct gw_row *out)
{
	(void)e;
	for (unsigned p = 1; p <= n->num_ports; p++) {
		if (!vlarb_port(n, p))
			continue;
		for (unsigned pri = 1; pri <= 2; pri++) {
			unsigned cap = vlarb_cap(n, p, pri == 2);

			for (unsigned i = 1; i <= cap; i++) {
				uint32_t c[3] = { p, pri, i };

				if (!after(c, tail, incl, 3))
					continue;
				out->i[16] = p;
				out->i[17] = pri;
				out->i[18] = i;
				return 1;
			}
		}
	}
	return 0;
}

static int
vlarb_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return gw_sm_node_rows(e, lb, incl, out, vlarb_one);
}

static int
vlarb_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_sm_row_node(row, 8);
	unsigned p = row->i[16], i = row->i[18] - 1;
	/* Blocks 1-2: low priority, 3-4: high (14.2.5.9); the modifier has
	 * the block in bits 31:16 and, for switches, the port in 15:0. */
	uint32_t blk = (row->i[17] == 2 ? 3 : 1) + i / 32;
	uint32_t mod;
	const uint8_t *d;
	uint8_t vl, weight;
	int err;

	if (n == NULL)
		return GW_ABSENT;
	mod = blk << 16 | (n->type == STORE_NODE_SWITCH ? p : 0);
	d = gw_attr_of(e, n, ATTR_VLARB_TABLE, mod, gw_route_port(n, p),
	    &err);
	if (d == NULL) {
		gw_fail(e, err);
		return GW_NEED;
	}
	smp_vlarb(d, (int)(i % 32), &vl, &weight);
	return gw_column(e)->arg == 6 ? gw_val_int(v, weight) :
	    gw_val_int(v, vl & 0x0f);
}

static const struct gw_col vlarb_cols[] = {
	GW_GETA(ibSmVLArbitrationWeight, vlarb_get, 6),
	GW_GETA(ibSmVLArbitrationVL, vlarb_get, 7),
};

static const struct gw_table vlarb_table = {
	.name = "ibSmVLArbitrationTable",
	.GW_OID(GW_OID_ibSmVLArbitrationEntry),
	.nindex = 19,
	.GW_COLS(vlarb_cols),
	.row_next = vlarb_rows,
	.context = GW_FABRIC_CONTEXT,
};

static const struct gw_table *const tables[] = {
	&sw_table, &ca_table, &vlarb_table, NULL
};

const struct gw_mib_module gw_mod_ib_sm_mib_vl = {
	.name = "IB-SM-MIB SL to VL",
	.tables = tables,
};
