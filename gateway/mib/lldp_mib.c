/* LLDP-MIB (IEEE Std 802.1AB-2005 clause 12) in every node context: the
 * node as an LLDP agent would describe itself and its neighbours, so
 * NMSs that draw maps from LLDP neighbours (LibreNMS, Observium,
 * Netdisco) draw the fabric. InfiniBand has no LLDP; every value comes
 * from the inventory the sweeps keep, never from a MAD.
 *
 * Identities (docs/mibs.md, "LLDP-MIB"): the chassis ID is local(7),
 * the node GUID as "0x" and 16 hex digits (also a context name that
 * reaches the node); the port ID is interfaceName(5), IF-MIB's ifName
 * ("portN") in the neighbour's context; lldpLocPortNum and
 * lldpRemLocalPortNum are the port number, which is IF-MIB's ifIndex.
 * A neighbour row exists while both ends are reachable and each end's
 * inventory names the other; a tenant sees only the rows of neighbours
 * its node selector lets it see.
 *
 * The remote table's changes are counted per node at the end of each
 * sweep (the swept hook), which SM events start within about a second
 * of a link change (docs/design.md, "How sweeps are driven"). */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/node.h"
#include "util/log.h"

/* 802.1AB-2005 clause 12.2 enumerations */
#define LLDP_CHASSIS_LOCAL	7	/* LldpChassisIdSubtype local */
#define LLDP_PORT_IFNAME	5	/* LldpPortIdSubtype interfaceName */
#define LLDP_MANIF_UNKNOWN	1	/* LldpManAddrIfSubtype unknown */
#define LLDP_AF_IPV4		1	/* AddressFamilyNumbers ipV4 */

/* One port's neighbour as of the last sweep. */
struct lldp_link {
	uint64_t	guid;		/* 0: none */
	uint8_t		port;
	uint32_t	mark;		/* lldpRemTimeMark: sysUpTime then */
};

/* A node's remote table and its change counters (lldpStatistics). */
struct lldp_node {
	uint32_t	 inserts, deletes, drops;
	uint32_t	 changed;	/* lldpStatsRemTablesLastChangeTime */
	uint32_t	 nports;
	struct lldp_link *link;		/* [0..nports]; [0] unused */
};

static struct lldp_node	*lldp_nodes;	/* by inventory index */
static size_t		 lldp_nnodes;
/* lldpRemManAddr: the gateway's first IPv4 listener, if any. */
static uint8_t		 lldp_addr[4];
static int		 lldp_have_addr;

/* The neighbour on port p of n, as the inventory has it now: both ends
 * reachable and naming each other (a lost node keeps its last links in
 * the inventory; they are not links of the subnet). */
static const struct store_node *
peer_of(const struct store_node *n, uint32_t p, uint8_t *rport)
{
	const struct store_port *pt, *back;
	const struct store_node *r;

	if (!n->reachable || p < 1 || p > n->num_ports || n->ports == NULL)
		return NULL;
	pt = &n->ports[p];
	if (pt->remote_guid == 0 ||
	    (r = store_node_by_guid(pt->remote_guid)) == NULL ||
	    !r->reachable || r->ports == NULL || pt->remote_port < 1 ||
	    pt->remote_port > r->num_ports)
		return NULL;
	back = &r->ports[pt->remote_port];
	if (back->remote_guid != n->guid || back->remote_port != p)
		return NULL;
	*rport = pt->remote_port;
	return r;
}

static uint32_t
ticks_now(void)
{
	return (uint32_t)netsnmp_get_agent_uptime();
}

/* Node n's links now against its last ones; counted unless quiet (the
 * first look at the inventory, at start). */
static void
node_update(struct lldp_node *ln, const struct store_node *n, int quiet)
{
	uint32_t np = n->num_ports, now = ticks_now();
	/* The same ports as before (all but a replaced node): in place,
	 * as each slot is read before it is written; no allocation per
	 * node and sweep. */
	struct lldp_link *nl = np == ln->nports && ln->link != NULL ?
	    ln->link : calloc(np + 1, sizeof(*nl));

	if (nl == NULL) {
		ln->drops++;	/* the old view stays */
		return;
	}
	for (uint32_t p = 1; p <= np || p <= ln->nports; p++) {
		struct lldp_link was = { 0 }, is = { 0 };
		const struct store_node *r;
		uint8_t rp;

		if (p <= ln->nports)
			was = ln->link[p];
		if (p <= np && (r = peer_of(n, p, &rp)) != NULL) {
			is.guid = r->guid;
			is.port = rp;
		}
		if (was.guid == is.guid && was.port == is.port)
			is.mark = was.mark;
		else if (!quiet) {
			/* A neighbour replaced is a delete and an insert. */
			ln->deletes += was.guid != 0;
			ln->inserts += is.guid != 0;
			is.mark = now;
			ln->changed = now;
		}
		if (p <= np)
			nl[p] = is;
	}
	if (nl != ln->link)
		free(ln->link);
	ln->link = nl;
	ln->nports = np;
}

static void
lldp_update(int quiet)
{
	size_t count = store_node_count();

	if (count > lldp_nnodes) {
		struct lldp_node *a = realloc(lldp_nodes, count * sizeof(*a));

		if (a == NULL) {
			log_warnx("lldp: no memory for %zu nodes", count);
			count = lldp_nnodes;
		} else {
			memset(a + lldp_nnodes, 0,
			    (count - lldp_nnodes) * sizeof(*a));
			lldp_nodes = a;
			lldp_nnodes = count;
		}
	}
	for (size_t i = 0; i < count; i++) {
		const struct store_node *n = store_node_at((uint32_t)i);

		if (n != NULL)
			node_update(&lldp_nodes[i], n, quiet);
	}
}

static void
lldp_swept(void)
{
	lldp_update(0);
}

static const struct lldp_node *
lnode(struct gw_eval *e)
{
	uint32_t idx = gw_node(e)->idx;

	return idx < lldp_nnodes ? &lldp_nodes[idx] : NULL;
}

/* ---- lldpStatistics: this node's remote table changes */

static int
st_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct lldp_node *ln = lnode(e);
	static const struct lldp_node none;

	if (ln == NULL)
		ln = &none;
	switch (gw_column(e)->arg) {
	case 0:
		v->type = ASN_TIMETICKS;
		v->l = ln->changed;
		return 0;
	case 1: return gw_val_gauge(v, ln->inserts);
	case 2: return gw_val_gauge(v, ln->deletes);
	case 3: return gw_val_gauge(v, ln->drops);
	}
	return gw_val_gauge(v, 0);	/* nothing ages out: sweeps decide */
}

static const struct gw_col stats_cols[] = {
	GW_GETA(lldpStatsRemTablesLastChangeTime, st_get, 0),
	GW_GETA(lldpStatsRemTablesInserts, st_get, 1),
	GW_GETA(lldpStatsRemTablesDeletes, st_get, 2),
	GW_GETA(lldpStatsRemTablesDrops, st_get, 3),
	GW_GETA(lldpStatsRemTablesAgeouts, st_get, 4),
};

/* ---- What a node says of itself, locally and as a neighbour */

static int
val_chassis(struct gw_val *v, const struct store_node *n)
{
	char s[24];
	int len = snprintf(s, sizeof(s), "0x%016llx",
	    (unsigned long long)n->guid);

	return gw_val_octets(v, s, len < 0 ? 0 : (size_t)len);
}

static int
val_sysname(struct gw_val *v, const struct store_node *n)
{
	char s[GW_CONTEXT_LEN];

	gw_context_name(n, s, sizeof(s));
	return gw_val_octets(v, s, strlen(s));
}

static int
val_sysdesc(struct gw_val *v, const struct store_node *n)
{
	char s[256];

	return gw_val_octets(v, s, gw_node_sysdescr(n, s, sizeof(s)));
}

/* LldpSystemCapabilitiesMap (BITS: bit 0 is the first octet's top
 * bit): a switch is a bridge(2), a router a router(4), a CA
 * stationOnly(7). Supported and enabled alike. */
static int
val_caps(struct gw_val *v, const struct store_node *n)
{
	uint8_t b = n->type == STORE_NODE_SWITCH ? 0x80 >> 2 :
	    n->type == STORE_NODE_ROUTER ? 0x80 >> 4 : 0x80 >> 7;

	return gw_val_octets(v, &b, 1);
}

static int
val_portid(struct gw_val *v, uint32_t port)
{
	char s[16];

	return gw_val_octets(v, s, gw_port_ifname(port, s, sizeof(s)));
}

static int
val_portdesc(struct gw_val *v, uint32_t port)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "port %u", port);

	return gw_val_octets(v, s, len < 0 ? 0 : (size_t)len);
}

/* What n says of itself, by column arg (shared by the local scalars
 * and the remote columns, so both ends of a link agree). */
enum { ID_CHASSIS_SUB, ID_CHASSIS, ID_NAME, ID_DESC, ID_CAPS };

static int
val_sys(struct gw_val *v, const struct store_node *n, long what)
{
	switch (what) {
	case ID_CHASSIS_SUB: return gw_val_int(v, LLDP_CHASSIS_LOCAL);
	case ID_CHASSIS: return val_chassis(v, n);
	case ID_NAME: return val_sysname(v, n);
	case ID_DESC: return val_sysdesc(v, n);
	}
	return val_caps(v, n);
}

static int
loc_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return val_sys(v, gw_node(e), gw_column(e)->arg);
}

static const struct gw_col loc_cols[] = {
	GW_GETA(lldpLocChassisIdSubtype, loc_get, ID_CHASSIS_SUB),
	GW_GETA(lldpLocChassisId, loc_get, ID_CHASSIS),
	GW_GETA(lldpLocSysName, loc_get, ID_NAME),
	GW_GETA(lldpLocSysDesc, loc_get, ID_DESC),
	GW_GETA(lldpLocSysCapSupported, loc_get, ID_CAPS),
	GW_GETA(lldpLocSysCapEnabled, loc_get, ID_CAPS),
};

/* ---- lldpLocPortTable: ports 1..N, as IF-MIB's ifTable */

static int
lport_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	switch (gw_column(e)->arg) {
	case 0: return gw_val_int(v, LLDP_PORT_IFNAME);
	case 1: return val_portid(v, row->i[0]);
	}
	return val_portdesc(v, row->i[0]);
}

static const struct gw_col lport_cols[] = {
	GW_GETA(lldpLocPortIdSubtype, lport_get, 0),
	GW_GETA(lldpLocPortId, lport_get, 1),
	GW_GETA(lldpLocPortDesc, lport_get, 2),
};

/* ---- lldpRemTable and lldpRemManAddrTable: index (time mark, local
 * port, 1), then for an address (ipV4(1), 4, a, b, c, d). */

#define REM_NINDEX	3
#define MAN_NINDEX	(REM_NINDEX + 6)

static int
cmp_sub(const uint32_t *a, const uint32_t *b, int n)
{
	for (int k = 0; k < n; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* The row's link, if it is one the requester may see now. */
static const struct lldp_link *
row_link(struct gw_eval *e, const struct gw_row *row)
{
	const struct lldp_node *ln = lnode(e);
	const struct lldp_link *l;
	const struct store_node *r;

	if (ln == NULL || row->i[1] < 1 || row->i[1] > ln->nports ||
	    row->i[2] != 1)
		return NULL;
	l = &ln->link[row->i[1]];
	if (l->guid == 0 || l->mark != row->i[0] ||
	    (r = store_node_by_guid(l->guid)) == NULL || !gw_visible(e, r))
		return NULL;
	return l;
}

/* The first row after lb (or at it, incl) of n index subids. */
static int
rem_rows_n(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out, int n)
{
	const struct lldp_node *ln = lnode(e);
	struct gw_row best, k;
	int found = 0;

	if (ln == NULL)
		return 0;
	memset(&k, 0, sizeof(k));
	if (n > REM_NINDEX) {
		k.i[3] = LLDP_AF_IPV4;
		k.i[4] = sizeof(lldp_addr);
		for (size_t b = 0; b < sizeof(lldp_addr); b++)
			k.i[5 + b] = lldp_addr[b];
	}
	for (uint32_t p = 1; p <= ln->nports; p++) {
		int c;

		k.i[0] = ln->link[p].mark;
		k.i[1] = p;
		k.i[2] = 1;
		if (row_link(e, &k) == NULL)
			continue;
		c = cmp_sub(k.i, lb->i, n);
		if (c < 0 || (c == 0 && !incl))
			continue;
		if (!found || cmp_sub(k.i, best.i, n) < 0)
			best = k;
		found = 1;
	}
	if (found)
		*out = best;
	return found;
}

static int
rem_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return rem_rows_n(e, lb, incl, out, REM_NINDEX);
}

static int
man_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	return lldp_have_addr ? rem_rows_n(e, lb, incl, out, MAN_NINDEX) : 0;
}

enum { REM_CHASSIS_SUB, REM_CHASSIS, REM_PORT_SUB, REM_PORT, REM_PORT_DESC,
	REM_NAME, REM_DESC, REM_CAPS };

static int
rem_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct lldp_link *l = row_link(e, row);
	const struct store_node *r;

	if (l == NULL || (r = store_node_by_guid(l->guid)) == NULL)
		return GW_ABSENT;
	switch (gw_column(e)->arg) {
	case REM_CHASSIS_SUB: return val_sys(v, r, ID_CHASSIS_SUB);
	case REM_CHASSIS: return val_sys(v, r, ID_CHASSIS);
	case REM_PORT_SUB: return gw_val_int(v, LLDP_PORT_IFNAME);
	case REM_PORT: return val_portid(v, l->port);
	case REM_PORT_DESC: return val_portdesc(v, l->port);
	case REM_NAME: return val_sys(v, r, ID_NAME);
	case REM_DESC: return val_sys(v, r, ID_DESC);
	}
	return val_sys(v, r, ID_CAPS);
}

static const struct gw_col rem_cols[] = {
	GW_GETA(lldpRemChassisIdSubtype, rem_get, REM_CHASSIS_SUB),
	GW_GETA(lldpRemChassisId, rem_get, REM_CHASSIS),
	GW_GETA(lldpRemPortIdSubtype, rem_get, REM_PORT_SUB),
	GW_GETA(lldpRemPortId, rem_get, REM_PORT),
	GW_GETA(lldpRemPortDesc, rem_get, REM_PORT_DESC),
	GW_GETA(lldpRemSysName, rem_get, REM_NAME),
	GW_GETA(lldpRemSysDesc, rem_get, REM_DESC),
	GW_GETA(lldpRemSysCapSupported, rem_get, REM_CAPS),
	GW_GETA(lldpRemSysCapEnabled, rem_get, REM_CAPS),
};

/* The neighbour's address is the gateway's own: its context is
 * lldpRemSysName (community@name), which no LLDP object can carry. */
static int
man_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct lldp_link *l = row_link(e, row);
	const struct store_node *r;
	oid o[MAX_OID_LEN];

	if (l == NULL || !lldp_have_addr ||
	    (r = store_node_by_guid(l->guid)) == NULL)
		return GW_ABSENT;
	switch (gw_column(e)->arg) {
	case 0: return gw_val_int(v, LLDP_MANIF_UNKNOWN);
	case 1: return gw_val_int(v, 0);
	}
	/* What answers there for the neighbour: its sysObjectID. */
	return gw_val_oid(v, o, gw_node_objid(r, o, MAX_OID_LEN));
}

static const struct gw_col man_cols[] = {
	GW_GETA(lldpRemManAddrIfSubtype, man_get, 0),
	GW_GETA(lldpRemManAddrIfId, man_get, 1),
	GW_GETA(lldpRemManAddrOID, man_get, 2),
};

static const struct gw_table lldp_tables[] = {
	{ .name = "lldpStatistics", .GW_OID(GW_OID_lldpStatistics),
	  .GW_COLS(stats_cols) },
	{ .name = "lldpLocalSystemData", .GW_OID(GW_OID_lldpLocalSystemData),
	  .GW_COLS(loc_cols) },
	{ .name = "lldpLocPortTable", .GW_OID(GW_OID_lldpLocPortEntry),
	  .nindex = 1, .GW_COLS(lport_cols), .row_next = gw_data_ports },
	{ .name = "lldpRemTable", .GW_OID(GW_OID_lldpRemEntry),
	  .nindex = REM_NINDEX, .GW_COLS(rem_cols), .row_next = rem_rows },
	{ .name = "lldpRemManAddrTable", .GW_OID(GW_OID_lldpRemManAddrEntry),
	  .nindex = MAN_NINDEX, .GW_COLS(man_cols), .row_next = man_rows },
};

/* The host part of a listener ("udp:192.0.2.1:161", "192.0.2.1"): an
 * IPv4 address other than 0.0.0.0, or -1. */
static int
listener_ipv4(const char *spec, uint8_t addr[4])
{
	char host[64];
	const char *s = spec;
	size_t len;

	if (strncmp(s, "udp:", 4) == 0 || strncmp(s, "tcp:", 4) == 0)
		s += 4;
	len = strcspn(s, ":");
	if (len == 0 || len >= sizeof(host))
		return -1;
	memcpy(host, s, len);
	host[len] = '\0';
	if (inet_pton(AF_INET, host, addr) != 1)
		return -1;
	return addr[0] | addr[1] | addr[2] | addr[3] ? 0 : -1;
}

static void
lldp_configure(const struct gw_conf *c)
{
	lldp_have_addr = 0;
	for (int i = 0; i < c->nlisten && !lldp_have_addr; i++)
		lldp_have_addr = c->listen[i].spec != NULL &&
		    listener_ipv4(c->listen[i].spec, lldp_addr) == 0;
}

static int
lldp_init(const struct gw_conf *c)
{
	lldp_update(1);		/* the stored inventory: no changes yet */
	return 0;
}

static void
lldp_finalise(void)
{
	for (size_t i = 0; i < lldp_nnodes; i++)
		free(lldp_nodes[i].link);
	free(lldp_nodes);
	lldp_nodes = NULL;
	lldp_nnodes = 0;
}

/* A table added to lldp_tables and not listed here is never registered. */
_Static_assert(sizeof(lldp_tables) / sizeof(lldp_tables[0]) == 5,
    "list every lldp_tables entry in tables[] and update this count");

static const struct gw_table *const tables[] = {
	&lldp_tables[0], &lldp_tables[1], &lldp_tables[2], &lldp_tables[3],
	&lldp_tables[4], NULL
};

const struct gw_mib_module gw_mod_lldp_mib = {
	.name = "LLDP-MIB",
	.tables = tables,
	.init = lldp_init,
	.configure = lldp_configure,
	.finalise = lldp_finalise,
	.swept = lldp_swept,
};
