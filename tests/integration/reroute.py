#!/usr/bin/python3
"""A pulled cable on a node's route. The read that failed over it is
remembered for cache.ttl.error (docs/errors.md), so a second read fails
at once without a MAD; but the sweep that finds the node another route
forgets it, so the node answers again at once, not when the TTL ends.

SM events are off and the sweep interval long: the sweeps here are the
test's own (ctl sweep), so the failure happens before any sweep."""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
fab = simlib.Fabric(extra_yaml="discovery:\n  interval: 3600\n"
                    "events:\n  sm-events: false\n"
                    "cache:\n  ttl:\n    error: 300\n")
NAMES = simlib.read_name_map()
BY_GUID = {g: n for n, g in NAMES.items()}
OPER = ".1.3.6.1.2.1.2.2.1.8.1"        # node07's ifOperStatus.1 (PortInfo)


def route(name):
    m = re.search(r" route ([0-9,]+) ", fab.ctl("node", name).stdout)
    return m.group(1) if m else None


def peer(name, port):
    """The node and port at the other end of a cable, as `ctl node` has
    it."""
    m = re.search(r"^port +%d .* -> 0x([0-9a-f]+)\[(\d+)\]" % port,
                  fab.ctl("node", name).stdout, re.M)
    return (BY_GUID.get(int(m.group(1), 16)), int(m.group(2))) if m \
        else (None, None)


def get():
    t0 = time.time()
    out = fab.snmp("snmpget", fab.v2("node07"), [OPER], timeout=10)
    val = parse_vars(out.stdout).get(OPER, (None, None))[1]
    return val, "genError" in out.stdout + out.stderr, time.time() - t0


def main():
    before = route("node07")
    hops = [int(h) for h in before.split(",")] if before else []
    # Hop 1 leaves the gateway's own port; hop 2 is the first switch's
    # port towards the rest of the route (IBA 14.2.2).
    sw, _ = peer(fab.info["gw-host"], hops[1]) if len(hops) > 3 else \
        (None, None)
    R.check(sw is not None, "node07's route %s leaves %s's switch by "
            "port %s" % (before, fab.info["gw-host"],
                         hops[2] if len(hops) > 2 else "?"))
    if sw is None:
        return
    cable = '"%s"[%d]' % (sw, hops[2])
    fab.cmd("Unlink %s" % cable)
    try:
        fab.ctl("flush", "node07")      # the read must go to the fabric
        val, err, took = get()
        R.check(err, "with %s pulled, node07's PortInfo read fails "
                "(genErr after %.1f s)" % (cable, took), str(val))
        val, err, took = get()
        R.check(err and took < 1.0, "... and a second read fails at once, "
                "remembered for cache.ttl.error (%.2f s)" % took)
        fab.sweep()
        after = route("node07")
        R.check(after and after != before, "a sweep finds node07 another "
                "route (%s -> %s)" % (before, after))
        val, err, took = get()
        R.check(not err and val == 1, "... and the failure is forgotten: "
                "node07 answers up(1) at once, not %d s later (%.2f s)" %
                (300, took), str(val))
    finally:
        fab.cmd("ReLink %s" % cable)


simlib.run(main, fab, R)
