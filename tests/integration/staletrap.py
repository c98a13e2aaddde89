#!/usr/bin/python3
"""A Report the SM sent late or wrongly (docs/events.md, "Convergence").

Trap 65 (GID out of service) is the only word the gateway gets of a host
port going down, so it posts the link down at once and reads the link's
switch end after. opensm may send it late: after a flap storm it stopped
reporting ("Ignoring noisy traps") it sweeps, finds the port down in the
middle of a flap, and says so when the link has trained again. Then the
reading is what counts: within the bound the gateway's last notification
for the port is linkUp again, and the inventory and ifOperStatus are as
the fabric (converge.py met it as seed 1 step 3 in CI: linkDown stayed).
Likewise a trap 64 (GID in service) for a port whose link is down,
on a host still reached by its other port, and on a host with both
cables pulled.

The Notices go in through the fault shim ($SHIM_NOTICE_FILE), as Reports
from the master SM's LID; iblinkinfo is the oracle."""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
BOUND = 10.0
IF_OPER = ".1.3.6.1.2.1.2.2.1.8"
LINK_DOWN, LINK_UP = ".1.3.6.1.6.3.1.1.5.3", ".1.3.6.1.6.3.1.1.5.4"
SINK = simlib.TrapSink("public")
fab = simlib.Fabric(extra=["--sm-events", "--notify",
                           "udp:127.0.0.1:%d" % SINK.port],
                    extra_yaml="polling:\n  - name: none\n    groups: []\n"
                    "    interval: 86400\n"
                    "discovery:\n  interval: 300\n  safety-interval: 3600\n"
                    "events:\n  hold-down: 3\n")
NAMES = simlib.read_name_map()
NOTICE = os.path.join(fab.dir, "notice")


def subscribed():
    return re.search(r"^sm-events up ", fab.ctl("stats").stdout,
                     re.M) is not None


def inv_state(guid, port):
    out = fab.ctl("node", "0x%016x" % guid).stdout
    m = re.search(r"^port +%d .*?state (\d+)" % port, out, re.M)
    return int(m.group(1)) if m else None


def if_oper(guid, port):
    out = fab.snmp("snmpget", fab.v2("0x%016x" % guid),
                   ["%s.%d" % (IF_OPER, port)], timeout=2, retries=1)
    m = re.search(r"INTEGER: (\d+)", out.stdout)
    return int(m.group(1)) if m else None


def last_word(guid, port, since=0):
    last = None
    for t, g, p, _ in simlib.gw_notes(SINK, since):
        if g == guid and p == port and t in (LINK_DOWN, LINK_UP):
            last = t
    return last


def words(guid, port, since):
    return ["down" if t == LINK_DOWN else "up"
            for t, g, p, _ in simlib.gw_notes(SINK, since)
            if g == guid and p == port and t in (LINK_DOWN, LINK_UP)]


PEERS = {}


def fabric_state(name, port):
    """The link's PortState as smpquery reads it at the switch's end
    (the oracle: a host port whose link is down has no LID to be read
    by). PEERS has the ends, from the bundled topology's links."""
    sw, sp = PEERS[(name, port)]
    out = fab.diag(["smpquery", "-G", "portinfo", "0x%016x" % NAMES[sw],
                    str(sp)])
    m = re.search(r"^LinkState:\.+(\w+)", out.stdout, re.M)
    return {"Down": 1, "Initialize": 2, "Init": 2, "Armed": 3,
            "Active": 4}.get(m.group(1)) if m else None


def read_peers():
    """(host, port) -> (switch, port) of the bundled topology."""
    sw = None
    with open(simlib.TOPO) as f:
        for line in f:
            m = re.match(r'^Switch\s+\d+\s+"([^"]+)"', line)
            if m:
                sw = m.group(1)
                continue
            if re.match(r"^(Ca|Rt)\s", line):
                sw = None
            m = re.match(r'^\s*\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
            if sw and m:
                PEERS[(m.group(2), int(m.group(3)))] = (sw, int(m.group(1)))


def notice(trap, name, port):
    """The shim's Report of trap for name's port; True once read."""
    tmp = NOTICE + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d 0x%016x\n" % (trap, NAMES[name] + port))
    os.rename(tmp, NOTICE)
    return simlib.wait(lambda: os.path.exists(NOTICE + ".taken"), 10,
                       step=0.1)


def agrees(name, port, state, reached=True):
    """What the gateway shows of name[port] is state (PortState); of a
    host no way reaches (reached False) there is no ifOperStatus to
    read."""
    g = NAMES[name]
    want_oper = {4: 1, 1: 2}.get(state, 5)
    # A sweep cannot read a host port with no link: not in the
    # inventory then (None), as good as Down.
    inv = inv_state(g, port)
    return ((inv == state or (state == 1 and inv is None)) and
            (not reached or if_oper(g, port) == want_oper)
            and last_word(g, port) == (LINK_DOWN if state == 1 else
                                       LINK_UP))


def case(trap, name, port, state, what, reached=True):
    g = NAMES[name]
    if os.path.exists(NOTICE + ".taken"):
        os.unlink(NOTICE + ".taken")
    n0 = len(SINK.notes())
    t0 = time.time()
    taken = notice(trap, name, port)
    R.check(taken, "%s: the shim's trap %d went in" % (what, trap))
    # The Report is acted on: the notification it posts at once.
    said = "down" if trap == 65 else "up"
    R.check(simlib.wait(lambda: said in words(g, port, n0), 5, step=0.1),
            "%s: trap %d is posted at once (link%s)" % (
                what, trap, said.capitalize()), str(words(g, port, n0)))
    ok = simlib.wait(lambda: agrees(name, port, state, reached), BOUND,
                     step=0.25)
    took = time.time() - t0
    R.check(ok and took <= BOUND, "%s: within %.1f s (bound %.0f s) the "
            "gateway shows the fabric's state %d again: inventory %s, "
            "ifOperStatus %s, notifications since %s" % (
                what, took, BOUND, state, inv_state(g, port),
                if_oper(g, port), words(g, port, n0)),
            fab.ctl("events", 8).stdout + fab.ctl("node", "0x%016x" %
                                                  g).stdout)


def main():
    so = simlib.build_shim(fab)
    R.check(so is not None and so.endswith(".so"), "the fault shim builds",
            str(so))
    if so is None or not so.endswith(".so"):
        return
    fab.restart_gateway(wait=0, preload=so, env={
        "SHIM_NOTICE_FILE": NOTICE, "SHIM_SM_LID": simlib.sm_lid(fab)})
    R.check(simlib.wait(subscribed, 30, step=0.25),
            "the gateway is subscribed at the SM", fab.ctl("stats").stdout)
    read_peers()
    # An Active port: a trap 65 the SM sent late (or wrongly).
    R.check(fabric_state("node06", 1) == 4 and
            simlib.wait(lambda: inv_state(NAMES["node06"], 1) == 4, 10),
            "node06[1] is Active, in the fabric and in the inventory")
    case(65, "node06", 1, 4, "late trap 65, link Active")
    # A port whose link is down: a trap 64 late.
    g7 = NAMES["node07"]
    n0 = len(SINK.notes())
    fab.cmd('Unlink "node07"[2]')
    R.check(simlib.wait(lambda: fabric_state("node07", 2) == 1 and
                        agrees("node07", 2, 1), BOUND, step=0.25),
            "node07[2] unlinked: the gateway shows it down",
            "%s %s\n%s" % (words(g7, 2, n0), if_oper(g7, 2),
                           fab.ctl("node", "0x%016x" % g7).stdout))
    case(64, "node07", 2, 1, "late trap 64, link Down")
    fab.cmd('ReLink "node07"[2]')
    R.check(simlib.wait(lambda: fabric_state("node07", 2) == 4 and
                        agrees("node07", 2, 4), 30, step=0.5),
            "node07[2] relinked: the gateway shows it Active",
            str(words(g7, 2, n0)))
    # A host no sweep can reach: both its cables pulled.
    g8 = NAMES["node08"]
    n0 = len(SINK.notes())
    fab.cmd('Unlink "node08"[1]')
    fab.cmd('Unlink "node08"[2]')
    R.check(simlib.wait(lambda: all(fabric_state("node08", p) == 1 and
                                    agrees("node08", p, 1, False)
                                    for p in (1, 2)), BOUND, step=0.25),
            "node08 unlinked: the gateway shows both ports down",
            "%s %s" % (words(g8, 1, n0), words(g8, 2, n0)))
    case(64, "node08", 1, 1, "late trap 64, host unreachable", False)


if __name__ == "__main__":
    try:
        main()
    finally:
        if R.failed:
            simlib.keep_logs(fab)
        fab.stop()
        SINK.stop()
    R.finish()
