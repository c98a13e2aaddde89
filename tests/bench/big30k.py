#!/usr/bin/python3
"""(j) The largest fabric the launcher's ibsim routes: a ~30,000-node
fat tree (ibsim's switches have a LinearFDBCap of 30,720: every LID
fits), run with the launcher's default policies for BIG_SECONDS (600)
after its first sweep (issue 21, part 3). Goals: the gateway keeps up,
using on average less than half a core; no MAD times out because of its
own load (timeouts are printed: ibsim itself drops none); RSS under
192 MB.

Optional, not in a plain `make bench`: BENCH_ONLY=j. It needs several
minutes to come up (opensm routes 30,000 LIDs under the simulator)."""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "integration"))
import simlib  # noqa: E402

SECONDS = int(os.environ.get("BIG_SECONDS", "600"))
# 16 spines of 250 ports, 250 leaves of 134 ports (118 hosts each):
# 29,500 single-port HCAs and 266 switches, LIDs up to 29,801.
GEN = [os.path.join(simlib.TOP, "tests", "sim", "gen-topology"),
       "--spines", "16", "--leaves", "250", "--hosts-per-leaf", "118",
       "--hca-ports", "1", "--uplinks-per-spine", "1", "--leaf-ports",
       "134", "--spine-ports", "250"]


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024


def stat(fab, pat):
    m = re.search(pat, fab.ctl("stats").stdout, re.M)
    return int(m.group(1)) if m else -1


def main():
    simlib.skip_if_missing()
    work = os.environ.get("BENCH_WORK") or "/tmp"
    topo, nmap = os.path.join(work, "big30k.topo"), os.path.join(
        work, "big30k.map")
    if not os.path.exists(topo):
        with open(topo, "w") as f:
            subprocess.run(GEN + ["--node-name-map", nmap], stdout=f,
                           check=True)
    t0 = time.time()
    fab = simlib.Fabric(topo=topo, extra=["--node-name-map", nmap])
    try:
        pid = fab.pid()
        up = time.time() - t0
        first = re.search(r"sweep 1 done: (.*)", fab.log())
        print("(j) up in %.0f s; first sweep: %s" % (
            up, first.group(1) if first else "?"))
        c0, w0 = cpu_s(pid), time.time()
        to0 = stat(fab, r"^mad sent \d+ answered \d+ timeouts (\d+)")
        sent0 = stat(fab, r"^mad sent (\d+)")
        peak = 0.0
        while time.time() - w0 < SECONDS:
            peak = max(peak, rss_mb(pid))
            time.sleep(5)
        cpu = (cpu_s(pid) - c0) / (time.time() - w0)
        to = stat(fab, r"^mad sent \d+ answered \d+ timeouts (\d+)") - to0
        sent = stat(fab, r"^mad sent (\d+)") - sent0
        sw = re.findall(r"sweep \d+ done: .*", fab.log())
        nodes = re.search(r"(\d+) nodes", sw[-1]).group(1) if sw else "?"
        print("(j) %s nodes, %d s with the default policies: CPU %.2f "
              "cores (goal < 0.5: %s); %d MADs sent, %d timed out; RSS "
              "peak %.0f MB (goal < 192: %s); %d sweeps" % (
                  nodes, SECONDS, cpu, "met" if cpu < 0.5 else "NOT met",
                  sent, to, peak, "met" if peak < 192 else "NOT met",
                  len(sw)))
    finally:
        fab.stop()


if __name__ == "__main__":
    main()
