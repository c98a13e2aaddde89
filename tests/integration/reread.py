#!/usr/bin/python3
"""SM Reports followed into the inventory without a sweep
(proxy/reread.c), on a fabric shaped like a cluster
(tests/sim/topologies/cluster.topo: hosts with one cabled port of two).

A host's only cable pulled: the host is unreachable in the inventory
(node-unreachable posted) and its switch port Down, with no sweep;
plugged back: reachable through that port, node-reachable posted, the
port Active once the SM has armed it, no sweep. A spine-leaf cable that
no route of the inventory crosses: both ends Down and unlinked, then
linked and Active again, no sweep. leaf03's uplink that the routes
cross: the routes of leaf03 and its hosts go around it, no sweep, and a
host answers through its new route. Afterwards a full sweep finds the
inventory as the Reports left it: the same ports, states and links, and
routes that work (the sweep's own are breadth first again)."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
TOPO = os.path.join(simlib.TOP, "tests", "sim", "topologies",
                    "cluster.topo")
fab = simlib.Fabric(topo=TOPO, extra=["--sm-events"],
                    extra_yaml="polling:\n  - name: none\n    groups: []\n"
                    "    interval: 86400\n"
                    "discovery:\n  interval: 60\n  safety-interval: 600\n"
                    "  event-delay-ms: 200\n  event-min-gap: 1\n")
wait = simlib.wait
# Switch names are their whole descriptions here: by GUID.
LEAF03, SPINE = "0x0002c90300aa0103", {"spine01": "0x0002c90300aa0001",
                                       "spine02": "0x0002c90300aa0002"}


def sweeps():
    return len(re.findall(r"sweep \d+ done: ", fab.log()))


def node(name):
    return fab.ctl("node", name).stdout


def reachable(name):
    m = re.search(r"^0x[0-9a-f]+ .*? (reachable|unreachable) ", node(name),
                  re.M)
    return m and m.group(1) == "reachable"


def port(name, p):
    """(state, phys, remote 'guid[port]' or None) of a port."""
    m = re.search(r"^port +%d +lid +\d+ +state (\d+) phys (\d+) .*?"
                  r"(?:-> (0x[0-9a-f]+\[\d+\]))?(?: route|$)" % p,
                  node(name), re.M)
    return (int(m.group(1)), int(m.group(2)), m.group(3)) if m else None


def route(name):
    m = re.search(r" route (\S+) ", node(name).splitlines()[0])
    return m.group(1) if m else None


def events(kind):
    return len(re.findall(r" %s " % kind, fab.ctl("events", 200).stdout))


def reread():
    m = re.search(r"^reread readings (\d+) changes (\d+) smps (\d+) "
                  r"sweeps (\d+)", fab.ctl("stats").stdout, re.M)
    return tuple(int(x) for x in m.groups()) if m else None


def view():
    """Every node's ports and reachability, as ctl node shows them."""
    out = {}
    for line in fab.ctl("nodes").stdout.splitlines():
        m = re.match(r"^(0x[0-9a-f]{16})\s", line)
        if not m:
            continue
        text = node(m.group(1))
        # Routes aside: rerouted ones work, the sweep's are breadth
        # first again.
        keep = [re.sub(r" route .*", "", text.splitlines()[0])]
        keep += [re.sub(r" route .*", "", l) for l in text.splitlines()
                 if l.startswith("port ")]
        out[m.group(1)] = keep
    return out


def no_sweep(cmd, what, fn, timeout=10):
    n, c0 = sweeps(), reread()
    fab.cmd(cmd)
    ok = wait(fn, timeout)
    c1 = reread()
    R.check(ok and sweeps() == n and c1[1] > c0[1] and c1[3] == c0[3],
            "%s, with no sweep (%d readings, %d SMPs of its own)" % (
                what, c1[0] - c0[0], c1[2] - c0[2]),
            "ok %s sweeps %d->%d reread %s->%s\n%s%s" % (
                ok, n, sweeps(), c0, c1,
                fab.ctl("events", 10).stdout,
                # why a sweep ran (ten-run loop, 102ea0e: one did here)
                "".join(l + "\n" for l in fab.log().splitlines()
                        if re.search(r"sweep \d+ done: |discover: ", l))))


def main():
    R.check(wait(lambda: "sm-events up" in fab.ctl("stats").stdout, 20),
            "the gateway is subscribed at the SM", fab.ctl("stats").stdout)
    host, leaf_port = "cn0007", (LEAF03, 1)
    R.check(reachable(host) and port(*leaf_port)[0] == 4,
            "cn0007 is reachable through leaf03[1]", node(host))
    gone, back = events("node-unreachable"), events("node-reachable")

    no_sweep('Unlink "node07"[1]',
             "Unlink node07[1]: cn0007 unreachable and leaf03[1] Down "
             "in the inventory",
             lambda: not reachable(host) and port(*leaf_port)[0] == 1 and
             port(*leaf_port)[2] is None)
    R.equal(events("node-unreachable"), gone + 1, "... node-unreachable "
            "posted once")

    no_sweep('ReLink "node07"[1]',
             "ReLink node07[1]: cn0007 reachable through it, both ends "
             "Active and linked",
             lambda: reachable(host) and port(host, 1)[0] == 4 and
             port(*leaf_port)[0] == 4 and port(*leaf_port)[2] is not None)
    R.equal(events("node-reachable"), back + 1, "... node-reachable posted "
            "once")

    # leaf03's route leaves leaf01 towards one spine; the other spine's
    # cable to leaf03 carries no route of the inventory.
    hops = route(LEAF03).split(",")
    via = "spine01" if int(hops[2]) in (7, 8) else "spine02"
    other = "spine02" if via == "spine01" else "spine01"
    sp, lp = 5, 7 if other == "spine01" else 9     # leaf03's first cable
    osw = SPINE[other]
    no_sweep('Unlink "leaf03"[%d]' % lp,
             "Unlink leaf03[%d] (to %s, on no route): both ends Down and "
             "unlinked" % (lp, other),
             lambda: port(LEAF03, lp)[0] == 1 and
             port(LEAF03, lp)[2] is None and
             port(osw, sp)[0] == 1 and port(osw, sp)[2] is None)
    no_sweep('ReLink "leaf03"[%d]' % lp,
             "ReLink leaf03[%d]: both ends Active and linked again" % lp,
             lambda: port(LEAF03, lp)[0] == 4 and
             port(osw, sp)[0] == 4 and port(LEAF03, lp)[2] is not None
             and port(osw, sp)[2] is not None)

    # leaf03's own uplink to the spine its route crosses: the routes of
    # leaf03 and its hosts go around it, no sweep, and cn0007 answers a
    # read that needs a MAD through its new route.
    up = 7 if via == "spine01" else 9
    r0 = route(host)
    no_sweep('Unlink "leaf03"[%d]' % up,
             "Unlink leaf03[%d] (to %s, on the routes): leaf03 and its hosts "
             "routed around it" % (up, via),
             lambda: port(LEAF03, up)[0] == 1 and route(host) != r0 and
             route(host).startswith(route(LEAF03) + ","))
    fab.ctl("flush", host)
    out = fab.snmp("snmpget", fab.v2(host), [".1.3.6.1.2.1.2.2.1.8.1"])
    R.check("INTEGER: 1" in out.stdout, "... cn0007 answers ifOperStatus.1 "
            "through %s (was %s)" % (route(host), r0),
            out.stdout + out.stderr + node(host))
    def both_active():
        """leaf03[up] and the spine's end Active and linked: the SM
        arms them in its sweep, and a port read not yet Active is read
        again 1, 2, 4, 8 and 16 s later (proxy/reread.c)."""
        near = port(LEAF03, up)
        if near is None or near[0] != 4 or near[2] is None:
            return False
        g, p = re.match(r"(0x[0-9a-f]+)\[(\d+)\]", near[2]).groups()
        far = port(g, int(p))
        return far is not None and far[0] == 4 and far[2] is not None
    no_sweep('ReLink "leaf03"[%d]' % up,
             "ReLink leaf03[%d]: both ends Active and linked again" % up,
             both_active, timeout=30)

    before = view()
    fab.sweep()
    after = view()
    diff = [(g, a, b) for g in before for a, b in
            zip(before[g], after.get(g, [])) if a != b]
    R.check(before.keys() == after.keys() and not diff,
            "a full sweep afterwards finds the inventory as the Reports "
            "left it (%d nodes, every port's state and link)" %
            len(before), "\n".join("%s\n  %s\n  %s" % d for d in diff[:8]))


simlib.run(main, fab, R)
