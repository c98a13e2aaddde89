#!/usr/bin/python3
"""The fabric against a blueprint (issue 35, part 3; docs/health.md).

`ctl topology pin` takes the fabric as it is: no difference. A cable
pulled (ibsim Unlink) is one ibsnmpgwTopologyDiffTable row,
cableMissing, and one ibsnmpgwTopologyMismatch naming its switch end,
with the SM's Reports driving the inventory (no sweep asked for); the
cable back (ReLink) and the row is gone with one ibsnmpgwTopologyMatch,
as ibnetdiscover (the oracle) sees it back. Then topology.expected
names ibnetdiscover's own output of the fabric with one cable moved to
another port: exactly that difference, one cableMoved row; pinning is
refused while a file is the blueprint, and a broken file is refused at
reload with file:line, the running blueprint kept."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
SINK = simlib.TrapSink("public")
fab = simlib.Fabric(extra=["--sm-events", "--notify",
                           "udp:127.0.0.1:%d" % SINK.port])
NAMES = simlib.read_name_map()
GW = simlib.GW_BASE
DIFF = GW + ".9.3.1"                  # ibsnmpgwTopologyDiffEntry
MISMATCH = GW + ".7.0.13"
MATCH = GW + ".7.0.14"
KIND = {3: "cableMissing", 5: "cableMoved"}


def rows():
    """ibsnmpgwTopologyDiffTable in the fabric context: {index: {column:
    value}}."""
    return {int(i): r for i, r in simlib.walk_rows(
        fab, "fabric", DIFF, range(2, 11)).items()}


def diff_lines():
    return [line for line in fab.ctl("topology", "diff").stdout
            .splitlines()[1:] if line.strip()]


def notes(oid):
    return [(g, p) for t, g, p, _vb in simlib.gw_notes(SINK) if t == oid]


def ibnetdiscover():
    out = fab.diag(["ibnetdiscover"])
    return out.stdout if out.returncode == 0 else ""


def sweeps():
    return len(re.findall(r"sweep \d+ done: ", fab.log()))


def pulled_and_back():
    leaf03 = NAMES["leaf03"]
    before = sweeps()
    fab.cmd('Unlink "node05"[1]')
    got = simlib.wait(rows, 10, 0.2)
    r = list(got.values())
    R.check(len(r) == 1 and r[0].get(2) == 3 and
            int(r[0].get(3, "0"), 16) == leaf03 and r[0].get(5) == 1 and
            int(r[0].get(6, "0"), 16) == NAMES["node05"] and
            r[0].get(7) == 1, "node05 port 1 unlinked: one row, "
            "cableMissing(3), leaf03 port 1 to node05 port 1", str(got))
    R.check(bool(r) and r[0].get(8) == "leaf03[1] - node05[1]" and
            r[0].get(9) in ("", '""'), "... expected 'leaf03[1] - node05[1]', "
            "found ''", str(r))
    R.check(simlib.wait(lambda: notes(MISMATCH), 10, 0.1) ==
            [(leaf03, 1)], "one ibsnmpgwTopologyMismatch naming leaf03 "
            "port 1", str(simlib.gw_notes(SINK)))
    R.equal(sweeps(), before, "the SM's Report brought it: no sweep")
    lines = diff_lines()
    R.check(len(lines) == 1 and lines[0].startswith("< 1 cable-missing: "
            "leaf03[1] - node05[1] (since "), "ctl topology diff: '<' "
            "and the cable", "\n".join(lines))
    fab.cmd('ReLink "node05"[1]')
    R.check(simlib.wait(lambda: rows() == {}, 20, 0.2), "ReLink: the row "
            "is gone", str(rows()))
    R.check(simlib.wait(lambda: notes(MATCH), 10, 0.1) == [(leaf03, 1)],
            "one ibsnmpgwTopologyMatch naming leaf03 port 1",
            str(simlib.gw_notes(SINK)))
    R.check('"H-%016x"[1]' % NAMES["node05"] in ibnetdiscover(),
            "ibnetdiscover sees the cable back")
    R.equal(len(notes(MISMATCH)), 1, "no further mismatch")


def moved(text):
    """ibnetdiscover's output with node01's port-1 cable moved from
    leaf01 port 1 to leaf01 port 9, at both ends."""
    leaf01, node01 = NAMES["leaf01"], NAMES["node01"]
    sw = re.compile(r'(Switch\t\d+ "S-%016x".*?\n)\[1\]\t' % leaf01, re.S)
    ca = re.compile(r'(Ca\t\d+ "H-%016x".*?\n\[1\]\([0-9a-f]+\)\s*'
                    r'"S-%016x")\[1\]' % (node01, leaf01), re.S)
    text, n1 = sw.subn(r"\1[9]\t", text)
    text, n2 = ca.subn(r"\1[9]", text)
    return text if n1 == 1 and n2 == 1 else None


def from_file():
    plan = moved(ibnetdiscover())
    R.check(plan is not None, "ibnetdiscover's output, one cable moved "
            "to leaf01 port 9")
    path = os.path.join(fab.dir, "expected.topo")
    with open(path, "w") as f:
        f.write(plan or "")
    fab.reconfigure("discovery:", "topology:\n  expected: %s\n"
                    "discovery:" % path)
    got = simlib.wait(rows, 10, 0.2)
    r = list(got.values())
    R.check(len(r) == 1 and r[0].get(2) == 5 and
            r[0].get(8) == "leaf01[9] - node01[1]" and
            r[0].get(9) == "leaf01[1] - node01[1]",
            "topology.expected: exactly one row, cableMoved(5), planned "
            "leaf01[9], found leaf01[1]", str(got))
    lines = diff_lines()
    R.check(len(lines) == 1 and lines[0].startswith(
        "! 2 cable-moved: leaf01[9] - node01[1] planned, leaf01[1] - "
        "node01[1] found"), "ctl topology diff: '!', planned and found",
        "\n".join(lines))
    out = fab.ctl("topology", "pin")
    R.check(out.returncode == 1 and "topology.expected" in out.stdout,
            "pin refused while a file is the blueprint", out.stdout)
    with open(path, "a") as f:
        f.write("DR path slid 0; dlid 0; 0 -> new Channel Adapter\n")
    nlines = plan.count("\n") + 1 if plan else 0
    log_before = len(fab.log())
    fab.reload()
    R.check("%s:%d: unknown line" % (path, nlines)
            in fab.log()[log_before:], "a broken blueprint: the reload "
            "is refused with file:line", fab.log()[log_before:][-600:])
    R.equal([v.get(2) for v in rows().values()], [5], "... and the "
            "running blueprint stays")


def main():
    out = fab.ctl("topology", "pin")
    R.check(out.returncode == 0 and "nodes 14 cables 32 differences 0" in
            out.stdout, "ctl topology pin: 14 nodes, 32 cables, no "
            "difference", out.stdout + out.stderr)
    R.equal(rows(), {}, "the table is empty")
    pulled_and_back()
    from_file()


simlib.run(main, fab, R)
