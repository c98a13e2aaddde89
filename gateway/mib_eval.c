/* gw_mib evaluation: one varbind against a gw_table, from the cache
 * (GET: instance -> value; GETNEXT: next instance -> value). What is
 * missing is named in the gw_eval (its key), for the job (mib.c) to
 * wait for; instances come from the inventory and from attributes,
 * never from probing OIDs one by one. Also the attribute access the
 * table files use (gw_attr, gw_decode, gw_visible, ...). */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "codec/attr.h"
#include "codec/smp.h"
#include "gateway/mib.h"
#include "gateway/mib_int.h"
#include "util/log.h"

/* Rows */

/* Index tuples in OID order. */
static int
row_cmp(const struct gw_row *a, const struct gw_row *b, int n)
{
	for (int k = 0; k < n; k++)
		if (a->i[k] != b->i[k])
			return a->i[k] < b->i[k] ? -1 : 1;
	return 0;
}

/* Attribute access for tables. */

const struct store_node *
gw_node(struct gw_eval *e)
{
	return e->n;
}

const struct gw_col *
gw_column(struct gw_eval *e)
{
	return e->col;
}

/* The requester's node selector, looked up once a pass and only by the
 * rows that ask (fabric rows, LLDP-MIB's neighbours): a reload may have
 * replaced it while the request waited. */
static int
sel_lookup(struct gw_eval *e)
{
	if (e->sel_ok < 0)
		e->sel_ok = gw_snmp_request_select(e->ri, &e->sel) == 0;
	return e->sel_ok;
}

int
gw_visible(struct gw_eval *e, const struct store_node *n)
{
	return sel_lookup(e) && store_select_match(e->sel, n);
}

int
gw_visible_all(struct gw_eval *e)
{
	return sel_lookup(e) && (e->sel == NULL || !e->sel->set);
}

static void
make_key(struct cache_key *k, const struct gw_eval *e,
    const struct attr_def *a, uint32_t mod, uint8_t port)
{
	memset(k, 0, sizeof(*k));
	k->node = e->n->idx;
	k->attr = a->id;
	k->mclass = a->mclass;
	k->port = port;
	k->mod = mod;
}

static const uint8_t *
attr_read(struct gw_eval *e, enum attr_idx ai, uint32_t mod, uint8_t port,
    int *err)
{
	const struct attr_def *a = &attr_defs[ai];
	struct cache_key k;
	const uint8_t *d;
	size_t len;
	int rc;

	*err = 0;
	if (e->n == NULL) {
		*err = -ENODEV;		/* a fabric getter named no node */
		return NULL;
	}
	if (e->n->unsupported & a->unsup) {
		*err = -EOPNOTSUPP;	/* known to lack it: no MAD */
		return NULL;
	}
	make_key(&k, e, a, mod, port);
	rc = cache_read(&k, e->since, &d, &len);
	if (rc == 0) {
		e->last = k;
		e->have_last = 1;
		return len >= a->min_len ? d : NULL;
	}
	if (rc < 0) {
		*err = rc;
		return NULL;
	}
	if (!e->need) {
		e->need = 1;
		e->key = k;
		e->cls = a->ttl;
	}
	return NULL;
}

void
gw_fail(struct gw_eval *e, int err)
{
	if (err && !e->failed)
		e->failed = err;
}

int
gw_err_refused(int err)
{
	return err == -EINVAL || err == -EOPNOTSUPP;
}

const uint8_t *
gw_attr_try(struct gw_eval *e, enum attr_idx a, uint32_t mod, uint8_t port,
    int *err)
{
	return attr_read(e, a, mod, port, err);
}

const uint8_t *
gw_attr_of(struct gw_eval *e, const struct store_node *n, enum attr_idx a,
    uint32_t mod, uint8_t port, int *err)
{
	const struct store_node *own = e->n;
	int had = e->need;
	const uint8_t *d;

	e->n = n;
	d = attr_read(e, a, mod, port, err);
	/* One key is waited for; the others a fabric row needs are read
	 * in parallel meanwhile, so a cold walk costs one round trip per
	 * engine window, not one per port. */
	if (d == NULL && *err == 0 && had)
		gw_prefetch(e, a, mod, port);
	e->n = own;
	return d;
}

const uint8_t *
gw_attr(struct gw_eval *e, enum attr_idx a, uint32_t mod, uint8_t port)
{
	int err;
	const uint8_t *d = attr_read(e, a, mod, port, &err);

	gw_fail(e, err);
	return d;
}

int
gw_decode(struct gw_eval *e, enum attr_idx a, uint32_t mod, uint8_t port,
    void *out)
{
	const uint8_t *d = gw_attr(e, a, mod, port);

	if (d == NULL)
		return GW_NEED;
	if (attr_defs[a].decode == NULL)
		return 0;
	return attr_defs[a].decode(d, attr_defs[a].min_len, out) == 0 ? 0 :
	    GW_BAD;
}

/* Degraded answers per node, by inventory index. */
static struct gw_degraded *mib_degraded;
static size_t mib_ndegraded;

void
gw_degraded_add(uint32_t node, size_t field)
{
	if (node >= mib_ndegraded) {
		size_t n = node + 1 > 2 * mib_ndegraded ? node + 1 :
		    2 * mib_ndegraded;
		struct gw_degraded *d = realloc(mib_degraded, n * sizeof(*d));
		if (d == NULL)
			return;		/* a statistic: not worth failing */
		memset(d + mib_ndegraded, 0, (n - mib_ndegraded) * sizeof(*d));
		mib_degraded = d;
		mib_ndegraded = n;
	}
	(*(uint64_t *)((char *)&mib_degraded[node] + field))++;
}

const struct gw_degraded *
gw_degraded_get(uint32_t node)
{
	static const struct gw_degraded none;

	return node < mib_ndegraded ? &mib_degraded[node] : &none;
}

void
gw_prefetch(struct gw_eval *e, enum attr_idx a, uint32_t mod, uint8_t port)
{
	struct cache_key k;

	if (e->n->unsupported & attr_defs[a].unsup)
		return;
	make_key(&k, e, &attr_defs[a], mod, port);
	cache_prefetch(&k, attr_defs[a].ttl);
}

const uint8_t *
gw_attr_opt(struct gw_eval *e, enum attr_idx ai, uint32_t mod, uint8_t port,
    int *unsupported)
{
	const struct attr_def *a = &attr_defs[ai];
	const uint8_t *d;
	int err;

	*unsupported = 0;
	if (e->n->unsupported & a->unsup) {
		*unsupported = 1;
		return NULL;
	}
	/* First what the node or its PMA must answer (NodeInfo; the port's
	 * PortCounters, IBA 16.1.3.5): silence there is unreachability,
	 * not a missing attribute. */
	if (a->mclass == ATTR_CLASS_PERF) {
		if (gw_attr(e, ATTR_PORT_COUNTERS, mod, port) == NULL)
			return NULL;
	} else if (gw_attr(e, ATTR_NODE_INFO, 0, 0) == NULL)
		return NULL;
	d = attr_read(e, ai, mod, port, &err);
	/* A node that answers those but never this attribute does not
	 * implement it either (some SMAs and PMAs, and ibsim, drop what
	 * they do not know instead of answering "unsupported"). For a PMA
	 * the fetch layer decides before the read completes: PortCounters
	 * read afresh, the attribute asked again (proxy/fetch.c). */
	if (err == -ETIMEDOUT && a->mclass != ATTR_CLASS_PERF)
		err = -EOPNOTSUPP;
	if (err == -EOPNOTSUPP) {
		/* Remembered, so later walks do not ask again. */
		store_node_set_unsupported(e->n->idx, a->unsup);
		*unsupported = 1;
	} else
		gw_fail(e, err);
	return d;
}

/* Field columns */

/* What a catalogue decoder may write (it validates the answer). */
union gw_decoded {
	struct smp_nodeinfo	ni;
	struct smp_portinfo	pi;
	struct smp_switchinfo	si;
	struct smp_sminfo	sm;
	char			desc[SMP_DESC_LEN + 1];
	uint16_t		fec;
};

int
gw_field_value(const struct gw_col *c, uint64_t x, struct gw_val *v)
{
	uint8_t b[8];

	switch (c->kind) {
	case GW_K_UINT:
		gw_val_uint(v, (unsigned long)x);
		break;
	case GW_K_INT:
		gw_val_int(v, (long)x);
		break;
	case GW_K_ENUM:
		return gw_val_int(v, x >= (uint64_t)c->lo &&
		    x <= (uint64_t)c->hi ? (long)x + c->bias : c->other);
	case GW_K_TRUTH:
		return gw_val_truth(v, (x & c->mask) != 0);
	case GW_K_COUNTER:
		return gw_val_counter(v, (unsigned long)x);
	case GW_K_GUID:
		return gw_val_guid(v, x);
	case GW_K_OCTETS:
		for (int i = 0; i < c->octets && i < 8; i++)
			b[i] = (uint8_t)(x >> (8 * (c->octets - 1 - i)));
		return gw_val_octets(v, b, c->octets > 8 ? 8 : c->octets);
	default:
		return GW_BAD;
	}
	if (c->ranged && (x < (uint64_t)c->lo || x > (uint64_t)c->hi))
		return GW_BAD;
	return 0;
}

/* A field of the table's instance of c's attribute, checked by the
 * attribute's decoder first: garbage anywhere in it is GW_BAD. The
 * inventory's copies (t->raw) were checked when stored or loaded
 * (proxy/discover.c), so a fabric walk does not decode every row's
 * whole attribute once per column. */
static int
field_get(struct gw_eval *e, const struct gw_col *c, const struct gw_row *row,
    struct gw_val *v)
{
	const struct attr_def *a = &attr_defs[c->attr];
	union gw_decoded dec;
	const uint8_t *d;
	uint32_t mod = 0;
	uint8_t port = 0;
	uint64_t x;
	int rc;

	if (e->t->raw != NULL) {
		if ((d = e->t->raw(e, row, c->attr)) == NULL)
			return GW_ABSENT;
	} else if (e->t->inst && (rc = e->t->inst(e, row, &mod, &port)) != 0)
		return rc;
	else if ((d = gw_attr(e, c->attr, mod, port)) == NULL)
		return GW_NEED;
	else if (a->decode && a->decode(d, a->min_len, &dec) == -1)
		return GW_BAD;
	if (c->kind == GW_K_GUID)
		x = mad_get_field64((void *)d, 0, c->field);
	else
		x = mad_get_field((void *)d, 0, c->field);
	return gw_field_value(c, x, v);
}

static int
col_get(struct gw_eval *e, const struct gw_col *c, const struct gw_row *row,
    struct gw_val *v)
{
	e->col = c;
	return c->get ? c->get(e, row, v) : field_get(e, c, row, v);
}

/* Evaluation */

/* The first column at or after subid (columns are in subid order): a
 * search, as every step of a walk asks, and a PortInfo table has 40. */
static const struct gw_col *
find_col(const struct gw_table *t, oid subid, size_t *ci)
{
	size_t lo = 0, hi = t->ncols;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->cols[mid].subid < subid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->ncols)
		return NULL;
	*ci = lo;
	return &t->cols[lo];
}

/* A value outside the MIB's range: genErr now, and the attribute it came
 * from (the one read last) is failed for the error TTL rather than kept
 * for its own, so a garbled answer is asked again soon. */
static void
log_bad(struct gw_eval *e, const char *what, const struct gw_row *row,
    const char *answer, int reject)
{
	char inst[3 * 11 + 1] = "";
	int off = 0;

	for (int k = 0; k < e->t->nindex && k < 3; k++)
		off += snprintf(inst + off, sizeof(inst) - (size_t)off, ".%u",
		    row->i[k]);
	log_warnx("%s: %s%s: the node's answer is outside the MIB's range; "
	    "%s", e->n ? store_node_ident(e->n) : "fabric", what, inst,
	    answer);
	/* A walk leaves the row out and goes on: rejecting the attribute
	 * there would fail the row's other columns, which are good. */
	if (e->have_last && reject)
		cache_reject(&e->last, -ERANGE);
}

/* The node refused this instance alone (gw_err_refused): it is left
 * out, so that one port a PMA cannot count never ends a walk of the
 * node (docs/errors.md). Counted per node. */
static int
refused(struct gw_eval *e, int walk)
{
	/* Also an attribute a GET rejected as out of range (cache_reject)
	 * within the error TTL: the walk leaves the row out, as above. */
	if (!gw_err_refused(e->failed) && !(walk && e->failed == -ERANGE))
		return 0;
	if (e->n != NULL)
		gw_degraded_add(e->n->idx, offsetof(struct gw_degraded,
		    skipped));
	e->failed = 0;
	e->need = 0;
	return 1;
}

int
gw_eval_get(struct gw_eval *e, netsnmp_request_info *r)
{
	netsnmp_agent_request_info *ri = e->ri;

	const struct gw_table *t = e->t;
	const oid *name = r->requestvb->name;
	size_t len = r->requestvb->name_length, bl = t->base_len, ci;
	const struct gw_col *col;
	struct gw_row row, found;
	struct gw_val v;
	int rc;

	memset(&row, 0, sizeof(row));
	if (len <= bl || (t->applies && !t->applies(e->n)) ||
	    (col = find_col(t, name[bl], &ci)) == NULL ||
	    col->subid != name[bl]) {
		netsnmp_set_request_error(ri, r, SNMP_NOSUCHOBJECT);
		return GW_EVAL_DONE;
	}
	if (t->nindex == 0) {
		if (len != bl + 2 || name[bl + 1] != 0) {
			netsnmp_set_request_error(ri, r, SNMP_NOSUCHINSTANCE);
			return GW_EVAL_DONE;
		}
	} else {
		if (len != bl + 1 + (size_t)t->nindex)
			goto nosuch;
		for (int k = 0; k < t->nindex; k++) {
			if (name[bl + 1 + k] > UINT32_MAX)
				goto nosuch;
			row.i[k] = (uint32_t)name[bl + 1 + k];
		}
		e->have_last = 0;
		rc = t->row_next(e, &row, 1, &found);
		if (rc == GW_NEED)
			return GW_EVAL_NEED;
		if (rc == GW_BAD) {
			log_bad(e, t->name, &row, "answered genErr", 1);
			goto generr;
		}
		if (rc == 0 || row_cmp(&row, &found, t->nindex) != 0)
			goto nosuch;
	}
	memset(&v, 0, sizeof(v));
	e->have_last = 0;
	rc = col_get(e, col, &row, &v);
	if (rc == GW_NEED && refused(e, 0))
		goto nosuch;
	if (rc == GW_NEED)
		return GW_EVAL_NEED;
	if (rc == GW_ABSENT)
		goto nosuch;
	if (rc == GW_BAD) {
		log_bad(e, col->name, &row, "answered genErr", 1);
		goto generr;
	}
	gw_val_set(r, &v);
	e->answered = 1;
	return GW_EVAL_DONE;
nosuch:
	netsnmp_set_request_error(ri, r, SNMP_NOSUCHINSTANCE);
	return GW_EVAL_DONE;
generr:
	netsnmp_set_request_error(ri, r, SNMP_ERR_GENERR);
	return GW_EVAL_DONE;
}

/* An index between OID subids and a row's: four at a time, which GCC
 * at -O2 turns into vector moves (a fabric row's index is 17 subids,
 * and every walk step copies it both ways). */
static inline oid
idx_narrow(uint32_t *restrict d, const oid *restrict s, size_t n)
{
	oid over = 0;
	size_t k = 0;

	for (; k + 4 <= n; k += 4) {
		over |= s[k] | s[k + 1] | s[k + 2] | s[k + 3];
		d[k] = (uint32_t)s[k];
		d[k + 1] = (uint32_t)s[k + 1];
		d[k + 2] = (uint32_t)s[k + 2];
		d[k + 3] = (uint32_t)s[k + 3];
	}
	for (; k < n; k++) {
		over |= s[k];
		d[k] = (uint32_t)s[k];
	}
	return over;
}

static inline void
idx_widen(oid *restrict d, const uint32_t *restrict s, size_t n)
{
	size_t k = 0;

	for (; k + 4 <= n; k += 4) {
		d[k] = s[k];
		d[k + 1] = s[k + 1];
		d[k + 2] = s[k + 2];
		d[k + 3] = s[k + 3];
	}
	for (; k < n; k++)
		d[k] = s[k];
}

/* Where a GETNEXT starts: column index, lower bound, inclusive. Returns
 * -1 when the request is past this table. */
static int
getnext_start(const struct gw_table *t, const oid *name, size_t len,
    size_t *ci, struct gw_row *lb, int *incl)
{
	size_t bl = t->base_len;
	const struct gw_col *col;

	memset(lb, 0, sizeof(*lb));
	*incl = 1;
	*ci = 0;
	if (netsnmp_oid_is_subtree(t->base, bl, name, len) != 0)
		return snmp_oid_compare(name, len, t->base, bl) < 0 ? 0 : -1;
	if (len == bl)
		return 0;
	if ((col = find_col(t, name[bl], ci)) == NULL)
		return -1;
	if (col->subid > name[bl])
		return 0;
	/* Same column: the bound comes from the rest of the OID. */
	if (t->nindex == 0) {
		if (len > bl + 1)
			(*ci)++;	/* at or under col.0: next column */
		return 0;
	}
	size_t m = len - bl - 1, n = m < (size_t)t->nindex ? m :
	    (size_t)t->nindex;
	const oid *ix = name + bl + 1;
	oid over;

	/* One pass, one test: a fabric row's index is 17 subids or more. */
	over = idx_narrow(lb->i, ix, n);
	if (over > UINT32_MAX) {
		/* No row has such a subid: the bound is past every row
		 * that starts with the ones before it. */
		size_t k = 0;

		while (ix[k] <= UINT32_MAX)
			k++;
		for (; k < (size_t)t->nindex; k++)
			lb->i[k] = UINT32_MAX;
		*incl = 0;
		return 0;
	}
	/* A full index (or longer) is passed; a partial one is not. */
	*incl = m < (size_t)t->nindex;
	return 0;
}

int
gw_eval_getnext(struct gw_eval *e, netsnmp_request_info *r)
{
	netsnmp_agent_request_info *ri = e->ri;

	const struct gw_table *t = e->t;
	struct gw_row lb, row;
	struct gw_val v;
	oid name[MAX_OID_LEN];
	size_t ci, bl = t->base_len;
	int incl, rc;

	if (t->applies && !t->applies(e->n))
		return GW_EVAL_DONE;	/* untouched: the agent moves on */
	if (getnext_start(t, r->requestvb->name, r->requestvb->name_length,
	    &ci, &lb, &incl) == -1)
		return GW_EVAL_DONE;
	for (; ci < t->ncols; ci++) {
		const struct gw_col *col = &t->cols[ci];
again:
		memset(&row, 0, sizeof(row));
		if (t->nindex > 0) {
			e->have_last = 0;
			rc = t->row_next(e, &lb, incl, &row);
			if (rc == GW_NEED)
				return GW_EVAL_NEED;
			if (rc == GW_BAD) {
				log_bad(e, t->name, &lb, "answered genErr", 1);
				netsnmp_set_request_error(ri, r,
				    SNMP_ERR_GENERR);
				return GW_EVAL_DONE;
			}
			if (rc == 0) {
				memset(&lb, 0, sizeof(lb));
				incl = 1;
				continue;
			}
		}
		memset(&v, 0, sizeof(v));
		e->have_last = 0;
		rc = col_get(e, col, &row, &v);
		if (rc == GW_NEED && refused(e, 1))
			rc = GW_ABSENT;
		if (rc == GW_NEED)
			return GW_EVAL_NEED;
		if (rc == GW_ABSENT) {
			/* No instance in this row: the column's next row. */
			if (t->nindex == 0)
				continue;
			lb = row;
			incl = 0;
			goto again;
		}
		if (rc == GW_BAD && t->nindex > 0) {
			/* A value the MIB cannot hold in one row: that row
			 * is left out of the walk, the rest goes on. */
			log_bad(e, col->name, &row, "left out of the walk", 0);
			if (e->n != NULL)
				gw_degraded_add(e->n->idx,
				    offsetof(struct gw_degraded, skipped));
			lb = row;
			incl = 0;
			goto again;
		}
		memcpy(name, t->base, bl * sizeof(oid));
		name[bl] = col->subid;
		if (t->nindex == 0)
			name[bl + 1] = 0;
		idx_widen(name + bl + 1, row.i, (size_t)t->nindex);
		snmp_set_var_objid(r->requestvb, name,
		    bl + 1 + (t->nindex ? t->nindex : 1));
		if (rc == GW_BAD) {
			log_bad(e, col->name, &row, "answered genErr", 1);
			netsnmp_set_request_error(ri, r, SNMP_ERR_GENERR);
			return GW_EVAL_DONE;
		}
		gw_val_set(r, &v);
		e->answered = 1;
		return GW_EVAL_DONE;
	}
	return GW_EVAL_DONE;
}
