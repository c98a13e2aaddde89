#!/usr/bin/python3
"""A fabric shaped like a real cluster (tests/sim/topologies/cluster.topo):
dual-port HCAs whose port 2 is uncabled, switches with uncabled ports,
NodeDescriptions as rdma-core and switch vendors set them (spaces,
punctuation, a duplicate), no node-name-map, and 1x/2x/4x/8x/12x links
at SDR..HDR.

Walks: IF-MIB, IB-IF-MIB and IB-SMA-MIB of every node complete with
snmpbulkwalk and have a row for every port; a port whose PMA refuses
PortSelect reads zero with a discontinuity time, a port read before and
then lost reads what was read, and a port whose SMA refuses PortInfo is
left out of a walk and is noSuchInstance for GET (docs/errors.md).

Names: with no node-name-map, the whole NodeDescription and its first
word name a node when unique, over v2c communities and v3 contexts; a
shared one ("localhost mlx5_0" twice) names none, is logged and shown by
ctl; a description that changes (the fault shim makes node09's say its
host name, as a driver does after boot) moves the names with it.

Links: every HCA's port-1 link has its own width and speed (1x..12x,
SDR..HDR); ibsnmpgwPortTable and ifHighSpeed/ifSpeed match smpquery's
PortInfo and the topology, and a port that is down has no rate."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
TOPO = os.path.join(simlib.TOP, "tests", "sim", "topologies",
                    "cluster.topo")
fab = simlib.Fabric(topo=TOPO)

IFX = ".1.3.6.1.2.1.31.1.1.1"
IFT = ".1.3.6.1.2.1.2.2.1"
IBIF = ".1.3.6.1.3.117.2"
SMA = ".1.3.6.1.3.117.3"
PORTINFO = SMA + ".1.5.1.1"          # ibSmaPortInfoEntry
NODESTRING = SMA + ".1.1.1.0"        # ibSmaNodeString.0
NODEGUID = SMA + ".1.1.7.0"          # ibSmaNodeGuid.0
BAD_COMM = ".1.3.6.1.2.1.11.4.0"     # snmpInBadCommunityNames
GWPORT = ".1.3.6.1.4.1.8072.9999.9999.117.4.1.1"   # ibsnmpgwPortEntry
SPEEDS = {"unknown": 1, "SDR": 2, "DDR": 3, "QDR": 4, "FDR": 5, "EDR": 6,
          "HDR": 7, "NDR": 8, "XDR": 9}
LANE_MBPS = {"SDR": 2000, "DDR": 4000, "QDR": 8000, "FDR": 13636,
             "EDR": 25000, "HDR": 50000, "NDR": 100000, "XDR": 200000}


def topo_nodes():
    """{node id: (guid, NodeDescription, num ports, type)} from the
    topology file, which ibsim builds the fabric from."""
    nodes, guid = {}, None
    with open(TOPO) as f:
        for line in f:
            m = re.match(r"^(?:switch|ca)guid=0x([0-9a-f]+)", line)
            if m:
                guid = int(m.group(1), 16)
            m = re.match(r'^(Switch|Ca)\t(\d+) "([^"]+)"\t\t# "([^"]+)"',
                         line)
            if m:
                nodes[m.group(3)] = (guid, m.group(4), int(m.group(2)),
                                     m.group(1))
    return nodes


NODES = topo_nodes()


def gname(node):
    return "0x%016x" % NODES[node][0]


def walk(node, oid):
    out = fab.snmp("snmpbulkwalk", fab.v2(gname(node)), [oid], timeout=5)
    return out, parse_vars(out.stdout)


def rows(vals, col_prefix):
    """Index parts of the instances under one column."""
    n = len(col_prefix) + 1
    return sorted(int(k[n:].split(".")[0]) for k in vals
                  if k.startswith(col_prefix + "."))


def ctl_degraded(node):
    out = fab.ctl("node", gname(node)).stdout
    m = re.search(r"degraded answers: stale (\d+) zero (\d+) skipped (\d+)",
                  out)
    return tuple(int(x) for x in m.groups()) if m else None


def guid_by(sec):
    """The ibSmaNodeGuid a name answers, None without an answer."""
    out = fab.snmp("snmpget", sec, [NODEGUID], timeout=1)
    v = parse_vars(out.stdout).get(NODEGUID)
    return int(v[1], 16) if v and v[0] == "Hex-STRING" else None


def check_names():
    for node, name in (("node01", "cn0001"), ("node03", "cn0003 mlx5_0"),
                       ("spine02", "Core switch 2 (row B, rack 7)"),
                       ("spine02", "Core"),
                       ("leaf01", "MF0;leaf01:MSB7800/U1")):
        want = NODES[node][0]
        R.equal(guid_by(fab.v2(name)), want,
                "community public@%s names %s" % (name, node))
        R.equal(guid_by(fab.v3(name)), want,
                "v3 context '%s' names %s" % (name, node))
    out = fab.snmp("snmpget", fab.v2("cn0004"), [NODESTRING])
    R.equal(parse_vars(out.stdout).get(NODESTRING, (None, None))[1],
            "cn0004 mlx5_0", "public@cn0004 answers its NodeDescription")
    before = fab.counter(BAD_COMM)
    for name in ("localhost", "localhost mlx5_0", "cn0001 mlx5",
                 "CN0001"):
        R.equal(guid_by(fab.v2(name)), None,
                "public@%s (shared or not exact) gets no answer" % name)
    R.equal(fab.counter(BAD_COMM), before + 4,
            "they count as bad community names")
    R.check("'localhost' names 2 nodes" in fab.log(),
            "the shared host name is logged")
    nodes = fab.ctl("nodes").stdout
    line = [l for l in nodes.splitlines()
            if l.startswith("0x%016x" % NODES["node08"][0])]
    R.check(line and "'localhost' (ambiguous)" in line[0],
            "ctl nodes marks node08's shared names", nodes[-600:])
    # node09's driver sets its host name: the names follow.
    route = re.search(r"route (\S+)", fab.ctl("node",
                                              gname("node09")).stdout)
    shim = simlib.build_shim(fab)
    if route is None or shim is None or not os.path.exists(shim):
        R.check(False, "node09's route and the fault shim", shim)
        return
    fab.restart_gateway(preload=shim, env={
        "SHIM_DESC_PATH": route.group(1),
        "SHIM_DESC_TEXT": "cn0009 mlx5_0"})
    R.equal(guid_by(fab.v2("cn0009")), NODES["node09"][0],
            "after the description changes, public@cn0009 names node09")
    R.equal(guid_by(fab.v2("localhost")), NODES["node08"][0],
            "and public@localhost now names node08, the only one left")


def topo_links():
    """{node id: 'WxSPEED'} of each HCA's port-1 link in the topology."""
    links, node = {}, None
    with open(TOPO) as f:
        for line in f:
            m = re.match(r'^Ca\t\d+ "([^"]+)"', line)
            if m:
                node = m.group(1)
            m = re.match(r"^\[1\]\(.*# .* (\d+x[A-Z]+)$", line.rstrip())
            if m and node:
                links[node] = m.group(1)
    return links


def oracle_speed(pi):
    """(speed name, lanes) from smpquery portinfo output."""
    ext = {"14.0625 Gbps": "FDR", "25.78125 Gbps": "EDR",
           "53.125 Gbps": "HDR", "106.25 Gbps": "NDR"}
    base = {"2.5 Gbps": "SDR", "5.0 Gbps": "DDR", "10.0 Gbps": "QDR"}
    sp = ext.get(pi.get("LinkSpeedExtActive")) or \
        base.get(pi.get("LinkSpeedActive"), "unknown")
    lanes = int(pi.get("LinkWidthActive", "0X").rstrip("X") or 0)
    return sp, lanes


def check_links():
    links = topo_links()
    R.equal(len(links), 9, "the topology gives 9 HCA links their rates")
    for node, wsp in sorted(links.items()):
        guid = NODES[node][0]
        pi = simlib.parse_diag(fab.diag(["smpquery", "-G", "portinfo",
                                         "0x%016x" % (guid + 1), "1"]).stdout)
        sp, lanes = oracle_speed(pi)
        R.equal("%dx%s" % (lanes, sp), wsp, "%s port 1: smpquery says "
                "%s, as the topology" % (node, wsp))
        _, vals = walk(node, GWPORT)
        got = tuple(vals.get("%s.%d.1" % (GWPORT, c), (None, None))[1]
                    for c in (1, 2, 3))
        R.equal(got, (SPEEDS[sp], lanes, lanes * LANE_MBPS[sp]),
                "%s port 1 ibsnmpgwPortSpeed/Width/DataRate" % node)
        R.equal(vals.get(GWPORT + ".4.1", (None, None))[1], 1,
                "%s port 1 FEC mode unknown (no PortInfoExtended)" % node)
        R.equal(vals.get(GWPORT + ".5.1", (None, None))[1],
                int(pi.get("CapabilityMask2", "-1"), 16),
                "%s port 1 ibsnmpgwPortCapabilityMask2 is smpquery's" % node)
        _, ifx = walk(node, IFX + ".15")
        R.equal(ifx.get(IFX + ".15.1", (None, None))[1],
                lanes * LANE_MBPS[sp], "%s port 1 ifHighSpeed" % node)
    _, vals = walk("node09", GWPORT)
    got = tuple(vals.get("%s.%d.2" % (GWPORT, c), (None, None))[1]
                for c in (1, 2, 3))
    R.equal(got, (1, 0, 0), "node09 port 2 (down): unknown, 0 lanes, 0")
    _, ift = walk("node09", IFT + ".5")
    R.equal(ift.get(IFT + ".5.2", (None, None))[1], 0,
            "node09 port 2 (down) ifSpeed is 0")


def main():
    R.equal(len(NODES), 14, "the cluster topology has 14 nodes")
    # The shape is real: perfquery cannot read an uncabled port 2.
    pq = fab.diag(["perfquery", "-G", "0x%016x" % (NODES["node09"][0] + 1),
                   "2"])
    R.check(pq.returncode != 0, "perfquery fails on node09 port 2 "
            "(uncabled), as the PMA refuses it", pq.stdout + pq.stderr)

    # 1. Every table of every node walks to its end, every port a row.
    for node, (guid, desc, nports, typ) in sorted(NODES.items()):
        want = list(range(1, nports + 1))
        for what, oid, col in (("ifTable", IFT, IFT + ".1"),
                               ("ifXTable", IFX, IFX + ".1"),
                               ("IB-IF-MIB", IBIF, IBIF + ".1.1.1.2"),
                               ("IB-SMA-MIB", SMA, PORTINFO + ".2")):
            out, vals = walk(node, oid)
            ok = out.returncode == 0 and "rror" not in out.stderr + \
                out.stdout
            R.check(ok, "%s %s: the walk completes" % (node, what),
                    out.stderr + out.stdout[-400:])
            R.equal(rows(vals, col), want, "%s %s: a row for every port" %
                    (node, what))

    # 2. A port the PMA refuses, never read: zero, with a discontinuity.
    _, vals = walk("node09", IFX)
    R.equal(vals.get(IFX + ".6.2", (None, None))[1], 0,
            "node09 port 2 (uncabled) ifHCInOctets is 0")
    R.check(vals.get(IFX + ".19.2", (None, 0))[1] > 0,
            "node09 port 2 ifCounterDiscontinuityTime is set",
            vals.get(IFX + ".19.2"))
    R.check(vals.get(IFX + ".6.1", (None, None))[1] is not None,
            "node09 port 1 has its counters")
    d = ctl_degraded("node09")
    R.check(d is not None and d[1] > 0, "ctl node counts the zeros "
            "served for node09", d)

    # 3. A port read before, then lost: what was read, counted as stale.
    fab.cmd('PerformanceSet "node03"[2] PortCounters.SymbolErrorCounter=7')
    fab.ctl("flush", gname("node03"))
    _, before = walk("node03", IBIF)
    sym = IBIF + ".1.1.1.2.2"           # ibIfPortSymbolErrs.2
    R.equal(before.get(sym, (None, None))[1], 7,
            "node03 port 2 symbol errors read (PerformanceSet 7)")
    fab.cmd('Unlink "node03"[2]')
    fab.sweep()
    fab.ctl("flush", gname("node03"))
    out, after = walk("node03", IBIF)
    R.check(out.returncode == 0 and "rror" not in out.stderr,
            "node03 IB-IF-MIB walks after port 2 is unlinked", out.stderr)
    R.equal(after.get(sym, (None, None))[1], 7,
            "node03 port 2 answers the symbol errors read before")
    d = ctl_degraded("node03")
    R.check(d is not None and d[0] > 0, "ctl node counts the stale "
            "answers for node03", d)
    fab.cmd('ReLink "node03"[2]')

    check_links()
    check_names()

    # 4. An SMA that refuses PortInfo for one port (MAD status 0x1c):
    # left out of walks, noSuchInstance for GET, the rest answered.
    shim = simlib.build_shim(fab)
    if shim is None or not os.path.exists(shim):
        R.check(False, "fault shim builds", shim)
        return
    fab.restart_gateway(preload=shim, env={"SHIM_STATUS_ATTR": "0x15",
                                           "SHIM_STATUS_MOD": "3"})
    out, vals = walk("leaf01", IFT)
    R.check(out.returncode == 0 and "rror" not in out.stderr,
            "leaf01 ifTable walks with port 3's PortInfo refused",
            out.stderr)
    R.equal(rows(vals, IFT + ".1"), list(range(1, 37)),
            "leaf01 ifIndex still lists every port")
    R.check(IFT + ".8.3" not in vals and IFT + ".8.4" in vals,
            "leaf01 ifOperStatus.3 is left out, .4 is there")
    out = fab.snmp("snmpget", fab.v2(gname("leaf01")),
                   [IFT + ".8.3", IFT + ".8.4"])
    v = parse_vars(out.stdout)
    R.check("No Such Instance" in str(v.get(IFT + ".8.3")),
            "GET ifOperStatus.3 is noSuchInstance", out.stdout)
    R.check(v.get(IFT + ".8.4", (None, None))[0] == "INTEGER",
            "GET ifOperStatus.4 in the same PDU is answered", out.stdout)
    d = ctl_degraded("leaf01")
    R.check(d is not None and d[2] > 0, "ctl node counts the skipped "
            "instances for leaf01", d)

    # 5. One field outside the MIB's range (VLArbHighCap 100 > 64 in
    # port 3's PortInfo): walks leave that instance out and keep the
    # row's other columns, also right after a GET rejected it.
    fab.restart_gateway(preload=shim, env={"SHIM_VLARB_PORT": "3"})
    cap = PORTINFO + ".15"               # ibSmaPortVlArbHighCapacity
    out, vals = walk("leaf01", PORTINFO)
    R.check(out.returncode == 0 and "rror" not in out.stderr + out.stdout,
            "leaf01 ibSmaPortInfoTable walks", out.stderr +
            out.stdout[-300:])
    R.check(cap + ".3" not in vals and cap + ".4" in vals and
            PORTINFO + ".16.3" in vals and PORTINFO + ".14.3" in vals,
            "port 3: only the out-of-range column is left out")
    out = fab.snmp("snmpget", fab.v2(gname("leaf01")), [cap + ".3"])
    R.check("genError" in out.stdout + out.stderr,
            "GET of the out-of-range value is genErr", out.stdout +
            out.stderr)
    # The GET failed port 3's PortInfo for cache.ttl.error seconds (it
    # is read again soon): a walk meanwhile leaves out the row's
    # PortInfo columns, and still goes to its end.
    out, vals = walk("leaf01", PORTINFO)
    R.check(out.returncode == 0 and "rror" not in out.stderr + out.stdout
            and cap + ".4" in vals and cap + ".3" not in vals,
            "leaf01 ibSmaPortInfoTable walks right after that GET",
            out.stderr + out.stdout[-300:])


simlib.run(main, fab, R)
