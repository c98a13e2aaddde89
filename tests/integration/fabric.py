#!/usr/bin/python3
"""Every node of the bundled fabric, through the gateway's one address,
checked against infiniband-diags (smpquery) on the same simulated fabric:
IB-SMA-MIB Node Info scalars and the Data Port Info table over v2c
(community@node, by alias, GUID and LID) and v3 (context); unknown names;
an unreachable node; interop with a second SNMP stack (pysnmp)."""

import concurrent.futures
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import SMA, diff, parse_diag, parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
fab = simlib.Fabric()
names = simlib.read_name_map()

NODE_TYPES = {"Channel Adapter": 1, "Switch": 2, "Router": 3}


def widths(text):
    return frozenset(w.strip() for w in text.split(" or "))


# The MIB's enumerations (docs/mibs.md), written from the labels.
W_ENABLED = {frozenset({"1X"}): 1, frozenset({"4X"}): 2,
             frozenset({"1X", "4X"}): 3, frozenset({"12X"}): 4,
             frozenset({"1X", "12X"}): 5, frozenset({"4X", "12X"}): 6,
             frozenset({"1X", "4X", "12X"}): 7}
W_SUPPORTED = {frozenset({"1X"}): 1, frozenset({"1X", "4X"}): 2,
               frozenset({"1X", "4X", "12X"}): 3}
W_ACTIVE = {"1X": 1, "4X": 2, "12X": 3}
STATES = {"Down": 1, "Initialize": 2, "Armed": 3, "Active": 4}
PHYS = {"Sleep": 1, "Polling": 2, "Disabled": 3,
        "PortConfigurationTraining": 4, "LinkUp": 5, "LinkErrorRecovery": 6}
MTU = {"256": 1, "512": 2, "1024": 3, "2048": 4, "4096": 5}
VLS = {"VL0": 1, "VL0-1": 2, "VL0-3": 3, "VL0-7": 4, "VL0-14": 5}


def truth(v):
    return 1 if int(v) else 2


def expected_port_columns(pi):
    """smpquery portinfo fields -> {column: value} per IB-SMA-MIB."""
    return {
        2: W_ENABLED.get(widths(pi["LinkWidthEnabled"]), 9),
        3: W_SUPPORTED.get(widths(pi["LinkWidthSupported"]), 4),
        4: W_ACTIVE.get(pi["LinkWidthActive"], 4),
        5: 1 if pi["LinkSpeedSupported"] == "2.5 Gbps" else 2,
        6: STATES.get(pi["LinkState"], 5),
        7: PHYS.get(pi["PhysLinkState"], 7),
        8: {"Sleep": 1, "Polling": 2}.get(pi["LinkDownDefState"], 3),
        9: int(pi["LMC"]),
        10: 1 if pi["LinkSpeedActive"] == "2.5 Gbps" else 2,
        11: 1 if pi["LinkSpeedEnabled"] == "2.5 Gbps" else 3,
        12: MTU.get(pi["NeighborMTU"], 6),
        13: VLS.get(pi["VLCap"], 6),
        14: int(pi["VLHighLimit"]),
        15: int(pi["VLArbHighCap"]),
        16: int(pi["VLArbLowCap"]),
        17: MTU.get(pi["MtuCap"], 6),
        18: int(pi["VLStallCount"]),
        19: min(int(pi["HoqLife"]), 20),
        20: VLS.get(pi["OperVLs"], 6),
        21: truth(pi["PartEnforceInb"]),
        22: truth(pi["PartEnforceOutb"]),
        23: truth(pi["FilterRawInb"]),
        24: truth(pi["FilterRawOutb"]),
        25: int(pi["LocalPhysErr"]),
        26: int(pi["OverrunErr"]),
    }


def port_guid(node_guid, ntype, port):
    # ibsim: a switch's ports use the node GUID, a CA's port P is GUID + P.
    return node_guid if ntype == 2 else node_guid + port


def smp(args):
    out = fab.diag(["smpquery"] + args)
    if out.returncode != 0:
        raise RuntimeError("smpquery %s: %s" % (" ".join(args), out.stderr))
    return out.stdout


def expected_node(name, guid):
    port = simlib.port_addr(name, 1, {name: guid})
    ni = parse_diag(smp(["-G", "nodeinfo", port]))
    nd = smp(["-G", "nodedesc", port])
    desc = nd.split("Node Description:", 1)[1].lstrip(".").strip()
    return ni, desc


def node_scalars(ni, desc):
    h = lambda s, n: ("%0*x" % (2 * n, int(s, 16)))  # noqa: E731
    return {
        1: desc,
        2: int(ni["BaseVers"]),
        3: int(ni["ClassVers"]),
        4: NODE_TYPES.get(ni["NodeType"], 4),
        5: int(ni["NumPorts"]),
        6: h(ni["SystemGuid"], 8),
        7: h(ni["Guid"], 8),
        8: h(ni["PortGuid"], 8),
        9: int(ni["PartCap"]),
        10: h(ni["DevId"], 2),
        11: h(ni["Revision"], 4),
        # A switch's SMA is its port 0 ("OrZero"), whichever port the
        # SMP came in through.
        12: 0 if ni["NodeType"] == "Switch" else int(ni["LocalPort"]),
        13: h(ni["VendorId"], 3),
    }


def check_node(name, guid):
    ni, desc = expected_node(name, guid)
    want = node_scalars(ni, desc)
    ntype = want[4]
    oids = ["%s.1.%d.0" % (SMA, i) for i in range(1, 14)]
    # v2c by alias: GET
    got = parse_vars(fab.snmp("snmpget", fab.v2(name), oids).stdout)
    ok = all(got.get("%s.1.%d.0" % (SMA, i), (None, None))[1] == v
             for i, v in want.items())
    R.check(ok, "%s: NodeInfo scalars over v2c GET match smpquery" % name,
            "got %r\nwant %r" % ({k: v[1] for k, v in got.items()}, want))

    # Every port's PortInfo from smpquery.
    nports = want[5]
    expect = {}
    for p in range(1, nports + 1):
        pi = parse_diag(smp(["-G", "portinfo", "0x%016x" %
                             port_guid(guid, ntype, p), str(p)]))
        for col, v in expected_port_columns(pi).items():
            expect["%s.5.1.1.%d.%d" % (SMA, col, p)] = v
    for i, v in want.items():
        expect["%s.1.%d.0" % (SMA, i)] = v

    # v2c bulk walk and v3 context bulk walk of Node Info and Data Port
    # Info (tests/integration/sma.py covers the other groups).
    for label, sec in (("v2c", fab.v2(name)), ("v3", fab.v3(name))):
        walked = {}
        for sub in (".1", ".5"):
            out = fab.snmp("snmpbulkwalk", sec, ["-Cr20", SMA + sub])
            walked.update({k: v[1] for k, v in
                           parse_vars(out.stdout).items()})
        R.check(out.returncode == 0 and walked == expect,
                "%s: %s bulk walk of Node and Data Port Info (%d objects) "
                "matches smpquery" % (name, label, len(expect)),
                diff(walked, expect) + out.stderr)




def vb_lines(text):
    """-On output as (oid, rest) lines in order, a value that wraps onto
    the next lines joined; endOfMibView as (oid, None)."""
    out = []
    for line in text.splitlines():
        if line.startswith("."):
            oid, _, rest = line.partition(" = ")
            out.append([oid, rest])
        elif out:
            out[-1][1] += " " + line.strip()
    return [(o, None if r.startswith("No more variables") else r)
            for o, r in out]


def check_bulk_is_next():
    """A GETBULK (RFC 3416 4.2.3) answers what GETNEXTs would, repetition
    by repetition, across table ends, with a non-repeater, on a node
    whose cache is cold (repetitions wait for MADs part way) and in the
    fabric context. The gateway answers a varbind's repetitions in one
    call while each is there at once (gateway/mib.c)."""
    cases = (("leaf03", fab.v2("leaf03"), 1, 25,
              [SMA + ".1.9", SMA + ".1", SMA + ".5.1.1.40", SMA + ".2"]),
             ("fabric", fab.v2("fabric"), 0, 30,
              [".1.3.6.1.3.117.7.1.2.1.14", ".1.3.6.1.3.117.7.1.3.1.60"]),
             ("leaf03, v3", fab.v3("leaf03"), 2, 7,
              [SMA + ".1.1.0", SMA + ".5.1.1.1.36", SMA + ".5.1.1.2.35",
               SMA + ".5.1.1.2.36"]))
    for label, sec, nrep, reps, oids in cases:
        out = fab.snmp("snmpbulkget", sec, ["-Cn%d" % nrep, "-Cr%d" % reps]
                       + oids, timeout=10)
        got = [v for v in vb_lines(out.stdout) if v[1] is not None]

        def nxt(oid):
            r = vb_lines(fab.snmp("snmpgetnext", sec, [oid],
                                  timeout=10).stdout)
            return r[0] if r else (oid, None)
        want = [nxt(o) for o in oids[:nrep]]
        cur = oids[nrep:]
        for _ in range(reps):
            row = [nxt(o) for o in cur]
            want += row
            cur = [o if v is None else o2 for (o2, v), o in zip(row, cur)]
        want = [v for v in want if v[1] is not None]
        R.check(out.returncode == 0 and want and got == want,
                "%s: GETBULK (N=%d, M=%d, %d varbinds) answers what "
                "GETNEXT does (%d objects)" % (label, nrep, reps, len(oids),
                                               len(want)),
                "\n".join("got %s\nwant %s" % (g, w) for g, w in
                          zip(got, want) if g != w)[:600] +
                " (%d against %d) %s" % (len(got), len(want), out.stderr))


def check_address_forms():
    guid = names["leaf02"]
    oid = ["%s.1.7.0" % SMA]
    want = "%016x" % guid
    for form in ("0x%016x" % guid, "%016x" % guid, "%016X" % guid,
                 "lid-4"):
        got = parse_vars(fab.snmp("snmpget", fab.v2(form), oid).stdout)
        R.equal(got.get(oid[0], (None, None))[1], want,
                "community public@%s names leaf02" % form)
    got = parse_vars(fab.snmp("snmpget", fab.v3("lid-4"), oid).stdout)
    R.equal(got.get(oid[0], (None, None))[1], want,
            "v3 context lid-4 names leaf02")
    # A CA's other port LID names the same node.
    got = parse_vars(fab.snmp("snmpget", fab.v2("lid-102"),
                              ["%s.1.7.0" % SMA]).stdout)
    R.equal(got.get("%s.1.7.0" % SMA, (None, None))[1],
            "%016x" % names["node01"], "lid-102 (node01 port 2) names node01")


def check_unknown_names():
    bad_comm = ".1.3.6.1.2.1.11.4.0"
    unk_ctx = ".1.3.6.1.6.3.12.1.5.0"
    before = fab.counter(bad_comm)
    for sec in (fab.v2("nosuchnode"), fab.v2("leaf01", "wrong"),
                fab.v2(None, "wrong"), fab.v2("lid-99999"),
                fab.v2("leaf01@leaf02"), fab.v2("0xZZZZ")):
        t = time.time()
        out = fab.snmp("snmpget", sec, ["%s.1.1.0" % SMA], timeout=1)
        R.check("Timeout" in out.stderr and out.stdout == "",
                "community %s gets no answer" % sec[2],
                out.stdout + out.stderr)
    R.equal(fab.counter(bad_comm), before + 6,
            "snmpInBadCommunityNames counted each of them")
    before = fab.counter(unk_ctx)
    out = fab.snmp("snmpget", fab.v3("nosuchnode"), ["%s.1.1.0" % SMA])
    R.check(out.returncode != 0 and "context" in out.stderr.lower() and
            "Timeout" not in out.stderr,
            "v3 unknown context gets an unknownContexts report",
            out.stdout + out.stderr)
    R.equal(fab.counter(unk_ctx), before + 1, "snmpUnknownContexts counted it")
    # The gateway itself still answers on the plain community and "".
    got = parse_vars(fab.snmp("snmpget", fab.v3(""),
                              [".1.3.6.1.2.1.1.1.0"]).stdout)
    R.check(got.get(".1.3.6.1.2.1.1.1.0", ("", ""))[1].startswith(
        "ibsnmpgw"), "v3 default context is the gateway's own sysDescr")


def check_unreachable():
    # node05's port 2 PortInfo has not been read yet (it is cold).
    oid = "%s.5.1.1.6.2" % SMA
    fab.cmd('Unlink "node05"')
    try:
        def slow():
            t = time.time()
            out = fab.snmp("snmpget", fab.v2("node05"), [oid], timeout=5)
            return time.time() - t, out

        def fast():
            t = time.time()
            out = fab.snmp("snmpget", fab.v2("spine02"),
                           ["%s.5.1.1.6.1" % SMA], timeout=5)
            return time.time() - t, out

        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            f1, f2 = ex.submit(slow), ex.submit(fast)
            (t1, o1), (t2, o2) = f1.result(), f2.result()
        R.check("genError" in o1.stdout + o1.stderr and t1 < 2.0,
                "unreachable node05 answers genErr within the MAD timeout "
                "(%.2fs)" % t1, o1.stdout + o1.stderr)
        R.check(o2.returncode == 0 and "INTEGER: 4" in o2.stdout,
                "spine02 still answers meanwhile (%.2fs)" % t2,
                o2.stdout + o2.stderr)
        # A sweep now keeps node05, marked unreachable, and it still
        # resolves: the answer stays genErr, never "unknown community".
        fab.sweep()
        R.equal(fab.sql("SELECT reachable FROM nodes WHERE guid = %d" %
                        names["node05"]), "0",
                "after a sweep node05 is kept in SQLite, unreachable")
        out = fab.snmp("snmpget", fab.v2("node05"), ["%s.1.1.0" % SMA],
                       timeout=5)
        R.check("genError" in out.stdout + out.stderr, "the unreachable "
                "node still resolves and answers genErr (no silent drop)",
                out.stdout + out.stderr)
        # Negative caching: a walk of the dead node fails fast too.
        t = time.time()
        out = fab.snmp("snmpbulkwalk", fab.v2("node05"),
                       ["%s.5" % SMA], timeout=5)
        R.check(time.time() - t < 3.0 and "genError" in out.stdout +
                out.stderr, "bulk walk of the unreachable node ends in "
                "genErr, not silence", out.stdout + out.stderr)
    finally:
        fab.cmd('ReLink "node05"')
    fab.sweep()
    R.equal(fab.sql("SELECT reachable FROM nodes WHERE guid = %d" %
                    names["node05"]), "1",
            "the next sweep marks node05 reachable again")
    # Failures are remembered for cache.ttl.error (default 5 s); after
    # that the node answers again without any restart.
    time.sleep(5.5)
    out = fab.snmp("snmpget", fab.v2("node05"), [oid], timeout=5)
    R.check("INTEGER: 4" in out.stdout, "node05 answers again once relinked "
            "and the error TTL has passed", out.stdout + out.stderr)


def check_v1_and_ipv6():
    oid = "%s.1.1.0" % SMA
    out = fab.snmp("snmpget", ["-v1", "-c", "public@spine01"], [oid])
    R.check('"spine01"' in out.stdout, "SNMPv1 GET through public@spine01",
            out.stdout + out.stderr)
    out = fab.snmp("snmpget", ["-v1", "-c", "public@spine01"],
                   ["%s.5.1.1.6.99" % SMA])
    R.check("noSuchName" in out.stdout + out.stderr,
            "SNMPv1 GET of a missing port is noSuchName",
            out.stdout + out.stderr)
    out = fab.snmp("snmpset", fab.v2("spine01"),
                   ["%s.5.1.1.6.1" % SMA, "i", "1"])
    R.check("notWritable" in out.stdout + out.stderr,
            "SET is refused with notWritable", out.stdout + out.stderr)
    if fab.endpoint6 is None:
        print("# SKIP the IPv6 listener: no IPv6 loopback here")
    else:
        out = fab.snmp("snmpget", fab.v2("spine01"), [oid],
                       endpoint=fab.endpoint6)
        R.check('"spine01"' in out.stdout, "the IPv6 listener answers too",
                out.stdout + out.stderr)


def check_pysnmp():
    try:
        sys.path.insert(0, "/usr/lib/python3/dist-packages")
        from pysnmp.hlapi import (CommunityData, ContextData, ObjectIdentity,
                                  ObjectType, SnmpEngine, UdpTransportTarget,
                                  UsmUserData, getCmd, usmAesCfb128Protocol,
                                  usmHMACSHAAuthProtocol)
    except ImportError as e:
        R.check(True, "pysnmp interop skipped (%s)" % e)
        return
    host, port = fab.endpoint.split(":")[1:]
    target = UdpTransportTarget((host, int(port)), timeout=3, retries=0)
    oid = ObjectType(ObjectIdentity("1.3.6.1.3.117.3.1.1.1.0"))
    for label, auth, ctx in (
            ("v2c", CommunityData("%s@leaf03" % fab.community), ContextData()),
            ("v3", UsmUserData(fab.v3user, fab.v3auth[1], fab.v3priv[1],
                               authProtocol=usmHMACSHAAuthProtocol,
                               privProtocol=usmAesCfb128Protocol),
             ContextData(contextName=b"leaf03"))):
        err, status, idx, vbs = next(getCmd(SnmpEngine(), auth, target, ctx,
                                            oid))
        R.check(not err and not status and vbs and
                str(vbs[0][1]) == "leaf03",
                "pysnmp %s GET of leaf03's ibSmaNodeString" % label,
                "%r %r %r" % (err, status, vbs))


def topo_minimum(path):
    """The fewest SMPs a full sweep of the topology file can send: a
    NodeInfo through one end of every link (and the local one), PortInfo
    of every switch port (0 included) and every cabled CA port, a
    NodeDescription per node and a SwitchInfo per switch. Links are
    listed at both ends."""
    nodes = switches = ports = ends = 0
    kind = None
    for line in open(path):
        line = line.split("#")[0].strip()
        if line.startswith(("Switch", "Ca", "Hca")):
            kind = line.split()[0]
            nodes += 1
            if kind == "Switch":
                switches += 1
                ports += int(line.split()[1]) + 1
        elif line.startswith("[") and kind:
            ends += 1
            if kind != "Switch":
                ports += 1
    return ends // 2 + 1 + ports + nodes + switches, ends // 2


def check_sweep_minimum():
    """A full sweep sends the fewest SMPs the fabric allows (issue 21):
    a link the far end's probe already found is not probed again. Up to
    two SMInfo more, for the ports that run an SM."""
    low, links = topo_minimum(simlib.TOPO)
    fab.sweep()
    m = re.findall(r"sweep \d+ done: (\d+) nodes, (\d+) links, \d+ "
                   r"unreachable, (\d+) SMPs", fab.log())
    nodes, got_links, smps = (int(x) for x in m[-1]) if m else (0, 0, 0)
    print("# full sweep: %d SMPs, minimum %d (+ SMInfo), %d links" %
          (smps, low, got_links))
    R.equal(got_links, links, "the sweep found every link of the topology")
    R.check(low <= smps <= low + 2, "a full sweep sends the minimum: %d "
            "SMPs for %d (+ at most 2 SMInfo)" % (smps, low))


def main():
    # First, while node05's cache is still cold.
    check_unreachable()
    check_bulk_is_next()
    check_address_forms()
    for name in sorted(names):
        check_node(name, names[name])
    check_unknown_names()
    check_v1_and_ipv6()
    check_pysnmp()
    check_sweep_minimum()
    R.check("Traceback" not in fab.log() and "crit" not in fab.log(),
            "gateway log has no crash or critical line")


if __name__ == "__main__":
    simlib.run(main, fab, R)
