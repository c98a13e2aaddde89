#!/usr/bin/python3
"""The standby pair (docs/ha.md) on one simulated fabric: gateway A on
the launcher's gateway host, B on another host, each with its own
state, control socket and SNMP port, one engine ID, one HA key.

A is made active and B standby through `ctl ha`. Checks: B answers no
SNMP and sends no PerfMgt MAD; a wrong key is refused with a logged
reason; counters polled on A move (PerformanceSet); the replication
link cut (B killed) and restored catches up; A is killed with SIGKILL
while informs wait unacknowledged; `ctl ha master` on B: a v3 GET works
with the same engine ID and higher boots, no counter is lower than A
served (a reset in the gap moves ifCounterDiscontinuityTime), and the
informs A had queued arrive from B with their sequence numbers and no
gap. A HELLO whose SNMP access digest differs is refused. Split brain: A
restarted, caught up, then made active beside B: both log it, both send
ibsnmpgwHaSplitBrain, ctl shows it; A made standby again ends it."""

import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars, wait  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
SINK_PORT = simlib.free_udp_port()
ENGINE = "0x80001f888001020304050607080910"
IF = ".1.3.6.1.2.1.2.2.1"
IN_ERR = IF + ".14.1"
DISC = ".1.3.6.1.2.1.31.1.1.1.19.1"
BOOTS = ".1.3.6.1.6.3.10.2.1.2.0"
EID = ".1.3.6.1.6.3.10.2.1.1.0"
fab = simlib.Fabric(extra=["--no-gateway"], extra_yaml=(
    "cache:\n  ttl:\n    counters: 1\n"
    "polling:\n"
    "  - name: fast\n"
    "    match: {name: node03}\n"
    "    groups: [counters]\n"
    "    interval: 1\n"
    "    ttl: 1\n"
    "notify:\n"
    "  targets:\n"
    "    - name: sink\n"
    "      address: \"udp:127.0.0.1:%d\"\n"
    "      type: inform\n"
    "      community: public\n"
    "      timeout-ms: 300\n"
    "      retries: 0\n" % SINK_PORT))
BIN = os.environ.get("IBSNMPGW", os.path.join(simlib.BUILD, "gateway",
                                              "ibsnmpgw"))
HA_A, HA_B = simlib.free_udp_port(), simlib.free_udp_port()


class Gw:
    """One gateway of the pair: its YAML, state, log and process."""

    def __init__(self, name, host, key):
        self.name, self.host, self.proc = name, host, None
        self.dir = os.path.join(fab.dir, name)
        os.makedirs(self.dir, exist_ok=True)
        self.port = simlib.free_udp_port()
        self.endpoint = "udp:127.0.0.1:%d" % self.port
        self.yaml = os.path.join(self.dir, "ibsnmpgw.yaml")
        self.logf = os.path.join(self.dir, "ibsnmpgw.log")
        self.write_yaml(key)

    def write_yaml(self, key):
        base = open(os.path.join(fab.dir, "ibsnmpgw.yaml")).read()
        base = re.sub(r'(?m)^  listen: .*$', '  listen: ["%s"]' %
                      self.endpoint, base, count=1)
        base = base.replace("snmp:\n", "snmp:\n  engine-id: %s\n" % ENGINE,
                            1)
        base = re.sub(r'  path: "[^"]*"', '  path: "%s/inventory.db"\n'
                      '  control-socket: "%s/ctl.sock"' % (self.dir,
                                                          self.dir), base)
        me, peer = (HA_A, HA_B) if self.name == "A" else (HA_B, HA_A)
        with open(self.yaml, "w") as f:
            f.write(base + "ha:\n  role: auto\n  listen: 127.0.0.1:%d\n"
                    "  peer: 127.0.0.1:%d\n  key-file: %s\n  name: gw%s\n"
                    "  takeover-timeout: 2\n" % (me, peer, key, self.name))

    def start(self):
        env = dict(fab.diag_env, SIM_HOST=self.host)
        log = open(self.logf, "a")
        self.proc = subprocess.Popen([BIN, "-f", "-c", self.yaml], env=env,
                                     cwd=self.dir, stdout=log, stderr=log)
        with open(os.path.join(fab.dir, "pids"), "a") as f:
            f.write("ibsnmpgw %d\n" % self.proc.pid)
        R.check(wait(lambda: "sweep 1 done" in self.log() or
                     self.proc.poll() is not None, 60, 0.05) and
                self.proc.poll() is None, "%s: started, first sweep done" %
                self.name, self.log()[-2000:])

    def kill(self, sig=signal.SIGKILL):
        self.proc.send_signal(sig)
        self.proc.wait(30)
        subprocess.run([simlib.SIM, "gc", fab.dir], capture_output=True,
                       timeout=30)

    def log(self):
        try:
            return open(self.logf, errors="replace").read()
        except OSError:
            return ""

    def ctl(self, *args):
        return subprocess.run([BIN, "-c", self.yaml, "ctl"] + list(args),
                              capture_output=True, text=True, timeout=30)

    def stat(self, line, key):
        out = self.ctl("stats").stdout
        m = re.search(r"^%s .*\b%s (\d+)" % (line, key), out, re.M)
        return int(m.group(1)) if m else None

    def get(self, oids, sec=None, node=None):
        out = fab.snmp("snmpget", sec or fab.v2(node), oids, timeout=2,
                       endpoint=self.endpoint)
        return parse_vars(out.stdout)


def hello(key, access):
    """A connector's HELLO (docs/ha.md) MACed with key over zeros,
    carrying the access digest given (32 octets)."""
    import hashlib
    import hmac
    import struct
    payload = b"\x07" * 16 + b"\x02" + struct.pack(">I", 1) + \
        bytes([15]) + bytes.fromhex(ENGINE[2:]) + b"\x03gwX" + access
    hdr = b"IBHA\x01\x01\x00\x00" + struct.pack(">I", len(payload)) + \
        b"\x00" * 12
    return hdr + payload + hmac.new(key, b"\x00" * 16 + hdr + payload,
                                    hashlib.sha256).digest()


def refuse_a(a, data, reason, what):
    from socket import create_connection
    before = a.log().count("refused a frame")
    s = create_connection(("127.0.0.1", HA_A))
    s.sendall(data)
    s.shutdown(1)
    ok = wait(lambda: a.log().count("refused a frame") > before, 5, 0.05)
    s.close()
    line = (re.findall(r"refused a frame.*", a.log()) or ["?"])[-1]
    if isinstance(reason, str):
        reason = (reason,)
    R.check(ok and any(r in line for r in reason), "%s is refused: %s" % (what, line))


def served(g):
    v = g.get([IN_ERR, DISC], node="node03")
    return v.get(IN_ERR, (None, None))[1], v.get(DISC, (None, None))[1]


def perfset(value):
    fab.cmd('PerformanceSet "node03"[1] PortCounters.PortRcvErrors=%d' %
            value)


def wait_served(g, want, limit=15):
    return wait(lambda: served(g)[0] == want, limit, 0.2)


def status(g):
    return g.ctl("ha", "status")


def main():
    key = os.path.join(fab.dir, "ha.key")
    with open(key, "w") as f:
        f.write("0123456789abcdef0123456789abcdef\n")
    os.chmod(key, 0o600)
    hosts = ["node0%d" % i for i in range(1, 9)]
    host_b = [h for h in hosts if h not in (fab.info["gw-host"],
              fab.info["sm-host"], "node03", "node04")][0]
    a, b = Gw("A", fab.info["gw-host"], key), Gw("B", host_b, key)
    n = subprocess.run([BIN, "-n", "-c", a.yaml], capture_output=True,
                       text=True)
    R.check(n.returncode == 0, "ibsnmpgw -n accepts the ha: section",
            n.stdout + n.stderr)
    a.start()
    b.start()
    R.check("error" not in a.ctl("ha", "master").stdout, "ctl ha master "
            "on A")
    R.check(wait(lambda: status(b).returncode == 0, 20, 0.1),
            "B took a snapshot from A and is eligible (ctl ha status "
            "exits 0): " + status(b).stdout.replace("\n", "; "))
    R.check(wait(lambda: "\nprotected" in status(a).stdout, 10, 0.1),
            "A is protected: " + status(a).stdout.replace("\n", "; "))
    R.check(a.get([BOOTS]) != {}, "A answers SNMP")
    R.equal(b.get([BOOTS]), {}, "B (standby) answers no SNMP")
    time.sleep(2)
    R.equal(b.stat("mad", "perfmgt"), 0, "B sends no PerfMgt MAD")
    R.check((a.stat("mad", "perfmgt") or 0) > 0, "A polls PerfMgt")

    # Counters on A, and the link cut (B killed) and restored.
    perfset(100)
    R.check(wait_served(a, 100), "A serves ifInErrors 100")
    b.kill()
    R.check(wait(lambda: "unprotected" in status(a).stdout, 10, 0.1),
            "link cut: A unprotected: " + status(a).stdout.split("\n")[3])
    perfset(500)
    R.check(wait_served(a, 500), "A serves 500 while B is down")
    b.start()
    R.check(wait(lambda: status(b).returncode == 0, 20, 0.1),
            "restarted B caught up (snapshot) and is eligible")
    key = check_reload(a, b, key)     # the pair's key is key2 now
    perfset(900)
    R.check(wait_served(a, 900), "A serves 900")
    top, disc_a = served(a)
    boots_a = int(a.get([BOOTS])[BOOTS][1])
    eid_a = a.get([EID])[EID][1]

    # A wrong key, a replayed frame and a truncated one are refused,
    # each with its reason logged.
    m = re.search(r"^access ([0-9a-f]{64})$", a.ctl("ha", "status").stdout,
                  re.M)
    access = bytes.fromhex(m.group(1)) if m else b"\0" * 32
    R.check(m and m.group(1) == re.search(
        r"^access ([0-9a-f]{64})$", b.ctl("ha", "status").stdout,
        re.M).group(1), "ctl ha status: both show the same SNMP access "
        "digest (users, communities)", a.ctl("ha", "status").stdout)
    refuse_a(a, hello(b"not-the-key-of-this-pair-at-all", access),
             "bad MAC", "a HELLO MACed with a wrong key")
    good = hello(open(key, "rb").read().strip(), access)
    refuse_a(a, hello(open(key, "rb").read().strip(), b"\x5a" * 32),
             "SNMP access differs", "a HELLO of the right key whose SNMP "
             "access (users, communities) differs")
    refuse_a(a, good + good, ("out of sequence", "bad MAC"), "a HELLO "
             "replayed in the same connection")
    refuse_a(a, good[:40], "truncated", "a truncated frame")

    # Informs wait on A (nobody listens); A is killed.
    R.check(wait(lambda: re.search(r"^sink .*\bqueued [1-9]",
                                   a.ctl("targets").stdout, re.M)
                 is not None, 10, 0.1),
            "informs wait in A's queue")
    qa = [int(x) for x in re.findall(r"^\S+ (\d+) ", a.ctl("events")
                                       .stdout, re.M)]
    ok, sent, now = simlib.wait_replicated(lambda: status(a).stdout)
    R.check(ok, "B acknowledged every frame A had sent (%d; now %s)" %
            (sent, now))
    a.kill()
    perfset(40)         # reset in the gap: below the 900 read before
    sink = simlib.TrapSink(port=SINK_PORT)
    R.equal(status(b).returncode, 0, "B eligible after A's death")
    R.check("error" not in b.ctl("ha", "master").stdout,
            "ctl ha master on B")
    got = b.get([BOOTS, EID], sec=fab.v3())
    R.equal(got.get(EID, (0, 0))[1], eid_a, "v3 GET on B: the same engine "
            "ID")
    R.check(int(got.get(BOOTS, (0, 0))[1]) > boots_a, "boots went up (%s "
            "-> %s)" % (boots_a, got.get(BOOTS)))
    R.check(wait(lambda: served(b)[0] is not None, 15, 0.2), "B serves "
            "node03")
    vals = []
    end = time.time() + 4
    while time.time() < end:
        vals.append(served(b))
        time.sleep(0.3)
    low = [v for v, d in vals if v is not None and v < top]
    R.equal(low, [], "no ifInErrors on B below the %s A served" % top)
    R.check(vals[-1][0] == top + 40, "reset in the gap: B continues from "
            "the last served value (%s + 40 = %s)" % (top, vals[-1][0]))
    R.check(vals[-1][1] is not None and disc_a is not None and
            vals[-1][1] != disc_a, "ifCounterDiscontinuityTime moved")
    check_informs(sink, qa)
    check_split_brain(a, b, sink)
    sink.stop()
    b.kill(signal.SIGTERM)


def reload(g, edit=None):
    """SIGHUP g after edit(yaml text) -> text; its reload log lines."""
    if edit:
        with open(g.yaml) as f:
            text = edit(f.read())
        with open(g.yaml, "w") as f:
            f.write(text)
    n = len(re.findall(r"reload: .*", g.log()))
    g.proc.send_signal(signal.SIGHUP)
    R.check(wait(lambda: re.search(r"reload: (%s: \d+ polling|.*not "
                                   r"applied)" % re.escape(g.yaml),
                                   "\n".join(re.findall(r"reload: .*",
                                                        g.log())[n:]))
                 is not None, 10, 0.05), "%s reloaded" % g.name)
    return "\n".join(re.findall(r"reload: .*", g.log())[n:])


def check_reload(a, b, key):
    """The ha: settings reload: a new key on one side parts the pair
    (refused, logged), on both it joins again; a key file that cannot be
    read leaves the reload unapplied; ha.listen moved (and the peer's
    ha.peer) takes effect without a restart."""
    R.check(wait(lambda: "\nprotected" in status(a).stdout, 15, 0.1),
            "A protected before the reloads")
    key2 = key + "2"
    with open(key2, "w") as f:
        f.write("fedcba9876543210fedcba9876543210\n")
    os.chmod(key2, 0o600)

    def use_key2(t):
        return t.replace("key-file: %s\n" % key, "key-file: %s\n" % key2)
    out = reload(a, use_key2)
    R.check("ha: key changed" in out, "A's reload: the key changed, the "
            "link starts again (%s)" % out.replace("\n", "; "))
    R.check(wait(lambda: "\nunprotected" in status(a).stdout and
                 "refused" in b.log() + a.log(), 15, 0.1),
            "keys differ: A unprotected, a HELLO refused: " +
            status(a).stdout.split("\n")[3])
    reload(b, use_key2)
    R.check(wait(lambda: "\nprotected" in status(a).stdout and
                 status(b).returncode == 0, 20, 0.1),
            "B has the new key too: A protected again: " +
            status(a).stdout.replace("\n", "; "))
    out = reload(b, lambda t: t.replace(key2, key2 + ".missing"))
    R.check("not applied" in out, "a key file that is not there: B's "
            "reload not applied (%s)" % out.replace("\n", "; "))
    R.check(status(b).returncode == 0 and "\nprotected" in
            status(a).stdout, "and the pair goes on")
    reload(b, lambda t: t.replace(key2 + ".missing", key2))
    new = simlib.free_udp_port()
    out = reload(b, lambda t: t.replace("listen: 127.0.0.1:%d" % HA_B,
                                        "listen: 127.0.0.1:%d" % new))
    R.check("ha: listen changed" in out, "B's ha.listen moved (%s)" %
            out.replace("\n", "; "))
    reload(a, lambda t: t.replace("peer: 127.0.0.1:%d" % HA_B,
                                  "peer: 127.0.0.1:%d" % new))
    R.check(wait(lambda: "\nprotected" in status(a).stdout and
                 status(b).returncode == 0, 20, 0.1),
            "A protected with B at its new address: " +
            status(a).stdout.replace("\n", "; "))
    ss = subprocess.run(["ss", "-Hltn", "sport = :%d" % new],
                        capture_output=True, text=True).stdout
    R.check("127.0.0.1:%d" % new in ss, "B listens at the new port")
    ss = subprocess.run(["ss", "-Hltn", "sport = :%d" % HA_B],
                        capture_output=True, text=True).stdout
    R.equal(ss.strip(), "", "and no longer at the old one")
    return key2


def check_split_brain(a, b, sink):
    """A comes back as standby and takes B's snapshot; then A is made
    active too (a cut VRRP path does this, ctl here): both log the split
    brain and notify it, ctl shows it; A made standby again ends it."""
    a.start()
    R.check(wait(lambda: status(a).returncode == 0, 30, 0.1),
            "A restarted as standby and is eligible: " +
            status(a).stdout.replace("\n", "; "))
    n = len(sink.notes())
    R.check("error" not in a.ctl("ha", "master").stdout, "ctl ha master "
            "on A too: two actives")
    R.check(wait(lambda: "split brain" in a.log() and
                 "split brain" in b.log(), 15, 0.1),
            "both A and B log the split brain")

    def splits():
        return [g for t, g, _p, _vb in simlib.gw_notes(sink)[n:]
                if t == simlib.GW_BASE + ".7.0.10"]
    R.check(wait(lambda: len(splits()) >= 2, 15, 0.1),
            "both notify it (ibsnmpgwHaSplitBrain): %d" % len(splits()))
    # (An active stays eligible: keepalived failing both actives'
    # track_scripts would leave none.)
    R.check(re.search(r"^ha .*split-brain 1", a.ctl("stats").stdout, re.M)
            is not None and "unprotected: split brain" in
            status(a).stdout, "ctl: A shows split-brain 1 and is "
            "unprotected because of it", a.ctl("stats").stdout +
            status(a).stdout)
    # keepalived's BACKUP (the notify script's ctl ha yield) on A, which
    # knows B is active: A stands down.
    out = a.ctl("ha", "yield").stdout
    R.check(out.strip() == "standby", "ctl ha yield on A in the split "
            "brain: A stands down (%s)" % out.strip())
    R.check(wait(lambda: "\nprotected" in status(b).stdout and
                 status(a).returncode == 0, 30, 0.1),
            "one active again: B protected, A a standby with its snapshot: "
            + status(b).stdout.replace("\n", "; "))
    # What A posted while active in the split (its coldStart and its
    # failover, its own split-brain record) is in B's history now,
    # marked, once; B's own records are not doubled; and the split
    # brain's notifications were not sent again.
    tag = "[gwA, split brain]"

    def adopted(g):
        return [l for l in g.ctl("events", "200").stdout.splitlines()
                if tag in l]
    R.check(wait(lambda: len(adopted(b)) >= 2, 15, 0.2),
            "B kept the events A posted in the split: %s" % adopted(b),
            a.log()[-1500:])
    texts = [l.split(" ", 3)[-1] for l in adopted(b)]
    R.check(any("gwA took over as the active gateway" in t for t in texts)
            and len(texts) == len(set(texts)),
            "... A's coldStart among them, each once: %s" % texts)
    R.check(not any("split brain: gwB and gwA" in l for l in adopted(b)),
            "B's own split-brain record is not among them (nor doubled)")
    R.check(wait(lambda: len(adopted(a)) == len(adopted(b)), 15, 0.2),
            "and replicated back to A (%d)" % len(adopted(a)))
    sent = [d for d in sink.notes() if tag.encode().hex() in
            str(d["varbinds"]) or tag in str(d["varbinds"])]
    R.equal(sent, [], "none of them notified again")
    # The other order: the BACKUP comes before a handshake has shown B
    # active (a VRRP cut shorter than the reconnect). A stays active,
    # yield pending, and stands down at the handshake.
    n = a.log().count("standing down")
    R.check("error" not in a.ctl("ha", "master").stdout, "A active again")
    out = a.ctl("ha", "yield").stdout.strip()
    print("# ctl ha yield right after ctl ha master: %s" % out)
    R.check(out == "standby" or out.startswith("active: unprotected"),
            "ctl ha yield: standby, or active until the peer is (%s)" % out)
    R.check(wait(lambda: a.log().count("standing down") > n and
                 "role standby" in status(a).stdout, 15, 0.1),
            "A stood down as soon as it learnt B is active: " +
            status(a).stdout.replace("\n", "; "))
    R.check("yield-pending" not in status(a).stdout, "nothing pending")
    R.check(wait(lambda: "\nprotected" in status(b).stdout and
                 status(a).returncode == 0, 30, 0.1),
            "B protected again, A eligible: "
            + status(b).stdout.replace("\n", "; "))
    # A lone active (no standby connected: A stopped) told BACKUP stays
    # active and says so.
    a.kill(signal.SIGTERM)
    R.check(wait(lambda: "\nunprotected" in status(b).stdout, 15, 0.1),
            "B unprotected once A stopped")
    out = b.ctl("ha", "yield").stdout.strip()
    R.check(out.startswith("active: unprotected") and
            "yield-pending yes" in status(b).stdout and
            "role active" in status(b).stdout,
            "ctl ha yield on a lone active: it stays active (%s)" % out)
    R.check("error" not in b.ctl("ha", "master").stdout and
            "yield-pending" not in status(b).stdout,
            "ctl ha master clears the pending yield")
    check_switchover(a, b)


def check_switchover(a, b):
    """A plain switchover (keepalived moves the VIP between two healthy
    nodes): B demoted hands over what it posted while active, every one
    of which A has (replicated): A keeps none again."""
    a.start()
    R.check(wait(lambda: status(a).returncode == 0 and "\nprotected" in
                 status(b).stdout, 30, 0.1),
            "A back as B's standby, B protected")
    n = b.log().count("ha: handed ")
    R.check("error" not in b.ctl("ha", "backup").stdout and "error" not in
            a.ctl("ha", "master").stdout, "switchover: B backup, A master")
    R.check(wait(lambda: b.log().count("ha: handed ") > n, 30, 0.1),
            "B handed its events to A after A's snapshot: " +
            (re.findall(r"ha: handed .*", b.log()) or ["none"])[-1])
    R.check(wait(lambda: "\nprotected" in status(a).stdout, 30, 0.1),
            "A protected by B")
    R.equal([l for l in a.ctl("events", "200").stdout.splitlines()
             if "[gwB, split brain]" in l], [],
            "A had every one of them: none kept twice")
    a.kill(signal.SIGTERM)


def check_informs(sink, qa):
    def seqs():
        return simlib.event_seqs(sink)
    R.check(wait(lambda: len(set(seqs())) >= 2, 20, 0.1),
            "B's informs arrive: sequence numbers %s" % seqs())
    got = sorted(set(seqs()))
    R.check(any(s in got for s in qa), "events A had queued (%s) arrive "
            "from B" % qa)
    R.equal(got, list(range(got[0], got[-1] + 1)) if got else [],
            "no gap in the sequence numbers")
    names = simlib.failover_names(sink)
    R.check("gwA" in names and "gwB" in names, "ibsnmpgwHaFailover names "
            "the old and the new active (%s)" % names)


simlib.run(main, fab, R)
