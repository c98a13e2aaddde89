/* conf: health.ports, the rules of the port verdicts (proxy/verdict.h,
 * docs/health.md "A standing verdict per port").
 *
 *   health:
 *     ports:
 *       link-downs: {count: 2, window: 24h, verdict: unhealthy}
 *       symbol-errors: {per-minute: 10, window: 1h}
 *       flapping: unhealthy      # a verdict alone: the rule's window
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/conf_int.h"

struct rule_ctx {
	struct proxy_verdict_rule_conf	*r;
	int				 rule;
};

/* healthy is no verdict a rule can give: "off" turns one off. */
static int
verdict_value(struct yaml_ctx *x, yaml_node_t *v, const char *key,
    uint8_t *out)
{
	const char *s = yaml_scalar(v);

	if (s != NULL && strcmp(s, "unhealthy") == 0)
		*out = VERDICT_UNHEALTHY;
	else if (s != NULL && strcmp(s, "degraded") == 0)
		*out = VERDICT_DEGRADED;
	else if (s != NULL && strcmp(s, "off") == 0)
		*out = 0;
	else {
		yaml_err(x, v, "'%s' must be unhealthy, degraded or off", key);
		return -1;
	}
	return 0;
}

/* A duration: seconds, or a number with s, m, h or d; 1 s to 30 days. */
static void
window_value(struct yaml_ctx *x, yaml_node_t *v, const char *key,
    unsigned *out)
{
	const char *s = yaml_scalar(v);
	unsigned long n, mult = 1;
	char *end;

	if (s == NULL || *s < '0' || *s > '9') {
		yaml_err(x, v, "'%s' must be a duration (30s, 10m, 24h, 7d)",
		    key);
		return;
	}
	errno = 0;
	n = strtoul(s, &end, 10);
	if (*end != '\0' && end[1] == '\0')
		switch (*end++) {
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		default: end--;
		}
	if (*end != '\0' || errno != 0 || n == 0 || n > 2592000 / mult) {
		yaml_err(x, v, "'%s' must be a duration from 1s to 30d (30s, "
		    "10m, 24h, 7d)", key);
		return;
	}
	*out = (unsigned)(n * mult);
}

static void
rule_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct rule_ctx *rc = arg;
	struct proxy_verdict_rule_conf *r = rc->r;
	int n;

	if (strcmp(key, "verdict") == 0)
		verdict_value(x, v, key, &r->verdict);
	else if (strcmp(key, "window") == 0)
		window_value(x, v, key, &r->window_s);
	else if (strcmp(key, "count") == 0 && rc->rule == VR_LINK_DOWNS) {
		if (yaml_int(x, v, key, &n, 1, VERDICT_DOWNS_MAX) == 0)
			r->count = (unsigned)n;
	} else if (strcmp(key, "per-minute") == 0 &&
	    (rc->rule == VR_SYMBOL_ERRORS || rc->rule == VR_LINK_RECOVERS)) {
		const char *s = yaml_scalar(v);
		char *end;
		double d;

		errno = 0;
		d = s != NULL ? strtod(s, &end) : -1;
		if (s == NULL || *s == '\0' || *end || errno || !isfinite(d) ||
		    d < 0)
			yaml_err(x, v, "'per-minute' must be a number >= 0");
		else
			r->per_minute = d;
	} else
		yaml_unknown(x, k, key, proxy_verdict_rule_name(rc->rule));
}

static void
ports_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;
	struct rule_ctx rc;

	for (rc.rule = 0; rc.rule < VR_MAX; rc.rule++)
		if (strcmp(key, proxy_verdict_rule_name(rc.rule)) == 0)
			break;
	if (rc.rule == VR_MAX) {
		yaml_unknown(x, k, key, "health.ports");
		return;
	}
	rc.r = &c->health_ports.r[rc.rule];
	/* A scalar is the verdict alone. */
	if (v->type == YAML_SCALAR_NODE && yaml_scalar(v)[0] != '\0')
		verdict_value(x, v, key, &rc.r->verdict);
	else
		yaml_each_pair(x, v, key, rule_key, &rc);
}

void
conf_health_ports(struct yaml_ctx *x, yaml_node_t *v, struct gw_conf *c)
{
	yaml_each_pair(x, v, "health.ports", ports_key, c);
}
