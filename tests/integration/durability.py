#!/usr/bin/python3
"""Nothing counted is lost on a crash: the gateway is killed with SIGKILL
right after each kind of discontinuity (saturation, a reset from
outside, the gateway's own policy reset) and at 20 random moments while
its poller reads at 1 s, and each time the value it serves after the
restart is never below what it served before and equals the true count.
The SQLite store passes PRAGMA integrity_check after every kill."""

import os
import random
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
fab = simlib.Fabric(extra_yaml="cache:\n  ttl:\n    counters: 1\n"
                    "polling:\n"
                    "  - name: resetting\n"
                    "    match: {name: node05}\n"
                    "    groups: [counters]\n"
                    "    interval: 1\n"
                    "    ttl: 1\n"
                    "    reset-counters: true\n"
                    "  - name: fast\n"
                    "    match: {name: node03}\n"
                    "    groups: [counters]\n"
                    "    interval: 1\n"
                    "    ttl: 1\n")

IN_ERR = ".1.3.6.1.2.1.2.2.1.14.1"     # ifInErrors.1: PortRcvErrors + ...
MAX16 = 65535


def served(node="node03"):
    """ifInErrors.1 as the gateway serves it now (None if unanswered)."""
    for _ in range(20):
        out = fab.snmp("snmpget", fab.v2(node), [IN_ERR], timeout=2)
        v = parse_vars(out.stdout).get(IN_ERR)
        if v and v[0] == "Counter32":
            return v[1]
        time.sleep(0.25)
    return None


def wait_served(want, node="node03", limit=10):
    end = time.time() + limit
    v = None
    while time.time() < end:
        v = served(node)
        if v == want:
            return v
        time.sleep(0.2)
    return v


def perfset(value, node="node03"):
    fab.cmd('PerformanceSet "%s"[1] PortCounters.PortRcvErrors=%d' %
            (node, value))


def crash():
    """SIGKILL, PRAGMA integrity_check on what it left, restart."""
    fab.restart_gateway(wait=0, sig=signal.SIGKILL, env=None)
    return fab.sql("PRAGMA integrity_check")


def check_crash(what, node, want):
    v = wait_served(want, node)
    R.equal(v, want, "%s: served %s before the kill" % (what, want))
    integrity = crash()
    R.equal(integrity, "ok", "%s: integrity_check after SIGKILL" % what)
    after = served(node)
    R.equal(after, want, "%s: served the same after the restart" % what)


def main():
    served()        # node03 read once: the base before saturation
    # Saturation, then a reset from outside and 10 more: the issue's
    # example (base + 65545 before the kill, 10 after it, in the past).
    perfset(MAX16)
    check_crash("saturated", "node03", MAX16)
    perfset(10)
    check_crash("reset from outside after saturation", "node03",
                MAX16 + 10)
    # A reset (perfquery -R, or a reboot) and a few counts.
    addr = simlib.port_addr("node03")
    out = fab.diag(["perfquery", "-R", "-G", addr, "1"])
    R.equal(out.returncode, 0, "perfquery -R resets node03 port 1")
    perfset(5)      # below the last reading (10): a reset, however fast
    check_crash("reset by perfquery -R", "node03", MAX16 + 15)
    # The gateway's own reset (policy reset-counters past 3/4 of the
    # range), then 5 more.
    perfset(60000, "node05")
    want = wait_served(60000, "node05")
    R.equal(want, 60000, "node05 counts to 60000")
    # The policy's reset (logged at debug level only): node05's
    # PortRcvErrors back at 0.
    n05 = simlib.port_addr("node05")
    simlib.wait(lambda: simlib.parse_diag(fab.diag(
        ["perfquery", "-G", n05, "1"]).stdout).get("PortRcvErrors") == "0",
        20, 0.25)
    perfset(5, "node05")
    check_crash("after the gateway's own reset", "node05", 60005)

    # 20 kills at random moments while the poller runs at 1 s.
    rnd = random.Random(4242)
    raw, total = 5, MAX16 + 15
    top = total
    fails = []
    for k in range(20):
        if rnd.random() < 0.25 and raw > 0:
            new = rnd.randint(0, raw - 1)    # went down: reset or reboot
            total += new
        else:
            new = raw + rnd.randint(1, 500)
            total += new - raw
        raw = new
        perfset(raw)
        v = wait_served(total, limit=5)
        top = max(top, v or 0)
        time.sleep(rnd.uniform(0, 1.5))      # the poller keeps reading
        integrity = crash()
        after = served()
        if integrity != "ok" or after is None or after < top or \
                after != total:
            fails.append((k, v, after, total, integrity))
    R.check(not fails, "20 random kills: never below what was served, "
            "always the true count, integrity ok", fails)
    st = fab.ctl("stats").stdout
    R.check("counters commits" in st, "ctl stats shows the counter "
            "commits", st)


simlib.run(main, fab, R)
