#!/usr/bin/python3
"""Hostile MADs from the fabric (issue 23, part 2): the fault shim's
mutation engine (hostile_mad.c, loaded before umad2sim) hands the
gateway's MAD reader HOSTILE_COUNT (default 100,000) hostile MADs at
HOSTILE_RATE a second (2,500): real answers mutated (bit flips, every
length class, wrong TID, class, method, attribute, modifier, status,
RMPP bits, DR hop fields) or delivered twice, replays of old answers
(late, after the timeout), answers to TIDs never sent, garbled answers
to the requests in flight, answers larger than the buffer (ENOSPC, the
MAD kept first in the queue as the kernel does), MADs under 24 octets
or for agents the gateway never registered, and requests of every class
(SMPs, PerfMgt, SA Reports of Notices from the SM's LID and others,
tunnel Sends, vendor and unknown classes), valid-looking or mutated.

Meanwhile SNMP GETs and GETBULKs run, sweeps are asked for every few
seconds and counters are polled every second. Checks: the gateway lives
and answers every SNMP request (a value or genErr, never silence); the
engine's budget is spent, never STALL s without progress (a reader stuck
on a MAD, or a port that stays closed, would stop it; a loaded machine
only slows it); the local port came back after every answer too large
to take (closing the port is the only way past one); the counters of
ctl stats account for what was injected (answers with a TID nothing
waits for in unknown-tid, MADs under a header in malformed, MADs for
other agents in foreign-agent, requests in requests, SA Reports from
another LID than the SM's in foreign: each at least the shim's count); the log grew by less than a line per 100
hostile MADs (what a peer can cause at will is rate-limited); open
descriptors are as before and RSS grew less than 16 MB (one RMPP
answer of the largest size the reader takes may be on its way; not
checked under ASan, whose quarantine holds freed memory; HOSTILE_SMAPS=1
prints the mappings with over 1 MB resident); after a clean sweep, GETs
answer what smpquery and perfquery say. The seed is printed;
HOSTILE_SEED=N repeats the sequence (the interleaving with real answers
still varies)."""

import atexit
import collections
import os
import re
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import SMA, parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
COUNT = int(os.environ.get("HOSTILE_COUNT", "100000"))
RATE = int(os.environ.get("HOSTILE_RATE", "2500"))
SEED = int(os.environ.get("HOSTILE_SEED", str(int(time.time()) & 0xffffff
                                              or 1)))
ASAN = "asan" in os.environ.get("ASAN_OPTIONS", "") or \
    "sanitize" in os.environ.get("top_builddir", "")
# node07 is never polled, so its counters' accumulators start from a
# clean read after the run; the rest are polled every second.
fab = simlib.Fabric(extra=["--sm-events"], extra_yaml=(
    "cache:\n  ttl:\n    error: 1\n"
    "polling:\n"
    "  - name: quiet\n    match: {name: node07}\n    groups: []\n"
    "    interval: 86400\n"
    "  - name: fast\n    groups: [counters]\n    interval: 1\n"
    "    ttl: 1\n"))
NAMES = simlib.read_name_map()
STALL = 30      # seconds without a hostile MAD taken: the reader is stuck
LOAD_NODES = ["leaf02", "node03", "spine01", "node05"]
STAT = ".1.3.6.1.3.117.2.1.1.1"     # ibIfPortStatEntry
# ibIfPortStat columns and perfquery's PortCounters names.
PERF = {2: "SymbolErrorCounter", 3: "LinkErrorRecoveryCounter",
        4: "LinkDownedCounter", 13: "LocalLinkIntegrityErrors",
        15: "VL15Dropped"}


class Load(threading.Thread):
    """SNMP GETs and GETBULKs over a few nodes, and a sweep asked for
    every 3 s, until stopped: counts answers, genErr and silences."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.answers = self.errors = self.silent = 0
        self.silences = []

    def run(self):
        i, last_sweep = 0, time.time()
        while not self.stop.is_set():
            node = LOAD_NODES[i % len(LOAD_NODES)]
            if i % 2:
                out = fab.snmp("snmpget", fab.v2(node),
                               [SMA + ".1.1.0", SMA + ".1.14.0"],
                               timeout=12)
            else:
                out = fab.snmp("snmpbulkget", fab.v2(node) + ["-Cr20"],
                               [SMA], timeout=12)
            if "Timeout" in out.stderr:
                self.silent += 1
                self.silences.append(node)
            elif parse_vars(out.stdout):
                self.answers += 1
            else:
                self.errors += 1
            i += 1
            if time.time() - last_sweep > 3:
                os.kill(fab.pid(), signal.SIGUSR1)
                last_sweep = time.time()


def alive():
    try:
        os.kill(fab.pid(), 0)
        return True
    except OSError:
        return False


def fds():
    return len(os.listdir("/proc/%d/fd" % fab.pid()))


def rss_kb():
    with open("/proc/%d/status" % fab.pid()) as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def shim_stats(path):
    try:
        with open(path) as f:
            return {k: int(v) for k, v in (l.split() for l in f)}
    except (OSError, ValueError):
        return {}


def gw_stats():
    """The reject and request counters of ctl stats."""
    out = fab.ctl("stats").stdout
    st = {}
    for line, keys in (("mad ", ["malformed", "unknown-tid",
                                 "foreign-agent"]),
                       ("sm-events ", ["reports", "requests", "unexpected",
                                       "foreign"]),
                       ("tunnel ", ["malformed", "spoofed", "unmatched",
                                    "broken"])):
        text = next((l for l in out.splitlines() if l.startswith(line)), "")
        for k in keys:
            m = re.search(r"\b%s (\d+)" % k, text)
            st[line.strip() + "." + k] = int(m.group(1)) if m else -1
    m = re.search(r"^sm-events .*\bmalformed (\d+)", out, re.M)
    st["sm-events.malformed"] = int(m.group(1)) if m else -1
    return st, out


def spend_budget(stats):
    """Until the shim's budget is spent: (done, what stalled). A reader
    stuck on a MAD, or a port that never came back, stops the count;
    a slow machine only slows it (the shim rewrites its stats every
    1,000 MADs, every 2 s at the slowest seen under stress-ng)."""
    last, since = -1, time.time()
    end = since + COUNT / RATE * 20
    while time.time() < end:
        sh = shim_stats(stats)
        if sh.get("done") == 1:
            return True, None
        if not alive():
            return False, "the gateway died"
        if sh.get("spent", 0) != last:
            last, since = sh.get("spent", 0), time.time()
        elif time.time() - since > STALL:
            return False, "stalled at %d" % last
        time.sleep(0.5)
    return False, "%d spent in %.0f s" % (last, COUNT / RATE * 20)


def warm_up():
    """Every path once before the baseline: walks, a sweep, polls."""
    for node in LOAD_NODES:
        fab.snmp("snmpbulkwalk", fab.v2(node) + ["-Cr50"], [SMA],
                 timeout=20)
    fab.sweep(timeout=60)


def oracle_checks():
    """After a clean sweep, GETs against smpquery and perfquery."""
    for name in ("leaf02", "node03"):
        desc = simlib.parse_diag(fab.diag(
            ["smpquery", "-G", "nodedesc", simlib.port_addr(name, 1, NAMES)]
        ).stdout).get("Node Description")
        out = fab.snmp("snmpget", fab.v2(name), [SMA + ".1.1.0"], timeout=12)
        got = parse_vars(out.stdout).get(SMA + ".1.1.0", (None, None))[1]
        R.check(desc is not None and got == desc, "%s: ibSmaNodeString is "
                "smpquery's (%r)" % (name, desc), out.stdout + out.stderr)
    pi = simlib.parse_diag(fab.diag(
        ["smpquery", "-G", "portinfo", simlib.port_addr("node03", 1, NAMES),
         "1"]).stdout)
    # ibSmaMgmtPortLid (the management port's PortInfo, as sma.py)
    out = fab.snmp("snmpget", fab.v2("node03"), [SMA + ".4.3.0"], timeout=12)
    got = parse_vars(out.stdout).get(SMA + ".4.3.0", (None, None))[1]
    R.check(pi.get("Lid") is not None and str(got) == pi.get("Lid"),
            "node03: its management port's LID is smpquery's (%s)" %
            pi.get("Lid"), out.stdout + out.stderr)
    lid = int(pi.get("Lid", "0")) + 8   # node07 port 1 (tests/sim/README)
    pq = simlib.parse_diag(fab.diag(["perfquery", str(lid), "1"]).stdout)
    oids = ["%s.%d.1" % (STAT, c) for c in PERF]
    out = fab.snmp("snmpget", fab.v2("node07"), oids, timeout=12)
    vals = parse_vars(out.stdout)
    got = [vals.get(o, (None, None))[1] for o in oids]
    want = [int(pq[f]) if f in pq else None for f in PERF.values()]
    R.equal(got, want, "node07 port 1: ibIfPortStatTable (%s) is "
            "perfquery's" % ", ".join(PERF.values()))


def check_counters(sh):
    st, text = gw_stats()
    print("# shim: " + " ".join("%s %d" % kv for kv in sorted(sh.items())))
    print("# gateway: " + " ".join("%s %d" % kv for kv in sorted(
        st.items())))
    for gw, shim, what in (
            ("mad.unknown-tid", "expect-stale", "answers with a TID "
             "nothing waits for (never sent, late, twice)"),
            ("mad.malformed", "expect-short", "MADs under 24 octets"),
            ("mad.foreign-agent", "expect-stray", "MADs for agents not "
             "the gateway's")):
        R.check(st[gw] >= sh.get(shim, 0) > 0, "%s counted: %s %d >= %d "
                "injected" % (what, gw, st[gw], sh.get(shim, 0)), text)
    R.check(st["sm-events.foreign"] >= sh.get("expect-foreign", 0) > 0,
            "Reports from another LID than the SM's dropped: %d >= %d "
            "injected" % (st["sm-events.foreign"],
                          sh.get("expect-foreign", 0)), text)
    want = sh.get("expect-requests", 0) + sh.get("real-requests", 0)
    R.check(st["sm-events.requests"] >= want > 0, "requests to the "
            "gateway counted: %d >= %d (injected and real)" %
            (st["sm-events.requests"], want), text)
    rejected = (st["mad.malformed"] + st["mad.unknown-tid"] +
                st["mad.foreign-agent"] + st["sm-events.unexpected"] +
                st["sm-events.malformed"] + st["sm-events.foreign"] +
                st["tunnel.malformed"] +
                st["tunnel.spoofed"] + st["tunnel.unmatched"] +
                st["tunnel.broken"])
    floor = sh.get("expect-stale", 0) + sh.get("expect-short", 0) + \
        sh.get("expect-stray", 0) + sh.get("expect-foreign", 0)
    R.check(rejected >= floor, "%d MADs rejected in all, at least the %d "
            "the gateway cannot take" % (rejected, floor), text)


def main():
    print("# seed %d (HOSTILE_SEED=%d to repeat), %d MADs at %d/s" %
          (SEED, SEED, COUNT, RATE))
    so = simlib.build_shim(fab)
    R.check(so is not None and so.endswith(".so"), "the fault shim builds",
            str(so))
    if so is None or not so.endswith(".so"):
        return
    go = os.path.join(fab.dir, "hostile.go")
    stats = os.path.join(fab.dir, "hostile.stats")
    fab.restart_gateway(wait=0, preload=so, env={
        "SHIM_HOSTILE": str(COUNT), "SHIM_HOSTILE_RATE": str(RATE),
        "SHIM_HOSTILE_SEED": str(SEED), "SHIM_HOSTILE_GO": go,
        "SHIM_HOSTILE_STATS": stats, "SHIM_SM_LID": simlib.sm_lid(fab)})
    warm_up()
    fd0, rss0 = fds(), rss_kb()
    load = Load()
    load.start()
    lines0 = fab.log().count("\n")
    open(go, "w").close()
    t0 = time.time()
    done, stalled = spend_budget(stats)
    took = time.time() - t0
    sh = shim_stats(stats)
    lines = fab.log().count("\n") - lines0
    load.stop.set()
    load.join(60)
    R.check(alive(), "the gateway survives the hostile MADs (seed %d)" %
            SEED, fab.log()[-2000:])
    if not alive():
        return
    R.check(done and sh.get("done") == 1, "%d of %d hostile MADs taken in "
            "%.1f s, never %d s without one (%s; seed %d)" % (
                sh.get("spent", 0), COUNT, took, STALL, stalled or
                "no stall", SEED), fab.log()[-2000:])
    R.check(load.silent == 0 and load.answers > 0, "every SNMP request "
            "meanwhile answered: %d with values, %d genErr, %d silent %s" %
            (load.answers, load.errors, load.silent, load.silences[:5]))
    check_counters(sh)
    # An answer over the reader's 16 MB closes and reopens the port
    # (the only way past it): it must come back each time.
    port = [""]

    def port_back():
        port[0] = next((l for l in fab.ctl("stats").stdout.splitlines()
                        if l.startswith("port ")), "")
        m = re.match(r"port up failures (\d+) reopens (\d+)", port[0])
        return m is not None and m.group(1) == m.group(2)
    R.check(simlib.wait(port_back, 30, step=0.5), "the local port came "
            "back after every failure: %r" % port[0], fab.log()[-2000:])
    # What a peer can cause at will is logged a line per kind every
    # 10 s with a count; what is left is sweeps, polls and SA queries.
    grown = fab.log().splitlines()[lines0:]
    kinds = collections.Counter(
        re.sub(r"0x[0-9a-f]+|\d+", "N", l.split("]: ", 1)[-1])[:90]
        for l in grown)
    for k, n in kinds.most_common(12):
        print("# log %5d  %s" % (n, k))
    # A GETBULK failed part way is answered genErr without an encoding
    # error on the way (net-snmp 5.9.3 tries the half-done varbinds).
    unbuilt = [l for l in grown if "snmp_build" in l]
    R.check(not unbuilt, "no response failed to encode (%d lines)" %
            len(unbuilt), "\n".join(unbuilt[:3]))
    R.check(lines < max(COUNT // 100, 200), "the log grew by %d lines for "
            "%d hostile MADs (bound: one per 100)" % (lines, COUNT),
            "\n".join(fab.log().splitlines()[lines0:lines0 + 15]))
    fd1, rss1 = fds(), rss_kb()
    if os.environ.get("HOSTILE_SMAPS"):
        cur = None
        for l in open("/proc/%d/smaps" % fab.pid()):
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", l):
                cur = l.strip()
            elif l.startswith("Rss:") and int(l.split()[1]) > 1000:
                print("# %s %s" % (l.split()[1], cur))
    R.check(fd1 <= fd0, "open descriptors %d -> %d" % (fd0, fd1))
    if ASAN:
        print("# RSS %d -> %d kB under ASan (quarantine): not checked" %
              (rss0, rss1))
    else:
        R.check(rss1 - rss0 < 16384, "RSS %d -> %d kB (bound: +16 MB)" %
                (rss0, rss1))
    # The shim passes everything through now: answers that were garbled
    # but well-formed are indistinguishable from true ones, so the cache
    # goes and a clean sweep reads the fabric again.
    fab.ctl("flush")
    fab.sweep(timeout=60)
    oracle_checks()
    R.check(alive(), "the gateway is still running at the end (seed %d)" %
            SEED)


if __name__ == "__main__":
    # After the summary too, so that a failure's log names it.
    atexit.register(lambda: print("# hostile MAD seed %d: HOSTILE_SEED=%d "
                                  "repeats it" % (SEED, SEED)))
    simlib.run(main, fab, R)
