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

#include "codec/attr.h"
#include "codec/fields.h"	/* field columns name libibmad fields */
#include "gateway/snmp.h"
#include "store/cache.h"
#include "store/store.h"

/* The longest index served: IB-SM-MIB's ibSmServiceTable (subnet
 * prefix, ServiceID, ServiceGID, P_Key; one subid per octet). */
#define GW_MAX_INDEX	34

/* Getter and row results besides 0. */
#define GW_NEED		(-2)	/* an attribute is being fetched */
#define GW_BAD		(-1)	/* answer outside the MIB's range: genErr */
#define GW_ABSENT	(-3)	/* getters: this row has no such column */

struct gw_row {
	uint32_t	i[GW_MAX_INDEX];
	uint32_t	node;	/* 1 + the inventory index of the node the
				   table's rows() found it on; 0: none */
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
struct gw_col;

/* The node of the request; NULL in the gateway's own context. */
const struct store_node	*gw_node(struct gw_eval *e);
/* The column being evaluated (its arg, for getters shared by columns). */
const struct gw_col	*gw_column(struct gw_eval *e);
/* Whether the requester (its community's or user's node selector) may
 * see node n; the fabric context shows only such rows, and a node
 * context only such neighbours (LLDP-MIB). */
int			 gw_visible(struct gw_eval *e,
			    const struct store_node *n);
/* Whether the requester has no node selector: it also sees what
 * belongs to no inventory node (an SA record of an unknown port). */
int			 gw_visible_all(struct gw_eval *e);

/* An attribute of this node (a: its catalogue row; port: the CA/router
 * port to route through, 0 for the node's route). Returns the payload,
 * or NULL when it is being fetched or has failed; the getter then
 * returns GW_NEED. An optional attribute the node is known to lack
 * fails as refused (gw_err_refused): the instance is left out. */
const uint8_t	*gw_attr(struct gw_eval *e, enum attr_idx a, uint32_t mod,
		    uint8_t port);
/* Decoded with the catalogue's decoder into out: 0, GW_NEED, or GW_BAD
 * (garbage). */
int		 gw_decode(struct gw_eval *e, enum attr_idx a, uint32_t mod,
		    uint8_t port, void *out);
/* Like gw_attr for an optional attribute, but its absence is an answer:
 * NULL with *unsupported set when the node lacks it ("unsupported", or
 * an SMA that drops it; remembered in the inventory). */
const uint8_t	*gw_attr_opt(struct gw_eval *e, enum attr_idx a, uint32_t mod,
		    uint8_t port, int *unsupported);
/* Like gw_attr, but a failure is put in *err (a negative errno)
 * instead of failing the evaluation, for getters that have an answer
 * of their own when one port cannot be read. NULL with *err 0: being
 * fetched. */
const uint8_t	*gw_attr_try(struct gw_eval *e, enum attr_idx a, uint32_t mod,
		    uint8_t port, int *err);
/* Like gw_attr_try, for node n's attribute: fabric-context rows that
 * read what the node contexts' cache holds. Misses after the first
 * are fetched in the background, so the evaluation's next pass finds
 * them. */
const uint8_t	*gw_attr_of(struct gw_eval *e, const struct store_node *n,
		    enum attr_idx a, uint32_t mod, uint8_t port, int *err);
/* Start fetching an attribute now, for read-ahead. */
void		 gw_prefetch(struct gw_eval *e, enum attr_idx a, uint32_t mod,
		    uint8_t port);
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

typedef int (*gw_get_fn)(struct gw_eval *e, const struct gw_row *row,
    struct gw_val *v);

/* How a field column turns its field into a value. */
enum gw_kind {
	GW_K_UINT,	/* Unsigned32, checked against lo..hi if ranged */
	GW_K_INT,	/* INTEGER, likewise */
	GW_K_ENUM,	/* INTEGER: field + lo..hi mapped by bias, else other */
	GW_K_TRUTH,	/* TruthValue: true(1) if field & mask */
	GW_K_COUNTER,	/* Counter32 */
	GW_K_GUID,	/* IbGuid: 8 octets */
	GW_K_OCTETS	/* the field's octets, most significant first */
};

/* A column: a getter, or a field of an attribute at the table's
 * instance (gw_table.inst), as libibmad names it. */
struct gw_col {
	oid		 subid;
	const char	*name;		/* for log lines */
	gw_get_fn	 get;		/* NULL: a field column */
	long		 arg;		/* for shared getters (gw_column) */
	/* Field columns */
	int		 attr;		/* enum attr_idx */
	int		 field;		/* enum MAD_FIELDS */
	uint8_t		 kind;		/* enum gw_kind */
	uint8_t		 ranged;	/* lo..hi bound the value */
	uint8_t		 octets;	/* GW_K_OCTETS: how many */
	uint32_t	 mask;		/* GW_K_TRUTH */
	long		 lo, hi;	/* range; GW_K_ENUM: the codes kept */
	long		 bias, other;	/* GW_K_ENUM: lo..hi + bias, else other */
};

/* Columns are named by their MIB descriptor; the subid is the MIB's,
 * from gateway/oids.h (GW_ARC_<name>), so neither is written
 * twice. */
#define GW_GET(nm, fn) \
	{ .subid = GW_ARC_##nm, .name = #nm, .get = (fn) }
#define GW_GETA(nm, fn, a) \
	{ .subid = GW_ARC_##nm, .name = #nm, .get = (fn), .arg = (a) }
/* A field column: {name, attribute, field, kind, range}. */
#define GW_FIELD(nm, at, f, k, ...) \
	{ .subid = GW_ARC_##nm, .name = #nm, .attr = (at), .field = (f), \
	  .kind = (k), __VA_ARGS__ }
#define GW_RANGE(l, h)		.ranged = 1, .lo = (l), .hi = (h)
#define GW_CODES(l, h, b, o)	.lo = (l), .hi = (h), .bias = (b), .other = (o)
#define GW_MASK(m)		.mask = (m)
#define GW_NOCTETS(n)		.octets = (n)

/* A table's OID and columns, with lengths computed (no hand counting):
 * .GW_OID(1, 3, 6, ...), .GW_COLS(cols). */
#define GW_OID(...) \
	base = { __VA_ARGS__ }, \
	.base_len = sizeof((oid[]){ __VA_ARGS__ }) / sizeof(oid)
#define GW_COLS(c) \
	cols = (c), .ncols = sizeof(c) / sizeof((c)[0])

/* Where a field column's attribute is read for a row: modifier and
 * route port. */
typedef int (*gw_inst_fn)(struct gw_eval *e, const struct gw_row *row,
    uint32_t *mod, uint8_t *port);

struct gw_table {
	const char		*name;
	oid			 base[MAX_OID_LEN];	/* group, or Entry */
	size_t			 base_len;
	/* base is relative to snmp.sys-object-id-base (IBSNMPGW-MIB). */
	int			 under_sys_base;
	int			 nindex;	/* 0: scalars (instance .0) */
	const struct gw_col	*cols;		/* ascending subid */
	size_t			 ncols;
	/* Field columns' instance (NULL: the node, modifier 0). */
	gw_inst_fn		 inst;
	/* Whether the node has this group at all (NULL: every node). */
	int	(*applies)(const struct store_node *n);
	/* Tables: the first row >= lb (> lb unless inclusive). Returns 1
	 * and *out, 0 when there is none, GW_NEED, or GW_BAD (genErr). */
	int	(*row_next)(struct gw_eval *e, const struct gw_row *lb,
		    int inclusive, struct gw_row *out);
	/* Optional: field columns read this row's copy of their attribute
	 * (the inventory's), not the node's through the cache; NULL: the
	 * row has none and the column no instance. */
	const uint8_t *(*raw)(struct gw_eval *e, const struct gw_row *row,
		    int attr);
	/* Optional: on a GETNEXT miss, start fetches a walk will want
	 * next (the key of the miss is given). */
	void	(*read_ahead)(struct gw_eval *e, const struct cache_key *k);
	/* Node contexts: the gateway's own objects, never asked of a
	 * tunneled node's agent (tunnel: prefer). */
	int			 not_tunneled;
	/* No columns: every object below base is the tunneled node's
	 * agent's (mib_tunnel.c). Registered below every table (priority
	 * 255), so it gets only the ranges between them. */
	int			 agent;
	/* NULL: the node contexts; "": the gateway's own context;
	 * GW_FABRIC_CONTEXT: the fabric's (gw_node() is NULL; rows name
	 * their nodes). */
	const char		*context;
};

/* A table file: the MIB module, or the part of one, that it serves,
 * exported as gw_mod_<file name>. MIB_MODULES in Makefile.am lists the
 * files in start order (make writes gateway/mib/modules.h from it);
 * each hook is optional. Adding a table is its file and one line
 * there. */
struct gw_mib_module {
	const char		 *name;		/* for log lines */
	const struct gw_table	*const *tables;	/* NULL-terminated */
	/* Before the tables are registered; -1 stops the start. */
	int	(*init)(const struct gw_conf *c);
	/* After init, and on every reload: where a module's settings are
	 * applied, the one place for both. */
	void	(*configure)(const struct gw_conf *c);
	/* At shutdown, in the reverse of start order. */
	void	(*finalise)(void);
	/* After every completed sweep, the inventory just written: for
	 * modules that keep a view of what changed between sweeps. */
	void	(*swept)(void);
};

/* Start every module (gateway/mib_reg.c), apply a (reloaded)
 * configuration to them, stop them. */
int	gw_mib_init(const struct gw_conf *c);
void	gw_mib_configure(const struct gw_conf *c);
void	gw_mib_finalise(void);
/* A sweep finished: every started module's swept hook. */
void	gw_mib_swept(void);
/* What the evaluator assumes of a table (columns in ascending order,
 * an index with a row enumerator, ...): 0, or -1 with the fault in
 * why. Registration refuses a table that fails it. */
int	gw_mib_table_check(const struct gw_table *t, char *why, size_t len);
/* The module list, in start order (tests). */
const struct gw_mib_module *const *gw_mib_modules(size_t *n);
/* Whether two tables share a context and serve an OID in common (a
 * GETNEXT could not tell whose rows come first). */
int	gw_mib_tables_overlap(const struct gw_table *a,
	    const struct gw_table *b);

/* A field column's value from its raw field: 0, or GW_BAD outside its
 * range (exposed for unit tests). */
int	gw_field_value(const struct gw_col *c, uint64_t x, struct gw_val *v);
/* snmp.request-timeout-ms: how long a varbind may wait on the fabric
 * (its own timer; requests already waiting keep theirs). */
void	gw_mib_set_deadline(int ms);
/* Varbinds answered genErr by that deadline while waiting. */
uint64_t gw_mib_deadlines(void);
uint64_t gw_mib_get_deadline(void);
/* IB SNMP Tunneling (mib_tunnel.c): the node's own agent as a second
 * source. absorb: the agent's reply (untrusted) to request reqid into
 * node's answers (tests/fuzz/fuzz_tunreply.c). */
extern const struct gw_mib_module gw_mod_mib_tunnel;	/* its module */
int	gw_mib_tunnel_absorb(uint32_t node, uint32_t gen, long reqid, int get,
	    const oid **prev, size_t *prevlen, int n, const uint8_t *msg,
	    size_t len, int ttl);
/* Cached answers now (all nodes); one of them (tests): 0 and its type
 * and (GETNEXT) the successor, or -1. */
size_t	gw_mib_tunnel_cached(void);
int	gw_mib_tunnel_peek(uint32_t node, int get, const oid *name,
	    size_t len, uint32_t gen, oid *next, size_t *next_len,
	    u_char *type);
struct gw_mib_tunnel_stats {
	uint64_t	cached, deadlines, errors;
};
void	gw_mib_tunnel_stats(struct gw_mib_tunnel_stats *st);

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
/* Gauge32, held at 2^32-1 above it (RFC 2578 7.1.7). */
int	gw_val_gauge(struct gw_val *v, uint64_t x);
/* The same, checked against the MIB's range: 0, or GW_BAD outside
 * lo..hi. */
int	gw_val_uint_in(struct gw_val *v, unsigned long ul, unsigned long lo,
	    unsigned long hi);
int	gw_val_int_in(struct gw_val *v, long l, long lo, long hi);

/* Helpers for row enumeration over a 1..n single index. */
int	gw_row_range(const struct gw_row *lb, int inclusive, uint32_t lo,
	    uint32_t hi, struct gw_row *out);

/* The IBSNMPGW-MIB base (snmp.sys-object-id-base) into o; its length, 0
 * if longer than max. */
size_t	gw_mib_sys_base(oid *o, size_t max);

/* The context name that reaches node n (ibsnmpgwNodeContext): its
 * alias; else its description's first word when that resolves to n
 * alone; else its GUID. "" for no node. */
#define GW_CONTEXT_LEN	(STORE_DESC_LEN + 1)
void	gw_context_name(const struct store_node *n, char *buf, size_t len);

#endif
