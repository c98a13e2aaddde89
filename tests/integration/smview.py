#!/usr/bin/python3
"""IB-SM-MIB in the fabric context against infiniband-diags on the same
simulated fabric: NodeInfo and links against ibnetdiscover, NodeInfo,
PortInfo and SwitchInfo fields against smpquery, SMInfo and the Config
row against sminfo. A whole walk costs no MAD (the inventory's copies
answer); tenant selectors hide rows; links follow Unlink/ReLink."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars, parse_diag  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
# Background counter polling off, and no periodic sweep or light check
# (nor the SA queries at their end): the walk's MAD count is the test's,
# and the sweeps are the test's own (check_sm counts them).
# A second opensm on node03 stays STANDBY (node01's port GUID is lower).
fab = simlib.Fabric(extra=["--standby-sm", "node03"],
                    extra_yaml="discovery:\n  interval: 3600\n"
                    "events:\n  master-check-ms: 0\n"
                    "polling:\n  - name: none\n    groups: []\n"
                    "    interval: 86400\n")

SM = ".1.3.6.1.3.117.7.1"
PFX = "254.128.0.0.0.0.0.0"        # fe80:: (ibsim's GIDPrefix)
TABLE = {"config": "1.1.1", "node": "2.1.1", "port": "3.1.1",
         "switch": "4.1.1", "sminfo": "8.1.1", "link": "9.1.1"}


def guid_sub(g):
    return ".".join(str(int(g[i:i + 2], 16)) for i in range(0, 16, 2))


def sub_guid(parts):
    return "".join("%02x" % int(p) for p in parts)


def walk(table, sec=None):
    """{index tuple: {column: value}}; index = (guid hex[, n])."""
    base = "%s.%s" % (SM, TABLE[table])
    out = fab.snmp("snmpbulkwalk", sec or fab.v2("fabric"), [base])
    rows, other = {}, []
    for oid, (typ, val) in parse_vars(out.stdout).items():
        if not oid.startswith(base + "."):
            continue        # noSuchObject at the base: an empty table
        rest = oid[len(base) + 1:].split(".")
        col, idx = int(rest[0]), rest[1:]
        if ".".join(idx[:8]) != PFX:
            other.append(oid)
        key = (sub_guid(idx[8:16]),) + tuple(int(x) for x in idx[16:]) \
            if len(idx) > 8 else ()
        rows.setdefault(key, {})[col] = val
    R.check(not other, "%s rows carry the subnet prefix" % table, other[:5])
    return rows, out


def discovered():
    """ibnetdiscover: nodes {guid: (type, nports, desc)} and links
    {(guid, port): (guid, port)}."""
    out = fab.diag(["ibnetdiscover"])
    nodes, links, cur = {}, {}, None
    for line in out.stdout.splitlines():
        m = re.match(r'^(Switch|Ca|Rt)\s+(\d+)\s+"[SHR]-([0-9a-f]{16})"\s+'
                     r'#\s+"(.*?)"', line)
        if m:
            cur = m.group(3)
            nodes[cur] = ({"Ca": 1, "Switch": 2, "Rt": 3}[m.group(1)],
                          int(m.group(2)), m.group(4))
            continue
        m = re.match(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"[SHR]-([0-9a-f]{16})"'
                     r'\[(\d+)\]', line)
        if m and cur:
            links[(cur, int(m.group(1)))] = (m.group(2), int(m.group(3)))
    return nodes, links, out


def mad_sent():
    m = re.search(r"mad sent (\d+)", fab.ctl("stats").stdout)
    return int(m.group(1)) if m else -1


def check_nodes(nodes):
    rows, out = walk("node")
    R.equal(sorted(k[0] for k in rows), sorted(nodes),
            "ibSmNodeInfoTable lists exactly ibnetdiscover's nodes")
    R.equal({k[0]: (r.get(5), r.get(6), r.get(14)) for k, r in rows.items()},
            nodes, "NodeInfo type, port count and description match")
    bad = []
    for (g,), r in rows.items():
        # -G takes a port GUID: a CA's is its PortGUID.
        addr = g if r.get(5) == 2 else r.get(8, g)
        d = parse_diag(fab.diag(["smpquery", "nodeinfo", "-G",
                                 "0x" + addr]).stdout)
        want = {3: int(d.get("BaseVers", -1)),
                4: int(d.get("ClassVers", -1)),
                7: "%016x" % int(d.get("SystemGuid", "0"), 16),
                10: "%04x" % int(d.get("DevId", "0"), 16),
                11: "%08x" % int(d.get("Revision", "0"), 16),
                13: "%06x" % int(d.get("VendorId", "0"), 16)}
        got = {c: r.get(c) for c in want}
        if got != want:
            bad.append("%s: got %r want %r" % (g, got, want))
    R.check(not bad, "NodeInfo versions, system GUID, device, revision and "
            "vendor match smpquery nodeinfo for every node", "\n".join(bad))
    return rows


WIDTH = {"1X": 1, "4X": 2, "8X": 4, "12X": 8, "2X": 16}
MTU = {"256": 1, "512": 2, "1024": 3, "2048": 4, "4096": 5}
VLS = {"VL0": 1, "VL0-1": 2, "VL0-3": 3, "VL0-7": 4, "VL0-14": 5}


def check_ports(nodes, links):
    rows, out = walk("port")
    want = set()
    for g, (typ, nports, _) in nodes.items():
        if typ == 2:
            want |= {(g, p) for p in range(nports + 1)}
    want |= {k for k in links if nodes[k[0]][0] != 2}
    R.equal(sorted(rows), sorted(want), "ibSmPortInfoTable: every switch "
            "port with port 0, and every linked CA port")
    bad = []
    for (g, p), r in sorted(rows.items()):
        if nodes[g][0] == 2 and p not in (0, 1, 8):
            continue        # a sample of each switch, every CA port
        # -G takes a port GUID; a CA port is addressed by its LID.
        addr = ["-G", "0x" + g] if nodes[g][0] == 2 else [str(r.get(6))]
        d = parse_diag(fab.diag(["smpquery", "portinfo"] + addr +
                                [str(p)]).stdout)
        n = {k: int(d[k], 0) for k in (
            "Lid", "SMLid", "MkeyLeasePeriod", "VLHighLimit", "VLArbHighCap",
            "VLArbLowCap", "GuidCap", "SubnetTimeout", "RespTimeVal",
            "ProtectBits", "HoqLife", "SMSL", "LMC") if k in d}
        want_r = {6: n.get("Lid"), 7: n.get("SMLid"),
                  8: "%08x" % int(d.get("CapMask", "0x0").split()[0], 16),
                  10: n.get("MkeyLeasePeriod"),
                  13: WIDTH.get(d.get("LinkWidthActive")),
                  15: {"Down": 1, "Initialize": 2, "Armed": 3,
                       "Active": 4}.get(d.get("LinkState"), -1),
                  16: {"Sleep": 1, "Polling": 2, "Disabled": 3,
                       "LinkUp": 5}.get(d.get("PhysLinkState"), -1),
                  18: n.get("ProtectBits"), 19: n.get("LMC"),
                  22: MTU.get(d.get("NeighborMTU")), 23: n.get("SMSL"),
                  24: VLS.get(d.get("VLCap")),
                  25: n.get("VLHighLimit"), 26: n.get("VLArbHighCap"),
                  27: n.get("VLArbLowCap"), 28: MTU.get(d.get("MtuCap")),
                  30: n.get("HoqLife"), 31: VLS.get(d.get("OperVLs")),
                  39: n.get("GuidCap"), 40: n.get("SubnetTimeout"),
                  41: n.get("RespTimeVal")}
        got = {c: r.get(c) for c in want_r}
        if got != want_r:
            bad.append("%s/%d: got %r want %r" % (g, p, got, want_r))
    R.check(not bad, "PortInfo LIDs, CapMask, lease, width, states, "
            "protect bits, LMC, MTUs, VLs, arbitration caps, HOQ, GUIDCap "
            "and timeouts match smpquery portinfo", "\n".join(bad))
    states = {k: r.get(15) for k, r in rows.items()}
    R.check(all(states[k] == 4 for k in links),
            "every linked port is Active(4)", states)
    return rows


def check_links(links):
    rows, out = walk("link")
    got = {k: (r[4], r[5]) for k, r in rows.items()}
    R.equal(got, links, "ibSmLinkTable is ibnetdiscover's links, from "
            "both ends")


def check_switches(nodes):
    rows, out = walk("switch")
    R.equal(sorted(k[0] for k in rows),
            sorted(g for g, n in nodes.items() if n[0] == 2),
            "ibSmSwitchInfoTable lists every switch")
    bad = []
    for (g,), r in rows.items():
        d = parse_diag(fab.diag(["smpquery", "switchinfo", "-G",
                                 "0x" + g]).stdout)
        want = {3: int(d.get("LinearFdbCap", -1)),
                5: int(d.get("McastFdbCap", -1)),
                6: int(d.get("LinearFdbTop", -1)),
                10: int(d.get("LifeTime", -1)),
                13: int(d.get("PartEnforceCap", -1)),
                18: 1 if d.get("EnhancedPort0") == "1" else 2}
        got = {c: r.get(c) for c in want}
        if got != want:
            bad.append("%s: got %r want %r" % (g, got, want))
    R.check(not bad, "SwitchInfo FDB caps and top, lifetime, enforcement "
            "cap and enhanced port 0 match smpquery switchinfo",
            "\n".join(bad))


def sminfo(*lid):
    out = fab.diag(["sminfo"] + [str(x) for x in lid])
    m = re.search(r"sm lid (\d+) sm guid 0x([0-9a-f]+), activity count "
                  r"(\d+) priority (\d+) state (\d+)", out.stdout)
    R.check(m is not None, "sminfo %s answers" % " ".join(map(str, lid)),
            out.stdout + out.stderr)
    return m


def check_sm():
    m = sminfo()
    if m is None:
        return
    guid = "%016x" % int(m.group(2), 16)
    # The standby: node03's port 1 (LID 105), asked directly.
    s = sminfo(105)
    if s is None:
        return
    sguid = "%016x" % int(s.group(2), 16)
    R.equal((int(m.group(5)), int(s.group(5))), (3, 2), "sminfo: node01 "
            "is master(3), node03 standby(2)")
    rows, o = walk("sminfo")
    R.equal(sorted(rows), [(guid,)], "the first sweep asked the master "
            "only (a port's IsSM is believed once two sweeps saw it)")
    fab.sweep()
    rows, o = walk("sminfo")
    R.equal(sorted(rows), sorted([(guid,), (sguid,)]), "ibSmSMInfoTable "
            "holds both SMs sminfo reports, master and standby")
    for g, x, what in ((guid, m, "master"), (sguid, s, "standby")):
        r = rows.get((g,), {})
        R.equal((r.get(5), r.get(6)), (int(x.group(4)), int(x.group(5))),
                "the %s's priority and state match sminfo" % what)
        R.check(0 < r.get(4, 0) <= int(x.group(3)) + 10000,
                "its ActCount is the SM's (read at the last sweep)", r)
    rows, o = walk("config")
    c = rows.get((), {})
    R.equal((c.get(2), c.get(3), c.get(6), c.get(5), c.get(8)),
            (guid, int(m.group(4)), 3, 1, 1),
            "ibSmConfigTable: the master's GUID, priority, state master(3), "
            "enable(1), active(1)")
    R.check(not any(k in c for k in range(9, 17)),
            "SM settings no MAD carries have no instance", c)


def check_no_mads():
    # The tables the sweep's copies answer (smsa.py covers those of the
    # cache and the SA).
    before = mad_sent()
    n = 0
    for sub in TABLE.values():
        out = fab.snmp("snmpbulkwalk", fab.v2("fabric"),
                       ["%s.%s" % (SM, sub)], timeout=10)
        n += len(parse_vars(out.stdout))
    R.check(n > 3000, "a bulk walk of IB-SM-MIB's inventory tables "
            "answers (%d varbinds)" % n, out.stderr)
    R.equal(mad_sent() - before, 0, "and sends no MAD")


def check_tenant():
    path = os.path.join(fab.dir, "ibsnmpgw.yaml")
    text = open(path).read()
    text = text.replace("  communities:\n    - name: public\n",
                        "  communities:\n    - name: public\n"
                        "    - name: tenant\n"
                        "      nodes: {name: \"leaf0[12]\"}\n", 1)
    open(path, "w").write(text)
    fab.reload()
    names = simlib.read_name_map()
    leaves = sorted("%016x" % names[n] for n in ("leaf01", "leaf02"))
    sec = fab.v2("fabric", "tenant")
    rows, _ = walk("node", sec)
    R.equal(sorted(k[0] for k in rows), leaves,
            "a tenant sees the NodeInfo rows of its two leaves only")
    rows, _ = walk("port", sec)
    R.check(rows and all(k[0] in leaves for k in rows),
            "... and their PortInfo rows only", sorted(rows)[:5])
    rows, _ = walk("link", sec)
    R.check(rows and all(k[0] in leaves for k in rows),
            "... and links seen from them only", sorted(rows)[:5])
    rows, _ = walk("sminfo", sec)
    R.equal(rows, {}, "the SM's host is not the tenant's: no SMInfo row")
    hidden = "%016x" % names["spine01"]
    o = fab.snmp("snmpget", sec, ["%s.%s.5.%s.%s" % (
        SM, TABLE["node"], PFX, guid_sub(hidden))])
    R.check("No Such Instance" in o.stdout, "a GET of a hidden node's row "
            "is noSuchInstance", o.stdout + o.stderr)


def check_unlink(links):
    names = simlib.read_name_map()
    g5 = "%016x" % names["node05"]
    fab.cmd('Unlink "node05"')
    try:
        fab.sweep()
        rows, _ = walk("link")
        R.check(rows and not any(k[0] == g5 or v == g5 for k, v in
                                 ((k, r[4]) for k, r in rows.items())),
                "after Unlink node05 and a sweep, no link touches it",
                sorted(rows))
        rows, _ = walk("node")
        R.check(rows and (g5,) not in rows, "and it has left "
                "ibSmNodeInfoTable (the subnet as it is now)", sorted(rows))
    finally:
        fab.cmd('ReLink "node05"')
    fab.sweep()
    rows, _ = walk("link")
    R.equal({k: (r[4], r[5]) for k, r in rows.items()}, links,
            "after ReLink the links are ibnetdiscover's again")


def main():
    nodes, links, out = discovered()
    R.check(len(nodes) == 14 and links, "ibnetdiscover finds the fabric",
            out.stdout[-600:] + out.stderr)
    check_nodes(nodes)
    check_ports(nodes, links)
    check_links(links)
    check_switches(nodes)
    check_sm()
    check_no_mads()
    check_tenant()
    check_unlink(links)


simlib.run(main, fab, R)
