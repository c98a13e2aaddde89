#!/usr/bin/python3
"""IB-SM-MIB's path, multipath and trace query tables on the simulated
fabric: paths against `saquery -p --src-to-dst`, traces against
`ibtracert`, each multipath result against `saquery -p` for its pair
(opensm answers SubnAdmGetMulti(MultiPathRecord) under ibsim).
Only a community or user granted `fabric-queries: true` may create
rows; the others are refused with noAccess and send nothing. RowStatus
rules (RFC 2579), the per-requester cap, ageing, and tenants (a query
between nodes a selector hides is refused; rows are their creator's)."""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
# No polling, and no periodic sweep or light check (nor the SA queries
# at their end): what a refused query sends is counted alone.
fab = simlib.Fabric(extra_yaml="discovery:\n  interval: 3600\n"
                    "events:\n  master-check-ms: 0\n"
                    "polling:\n  - name: none\n    groups: []\n"
                    "    interval: 86400\n")
NAMES = simlib.read_name_map()
# Rows live AGE_LONG s while the checks use them, however slow the build;
# check_ageing then shortens it to AGE by a reload.
AGE_LONG, AGE = 600, 10
SM = "1.3.6.1.3.117.7.1"
PFX = "254.128.0.0.0.0.0.0"
PATH_REQ, PATH_RES = SM + ".10.1.1", SM + ".10.2.1"
TRACE_REQ, TRACE_RES = SM + ".12.1.1", SM + ".12.2.1"
MP_REQ, MP_RES = SM + ".11.1.1", SM + ".11.2.1"


def lid(name, port=1):
    n = int(name[4:])
    return 101 + (n - 1) * 2 + port - 1


def configure():
    path = os.path.join(fab.dir, "ibsnmpgw.yaml")
    text = open(path).read()
    text = text.replace(
        "  communities:\n    - name: public\n",
        "  fabric-query-max: 6\n"
        "  fabric-query-age: %d\n"
        "  communities:\n    - name: public\n"
        "    - name: ops\n      fabric-queries: true\n"
        "    - name: mp\n      fabric-queries: true\n"
        "    - name: tenant\n      fabric-queries: true\n"
        "      nodes: {name: \"node0[12]\"}\n" % AGE_LONG, 1)
    open(path, "w").write(text)
    fab.reload()


def v2(comm):
    return ["-v2c", "-c", "%s@fabric" % comm]


def snmpset(sec, *vbs):
    args = []
    for oid, typ, val in vbs:
        args += [oid, typ, str(val)]
    return fab.snmp("snmpset", sec, args)


def err_of(out):
    m = re.search(r"Reason: \(?(\w+)", out.stdout + out.stderr)
    return m.group(1) if m else None


def stats():
    st = fab.ctl("stats").stdout
    mads = int(re.search(r"mad sent (\d+)", st).group(1))
    sa = int(re.search(r"sa sm-lid \d+ queries (\d+)", st).group(1))
    return mads, sa


def walk(base, sec):
    out = fab.snmp("snmpbulkwalk", sec + ["-Ox"], [base], timeout=10)
    text = re.sub(r"\n(?!\.)", " ", out.stdout)
    rows = {}
    for oid, (typ, val) in parse_vars(text).items():
        if not oid.startswith("." + base + "."):
            continue
        rest = [int(x) for x in oid[len(base) + 2:].split(".")]
        rows.setdefault(tuple(rest[9:]), {})[rest[0]] = val
    return rows


def wait_results(base, sec, session, want=1, timeout=5, ok=None):
    """The session's result rows once there are want of them (or ok(rows)
    holds), or what there is after timeout. A walk may meet results being
    replaced (a query run again): rows can be partial until it settles."""
    end, last = time.time() + timeout, None
    while True:
        rows = {k: v for k, v in walk(base, sec).items()
                if k[0] == session}
        # Settled: two walks in a row agree (results come at once, but
        # a walk is several requests and may straddle their arrival).
        if (ok(rows) if ok else len(rows) >= want and rows == last) or \
                time.time() > end:
            return rows
        last = rows
        time.sleep(0.1)


def idx(session):
    return "%s.%d" % (PFX, session)


def path_query(sec, session, slid, dlid):
    return snmpset(sec, ("%s.3.%s" % (PATH_REQ, idx(session)), "i", 4),
                   ("%s.10.%s" % (PATH_REQ, idx(session)), "i", slid),
                   ("%s.9.%s" % (PATH_REQ, idx(session)), "i", dlid))


def port_gid(name):
    """The port GID of name's port 1 (default prefix), in hex."""
    out = fab.diag(["smpquery", "nodeinfo", str(lid(name))])
    g = int(re.search(r"PortGuid:\.+0x([0-9a-f]+)", out.stdout).group(1),
            16)
    return "fe80000000000000%016x" % g


def mp_query(sec, session, srcs, dsts, numb=4, status=4):
    gids = "".join(port_gid(n) for n in srcs + dsts)
    i = idx(session)
    return snmpset(sec, ("%s.3.%s" % (MP_REQ, i), "i", status),
                   ("%s.20.%s" % (MP_REQ, i), "i", len(srcs)),
                   ("%s.21.%s" % (MP_REQ, i), "i", len(dsts)),
                   ("%s.10.%s" % (MP_REQ, i), "i", numb),
                   ("%s.22.%s" % (MP_REQ, i), "x", gids))


def check_refused():
    before = stats()
    out = mp_query(v2("public"), 1, ["node01"], ["node02"])
    R.equal(err_of(out), "noAccess", "a multipath query without the grant "
            "too")
    for comm in ("public", "nosuch"):
        out = path_query(v2(comm), 1, lid("node01"), lid("node02"))
        R.check(comm == "nosuch" or err_of(out) == "noAccess",
                "a community without fabric-queries is refused with "
                "noAccess (%s)" % comm, out.stdout + out.stderr)
    out = fab.snmp("snmpset", ["-v1", "-c", "public@fabric"],
                   ["%s.3.%s" % (PATH_REQ, idx(1)), "i", "4"])
    R.check(err_of(out) in ("noSuchName", "noAccess"), "... SNMPv1: "
            "noSuchName", out.stdout + out.stderr)
    out = fab.snmp("snmpset", fab.v3("fabric"),
                   ["%s.3.%s" % (PATH_REQ, idx(1)), "i", "4"])
    R.equal(err_of(out), "noAccess", "a v3 user without the grant too")
    out = fab.snmp("snmpset", v2("ops"), [
        "%s.2.1.1.3.%s.0.2.201.3.0.170.0.1" % (SM, PFX), "i", "1"])
    R.equal(err_of(out), "notWritable", "with the grant, the rest of "
            "IB-SM-MIB stays read-only")
    R.equal(stats(), before, "nothing was sent to the fabric (MADs, SA "
            "queries)")
    R.equal(walk(PATH_REQ, v2("public")), {}, "and no row was created")


def saquery_path(slid, dlid):
    out = fab.diag(["saquery", "-p", "--src-to-dst", "%d:%d" % (slid,
                                                             dlid)])
    f = dict(re.findall(r"^\s*(\w+)\.+(\S+)", out.stdout, re.M))
    return {"dlid": int(f["dlid"]), "slid": int(f["slid"]),
            "mtu": int(f["mtu"], 16) & 0x3f,
            "rate": int(f["rate"], 16) & 0x3f,
            "life": int(f["pkt_life"], 16) & 0x3f,
            "pkey": int(f["pkey"], 16), "sl": int(f["sl"], 0),
            "dgid": f["dgid"].split(":")[-2:],
            "sgid": f["sgid"].split(":")[-2:]}


def gid_tail(h):
    b = bytes.fromhex(h)
    return ["%x" % int.from_bytes(b[12:14], "big"),
            "%x" % int.from_bytes(b[14:16], "big")]


def check_paths():
    pairs = [("node01", "node02"), ("node01", "node08"),
             ("node03", "node06")]
    for k, (a, b) in enumerate(pairs):
        s = 10 + k
        out = path_query(v2("ops"), s, lid(a), lid(b))
        R.check(out.returncode == 0, "ops creates path query %d (%s to "
                "%s)" % (s, a, b), out.stdout + out.stderr)
        rows = wait_results(PATH_RES, v2("ops"), s)
        got = [{"dlid": c[7], "slid": c[8], "mtu": c[16], "rate": c[18],
                "life": c[20], "pkey": int(c[13], 16), "sl": c[14],
                "dgid": gid_tail(c[4]), "sgid": gid_tail(c[5])}
               for k2, c in sorted(rows.items())]
        R.equal(got, [saquery_path(lid(a), lid(b))], "path %s to %s is "
                "saquery -p's" % (a, b))
    req = walk(PATH_REQ, v2("ops"))
    R.equal(req.get((10,), {}).get(3), 1, "the request row is active(1)")
    R.equal(req.get((10,), {}).get(5), "0000000000000030",
            "RowCompMask: DLID and SLID, from the columns written")


def check_multipath():
    # Two sources, one destination: every answer is a path between a
    # source and the destination, and saquery -p's for that pair.
    srcs, dsts = ["node03", "node07"], ["node05"]
    out = mp_query(v2("mp"), 1, srcs, dsts)
    R.check(out.returncode == 0, "mp creates a multipath query (node03, "
            "node07 to node05)", out.stdout + out.stderr)
    rows = wait_results(MP_RES, v2("mp"), 1)
    R.check(len(rows) >= 1, "the SM answered it (%d paths)" % len(rows))
    want = {(lid(a), lid(b)): saquery_path(lid(a), lid(b))
            for a in srcs for b in dsts}
    for k, c in sorted(rows.items()):
        got = {"dlid": c[7], "slid": c[8], "mtu": c[16], "rate": c[18],
               "life": c[20], "pkey": int(c[13], 16), "sl": c[14],
               "dgid": gid_tail(c[4]), "sgid": gid_tail(c[5])}
        R.equal(got, want.get((c[8], c[7])), "multipath result %d is "
                "saquery -p's for its pair (%s to %s)" % (k[1], c[8], c[7]))
    out = mp_query(v2("mp"), 2, ["node01"], ["node08"], numb=1)
    rows = wait_results(MP_RES, v2("mp"), 2)
    R.equal([c[7] for _, c in sorted(rows.items())], [lid("node08")],
            "one source, one destination, NumbPath 1: one path")
    req = walk(MP_REQ, v2("mp"))
    R.equal(req.get((1,), {}).get(5), "0000000000180040", "CompMask: "
            "NumbPath, SGIDCount and DGIDCount, from the columns written")
    R.equal(req.get((1,), {}).get(22), "".join(
        port_gid(n) for n in srcs + dsts), "SDGIDBlock1 reads back")

    i = idx(3)
    out = snmpset(v2("mp"), ("%s.3.%s" % (MP_REQ, i), "i", 5),
                  ("%s.23.%s" % (MP_REQ, i), "x", port_gid("node01")))
    R.equal(err_of(out), "wrongValue", "GIDs past block 1 (more than one "
            "MAD carries): wrongValue")
    out = snmpset(v2("mp"), ("%s.3.%s" % (MP_REQ, i), "i", 5),
                  ("%s.22.%s" % (MP_REQ, i), "x", "00" * 17))
    R.equal(err_of(out), "wrongLength", "a GID list not in 16-octet "
            "GIDs: wrongLength")
    out = snmpset(v2("mp"), ("%s.3.%s" % (MP_REQ, i), "i", 5),
                  ("%s.22.%s" % (MP_REQ, i), "x", port_gid("node01") * 12))
    R.equal(err_of(out), "wrongValue", "12 GIDs: wrongValue")
    before = stats()
    out = snmpset(v2("mp"), ("%s.3.%s" % (MP_REQ, i), "i", 4),
                  ("%s.20.%s" % (MP_REQ, i), "i", 1),
                  ("%s.21.%s" % (MP_REQ, i), "i", 1),
                  ("%s.22.%s" % (MP_REQ, i), "x",
                   port_gid("node01") + "fe80" + "00" * 12 + "dead"))
    R.equal(err_of(out), "inconsistentValue", "a GID outside the "
            "inventory: inconsistentValue")
    out = mp_query(v2("mp"), 3, ["node01", "node02"], [])
    R.equal(err_of(out), "inconsistentValue", "no destination: "
            "inconsistentValue")
    R.equal(stats(), before, "refused multipath queries send nothing")
    out = mp_query(v2("tenant"), 22, ["node01"], ["node08"])
    R.equal(err_of(out), "inconsistentValue", "a tenant's multipath to a "
            "node it may not see is refused")
    R.equal(walk(MP_REQ, v2("ops")), {}, "another requester sees none of "
            "mp's rows")


def ibtracert(slid, dlid):
    out = fab.diag(["ibtracert", str(slid), str(dlid)])
    hops = []
    for line in out.stdout.splitlines():
        m = re.match(r"^From ca \{0x([0-9a-f]+)\} portnum (\d+)", line)
        if m:
            g = int(m.group(1), 16)
            hops.append((1, g, g + int(m.group(2)), 0, 0))
            continue
        m = re.match(r"^\[(\d+)\] -> (switch|ca) port \{0x([0-9a-f]+)\}"
                     r"\[(\d+)\]", line)
        if m:
            if hops and hops[-1][0] == 2:
                t, g, e, _, p = hops[-1]
                hops[-1] = (t, g, e, int(m.group(1)), p)
            g = int(m.group(3), 16)
            if m.group(2) == "switch":
                hops.append((2, g, 0, 0, int(m.group(4))))
            else:
                hops.append((1, g - int(m.group(4)), g, 0, 0))
    # (type, node GUID, entry port GUID (CA), exit port, entry port)
    return [(t, g, e, x, p) for t, g, e, x, p in hops]


def check_traces():
    out = snmpset(v2("ops"), ("%s.3.%s" % (TRACE_REQ, idx(99)), "i", 4))
    R.equal(err_of(out), "inconsistentValue", "a trace without its path "
            "row is refused")
    for k, (a, b) in enumerate([("node01", "node02"), ("node01", "node08"),
                                ("node03", "node06")]):
        s = 10 + k
        out = snmpset(v2("ops"), ("%s.3.%s" % (TRACE_REQ, idx(s)), "i", 4))
        R.check(out.returncode == 0, "ops traces session %d" % s,
                out.stdout + out.stderr)
        rows = wait_results(TRACE_RES, v2("ops"), s, want=3)
        got = [(c[5], int(c[6], 16), int(c[8], 16), c[11], c[10])
               for _, c in sorted(rows.items())]
        R.equal(got, ibtracert(lid(a), lid(b)), "trace %s to %s is "
                "ibtracert's, hop by hop" % (a, b))


def check_rowstatus():
    s = idx(10)
    out = snmpset(v2("ops"), ("%s.3.%s" % (PATH_REQ, s), "i", 4))
    R.equal(err_of(out), "inconsistentValue", "createAndGo on an existing "
            "row: inconsistentValue")
    out = snmpset(v2("ops"), ("%s.9.%s" % (PATH_REQ, s), "i", 105))
    R.equal(err_of(out), "inconsistentValue", "an active row's columns do "
            "not change")
    out = snmpset(v2("ops"), ("%s.9.%s" % (PATH_REQ, idx(50)), "i", 105))
    R.equal(err_of(out), "noCreation", "a column of no row: noCreation")
    out = snmpset(v2("ops"), ("%s.3.%s" % (PATH_REQ, idx(50)), "i", 4))
    R.equal(err_of(out), "resourceUnavailable", "a fourth row of one "
            "requester (fabric-query-max 6): resourceUnavailable")
    out = snmpset(v2("ops"), ("%s.3.%s" % (TRACE_REQ, idx(12)), "i", 6))
    R.check(out.returncode == 0, "destroy a trace row", out.stderr)
    out = snmpset(v2("ops"), ("%s.3.%s" % (PATH_REQ, idx(12)), "i", 2),
                  ("%s.9.%s" % (PATH_REQ, idx(12)), "i", lid("node07")))
    R.check(out.returncode == 0, "notInService, then a column changes",
            out.stdout + out.stderr)
    out = snmpset(v2("ops"), ("%s.3.%s" % (PATH_REQ, idx(12)), "i", 1))

    def dlids(rows):
        return [c.get(7) for _, c in sorted(rows.items())]
    rows = wait_results(PATH_RES, v2("ops"), 12, ok=lambda r: dlids(r) ==
                        [lid("node07")])
    R.equal(dlids(rows), [lid("node07")],
            "active again: the query runs again with the new DLID")
    out = snmpset(v2("ops"), ("%s.3.%s" % (PATH_REQ, idx(11)), "i", 6))
    R.check(not any(k[0] == 11 for k in walk(PATH_RES, v2("ops"))),
            "destroy removes the row's results", out.stderr)
    out = snmpset(v2("ops"), ("%s.3.%s" % (PATH_REQ, idx(13)), "i", 5))
    R.check(out.returncode == 0, "createAndWait", out.stderr)
    out = snmpset(v2("ops"), ("%s.3.%s" % (PATH_REQ, idx(13)), "i", 1))
    R.equal(err_of(out), "inconsistentValue", "activating a path with no "
            "ends (every pair of the subnet): inconsistentValue")
    out = snmpset(v2("ops"), ("%s.3.%s" % (PATH_REQ, idx(13)), "i", 7))
    R.equal(err_of(out), "wrongValue", "RowStatus 7: wrongValue")


def check_tenant():
    out = path_query(v2("tenant"), 20, lid("node01"), lid("node08"))
    R.equal(err_of(out), "inconsistentValue", "a tenant's path to a node "
            "it may not see is refused")
    out = path_query(v2("tenant"), 21, lid("node01"), lid("node02"))
    R.check(out.returncode == 0, "... between its own nodes it runs",
            out.stdout + out.stderr)
    R.check(wait_results(PATH_RES, v2("tenant"), 21), "with a result")
    R.check(all(k[0] in (20, 21) for k in walk(PATH_REQ, v2("tenant"))),
            "a tenant sees its own rows only")
    R.check(not any(k[0] in (20, 21) for k in walk(PATH_REQ, v2("ops"))),
            "... and the others do not see its rows")
    out = snmpset(v2("ops"), ("%s.3.%s" % (PATH_REQ, idx(21)), "i", 6))
    R.equal(err_of(out), "inconsistentName", "nor can they destroy them")


def check_ageing():
    path = os.path.join(fab.dir, "ibsnmpgw.yaml")
    text = open(path).read()
    open(path, "w").write(text.replace("fabric-query-age: %d\n" % AGE_LONG,
                                       "fabric-query-age: %d\n" % AGE, 1))
    fab.reload()
    # The gateway ages rows every 5 s.
    end = time.time() + AGE + 30
    while walk(PATH_REQ, v2("ops")) and time.time() < end:
        time.sleep(0.5)
    R.equal(walk(PATH_REQ, v2("ops")), {}, "rows age out after "
            "fabric-query-age (%d s)" % AGE)
    R.equal(walk(PATH_RES, v2("ops")), {}, "... with their results")
    R.equal(walk(MP_RES, v2("mp")), {}, "multipath rows too")


def main():
    configure()
    check_refused()
    check_paths()
    check_multipath()
    check_traces()
    check_rowstatus()
    check_tenant()
    check_ageing()


simlib.run(main, fab, R)
