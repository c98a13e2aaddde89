/* IB-SM-MIB's query tables, the SNMP side: the objects in OID order
 * for GET and GETNEXT, SETs of the request tables (RFC 3416 4.2.5,
 * RowStatus of RFC 2579) and the module. The queries themselves are
 * ib_sm_mib_query.c's; calls run from here to there only. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/mib/ib_sm_mib.h"
#include "gateway/mib/ib_sm_mib_query.h"
#include "store/select.h"
#include "util/log.h"

/* ---- SNMP: the objects in order */

/* Index after the entry OID: prefix (8), session[, result index]. */
struct q_table {
	int	kind;
	int	result;		/* 0: request table, 1: result table */
	oid	entry[16];
	size_t	entry_len;
	int	maxcol;
};

#define Q_OID(...) { __VA_ARGS__ }, \
	sizeof((oid[]){ __VA_ARGS__ }) / sizeof(oid)

static const struct q_table q_tables[] = {
	{ Q_PATH, 0, Q_OID(GW_OID_ibSmPathReqEntry),
	  GW_ARC_ibSmPathReqPreference },
	{ Q_PATH, 1, Q_OID(GW_OID_ibSmPathResultEntry),
	  GW_ARC_ibSmPathResultPreference },
	{ Q_MPATH, 0, Q_OID(GW_OID_ibSmMultiPathReqEntry),
	  GW_ARC_ibSmMultiPathReqSDGIDBlock32 },
	{ Q_MPATH, 1, Q_OID(GW_OID_ibSmMultiPathResultEntry),
	  GW_ARC_ibSmMultiPathResultPreference },
	{ Q_TRACE, 0, Q_OID(GW_OID_ibSmTraceReqEntry),
	  GW_ARC_ibSmTraceReqExitPort },
	{ Q_TRACE, 1, Q_OID(GW_OID_ibSmTraceResultEntry),
	  GW_ARC_ibSmTraceResultExitPort },
};

/* The value of column col of a row (request) or of result i. */
static int
q_value(const struct q_table *t, const struct q_row *r, uint32_t i, int col,
    struct gw_val *v)
{
	const struct q_field *f;

	if (!t->result) {
		switch (col) {
		case 3:
			return gw_val_int(v, r->status);
		case 4:
			v->type = ASN_TIMETICKS;
			v->l = r->created;
			return 0;
		case 5: {
			uint64_t m = r->kind != Q_TRACE ?
			    gw_smq_row_mask(r) : 0;
			uint8_t b[8];

			if (r->kind == Q_TRACE || (r->set >> 5 & 1))
				return gw_val_octets(v, r->mask, 8);
			for (int k = 0; k < 8; k++)
				b[k] = (uint8_t)(m >> (56 - 8 * k));
			return gw_val_octets(v, b, 8);
		}
		}
		/* A column never written has no instance yet. */
		if (!(r->set >> col & 1))
			return GW_ABSENT;
		if (gw_smq_is_block(r->kind, col))
			return gw_val_octets(v, r->rec + MP_GIDS_OFF,
			    col == MP_BLOCK1 ? r->gidlen : 0);
		if ((f = gw_smq_field_of(r->kind, col)) == NULL)
			return GW_ABSENT;
		return gw_smq_field_val(f, r->rec, v);
	}
	if (i < 1 || i > r->nres)
		return GW_ABSENT;
	/* Result columns are the path request's, two lower (MultiPath
	 * answers are PathRecords too). */
	if ((f = gw_smq_field_of(r->kind == Q_TRACE ? Q_TRACE : Q_PATH,
	    col + 2)) == NULL)
		return GW_ABSENT;
	return gw_smq_field_val(f, r->res + (i - 1) * r->ressize, v);
}

/* The OID of (table, column, row[, result]) into o; its length. */
static size_t
q_oid(const struct q_table *t, int col, const struct q_row *r, uint32_t i,
    oid *o)
{
	uint32_t pfx[8];
	size_t n = t->entry_len;

	memcpy(o, t->entry, n * sizeof(oid));
	o[n++] = (oid)col;
	gw_sm_put64(pfx, gw_sm_prefix());
	for (int k = 0; k < 8; k++)
		o[n++] = pfx[k];
	o[n++] = r->session;
	if (t->result)
		o[n++] = i;
	return n;
}

static int
first_col(const struct q_table *t)
{
	return t->result ? 4 : 3;
}

/* The next instance after (or at, when exact) name: table, column, row
 * and result number. 1, or 0 when there is none. */
static int
q_next(const char *owner, const oid *name, size_t len, int exact,
    const struct q_table **tt, int *cc, struct q_row **rr, uint32_t *ii)
{
	oid o[MAX_OID_LEN];

	for (size_t ti = 0; ti < sizeof(q_tables) / sizeof(q_tables[0]);
	    ti++) {
		const struct q_table *t = &q_tables[ti];

		for (int col = first_col(t); col <= t->maxcol; col++)
			for (size_t ri = 0; ri < gw_smq_nrows; ri++) {
				struct q_row *r = gw_smq_rows[ri];
				uint32_t nres = t->result ? (uint32_t)r->nres :
				    1;

				if (r->kind != t->kind ||
				    strcmp(r->owner, owner) != 0)
					continue;
				for (uint32_t i = 1; i <= nres; i++) {
					struct gw_val v;
					size_t n = q_oid(t, col, r, i, o);
					int c = snmp_oid_compare(o, n, name,
					    len);

					if (exact ? c != 0 : c <= 0)
						continue;
					memset(&v, 0, sizeof(v));
					if (q_value(t, r, i, col, &v) != 0)
						continue;
					*tt = t;
					*cc = col;
					*rr = r;
					*ii = i;
					return 1;
				}
			}
	}
	return 0;
}

static void
q_answer(netsnmp_request_info *req, const struct q_table *t, int col,
    const struct q_row *r, uint32_t i, int next)
{
	struct gw_val v;
	oid o[MAX_OID_LEN];

	memset(&v, 0, sizeof(v));
	q_value(t, r, i, col, &v);
	if (next)
		snmp_set_var_objid(req->requestvb, o, q_oid(t, col, r, i, o));
	gw_val_set(req, &v);
}

/* ---- SET (RFC 3416 4.2.5 and RFC 2579 RowStatus) */

struct q_set {
	const struct q_table	*t;
	int			 col;
	uint32_t		 session;
};

/* Which request column a SET names, or an SNMP error. */
static int
q_target(const netsnmp_variable_list *vb, struct q_set *s)
{
	uint32_t pfx[8];

	gw_sm_put64(pfx, gw_sm_prefix());
	for (size_t ti = 0; ti < sizeof(q_tables) / sizeof(q_tables[0]);
	    ti++) {
		const struct q_table *t = &q_tables[ti];
		size_t n = t->entry_len;

		if (vb->name_length <= n || snmp_oid_compare(vb->name, n,
		    t->entry, n) != 0)
			continue;
		if (t->result)
			return SNMP_ERR_NOTWRITABLE;
		if (vb->name_length != n + 10)
			return SNMP_ERR_NOCREATION;
		s->t = t;
		s->col = (int)vb->name[n];
		for (int k = 0; k < 8; k++)
			if (vb->name[n + 1 + k] != pfx[k])
				return SNMP_ERR_NOCREATION;
		if (vb->name[n + 9] > 0x7fffffff)
			return SNMP_ERR_NOCREATION;
		s->session = (uint32_t)vb->name[n + 9];
		if (s->col == 3 || s->col == 5 ||
		    gw_smq_field_of(t->kind, s->col) ||
		    gw_smq_is_block(t->kind, s->col))
			return SNMP_ERR_NOERROR;
		return SNMP_ERR_NOTWRITABLE;	/* CreationTime, indexes */
	}
	return SNMP_ERR_NOTWRITABLE;
}

/* Check a value against its column: SNMP error or 0. */
static int
q_check(const struct q_set *s, const netsnmp_variable_list *vb)
{
	const struct q_field *f;

	if (s->col == 3) {
		if (vb->type != ASN_INTEGER)
			return SNMP_ERR_WRONGTYPE;
		if (*vb->val.integer < 1 || *vb->val.integer > 6 ||
		    *vb->val.integer == RS_NOT_READY)
			return SNMP_ERR_WRONGVALUE;
		return 0;
	}
	if (s->col == 5) {
		if (vb->type != ASN_OCTET_STR)
			return SNMP_ERR_WRONGTYPE;
		return vb->val_len == 8 ? 0 : SNMP_ERR_WRONGLENGTH;
	}
	if (gw_smq_is_block(s->t->kind, s->col)) {
		if (vb->type != ASN_OCTET_STR)
			return SNMP_ERR_WRONGTYPE;
		if (vb->val_len % 16 != 0 || vb->val_len > 256)
			return SNMP_ERR_WRONGLENGTH;
		/* What one MAD cannot carry, no SM is ever asked. */
		if (vb->val_len > (s->col == MP_BLOCK1 ? MP_MAX_GIDS * 16 : 0))
			return SNMP_ERR_WRONGVALUE;
		return 0;
	}
	f = gw_smq_field_of(s->t->kind, s->col);
	if (f->octets) {
		if (vb->type != ASN_OCTET_STR)
			return SNMP_ERR_WRONGTYPE;
		if (vb->val_len != (size_t)f->octets)
			return SNMP_ERR_WRONGLENGTH;
		if (f->octets == 3 && (vb->val.string[0] & 0xf0))
			return SNMP_ERR_WRONGVALUE;	/* 20 bits */
		return 0;
	}
	if (vb->type != ASN_INTEGER)
		return SNMP_ERR_WRONGTYPE;
	if (*vb->val.integer < f->lo || *vb->val.integer > f->hi)
		return SNMP_ERR_WRONGVALUE;
	return 0;
}

static void
q_store(struct q_row *r, int col, const netsnmp_variable_list *vb)
{
	const struct q_field *f;

	if (col == 5) {
		memcpy(r->mask, vb->val.string, 8);
		r->set |= 1ULL << 5;
		return;
	}
	r->set |= 1ULL << col;
	if (gw_smq_is_block(r->kind, col)) {
		if (col == MP_BLOCK1) {
			memset(r->rec + MP_GIDS_OFF, 0,
			    sizeof(r->rec) - MP_GIDS_OFF);
			memcpy(r->rec + MP_GIDS_OFF, vb->val.string,
			    vb->val_len);
			r->gidlen = vb->val_len;
		}
		return;
	}
	f = gw_smq_field_of(r->kind, col);
	if (f->octets == 3) {
		struct q_field w = gw_smq_flow_word(f);

		gw_smq_put_bits(r->rec, &w, (uint64_t)vb->val.string[0] << 16 |
		    (uint64_t)vb->val.string[1] << 8 | vb->val.string[2]);
	} else if (f->octets)
		memcpy(r->rec + f->off, vb->val.string, (size_t)f->octets);
	else
		gw_smq_put_bits(r->rec, f, (uint64_t)*vb->val.integer);
}

/* A MultiPath row: SGIDCount sources then DGIDCount destinations, at
 * least one of each, all in the GID list, all ports of the inventory
 * and, for a requester with a node selector, of its own nodes. */
static int
mpath_allowed(const struct q_row *r, const struct store_select *sel)
{
	size_t ns = r->rec[15], nd = r->rec[16];

	if (ns == 0 || nd == 0 || (ns + nd) * 16 > r->gidlen)
		return 0;
	for (size_t k = 0; k < ns + nd; k++) {
		const struct store_node *n = gw_smq_node_of_gid(r->rec +
		    MP_GIDS_OFF + 16 * k);

		if (n == NULL || (sel != NULL && !store_select_match(sel, n)))
			return 0;
	}
	return 1;
}

/* Whether an activated row may run for this requester: both ends named
 * and in the inventory (a path query with neither end would ask for
 * every pair of the subnet) and, for a requester with a node selector,
 * both its own nodes. A trace needs its session's path row. */
static int
q_allowed(netsnmp_agent_request_info *ri, const struct q_row *r)
{
	const struct q_row *p = r->kind == Q_PATH ? r :
	    gw_smq_row_get(Q_PATH, r->session);
	const struct store_node *src, *dst;
	const struct store_select *sel;
	uint16_t slid, dlid;

	if (r->kind == Q_MPATH)
		return gw_snmp_request_select(ri, &sel) == 0 &&
		    mpath_allowed(r, sel);
	if (p == NULL || strcmp(p->owner, r->owner) != 0)
		return 0;
	if (gw_smq_path_ends(p, &src, &dst, &slid, &dlid) == -1)
		return 0;
	if (gw_snmp_request_select(ri, &sel) == -1)
		return 0;
	return sel == NULL || (store_select_match(sel, src) &&
	    store_select_match(sel, dst));
}

/* Row copies for UNDO, per SET request. */
struct q_undo {
	uint32_t	 session;
	int		 kind;
	int		 existed;
	struct q_row	 copy;
};

static struct q_undo	*q_undo;
static size_t		 q_nundo;

static void
undo_clear(void)
{
	free(q_undo);
	q_undo = NULL;
	q_nundo = 0;
}

static int
undo_keep(int kind, uint32_t session)
{
	struct q_undo *u;
	struct q_row *r = gw_smq_row_get(kind, session);

	for (size_t i = 0; i < q_nundo; i++)
		if (q_undo[i].kind == kind && q_undo[i].session == session)
			return 0;
	if ((u = realloc(q_undo, (q_nundo + 1) * sizeof(*u))) == NULL)
		return -1;
	q_undo = u;
	u = &q_undo[q_nundo++];
	memset(u, 0, sizeof(*u));
	u->kind = kind;
	u->session = session;
	u->existed = r != NULL;
	if (r != NULL) {
		u->copy = *r;
		u->copy.res = NULL;	/* results are not touched by a SET */
	}
	return 0;
}

static void
undo_apply(void)
{
	for (size_t i = 0; i < q_nundo; i++) {
		struct q_undo *u = &q_undo[i];
		struct q_row *r = gw_smq_row_get(u->kind, u->session);

		if (!u->existed) {
			if (r != NULL)
				gw_smq_row_free(r);
			continue;
		}
		if (r == NULL) {	/* destroyed in ACTION: back */
			r = gw_smq_row_new(u->kind, u->session, u->copy.owner);
			if (r == NULL)
				continue;
		}
		{
			uint8_t *res = r->res;
			size_t nres = r->nres, rs = r->ressize;
			uint64_t id = r->id;

			*r = u->copy;
			r->res = res;
			r->nres = nres;
			r->ressize = rs;
			r->id = id;
		}
	}
	undo_clear();
}

/* One varbind of an ACTION pass: 0 or an SNMP error. */
static int
q_action(netsnmp_agent_request_info *ri, const netsnmp_variable_list *vb,
    const char *owner, int pass)
{
	struct q_set s;
	struct q_row *r;
	long rs;

	if (q_target(vb, &s) != 0 || (pass == 1) != (s.col != 3))
		return 0;
	r = gw_smq_row_get(s.t->kind, s.session);
	if (r != NULL && strcmp(r->owner, owner) != 0)
		return SNMP_ERR_INCONSISTENTNAME;	/* another's */
	if (undo_keep(s.t->kind, s.session) == -1)
		return SNMP_ERR_RESOURCEUNAVAILABLE;
	if (pass == 1) {
		if (r == NULL)
			return SNMP_ERR_NOCREATION;
		/* An active query does not change under its results. */
		if (r->status == RS_ACTIVE)
			return SNMP_ERR_INCONSISTENTVALUE;
		q_store(r, s.col, vb);
		return 0;
	}
	rs = *vb->val.integer;
	if (pass == 2) {
		if ((rs == RS_ACTIVE || rs == RS_CREATE_AND_GO) && r != NULL) {
			if (!q_allowed(ri, r))
				return SNMP_ERR_INCONSISTENTVALUE;
			r->status = RS_ACTIVE;
		}
		return 0;
	}
	switch (rs) {
	case RS_CREATE_AND_GO:
	case RS_CREATE_AND_WAIT:
		if (r != NULL)
			return SNMP_ERR_INCONSISTENTVALUE;
		if (gw_smq_owned(owner) >= (size_t)gw_smq_max ||
		    gw_smq_row_new(s.t->kind, s.session, owner) == NULL)
			return SNMP_ERR_RESOURCEUNAVAILABLE;
		return 0;
	case RS_ACTIVE:
	case RS_NOT_IN_SERVICE:
		if (r == NULL)
			return SNMP_ERR_INCONSISTENTVALUE;
		if (rs == RS_NOT_IN_SERVICE)
			r->status = RS_NOT_IN_SERVICE;
		return 0;
	case RS_DESTROY:
		if (r != NULL)
			gw_smq_row_free(r);
		return 0;
	}
	return SNMP_ERR_WRONGVALUE;
}

static int
q_set_phase(int mode, netsnmp_agent_request_info *ri,
    netsnmp_request_info *requests)
{
	char owner[OWNER_LEN];
	int grant;
	netsnmp_request_info *req;

	switch (mode) {
	case MODE_SET_RESERVE1:
		undo_clear();	/* a new SET: nothing of an older one */
		if (gw_snmp_request_owner(ri, owner, sizeof(owner),
		    &grant) == -1 || !grant) {
			/* docs/security.md: no grant, no query. */
			for (req = requests; req; req = req->next)
				netsnmp_set_request_error(ri, req,
				    SNMP_ERR_NOACCESS);
			return 0;
		}
		for (req = requests; req; req = req->next) {
			struct q_set s;
			int err = q_target(req->requestvb, &s);

			if (err == 0)
				err = q_check(&s, req->requestvb);
			if (err != 0) {
				netsnmp_set_request_error(ri, req, err);
				return 0;
			}
		}
		return 0;
	case MODE_SET_RESERVE2:
		return 0;
	case MODE_SET_ACTION:
		break;
	case MODE_SET_COMMIT: {
		/* Activations take effect now, once everything was
		 * accepted. */
		for (size_t i = 0; i < q_nundo; i++) {
			struct q_row *r = gw_smq_row_get(q_undo[i].kind,
			    q_undo[i].session);

			if (r != NULL && r->status == RS_ACTIVE &&
			    (!q_undo[i].existed ||
			    q_undo[i].copy.status != RS_ACTIVE))
				gw_smq_activate(r);
		}
		undo_clear();
		return 0;
	}
	case MODE_SET_UNDO:
		undo_apply();
		return 0;
	case MODE_SET_FREE:
		undo_clear();
		return 0;
	default:
		return 0;
	}

	/* ACTION in three passes: RowStatus creations, destructions and
	 * notInService; then the other columns; then activations, checked
	 * against the columns the same request wrote. */
	gw_snmp_request_owner(ri, owner, sizeof(owner), &grant);
	for (int pass = 0; pass < 3; pass++)
		for (req = requests; req; req = req->next) {
			int err = q_action(ri, req->requestvb, owner, pass);

			if (err != 0) {
				netsnmp_set_request_error(ri, req, err);
				return 0;
			}
		}
	return 0;
}

static int
q_handler(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *ri, netsnmp_request_info *requests)
{
	char owner[OWNER_LEN];
	int grant;
	netsnmp_request_info *req;

	(void)h;
	(void)reg;
	if (ri->mode != MODE_GET && ri->mode != MODE_GETNEXT)
		return q_set_phase(ri->mode, ri, requests);
	if (gw_snmp_request_owner(ri, owner, sizeof(owner), &grant) == -1)
		owner[0] = '\0';
	for (req = requests; req; req = req->next) {
		netsnmp_variable_list *vb = req->requestvb;
		const struct q_table *t;
		struct q_row *r;
		uint32_t i;
		int col;

		if (req->processed)
			continue;
		if (owner[0] && q_next(owner, vb->name, vb->name_length,
		    ri->mode == MODE_GET, &t, &col, &r, &i))
			q_answer(req, t, col, r, i, ri->mode == MODE_GETNEXT);
		else if (ri->mode == MODE_GET)
			netsnmp_set_request_error(ri, req,
			    SNMP_NOSUCHINSTANCE);
		/* GETNEXT past the last: left for the next handler. */
	}
	return SNMP_ERR_NOERROR;
}

/* snmp.fabric-query-age and -max. */
static void
query_configure(const struct gw_conf *c)
{
	gw_smq_age = c->fabric_query_age;
	gw_smq_max = c->fabric_query_max;
}

static int
query_init(const struct gw_conf *c)
{
	static const oid path[] = { GW_OID_ibSmPathInfo };
	static const oid mpath[] = { GW_OID_ibSmMultiPathInfo };
	static const oid trace[] = { GW_OID_ibSmTraceInfo };
	static const char *names[] = { "ibSmPathInfo", "ibSmMultiPathInfo",
	    "ibSmTraceInfo" };
	const oid *bases[] = { path, mpath, trace };

	for (int k = 0; k < 3; k++) {
		netsnmp_handler_registration *reg =
		    netsnmp_create_handler_registration(names[k], q_handler,
		    bases[k], OID_LENGTH(path), HANDLER_CAN_RWRITE);

		if (reg == NULL)
			return -1;
		reg->contextName = strdup(GW_FABRIC_CONTEXT);
		if (netsnmp_register_handler(reg) != MIB_REGISTERED_OK) {
			log_warnx("mib: cannot register the query tables");
			return -1;
		}
	}
	gw_smq_start();
	return 0;
}

static void
query_finalise(void)
{
	undo_clear();
	gw_smq_stop();
}

/* Its tables take SETs (RowStatus), so they have a handler of their
 * own, registered by init. */
const struct gw_mib_module gw_mod_ib_sm_mib_query_snmp = {
	.name = "IB-SM-MIB path and trace queries",
	.init = query_init,
	.configure = query_configure,
	.finalise = query_finalise,
};
