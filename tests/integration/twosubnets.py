#!/usr/bin/python3
"""Two InfiniBand subnets in one simulation (issue 37's fabric).

`ibsnmpgw-sim start two-subnets.topo DIR --gw-host gw --sm-host smA
--sm-host2 smB` runs one opensm per subnet, each master of its own, and
splits the gateway host's port 2 into a node of its own (gw-p2) that a
second client can attach to (tests/sim/split-host). The oracle,
ibnetdiscover from each side, finds exactly that side's nodes: the
two-port HCA "dual" in both with one NodeGUID; the LIDs overlap (lid 12
is cn01's first HCA in a, its second in b). The gateway, on subnet a,
serves subnet a's nodes and nothing of b; an Unlink in b moves nothing
in it. `stop` ends both SMs."""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
TOPO = os.path.join(simlib.TOP, "tests", "sim", "topologies",
                    "two-subnets.topo")
fab = simlib.Fabric(topo=TOPO, extra=["--gw-host", "gw", "--sm-host", "smA",
                                      "--sm-host2", "smB"])
G = "0002c90300"
SUBNET_A = {G + g for g in ("aa0001", "aa0002", "bb0100", "bb0200",
                            "bb0300", "bb0400", "bb0500")}
# gw-p2: port 2's port GUID less one (tests/sim/split-host).
SUBNET_B = {G + g for g in ("aa0003", "bb0500", "bb0600", "bb0700",
                            "bb0800", "bb0201")}
NT = simlib.STATS[:-2] + ".5.1.1"     # ibsnmpgwNodeEntry
NT_GUID = NT + ".3"


def diag(host, args):
    env = dict(fab.diag_env, SIM_HOST=host)
    return simlib.subprocess.run(args, capture_output=True, text=True,
                                 timeout=30, env=env, cwd=fab.dir)


def discovered(host):
    """{NodeGUID: description} as ibnetdiscover on host finds them."""
    out = diag(host, ["ibnetdiscover"]).stdout
    return {m.group(2): m.group(3) for m in re.finditer(
        r'^(Switch|Ca)\s+\d+\s+"[SH]-([0-9a-f]{16})"\s+#\s+"(.*?)"', out,
        re.M)}, out


def gateway_guids():
    out = fab.snmp("snmpbulkwalk", fab.v2("fabric"), [NT_GUID]).stdout
    return {v for _o, (_t, v) in simlib.parse_vars(out).items()}


def sm_guid(host):
    m = re.search(r"sm guid (0x[0-9a-f]+).*SMINFO_MASTER",
                  diag(host, ["sminfo"]).stdout)
    return m.group(1) if m else None


def main():
    R.check(fab.info.get("sm-host2") == "smB" and
            fab.info.get("gw-host-b") == "gw-p2",
            "start prints the second SM host and gw-p2", str(fab.info))
    a, b = sm_guid("gw"), sm_guid("gw-p2")
    R.check(a == "0x2c90300bb0101" and b == "0x2c90300bb0601",
            "a master SM in each subnet: smA's port from gw, smB's from "
            "gw-p2", "%s %s" % (a, b))

    got_a, out_a = discovered("gw")
    got_b, out_b = discovered("gw-p2")
    R.equal(set(got_a), SUBNET_A, "ibnetdiscover from gw: subnet a only")
    R.equal(set(got_b), SUBNET_B, "ibnetdiscover from gw-p2: subnet b only")
    R.check(got_a.get(G + "bb0500") == got_b.get(G + "bb0500") ==
            "dual HCA-1", "dual's two-port HCA: one node in both",
            out_a + out_b)
    da = diag("gw", ["smpquery", "nodedesc", "12"]).stdout
    db = diag("gw-p2", ["smpquery", "nodedesc", "12"]).stdout
    R.check("cn01 HCA-1" in da and "cn01 HCA-2" in db,
            "lid 12 in each subnet: cn01's first HCA in a, its second in b",
            da + db)

    R.check(simlib.wait(lambda: gateway_guids() == SUBNET_A, 15),
            "the gateway on subnet a: its fabric context has a's nodes, "
            "none of b's", str(sorted(gateway_guids())))

    # An Unlink in b: b's SM and ibnetdiscover see it, a's gateway not.
    events = fab.ctl("events").stdout
    fab.cmd('Unlink "swB1" 5')
    R.check(simlib.wait(lambda: G + "bb0800" not in discovered("gw-p2")[0],
                        15), "Unlink swB1[5]: oss01 is gone from b")
    fab.sweep()
    R.check(fab.ctl("events").stdout == events and
            gateway_guids() == SUBNET_A,
            "... and nothing moved on the gateway's subnet a",
            fab.ctl("events").stdout)
    fab.cmd('ReLink "swB1" 5')
    R.check(simlib.wait(lambda: G + "bb0800" in discovered("gw-p2")[0], 30),
            "ReLink: oss01 is back in b")

    pids = [int(p) for n, p in (line.split() for line in
                                open(os.path.join(fab.dir, "pids")))
            if n == "opensm"]
    R.check(len(pids) == 2, "two opensm processes", str(pids))
    fab.stop()
    end = time.time() + 15
    while time.time() < end and any(os.path.exists("/proc/%d" % p)
                                    for p in pids):
        time.sleep(0.05)
    R.check(not any(os.path.exists("/proc/%d" % p) for p in pids),
            "stop ends both SMs")


simlib.run(main, fab, R)
