/* yaml: loading a file and reading its nodes; every error is one
 * "file:line: message" line, counted, and the value it was for stays
 * as it was. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/yaml.h"

static char path[64];
static char *errbuf;
static size_t errlen;
static FILE *err;

static int
setup(void **state)
{
	snprintf(path, sizeof(path), "/tmp/ibsnmpgw-yaml-%d.yaml", getpid());
	if ((err = open_memstream(&errbuf, &errlen)) == NULL)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	fclose(err);
	free(errbuf);
	unlink(path);
	return 0;
}

/* Writes text as the file and loads it; errors are cleared. */
static yaml_node_t *
load(struct yaml_ctx *x, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fwrite(text, 1, len ? len : strlen(text), f);
	fclose(f);
	fclose(err);
	free(errbuf);
	err = open_memstream(&errbuf, &errlen);
	assert_non_null(err);
	return yaml_load(x, path, err);
}

/* The error text so far. */
static const char *
errors(void)
{
	fflush(err);
	return errbuf;
}

/* Whether the errors hold "path:line: what". */
static int
has_error(int line, const char *what)
{
	char want[256];

	snprintf(want, sizeof(want), "%s:%d: %s\n", path, line, what);
	return strstr(errors(), want) != NULL;
}

/* The value of key in the mapping root. */
static yaml_node_t *
value(struct yaml_ctx *x, yaml_node_t *root, const char *key)
{
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	    p < root->data.mapping.pairs.top; p++) {
		const char *k = yaml_scalar(yaml_document_get_node(&x->doc,
		    p->key));

		if (k != NULL && strcmp(k, key) == 0)
			return yaml_document_get_node(&x->doc, p->value);
	}
	fail_msg("no key '%s'", key);
	return NULL;
}

static void
test_load_errors(void **state)
{
	static const char bin[] = "\001\002\377\000garbage: [\n";
	struct yaml_ctx x;
	char missing[80];

	snprintf(missing, sizeof(missing), "%s.missing", path);
	assert_null(yaml_load(&x, missing, err));
	assert_int_equal(x.nerr, 1);
	yaml_unload(&x);
	snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
	    ":0: cannot open: ");
	assert_non_null(strstr(errors(), missing));

	/* The first syntax error alone, at its line. */
	assert_null(load(&x, "a: 1\nb: [\n  - c\nd: e\n", 0));
	assert_int_equal(x.nerr, 1);
	assert_int_equal(strncmp(errors(), path, strlen(path)), 0);
	assert_non_null(strchr(errors(), '\n'));
	assert_string_equal(strchr(errors(), '\n') + 1, "");
	yaml_unload(&x);

	assert_null(load(&x, "# nothing\n", 0));
	assert_true(has_error(1, "empty configuration"));
	assert_int_equal(x.nerr, 1);
	yaml_unload(&x);

	/* Bytes that are no text: an error, not a crash. */
	assert_null(load(&x, bin, sizeof(bin) - 1));
	assert_int_equal(x.nerr, 1);
	assert_int_equal(strncmp(errors(), path, strlen(path)), 0);
	yaml_unload(&x);
	yaml_unload(&x);	/* twice is harmless */
}

static void
test_int(void **state)
{
	struct yaml_ctx x;
	yaml_node_t *r = load(&x, "ok: 42\nneg: -5\nlow: 0\nhigh: 101\n"
	    "word: eleven\ntail: 12x\nhuge: 99999999999999999999\n"
	    "empty: \"\"\nlist: [1]\nmap: {a: 1}\n", 0);
	static const struct {
		const char	*key;
		long		 lo, hi;
		int		 line;
		const char	*msg;
	} bad[] = {
		{ "low", 1, 100, 3, "'low' is 0, out of range (1..100)" },
		{ "high", 1, 100, 4, "'high' is 101, out of range (1..100)" },
		{ "word", 0, 1, 5, "'word' must be an integer, not 'eleven'" },
		{ "tail", 0, 1, 6, "'tail' must be an integer, not '12x'" },
		{ "huge", 0, 1, 7, "'huge' must be an integer, not "
		    "'99999999999999999999'" },
		{ "empty", 0, 1, 8, "'empty' must be an integer, not ''" },
		{ "list", 0, 1, 9, "'list' must be a scalar" },
		{ "map", 0, 1, 10, "'map' must be a scalar" },
	};
	int v = 7;

	assert_non_null(r);
	assert_int_equal(yaml_int(&x, value(&x, r, "ok"), "ok", &v, 0, 100),
	    0);
	assert_int_equal(v, 42);
	assert_int_equal(yaml_int(&x, value(&x, r, "neg"), "neg", &v, -10, 0),
	    0);
	assert_int_equal(v, -5);
	assert_int_equal(x.nerr, 0);

	v = 7;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(yaml_int(&x, value(&x, r, bad[i].key),
		    bad[i].key, &v, bad[i].lo, bad[i].hi), -1);
		assert_int_equal(v, 7);		/* untouched by an error */
		if (!has_error(bad[i].line, bad[i].msg))
			fail_msg("'%s': no '%s' at line %d in\n%s", bad[i].key,
			    bad[i].msg, bad[i].line, errors());
	}
	assert_int_equal(x.nerr, 8);
	yaml_unload(&x);
}

static void
test_str_bool_path(void **state)
{
	struct yaml_ctx x;
	yaml_node_t *r = load(&x, "s: hello\nnul: \"a\\0b\"\nlong: abcdef\n"
	    "list: [a]\nt: true\nf: false\nyes: yes\nempty: \"\"\n", 0);
	char *s = NULL;
	int b = 5;

	assert_non_null(r);
	assert_int_equal(yaml_str(&x, value(&x, r, "s"), "s", &s, 5), 0);
	assert_string_equal(s, "hello");
	/* A second value replaces (and frees) the first. */
	assert_int_equal(yaml_str(&x, value(&x, r, "long"), "long", &s, 0), 0);
	assert_string_equal(s, "abcdef");
	assert_int_equal(x.nerr, 0);

	assert_int_equal(yaml_str(&x, value(&x, r, "long"), "long", &s, 5), -1);
	assert_true(has_error(3, "'long' is longer than 5 characters"));
	assert_int_equal(yaml_str(&x, value(&x, r, "nul"), "nul", &s, 0), -1);
	assert_true(has_error(2, "'nul' contains a NUL character"));
	assert_int_equal(yaml_str(&x, value(&x, r, "list"), "list", &s, 0),
	    -1);
	assert_true(has_error(4, "'list' must be a scalar"));
	assert_int_equal(yaml_path(&x, value(&x, r, "empty"), "empty", &s, 0),
	    -1);
	assert_true(has_error(8, "'empty' must not be empty"));
	assert_string_equal(s, "abcdef");

	assert_int_equal(yaml_bool(&x, value(&x, r, "t"), "t", &b), 0);
	assert_int_equal(b, 1);
	assert_int_equal(yaml_bool(&x, value(&x, r, "f"), "f", &b), 0);
	assert_int_equal(b, 0);
	/* Only true and false: no YAML 1.1 yes/no. */
	assert_int_equal(yaml_bool(&x, value(&x, r, "yes"), "yes", &b), -1);
	assert_true(has_error(7, "'yes' must be true or false"));
	assert_int_equal(yaml_bool(&x, value(&x, r, "list"), "list", &b), -1);
	assert_int_equal(b, 0);
	assert_int_equal(x.nerr, 6);
	free(s);
	yaml_unload(&x);
}

static int ncalls;

static void
count_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	ncalls++;
	if (strcmp(key, "bad") == 0)
		yaml_unknown(x, k, key, arg);
}

static void
test_each_pair(void **state)
{
	struct yaml_ctx x;
	yaml_node_t *r = load(&x, "a: 1\nb: 2\na: 3\n? [k]\n: 4\nbad: 5\n"
	    "plain:\ntilde: ~\nnull: null\nquoted: \"\"\nlist: [1]\n", 0);

	assert_non_null(r);
	ncalls = 0;
	yaml_each_pair(&x, r, "top", count_key, "top");
	assert_int_equal(ncalls, 8);	/* not the second a, not [k] */
	assert_true(has_error(3, "duplicate key 'a' in 'top'"));
	assert_true(has_error(4, "keys in 'top' must be scalars"));
	assert_true(has_error(6, "unknown key 'bad' in 'top'"));
	assert_int_equal(x.nerr, 3);

	/* All keys commented out: an empty mapping, not an error. */
	ncalls = 0;
	yaml_each_pair(&x, value(&x, r, "plain"), "plain", count_key, NULL);
	yaml_each_pair(&x, value(&x, r, "tilde"), "tilde", count_key, NULL);
	yaml_each_pair(&x, value(&x, r, "null"), "null", count_key, NULL);
	assert_int_equal(ncalls, 0);
	assert_int_equal(x.nerr, 3);
	/* A quoted empty string or a list is not a mapping. */
	yaml_each_pair(&x, value(&x, r, "quoted"), "quoted", count_key, NULL);
	assert_true(has_error(10, "'quoted' must be a mapping"));
	yaml_each_pair(&x, value(&x, r, "list"), "list", count_key, NULL);
	assert_true(has_error(11, "'list' must be a mapping"));
	assert_int_equal(ncalls, 0);
	yaml_unload(&x);
}

static void
test_err(void **state)
{
	struct yaml_ctx x;
	yaml_node_t *r = load(&x, "\n\nseq: [a, [b], c]\n", 0);
	yaml_node_t *seq;
	int n = 0;

	assert_non_null(r);
	yaml_err(&x, NULL, "about the file, %d", 1);
	assert_true(has_error(1, "about the file, 1"));
	yaml_err_at(&x, 9, "at a line");
	assert_true(has_error(9, "at a line"));
	seq = value(&x, r, "seq");
	assert_int_equal(yaml_want_type(&x, seq, YAML_SEQUENCE_NODE, "seq"), 0);
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	    it < seq->data.sequence.items.top; it++)
		n += yaml_scalar(yaml_item(&x, it)) != NULL;
	assert_int_equal(n, 2);
	assert_int_equal(yaml_want_type(&x, seq, YAML_MAPPING_NODE, "seq"), -1);
	assert_true(has_error(3, "'seq' must be a mapping"));
	assert_int_equal(x.nerr, 3);
	yaml_unload(&x);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_str_bool_path),
		cmocka_unit_test(test_each_pair),
		cmocka_unit_test(test_err),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
