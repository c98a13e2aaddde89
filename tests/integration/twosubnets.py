#!/usr/bin/python3
"""One gateway, two InfiniBand subnets (issue 37, docs/subnets.md).

`ibsnmpgw-sim start two-subnets.topo DIR --gw-host gw --sm-host smA
--sm-host2 smB` runs one opensm per subnet and splits the gateway
host's port 2 into a node of its own (gw-p2, tests/sim/split-host); the
gateway's ib.ports name subnets a (its port 1) and b (gw-p2's port,
served by a process of its own). The oracle is ibnetdiscover from each
side: the two-port HCA "dual" is in both with one NodeGUID, and the LIDs
overlap (lid 12 is cn01's first HCA in a, its second in b).

Through the one endpoint: every node of both subnets answers; each
fabric context's node table holds exactly what ibnetdiscover on its own
side finds, with context names that reach the nodes ("b/oss01"); GUIDs
and unique host names need no subnet; cn01 (an HCA in each) and a bare
LID name nothing, "a/cn01", "b/cn01", "b/lid-12" one node each; v3
contexts the same. An Unlink in b is notified naming b, and a's gateway
posts nothing; with b's SM killed, a's events still flow. A second
port on subnet a is refused once its inventory shows it (genErr for
it, as for a node that does not answer). `stop` ends
both processes and both SMs."""

import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
SINK = simlib.TrapSink("public")
TOPO = os.path.join(simlib.TOP, "tests", "sim", "topologies",
                    "two-subnets.topo")
fab = simlib.Fabric(topo=TOPO, extra=[
    "--gw-host", "gw", "--sm-host", "smA", "--sm-host2", "smB",
    "--sm-events", "--notify", "udp:127.0.0.1:%d" % SINK.port])
G = "0002c90300"
SUBNET_A = {G + g for g in ("aa0001", "aa0002", "bb0100", "bb0200",
                            "bb0300", "bb0400", "bb0500")}
# gw-p2: port 2's port GUID less one (tests/sim/split-host).
SUBNET_B = {G + g for g in ("aa0003", "bb0500", "bb0600", "bb0700",
                            "bb0800", "bb0201")}
NT = simlib.STATS[:-2] + ".5.1.1"     # ibsnmpgwNodeEntry
SYSNAME = ".1.3.6.1.2.1.1.5.0"
CONTEXT = simlib.GW_BASE + ".6.1.1.4."   # ibsnmpgwEventNodeContext


def diag(host, args):
    env = dict(fab.diag_env, SIM_HOST=host)
    return subprocess.run(args, capture_output=True, text=True,
                          timeout=30, env=env, cwd=fab.dir)


def discovered(host):
    """{NodeGUID: description} as ibnetdiscover on host finds them."""
    out = diag(host, ["ibnetdiscover"]).stdout
    return {m.group(2): m.group(3) for m in re.finditer(
        r'^(Switch|Ca)\s+\d+\s+"[SH]-([0-9a-f]{16})"\s+#\s+"(.*?)"', out,
        re.M)}, out


def node_table(context, col=2):
    """{GUID: column} of the node table in a fabric context: the
    context name (2), the state (7: ok 1, unreachable 2)."""
    rows = simlib.walk_rows(fab, context, NT, (2, 3, 7))
    return {r[3]: r[col] for r in rows.values()}


def ctl_b(*args):
    """ibsnmpgw -s b ctl ARGS: subnet b's process, on its own socket."""
    return subprocess.run(
        [os.environ.get("IBSNMPGW", os.path.join(
            simlib.BUILD, "gateway", "ibsnmpgw")), "-c",
         os.path.join(fab.dir, "ibsnmpgw.yaml"), "-s", "b", "ctl"] +
        list(args), capture_output=True, text=True, timeout=30)


def sysname(sec):
    out = fab.snmp("snmpget", sec, [SYSNAME], timeout=2)
    return simlib.parse_vars(out.stdout).get(SYSNAME, (None, None))[1]


def contexts(since):
    """The node contexts the notifications from index since name."""
    res = []
    for _t, _g, _p, vb in simlib.gw_notes(SINK, since):
        for o, v in vb.items():
            if o.startswith(CONTEXT):
                res.append(bytes.fromhex(v).decode(errors="replace")
                           if re.fullmatch(r"[0-9a-f]*", v) else v)
    return res


def sm_pids():
    with open(os.path.join(fab.dir, "pids")) as f:
        return [int(p) for n, p in (line.split() for line in f)
                if n == "opensm"]


def check_oracle():
    got_a, out_a = discovered("gw")
    got_b, out_b = discovered("gw-p2")
    R.equal(set(got_a), SUBNET_A, "ibnetdiscover from gw: subnet a only")
    R.equal(set(got_b), SUBNET_B, "ibnetdiscover from gw-p2: subnet b only")
    R.check(got_a.get(G + "bb0500") == got_b.get(G + "bb0500") ==
            "dual HCA-1", "dual's two-port HCA: one node in both",
            out_a + out_b)


def check_contexts():
    R.check(simlib.wait(lambda: set(node_table("fabric")) == SUBNET_A,
                        15), "fabric (subnet a): ibnetdiscover's nodes "
            "from gw", str(node_table("fabric")))
    R.equal(set(node_table("fabric-a")), SUBNET_A, "fabric-a: the same")
    R.check(simlib.wait(lambda: set(node_table("fabric-b")) == SUBNET_B,
                        15), "fabric-b: ibnetdiscover's nodes from gw-p2",
            str(node_table("fabric-b")))
    names = {c: sysname(fab.v2(c)) for c in ("fabric", "fabric-a",
                                               "fabric-b")}
    R.equal(names, {"fabric": "ib-a", "fabric-a": "ib-a",
                    "fabric-b": "ib-b"},
            "each fabric context's sysName names its subnet")
    ctx = node_table("fabric-b")
    R.check(ctx.get(G + "bb0800") == "b/oss01" and
            all(c.startswith("b/") for c in ctx.values()),
            "fabric-b's node contexts carry the subnet (b/oss01)", str(ctx))
    bad = [c for c in ctx.values() if sysname(fab.v2(c)) is None]
    R.check(not bad, "each of them answers through the one endpoint",
            str(bad))


def check_names():
    want = {"oss01": "oss01 HCA-1", "cn02": "cn02 HCA-1",
            "smB": "smB HCA-1", "dual": "dual HCA-1",
            "a/cn01": "cn01 HCA-1", "b/cn01": "cn01 HCA-2",
            "a/lid-12": "cn01 HCA-1", "b/lid-12": "cn01 HCA-2",
            "0x" + G + "bb0800": "oss01 HCA-1",
            "0x" + G + "bb0300": "cn01 HCA-1", "cn01": None,
            "lid-12": None, "c/oss01": None}
    got = {n: sysname(fab.v2(n)) for n in want}
    R.equal(got, want, "names: GUIDs and unique hosts need no subnet; "
            "cn01 (an HCA in each) and a bare LID name nothing")
    got3 = {n: sysname(fab.v3(n)) for n in ("b/oss01", "oss01", "cn01")}
    R.equal(got3, {"b/oss01": "oss01 HCA-1", "oss01": "oss01 HCA-1",
                   "cn01": None}, "v3 contexts the same")
    R.check(sysname(fab.v2("fabric-b", community="nobody")) is None,
            "an unknown community is refused for b as for a")


def check_events():
    n = len(SINK.notes())
    fab.cmd('Unlink "swB1"[5]')
    R.check(simlib.wait(lambda: any(c.startswith("b/") for c in
                                    contexts(n)), 15),
            "Unlink swB1[5] in b: notified, naming b",
            str(simlib.gw_notes(SINK, n)))
    time.sleep(1)      # what a would post, were it to, has come by now
    R.check(all(c.startswith("b/") or c == "" for c in contexts(n)),
            "... and subnet a posts nothing", str(contexts(n)))
    out = ctl_b("sweep")
    R.check(out.returncode == 0 and "sweep started" in out.stdout,
            "ibsnmpgw -s b ctl sweep: b's process sweeps", out.stdout +
            out.stderr)
    R.check(simlib.wait(lambda: node_table("fabric-b", 7).get(
        G + "bb0800") == 2, 15), "... oss01 is unreachable(2) in fabric-b",
            str(node_table("fabric-b", 7)))
    R.check(set(node_table("fabric", 7).values()) == {1},
            "... every node of fabric (a) stays ok(1)",
            str(node_table("fabric", 7)))
    fab.cmd('ReLink "swB1"[5]')
    ctl_b("sweep")
    R.check(simlib.wait(lambda: node_table("fabric-b", 7).get(
        G + "bb0800") == 1, 30), "ReLink: oss01 is ok(1) again")

    pids = sm_pids()
    os.kill(pids[1], signal.SIGKILL)
    subprocess.run([simlib.SIM, "gc", fab.dir], capture_output=True,
                   timeout=30)
    n = len(SINK.notes())
    fab.cmd('Unlink "swA2"[2]')
    R.check(simlib.wait(lambda: any(not c.startswith("b/") and c for c in
                                    contexts(n)), 15),
            "b's SM killed: an Unlink in a is still notified",
            str(simlib.gw_notes(SINK, n)))
    fab.cmd('ReLink "swA2"[2]')


def child_pids():
    gw = fab.pid()
    return [int(p) for p in subprocess.run(
        ["pgrep", "-P", str(gw)], capture_output=True,
        text=True).stdout.split()]


def check_restart():
    """SIGKILL of b's process while requests for b are in flight: a
    answers meanwhile, and b again once its process is back."""
    old = child_pids()
    R.check(len(old) == 1, "subnet b's process is the gateway's child",
            str(old))
    load = [subprocess.Popen(["snmpbulkwalk", "-v2c", "-c",
                              "public@fabric-b", "-t", "1", "-r", "0",
                              fab.endpoint, ".1"],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for _ in range(3)]
    time.sleep(0.2)
    os.kill(old[0], signal.SIGKILL)
    R.check(sysname(fab.v2("cn02")) == "cn02 HCA-1",
            "b's process killed: a still answers")
    fab.gc(old[0])      # b's Reports go to the process started again
    R.check(simlib.wait(lambda: child_pids() and child_pids() != old, 15),
            "... b's process is started again", str(child_pids()))
    R.check(simlib.wait(lambda: sysname(fab.v2("b/oss01")) ==
                        "oss01 HCA-1", 30), "... and b answers again")
    for p in load:
        p.wait(timeout=60)
    R.check("subnet b: process %d killed by signal 9" % old[0] in fab.log(),
            "the log says so", fab.log()[-2000:])
    st = re.search(r"^subnets 2 forwarded (\d+) answered (\d+) lost (\d+) "
                   r"restarts (\d+)$", fab.ctl("stats").stdout, re.M)
    R.check(st and int(st.group(1)) >= int(st.group(2)) > 20 and
            int(st.group(4)) == 1,
            "ctl stats: requests handed to b, answered, and one restart",
            fab.ctl("stats").stdout)


def check_same_subnet():
    """ib.ports with a second port on subnet a (a client at cn02): its
    process is stopped once its inventory shows our own port, with a
    clear log line, and not started again; a goes on."""
    conf = os.path.join(fab.dir, "ibsnmpgw.yaml")
    with open(conf) as f:
        text = f.read()
    old = '- { port: 1, subnet: b, sim-host: "gw-p2" }'
    R.check(old in text, "the launcher's ib.ports", text)
    with open(conf, "w") as f:
        f.write(text.replace(old, '- { port: 1, subnet: c, sim-host: '
                             '"cn02" }'))
    fab.restart_gateway()
    why = "subnet c: its port is on subnet a"
    R.check(simlib.wait(lambda: why in fab.log(), 20),
            "a second port on subnet a: refused, and the log says why",
            fab.log()[-3000:])
    def starts():
        return len(re.findall(r"subnet c: process \d+ started", fab.log()))
    R.check(simlib.wait(lambda: not child_pids(), 10),
            "... its process stopped", str(child_pids()))
    n = starts()
    time.sleep(3)       # the first backoff is 1 s: a restart would be in
    R.check(starts() == n == 1 and not child_pids(),
            "... and not started again", str(child_pids()))
    out = fab.snmp("snmpget", fab.v2("fabric-c"), [SYSNAME], timeout=2)
    R.check("genError" in out.stdout + out.stderr and
            sysname(fab.v2("cn02")) == "cn02 HCA-1",
            "... fabric-c answers genErr at once, a goes on",
            out.stdout + out.stderr)


def main():
    R.check(fab.info.get("sm-host2") == "smB" and
            fab.info.get("gw-host-b") == "gw-p2",
            "start prints the second SM host and gw-p2", str(fab.info))
    check_oracle()
    check_contexts()
    check_names()
    check_restart()
    check_events()
    check_same_subnet()
    pids = sm_pids() + child_pids()
    if R.failed:
        simlib.keep_logs(fab)       # stop() takes the directory
    fab.stop()
    end = time.time() + 15
    while time.time() < end and any(os.path.exists("/proc/%d" % p)
                                    for p in pids):
        time.sleep(0.05)
    R.check(not any(os.path.exists("/proc/%d" % p) for p in pids),
            "stop ends subnet b's process and both SMs")


simlib.run(main, fab, R)
