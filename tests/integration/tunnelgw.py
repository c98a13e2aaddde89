#!/usr/bin/python3
"""IB SNMP Tunneling through the gateway, on the simulated fabric.

node03 (tunnel: auto) and node05 (tunnel: prefer) each run a stock
snmpd on a loopback port behind ibsnmp-tunneld; node06 has a tunnel
policy and no agent. Through the gateway's SNMP port:
- HOST-RESOURCES-MIB equals what each snmpd answers directly; with
  prefer, so does the host's own system group, and the IB MIBs still
  come from the gateway;
- a GETBULK of 60 varbinds arrives whole, in many segments;
- a walk of .1 is one strictly increasing walk holding the gateway's
  subtrees and snmpd's, each as its own source gives them;
- 16 GETs of distinct objects out to node03's agent at once (its snmpd
  stopped meanwhile), each answered with its own object's value;
- node06 answers only the gateway's subtrees, and costs one probe;
- a v3 user whose node selector hides node03 cannot reach its agent;
- a tunnel agent frozen and killed while a request is out, with the
  start of an answer arriving and the rest never: genErr within
  snmp.request-timeout-ms, nothing left pending, and the node then
  answers noSuchObject outside the gateway's subtrees;
- malformed and spoofed segments sent to the gateway (tun-send -r) are
  counted and dropped, and tunneled requests still work."""

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
if shutil.which("snmpd") is None:
    print("1..0 # SKIP snmpd is not installed")
    sys.exit(77)

TMP = tempfile.mkdtemp(prefix="ibsnmpgw-tunnelgw-")
PORTS = {"node03": simlib.free_udp_port(), "node05": simlib.free_udp_port()}
LID = {"node03": 105, "node04": 107, "node05": 109, "node06": 111}
TUN_SEND = os.path.join(simlib.BUILD, "tests", "sim", "tun-send")
SNMPDS = []
IB = ".1.3.6.1.3.117"
HR = ".1.3.6.1.2.1.25"
TIMEOUT_MS = 10000     # snmp.request-timeout-ms, the default
TRY_MS = 3000          # tunnel.timeout-ms for check_killed_agent()


for h, p in PORTS.items():
    SNMPDS.append(simlib.start_snmpd(TMP, h, p,
                                     "sysLocation rack 7, row B\n"))
R = simlib.Report()
fab = simlib.Fabric(
    extra=["--tunnel", "node03=udp:127.0.0.1:%d" % PORTS["node03"],
           "--tunnel-prefer", "node05=udp:127.0.0.1:%d" % PORTS["node05"],
           "--tunnel-allow", str(LID["node04"])],
    extra_yaml="polling:\n  - name: no-agent\n    match:\n"
    "      regex: '^node06( |$)'\n    tunnel: auto\n"
    "    tunnel-community: public\n")


def gw(tool, node, oids, extra=(), sec=None, timeout=8):
    cmd = [tool] + (sec or fab.v2(node)) + ["-On", "-t", str(timeout),
                                            "-r", "0"] + list(extra) + \
        [fab.endpoint] + list(oids)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def direct(tool, host, oids, extra=()):
    return subprocess.run([tool, "-v2c", "-c", "public", "-On", "-t", "8",
                           "-r", "0"] + list(extra) +
                          ["udp:127.0.0.1:%d" % PORTS[host]] + list(oids),
                          capture_output=True, text=True, timeout=300)


def tstats():
    out = fab.ctl("stats").stdout
    line = [l for l in out.splitlines() if l.startswith("tunnel ")]
    return dict((k, int(v)) for k, v in
                re.findall(r"(\S+) (\d+)", line[0][7:])) if line else {}


def key(oid):
    return tuple(int(x) for x in oid.strip(".").split("."))


def walk_oids(text):
    """OIDs of a -On walk, in the order given (values may span lines)."""
    return [l.split(" = ", 1)[0] for l in text.splitlines()
            if l.startswith(".") and " = " in l and
            "No more variables left" not in l]


def under(oid, base):
    return oid == base or oid.startswith(base + ".")


def check_values():
    oids = [HR + ".2.2.0", HR + ".1.3.0", HR + ".2.3.1.3.1",
            HR + ".1.6.0"]
    for host in PORTS:
        a = parse_vars(gw("snmpget", host, oids).stdout)
        b = parse_vars(direct("snmpget", host, oids).stdout)
        R.check(len(a) == 4 and a == b, "%s: hrMemorySize, hrSystem"
                "InitialLoadDevice, hrStorageDescr.1, hrSystemProcesses"
                " through the gateway as snmpd answers them" % host,
                "%s\n%s" % (a, b))
    sysg = [".1.3.6.1.2.1.1.%d.0" % i for i in (1, 2, 4, 5, 6)]
    a = parse_vars(gw("snmpget", "node05", sysg).stdout)
    b = parse_vars(direct("snmpget", "node05", sysg).stdout)
    R.check(len(a) == 5 and a == b, "prefer (node05): the host's own "
            "system group", "%s\n%s" % (a, b))
    a = parse_vars(gw("snmpget", "node05", [IB + ".3.1.1.1.0"]).stdout)
    R.check(list(a.values()) == [("STRING", "node05 HCA-1")],
            "prefer (node05): IB-SMA-MIB still from the gateway", str(a))
    # One SNMP engine, the gateway's, even where the host's agent is
    # preferred (docs/snmp-engine.md); its snmpd has an engine of its own.
    eng = [".1.3.6.1.6.3.10.2.1.1.0", ".1.3.6.1.6.3.10.2.1.2.0"]
    a = gw("snmpget", None, eng).stdout
    b = gw("snmpget", "node05", eng).stdout
    c = direct("snmpget", "node05", eng[:1]).stdout
    R.check(a and a == b and c.split("=")[-1] not in a,
            "prefer (node05): snmpEngine is the gateway's, not the host's",
            "%s\n%s\n%s" % (a, b, c))
    a = parse_vars(gw("snmpget", "node03", [".1.3.6.1.2.1.1.1.0"]).stdout)
    desc = list(a.values())[0][1] if a else ""
    R.check("node03 HCA-1" in desc and "tunneled" not in desc,
            "auto (node03): sysDescr is the gateway's (from SMPs)", desc)


def check_prefer_bulk():
    """First thing, cold: with prefer, a GETBULK of a table the host's
    agent lacks asks the agent first, then falls back to the gateway's
    own table from the tunnel's callback."""
    a = gw("snmpbulkget", "node05", [IB + ".3.1.2"], extra=["-Cr6"])
    got = walk_oids(a.stdout)
    b = gw("snmpbulkget", "node06", [IB + ".3.1.2"], extra=["-Cr6"])
    R.check(a.returncode == 0 and len(got) == 6 and
            all(under(o, IB) for o in got) and
            [o for o in got] == walk_oids(b.stdout),
            "prefer (node05): a cold GETBULK of an IB table the agent "
            "lacks comes from the gateway, as for a node without agent",
            a.stdout + a.stderr)


def check_concurrent():
    """Several messages out to one node at once, told apart by RAddress:
    node03's snmpd is stopped while 16 GETs of distinct objects arrive
    (uncached), so they all wait at the agent together; once it runs
    again each request gets its own object's value."""
    cols = [HR + ".2.3.1.3", HR + ".3.2.1.3"]    # hrStorage/DeviceDescr
    want = {}
    for c in cols:
        want.update(parse_vars(direct("snmpbulkwalk", "node03", [c]).stdout))
    oids = sorted(want, key=key)[:16]
    out = fab.ctl("node", "node03").stdout
    snmpd = SNMPDS[list(PORTS).index("node03")]
    before = tstats()
    snmpd.send_signal(signal.SIGSTOP)
    t0 = time.time()
    try:
        procs = [subprocess.Popen(
            ["snmpget"] + fab.v2("node03") + ["-On", "-t", "8", "-r", "0",
                                               fab.endpoint, o],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for o in oids]
        # All out, or as many as got there: snmpd must run again well
        # within the gateway's tunnel tries (2 x 1 s) and tunneld's
        # agent-timeout-ms (2 s), or the first requests fail.
        simlib.wait(lambda: tstats().get("pending", 0) >= len(oids), 1.5,
                    step=0.05)
        mid, stopped = tstats(), time.time() - t0
    finally:
        snmpd.send_signal(signal.SIGCONT)
    got = {}
    for p in procs:
        o, e = p.communicate(timeout=30)
        got.update(parse_vars(o))
    after = tstats()
    bad = [(o, got.get(o), want[o]) for o in oids if got.get(o) != want[o]]
    R.check(len(oids) >= 12 and not bad and
            len(set(want[o] for o in oids)) >= 8,
            "%d concurrent GETs to node03, %d distinct values: each "
            "answered with its own object's value" %
            (len(oids), len(set(want[o] for o in oids))), str(bad[:4]))
    R.check(after.get("out-peak", 0) >= 8 and mid.get("pending", 0) >= 8 and
            after.get("requests", 0) - before.get("requests", 0) ==
            len(oids),
            "... %d of them out to the agent at once (pending %d while it "
            "was stopped, for %.1f s)" % (after.get("out-peak", 0),
                                           mid.get("pending", 0), stopped),
            "%s %s %s" % (before, mid, after))
    R.check("messages at once 16" in fab.ctl("node", "node03").stdout,
            "ctl node: node03's agent takes 16 at once (CapabilityMask "
            "bit 8)", out)


def check_bulk():
    before = tstats()
    a = gw("snmpbulkget", "node03", [HR + ".2"], extra=["-Cr60"])
    after = tstats()
    b = direct("snmpbulkget", "node03", [HR + ".2"], extra=["-Cr60"])
    got, want = walk_oids(a.stdout), walk_oids(b.stdout)
    segs = after.get("segments-in", 0) - before.get("segments-in", 0)
    R.check(len(got) == 60 and got == want and segs > 5,
            "a GETBULK of 60 varbinds arrives whole, as snmpd's "
            "(%d reply segments)" % segs, a.stderr + str(got[:3]))


def check_walk():
    a = gw("snmpbulkwalk", "node03", [".1"], extra=["-Cr20"], timeout=20)
    oids = walk_oids(a.stdout)
    keys = [key(o) for o in oids]
    inc = all(x < y for x, y in zip(keys, keys[1:]))
    bad = [(x, y) for x, y in zip(oids, oids[1:]) if key(x) >= key(y)]
    R.check(a.returncode == 0 and len(oids) > 1000 and inc,
            "a walk of .1 through node03 is one strictly increasing walk "
            "(%d objects)" % len(oids), a.stderr[-300:] + str(bad[:3]))
    ib = walk_oids(gw("snmpbulkwalk", "node03", [IB]).stdout)
    R.check(ib and [o for o in oids if under(o, IB)] == ib,
            "... holding the gateway's IB MIB subtree whole (%d)" % len(ib))
    # Subtrees of snmpd's that do not change between two walks.
    for base in (".1.3.6.1.6.3.16", HR + ".2.3.1.2", ".1.3.6.1.2.1.11.1",
                 ".1.3.6.1.4.1.2021.10.1.2"):
        want = walk_oids(direct("snmpbulkwalk", "node03", [base]).stdout)
        R.check(want and [o for o in oids if under(o, base)] == want,
                "... and snmpd's %s whole (%d)" % (base, len(want)))
    R.check(not any(under(o, ".1.3.6.1.2.1.1.9") for o in oids),
            "... with the gateway's system group, not the host's "
            "(no sysORTable)")
    # The host has more interfaces than node03 has ports: none of its
    # rows may slip into the gateway's IF-MIB tables between them (a
    # GETNEXT arriving from the table before carries that table's OID).
    ifs = [".1.3.6.1.2.1.2", ".1.3.6.1.2.1.31.1.1"]
    mine = [o for o in oids if any(under(o, b) for b in ifs)]
    ref = [o for o in walk_oids(gw("snmpbulkwalk", "node06", [".1"]).stdout)
           if any(under(o, b) for b in ifs)]
    host = parse_vars(direct("snmpget", "node03", [".1.3.6.1.2.1.2.1.0"])
                      .stdout).get(".1.3.6.1.2.1.2.1.0", (None, "?"))[1]
    R.check(ref and mine == ref,
            "... and IF-MIB as the gateway serves it for a node without "
            "agent (%d objects; the host's agent has %s interfaces)" %
            (len(ref), host), str(sorted(set(mine) ^ set(ref))[:6]))


def check_no_agent():
    before = tstats()
    for _ in range(5):
        a = gw("snmpget", "node06", [HR + ".1.1.0", ".1.3.6.1.2.1.1.5.0"])
    after = tstats()
    v = parse_vars(a.stdout)
    R.check(v.get(HR + ".1.1.0", (None,))[0] == "No Such Object available "
            "on this agent at this OID" or "No Such Object" in a.stdout,
            "node06 (no agent): noSuchObject outside the gateway's "
            "subtrees", a.stdout)
    R.check(v.get(".1.3.6.1.2.1.1.5.0") == ("STRING", "node06"),
            "... and the gateway's own sysName", a.stdout)
    for _ in range(5):
        gw("snmpget", "node06", [HR + ".1.1.0"])
    again = tstats()
    R.check(after.get("probes", -1) - before.get("probes", 0) <= 1 and
            again.get("probes") == after.get("probes"),
            "... at one probe per probe interval, not one per request "
            "(probes %s -> %s -> %s over 10 requests)" %
            (before.get("probes"), after.get("probes"), again.get("probes")))
    w = walk_oids(gw("snmpbulkwalk", "node06", [".1"]).stdout)
    outside = [o for o in w if not (under(o, ".1.3.6.1.2.1.1") or
                                    under(o, ".1.3.6.1.2.1.2") or
                                    under(o, ".1.3.6.1.2.1.31") or
                                    under(o, IB) or
                                    under(o, ".1.3.6.1.4.1") or
                                    under(o, ".1.0.8802.1.1.2") or  # LLDP
                                    under(o, ".1.3.6.1.6.3.10.2.1"))]
    R.check(w and not outside and not any(under(o, HR) for o in w),
            "a walk of node06 holds only the gateway's subtrees (%d)" %
            len(w), str(outside[:5]))


def check_tenant():
    path = os.path.join(fab.dir, "ibsnmpgw.yaml")
    text = open(path).read()
    text = text.replace(
        "  users:\n",
        "  users:\n"
        "    - name: tenant5\n"
        "      auth-protocol: SHA-256\n"
        "      auth-passphrase: \"tenant-five-passphrase\"\n"
        "      priv-protocol: AES\n"
        "      priv-passphrase: \"tenant-five-passphrase\"\n"
        "      nodes: {regex: '^node05( |$)'}\n", 1)
    open(path, "w").write(text)
    fab.reload()

    def sec(ctx):
        return ["-v3", "-l", "authPriv", "-u", "tenant5", "-a", "SHA-256",
                "-A", "tenant-five-passphrase", "-x", "AES", "-X",
                "tenant-five-passphrase", "-n", ctx]
    before = tstats()
    hid = gw("snmpget", None, [HR + ".1.1.0"], sec=sec("node03"))
    seen = tstats()
    ok = gw("snmpget", None, [HR + ".1.1.0"], sec=sec("node05"))
    R.check(HR + ".1.1.0" not in parse_vars(hid.stdout) and
            seen.get("requests") == before.get("requests"),
            "a v3 user whose selector hides node03 gets nothing of its "
            "agent, and nothing is tunneled", hid.stdout + hid.stderr)
    R.check(parse_vars(ok.stdout).get(HR + ".1.1.0", ("",))[0] ==
            "Timeticks", "... while it reaches node05's agent over v3",
            ok.stdout + ok.stderr)


def check_killed_agent():
    """The agent is frozen while a GETBULK is out, killed, and what
    comes instead is the start of an answer: segment 1 of several, for
    the request's RAddress, and never the rest (sent from the node's own
    LID by tun-send -r once the agent's ibsim slot is free)."""
    pids = []
    with open(os.path.join(fab.dir, "pids")) as f:
        for line in f:
            name, pid = line.split()
            if name == "ibsnmp-tunneld":
                pids.append(int(pid))
    # The launcher starts them in --tunnel order: node03 first.
    victim = pids[0]
    # The forged segments must come while the request is out: its two
    # tries (tunnel.timeout-ms, 1 s by default) are made to outlast the
    # kill, gc and tun-send on a loaded machine, and still end well
    # within request-timeout-ms.
    conf = os.path.join(fab.dir, "ibsnmpgw.yaml")
    text = open(conf).read()
    open(conf, "w").write(text.replace("\ntunnel:\n", "\ntunnel:\n"
                                       "  timeout-ms: %d\n" % TRY_MS, 1))
    mark = len(fab.log())
    fab.reload()
    if "\ntunnel:\n" not in text or "not applied" in fab.log()[mark:]:
        raise RuntimeError("tunnel.timeout-ms %d not set: %s" % (
            TRY_MS, fab.log()[mark:]))
    gwlid = int(re.search(r"mad: using .* LID (\d+)", fab.log()).group(1))
    last = int(re.search(r"last RAddress (\d+)",
                         fab.ctl("node", "node03").stdout).group(1))
    before = tstats()
    os.kill(victim, signal.SIGSTOP)
    t0 = time.time()
    proc = subprocess.Popen(
        ["snmpbulkget"] + fab.v2("node03") +
        ["-On", "-t", "30", "-r", "0", "-Cr60", fab.endpoint, HR + ".4"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The forged segments match only a request already out to the agent.
    out_ok = simlib.wait(lambda: tstats().get("pending", 0) >
                         before.get("pending", 0), 10, 0.05)
    t1 = time.time()
    os.kill(victim, signal.SIGKILL)
    subprocess.run([simlib.SIM, "gc", fab.dir], capture_output=True,
                   timeout=30)
    part = b"".join(seg(1, 160, LID["node03"], raddr=last + k,
                        data=b"\x30\x82\x10\x00" + bytes(156))
                    for k in range(1, 4))
    sent = subprocess.run([TUN_SEND, "-r", str(gwlid)], input=part,
                          capture_output=True, env=dict(
                              fab.diag_env, SIM_HOST="node03"),
                          cwd=fab.dir, timeout=30)
    forged = time.time() - t1
    out, err = proc.communicate(timeout=60)
    took = (time.time() - t0) * 1000
    mid = tstats()
    matched = (mid.get("segments-in", 0) - before.get("segments-in", 0)) - \
        (mid.get("unmatched", 0) - before.get("unmatched", 0))
    R.check(out_ok and sent.returncode == 0 and matched >= 1,
            "the start of an answer reached the request (%d of 3 segments "
            "matched it, %.1f s after it went out) and the rest never "
            "came" % (matched, forged),
            "%s %s %s" % (sent.stderr, before, mid))
    R.check(("genErr" in err or "general failure" in err) and
            took < TIMEOUT_MS,
            "an agent killed mid-answer: genErr in %d ms "
            "(request-timeout-ms %d)" % (took, TIMEOUT_MS), out + err)
    st = {}

    def drained():
        st.update(tstats())
        return st.get("pending", -1) == 0
    R.check(simlib.wait(drained, 10, 0.1), "... nothing left pending",
            str(st))
    a = gw("snmpget", "node03", [HR + ".1.1.0", ".1.3.6.1.2.1.1.5.0"])
    R.check("No Such Object" in a.stdout and
            parse_vars(a.stdout).get(".1.3.6.1.2.1.1.5.0") ==
            ("STRING", "node03"),
            "... then the node (probed again: no agent) answers the "
            "gateway's subtrees alone", a.stdout + a.stderr)
    R.check(fab.pid() and os.path.exists("/proc/%d" % fab.pid()),
            "... and the gateway runs on")


def seg(num, length, slid, raddr=1, attr=0x11, method=3, data=b""):
    m = bytearray(256)
    m[0], m[1], m[2], m[3] = 1, 8, 1, method
    m[16:18] = attr.to_bytes(2, "big")
    m[56:60] = raddr.to_bytes(4, "big")
    m[60], m[61] = length, num
    m[62:64] = slid.to_bytes(2, "big")
    m[64:64 + len(data)] = data[:192]
    return bytes(m)


def check_faults():
    gwlid = int(re.search(r"mad: using .* LID (\d+)", fab.log()).group(1))
    me = LID["node04"]
    rnd = random.Random(13)
    bad = [seg(1 | 0x80, 0, me), seg(1 | 0x80, 200, me), seg(0, 10, me),
           seg(1 | 0x80, 10, LID["node05"]),            # spoofed
           seg(1 | 0x80, 10, me, attr=0x10),            # CommunityInfo
           seg(2 | 0x80, 10, me, raddr=3),              # unmatched
           seg(1, 160, me, raddr=9)]                    # no request waits
    bad += [bytes([1, 8, 1, 3]) + bytes(rnd.getrandbits(8)
                                        for _ in range(252))
            for _ in range(40)]
    before = tstats()
    env = dict(fab.diag_env, SIM_HOST="node04")
    out = subprocess.run([TUN_SEND, "-r", str(gwlid)], input=b"".join(bad),
                         capture_output=True, env=env, cwd=fab.dir,
                         timeout=30)
    # Counted once the gateway has read them (later on a loaded machine).
    after = {}

    def counted():
        after.update(tstats())
        return all(after.get(k, 0) > before.get(k, 0)
                   for k in ("malformed", "spoofed", "unmatched"))
    simlib.wait(counted, 15, 0.1)
    R.check(out.returncode == 0 and
            after.get("malformed", 0) > before.get("malformed", 0) and
            after.get("spoofed", 0) > before.get("spoofed", 0) and
            after.get("unmatched", 0) > before.get("unmatched", 0),
            "%d malformed, spoofed and unmatched segments to the gateway: "
            "counted and dropped" % len(bad),
            "%s\n%s\n%s" % (out.stderr, before, after))
    a = parse_vars(gw("snmpget", "node05", [".1.3.6.1.2.1.1.5.0"]).stdout)
    R.check(a.get(".1.3.6.1.2.1.1.5.0") == ("STRING", "node05"),
            "... and node05's agent still answers through the gateway",
            str(a))


def main():
    check_prefer_bulk()
    check_concurrent()
    check_values()
    check_bulk()
    check_walk()
    check_no_agent()
    check_faults()
    check_tenant()
    check_killed_agent()
    # Persisted: whether each node has an agent, and when it was probed.
    rows = dict(l.split("|", 1) for l in fab.sql(
        "SELECT substr(description, 1, 6), tunnel || '|' || "
        "(tunnel_probed > 0) FROM nodes WHERE description LIKE 'node0%'")
        .splitlines() if "|" in l)
    R.check(rows.get("node05") == "1|1" and rows.get("node06") == "2|1",
            "the inventory records node05's agent and node06's lack of "
            "one, with the probe time", str(rows))
    out = fab.ctl("node", "node05").stdout + fab.ctl("node", "node06").stdout
    R.check("tunnel: prefer, agent answers (probed " in out and
            "tunnel: auto, no agent (probed " in out,
            "ctl node shows each node's tunnel mode and what the probe "
            "found", out)


def cleanup():
    for p in SNMPDS:
        p.terminate()
        p.wait(5)
    shutil.rmtree(TMP, ignore_errors=True)


try:
    simlib.run(main, fab, R)
finally:
    cleanup()
