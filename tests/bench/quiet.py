#!/usr/bin/python3
"""(i) What a quiet fabric costs, and how fast the inventory follows a
change, on a ~10,000-node fat tree whose HCAs have port 2 uncabled
(issue 21, part 2):

  quiet     MADs the gateway sends in QUIET_SECONDS with the SM's Reports
            flowing and no counter polling (light checks only);
  safety    SMPs of one full sweep (the safety net, and `ctl sweep`);
  host      a host's only cable pulled, then plugged back: the time to
            the inventory showing it (ctl node), the MADs sent, and
            whether a sweep ran (proxy/reread.c: none);
  route     a leaf's uplink that the inventory's routes cross: the same,
            through the event sweep it asks for;
  no-SM     the host's cable again with events.sm-events false and
            discovery.interval 10 s: the next periodic sweep finds it.

Not a test: run by tests/bench/run.sh (make bench, BENCH_ONLY=i). Needs
a few minutes to bring the fabric up, twice."""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "integration"))
import simlib  # noqa: E402

QUIET_SECONDS = int(os.environ.get("BENCH_QUIET_SECONDS", "120"))
QUIET = ("polling:\n  - name: none\n    groups: []\n    interval: 86400\n"
         "events:\n  flap-changes: 0\n")
GEN = [os.path.join(simlib.TOP, "tests", "sim", "gen-topology"),
       "--spines", "16", "--leaves", "200", "--hosts-per-leaf", "49",
       "--hca-ports", "2", "--single-homed", "9800", "--uplinks-per-spine",
       "1", "--leaf-ports", "114", "--spine-ports", "200"]


def topology(work):
    topo, nmap = os.path.join(work, "quiet.topo"), os.path.join(
        work, "quiet.map")
    if not os.path.exists(topo):
        with open(topo, "w") as f:
            subprocess.run(GEN + ["--node-name-map", nmap], stdout=f,
                           check=True)
    return topo, nmap


def mad_sent(fab):
    m = re.search(r"^mad sent (\d+)", fab.ctl("stats").stdout, re.M)
    return int(m.group(1))


def sweeps(fab):
    return re.findall(r"sweep \d+ done: .* (\d+) SMPs.* in (\d+) ms",
                      fab.log())


def state(fab, name, port):
    out = fab.ctl("node", name).stdout
    m = re.search(r"^port +%d +lid +\d+ +state (\d+)" % port, out, re.M)
    reach = re.search(r" (reachable|unreachable) ", out.splitlines()[0])
    return (int(m.group(1)) if m else None,
            reach.group(1) if reach else None)


def timed(fab, cmd, cond, timeout=120):
    """Seconds from cmd to cond, the MADs sent meanwhile and the sweeps
    that ran."""
    n, m0 = len(sweeps(fab)), mad_sent(fab)
    t0 = time.time()
    fab.cmd(cmd)
    ok = simlib.wait(cond, timeout, 0.01)
    took = time.time() - t0
    time.sleep(1)       # what the change still costs after it shows
    return (took if ok else None, mad_sent(fab) - m0,
            len(sweeps(fab)) - n)


def show(what, r):
    took, mads, nsw = r
    print("(i) %-34s %s, %d MADs, %d sweeps" % (
        what, "%7.0f ms" % (took * 1000) if took is not None else
        "  not seen", mads, nsw))


def with_sm(topo, nmap):
    fab = simlib.Fabric(topo=topo, extra=["--sm-events",
                                          "--node-name-map", nmap],
                        extra_yaml=QUIET)
    try:
        simlib.wait(lambda: "sm-events up" in fab.ctl("stats").stdout, 120)
        first = sweeps(fab)[0]
        m0 = mad_sent(fab)
        time.sleep(QUIET_SECONDS)
        q = mad_sent(fab) - m0
        print("(i) quiet, SM Reports flowing:     %d MADs in %d s (%.1f a "
              "minute)" % (q, QUIET_SECONDS, q * 60.0 / QUIET_SECONDS))
        print("(i) first sweep:                   %s SMPs in %s ms" % first)
        fab.sweep(timeout=300)
        print("(i) safety (full) sweep:           %s SMPs in %s ms" %
              sweeps(fab)[-1])
        show("host Unlink (node0100[1])", timed(
            fab, 'Unlink "node0100"[1]',
            lambda: state(fab, "node0100", 1)[1] == "unreachable"))
        show("host ReLink: reachable", timed(
            fab, 'ReLink "node0100"[1]',
            lambda: state(fab, "node0100", 1)[1] == "reachable"))
        t0 = time.time()
        ok = simlib.wait(lambda: state(fab, "node0100", 1)[0] == 4, 120)
        print("(i) %-34s %s after that (when the SM has armed it)" % (
            "host ReLink: port Active", "%7.0f ms" % (
                (time.time() - t0) * 1000) if ok else "  not seen"))
        # leaf150's first uplink carries the routes to it and its hosts.
        show("uplink Unlink (leaf150[99], routes)", timed(
            fab, 'Unlink "leaf150"[99]',
            lambda: state(fab, "leaf150", 99)[0] == 1))
        show("uplink ReLink", timed(
            fab, 'ReLink "leaf150"[99]',
            lambda: state(fab, "leaf150", 99)[0] == 4))
        st = re.search(r"^reread .*", fab.ctl("stats").stdout, re.M)
        print("(i) ctl stats: %s" % (st.group(0) if st else "-"))
    finally:
        fab.stop()


def without_sm(topo, nmap):
    fab = simlib.Fabric(topo=topo, extra=["--node-name-map", nmap],
                        extra_yaml=QUIET + "  sm-events: false\n")
    try:
        path = os.path.join(fab.dir, "ibsnmpgw.yaml")
        text = open(path).read().replace("discovery:\n  interval: 60",
                                         "discovery:\n  interval: 10")
        open(path, "w").write(text)
        fab.reload()
        show("no SM events: host Unlink", timed(
            fab, 'Unlink "node0100"[1]',
            lambda: state(fab, "node0100", 1)[1] == "unreachable"))
    finally:
        fab.stop()


def main():
    simlib.skip_if_missing()
    work = os.environ.get("BENCH_WORK") or "/tmp"
    topo, nmap = topology(work)
    with_sm(topo, nmap)
    without_sm(topo, nmap)


if __name__ == "__main__":
    main()
