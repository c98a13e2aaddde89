/* The gateway's own context (community without "@NODE", or v3 context
 * ""): SNMPv2-MIB system and snmp groups (RFC 3418), and the SNMP-TARGET-
 * MIB context counters (RFC 3413), so operators can see the counters the
 * gateway raises for unknown names. The system group also in every node
 * context, and with the snmp group in the fabric context; SNMP-
 * FRAMEWORK-MIB's snmpEngine group in every context. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/ib_sm_mib.h"
#include "gateway/mib/node.h"
#include "proxy/discover.h"
#include "proxy/mad.h"
#include "store/repl.h"
#include "util/log.h"

static char sys_descr[256], sys_contact[256], sys_name[256], sys_location[256];

/* sysObjectID values: BASE.0.1 (ibsnmpgwGateway) for the gateway,
 * BASE.0.2 (ibsnmpgwFabric) for the fabric context,
 * BASE.1.T (ibsnmpgwNodeTypes) for a node of IB NodeType T (1 CA, 2
 * switch, 3 router). BASE is snmp.sys-object-id-base (gw_mib_sys_base);
 * see docs/mibs.md. */
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
	GW_GETA(sysDescr, sys_str, 0),
	GW_GET(sysObjectID, sys_objid),
	GW_GET(sysUpTime, sys_uptime),
	GW_GETA(sysContact, sys_str, 1),
	GW_GETA(sysName, sys_str, 2),
	GW_GETA(sysLocation, sys_str, 3),
	GW_GETA(sysServices, sys_int, 72),	/* applications, e2e */
};

#define SNMPG(nm, st)	GW_GETA(nm, sys_stat, st)

static const struct gw_col snmp_cols[] = {
	SNMPG(snmpInPkts, STAT_SNMPINPKTS),
	SNMPG(snmpOutPkts, STAT_SNMPOUTPKTS),
	SNMPG(snmpInBadVersions, STAT_SNMPINBADVERSIONS),
	SNMPG(snmpInBadCommunityNames, STAT_SNMPINBADCOMMUNITYNAMES),
	SNMPG(snmpInBadCommunityUses, STAT_SNMPINBADCOMMUNITYUSES),
	SNMPG(snmpInASNParseErrs, STAT_SNMPINASNPARSEERRS),
	SNMPG(snmpInTooBigs, STAT_SNMPINTOOBIGS),
	SNMPG(snmpInNoSuchNames, STAT_SNMPINNOSUCHNAMES),
	SNMPG(snmpInBadValues, STAT_SNMPINBADVALUES),
	SNMPG(snmpInReadOnlys, STAT_SNMPINREADONLYS),
	SNMPG(snmpInGenErrs, STAT_SNMPINGENERRS),
	SNMPG(snmpInTotalReqVars, STAT_SNMPINTOTALREQVARS),
	SNMPG(snmpInTotalSetVars, STAT_SNMPINTOTALSETVARS),
	SNMPG(snmpInGetRequests, STAT_SNMPINGETREQUESTS),
	SNMPG(snmpInGetNexts, STAT_SNMPINGETNEXTS),
	SNMPG(snmpInSetRequests, STAT_SNMPINSETREQUESTS),
	SNMPG(snmpInGetResponses, STAT_SNMPINGETRESPONSES),
	SNMPG(snmpInTraps, STAT_SNMPINTRAPS),
	SNMPG(snmpOutTooBigs, STAT_SNMPOUTTOOBIGS),
	SNMPG(snmpOutNoSuchNames, STAT_SNMPOUTNOSUCHNAMES),
	SNMPG(snmpOutBadValues, STAT_SNMPOUTBADVALUES),
	SNMPG(snmpOutGenErrs, STAT_SNMPOUTGENERRS),
	SNMPG(snmpOutGetRequests, STAT_SNMPOUTGETREQUESTS),
	SNMPG(snmpOutGetNexts, STAT_SNMPOUTGETNEXTS),
	SNMPG(snmpOutSetRequests, STAT_SNMPOUTSETREQUESTS),
	SNMPG(snmpOutGetResponses, STAT_SNMPOUTGETRESPONSES),
	SNMPG(snmpOutTraps, STAT_SNMPOUTTRAPS),
	/* snmpEnableAuthenTraps: disabled(2) */
	GW_GETA(snmpEnableAuthenTraps, sys_int, 2),
	SNMPG(snmpSilentDrops, STAT_SNMPSILENTDROPS),
	SNMPG(snmpProxyDrops, STAT_SNMPPROXYDROPS),
};

/* SNMP-FRAMEWORK-MIB snmpEngine (RFC 3411 5): net-snmp's own values,
 * the ones USM checks and sends (gateway/snmp_engine.c keeps the ID
 * and boots). An agent is one engine whatever the context, so every
 * context serves the same: an NMS that adds a node as a device reads
 * the engine it talks to. */
static int
engine_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	u_char eid[SNMP_MAXBUF_SMALL];

	switch (gw_column(e)->arg) {
	case 1:
		return gw_val_octets(v, eid, snmpv3_get_engineID(eid,
		    sizeof(eid)));
	case 2:
		return gw_val_int(v, (long)snmpv3_local_snmpEngineBoots());
	case 3:	/* 0..2147483647 */
		return gw_val_int(v, (long)(snmpv3_local_snmpEngineTime() &
		    0x7fffffffUL));
	}
	return gw_val_int(v, gw_snmp_max_msg_size());
}

static const struct gw_col engine_cols[] = {
	GW_GETA(snmpEngineID, engine_get, 1),
	GW_GETA(snmpEngineBoots, engine_get, 2),
	GW_GETA(snmpEngineTime, engine_get, 3),
	GW_GETA(snmpEngineMaxMessageSize, engine_get, 4),
};

/* SNMP-TARGET-MIB (RFC 3413): contexts the gateway could not name. */
static const struct gw_col target_cols[] = {
	SNMPG(snmpUnavailableContexts, STAT_SNMPUNAVAILABLECONTEXTS),
	SNMPG(snmpUnknownContexts, STAT_SNMPUNKNOWNCONTEXTS),
};

/* SNMP-USER-BASED-SM-MIB usmStats (RFC 3414): rejected v3 messages. */
static const struct gw_col usm_cols[] = {
	SNMPG(usmStatsUnsupportedSecLevels,
	    STAT_USMSTATSUNSUPPORTEDSECLEVELS),
	SNMPG(usmStatsNotInTimeWindows, STAT_USMSTATSNOTINTIMEWINDOWS),
	SNMPG(usmStatsUnknownUserNames, STAT_USMSTATSUNKNOWNUSERNAMES),
	SNMPG(usmStatsUnknownEngineIDs, STAT_USMSTATSUNKNOWNENGINEIDS),
	SNMPG(usmStatsWrongDigests, STAT_USMSTATSWRONGDIGESTS),
	SNMPG(usmStatsDecryptionErrors, STAT_USMSTATSDECRYPTIONERRORS),
};

#define GWST(nm, st)	GW_GETA(nm, gw_stat, st)

static const struct gw_col stats_cols[] = {
	GWST(ibsnmpgwMadSent, ST_MAD_SENT),
	GWST(ibsnmpgwMadAnswered, ST_MAD_ANSWERED),
	GWST(ibsnmpgwMadTimeouts, ST_MAD_TIMEOUTS),
	GWST(ibsnmpgwMadRetries, ST_MAD_RETRIES),
	GWST(ibsnmpgwMadErrors, ST_MAD_ERRORS),
	GWST(ibsnmpgwMadInFlight, ST_MAD_INFLIGHT),
	GWST(ibsnmpgwMadQueued, ST_MAD_QUEUED),
	GWST(ibsnmpgwCacheHits, ST_CACHE_HITS),
	GWST(ibsnmpgwCacheMisses, ST_CACHE_MISSES),
	GWST(ibsnmpgwCacheCoalesced, ST_CACHE_COALESCED),
	GWST(ibsnmpgwCacheEntries, ST_CACHE_ENTRIES),
	GWST(ibsnmpgwFabricNodes, ST_NODES),
	GWST(ibsnmpgwFabricUnreachable, ST_UNREACHABLE),
	GWST(ibsnmpgwSweeps, ST_SWEEPS),
	GWST(ibsnmpgwLastSweepDuration, ST_SWEEP_MS),
	GWST(ibsnmpgwNodeRequests, ST_NODE_REQUESTS),
	GWST(ibsnmpgwMadPortFailures, ST_PORT_FAILURES),
	GWST(ibsnmpgwMadPortState, ST_PORT_STATE),
};

/* IBSNMPGW-MIB ibsnmpgwHa (docs/ha.md), from store/repl.h. */
static int
ha_get(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct repl_status *st = store_repl_status();
	const char *s = "";

	switch (gw_column(e)->arg) {
	case 1:
		return gw_val_int(v, (long)st->role + 1);
	case 2:
		return gw_val_int(v, st->protected ? 1 : 2);
	case 3: s = st->protected ? "" : st->reason; break;
	case 4: s = st->peer; break;
	case 5:
		return gw_val_uint(v, st->lag > 0xffffffffULL ? 0xffffffffUL :
		    (unsigned long)st->lag);
	case 6: s = st->name; break;
	case 7: s = st->previous; break;
	}
	return gw_val_octets(v, s, strlen(s));
}

static const struct gw_col ha_cols[] = {
	GW_GETA(ibsnmpgwHaRole, ha_get, 1),
	GW_GETA(ibsnmpgwHaProtected, ha_get, 2),
	GW_GETA(ibsnmpgwHaReason, ha_get, 3),
	GW_GETA(ibsnmpgwHaPeer, ha_get, 4),
	GW_GETA(ibsnmpgwHaLag, ha_get, 5),
	GW_GETA(ibsnmpgwHaName, ha_get, 6),
	GW_GETA(ibsnmpgwHaPreviousActive, ha_get, 7),
};

static const struct gw_table gw_tables[] = {
	{ .name = "system", .GW_OID(GW_OID_system), .GW_COLS(sys_cols),
	  .context = "" },
	{ .name = "snmp", .GW_OID(GW_OID_snmp), .GW_COLS(snmp_cols),
	  .context = "" },
	{ .name = "snmpTargetObjects", .GW_OID(GW_OID_snmpTargetObjects),
	  .GW_COLS(target_cols), .context = "" },
	{ .name = "usmStats", .GW_OID(GW_OID_usmStats),
	  .GW_COLS(usm_cols), .context = "" },
	/* ibsnmpgwStats(2) under the base */
	{ .name = "ibsnmpgwStats", .GW_OID(GW_OID_ibsnmpgwStats), .under_sys_base = 1,
	  .GW_COLS(stats_cols), .context = "" },
	{ .name = "ibsnmpgwHa", .GW_OID(GW_OID_ibsnmpgwHa), .under_sys_base = 1,
	  .GW_COLS(ha_cols), .context = "" },
	{ .name = "snmpEngine", .GW_OID(GW_OID_snmpEngine),
	  .GW_COLS(engine_cols), .context = "" },
	{ .name = "snmpEngine", .GW_OID(GW_OID_snmpEngine),
	  .GW_COLS(engine_cols), .context = GW_FABRIC_CONTEXT },
	{ .name = "snmpEngine", .GW_OID(GW_OID_snmpEngine),
	  .GW_COLS(engine_cols), .not_tunneled = 1 },
};

static int
snmpv2_init(const struct gw_conf *c)
{
	oid gw[] = { GW_OID_ibsnmpgwProducts, GW_ARC_ibsnmpgwGateway };

	sys_object_id_len = gw_mib_sys_base(sys_object_id,
	    MAX_OID_LEN - OID_LENGTH(gw));
	memcpy(sys_object_id + sys_object_id_len, gw, sizeof(gw));
	sys_object_id_len += OID_LENGTH(gw);
	snprintf(sys_descr, sizeof(sys_descr), "ibsnmpgw %s: SNMP gateway "
	    "to the InfiniBand fabric", PACKAGE_VERSION);
	snprintf(sys_contact, sizeof(sys_contact), "%s",
	    c->sys_contact ? c->sys_contact : "");
	snprintf(sys_location, sizeof(sys_location), "%s",
	    c->sys_location ? c->sys_location : "");
	if (gethostname(sys_name, sizeof(sys_name)) == -1)
		sys_name[0] = '\0';
	sys_name[sizeof(sys_name) - 1] = '\0';
	return 0;
}

/* SNMPv2-MIB system group in every node context (RFC 3418), from the
 * inventory: no MAD is needed to name a node. */

static int
node_descr(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	char s[256];

	return gw_val_octets(v, s, gw_node_sysdescr(gw_node(e), s, sizeof(s)));
}

static int
node_objid(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	oid o[MAX_OID_LEN];

	return gw_val_oid(v, o, gw_node_objid(gw_node(e), o, MAX_OID_LEN));
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
	GW_GET(sysDescr, node_descr),
	GW_GET(sysObjectID, node_objid),
	GW_GET(sysUpTime, node_uptime),
	GW_GET(sysContact, node_contact),
	GW_GET(sysName, node_name),
	GW_GET(sysLocation, node_location),
	GW_GET(sysServices, node_services),
};

static const struct gw_table node_sys_table = {
	.name = "system",
	.GW_OID(GW_OID_system),
	.GW_COLS(node_sys_cols),
};

/* SNMPv2-MIB system and snmp groups in the fabric context: the subnet
 * as one device, so an NMS that reads sysDescr, sysObjectID or
 * sysUpTime before anything else (RFC 3418 clause 2) can add it. From
 * the inventory and the last sweep's SMInfo: no MAD. */

static char fabric_name[256];	/* snmp.fabric-name; "": from the prefix */

#define SM_STATE_MASTER	3	/* IBA 14.2.5.13 SMInfo:SMState */

/* The master SM of the last sweep, if the requester may see its node. */
static const struct store_sm *
fabric_master(struct gw_eval *e, uint16_t *lid)
{
	for (size_t i = 0; i < store_sm_count(); i++) {
		const struct store_sm *sm = store_sm_at(i);
		const struct store_node *n = store_node_by_guid(sm->node_guid);

		if (n == NULL || !gw_visible(e, n) || mad_get_field(
		    (void *)sm->sminfo, 0, IB_SMINFO_STATE_F) !=
		    SM_STATE_MASTER)
			continue;
		*lid = sm->port <= n->num_ports ? n->ports[sm->port].lid :
		    n->lid;
		return sm;
	}
	return NULL;
}

static int
fabric_descr(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_sm *sm;
	unsigned nodes = 0, switches = 0;
	uint16_t lid = 0;
	char s[256], m[64] = "no master SM seen";
	int len;

	/* The subnet as the last sweep reached it, as far as the
	 * requester's node selector lets it see. */
	for (size_t i = 0; i < store_node_count(); i++) {
		const struct store_node *n = store_node_at((uint32_t)i);

		if (n == NULL || !n->reachable || !gw_visible(e, n))
			continue;
		nodes++;
		switches += n->type == STORE_NODE_SWITCH;
	}
	if ((sm = fabric_master(e, &lid)) != NULL)
		snprintf(m, sizeof(m), "master SM 0x%016llx LID %u",
		    (unsigned long long)sm->port_guid, lid);
	len = snprintf(s, sizeof(s), "InfiniBand subnet 0x%016llx: %u nodes, "
	    "%u switches, %s (ibsnmpgw %s)", (unsigned long long)gw_sm_prefix(),
	    nodes, switches, m, PACKAGE_VERSION);
	return gw_val_octets(v, s, len < 0 ? 0 : (size_t)len);
}

static int
fabric_objid(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	oid o[MAX_OID_LEN];
	size_t n = gw_mib_sys_base(o, MAX_OID_LEN - 2);

	o[n++] = GW_OID_ibsnmpgwProducts;
	o[n++] = GW_ARC_ibsnmpgwFabric;
	return gw_val_oid(v, o, n);
}

static int
fabric_sysname(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	char s[32];
	int len;

	if (fabric_name[0] != '\0')
		return gw_val_octets(v, fabric_name, strlen(fabric_name));
	len = snprintf(s, sizeof(s), "ib-%016llx",
	    (unsigned long long)gw_sm_prefix());
	return gw_val_octets(v, s, len < 0 ? 0 : (size_t)len);
}

static const struct gw_col fabric_sys_cols[] = {
	GW_GET(sysDescr, fabric_descr),
	GW_GET(sysObjectID, fabric_objid),
	GW_GET(sysUpTime, sys_uptime),
	GW_GETA(sysContact, sys_str, 1),
	GW_GET(sysName, fabric_sysname),
	GW_GETA(sysLocation, sys_str, 3),
	GW_GETA(sysServices, sys_int, 2),	/* a layer 2 subnet */
};

static const struct gw_table fabric_tables[] = {
	{ .name = "system", .GW_OID(GW_OID_system),
	  .GW_COLS(fabric_sys_cols), .context = GW_FABRIC_CONTEXT },
	/* The agent's counters: one agent answers every context. */
	{ .name = "snmp", .GW_OID(GW_OID_snmp), .GW_COLS(snmp_cols),
	  .context = GW_FABRIC_CONTEXT },
};

static void
snmpv2_configure(const struct gw_conf *c)
{
	/* With several subnets (ib.ports) each fabric context's sysName
	 * names its subnet: the default prefix fe80::/64 is every SM's. */
	const char *sub = c->subnet_child ? c->subnet_child->name :
	    c->nsubnets > 1 ? c->subnets[0].name : NULL;

	if (sub != NULL)
		snprintf(fabric_name, sizeof(fabric_name), "%s-%s",
		    c->fabric_name ? c->fabric_name : "ib", sub);
	else
		snprintf(fabric_name, sizeof(fabric_name), "%s",
		    c->fabric_name ? c->fabric_name : "");
}

/* Every entry of gw_tables is listed below: a table added there and
 * not here is never registered (ibsnmpgwHa once pushed the node
 * contexts' snmpEngine out of the list this way). */
_Static_assert(sizeof(gw_tables) / sizeof(gw_tables[0]) == 9,
    "list every gw_tables entry in tables[] and update this count");
_Static_assert(sizeof(fabric_tables) / sizeof(fabric_tables[0]) == 2,
    "list every fabric_tables entry in tables[] and update this count");

static const struct gw_table *const tables[] = {
	&gw_tables[0], &gw_tables[1], &gw_tables[2], &gw_tables[3],
	&gw_tables[4], &node_sys_table, &fabric_tables[0], &fabric_tables[1],
	&gw_tables[5], &gw_tables[6], &gw_tables[7], &gw_tables[8], NULL
};

const struct gw_mib_module gw_mod_snmpv2_mib = {
	.name = "SNMPv2-MIB",
	.tables = tables,
	.init = snmpv2_init,
	.configure = snmpv2_configure,
};
