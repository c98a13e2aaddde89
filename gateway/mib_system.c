/* The gateway's own context (community without "@NODE", or v3 context
 * ""): SNMPv2-MIB system and snmp groups (RFC 3418), and the SNMP-TARGET-
 * MIB context counters (RFC 3413), so operators can see the counters the
 * gateway raises for unknown names. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "gateway/mib.h"
#include "proxy/discover.h"
#include "proxy/mad.h"
#include "util/log.h"

typedef void (*sys_fn)(struct gw_val *v, int arg);

struct sys_obj {
	oid	 name[32];
	size_t	 len;
	sys_fn	 fn;
	int	 arg;
};

static char sys_descr[256], sys_contact[256], sys_name[256], sys_location[256];

/* sysObjectID values: BASE.0.1 for the gateway, BASE.1.T for a node of
 * IB NodeType T (1 CA, 2 switch, 3 router). BASE defaults to
 * netSnmpPlaypen.117 (NET-SNMP-MIB's arc for local use) and is set with
 * snmp.sys-object-id-base; see docs/mibs.md. */
static oid	sys_oid_base[MAX_OID_LEN] = { 1, 3, 6, 1, 4, 1, 8072, 9999, 9999,
    117 };
static size_t	sys_oid_base_len = 10;
static oid	sys_object_id[MAX_OID_LEN];
static size_t	sys_object_id_len;

static void
str(struct gw_val *v, int arg)
{
	static const char *tab[] = { sys_descr, sys_contact, sys_name,
	    sys_location };

	gw_val_octets(v, tab[arg], strlen(tab[arg]));
}

static void
objid(struct gw_val *v, int arg)
{
	gw_val_oid(v, sys_object_id, sys_object_id_len);
}

static void
uptime(struct gw_val *v, int arg)
{
	v->type = ASN_TIMETICKS;
	v->l = netsnmp_get_agent_uptime();
}

static void
integer(struct gw_val *v, int arg)
{
	gw_val_int(v, arg);
}

static void
stat(struct gw_val *v, int arg)
{
	v->type = ASN_COUNTER;
	v->l = snmp_get_statistic(arg) & 0xffffffffUL;
}

/* IBSNMPGW-MIB ibsnmpgwStats (mibs/IBSNMPGW-MIB), under the base. */
enum {
	ST_MAD_SENT = 1, ST_MAD_ANSWERED, ST_MAD_TIMEOUTS, ST_MAD_RETRIES,
	ST_MAD_ERRORS, ST_MAD_INFLIGHT, ST_MAD_QUEUED, ST_CACHE_HITS,
	ST_CACHE_MISSES, ST_CACHE_COALESCED, ST_CACHE_ENTRIES, ST_NODES,
	ST_UNREACHABLE, ST_SWEEPS, ST_SWEEP_MS, ST_NODE_REQUESTS,
	ST_PORT_FAILURES, ST_PORT_STATE
};

static void
gwstat(struct gw_val *v, int arg)
{
	struct proxy_mad_stats m;
	struct cache_stats c;
	struct proxy_sweep_stats s;
	struct gw_snmp_stats g;
	uint64_t x = 0;

	proxy_mad_get_stats(&m);
	cache_get_stats(&c);
	proxy_discover_get_stats(&s);
	gw_snmp_get_stats(&g);
	switch (arg) {
	case ST_MAD_SENT: x = m.sent; break;
	case ST_MAD_ANSWERED: x = m.answered; break;
	case ST_MAD_TIMEOUTS: x = m.timeouts; break;
	case ST_MAD_RETRIES: x = m.retries; break;
	case ST_MAD_ERRORS: x = m.errors; break;
	case ST_CACHE_HITS: x = c.hits; break;
	case ST_CACHE_MISSES: x = c.misses; break;
	case ST_CACHE_COALESCED: x = c.coalesced; break;
	case ST_NODE_REQUESTS: x = g.node_requests; break;
	case ST_SWEEPS:
		gw_val_counter(v, s.sweeps);
		return;
	case ST_PORT_FAILURES:
		gw_val_counter(v, (unsigned long)m.port_failures);
		return;
	case ST_PORT_STATE:
		gw_val_int(v, m.port_down ? 2 : 1);	/* up(1), down(2) */
		return;
	default:
		switch (arg) {
		case ST_MAD_INFLIGHT: x = m.inflight; break;
		case ST_MAD_QUEUED: x = m.queued; break;
		case ST_CACHE_ENTRIES: x = c.entries; break;
		case ST_NODES: x = store_node_count(); break;
		case ST_UNREACHABLE:
			for (size_t i = 0; i < store_node_count(); i++)
				x += !store_node_at(i)->reachable;
			break;
		case ST_SWEEP_MS: x = s.duration_ms; break;
		}
		gw_val_uint(v, x > 0xffffffffULL ? 0xffffffffUL : (unsigned long)x);
		return;
	}
	gw_val_counter64(v, x);
}

#define SYS(n)	{ 1, 3, 6, 1, 2, 1, 1, n, 0 }, 9
#define SNMPG(n) { 1, 3, 6, 1, 2, 1, 11, n, 0 }, 9
#define TGT(n)	{ 1, 3, 6, 1, 6, 3, 12, 1, n, 0 }, 10
#define USM(n)	{ 1, 3, 6, 1, 6, 3, 15, 1, 1, n, 0 }, 11

/* Sorted by OID. */
static const struct sys_obj sys_objs[] = {
	{ SYS(1), str, 0 },
	{ SYS(2), objid, 0 },
	{ SYS(3), uptime, 0 },
	{ SYS(4), str, 1 },
	{ SYS(5), str, 2 },
	{ SYS(6), str, 3 },
	{ SYS(7), integer, 72 },	/* applications + end-to-end */
	{ SNMPG(1), stat, STAT_SNMPINPKTS },
	{ SNMPG(2), stat, STAT_SNMPOUTPKTS },
	{ SNMPG(3), stat, STAT_SNMPINBADVERSIONS },
	{ SNMPG(4), stat, STAT_SNMPINBADCOMMUNITYNAMES },
	{ SNMPG(5), stat, STAT_SNMPINBADCOMMUNITYUSES },
	{ SNMPG(6), stat, STAT_SNMPINASNPARSEERRS },
	{ SNMPG(8), stat, STAT_SNMPINTOOBIGS },
	{ SNMPG(9), stat, STAT_SNMPINNOSUCHNAMES },
	{ SNMPG(10), stat, STAT_SNMPINBADVALUES },
	{ SNMPG(11), stat, STAT_SNMPINREADONLYS },
	{ SNMPG(12), stat, STAT_SNMPINGENERRS },
	{ SNMPG(13), stat, STAT_SNMPINTOTALREQVARS },
	{ SNMPG(14), stat, STAT_SNMPINTOTALSETVARS },
	{ SNMPG(15), stat, STAT_SNMPINGETREQUESTS },
	{ SNMPG(16), stat, STAT_SNMPINGETNEXTS },
	{ SNMPG(17), stat, STAT_SNMPINSETREQUESTS },
	{ SNMPG(18), stat, STAT_SNMPINGETRESPONSES },
	{ SNMPG(19), stat, STAT_SNMPINTRAPS },
	{ SNMPG(20), stat, STAT_SNMPOUTTOOBIGS },
	{ SNMPG(21), stat, STAT_SNMPOUTNOSUCHNAMES },
	{ SNMPG(22), stat, STAT_SNMPOUTBADVALUES },
	{ SNMPG(24), stat, STAT_SNMPOUTGENERRS },
	{ SNMPG(25), stat, STAT_SNMPOUTGETREQUESTS },
	{ SNMPG(26), stat, STAT_SNMPOUTGETNEXTS },
	{ SNMPG(27), stat, STAT_SNMPOUTSETREQUESTS },
	{ SNMPG(28), stat, STAT_SNMPOUTGETRESPONSES },
	{ SNMPG(29), stat, STAT_SNMPOUTTRAPS },
	{ SNMPG(30), integer, 2 },	/* snmpEnableAuthenTraps: disabled */
	{ SNMPG(31), stat, STAT_SNMPSILENTDROPS },
	{ SNMPG(32), stat, STAT_SNMPPROXYDROPS },
	{ TGT(4), stat, STAT_SNMPUNAVAILABLECONTEXTS },
	{ TGT(5), stat, STAT_SNMPUNKNOWNCONTEXTS },
	/* SNMP-USER-BASED-SM-MIB usmStats (RFC 3414): rejected v3 messages. */
	{ USM(1), stat, STAT_USMSTATSUNSUPPORTEDSECLEVELS },
	{ USM(2), stat, STAT_USMSTATSNOTINTIMEWINDOWS },
	{ USM(3), stat, STAT_USMSTATSUNKNOWNUSERNAMES },
	{ USM(4), stat, STAT_USMSTATSUNKNOWNENGINEIDS },
	{ USM(5), stat, STAT_USMSTATSWRONGDIGESTS },
	{ USM(6), stat, STAT_USMSTATSDECRYPTIONERRORS },
};
#define NSYS	(sizeof(sys_objs) / sizeof(sys_objs[0]))
#define NSTATS	18

/* The stats objects' OIDs depend on the configured base: built at
 * start-up, in OID order as sys_handler's GETNEXT loop needs, and
 * registered as a group of their own under the base. */
static struct sys_obj stat_objs[NSTATS];

static void
answer(netsnmp_request_info *r, const struct sys_obj *o)
{
	struct gw_val v;

	memset(&v, 0, sizeof(v));
	o->fn(&v, o->arg);
	gw_val_set(r, &v);
}

struct sys_group {
	const struct sys_obj	*objs;
	size_t			 n;
};

static int
sys_handler(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	const struct sys_group *g = h->myvoid;
	const struct sys_obj *objs = g->objs;
	size_t nobjs = g->n;

	for (netsnmp_request_info *r = requests; r != NULL; r = r->next) {
		const oid *name = r->requestvb->name;
		size_t len = r->requestvb->name_length, i;

		if (r->processed)
			continue;
		switch (reqinfo->mode) {
		case MODE_GET:
			for (i = 0; i < nobjs; i++)
				if (snmp_oid_compare(name, len, objs[i].name,
				    objs[i].len) == 0)
					break;
			if (i == nobjs)
				netsnmp_set_request_error(reqinfo, r,
				    SNMP_NOSUCHOBJECT);
			else
				answer(r, &objs[i]);
			break;
		case MODE_GETNEXT:
			for (i = 0; i < nobjs; i++)
				if (snmp_oid_compare(objs[i].name,
				    objs[i].len, name, len) > 0 &&
				    netsnmp_oid_is_subtree(reg->rootoid,
				    reg->rootoid_len, objs[i].name,
				    objs[i].len) == 0)
					break;
			if (i < nobjs) {
				snmp_set_var_objid(r->requestvb,
				    objs[i].name, objs[i].len);
				answer(r, &objs[i]);
			}
			break;
		default:
			netsnmp_set_request_error(reqinfo, r,
			    SNMP_ERR_NOTWRITABLE);
		}
	}
	return SNMP_ERR_NOERROR;
}

static int
reg_group(const char *name, const oid *root, size_t len,
    const struct sys_group *g)
{
	netsnmp_handler_registration *reg;

	reg = netsnmp_create_handler_registration(name, sys_handler, root, len,
	    HANDLER_CAN_RONLY);
	if (reg != NULL)
		reg->handler->myvoid = (void *)g;
	if (reg == NULL || netsnmp_register_handler(reg) != MIB_REGISTERED_OK) {
		log_warnx("mib: cannot register %s", name);
		return -1;
	}
	return 0;
}

static int
set_base(const struct gw_conf *c)
{
	if (c->sys_object_id_base != NULL) {
		size_t len = MAX_OID_LEN - 2;
		if (read_objid(c->sys_object_id_base, sys_oid_base, &len) == 0) {
			log_warnx("snmp: bad sys-object-id-base '%s'",
			    c->sys_object_id_base);
			return -1;
		}
		sys_oid_base_len = len;
	}
	memcpy(sys_object_id, sys_oid_base, sys_oid_base_len * sizeof(oid));
	sys_object_id[sys_oid_base_len] = 0;
	sys_object_id[sys_oid_base_len + 1] = 1;
	sys_object_id_len = sys_oid_base_len + 2;
	return 0;
}

size_t
gw_mib_sys_base(oid *o, size_t max)
{
	if (sys_oid_base_len > max)
		return 0;
	memcpy(o, sys_oid_base, sys_oid_base_len * sizeof(oid));
	return sys_oid_base_len;
}

int
gw_mib_system_init(const struct gw_conf *c)
{
	static const oid sys[] = { 1, 3, 6, 1, 2, 1, 1 };
	static const oid snmp[] = { 1, 3, 6, 1, 2, 1, 11 };
	static const oid tgt[] = { 1, 3, 6, 1, 6, 3, 12, 1 };
	static const oid usm[] = { 1, 3, 6, 1, 6, 3, 15, 1, 1 };

	if (set_base(c) == -1)
		return -1;
	snprintf(sys_descr, sizeof(sys_descr), "ibsnmpgw %s: SNMP gateway "
	    "to the InfiniBand fabric", PACKAGE_VERSION);
	snprintf(sys_contact, sizeof(sys_contact), "%s",
	    c->sys_contact ? c->sys_contact : "");
	snprintf(sys_location, sizeof(sys_location), "%s",
	    c->sys_location ? c->sys_location : "");
	if (gethostname(sys_name, sizeof(sys_name)) == -1)
		sys_name[0] = '\0';
	sys_name[sizeof(sys_name) - 1] = '\0';
	static struct sys_group fixed = { sys_objs, NSYS };
	static struct sys_group stats = { stat_objs, NSTATS };
	oid stats_root[MAX_OID_LEN];

	if (sys_oid_base_len + 3 > sizeof(stat_objs[0].name) / sizeof(oid)) {
		log_warnx("snmp: sys-object-id-base is too long");
		return -1;
	}
	memcpy(stats_root, sys_oid_base, sys_oid_base_len * sizeof(oid));
	stats_root[sys_oid_base_len] = 2;	/* ibsnmpgwStats */
	for (int i = 0; i < NSTATS; i++) {
		struct sys_obj *o = &stat_objs[i];
		memcpy(o->name, stats_root, (sys_oid_base_len + 1) *
		    sizeof(oid));
		o->name[sys_oid_base_len + 1] = i + 1;
		o->name[sys_oid_base_len + 2] = 0;
		o->len = sys_oid_base_len + 3;
		o->fn = gwstat;
		o->arg = i + 1;
	}
	if (reg_group("system", sys, OID_LENGTH(sys), &fixed) == -1 ||
	    reg_group("snmp", snmp, OID_LENGTH(snmp), &fixed) == -1 ||
	    reg_group("snmpTargetObjects", tgt, OID_LENGTH(tgt), &fixed) ==
	    -1 || reg_group("usmStats", usm, OID_LENGTH(usm), &fixed) == -1 ||
	    reg_group("ibsnmpgwStats", stats_root, sys_oid_base_len + 1,
	    &stats) == -1)
		return -1;
	return 0;
}

/* SNMPv2-MIB system group in every node context (RFC 3418), from the
 * inventory: no MAD is needed to name a node. */

static const char *
type_name(uint8_t t)
{
	switch (t) {
	case STORE_NODE_CA: return "channel adapter";
	case STORE_NODE_SWITCH: return "switch";
	case STORE_NODE_ROUTER: return "router";
	}
	return "node";
}

static int
node_descr(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_node(e);
	char s[256];
	int len;

	len = snprintf(s, sizeof(s), "InfiniBand %s, vendor 0x%06x, device "
	    "0x%04x, revision 0x%08x: %s", type_name(n->type), n->vendor_id,
	    n->device_id, n->revision, n->desc);
	return gw_val_octets(v, s, len < 0 ? 0 : (size_t)len);
}

static int
node_objid(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	oid o[MAX_OID_LEN];

	memcpy(o, sys_oid_base, sys_oid_base_len * sizeof(oid));
	o[sys_oid_base_len] = 1;
	o[sys_oid_base_len + 1] = gw_node(e)->type;
	return gw_val_oid(v, o, sys_oid_base_len + 2);
}

static int
node_uptime(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	v->type = ASN_TIMETICKS;
	v->l = netsnmp_get_agent_uptime();
	return 0;
}

static int
node_contact(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_octets(v, sys_contact, strlen(sys_contact));
}

static int
node_name(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_node *n = gw_node(e);
	const char *s = n->alias ? n->alias : n->desc;

	return gw_val_octets(v, s, strlen(s));
}

static int
node_location(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_octets(v, sys_location, strlen(sys_location));
}

static int
node_services(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	/* RFC 3418 sysServices: a switch forwards at layer 2, a router at
	 * layer 3, a CA is a host (end-to-end and applications). */
	switch (gw_node(e)->type) {
	case STORE_NODE_SWITCH: return gw_val_int(v, 2);
	case STORE_NODE_ROUTER: return gw_val_int(v, 4);
	}
	return gw_val_int(v, 72);
}

static const struct gw_col node_sys_cols[] = {
	{ 1, node_descr, "sysDescr" },
	{ 2, node_objid, "sysObjectID" },
	{ 3, node_uptime, "sysUpTime" },
	{ 4, node_contact, "sysContact" },
	{ 5, node_name, "sysName" },
	{ 6, node_location, "sysLocation" },
	{ 7, node_services, "sysServices" },
};

static const struct gw_table node_sys_table = {
	.name = "system",
	.base = { 1, 3, 6, 1, 2, 1, 1 },
	.base_len = 7,
	.cols = node_sys_cols,
	.ncols = sizeof(node_sys_cols) / sizeof(node_sys_cols[0]),
};

int
gw_mib_node_system_init(const struct gw_conf *c)
{
	return gw_mib_register(&node_sys_table);
}
