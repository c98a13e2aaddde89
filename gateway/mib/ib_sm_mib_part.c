/* ibSmPartitionTable: partition membership across the subnet, gathered
 * from every member port's P_KeyTable (IBA 14.2.5.7) through the same
 * cache the node contexts' ibSmaPKeyTable reads: a walk after either
 * costs no MAD within cache.ttl.tables; a cold one reads each table
 * once, in parallel under the engine's caps.
 *
 * Member ports are those a P_Key names membership of: CA and router
 * ports the gateway can route to, and switch port 0. Switch data ports'
 * tables are enforcement filters, not membership, and are left out. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/smp.h"
#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"
#include "gateway/mib/ib_sm_mib.h"
#include "util/ev.h"

#define PART_ELEM	10	/* node GUID, port, membership */
#define PART_PER_VEC	(255 / PART_ELEM)

struct part_member {
	uint16_t		 pkey;		/* membership bit cleared */
	uint8_t			 full;
	uint8_t			 port;
	const struct store_node	*n;
};

static struct part_member *part_m;
static size_t part_n, part_cap;
static uint64_t part_hash, part_changed;	/* ms of the last change */

static int
member_cmp(const void *a, const void *b)
{
	const struct part_member *x = a, *y = b;

	if (x->pkey != y->pkey)
		return x->pkey < y->pkey ? -1 : 1;
	if (x->n->guid != y->n->guid)
		return x->n->guid < y->n->guid ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

static int
add(uint16_t pkey, const struct store_node *n, uint8_t port)
{
	if (part_n == part_cap) {
		size_t c = part_cap ? 2 * part_cap : 256;
		struct part_member *m = realloc(part_m, c * sizeof(*m));

		if (m == NULL)
			return -1;
		part_m = m;
		part_cap = c;
	}
	part_m[part_n].pkey = pkey & 0x7fff;
	part_m[part_n].full = pkey >> 15;
	part_m[part_n].port = port;
	part_m[part_n++].n = n;
	return 0;
}

/* One port's table, blocks of 32 up to the node's PartitionCap. A
 * table that cannot be read leaves the port out (its node is in
 * trouble; the node table says so), it does not fail the subnet's. */
static int
read_port(struct gw_eval *e, const struct store_node *n, uint8_t port,
    unsigned cap, int *need)
{
	for (unsigned blk = 0; blk * 32 < cap; blk++) {
		uint32_t mod = n->type == STORE_NODE_SWITCH ?
		    (uint32_t)port << 16 | blk : blk;
		int err;
		const uint8_t *d = gw_attr_of(e, n, ATTR_PKEY_TABLE, mod,
		    gw_route_port(n, port), &err);

		if (d == NULL) {
			if (err == 0)
				*need = 1;
			return 0;
		}
		for (int i = 0; i < 32 && blk * 32 + i < cap; i++) {
			uint16_t k = smp_pkey(d, i);

			if ((k & 0x7fff) != 0 && add(k, n, port) == -1)
				return -1;
		}
	}
	return 0;
}

/* The whole subnet's membership, sorted: 0, GW_NEED, GW_BAD. */
static int
gather(struct gw_eval *e)
{
	size_t count = store_node_count();
	uint64_t h = 1469598103934665603ULL;
	int need = 0;

	part_n = 0;
	for (size_t i = 0; i < count; i++) {
		const struct store_node *n = store_node_at((uint32_t)i);
		unsigned cap;

		if (!n->reachable || !n->ninfo_ok)
			continue;
		cap = mad_get_field((void *)n->ninfo, 0,
		    IB_NODE_PARTITION_CAP_F);
		if (n->type == STORE_NODE_SWITCH) {
			if (read_port(e, n, 0, cap, &need) == -1)
				return GW_BAD;
			continue;
		}
		for (uint8_t p = 1; p <= n->num_ports; p++)
			if (gw_port_reachable(n, p) &&
			    read_port(e, n, p, cap, &need) == -1)
				return GW_BAD;
	}
	if (need)
		return GW_NEED;
	qsort(part_m, part_n, sizeof(*part_m), member_cmp);
	for (size_t i = 0; i < part_n; i++) {
		uint64_t x = part_m[i].n->guid ^ (uint64_t)part_m[i].pkey <<
		    16 ^ (uint64_t)part_m[i].port << 8 ^ part_m[i].full;

		h = (h ^ x) * 1099511628211ULL;
	}
	if (h != part_hash) {
		part_hash = h;
		part_changed = ev_now();
	}
	return 0;
}

/* Visible members of the partition whose first entry is at i. */
static size_t
members(struct gw_eval *e, size_t i, size_t *end)
{
	size_t k = 0, j;

	for (j = i; j < part_n && part_m[j].pkey == part_m[i].pkey; j++)
		if (gw_visible(e, part_m[j].n))
			k++;
	*end = j;
	return k;
}

static int
part_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	uint32_t pfx[8];
	size_t i, end;
	int rc;

	if ((rc = gather(e)) != 0)
		return rc;
	gw_sm_put64(pfx, gw_sm_prefix());
	for (i = 0; i < part_n; i = end) {
		size_t k = members(e, i, &end);

		for (size_t vi = 0; vi * PART_PER_VEC < k; vi++) {
			int c;

			memset(out, 0, sizeof(*out));
			memcpy(out->i, pfx, sizeof(pfx));
			out->i[8] = part_m[i].pkey >> 8;
			out->i[9] = part_m[i].pkey & 0xff;
			out->i[10] = (uint32_t)vi;
			c = gw_sm_cmp(out->i, lb->i, 11);
			if (c > 0 || (c == 0 && incl))
				return 1;
		}
	}
	return 0;
}

static int
part_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	uint8_t vec[PART_PER_VEC * PART_ELEM];
	size_t i, end, k = 0, skip;
	int rc;

	if ((rc = gather(e)) != 0)
		return rc;
	for (i = 0; i < part_n; i = end) {
		members(e, i, &end);
		if (part_m[i].pkey >> 8 == row->i[8] &&
		    (part_m[i].pkey & 0xff) == row->i[9])
			break;
	}
	if (i >= part_n)
		return GW_ABSENT;
	skip = (size_t)row->i[10] * PART_PER_VEC;
	for (size_t j = i; j < end && k < PART_PER_VEC; j++) {
		uint8_t *el = vec + k * PART_ELEM;

		if (!gw_visible(e, part_m[j].n))
			continue;
		if (skip > 0) {
			skip--;
			continue;
		}
		for (int b = 0; b < 8; b++)
			el[b] = (uint8_t)(part_m[j].n->guid >> (56 - 8 * b));
		el[8] = part_m[j].port;
		el[9] = part_m[j].full ? 1 : 2;
		k++;
	}
	if (k == 0)
		return GW_ABSENT;
	switch (gw_column(e)->arg) {
	case 4:
		return gw_val_octets(v, vec, k * PART_ELEM);
	case 5:
		return gw_val_int(v, (long)(k * PART_ELEM));
	case 6:
		return gw_val_int(v, PART_ELEM);
	case 7: {
		uint64_t age = (ev_now() - part_changed) / 10;
		uint32_t up = netsnmp_get_agent_uptime();

		v->type = ASN_TIMETICKS;
		v->l = age >= up ? 0 : up - (long)age;
		return 0;
	}
	}
	return GW_ABSENT;
}

#define PV(nm) GW_GETA(nm, part_get, GW_ARC_##nm)

static const struct gw_col part_cols[] = {
	PV(ibSmPartitionVector),
	PV(ibSmPartitionVectorSize),
	PV(ibSmPartitionVectorElementSize),
	PV(ibSmPartitionLastChange),
};

static const struct gw_table part_table = {
	.name = "ibSmPartitionTable",
	.GW_OID(GW_OID_ibSmPartitionEntry),
	.nindex = 11,
	.GW_COLS(part_cols),
	.row_next = part_rows,
	.context = GW_FABRIC_CONTEXT,
};

static void
ib_sm_mib_part_finalise(void)
{
	free(part_m);
	part_m = NULL;
	part_n = part_cap = 0;
	part_hash = part_changed = 0;
}

static const struct gw_table *const tables[] = {
	&part_table, NULL
};

const struct gw_mib_module gw_mod_ib_sm_mib_part = {
	.name = "IB-SM-MIB partitions",
	.tables = tables,
	.finalise = ib_sm_mib_part_finalise,
};
