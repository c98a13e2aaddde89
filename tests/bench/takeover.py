#!/usr/bin/python3
"""(k) The pair's takeover time (issue 22): the bundled fabric started
with `ibsnmpgw-sim start --ha` (two gateways in their own network
namespaces, one keepalived each, the VIP); TAKEOVER_KILLS times (5
unless BENCH_TAKEOVER_KILLS says otherwise) `ibsnmpgw-sim ha-kill`
sends SIGKILL to the active gateway, and net-snmp's snmpget (v3
authPriv, 0.2 s timeout, no retry, one after the other) asks through
the VIP until one answers: the takeover time is from the kill to that
answer. Between two kills the killed gateway is started again in its
namespace and the next kill waits until it is the eligible standby and
the active is protected. Prints each time, and the median.

Not a test: run by tests/bench/run.sh (make bench, BENCH_ONLY=k).
Needs root, ip netns and keepalived."""

import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "integration"))
import simlib  # noqa: E402

KILLS = int(os.environ.get("BENCH_TAKEOVER_KILLS", "5"))
BOOTS = ".1.3.6.1.6.3.10.2.1.2.0"
LIMIT = 30          # s without an answer: the takeover failed


def sim(*args):
    return subprocess.run([simlib.SIM] + list(args), capture_output=True,
                          text=True, timeout=180)


def ready(fab):
    """One gateway active and protected, the other an eligible standby
    whose keepalived is BACKUP."""
    out = sim("ha-status", fab.dir).stdout
    m = re.search(r"^active: (gw[12])$", out, re.M)
    if not m:
        return False
    other = "gw2" if m.group(1) == "gw1" else "gw1"

    def ctl(gw):
        return subprocess.run(
            [os.environ["IBSNMPGW"], "-c", os.path.join(fab.dir, gw,
                                                        "ibsnmpgw.yaml"),
             "ctl", "ha", "status"], capture_output=True, text=True,
            timeout=30)
    with open(os.path.join(fab.dir, other, "keepalived.log"),
              errors="replace") as f:
        states = re.findall(r"Entering (\w+) STATE", f.read())
    return ("\nprotected" in ctl(m.group(1)).stdout and
            ctl(other).returncode == 0 and states and
            states[-1] == "BACKUP")


def main():
    if os.geteuid() != 0 or not shutil.which("keepalived"):
        print("(k)  skipped: needs root and keepalived")
        return 0
    os.environ.setdefault("IBSNMPGW", os.path.join(simlib.BUILD, "gateway",
                                                   "ibsnmpgw"))
    fab = simlib.Fabric(extra=["--ha"])
    times = []
    try:
        for i in range(KILLS):
            if not simlib.wait(lambda: ready(fab), 60, 0.2):
                print("(k)  the pair did not become ready:\n" +
                      sim("ha-status", fab.dir).stdout)
                return 1
            out = sim("ha-kill", fab.dir)
            info = dict(l.split(": ", 1) for l in out.stdout.splitlines()
                        if ": " in l)
            if "at-ms" not in info:
                print("(k)  ha-kill failed: " + out.stderr)
                return 1
            t_kill = int(info["at-ms"]) / 1000.0
            answered = None
            while time.time() < t_kill + LIMIT:
                if fab.snmp("snmpget", fab.v3(), [BOOTS], timeout=0.2,
                            retries=0).returncode == 0:
                    answered = time.time()
                    break
            if answered is None:
                print("(k)  no answer through the VIP %d s after killing "
                      "%s" % (LIMIT, info.get("killed")))
                return 1
            times.append(answered - t_kill)
            print("kill %d: %s killed, the VIP answered after %.2f s" %
                  (i + 1, info["killed"], times[-1]), flush=True)
            back = sim("ha-restart", fab.dir, info["killed"])
            if back.returncode != 0:
                print("(k)  %s did not start again: %s" %
                      (info["killed"], back.stderr))
                return 1
    finally:
        fab.stop()
    print("(k)  takeover (kill -9 of the active to the first v3 answer "
          "through the VIP), %d kills: median %.2f s, min %.2f s, max "
          "%.2f s (%s)" % (len(times), statistics.median(times), min(times),
                           max(times), ", ".join("%.2f" % t for t in times)))
    return 0


sys.exit(main())
