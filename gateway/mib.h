/* gw_mib: table-driven MIB handlers for node contexts.
 *
 * A gw_table describes one scalar group or one conceptual table whose
 * values come from MAD attributes through the cache. The one handler in
 * mib.c does GET and GETNEXT (and so GETBULK) for all of them: it finds
 * the instance from the inventory, looks the attribute up in the cache,
 * and on a miss delegates the varbind until the MAD answers. */
#ifndef IBSNMPGW_GW_MIB_H
#define IBSNMPGW_GW_MIB_H

#include "gateway/snmp.h"
#include "store/cache.h"
#include "store/store.h"

/* Where a column's value comes from. */
enum gw_src {
	GW_SRC_INVENTORY,	/* no MAD: from the store */
	GW_SRC_NODEINFO,
	GW_SRC_NODEDESC,
	GW_SRC_PORTINFO,
};

struct gw_val {
	u_char		type;		/* ASN_* */
	long		l;		/* INTEGER, Unsigned32, Counter32 ... */
	struct counter64 c64;
	size_t		len;		/* OCTET STRING */
	uint8_t		buf[256];
};

/* Input to a column's get function. data is the attribute payload for
 * the column's source (NULL for GW_SRC_INVENTORY). */
struct gw_ctx {
	const struct store_node	*node;
	uint32_t		 row;	/* 0 for scalars */
	const uint8_t		*data;
	size_t			 len;
};

/* Returns 0 with *v set, or -1 when the node's answer is out of the
 * MIB's range (logged by the caller, answered as genErr). */
typedef int (*gw_get_fn)(const struct gw_ctx *x, struct gw_val *v);

struct gw_col {
	oid		 subid;
	enum gw_src	 src;
	gw_get_fn	 get;
	const char	*name;		/* for log lines */
};

struct gw_table {
	const char		*name;
	oid			 base[MAX_OID_LEN];	/* group, or Entry */
	size_t			 base_len;
	int			 scalar;	/* instances are .0 */
	const struct gw_col	*cols;		/* ascending subid */
	size_t			 ncols;
	/* Whether the node has this group at all (NULL: every node). */
	int	(*applies)(const struct store_node *n);
	/* Tables: first row index > after, 0 when none. */
	uint32_t (*row_next)(const struct store_node *n, uint32_t after);
	/* Cache key for (source, row). */
	void	(*key)(const struct store_node *n, enum gw_src src,
		    uint32_t row, struct cache_key *k, enum cache_class *cls);
	/* Rows to read ahead on a GETNEXT miss (walks). */
	int			 readahead;
};

int	gw_mib_init(void);
void	gw_mib_finalise(void);
/* Register a table in the node context. */
int	gw_mib_register(const struct gw_table *t);

/* Value helpers for get functions. */
void	gw_val_int(struct gw_val *v, long l);
void	gw_val_uint(struct gw_val *v, unsigned long ul);	/* Unsigned32 */
void	gw_val_octets(struct gw_val *v, const void *p, size_t len);
void	gw_val_guid(struct gw_val *v, uint64_t guid);
int	gw_val_range(struct gw_val *v, long lo, long hi);

/* Module registration (mib_sma.c, mib_system.c). */
int	gw_mib_sma_init(void);
int	gw_mib_system_init(const struct gw_conf *c);

#endif
