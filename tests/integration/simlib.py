"""Shared helpers for the integration tests: the simulated fabric, the
net-snmp command-line tools, infiniband-diags as the oracle, and a small
TAP-style reporter that ends with 'N passed, M failed'."""

import atexit
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TOP = os.environ.get("top_srcdir") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("top_builddir") or TOP
SIM = os.path.join(TOP, "tests", "sim", "ibsnmpgw-sim")
TOPO = os.path.join(TOP, "tests", "sim", "topologies", "fabric.topo")
NAMEMAP = os.path.join(TOP, "tests", "sim", "node-name-map")
UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
SMA = ".1.3.6.1.3.117.3.1"
STATS = ".1.3.6.1.4.1.8072.9999.9999.117.2"   # IBSNMPGW-MIB statistics

REQUIRED = ["ibsim", "opensm", "smpquery", "snmpget", "snmpbulkwalk"]


def skip_unless_netns():
    """Exit 77 unless root, keepalived and ip netns are there (a pair,
    `ibsnmpgw-sim start --ha`)."""
    if os.geteuid() != 0:
        print("SKIP: network namespaces need root")
        sys.exit(77)
    for prog in ("keepalived", "ip"):
        if shutil.which(prog) is None:
            print("SKIP: %s not found" % prog)
            sys.exit(77)
    probe = "ibgw-probe-%d" % os.getpid()
    if subprocess.run(["ip", "netns", "add", probe],
                      capture_output=True).returncode != 0:
        print("SKIP: ip netns add does not work here")
        sys.exit(77)
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)


def skip_if_missing():
    missing = [p for p in REQUIRED if shutil.which(p) is None]
    if not os.path.exists(UMAD2SIM):
        missing.append(UMAD2SIM)
    if missing:
        print("SKIP: missing " + ", ".join(missing))
        sys.exit(77)


class Report:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, cond, what, detail=""):
        self.n += 1
        if cond:
            print("ok %d - %s" % (self.n, what))
        else:
            self.failed += 1
            print("not ok %d - %s" % (self.n, what))
            if detail:
                for line in str(detail).splitlines()[:20]:
                    print("#   " + line)
        sys.stdout.flush()
        return cond

    def equal(self, got, want, what):
        return self.check(got == want, what,
                          "got:  %r\nwant: %r" % (got, want))

    def finish(self):
        print("%d passed, %d failed" % (self.n - self.failed, self.failed))
        sys.exit(1 if self.failed or self.n == 0 else 0)


class Fabric:
    """ibsim + opensm + ibsnmpgw through tests/sim/ibsnmpgw-sim."""

    def __init__(self, topo=TOPO, extra=(), extra_yaml=None):
        """extra_yaml: further top-level configuration sections."""
        self.dir = tempfile.mkdtemp(prefix="ibsnmpgw-it-")
        env = dict(os.environ)
        env.setdefault("IBSNMPGW",
                       os.path.join(BUILD, "gateway", "ibsnmpgw"))
        extra = list(extra)
        if extra_yaml is not None:
            path = os.path.join(self.dir, "extra.yaml")
            with open(path, "w") as f:
                f.write(extra_yaml)
            extra += ["--extra-yaml", path]
        out = subprocess.run([SIM, "start", topo, self.dir] + extra,
                             env=env, capture_output=True, text=True,
                             timeout=300)
        if out.returncode != 0:
            print(out.stdout + out.stderr)
            self.stop()
            raise RuntimeError("ibsnmpgw-sim start failed")
        self.info = dict(l.split(": ", 1) for l in out.stdout.splitlines()
                         if ": " in l)
        atexit.register(self.stop)
        self.endpoint = self.info["endpoint"]
        self.endpoint6 = self.info.get("endpoint6")
        self.community = self.info["community"]
        self.v3user = self.info["v3-user"]
        self.v3auth = self.info["v3-auth"].split(":", 1)
        self.v3priv = self.info["v3-priv"].split(":", 1)
        self.diag_env = dict(os.environ, IBSIM_SOCKNAME=self.info[
            "ibsim-socket"], LD_PRELOAD=UMAD2SIM, SIM_HOST="node04")
        if "ibsim-server" in self.info:     # start --ha: ibsim's inet mode
            host, port = self.info["ibsim-server"].rsplit(":", 1)
            self.diag_env.update(IBSIM_SERVER_NAME=host,
                                 IBSIM_SERVER_PORT=port)

    def stop(self):
        if self.dir and os.path.isdir(self.dir):
            subprocess.run([SIM, "stop", self.dir], capture_output=True,
                           timeout=60)
            if os.environ.get("KEEP_SIM_DIR"):
                print("# kept " + self.dir)
            else:
                shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def cmd(self, line):
        subprocess.run([SIM, "cmd", self.dir, line], check=True,
                       timeout=30)

    def cmd_begin(self, line):
        """Start cmd(line): (its process, when ibsim carried the command
        out: ibsim flushes its answer to ibsim.log then, watched from
        here). The launcher's start-up and polling around it (100-450 ms
        on a 2-core machine) are not the gateway's time."""
        log = os.path.join(self.dir, "ibsim.log")
        size = os.path.getsize(log)
        p = subprocess.Popen([SIM, "cmd", self.dir, line])
        wait(lambda: os.path.getsize(log) > size or p.poll() is not None,
             30, 0.002)
        return p, time.time()

    @staticmethod
    def cmd_end(p):
        """As cmd(): the command started by cmd_begin must have worked."""
        if p.wait(30) != 0:
            raise subprocess.CalledProcessError(p.returncode, p.args)

    def pid(self, prog="ibsnmpgw"):
        """The newest process of that name the launcher or a test
        started (a restarted gateway is appended)."""
        found = None
        with open(os.path.join(self.dir, "pids")) as f:
            for line in f:
                name, pid = line.split()
                if name == prog:
                    found = int(pid)
        if found is None:
            raise RuntimeError("no %s pid" % prog)
        return found

    def sweep(self, timeout=30, abandoned_ok=False):
        """Force a discovery sweep (SIGUSR1) and wait until it is done
        (or, with abandoned_ok, given up because the local port looked
        down: corrupted answers can say so)."""
        pat = r"sweep \d+ done: |sweep abandoned" if abandoned_ok else \
            r"sweep \d+ done: "

        def done():
            return len(re.findall(pat, self.log()))
        before = done()
        os.kill(self.pid(), signal.SIGUSR1)
        end = time.time() + timeout
        while time.time() < end:
            if done() > before:
                return
            time.sleep(0.05)
        raise RuntimeError("sweep did not finish")

    def reload(self, timeout=10):
        """SIGHUP, and wait until the gateway has logged the outcome."""
        before = self.log().count("reload: ")
        os.kill(self.pid(), signal.SIGHUP)
        end = time.time() + timeout
        while time.time() < end:
            if self.log().count("reload: ") > before:
                return
            time.sleep(0.05)
        raise RuntimeError("reload was not logged")

    def reconfigure(self, old, new):
        """Replace text old by new in the gateway's configuration, then
        reload it."""
        conf = os.path.join(self.dir, "ibsnmpgw.yaml")
        with open(conf) as f:
            text = f.read()
        if old not in text:
            raise RuntimeError("not in the configuration: %r" % old)
        with open(conf, "w") as f:
            f.write(text.replace(old, new))
        self.reload()

    def ctl(self, *args):
        """ibsnmpgw ctl ARGS on this gateway's control socket."""
        return subprocess.run(
            [os.environ.get("IBSNMPGW", os.path.join(
                BUILD, "gateway", "ibsnmpgw")), "-c",
             os.path.join(self.dir, "ibsnmpgw.yaml"), "ctl"] +
            [str(a) for a in args], capture_output=True, text=True,
            timeout=30)

    def stats(self):
        """The gateway's IBSNMPGW-MIB statistics, {subid: value}."""
        out = self.snmp("snmpwalk", self.v2(), [STATS])
        return {int(k.split(".")[-2]): v[1] for k, v in
                parse_vars(out.stdout).items()}

    def counter(self, oid):
        """One scalar of the gateway's own context, None if absent."""
        out = self.snmp("snmpget", self.v2(), [oid])
        return parse_vars(out.stdout).get(oid, (None, None))[1]

    def gc(self, pid=None):
        """Free the ibsim slots of our killed umad2sim clients (once pid,
        if given, has exited). ibsim keeps a killed client's slot, and
        hands what comes for its port (an SM's Report) to the first
        client there: the dead one, so a process started again on that
        port never sees it (tests/sim/README.md)."""
        if pid is not None:
            wait(lambda: not running(pid), 10, 0.02)
        subprocess.run([SIM, "gc", self.dir], capture_output=True,
                       timeout=30)

    def restart_gateway(self, wait=2.5, preload=None, env=None,
                        sig=signal.SIGTERM):
        """Stop the gateway (sig: SIGKILL for a crash), start it again on
        the same fabric, config and state (appended to the pids file so
        stop() ends it). preload: a library loaded before umad2sim; env:
        more variables."""
        pid = self.pid()
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass            # the test stopped it itself
        for _ in range(100):
            if not running(pid):
                break
            time.sleep(0.05)
        if sig == signal.SIGKILL:
            self.gc()       # a killed umad2sim client keeps its slot
        before = self.log().count("sweep 1 done")
        env = dict(self.diag_env, SIM_HOST=self.info["gw-host"],
                   **(env or {}))
        if preload:
            env["LD_PRELOAD"] = preload + " " + UMAD2SIM
        log = open(os.path.join(self.dir, "ibsnmpgw.log"), "a")
        p = subprocess.Popen([os.environ.get("IBSNMPGW", os.path.join(
            BUILD, "gateway", "ibsnmpgw")), "-f", "-c",
            os.path.join(self.dir, "ibsnmpgw.yaml")], env=env,
            cwd=self.dir, stdout=log, stderr=log)
        with open(os.path.join(self.dir, "pids"), "a") as f:
            f.write("ibsnmpgw %d\n" % p.pid)
        self.gw_proc = p      # our child: its exit status can be had
        for _ in range(200):
            if self.log().count("sweep 1 done") > before:
                break
            time.sleep(0.05)
        time.sleep(wait)

    def sql(self, query):
        out = subprocess.run(["sqlite3", os.path.join(self.dir,
                                                       "inventory.db"),
                              query], capture_output=True, text=True,
                             timeout=30)
        return out.stdout.strip()

    def log(self):
        with open(os.path.join(self.dir, "ibsnmpgw.log"),
                  errors="replace") as f:
            return f.read()

    # SNMP -------------------------------------------------------------
    def v2(self, node=None, community=None):
        c = community or self.community
        return ["-v2c", "-c", c + ("@" + node if node else "")]

    def v3(self, context=None, auth=None):
        a = ["-v3", "-l", "authPriv", "-u", self.v3user,
             "-a", self.v3auth[0], "-A", auth or self.v3auth[1],
             "-x", self.v3priv[0], "-X", self.v3priv[1]]
        if context is not None:
            a += ["-n", context]
        return a

    def snmp(self, tool, sec, oids, timeout=3, retries=0, endpoint=None):
        cmd = [tool] + sec + ["-On", "-t", str(timeout), "-r",
                              str(retries), endpoint or self.endpoint] + \
            list(oids)
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=120)

    # infiniband-diags -------------------------------------------------
    def diag(self, args):
        out = subprocess.run(args, capture_output=True, text=True,
                             timeout=30, env=self.diag_env, cwd=self.dir)
        return out


def start_snmpd(tmp, host, port, conf_lines=""):
    """A stock snmpd for host on 127.0.0.1:port (community public, its
    own sysDescr and sysName, no MIB files), files under tmp. Returns the
    Popen; the caller stops it."""
    conf = os.path.join(tmp, "snmpd-%s.conf" % host)
    with open(conf, "w") as f:
        f.write("rocommunity public 127.0.0.1\n"
                "sysDescr tunneled host %s\n"
                "sysName %s\n%s" % (host, host, conf_lines))
    return subprocess.Popen(
        ["snmpd", "-f", "-Lf", os.path.join(tmp, "snmpd-%s.log" % host),
         "-C", "-c", conf, "-M", "/dev/null", "-m", "",
         "udp:127.0.0.1:%d" % port],
        env=dict(os.environ, SNMP_PERSISTENT_DIR=os.path.join(tmp, host)),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def free_udp_port():
    """A UDP port on 127.0.0.1 that nothing uses now."""
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class TrapSink:
    """pysnmp's notification receiver (tests/integration/trapsink.py) on
    host:port (127.0.0.1 unless given): v2c with community, and v3 traps
    of v3 = (user, auth pass, priv pass, sender engine ID hex) if
    given."""

    def __init__(self, community="public", v3=None, port=None,
                 host="127.0.0.1"):
        self.port = port or free_udp_port()
        self.dir = tempfile.mkdtemp(prefix="ibsnmpgw-sink-")
        self.out = os.path.join(self.dir, "sink.jsonl")
        args = ["%s:%d" % (host, self.port), community] + list(v3 or ())
        self.proc = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(os.path.dirname(
                os.path.abspath(__file__)), "trapsink.py")] + args,
            stdout=open(self.out, "a"),
            stderr=open(os.path.join(self.dir, "sink.err"), "w"))
        atexit.register(self.stop)
        end = time.time() + 15
        while time.time() < end and '"ready"' not in self._read():
            time.sleep(0.05)

    def _read(self):
        try:
            with open(self.out) as f:
                return f.read()
        except OSError:
            return ""

    def notes(self):
        """Every notification so far: dicts with pdu, security, model,
        context and varbinds ([oid, value]; strings as hex)."""
        import json
        # Only whole lines: the receiver may be writing the last one
        # (a read in between cut a JSON object in two).
        text = self._read()
        text = text[:text.rfind("\n") + 1]
        return [d for d in (json.loads(line) for line in
                            text.splitlines()) if "pdu" in d]

    def stop(self):
        if self.proc is not None:
            terminate(self.proc)
            self.proc = None
            shutil.rmtree(self.dir, ignore_errors=True)


def terminate(proc):
    """SIGTERM to a process the test started (SIGCONT first, should
    the test have stopped it), then SIGKILL if 5 s are not enough."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGCONT)
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


GW_BASE = ".1.3.6.1.4.1.8072.9999.9999.117"   # IBSNMPGW-MIB
TRAP_OID = ".1.3.6.1.6.3.1.1.4.1.0"


def gw_notes(sink, since=0):
    """The gateway's notifications at a TrapSink from index since:
    (snmpTrapOID, node GUID, port, {oid: value}); GUID and port from
    IBSNMPGW-MIB's event varbinds, 0 when absent."""
    got = []
    for d in sink.notes()[since:]:
        vb = dict(d["varbinds"])
        guid = [v for o, v in vb.items()
                if o.startswith(GW_BASE + ".6.1.1.3.")]
        port = [v for o, v in vb.items()
                if o.startswith(GW_BASE + ".6.1.1.5.")]
        got.append((vb.get(TRAP_OID), int(guid[0], 16) if guid else 0,
                    port[0] if port else 0, vb))
    return got


def event_seqs(sink):
    """ibsnmpgwEventIndex (the event's sequence number, the instance of
    its IBSNMPGW-MIB varbinds) of every notification at a TrapSink."""
    out = []
    for _trap, _g, _p, vb in gw_notes(sink):
        for o in vb:
            if o.startswith(GW_BASE + ".6.1.1.8."):
                out.append(int(o.split(".")[-1]))
                break
    return out


def failover_names(sink):
    """The gateway names the ibsnmpgwHaFailover notifications at a
    TrapSink carry (old and new active)."""
    return [bytes.fromhex(v).decode(errors="replace")
            for t, _g, _p, vb in gw_notes(sink) if t == GW_BASE + ".7.0.9"
            for o, v in vb.items() if o.startswith(GW_BASE + ".8.")]


def ha_frames(status_text):
    """(sent, acked) from an active's `ctl ha status`, (0, -1) without
    a standby."""
    m = re.search(r"^frames sent (\d+) acked (\d+)", status_text, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (0, -1)


def wait_replicated(status, timeout=10):
    """Until the standby has acknowledged every frame the active had
    sent when called (it acknowledges at each beat, once a second);
    status() returns the active's `ctl ha status` text. The frames
    (sent, acked) at the end, and whether it happened."""
    sent = ha_frames(status())[0]
    ok = sent > 0 and wait(lambda: ha_frames(status())[1] >= sent,
                           timeout, 0.1)
    return ok, sent, ha_frames(status())


def running(pid):
    """pid is a process that has not exited (a zombie has)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def wait(cond, timeout, step=0.01):
    """Poll cond until it holds or timeout seconds pass: the value that
    ended the wait. Not cond() asked once more, which a state that moves
    on (subscribing, up, subscribing again) can turn false."""
    end = time.time() + timeout
    while True:
        v = cond()
        if v or time.time() >= end:
            return v
        time.sleep(step)


def build_shim(fab):
    """Compile fault_shim.c into the fabric's directory: the .so path, or
    the compiler's complaint (None without a compiler)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    so = os.path.join(fab.dir, "fault_shim.so")
    out = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", so,
                          os.path.join(os.path.dirname(os.path.abspath(
                              __file__)), "fault_shim.c"),
                          "-libmad", "-libumad", "-ldl"],
                         capture_output=True, text=True, timeout=120)
    return so if out.returncode == 0 else out.stderr


def diff(got, want, limit=12):
    """The keys where two {oid: value} maps differ, for failure detail."""
    lines = []
    for k in sorted(set(got) | set(want)):
        if got.get(k) != want.get(k):
            lines.append("%s: got %r want %r" % (k, got.get(k), want.get(k)))
    return "\n".join(lines[:limit]) + "\n"


def parse_vars(text):
    """net-snmp -On output -> {oid: (type, value)}."""
    res = {}
    for line in text.splitlines():
        m = re.match(r"^(\.[0-9.]+) = (?:([A-Za-z0-9-]+): )?(.*)$", line)
        if not m:
            continue
        oid, typ, val = m.group(1), m.group(2) or "", m.group(3)
        if val.startswith("No more variables left in this MIB View"):
            continue    # endOfMibView after the last object: not a value
        if typ == "STRING":
            val = val.strip('"')
        elif typ == "Hex-STRING":
            val = val.replace(" ", "").lower()
        elif typ in ("INTEGER", "Gauge32", "Counter32", "Counter64"):
            val = int(re.sub(r"[^0-9-]", "", val.split("(")[-1]))
        elif typ == "Timeticks":
            val = int(val[1:val.index(")")])
        res[oid] = (typ, val)
    return res


def walk_rows(fab, context, entry, columns, tries=5):
    """A table walked in context as {index: {column: value}}, where
    every row has all of columns.  A walk is GetNext after GetNext, and
    no agent holds a table still between them (RFC 3416 4.2.2): a row
    added or removed during the walk comes back with some columns only.
    Such a walk raced a change and is taken again."""
    for _ in range(tries):
        out = fab.snmp("snmpbulkwalk", fab.v2(context), [entry]).stdout
        rows = {}
        for oid, (_t, v) in parse_vars(out).items():
            if oid.startswith(entry + "."):     # not the walk's end
                col, idx = oid[len(entry) + 1:].split(".", 1)
                rows.setdefault(idx, {})[int(col)] = v
        if all(set(columns) <= set(r) for r in rows.values()):
            return rows
    return {i: r for i, r in rows.items() if set(columns) <= set(r)}


def sm_lid(fab):
    """The master SM's LID as the gateway's SA client has it (ctl
    stats), or "1" before it knows one."""
    m = re.search(r"^sa sm-lid (\d+)", fab.ctl("stats").stdout, re.M)
    return m.group(1) if m else "1"


def last_poll(fab, guid):
    """ibsnmpgwNodeLastPoll of the node with that GUID: when its last
    polling round ended, in whole seconds (0 before its first), found by
    its ibsnmpgwNodeGuid in the fabric context."""
    node = GW_BASE + ".5.1.1"       # ibsnmpgwNodeEntry
    out = fab.snmp("snmpbulkwalk", fab.v2("fabric"), [node + ".3"]).stdout
    want = "%016x" % guid
    for oid, (_t, v) in parse_vars(out).items():
        if v.replace(" ", "").lower().endswith(want):
            idx = oid.rsplit(".", 1)[1]
            got = parse_vars(fab.snmp("snmpget", fab.v2("fabric"), [
                node + ".13." + idx]).stdout)
            return int(next(iter(got.values()))[1]) if got else 0
    return 0


def polled_twice(fab, guid, timeout=30):
    """Until two more of a node's polling rounds have ended, one second
    apart at least (the first may have begun before the call)."""
    first = last_poll(fab, guid)
    seen = {first}
    return wait(lambda: seen.add(last_poll(fab, guid)) or
                len(seen - {0, first}) >= 2, timeout, 0.3)


def parse_diag(text):
    """smpquery output -> {field: value}."""
    res = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z0-9 ]+?):\.+(.*)$", line)
        if m:
            res[m.group(1)] = m.group(2).strip()
    return res


def read_name_map(path=NAMEMAP):
    names = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'^\s*(0x[0-9a-fA-F]+)\s+"([^"]+)"', line)
            if m:
                names[m.group(2)] = int(m.group(1), 16)
    return names


def port_addr(name, port=1, names=None):
    """The -G address smpquery and perfquery take for a port of the
    bundled fabric (tests/sim/gen-topology): a switch's node GUID, a CA's
    (named nodeNN) node GUID + port."""
    guid = (names or read_name_map())[name]
    return "0x%016x" % (guid + port if name.startswith("node") else guid)


def run(main, fab, report):
    """A test script's entry: main(), then always stop the fabric and
    print the summary; an exception is a failed check, not a lost one."""
    try:
        main()
    except Exception as e:  # noqa: BLE001 - reported, then exit 1
        import traceback
        report.check(False, "the test ran to its end: %s: %s" %
                     (type(e).__name__, e), traceback.format_exc())
    finally:
        if report.failed:
            keep_logs(fab)
        fab.stop()
    report.finish()


def keep_logs(fab):
    """A failed test's fabric logs, next to its own log in the build
    tree (tests/integration/NAME.fail-*.log): CI and the ten-run loop
    keep *.log, and the fabric's directory goes with the test."""
    if not fab.dir or not os.path.isdir(fab.dir):
        return
    name = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    out = os.path.join(BUILD, "tests", "integration")
    # An HA pair's gateways log in gw1/ and gw2/ (ha.py's in A/ and
    # B/), and so do their keepalived (VRRP's transitions, the track
    # script's failures) and its notify script (each state, what ctl
    # answered). A second subnet's SM and a standby SM have logs of
    # their own.
    for f in ("ibsnmpgw.log", "opensm.log", "opensm-b.log",
              "opensm-standby.log", "ibsim.log",
              "gw1/ibsnmpgw.log", "gw2/ibsnmpgw.log",
              "A/ibsnmpgw.log", "B/ibsnmpgw.log",
              "gw1/keepalived.log", "gw2/keepalived.log",
              "gw1/notify.log", "gw2/notify.log"):
        src = os.path.join(fab.dir, f)
        if os.path.exists(src):
            dst = os.path.join(out, "%s.fail-%s" % (name,
                                                  f.replace("/", "-")))
            try:
                shutil.copyfile(src, dst)
                print("# kept %s" % dst)
            except OSError as e:
                print("# %s: %s" % (dst, e))
