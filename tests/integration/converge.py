#!/usr/bin/python3
"""Convergence (docs/events.md, "Convergence"): whatever the fabric did,
once it stops changing the gateway agrees with it within 10 s, in three
places: every port's state in the inventory, IF-MIB ifOperStatus, and
the last link notification sent for the port.

Seeded random sequences on the bundled fabric, with the SM's Reports
flowing (--sm-events) and a standby SM: flap storms of random length and
pace on host links and on switch-to-switch links; an Unlink left down;
a ReLink after a long outage; an SM restart; an SM failover to the
standby (kill-sm). After each sequence the test waits until the SM has
settled (two iblinkinfo readings alike with no port in Init or Armed),
then until the gateway agrees, and fails if that took longer than the
bound. iblinkinfo (infiniband-diags) is the oracle.

CONVERGE_SEED picks the sequences (default 1); CONVERGE_SECONDS > 0
runs fabric after fabric, with seeds SEED, SEED+1, ..., until that time
is spent (`make chaos`); the seed of a failing sequence is printed so it
can be replayed: CONVERGE_SEED=N CONVERGE_ONLY=1 runs that fabric's
sequences alone."""

import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
BOUND = 10.0            # s, while the SM's Reports flow (docs/events.md)
SETTLE_TIMEOUT = 120    # s for the SM to finish (a failover is ~10 s)
STUCK = 30              # s of the same Init or Armed ports: SM is done
SEQS = int(os.environ.get("CONVERGE_SEQS", "5"))
IF_OPER = ".1.3.6.1.2.1.2.2.1.8"
LINK_DOWN, LINK_UP = ".1.3.6.1.6.3.1.1.5.3", ".1.3.6.1.6.3.1.1.5.4"
STATES = {"Down": 1, "Initialize": 2, "Init": 2, "Armed": 3, "Active": 4}
NAMES = simlib.read_name_map()
# node01 and node03 run the SMs, node02 the gateway, node04 iblinkinfo
# (simlib's diag host): their links stay up.
HOSTS = ["node%02d" % i for i in range(5, 9)]
MIN_PORTS = 200         # an iblinkinfo reading that saw the fabric
LEAVES = ["leaf%02d" % i for i in range(1, 5)]


def make_fabric(sink):
    # Production discovery (no periodic sweep in the test's time: what
    # converges is the Reports and the port watch), a short hold-down.
    return simlib.Fabric(
        extra=["--sm-events", "--standby-sm", "node03",
               "--notify", "udp:127.0.0.1:%d" % sink.port],
        extra_yaml="polling:\n  - name: none\n    groups: []\n"
        "    interval: 86400\n"
        "discovery:\n  interval: 300\n  safety-interval: 3600\n"
        "events:\n  hold-down: 3\n")


LAST = {}


def oracle(fab):
    """{(node GUID, port): PortState} from iblinkinfo, or None."""
    out = fab.diag(["iblinkinfo"])
    if out.returncode != 0:
        return None
    got, guid, ca = {}, None, False
    LAST["raw"] = [l for l in out.stdout.splitlines()
                   if "Init" in l or "Armed" in l]
    for line in out.stdout.splitlines():
        m = re.match(r"Switch: (0x[0-9a-f]+) ", line)
        if m:
            guid, ca = int(m.group(1), 16), False
            continue
        if line.startswith("CA: "):
            guid, ca = None, True
            continue
        m = re.match(r"\s+(?:(0x[0-9a-f]+)\s+)?\d+\s+(\d+)\[.*?==\(.*?"
                     r"(\w+)/\s*(\w+)\)==>", line)
        if not m or m.group(3) not in STATES:
            continue
        port = int(m.group(2))
        if ca and m.group(1):
            # A CA port's GUID is its node GUID plus the port number
            # (ibsim; tests/sim/README.md).
            node = int(m.group(1), 16) - port
        elif not ca and guid is not None:
            node = guid
        else:
            continue
        got[(node, port)] = STATES[m.group(3)]
    return got


def wait_sm_settled(fab):
    """The SM has finished: two readings alike, none Init or Armed; or
    the same readings for STUCK seconds with some ports Init or Armed
    (opensm ignores a switch's trap 128 once it has had more than ten
    within its aging time, "Ignoring noisy traps", and may leave a
    port it never swept for in Init: what the gateway shows must then
    be that)."""
    prev, since, end = None, time.time(), time.time() + SETTLE_TIMEOUT
    while time.time() < end:
        now = oracle(fab)
        LAST["oracle"] = now
        if now != prev:
            since = time.time()
        if now is not None and len(now) < MIN_PORTS:
            now = None      # it did not see the whole fabric: again
        if now and now == prev and (all(s in (1, 4) for s in
                                        now.values()) or
                                    time.time() - since >= STUCK):
            return now
        prev = now
        time.sleep(0.5)
    return None


def unsettled(fab):
    """Why the SM did not settle: the ports iblinkinfo last read in a
    transient state, and the end of opensm's log."""
    now = LAST.get("oracle")
    ports = "no iblinkinfo reading" if now is None else ", ".join(
        "0x%016x[%d] state %d" % (g, p, s) for (g, p), s in
        sorted(now.items()) if s not in (1, 4))
    with open(os.path.join(fab.dir, "opensm.log"), errors="replace") as f:
        tail = f.read().splitlines()[-6:]
    # Where the SMs wait (under umad2sim a MAD that is never answered
    # is never timed out), and the gateway's MAD counters.
    stacks = []
    with open(os.path.join(fab.dir, "pids")) as f:
        for line in f:
            name, pid = line.split()
            if name != "opensm":
                continue
            out = subprocess.run(
                ["gdb", "-batch", "-p", pid, "-ex",
                 "thread apply all bt 8"], capture_output=True, text=True,
                timeout=60)
            stacks += ["opensm %s:" % pid] + [
                l for l in out.stdout.splitlines() if l.startswith("#")
                or l.startswith("Thread")]
    mad = [l for l in fab.ctl("stats").stdout.splitlines()
           if l.startswith(("mad ", "sm-events "))]
    text = "transient: %s\n%s\n%s\n%s\n%s" % (
        ports, "\n".join(LAST.get("raw", [])), "\n".join(tail),
        "\n".join(mad), "\n".join(stacks))
    with open(os.path.join(simlib.BUILD, "tests", "integration",
                           "converge.unsettled.log"), "a") as f:
        f.write(text + "\n")
    return text


def inventory(fab, guids):
    inv = {}
    for g in guids:
        out = fab.ctl("node", "0x%016x" % g).stdout
        for m in re.finditer(r"^port +(\d+) .*?state (\d+)", out, re.M):
            inv[(g, int(m.group(1)))] = int(m.group(2))
    return inv


def if_oper(fab, guid):
    out = fab.snmp("snmpbulkwalk", fab.v2("0x%016x" % guid), [IF_OPER],
                   timeout=2, retries=1)
    return {int(m.group(1)): int(m.group(2)) for m in re.finditer(
        r"^%s\.(\d+) = INTEGER: (\d+)" % re.escape(IF_OPER), out.stdout,
        re.M)}


def last_words(sink):
    last = {}
    for t, g, p, _ in simlib.gw_notes(sink):
        if t in (LINK_DOWN, LINK_UP):
            last[(g, p)] = t
    return last


def mismatches(fab, sink, want):
    """What the gateway shows unlike the fabric, one line each."""
    bad = []
    guids = sorted({g for g, _ in want})
    inv = inventory(fab, guids)
    last = last_words(sink)
    oper = {g: if_oper(fab, g) for g in guids}
    bad += ["0x%016x: no ifOperStatus in its context" % g for g in guids
            if not oper[g]]
    for (g, p), s in sorted(want.items()):
        name = "0x%016x[%d]" % (g, p)
        if inv.get((g, p)) != s:
            bad.append("%s inventory state %s, fabric %d" % (
                name, inv.get((g, p)), s))
        o = oper[g].get(p)
        # IF-MIB: Active up(1), Down down(2), Init/Armed dormant(5).
        if o is not None and o != {4: 1, 1: 2}.get(s, 5):
            bad.append("%s ifOperStatus %d, fabric state %d" % (name, o, s))
        w = last.get((g, p))
        if w is not None and (w == LINK_DOWN) != (s == 1):
            bad.append("%s last notification %s, fabric state %d" % (
                name, "linkDown" if w == LINK_DOWN else "linkUp", s))
    return bad


class Run:
    """One fabric's sequences, from one seed."""

    def __init__(self, seed):
        self.seed = seed
        self.rng = random.Random(seed)
        self.sink = simlib.TrapSink("public")
        self.fab = make_fabric(self.sink)
        self.down = []          # links left down: (node, port)
        self.failed_over = False

    def flap(self, node, port):
        if (node, port) in self.down:
            return "nothing (%s[%d] is down: no flaps)" % (node, port)
        n = self.rng.randint(1, 15)
        pace = self.rng.choice([0, 0.05, 0.2, 0.5])
        for _ in range(n):
            self.fab.cmd('Unlink "%s"[%d]' % (node, port))
            time.sleep(pace * self.rng.random())
            self.fab.cmd('ReLink "%s"[%d]' % (node, port))
            time.sleep(pace * self.rng.random())
        return "%d flaps of %s[%d], pace %.2f s" % (n, node, port, pace)

    def step(self, last):
        kinds = ["flap-host", "flap-switch", "unlink", "sm-restart"]
        if self.down:
            kinds.append("relink")
        # Every fabric ends with a failover: after it there is no
        # standby left (and no SM restart: the launcher restarts the
        # first master).
        kind = "failover" if last else self.rng.choice(kinds)
        if kind == "flap-host":
            return self.flap(self.rng.choice(HOSTS), self.rng.randint(1, 2))
        if kind == "flap-switch":
            return self.flap(self.rng.choice(LEAVES),
                             self.rng.randint(5, 8))
        if kind == "unlink":
            node = self.rng.choice(HOSTS + LEAVES)
            port = self.rng.randint(1, 2) if node in HOSTS else \
                self.rng.randint(5, 8)
            if (node, port) in self.down:
                return "nothing (%s[%d] is down already)" % (node, port)
            self.fab.cmd('Unlink "%s"[%d]' % (node, port))
            self.down.append((node, port))
            return "Unlink %s[%d], left down" % (node, port)
        if kind == "relink":
            # A long outage: the port watch let go of them long ago.
            time.sleep(self.rng.uniform(4, 10))
            for node, port in self.down:
                self.fab.cmd('ReLink "%s"[%d]' % (node, port))
            what = "ReLink after the outage: %s" % self.down
            self.down = []
            return what
        if kind == "sm-restart":
            out = subprocess.run([simlib.SIM, "restart-sm", self.fab.dir],
                                 capture_output=True, text=True, timeout=120)
            if out.returncode != 0:
                raise RuntimeError("restart-sm: " + out.stderr)
            return "SM restarted"
        out = subprocess.run([simlib.SIM, "kill-sm", "--wait", "60",
                              self.fab.dir], capture_output=True, text=True,
                             timeout=120)
        if out.returncode != 0:
            raise RuntimeError("kill-sm: " + out.stderr)
        self.failed_over = True
        return "SM failover to the standby"

    def check(self, i, what):
        want = wait_sm_settled(self.fab)
        R.check(want is not None, "seed %d step %d (%s): the SM settles" % (
            self.seed, i, what), "" if want else unsettled(self.fab))
        if want is None:
            return False
        t0 = time.time()
        bad = mismatches(self.fab, self.sink, want)
        while bad and time.time() - t0 < BOUND + 5:
            time.sleep(0.25)
            bad = mismatches(self.fab, self.sink, want)
        took = time.time() - t0
        ok = not bad and took <= BOUND
        R.check(ok, "seed %d step %d (%s): the gateway agrees with the "
                "fabric on %d ports after %.1f s (bound %.0f s)" % (
                    self.seed, i, what, len(want), took, BOUND),
                "\n".join(bad[:20]) + "\n" +
                self.fab.ctl("events", 12).stdout +
                self.fab.ctl("stats").stdout)
        if not ok:
            print("# replay: CONVERGE_SEED=%d CONVERGE_ONLY=1 %s" % (
                self.seed, " ".join(sys.argv)))
        return ok

    def go(self, seqs):
        ok = self.check(0, "start")
        for i in range(1, seqs + 1):
            if not ok:
                break
            ok = self.check(i, self.step(i == seqs))
        return ok

    def stop(self):
        if R.failed:
            simlib.keep_logs(self.fab)
        self.fab.stop()
        self.sink.stop()


def main():
    seed = int(os.environ.get("CONVERGE_SEED", "1"))
    seconds = float(os.environ.get("CONVERGE_SECONDS", "0"))
    only = os.environ.get("CONVERGE_ONLY")
    end = time.time() + seconds
    seeds = []
    while True:
        run = Run(seed)
        try:
            ok = run.go(SEQS)
        finally:
            run.stop()
        seeds.append(seed)
        if not ok or only or seconds <= 0 or time.time() >= end:
            break
        seed += 1
    print("# seeds run: %s" % " ".join(str(s) for s in seeds))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - reported, then exit 1
        import traceback
        R.check(False, "the test ran to its end: %s: %s" % (
            type(e).__name__, e), traceback.format_exc())
    R.finish()
