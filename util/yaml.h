/* yaml: reading a YAML configuration file with libyaml, for the
 * gateway's conf and for ibsnmp-tunneld. Every error goes to the
 * context's stream as "file:line: message" (chrony style) and is
 * counted, so one run reports everything that needs fixing.
 *
 * libyaml owns the yaml_ namespace too: the names here are checked
 * against its exported ones (it has yaml_strdup, yaml_free, ...), as a
 * clash would replace its own. */
#ifndef IBSNMPGW_YAML_H
#define IBSNMPGW_YAML_H

#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#include "util/log.h"

struct yaml_ctx {
	const char	*path;
	FILE		*err;
	int		 nerr;
	yaml_document_t	 doc;
	int		 loaded;	/* doc needs yaml_unload() */
};

/* One key of a mapping (yaml_each_pair). */
typedef void (*yaml_pair_fn)(struct yaml_ctx *, const char *key,
    yaml_node_t *kn, yaml_node_t *vn, void *arg);

/* Reads and parses path. Returns the root node; NULL after reporting
 * why (cannot open: line 0; the first syntax error; an empty file).
 * Call yaml_unload() in either case. */
yaml_node_t	*yaml_load(struct yaml_ctx *x, const char *path, FILE *err);
void		 yaml_unload(struct yaml_ctx *x);

/* "file:line: message" at node n (NULL: line 1), or at a line. */
void	 yaml_err(struct yaml_ctx *x, const yaml_node_t *n,
	    const char *fmt, ...) LOG_PRINTF(3, 4);
void	 yaml_err_at(struct yaml_ctx *x, unsigned long line,
	    const char *fmt, ...) LOG_PRINTF(3, 4);
void	 yaml_unknown(struct yaml_ctx *x, const yaml_node_t *k,
	    const char *key, const char *sect);

/* A sequence's item, by its id. */
yaml_node_t	*yaml_item(struct yaml_ctx *x, const yaml_node_item_t *it);
/* n's text if it is a scalar, else NULL. */
const char	*yaml_scalar(const yaml_node_t *n);
/* 0 if n is of type t, else an error naming key, -1. */
int	 yaml_want_type(struct yaml_ctx *x, const yaml_node_t *n,
	    yaml_node_type_t t, const char *key);

/* Scalars into values. On error: reported, *out unchanged, -1. */
/* A string of at most maxlen characters (0: any) without NUL; *out is
 * freed and replaced. */
int	 yaml_str(struct yaml_ctx *x, const yaml_node_t *n, const char *key,
	    char **out, size_t maxlen);
/* The same, not empty: a file or directory name. */
int	 yaml_path(struct yaml_ctx *x, const yaml_node_t *n, const char *key,
	    char **out, size_t maxlen);
/* true or false. */
int	 yaml_bool(struct yaml_ctx *x, const yaml_node_t *n, const char *key,
	    int *out);
/* A decimal integer in lo..hi. */
int	 yaml_int(struct yaml_ctx *x, const yaml_node_t *n, const char *key,
	    int *out, long lo, long hi);

/* fn for each key of the mapping map, named what in errors. Keys that
 * are not scalars and keys given twice are errors, fn is not called
 * for them. An empty or null plain scalar is an empty mapping: a
 * section whose keys are all commented out. */
void	 yaml_each_pair(struct yaml_ctx *x, yaml_node_t *map,
	    const char *what, yaml_pair_fn fn, void *arg);

#endif
