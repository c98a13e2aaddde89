#!/usr/bin/python3
"""The fabric context (public@fabric, SNMPv3 context "fabric"): the
IBSNMPGW-MIB node table against ibnetdiscover and the inventory, the
context names it gives, tenant selectors hiding rows, node state
following Unlink/ReLink, per-node MAD counts and polling times, and a
renamed fabric context (snmp.fabric-context, reloaded with SIGHUP), and
the per-node error sums of ibsnmpgwNodeErrorTable against perfquery."""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars, SMA, STATS  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
# Every node polled every 2 s, so the poll columns fill during the test.
fab = simlib.Fabric(extra_yaml="polling:\n  - name: all\n"
                    "    groups: [counters]\n    interval: 2\n    ttl: 2\n")

NT = STATS[:-2] + ".5.1.1"        # ibsnmpgwNodeEntry
NODE_STRING = SMA + ".1.1.0"      # ibSmaNodeString.0
COL = {"context": 2, "guid": 3, "type": 4, "desc": 5, "lid": 6,
       "state": 7, "first": 8, "last": 9, "sent": 10, "timeouts": 11,
       "errors": 12, "lastpoll": 13, "polldur": 14, "held": 15,
       "answering": 16}


def node_table(sec=None):
    """{index: {column: value}} from a walk of the node table."""
    out = fab.snmp("snmpbulkwalk", sec or fab.v2("fabric"), [NT])
    rows = {}
    for oid, (typ, val) in parse_vars(out.stdout).items():
        col, idx = oid[len(NT) + 1:].split(".")
        name = [k for k, v in COL.items() if v == int(col)][0]
        rows.setdefault(int(idx), {})[name] = val
    return rows, out


def discovered():
    """ibnetdiscover: {guid: (type, description, switch lid or None)}."""
    out = fab.diag(["ibnetdiscover"])
    nodes = {}
    for line in out.stdout.splitlines():
        m = re.match(r'^(Switch|Ca|Rt)\s+\d+\s+"[SHR]-([0-9a-f]{16})"\s+'
                     r'#\s+"(.*?)"(.*)$', line)
        if m:
            lid = re.search(r"\blid (\d+)", m.group(4))
            nodes[m.group(2)] = ({"Ca": 1, "Switch": 2, "Rt": 3}[
                m.group(1)], m.group(3), int(lid.group(1)) if lid and
                m.group(1) == "Switch" else None)
    return nodes, out


def check_inventory():
    rows, out = node_table()
    want, dout = discovered()
    R.check(len(want) == 14, "ibnetdiscover finds the 14 nodes",
            dout.stdout[-800:] + dout.stderr)
    got = {r["guid"]: r for r in rows.values()}
    R.equal(sorted(got), sorted(want), "the node table lists exactly the "
            "nodes ibnetdiscover finds")
    R.equal(sorted(got), sorted("%016x" % int(g) for g in fab.sql(
        "SELECT guid FROM nodes").split()), "... and exactly the inventory")
    R.equal({g: (r["type"], r["desc"]) for g, r in got.items()},
            {g: w[:2] for g, w in want.items()},
            "types and descriptions match ibnetdiscover")
    R.equal({g: r["lid"] for g, r in got.items() if r["type"] == 2},
            {g: w[2] for g, w in want.items() if w[0] == 2},
            "switch LIDs match ibnetdiscover")
    R.check(all(r["state"] == 1 for r in rows.values()),
            "every node is ok(1)", rows)
    # ibsnmpgwNodeHeldWays and ...AnsweringWays: BITS, one octet, no
    # bit set while the node is not on hold.
    R.check(all(r.get("held") == "00" and r.get("answering") == "00"
                for r in rows.values()), "no node has a held or an "
            "answering way", rows)
    now = time.time()
    R.check(all(0 < r["first"] <= r["last"] <= now + 1 for r in
                rows.values()), "first and last seen are unix times in "
            "order", rows)
    # Every context name reaches its own node.
    bad = []
    for r in rows.values():
        o = fab.snmp("snmpget", fab.v2(r["context"]), [NODE_STRING])
        v = parse_vars(o.stdout).get(NODE_STRING, (None, None))[1]
        if v != r["desc"]:
            bad.append("%s: %r (%s)" % (r["context"], v, o.stderr.strip()))
    R.check(not bad, "every ibsnmpgwNodeContext selects its node",
            "\n".join(bad))
    # Aliases come from the node-name map.
    R.check({"leaf01", "spine02", "node05"} <= {r["context"] for r in
                                                 rows.values()},
            "context names are the node-name map's aliases", rows)
    return rows


def check_counts(rows):
    idx = [i for i, r in rows.items() if r["context"] == "leaf02"][0]
    oid = "%s.%d.%d" % (NT, COL["sent"], idx)
    before = parse_vars(fab.snmp("snmpget", fab.v2("fabric"),
                                 [oid]).stdout)[oid][1]
    fab.ctl("flush", "leaf02")
    fab.snmp("snmpget", fab.v2("leaf02"), [NODE_STRING])
    after = parse_vars(fab.snmp("snmpget", fab.v2("fabric"),
                                [oid]).stdout)[oid][1]
    R.check(after > before, "ibsnmpgwNodeMadSent counts the MADs a "
            "request sends to the node (%d -> %d)" % (before, after))
    # Every node's first round ends within the 2 s interval, later on a
    # busy gateway: wait for all 14.
    got = {}

    def all_polled():
        got["rows"], _ = node_table()
        return len([r for r in got["rows"].values()
                    if r.get("lastpoll", 0) > 0]) == 14
    simlib.wait(all_polled, 30, 0.5)
    rows = got["rows"]
    polled = [r for r in rows.values() if r["lastpoll"] > 0]
    R.check(len(polled) == 14 and all(r["lastpoll"] <= time.time() + 1
                                      for r in polled),
            "every node's last polling round has a time (%d of 14)" %
            len(polled), rows)


ERR = STATS[:-2] + ".5.2.1"       # ibsnmpgwNodeErrorEntry
# ibsnmpgwNodeErrorTable's sums (columns 2..13) and PortCounters' names.
ERR_FIELDS = ["SymbolErrorCounter", "LinkErrorRecoveryCounter",
              "LinkDownedCounter", "PortRcvErrors",
              "PortRcvRemotePhysicalErrors", "PortRcvSwitchRelayErrors",
              "PortXmitDiscards", "PortXmitConstraintErrors",
              "PortRcvConstraintErrors", "LocalLinkIntegrityErrors",
              "ExcessiveBufferOverrunErrors", "VL15Dropped"]


def error_row(idx):
    """[ports, 12 sums..., worst port] of a node's error row."""
    oids = ["%s.%d.%d" % (ERR, c, idx) for c in range(1, 15)]
    got = parse_vars(fab.snmp("snmpget", fab.v2("fabric"), oids).stdout)
    return [got.get(o, (None, None))[1] for o in oids]


def perfquery_sum(addrs):
    """PortCounters summed over (lid, port) pairs, as perfquery reads."""
    total = dict.fromkeys(ERR_FIELDS, 0)
    for lid, port in addrs:
        pq = simlib.parse_diag(fab.diag(["perfquery", str(lid),
                                         str(port)]).stdout)
        for f in ERR_FIELDS:
            total[f] += int(pq.get(f, 0))
    return [total[f] for f in ERR_FIELDS]


def check_node_errors(rows):
    """ibsnmpgwNodeErrorTable: each node's errors summed over its ports,
    from what the 2 s polling policy has read, equal to perfquery's."""
    idx = {r["context"]: i for i, r in rows.items()}
    for node, port, field, val in [("leaf01", 1, "SymbolErrorCounter", 7),
                                   ("leaf01", 3, "SymbolErrorCounter", 6),
                                   ("leaf01", 3, "LinkDownedCounter", 2),
                                   ("node03", 1, "PortRcvErrors", 4),
                                   ("node03", 2, "PortXmitDiscards", 9)]:
        fab.cmd('PerformanceSet "%s"[%d] PortCounters.%s=%d' %
                (node, port, field, val))
    # A poll reads them within its 2 s interval; node03's two ports may
    # be read in different rounds (under ASan, seconds apart): wait for
    # every value set, not one per node.
    # Each of the five, not one per port: a round may read leaf01's
    # port 3 between its two sets (ten-run loop, 410832a: it did).
    def all_read():
        leaf, ca = error_row(idx["leaf01"]), error_row(idx["node03"])
        return (leaf[1] or 0) >= 13 and (leaf[3] or 0) >= 2 and \
            (ca[4] or 0) >= 4 and (ca[7] or 0) >= 9
    simlib.wait(all_read, 15, 0.25)
    leaf, ca = error_row(idx["leaf01"]), error_row(idx["node03"])
    # leaf01's ports as ibnetdiscover -p lists them (down ones too: the
    # policy polls them, and their PMAs count).
    links = [ln for ln in fab.diag(["ibnetdiscover", "-p"]).stdout.
             splitlines() if ln.startswith("SW") and
             re.search(r"^SW\s+3\s+\d+\s", ln)]
    lports = sorted({int(ln.split()[2]) for ln in links})
    R.equal(leaf[1:13], perfquery_sum([(3, p) for p in lports]),
            "leaf01's 12 error sums equal perfquery's over its %d ports" %
            len(lports))
    R.equal(ca[1:13], perfquery_sum([(105, 1), (106, 2)]),
            "node03's equal perfquery's over both its ports")
    R.equal([leaf[0], ca[0]], [len(lports), 2],
            "ibsnmpgwNodeErrPorts counts the ports read")
    R.equal([leaf[13], ca[13]], [3, 2],
            "ibsnmpgwNodeErrWorstPort names the port with most errors "
            "(leaf01 port 3: 8 against 7; node03 port 2: 9 against 4)")
    rows_all = fab.snmp("snmpbulkwalk", fab.v2("fabric"), [ERR + ".1"])
    R.equal(len(parse_vars(rows_all.stdout)), 14,
            "every node has an error row")


def check_unlink():
    guid = "%016x" % simlib.read_name_map()["node05"]
    fab.cmd('Unlink "node05"')
    try:
        fab.sweep()
        rows, _ = node_table()
        st = {r["guid"]: r["state"] for r in rows.values()}
        R.equal(st.get(guid), 2, "after Unlink and a sweep node05 is "
                "unreachable(2)")
        R.equal(len(rows), 14, "and still listed")
        R.check(all(s == 1 for g, s in st.items() if g != guid),
                "the others stay ok(1)", st)
    finally:
        fab.cmd('ReLink "node05"')
    fab.sweep()
    rows, _ = node_table()
    R.equal({r["guid"]: r["state"] for r in rows.values()}.get(guid), 1,
            "after ReLink and a sweep node05 is ok(1) again")


def reconfigure():
    """A tenant community limited to two leaves, a v3 user to switches,
    and the fabric context renamed."""
    path = os.path.join(fab.dir, "ibsnmpgw.yaml")
    text = open(path).read()
    text = text.replace(
        "  communities:\n    - name: public\n",
        "  fabric-context: wholefabric\n"
        "  communities:\n    - name: public\n"
        "    - name: tenant\n"
        "      nodes: {name: \"leaf0[12]\"}\n", 1)
    text = text.replace(
        "  users:\n",
        "  users:\n"
        "    - name: switchonly\n"
        "      auth-protocol: SHA\n"
        "      auth-passphrase: \"switch-only-pass\"\n"
        "      nodes: {type: switch}\n", 1)
    open(path, "w").write(text)
    fab.reload()


def check_tenants():
    reconfigure()
    rows, out = node_table(fab.v2("wholefabric"))
    R.equal(len(rows), 14, "the renamed fabric context lists every node")
    old = fab.snmp("snmpget", fab.v2("fabric"), [NT + ".2.1"])
    R.check(old.returncode != 0 and "Timeout" in old.stderr,
            "the old name no longer answers (unknown community)",
            old.stdout + old.stderr)
    rows, out = node_table(fab.v2("wholefabric", "tenant"))
    R.equal(sorted(r["context"] for r in rows.values()),
            ["leaf01", "leaf02"], "a tenant community sees its nodes' rows "
            "only")
    o = fab.snmp("snmpget", fab.v2("wholefabric", "tenant"),
                 ["%s.2.%d" % (NT, i) for i in range(1, 15)])
    R.check(o.stdout.count("No Such Instance") == 12,
            "a GET of a hidden row is noSuchInstance", o.stdout)
    sec = ["-v3", "-l", "authNoPriv", "-u", "switchonly", "-a", "SHA",
           "-A", "switch-only-pass", "-n", "wholefabric"]
    rows, out = node_table(sec)
    R.check(len(rows) == 6 and all(r["type"] == 2 for r in rows.values()),
            "a v3 user limited to switches sees the 6 switches (context "
            "'wholefabric')", out.stdout + out.stderr)


def main():
    rows = check_inventory()
    check_counts(rows)
    check_node_errors(rows)
    check_unlink()
    check_tenants()


simlib.run(main, fab, R)
