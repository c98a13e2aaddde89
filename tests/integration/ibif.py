#!/usr/bin/python3
"""IB-IF-MIB on the simulated fabric.

ibIfVLTrafficTable: rows follow each port's OperationalVLs (smpquery)
plus VL15, the receive counters match perfquery --vloppackets/--vlopdata,
accumulate across saturation and resets, are read by a vl-counters policy
without any SNMP request, and a PMA that never answers PortVLOpPackets
gets an empty table.

ibIpoibLinkLayerAddrTable: there is no IPoIB here, so the host's view is
a sysfs-shaped directory and an ARP file in /proc/net/arp format whose
addresses carry the GIDs of simulated ports; the gateway reads them like
the real ones and maps each to its node and port."""

import atexit
import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
NAMES = simlib.read_name_map()
HOST = tempfile.mkdtemp(prefix="ibsnmpgw-ipoib-")
atexit.register(shutil.rmtree, HOST, True)
NET, ARP = os.path.join(HOST, "net"), os.path.join(HOST, "arp")
fab = simlib.Fabric(extra_yaml="cache:\n  ttl:\n    counters: 1\n"
                    "ipoib:\n  net-dir: %s\n  arp-file: %s\n"
                    "  refresh: 1\n" % (NET, ARP) +
                    "polling:\n"
                    "  - name: vl-reset\n"
                    "    match: {name: node05}\n"
                    "    groups: [counters, vl-counters]\n"
                    "    interval: 1\n"
                    "    ttl: 1\n"
                    "    reset-counters: true\n"
                    "  - name: vl\n"
                    "    match: {name: node03}\n"
                    "    groups: [counters, vl-counters]\n"
                    "    interval: 1\n"
                    "    ttl: 1\n")

VLT = ".1.3.6.1.3.117.2.1.2.1"      # ibIfVLTrafficEntry
LLA = ".1.3.6.1.3.117.2.1.3.1.3"    # ibIpoibLinkLayerAddr
NT = simlib.STATS[:-2] + ".5.1.1"    # ibsnmpgwNodeEntry
HEX = ["--hexOutputLength=0"]        # 20 octets on one line
WAIT = 15                            # s: bound on waits for the gateway


def walk(node, oid=VLT, timeout=5):
    out = fab.snmp("snmpbulkwalk", fab.v2(node) + HEX, [oid],
                   timeout=timeout)
    # On an empty subtree snmpbulkwalk GETs the root itself: no row.
    return out, {k: v for k, v in parse_vars(out.stdout).items()
                 if not str(v[1]).startswith("No Such")}


def addr(node, port):
    return simlib.port_addr(node, port, NAMES)


def want_rows(node, ports):
    """(port, VL index) rows from smpquery's OperVLs of each port."""
    rows = []
    for port in ports:
        out = fab.diag(["smpquery", "-G", "portinfo", addr(node, port),
                        str(port)])
        # "VL0-7": data VLs 0..7, indexes 1..8; "VL0": VL0 only
        top = int(re.findall(r"[0-9]+",
                             simlib.parse_diag(out.stdout)["OperVLs"])[-1])
        rows += [(port, v) for v in range(1, top + 2)] + [(port, 16)]
    return rows


def perfquery(opt, node, port):
    out = fab.diag(["perfquery", opt, "-G", addr(node, port), str(port)])
    return simlib.parse_diag(out.stdout)


def perfset(node, port, attr, vl, value):
    fab.cmd('PerformanceSet "%s"[%d] %s.%s%d=%d' % (node, port, attr, attr,
                                                    vl, value))


def get(node, *oids):
    out = fab.snmp("snmpget", fab.v2(node) + HEX, list(oids), timeout=5)
    vals = parse_vars(out.stdout)
    return [vals.get(o, (None, None))[1] for o in oids]


def get_until(node, oids, want, seen=None):
    """get() until it returns want: the gateway reads a counter again
    once its copy (TTL 1 s) is stale. Its last answer after WAIT s;
    every answer is appended to seen."""
    end = time.time() + WAIT
    while True:
        got = get(node, *oids)
        if seen is not None:
            seen += got
        if got == want or time.time() > end:
            return got
        time.sleep(0.25)


def last_round_start(node):
    """When node's last completed polling round began (unix seconds, at
    the earliest): ibsnmpgwNodeLastPoll (when it ended, whole seconds)
    less ibsnmpgwNodePollDuration (ms). None before any round."""
    out = fab.snmp("snmpbulkwalk", fab.v2("fabric"), [NT + ".2"])
    idx = [o.rsplit(".", 1)[1] for o, v in parse_vars(out.stdout).items()
           if v[1] == node]
    if not idx:
        return None
    last, dur = get("fabric", "%s.13.%s" % (NT, idx[0]),
                    "%s.14.%s" % (NT, idx[0]))
    if not isinstance(last, int) or not isinstance(dur, int) or last == 0:
        return None
    return last - dur / 1000.0


def main():
    check_ipoib()
    # Rows: one per operational data VL and VL15, for every port.
    out, got = walk("node03")
    rows = sorted({tuple(int(x) for x in o[len(VLT) + 3:].split("."))
                   for o in got})
    want = want_rows("node03", [1, 2])
    R.equal(rows, want, "node03: a row per operational VL (smpquery "
            "OperVLs) and VL15 on each port")
    cols = sorted({int(o[len(VLT) + 1:].split(".")[0]) for o in got})
    R.equal(cols, [5, 6], "only the receive columns have instances (IBA "
            "has no per-VL transmit counter outside sampling)")
    R.check(out.returncode == 0 and "Error" not in out.stderr,
            "the walk ends cleanly", out.stderr)

    # Values against perfquery, on a CA port.
    perfset("node03", 1, "PortVLOpPackets", 2, 1000)
    perfset("node03", 1, "PortVLOpData", 2, 5000)
    perfset("node03", 1, "PortVLOpPackets", 0, 7)
    pk = perfquery("--vloppackets", "node03", 1)
    pd = perfquery("--vlopdata", "node03", 1)
    inpk, inoct, inpk0 = get_until(
        "node03", [VLT + ".6.1.3", VLT + ".5.1.3", VLT + ".6.1.1"],
        [int(pk.get("PortVLOpPackets2", -1)),
         int(pd.get("PortVLOpData2", -1)) * 4 +
         int(pk.get("PortVLOpPackets2", -1)) * 4, 7])
    R.equal(inpk, int(pk.get("PortVLOpPackets2", -1)),
            "ibIfVLInPkts (port 1, VL2) equals perfquery --vloppackets")
    R.equal(inoct, int(pd.get("PortVLOpData2", -1)) * 4 +
            int(pk.get("PortVLOpPackets2", -1)) * 4,
            "ibIfVLInOctets is PortVLOpData * 4 + PortVLOpPackets * 4 "
            "(draft 3.4), both from perfquery")
    R.equal(inpk0, 7, "VL0 is kept apart from VL2")

    # The vl-counters policy reads port 2, which no SNMP request asked
    # for; a restart saves the accumulators.
    perfset("node03", 2, "PortVLOpPackets", 1, 321)
    # A round that began over a second (the TTL) after the set, plus a
    # second for a read then in flight, read port 2 anew.
    after = time.time() + 2
    simlib.wait(lambda: (last_round_start("node03") or 0) > after,
                WAIT + 5, 0.25)
    sweeps = fab.log().count("sweep 1 done")
    fab.restart_gateway(0)
    simlib.wait(lambda: fab.log().count("sweep 1 done") > sweeps, 60, 0.1)
    rows = fab.sql("SELECT total FROM counters WHERE node_guid = %d AND "
                   "port = 2 AND counter = 'PortVLOpPackets1'" %
                   NAMES["node03"])
    R.equal(rows, "321", "the vl-counters policy polled PortVLOpPackets1 "
            "of port 2 into the saved accumulators")
    inpk, = get("node03", VLT + ".6.1.3")
    R.equal(inpk, 1000, "ibIfVLInPkts survives a gateway restart")

    # 16-bit saturation, then a reset from outside: nothing lost.
    seen = [inpk]
    perfset("node03", 1, "PortVLOpPackets", 2, 65535)
    get_until("node03", [VLT + ".6.1.3"], [65535], seen)
    R.equal(seen[-1], 65535, "PortVLOpPackets2 at all ones is counted")
    perfset("node03", 1, "PortVLOpPackets", 2, 5)
    get_until("node03", [VLT + ".6.1.3"], [65540], seen)
    R.equal(seen[-1], 65540, "after a reset counting goes on from the new "
            "base (65535 + 5)")
    R.check(all(b >= a for a, b in zip(seen, seen[1:])),
            "ibIfVLInPkts never went back: %s" % seen)

    # A policy with reset-counters clears a 16-bit VL counter past 3/4
    # of its range, and the accumulator loses nothing.
    perfset("node05", 1, "PortVLOpPackets", 3, 60000)
    end = time.time() + WAIT
    while True:
        pk = perfquery("--vloppackets", "node05", 1)
        if pk.get("PortVLOpPackets3") == "0" or time.time() > end:
            break
        time.sleep(0.25)
    R.equal(pk.get("PortVLOpPackets3"), "0", "the vl-counters policy with "
            "reset-counters cleared node05's PortVLOpPackets3")
    got, = get("node05", VLT + ".6.1.4")
    R.equal(got, 60000, "... and ibIfVLInPkts still counts all 60000")
    perfset("node05", 1, "PortVLOpPackets", 3, 10)
    got, = get_until("node05", [VLT + ".6.1.4"], [60010])
    R.equal(got, 60010, "counting goes on after the gateway's reset")

    # A switch port: the PMA on port 0, PortSelect names the port.
    perfset("leaf01", 3, "PortVLOpData", 0, 4242)
    pd = perfquery("--vlopdata", "leaf01", 3)
    pk = perfquery("--vloppackets", "leaf01", 3)
    inoct, = get_until("leaf01", [VLT + ".5.3.1"],
                       [int(pd.get("PortVLOpData0", -1)) * 4 +
                        int(pk.get("PortVLOpPackets0", -1)) * 4])
    R.equal(inoct, int(pd.get("PortVLOpData0", -1)) * 4 +
            int(pk.get("PortVLOpPackets0", -1)) * 4,
            "leaf01 port 3 VL0 octets match perfquery")
    out, got = walk("leaf01", VLT + ".6")
    R.equal(len(got), len(want_rows("leaf01", range(1, 37))),
            "leaf01: every port has its VL rows")

    # A PMA that never answers PortVLOpPackets (ibsim drops it): an
    # empty table, remembered in the inventory.
    fab.cmd('Error "node06"[1] 100 0x19')
    try:
        out, got = walk("node06", timeout=15)
        R.equal(got, {}, "node06 without PortVLOpPackets: empty table")
        R.check(out.returncode == 0, "... and the walk ends cleanly",
                out.stderr)
        unsup = fab.sql("SELECT unsupported FROM nodes WHERE guid = %d" %
                        NAMES["node06"])
        R.check(unsup.strip().isdigit() and int(unsup) & 0x1000,
                "node06 is remembered as lacking PortVLOpPackets (%r)" %
                unsup)
        shown = fab.ctl("node", "node06").stdout
        R.check(re.search(r"^lacks: .*PortVLOpPackets", shown, re.M),
                "ctl node node06 says it lacks PortVLOpPackets", shown)
    finally:
        fab.cmd('Error "node06"[1] 0')
    # The PMA answers again (say, reconfigured): ctl flush forgets the
    # verdict, and the rows come back.
    out, got = walk("node06")
    R.equal(got, {}, "... and the table stays empty while that is remembered")
    fab.ctl("flush", "node06")
    unsup = fab.sql("SELECT unsupported FROM nodes WHERE guid = %d" %
                    NAMES["node06"])
    R.check(unsup.strip() == "0", "ctl flush node06 forgets it (%r)" % unsup)
    R.check(re.search(r"^lacks: -$", fab.ctl("node", "node06").stdout, re.M),
            "... and ctl node shows nothing lacking")
    out, got = walk("node06", VLT + ".6")
    R.equal(len(got), len(want_rows("node06", [1, 2])),
            "node06 has its VL rows again after the flush")


def ipoib_addr(qpn, node, port):
    """RFC 4391 9.1.1: reserved octet, QPN, GID fe80::<port GUID>."""
    guid = int(addr(node, port), 16)
    raw = bytes([0]) + qpn.to_bytes(3, "big") + \
        bytes.fromhex("fe80000000000000") + guid.to_bytes(8, "big")
    return raw


def colon(raw):
    return ":".join("%02x" % b for b in raw)


def write_host(arp_entries):
    """The host's view: one IPoIB interface of its own (node01 port 1), an
    Ethernet one, and an ARP table."""
    for name, typ, a in (("ib0", 32, colon(ipoib_addr(0x48, "node01", 1))),
                         ("eth0", 1, "52:54:00:12:34:56")):
        os.makedirs(os.path.join(NET, name), exist_ok=True)
        with open(os.path.join(NET, name, "type"), "w") as f:
            f.write("%d\n" % typ)
        with open(os.path.join(NET, name, "address"), "w") as f:
            f.write(a + "\n")
    tmp = ARP + ".new"
    with open(tmp, "w") as f:
        f.write("IP address       HW type     Flags       HW address"
                "            Mask     Device\n")
        for ip, hwtype, flags, hw in arp_entries:
            f.write("%-16s 0x%-10x0x%-10x%s     *        ib0\n" %
                    (ip, hwtype, flags, hw))
    os.rename(tmp, ARP)


def addr_rows(node):
    out, got = walk(node, LLA)
    return {o[len(LLA) + 1:]: v[1] for o, v in got.items()}, out


def refreshed(node, addrs):
    """node's rows once they hold exactly addrs (the gateway has read
    the host's files again: a 1 s timer, later on a busy gateway), or
    the last rows after WAIT s; their indexes are the caller's check."""
    end = time.time() + WAIT
    while True:
        got, out = addr_rows(node)
        if sorted(got.values()) == sorted(a.hex() for a in addrs) or \
                time.time() > end:
            return got, out
        time.sleep(0.25)


def check_ipoib():
    a31 = ipoib_addr(0x49, "node03", 1)
    a31b = ipoib_addr(0x1234, "node03", 1)     # a child interface
    a32 = ipoib_addr(0x4a, "node03", 2)
    entries = [
        ("10.0.0.3", 0x20, 0x2, colon(a31b)),
        ("10.0.0.4", 0x20, 0x2, colon(a31)),
        ("10.0.0.5", 0x20, 0x6, colon(a32)),
        ("10.0.0.6", 0x20, 0x0, colon(ipoib_addr(0x4b, "node04", 1))),
        ("10.0.0.7", 0x1, 0x2, "52:54:00:aa:bb:cc"),
        ("10.0.0.8", 0x20, 0x2, colon(bytes(4) + bytes.fromhex(
            "fe80000000000000") + (0x1122334455667788).to_bytes(8, "big"))),
        ("10.0.0.9", 0x20, 0x2, "80:00:zz"),
        ("10.0.0.10", 0x20, 0x2, colon(a31)),   # the same address again
    ]
    write_host(entries)
    got, out = refreshed("node03", [a31, a31b, a32])
    R.equal(got, {"1.1": a31.hex(), "1.2": a31b.hex(), "2.1": a32.hex()},
            "node03: its complete ARP entries, one row per distinct "
            "address, numbered per port in address order")
    R.check(out.returncode == 0, "... and the walk ends cleanly", out.stderr)
    got, _ = addr_rows("node01")
    R.equal(got, {"1.1": ipoib_addr(0x48, "node01", 1).hex()},
            "node01: the host's own IPoIB interface (sysfs type 32)")
    got, _ = addr_rows("node04")
    R.equal(got, {}, "node04: an incomplete ARP entry gives no row")
    got, _ = addr_rows("leaf01")
    R.equal(got, {}, "a switch has no IPoIB rows")
    g = get("node03", LLA + ".2.1", LLA + ".2.2")
    R.equal(g, [a32.hex(), "No Such Instance currently exists at this OID"],
            "GET of a row, and of a row past the end: noSuchInstance")

    # A neighbour goes away: its row goes at the next refresh, and the
    # others keep their index.
    entries = [e for e in entries if e[3] != colon(a31)]
    write_host(entries)
    got, _ = refreshed("node03", [a31b, a32])
    R.equal(got, {"1.2": a31b.hex(), "2.1": a32.hex()},
            "an ARP entry that disappears takes its row with it; the "
            "others keep their index")
    # A new neighbour takes the lowest free index.
    a31c = ipoib_addr(0x5555, "node03", 1)
    write_host(entries + [("10.0.0.11", 0x20, 0x2, colon(a31c))])
    got, _ = refreshed("node03", [a31c, a31b, a32])
    R.equal(got, {"1.1": a31c.hex(), "1.2": a31b.hex(), "2.1": a32.hex()},
            "a new address takes the lowest free index of its port")
    R.check("ipoib: %s: cannot read" % ARP in fab.log(),
            "the ARP file missing at start was reported")


if __name__ == "__main__":
    simlib.run(main, fab, R)
