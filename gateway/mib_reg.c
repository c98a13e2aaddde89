/* gw_mib: the MIB modules' life. Start each module of
 * gateway/mib/modules.h (made from MIB_MODULES in Makefile.am) in
 * order: init, then its tables, checked and registered. Apply the
 * configuration to all of them at start and on reload, and stop them
 * in reverse order. Also the IBSNMPGW-MIB base that the tables under it
 * are registered below. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/attr.h"
#include "gateway/mib.h"
#include "gateway/mib_int.h"
#include "gateway/oids.h"
#include "util/log.h"

#define GW_MODULE(x)	extern const struct gw_mib_module gw_mod_##x;
#include "gateway/mib/modules.h"
#undef GW_MODULE

static const struct gw_mib_module *const modules[] = {
#define GW_MODULE(x)	&gw_mod_##x,
#include "gateway/mib/modules.h"
#undef GW_MODULE
};
#define NMODULES	(sizeof(modules) / sizeof(modules[0]))

static size_t		 mods_started;	/* modules[0..n-1] ran init */
static const struct gw_table *mib_tabs[128];	/* registered, rebased */
static int		 mib_ntabs;
static struct gw_table	*mib_copies[64];	/* rebase() */
static int		 mib_ncopies;

/* IBSNMPGW-MIB's base: the MIB's own value (a playpen arc) unless
 * snmp.sys-object-id-base sets another; see docs/mibs.md. */
static oid	 sys_base[MAX_OID_LEN] = { GW_OID_ibsnmpgwMIB_DEFAULT };
static size_t	 sys_base_len =
    sizeof((oid[]){ GW_OID_ibsnmpgwMIB_DEFAULT }) / sizeof(oid);

const struct gw_mib_module *const *
gw_mib_modules(size_t *n)
{
	*n = NMODULES;
	return modules;
}

static int
set_base(const struct gw_conf *c)
{
	if (c->sys_object_id_base != NULL) {
		size_t len = MAX_OID_LEN - 2;

		if (read_objid(c->sys_object_id_base, sys_base, &len) == 0) {
			log_warnx("snmp: bad sys-object-id-base '%s'",
			    c->sys_object_id_base);
			return -1;
		}
		sys_base_len = len;
	}
	/* Room for the deepest object below it (a column's instance). */
	if (sys_base_len + 8 > MAX_OID_LEN) {
		log_warnx("snmp: sys-object-id-base is too long");
		return -1;
	}
	return 0;
}

size_t
gw_mib_sys_base(oid *o, size_t max)
{
	if (sys_base_len > max)
		return 0;
	memcpy(o, sys_base, sys_base_len * sizeof(oid));
	return sys_base_len;
}

int
gw_mib_table_check(const struct gw_table *t, char *why, size_t len)
{
	const char *w = NULL;

	if (t->name == NULL || t->base_len == 0 || t->base_len + 2 >
	    MAX_OID_LEN)
		w = "no name or a bad base OID";
	else if (t->agent)
		w = t->ncols != 0 || t->context != NULL ? "an agent's "
		    "range with columns or outside the node context" : NULL;
	else if (t->cols == NULL || t->ncols == 0)
		w = "no columns";
	else if (t->nindex < 0 || t->nindex > GW_MAX_INDEX)
		w = "an index longer than GW_MAX_INDEX";
	else if (t->nindex > 0 && t->row_next == NULL)
		w = "an index but no row enumerator";
	for (size_t i = 0; w == NULL && i < t->ncols; i++) {
		const struct gw_col *c = &t->cols[i];

		if (c->subid == 0 || (i > 0 && c->subid <= t->cols[i - 1].subid))
			w = "columns not in ascending order";
		else if (c->get == NULL && (c->attr < 0 || c->attr >= ATTR_MAX))
			w = "a field column without an attribute";
	}
	if (w != NULL)
		snprintf(why, len, "%s", w);
	return w == NULL ? 0 : -1;
}

static int
same_context(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* What column i of t serves: the subtree base.subid of a table's
 * column, the single instance base.subid.0 of a scalar. */
static size_t
col_oid(const struct gw_table *t, size_t i, oid *o)
{
	size_t n = t->base_len;

	memcpy(o, t->base, n * sizeof(oid));
	o[n++] = t->cols[i].subid;
	if (t->nindex == 0)
		o[n++] = 0;
	return n;
}

/* Whether o[0..n) starts with the whole of p[0..pn). */
static int
oid_under(const oid *o, size_t n, const oid *p, size_t pn)
{
	return n >= pn && memcmp(o, p, pn * sizeof(oid)) == 0;
}

/* Whether a column of t serves OIDs under u's registration, which is
 * deeper than t's: net-snmp hands a request to the longest registered
 * prefix, so u would get t's requests. */
static int
steals(const struct gw_table *t, const struct gw_table *u)
{
	oid x[MAX_OID_LEN + 2];

	if (u->base_len <= t->base_len)
		return 0;
	for (size_t i = 0; i < t->ncols; i++) {
		size_t xl = col_oid(t, i, x);

		if (oid_under(x, xl, u->base, u->base_len))
			return 1;
	}
	return 0;
}

int
gw_mib_tables_overlap(const struct gw_table *a, const struct gw_table *b)
{
	oid x[MAX_OID_LEN + 2], y[MAX_OID_LEN + 2];

	/* The agent's range lies under the tables by design: the registry
	 * gives it what they leave. */
	if (!same_context(a->context, b->context) || a->agent || b->agent)
		return 0;
	/* A scalar group may hold a table (interfaces: ifNumber.0 and
	 * ifTable), so compare what each column serves, not the bases. */
	for (size_t i = 0; i < a->ncols; i++) {
		size_t xl = col_oid(a, i, x);

		for (size_t j = 0; j < b->ncols; j++) {
			size_t yl = col_oid(b, j, y);
			size_t n = xl < yl ? xl : yl;

			if (memcmp(x, y, n * sizeof(oid)) == 0)
				return 1;
		}
	}
	return steals(a, b) || steals(b, a);
}

/* A table under the IBSNMPGW-MIB base: a copy with the base in front,
 * kept until shutdown. */
static const struct gw_table *
rebase(const struct gw_table *t)
{
	struct gw_table *c;
	oid base[MAX_OID_LEN];
	size_t n = gw_mib_sys_base(base, MAX_OID_LEN - t->base_len);

	if (n == 0 || mib_ncopies == (int)(sizeof(mib_copies) /
	    sizeof(mib_copies[0])) || (c = malloc(sizeof(*c))) == NULL)
		return NULL;
	*c = *t;
	memcpy(c->base, base, n * sizeof(oid));
	memcpy(c->base + n, t->base, t->base_len * sizeof(oid));
	c->base_len = n + t->base_len;
	mib_copies[mib_ncopies++] = c;
	return c;
}

/* Checked against the evaluator's assumptions and every table already
 * registered; a bad table stops the start, naming itself. */
static int
mib_register(const struct gw_table *t)
{
	netsnmp_handler_registration *reg;
	char why[80];

	if (gw_mib_table_check(t, why, sizeof(why)) == -1) {
		log_warnx("mib: table %s: %s", t->name ? t->name : "?", why);
		return -1;
	}
	if (mib_ntabs == (int)(sizeof(mib_tabs) / sizeof(mib_tabs[0]))) {
		log_warnx("mib: too many tables for %s", t->name);
		return -1;
	}
	if (t->under_sys_base) {
		const struct gw_table *r = rebase(t);

		if (r == NULL) {
			log_warnx("mib: no room to place %s under the base",
			    t->name);
			return -1;
		}
		t = r;
	}
	for (int i = 0; i < mib_ntabs; i++)
		if (gw_mib_tables_overlap(t, mib_tabs[i])) {
			log_warnx("mib: table %s overlaps %s", t->name,
			    mib_tabs[i]->name);
			return -1;
		}
	reg = netsnmp_create_handler_registration(t->name, gw_mib_handler,
	    t->base, t->base_len, HANDLER_CAN_RONLY | HANDLER_CAN_GETBULK);
	if (reg == NULL)
		return -1;
	reg->handler->myvoid = (void *)t;
	if (t->agent)
		reg->priority = 255;	/* the lowest: below every table */
	reg->contextName = strdup(t->context ? t->context : GW_NODE_CONTEXT);
	if (netsnmp_register_handler(reg) != MIB_REGISTERED_OK) {
		log_warnx("mib: cannot register %s", t->name);
		return -1;
	}
	mib_tabs[mib_ntabs++] = t;
	return 0;
}

static int
module_start(const struct gw_mib_module *m, const struct gw_conf *c)
{
	if (m->init != NULL && m->init(c) == -1) {
		log_warnx("mib: module %s did not start", m->name);
		return -1;
	}
	mods_started++;
	for (const struct gw_table *const *t = m->tables; t && *t; t++)
		if (mib_register(*t) == -1)
			return -1;
	return 0;
}

int
gw_mib_init(const struct gw_conf *c)
{
	mib_ntabs = 0;
	mods_started = 0;
	if (set_base(c) == -1)
		return -1;
	for (size_t i = 0; i < NMODULES; i++)
		if (module_start(modules[i], c) == -1)
			return -1;
	gw_mib_configure(c);
	return 0;
}

void
gw_mib_configure(const struct gw_conf *c)
{
	gw_mib_set_deadline(c->request_timeout_ms);
	for (size_t i = 0; i < mods_started; i++)
		if (modules[i]->configure != NULL)
			modules[i]->configure(c);
}

void
gw_mib_swept(void)
{
	for (size_t i = 0; i < mods_started; i++)
		if (modules[i]->swept != NULL)
			modules[i]->swept();
}

void
gw_mib_finalise(void)
{
	/* net-snmp frees registrations in shutdown_agent(), which never
	 * calls a handler or frees its myvoid (no data_free is set). */
	while (mods_started > 0) {
		const struct gw_mib_module *m = modules[--mods_started];

		if (m->finalise != NULL)
			m->finalise();
	}
	mib_ntabs = 0;
	for (int i = 0; i < mib_ncopies; i++)
		free(mib_copies[i]);
	mib_ncopies = 0;
}
