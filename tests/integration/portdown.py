#!/usr/bin/python3
"""The gateway's own IB port goes away and comes back.

A fault shim makes the umad device fail (reads and writes EIO, opening
ENODEV) while a file exists, as an HCA reset or a driver reload does.
While it is gone the gateway keeps answering from its cache and
inventory, marks nodes stale rather than unreachable, fails what needs
the fabric at once, logs one line for the change and counts it in
IBSNMPGW-MIB and ctl stats. When the device is back it reopens the port
by itself (bounded backoff), sweeps, and answers from the fabric again."""

import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
fab = simlib.Fabric(extra_yaml="cache:\n  ttl:\n    portinfo: 1\n")

OPER = ".1.3.6.1.2.1.2.2.1.8"          # ifOperStatus (PortInfo)
FAILURES = simlib.STATS + ".17.0"      # ibsnmpgwMadPortFailures
STATE = simlib.STATS + ".18.0"         # ibsnmpgwMadPortState


def get(node, oid, timeout=3):
    out = fab.snmp("snmpget", fab.v2(node), [oid], timeout=timeout)
    return out, parse_vars(out.stdout).get(oid)


def wait_log(pattern, since, limit=20):
    end = time.time() + limit
    while time.time() < end:
        if re.search(pattern, fab.log()[since:]):
            return True
        time.sleep(0.1)
    return False


def main():
    shim = simlib.build_shim(fab)
    if shim is None or not os.path.exists(shim):
        R.check(False, "fault shim builds", shim)
        return
    down = os.path.join(fab.dir, "port-gone")
    fab.restart_gateway(preload=shim, env={"SHIM_DOWN_FILE": down})
    _, before = get("leaf01", OPER + ".1")
    R.equal(before and before[0], "INTEGER", "leaf01 ifOperStatus.1 read")
    R.equal(fab.counter(STATE), 1, "ibsnmpgwMadPortState is up(1)")

    mark = len(fab.log())
    open(down, "w").close()
    os.kill(fab.pid(), signal.SIGUSR1)   # a sweep meets the dead port
    R.check(wait_log(r"port \d+ is down", mark, 10),
            "one log line says the port is down", fab.log()[mark:][-800:])
    time.sleep(1.2)                      # leaf01's PortInfo TTL is over

    # Answers from the cache: leaf01's PortInfo, expired, as last read.
    out, v = get("leaf01", OPER + ".1")
    R.equal(v, before, "leaf01 ifOperStatus.1 answered from the cache",)
    # What was never read fails at once, with no hang.
    t = time.time()
    out, v = get("spine02", OPER + ".7", timeout=5)
    R.check(time.time() - t < 3 and "genError" in out.stdout + out.stderr,
            "spine02 ifOperStatus.7, never read, fails at once",
            out.stdout + out.stderr)
    for k in range(30):                 # a burst of misses: no log flood
        get("spine01", OPER + ".%d" % (k + 1), timeout=2)
    # Sweeps do not mark anything unreachable while we are cut off.
    os.kill(fab.pid(), signal.SIGUSR1)
    time.sleep(1)
    R.equal(fab.sql("SELECT count(*) FROM nodes WHERE reachable = 0"), "0",
            "no node is marked unreachable in the inventory")
    nodes = fab.ctl("nodes").stdout
    R.check(nodes and all(" stale " in l for l in nodes.splitlines()),
            "ctl nodes shows every node stale", nodes[:400])
    st = fab.ctl("stats").stdout
    R.check("port down failures 1" in st, "ctl stats: port down, 1 failure",
            st)
    m = re.search(r"stale (\d+)", st)
    R.check(m is not None and int(m.group(1)) > 0,
            "ctl stats counts the stale cache answers", st)
    R.equal(fab.counter(FAILURES), 1, "ibsnmpgwMadPortFailures is 1")
    R.equal(fab.counter(STATE), 2, "ibsnmpgwMadPortState is down(2)")
    log = fab.log()[mark:]
    R.equal(len(re.findall(r"port \d+ is down", log)), 1,
            "the change is logged once")
    R.check(log.count("\n") <= 8, "no flood of log lines while down "
            "(%d lines)" % log.count("\n"), log[-1500:])

    # The device comes back: reopened, swept, answering.
    mark = len(fab.log())
    os.unlink(down)
    R.check(wait_log(r"port \d+ is up again", mark, 70),
            "the port is reopened by itself", fab.log()[mark:][-800:])
    R.check(wait_log(r"sweep \d+ done: \d+ nodes, \d+ links, 0 unreachable",
                     mark, 20), "a sweep runs by itself and finds every "
            "node", fab.log()[mark:][-800:])
    out, v = get("spine02", OPER + ".7", timeout=5)
    R.equal(v and v[0], "INTEGER", "spine02 ifOperStatus.7 is read now")
    st = fab.ctl("stats").stdout
    R.check("port up failures 1 reopens 1" in st, "ctl stats: port up, "
            "1 reopen", st)
    R.equal(fab.counter(STATE), 1, "ibsnmpgwMadPortState is up(1) again")
    nodes = fab.ctl("nodes").stdout
    R.check(" stale " not in nodes and " reachable " in nodes,
            "ctl nodes shows the nodes reachable again", nodes[:400])

    # A pulled cable at our own port: the device stays open (and under
    # umad2sim its sysfs still says up), the sweep reaches only us, and
    # our own PortInfo says the link is down: nothing is marked
    # unreachable.
    host = fab.info["gw-host"]
    mark = len(fab.log())
    fab.cmd('Unlink "%s"[1]' % host)
    os.kill(fab.pid(), signal.SIGUSR1)
    R.check(wait_log("sweep abandoned", mark, 10),
            "a sweep with our own link down is abandoned",
            fab.log()[mark:][-600:])
    R.equal(fab.sql("SELECT count(*) FROM nodes WHERE reachable = 0"), "0",
            "and no node is marked unreachable")
    fab.cmd('ReLink "%s"[1]' % host)
    mark = len(fab.log())
    fab.sweep()
    R.check(re.search(r"sweep \d+ done: 14 nodes, \d+ links, 0 unreachable",
                      fab.log()[mark:]) is not None,
            "with the link back, a sweep finds every node",
            fab.log()[mark:][-600:])


simlib.run(main, fab, R)
