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
left out of a walk and is noSuchInstance for GET (docs/errors.md)."""

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


simlib.run(main, fab, R)
