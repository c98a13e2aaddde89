#!/usr/bin/python3
"""packaging/zabbix/ibsnmpgw_templates.xml against a running gateway, as
Zabbix would use it: the fabric template's low-level discovery (its
discovery[] OIDs walked in the fabric context) finds exactly the
inventory's nodes; every discovered node's host, which inherits the
gateway host's interface (community {$IBSNMPGW.COMMUNITY}@{$IBSNMPGW.CONTEXT})
with its host prototype's macros, reaches that node; every item and
item prototype OID of both templates answers a value.
tests/interop/zabbix.py does the same in a real Zabbix server."""

import os
import re
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
fab = simlib.Fabric()


def lld(sec, snmp_oid):
    """Zabbix's discovery[{#M1},OID1,...]: one row per index of OID1."""
    parts = snmp_oid[len("discovery["):-1].split(",")
    rows = {}
    for macro, oid in zip(parts[::2], parts[1::2]):
        out = fab.snmp("snmpbulkwalk", sec, ["." + oid])
        for k, (typ, val) in parse_vars(out.stdout).items():
            if k.startswith("." + oid + "."):
                idx = k[len(oid) + 2:]
                rows.setdefault(idx, {"{#SNMPINDEX}": idx})[macro] = val
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
    rule = fabt.find("discovery_rules/discovery_rule")
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


simlib.run(main, fab, R)
