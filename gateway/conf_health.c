/* conf_health: the health: section (docs/health.md). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec/smp.h"
#include "gateway/conf_int.h"
#include "util/log.h"

/* "1x" .. "12x": lanes, 0 if not a width IBA defines. */
static uint8_t
parse_width(const char *s)
{
	static const char *names[] = { "1x", "2x", "4x", "8x", "12x" };
	static const uint8_t lanes[] = { 1, 2, 4, 8, 12 };

	for (size_t i = 0; i < sizeof(lanes); i++)
		if (strcasecmp(s, names[i]) == 0)
			return lanes[i];
	return 0;
}

/* "sdr" .. "xdr": enum smp_speed, SMP_SPEED_UNKNOWN if none. */
static uint8_t
parse_speed(const char *s)
{
	for (int i = SMP_SPEED_SDR; i <= SMP_SPEED_XDR; i++)
		if (strcasecmp(s, smp_speed_name(i)) == 0)
			return (uint8_t)i;
	return SMP_SPEED_UNKNOWN;
}

static void
expect_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct proxy_link_expect *e = arg;
	const char *s = yaml_scalar(v);

	if (strcmp(key, "nodes") == 0)
		yaml_each_pair(x, v, "nodes", conf_match_key, &e->nodes);
	else if (strcmp(key, "width") == 0) {
		if (s == NULL || (e->lanes = parse_width(s)) == 0)
			yaml_err(x, v, "width: one of 1x, 2x, 4x, 8x, 12x");
	} else if (strcmp(key, "speed") == 0) {
		if (s == NULL || (e->speed = parse_speed(s)) == 0)
			yaml_err(x, v, "speed: one of sdr, ddr, qdr, fdr, "
			    "edr, hdr, ndr, xdr");
	} else
		yaml_unknown(x, k, key, "health.expect");
}

/* health.expect: what links should run at, as ibdiagnet's --lw/--ls. */
static void
parse_expect(struct yaml_ctx *x, yaml_node_t *v, struct gw_conf *c)
{
	yaml_node_item_t *it;
	int n, nerr;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, "expect") == -1)
		return;
	n = v->data.sequence.items.top - v->data.sequence.items.start;
	if ((c->expect = calloc(n ? n : 1, sizeof(*c->expect))) == NULL)
		fatal("conf");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	    it++) {
		yaml_node_t *e = yaml_item(x, it);
		struct proxy_link_expect *r = &c->expect[c->nexpect];

		memset(r, 0, sizeof(*r));
		r->line = (int)e->start_mark.line + 1;
		if (yaml_want_type(x, e, YAML_MAPPING_NODE, "expect") == -1)
			continue;
		nerr = x->nerr;
		yaml_each_pair(x, e, "health.expect", expect_key, r);
		if (r->lanes == 0 && r->speed == 0) {
			if (x->nerr == nerr)	/* not said already */
				yaml_err(x, e, "an expectation needs 'width' "
				    "or 'speed'");
			store_select_free(&r->nodes);
			continue;
		}
		c->nexpect++;
	}
}

void
conf_health_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;

	if (strcmp(key, "expect") == 0)
		parse_expect(x, v, c);
	else if (strcmp(key, "ports") == 0)
		conf_health_ports(x, v, c);
	else
		yaml_unknown(x, k, key, "health");
}

void
conf_health_free(struct gw_conf *c)
{
	for (int i = 0; i < c->nexpect; i++)
		store_select_free(&c->expect[i].nodes);
	free(c->expect);
	c->expect = NULL;
	c->nexpect = 0;
}
