#!/usr/bin/python3
"""Congestion (docs/health.md): ibsnmpgwPortCongestionTable in a host's
and a switch's context. ibsim's PerformanceSet of PortXmitWait moves
ibsnmpgwPortXmitWait by what was set (perfquery agrees), and its ratio
over the polling interval is the ticks at 64 octets each over the
interval at the port's data rate; ibsim's PMA has no CapabilityMask2,
so the source is PortCounters. A policy's xmit-wait-ppm threshold
crossed is one ibsnmpgwThresholdCrossed."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
SINK = simlib.TrapSink("public")
fab = simlib.Fabric(
    extra=["--notify", "udp:127.0.0.1:%d" % SINK.port],
    extra_yaml="polling:\n"
    "  - name: watched\n"
    "    match: {regex: \"^(node03|leaf01)$\"}\n"
    "    groups: [counters]\n"
    "    interval: 2\n"
    "    ttl: 2\n"
    "    thresholds:\n"
    "      - xmit-wait-ppm: 100000\n"
    "  - name: rest\n"
    "    groups: []\n"
    "    interval: 86400\n")
NAMES = simlib.read_name_map()
TRAP_OID = ".1.3.6.1.6.3.1.1.4.1.0"
CROSSED = simlib.GW_BASE + ".7.0.4"
CONG = simlib.GW_BASE + ".9.1.1"    # ibsnmpgwPortCongestionEntry
RATE = simlib.GW_BASE + ".4.1.1.3"  # ibsnmpgwPortDataRate
WAIT, RATIO, INTERVAL, SOURCE = 2, 3, 4, 5


def row(node, port):
    """The congestion row of a port in one GET: {column: value}."""
    oids = ["%s.%d.%d" % (CONG, c, port)
            for c in (WAIT, RATIO, INTERVAL, SOURCE)]
    got = simlib.parse_vars(fab.snmp("snmpget", fab.v2(node), oids).stdout)
    return {int(o.split(".")[-2]): v for o, (_t, v) in got.items()}


def perf_wait(name, port):
    """PortXmitWait as perfquery reads it (the oracle)."""
    out = fab.diag(["perfquery", "-G", simlib.port_addr(name, port, NAMES),
                    str(port)])
    m = re.search(r"PortXmitWait:\.+(\d+)", out.stdout)
    return int(m.group(1)) if m else None


def ctl_line(name, port):
    """ctl congestion NAME's line of the port: its fields."""
    for line in fab.ctl("congestion", name).stdout.splitlines():
        m = re.search(r" port +%d xmit-wait (\d+) ratio (\d+) ppm interval "
                      r"(\d+) ms source (\S+)" % port, line)
        if m:
            return m.groups()
    return None


def expect_ppm(ticks, rate_mbps, dt_ms):
    """docs/health.md: a tick is 64 octets' time at the data rate."""
    return min(1000000, round(ticks * 64 * 8 * 1000 / (rate_mbps * dt_ms)))


def crossings():
    return [d for d in SINK.notes()
            if dict(d["varbinds"]).get(TRAP_OID) == CROSSED]


def check_port(name, port, ticks):
    """Set PortXmitWait, then see the accumulator move by the difference
    and the interval that holds it show its ratio."""
    base = row(name, port).get(WAIT)
    before = perf_wait(name, port)
    fab.cmd('PerformanceSet "%s"[%d] PortCounters.PortXmitWait=%d' %
            (name, port, ticks))
    R.equal(perf_wait(name, port), ticks, "%s port %d: perfquery reads "
            "the PortXmitWait set" % (name, port))
    want = base + ticks - before
    # The interval that saw the ticks, as ctl shows it: one reading of
    # total, ratio and interval together, served for one interval.
    line = simlib.wait(lambda: (lambda l: l if l and int(l[0]) == want and
                                int(l[1]) > 0 else None)(
                                    ctl_line(name, port)), 20, 0.05)
    R.equal(row(name, port).get(WAIT), want, "%s port %d: "
            "ibsnmpgwPortXmitWait moved by %d" % (name, port, ticks - before))
    rate = simlib.parse_vars(fab.snmp("snmpget", fab.v2(name), [
        "%s.%d" % (RATE, port)]).stdout)
    rate = next(iter(rate.values()))[1] if rate else 0
    R.equal(rate, 100000, "%s port %d: 4x EDR, 100,000 Mb/s" % (name, port))
    R.check(line and int(line[2]) >= 1000 and
            int(line[1]) == expect_ppm(ticks - before, rate, int(line[2])),
            "%s port %d: ratio = ticks x 512 bits / (rate x interval)" %
            (name, port), str(line))
    R.check(line and line[3] == "PortCounters", "... read from PortCounters "
            "(ibsim sets no CapabilityMask2)", str(line))
    return line


def main():
    # Two rounds of node03 ended: its ports have an interval.
    R.check(simlib.wait(lambda: row("node03", 1).get(INTERVAL, 0) > 0,
                        30, 0.2),
            "node03 port 1: a first interval", str(row("node03", 1)))
    r = row("node03", 1)
    R.check(r.get(SOURCE) == 1 and r.get(RATIO) == 0 and
            r.get(WAIT) == perf_wait("node03", 1),
            "a quiet port: ratio 0, the accumulator perfquery's count, "
            "source portCounters(1)", str(r))
    walk = simlib.parse_vars(fab.snmp("snmpbulkwalk", fab.v2("leaf01"), [
        "%s.%d" % (CONG, WAIT)]).stdout)
    R.equal(len(walk), 36, "leaf01: a row per port")

    # About 40 % of a 2 s interval at 5.12 ns a tick.
    line = check_port("node03", 1, 160000000)
    R.check(simlib.wait(lambda: len(crossings()) >= 1, 10, 0.1),
            "above 100,000 ppm: ibsnmpgwThresholdCrossed")
    vb = dict(crossings()[0]["varbinds"]) if crossings() else {}
    guid = [v for o, v in vb.items() if ".6.1.1.3." in o]
    text = [bytes.fromhex(v).decode() for o, v in vb.items()
            if ".6.1.1.8." in o]
    R.check(guid == ["%016x" % NAMES["node03"]] and text and
            text[0].startswith("PortXmitWait %s ppm of " % line[1]),
            "it names node03 and the ratio", str(vb))
    # The next interval is quiet again: ratio 0, no second notification.
    R.check(simlib.wait(lambda: row("node03", 1).get(RATIO) == 0, 10, 0.2),
            "the next interval: ratio 0")
    # A reset (a lower value set): counting goes on from it.
    base = row("node03", 1).get(WAIT)
    fab.cmd('PerformanceSet "node03"[1] PortCounters.PortXmitWait=1000')
    R.check(simlib.wait(lambda: row("node03", 1).get(WAIT) == base + 1000,
                        20, 0.2), "a reset to 1000: the accumulator "
            "adds 1000", str(row("node03", 1)))
    R.equal(len(crossings()), 1, "one notification for one crossing")
    # A switch's context: leaf01 port 3.
    check_port("leaf01", 3, 20000000)


simlib.run(main, fab, R)
