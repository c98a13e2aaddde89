#!/usr/bin/python3
"""A pair of gateways on two subnets (issue 37, docs/subnets.md "A pair
on several subnets"): `ibsnmpgw-sim start two-subnets.topo DIR --ha
--sm-host2 smB` splits both gateway hosts (gw and dual, two-port HCAs
with a port in each subnet); each gateway serves subnet a itself and b
through a process of its own, and each subnet is replicated on a link
of its own (b's on ha.listen's port plus one).

Checked: both subnets' processes take the pair's roles (b's follows
keepalived's word, handed on by the first process) and are counted in
`ctl ha status`; an event in b is replicated to the standby's b and
notified once; a reload keeps b's link; `ctl ha fault|backup` reaches
b; a standby whose b process dies is not eligible until b has a whole
copy again; SIGKILL of the active takes its b process with it, the
standby's b becomes active, b's nodes answer through the VIP and b's
event numbers go on; the killed gateway, started again, is a standby of
both subnets; the active's b process, killed, is started again and takes
the role in force as at start, with no ha-failover event.

Needs root, ip netns and keepalived (skips with 77 without them)."""

import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402


simlib.skip_if_missing()
simlib.skip_unless_netns()
R = simlib.Report()
SINK = simlib.TrapSink(host="0.0.0.0")
TOPO = os.path.join(simlib.TOP, "tests", "sim", "topologies",
                    "two-subnets.topo")
fab = simlib.Fabric(topo=TOPO, extra=[
    "--ha", "--gw-host", "gw", "--gw-host2", "dual", "--sm-host", "smA",
    "--sm-host2", "smB", "--sm-events",
    "--notify", "udp:@HOST@:%d" % SINK.port])
BIN = os.environ.get("IBSNMPGW", os.path.join(simlib.BUILD, "gateway",
                                              "ibsnmpgw"))
SYSNAME = ".1.3.6.1.2.1.1.5.0"
CONTEXT = simlib.GW_BASE + ".6.1.1.4."   # ibsnmpgwEventNodeContext
INDEX = simlib.GW_BASE + ".6.1.1.8."     # ibsnmpgwEventIndex instance
TAKEOVER = 15


def sim(*args):
    return subprocess.run([simlib.SIM] + list(args), capture_output=True,
                          text=True, timeout=150)


def ctl(gw, *args, sub=None):
    """ibsnmpgw [-s sub] ctl ARGS for gateway gw (gw1, gw2)."""
    cmd = [BIN, "-c", os.path.join(fab.dir, gw, "ibsnmpgw.yaml")]
    return subprocess.run(cmd + (["-s", sub] if sub else []) + ["ctl"] +
                          list(args), capture_output=True, text=True,
                          timeout=30)


def field(text, key):
    m = re.search(r"^%s (.*)$" % key, text, re.M)
    return m.group(1) if m else None


def b_line(text):
    """The first process's line for subnet b: {role, may-promote,
    protected, ...}."""
    m = re.search(r"^subnet b role (\S+)(.*)$", text, re.M)
    if not m:
        return {}
    d = dict(re.findall(r"(may-promote|protected|lag) (\S+)", m.group(2)))
    d["role"] = m.group(1)
    return d


def gw_pid(gw):
    return fab.pid("ibsnmpgw-" + gw)


def b_pid(gw):
    """gw's subnet b process (its only child), or None."""
    out = subprocess.run(["pgrep", "-P", str(gw_pid(gw))],
                         capture_output=True, text=True).stdout.split()
    return int(out[0]) if len(out) == 1 else None


def gw_log(gw):
    with open(os.path.join(fab.dir, gw, "ibsnmpgw.log"),
              errors="replace") as f:
        return f.read()


def sysname(ctx):
    out = fab.snmp("snmpget", fab.v2(ctx), [SYSNAME], timeout=2, retries=1)
    return simlib.parse_vars(out.stdout).get(SYSNAME, (None, None))[1]


def b_notes(since=0):
    """(event index, context) of the notifications subnet b sent."""
    res = []
    for _t, _g, _p, vb in simlib.gw_notes(SINK, since):
        ctx = [bytes.fromhex(v).decode(errors="replace")
               for o, v in vb.items() if o.startswith(CONTEXT)]
        idx = [int(o.rsplit(".", 1)[1]) for o in vb
               if o.startswith(INDEX)]
        if ctx and ctx[0].startswith("b/") and idx:
            res.append((idx[0], ctx[0]))
    return res


def events(gw):
    """Subnet b's kept events on gw, as `ctl events` prints them."""
    out = ctl(gw, "events", "100", sub="b").stdout.splitlines()
    return [l for l in out if not l.startswith("events ")]


def b_diag(gw, mark):
    """Where an event in b stopped on gw: its b process's Reports and
    subscription, targets, newest events, and its log since mark."""
    st = ctl(gw, "stats", sub="b").stdout.splitlines()
    out = [l for l in st if l.startswith(("sm-events", "mad ", "ha "))]
    out += ctl(gw, "targets", sub="b").stdout.splitlines()
    out += events(gw)[-4:]
    out += [l for l in gw_log(gw)[mark:].splitlines()
            if "ibsnmpgw-b[" in l][-8:]
    return "\n".join(out)


def check_start():
    R.equal(fab.info.get("gw-host2-b"), "dual-p2",
            "start splits gw2's host too: dual-p2")
    s1, s2 = ctl("gw1", "ha", "status"), ctl("gw2", "ha", "status")
    R.check(s1.returncode == 0 and field(s1.stdout, "role") == "active" and
            "\nprotected\n" in s1.stdout and b_line(s1.stdout) ==
            {"role": "active", "may-promote": "yes", "protected": "yes",
             "lag": b_line(s1.stdout).get("lag")},
            "gw1: active and protected, subnet b too", s1.stdout)
    R.check(s2.returncode == 0 and field(s2.stdout, "role") == "standby" and
            b_line(s2.stdout).get("role") == "standby" and
            b_line(s2.stdout).get("may-promote") == "yes",
            "gw2: a standby with whole copies of a and b", s2.stdout)
    sb = ctl("gw2", "ha", "status", sub="b")
    R.check(field(sb.stdout, "role") == "standby" and
            field(sb.stdout, "peer") == "gw1",
            "gw2's b process: a standby of gw1's", sb.stdout)
    R.check(re.search(r"ibsnmpgw-b\[info\]: ha: gw1 starts as standby "
                      r"\(role auto\), peer [0-9.]+:7412", gw_log("gw1")),
            "b's link is on ha.peer's port plus one (7412)")
    got = {c: sysname(c) for c in ("b/oss01", "fabric-b", "cn02")}
    R.equal(got, {"b/oss01": "oss01 HCA-1", "fabric-b": "ib-b",
                  "cn02": "cn02 HCA-1"},
            "both subnets answer through the VIP")


def check_replication():
    n = len(SINK.notes())
    before = {i for i, _c in b_notes()}
    fab.cmd('Unlink "swB1"[5]')
    R.check(simlib.wait(lambda: b_notes(n), 15),
            "an Unlink in b is notified, naming b",
            str(simlib.gw_notes(SINK, n)))
    act = events("gw1")
    R.check(simlib.wait(lambda: act and set(act) <= set(events("gw2")),
                        10), "... and replicated to gw2's b, as kept",
            "\n".join(act) + "\n--\n" + "\n".join(events("gw2")))
    time.sleep(1.5)     # a second notification would have come by now
    idx = [i for i, _c in b_notes()]
    R.check(len(idx) > len(before) and len(idx) == len(set(idx)),
            "... and notified once: the standby sends nothing", str(idx))
    fab.cmd('ReLink "swB1"[5]')
    lost = [l for g in ("gw1", "gw2") for l in gw_log(g).splitlines()
            if "lists no subscription of ours" in l]
    R.check(not lost, "four processes subscribed at two SMs: none takes "
            "a table that came in part for its subscription's loss",
            "\n".join(lost))


def check_reload():
    """SIGHUP: b's process reads the file as its own again (its link on
    its port, not the first's), and the link stays up."""
    mark = len(gw_log("gw1"))
    os.kill(gw_pid("gw1"), signal.SIGHUP)
    R.check(simlib.wait(lambda: "ibsnmpgw-b[info]: reload: " in
                        gw_log("gw1")[mark:], 10),
            "SIGHUP reaches b's process, which reloads",
            gw_log("gw1")[-2000:])
    time.sleep(1)       # a link closed by the reload would show by now
    b = [l for l in gw_log("gw1")[mark:].splitlines() if "ibsnmpgw-b[" in l]
    R.check(not [l for l in b if "not applied" in l or "reload: ha:" in l
                 or "ha: link" in l],
            "... its own file: applied, the link kept", "\n".join(b))
    R.check(b_line(ctl("gw1", "ha", "status").stdout).get("protected") ==
            "yes", "... and b still protected")


def check_forward():
    """ctl ha fault|backup on the first process reaches b's. Its log
    says so: gw2's keepalived, whose track script fails meanwhile, may
    make gw2 a standby again (ctl ha yield) before a state is read."""
    mark = len(gw_log("gw2"))
    ctl("gw2", "ha", "fault")
    R.check(simlib.wait(lambda: "ibsnmpgw-b[info]: ha fault (from the first "
                        "process): fault" in gw_log("gw2")[mark:], 10),
            "ctl ha fault on gw2: its b process goes into fault",
            gw_log("gw2")[mark:][-2000:])
    ctl("gw2", "ha", "backup")
    R.check(simlib.wait(lambda: ctl("gw2", "ha", "status").returncode ==
                        0, 30), "ctl ha backup: a standby with whole "
            "copies again", ctl("gw2", "ha", "status").stdout)
    R.check(b_line(ctl("gw2", "ha", "status").stdout).get("role") ==
            "standby", "... b too")


def check_b_down():
    """A standby whose b process died is not eligible until the new one
    has a whole copy: promoted meanwhile, it would serve b empty."""
    old = b_pid("gw2")
    os.kill(old, signal.SIGKILL)
    R.check(simlib.wait(lambda: ctl("gw2", "ha", "status").returncode ==
                        1, 10, 0.05),
            "gw2's b process killed: gw2 not eligible")
    st = ctl("gw2", "ha", "status").stdout
    R.check("subnet b" in (field(st, "eligible") or ""),
            "... and it says why: subnet b", st)
    # Its ibsim slot freed: else b's Reports after the failover go to it.
    fab.gc(old)
    R.check(simlib.wait(lambda: b_pid("gw2") not in (None, old) and
                        ctl("gw2", "ha", "status").returncode == 0, 30),
            "... b started again, its copy whole: eligible again",
            ctl("gw2", "ha", "status").stdout)


def check_failover():
    old_b = b_pid("gw1")
    n = len(SINK.notes())
    before = max([i for i, _c in b_notes()] or [0])
    mark = len(gw_log("gw2"))
    kill = sim("ha-kill", fab.dir)
    R.check("killed: gw1" in kill.stdout, "ha-kill: gw1", kill.stdout +
            kill.stderr)
    R.check(simlib.wait(lambda: not os.path.exists("/proc/%d" % old_b),
                        10), "gw1's b process stops with it (no orphan)")
    R.check(simlib.wait(lambda: re.search(r"^active: gw2$", sim(
        "ha-status", fab.dir).stdout, re.M), TAKEOVER, 0.2),
            "gw2 takes over", sim("ha-status", fab.dir).stdout)
    R.check(simlib.wait(lambda: field(ctl("gw2", "ha", "status", sub="b")
                                      .stdout, "role") == "active", 10),
            "... and so does its b process")
    R.check(simlib.wait(lambda: sysname("b/oss01") == "oss01 HCA-1",
                        TAKEOVER), "b's nodes answer through the VIP")
    fab.cmd('Unlink "swB1"[5]')
    R.check(simlib.wait(lambda: [i for i, _c in b_notes(n) if i > before],
                        15), "an event in b after the failover is "
            "notified, its number after the old active's",
            str(b_notes(n)) + " after %d\n" % before + b_diag("gw2", mark))
    fab.cmd('ReLink "swB1"[5]')
    out = sim("ha-restart", fab.dir, "gw1")
    R.check(out.returncode == 0, "gw1 started again", out.stdout +
            out.stderr)
    R.check(simlib.wait(lambda: ctl("gw1", "ha", "status").returncode ==
                        0, 30), "gw1: a standby with whole copies of a "
            "and b", ctl("gw1", "ha", "status").stdout)
    R.check(b_line(ctl("gw1", "ha", "status").stdout).get("role") ==
            "standby", "... its b a standby")
    R.check(simlib.wait(lambda: "\nprotected\n" in ctl(
        "gw2", "ha", "status").stdout, 20),
            "gw2 protected again, b included",
            ctl("gw2", "ha", "status").stdout)


def check_active_b_respawn():
    """The active's b process killed: the daemon starts it again, and it
    takes the role in force as at start, not as a takeover (no
    ha-failover event: nothing failed over)."""
    old = b_pid("gw2")
    fails = [l for l in events("gw2") if "ha-failover" in l]
    os.kill(old, signal.SIGKILL)
    fab.gc(old)
    R.check(simlib.wait(lambda: b_pid("gw2") not in (None, old) and
                        field(ctl("gw2", "ha", "status", sub="b").stdout,
                              "role") == "active", 30),
            "the active's b process killed: started again, active",
            ctl("gw2", "ha", "status").stdout)
    R.check(simlib.wait(lambda: sysname("b/oss01") == "oss01 HCA-1",
                        TAKEOVER), "... b's nodes answer through the VIP")
    R.check(re.search(r"ibsnmpgw-b\[info\]: ha master \(from the first "
                      r"process, the role in force\)", gw_log("gw2")),
            "... it took the role in force", gw_log("gw2")[-1500:])
    now = [l for l in events("gw2") if "ha-failover" in l]
    R.check(now == fails, "... and posted no ha-failover (%d before, %d "
            "after)" % (len(fails), len(now)), "\n".join(now[-3:]))
    R.check(simlib.wait(lambda: "\nprotected\n" in ctl(
        "gw2", "ha", "status").stdout, 30),
            "gw2 protected again once gw1's b has its copy",
            ctl("gw2", "ha", "status").stdout)


def main():
    check_start()
    check_replication()
    check_reload()
    check_forward()
    check_b_down()
    check_failover()
    check_active_b_respawn()


simlib.run(main, fab, R)
