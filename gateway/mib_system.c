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

/* Getters of the gateway's own context; the column's arg says which
 * string, number or statistic. */

static int
sys_str(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	static const char *tab[] = { sys_descr, sys_contact, sys_name,
	    sys_location };
	const char *s = tab[gw_column(e)->arg];

	return gw_val_octets(v, s, strlen(s));
}

static int
sys_objid(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_oid(v, sys_object_id, sys_object_id_len);
}

static int
sys_uptime(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	v->type = ASN_TIMETICKS;
	v->l = netsnmp_get_agent_uptime();
	return 0;
}

static int
sys_int(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_int(v, gw_column(e)->arg);
}

/* net-snmp's own counters (snmp_get_statistic). */
static int
sys_stat(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	return gw_val_counter(v, snmp_get_statistic((int)gw_column(e)->arg) &
	    0xffffffffUL);
}

/* IBSNMPGW-MIB ibsnmpgwStats (mibs/IBSNMPGW-MIB), under the base. */
enum {
	ST_MAD_SENT = 1, ST_MAD_ANSWERED, ST_MAD_TIMEOUTS, ST_MAD_RETRIES,
	ST_MAD_ERRORS, ST_MAD_INFLIGHT, ST_MAD_QUEUED, ST_CACHE_HITS,
	ST_CACHE_MISSES, ST_CACHE_COALESCED, ST_CACHE_ENTRIES, ST_NODES,
	ST_UNREACHABLE, ST_SWEEPS, ST_SWEEP_MS, ST_NODE_REQUESTS,
	ST_PORT_FAILURES, ST_PORT_STATE
};

static int
gw_stat(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
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
	switch (gw_column(e)->arg) {
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
		return gw_val_counter(v, s.sweeps);
	case ST_PORT_FAILURES:
		return gw_val_counter(v, (unsigned long)m.port_failures);
	case ST_PORT_STATE:
		return gw_val_int(v, m.port_down ? 2 : 1);	/* up(1), down(2) */
	default:
		switch (gw_column(e)->arg) {
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
		return gw_val_uint(v, x > 0xffffffffULL ? 0xffffffffUL :
		    (unsigned long)x);
	}
	return gw_val_counter64(v, x);
}

static const struct gw_col sys_cols[] = {
	GW_GETA(1, "sysDescr", sys_str, 0),
	GW_GET(2, "sysObjectID", sys_objid),
	GW_GET(3, "sysUpTime", sys_uptime),
	GW_GETA(4, "sysContact", sys_str, 1),
	GW_GETA(5, "sysName", sys_str, 2),
	GW_GETA(6, "sysLocation", sys_str, 3),
	GW_GETA(7, "sysServices", sys_int, 72),	/* applications, e2e */
};

#define SNMPG(n, nm, st)	GW_GETA(n, nm, sys_stat, st)

static const struct gw_col snmp_cols[] = {
	SNMPG(1, "snmpInPkts", STAT_SNMPINPKTS),
	SNMPG(2, "snmpOutPkts", STAT_SNMPOUTPKTS),
	SNMPG(3, "snmpInBadVersions", STAT_SNMPINBADVERSIONS),
	SNMPG(4, "snmpInBadCommunityNames", STAT_SNMPINBADCOMMUNITYNAMES),
	SNMPG(5, "snmpInBadCommunityUses", STAT_SNMPINBADCOMMUNITYUSES),
	SNMPG(6, "snmpInASNParseErrs", STAT_SNMPINASNPARSEERRS),
	SNMPG(8, "snmpInTooBigs", STAT_SNMPINTOOBIGS),
	SNMPG(9, "snmpInNoSuchNames", STAT_SNMPINNOSUCHNAMES),
	SNMPG(10, "snmpInBadValues", STAT_SNMPINBADVALUES),
	SNMPG(11, "snmpInReadOnlys", STAT_SNMPINREADONLYS),
	SNMPG(12, "snmpInGenErrs", STAT_SNMPINGENERRS),
	SNMPG(13, "snmpInTotalReqVars", STAT_SNMPINTOTALREQVARS),
	SNMPG(14, "snmpInTotalSetVars", STAT_SNMPINTOTALSETVARS),
	SNMPG(15, "snmpInGetRequests", STAT_SNMPINGETREQUESTS),
	SNMPG(16, "snmpInGetNexts", STAT_SNMPINGETNEXTS),
	SNMPG(17, "snmpInSetRequests", STAT_SNMPINSETREQUESTS),
	SNMPG(18, "snmpInGetResponses", STAT_SNMPINGETRESPONSES),
	SNMPG(19, "snmpInTraps", STAT_SNMPINTRAPS),
	SNMPG(20, "snmpOutTooBigs", STAT_SNMPOUTTOOBIGS),
	SNMPG(21, "snmpOutNoSuchNames", STAT_SNMPOUTNOSUCHNAMES),
	SNMPG(22, "snmpOutBadValues", STAT_SNMPOUTBADVALUES),
	SNMPG(24, "snmpOutGenErrs", STAT_SNMPOUTGENERRS),
	SNMPG(25, "snmpOutGetRequests", STAT_SNMPOUTGETREQUESTS),
	SNMPG(26, "snmpOutGetNexts", STAT_SNMPOUTGETNEXTS),
	SNMPG(27, "snmpOutSetRequests", STAT_SNMPOUTSETREQUESTS),
	SNMPG(28, "snmpOutGetResponses", STAT_SNMPOUTGETRESPONSES),
	SNMPG(29, "snmpOutTraps", STAT_SNMPOUTTRAPS),
	/* snmpEnableAuthenTraps: disabled(2) */
	GW_GETA(30, "snmpEnableAuthenTraps", sys_int, 2),
	SNMPG(31, "snmpSilentDrops", STAT_SNMPSILENTDROPS),
	SNMPG(32, "snmpProxyDrops", STAT_SNMPPROXYDROPS),
};

/* SNMP-TARGET-MIB (RFC 3413): contexts the gateway could not name. */
static const struct gw_col target_cols[] = {
	SNMPG(4, "snmpUnavailableContexts", STAT_SNMPUNAVAILABLECONTEXTS),
	SNMPG(5, "snmpUnknownContexts", STAT_SNMPUNKNOWNCONTEXTS),
};

/* SNMP-USER-BASED-SM-MIB usmStats (RFC 3414): rejected v3 messages. */
static const struct gw_col usm_cols[] = {
	SNMPG(1, "usmStatsUnsupportedSecLevels",
	    STAT_USMSTATSUNSUPPORTEDSECLEVELS),
	SNMPG(2, "usmStatsNotInTimeWindows", STAT_USMSTATSNOTINTIMEWINDOWS),
	SNMPG(3, "usmStatsUnknownUserNames", STAT_USMSTATSUNKNOWNUSERNAMES),
	SNMPG(4, "usmStatsUnknownEngineIDs", STAT_USMSTATSUNKNOWNENGINEIDS),
	SNMPG(5, "usmStatsWrongDigests", STAT_USMSTATSWRONGDIGESTS),
	SNMPG(6, "usmStatsDecryptionErrors", STAT_USMSTATSDECRYPTIONERRORS),
};

#define GWST(n, nm)	GW_GETA(n, nm, gw_stat, n)

static const struct gw_col stats_cols[] = {
	GWST(ST_MAD_SENT, "ibsnmpgwMadSent"),
	GWST(ST_MAD_ANSWERED, "ibsnmpgwMadAnswered"),
	GWST(ST_MAD_TIMEOUTS, "ibsnmpgwMadTimeouts"),
	GWST(ST_MAD_RETRIES, "ibsnmpgwMadRetries"),
	GWST(ST_MAD_ERRORS, "ibsnmpgwMadErrors"),
	GWST(ST_MAD_INFLIGHT, "ibsnmpgwMadInFlight"),
	GWST(ST_MAD_QUEUED, "ibsnmpgwMadQueued"),
	GWST(ST_CACHE_HITS, "ibsnmpgwCacheHits"),
	GWST(ST_CACHE_MISSES, "ibsnmpgwCacheMisses"),
	GWST(ST_CACHE_COALESCED, "ibsnmpgwCacheCoalesced"),
	GWST(ST_CACHE_ENTRIES, "ibsnmpgwCacheEntries"),
	GWST(ST_NODES, "ibsnmpgwFabricNodes"),
	GWST(ST_UNREACHABLE, "ibsnmpgwFabricUnreachable"),
	GWST(ST_SWEEPS, "ibsnmpgwSweeps"),
	GWST(ST_SWEEP_MS, "ibsnmpgwLastSweepDuration"),
	GWST(ST_NODE_REQUESTS, "ibsnmpgwNodeRequests"),
	GWST(ST_PORT_FAILURES, "ibsnmpgwMadPortFailures"),
	GWST(ST_PORT_STATE, "ibsnmpgwMadPortState"),
};

static const struct gw_table gw_tables[] = {
	{ .name = "system", .GW_OID(1, 3, 6, 1, 2, 1, 1), .GW_COLS(sys_cols),
	  .context = "" },
	{ .name = "snmp", .GW_OID(1, 3, 6, 1, 2, 1, 11), .GW_COLS(snmp_cols),
	  .context = "" },
	{ .name = "snmpTargetObjects", .GW_OID(1, 3, 6, 1, 6, 3, 12, 1),
	  .GW_COLS(target_cols), .context = "" },
	{ .name = "usmStats", .GW_OID(1, 3, 6, 1, 6, 3, 15, 1, 1),
	  .GW_COLS(usm_cols), .context = "" },
	/* ibsnmpgwStats(2) under the base */
	{ .name = "ibsnmpgwStats", .GW_OID(2), .under_sys_base = 1,
	  .GW_COLS(stats_cols), .context = "" },
};

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
	if (sys_oid_base_len + 8 > MAX_OID_LEN) {
		log_warnx("snmp: sys-object-id-base is too long");
		return -1;
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
	for (size_t i = 0; i < sizeof(gw_tables) / sizeof(gw_tables[0]); i++)
		if (gw_mib_register(&gw_tables[i]) == -1)
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
	GW_GET(1, "sysDescr", node_descr),
	GW_GET(2, "sysObjectID", node_objid),
	GW_GET(3, "sysUpTime", node_uptime),
	GW_GET(4, "sysContact", node_contact),
	GW_GET(5, "sysName", node_name),
	GW_GET(6, "sysLocation", node_location),
	GW_GET(7, "sysServices", node_services),
};

static const struct gw_table node_sys_table = {
	.name = "system",
	.GW_OID(1, 3, 6, 1, 2, 1, 1),
	.GW_COLS(node_sys_cols),
};

int
gw_mib_node_system_init(const struct gw_conf *c)
{
	return gw_mib_register(&node_sys_table);
}
