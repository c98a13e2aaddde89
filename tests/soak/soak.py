#!/usr/bin/python3
"""The soak (issue 23, part 5): SOAK_SECONDS (default 600) on the
simulated fabric (tests/sim/topologies/fabric.topo) with all of this at
once:

- SNMP load from three processes (tests/soak/soakload.py): SNMPv2c GET,
  GETNEXT and GETBULK over every node's name, some GUID and lid-N names,
  the fabric context, the gateway's own context and the tunneled node;
  SNMPv3 (authPriv) the same over v3 context names; and a probe of one
  cached GET (ibSmaNodeString.0, NodeDescription TTL 3600 s) at a time,
  whose latencies are compared between the first and the last minute;
- a counter poll every second: a policy polls six nodes' PortCounters
  every second (ttl 1), and a client reads their ifHCInOctets and
  ifHCOutOctets every second, each never going back;
- a link flap every FLAP_PERIOD seconds: Unlink of one cable (host or
  switch-to-switch) or of all of a host's cables, in turn, out for
  DOWN_TIME seconds, ReLink;
- one SM restart in the middle (launcher restart-sm: opensm forgets the
  gateway's subscription), with a switch-to-switch cable pulled in the
  gap, before the gateway has subscribed again;
- SIGHUP every RELOAD_PERIOD seconds;
- a tunneled agent: a stock snmpd behind ibsnmp-tunneld at node03
  (launcher --tunnel);
- notifications to a receiver in the test (simlib.TrapSink, v2c
  informs).

Every SAMPLE_PERIOD seconds the gateway's RSS, open descriptors, CPU
time, SQLite WAL size and `ctl stats` are sampled. Pass criteria (issue
23): no error answer docs/errors.md does not explain; RSS, descriptors
and the WAL bounded; p99 latency of the cached GET in the last minute at
most 1.5 times that of the first; every event notified. A summary table
of the figures ends the output; tests/bench/README.md records a run.

Run by `make soak`; not part of `make check`. KEEP_SIM_DIR=1 keeps the
fabric's directory and the load's per-request records."""

import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import simlib  # noqa: E402

SECONDS = int(os.environ.get("SOAK_SECONDS", "600"))
FLAP_PERIOD = 20        # seconds between two flaps
DOWN_TIME = 6           # seconds a flapped cable stays out
RELOAD_PERIOD = 30
SAMPLE_PERIOD = 5
MINUTE = 60
CLIENT_TIMEOUT = 15     # > snmp.request-timeout-ms (10 s): silence is a bug
TTL_ERROR = 5           # cache.ttl.error, the default
PROBE_RATE, V2C_RATE, V2C_WINDOW, V3_RATE = 100, 150, 4, 30

# Bounds, each with its reason:
# RSS: what may still grow after the first minute is bounded by counts,
# not by time: the event history (1,000 events of a few hundred octets),
# the tunnel's answer cache (emptied at every reload; this load touches
# a few hundred OIDs), SQLite's page cache (2 MB, its default
# cache_size, mostly filled by the first sweeps and polls). 4 MB covers
# those and malloc's slack; a leak of 1 kB per request at this load
# (about 300 requests a second) would be 18 MB a minute.
RSS_GROWTH_MB = 4
# Descriptors: the gateway's are its listeners, sessions, the database
# and the umad device; a `ctl` connection or a notify session reopened
# by a reload may be open while a sample is taken.
FD_SLACK = 2
# WAL: SQLite checkpoints when the WAL passes 1,000 pages (4 MB with
# 4 kB pages, wal_autocheckpoint's default) and then reuses the file
# from its start; without journal_size_limit the file keeps its high
# water mark. 8 MB is that plus the largest transaction (the first
# counter readings of all 64 ports), twice over.
WAL_MAX_MB = 8
P99_FACTOR = 1.5

SMA = ".1.3.6.1.3.117.3.1"
NODESTR = SMA + ".1.1.0"
SYSDESCR, SYSUPTIME, SYSNAME = (".1.3.6.1.2.1.1.1.0", ".1.3.6.1.2.1.1.3.0",
                                ".1.3.6.1.2.1.1.5.0")
IFTABLE, IFXTABLE = ".1.3.6.1.2.1.2.2", ".1.3.6.1.2.1.31.1.1.1"
HR = ".1.3.6.1.2.1.25"
BASE = simlib.GW_BASE
LINK_DOWN, LINK_UP = ".1.3.6.1.6.3.1.1.5.3", ".1.3.6.1.6.3.1.1.5.4"
SUB_LOST, SUB_RESTORED = BASE + ".7.0.5", BASE + ".7.0.6"

NAMES = simlib.read_name_map()
NODE_UNREACH, NODE_REACH = BASE + ".7.0.1", BASE + ".7.0.2"


def cable(a, pa, b, pb):
    """A flap of one cable: both ends' linkDown, then linkUp."""
    ports = [(a, pa), (b, pb)]
    return {"name": "%s[%d]-%s[%d]" % (a, pa, b, pb),
            "console": '"%s"[%d]' % (a, pa), "ports": ports,
            "nodes": [a, b], "cables": [frozenset(ports)],
            "down": [(LINK_DOWN, n, p) for n, p in ports],
            "up": [(LINK_UP, n, p) for n, p in ports]}


def host(name, links):
    """A flap of every cable of a host, (its port, switch, switch port)
    each: linkDown of both ends of each and ibsnmpgwNodeUnreachable,
    then linkUp and ibsnmpgwNodeReachable (docs/events.md "Sources")."""
    ports = [(name, p) for p, _, _ in links] + \
        [(sw, sp) for _, sw, sp in links]
    return {"name": "%s (all links)" % name, "console": '"%s"' % name,
            "ports": ports, "nodes": sorted({n for n, _ in ports}),
            "cables": [frozenset([(name, p), (sw, sp)])
                       for p, sw, sp in links],
            "down": [(LINK_DOWN, n, p) for n, p in ports] +
            [(NODE_UNREACH, name, 0)],
            "up": [(LINK_UP, n, p) for n, p in ports] +
            [(NODE_REACH, name, 0)]}


# Flapped in turn: host cables, switch-to-switch cables and a whole host
# (unreachable while out: its objects that are not cached answer genErr).
# Seven flaps, one each FLAP_PERIOD: a port has its two link events
# (down, up) once every 140 s, so no port passes events.flap-changes (4)
# within events.flap-window (60 s), and none is damped (docs/events.md
# "A flapping port is damped"); check_damping() verifies that from the
# flaps as done.
CABLES = [cable("leaf04", 3, "node05", 2), cable("leaf03", 5, "spine01", 5),
          host("node07", [(1, "leaf04", 1), (2, "leaf03", 3)]),
          cable("leaf03", 2, "node06", 1), cable("leaf04", 7, "spine02", 7),
          cable("leaf04", 2, "node08", 1), cable("leaf01", 6, "spine01", 2)]
# The cable pulled while the SM restarts: switch to switch, because a
# sweep sees both ends of it; a host port whose cable is out is seen by
# the SM alone (docs/events.md "Sources"), and in that gap the SM
# reports nothing to the gateway.
GAP_CABLE = cable("leaf02", 6, "spine01", 4)


def read_links(path=simlib.TOPO):
    """{(node, port): (node, port)} of every cable of the topology."""
    links, cur = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r'^(?:Switch|Ca|Hca)\s+\d+\s+"([^"]+)"', line)
            if m:
                cur = m.group(1)
                continue
            m = re.match(r'^\[(\d+)\]\S*\s+"([^"]+)"\[(\d+)\]', line)
            if m and cur:
                links[(cur, int(m.group(1)))] = (m.group(2),
                                                 int(m.group(3)))
    return links


LINKS = read_links()
FAST = ["leaf01", "leaf02", "node05", "node06", "node07", "node08"]
# The cached-GET probe reads nodes no flap touches.
PROBED = ["leaf02", "node01", "node02", "node03", "node04"]
ALIASES = {"0x%016x" % NAMES["leaf02"]: "leaf02",
           "%016x" % NAMES["node07"]: "node07",
           "lid-5": "leaf03", "lid-113": "node07"}

if SECONDS < 90:
    print("SOAK_SECONDS must be at least 90 (the first and last minute "
          "are compared)")
    sys.exit(2)
simlib.skip_if_missing()
if shutil.which("snmpd") is None:
    print("1..0 # SKIP snmpd is not installed")
    sys.exit(77)

WORK = tempfile.mkdtemp(prefix="ibsnmpgw-soak-")
AGENT_PORT = simlib.free_udp_port()
SNMPD = simlib.start_snmpd(WORK, "node03", AGENT_PORT)
PROCS = {}              # the load's processes, by role


def cleanup():
    """At exit, however the script ends (a fabric that did not start
    included): the load, the host agent, the records."""
    for p in list(PROCS.values()) + [SNMPD]:
        simlib.terminate(p)
    if os.environ.get("KEEP_SIM_DIR"):
        print("# kept " + WORK)
    else:
        shutil.rmtree(WORK, ignore_errors=True)


atexit.register(cleanup)
R = simlib.Report()
SINK = simlib.TrapSink("public")
# PortInfo is kept 5 s (30 by default), so that the load reads it again
# while a host is out: the gateway answers genErr, which the check of
# error answers must then find explained.
EXTRA = """cache:
  ttl:
    portinfo: 5
discovery:
  interval: 10
  event-delay-ms: 200
  event-min-gap: 1
notify:
  targets:
    - name: soak
      address: "udp:127.0.0.1:%d"
      type: inform
      community: public
      timeout-ms: 1000
      retries: 3
polling:
  - name: fast
    match:
      regex: '^(%s)( |$)'
    groups: [counters]
    interval: 1
    ttl: 1
""" % (SINK.port, "|".join(FAST))
fab = simlib.Fabric(extra=["--sm-events", "--tunnel",
                           "node03=udp:127.0.0.1:%d" % AGENT_PORT],
                    extra_yaml=EXTRA)
STOP = threading.Event()
FLAPS = []              # dicts, in the order done
SAMPLES = []
RELOADS = []            # (time, seconds until logged)
SM_RESTART = {}
THREAD_ERRORS = []


# ---- the gateway as seen from outside

def ctl_stats():
    """`ctl stats` as {section: {key: int}}, and sm-events' state."""
    out = fab.ctl("stats").stdout
    st = {}
    for line in out.splitlines():
        words = line.split()
        if words:
            st[words[0]] = {k: int(v) for k, v in
                            re.findall(r"(\S+) (\d+)", line)}
    m = re.search(r"^sm-events (\S+)", out, re.M)
    st["sm-state"] = m.group(1) if m else None
    return st


def proc_sample():
    pid = fab.pid()
    with open("/proc/%d/status" % pid) as f:
        rss = int(re.search(r"^VmRSS:\s+(\d+)", f.read(), re.M).group(1))
    fds = len(os.listdir("/proc/%d/fd" % pid))
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    try:
        wal = os.path.getsize(os.path.join(fab.dir, "inventory.db-wal"))
    except OSError:
        wal = 0
    return {"t": time.time(), "rss_kb": rss, "fds": fds, "cpu_s": cpu,
            "wal": wal}


def notes_since(idx):
    return simlib.gw_notes(SINK, idx)


def seen(expected, idx):
    """Whether every (notification OID, node name, port) of expected
    arrived from sink index idx on (port 0: a node's notification)."""
    got = {(t, g, p) for t, g, p, _ in notes_since(idx)}
    return all((k, NAMES[n], p) in got for k, n, p in expected)


def crossed(route):
    """The cables (frozensets of their two ends) that a directed route
    from the gateway's port crosses: hop 0 is 0, then the out port of
    each node on the way (IBA 14.2.2; store_path_format)."""
    cur, out = fab.info["gw-host"], []
    for port in [int(h) for h in route.split(",")][1:]:
        far = LINKS.get((cur, port))
        if far is None:
            break
        out.append(frozenset([(cur, port), far]))
        cur = far[0]
    return out


def routed_over(cables):
    """The nodes whose directed routes, as the gateway has them now (a
    node's own and, for a CA, each port's: `ctl node`), cross one of
    cables: SMPs for them go over it."""
    over = []
    for n in sorted(NAMES):
        text = fab.ctl("node", n).stdout
        if any(set(crossed(r)) & set(cables)
               for r in re.findall(r"route ([0-9,]+)", text)):
            over.append(n)
    return over


# ---- load

def requests():
    """The v2c and v3 request mix: every node by name, a few by GUID and
    lid-N, the fabric and the gateway's own context, the tunneled node's
    host agent."""
    per_node = [("get", [SYSDESCR, SYSNAME, SYSUPTIME], 0),
                ("get", [NODESTR], 0), ("next", [IFTABLE], 0),
                ("next", [SMA + ".5"], 0), ("bulk", [IFXTABLE], 10),
                ("bulk", [SMA + ".1"], 8)]
    ctxs = [(n, n, per_node) for n in sorted(NAMES)]
    ctxs += [(a, n, [("get", [NODESTR], 0), ("bulk", [IFTABLE], 10)])
             for a, n in ALIASES.items()]
    ctxs.append(("fabric", "fabric",
                 [("bulk", [".1.3.6.1.3.117.7.1.2"], 20),
                  ("bulk", [BASE + ".5"], 20), ("next", [BASE + ".6.1.1"],
                                                0)]))
    ctxs.append(("", "gateway", [("get", [SYSDESCR, SYSUPTIME], 0),
                                 ("bulk", [BASE + ".2"], 10)]))
    ctxs.append(("node03", "node03",
                 [("get", [HR + ".1.1.0", HR + ".1.6.0"], 0),
                  ("get", [HR + ".2.2.0"], 0), ("next", [HR + ".2"], 0),
                  ("bulk", [HR + ".2.3"], 20)]))
    v2, v3 = [], []
    for ctx, node, ops in ctxs:
        for op, oids, rep in ops:
            r = {"ctx": ctx, "node": node, "op": op, "oids": oids,
                 "maxrep": rep}
            v2.append(dict(r, community=fab.community +
                           ("@" + ctx if ctx else "")))
            v3.append(r)
    return v2, v3


def start_load(deadline):
    v2, v3 = requests()
    common = {"endpoint": fab.endpoint, "deadline": deadline,
              "timeout": CLIENT_TIMEOUT}
    probe = [{"community": "%s@%s" % (fab.community, n), "ctx": n,
              "node": n, "op": "get", "oids": [NODESTR]} for n in PROBED]
    counters = [{"community": "%s@%s" % (fab.community, n), "ctx": n,
                 "node": n,
                 "oids": [IFXTABLE + ".%d.%d" % (c, p) for p in
                          ((1, 5) if n.startswith("leaf") else (1, 2))
                          for c in (6, 10)]} for n in FAST]
    roles = {
        "probe": ("v2c", dict(common, requests=probe, rate=PROBE_RATE,
                              window=1, seed=1)),
        "v2c": ("v2c", dict(common, requests=v2, rate=V2C_RATE,
                            window=V2C_WINDOW, seed=2)),
        "v3": ("v3", dict(common, requests=v3, rate=V3_RATE,
                          user=fab.v3user, auth=fab.v3auth[1],
                          priv=fab.v3priv[1], seed=3)),
        "counters": ("counters", dict(common, counters=counters)),
    }
    procs = PROCS
    for name, (role, cfg) in roles.items():
        path = os.path.join(WORK, name + ".json")
        with open(path, "w") as f:
            json.dump(cfg, f)
        procs[name] = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(HERE, "soakload.py"), role,
             path, os.path.join(WORK, name + ".tsv")],
            stderr=open(os.path.join(WORK, name + ".err"), "w"))
    return procs


def warm():
    """The probe's objects in the cache, and the tunnel's agent found
    (its first request probes node03)."""
    for n in PROBED:
        fab.snmp("snmpget", fab.v2(n), [NODESTR])
    return simlib.wait(lambda: "Timeticks" in fab.snmp(
        "snmpget", fab.v2("node03"), [HR + ".1.1.0"]).stdout, 30, 0.5)


def read_records(name):
    recs = []
    with open(os.path.join(WORK, name + ".tsv")) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            recs.append({"t": float(p[0]), "lat": int(p[1]), "ver": p[2],
                         "op": p[3], "ctx": p[4], "node": p[5],
                         "oids": p[6], "res": p[7], "detail": p[8],
                         "role": name})
    return recs


# ---- chaos

def flap(spec, gap_wait=None):
    """Unlink, wait for the down notifications (gap_wait first, if given:
    the gateway subscribed again), keep it out DOWN_TIME seconds,
    ReLink, wait for the up notifications. Times are taken before each
    console command."""
    f = dict(spec, gap=bool(gap_wait), via=routed_over(spec["cables"]))
    FLAPS.append(f)
    f["idx_down"] = len(SINK.notes())
    f["t_down"] = time.time()
    fab.cmd("Unlink " + f["console"])
    if gap_wait:
        f["resubscribed"] = gap_wait()
    if simlib.wait(lambda: seen(f["down"], f["idx_down"]), 30, 0.05):
        f["down_seen"] = time.time()
    STOP.wait(max(0, f["t_down"] + DOWN_TIME - time.time()))
    f["idx_up"] = len(SINK.notes())
    f["t_up"] = time.time()
    fab.cmd("ReLink " + f["console"])
    if simlib.wait(lambda: seen(f["up"], f["idx_up"]), 30, 0.05):
        f["up_seen"] = time.time()
    f["t_end"] = time.time()


def sm_restart():
    """restart-sm, then the gap cable out at once; returns the wait for
    the gateway's new subscription."""
    before = ctl_stats()["sm-events"]
    SM_RESTART["t"] = time.time()
    out = subprocess.run([simlib.SIM, "restart-sm", fab.dir],
                         capture_output=True, text=True, timeout=180)
    SM_RESTART["rc"] = out.returncode
    SM_RESTART["out"] = out.stdout + out.stderr
    SM_RESTART["took"] = time.time() - SM_RESTART["t"]

    def resubscribed():
        def again():
            st = ctl_stats()
            return (st["sm-state"] == "up" and
                    st["sm-events"]["lost"] > before["lost"] and
                    st["sm-events"]["subscriptions"] >
                    before["subscriptions"])
        if simlib.wait(again, 40, 0.2):
            SM_RESTART["resubscribed"] = time.time()
            return True
        return False
    return resubscribed


def chaos(t0, deadline):
    """A flap every FLAP_PERIOD seconds from t0 + 10 s; the slot nearest
    the middle is the SM restart with the gap cable. A slot starts only
    if it ends before the deadline."""
    k, restarted = 0, False
    slot = t0 + 10
    while slot + FLAP_PERIOD <= deadline:
        if STOP.wait(max(0, slot - time.time())):
            return
        if not restarted and slot + FLAP_PERIOD / 2 >= t0 + SECONDS / 2:
            restarted = True
            flap(GAP_CABLE, sm_restart())
        else:
            flap(CABLES[k % len(CABLES)])
            k += 1
        slot = max(slot + FLAP_PERIOD, time.time())


def reloader(t0, deadline):
    t = t0 + RELOAD_PERIOD
    while t < deadline and not STOP.wait(max(0, t - time.time())):
        s = time.time()
        fab.reload()
        RELOADS.append((s, time.time() - s))
        t += RELOAD_PERIOD


def sampler(deadline):
    while True:
        s = proc_sample()
        s["stats"] = ctl_stats()
        SAMPLES.append(s)
        if time.time() >= deadline or \
                STOP.wait(min(SAMPLE_PERIOD, max(0, deadline - time.time()))):
            return


def thread(name, fn, *args):
    def body():
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001 - reported as a failed check
            import traceback
            THREAD_ERRORS.append("%s: %s: %s\n%s" % (
                name, type(e).__name__, e, traceback.format_exc()))
    th = threading.Thread(target=body, name=name, daemon=True)
    th.start()
    return th


# ---- criteria

def explained(r):
    """Why docs/errors.md explains an error answer, None if it does not.

    docs/errors.md "The fabric": a node that does not answer within
    mad.timeout-ms x (mad.retries + 1) is genErr, a failure is
    remembered for cache.ttl.error seconds (genErr at once), and three
    unanswered requests put the node on hold until an answer or a sweep
    reaches it. SMPs go by directed route (the node's own, or for a CA's
    port attributes that port's), so while a cable is out the nodes at
    its ends and the nodes whose route crosses it (as `ctl node` showed
    the routes when the cable was pulled) may not answer. genErr is
    explained for those, from the Unlink until TTL_ERROR seconds after
    the last of the ReLink and its notifications (a request is stamped
    when sent: one second more each side). Nothing else is: not a
    silence (the gateway "never stays silent because the fabric is slow
    or broken"; every request ends by snmp.request-timeout-ms), not
    genErr elsewhere, not a Report, not noSuch* for an object that
    exists, not a Counter64 that goes back (docs/counters.md)."""
    if r["res"] != "genErr":
        return None
    for f in FLAPS:
        if r["node"] in f["nodes"]:
            why = "at an end of"
        elif r["node"] in f["via"]:
            why = "routed over"
        else:
            continue
        end = max(f.get("up_seen", 0), f.get("t_up", f["t_down"]))
        if f["t_down"] - 1 <= r["t"] <= end + TTL_ERROR + 1:
            return "genErr of %s, %s %s while it was out" % (
                r["node"], why, f["name"])
    return None


def p99(lats):
    if not lats:
        return 0
    s = sorted(lats)
    return s[min(len(s) - 1, int(len(s) * 0.99))]


def pct(lats, q):
    s = sorted(lats)
    return s[min(len(s) - 1, int(len(s) * q))] if s else 0


def check_damping():
    """No port had more than events.flap-changes (4) link events within
    events.flap-window (60 s) from the flaps as done."""
    times = {}
    for f in FLAPS:
        for port in f["ports"]:
            times.setdefault(port, []).extend(
                [f["t_down"], f.get("t_up", f["t_down"])])
    worst = 0
    for ts in times.values():
        ts.sort()
        for i, t in enumerate(ts):
            worst = max(worst, len([u for u in ts[i:] if u - t < 60]))
    return worst


def event_seqs(text):
    """{seq: line} of `ctl events`, gateway-start left out (coldStart
    names no event row)."""
    out = {}
    for line in text.splitlines()[1:]:
        w = line.split()
        if len(w) > 3 and w[3] != "gateway-start":
            out[int(w[1])] = line
    return out


def note_seqs():
    seqs = set()
    for d in SINK.notes():
        for o, _ in d["varbinds"]:
            if o.startswith(BASE + ".6.1.1.3."):
                seqs.add(int(o.rsplit(".", 1)[1]))
    return seqs


def window(samples, lo, hi, key):
    return [s[key] for s in samples if lo <= s["t"] < hi]


def main():
    """The soak; whatever ends it, the threads stop before the fabric
    does."""
    try:
        soak()
    finally:
        STOP.set()


def soak():
    R.check(warm(), "the tunneled agent at node03 answers through the "
            "gateway before the load starts")
    R.check(simlib.wait(lambda: ctl_stats()["sm-state"] == "up", 30, 0.2),
            "subscribed at the SM before the load starts")
    t0 = time.time()
    deadline = t0 + SECONDS
    procs = start_load(deadline)
    threads = [thread("sampler", sampler, deadline),
               thread("reloader", reloader, t0, deadline),
               thread("chaos", chaos, t0, deadline)]
    print("# soak: %d s from %s, fabric %s" % (
        SECONDS, time.strftime("%H:%M:%S", time.localtime(t0)), fab.dir))
    sys.stdout.flush()
    STOP.wait(max(0, deadline - time.time()))
    for th in threads:
        th.join(FLAP_PERIOD + 90)
    STOP.set()
    for name, p in procs.items():
        try:
            p.wait(CLIENT_TIMEOUT + 30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    R.check(not THREAD_ERRORS, "the load, chaos, reload and sampling "
            "threads ran to their end", "\n".join(THREAD_ERRORS))
    R.check(all(p.returncode == 0 for p in procs.values()),
            "the load processes ran to their end: %s" % ", ".join(
                "%s %s" % (n, p.returncode) for n, p in procs.items()),
            "".join(open(os.path.join(WORK, n + ".err")).read()
                    for n in procs))
    # Whatever is still queued for the receiver goes out.
    R.check(simlib.wait(lambda: re.search(
        r" queued 0 ", fab.ctl("targets").stdout) is not None, 60, 0.5),
        "the inform queue drains after the soak", fab.ctl("targets").stdout)
    SAMPLES.append(dict(proc_sample(), stats=ctl_stats()))
    recs = []
    for name in procs:
        recs += read_records(name)
    analyse(recs, t0, deadline)


def analyse(recs, t0, deadline):
    figures = []
    with open(os.path.join(WORK, "flaps.json"), "w") as f:
        json.dump([{k: v for k, v in fl.items() if k != "cables"}
                   for fl in FLAPS], f, indent=1)
    with open(os.path.join(WORK, "samples.json"), "w") as f:
        json.dump(SAMPLES, f)
    # -- load as run
    kinds = {}
    for r in recs:
        k = (r["ver"], r["op"])
        kinds[k] = kinds.get(k, 0) + 1
    want = {("v2c", "get"), ("v2c", "next"), ("v2c", "bulk"), ("v3", "get"),
            ("v3", "next"), ("v3", "bulk"), ("v2c", "counters")}
    R.check(want <= set(kinds), "v2c and v3 GET, GETNEXT and GETBULK and "
            "counter polls were all sent: %s" % ", ".join(
                "%s %s %d" % (v, o, n) for (v, o), n in sorted(kinds.items())))
    ctxs = {r["ctx"] for r in recs}
    R.check({"fabric", "", "node03"} <= ctxs and len(ctxs) >= 20,
            "%d contexts, the fabric, the gateway's and the tunneled "
            "node's among them" % len(ctxs))
    figures.append(("requests", "%d (%.0f/s): %s" % (
        len(recs), len(recs) / SECONDS, ", ".join(
            "%s %s %d" % (v, o, n) for (v, o), n in sorted(kinds.items())))))
    # -- error answers
    errs = [r for r in recs if r["res"] != "ok"]
    unexplained = [r for r in errs if explained(r) is None]
    R.check(not unexplained, "no error answer docs/errors.md does not "
            "explain: %d errors, %d explained (genErr of a node at an end "
            "of a cable that was out, or routed over it)" % (
                len(errs), len(errs) - len(unexplained)),
            "\n".join("%s %s %s %s %s %s: %s %s" % (
                time.strftime("%H:%M:%S", time.localtime(r["t"])),
                r["role"], r["ver"], r["op"], r["ctx"] or "-", r["oids"],
                r["res"], r["detail"]) for r in unexplained[:20]))
    why = {}
    for r in errs:
        k = explained(r) or "%s, UNEXPLAINED" % r["res"]
        why[k] = why.get(k, 0) + 1
    figures.append(("error answers", "; ".join(
        "%d %s" % (n, k) for k, n in sorted(why.items())) or "none"))
    # -- samples
    first_hi, last_lo = t0 + MINUTE, deadline - MINUTE
    rss_first = max(window(SAMPLES, t0, first_hi, "rss_kb")) / 1024
    rss_last = max(window(SAMPLES, last_lo, deadline + 1e9, "rss_kb")) / 1024
    rss_all = [s["rss_kb"] / 1024 for s in SAMPLES]
    R.check(rss_last <= rss_first + RSS_GROWTH_MB,
            "RSS bounded: last-minute max %.1f MB <= first-minute max "
            "%.1f MB + %d MB" % (rss_last, rss_first, RSS_GROWTH_MB))
    fds = [s["fds"] for s in SAMPLES]
    R.check(max(fds) - fds[0] <= FD_SLACK and fds[-1] == fds[0],
            "descriptors constant: %d at the start, %d at the end, %d-%d "
            "over %d samples (slack %d)" % (fds[0], fds[-1], min(fds),
                                            max(fds), len(fds), FD_SLACK))
    wal = max(s["wal"] for s in SAMPLES) / 1048576
    R.check(wal <= WAL_MAX_MB, "SQLite WAL bounded: at most %.2f MB "
            "(bound %d MB)" % (wal, WAL_MAX_MB))
    cpu = (SAMPLES[-1]["cpu_s"] - SAMPLES[0]["cpu_s"]) / \
        max(1, SAMPLES[-1]["t"] - SAMPLES[0]["t"])
    figures.append(("gateway RSS", "%.1f MB first minute max, %.1f MB last "
                    "minute max, %.1f-%.1f MB overall" % (
                        rss_first, rss_last, min(rss_all), max(rss_all))))
    per_min = [window(SAMPLES, t0 + m * MINUTE, t0 + (m + 1) * MINUTE,
                      "rss_kb") for m in range(-(-SECONDS // MINUTE))]
    figures.append(("gateway RSS by minute", " ".join(
        "%.1f" % (max(w) / 1024) for w in per_min if w) + " MB (max)"))
    figures.append(("gateway descriptors", "%d-%d" % (min(fds), max(fds))))
    figures.append(("SQLite WAL", "%.2f MB max, %.2f MB at the end" % (
        wal, SAMPLES[-1]["wal"] / 1048576)))
    figures.append(("gateway CPU", "%.0f %% of one core on average" %
                    (cpu * 100)))
    # -- cached GET latency
    probe = [r for r in recs if r["role"] == "probe" and r["res"] == "ok"]
    first = [r["lat"] for r in probe if t0 <= r["t"] < first_hi]
    last = [r["lat"] for r in probe if last_lo <= r["t"] < deadline]
    p_first, p_last = p99(first), p99(last)
    R.check(first and last and p_last <= P99_FACTOR * p_first,
            "cached GET p99, last minute %d us <= %.1f x first minute %d us "
            "(%d and %d GETs)" % (p_last, P99_FACTOR, p_first, len(first),
                                  len(last)))
    figures.append(("cached GET latency", "first minute p50 %d us p99 %d "
                    "us, last minute p50 %d us p99 %d us" % (
                        pct(first, 0.5), p_first, pct(last, 0.5), p_last)))
    for (v, o) in sorted(kinds):
        lat = [r["lat"] for r in recs if r["ver"] == v and r["op"] == o and
               r["res"] == "ok" and r["role"] != "probe"]
        if lat:
            figures.append(("%s %s latency" % (v, o), "p50 %d us, p99 %d "
                            "us, max %d us" % (pct(lat, 0.5), p99(lat),
                                               max(lat))))
    # -- counters
    polls = [r for r in recs if r["op"] == "counters"]
    back = [r for r in polls if r["res"] == "went-back"]
    R.check(len(polls) >= len(FAST) * (SECONDS - 2) and not back,
            "counters read every second: %d polls of %d nodes' Counter64s "
            "in %d s, %d went back" % (len(polls), len(FAST), SECONDS,
                                       len(back)),
            "\n".join("%s %s" % (r["node"], r["detail"]) for r in back[:10]))
    check_events(figures)
    check_ops(figures)
    print("# ---- soak figures (%d s, SOAK_SECONDS)" % SECONDS)
    width = max(len(k) for k, _ in figures)
    for k, v in figures:
        print("# %-*s  %s" % (width, k, v))


def check_events(figures):
    # -- every flap notified, both ends, down and up
    missed = []
    names = {LINK_DOWN: "linkDown", LINK_UP: "linkUp",
             NODE_UNREACH: "ibsnmpgwNodeUnreachable",
             NODE_REACH: "ibsnmpgwNodeReachable"}
    for f in FLAPS:
        nxt = [g["idx_down"] for g in FLAPS if g["idx_down"] > f["idx_down"]
               and set(g["ports"]) & set(f["ports"])]
        notes = notes_since(f["idx_down"])
        if nxt:
            notes = notes[:min(nxt) - f["idx_down"]]
        got = {(t, g, p) for t, g, p, _ in notes}
        for k, n, p in f["down"] + f["up"]:
            if (k, NAMES[n], p) not in got:
                missed.append("%s of %s[%d] (flap of %s at %s)" % (
                    names[k], n, p, f["name"], time.strftime(
                        "%H:%M:%S", time.localtime(f["t_down"]))))
    expected = sum(len(f["down"]) + len(f["up"]) for f in FLAPS)
    R.check(FLAPS and not missed, "every flap's linkDown and linkUp of "
            "both ends (and a host's Unreachable, Reachable) reached the "
            "receiver: %d flaps, %d notifications" % (len(FLAPS), expected),
            "\n".join(missed))
    worst = check_damping()
    ev = fab.ctl("events").stdout
    m = re.match(r"events posted (\d+) kept (\d+) duplicates (\d+) "
                 r"damped (\d+)", ev)
    R.check(m and worst <= 4 and m.group(4) == "0",
            "no flap damped: at most %d link events of one port within "
            "60 s (events.flap-changes 4), `ctl events` damped %s" % (
                worst, m.group(4) if m else "?"), ev[:200])
    # -- every event the gateway kept is a notification at the receiver
    kept = event_seqs(ev)
    got = note_seqs()
    lost = sorted(set(kept) - got)
    R.check(kept and not lost and not got - set(kept),
            "every event the gateway kept was notified: %d events, %d "
            "notifications with an event row" % (len(kept), len(got)),
            "\n".join(kept[s] for s in lost[:20]) +
            "\nunknown: %s" % sorted(got - set(kept))[:20])
    tg = fab.ctl("targets").stdout
    t = dict(re.findall(r"(sent|acked|failed|retried|dropped|queued) (\d+)",
                        tg))
    R.check(t and t["sent"] == t["acked"] and t["dropped"] == "0",
            "every inform acknowledged, none dropped: %s" % tg.strip()
            .splitlines()[-1], tg)
    types = {}
    for line in kept.values():
        types[line.split()[3]] = types.get(line.split()[3], 0) + 1
    figures.append(("flaps", "%d (%d in the SM's gap, %d of a whole host), "
                    "%d notifications expected, %d missed" % (
                        len(FLAPS), len([f for f in FLAPS if f["gap"]]),
                        len([f for f in FLAPS if NODE_UNREACH in
                             [k for k, _, _ in f["down"]]]),
                        expected, len(missed))))
    downs = [f["down_seen"] - f["t_down"] for f in FLAPS
             if "down_seen" in f and not f["gap"]]
    ups = [f["up_seen"] - f["t_up"] for f in FLAPS if "up_seen" in f]
    if downs and ups:
        figures.append(("console command to its notifications",
                        "Unlink max %.0f ms, ReLink max %.0f ms (the "
                        "launcher's console round trip included)"
                        % (max(downs) * 1000, max(ups) * 1000)))
    figures.append(("events", "%s; %s" % (m.group(0) if m else "?", ", ".join(
        "%s %d" % kv for kv in sorted(types.items())))))
    figures.append(("informs", tg.strip().splitlines()[-1]))
    # -- the SM restart
    gapf = [f for f in FLAPS if f["gap"]]
    R.check(SM_RESTART.get("rc") == 0 and "resubscribed" in SM_RESTART,
            "the SM restarted and the gateway subscribed again %.1f s "
            "later" % (SM_RESTART.get("resubscribed", 0) -
                       SM_RESTART.get("t", 0)), SM_RESTART.get("out", ""))
    sub = [t for t, _, _, _ in notes_since(0)]
    R.check(SUB_LOST in sub and SUB_RESTORED in sub,
            "ibsnmpgwSubscriptionLost and ...Restored were notified")
    if gapf and "resubscribed" in SM_RESTART:
        figures.append(("SM restart", "restart-sm %.1f s; subscribed again "
                        "%.1f s after it; the gap cable's linkDowns %.1f s "
                        "after its Unlink" % (
                            SM_RESTART["took"],
                            SM_RESTART["resubscribed"] - SM_RESTART["t"],
                            gapf[0].get("down_seen", 0) - gapf[0]["t_down"])))


def check_ops(figures):
    log = fab.log()
    applied = len(re.findall(r"reload: \S+: \d+ polling policies", log))
    refused = len(re.findall(r"reload: .*(has errors|not applied)", log))
    R.check(RELOADS and applied == len(RELOADS) and not refused,
            "every SIGHUP reloaded the configuration: %d sent, %d applied"
            % (len(RELOADS), applied))
    figures.append(("reloads", "%d, logged within %.0f ms at most" % (
        len(RELOADS), max(d for _, d in RELOADS) * 1000 if RELOADS else 0)))
    st = SAMPLES[-1]["stats"]
    tun = st.get("tunnel", {})
    R.check(tun.get("answers", 0) > 0 and tun.get("timeouts", -1) == 0,
            "the tunnel carried the load: %d requests, %d answers, %d "
            "timeouts" % (tun.get("requests", 0), tun.get("answers", 0),
                          tun.get("timeouts", -1)))
    R.check(os.path.exists("/proc/%d" % fab.pid()), "the gateway runs on")
    mad, cache, snmp = st.get("mad", {}), st.get("cache", {}), \
        st.get("snmp", {})
    figures.append(("MADs", "sent %d, answered %d, timeouts %d" % (
        mad.get("sent", 0), mad.get("answered", 0), mad.get("timeouts", 0))))
    figures.append(("cache", "hits %d, misses %d, failures %d" % (
        cache.get("hits", 0), cache.get("misses", 0),
        cache.get("failures", 0))))
    figures.append(("snmp", "requests %d, deadlines %d" % (
        snmp.get("requests", 0), snmp.get("deadlines", 0))))
    figures.append(("sweeps", "%d" % st.get("sweeps", {}).get("sweeps", 0)))
    figures.append(("tunnel", "requests %d, answers %d, timeouts %d" % (
        tun.get("requests", 0), tun.get("answers", 0),
        tun.get("timeouts", 0))))
    warns = {}
    for line in log.splitlines():
        m = re.search(r"\[warning\]: (\S+ \S+ \S+)", line)
        if m:
            warns[m.group(1)] = warns.get(m.group(1), 0) + 1
    figures.append(("log warnings", ", ".join(
        "%s... %d" % kv for kv in sorted(warns.items())) or "none"))


simlib.run(main, fab, R)
