/* store_blueprint: the fabric against a blueprint (docs/health.md, "The
 * fabric against a blueprint").
 *
 * The blueprint is a topology (store/topo.h): the file topology.expected
 * names, else the fabric as `ctl topology pin` took it, kept in the
 * database (schema 8). Each comparison reads the inventory alone (no
 * MAD) and keeps one row per difference; a row that appears posts
 * STORE_EV_TOPO_MISMATCH, one that goes STORE_EV_TOPO_MATCH (source
 * sweep). The rows, their numbers and since when they stand are kept in
 * the database too, so a restart neither forgets nor notifies them
 * again. */
#ifndef IBSNMPGW_STORE_BLUEPRINT_H
#define IBSNMPGW_STORE_BLUEPRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store/node.h"
#include "store/topo.h"

/* IBSNMPGW-MIB ibsnmpgwTopologyDiffKind */
enum store_bp_kind {
	STORE_BP_NODE_MISSING = 1,	/* in the blueprint, not reached */
	STORE_BP_NODE_UNEXPECTED,	/* reached, not in the blueprint */
	STORE_BP_CABLE_MISSING,
	STORE_BP_CABLE_UNEXPECTED,
	STORE_BP_CABLE_MOVED,		/* on other ports than planned */
	STORE_BP_LINK_BELOW,		/* slower or narrower than planned */
	STORE_BP_NODE_AMBIGUOUS,	/* its description names several */
	STORE_BP_KIND_MAX
};

#define STORE_BP_TEXT_LEN	160

struct store_bp_diff {
	uint32_t	index;		/* 1, 2, ...: never reused */
	uint8_t		kind;		/* enum store_bp_kind */
	uint8_t		port, rport;	/* 0: not about a port */
	uint64_t	guid, rguid;	/* 0: unknown (named by description) */
	int64_t		since;		/* unix seconds */
	char		desc[STORE_DESC_LEN + 1];	/* the node's */
	char		expected[STORE_BP_TEXT_LEN];	/* as planned */
	char		found[STORE_BP_TEXT_LEN];	/* as it is */
};

/* With the database open (store_init): the pinned blueprint and the
 * rows the last run left. */
int	store_blueprint_init(void);
void	store_blueprint_finalise(void);
/* The blueprint from a file (topology.expected; t parsed from path, and
 * copied), or, with path NULL, the pinned one if any. Compares at once
 * once the inventory is current (store_blueprint_compare has run). */
int	store_blueprint_use_file(const char *path, const struct store_topo *t);
/* Take the reachable inventory as the blueprint and keep it. 0, or -1
 * with why (a file is the blueprint; the database failed). */
int	store_blueprint_pin(char *why, size_t len);
/* Compare the inventory with the blueprint (after every sweep and every
 * change a Report brought). */
void	store_blueprint_compare(void);
/* The rows, in index order. */
size_t	store_blueprint_count(void);
const struct store_bp_diff *store_blueprint_at(size_t i);
/* The first row whose index is >= index, or NULL. */
const struct store_bp_diff *store_blueprint_from(uint32_t index);
/* What the blueprint is, for ctl: "file PATH", "pinned TIME" or
 * "none", with its node and cable counts; the comparisons made. */
void	store_blueprint_describe(char *buf, size_t len);
const char *store_blueprint_kind_name(int kind);
/* Write the blueprint in ibnetdiscover's format (nothing if none). */
void	store_blueprint_write(FILE *f);

/* The comparison itself (store/bp_compare.c): the inventory against t,
 * the rows (index and since unset) into a new array. Returns how many,
 * or -1 (no memory). */
long	store_bp_compare(const struct store_topo *t,
	    struct store_bp_diff **out);

#endif
