/* The gateway's own context (community without "@NODE", or v3 context
 * ""): SNMPv2-MIB system and snmp groups (RFC 3418), and the SNMP-TARGET-
 * MIB context counters (RFC 3413), so operators can see the counters the
 * gateway raises for unknown names. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "gateway/mib.h"
#include "util/log.h"

typedef void (*sys_fn)(struct gw_val *v, int arg);

struct sys_obj {
	oid	 name[16];
	size_t	 len;
	sys_fn	 fn;
	int	 arg;
};

static char sys_descr[256], sys_contact[256], sys_name[256], sys_location[256];

/* net-snmp's Linux agent OID (NET-SNMP-TC netSnmpAgentOIDs.linux);
 * see docs/errors.md for why the gateway has no enterprise OID yet. */
static const oid sys_object_id[] = { 1, 3, 6, 1, 4, 1, 8072, 3, 2, 10 };

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
	v->type = ASN_OBJECT_ID;
	memcpy(v->buf, sys_object_id, sizeof(sys_object_id));
	v->len = sizeof(sys_object_id);
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

#define SYS(n)	{ 1, 3, 6, 1, 2, 1, 1, n, 0 }, 9
#define SNMPG(n) { 1, 3, 6, 1, 2, 1, 11, n, 0 }, 9
#define TGT(n)	{ 1, 3, 6, 1, 6, 3, 12, 1, n, 0 }, 10

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
};
#define NSYS	(sizeof(sys_objs) / sizeof(sys_objs[0]))

static void
answer(netsnmp_request_info *r, const struct sys_obj *o)
{
	struct gw_val v;

	memset(&v, 0, sizeof(v));
	o->fn(&v, o->arg);
	if (v.type == ASN_OCTET_STR || v.type == ASN_OBJECT_ID)
		snmp_set_var_typed_value(r->requestvb, v.type, v.buf, v.len);
	else
		snmp_set_var_typed_value(r->requestvb, v.type, &v.l,
		    sizeof(v.l));
}

static int
sys_handler(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	for (netsnmp_request_info *r = requests; r != NULL; r = r->next) {
		const oid *name = r->requestvb->name;
		size_t len = r->requestvb->name_length, i;

		if (r->processed)
			continue;
		switch (reqinfo->mode) {
		case MODE_GET:
			for (i = 0; i < NSYS; i++)
				if (snmp_oid_compare(name, len, sys_objs[i].name,
				    sys_objs[i].len) == 0)
					break;
			if (i == NSYS)
				netsnmp_set_request_error(reqinfo, r,
				    SNMP_NOSUCHOBJECT);
			else
				answer(r, &sys_objs[i]);
			break;
		case MODE_GETNEXT:
			for (i = 0; i < NSYS; i++)
				if (snmp_oid_compare(sys_objs[i].name,
				    sys_objs[i].len, name, len) > 0 &&
				    netsnmp_oid_is_subtree(reg->rootoid,
				    reg->rootoid_len, sys_objs[i].name,
				    sys_objs[i].len) == 0)
					break;
			if (i < NSYS) {
				snmp_set_var_objid(r->requestvb,
				    sys_objs[i].name, sys_objs[i].len);
				answer(r, &sys_objs[i]);
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
reg_group(const char *name, const oid *root, size_t len)
{
	netsnmp_handler_registration *reg;

	reg = netsnmp_create_handler_registration(name, sys_handler, root, len,
	    HANDLER_CAN_RONLY);
	if (reg == NULL || netsnmp_register_handler(reg) != MIB_REGISTERED_OK) {
		log_warnx("mib: cannot register %s", name);
		return -1;
	}
	return 0;
}

int
gw_mib_system_init(const struct gw_conf *c)
{
	static const oid sys[] = { 1, 3, 6, 1, 2, 1, 1 };
	static const oid snmp[] = { 1, 3, 6, 1, 2, 1, 11 };
	static const oid tgt[] = { 1, 3, 6, 1, 6, 3, 12, 1 };

	snprintf(sys_descr, sizeof(sys_descr), "ibsnmpgw %s: SNMP gateway "
	    "to the InfiniBand fabric", PACKAGE_VERSION);
	snprintf(sys_contact, sizeof(sys_contact), "%s",
	    c->sys_contact ? c->sys_contact : "");
	snprintf(sys_location, sizeof(sys_location), "%s",
	    c->sys_location ? c->sys_location : "");
	if (gethostname(sys_name, sizeof(sys_name)) == -1)
		sys_name[0] = '\0';
	sys_name[sizeof(sys_name) - 1] = '\0';
	if (reg_group("system", sys, OID_LENGTH(sys)) == -1 ||
	    reg_group("snmp", snmp, OID_LENGTH(snmp)) == -1 ||
	    reg_group("snmpTargetObjects", tgt, OID_LENGTH(tgt)) == -1)
		return -1;
	return 0;
}
