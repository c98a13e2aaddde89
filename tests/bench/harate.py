#!/usr/bin/python3
"""(l) The HA pair's replication write rate at ~10,000 nodes (issue 22):
two gateways on the (i) fabric (10,016 nodes, HCA port 2 uncabled), A
active and B standby over the loopback replication link (docs/ha.md),
the launcher's default policies (every port's counters polled every
60 s). After B's snapshot, the bytes A queues for B (`ctl stats`: ha
... bytes-out) over HARATE_SECONDS (180), as bytes a second and per
polled port; and the snapshot's own size.

Optional: BENCH_ONLY=l. Not a test."""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "integration"))
import simlib  # noqa: E402
from quiet import topology  # noqa: E402

SECONDS = int(os.environ.get("HARATE_SECONDS", "180"))
ENGINE = "0x80001f888001020304050607080910"
BIN = os.environ.get("IBSNMPGW", os.path.join(simlib.BUILD, "gateway",
                                              "ibsnmpgw"))


class Gw:
    def __init__(self, fab, name, host, me, peer, key):
        self.fab, self.name, self.host = fab, name, host
        self.dir = os.path.join(fab.dir, name)
        os.makedirs(self.dir, exist_ok=True)
        self.yaml = os.path.join(self.dir, "ibsnmpgw.yaml")
        base = open(os.path.join(fab.dir, "ibsnmpgw.yaml")).read()
        base = re.sub(r'(?m)^  listen: .*$', '  listen: ["udp:127.0.0.1:'
                      '%d"]' % simlib.free_udp_port(), base, count=1)
        base = base.replace("snmp:\n", "snmp:\n  engine-id: %s\n" % ENGINE,
                            1)
        base = re.sub(r'  path: "[^"]*"', '  path: "%s/inventory.db"\n'
                      '  control-socket: "%s/ctl.sock"' % (self.dir,
                                                          self.dir), base)
        with open(self.yaml, "w") as f:
            f.write(base + "ha:\n  role: auto\n  listen: 127.0.0.1:%d\n"
                    "  peer: 127.0.0.1:%d\n  key-file: %s\n  name: gw%s\n"
                    % (me, peer, key, name))
        env = dict(fab.diag_env, SIM_HOST=host)
        self.log = open(os.path.join(self.dir, "ibsnmpgw.log"), "a")
        self.proc = subprocess.Popen([BIN, "-f", "-c", self.yaml], env=env,
                                     cwd=self.dir, stdout=self.log,
                                     stderr=self.log)
        with open(os.path.join(fab.dir, "pids"), "a") as f:
            f.write("ibsnmpgw %d\n" % self.proc.pid)

    def ctl(self, *args):
        return subprocess.run([BIN, "-c", self.yaml, "ctl"] + list(args),
                              capture_output=True, text=True,
                              timeout=60).stdout

    def ha(self, key):
        m = re.search(r"^ha .*\b%s (\d+)" % key, self.ctl("stats"), re.M)
        return int(m.group(1)) if m else 0


def main():
    simlib.skip_if_missing()
    work = os.environ.get("BENCH_WORK") or "/tmp"
    topo, nmap = topology(work)
    fab = simlib.Fabric(topo=topo, extra=["--no-gateway",
                                          "--node-name-map", nmap])
    gws = []
    try:
        key = os.path.join(fab.dir, "ha.key")
        with open(key, "w") as f:
            f.write("0123456789abcdef0123456789abcdef\n")
        os.chmod(key, 0o600)
        pa, pb = simlib.free_udp_port(), simlib.free_udp_port()
        a = Gw(fab, "A", fab.info["gw-host"], pa, pb, key)
        gws.append(a)
        simlib.wait(lambda: "sweep 1 done" in open(a.log.name).read(), 300)
        a.ctl("ha", "master")
        b = Gw(fab, "B", "node0200", pb, pa, key)
        gws.append(b)
        t0 = time.time()
        ok = simlib.wait(lambda: "eligible yes" in b.ctl("ha", "status"),
                         600, 0.5)
        snap = a.ha("bytes-out")
        print("(l) B's snapshot: %s in %.0f s, %d bytes" % (
            "complete" if ok else "NOT complete", time.time() - t0, snap))
        # One polling round first, so every port's accumulators exist.
        time.sleep(65)
        b0, f0, t1 = a.ha("bytes-out"), a.ha("frames-out"), time.time()
        time.sleep(SECONDS)
        db, df = a.ha("bytes-out") - b0, a.ha("frames-out") - f0
        dt = time.time() - t1
        m = re.search(r"^counters commits (\d+) rows (\d+)",
                      a.ctl("stats"), re.M)
        print("(l) replication at %s nodes, default policies: %.0f bytes/s "
              "(%.1f kB/s), %.1f frames/s over %d s; A's counter rows %s; "
              "%s" % (re.search(r"sweep \d+ done: (\d+) nodes",
                                open(a.log.name).read()).group(1), db / dt, db / dt / 1024, df / dt, dt,
                      m.group(2) if m else "?",
                      "B eligible" if "eligible yes" in b.ctl("ha",
                                                              "status")
                      else "B NOT eligible"))
    finally:
        for g in gws:
            g.proc.kill()
            g.proc.wait(30)
        fab.stop()


if __name__ == "__main__":
    main()
