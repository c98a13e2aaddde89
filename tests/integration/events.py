#!/usr/bin/python3
"""The event stream on the simulated fabric: what the sweep sees when
links go down and come back (ibsim's Unlink/ReLink), as `ibsnmpgw ctl
events` lists it: a switch-to-switch link (both ends), a host's second
port (the switch side), a host's every port (node unreachable, then
reachable), once each; the same state again is not repeated."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
fab = simlib.Fabric(extra_yaml="polling:\n  - name: none\n    groups: []\n"
                    "    interval: 86400\n")
NAMES = simlib.read_name_map()


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


def new_events(before):
    got, out = events()
    return got[len(before):], got, out


def main():
    # The switch ports behind the links, from the topology's names.
    spine01, leaf01, leaf03 = (NAMES[n] for n in ("spine01", "leaf01",
                                                  "leaf03"))
    base, _ = events()
    R.equal(base, [], "a fresh fabric: no event")

    fab.cmd('Unlink "leaf01"[5]')
    fab.cmd('Unlink "node05"[1]')
    fab.sweep()
    new, seen, out = new_events(base)
    R.equal(sorted(new), sorted([
        ("sweep", "link-down", leaf01, 5), ("sweep", "link-down", spine01, 1),
        ("sweep", "link-down", leaf03, 1)]),
        "Unlink of a switch link and of a host port: link-down for both "
        "ends of the first and the switch side of the second")
    fab.sweep()
    again, seen2, out = new_events(seen)
    R.equal(again, [], "a second sweep adds nothing (the same state)")

    fab.cmd('ReLink "leaf01"[5]')
    fab.cmd('ReLink "node05"[1]')
    fab.sweep()
    new, seen3, out = new_events(seen2)
    R.equal(sorted(new), sorted([
        ("sweep", "link-up", leaf01, 5), ("sweep", "link-up", spine01, 1),
        ("sweep", "link-up", leaf03, 1)]), "ReLink: link-up for each")

    fab.cmd('Unlink "node08"')
    fab.sweep()
    new, seen4, out = new_events(seen3)
    R.check(("sweep", "node-unreachable", NAMES["node08"], 0) in new,
            "Unlink of every port of a host: node-unreachable", out)
    fab.cmd('ReLink "node08"')
    fab.sweep()
    new, seen5, out = new_events(seen4)
    R.check(("sweep", "node-reachable", NAMES["node08"], 0) in new,
            "... and node-reachable after ReLink", out)
    m = re.search(r"events posted (\d+) kept (\d+)", out)
    R.check(m and int(m.group(2)) == len(seen5),
            "ctl events lists every kept event", out)


simlib.run(main, fab, R)
