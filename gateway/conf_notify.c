/* conf: the events: and notify: sections (docs/events.md). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "gateway/conf.h"
#include "gateway/conf_int.h"
#include "store/store.h"
#include "util/log.h"
#include "util/yaml.h"

void
conf_events_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_conf *c = arg;
	struct store_event_conf *e = &c->events;
	int n;

	if (strcmp(key, "history") == 0) {
		if (yaml_int(x, v, key, &n, 0, 100000) == 0)
			e->history = (unsigned)n;
	} else if (strcmp(key, "dedup-window") == 0) {
		if (yaml_int(x, v, key, &n, 0, 86400) == 0)
			e->dedup_ms = (unsigned)n * 1000;
	} else if (strcmp(key, "flap-changes") == 0) {
		if (yaml_int(x, v, key, &n, 0, 64) == 0)
			e->flap_changes = (unsigned)n;
	} else if (strcmp(key, "flap-window") == 0) {
		if (yaml_int(x, v, key, &n, 1, 86400) == 0)
			e->flap_window_ms = (unsigned)n * 1000;
	} else if (strcmp(key, "hold-down") == 0) {
		if (yaml_int(x, v, key, &n, 1, 86400) == 0)
			e->hold_down_ms = (unsigned)n * 1000;
	} else if (strcmp(key, "burst") == 0) {
		if (yaml_int(x, v, key, &n, 0, 1000000) == 0)
			e->burst = (unsigned)n;
	} else if (strcmp(key, "sm-events") == 0) {
		yaml_bool(x, v, key, &c->sm_events);
	} else if (strcmp(key, "master-check-ms") == 0) {
		/* Two reads per period: at least 2 s keeps the check at
		 * no more than one MAD a second. */
		if (yaml_int(x, v, key, &n, 0, 600000) == -1)
			return;
		if (n > 0 && n < 2000)
			yaml_err(x, v, "master-check-ms: 0 (off) or at least "
			    "2000");
		else
			c->master_check_ms = n;
	} else
		yaml_unknown(x, k, key, "events");
}

static const char *cat_names[] = { "link", "node", "sm", "threshold",
    "subscription", "trap", "gateway", "health" };

static void
parse_cats(struct yaml_ctx *x, yaml_node_t *v, unsigned *out)
{
	yaml_node_item_t *it;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, "events") == -1)
		return;
	*out = 0;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	    it++) {
		yaml_node_t *e = yaml_item(x, it);
		const char *s = e->type == YAML_SCALAR_NODE ? yaml_scalar(e) : NULL;
		int i = 0;

		while (s != NULL && i < 7 && strcmp(s, cat_names[i]) != 0)
			i++;
		if (s == NULL || i == 7)
			i = -1;

		if (i < 0)
			yaml_err(x, e, "unknown event kind '%s' (link, node, sm, "
			    "threshold, subscription, trap, gateway)",
			    s ? s : "?");
		else
			*out |= 1u << i;
	}
}

static void
target_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_target *t = arg;
	char *s = NULL;
	const char *why;
	char norm[256];

	if (strcmp(key, "name") == 0) {
		yaml_str(x, v, key, &t->name, 64);
	} else if (strcmp(key, "address") == 0) {
		if (yaml_str(x, v, key, &t->address, 200) == 0 &&
		    conf_check_listener(t->address, norm, sizeof(norm), &why) == -1) {
			yaml_err(x, v, "address '%s': %s", t->address, why);
			free(t->address);
			t->address = NULL;
		}
	} else if (strcmp(key, "version") == 0) {
		if (yaml_str(x, v, key, &s, 8) == 0) {
			if (strcmp(s, "2c") == 0)
				t->version = 2;
			else if (strcmp(s, "3") == 0)
				t->version = 3;
			else
				yaml_err(x, v, "version must be 2c or 3, not '%s'",
				    s);
		}
	} else if (strcmp(key, "type") == 0) {
		if (yaml_str(x, v, key, &s, 8) == 0) {
			if (strcmp(s, "trap") == 0 || strcmp(s, "inform") == 0)
				t->inform = s[0] == 'i';
			else
				yaml_err(x, v, "type must be trap or inform, not "
				    "'%s'", s);
		}
	} else if (strcmp(key, "community") == 0) {
		if (yaml_str(x, v, key, &t->community, 64) == 0 &&
		    !conf_valid_name(t->community)) {
			yaml_err(x, v, "community must be printable, without "
			    "spaces or '@'");
			free(t->community);
			t->community = NULL;
		}
	} else if (strcmp(key, "engine-id") == 0) {
		if (yaml_str(x, v, key, &s, 80) == 0 &&
		    conf_hex_engine_id(s, t->engine_id,
		    &t->engine_id_len) == -1)
			yaml_err(x, v, "engine-id must be 0x and 5 to 32 bytes "
			    "in hex (RFC 3411 SnmpEngineID), not '%s'", s);
	} else if (strcmp(key, "user") == 0) {
		yaml_each_pair(x, v, "user", conf_user_key, &t->user);
	} else if (strcmp(key, "nodes") == 0)
		yaml_each_pair(x, v, "nodes", conf_match_key, &t->nodes);
	else if (strcmp(key, "events") == 0)
		parse_cats(x, v, &t->events);
	else if (strcmp(key, "timeout-ms") == 0)
		yaml_int(x, v, key, &t->timeout_ms, 10, 60000);
	else if (strcmp(key, "retries") == 0)
		yaml_int(x, v, key, &t->retries, 0, 20);
	else if (strcmp(key, "queue") == 0)
		yaml_int(x, v, key, &t->queue, 1, 100000);
	else
		yaml_unknown(x, k, key, "targets");
	free(s);
}

static void
target_free(struct gw_target *t)
{
	free(t->name);
	free(t->address);
	free(t->community);
	conf_user_free(&t->user);
	store_select_free(&t->nodes);
}

static int
target_check(struct yaml_ctx *x, yaml_node_t *e, const struct gw_target *t,
    const struct gw_conf *c)
{
	if (t->name == NULL || t->address == NULL) {
		yaml_err(x, e, "a target needs 'name' and 'address'");
		return -1;
	}
	if (t->version == 2 && t->community == NULL) {
		yaml_err(x, e, "target '%s': version 2c needs a 'community'",
		    t->name);
		return -1;
	}
	if (t->version == 3 && (t->user.name == NULL ||
	    t->user.auth == GW_AUTH_NONE || t->user.auth_pass == NULL ||
	    (t->user.priv == GW_PRIV_NONE) != (t->user.priv_pass == NULL))) {
		yaml_err(x, e, "target '%s': version 3 needs a 'user' with name, "
		    "auth-protocol and auth-passphrase (priv-protocol and "
		    "priv-passphrase together)", t->name);
		return -1;
	}
	if (t->version == 3 && t->inform && t->engine_id_len == 0) {
		yaml_err(x, e, "target '%s': a version 3 inform needs the "
		    "receiver's 'engine-id'", t->name);
		return -1;
	}
	if (t->version == 2 && t->engine_id_len) {
		yaml_err(x, e, "target '%s': 'engine-id' is for version 3",
		    t->name);
		return -1;
	}
	for (int i = 0; i < c->ntargets; i++)
		if (strcmp(c->targets[i].name, t->name) == 0) {
			yaml_err(x, e, "duplicate target '%s' (first at line %d)",
			    t->name, c->targets[i].line);
			return -1;
		}
	return 0;
}

static void
parse_targets(struct yaml_ctx *x, yaml_node_t *v, struct gw_conf *c)
{
	yaml_node_item_t *it;
	int n;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, "targets") == -1)
		return;
	n = v->data.sequence.items.top - v->data.sequence.items.start;
	if ((c->targets = calloc(n ? n : 1, sizeof(*c->targets))) == NULL)
		fatal("conf");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	    it++) {
		yaml_node_t *e = yaml_item(x, it);
		struct gw_target t = { 0 };

		t.line = e->start_mark.line + 1;
		t.version = 2;
		t.events = GW_CAT_ALL;
		t.timeout_ms = 1000;
		t.retries = 3;
		t.queue = 1000;
		yaml_each_pair(x, e, "targets", target_key, &t);
		if (e->type != YAML_MAPPING_NODE || target_check(x, e, &t, c)) {
			target_free(&t);
			continue;
		}
		c->targets[c->ntargets++] = t;
	}
}

static void
updown_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	struct gw_updown_off *u = arg;
	yaml_node_item_t *it;
	int p;

	if (strcmp(key, "nodes") == 0)
		yaml_each_pair(x, v, "nodes", conf_match_key, &u->nodes);
	else if (strcmp(key, "ports") == 0) {
		if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, "ports") == -1)
			return;
		u->any_port = 0;
		for (it = v->data.sequence.items.start;
		    it < v->data.sequence.items.top; it++)
			if (yaml_int(x, yaml_item(x, it),
			    "ports", &p, 0, 255) == 0)
				u->ports[p / 8] |= (uint8_t)(1 << (p % 8));
	} else
		yaml_unknown(x, k, key, "link-updown-disabled");
}

static void
parse_updown(struct yaml_ctx *x, yaml_node_t *v, struct gw_conf *c)
{
	yaml_node_item_t *it;
	int n;

	if (yaml_want_type(x, v, YAML_SEQUENCE_NODE, "link-updown-disabled") == -1)
		return;
	n = v->data.sequence.items.top - v->data.sequence.items.start;
	if ((c->updown_off = calloc(n ? n : 1, sizeof(*c->updown_off))) ==
	    NULL)
		fatal("conf");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	    it++) {
		yaml_node_t *e = yaml_item(x, it);
		struct gw_updown_off u = { 0 };

		u.line = e->start_mark.line + 1;
		u.any_port = 1;
		yaml_each_pair(x, e, "link-updown-disabled", updown_key, &u);
		c->updown_off[c->nupdown_off++] = u;
	}
}

void
conf_notify_key(struct yaml_ctx *x, const char *key, yaml_node_t *k,
    yaml_node_t *v, void *arg)
{
	if (strcmp(key, "targets") == 0)
		parse_targets(x, v, arg);
	else if (strcmp(key, "link-updown-disabled") == 0)
		parse_updown(x, v, arg);
	else
		yaml_unknown(x, k, key, "notify");
}

void
conf_targets_free(struct gw_conf *c)
{
	for (int i = 0; i < c->ntargets; i++)
		target_free(&c->targets[i]);
	free(c->targets);
	for (int i = 0; i < c->nupdown_off; i++)
		store_select_free(&c->updown_off[i].nodes);
	free(c->updown_off);
}

/* A v3 trap target's user lives in net-snmp's user table under our own
 * engine ID (a trap's authoritative engine, RFC 3414 4), where the
 * agent's snmp.users are too: the same name would be one entry with
 * two sets of keys. */
void
conf_check_targets(struct yaml_ctx *x, const struct gw_conf *c)
{
	for (int i = 0; i < c->ntargets; i++) {
		const struct gw_target *t = &c->targets[i];

		if (t->version != 3 || t->inform || t->user.name == NULL)
			continue;
		for (int u = 0; u < c->nusers; u++)
			if (strcmp(c->users[u].name, t->user.name) == 0)
				yaml_err_at(x, t->line, "target '%s': user "
				    "'%s' is also in snmp.users; a v3 trap "
				    "target needs a user name of its own",
				    t->name, t->user.name);
		for (int j = 0; j < i; j++) {
			const struct gw_target *o = &c->targets[j];

			if (o->version != 3 || o->inform || o->user.name ==
			    NULL || strcmp(o->user.name, t->user.name) != 0)
				continue;
			if (o->user.auth != t->user.auth ||
			    o->user.priv != t->user.priv ||
			    strcmp(o->user.auth_pass, t->user.auth_pass) != 0 ||
			    (o->user.priv_pass != NULL) !=
			    (t->user.priv_pass != NULL) ||
			    (o->user.priv_pass != NULL &&
			    strcmp(o->user.priv_pass, t->user.priv_pass) != 0))
				yaml_err_at(x, t->line, "target '%s': user "
				    "'%s' has other keys at target '%s' (line "
				    "%d); v3 trap targets share one user table",
				    t->name, t->user.name, o->name, o->line);
		}
	}
}
