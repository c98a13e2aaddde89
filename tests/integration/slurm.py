#!/usr/bin/python3
"""Slurm's topology.conf (issue 35, part 5): `ctl topology slurm` on the
cluster-shaped fabric (tests/sim/topologies/cluster.topo: rdma-core and
switch-vendor descriptions, a "Core switch 2 (row B, rack 7)", two
"localhost mlx5_0" hosts, one of which a node-name-map alias names)
against a topology.conf computed here from ibnetdiscover's output by the
rules docs/health.md gives; then after an Unlink of a host and of a
whole leaf (the file follows the fabric, and says what it left out), and
after the ReLinks."""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
TOPO = os.path.join(simlib.TOP, "tests", "sim", "topologies",
                    "cluster.topo")
# node09 says "localhost mlx5_0"; the site's node-name-map names it.
MAPDIR = tempfile.mkdtemp(prefix="ibsnmpgw-slurm-")
MAP = os.path.join(MAPDIR, "cluster.map")
ALIASES = {0x0002c90300bb0900: "cn0009"}
with open(MAP, "w") as f:
    for g, name in ALIASES.items():
        f.write('0x%016x "%s"\n' % (g, name))
fab = simlib.Fabric(topo=TOPO, extra=["--node-name-map", MAP])
os.unlink(MAP)
os.rmdir(MAPDIR)

NAME_OK = re.compile(r"^[A-Za-z0-9._-]+$")


def discover():
    """ibnetdiscover: {guid: (type, description)} and the links seen
    from the switches, {switch guid: [neighbour guid]}."""
    out = fab.diag(["ibnetdiscover"])
    nodes, links, cur = {}, {}, None
    for line in out.stdout.splitlines():
        m = re.match(r'^(Switch|Ca|Rt)\s+\d+\s+"[SHR]-([0-9a-f]{16})"'
                     r'\s+# "(.*?)"', line)
        if m:
            cur = int(m.group(2), 16)
            nodes[cur] = (m.group(1), m.group(3))
            continue
        m = re.match(r'^\[\d+\](?:\([0-9a-f]+\))?\s+"[SHR]-([0-9a-f]{16})"',
                     line)
        if m and cur is not None:
            links.setdefault(cur, []).append(int(m.group(1), 16))
    return nodes, links, out


def switch_name(guid, desc):
    if guid in ALIASES:
        src = ALIASES[guid]
    else:
        m = re.match(r"^MF0;([A-Za-z0-9._-]+):", desc)
        if m:
            return m.group(1)
        src = desc
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", src).strip("_")
    return name or "sw%016x" % guid


def host_name(guid, desc):
    word = ALIASES.get(guid, desc).split(" ")[0]
    if word in ("", "localhost") or word.startswith("localhost.") or \
            not NAME_OK.match(word):
        return None
    return word


def hostlist(names):
    """Slurm hostlist ranges: a common prefix, numbers of one width."""
    groups, out = {}, []
    for n in sorted(set(names)):
        m = re.match(r"^(.*?[^0-9])([0-9]{1,18})$", n)
        if m:
            groups.setdefault(m.group(1), []).append(m.group(2))
        else:
            groups.setdefault(n, None)
    for pre in sorted(groups):
        nums = groups[pre]
        if nums is None:
            out.append(pre)
            continue
        if len(nums) == 1:
            out.append(pre + nums[0])
            continue
        nums.sort(key=lambda s: (int(s), len(s)))
        ranges, i = [], 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and len(nums[j + 1]) == len(nums[i]) \
                    and int(nums[j + 1]) == int(nums[j]) + 1:
                j += 1
            ranges.append(nums[i] if j == i else nums[i] + "-" + nums[j])
            i = j + 1
        out.append("%s[%s]" % (pre, ",".join(ranges)))
    return ",".join(out)


def expected():
    """topology.conf's lines as ibnetdiscover's fabric makes them: leaves
    (switches with adapters) list their named hosts, every other switch
    its neighbours one tier nearer the leaves."""
    nodes, links, _ = discover()
    sws = [g for g, (t, _) in nodes.items() if t == "Switch"]
    names = {g: switch_name(g, nodes[g][1]) for g in sws}
    for g in sws:
        if list(names.values()).count(switch_name(g, nodes[g][1])) > 1:
            names[g] = "%s_%016x" % (switch_name(g, nodes[g][1]), g)
    hosts, nbrs, level = {}, {}, {}
    for g in sws:
        peers = links.get(g, [])
        cas = [p for p in peers if nodes.get(p, ("",))[0] == "Ca"]
        hosts[g] = [h for h in (host_name(p, nodes[p][1]) for p in cas)
                    if h]
        nbrs[g] = set(p for p in peers if p in names and p != g)
        if cas:
            level[g] = 0
    front = [g for g in sws if g in level]
    while front:
        nxt = []
        for g in front:
            for p in sorted(nbrs[g]):
                if p not in level:
                    level[p] = level[g] + 1
                    nxt.append(p)
        front = nxt
    lines, shown = [], set()
    for lv in range(max(level.values(), default=-1) + 1):
        for g in sorted((g for g in sws if level.get(g) == lv),
                        key=lambda g: names[g]):
            if lv == 0:
                kids, key = hosts[g], "Nodes"
            else:
                kids = [names[p] for p in nbrs[g]
                        if level.get(p) == lv - 1 and p in shown]
                key = "Switches"
            if kids:
                shown.add(g)
                lines.append("SwitchName=%s %s=%s" % (names[g], key,
                                                      hostlist(kids)))
    return lines


def slurm():
    """The gateway's answer: (lines, comment lines, exit status)."""
    out = fab.ctl("topology", "slurm")
    lines = out.stdout.splitlines()
    return ([l for l in lines if not l.startswith("#")],
            [l for l in lines if l.startswith("#")], out)


def follows(what, want_lines):
    """The gateway's file reaches want_lines after a sweep."""
    fab.sweep()
    got = simlib.wait(lambda: slurm()[0] == want_lines and slurm(), 20,
                      0.2) or slurm()
    R.equal(got[0], want_lines, "%s: ctl topology slurm is what "
            "ibnetdiscover's fabric makes" % what)
    return got


def main():
    want = expected()
    lines, comments, out = slurm()
    R.equal(out.returncode, 0, "ctl topology slurm exits 0")
    R.check(len(want) == 5, "ibnetdiscover's fabric makes 5 lines", want)
    R.equal(lines, want, "the bundled cluster's topology.conf is the one "
            "computed from ibnetdiscover")
    # What a reader of docs/health.md expects, spelled out.
    R.check("SwitchName=leaf02 Nodes=cn[0001-0006]" in lines,
            "leaf02 lists its six hosts as one range, dual-homed cn0001-3 "
            "included", lines)
    R.check("SwitchName=leaf03 Nodes=cn[0007,0009]" in lines,
            "leaf03 lists cn0009 by its node-name-map alias", lines)
    R.check("SwitchName=Core_switch_2_row_B_rack_7 Switches=leaf[01-03]"
            in lines, "spine02's description is made a Slurm name", lines)
    R.check(any("0x0002c90300bb0800 'localhost mlx5_0': no host name" in c
                for c in comments),
            "node08 (localhost) is left out and said so", comments)

    fab.cmd('Unlink "node05"')
    fab.cmd('Unlink "leaf03"')
    want2 = expected()
    R.check(want2 != want and "cn0005" not in " ".join(want2) and
            "leaf03" not in " ".join(want2),
            "ibnetdiscover sees cn0005 and leaf03 gone", want2)
    lines, comments, _ = follows("after Unlink node05 and leaf03", want2)
    R.check(any("'cn0005 mlx5_0': unreachable" in c for c in comments) and
            any("'MF0;leaf03:MSB7800/U1': unreachable" in c
                for c in comments),
            "the unreachable host and leaf are said to be left out",
            comments)

    fab.cmd('ReLink "node05"')
    fab.cmd('ReLink "leaf03"')
    R.equal(expected(), want, "after the ReLinks ibnetdiscover sees the "
            "fabric as at first")
    follows("after the ReLinks", want)


simlib.run(main, fab, R)
