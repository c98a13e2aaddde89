/* proxy_sa: SubnAdmGetTable queries to the master SM (IBA 15.4). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "codec/attr.h"
#include "codec/smp.h"
#include "proxy/mad.h"
#include "proxy/sa.h"
#include "store/cache.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"

#define SA_STATUS_NO_RECORDS	0x0300	/* IBA 15.2.1.1 Table 184 */
#define SA_HDR_LEN		20	/* SMKey, AttributeOffset, mask */
/* RMPP header (IBA 13.6.2.1 Table 174), octets 24..35 of the MAD. */
#define RMPP_VERSION		24
#define RMPP_FLAGS		26
#define RMPP_FLAG_ACTIVE	0x01
#define RMPP_FLAG_FIRST		0x02
#define RMPP_PAYLOAD_LEN	32

struct sa_kind_def {
	uint16_t	attr;
	size_t		len;
	const char	*name;
};

static const struct sa_kind_def sa_kinds[STORE_SA_MAX] = {
	[STORE_SA_MCMEMBER] = { IB_SA_ATTR_MCRECORD, PROXY_SA_MCMEMBER_LEN,
	    "MCMemberRecord" },
	[STORE_SA_SERVICE] = { IB_SA_ATTR_SERVICERECORD,
	    PROXY_SA_SERVICE_LEN, "ServiceRecord" },
};

static int		 sa_busy[STORE_SA_MAX];
static uint64_t		 sa_failed_at[STORE_SA_MAX];	/* ms, 0: none */
static int		 sa_truncation_logged[STORE_SA_MAX];
static struct proxy_sa_stats sa_st;
static int		 sa_on;

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static int
all_zero(const uint8_t *p, size_t len)
{
	while (len-- > 0)
		if (*p++)
			return 0;
	return 1;
}

int
proxy_sa_records(const uint8_t *mad, size_t len, size_t min_len,
    const uint8_t **recs, size_t *n, size_t *stride, size_t *announced)
{
	size_t avail, sz, have;

	*n = *announced = 0;
	*stride = 0;
	*recs = NULL;
	if (len < IB_SA_DATA_OFFS)
		return -1;
	/* AttributeOffset: the record stride in 8-octet words (15.2.1.1);
	 * 0 with no records. */
	sz = (size_t)mad_get_field((void *)mad, 0, IB_SA_ATTROFFS_F) * 8;
	*recs = mad + IB_SA_DATA_OFFS;
	avail = len - IB_SA_DATA_OFFS;
	if (sz == 0)
		return 0;
	if (sz < min_len)
		return -1;
	have = avail / sz;
	/* PayloadLength of the first segment: the whole transfer's
	 * (13.6.2.3), SA header included. One that is not a whole number
	 * of records was not set by an RMPP layer: opensm under ibsim
	 * answers GetMulti with the request's RMPP header (tests/sim/
	 * README.md). The MAD itself says how much came then. */
	if (mad[RMPP_VERSION] == 1 && (mad[RMPP_FLAGS] & (RMPP_FLAG_ACTIVE |
	    RMPP_FLAG_FIRST)) == (RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST) &&
	    be32(mad + RMPP_PAYLOAD_LEN) != 0) {
		uint32_t pl = be32(mad + RMPP_PAYLOAD_LEN);

		if (pl < SA_HDR_LEN)
			return -1;
		if ((pl - SA_HDR_LEN) % sz != 0)
			goto one_mad;
		*announced = (pl - SA_HDR_LEN) / sz;
		*n = have < *announced ? have : *announced;
		*stride = sz;
		return 0;
	}
one_mad:
	/* One MAD, zero-padded after the last record. */
	*n = have;
	while (*n > 0 && all_zero(*recs + (*n - 1) * sz, sz))
		(*n)--;
	*announced = *n;
	/* The sender meant an RMPP transfer (Active) but no RMPP layer
	 * numbered it, and it fills the MAD: a simulator that forwards
	 * the first 256 octets of the SA's answer (tests/sim/README.md).
	 * How many records are missing is unknowable; at least one. */
	if ((mad[RMPP_FLAGS] & RMPP_FLAG_ACTIVE) && mad[RMPP_VERSION] == 0 &&
	    len == 256 && IB_SA_DATA_SIZE - *n * sz < sz)
		*announced = *n + 1;
	*stride = sz;
	return 0;
}

/* MasterSMLID of our own port, last read: the master sets it in every
 * port (IBA 14.4.8), so after a failover it names the new master before
 * any sweep has asked the SMs for their SMInfo. */
static uint16_t		 sa_master_seen;

void
proxy_sa_set_master(uint16_t lid)
{
	if (lid == 0 || lid >= 0xc000 || lid == sa_master_seen)
		return;
	if (sa_master_seen != 0)
		log_notice("sa: the master SM is at LID %u now (was %u)", lid,
		    sa_master_seen);
	sa_master_seen = lid;
}

struct master_check {
	void	(*done)(void *);
	void	*arg;
};

static void
master_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct master_check *mc = arg;
	struct smp_portinfo pi;

	if (status == 0 && smp_decode_portinfo(mad + SMP_DATA_OFFS,
	    SMP_DATA_SIZE, &pi) == 0)
		proxy_sa_set_master(pi.sm_lid);
	mc->done(mc->arg);
	free(mc);
}

int
proxy_sa_check_master(void (*done)(void *), void *arg)
{
	struct proxy_local_port lp;
	struct proxy_mad_args a;
	struct master_check *mc;

	if (proxy_mad_local(&lp) == -1 || (mc = malloc(sizeof(*mc))) == NULL)
		return -1;
	mc->done = done;
	mc->arg = arg;
	memset(&a, 0, sizeof(a));
	a.node_key = lp.port_guid;
	a.target.path.cnt = 0;		/* our own port (route "0") */
	a.mgmt_class = ATTR_CLASS_SMI_DR;
	a.method = SMP_METHOD_GET;
	a.attr_id = SMP_ATTR_PORT_INFO;
	a.attr_mod = lp.port;
	if (proxy_mad_submit(&a, master_cb, mc) == -1) {
		free(mc);
		return -1;
	}
	return 0;
}

/* The master SM's LID: our own port's MasterSMLID as last read; else
 * the last sweep's SMInfo (state master, 14.2.5.13) and the inventory's
 * LID of its port; else the local port's MasterSMLID from the device. */
uint16_t
proxy_sa_master_lid(uint64_t *key)
{
	struct proxy_local_port lp;
	size_t i;

	if (sa_master_seen != 0) {
		*key = sa_master_seen;
		return sa_master_seen;
	}

	for (i = 0; i < store_sm_count(); i++) {
		const struct store_sm *s = store_sm_at(i);
		struct store_node *n = store_node_by_guid(s->node_guid);
		struct smp_sminfo sm;

		if (smp_decode_sminfo(s->sminfo, sizeof(s->sminfo), &sm) ||
		    sm.state != 3 || n == NULL || s->port > n->num_ports)
			continue;
		if (n->ports[s->port].lid != 0) {
			*key = s->port_guid;
			return n->ports[s->port].lid;
		}
	}
	if (proxy_mad_local(&lp) == 0 && lp.sm_lid != 0) {
		*key = lp.sm_lid;
		return lp.sm_lid;
	}
	return 0;
}

/* A refresh is one GetTable, carrying the SA key when one is set (a
 * trusted requester, IBA 15.4.1: opensm then lists every member).
 * MCMemberRecord takes a second, untrusted one: opensm shows a trusted
 * requester no group without members, and anyone else each group once
 * with PortGID zero. Both sets together make the snapshot. */
struct sa_acc {
	uint8_t		*recs;
	size_t		 n, announced;
};

static struct sa_acc	 sa_acc[STORE_SA_MAX];

static int	submit(enum store_sa_kind kind, int pass);

static int
passes(enum store_sa_kind kind)
{
	return proxy_mad_has_sa_key() && kind == STORE_SA_MCMEMBER ? 2 : 1;
}

static void
acc_drop(enum store_sa_kind kind)
{
	free(sa_acc[kind].recs);
	memset(&sa_acc[kind], 0, sizeof(sa_acc[kind]));
}

static int
acc_add(enum store_sa_kind kind, const uint8_t *recs, size_t n,
    size_t stride, size_t announced)
{
	struct sa_acc *a = &sa_acc[kind];
	size_t len = sa_kinds[kind].len;
	uint8_t *p;

	if ((p = realloc(a->recs, (a->n + n) * len + 1)) == NULL) {
		log_warn("sa");
		return -1;
	}
	a->recs = p;
	/* Each record's first len octets: a later IBA version may
	 * lengthen the stride. */
	for (size_t i = 0; i < n; i++)
		memcpy(p + (a->n + i) * len, recs + i * stride, len);
	a->n += n;
	a->announced += announced;
	return 0;
}

static void
query_failed(enum store_sa_kind kind)
{
	sa_st.failures++;
	sa_failed_at[kind] = ev_now();
	acc_drop(kind);
	store_sa_failed(kind);
}

static void
query_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	enum store_sa_kind kind = (enum store_sa_kind)((intptr_t)arg & 0xff);
	int pass = (int)((intptr_t)arg >> 8);
	const struct sa_kind_def *d = &sa_kinds[kind];
	const uint8_t *recs = NULL;
	size_t n = 0, stride = 0, announced = 0;

	sa_busy[kind] = 0;
	if (!sa_on) {
		acc_drop(kind);
		return;
	}
	if (status == -EIO && mad != NULL &&
	    (proxy_mad_status(mad) & 0x7f00) == SA_STATUS_NO_RECORDS)
		status = 0;		/* no records: an empty table */
	else if (status != 0 || proxy_sa_records(mad, len,
	    d->len, &recs, &n, &stride, &announced) == -1) {
		if (status == 0)
			log_warnx("sa: malformed %s table from the SM",
			    d->name);
		else
			log_warnx("sa: %s query: %s", d->name,
			    strerror(-status));
		query_failed(kind);
		return;
	}
	sa_st.answers++;
	if (n < announced) {
		sa_st.truncated++;
		if (!sa_truncation_logged[kind]++)
			log_warnx("sa: %s: the answer fills one MAD and was "
			    "not reassembled (no RMPP under this port): records "
			    "after the first %zu may be missing", d->name, n);
	}
	if (acc_add(kind, recs, n, stride, announced) == -1) {
		query_failed(kind);
		return;
	}
	if (pass + 1 < passes(kind)) {
		if (submit(kind, pass + 1) == -1)
			query_failed(kind);
		return;
	}
	store_sa_put(kind, sa_acc[kind].recs, sa_acc[kind].n, d->len,
	    sa_acc[kind].announced);
	acc_drop(kind);
}

/* Pass 0 carries the SA key (if any), pass 1 none. */
static int
submit(enum store_sa_kind kind, int pass)
{
	struct proxy_mad_args a = { 0 };
	uint64_t key = 0;
	uint16_t lid;

	if ((lid = proxy_sa_master_lid(&key)) == 0)
		return -1;
	a.node_key = key;
	a.target.lid = lid;
	a.mgmt_class = IB_SA_CLASS;
	a.method = PROXY_SA_GET_TABLE;
	a.attr_id = sa_kinds[kind].attr;
	a.comp_mask = 0;	/* every record (15.4.4) */
	a.sa_trusted = pass == 0;
	sa_st.sm_lid = lid;
	if (proxy_mad_submit(&a, query_cb, (void *)(intptr_t)(kind |
	    pass << 8)) == -1)
		return -1;
	sa_busy[kind] = 1;
	sa_st.queries++;
	return 0;
}

void
proxy_sa_refresh(enum store_sa_kind kind)
{
	uint64_t key;

	if (!sa_on || sa_busy[kind] || !proxy_mad_port_up())
		return;
	if (sa_failed_at[kind] != 0 && ev_now() - sa_failed_at[kind] <
	    (uint64_t)cache_get_ttl(ATTR_TTL_ERROR) * 1000)
		return;
	if (proxy_sa_master_lid(&key) == 0)
		return;		/* no SM yet: nothing to ask */
	acc_drop(kind);
	if (submit(kind, 0) == -1) {
		sa_failed_at[kind] = ev_now();
		return;
	}
	sa_failed_at[kind] = 0;
}

struct sa_call {
	proxy_sa_cb	 cb;
	void		*arg;
	size_t		 min_len;
};

static void
call_cb(void *arg, int status, const uint8_t *mad, size_t len)
{
	struct sa_call *c = arg;
	const uint8_t *recs = NULL;
	size_t n = 0, stride = 0, announced = 0;

	if (status == -EIO && mad != NULL &&
	    (proxy_mad_status(mad) & 0x7f00) == SA_STATUS_NO_RECORDS)
		status = -ENOENT;
	else if (status == 0 && proxy_sa_records(mad, len,
	    c->min_len, &recs, &n, &stride, &announced) == -1)
		status = -EPROTO;
	if (status == 0)
		sa_st.answers++;
	else
		sa_st.failures++;
	if (status == 0 && n < announced)
		sa_st.truncated++;
	c->cb(c->arg, status, recs, n, stride, announced);
	free(c);
}

int
proxy_sa_query(uint8_t method, uint16_t attr, uint64_t comp_mask,
    const uint8_t *rec, size_t len, size_t min_len, proxy_sa_cb cb, void *arg)
{
	struct proxy_mad_args a = { 0 };
	struct sa_call *c;
	uint64_t key = 0;
	uint16_t lid;

	if (!sa_on || len > IB_SA_DATA_SIZE || (lid = proxy_sa_master_lid(&key)) == 0) {
		errno = EHOSTUNREACH;
		return -1;
	}
	if ((c = malloc(sizeof(*c))) == NULL)
		return -1;
	c->cb = cb;
	c->arg = arg;
	c->min_len = min_len;
	a.node_key = key;
	a.target.lid = lid;
	a.mgmt_class = IB_SA_CLASS;
	a.method = method;
	a.sa_trusted = 1;
	a.rmpp_request = method == PROXY_SA_GET_MULTI;
	/* MultiPathRecord's answer is PathRecords (IBA 15.2.5.20). */
	if (attr == 0x003A)
		a.answer_attr = 0x0035;
	a.attr_id = attr;
	a.comp_mask = comp_mask;
	a.data = rec;
	a.data_len = (uint8_t)len;
	if (proxy_mad_submit(&a, call_cb, c) == -1) {
		free(c);
		return -1;
	}
	sa_st.queries++;
	sa_st.sm_lid = lid;
	return 0;
}

static void
refresh_hook(enum store_sa_kind kind, void *arg)
{
	(void)arg;
	proxy_sa_refresh(kind);
}

int
proxy_sa_init(void)
{
	sa_on = 1;
	store_sa_set_refresh(refresh_hook, NULL);
	return 0;
}

void
proxy_sa_finalise(void)
{
	/* Answers still in flight end in query_cb, which sees sa_on 0. */
	sa_on = 0;
	sa_master_seen = 0;
	for (int k = 0; k < STORE_SA_MAX; k++)
		acc_drop((enum store_sa_kind)k);
	store_sa_set_refresh(NULL, NULL);
}

void
proxy_sa_get_stats(struct proxy_sa_stats *st)
{
	*st = sa_st;
}
