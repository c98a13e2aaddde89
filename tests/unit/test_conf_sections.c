/* gw_conf's sections: notify, the master check, the tunnel, polling
 * policies and thresholds, the M_Key file, the expected topology and
 * health expectations, each error as file:line (the fixture:
 * conf_fixture.h). */
#include "tests/unit/conf_fixture.h"

/* notify: targets and link-updown-disabled; events: limits. */
static void
test_notify(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: public}]\n"
	    "events:\n"
	    "  history: 50\n"
	    "  master-check-ms: 5000\n"
	    "notify:\n"
	    "  targets:\n"
	    "    - {name: nms, address: \"udp:127.0.0.1:162\", community: c,\n"
	    "       events: [link, node]}\n"
	    "    - name: v3\n"
	    "      address: \"udp6:[::1]:162\"\n"
	    "      version: 3\n"
	    "      type: inform\n"
	    "      engine-id: \"0x80001f8804616263\"\n"
	    "      queue: 10\n"
	    "      nodes: {type: switch}\n"
	    "      user: {name: u, auth-protocol: SHA, auth-passphrase: "
	    "abcdefgh}\n"
	    "  link-updown-disabled:\n"
	    "    - {nodes: {name: \"leaf*\"}, ports: [1, 36]}\n"
	    "    - {nodes: {type: ca}}\n", err, sizeof(err));

	assert_string_equal(err, "");
	assert_non_null(c);
	assert_int_equal(c->events.history, 50);
	assert_int_equal(c->master_check_ms, 5000);
	assert_int_equal(c->ntargets, 2);
	assert_string_equal(c->targets[0].name, "nms");
	assert_int_equal(c->targets[0].version, 2);
	assert_int_equal(c->targets[0].inform, 0);
	assert_int_equal(c->targets[0].events, GW_CAT_LINK | GW_CAT_NODE);
	assert_int_equal(c->targets[0].timeout_ms, 1000);
	assert_int_equal(c->targets[1].version, 3);
	assert_int_equal(c->targets[1].inform, 1);
	assert_int_equal(c->targets[1].engine_id_len, 8);
	assert_int_equal(c->targets[1].engine_id[7], 'c');
	assert_int_equal(c->targets[1].events, GW_CAT_ALL);
	assert_int_equal(c->targets[1].queue, 10);
	assert_int_equal(c->targets[1].nodes.type, STORE_NODE_SWITCH);
	assert_int_equal(c->nupdown_off, 2);
	assert_int_equal(c->updown_off[0].any_port, 0);
	assert_int_equal(c->updown_off[0].ports[0], 1 << 1);
	assert_int_equal(c->updown_off[0].ports[4], 1 << 4);
	assert_int_equal(c->updown_off[1].any_port, 1);
	gw_conf_free(c);

	c = load("notify:\n"
	    "  targets:\n"
	    "    - {name: a, address: \"udp:127.0.0.1:162\"}\n"
	    "    - {name: b, address: \"tcp:1.2.3.4:162\", community: c}\n"
	    "    - {name: c, address: \"udp:127.0.0.1:162\", community: c,\n"
	    "       events: [links]}\n"
	    "    - {name: d, address: \"udp:127.0.0.1:162\", version: 3,\n"
	    "       type: inform, user: {name: u, auth-protocol: SHA,\n"
	    "       auth-passphrase: abcdefgh}}\n"
	    "    - {name: e, address: \"udp:127.0.0.1:162\", version: 3,\n"
	    "       engine-id: \"0x1234\", user: {name: u,\n"
	    "       auth-protocol: SHA, auth-passphrase: abcdefgh}}\n"
	    "    - {name: f, address: \"udp:127.0.0.1:162\", community: c}\n"
	    "    - {name: f, address: \"udp:127.0.0.1:163\", community: c}\n"
	    "    - {name: g, address: \"udp:127.0.0.1:162\", version: 3}\n"
	    "  link-updown-disabled:\n"
	    "    - {ports: [256]}\n", err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, ":3: target 'a': version 2c needs a "
	    "'community'"));
	assert_non_null(strstr(err, ":4: address 'tcp:1.2.3.4:162'"));
	assert_non_null(strstr(err, ":6: unknown event kind 'links'"));
	assert_non_null(strstr(err, ":7: target 'd': a version 3 inform "
	    "needs the receiver's 'engine-id'"));
	assert_non_null(strstr(err, ":11: engine-id must be 0x and 5 to 32 "
	    "bytes"));
	assert_non_null(strstr(err, ":14: duplicate target 'f' (first at "
	    "line 13)"));
	assert_non_null(strstr(err, ":15: target 'g': version 3 needs a "
	    "'user'"));
	assert_non_null(strstr(err, ":17: 'ports' is 256, out of range"));
	/* A v3 trap target's user shares our engine ID with snmp.users. */
	c = load("snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  users: [{name: u, auth-protocol: SHA, auth-passphrase: "
	    "abcdefgh}]\n"
	    "notify:\n"
	    "  targets:\n"
	    "    - {name: t, address: \"udp:127.0.0.1:162\", version: 3,\n"
	    "       user: {name: u, auth-protocol: SHA, auth-passphrase: "
	    "zyxwvuts}}\n", err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, ":6: target 't': user 'u' is also in "
	    "snmp.users"));
	/* Two v3 trap targets, one user name, two sets of keys. */
	c = load("snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: p}]\n"
	    "notify:\n"
	    "  targets:\n"
	    "    - {name: a, address: \"udp:127.0.0.1:162\", version: 3,\n"
	    "       user: {name: n, auth-protocol: SHA, auth-passphrase: "
	    "abcdefgh}}\n"
	    "    - {name: b, address: \"udp:127.0.0.1:163\", version: 3,\n"
	    "       user: {name: n, auth-protocol: SHA, auth-passphrase: "
	    "abcdefgX}}\n", err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, ":8: target 'b': user 'n' has other keys "
	    "at target 'a' (line 6)"));
}

/* Listeners are compared in normalised form (reloads open only what is
 * new); a reload opens new ones before closing old ones, so at most
 * GW_MAX_LISTEN. */
/* events.master-check-ms: off, or at least 2 s (two SMPs a period). */
static void
test_master_check(void **state)
{
	char err[4096] = "";
	const char *head = "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:1161\"]\n"
	    "  communities: [{name: public}]\n"
	    "events:\n";
	char text[512];
	struct gw_conf *c;

	(void)state;
	snprintf(text, sizeof(text), "%s  master-check-ms: 500\n", head);
	c = load(text, err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, ":5: master-check-ms: 0 (off) or at "
	    "least 2000"));
	snprintf(text, sizeof(text), "%s  master-check-ms: 0\n", head);
	c = load(text, err, sizeof(err));
	assert_non_null(c);
	assert_int_equal(c->master_check_ms, 0);
	gw_conf_free(c);
	snprintf(text, sizeof(text), "%s  history: 10\n", head);
	c = load(text, err, sizeof(err));
	assert_non_null(c);
	assert_int_equal(c->master_check_ms, 2500);
	gw_conf_free(c);
}

/* tunnel: and the policies' tunnel keys (docs/tunneling.md). */
static void
test_tunnel(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:161\"]\n"
	    "  communities: [{name: a}]\n"
	    "tunnel:\n"
	    "  segment-octets: 160\n"
	    "  probe-interval: 600\n"
	    "  read-ahead: 30\n"
	    "  max-in-flight-per-node: 8\n"
	    "polling:\n"
	    "  - name: hosts\n"
	    "    match: {type: ca}\n"
	    "    tunnel: prefer\n"
	    "    tunnel-community: \"host secret\"\n"
	    "    tunnel-ttl: 0\n"
	    "  - name: switches\n"
	    "    match: {type: switch}\n", err, sizeof(err));

	assert_non_null(c);
	assert_string_equal(err, "");
	assert_int_equal(c->tunnel.segment_octets, 160);
	assert_int_equal(c->tunnel.probe_interval, 600);
	assert_int_equal(c->tunnel.max_inflight_node, 8);
	assert_int_equal(c->tunnel_read_ahead, 30);
	assert_int_equal(c->policies[0].tunnel, PROXY_TUNNEL_PREFER);
	assert_string_equal(c->policies[0].tunnel_community, "host secret");
	assert_int_equal(c->policies[0].tunnel_ttl, 0);
	assert_int_equal(c->policies[1].tunnel, PROXY_TUNNEL_OFF);
	assert_int_equal(c->policies[1].tunnel_ttl, 5);
	gw_conf_free(c);

	c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:161\"]\n"
	    "  communities: [{name: a}]\n"
	    "tunnel:\n"
	    "  segment-octets: 200\n"
	    "polling:\n"
	    "  - name: hosts\n"
	    "    tunnel: auto\n"
	    "  - name: x\n"
	    "    tunnel: always\n"
	    "    tunnel-community: a\n", err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, ":5: 'segment-octets'"));
	assert_non_null(strstr(err, ":7: a policy with 'tunnel' needs "
	    "'tunnel-community'"));
	assert_non_null(strstr(err, ":10: 'tunnel' must be off, auto or "
	    "prefer"));
	(void)state;
}

static void
test_polling(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:161\"]\n"
	    "  communities: [{name: a}]\n"
	    "polling:\n"
	    "  - name: leaves\n"
	    "    match: {type: switch, name: \"leaf*\", guids: [0x12]}\n"
	    "    groups: [counters, error-details, vl-counters]\n"
	    "    interval: 30\n"
	    "    max-in-flight: 4\n"
	    "    reset-counters: true\n"
	    "    thresholds:\n"
	    "      - {counter: SymbolErrorCounter, per-minute: 2.5}\n"
	    "      - {counter: PortVLOpPackets15, per-minute: 1}\n"
	    "  - match: {regex: \"^node\"}\n", err, sizeof(err));

	assert_non_null(c);
	assert_string_equal(err, "");
	assert_int_equal(c->npolicies, 2);
	assert_string_equal(c->policies[0].name, "leaves");
	assert_int_equal(c->policies[0].match.type, 2);
	assert_int_equal(c->policies[0].groups,
	    ATTR_POLL_COUNTERS | ATTR_POLL_ERROR_DETAILS | ATTR_POLL_VL_COUNTERS);
	assert_int_equal(c->policies[0].interval, 30);
	assert_int_equal(c->policies[0].ttl, 30);	/* defaults to it */
	assert_int_equal(c->policies[0].reset, 1);
	assert_int_equal(c->policies[0].match.nguids, 1);
	assert_int_equal(c->policies[0].nthresholds, 2);
	assert_int_equal(c->policies[0].thresholds[1].ctr, CTR_VL_OP_PKTS0 + 15);
	assert_true(c->policies[0].thresholds[0].per_minute == 2.5);
	assert_non_null(c->policies[1].match.regex);
	assert_int_equal(c->policies[1].interval, 60);
	gw_conf_free(c);

	err[0] = '\0';
	c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:161\"]\n"
	    "  communities: [{name: a}]\n"
	    "polling:\n"
	    "  - match: {type: toaster, regex: \"([\", guids: [zz]}\n"
	    "    groups: [counters, colours]\n"
	    "    interval: 0\n"
	    "    reset-counters: maybe\n"
	    "    thresholds: [{counter: Nonsense, per-minute: -1}]\n",
	    err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, ":5: type must be ca, switch or router"));
	assert_non_null(strstr(err, ":5: bad regular expression"));
	assert_non_null(strstr(err, ":5: not a GUID: 'zz'"));
	assert_non_null(strstr(err, ":6: unknown group 'colours'"));
	assert_non_null(strstr(err, ":7: 'interval' is 0, out of range"));
	assert_non_null(strstr(err, ":8: 'reset-counters' must be true or "
	    "false"));
	assert_non_null(strstr(err, ":9: unknown counter 'Nonsense'"));
}

/* docs/health.md: a threshold on PortXmitWait's share of the
 * interval, and what the parser refuses of it. */
static void
test_xmit_wait_threshold(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:161\"]\n"
	    "  communities: [{name: a}]\n"
	    "polling:\n"
	    "  - thresholds:\n"
	    "      - {counter: SymbolErrorCounter, per-minute: 1}\n"
	    "      - xmit-wait-ppm: 50000\n", err, sizeof(err));

	assert_non_null(c);
	assert_string_equal(err, "");
	assert_int_equal(c->policies[0].nthresholds, 2);
	assert_int_equal(c->policies[0].thresholds[0].ratio_ppm, 0);
	assert_int_equal(c->policies[0].thresholds[1].ctr, CTR_XMIT_WAIT);
	assert_int_equal(c->policies[0].thresholds[1].ratio_ppm, 50000);
	gw_conf_free(c);

	err[0] = '\0';
	c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:161\"]\n"
	    "  communities: [{name: a}]\n"
	    "polling:\n"
	    "  - thresholds:\n"
	    "      - xmit-wait-ppm: 1000001\n"
	    "      - {xmit-wait-ppm: 10, counter: PortXmitWait}\n"
	    "      - {xmit-wait-ppm: lots}\n", err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, ":6: 'xmit-wait-ppm' is 1000001, out of "
	    "range"));
	assert_non_null(strstr(err, ":7: 'xmit-wait-ppm' is a threshold of "
	    "its own"));
	assert_non_null(strstr(err, ":8: "));
}

static void
test_mkey_file(void **state)
{
	char kpath[64], err[1024];
	uint64_t k = 0;
	FILE *f, *e;

	snprintf(kpath, sizeof(kpath), "/tmp/ibsnmpgw-mkey-%d", getpid());
	f = fopen(kpath, "w");
	fputs("0x00000000deadbeef\n", f);
	fclose(f);
	chmod(kpath, 0644);
	e = fmemopen(err, sizeof(err), "w");
	assert_int_equal(gw_conf_read_key(kpath, "M_Key", &k, e), -1);
	fclose(e);
	assert_non_null(strstr(err, "readable only by its owner"));
	chmod(kpath, 0600);
	e = fmemopen(err, sizeof(err), "w");
	assert_int_equal(gw_conf_read_key(kpath, "M_Key", &k, e), 0);
	fclose(e);
	assert_true(k == 0xdeadbeefULL);
	f = fopen(kpath, "w");
	fputs("secret-words\n", f);
	fclose(f);
	e = fmemopen(err, sizeof(err), "w");
	assert_int_equal(gw_conf_read_key(kpath, "M_Key", &k, e), -1);
	fclose(e);
	/* The bad content is never echoed. */
	assert_non_null(strstr(err, ":1: expected one 64-bit M_Key"));
	assert_null(strstr(err, "secret"));
	/* The SA key file: same rules, its own name in the message. */
	e = fmemopen(err, sizeof(err), "w");
	assert_int_equal(gw_conf_read_key(kpath, "SM_Key", &k, e), -1);
	fclose(e);
	assert_non_null(strstr(err, ":1: expected one 64-bit SM_Key"));
	unlink(kpath);
}

/* topology.expected is read with the configuration: its parse kept,
 * its faults as file:line, and the key's own line after them. */
static void
test_topology(void **state)
{
	char tpath[64], text[2048], err[2048] = "";
	struct gw_conf *c;
	FILE *f;

	snprintf(tpath, sizeof(tpath), "/tmp/ibsnmpgw-topo-%d", getpid());
	f = fopen(tpath, "w");
	assert_non_null(f);
	fputs("caguid=0x200\nCa 1 \"H-0000000000000200\"\n"
	    "[1] \"S-0000000000000100\"[3]\n"
	    "switchguid=0x100\nSwitch 8 \"S-0000000000000100\"\n", f);
	fclose(f);
	snprintf(text, sizeof(text), "%stopology:\n  expected: %s\n", good,
	    tpath);
	c = load(text, err, sizeof(err));
	assert_non_null(c);
	assert_string_equal(c->topo_expected, tpath);
	assert_non_null(c->topo_blueprint);
	assert_int_equal(c->topo_blueprint->nnodes, 2);
	assert_int_equal(c->topo_blueprint->nlinks, 1);
	gw_conf_free(c);
	f = fopen(tpath, "a");
	fputs("[9] \"H-0000000000000200\"[1]\n", f);
	fclose(f);
	c = load(text, err, sizeof(err));
	assert_null(c);
	snprintf(text, sizeof(text), "%s:6: expected [PORT] with PORT 1 to 8",
	    tpath);
	assert_non_null(strstr(err, text));
	snprintf(text, sizeof(text), "%s:%d: topology.expected: ", path,
	    count_lines(good) + 2);
	assert_non_null(strstr(err, text));
	unlink(tpath);
	c = load("topology:\n  expected: /nonexistent/x.topo\n  other: 1\n",
	    err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, "/nonexistent/x.topo: No such file"));
	assert_non_null(strstr(err, "unknown key 'other'"));
}

/* health.expect: rules in order, either dimension; bad values at their
 * line, one message each. */
static void
test_health_expect(void **state)
{
	char err[4096] = "";
	struct gw_conf *c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:161\"]\n"
	    "  communities: [{name: a}]\n"
	    "health:\n"
	    "  expect:\n"
	    "    - nodes: {type: switch}\n"
	    "      width: 4X\n"
	    "      speed: edr\n"
	    "    - {speed: xdr}\n", err, sizeof(err));

	assert_non_null(c);
	assert_string_equal(err, "");
	assert_int_equal(c->nexpect, 2);
	assert_int_equal(c->expect[0].nodes.type, 2);
	assert_int_equal(c->expect[0].lanes, 4);
	assert_int_equal(c->expect[0].speed, SMP_SPEED_EDR);
	assert_int_equal(c->expect[0].line, 6);
	assert_int_equal(c->expect[1].nodes.set, 0);
	assert_int_equal(c->expect[1].lanes, 0);
	assert_int_equal(c->expect[1].speed, SMP_SPEED_XDR);
	gw_conf_free(c);

	c = load(
	    "snmp:\n"
	    "  listen: [\"udp:127.0.0.1:161\"]\n"
	    "  communities: [{name: a}]\n"
	    "health:\n"
	    "  expect:\n"
	    "    - {width: 3x}\n"
	    "    - {speed: fast}\n"
	    "    - nodes: {type: ca}\n"
	    "    - 5\n"
	    "  other: 1\n", err, sizeof(err));
	assert_null(c);
	assert_non_null(strstr(err, ":6: width: one of 1x"));
	assert_non_null(strstr(err, ":7: speed: one of sdr"));
	assert_non_null(strstr(err, ":8: an expectation needs 'width' or "
	    "'speed'"));
	assert_non_null(strstr(err, ":9: "));
	assert_non_null(strstr(err, ":10: unknown key 'other' in 'health'"));
	assert_int_equal(count_lines(err), 5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_master_check),
		cmocka_unit_test(test_polling),
		cmocka_unit_test(test_health_expect),
		cmocka_unit_test(test_xmit_wait_threshold),
		cmocka_unit_test(test_mkey_file),
		cmocka_unit_test(test_topology),
		cmocka_unit_test(test_notify),
		cmocka_unit_test_setup_teardown(test_tunnel, setup, teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
