#!/usr/bin/python3
"""Per-node error state on the simulated fabric: a node that stops
answering (ibsim's Error command drops every MAD to it) is put on hold
after a few unanswered requests, so further requests fail at once and
send no MAD; once it answers again a probe after the hold-down brings it
back. The M_Key verdicts behind the "bad-mkey" state need PortInfo
protection bits, which ibsim does not implement: tests/unit/test_health.c
covers them with PortInfo answers built by libibmad."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
HOLD = 4
# The first line continues the launcher's mad: section. Failed reads are
# remembered for 1 s only, so a second read of the same part during the
# hold reaches the hold, not that memory.
fab = simlib.Fabric(extra_yaml="  hold-down: %d\ncache:\n  ttl:\n"
                    "    error: 1\n" % HOLD)

SMA = simlib.SMA
IF = ".1.3.6.1.2.1.2.2.1"
# Objects of node07 that each need their own attribute read (PortInfo of
# port 1 and 2, NodeDescription).
COLD = [IF + ".2.1", IF + ".2.2", SMA + ".1.1.0"]


def get(oid, node="node07"):
    t0 = time.time()
    out = fab.snmp("snmpget", fab.v2(node), [oid], timeout=10)
    return out, time.time() - t0


def sent():
    return fab.stats().get(1)


def state(node="node07"):
    out = fab.ctl("node", node).stdout
    return [l for l in out.splitlines() if l.startswith("state:")]


def main():
    R.equal(state(), ["state: ok"], "ctl node shows state ok at first")
    fab.cmd('Error "node07" 100')
    try:
        errs = [get(oid)[0] for oid in COLD]
        R.check(all("genError" in o.stdout + o.stderr for o in errs),
                "requests to a silent node end in genErr",
                "".join(o.stdout + o.stderr for o in errs))
        log = fab.log()
        R.check("requests in a row unanswered; requests for it fail at "
                "once for %d s" % HOLD in log, "the hold is logged once "
                "with its reason and length", log[-600:])
        st = state()
        R.check(len(st) == 1 and st[0].startswith("state: silent"),
                "ctl node shows the node as silent", str(st))
        line = [l for l in fab.ctl("nodes").stdout.splitlines()
                if " node07 " in l]
        R.check(len(line) == 1 and line[0].endswith("state silent"),
                "ctl nodes shows the state too", str(line))
        time.sleep(1.2)     # the failed reads are forgotten
        before = sent()
        out, took = get(COLD[0])
        R.check("genError" in out.stdout + out.stderr and took < 0.3 and
                sent() == before, "while held, a read fails at once "
                "(%.2f s) and sends no MAD (%s -> %s)"
                % (took, before, sent()), out.stdout + out.stderr)
        other, _ = get(SMA + ".1.1.0", "node08")
        desc = parse_vars(other.stdout).get(SMA + ".1.1.0", (0, ""))[1]
        R.check(desc.startswith("node08"), "other nodes are not affected",
                other.stdout + other.stderr)
    finally:
        fab.cmd('Error "node07" 0')
    # After the hold-down one request probes; it is answered, so the
    # node is back.
    time.sleep(HOLD)
    out, _ = get(COLD[1])
    vals = parse_vars(out.stdout)
    R.check(COLD[1] in vals, "after the hold-down the probe is answered "
            "and the request succeeds", out.stdout + out.stderr)
    R.equal(state(), ["state: ok"], "the node is ok again")
    R.check("node 0x0002c90300bb0700 answers again after being silent" in
            fab.log(), "its return is logged")


if __name__ == "__main__":
    simlib.run(main, fab, R)
