#!/usr/bin/python3
"""The whole IB-SMA-MIB of every node of the bundled fabric, walked through
the gateway and compared with infiniband-diags on the same simulated
fabric: smpquery switchinfo, portinfo (management port), guidinfo, pkeys,
sl2vl, vlarb; ibroute for the LFT and MFT; sminfo for the SM. Also: the
per-node system group, CA compliance (no switch groups), the MAD cost of
a cold walk against the minimum, remembered unsupported attributes, the
cache TTL making a port state change appear, and read-only SETs."""

import concurrent.futures
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import SMA, diff, parse_diag, parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
# No background polling, and no periodic sweep or light check (nor the
# SA queries at their end): the MAD counts are the test's. Every TTL a
# walk of the SMA subtree meets is long enough that a slow (sanitizer)
# build's walks stay inside it; check_ttl_state_change shortens
# PortInfo's by a reload.
PORTINFO_TTL = 600
WALK_TTL = 600          # nodeinfo, switchinfo, tables, forwarding
fab = simlib.Fabric(extra_yaml="cache:\n  ttl:\n    portinfo: %d\n"
                    % PORTINFO_TTL +
                    "".join("    %s: %d\n" % (k, WALK_TTL) for k in (
                        "nodeinfo", "switchinfo", "tables", "forwarding")) +
                    "discovery:\n  interval: 3600\n"
                    "events:\n  master-check-ms: 0\n"
                    "polling:\n  - name: none\n    groups: []\n"
                    "    interval: 86400\n")
names = simlib.read_name_map()
POOL = concurrent.futures.ThreadPoolExecutor(4)


def smp(*args):
    out = fab.diag(["smpquery"] + [str(a) for a in args])
    if out.returncode != 0:
        raise RuntimeError("smpquery %s: %s" % (args, out.stderr))
    return out.stdout


def truth(b):
    return 1 if b else 2


def hx(s, n):
    return "%0*x" % (2 * n, int(s, 16))


def is_switch(name):
    return not name.startswith("node")


def addr(name, port=None):
    return simlib.port_addr(name, port or 1, names)


def walk(name, sub, sec=None):
    out = fab.snmp("snmpbulkwalk", sec or fab.v2(name), ["-Cr30", sub],
                   timeout=10)
    return {k: v[1] for k, v in parse_vars(out.stdout).items()}, out


# ---- expected values from infiniband-diags ----------------------------

def exp_switchinfo(name):
    si = parse_diag(smp("-G", "switchinfo", addr(name)))
    vals = [int(si["LinearFdbCap"]), int(si["RandomFdbCap"]),
            int(si["McastFdbCap"]), int(si["LinearFdbTop"]),
            int(si["DefPort"]), int(si["DefMcastPrimPort"]),
            int(si["DefMcastNotPrimPort"]), int(si["LifeTime"]),
            truth(int(si["StateChange"])), int(si["LidsPerPort"]),
            int(si["PartEnforceCap"]), truth(int(si["InboundPartEnf"])),
            truth(int(si["OutboundPartEnf"])),
            truth(int(si["FilterRawInbound"])),
            truth(int(si["FilterRawOutbound"])),
            truth(int(si["EnhancedPort0"]))]
    return {"%s.2.%d.0" % (SMA, i + 1): v for i, v in enumerate(vals)}, si


CAP_BITS = [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 16, 17, 18, 19, 20, 21, 22,
            23]


def exp_mgmt(name):
    port = 0 if is_switch(name) else 1
    pi = parse_diag(smp("-G", "portinfo", addr(name), port))
    cap = int(pi["CapMask"], 16)
    it = int(pi["InitType"], 16)
    ir = int(pi["InitReply"], 16)
    vals = ["0" * 16, hx(pi["GidPrefix"], 8), int(pi["Lid"]),
            int(pi["SMLid"])]
    vals += [truth(cap & (1 << b)) for b in CAP_BITS]
    vals += [int(pi["MkeyLeasePeriod"]), int(pi["ProtectBits"]) + 1,
             int(pi["SMSL"]), truth(it & 1), truth(it & 2), truth(it & 4),
             truth(it & 8), truth(ir & 1), truth(ir & 2), truth(ir & 4),
             int(pi["MkeyViolations"]), int(pi["PkeyViolations"]),
             int(pi["QkeyViolations"]), int(pi["GuidCap"]),
             int(pi["SubnetTimeout"]), int(pi["RespTimeVal"])]
    return {"%s.4.%d.0" % (SMA, i + 1): v for i, v in enumerate(vals)}


def ports_of(name, nports):
    return list(range(1, nports + 1))


def exp_guidinfo(name, nports):
    exp = {}
    if is_switch(name):
        return exp      # port 0's GUIDs cannot be indexed (docs/mibs.md)
    for p in ports_of(name, nports):
        cap = int(parse_diag(smp("-G", "portinfo", addr(name, p), p))
                  ["GuidCap"])
        guids = []
        for line in smp("-G", "guidinfo", addr(name, p)).splitlines():
            m = re.match(r"^\s*\d+:\s+(.*)$", line)
            if m:
                guids += [hx(g, 8) for g in m.group(1).split()]
        for i in range(cap):
            exp["%s.3.1.1.3.%d.%d" % (SMA, p, i + 1)] = guids[i]
    return exp


def pkeys(name, port):
    out = smp("-G", "pkeys", addr(name, port or 1), port)
    keys = []
    for line in out.splitlines():
        m = re.match(r"^\s*\d+:\s+(.*)$", line)
        if m:
            keys += [int(k, 16) for k in m.group(1).split()]
    cap = int(re.search(r"(\d+) pkeys capacity", out).group(1))
    return keys[:cap]


def exp_pkeys(name, nports):
    exp = {}
    plist = ports_of(name, nports) + ([255] if is_switch(name) else [])
    for p, keys in zip(plist, POOL.map(
            lambda p: pkeys(name, 0 if p == 255 else p), plist)):
        for i, k in enumerate(keys):
            mem = 1 if k & 0x7fff == 0 else 3 if k & 0x8000 else 2
            exp["%s.6.1.1.3.%d.%d" % (SMA, p, i)] = mem
            exp["%s.6.1.1.4.%d.%d" % (SMA, p, i)] = k & 0x7fff
    return exp


def sl2vl(name, out_port):
    rows = {}
    text = smp("-G", "sl2vl", addr(name, out_port), out_port)
    for line in text.splitlines():
        m = re.match(r"^ports: in\s+(\d+), out\s+(\d+):\s*\|(.*)\|", line)
        if m:
            rows[int(m.group(1))] = [int(x) for x in m.group(3).split("|")]
    return rows


def exp_sl2vl(name, nports):
    exp = {}
    plist = ports_of(name, nports)
    for o, rows in zip(plist, POOL.map(lambda o: sl2vl(name, o), plist)):
        for i, vls in rows.items():
            if is_switch(name):
                idx = 255 if i == 0 else i
            else:
                idx = 255       # a CA's table has no input port
            for sl, vl in enumerate(vls):
                exp["%s.7.1.1.4.%d.%d.%d" % (SMA, o, idx, sl)] = vl
    return exp


def vlarb(name, port):
    text = smp("-G", "vlarb", addr(name, port), port)
    caps = re.search(r"LowCap (\d+) HighCap (\d+)", text)
    tables, cur, vls = {}, None, None
    for line in text.splitlines():
        if "Low priority" in line:
            cur = "low"
        elif "High priority" in line:
            cur = "high"
        elif line.startswith("VL"):
            vls = [int(x, 16) for x in line.split("|")[1:-1]]
        elif line.startswith("WEIGHT"):
            w = [int(x, 16) for x in line.split("|")[1:-1]]
            tables.setdefault(cur, []).extend(zip(vls, w))
    return int(caps.group(1)), int(caps.group(2)), tables


def exp_vlarb(name, nports):
    exp = {}
    plist = ports_of(name, nports)
    for p, (low, high, t) in zip(plist, POOL.map(lambda p: vlarb(name, p),
                                                plist)):
        for tab, sub, cap in (("high", 1, high), ("low", 2, low)):
            for n, (vl, w) in enumerate(t.get(tab, [])[:cap]):
                exp["%s.8.%d.1.3.%d.%d" % (SMA, sub, p, n + 1)] = vl
                exp["%s.8.%d.1.4.%d.%d" % (SMA, sub, p, n + 1)] = w
    return exp


def exp_lft(name, top):
    out = fab.diag(["ibroute", "-G", addr(name)])
    ports = {}
    for line in out.stdout.splitlines():
        m = re.match(r"^0x([0-9a-f]+)\s+(\d+)\s", line)
        if m:
            ports[int(m.group(1), 16)] = int(m.group(2))
    exp = {}
    for lid in range(top + 1):
        p = ports.get(lid, 255)
        if p != 0:      # the switch's own LIDs: outside the TC's range
            exp["%s.9.1.1.2.%d" % (SMA, lid + 1)] = p
    return exp


def expected(name):
    ni = parse_diag(smp("-G", "nodeinfo", addr(name)))
    nports = int(ni["NumPorts"])
    exp = exp_mgmt(name)
    top = None
    if is_switch(name):
        si_exp, si = exp_switchinfo(name)
        exp.update(si_exp)
        top = int(si["LinearFdbTop"])
        exp.update(exp_lft(name, top))
    exp.update(exp_guidinfo(name, nports))
    exp.update(exp_pkeys(name, nports))
    exp.update(exp_sl2vl(name, nports))
    exp.update(exp_vlarb(name, nports))
    return exp, nports, ni


def minimum_mads(name, nports):
    """SMPs a cold walk of a switch needs at least (issue 3)."""
    si = parse_diag(smp("-G", "switchinfo", addr(name)))
    n = 1 + 1 + 1 + (nports + 1)          # NodeInfo, Desc, SwitchInfo, PortInfo
    n += sum((len(pkeys(name, p)) + 31) // 32 for p in range(1, nports + 1))
    n += (len(pkeys(name, 0)) + 31) // 32
    n += nports * (nports + 1)            # SL-to-VL: every (out, in)
    for p in range(1, nports + 1):
        low, high, _ = vlarb(name, p)
        n += (low + 31) // 32 + (high + 31) // 32
    n += (int(si["LinearFdbTop"]) + 1 + 63) // 64
    top = int(si["MulticastFDBTop"], 16)
    mft = top - 0xc000 + 1 if top >= 0xc000 else int(si["McastFdbCap"])
    n += (mft + 31) // 32 * ((nports + 1 + 15) // 16)
    n += 1                                # the VendorDiag probe
    return n


# ---- checks ------------------------------------------------------------

def sa_queries():
    m = re.search(r"^sa sm-lid \d+ queries (\d+)", fab.ctl("stats").stdout,
                  re.M)
    return int(m.group(1)) if m else -1


def check_cold_walk_cost():
    name = "leaf01"
    _, nports, _ = expected(name)
    minimum = minimum_mads(name, nports)
    start = time.monotonic()
    for attempt in range(3):
        # Cold for sure: a sweep may have cached this node's NodeInfo.
        fl = fab.ctl("flush", name)
        before = fab.stats()
        got, out = walk(name, SMA)
        after = fab.stats()
        if after[14] == before[14]:
            break       # no sweep ran meanwhile
    first = (after[1] - before[1]) - (after[4] - before[4])
    R.check(out.returncode == 0 and fl.returncode == 0 and
            first == minimum,
            "cold walk of 36-port %s: %d MADs (first attempts), minimum %d"
            % (name, first, minimum), out.stderr)
    # The shortest TTL a walk of the SMA subtree meets is WALK_TTL: the
    # walks must not outlast it.
    # A sweep or an SA refresh meanwhile sends MADs of its own: again.
    for attempt in range(3):
        before, sa0 = fab.stats(), sa_queries()
        walk(name, SMA)
        after, sa1 = fab.stats(), sa_queries()
        if after[14] == before[14] and sa1 == sa0:
            break
    took = time.monotonic() - start
    R.check(after[1] == before[1] and took < WALK_TTL,
            "a warm walk of %s sends no MAD (%d, both walks in %.1f s)"
            % (name, after[1] - before[1], took))


def check_node(name):
    exp, nports, ni = expected(name)
    got, out = walk(name, SMA)
    for sub, label in ((".2.", "SwitchInfo"), (".3.", "GUIDInfo"),
                       (".4.", "management PortInfo"), (".6.", "P_Key"),
                       (".7.", "SL-to-VL"), (".8.", "VL arbitration"),
                       (".9.", "linear forwarding")):
        pre = SMA + sub
        g = {k: v for k, v in got.items() if k.startswith(pre)}
        e = {k: v for k, v in exp.items() if k.startswith(pre)}
        if not e and not g:
            continue
        R.check(g == e, "%s: %s (%d objects) matches infiniband-diags" %
                (name, label, len(e)), diff(g, e) + out.stderr)
    for sub, label in ((".10.", "random forwarding"),
                       (".13.", "vendor diag"), (".14.", "LED info")):
        g = [k for k in got if k.startswith(SMA + sub)]
        R.check(g == [], "%s: %s table is empty" % (name, label), g)
    if is_switch(name):
        mft = [k for k in got if k.startswith(SMA + ".11.")]
        ib = fab.diag(["ibroute", "-M", "-G", addr(name)]).stdout
        R.check((mft == []) == ("0 valid mlids" in ib),
                "%s: multicast forwarding agrees with ibroute -M" % name,
                ib[-300:])
    else:
        sw = [k for k in got if re.match(re.escape(SMA) +
                                         r"\.(2|9|10|11)\.", k)]
        R.check(sw == [], "%s: a CA's walk has no switch groups" % name, sw)
        o = fab.snmp("snmpget", fab.v2(name), ["%s.2.1.0" % SMA])
        R.check("noSuchObject" in o.stdout or "No Such Object" in o.stdout,
                "%s: GET of a switch object is noSuchObject" % name,
                o.stdout + o.stderr)
    return got


def check_sminfo(walked):
    """node01 hosts opensm: its port 1 has IsSM and an SMInfo row."""
    out = fab.diag(["sminfo", "-G", addr("node01")]).stdout
    m = re.search(r"sm guid (0x[0-9a-f]+), activity count (\d+) priority "
                  r"(\d+) state (\d+)", out)
    got = {k: v for k, v in walked.items() if k.startswith(SMA + ".12.")}
    ok = m is not None and \
        got.get("%s.12.1.1.1.2.1" % SMA) == hx(m.group(1), 8) and \
        got.get("%s.12.1.1.1.3.1" % SMA) == "0" * 16 and \
        got.get("%s.12.1.1.1.5.1" % SMA) == int(m.group(3)) and \
        got.get("%s.12.1.1.1.6.1" % SMA) == int(m.group(4)) + 1 and \
        got.get("%s.12.1.1.1.4.1" % SMA, 0) > 0 and len(got) == 5
    R.check(ok, "node01: SM info row matches sminfo (SM_Key hidden)",
            "%s\n%r" % (out, got))
    got, out = walk("node03", SMA)
    others = [k for k in got if k.startswith(SMA + ".12.")]
    R.check(out.returncode == 0 and len(got) > 0 and others == [],
            "node03 (no SM) has no SM info rows (%d objects walked)" %
            len(got), others or out.stderr)


def check_system():
    for name in ("leaf02", "node04"):
        got = {k: v for k, v in parse_vars(fab.snmp(
            "snmpwalk", fab.v2(name), [".1.3.6.1.2.1.1"]).stdout).items()}
        desc = parse_diag(smp("-G", "nodedesc", addr(name))).get(
            "Node Description", "")
        ntype = 2 if is_switch(name) else 1
        ok = got.get(".1.3.6.1.2.1.1.5.0", ("", ""))[1] == name and \
            desc and desc in got.get(".1.3.6.1.2.1.1.1.0", ("", ""))[1] and \
            got.get(".1.3.6.1.2.1.1.2.0", ("", ""))[1].endswith(
                "117.1.%d" % ntype)
        R.check(ok, "%s: system group names the node (sysName, sysDescr, "
                "sysObjectID)" % name, repr(got))


def check_unsupported_remembered():
    # Every node has been walked by now, and ibsim has no VendorDiag.
    flags = fab.sql("SELECT count(*) FROM nodes WHERE unsupported & 1")
    R.equal(int(flags or 0), len(names), "VendorDiag 'unsupported' is "
            "remembered in the inventory for every walked node")


def check_ttl_state_change():
    # leaf03 port 1 faces node05 port 1 (see fabric.topo).
    ttl = 2
    conf = os.path.join(fab.dir, "ibsnmpgw.yaml")
    with open(conf) as f:
        text = f.read()
    with open(conf, "w") as f:
        f.write(text.replace("portinfo: %d\n" % PORTINFO_TTL,
                             "portinfo: %d\n" % ttl))
    fab.reload()
    oid = "%s.5.1.1.6.1" % SMA
    get = lambda: fab.snmp("snmpget", fab.v2("leaf03"), [oid]).stdout  # noqa
    for attempt in range(3):
        # A fresh entry at t0: it expires no earlier than t0 + ttl.
        fab.ctl("flush", "leaf03")
        t0 = time.monotonic()
        first = get()
        fab.cmd('Unlink "node05"[1]')
        try:
            cached = get()
            t1 = time.monotonic()
            fresh, t2 = "", t0
            while time.monotonic() < t0 + ttl + 10:
                fresh = get()
                t2 = time.monotonic()
                if "INTEGER: 1" in fresh:
                    break
                time.sleep(0.1)
        finally:
            fab.cmd('ReLink "node05"[1]')
        if t1 - t0 < ttl:
            break       # else too slow to tell cached from fresh: again
    R.check("INTEGER: 4" in first, "leaf03 port 1 is active(4)", first)
    R.check("INTEGER: 4" in cached and "INTEGER: 1" in fresh and
            t2 - t0 >= ttl, "after Unlink the cached state stays until the "
            "TTL, then down(1) appears (%.1f s, TTL %d s)" % (t2 - t0, ttl),
            cached + fresh)


def check_set_refused():
    before = fab.stats()
    out = fab.snmp("snmpset", fab.v2("leaf01"),
                   ["%s.5.1.1.6.1" % SMA, "i", "1"])
    after = fab.stats()
    R.check("notWritable" in out.stdout + out.stderr and
            after[1] == before[1], "SET is notWritable and sends no MAD",
            out.stdout + out.stderr)




def main():
    check_cold_walk_cost()
    walked = {}
    for name in sorted(names):
        walked[name] = check_node(name)
    check_sminfo(walked["node01"])
    check_system()
    check_unsupported_remembered()
    check_ttl_state_change()
    check_set_refused()


if __name__ == "__main__":
    simlib.run(main, fab, R)
