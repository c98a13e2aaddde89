/* yaml: load a YAML file and read its nodes, every error reported as
 * "file:line: message" and counted (util/yaml.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/yaml.h"

static void LOG_PRINTF(3, 0)
verr(struct yaml_ctx *x, unsigned long line, const char *fmt, va_list ap)
{
	fprintf(x->err, "%s:%lu: ", x->path, line);
	vfprintf(x->err, fmt, ap);
	fputc('\n', x->err);
	x->nerr++;
}

void
yaml_err_at(struct yaml_ctx *x, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(x, line, fmt, ap);
	va_end(ap);
}

void
yaml_err(struct yaml_ctx *x, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(x, n ? (unsigned long)n->start_mark.line + 1 : 1UL, fmt, ap);
	va_end(ap);
}

void
yaml_unknown(struct yaml_ctx *x, const yaml_node_t *k, const char *key,
    const char *sect)
{
	yaml_err(x, k, "unknown key '%s' in '%s'", key, sect);
}

yaml_node_t *
yaml_load(struct yaml_ctx *x, const char *path, FILE *err)
{
	yaml_parser_t parser;
	yaml_node_t *root;
	FILE *f;

	memset(x, 0, sizeof(*x));
	x->path = path;
	x->err = err;
	if ((f = fopen(path, "r")) == NULL) {
		yaml_err_at(x, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (!yaml_parser_initialize(&parser))
		fatalx("yaml: out of memory");
	yaml_parser_set_input_file(&parser, f);
	/* Only the first syntax error: the parse cannot go on. */
	if (!yaml_parser_load(&parser, &x->doc))
		yaml_err_at(x, (unsigned long)parser.problem_mark.line + 1,
		    "%s%s%s", parser.problem ? parser.problem :
		    "YAML syntax error", parser.context ? " " : "",
		    parser.context ? parser.context : "");
	else
		x->loaded = 1;
	yaml_parser_delete(&parser);
	fclose(f);
	if (!x->loaded)
		return NULL;
	if ((root = yaml_document_get_root_node(&x->doc)) == NULL)
		yaml_err_at(x, 1, "empty configuration");
	return root;
}

void
yaml_unload(struct yaml_ctx *x)
{
	if (x->loaded)
		yaml_document_delete(&x->doc);
	x->loaded = 0;
}

yaml_node_t *
yaml_item(struct yaml_ctx *x, const yaml_node_item_t *it)
{
	return yaml_document_get_node(&x->doc, *it);
}

const char *
yaml_scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
	    : NULL;
}

int
yaml_want_type(struct yaml_ctx *x, const yaml_node_t *n, yaml_node_type_t t,
    const char *key)
{
	static const char *names[] = { "nothing", "a scalar", "a list",
	    "a mapping" };

	if (n->type == t)
		return 0;
	yaml_err(x, n, "'%s' must be %s", key, names[t]);
	return -1;
}

int
yaml_str(struct yaml_ctx *x, const yaml_node_t *n, const char *key,
    char **out, size_t maxlen)
{
	const char *s;

	if (yaml_want_type(x, n, YAML_SCALAR_NODE, key) == -1)
		return -1;
	s = yaml_scalar(n);
	if (strlen(s) != n->data.scalar.length) {
		yaml_err(x, n, "'%s' contains a NUL character", key);
		return -1;
	}
	if (maxlen && strlen(s) > maxlen) {
		yaml_err(x, n, "'%s' is longer than %zu characters", key,
		    maxlen);
		return -1;
	}
	free(*out);
	if ((*out = strdup(s)) == NULL)
		fatal("yaml");
	return 0;
}

/* Not empty: "path:" alone would otherwise name the current directory. */
int
yaml_path(struct yaml_ctx *x, const yaml_node_t *n, const char *key,
    char **out, size_t maxlen)
{
	char *s = NULL;

	if (yaml_str(x, n, key, &s, maxlen) == -1)
		return -1;
	if (*s == '\0') {
		yaml_err(x, n, "'%s' must not be empty", key);
		free(s);
		return -1;
	}
	free(*out);
	*out = s;
	return 0;
}

int
yaml_bool(struct yaml_ctx *x, const yaml_node_t *n, const char *key,
    int *out)
{
	const char *b;

	if (yaml_want_type(x, n, YAML_SCALAR_NODE, key) == -1)
		return -1;
	b = yaml_scalar(n);
	if (strcmp(b, "true") != 0 && strcmp(b, "false") != 0) {
		yaml_err(x, n, "'%s' must be true or false", key);
		return -1;
	}
	*out = b[0] == 't';
	return 0;
}

int
yaml_int(struct yaml_ctx *x, const yaml_node_t *n, const char *key, int *out,
    long lo, long hi)
{
	const char *s;
	char *end;
	long v;

	if (yaml_want_type(x, n, YAML_SCALAR_NODE, key) == -1)
		return -1;
	s = yaml_scalar(n);
	errno = 0;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno == ERANGE) {
		yaml_err(x, n, "'%s' must be an integer, not '%s'", key, s);
		return -1;
	}
	if (v < lo || v > hi) {
		yaml_err(x, n, "'%s' is %ld, out of range (%ld..%ld)", key, v,
		    lo, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int
empty_plain(const yaml_node_t *n)
{
	const char *s = yaml_scalar(n);

	return s != NULL && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (*s == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0);
}

/* Whether the key of pair p came before it in map. */
static int
seen_before(struct yaml_ctx *x, const yaml_node_t *map,
    const yaml_node_pair_t *p, const char *key)
{
	for (const yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p;
	    q++) {
		const char *qs = yaml_scalar(yaml_document_get_node(&x->doc,
		    q->key));

		if (qs != NULL && strcmp(qs, key) == 0)
			return 1;
	}
	return 0;
}

void
yaml_each_pair(struct yaml_ctx *x, yaml_node_t *map, const char *what,
    yaml_pair_fn fn, void *arg)
{
	yaml_node_pair_t *p;

	if (empty_plain(map))
		return;
	if (yaml_want_type(x, map, YAML_MAPPING_NODE, what) == -1)
		return;
	for (p = map->data.mapping.pairs.start;
	    p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&x->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&x->doc, p->value);
		const char *ks = yaml_scalar(k);

		if (ks == NULL)
			yaml_err(x, k, "keys in '%s' must be scalars", what);
		/* Duplicate keys are an error, not last-one-wins. */
		else if (seen_before(x, map, p, ks))
			yaml_err(x, k, "duplicate key '%s' in '%s'", ks, what);
		else
			fn(x, ks, k, v, arg);
	}
}
