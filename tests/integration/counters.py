#!/usr/bin/python3
"""Port counters through IF-MIB on the simulated fabric: ibsim's console
drives a counter to just below saturation and past it, perfquery -R
resets it from outside, the gateway restarts mid-run, a link goes down.
Each time the accumulated count must equal the true count, Counter64 must
never go back, Counter32 must be Counter64 modulo 2^32, and
ifCounterDiscontinuityTime must move exactly when continuity is lost."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
# The first line continues the launcher's mad: section: node03 is cut off
# for a while below, and its hold-down must not outlast the test's wait.
fab = simlib.Fabric(extra_yaml="  hold-down: 1\n"
                    "cache:\n  ttl:\n    counters: 1\n    portinfo: 1\n"
                    "polling:\n"
                    "  - name: resetting\n"
                    "    match: {name: node05}\n"
                    "    groups: [counters]\n"
                    "    interval: 1\n"
                    "    ttl: 1\n"
                    "    reset-counters: true\n"
                    "  - name: fast\n"
                    "    groups: [counters, portinfo]\n"
                    "    interval: 1\n"
                    "    ttl: 1\n"
                    "    thresholds:\n"
                    "      - counter: SymbolErrorCounter\n"
                    "        per-minute: 10\n")

IF = ".1.3.6.1.2.1.2.2.1"
IFX = ".1.3.6.1.2.1.31.1.1.1"
HC_IN, IN_OCT = IFX + ".6.1", IF + ".10.1"
IN_ERR, DISC = IF + ".14.1", IFX + ".19.1"
SETTLE = 2.5    # > polling interval + TTL
NAMES = simlib.read_name_map()


def get(node, *oids):
    out = fab.snmp("snmpget", fab.v2(node), list(oids), timeout=5)
    vals = parse_vars(out.stdout)
    return [vals.get(o, (None, None))[1] for o in oids]


def last_poll(name):
    return simlib.last_poll(fab, NAMES[name])


def polled_twice(name):
    return simlib.polled_twice(fab, NAMES[name])


def perfset(field, value, node="node03", port=1,
            attr="PortCounters"):
    fab.cmd('PerformanceSet "%s"[%d] %s.%s=%d' % (node, port, attr, field,
                                                  value))
    time.sleep(SETTLE)


def main():
    hc_seen = []

    def sample():
        hc, err, disc = get("node03", HC_IN, IN_ERR, DISC)
        hc_seen.append(hc)
        return err, disc

    # node03's first round: the accumulators' base.
    simlib.wait(lambda: last_poll("node03") != 0, 30, 0.3)
    perfset("PortRcvErrors", 100)
    err, d0 = sample()
    R.equal(err, 100, "first reading: ifInErrors is the count so far")

    perfset("PortRcvErrors", 65530)
    err, d1 = sample()
    R.equal(err, 65530, "growth is counted")
    R.equal(d1, d0, "no discontinuity while the counter just grows")

    perfset("PortRcvErrors", 65535)
    err, d2 = sample()
    R.equal(err, 65535, "16-bit PortRcvErrors reaching all ones is counted")
    R.check(d2 > d1, "saturation moves ifCounterDiscontinuityTime "
            "(%s -> %s)" % (d1, d2))

    out = fab.diag(["perfquery", "-R", "105", "1"])
    R.check(out.returncode == 0, "perfquery -R resets the port from outside",
            out.stderr)
    time.sleep(SETTLE)
    err, d3 = sample()
    R.equal(err, 65535, "the external reset loses nothing already counted")
    R.check(d3 > d2, "the reset moves ifCounterDiscontinuityTime")

    perfset("PortRcvErrors", 7)
    err, d4 = sample()
    R.equal(err, 65542, "counting goes on from the new base (65535 + 7)")
    R.equal(d4, d3, "no discontinuity after the reset is absorbed")

    # 64-bit: push PortCountersExtended.PortRcvData past 2^32 octets.
    perfset("PortRcvData", 1 << 31, attr="PortCountersExtended")
    hc, c32 = get("node03", HC_IN, IN_OCT)
    x = simlib.parse_diag(fab.diag(["perfquery", "-x", "105", "1"]).stdout)
    fc = simlib.parse_diag(fab.diag(["perfquery", "--flowctlcounters",
                                     "105", "1"]).stdout)
    true = None
    if "PortRcvData" in x and "PortRcvPkts" in x:
        true = 4 * int(x["PortRcvData"]) + 4 * int(x["PortRcvPkts"]) + \
            8 * int(fc.get("PortRcvFlowPkts", 0))
    # The poller's reading may be a second older than perfquery's: a few
    # MADs' worth of octets apart, where a wrong factor would be 2^33.
    R.check(hc is not None and hc > (1 << 32) and true is not None and
            abs(hc - true) < (1 << 20),
            "ifHCInOctets passes 2^32 and is 4 x PortRcvData + 4 x "
            "PortRcvPkts + 8 x PortRcvFlowPkts (%s vs perfquery %s)" %
            (hc, true))
    R.equal(c32, hc % (1 << 32) if hc is not None else None,
            "ifInOctets is ifHCInOctets modulo 2^32 (Counter32 wraps)")

    # Restart: accumulators come back from SQLite.
    hc_before, err_before = get("node03", HC_IN, IN_ERR)
    fab.restart_gateway(0)
    # Until the new gateway reads node03 (its inventory is loaded).
    simlib.wait(lambda: None not in get("node03", HC_IN, IN_ERR), 30, 0.3)
    hc_after, err_after, disc_after, up = get(
        "node03", HC_IN, IN_ERR, DISC, ".1.3.6.1.2.1.1.3.0")
    R.equal(err_after, err_before, "ifInErrors survives a gateway restart")
    R.check(hc_after is not None and hc_before is not None and
            hc_after >= hc_before, "ifHCInOctets survives a restart and "
            "does not go back (%s -> %s)" % (hc_before, hc_after))
    R.check(disc_after is not None and up is not None and disc_after <= up,
            "after a restart ifCounterDiscontinuityTime is within the new "
            "sysUpTime (%s <= %s)" % (disc_after, up))
    perfset("PortRcvErrors", 9)
    err, _ = sample()
    R.equal(err, 65544, "counting continues across the restart (+2)")

    # Link down on the switch side: oper status, last change and
    # discontinuity move; counters do not go back.
    lc0, dd0 = get("leaf02", IF + ".9.1", IFX + ".19.1")
    fab.cmd('Unlink "node03"[1]')
    try:
        time.sleep(SETTLE)
        oper, lc1, dd1 = get("leaf02", IF + ".8.1", IF + ".9.1",
                             IFX + ".19.1")
        R.equal(oper, 2, "leaf02 port 1 is down(2) after the unlink")
        R.check(lc1 is not None and lc0 is not None and lc1 > lc0,
                "ifLastChange moved (%s -> %s)" % (lc0, lc1))
        R.check(dd1 is not None and dd0 is not None and dd1 > dd0,
                "a link going down moves ifCounterDiscontinuityTime")
    finally:
        fab.cmd('ReLink "node03"[1]')
    # node03 is reached through that port: until opensm has brought it
    # up, its hold-down and the error TTL are over and it reads again.
    simlib.wait(lambda: get("node03", HC_IN)[0] is not None, 30, 0.5)
    sample()
    R.check(None not in hc_seen and
            all(b >= a for a, b in zip(hc_seen, hc_seen[1:])),
            "ifHCInOctets never went back: %s" %
            hc_seen)

    # A policy that may reset clears PortRcvErrors before it saturates
    # and loses nothing.
    perfset("PortRcvErrors", 60000, node="node05")
    pq = {}

    def cleared():
        pq.clear()
        pq.update(simlib.parse_diag(fab.diag(["perfquery", "109",
                                              "1"]).stdout))
        return pq.get("PortRcvErrors") == "0"
    simlib.wait(cleared, 20, 0.25)
    err5, = get("node05", IN_ERR)
    R.equal(pq.get("PortRcvErrors"), "0",
            "policy reset-counters cleared node05's PortRcvErrors")
    R.equal(err5, 60000, "... and ifInErrors still counts all 60000")
    perfset("PortRcvErrors", 10, node="node05")
    err5, = get("node05", IN_ERR)
    R.equal(err5, 60010, "counting goes on after the gateway's own reset")

    # IB-IF-MIB ibIfPortStatTable against perfquery (node04 port 1).
    sets = [("PortCounters", "LinkErrorRecoveryCounter", 3),
            ("PortCounters", "LinkDownedCounter", 2),
            ("PortCounters", "VL15Dropped", 11),
            ("PortCounters", "LocalLinkIntegrityErrors", 5),
            ("PortRcvErrorDetails", "PortMalformedPacketErrors", 13),
            ("PortXmitDiscardDetails", "PortNeighborMTUDiscards", 17)]
    for attr, field, val in sets:
        fab.cmd('PerformanceSet "node04"[1] %s.%s=%d' % (attr, field, val))
    time.sleep(SETTLE)
    pq = {}
    for opt in ([], ["-E"], ["-D"]):
        pq.update(simlib.parse_diag(fab.diag(["perfquery"] + opt +
                                             ["107", "1"]).stdout))
    fields = ["SymbolErrorCounter", "LinkErrorRecoveryCounter",
              "LinkDownedCounter", "PortLocalPhysicalErrors",
              "PortMalformedPktErrors", "PortRcvRemotePhysicalErrors",
              "PortRcvConstraintErrors", "PortInactiveDiscards",
              "PortNeighborMTUDiscards", "PortSwLifetimeLimitDiscards",
              "PortSwHOQLifetimeLimitDiscards", "LocalLinkIntegrityErrors",
              "ExcessiveBufferOverrunErrors", "VL15Dropped"]
    oids = [".1.3.6.1.3.117.2.1.1.1.%d.1" % c for c in range(2, 16)]
    got = get("node04", *oids)
    R.equal(sorted(set(fields) - set(pq)), [], "perfquery, -E and -D name "
            "all 14 counters")
    want = [int(pq[f]) if f in pq else None for f in fields]
    R.equal(got, want, "ibIfPortStatTable (14 counters) matches perfquery, "
            "-E and -D")
    injected = {"LinkErrorRecoveryCounter": 3, "LinkDownedCounter": 2,
                "VL15Dropped": 11, "LocalLinkIntegrityErrors": 5,
                "PortMalformedPktErrors": 13, "PortNeighborMTUDiscards": 17}
    R.equal([got[fields.index(f)] for f in injected], list(injected.values()),
            "... including the values set through ibsim")

    # SIGHUP with a broken file: errors as file:line, old policies stay.
    conf = os.path.join(fab.dir, "ibsnmpgw.yaml")
    good = open(conf).read()
    with open(conf, "w") as f:
        f.write(good + "  - name: broken\n    interval: soon\n")
    fab.reload()
    log = fab.log()
    R.check("'interval' must be an integer" in log and
            "the running configuration stays" in log and
            "ibsnmpgw.yaml:" in log, "SIGHUP with a bad file logs file:line "
            "errors and keeps the running configuration")
    with open(conf, "w") as f:
        f.write(good)
    fab.reload()
    R.check("reload: %s: 2 polling policies" % conf in fab.log(),
            "SIGHUP with the good file reloads its 2 policies")

    # A threshold crossing logs a line (SymbolErrorCounter > 10/min).
    # The reload restarted the policies: a round of node03's after it
    # first, as the rate's baseline.
    polled_twice("node03")
    perfset("SymbolErrorCounter", 500)
    simlib.wait(lambda: "threshold: node 0x0002c90300bb0300" in fab.log(),
                15, 0.1)
    R.check("threshold: node 0x0002c90300bb0300" in fab.log(),
            "a SymbolErrorCounter rate above the policy's threshold is "
            "logged")


if __name__ == "__main__":
    simlib.run(main, fab, R)
