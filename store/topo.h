/* store_topo: a fabric's topology as ibnetdiscover(8) writes it, the
 * format admins keep their cabling plans in (docs/health.md, "The
 * fabric against a blueprint").
 *
 * The parser is pure: text in, nodes and cables out, every fault as
 * "file:line: what". The writer prints a topology in the same format,
 * so what `ctl topology pin` keeps reads back through the parser. */
#ifndef IBSNMPGW_STORE_TOPO_H
#define IBSNMPGW_STORE_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store/node.h"

#define STORE_TOPO_ID_LEN	80	/* the quoted node id */

struct store_topo_node {
	uint64_t	guid;		/* 0: named by description only */
	uint8_t		type;		/* enum store_node_type */
	uint8_t		nports;
	int		line;		/* of its header (0: not from a file) */
	char		id[STORE_TOPO_ID_LEN + 1];
	char		desc[STORE_DESC_LEN + 1];
};

/* One cable, as either end's port line gave it. */
struct store_topo_link {
	uint32_t	a, b;		/* node indexes */
	uint8_t		pa, pb;		/* port numbers */
	uint8_t		lanes;		/* 1, 2, 4, 8, 12; 0: not given */
	uint8_t		speed;		/* enum smp_speed; 0: not given */
	int		line;
};

struct store_topo {
	struct store_topo_node	*nodes;
	size_t			 nnodes;
	struct store_topo_link	*links;
	size_t			 nlinks;
};

/* Parse len octets of ibnetdiscover output (name for messages). Every
 * fault is printed to err as "name:line: what" (at most a screenful);
 * returns NULL if there was any. */
struct store_topo	*store_topo_parse(const char *name, const char *text,
			    size_t len, FILE *err);
/* Read and parse a file; NULL on any fault (printed to err). */
struct store_topo	*store_topo_load(const char *path, FILE *err);
void			 store_topo_free(struct store_topo *t);
/* Write t in ibnetdiscover's format (switches, then CAs and routers;
 * ids "S-", "H-", "R-" and the GUID, as ibnetdiscover names them). */
void			 store_topo_write(const struct store_topo *t, FILE *f);
/* "4xEDR" for a link's width and speed; "" when neither is known. */
const char		*store_topo_rate(uint8_t lanes, uint8_t speed,
			    char *buf, size_t len);
/* The lanes and enum smp_speed of an inventory port (0 while down). */
void			 store_topo_port_rate(const struct store_port *pt,
			    uint8_t *lanes, uint8_t *speed);

#endif
