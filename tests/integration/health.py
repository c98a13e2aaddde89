#!/usr/bin/python3
"""Per-node error state on the simulated fabric: a node that stops
answering (ibsim's Error command drops every MAD to it) is put on hold
after a few unanswered requests, so further requests fail at once and
send no MAD; once it answers again a probe after the hold-down brings it
back. When only one way to a node breaks (the shim loses node08's
PerfMgt answers, not its directed-route SMPs), only that way is held,
and a read by another way queued behind the silent one still goes.

M_Key: ibsim 0.10 neither checks M_Keys nor keeps MKeyProtectBits, so a
small LD_PRELOAD shim (fault_shim.c, loaded before umad2sim) makes the
PortInfo answers the gateway reads say what a protected SMA says to a
requester with the wrong key: protection bits 2, M_Key zeroed. The
gateway must name the mismatch, hold the node as "bad-mkey" once it also
goes silent, and drop every verdict and hold when a reload brings a new
M_Key. The same shim cuts P_KeyTable answers short: each is counted as
malformed and fails its request, and the gateway keeps serving."""

import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
HOLD = 4
# The first line continues the launcher's mad: section. Failed reads are
# remembered for 1 s only, so a second read of the same part during the
# hold reaches the hold, not that memory. No counter polling and no
# periodic sweep: the test counts the MADs a held read sends (none), and
# a polling round or a sweep in that window would count too (a sweep
# that reached the node would also end its hold without the probe).
fab = simlib.Fabric(extra_yaml="  hold-down: %d\ncache:\n  ttl:\n"
                    "    error: 1\npolling:\n  - name: none\n"
                    "    groups: []\n    interval: 86400\n"
                    "discovery:\n  interval: 3600\n"
                    "events:\n  master-check-ms: 0\n" % HOLD)

SMA = simlib.SMA
IF = ".1.3.6.1.2.1.2.2.1"
# Objects of node07 that each need their own attribute read (PortInfo of
# port 1 and 2, NodeDescription).
COLD = [IF + ".2.1", IF + ".2.2", SMA + ".1.1.0"]
PKEY = SMA + ".6.1"                  # ibSmaPKeyTable


def get(oid, node="node07"):
    t0 = time.time()
    out = fab.snmp("snmpget", fab.v2(node), [oid], timeout=10)
    return out, time.time() - t0


def quick_get(oid, node="node07"):
    """One v2c GET sent from here, so that its time is the gateway's
    alone (no snmpget start-up in it): (error-status, seconds)."""
    from pyasn1.codec.ber import decoder, encoder
    from pysnmp.proto import api
    v2c = api.protoModules[api.protoVersion2c]
    pdu = v2c.GetRequestPDU()
    v2c.apiPDU.setDefaults(pdu)
    v2c.apiPDU.setVarBinds(pdu, [(oid.strip("."), v2c.Null(""))])
    msg = v2c.Message()
    v2c.apiMessage.setDefaults(msg)
    v2c.apiMessage.setCommunity(msg, fab.community + "@" + node)
    v2c.apiMessage.setPDU(msg, pdu)
    host, port = fab.endpoint.split(":")[1:]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(10)
        t0 = time.time()
        sock.sendto(encoder.encode(msg), (host, int(port)))
        try:
            b = sock.recv(65535)
        except socket.timeout:
            return None, time.time() - t0
        took = time.time() - t0
    rsp, _ = decoder.decode(b, asn1Spec=v2c.Message())
    return int(v2c.apiPDU.getErrorStatus(v2c.apiMessage.getPDU(rsp))), took


GEN_ERR = 5


def hold(node="node07"):
    """(ms until the probe, hold-down s) while node is held, else
    None."""
    m = re.search(r"next probe in (\d+) ms, hold-down (\d+) s",
                  fab.ctl("node", node).stdout)
    return (int(m.group(1)), int(m.group(2))) if m else None


def sent():
    return fab.stats().get(1)


def held_read(oid, node="node07"):
    """A read of a held node: (fails at once with no MAD, what each try
    saw). A try that came after the hold-down was the probe (silent, it
    doubles the hold) and the next one tells. 0.3 s: 3 tries of
    mad.timeout-ms 100 (under ibsim a sent read may fail as fast: the
    MAD count tells)."""
    tries = []
    for _ in range(3):
        h0, before = hold(node), sent()
        status, took = quick_get(oid, node)
        h1, after = hold(node), sent()
        tries.append("hold %s -> %s, %.3f s, MADs %s -> %s, error-status "
                     "%s" % (h0, h1, took, before, after, status))
        if not (h0 and h1 and h1[1] > h0[1]):
            break
    return (h0 is not None and h1 is not None and h1[1] == h0[1] and
            status == GEN_ERR and took < 0.3 and after == before), tries


def state(node="node07"):
    out = fab.ctl("node", node).stdout
    return [l for l in out.splitlines() if l.startswith("state:")]


def main():
    R.equal(state(), ["state: ok"], "ctl node shows state ok at first")
    R.equal(node_ways("node07"), (0, 0), "a node not on hold has no way "
            "in ibsnmpgwNodeHeldWays nor ibsnmpgwNodeAnsweringWays")
    fab.cmd('Error "node07" 100')
    try:
        errs = [get(oid)[0] for oid in COLD]
        R.check(all("genError" in o.stdout + o.stderr for o in errs),
                "requests to a silent node end in genErr",
                "".join(o.stdout + o.stderr for o in errs))
        log = fab.log()
        R.check("requests in a row unanswered; requests for it fail at "
                "once for %d s" % HOLD in log, "the hold is logged once "
                "with its reason and length", log[-600:])
        st = state()
        R.check(len(st) == 1 and st[0].startswith("state: silent"),
                "ctl node shows the node as silent", str(st))
        line = [l for l in fab.ctl("nodes").stdout.splitlines()
                if " node07 " in l]
        R.check(len(line) == 1 and line[0].endswith("state silent"),
                "ctl nodes shows the state too", str(line))
        time.sleep(1.2)     # the failed reads are forgotten
        # The steps above can outlast the hold on a slow machine.
        held, tries = held_read(COLD[0])
        R.check(held, "while held, a read fails at once and sends no MAD "
                "(%s)" % "; ".join(tries))
        other, _ = get(SMA + ".1.1.0", "node08")
        desc = parse_vars(other.stdout).get(SMA + ".1.1.0", (0, ""))[1]
        R.check(desc.startswith("node08"), "other nodes are not affected",
                other.stdout + other.stderr)
    finally:
        fab.cmd('Error "node07" 0')
    # After the hold-down (doubled if a try above probed) one request
    # probes; it is answered, so the node is back.
    due = simlib.wait(lambda: (hold() or (0,))[0] == 0, 4 * HOLD + 10, 0.2)
    out, _ = get(COLD[1])
    vals = parse_vars(out.stdout)
    R.check(due and COLD[1] in vals, "after the hold-down the probe is "
            "answered and the request succeeds", out.stdout + out.stderr)
    R.equal(state(), ["state: ok"], "the node is ok again")
    R.check("node 0x0002c90300bb0700 (node07) answers again after being "
            "silent" in fab.log(), "its return is logged, with the node's "
            "GUID and name")
    check_mkey()


def write_key(path, key):
    with open(path, "w") as f:
        f.write("0x%016x\n" % key)
    os.chmod(path, 0o600)


def check_mkey():
    so = simlib.build_shim(fab)
    R.check(so is not None and so.endswith(".so"), "the fault shim "
            "builds", str(so))
    if so is None or not so.endswith(".so"):
        return
    key = os.path.join(fab.dir, "mkey")
    write_key(key, 0xcafe0001)
    conf = os.path.join(fab.dir, "ibsnmpgw.yaml")
    text = open(conf).read()
    open(conf, "w").write(text.replace("ib:\n", "ib:\n  mkey-file: \"%s\"\n"
                                       % key, 1))
    fab.restart_gateway(preload=so, env={"SHIM_MKEY_PROT": "2"})

    # Protection bits 2: reads work, the M_Key comes back zeroed, so
    # ours is proven not to be the node's.
    out, _ = get(IF + ".2.1")
    R.check(IF + ".2.1" in parse_vars(out.stdout), "at protection level 2 "
            "reads still work", out.stdout + out.stderr)
    node = fab.ctl("node", "node07").stdout
    R.check("mkey: protection bits 2, our M_Key does NOT match" in node,
            "ctl node shows the M_Key mismatch", node)
    R.check("node 0x0002c90300bb0700 (node07) port 1: protects its M_Key "
            "(MKeyProtectBits 2) and ours does not match it" in fab.log(),
            "the mismatch is logged", fab.log()[-600:])
    R.check("cafe0001" not in fab.log() + node, "the key itself appears "
            "nowhere")

    # The node goes silent: held as bad-mkey, with the reason.
    fab.cmd('Error "node07" 100')
    try:
        for oid in (IF + ".2.2", SMA + ".1.1.0", SMA + ".1.2.0"):
            get(oid)
        st = state()
        R.check(len(st) == 1 and st[0].startswith("state: bad-mkey"),
                "a silent node whose M_Key is not ours is held as "
                "bad-mkey", str(st))
        R.check("it protects its M_Key and ours is not its key (fix "
                "ib.mkey-file and reload)" in fab.log(),
                "the hold names the M_Key as the reason", fab.log()[-600:])
    finally:
        fab.cmd('Error "node07" 0')

    # A new M_Key (SIGHUP) ends every verdict and hold at once.
    write_key(key, 0xcafe0002)
    fab.reload()
    node = fab.ctl("node", "node07").stdout
    R.check("state: ok" in node and "mkey: protection unknown" in node,
            "a reload with a new M_Key clears the hold and the verdict "
            "without waiting for the hold-down", node)
    # Past the 1 s memory of failed reads, well within the 4 s hold the
    # reload ended:
    time.sleep(1.2)
    out, _ = get(SMA + ".1.1.0")
    R.check(SMA + ".1.1.0" in parse_vars(out.stdout), "and the node is "
            "read again before its hold-down would have ended",
            out.stdout + out.stderr)
    check_short(so)
    check_one_way(so)
    check_way_queue(so)


def check_short(so):
    """Answers shorter than a MAD (IBA 13.4.2: 256 octets): malformed,
    the request fails at once, nothing else is disturbed."""
    mark = len(fab.log())
    fab.restart_gateway(preload=so, env={"SHIM_SHORT_ATTR": "0x0016",
                                         "SHIM_SHORT_LEN": "100"})
    before = malformed()
    t0 = time.time()
    out = fab.snmp("snmpbulkwalk", fab.v2("node08"), [PKEY], timeout=10)
    took = time.time() - t0
    R.check("genError" in out.stderr and not any(
        k.startswith(PKEY + ".") for k in parse_vars(out.stdout)),
        "a cut-short P_KeyTable answer is genErr, no made-up row",
        out.stdout + out.stderr)
    R.check(took < 5, "... at once, not after timeouts (%.1f s)" % took)
    R.check(malformed() > before, "... and is counted as malformed "
            "(%d, was %d)" % (malformed(), before))
    out, _ = get(SMA + ".1.1.0", "node08")
    R.check(SMA + ".1.1.0" in parse_vars(out.stdout), "the node's other "
            "attributes are still read", out.stdout + out.stderr)
    R.equal(state("node08"), ["state: ok"], "and the node is not held: "
            "it answered")
    R.check("malformed answer for TID" in fab.log()[mark:],
            "the log says so")

    # A garbled answer, then silence for the retries: the node did
    # answer, so the request fails as garbled, not as a timeout (which
    # would count toward a hold and fail the node's other requests).
    fab.restart_gateway(preload=so, env={"SHIM_SHORT_ATTR": "0x0016",
                                         "SHIM_SHORT_DROP": "1"})
    stats = fab.ctl("stats").stdout
    t0 = int(re.search(r"timeouts (\d+)", stats).group(1))
    m0 = malformed()
    out, _ = get(PKEY + ".1.3.1.0", "node08")
    stats = fab.ctl("stats").stdout
    t1 = int(re.search(r"timeouts (\d+)", stats).group(1))
    R.check("genError" in out.stdout + out.stderr and malformed() == m0 + 1
            and t1 == t0, "garbled, then lost: genErr, one malformed "
            "answer, no timeout counted (timeouts %d -> %d)" % (t0, t1),
            out.stdout + out.stderr)
    out, _ = get(SMA + ".1.1.0", "node08")
    R.check(SMA + ".1.1.0" in parse_vars(out.stdout), "... and the node's "
            "other attributes are still read", out.stdout + out.stderr)


def check_one_way(so):
    """One way to a node breaks, the others work: node08 port 1's
    PerfMgt answers (LID-routed) are lost, its directed-route SMPs are
    not. Three silent requests by that way hold it, though the others
    answered in between; the hold covers that way alone, and a
    directed-route read still goes and is answered."""
    lid, pi = node08_lid()
    R.check(lid.isdigit() and int(lid) > 0, "smpquery reads node08 port "
            "1's LID", str(pi))
    if not lid.isdigit():
        return
    fab.restart_gateway(preload=so, env={"SHIM_DROP_PERF_LID": lid})
    octets = IF + ".10.1"            # ifInOctets: PortCounters by LID
    tries = []
    # Three rounds of a directed-route read, answered, then a PerfMgt
    # read, lost: the node's run of silences starts over each round,
    # the LID way's does not. A read's failure is remembered for
    # cache.ttl.error (1 s), so the rounds are 1.1 s apart.
    for i, oid in enumerate([IF + ".2.1", SMA + ".1.2.0", IF + ".2.2"]):
        if i:
            time.sleep(1.1)
        for o in (oid, octets):
            out, took = get(o, "node08")
            tries.append("%s %.1f s: %s" % (o[-5:], took, (
                out.stdout + out.stderr).strip()[-50:]))
    st = state("node08")
    R.check(st[0].startswith("state: silent"), "silent PerfMgt reads put "
            "node08 on hold, though its directed-route reads between them "
            "are answered", "; ".join(tries) + " " + str(st))
    R.check(re.search(r"node08\): \d+ requests in a row by LID( to port "
                      r"1)? unanswered while other ways answer", fab.log()),
            "the log says that one way is silent while others answer",
            fab.log()[-800:])
    st = state("node08")[0]
    # "LID", or "LID to port 1" where the port has a LID of its own.
    R.check(re.search(r"requests by LID( to port 1)? fail at once", st),
            "ctl node names the way that is held", st)
    out, _ = get(SMA + ".1.1.0", "node08")
    desc = parse_vars(out.stdout).get(SMA + ".1.1.0", (0, ""))[1]
    R.check(desc.startswith("node08"), "a directed-route read of the held "
            "node still goes and is answered", out.stdout + out.stderr)
    st = state("node08")[0]
    R.check(st.startswith("state: silent") and
            "answering by directed route" in st, "ctl node shows the way "
            "that answers, and the other still held", st)
    # BITS: directedRoute(0)..directedRouteToPort3Up(3) in the octet's
    # high nibble, lid(4)..lidToPort3Up(7) in its low one.
    ways = node_ways("node08")
    R.check(ways is not None and ways[0] != 0 and ways[0] & 0xf0 == 0 and
            ways[1] != 0 and ways[1] & 0x0f == 0, "ibsnmpgwNodeHeldWays "
            "has the LID way, ibsnmpgwNodeAnsweringWays the directed "
            "route", "%s; %s" % (["%02x" % w for w in ways or ()], st))
    time.sleep(1.2)     # past the failed read's memory
    held, tries = held_read(octets, "node08")
    R.check(held, "a read by the held way fails at once and sends no MAD "
            "(%s)" % "; ".join(tries))
    R.check(re.search(r"node08\): \d+ requests in a row by LID( to port "
                      r"1)? unanswered while other ways answer \(directed "
                      r"route", fab.log()),
            "the log says which ways go on")


def node08_lid():
    """node08 port 1's LID as smpquery reads it ("" if none), and the
    whole PortInfo."""
    pi = simlib.parse_diag(fab.diag(["smpquery", "-G", "portinfo",
                                     simlib.port_addr("node08"), "1"]).stdout)
    return pi.get("Lid", ""), pi


def node_ways(name):
    """ibsnmpgwNodeHeldWays and ibsnmpgwNodeAnsweringWays of node name's
    row of ibsnmpgwNodeTable (fabric context), as the one octet of each
    BITS, or None."""
    entry = simlib.STATS[:-2] + ".5.1.1"
    out = fab.snmp("snmpbulkwalk", fab.v2("fabric"), [entry + ".2"]).stdout
    idx = [o.rsplit(".", 1)[1] for o, (_t, v) in parse_vars(out).items()
           if v == name]
    if len(idx) != 1:
        return None
    got = parse_vars(fab.snmp("snmpget", fab.v2("fabric") + ["-Ox"], [
        entry + ".15." + idx[0], entry + ".16." + idx[0]]).stdout)
    vals = [got.get(entry + ".%d.%s" % (c, idx[0]), ("", ""))[1]
            for c in (15, 16)]
    if not all(len(v) == 2 for v in vals):
        return None
    return tuple(int(v, 16) for v in vals)


def mads(node):
    """ctl node's MAD counts for node: (sent, PerfMgt, retries)."""
    m = re.search(r"^mads: sent (\d+) \(PerfMgt (\d+), retries (\d+)\)",
                  fab.ctl("node", node).stdout, re.M)
    return tuple(int(g) for g in m.groups()) if m else (0, 0, 0)


def check_way_queue(so):
    """A request that goes unanswered fails the node's queue for its own
    way only (its LID, or its directed route). With one MAD in flight per
    node, node08's PerfMgt read by port 1's LID (lost by the shim) goes
    first and a directed-route PortInfo read waits behind it. When the
    lost one ends, the queued read must still be sent and answered, not
    fail unsent."""
    lid, pi = node08_lid()
    if not lid.isdigit():
        R.check(False, "smpquery reads node08 port 1's LID", str(pi))
        return
    one = "  hold-down: %d\n  max-in-flight-per-node: 1\n" % HOLD
    fab.reconfigure("  hold-down: %d\n" % HOLD, one)
    try:
        fab.restart_gateway(preload=so, env={"SHIM_DROP_PERF_LID": lid})
        before = mads("node08")
        # ifInOctets.1 (PortCounters by LID), then ifDescr.2 (PortInfo
        # of port 2 by directed route), in one PDU.
        out = fab.snmp("snmpget", fab.v2("node08"),
                       [IF + ".10.1", IF + ".2.2"], timeout=10)
        after = mads("node08")
        sent, perf, retries = (a - b for a, b in zip(after, before))
        smps = sent - perf - retries
        R.check(perf >= 1 and smps >= 1, "a directed-route read queued "
                "behind a lost PerfMgt read of the same node is still sent "
                "(first sends of SMPs: %d, of PerfMgt MADs: %d)" % (
                    smps, perf), (out.stdout + out.stderr).strip())
        got, _ = get(IF + ".2.2", "node08")
        R.check(parse_vars(got.stdout).get(IF + ".2.2", (0, ""))[1]
                .startswith("port 2"), "and it was answered: ifDescr.2 "
                "reads", got.stdout + got.stderr)
    finally:
        fab.reconfigure(one, "  hold-down: %d\n" % HOLD)


def malformed():
    m = re.search(r"malformed (\d+)", fab.ctl("stats").stdout)
    return int(m.group(1)) if m else -1


if __name__ == "__main__":
    simlib.run(main, fab, R)
