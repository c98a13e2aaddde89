/* IB-SM-MIB's query tables: what ib_sm_mib_query.c (the queries: rows,
 * request fields, SA paths and LFT traces) shares with
 * ib_sm_mib_query_snmp.c (their objects, SETs and module) only. */
#ifndef IBSNMPGW_GW_MIB_IB_SM_MIB_QUERY_H
#define IBSNMPGW_GW_MIB_IB_SM_MIB_QUERY_H

#include "gateway/mib.h"

#define RS_ACTIVE		1	/* RowStatus, RFC 2579 */
#define RS_NOT_IN_SERVICE	2
#define RS_NOT_READY		3
#define RS_CREATE_AND_GO	4
#define RS_CREATE_AND_WAIT	5
#define RS_DESTROY		6

#define Q_PATH		0
#define Q_TRACE		1
#define Q_MPATH		2

#define Q_REC_MAX	200	/* SA data in one MAD (Table 185) */
#define OWNER_LEN	80

/* A request field: where a column's value goes in the record the query
 * sends (big-endian bit field of `bytes` octets at `off`), or octets. */
struct q_field {
	int		 col;		/* request column */
	int		 octets;	/* OCTET STRING of this size, else 0 */
	int		 off, bytes, shift, width;
	long		 lo, hi;
	int		 maskbit;	/* component mask bit (Table 210) */
};

/* The GID list (SDGIDBlock1..32, 16 GIDs each) starts at octet 24. One
 * MAD segment carries 11 GIDs: block 1 holds them, the others stay
 * empty (docs/mibs.md). */
#define MP_BLOCK1	GW_ARC_ibSmMultiPathReqSDGIDBlock1
#define MP_GIDS_OFF	24
#define MP_MAX_GIDS	((Q_REC_MAX - MP_GIDS_OFF) / 16)

struct q_row {
	int		 kind;
	uint32_t	 session;
	uint64_t	 id;		/* for completions: rows may go */
	char		 owner[OWNER_LEN];
	int		 status;	/* RS_* */
	uint32_t	 created;	/* sysUpTime */
	uint64_t	 touched;	/* ms: creation or last activation */
	uint8_t		 rec[Q_REC_MAX]; /* request record */
	size_t		 gidlen;	/* MultiPath: octets of GIDs */
	uint64_t	 set;		/* columns written (bit = column) */
	uint8_t		 mask[8];	/* RowCompMask / CompMask */
	int		 pending;	/* a query is under way */
	int		 error;		/* the last query's, negative errno */
	uint8_t		*res;		/* results */
	size_t		 nres, ressize;
};

extern struct q_row	**gw_smq_rows;	/* sorted by (kind, session) */
extern size_t		 gw_smq_nrows;
/* snmp.fabric-query-age (s) and -max (rows per requester). */
extern int		 gw_smq_age, gw_smq_max;

/* Rows */
struct q_row	*gw_smq_row_get(int kind, uint32_t session);
struct q_row	*gw_smq_row_new(int kind, uint32_t session, const char *owner);
void		 gw_smq_row_free(struct q_row *r);
size_t		 gw_smq_owned(const char *owner);
/* Request fields */
const struct q_field *gw_smq_field_of(int kind, int col);
int		 gw_smq_is_block(int kind, int col);
struct q_field	 gw_smq_flow_word(const struct q_field *f);
void		 gw_smq_put_bits(uint8_t *rec, const struct q_field *f,
		    uint64_t v);
int		 gw_smq_field_val(const struct q_field *f, const uint8_t *rec,
		    struct gw_val *v);
/* Visibility */
const struct store_node *gw_smq_node_of_gid(const uint8_t *gid);
int		 gw_smq_path_ends(const struct q_row *r,
		    const struct store_node **src,
		    const struct store_node **dst, uint16_t *slid,
		    uint16_t *dlid);
/* Queries */
uint64_t	 gw_smq_row_mask(const struct q_row *r);
void		 gw_smq_activate(struct q_row *r);
/* The aging of rows (snmp.fabric-query-age). */
void		 gw_smq_start(void);
void		 gw_smq_stop(void);

#endif
