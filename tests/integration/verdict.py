#!/usr/bin/python3
"""A standing verdict per port (docs/health.md), with the windows
shortened in the test's YAML: two Unlink/ReLink of one switch link make
both its ports unhealthy ('2 link-downs in 25s'); SymbolErrorCounter
raised with ibsim's PerformanceSet (perfquery, the oracle, reads it)
makes node03 port 1 degraded; each verdict is served in the node
context's ibsnmpgwPortTable and the fabric context's
ibsnmpgwUnhealthyPortTable, listed by `ctl ports --unhealthy`, and
notified as ibsnmpgwPortHealthChanged; quiet past the window clears it,
not sooner, with another notification."""

import calendar
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

LD_WINDOW = 25
SE_WINDOW = 8
UR_WINDOW = 6

simlib.skip_if_missing()
R = simlib.Report()
SINK = simlib.TrapSink("public")
fab = simlib.Fabric(
    extra=["--notify", "udp:127.0.0.1:%d" % SINK.port],
    extra_yaml="cache:\n  ttl:\n    counters: 1\n"
    "polling:\n"
    "  - name: watched\n"
    "    match: {name: node03}\n"
    "    groups: [counters]\n"
    "    interval: 1\n"
    "    ttl: 1\n"
    "  - name: rest\n"
    "    groups: []\n"
    "    interval: 86400\n"
    "health:\n"
    "  ports:\n"
    "    link-downs: {count: 2, window: %ds}\n"
    "    symbol-errors: {per-minute: 10, window: %ds}\n"
    "    unresponsive: {window: %ds}\n"
    % (LD_WINDOW, SE_WINDOW, UR_WINDOW))
NAMES = simlib.read_name_map()
BASE = simlib.GW_BASE
HEALTH = BASE + ".4.1.1.6"          # ibsnmpgwPortHealth
REASON = BASE + ".4.1.1.7"          # ibsnmpgwPortHealthReason
UNHEALTHY = BASE + ".9.4.1"         # ibsnmpgwUnhealthyPortEntry
CHANGED = BASE + ".7.0.15"          # ibsnmpgwPortHealthChanged
TEXT = BASE + ".6.1.1.8."           # ibsnmpgwEventText
IN_ERRORS = ".1.3.6.1.2.1.2.2.1.14.1"  # ifInErrors of port 1 (PortCounters)


def port_health(node, port):
    out = fab.snmp("snmpget", fab.v2(node), ["%s.%d" % (HEALTH, port),
                                             "%s.%d" % (REASON, port)])
    v = simlib.parse_vars(out.stdout)
    h = v.get("%s.%d" % (HEALTH, port), (None, None))[1]
    r = v.get("%s.%d" % (REASON, port), (None, ""))[1]
    return h, r.strip('"')


def fabric_rows():
    """ibsnmpgwUnhealthyPortTable as {(guid, port): (health, reason)}."""
    rows = simlib.walk_rows(fab, "fabric", UNHEALTHY, range(2, 8))
    return {(int(c[2], 16), int(i.split(".")[1])): (c[4], c[5])
            for i, c in rows.items()}


def changes():
    """ibsnmpgwPortHealthChanged notifications: (guid, port, text)."""
    return [(g, p, bytes.fromhex(v).decode())
            for t, g, p, vb in simlib.gw_notes(SINK) if t == CHANGED
            for o, v in vb.items() if o.startswith(TEXT)]


def event_times(what):
    """When the gateway's events whose `ctl events` line goes on with
    what (after the seq and source) happened, in Unix seconds."""
    out = fab.ctl("events").stdout
    return [calendar.timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
            + int(m.group(2)) / 1000.0 for m in re.finditer(
                r"^(\S+)\.(\d{3})Z \d+ \w+ " + what, out, re.M)]


def link_times(guid, port, kind):
    return event_times("%s port %d node 0x%016x" % (kind, port, guid))


def link_events(guid, port, kind):
    return len(link_times(guid, port, kind))


def cycle(n):
    """Unlink and ReLink leaf01 port 5 (to spine01 port 1), each seen by
    the gateway (a sweep, the SM's Report or the port watch)."""
    leaf01 = NAMES["leaf01"]
    fab.cmd('Unlink "leaf01"[5]')
    fab.sweep()
    R.check(simlib.wait(lambda: link_events(leaf01, 5, "link-down") >= n,
                        20, 0.2), "link-down %d of leaf01 port 5" % n)
    fab.cmd('ReLink "leaf01"[5]')
    fab.sweep()
    R.check(simlib.wait(lambda: link_events(leaf01, 5, "link-up") >= n,
                        20, 0.2), "link-up %d of leaf01 port 5" % n)


def link_downs():
    leaf01, spine01 = NAMES["leaf01"], NAMES["spine01"]
    R.equal(port_health("leaf01", 5), (1, ""), "leaf01 port 5 starts "
            "healthy(1), no reason")
    R.equal(fabric_rows(), {}, "ibsnmpgwUnhealthyPortTable starts empty")
    cycle(1)
    R.equal(port_health("leaf01", 5)[0], 1, "one link-down: still healthy")
    cycle(2)
    why = "2 link-downs in %ds" % LD_WINDOW
    R.check(simlib.wait(lambda: port_health("leaf01", 5) == (3, why), 10,
                        0.2), "two link-downs within the window: leaf01 "
            "port 5 unhealthy(3), '%s'" % why, str(port_health("leaf01", 5)))
    t_bad = link_times(leaf01, 5, "link-down")[-1]
    R.equal(port_health("spine01", 1), (3, why), "... and the other end, "
            "spine01 port 1")
    rows = fabric_rows()
    R.equal({k: v for k, v in rows.items() if k[0] in (leaf01, spine01)},
            {(leaf01, 5): (3, why), (spine01, 1): (3, why)},
            "the fabric context's ibsnmpgwUnhealthyPortTable has both rows")
    ctl = fab.ctl("ports", "--unhealthy").stdout
    R.check(re.search(r"^0x%016x port 5 leaf01 unhealthy: %s" %
                      (leaf01, why), ctl, re.M), "ctl ports --unhealthy "
            "lists leaf01 port 5", ctl)
    want = "unhealthy: " + why
    R.check(simlib.wait(lambda: (leaf01, 5, want) in changes() and
                        (spine01, 1, want) in changes(), 10, 0.2),
            "ibsnmpgwPortHealthChanged for each, text '%s'" % want,
            str(changes()))
    return t_bad


def read_in_errors():
    out = fab.snmp("snmpget", fab.v2("node03"), [IN_ERRORS])
    return simlib.parse_vars(out.stdout).get(IN_ERRORS, (None, None))[1]


def baseline():
    """A rate compares two rounds' readings, so node03 port 1 must have
    been read before the errors. link_downs() may have kept it from
    that: its LID's route can cross leaf01 port 5, a read that bounced
    there is remembered for cache.ttl.error (5 s), and three make a
    hold-down. A first reading taken after the errors is only the base.
    So: a read answered, then two of node03's rounds ended after it."""
    R.check(simlib.wait(lambda: isinstance(read_in_errors(), int), 30,
                        0.3), "node03 port 1's PortCounters read "
            "(ifInErrors)", node03_log())
    R.check(simlib.polled_twice(fab, NAMES["node03"]), "... and node03 "
            "polled twice since: the rates' base", node03_log())


def node03_log():
    """The gateway's lines on node03, for a failure's diagnosis."""
    return "\n".join([ln for ln in fab.log().splitlines()
                      if "node03" in ln][-12:])


def symbol_errors():
    node03 = NAMES["node03"]
    R.equal(port_health("node03", 1)[0], 1, "node03 port 1 healthy")
    baseline()
    fab.cmd('PerformanceSet "node03"[1] PortCounters.SymbolErrorCounter=500')
    pq = fab.diag(["perfquery", "-G", simlib.port_addr("node03", 1, NAMES),
                   "1"]).stdout
    R.check(re.search(r"SymbolErrorCounter:\.+500$", pq, re.M),
            "perfquery (the oracle): SymbolErrorCounter 500", pq)
    R.check(simlib.wait(lambda: port_health("node03", 1)[0] == 2, 15, 0.2),
            "SymbolErrorCounter +500 within a polling round: node03 port 1 "
            "degraded(2)", "%s\n%s" % (port_health("node03", 1),
                                         node03_log()))
    t_bad = (event_times("port-health port 1 degraded: symbol") or [0])[0]
    h, why = port_health("node03", 1)
    R.check(re.match(r"symbol errors \d+\.\d/min above 10/min$", why),
            "... reason '%s'" % why)
    R.check(simlib.wait(lambda: any(g == node03 and p == 1 and
                                    t.startswith("degraded: symbol errors")
                                    for g, p, t in changes()), 10, 0.2),
            "... notified", str(changes()))
    return t_bad


def unresponsive():
    """Every port of node08 unplugged: the node itself (port 0) is
    unhealthy while a sweep cannot reach it (ibnetdiscover, the oracle,
    does not find it either), and healthy again once it is back and the
    window passed."""
    node08 = NAMES["node08"]
    fab.cmd('Unlink "node08"')
    fab.sweep()
    disc = fab.diag(["ibnetdiscover"]).stdout
    R.check("leaf01" in disc and "node08" not in disc,
            "ibnetdiscover (the oracle): node08 is gone", disc[-300:])
    R.check(simlib.wait(lambda: fabric_rows().get((node08, 0)) ==
                        (3, "node not answering"), 10, 0.2),
            "ibsnmpgwUnhealthyPortTable: node08 (port 0) unhealthy(3), "
            "'node not answering'", str(fabric_rows()))
    fab.cmd('ReLink "node08"')
    fab.sweep()
    R.check(simlib.wait(lambda: (node08, 0) not in fabric_rows(),
                        UR_WINDOW + 20, 0.5), "node08 back: the row goes "
            "after the window", str(fabric_rows()))
    R.check(simlib.wait(lambda: (node08, 0, "healthy") in changes(), 10,
                        0.2), "... notified 'healthy'", str(changes()))


def cleared(node, port, t_bad, window, name):
    ok = simlib.wait(lambda: port_health(node, port) == (1, ""),
                     window + 20, 0.5)
    took = time.time() - t_bad
    R.check(ok, "%s port %d healthy again after the quiet window" %
            (node, port), str(port_health(node, port)))
    R.check(took >= window - 1, "... not before the window (%ds): %.1fs" %
            (window, took))
    R.check(simlib.wait(lambda: (NAMES[node], port, "healthy") in changes(),
                        10, 0.2), "... notified 'healthy'", str(changes()))


def main():
    t_ld = link_downs()
    t_se = symbol_errors()
    cleared("node03", 1, t_se, SE_WINDOW, "symbol errors")
    unresponsive()
    cleared("leaf01", 5, t_ld, LD_WINDOW, "link-downs")
    R.check(simlib.wait(lambda: fabric_rows() == {}, 10, 0.2),
            "ibsnmpgwUnhealthyPortTable empty again", str(fabric_rows()))
    ctl = fab.ctl("ports", "--unhealthy").stdout
    R.check(ctl.startswith("ports not healthy 0 "), "ctl ports --unhealthy: "
            "none", ctl)


simlib.run(main, fab, R)
