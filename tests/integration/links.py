#!/usr/bin/python3
"""Degraded links (docs/health.md): on the cluster-shaped fabric, whose
host links train at 1x to 12x and SDR to HDR, health.expect says that
links of switches run at 4x. ibsnmpgwDegradedLinkTable in the fabric
context then holds exactly the links ibnetdiscover shows narrower than
4x, each notified once as ibsnmpgwLinkDegraded. A width an admin
narrows with ibportstate adds a row and a notification, widening it
again takes both back (ibsnmpgwLinkRestored). Without the expectation
(a reload), the default rule (the best width and speed both ends
support and enable) finds no link short on ibsim, whose ports enable
what they trained at: every row goes, each with ibsnmpgwLinkRestored.
A restart keeps the rows' times and notifies nothing again. A wrong
expectation that degrades every link at once is a burst: events.burst
of them notified one by one, the rest summed up in one notification."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
TOPO = os.path.join(simlib.TOP, "tests", "sim", "topologies",
                    "cluster.topo")
EXPECT = ("health:\n  expect:\n    - nodes: {type: switch}\n"
          "      width: 4x\n")
R = simlib.Report()
SINK = simlib.TrapSink("public")
BURST = "events:\n  burst: 100\n"
fab = simlib.Fabric(topo=TOPO, extra=[
    "--sm-events", "--notify", "udp:127.0.0.1:%d" % SINK.port],
    extra_yaml=EXPECT + BURST)
TABLE = simlib.GW_BASE + ".9.2.1"       # ibsnmpgwDegradedLinkEntry
DEGRADED = simlib.GW_BASE + ".7.0.11"
RESTORED = simlib.GW_BASE + ".7.0.12"
SPEEDS = ["", "SDR", "DDR", "QDR", "FDR", "EDR", "HDR", "NDR", "XDR"]


def oracle_links():
    """{frozenset({(guid, port), (guid, port)}): (lanes, speed)} of
    every link ibnetdiscover finds, and the switch GUIDs."""
    out = fab.diag(["ibnetdiscover"]).stdout
    links, switches, cur = {}, set(), None
    for line in out.splitlines():
        m = re.match(r'^(Switch|Ca)\s+\d+\s+"[SH]-([0-9a-f]+)"', line)
        if m:
            cur = int(m.group(2), 16)
            if m.group(1) == "Switch":
                switches.add(cur)
            continue
        m = re.match(r'^\[(\d+)\].*?"[SH]-([0-9a-f]+)"\[(\d+)\].*'
                     r'\s(\d+)x([A-Z]+)\s*$', line)
        if m and cur is not None:
            ends = frozenset({(cur, int(m.group(1))),
                              (int(m.group(2), 16), int(m.group(3)))})
            links[ends] = (int(m.group(4)), m.group(5))
    return links, switches


def table():
    """{frozenset(ends): {column: value}} of ibsnmpgwDegradedLinkTable."""
    res = {}
    for idx, r in simlib.walk_rows(fab, "fabric", TABLE,
                                   range(2, 13)).items():
        port = int(idx.split(".")[1])
        ends = frozenset({(int(r[2], 16), port), (int(r[4], 16), r[5])})
        res[ends] = r
    return res


def notes(since, kind):
    return [(g, p) for t, g, p, _vb in simlib.gw_notes(SINK, since)
            if t == kind]


def end_guids(ends):
    return sorted(g for g, _p in ends)


def main():
    links, switches = oracle_links()
    want = {e for e, (lanes, _s) in links.items()
            if lanes < 4 and any(g in switches for g, _p in e)}
    R.check(len(links) > 20 and len(want) >= 2,
            "ibnetdiscover: %d links, %d of a switch narrower than 4x"
            % (len(links), len(want)), str(links))
    rows = {}
    R.check(simlib.wait(lambda: rows.update(table()) or
                        set(rows) == want, 15),
            "ibsnmpgwDegradedLinkTable holds exactly those links",
            "got %s\nwant %s" % (sorted(map(sorted, rows)),
                                 sorted(map(sorted, want))))
    bad = [(sorted(e), r) for e, r in rows.items() if e in links and (
        r[9] != links[e][0] or SPEEDS[r[10] - 1] != links[e][1] or
        r[7] != 4 or r[11] != 2 or r[12] <= 0)]
    R.check(rows and not bad, "each row: the active width and speed "
            "ibnetdiscover shows, 4 lanes expected, rule expected(2), "
            "a time", str(bad))
    R.check(simlib.wait(lambda: len(notes(0, DEGRADED)) == len(want), 10),
            "one ibsnmpgwLinkDegraded per row",
            str(simlib.gw_notes(SINK)))
    ctl = fab.ctl("links", "--degraded").stdout
    R.check(ctl.startswith("degraded links %d\n" % len(want)) and
            ctl.count(" expected 4x ") == len(want),
            "ctl links --degraded lists them", ctl)

    # An admin narrows leaf01 port 1 (to node01, 4xEDR) to 1x: trap 144,
    # the sweep it asks for, a row and a notification.
    leaf01, node01 = 0x0002c90300aa0101, 0x0002c90300bb0100
    link = frozenset({(leaf01, 1), (node01, 1)})
    n = len(SINK.notes())
    out = fab.diag(["ibportstate", "3", "1", "width", "1"])
    R.check(out.returncode == 0, "ibportstate 3 1 width 1", out.stderr)
    R.check(simlib.wait(lambda: link in table(), 15),
            "leaf01[1] <-> node01[1] at 1x has a row", str(table()))
    R.check(simlib.wait(lambda: len(notes(n, DEGRADED)) == 1, 10) and
            notes(n, DEGRADED)[0][0] in (leaf01, node01),
            "... notified once", str(simlib.gw_notes(SINK, n)))
    n = len(SINK.notes())
    out = fab.diag(["ibportstate", "3", "1", "width", "3"])
    R.check(simlib.wait(lambda: link not in table(), 15) and
            set(table()) == want, "width back to 1x or 4x: the row goes, "
            "the others stay", str(table()))
    R.check(simlib.wait(lambda: len(notes(n, RESTORED)) == 1, 10) and
            not notes(n, DEGRADED), "... one ibsnmpgwLinkRestored",
            str(simlib.gw_notes(SINK, n)))

    # A restart: the rows come back with their times, nothing notified.
    since = {e: r[12] for e, r in table().items()}
    n = len(SINK.notes())
    fab.restart_gateway()
    fab.sweep()
    R.check(simlib.wait(lambda: {e: r[12] for e, r in table().items()}
                        == since, 15),
            "after a restart: the same rows, the same times",
            "%s\n%s" % (since, table()))
    kinds = [t for t, _g, _p, _vb in simlib.gw_notes(SINK, n)]
    R.check(DEGRADED not in kinds and RESTORED not in kinds,
            "... and no link notification again", str(kinds))

    # The default rule alone: ibsim's ports enable what they trained
    # at, so no link is short of it.
    n = len(SINK.notes())
    fab.reconfigure(EXPECT, "")
    R.check(simlib.wait(lambda: not table(), 10),
            "without health.expect no row is left", str(table()))
    R.check(simlib.wait(lambda: len(notes(n, RESTORED)) == len(want), 10),
            "... each restored", str(simlib.gw_notes(SINK, n)))
    check_burst(links)


def text(v):
    """An OCTET STRING as the sink gives it (hex), decoded."""
    try:
        return bytes.fromhex(v).decode(errors="replace")
    except (TypeError, ValueError):
        return str(v)


def check_burst(links):
    """A wrong expectation (every link 12x) degrades every link at once:
    the first events.burst (2) events are notified one by one, the rest
    are summed up in one event per type 10 s later, about no one node;
    the table has every row all the same."""
    every = {e for e, (lanes, _s) in links.items() if lanes < 12}
    n = len(SINK.notes())
    fab.reconfigure(BURST, "events:\n  burst: 2\nhealth:\n  expect:\n"
                    "    - width: 12x\n")
    R.check(simlib.wait(lambda: set(table()) == every, 15),
            "health.expect 12x: every one of the %d links has a row" %
            len(every), "%d rows" % len(table()))
    R.check(simlib.wait(lambda: any(g == 0 for g, _p in
                                    notes(n, DEGRADED)), 25),
            "... a burst: one ibsnmpgwLinkDegraded sums the rest up",
            str(simlib.gw_notes(SINK, n)))
    # Those one by one came before the sum, which ends the window.
    one = [(g, p) for g, p in notes(n, DEGRADED) if g != 0]
    sums = [vb for t, g, _p, vb in simlib.gw_notes(SINK, n)
            if t == DEGRADED and g == 0]
    # At most 2 one by one: the window may have opened with the step
    # before's events. The sum counts exactly the rest: none is lost.
    more = [int(m.group(1)) for v in (sums[0].values() if sums else [])
            for m in [re.search(r"(\d+) more link-degraded events within "
                                r"10 s", text(v))] if m]
    R.check(len(one) <= 2 and len(sums) == 1 and len(more) == 1 and
            len(one) + more[0] == len(every),
            "... %d notified one by one (at most 2), and one sum of the "
            "other %d" % (len(one), len(every) - len(one)),
            "sum says %s; %s" % (more, sums))
    ev = fab.ctl("events", "20").stdout
    R.check(re.search(r"^events .* burst [1-9]", ev, re.M) and
            re.search(r"\d+ more link-degraded events within 10 s", ev),
            "ctl events: the sum, and the burst counted", ev)


simlib.run(main, fab, R)
