#!/usr/bin/python3
"""packaging/zabbix/ibsnmpgw_templates.xml against a running gateway, as
Zabbix would use it: the fabric template's low-level discovery (its
discovery[] OIDs walked in the fabric context) finds exactly the
inventory's nodes; every discovered node's host, which inherits the
gateway host's interface (community {$IBSNMPGW.COMMUNITY}@{$IBSNMPGW.CONTEXT})
with its host prototype's macros, reaches that node; every item and
item prototype OID of both templates answers a value.

The fabric template's fabric health rules (ibsnmpgwHealth tables, one
discovery rule each, docs/health.md) are checked the same way, with a
configuration that makes rows: switches expected at 8x, so every link of
the 4x default fabric is a degraded link and both its ends are degraded
ports; the fabric pinned as its blueprint (ctl topology pin) and
node05's port-1 cable pulled (Unlink, seen through the SM's Report) for
a cableMissing difference; one link-down enough for an unhealthy port,
so that leaf03 port 1 is one. Each rule's discovery finds exactly its
table's rows (and what `ctl links --degraded`, `ctl topology diff` and
`ctl ports --unhealthy` list, as its JavaScript step, run by node.js when
there is one, names them), and every item prototype OID answers for
every row. tests/interop/zabbix.py does the same in a real Zabbix
server."""

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
TOP = os.environ.get("top_srcdir", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", ".."))
XML = os.path.join(TOP, "packaging", "zabbix", "ibsnmpgw_templates.xml")
# Every link of the default fabric runs at 4x and has a switch end: all
# of them are degraded links (ibsnmpgwDegradedLinkTable has a row each),
# and their ends degraded ports (ibsnmpgwUnhealthyPortTable). One
# link-down makes a port unhealthy. The SM's Reports (--sm-events) bring
# an Unlink into the inventory, and so into the blueprint comparison,
# without a sweep.
EXPECT = ("health:\n  expect:\n    - nodes: {type: switch}\n"
          "      width: 8x\n"
          "  ports:\n    link-downs: {count: 1, window: 1h}\n")
fab = simlib.Fabric(extra=["--sm-events"], extra_yaml=EXPECT)
NAMES = simlib.read_name_map()
DIFF = "1.3.6.1.4.1.8072.9999.9999.117.9.3.1"    # ibsnmpgwTopologyDiffEntry
NODEJS = shutil.which("node") or shutil.which("nodejs")


def lld(sec, snmp_oid):
    """Zabbix's discovery[{#M1},OID1,...]: one row per index of OID1."""
    parts = snmp_oid[len("discovery["):-1].split(",")
    rows = {}
    for macro, oid in zip(parts[::2], parts[1::2]):
        out = fab.snmp("snmpbulkwalk", sec, ["." + oid])
        for k, (typ, val) in parse_vars(out.stdout).items():
            if k.startswith("." + oid + "."):
                idx = k[len(oid) + 2:]
                # Zabbix's macros are strings, whatever the syntax;
                # net-snmp prints an empty string as "" with no type.
                if not typ and val == '""':
                    val = ""
                rows.setdefault(idx, {"{#SNMPINDEX}": idx})[macro] = str(val)
    return rows


def expand(text, macros):
    for k, v in macros.items():
        text = text.replace(k, str(v))
    return text


def answers(sec, oids):
    out = fab.snmp("snmpget", sec, ["." + o for o in oids])
    got = parse_vars(out.stdout)
    return [o for o in oids if ("." + o) not in got or
            "No Such" in str(got["." + o][1])], out


def javascript(rule, rows):
    """The rule's JavaScript preprocessing steps run on its discovery's
    rows as Zabbix would (its JavaScript is ES5, which node.js runs):
    {index: macros}, or None without node.js."""
    if not NODEJS:
        return None
    value = json.dumps(list(rows.values()))
    for step in rule.findall("preprocessing/step"):
        if step.findtext("type") != "JAVASCRIPT":
            continue
        code = ("process.stdout.write(String((function (value) {\n%s\n})"
                "(require('fs').readFileSync(0, 'utf8'))));" %
                step.findtext("parameters/parameter"))
        out = subprocess.run([NODEJS, "-e", code], input=value,
                             capture_output=True, text=True, timeout=30)
        if out.returncode:
            raise RuntimeError("%s's JavaScript: %s" % (
                rule.findtext("key"), out.stderr[-1000:]))
        value = out.stdout
    d = json.loads(value)
    return {r["{#SNMPINDEX}"]: r for r in (
        d if isinstance(d, list) else d["data"])}


def table_rows(snmp_oid):
    """The indexes of the table a discovery[] rule walks (the entry its
    first column is in), walked whole."""
    entry = snmp_oid[len("discovery["):-1].split(",")[1].rsplit(".", 1)[0]
    out = fab.snmp("snmpbulkwalk", fab.v2("fabric"), ["." + entry])
    return {k[len(entry) + 2:].split(".", 1)[1]
            for k in parse_vars(out.stdout) if k.startswith(
                "." + entry + ".")}


def health_rule(rule, oracle, what):
    """A fabric health rule (one table of ibsnmpgwHealth): once the
    table holds what oracle() says it should (a number of rows, bounded
    wait), the rule's discovery finds exactly the table's rows, and every
    item prototype's OID answers for every row. The rows (after the
    JavaScript steps when node.js runs them)."""
    want = oracle()
    have = simlib.wait(lambda: len(table_rows(rule.findtext(
        "snmp_oid"))) == want, 20)
    rows = lld(fab.v2("fabric"), rule.findtext("snmp_oid"))
    R.check(want and have, "%s: the table has its %d rows" % (what, want),
            len(rows))
    R.equal(sorted(rows), sorted(table_rows(rule.findtext("snmp_oid"))),
            "%s: discovery finds exactly the table's rows (%d)" %
            (what, len(rows)))
    macros = set(re.findall(r"\{#[A-Z.]+\}", rule.findtext("snmp_oid")))
    R.check(rows and all(set(r) >= macros for r in rows.values()),
            "%s: each row has every macro of the rule" % what,
            [r for r in rows.values() if not set(r) >= macros][:3])
    protos = [p.findtext("snmp_oid") for p in rule.iter("item_prototype")]
    bad = []
    for r in rows.values():
        miss, _ = answers(fab.v2("fabric"), [expand(o, r) for o in protos])
        bad += miss
    R.check(protos and rows and not bad, "%s: the %d item prototypes "
            "answer for every row" % (what, len(protos)), bad[:10])
    return javascript(rule, rows) or rows


def links_oracle():
    """The number of links ibnetdiscover finds: all of them run at 4x
    with a switch end, below the 8x expected."""
    out = fab.diag(["ibnetdiscover"]).stdout
    links, cur = set(), None
    for line in out.splitlines():
        m = re.match(r'^(?:Switch|Ca)\s+\d+\s+"[SH]-([0-9a-f]+)"', line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r'^\[(\d+)\].*?"[SH]-([0-9a-f]+)"\[(\d+)\]', line)
        if m and cur:
            links.add(frozenset({(cur, m.group(1)),
                                 (m.group(2), m.group(3))}))
    return len(links)


def degraded_links(rule):
    rows = health_rule(rule, links_oracle, "degraded links")
    # What the gateway's own command line lists, each end as context[port].
    ctl = fab.ctl("links", "--degraded").stdout
    want = set()
    for line in ctl.splitlines()[1:]:
        m = re.match(r"^(.+)\[(\d+)\] <-> (.+)\[(\d+)\] (\S+ \S+) "
                     r"expected (\S+ \S+) ", line)
        if m:
            want.add((frozenset({m.group(1, 2), m.group(3, 4)}),
                      m.group(5), m.group(6)))
    got = set()
    for idx, r in rows.items():
        port = r.get("{#PORT}", idx.split(".")[-1])
        got.add((frozenset({(r["{#NODECTX}"], port),
                            (r["{#PEERCTX}"], r["{#PEERPORT}"])}),
                 r.get("{#ACTIVE}"), r.get("{#EXPECTED}")))
    if NODEJS:
        R.equal(got, want, "degraded links: the discovered links, "
                "their ends (context[port]) and widths and speeds, are "
                "those ctl links --degraded lists")
        R.check(all(r["{#LINK}"] == "%s[%s] <-> %s[%s]" % (
            r["{#NODECTX}"], r["{#PORT}"], r["{#PEER}"], r["{#PEERPORT}"])
            for r in rows.values()), "degraded links: {#LINK} names both "
            "ends", [r.get("{#LINK}") for r in rows.values()][:3])
    else:
        print("# no node.js: the rule's JavaScript step not run")
        R.equal({g[0] for g in got}, {w[0] for w in want},
                "degraded links: the discovered links' ends "
                "(context[port]) are those ctl links --degraded lists")


def diff_lines():
    """ctl topology diff's rows: {number: (kind, text)}, the text as
    the rule's {#DIFF} has it (without the time)."""
    return {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(
        r"^[<>!] (\d+) (\S+): (.*) \(since \S+\)$",
        fab.ctl("topology", "diff").stdout, re.M)}


def topology_diff(rule):
    """The fabric pinned as its blueprint, then node05's port-1 cable
    pulled: one difference, cableMissing leaf03[1] - node05[1], whose
    trigger is named as ctl topology diff names the row. ReLink: the row
    goes and its item's OID answers noSuchInstance, which the item turns
    into 0."""
    out = fab.ctl("topology", "pin")
    R.check(out.returncode == 0 and " differences 0 " in out.stdout,
            "ctl topology pin: no difference", out.stdout + out.stderr)
    fab.cmd('Unlink "node05"[1]')
    simlib.wait(diff_lines, 20, 0.1)
    rows = health_rule(rule, lambda: len(diff_lines()),
                       "blueprint differences")
    R.equal([(r["{#KIND}"], r["{#NODEGUID}"], r["{#NODEPORT}"],
              r["{#REMOTEGUID}"], r["{#REMOTEPORT}"]) for r in
             rows.values()], [("3", "%016x" % NAMES["leaf03"], "1",
                               "%016x" % NAMES["node05"], "1")],
            "blueprint differences: Unlink \"node05\"[1] is one row, "
            "cableMissing(3), leaf03 port 1 to node05 port 1")
    if NODEJS:
        R.equal({i: (r["{#KINDNAME}"], r["{#DIFF}"]) for i, r in
                 rows.items()}, diff_lines(), "blueprint differences: "
                "the rows' kinds and texts are those ctl topology diff "
                "lists")
        names = [expand(t.findtext("name"), r) for r in rows.values()
                 for t in rule.iter("trigger_prototype")]
        R.equal(names, ["Topology differs from the blueprint: "
                        "cable-missing leaf03[1] - node05[1]"],
                "blueprint differences: the trigger's name")
    fab.cmd('ReLink "node05"[1]')
    R.check(simlib.wait(lambda: not diff_lines() and not table_rows(
        rule.findtext("snmp_oid")), 20, 0.1), "ReLink: the row goes")
    since = [expand(p.findtext("snmp_oid"), r) for r in rows.values()
             for p in rule.iter("item_prototype") if p.find(
                 "trigger_prototypes") is not None]
    miss, out = answers(fab.v2("fabric"), since)
    R.check(since and miss == since, "... and its trigger's item OID "
            "answers noSuchInstance (the item reads 0)", out.stdout)


def unhealthy_ports(rule):
    """After topology_diff's Unlink and ReLink: leaf03 port 1 unhealthy
    (one link-down), the ends of every degraded link degraded. The
    discovered rows are what ctl ports --unhealthy lists, and each
    verdict has the trigger of its severity."""
    leaf03 = NAMES["leaf03"]

    def ctl():
        """ctl ports --unhealthy: {(GUID, port): (verdict, reason)}."""
        return {(int(m.group(1), 16), m.group(2)): (m.group(3), m.group(4))
                for m in re.finditer(
                    r"^0x([0-9a-f]{16}) port (\d+) \S+ (\w+): (.*?)"
                    r"(?: \((?:clears|since)[^)]*\))?$",
                    fab.ctl("ports", "--unhealthy").stdout, re.M)}
    simlib.wait(lambda: ctl().get((leaf03, "1"), ("",))[0] == "unhealthy",
                20, 0.1)
    rows = health_rule(rule, lambda: len(ctl()), "ports not healthy")
    verdict = {"2": "degraded", "3": "unhealthy"}
    got = {(int(r["{#NODEGUID}"], 16), r.get("{#PORT}", i.split(".")[-1])):
           (verdict.get(r["{#HEALTH}"], r["{#HEALTH}"]), r["{#REASON}"])
           for i, r in rows.items()}
    R.equal(got, ctl(), "ports not healthy: the discovered ports, their "
            "verdicts and reasons, are those ctl ports --unhealthy lists")
    R.equal(got.get((leaf03, "1")),
            ("unhealthy", "1 link-downs in 1h"), "ports not healthy: "
            "leaf03 port 1 is unhealthy after the Unlink")
    R.check(sum(1 for v in got.values() if v[0] == "degraded") >= 2,
            "ports not healthy: the ends of the degraded links are "
            "degraded", got)
    # One trigger per verdict: its expression's value, its severity.
    trig = {re.search(r"\)=(\d)$", t.findtext("expression")).group(1):
            t.findtext("priority") for t in rule.iter("trigger_prototype")}
    R.equal(trig, {"2": "WARNING", "3": "AVERAGE"}, "ports not healthy: "
            "degraded(2) raises a warning, unhealthy(3) an average problem")
    if NODEJS:
        R.check(all(r["{#PORTNAME}"] == "%s[%s]" % (r["{#NODECTX}"],
                                                   r["{#PORT}"])
                    for r in rows.values() if r["{#PORT}"] != "0"),
                "ports not healthy: {#PORTNAME} is context[port]",
                [r.get("{#PORTNAME}") for r in rows.values()][:3])


# Each table of ibsnmpgwHealth the fabric template discovers: its rule's
# key, and what checks it beyond health_rule(). In this order: the
# unhealthy ports are checked after the Unlink of topology_diff.
HEALTH_RULES = {"ibsnmpgw.link.degraded.discovery": degraded_links,
                "ibsnmpgw.topology.diff.discovery": topology_diff,
                "ibsnmpgw.port.health.discovery": unhealthy_ports}


def main():
    root = ET.parse(XML).getroot()
    tmpl = {t.findtext("template"): t for t in root.iter("template")
            if t.find("uuid") is not None and t.findtext("template")}
    R.equal(sorted(tmpl), ["ibsnmpgw fabric by SNMP",
                           "ibsnmpgw node by SNMP"], "both templates")
    fabt, nodet = tmpl["ibsnmpgw fabric by SNMP"], tmpl[
        "ibsnmpgw node by SNMP"]
    # The gateway host's interface, as packaging/zabbix/README.md says.
    comm_t = "{$IBSNMPGW.COMMUNITY}@{$IBSNMPGW.CONTEXT}"
    rules = {r.findtext("key"): r for r in fabt.iter("discovery_rule")}
    R.equal(sorted(rules), sorted(["ibsnmpgw.node.discovery"] +
                                  list(HEALTH_RULES)),
            "the fabric template's discovery rules")
    rule = rules["ibsnmpgw.node.discovery"]
    rows = lld(fab.v2("fabric"), rule.findtext("snmp_oid"))
    inv = fab.sql("SELECT count(*) FROM nodes")
    R.equal(len(rows), int(inv), "discovery finds every inventory node")
    R.check(all(r.get("{#CONTEXT}") and re.match(r"^[0-9a-f]{16}$",
                r.get("{#GUID}", "")) for r in rows.values()),
            "each with a context name and a GUID", rows)
    protos = [p.findtext("snmp_oid") for p in rule.iter("item_prototype")]
    bad = []
    for r in rows.values():
        miss, _ = answers(fab.v2("fabric"), [expand(o, r) for o in protos])
        bad += miss
    R.check(protos and not bad, "the %d fabric item prototypes answer for "
            "every node" % len(protos), bad[:10])

    hp = rule.find("host_prototypes/host_prototype")
    R.equal(hp.findtext("custom_interfaces"), None, "the host prototype "
            "inherits the gateway host's interface")
    hmacros = {m.findtext("macro"): m.findtext("value")
               for m in hp.find("macros")}
    R.equal(hp.findtext("templates/template/name"), "ibsnmpgw node by SNMP",
            "the host prototype links the node template")
    items = [i.findtext("snmp_oid") for i in nodet.find("items")]
    prule = nodet.find("discovery_rules/discovery_rule")
    pprotos = [p.findtext("snmp_oid") for p in prule.iter("item_prototype")]
    names = {}
    bad = []
    for r in rows.values():
        # The discovery's JavaScript step adds the gateway host's
        # community to each row; the host prototype's macros take it.
        r = dict(r, **{"{#IBSNMPGW.COMMUNITY}": fab.community})
        comm = expand(comm_t, {k: expand(v, r) for k, v in hmacros.items()})
        sec = ["-v2c", "-c", comm]
        miss, out = answers(sec, items)
        bad += ["%s: %s" % (comm, m) for m in miss]
        names[r["{#CONTEXT}"]] = parse_vars(out.stdout).get(
            "." + items[0], ("", ""))[1]
        ports = lld(sec, prule.findtext("snmp_oid"))
        if not ports:
            bad.append("%s: no ports discovered" % comm)
            continue
        first = sorted(ports, key=int)[0]
        miss, _ = answers(sec, [expand(o, ports[first]) for o in pprotos])
        bad += ["%s: %s" % (comm, m) for m in miss]
    R.check(not bad, "every node's community (%s) reaches it: its items "
            "and its first port's %d item prototypes answer" %
            (comm_t, len(pprotos)), "\n".join(bad[:10]))
    want = {r["{#CONTEXT}"]: r["{#DESC}"] for r in rows.values()}
    R.equal(names, want, "each discovered host reads its own node "
            "(ibSmaNodeString is the discovered description)")

    for key, check in HEALTH_RULES.items():
        if key in rules:
            check(rules[key])


simlib.run(main, fab, R)
