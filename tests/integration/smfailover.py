#!/usr/bin/python3
"""The master SM dies and the standby takes over (issue 23, part 1):
the launcher's kill-sm sends SIGKILL to the master opensm; the standby
(--standby-sm, polling the master's SMInfo every second) becomes master
with another LID. At the production defaults (discovery.interval 300 s,
so no light check in the test's time), the gateway reads its own port's
MasterSMLID every events.master-check-ms (2.5 s), and within 5 s of the
takeover (docs/events.md, "Convergence") it subscribes there, sends
ibsnmpgwSmMasterChanged and sweeps once for what happened while no SM
reported. Checks that a link that went
down in the gap is notified all the same, that a later Unlink is
reported through the new master within a second, that SA queries go to
the new master and are answered, and prints the time from the standby's
takeover to the first event delivered through it. Then the new master
dies too: with no SM left, two unanswered checks bring sweeps back to
discovery.interval."""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
SINK = simlib.TrapSink("public")
fab = simlib.Fabric(extra=["--sm-events", "--standby-sm", "node04",
                           "--notify", "udp:127.0.0.1:%d" % SINK.port],
                    extra_yaml="polling:\n  - name: none\n    groups: []\n"
                    "    interval: 86400\n"
                    "discovery:\n  interval: 300\n  safety-interval: 3600\n"
                    "  event-delay-ms: 200\n  event-min-gap: 1\n")
NAMES = simlib.read_name_map()
BASE = ".1.3.6.1.4.1.8072.9999.9999.117"
LINK_DOWN, LINK_UP = ".1.3.6.1.6.3.1.1.5.3", ".1.3.6.1.6.3.1.1.5.4"
MASTER_CHANGED = BASE + ".7.0.3"


def notes(since=0):
    return simlib.gw_notes(SINK, since)


def downs(since):
    return sorted((g, p) for t, g, p, _ in notes(since) if t == LINK_DOWN)


def wait(cond, timeout):
    return simlib.wait(cond, timeout, 0.05)


def sm_events():
    m = re.search(r"^sm-events (\S+) sm-lid (\d+)", fab.ctl("stats").stdout,
                  re.M)
    return (m.group(1), int(m.group(2))) if m else (None, 0)


def sa():
    m = re.search(r"^sa sm-lid (\d+) queries (\d+) answers (\d+)",
                  fab.ctl("stats").stdout, re.M)
    return tuple(int(x) for x in m.groups()) if m else (0, 0, 0)


def driver():
    m = re.search(r"^sweep-driver (\S+)", fab.ctl("stats").stdout, re.M)
    return m.group(1) if m else None


def standby_master():
    with open(os.path.join(fab.dir, "opensm-standby.log")) as f:
        return "Entering MASTER state" in f.read()


def master_checks():
    m = re.search(r"master-checks (\d+)", fab.ctl("stats").stdout)
    return int(m.group(1)) if m else -1


def main():
    R.check(wait(lambda: sm_events()[0] == "up", 30),
            "subscribed at the master SM", fab.ctl("stats").stdout)
    c0, t0 = master_checks(), time.time()
    old_lid = sm_events()[1]
    n = len(SINK.notes())
    out = subprocess.run([simlib.SIM, "kill-sm", fab.dir],
                         capture_output=True, text=True, timeout=60)
    R.check(out.returncode == 0, "kill-sm: the master opensm is killed",
            out.stdout + out.stderr)
    # In the gap no SM reports anything.
    fab.cmd('Unlink "leaf02"[6]')
    ok = wait(standby_master, 60)
    took_over = time.time()
    R.check(ok, "the standby SM becomes master", "")
    # One reading per try: up at the old LID, then subscribing at the
    # new one, read by two calls, is not yet subscribed there.
    seen = [None, 0]

    def subscribed_anew():
        seen[:] = sm_events()
        return seen[0] == "up" and seen[1] not in (0, old_lid)
    ok = wait(subscribed_anew, 30)
    took = time.time() - took_over
    new_lid = seen[1]
    R.check(ok and took < 5.0, "the gateway subscribes at the new master "
            "(LID %d, was %d) %.1f s after the takeover (bound: 5 s at the "
            "production defaults), with no periodic sweep" % (
                new_lid, old_lid, took), fab.ctl("stats").stdout)
    c1, t1 = master_checks(), time.time()
    R.check(c1 > c0 and c1 - c0 <= (t1 - t0) + 1, "the master check "
            "cost %d SMPs in %.0f s (bound: one a second)" % (
                c1 - c0, t1 - t0), fab.ctl("stats").stdout)
    leaf02, spine02 = NAMES["leaf02"], NAMES["spine02"]
    ok = wait(lambda: len([1 for t, g, p, _ in notes(n) if t == LINK_DOWN
                           and g == leaf02 and p == 6]) == 1, 30)
    R.check(ok, "the link that went down in the gap is notified "
            "(linkDown of leaf02[6])", str(notes(n)) +
            fab.ctl("events", 10).stdout)
    R.check(wait(lambda: any(t == MASTER_CHANGED for t, _, _, _ in
                             notes(n)), 30),
            "ibsnmpgwSmMasterChanged is sent",
            str(notes(n)) + fab.ctl("events", 10).stdout)
    # Reports flow through the new master.
    m = len(SINK.notes())
    t0 = time.time()
    fab.cmd('Unlink "leaf01"[5]')
    ok = wait(lambda: len(downs(m)) >= 1, 10)
    first = time.time()         # within the 50 ms of wait()'s polling
    R.check(ok and first - t0 < 1.5, "an Unlink after the failover is "
            "linkDown through the new master in %.0f ms" % (
                (first - t0) * 1000), str(notes(m)))
    print("# takeover to the first event delivered through the new "
          "master: %.1f s (subscription after the master check, then the "
          "Unlink's Report)" % (first - took_over))
    # SA queries go to the new master and are answered (a sweep's: no
    # light check comes within discovery.interval here).
    s0 = sa()
    fab.sweep()
    ok = wait(lambda: (lambda s: s[0] == new_lid and s[2] > s0[2])(sa()), 30)
    R.check(ok, "SA queries go to the new master (LID %d) and are "
            "answered %s -> %s" % (new_lid, s0, sa()), fab.ctl("stats").stdout)
    fab.cmd('ReLink "leaf01"[5]')
    fab.cmd('ReLink "leaf02"[6]')
    # The new master dies too, and no SM is left: two unanswered checks
    # and the gateway sweeps at discovery.interval again (10 s from here
    # on, so that two light checks fit in the test).
    fab.reconfigure("discovery:\n  interval: 300\n",
                    "discovery:\n  interval: 10\n")
    out = subprocess.run([simlib.SIM, "kill-sm", fab.dir],
                         capture_output=True, text=True, timeout=60)
    t0 = time.time()
    ok = wait(lambda: driver() == "interval", 60)
    R.check(out.returncode == 0 and ok, "no SM left: sweeps at "
            "discovery.interval again after %.0f s (two light checks the "
            "SA did not answer)" % (time.time() - t0),
            out.stderr + fab.ctl("stats").stdout)


simlib.run(main, fab, R)
