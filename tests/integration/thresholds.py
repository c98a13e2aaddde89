#!/usr/bin/python3
"""Polling thresholds as events and notifications: a counter rate that
crosses a policy's threshold (ibsim PerformanceSet) is one event and
one notification, however long it stays above; it is sent again only
after the rate fell back. A threshold on LocalLinkIntegrityErrors stands
for IBA trap 129 and is sent as IB-SMA-MIB ibSmaLinkIntegrityThresReached
with ibSmaNodeLid and ibSmaNodePortNum; others as IBSNMPGW-MIB
ibsnmpgwThresholdCrossed."""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
SINK = simlib.TrapSink("public")
fab = simlib.Fabric(
    extra=["--notify", "udp:127.0.0.1:%d" % SINK.port],
    extra_yaml="cache:\n  ttl:\n    counters: 1\n"
    "polling:\n"
    "  - name: watched\n"
    "    match: {name: node03}\n"
    "    groups: [counters]\n"
    "    interval: 1\n"
    "    ttl: 1\n"
    "    thresholds:\n"
    "      - counter: SymbolErrorCounter\n"
    "        per-minute: 100\n"
    "      - counter: LocalLinkIntegrityErrors\n"
    "        per-minute: 1\n"
    "  - name: rest\n"
    "    groups: []\n"
    "    interval: 86400\n")
NAMES = simlib.read_name_map()
TRAP_OID = ".1.3.6.1.6.3.1.1.4.1.0"
CROSSED = ".1.3.6.1.4.1.8072.9999.9999.117.7.0.4"
TRAP129 = ".1.3.6.1.3.117.3.2.0.2"
SMA = ".1.3.6.1.3.117.3.1.1"
# node03 port 1: LID 101 + (3 - 1) * 2
LID = 105


def kinds():
    return [dict(d["varbinds"]).get(TRAP_OID) for d in SINK.notes()]


def wait_count(oid, n, timeout=10):
    end = time.time() + timeout
    while time.time() < end and kinds().count(oid) < n:
        time.sleep(0.1)
    return kinds().count(oid)


def last_poll(name):
    return simlib.last_poll(fab, NAMES[name])


def main():
    # The rates' baseline: two of node03's polling rounds ended (their
    # end times one second apart), however long the start took.
    seen = set()
    R.check(simlib.wait(lambda: seen.add(last_poll("node03")) or
                        len(seen - {0}) >= 2, 30, 0.3),
            "node03 polled twice: the rates' baseline (%s)" % sorted(seen))
    fab.cmd('PerformanceSet "node03"[1] PortCounters.SymbolErrorCounter=500')
    R.equal(wait_count(CROSSED, 1), 1, "SymbolErrorCounter +500 in a "
            "second: one ibsnmpgwThresholdCrossed")
    # Two more of node03's rounds, at rate 0: below again, no more.
    first = last_poll("node03")
    seen = {first}
    simlib.wait(lambda: seen.add(last_poll("node03")) or
                len(seen - {0, first}) >= 2, 30, 0.3)
    R.equal(kinds().count(CROSSED), 1, "... and no more while the counter "
            "stands still")
    d = [d for d in SINK.notes()
         if dict(d["varbinds"]).get(TRAP_OID) == CROSSED][0]
    vb = dict(d["varbinds"])
    guid = [v for o, v in vb.items() if ".6.1.1.3." in o]
    text = [bytes.fromhex(v).decode() for o, v in vb.items()
            if ".6.1.1.8." in o]
    R.check(guid == ["%016x" % NAMES["node03"]] and text and
            text[0].startswith("SymbolErrorCounter "),
            "it names node03 and the counter", str(vb))
    fab.cmd('PerformanceSet "node03"[1] PortCounters.SymbolErrorCounter='
            '1000')
    R.equal(wait_count(CROSSED, 2), 2, "a second burst after the rate fell "
            "back: a second notification")

    fab.cmd('PerformanceSet "node03"[1] '
            'PortCounters.LocalLinkIntegrityErrors=9')
    R.equal(wait_count(TRAP129, 1), 1, "LocalLinkIntegrityErrors: one "
            "IB-SMA-MIB ibSmaLinkIntegrityThresReached (trap 129)")
    d = [d for d in SINK.notes()
         if dict(d["varbinds"]).get(TRAP_OID) == TRAP129]
    vb = dict(d[0]["varbinds"]) if d else {}
    R.check(vb.get(SMA + ".14.0") == LID and vb.get(SMA + ".15.0") == 1,
            "... with ibSmaNodeLid.0 = node03 port 1's LID (%d) and "
            "ibSmaNodePortNum.0 = 1" % LID, str(vb))
    ev = fab.ctl("events").stdout
    R.equal(len(re.findall(r" poller threshold port 1 ", ev)), 3,
            "ctl events: the three crossings, source poller")


simlib.run(main, fab, R)
