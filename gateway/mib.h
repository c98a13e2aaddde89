/* gw_mib: table-driven MIB handlers for node contexts.
 *
 * A gw_table describes one scalar group or one conceptual table. Its
 * row enumeration and its column getters read MAD attributes through
 * gw_attr(); when an attribute is not cached yet, gw_attr() returns NULL,
 * the varbind is delegated, and the whole evaluation of that varbind runs
 * again once the attribute arrives. So rows may depend on fabric data
 * (LinearFDBTop, VLArbHighCap, ...) and no code path blocks. */
#ifndef IBSNMPGW_GW_MIB_H
#define IBSNMPGW_GW_MIB_H

#include "gateway/snmp.h"
#include "store/cache.h"
#include "store/store.h"

#define GW_MAX_INDEX	3

/* Getter and row results besides 0. */
#define GW_NEED		(-2)	/* an attribute is being fetched */
#define GW_BAD		(-1)	/* answer outside the MIB's range: genErr */
#define GW_ABSENT	(-3)	/* getters: this row has no such column */

struct gw_row {
	uint32_t	i[GW_MAX_INDEX];
};

struct gw_val {
	u_char		type;		/* ASN_* */
	long		l;		/* INTEGER, Unsigned32, Counter32 ... */
	struct counter64 c64;
	size_t		len;		/* OCTET STRING, OID (bytes) */
	uint8_t		buf[256];
};

/* Evaluation of one varbind (opaque to tables). */
struct gw_eval;

const struct store_node	*gw_node(struct gw_eval *e);
/* An SMP attribute of this node (port: CA/router port to route through,
 * 0 for the node's route). Returns the payload, or NULL when it is being
 * fetched or has failed; the getter then returns GW_NEED. */
const uint8_t	*gw_attr(struct gw_eval *e, uint16_t attr, uint32_t mod,
		    uint8_t port, enum cache_class cls);
/* Like gw_attr, but a MAD status of "unsupported" is an answer, not an
 * error: returns NULL and sets *unsupported (the node is remembered as
 * not supporting it). */
const uint8_t	*gw_attr_opt(struct gw_eval *e, uint16_t attr, uint32_t mod,
		    uint8_t port, enum cache_class cls, unsigned flag,
		    int *unsupported);

/* The same for another management class (PerfMgt). */
const uint8_t	*gw_attr_class(struct gw_eval *e, uint8_t mclass,
		    uint16_t attr, uint32_t mod, uint8_t port,
		    enum cache_class cls);
const uint8_t	*gw_attr_opt_class(struct gw_eval *e, uint8_t mclass,
		    uint16_t attr, uint32_t mod, uint8_t port,
		    enum cache_class cls, unsigned flag, int *unsupported);

/* Like gw_attr_class, but a failure is put in *err (a negative errno)
 * instead of failing the evaluation, for getters that have an answer
 * of their own when one port cannot be read. NULL with *err 0: being
 * fetched. */
const uint8_t	*gw_attr_try(struct gw_eval *e, uint8_t mclass,
		    uint16_t attr, uint32_t mod, uint8_t port,
		    enum cache_class cls, int *err);
/* Fail the evaluation with err (negative errno): genErr, or, when the
 * node refused only this instance (gw_err_refused), noSuchInstance for
 * GET and the next instance for GETNEXT. */
void		 gw_fail(struct gw_eval *e, int err);
/* Whether a failure is this instance's alone: the node answered with a
 * MAD status refusing the attribute or its modifier (IBA 13.4.7 Table
 * 119), as a PMA does for a port it cannot count. Silence, garbage and
 * holds are the node's. */
int		 gw_err_refused(int err);

/* Answers given instead of a value the fabric would not give, per node
 * (docs/errors.md, `ctl node`). */
struct gw_degraded {
	uint64_t	stale;		/* counters as last read */
	uint64_t	zero;		/* counters of a port never readable */
	uint64_t	skipped;	/* instances left out (GETNEXT) or
					 * noSuchInstance (GET) */
};
const struct gw_degraded *gw_degraded_get(uint32_t node);
/* Count one, e.g. gw_degraded_add(idx, offsetof(struct gw_degraded,
 * stale)). */
void	gw_degraded_add(uint32_t node, size_t field);

/* Start fetching an attribute now, for read-ahead. */
void		 gw_prefetch(struct gw_eval *e, uint16_t attr, uint32_t mod,
		    uint8_t port, enum cache_class cls);

typedef int (*gw_get_fn)(struct gw_eval *e, const struct gw_row *row,
    struct gw_val *v);

struct gw_col {
	oid		 subid;
	gw_get_fn	 get;
	const char	*name;		/* for log lines */
};

struct gw_table {
	const char		*name;
	oid			 base[MAX_OID_LEN];	/* group, or Entry */
	size_t			 base_len;
	int			 nindex;	/* 0: scalars (instance .0) */
	const struct gw_col	*cols;		/* ascending subid */
	size_t			 ncols;
	/* Whether the node has this group at all (NULL: every node). */
	int	(*applies)(const struct store_node *n);
	/* Tables: the first row >= lb (> lb unless inclusive). Returns 1
	 * and *out, 0 when there is none, GW_NEED, or GW_BAD (genErr). */
	int	(*row_next)(struct gw_eval *e, const struct gw_row *lb,
		    int inclusive, struct gw_row *out);
	/* Optional: on a GETNEXT miss, start fetches a walk will want
	 * next (the key of the miss is given). */
	void	(*read_ahead)(struct gw_eval *e, const struct cache_key *k);
	const char		*context;	/* NULL: the node context */
};

int	gw_mib_init(const struct gw_conf *c);
void	gw_mib_finalise(void);
int	gw_mib_register(const struct gw_table *t);

/* Value helpers for getters; each returns 0. */
int	gw_val_int(struct gw_val *v, long l);
int	gw_val_uint(struct gw_val *v, unsigned long ul);	/* Unsigned32 */
int	gw_val_counter(struct gw_val *v, unsigned long ul);
int	gw_val_counter64(struct gw_val *v, uint64_t x);
/* Put v into the request's varbind. */
void	gw_val_set(netsnmp_request_info *r, const struct gw_val *v);
int	gw_val_truth(struct gw_val *v, int b);
int	gw_val_octets(struct gw_val *v, const void *p, size_t len);
int	gw_val_guid(struct gw_val *v, uint64_t guid);
int	gw_val_oid(struct gw_val *v, const oid *o, size_t n);
/* The same, checked against the MIB's range: 0, or GW_BAD outside
 * lo..hi. */
int	gw_val_uint_in(struct gw_val *v, unsigned long ul, unsigned long lo,
	    unsigned long hi);
int	gw_val_int_in(struct gw_val *v, long l, long lo, long hi);

/* Helpers for row enumeration over a 1..n single index. */
int	gw_row_range(const struct gw_row *lb, int inclusive, uint32_t lo,
	    uint32_t hi, struct gw_row *out);

/* Modules. */
int	gw_mib_sma_init(void);
int	gw_mib_sma_tables_init(void);
int	gw_mib_system_init(const struct gw_conf *c);
int	gw_mib_node_system_init(const struct gw_conf *c);
int	gw_mib_gwport_init(void);
/* The IBSNMPGW-MIB base (snmp.sys-object-id-base) into o; its length, 0
 * if longer than max. Set by gw_mib_system_init. */
size_t	gw_mib_sys_base(oid *o, size_t max);

#endif
