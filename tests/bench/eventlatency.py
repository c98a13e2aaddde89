#!/usr/bin/python3
"""(g) Event latency: from ibsim's Unlink of a switch-to-switch link to
the IF-MIB linkDown at a notification receiver (pysnmp), for both of the
gateway's sources, next to a stock tool:

  SM     --sm-events: opensm's Trap 128 Report, then the switch's ports;
  sweep  events.sm-events false, discovery.interval 10 s (the shortest
         allowed): the next sweep's difference with the inventory;
  stock  `smpquery portinfo` of the same port once a second, as a cron
         or monitoring script would, until it reads Down.

Goals (issue 12): under 1 s through the SM, under one sweep interval
without it. ROUNDS Unlink/ReLink rounds each; prints the median and the
worst. Not a test: run by tests/bench/run.sh (make bench)."""

import os
import random
import re
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "integration"))
import simlib  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_EVENT_ROUNDS", "5"))
LINK_DOWN = ".1.3.6.1.6.3.1.1.5.3"
TRAP_OID = ".1.3.6.1.6.3.1.1.4.1.0"
GUIDS = ".1.3.6.1.4.1.8072.9999.9999.117.6.1.1.3."
# No damping: every round flaps the same port.
QUIET = "polling:\n  - name: none\n    groups: []\n    interval: 86400\n"
EVENTS = "events:\n  flap-changes: 0\n"


def downs(sink, since, guid):
    return [d for d in sink.notes()[since:]
            if dict(d["varbinds"]).get(TRAP_OID) == LINK_DOWN and
            any(o.startswith(GUIDS) and int(v, 16) == guid
                for o, v in d["varbinds"])]


def measure(fab, sink, guid, timeout, phase=0.0):
    """Seconds from Unlink "leaf01"[5] to leaf01's linkDown, per round;
    the Unlink comes phase * U(0, 1) seconds after the last sweep (the
    sweep path's latency depends on where in the interval it falls)."""
    got = []
    rnd = random.Random(7)
    for _ in range(ROUNDS):
        time.sleep(phase * rnd.random())
        n = len(sink.notes())
        p, t0 = fab.cmd_begin('Unlink "leaf01"[5]')
        while time.time() - t0 < timeout and not downs(sink, n, guid):
            time.sleep(0.005)
        if downs(sink, n, guid):
            got.append(time.time() - t0)
        fab.cmd_end(p)
        fab.cmd('ReLink "leaf01"[5]')
        time.sleep(2)
        fab.sweep(timeout=60)   # back to Active in the inventory
    return got


def stock(fab):
    """smpquery portinfo LID 3 port 5 once a second: seconds from the
    Unlink to the first reading of Down."""
    got = []
    for _ in range(ROUNDS):
        seen = threading.Event()
        stop = threading.Event()
        asked = threading.Event()
        at = [0.0]

        def poll():
            # The poller runs on its own clock, started before the
            # Unlink at a random phase, as a cron job would be.
            while not stop.is_set():
                out = fab.diag(["smpquery", "portinfo", "3", "5"])
                if asked.is_set() and \
                        re.search(r"LinkState:\.+Down", out.stdout):
                    at[0] = time.time()
                    seen.set()
                    return
                stop.wait(1.0)
        th = threading.Thread(target=poll)
        th.start()
        time.sleep(0.37 * (len(got) + 1) % 1.0)
        asked.set()
        p, t0 = fab.cmd_begin('Unlink "leaf01"[5]')
        seen.wait(10)
        fab.cmd_end(p)
        if seen.is_set():
            got.append(at[0] - t0)
        stop.set()
        th.join()
        fab.cmd('ReLink "leaf01"[5]')
        time.sleep(2)
    return got


def show(name, got, goal):
    if not got:
        print("(g) %-6s no linkDown arrived" % name)
        return False
    med, worst = statistics.median(got), max(got)
    ok = goal is None or worst < goal
    print("(g) %-6s median %7.0f ms  worst %7.0f ms  (%d rounds)%s" % (
        name, med * 1000, worst * 1000, len(got),
        "" if goal is None else "  goal < %.0f ms: %s" % (
            goal * 1000, "met" if ok else "NOT met")))
    return ok


def main():
    simlib.skip_if_missing()
    names = simlib.read_name_map()
    leaf01 = names["leaf01"]
    ok = True

    sink = simlib.TrapSink("public")
    fab = simlib.Fabric(extra=["--sm-events", "--notify",
                               "udp:127.0.0.1:%d" % sink.port],
                        extra_yaml=QUIET + EVENTS)
    try:
        ok &= show("SM", measure(fab, sink, leaf01, 5), 1.0)
        st = stock(fab)
    finally:
        fab.stop()
        sink.stop()
    show("stock", st, None)

    sink = simlib.TrapSink("public")
    fab = simlib.Fabric(extra=["--notify", "udp:127.0.0.1:%d" % sink.port],
                        extra_yaml=QUIET + EVENTS + "  sm-events: false\n")
    try:
        path = os.path.join(fab.dir, "ibsnmpgw.yaml")
        text = open(path).read().replace("discovery:\n  interval: 60",
                                         "discovery:\n  interval: 10")
        open(path, "w").write(text)
        fab.reload()
        ok &= show("sweep", measure(fab, sink, leaf01, 25, 10.0), 10.0)
    finally:
        fab.stop()
        sink.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
