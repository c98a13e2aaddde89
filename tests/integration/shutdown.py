#!/usr/bin/python3
"""The gateway stops cleanly while MADs are on their way: SIGTERM in the
middle of a sweep and of a full counter poll, again and again. Answers
and Reports that arrive after the engine has stopped must not crash the
process at exit (umad2sim's receiver thread dereferences the data of a
closed fd: the gateway leaves the port to the kernel, proxy_mad_exiting).
The gateway runs as this script's child, so its exit status is known:
0 each time, and (in the sanitizer stage) no report."""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
fab = simlib.Fabric(extra=["--sm-events"])


def main():
    codes = []
    for i in range(8):
        fab.restart_gateway(wait=0.2)
        p = fab.gw_proc
        os.kill(p.pid, signal.SIGUSR1 if i % 2 else signal.SIGUSR2)
        time.sleep(0.002 * i)
        os.kill(p.pid, signal.SIGTERM)
        try:
            codes.append(p.wait(30))
        except Exception:  # noqa: BLE001 - a hang is the failure
            p.kill()
            codes.append("hung")
    R.check(all(c == 0 for c in codes), "8 stops in the middle of a sweep "
            "or a counter poll: exit status 0 each time %s" % codes)
    fab.restart_gateway(wait=0.5)
    out = fab.snmp("snmpget", fab.v2("leaf01"), [simlib.SMA + ".1.1.0"],
                   timeout=5, retries=1)
    R.check(out.returncode == 0 and "STRING" in out.stdout,
            "the next start answers as before", out.stderr)


simlib.run(main, fab, R)
