#!/usr/bin/python3
"""Corrupted MAD answers on the simulated fabric.

The fault shim (fault_shim.c, loaded before umad2sim) corrupts a share of
the SMP and PerfMgt answers the gateway reads: random payload octets,
all-ones or all-zero payloads (port counts, port numbers, LIDs, block
indexes at their extremes), status, method, DR hop fields, and answers
cut short anywhere. The TID is kept, so each one reaches its request.

While that goes on the gateway must keep running and answer every SNMP
request in bounded time (values or genErr, never silence), count what it
rejected, and keep its control socket working. Once the corruption stops,
one sweep must bring the inventory back to the true fabric.

CHAOS_SEED picks the corruption sequence (default: fixed; the sequence
of answers still varies with timing); CHAOS_ROUNDS the number of rounds;
CHAOS_DEBUG=1 logs at debug level and prints every genErr. Run it with
IBSNMPGW set to an ASan build to look for memory errors: the test fails
on a sanitizer report in the gateway's log."""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
# Failed reads are remembered for 1 s only, so that walk() can retry.
fab = simlib.Fabric(extra_yaml="cache:\n  ttl:\n    error: 1\n" + (
    "log:\n  level: debug\n" if os.environ.get("CHAOS_DEBUG") else ""))
NAMES = simlib.read_name_map()
SEED = os.environ.get("CHAOS_SEED", "20261122")
ROUNDS = int(os.environ.get("CHAOS_ROUNDS", "2"))
RATE = "30"                             # percent of answers corrupted
WALK_LIMIT = 20                         # seconds for one walk
MAX_VALUES = 3000                       # values read from one subtree
# A switch and a CA, and the MIB subtrees that read every attribute kind:
# SMA (NodeInfo, PortInfo, SwitchInfo, forwarding and VL tables, P_Keys,
# GUIDs...), IF-MIB and IB-IF-MIB (PerfMgt).
NODES = ["leaf02", "node03"]
TREES = [".1.3.6.1.3.117.3", ".1.3.6.1.2.1.2", ".1.3.6.1.2.1.31",
         ".1.3.6.1.3.117.2"]


def alive():
    try:
        os.kill(fab.pid(), 0)
        return True
    except OSError:
        return False


def walk(node, tree, limit=WALK_LIMIT):
    """Walk a subtree with GETBULK, going on past genErr: a failed read
    is retried (after the 1 s error memory) from the last OID answered.
    Stops after MAX_VALUES values (a switch's forwarding tables alone
    have tens of thousands). Returns (values, genErr answers, no-answer
    count, seconds, whether the walk got to its end)."""
    t0 = time.time()
    cur, vals, errs, silent = tree, {}, 0, 0
    while time.time() - t0 < limit and len(vals) < MAX_VALUES:
        out = fab.snmp("snmpbulkget", fab.v2(node) + ["-Cr50"], [cur],
                       timeout=10)
        if "Timeout" in out.stderr:
            silent += 1
            continue
        got = parse_vars(out.stdout)
        if not got:
            errs += 1
            if os.environ.get("CHAOS_DEBUG"):
                print("# genErr after %s: %s" % (cur, out.stderr.strip()
                                                 .replace("\n", " ")))
            time.sleep(1.1)
            continue
        inside = [k for k in got if k.startswith(tree + ".")]
        vals.update((k, got[k]) for k in inside)
        if len(inside) < len(got) or len(out.stdout.splitlines()) < 50:
            return vals, errs, silent, time.time() - t0, True
        cur = inside[-1]
    return vals, errs, silent, time.time() - t0, len(vals) >= MAX_VALUES


def chaos_round(n):
    # Every round reads the fabric afresh, through the corruption.
    fab.ctl("flush")
    if n > 0:
        try:
            # A corrupted PortInfo of the gateway's own port may say
            # the link is down: the sweep is then abandoned, which ends
            # it too (the inventory is kept).
            fab.sweep(timeout=60, abandoned_ok=True)
            swept = True
        except RuntimeError:
            swept = False
            # What the sweep was doing, for the CI log.
            for line in fab.log().splitlines()[-40:]:
                print("# " + line)
        R.check(swept, "round %d: a sweep over corrupted answers ends" % n)
    for node in NODES:
        for tree in TREES:
            vals, errs, silent, took, done = walk(node, tree)
            # Not asked: that the walk gets to the end. A garbled answer
            # that still decodes (a LID, a port state) stays in the
            # inventory until the next sweep, and reads that depend on it
            # fail until then.
            R.check(silent == 0,
                    "round %d: %s %s: every request answered (%.1f s, %d "
                    "values%s, %d genErr)" % (n, node, tree, took, len(vals),
                                              "" if done else " so far", errs),
                    fab.ctl("node", node).stdout[:1500])
            if not alive():
                return False
    ctl = fab.ctl("nodes")
    R.check(ctl.returncode == 0 and ctl.stdout.count("\n") > 0,
            "round %d: ctl nodes works" % n, ctl.stderr)
    return alive()


def malformed_and_errors():
    out = fab.ctl("stats").stdout
    m = re.search(r"errors (\d+) malformed (\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else (-1, -1)


def main():
    so = simlib.build_shim(fab)
    R.check(so is not None and so.endswith(".so"), "the fault shim builds",
            str(so))
    if so is None or not so.endswith(".so"):
        return
    fab.restart_gateway(preload=so, env={"SHIM_FUZZ": RATE,
                                         "SHIM_FUZZ_SEED": SEED})
    for n in range(ROUNDS):
        ok = chaos_round(n)
        R.check(ok, "round %d: the gateway is still running" % n,
                fab.log()[-1500:])
        if not ok:
            return
    errors, malformed = malformed_and_errors()
    R.check(errors + malformed > 0, "corrupted answers were rejected and "
            "counted (errors %d, malformed %d)" % (errors, malformed))

    # The corruption stops: one sweep restores the true fabric.
    fab.restart_gateway()
    fab.sweep(timeout=60)
    got = fab.sql("SELECT printf('0x%016x', guid), num_ports FROM nodes "
                  "WHERE reachable = 1 ORDER BY guid")
    want = []
    for name, guid in sorted(NAMES.items(), key=lambda kv: kv[1]):
        ports = 36 if not name.startswith("node") else 2
        want.append("0x%016x|%d" % (guid, ports))
    R.equal(got.splitlines(), want, "after a clean sweep the inventory "
            "has every node with its true port count")
    for name in NODES:
        out = fab.snmp("snmpget", fab.v2(name), [simlib.SMA + ".1.1.0"])
        desc = fab.diag(["smpquery", "-G", "nodedesc",
                         simlib.port_addr(name, 1, NAMES)]).stdout
        desc = simlib.parse_diag(desc).get("Node Description")
        got = parse_vars(out.stdout).get(simlib.SMA + ".1.1.0",
                                         (None, None))[1]
        R.check(desc and got == desc,
                "%s: ibSmaNodeString is smpquery's again" % name,
                out.stdout + str(desc))


if __name__ == "__main__":
    simlib.run(main, fab, R)
