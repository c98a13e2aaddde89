#!/usr/bin/python3
"""packaging/zabbix/ibsnmpgw_templates.xml in a real Zabbix 6.0 server
(Debian 12's zabbix-server-pgsql and zabbix-frontend-php), against the
simulated fabric. The test installs the packages if need be (exit 77 if
it cannot, or without root), and starts, on loopback and under a
temporary directory, a private PostgreSQL cluster with the Zabbix
schema, zabbix_server with a generated configuration, and the
frontend's JSON-RPC API under php's built-in web server (a copy of
/usr/share/zabbix whose configuration file is the test's).

Through the API it imports the templates (configuration.import),
creates one host for the gateway (SNMPv2, community
{$IBSNMPGW.COMMUNITY}@{$IBSNMPGW.CONTEXT}) with short intervals set by
host macros, then waits (bounded) for low-level discovery to create a
host per inventory node, for a switch's and an HCA's port items to have
values that match what the gateway answers, for an Unlink to show as a
problem on the switch port and for the ReLink to resolve it; that
fabric's ibsnmpgwDegradedLinkTable is empty, and the degraded-link
discovery rule is supported with nothing to discover. With the fabric
pinned as its blueprint (ctl topology pin), an Unlink of node05's port-1
cable (a cableMissing row of ibsnmpgwTopologyDiffTable) becomes the
problem "Topology differs from the blueprint: cable-missing leaf03[1] -
node05[1]" on the gateway's host, and the ReLink its recovery (the item
reading 0); a second Unlink of that cable makes leaf03 port 1 unhealthy
(2 link-downs in 24h): an average problem from the ports-not-healthy
rule. Then it deletes
that host and does the same discovery on cluster.topo, whose contexts
and descriptions are those of a fabric without a node-name-map
(MF0;leaf01:MSB7800/U1, "localhost mlx5_0" twice): a host per node
still, each polled through its context. There, with switches expected
at 4x (health.expect, as tests/integration/links.py), the narrower
links are degraded: the gateway's host gets items for exactly the
table's rows and a problem for each, and each link's ends, degraded
ports, a warning each; an admin narrowing leaf01 port 1
(ibportstate) adds a link and a problem, widening it again resolves
that problem and no other.

It stops what it started, by PID. Figures (time to the first discovered
host, to the first port value, from Unlink to problem) are printed as
"# figure" lines."""

import os
import re
import signal
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402
from zabbix_env import Daemons, Zabbix, install, wait  # noqa: E402

TOP = simlib.TOP
XML = os.path.join(TOP, "packaging", "zabbix", "ibsnmpgw_templates.xml")
# Zabbix item intervals and discovery periods the test sets as host
# macros on the gateway's host (the shipped defaults are 1m, 1h, 5m).
# {$IBSNMPGW.HEALTH.RECOVERY} keeps its default, #3: three polls.
INTERVAL = "5s"
# The gateway host's interface community, as packaging/zabbix/README.md
# says: the node hosts inherit the interface, with their own context.
COMMUNITY = "{$IBSNMPGW.COMMUNITY}@{$IBSNMPGW.CONTEXT}"
FIGURES = []
NODE_CONTEXT = ".1.3.6.1.4.1.8072.9999.9999.117.5.1.1.2"
NODE_DESCR = ".1.3.6.1.4.1.8072.9999.9999.117.5.1.1.5"
CLUSTER = os.path.join(TOP, "tests", "sim", "topologies", "cluster.topo")
# ibsnmpgwDegradedLinkEntry; its rule in the fabric template; switches
# expected at 4x: cluster.topo's narrower host links are degraded.
DEGRADED = simlib.GW_BASE + ".9.2.1"
DEGRADED_RULE = "ibsnmpgw.link.degraded.discovery"
# ibsnmpgwTopologyDiffEntry: the blueprint's differences;
# ibsnmpgwUnhealthyPortEntry: the ports not healthy.
DIFF = simlib.GW_BASE + ".9.3.1"
UNHEALTHY = simlib.GW_BASE + ".9.4.1"
EXPECT = ("health:\n  expect:\n    - nodes: {type: switch}\n"
          "      width: 4x\n")


def figure(name, seconds):
    FIGURES.append((name, seconds))
    print("# figure: %s %.1f s" % (name, seconds))
    sys.stdout.flush()


R = simlib.Report()
D = None
fab = None


def host_items(hostid, key):
    return D.zbx.call("item.get", {
        "hostids": hostid, "filter": {"key_": key},
        "output": ["itemid", "key_", "lastvalue", "lastclock", "state",
                   "error", "value_type"]})


def value_of(hostid, key):
    """(lastvalue, item) once the item has a value, else None."""
    its = host_items(hostid, key)
    if its and int(its[0]["lastclock"]) > 0:
        return its[0]["lastvalue"], its[0]
    return None


def gw_get(node, oid):
    out = fab.snmp("snmpget", fab.v2(node), [oid])
    return parse_vars(out.stdout).get(oid, (None, None))[1]


STATE = {}


def gateway_host(fab, name):
    """A host for fab's gateway as packaging/zabbix/README.md says, with
    the test's short intervals: (hostid, its macros, address, port)."""
    addr, port = fab.endpoint.split(":")[-2:]
    macros = {"{$IBSNMPGW.COMMUNITY}": fab.community,
              "{$IBSNMPGW.DISCOVERY.INTERVAL}": INTERVAL,
              "{$IBSNMPGW.HEALTH.DISCOVERY.INTERVAL}": INTERVAL,
              "{$IBSNMPGW.INTERVAL}": INTERVAL}
    gw = D.zbx.call("host.create", {
        "host": name, "groups": [{"groupid": STATE["gid"]}],
        "templates": [{"templateid": STATE["tmpl"]}],
        "interfaces": [{"type": 2, "main": 1, "useip": 1, "ip": addr,
                        "dns": "", "port": port, "details": {
                            "version": 2, "bulk": 1,
                            "community": COMMUNITY}}],
        "macros": [{"macro": k, "value": v} for k, v in macros.items()]})[
        "hostids"][0]
    return gw, macros, addr, port


def node_table(fab):
    """The fabric context's ibsnmpgwNodeContext and ibsnmpgwNodeDescr
    columns, in index order: (contexts, descriptions)."""
    cols = []
    for oid in (NODE_CONTEXT, NODE_DESCR):
        out = fab.snmp("snmpbulkwalk", fab.v2("fabric"), [oid])
        got = parse_vars(out.stdout)
        cols.append([got[k][1] for k in sorted(got, key=lambda o: [
            int(x) for x in o.split(".")[1:]])])
    return cols


def degraded_rows(fab):
    """The indexes of the fabric context's ibsnmpgwDegradedLinkTable."""
    out = fab.snmp("snmpbulkwalk", fab.v2("fabric"), [DEGRADED])
    return sorted({k[len(DEGRADED) + 1:].split(".", 1)[1]
                   for k in parse_vars(out.stdout)
                   if k.startswith(DEGRADED + ".")})


def link_items(gw):
    """The gateway host's degraded-link items: {row index: item}."""
    return {i["key_"][len("ibsnmpgw.link.degraded["):-1]: i
            for i in D.zbx.call("item.get", {
                "hostids": gw, "search": {"key_": "ibsnmpgw.link.degraded["},
                "output": ["itemid", "key_", "name", "lastvalue",
                           "lastclock", "state", "error"]})}


def link_problems(gw):
    """The open problems of the gateway host's degraded-link triggers:
    {triggerid: problem}."""
    tids = [t["triggerid"] for t in D.zbx.call("trigger.get", {
        "hostids": gw, "search": {"description": "Link degraded:"},
        "output": ["triggerid"]})]
    return tids and {p["objectid"]: p for p in D.zbx.call("problem.get", {
        "objectids": tids, "output": ["eventid", "objectid", "name",
                                      "r_eventid"]})}


def discovered():
    return sorted(h["host"] for h in D.zbx.call("host.get", {
        "output": ["host"], "filter": {"flags": 4}}))


def main():
    z = D.zbx
    z.start_db()
    schema = z.psql("SELECT mandatory FROM dbversion", db="zabbix",
                    user="zabbix").strip()
    R.check(schema.isdigit(), "PostgreSQL cluster with the Zabbix %s "
            "schema" % schema)
    z.start_server()
    ver = z.start_frontend()
    z.login()
    R.check(ver.startswith("6.0"), "the frontend's API answers (Zabbix %s)"
            % ver)
    ok, _ = wait(lambda: "server #0 started" in z.log(), 60)
    R.check(ok and D.alive("zabbix_server"), "zabbix_server started",
            z.log()[-2000:])
    # The schema's own "Zabbix server" host polls an agent that is not
    # there: off, so the two pollers are ours.
    for h in z.call("host.get", {"filter": {"host": "Zabbix server"}}):
        z.call("host.update", {"hostid": h["hostid"], "status": 1})

    with open(XML) as f:
        xml = f.read()
    rule = {"createMissing": True, "updateExisting": True}
    res = z.call("configuration.import", {
        "format": "xml", "source": xml, "rules": {
            "groups": {"createMissing": True},
            "templates": rule, "templateLinkage": {"createMissing": True},
            "items": rule, "discoveryRules": rule, "triggers": rule,
            "graphs": rule, "httptests": rule, "valueMaps": rule}})
    R.check(res is True, "configuration.import of the templates", res)
    tmpls = {t["host"]: t["templateid"] for t in z.call("template.get", {
        "filter": {"host": ["ibsnmpgw fabric by SNMP",
                            "ibsnmpgw node by SNMP"]},
        "output": ["host"]})}
    R.equal(sorted(tmpls), ["ibsnmpgw fabric by SNMP",
                            "ibsnmpgw node by SNMP"], "both templates exist")
    drule = z.call("discoveryrule.get", {
        "templateids": tmpls["ibsnmpgw fabric by SNMP"],
        "output": ["itemid"]})
    protos = z.call("hostprototype.get", {
        "discoveryids": [r["itemid"] for r in drule],
        "output": ["host", "custom_interfaces"],
        "selectMacros": ["macro", "value"]})
    R.check(len(protos) == 1 and protos[0]["host"] == "ib-{#IBSNMPGW.HOST}" and
            protos[0]["custom_interfaces"] == "0",
            "the fabric template has the host prototype ib-{#IBSNMPGW.HOST}, "
            "which inherits the gateway host's interface", protos)
    tps = z.call("triggerprototype.get", {
        "templateids": tmpls["ibsnmpgw node by SNMP"],
        "output": ["description", "recovery_mode"]})
    R.check([t["description"] for t in tps] == ["Port {#IFNAME}: link down"]
            and tps[0]["recovery_mode"] == "1", "the node template has a "
            "link-down trigger prototype with a recovery expression", tps)

    ip = z.call("itemprototype.get", {
        "templateids": tmpls["ibsnmpgw fabric by SNMP"],
        "filter": {"key_": "ibsnmpgw.link.degraded[{#SNMPINDEX}]"},
        "output": ["key_"], "selectPreprocessing": "extend",
        "selectTriggers": ["description", "recovery_mode"]})
    R.check(len(ip) == 1 and [(t["description"][:15], t["recovery_mode"])
                              for t in ip[0]["triggers"]] ==
            [("Link degraded: ", "1")] and
            [(s["type"], s["error_handler"], s["error_handler_params"])
             for s in ip[0]["preprocessing"]] == [("26", "2", "0")],
            "the fabric template has the degraded-link trigger prototype, "
            "with a recovery expression, on an item whose not-supported "
            "values become 0", ip)
    # The other health tables' trigger items, likewise: the blueprint's
    # differences (one trigger), the ports not healthy (one per verdict:
    # degraded a warning (2), unhealthy average (3)).
    for key, want in (("ibsnmpgw.topology.diff[{#SNMPINDEX}]",
                       [("Topology differs from the blueprint: ", "2")]),
                      ("ibsnmpgw.port.health[{#SNMPINDEX}]",
                       [("Port {#PORTNAME} degraded: ", "2"),
                        ("Port {#PORTNAME} unhealthy: ", "3")])):
        ip = z.call("itemprototype.get", {
            "templateids": tmpls["ibsnmpgw fabric by SNMP"],
            "filter": {"key_": key}, "output": ["key_"],
            "selectPreprocessing": "extend", "selectTriggers": [
                "description", "recovery_mode", "priority"]})
        R.check(len(ip) == 1 and sorted(
            (t["description"][:len(w[0])], t["priority"], t["recovery_mode"])
            for t, w in zip(sorted(ip[0]["triggers"], key=lambda t: t[
                "priority"]), want)) == [w + ("1",) for w in want] and
            len(ip[0]["triggers"]) == len(want) and
            [(st["type"], st["error_handler"], st["error_handler_params"])
             for st in ip[0]["preprocessing"]] == [("26", "2", "0")],
            "%s: trigger prototypes %s with a recovery expression, on an "
            "item whose not-supported values become 0" % (
                key, [w[0] + "..." for w in want]), ip)

    STATE["tmpl"] = tmpls["ibsnmpgw fabric by SNMP"]
    STATE["gid"] = z.call("hostgroup.create", {
        "name": "InfiniBand gateways"})["groupids"][0]
    gw, macros, addr, port = gateway_host(fab, "ibsnmpgw")
    t_host = time.time()
    STATE["gw"] = gw
    R.check(gw, "the gateway's host, linked to the fabric template")

    # Low-level discovery: one host per inventory node.
    want = sorted("ib-" + c for c in node_table(fab)[0])
    R.equal(len(want), int(fab.sql("SELECT count(*) FROM nodes")),
            "the fabric context's node table has every inventory node")
    first, t_first = wait(discovered, 300, 1)
    if first:
        figure("gateway host created to first discovered host", t_first)
    t_first += t_host
    hosts, _ = wait(lambda: discovered() == want and want, 300, 1)
    R.equal(hosts or discovered(), want, "discovery created ib-NODE for "
            "every inventory node (%d)" % len(want))
    rules = z.call("discoveryrule.get", {"hostids": gw, "output": [
        "key_", "state", "error"]})
    R.check(len(rules) == 4 and all(r["state"] == "0" for r in rules),
            "the node discovery and the three health discovery rules "
            "(degraded links, blueprint differences, ports not healthy) "
            "are supported", rules)
    R.check(not degraded_rows(fab) and not link_items(gw),
            "no degraded link on this fabric, and no link item: an "
            "empty ibsnmpgwDegradedLinkTable discovers nothing", (
                degraded_rows(fab), link_items(gw)))

    def untemplated():
        """The discovered hosts, and those without the node template yet
        (the LLD links templates after it creates the hosts)."""
        hs = {h["host"]: h for h in z.call("host.get", {
            "output": ["host", "name"], "filter": {"flags": 4},
            "selectInterfaces": "extend",
            "selectParentTemplates": ["host"]})}
        return hs, [h for h in hs.values() if [t["host"] for t in h[
            "parentTemplates"]] != ["ibsnmpgw node by SNMP"]]
    wait(lambda: not untemplated()[1], 120, 1)
    byname, bad = untemplated()
    R.check(byname and not bad, "each discovered host has the node "
            "template", bad[:3])

    # The node hosts reach their node through the inherited interface
    # and the macros the discovery gave them.
    for name in ("ib-leaf01", "ib-node01"):
        h = byname.get(name, {"hostid": "0", "interfaces": []})
        ifs = [(i["ip"], i["port"], i["details"].get("community"))
               for i in h["interfaces"]]
        R.equal(ifs, [(addr, port, COMMUNITY)], "%s inherits the gateway "
                "host's interface" % name)
        got = {m["macro"]: m["value"] for m in z.call("usermacro.get", {
            "hostids": h["hostid"], "output": ["macro", "value"]})}
        want_m = dict(macros, **{"{$IBSNMPGW.CONTEXT}": name[3:]})
        R.equal({k: got.get(k) for k in want_m}, want_m, "%s's macros: "
                "its context, and the gateway host's community and "
                "intervals" % name)

    # A switch's and an HCA's port items get values from the fabric.
    sw, hca = byname.get("ib-leaf01"), byname.get("ib-node01")
    if not (sw and hca):
        return
    # leaf01 port 5 is cabled to spine01[1]; node01 port 1 to leaf01[1].
    checks = [(sw, "leaf01", 5), (hca, "node01", 1)]
    got, took = wait(lambda: all(value_of(h["hostid"], "ib.port.oper[%d]"
                                          % p) for h, _, p in checks),
                     300, 1)
    figure("first discovered host to first port values (ifOperStatus of "
           "leaf01 port 5 and node01 port 1)", time.time() - t_first)
    R.check(got, "ifOperStatus items of ib-leaf01 port 5 and ib-node01 "
            "port 1 have values within %.0f s" % took,
            [host_items(h["hostid"], "ib.port.oper[%d]" % p)
             for h, _, p in checks])
    for h, node, p in checks:
        keys = {"ib.port.oper[%d]" % p: "1.3.6.1.2.1.2.2.1.8",
                "ib.port.speed[%d]" % p: "1.3.6.1.2.1.31.1.1.1.15",
                "ib.port.in.bytes[%d]" % p: None,
                "ib.port.out.bytes[%d]" % p: None,
                "ib.port.symbol.errors[%d]" % p: "1.3.6.1.3.117.2.1.1.1.2",
                "ib.port.link.downed[%d]" % p: "1.3.6.1.3.117.2.1.1.1.4"}
        vals, _ = wait(lambda: all(value_of(h["hostid"], k) for k in keys)
                       and {k: value_of(h["hostid"], k)[0] for k in keys},
                       120, 1)
        R.check(vals, "%s port %d: every port item has a value (traffic "
                "as a rate after two polls)" % (h["host"], p),
                [(k, host_items(h["hostid"], k)) for k in keys])
        if not vals:
            continue
        direct = {}
        for k, oid in keys.items():
            if oid:
                v = gw_get(node, ".%s.%d" % (oid, p))
                direct[k] = str(v * 1000000 if "speed" in k else v)
        R.equal({k: vals[k] for k in direct}, direct, "%s port %d: "
                "ifOperStatus up, ifHighSpeed (x 10^6), symbol errors and "
                "link downed as the gateway answers them" % (h["host"], p))
        R.check(all(float(vals[k]) >= 0 for k in keys if "bytes" in k),
                "%s port %d: the traffic rates are numbers" % (h["host"], p),
                vals)

    # An Unlink: a problem on the switch port, resolved by the ReLink.
    oper = host_items(sw["hostid"], "ib.port.oper[5]")[0]
    trig = z.call("trigger.get", {"itemids": oper["itemid"], "output": [
        "triggerid", "description", "value"], "expandDescription": True})
    R.check(trig, "ib-leaf01 port 5 has a link-down trigger", trig)
    if not trig:
        return
    tid = trig[0]["triggerid"]
    t_unlink = time.time()
    fab.cmd('Unlink "leaf01"[5]')

    def problem():
        return z.call("problem.get", {"objectids": tid, "output": "extend",
                                      "recent": True})
    probs, took = wait(problem, 120, 0.5)
    figure("Unlink to problem", took)
    R.check(probs, "Unlink \"leaf01\"[5]: a problem on ib-leaf01 within "
            "%.0f s: %s" % (took, probs and probs[0]["name"]),
            z.call("history.get", {"itemids": oper["itemid"], "history": 3,
                                   "sortfield": "clock", "sortorder":
                                   "DESC", "limit": 5}))
    fab.cmd('ReLink "leaf01"[5]')
    t_relink = time.time()
    solved, took = wait(lambda: probs and z.call("problem.get", {
        "eventids": probs[0]["eventid"], "output": ["r_eventid"],
        "recent": True})[0]["r_eventid"] != "0", 120, 0.5)
    figure("ReLink to resolved", took)
    R.check(solved, "ReLink: the problem is resolved within %.0f s" %
            (time.time() - t_relink))
    events = z.call("event.get", {"objectids": tid, "output": [
        "value", "name", "clock"], "sortfield": ["clock", "eventid"],
        "time_from": int(t_unlink) - 1})
    R.equal([e["value"] for e in events], ["1", "0"], "the trigger's "
            "events since the Unlink: one problem, one recovery")
    R.check("query failed" not in z.log(), "no failed database query in "
            "the server's log", [ln for ln in z.log().splitlines()
                                 if "query failed" in ln][:5])


def diff_rows(fab):
    """The indexes of the fabric context's ibsnmpgwTopologyDiffTable."""
    out = fab.snmp("snmpbulkwalk", fab.v2("fabric"), [DIFF])
    return sorted({k[len(DIFF) + 1:].split(".", 1)[1]
                   for k in parse_vars(out.stdout)
                   if k.startswith(DIFF + ".")})


def diff_items(gw):
    """The gateway host's blueprint-difference items: {row: item}."""
    return {i["key_"][len("ibsnmpgw.topology.diff["):-1]: i
            for i in D.zbx.call("item.get", {
                "hostids": gw, "search": {"key_": "ibsnmpgw.topology.diff["},
                "output": ["itemid", "key_", "name", "lastvalue",
                           "lastclock", "state", "error"]})}


def diff_problems(gw):
    """The open problems of the gateway host's blueprint-difference
    triggers: {triggerid: problem}."""
    tids = [t["triggerid"] for t in D.zbx.call("trigger.get", {
        "hostids": gw, "search": {"description": "Topology differs from "},
        "output": ["triggerid"]})]
    return tids and {p["objectid"]: p for p in D.zbx.call("problem.get", {
        "objectids": tids, "output": ["eventid", "objectid", "name",
                                      "r_eventid", "severity"]})}


def blueprint(gw):
    """The fabric pinned as its blueprint (no difference, no item), then
    node05's port-1 cable pulled: a cableMissing row through the SM's
    Report, discovered on the gateway's host with a problem 'Topology
    differs from the blueprint: cable-missing leaf03[1] - node05[1]'.
    ReLink: the row goes, the item reads 0 and the problem resolves
    after {$IBSNMPGW.HEALTH.RECOVERY} polls of 0."""
    z = D.zbx
    out = fab.ctl("topology", "pin")
    R.check(out.returncode == 0 and " differences 0 " in out.stdout,
            "ctl topology pin: the fabric is its blueprint", out.stdout +
            out.stderr)
    R.check(not diff_rows(fab) and not diff_items(gw), "no difference, "
            "and no blueprint-difference item", diff_items(gw))
    t0 = time.time()
    fab.cmd('Unlink "node05"[1]')
    rows, _ = wait(lambda: diff_rows(fab), 30, 0.2)
    R.check(len(rows) == 1, "Unlink \"node05\"[1]: one row in "
            "ibsnmpgwTopologyDiffTable", fab.ctl("topology", "diff").stdout)
    if len(rows) != 1:
        return
    probs, _ = wait(lambda: diff_problems(gw), 120, 0.5)
    figure("Unlink under a pinned blueprint to problem", time.time() - t0)
    want = "Topology differs from the blueprint: cable-missing leaf03[1] " \
        "- node05[1]"
    R.check(probs and [p["name"] for p in probs.values()] == [want] and
            [p["severity"] for p in probs.values()] == ["2"],
            "... a problem on the gateway's host within %.0f s: %s "
            "(warning)" % (time.time() - t0, want), (
                probs, diff_items(gw), z.call("discoveryrule.get", {
                    "hostids": gw, "output": ["key_", "state", "error"]})))
    if not probs:
        return
    prob = list(probs.values())[0]
    fab.cmd('ReLink "node05"[1]')
    t0 = time.time()
    gone, _ = wait(lambda: not diff_rows(fab), 30, 0.2)
    R.check(gone, "ReLink: the row goes", fab.ctl("topology", "diff")
            .stdout)
    solved, _ = wait(lambda: z.call("problem.get", {
        "eventids": prob["eventid"], "output": ["r_eventid"],
        "recent": True})[0]["r_eventid"] != "0", 120, 0.5)
    figure("ReLink under a pinned blueprint to resolved", time.time() - t0)
    R.check(solved, "... and the problem is resolved within %.0f s" %
            (time.time() - t0))
    it = diff_items(gw).get(rows[0], {})
    R.check(it.get("state") == "0" and it.get("lastvalue") == "0",
            "... its item is still supported and reads 0", it)
    events = z.call("event.get", {"objectids": prob["objectid"],
                                  "output": ["value"], "sortfield": [
                                      "clock", "eventid"]})
    R.equal([e["value"] for e in events], ["1", "0"], "the trigger's "
            "events: one problem, one recovery")


def verdict_rows(fab):
    """The fabric context's ibsnmpgwUnhealthyPortTable: {index:
    (context, verdict, reason)}."""
    out = fab.snmp("snmpbulkwalk", fab.v2("fabric"), [UNHEALTHY])
    cols = {}
    for k, (_t, v) in parse_vars(out.stdout).items():
        if k.startswith(UNHEALTHY + "."):
            col, idx = k[len(UNHEALTHY) + 1:].split(".", 1)
            cols.setdefault(idx, {})[col] = v
    return {i: (c.get("3"), c.get("4"), c.get("5")) for i, c in
            cols.items()}


def port_problems(gw):
    """The open problems of the gateway host's port verdict triggers:
    {row index: [(name, severity)]}."""
    ts = D.zbx.call("trigger.get", {
        "hostids": gw, "search": {"description": "Port "},
        "selectItems": ["key_"], "output": ["triggerid"]})
    row = {t["triggerid"]: i["key_"][len("ibsnmpgw.port.health["):-1]
           for t in ts for i in t["items"]
           if i["key_"].startswith("ibsnmpgw.port.health[")}
    res = {}
    for p in row and D.zbx.call("problem.get", {
            "objectids": list(row), "output": ["objectid", "name",
                                               "severity"]}) or ():
        res.setdefault(row[p["objectid"]], []).append((p["name"],
                                                       p["severity"]))
    return res


def unhealthy_port(gw):
    """node05's cable pulled a second time: leaf03 port 1 (and node05
    port 1, when the gateway sees the host's end go down too) has 2
    link-downs within 24 h, an unhealthy(3) row of
    ibsnmpgwUnhealthyPortTable, and the gateway's host an average
    problem 'Port leaf03[1] unhealthy: REASON' per such row (and no
    warning for it)."""
    R.equal(verdict_rows(fab), {}, "one link-down per port so far: no "
            "port is not healthy")
    t0 = time.time()
    fab.cmd('Unlink "node05"[1]')

    def leaf03():
        return [i for i, (c, h, _r) in verdict_rows(fab).items()
                if c == "leaf03" and i.endswith(".1") and h == 3]
    got, _ = wait(leaf03, 30, 0.2)
    fab.cmd('ReLink "node05"[1]')
    R.check(got, "Unlink \"node05\"[1] again: leaf03 port 1 is "
            "unhealthy(3)", fab.ctl("ports", "--unhealthy").stdout)
    if not got:
        return

    def want():
        """A problem per row of the table, named by its context, port
        and reason; average (3) for unhealthy."""
        return {i: [("Port %s[%s] %s: %s" % (c, i.split(".")[-1], {
            2: "degraded", 3: "unhealthy"}.get(h, h), r), str(h))]
            for i, (c, h, r) in verdict_rows(fab).items()}
    probs, _ = wait(lambda: port_problems(gw) == want() and
                    port_problems(gw), 120, 0.5)
    figure("second Unlink to unhealthy port problem", time.time() - t0)
    R.check(probs and probs.get(got[0], [("", "")])[0][1] == "3" and
            all(v[0][1] == "3" for v in probs.values()),
            "... a problem on the gateway's host per unhealthy port "
            "within %.0f s (average): %s" % (
                time.time() - t0, probs and sorted(
                    v[0][0] for v in probs.values())),
            (port_problems(gw), want()))


def cluster(gw1):
    """tests/sim's cluster.topo, a fabric without a node-name-map whose
    NodeDescriptions are what real ones are: contexts such as
    MF0;leaf01:MSB7800/U1 (not a valid Zabbix host name) and two HCAs
    named "localhost mlx5_0" (reached by GUID). Every node must still be
    a host of its own, reached through its context."""
    global fab
    z = D.zbx
    z.call("host.delete", [gw1])
    gone, _ = wait(lambda: not discovered(), 120, 1)
    R.check(gone, "deleting the gateway's host deletes its node hosts",
            discovered())
    fab.stop()
    fab = simlib.Fabric(topo=CLUSTER, extra=["--sm-events"],
                        extra_yaml=EXPECT)
    contexts, descs = node_table(fab)
    R.check(len(set(descs)) < len(descs) and any(
        not re.match(r"^[0-9A-Za-z_. -]+$", c) for c in contexts),
        "cluster.topo: duplicate descriptions, contexts that are not "
        "Zabbix host names", list(zip(contexts, descs)))
    gw, macros, addr, port = gateway_host(fab, "ibsnmpgw-cluster")
    t_host = time.time()
    hosts, took = wait(lambda: len(discovered()) == len(contexts) and
                       discovered(), 120, 1)
    rules = z.call("discoveryrule.get", {"hostids": gw, "output": [
        "key_", "state", "error"]})
    R.check(hosts, "cluster.topo: discovery created a host for each of "
            "the %d nodes" % len(contexts), "%s\n%s" % (
                discovered(), rules))
    got = {h["name"]: h for h in z.call("host.get", {
        "output": ["host", "name"], "filter": {"flags": 4},
        "selectMacros": ["macro", "value"]})}
    ctx = {h["name"]: [m["value"] for m in h["macros"] if m["macro"] ==
                       "{$IBSNMPGW.CONTEXT}"] for h in got.values()}
    R.equal(sorted(c for v in ctx.values() for c in v), sorted(contexts),
            "cluster.topo: one node host per context, distinct visible "
            "names (%s)" % ", ".join(sorted(got)))

    def polled():
        its = z.call("item.get", {"hostids": [h["hostid"] for h in
                                              got.values()],
                                  "filter": {"key_": "ib.port.oper[1]"},
                                  "output": ["hostid", "lastclock",
                                             "state", "error"]})
        return len(its) == len(got) and all(
            int(i["lastclock"]) > 0 for i in its) and its
    its, took = wait(polled, 180, 1)
    R.check(its, "cluster.topo: every node host's port 1 ifOperStatus "
            "has a value (its context reaches the node)", polled() or
            z.call("item.get", {"hostids": [h["hostid"] for h in
                                            got.values()],
                                "filter": {"key_": "ib.port.oper[1]"},
                                "output": ["hostid", "lastclock", "state",
                                           "error"]}))
    degraded(gw, t_host)


def degraded(gw, t0):
    """cluster.topo with switches expected at 4x: a problem per degraded
    link, which a gateway restart leaves open; ibportstate narrows one
    more link, then restores it."""
    z = D.zbx
    rows = degraded_rows(fab)
    R.check(len(rows) >= 2, "cluster.topo, switches expected at 4x: "
            "%d degraded links" % len(rows), fab.ctl("links", "--degraded")
            .stdout)
    items, took = wait(lambda: sorted(link_items(gw)) == rows and
                       link_items(gw), 120, 1)
    R.equal(sorted(items or link_items(gw)), rows, "the gateway's host "
            "has a degraded-link item for each row of the table")
    probs, took = wait(lambda: len(link_problems(gw) or ()) == len(rows) and
                       link_problems(gw), 120, 1)
    figure("gateway host created to the degraded links' problems",
           time.time() - t0)
    R.check(probs, "a problem for each degraded link within %.0f s" %
            (time.time() - t0), (link_problems(gw), link_items(gw)))
    if not probs:
        return
    # Both ends of each degraded link have the verdict degraded(2): a
    # warning on the gateway's host per row, no average problem.
    ports = {i: v[1] for i, v in verdict_rows(fab).items()}
    want = {i: [("degraded", "2")] for i in ports}
    got, _ = wait(lambda: {i: [("degraded" if ": link degraded" in n and
                                " degraded: " in n else n, sev)
                               for n, sev in ps] for i, ps in
                           port_problems(gw).items()} == want and want,
                  120, 1)
    R.check(ports and set(ports.values()) == {2} and got, "the %d ends "
            "of the degraded links are degraded(2) ports, each a warning "
            "'Port P degraded: link degraded'" % len(ports), (
                ports, port_problems(gw)))
    ctl = fab.ctl("links", "--degraded").stdout
    names = sorted(p["name"] for p in probs.values())
    # "Link degraded: A[p] <-> B[q] runs at 1x SDR, expected 4x SDR";
    # ctl: "A[p] <-> B[q] 1x SDR expected 4x SDR (...) since ...".
    short = [re.sub(r"^Link degraded: (.*) runs at (.*), expected (.*)$",
                    r"\1 \2 expected \3 ", n) for n in names]
    R.check(all(n.startswith("Link degraded: ") and s in ctl
                for n, s in zip(names, short)), "each problem names the "
                "link's ends, its width and speed and the expected ones, as "
                "ctl links --degraded: %s" % names[0], "%s\n%s" % (
                    names, ctl))

    # A gateway restart: no answer for a while, then an empty table
    # until its first sweep. Three polls of every link after the rows
    # are back, and no problem has been resolved.
    t_restart = time.time()
    fab.restart_gateway()
    back, _ = wait(lambda: degraded_rows(fab) == rows, 60, 0.5)
    t_back = time.time()
    polled, _ = wait(lambda: all(int(i["lastclock"]) > t_back + 15 for i in
                                 link_items(gw).values()), 120, 1)
    R.check(back and polled, "gateway restarted: its rows are back, and "
            "every link item polled three times since", link_items(gw))
    recovered = z.call("event.get", {"objectids": list(probs),
                                     "value": 0, "time_from":
                                     int(t_restart) - 1, "output": [
                                         "name", "clock"]})
    zeros = z.call("history.get", {
        "itemids": [i["itemid"] for i in link_items(gw).values()],
        "history": 3, "time_from": int(t_restart) - 1,
        "output": "extend"})
    print("# gateway restart: %d link item values of 0 while its table "
          "was empty" % sum(1 for h in zeros if h["value"] == "0"))
    R.check(not recovered and set(link_problems(gw)) == set(probs),
            "... every degraded link's problem is still open, none "
            "resolved", recovered)

    # An admin narrows leaf01 port 1 (to node01, 4xEDR) to 1x.
    out = fab.diag(["ibportstate", "3", "1", "width", "1"])
    R.check(out.returncode == 0, "ibportstate 3 1 width 1", out.stderr)
    t0 = time.time()
    new, _ = wait(lambda: [r for r in degraded_rows(fab) if r not in rows],
                  30, 0.5)
    R.check(len(new) == 1, "leaf01[1] <-> node01[1] at 1x has a row",
            degraded_rows(fab))
    if len(new) != 1:
        return

    def new_problem():
        it = link_items(gw).get(new[0])
        ps = it and [p for p in (link_problems(gw) or {}).values()
                     if p["objectid"] in [t["triggerid"] for t in z.call(
                         "trigger.get", {"itemids": it["itemid"],
                                         "output": ["triggerid"]})]]
        return ps and ps[0]
    prob, _ = wait(new_problem, 120, 0.5)
    figure("ibportstate width 1 to problem", time.time() - t0)
    R.check(prob and "[1] <-> " in prob["name"] and "runs at 1x" in
            prob["name"], "... discovered, and a problem: %s" % (
                prob and prob["name"]), link_items(gw).get(new[0]))
    if not prob:
        return
    before = set(link_problems(gw)) - {prob["objectid"]}

    # Width back: the row goes; the item reads 0 instead of going
    # unsupported, and the problem resolves once it has for RECOVERY.
    out = fab.diag(["ibportstate", "3", "1", "width", "3"])
    t0 = time.time()
    gone, _ = wait(lambda: degraded_rows(fab) == rows, 30, 0.5)
    R.check(gone, "ibportstate 3 1 width 3: the row goes",
            degraded_rows(fab))
    solved, _ = wait(lambda: z.call("problem.get", {
        "eventids": prob["eventid"], "output": ["r_eventid"],
        "recent": True})[0]["r_eventid"] != "0", 120, 0.5)
    figure("ibportstate width 3 to resolved", time.time() - t0)
    R.check(solved, "... and the problem is resolved within %.0f s" %
            (time.time() - t0))
    it = link_items(gw).get(new[0], {})
    R.check(it.get("state") == "0" and it.get("lastvalue") == "0",
            "... its item is still supported and reads 0", it)
    # The other items of the row: not-supported values discarded.
    others, _ = wait(lambda: [i for i in z.call("item.get", {
        "hostids": gw, "search": {"key_": "[%s]" % new[0]},
        "output": ["key_", "state", "error", "lastclock"]})
        if i["key_"].startswith("ibsnmpgw.link.")], 10, 1)
    R.check(len(others) == 5 and all(i["state"] == "0" for i in others),
            "... and the row's other items stay supported too", others)
    R.equal(set(link_problems(gw)), before, "the other degraded links' "
            "problems stay open")


def run():
    global D, fab
    install()
    simlib.skip_if_missing()
    D = Daemons()
    D.zbx = Zabbix(D)
    # The fabric's directory under ours: other test runs on this machine
    # clean /tmp/ibsnmpgw-it-* of what they think they left.
    tempfile.tempdir = D.dir
    # make's SIGTERM (or a timeout's) still stops what we started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        fab = simlib.Fabric(extra=["--sm-events"])
        main()
        blueprint(STATE["gw"])
        unhealthy_port(STATE["gw"])
        cluster(STATE["gw"])
    except Exception as e:  # noqa: BLE001 - reported, then exit 1
        import traceback
        R.check(False, "the test ran to its end: %s: %s" %
                (type(e).__name__, e), traceback.format_exc())
    finally:
        if R.failed:
            log = D.zbx.log().splitlines()
            print("# zabbix_server.log, last lines:")
            for ln in log[-30:]:
                print("#   " + ln)
            # The whole log next to the test's (the directory goes).
            with open("interop-zabbix-server.log", "w") as f:
                f.write(D.zbx.log())
            print("# the whole of it: interop-zabbix-server.log")
        if fab:
            fab.stop()
        D.stop()
    for name, s in FIGURES:
        print("# figure: %s %.1f s" % (name, s))
    R.finish()


if __name__ == "__main__":
    run()
