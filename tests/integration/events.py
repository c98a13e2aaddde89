#!/usr/bin/python3
"""The event stream on the simulated fabric: what the sweep sees when
links go down and come back (ibsim's Unlink/ReLink), as `ibsnmpgw ctl
events` lists it: a switch-to-switch link (both ends), a host's second
port (the switch side), a host's every port (node unreachable, then
reachable), once each; the same state again is not repeated. The
launcher's --notify target sends each event once as a v2c trap to a
pysnmp receiver: IF-MIB linkDown/linkUp with ifIndex = port, and
IBSNMPGW-MIB's node notifications, each with the node's GUID."""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
SINK = simlib.TrapSink("public")
fab = simlib.Fabric(extra=["--notify", "udp:127.0.0.1:%d" % SINK.port],
                    extra_yaml="polling:\n  - name: none\n    groups: []\n"
                    "    interval: 86400\n")
BASE = ".1.3.6.1.4.1.8072.9999.9999.117"
TRAPS = {".1.3.6.1.6.3.1.1.5.3": "link-down", ".1.3.6.1.6.3.1.1.5.4":
         "link-up", BASE + ".7.0.1": "node-unreachable",
         BASE + ".7.0.2": "node-reachable",
         ".1.3.6.1.6.3.1.1.5.1": "gateway-start"}
NAMES = simlib.read_name_map()
# The fabric health checks' notifications (11..15) and events follow
# from these (a node not answering is a port verdict): their own tests
# check them (docs/health.md).
HEALTH_TRAPS = [BASE + ".7.0.%d" % n for n in range(11, 16)]
HEALTH_EVENTS = r"^\S+ \d+ \w+ (link-degraded|link-restored|" \
    r"topology-mismatch|topology-match|port-health) "


def events():
    out = fab.ctl("events").stdout
    got = []
    for line in out.splitlines()[1:]:
        m = re.match(r"^\S+ (\d+) (\w+) ([\w-]+) port (\d+) node "
                     r"0x([0-9a-f]+)", line)
        if m:
            got.append((m.group(2), m.group(3), int(m.group(5), 16),
                        int(m.group(4))))
    return got, out


def notes():
    """The receiver's notifications as (type, node GUID, port)."""
    got = []
    for d in SINK.notes():
        vb = dict(d["varbinds"])
        if vb.get(".1.3.6.1.6.3.1.1.4.1.0") in HEALTH_TRAPS:
            continue
        kind = TRAPS.get(vb.get(".1.3.6.1.6.3.1.1.4.1.0"), "other")
        guid = [v for o, v in vb.items() if o.startswith(BASE + ".6.1.1.3.")]
        port = [v for o, v in vb.items() if o.startswith(BASE + ".6.1.1.5.")]
        got.append((kind, int(guid[0], 16) if guid else 0,
                    port[0] if port else 0))
    return got


def check_notes(before, new, what):
    """The notifications since before are exactly the new events."""
    want = sorted((t, g, p) for _, t, g, p in new)
    time.sleep(0.5)
    end = time.time() + 5
    while time.time() < end and len(notes()) < before + len(want):
        time.sleep(0.1)
    R.equal(sorted(notes()[before:]), want, what)
    return len(notes())


def unsourced(evts):
    """Events as (type, node GUID, port), whoever read the change."""
    return sorted((t, g, p) for _, t, g, p in evts)


def new_events(before):
    got, out = events()
    return got[len(before):], got, out


def main():
    # The switch ports behind the links, from the topology's names.
    spine01, leaf01, leaf03 = (NAMES[n] for n in ("spine01", "leaf01",
                                                  "leaf03"))
    base, out = events()
    R.equal(base, [], "a fresh fabric: no event about a node")
    R.check(re.search(r"^\S+ 1 gateway gateway-start port 0 ", out, re.M),
            "... and the gateway's start as the first event", out)
    n = check_notes(0, [("gateway", "gateway-start", 0, 0)],
                    "--notify: the receiver got coldStart")

    fab.cmd('Unlink "leaf01"[5]')
    fab.cmd('Unlink "node05"[1]')
    fab.sweep()
    new, seen, out = new_events(base)
    R.equal(sorted(new), sorted([
        ("sweep", "link-down", leaf01, 5), ("sweep", "link-down", spine01, 1),
        ("sweep", "link-down", leaf03, 1)]),
        "Unlink of a switch link and of a host port: link-down for both "
        "ends of the first and the switch side of the second")
    n = check_notes(n, new, "... sent once each as IF-MIB linkDown "
                    "(ifIndex = port, ibsnmpgwEventNodeGuid)")
    fab.sweep()
    again, seen2, out = new_events(seen)
    R.equal(again, [], "a second sweep adds nothing (the same state)")
    n = check_notes(n, [], "... and sends nothing")

    fab.cmd('ReLink "leaf01"[5]')
    fab.cmd('ReLink "node05"[1]')
    fab.sweep()
    new, seen3, out = new_events(seen2)
    # A port gone Down is watched (proxy/watch.c: read again 1, 2, 4 s
    # later): the watch's read may see it back before the sweep does.
    R.equal(unsourced(new), sorted([
        ("link-up", leaf01, 5), ("link-up", spine01, 1),
        ("link-up", leaf03, 1)]), "ReLink: link-up for each (by the "
        "sweep or the port watch)")
    n = check_notes(n, new, "... sent once each as linkUp")

    fab.cmd('Unlink "node08"')
    fab.sweep()
    new, seen4, out = new_events(seen3)
    R.check(("sweep", "node-unreachable", NAMES["node08"], 0) in new,
            "Unlink of every port of a host: node-unreachable", out)
    n = check_notes(n, new, "... sent as ibsnmpgwNodeUnreachable (and "
                    "linkDown of the switch ports)")
    fab.cmd('ReLink "node08"')
    fab.sweep()
    new, seen5, out = new_events(seen4)
    R.check(("node-reachable", NAMES["node08"], 0) in unsourced(new),
            "... and node-reachable after ReLink", out)
    n = check_notes(n, new, "... sent as ibsnmpgwNodeReachable (and "
                    "linkUp)")
    m = re.search(r"events posted (\d+) kept (\d+)", out)
    health = len(re.findall(HEALTH_EVENTS, out, re.M))
    R.check(m and int(m.group(2)) == len(seen5) + 1 + health,
            "ctl events lists every kept event (these, the start and %d "
            "health events)" % health, out)


simlib.run(main, fab, R)
