/* conf's parts shared between its files (gateway/conf*.c): the parse
 * context and the YAML helpers. Not for other modules. */
#ifndef IBSNMPGW_CONF_INT_H
#define IBSNMPGW_CONF_INT_H

#include <stdio.h>
#include <yaml.h>

#include "gateway/conf.h"
#include "util/log.h"

struct cctx {
	const char	*path;
	FILE		*err;
	int		 nerr;
	yaml_document_t	*doc;
	struct gw_conf	*c;
};

/* One key of a mapping (conf_each_pair). */
typedef void (*map_fn)(struct cctx *, const char *key, yaml_node_t *kn,
    yaml_node_t *vn, void *arg);

/* "file:line: message" for node n; counts the error. */
void	conf_err(struct cctx *x, const yaml_node_t *n, const char *fmt, ...)
	    LOG_PRINTF(3, 4);
const char *conf_scalar(const yaml_node_t *n);
int	conf_want_type(struct cctx *x, const yaml_node_t *n,
	    yaml_node_type_t t, const char *what);
int	conf_str(struct cctx *x, const yaml_node_t *n, const char *key,
	    char **out, size_t max);
void	conf_bool(struct cctx *x, const yaml_node_t *n, const char *key,
	    int *out);
int	conf_int(struct cctx *x, const yaml_node_t *n, const char *key,
	    int *out, long lo, long hi);
void	conf_each_pair(struct cctx *x, yaml_node_t *map, const char *what,
	    map_fn fn, void *arg);
void	conf_unknown(struct cctx *x, const yaml_node_t *k, const char *key,
	    const char *sect);
int	conf_valid_name(const char *s);
int	conf_check_listener(const char *s, char *norm, size_t nlen,
	    const char **why);
/* A node selector's keys (store_select), a user's keys (gw_user). */
void	conf_match_key(struct cctx *x, const char *key, yaml_node_t *k,
	    yaml_node_t *v, void *arg);
void	conf_user_key(struct cctx *x, const char *key, yaml_node_t *k,
	    yaml_node_t *v, void *arg);
void	conf_user_free(struct gw_user *u);

/* Sections in conf_notify.c: events: and notify:. */
void	conf_events_key(struct cctx *x, const char *key, yaml_node_t *k,
	    yaml_node_t *v, void *arg);
void	conf_notify_key(struct cctx *x, const char *key, yaml_node_t *k,
	    yaml_node_t *v, void *arg);
void	conf_targets_free(struct gw_conf *c);
/* After the whole file: checks across sections. */
void	conf_check_targets(struct cctx *x);

#endif
