/* gw_mib: the one handler behind every node-context table.
 *
 * GET: instance -> cache -> value, or a delegated varbind on a miss.
 * GETNEXT: the next instance is computed from the inventory (port
 * counts), never by probing the fabric; only its value may wait for a
 * MAD. GETBULK is net-snmp's repeated GETNEXT over the same path.
 *
 * An unreachable node answers genErr once the MAD engine gives up
 * (mad.timeout-ms x (mad.retries + 1)); the failure is then remembered
 * for cache.ttl.error seconds so a walk fails fast. See docs/errors.md. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "gateway/mib.h"

#include <net-snmp/agent/bulk_to_next.h>
#include "util/log.h"

struct gw_pending {
	netsnmp_delegated_cache	*dc;
	const struct gw_table	*t;
	const struct gw_col	*col;
	uint32_t		 node;
	uint32_t		 row;
};

static netsnmp_handler_registration *mib_regs[64];
static int mib_nregs;

void
gw_val_int(struct gw_val *v, long l)
{
	v->type = ASN_INTEGER;
	v->l = l;
}

void
gw_val_uint(struct gw_val *v, unsigned long ul)
{
	v->type = ASN_UNSIGNED;
	v->l = (long)(ul & 0xffffffffUL);
}

void
gw_val_octets(struct gw_val *v, const void *p, size_t len)
{
	v->type = ASN_OCTET_STR;
	if (len > sizeof(v->buf))
		len = sizeof(v->buf);
	memcpy(v->buf, p, len);
	v->len = len;
}

void
gw_val_guid(struct gw_val *v, uint64_t guid)
{
	/* IbGuid: 8 octets, network order. */
	v->type = ASN_OCTET_STR;
	for (int i = 0; i < 8; i++)
		v->buf[i] = guid >> (56 - 8 * i);
	v->len = 8;
}

int
gw_val_range(struct gw_val *v, long lo, long hi)
{
	unsigned long u = (unsigned long)v->l;

	if (v->type == ASN_UNSIGNED)
		return u >= (unsigned long)lo && u <= (unsigned long)hi ? 0 : -1;
	return v->l >= lo && v->l <= hi ? 0 : -1;
}

static void
set_value(netsnmp_request_info *r, const struct gw_val *v)
{
	switch (v->type) {
	case ASN_OCTET_STR:
		snmp_set_var_typed_value(r->requestvb, v->type, v->buf, v->len);
		break;
	case ASN_COUNTER64:
		snmp_set_var_typed_value(r->requestvb, v->type, &v->c64,
		    sizeof(v->c64));
		break;
	default:
		snmp_set_var_typed_value(r->requestvb, v->type, &v->l,
		    sizeof(v->l));
	}
}

/* Evaluate one column for one row from an attribute payload. */
static int
eval(netsnmp_agent_request_info *reqinfo, netsnmp_request_info *r,
    const struct gw_table *t, const struct gw_col *col,
    const struct store_node *n, uint32_t row, const uint8_t *data,
    size_t len)
{
	struct gw_ctx x = { n, row, data, len };
	struct gw_val v;

	memset(&v, 0, sizeof(v));
	if (col->get(&x, &v) == -1) {
		log_warnx("node 0x%016llx: %s.%u: value out of the MIB's range; "
		    "answered genErr", (unsigned long long)n->guid, col->name,
		    row);
		netsnmp_set_request_error(reqinfo, r, SNMP_ERR_GENERR);
		return -1;
	}
	set_value(r, &v);
	return 0;
}

static void
pending_cb(void *arg, int status, const uint8_t *data, size_t len)
{
	struct gw_pending *p = arg;
	netsnmp_delegated_cache *dc = netsnmp_handler_check_cache(p->dc);
	const struct store_node *n = store_node_at(p->node);

	if (dc == NULL) {
		/* The request is gone (session closed); nothing to do. */
		free(p);
		return;
	}
	if (status == 0 && n != NULL &&
	    eval(dc->reqinfo, dc->requests, p->t, p->col, n, p->row, data,
	    len) == 0 && dc->reqinfo->asp->pdu->command == SNMP_MSG_GETBULK) {
		/* bulk_to_next ran when the value was still empty; advance
		 * this varbind (only this one) to its next repetition now. */
		netsnmp_request_info *next = dc->requests->next;
		dc->requests->next = NULL;
		netsnmp_bulk_to_next_fix_requests(dc->requests);
		dc->requests->next = next;
	} else if (status != 0 || n == NULL)
		netsnmp_set_request_error(dc->reqinfo, dc->requests,
		    SNMP_ERR_GENERR);
	dc->requests->delegated = 0;
	netsnmp_free_delegated_cache(dc);
	free(p);
}

static void
read_ahead(const struct gw_table *t, const struct store_node *n,
    enum gw_src src, uint32_t row)
{
	struct cache_key k;
	enum cache_class cls;

	for (int i = 0; i < t->readahead; i++) {
		if ((row = t->row_next(n, row)) == 0)
			break;
		t->key(n, src, row, &k, &cls);
		cache_prefetch(&k, cls);
	}
}

static void
fetch(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *reqinfo, netsnmp_request_info *r,
    const struct gw_table *t, const struct gw_col *col,
    const struct store_node *n, uint32_t row)
{
	struct gw_pending *p;
	struct cache_key k;
	enum cache_class cls;
	const uint8_t *data;
	size_t len;
	int rc;

	if (col->src == GW_SRC_INVENTORY) {
		eval(reqinfo, r, t, col, n, row, NULL, 0);
		return;
	}
	t->key(n, col->src, row, &k, &cls);
	/* Hot path: a hit allocates nothing. */
	if (cache_peek(&k, &data, &len) == 0) {
		eval(reqinfo, r, t, col, n, row, data, len);
		return;
	}
	if ((p = malloc(sizeof(*p))) == NULL) {
		netsnmp_set_request_error(reqinfo, r, SNMP_ERR_GENERR);
		return;
	}
	rc = cache_lookup(&k, cls, &data, &len, pending_cb, p);
	if (rc == 0) {
		free(p);
		eval(reqinfo, r, t, col, n, row, data, len);
		return;
	}
	if (rc < 0) {
		free(p);
		netsnmp_set_request_error(reqinfo, r, SNMP_ERR_GENERR);
		return;
	}
	p->t = t;
	p->col = col;
	p->node = n->idx;
	p->row = row;
	p->dc = netsnmp_create_delegated_cache(h, reg, reqinfo, r, NULL);
	r->delegated = 1;
	if (reqinfo->mode == MODE_GETNEXT && t->readahead)
		read_ahead(t, n, col->src, row);
}

static const struct gw_col *
find_col(const struct gw_table *t, oid subid)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (t->cols[i].subid == subid)
			return &t->cols[i];
	return NULL;
}

static int
row_exists(const struct gw_table *t, const struct store_node *n, oid row)
{
	if (row == 0 || row > UINT32_MAX)
		return 0;
	return t->row_next(n, (uint32_t)row - 1) == row;
}

static void
do_get(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *reqinfo, netsnmp_request_info *r,
    const struct gw_table *t, const struct store_node *n)
{
	const oid *name = r->requestvb->name;
	size_t len = r->requestvb->name_length, bl = t->base_len;
	const struct gw_col *col;

	if (len <= bl || (t->applies && !t->applies(n)) ||
	    (col = find_col(t, name[bl])) == NULL) {
		netsnmp_set_request_error(reqinfo, r, SNMP_NOSUCHOBJECT);
		return;
	}
	if (len != bl + 2 || (t->scalar ? name[bl + 1] != 0 :
	    !row_exists(t, n, name[bl + 1]))) {
		netsnmp_set_request_error(reqinfo, r, SNMP_NOSUCHINSTANCE);
		return;
	}
	fetch(h, reg, reqinfo, r, t, col, n, t->scalar ? 0 :
	    (uint32_t)name[bl + 1]);
}

/* The first instance of this table after name, if any. */
static int
next_instance(const struct gw_table *t, const struct store_node *n,
    const oid *name, size_t len, const struct gw_col **colp, uint32_t *rowp)
{
	size_t bl = t->base_len;
	oid c = 0;
	int from_start = 0;

	if (netsnmp_oid_is_subtree(t->base, bl, name, len) != 0) {
		if (snmp_oid_compare(name, len, t->base, bl) > 0)
			return -1;
		from_start = 1;
	} else if (len == bl)
		from_start = 1;
	else
		c = name[bl];
	for (size_t i = 0; i < t->ncols; i++) {
		const struct gw_col *col = &t->cols[i];
		uint32_t row;

		if (!from_start && col->subid < c)
			continue;
		if (t->scalar) {
			/* col.0 follows name unless name is col.0 or under it. */
			if (!from_start && col->subid == c && len > bl + 1)
				continue;
			*colp = col;
			*rowp = 0;
			return 0;
		}
		if (!from_start && col->subid == c && len > bl + 1) {
			if (name[bl + 1] >= UINT32_MAX)
				continue;
			row = t->row_next(n, (uint32_t)name[bl + 1]);
		} else
			row = t->row_next(n, 0);
		if (row != 0) {
			*colp = col;
			*rowp = row;
			return 0;
		}
	}
	return -1;
}

static void
do_getnext(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *reqinfo, netsnmp_request_info *r,
    const struct gw_table *t, const struct store_node *n)
{
	const struct gw_col *col;
	uint32_t row;
	oid name[MAX_OID_LEN];
	size_t bl = t->base_len;

	if (t->applies && !t->applies(n))
		return;		/* untouched: the agent moves on */
	if (next_instance(t, n, r->requestvb->name,
	    r->requestvb->name_length, &col, &row) == -1)
		return;
	memcpy(name, t->base, bl * sizeof(oid));
	name[bl] = col->subid;
	name[bl + 1] = row;
	snmp_set_var_objid(r->requestvb, name, bl + 2);
	fetch(h, reg, reqinfo, r, t, col, n, row);
}

static int
gw_mib_handler(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
    netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	const struct gw_table *t = h->myvoid;
	const struct store_node *n = gw_snmp_request_node(reqinfo);

	for (netsnmp_request_info *r = requests; r != NULL; r = r->next) {
		if (r->processed || r->delegated)
			continue;
		if (n == NULL) {
			netsnmp_set_request_error(reqinfo, r, SNMP_ERR_GENERR);
			continue;
		}
		switch (reqinfo->mode) {
		case MODE_GET:
			do_get(h, reg, reqinfo, r, t, n);
			break;
		case MODE_GETNEXT:
			do_getnext(h, reg, reqinfo, r, t, n);
			break;
		default:
			/* Read-only by design: no SET reaches the fabric. */
			netsnmp_set_request_error(reqinfo, r,
			    SNMP_ERR_NOTWRITABLE);
		}
	}
	return SNMP_ERR_NOERROR;
}

int
gw_mib_register(const struct gw_table *t)
{
	netsnmp_handler_registration *reg;

	if (mib_nregs == (int)(sizeof(mib_regs) / sizeof(mib_regs[0])))
		return -1;
	reg = netsnmp_create_handler_registration(t->name, gw_mib_handler,
	    t->base, t->base_len, HANDLER_CAN_RONLY);
	if (reg == NULL)
		return -1;
	reg->handler->myvoid = (void *)t;
	reg->contextName = strdup(GW_NODE_CONTEXT);
	if (netsnmp_register_handler(reg) != MIB_REGISTERED_OK) {
		log_warnx("mib: cannot register %s", t->name);
		return -1;
	}
	mib_regs[mib_nregs++] = reg;
	return 0;
}

int
gw_mib_init(void)
{
	mib_nregs = 0;
	return gw_mib_sma_init();
}

void
gw_mib_finalise(void)
{
	/* net-snmp frees registrations in shutdown_agent(). */
	mib_nregs = 0;
}
