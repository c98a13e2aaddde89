#!/usr/bin/python3
"""IB SNMP Tunneling, node end (ibsnmp-tunneld) on the simulated fabric.

Two hosts (node03, node05) each run a stock snmpd on a loopback port and,
through the launcher's --tunnel, ibsnmp-tunneld attached to the host. A
requester on node04 (tests/sim/tun-send, the same codec) sends SNMP
messages through the fabric; net-snmp's tools talk to it through a UDP
relay in this script. Checks: the ClassPortInfo probe (and no answer
from a host without an agent), sysDescr and HOST-RESOURCES-MIB equal to
what each snmpd answers directly, a GETBULK answer of many segments
arriving whole, a wrong community and a source LID not allowed getting
no answer (and counted), a whole walk of HOST-RESOURCES-MIB through the
tunnel, and malformed segments (a fault injection through tun-send -r:
bad lengths and numbers, gaps, spoofed SourceLIDs, 127 segments without
an end, random octets) counted and dropped while the agent keeps
answering, and no fixed tick: the agent does not wake up while idle,
nor while a message waits at its stopped snmpd. The gateway's tunnel
client is tested in tunnelgw.py."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars, wait  # noqa: E402

simlib.skip_if_missing()
if shutil.which("snmpd") is None:
    print("1..0 # SKIP snmpd is not installed")
    sys.exit(77)

TMP = tempfile.mkdtemp(prefix="ibsnmpgw-tunnel-")
HOSTS = {"node03": simlib.free_udp_port(), "node05": simlib.free_udp_port()}
# LIDs: nodeNN port 1 = 101 + (NN - 1) * 2 (the bundled fabric).
LID = {"node03": 105, "node04": 107, "node05": 109, "node06": 111,
       "node07": 113}
# node06 is allowed by its port GUID (the agents ask the SA for its LID).
GUID06 = "0x0002c90300bb0601"
TUN_SEND = os.path.join(simlib.BUILD, "tests", "sim", "tun-send")
SNMPDS = []


for h, port in HOSTS.items():
    SNMPDS.append(simlib.start_snmpd(TMP, h, port))
R = simlib.Report()
fab = simlib.Fabric(extra=sum((["--tunnel", "%s=udp:127.0.0.1:%d" % hp]
                               for hp in HOSTS.items()), []) +
                    ["--tunnel-allow", str(LID["node04"]),
                     "--tunnel-allow-guid", GUID06],
                    extra_yaml="polling:\n  - name: none\n    groups: []\n"
                    "    interval: 86400\n")


def tun_env(host):
    return dict(os.environ, IBSIM_SOCKNAME=fab.info["ibsim-socket"],
                SIM_HOST=host, LD_PRELOAD=simlib.UMAD2SIM)


def tun_send(lid, data, via="node04", probe=False, raw=False):
    """tun-send, an ibsim client of its own. It gives up on an answer
    after 3 s; one that hangs past 20 s is stuck in umad2sim (attaching,
    or its exit handler: tests/sim/README.md), not waiting for the
    agent: it is killed, its client slot freed, and it runs once more."""
    args = [TUN_SEND] + (["-p"] if probe else []) + \
        (["-r"] if raw else []) + [str(lid)]
    for attempt in (1, 2):
        try:
            return subprocess.run(args, input=data, capture_output=True,
                                  env=tun_env(via), cwd=fab.dir,
                                  timeout=20)
        except subprocess.TimeoutExpired:
            print("# tun-send %s hung (attempt %d): killed" %
                  (" ".join(args[1:]), attempt))
            subprocess.run([simlib.SIM, "gc", fab.dir],
                           capture_output=True, timeout=30)
    return subprocess.CompletedProcess(args, 124, b"", b"tun-send hung "
                                       b"twice")


class Relay:
    """UDP on 127.0.0.1 to tun-send LID (one ibsim client per message,
    from node `via`): net-snmp's tools reach a host through the tunnel."""

    def __init__(self, lid, via="node04"):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.lid, self.via, self.log = lid, via, []
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while True:
            data, peer = self.sock.recvfrom(65535)
            out = tun_send(self.lid, data, self.via)
            self.log.append(out.stderr.decode(errors="replace").strip())
            if out.returncode == 0:
                self.sock.sendto(out.stdout, peer)


def snmp(tool, port, oids, community="public", extra=()):
    return subprocess.run([tool, "-v2c", "-c", community, "-On", "-t", "8",
                           "-r", "0"] + list(extra) +
                          ["udp:127.0.0.1:%d" % port] + oids,
                          capture_output=True, text=True, timeout=120)


def stats(host):
    pid = None
    with open(os.path.join(fab.dir, "pids")) as f:
        pids = [int(l.split()[1]) for l in f if l.startswith(
            "ibsnmp-tunneld ")]
    log = os.path.join(fab.dir, "tunneld-%s.log" % host)
    idx = list(HOSTS).index(host)
    pid = pids[idx]
    before = open(log).read().count("tunneld: probes")
    os.kill(pid, signal.SIGUSR1)
    end = time.time() + 5
    while time.time() < end:
        text = open(log).read()
        if text.count("tunneld: probes") > before:
            line = text.strip().splitlines()[-1]
            return dict((k, int(v)) for k, v in re.findall(
                r"(\S+) (\d+)", line.split("tunneld: ", 1)[1]))
        time.sleep(0.05)
    return {}


def tunneld_pid(host):
    with open(os.path.join(fab.dir, "pids")) as f:
        pids = [int(l.split()[1]) for l in f if l.startswith(
            "ibsnmp-tunneld ")]
    return pids[list(HOSTS).index(host)]


def wakeups(pid):
    """Context switches of all the process's threads, and its user+sys
    CPU in clock ticks."""
    n = 0
    for t in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/status" % (pid, t)) as f:
            n += sum(int(l.split()[1]) for l in f
                     if l.startswith(("voluntary_ctxt_switches",
                                      "nonvoluntary_ctxt_switches")))
    with open("/proc/%d/stat" % pid) as f:
        st = f.read().rsplit(")", 1)[1].split()
    return n, int(st[11]) + int(st[12])


def rx_queue(port):
    """Octets waiting unread at the UDP socket on 127.0.0.1:port."""
    with open("/proc/net/udp") as f:
        for line in f.readlines()[1:]:
            col = line.split()
            if col[1] == "0100007F:%04X" % port:
                return int(col[4].split(":")[1], 16)
    return 0


def over(pid, seconds):
    a = wakeups(pid)
    time.sleep(seconds)
    b = wakeups(pid)
    return b[0] - a[0], b[1] - a[1]


def check_event_driven():
    """No fixed tick: idle, and with a message at a stopped agent, the
    agent sleeps (it polled every 20 ms idle and every 1 ms with a
    request out: 150 and 1,000 wake-ups in these windows). A wake-up or
    two may come from the SM's SMInfo polls of the IsSM port."""
    pid = tunneld_pid("node05")
    sw, cpu = over(pid, 3)
    R.check(sw <= 15 and cpu <= 2, "node05's agent idle for 3 s: %d "
            "wake-ups, %d CPU ticks" % (sw, cpu))
    get = bytes.fromhex(
        "302902010104067075626c6963a01c020401020305020100020100300e300c"
        "06082b060102010105000500")             # sysName.0
    snmpd = SNMPDS[list(HOSTS).index("node05")]
    snmpd.send_signal(signal.SIGSTOP)
    msg = os.path.join(TMP, "get-sysname")
    with open(msg, "wb") as f:
        f.write(get)
    try:
        with open(msg, "rb") as f:
            req = subprocess.Popen([TUN_SEND, str(LID["node05"])], stdin=f,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE,
                                   env=tun_env("node04"), cwd=fab.dir)
        # Measured once the agent has passed it on: it waits unread at
        # the stopped snmpd's socket.
        waiting = wait(lambda: rx_queue(HOSTS["node05"]) > 0, 10, 0.05)
        sw, cpu = over(pid, 1)
    finally:
        snmpd.send_signal(signal.SIGCONT)
    out, err = req.communicate(timeout=20)
    R.check(waiting and sw <= 15 and cpu <= 2, "... and for 1 s with a "
            "message at its stopped snmpd: %d wake-ups, %d CPU ticks" %
            (sw, cpu))
    R.check(req.returncode == 0 and b"node05" in out,
            "... whose answer goes back once snmpd runs again",
            err.decode(errors="replace"))


def main():
    out = tun_send(LID["node03"], b"", probe=True)
    R.check(out.returncode == 0 and "ClassVersion 1" in out.stdout.decode(),
            "ClassPortInfo probe of node03's agent", out.stdout + out.stderr)
    out = tun_send(LID["node06"], b"", via="node04", probe=True)
    R.check(out.returncode != 0, "no agent on node06: no answer",
            out.stdout + out.stderr)

    for host, port in HOSTS.items():
        relay = Relay(LID[host])
        oids = [".1.3.6.1.2.1.1.1.0", ".1.3.6.1.2.1.1.5.0",
                ".1.3.6.1.2.1.25.2.2.0", ".1.3.6.1.2.1.25.1.3.0"]
        via = parse_vars(snmp("snmpget", relay.port, oids).stdout)
        direct = parse_vars(snmp("snmpget", port, oids).stdout)
        R.check(len(via) == 4 and via == direct,
                "%s through the tunnel: sysDescr, sysName, hrMemorySize, "
                "hrSystemInitialLoadDevice as snmpd answers them" % host,
                "%s\n%s" % (via, direct))
        big = snmp("snmpbulkget", relay.port, [".1.3.6.1.2.1.1"],
                   extra=["-Cr60"])
        segs = [int(m) for m in re.findall(r"and (\d+) segments",
                                           relay.log[-1] if relay.log else "")]
        R.check(len(parse_vars(big.stdout)) == 60 and segs and segs[0] > 5,
                "%s: a GETBULK of 60 varbinds arrives whole (%s segments)" %
                (host, segs), big.stderr + str(relay.log[-1:]))

    relay = Relay(LID["node05"])
    # hrStorage lists the host's mounts, which may change between the
    # two walks while other tests run: they are compared again, up to
    # five times (a missing row through the tunnel fails all five).
    for tries in range(1, 6):
        walk = snmp("snmpbulkwalk", relay.port, [".1.3.6.1.2.1.25.2"])
        direct = snmp("snmpbulkwalk", HOSTS["node05"],
                      [".1.3.6.1.2.1.25.2"])
        a, b = parse_vars(walk.stdout), parse_vars(direct.stdout)
        if len(a) > 20 and set(a) == set(b):
            break
    R.check(len(a) > 20 and set(a) == set(b),
            "a walk of hrStorage through the tunnel has snmpd's %d OIDs "
            "(try %d)" % (len(b), tries), "%d vs %d %s: %s" % (
                len(a), len(b), walk.stderr, sorted(set(a) ^ set(b))[:6]))

    before = stats("node03")
    bad = snmp("snmpget", Relay(LID["node03"]).port, [".1.3.6.1.2.1.1.1.0"],
               community="wrong")
    after = stats("node03")
    R.check("Timeout" in bad.stderr and after.get("refused", 0) ==
            before.get("refused", 0) + 1,
            "a wrong community gets no answer and is counted as refused",
            "%s %s %s" % (bad.stderr, before, after))
    get = bytes.fromhex(
        "302902010104067075626c6963a01c020401020304020100020100300e300c"
        "06082b060102010101000500")
    out = tun_send(LID["node03"], get, via="node07")
    after2 = stats("node03")
    R.check(out.returncode != 0 and after2.get("refused", 0) ==
            after.get("refused", 0) + 1,
            "a source LID that is not allowed (node07) gets no answer and "
            "is counted as refused", "%s %s" % (out.stderr, after2))
    log = open(os.path.join(fab.dir, "tunneld-node03.log")).read()
    out = tun_send(LID["node03"], get, via="node06")
    R.check(out.returncode == 0 and b"tunneled host node03" in out.stdout
            and "port GUID %s is LID %d" % (GUID06, LID["node06"]) in log,
            "node06, allowed by port GUID (its LID %d from the SA), gets "
            "the answer" % LID["node06"], "%s\n%s" % (out.stderr, log))
    check_event_driven()
    faults()


def seg(num, length, data=b"", slid=107, raddr=77, attr=0x11, method=3,
        tid=1):
    m = bytearray(256)
    m[0], m[1], m[2], m[3] = 1, 8, 1, method
    m[8:16] = tid.to_bytes(8, "big")
    m[16:18] = attr.to_bytes(2, "big")
    m[56:60] = raddr.to_bytes(4, "big")
    m[60], m[61] = length, num
    m[62:64] = slid.to_bytes(2, "big")
    m[64:64 + len(data)] = data[:192]
    return bytes(m)


def faults():
    import random
    rnd = random.Random(12)
    bad = [seg(1 | 0x80, 0), seg(1 | 0x80, 200), seg(0, 10),
           seg(0x80, 10), seg(2 | 0x80, 10),            # no segment 1
           seg(1 | 0x80, 10, slid=999),                 # spoofed
           seg(1 | 0x80, 10, attr=0x10),                # CommunityInfo
           seg(1 | 0x80, 10, method=0x7f)]
    bad += [seg(1, 192)] + [seg(n, 192) for n in range(2, 128)]
    bad += [seg(1, 192, b"\x30\x82" + bytes(190)), seg(3 | 0x80, 5)]
    bad += [bytes([1, 8, 1, 3]) + bytes(rnd.getrandbits(8)
                                        for _ in range(252))
            for _ in range(60)]
    before = stats("node03")
    for i in range(0, len(bad), 100):
        out = tun_send(LID["node03"], b"".join(bad[i:i + 100]), raw=True)
        R.check(out.returncode == 0, "fault injection batch %d sent" % i,
                out.stderr)
    time.sleep(1.5)          # past the reassembly timeout
    # Counted once the agent has read them (later on a loaded machine).
    # Whatever else asks node03 meanwhile (the gateway's probes) is
    # answered: none of these made a PDU, so no answer more than PDUs.
    got = {}

    def counted():
        got.update(stats("node03") or {})
        return got.get("malformed", 0) > before.get("malformed", 0) and \
            got.get("spoofed", 0) > before.get("spoofed", 0)
    wait(counted, 15, 0.5)
    after = got
    d_ans = after.get("answers", 0) - before.get("answers", 0)
    d_pdus = after.get("pdus", 0) - before.get("pdus", 0)
    R.check(after and after["malformed"] > before.get("malformed", 0) and
            after["spoofed"] > before.get("spoofed", 0) and
            d_ans <= d_pdus,
            "%d malformed segments: counted (malformed %d, spoofed %d), "
            "none answered (%d answers for %d PDUs meanwhile)" % (
                len(bad), after.get("malformed", -1),
                after.get("spoofed", -1), d_ans, d_pdus),
            "%s %s" % (before, after))
    relay = Relay(LID["node03"])
    ok = parse_vars(snmp("snmpget", relay.port,
                         [".1.3.6.1.2.1.1.5.0"]).stdout)
    R.check(list(ok.values()) == [("STRING", "node03")],
            "... and the agent still answers", str(ok))


def cleanup():
    for p in SNMPDS:
        p.terminate()
        p.wait(5)
    shutil.rmtree(TMP, ignore_errors=True)


try:
    simlib.run(main, fab, R)
finally:
    cleanup()
