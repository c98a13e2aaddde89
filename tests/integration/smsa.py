#!/usr/bin/python3
"""IB-SM-MIB's subnet-wide tables against infiniband-diags on a simulated
fabric with three partitions (opensm partitions.conf, IPoIB broadcast
groups) and services registered with the SA: ibSmPartitionTable against
`smpquery pkeys` of every member port, ibSmMcastGroupTable against
`saquery -g`, ibSmServiceTable against `saquery -S`, the SL to VL and VL
arbitration tables against `smpquery sl2vl` and `vlarb`, and (after
sa-client joins two ports to a group) ibSmMcastMemberTable against
`saquery --smkey 1 -m` once ib.sa-key-file is set. Asked of the SA from
the gateway's own port, as the gateway asks. A second walk within the
TTLs sends no MAD; a tenant sees its own ports' members and services."""

import atexit
import ipaddress
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = simlib.read_name_map()


def port_guid(name, port):
    return "0x%016x" % (NAMES[name] + port)


# node01 hosts the SM (SELF), node02 the gateway: a limited member of
# every partition, so the SA shows it their groups (IBA 15.4.1).
PARTS = """\
Default=0x7fff, ipoib, defmember=full : ALL, ALL_SWITCHES=full, SELF=full;
storage=0x8001, ipoib, mtu=4, rate=3 : %s=full, %s=limited, %s=full, \
%s=limited, SELF=full;
compute=0x0022, ipoib : %s, %s=full, %s=limited;
""" % (port_guid("node01", 1), port_guid("node03", 1),
       port_guid("node03", 2), port_guid("node02", 1),
       port_guid("node05", 1), port_guid("node06", 1),
       port_guid("node02", 1))

TMP = tempfile.mkdtemp(prefix="ibsnmpgw-it-parts-")
# simlib.run exits: removed at exit, after the fabric it configured.
atexit.register(shutil.rmtree, TMP, True)
with open(os.path.join(TMP, "partitions.conf"), "w") as f:
    f.write(PARTS)
# No polling, no periodic sweep or light check, and TTLs that outlast a
# slow (sanitizer) run: the SA is read at the test's own sweeps and
# reload, and check_warm's second walk is inside every TTL.
fab = simlib.Fabric(extra=["--partitions",
                           os.path.join(TMP, "partitions.conf")],
                    extra_yaml="cache:\n  ttl:\n    tables: 3600\n"
                    "    sa: 3600\n"
                    "discovery:\n  interval: 3600\n"
                    "events:\n  master-check-ms: 0\n"
                    "polling:\n  - name: none\n    groups: []\n"
                    "    interval: 86400\n")
SM = ".1.3.6.1.3.117.7.1"
PFX = [254, 128, 0, 0, 0, 0, 0, 0]
GW_ENV = dict(fab.diag_env, SIM_HOST="node02")


def sa_counts():
    """The SA queries the gateway sent, and how many have ended."""
    m = re.search(r"^sa sm-lid \d+ queries (\d+) answers (\d+) failures "
                  r"(\d+)", fab.ctl("stats").stdout, re.M)
    return (int(m.group(1)), int(m.group(2)) + int(m.group(3))) if m \
        else (-1, -1)


def sa_sweep():
    """A sweep, and the SA queries at its end answered."""
    sent = sa_counts()[0]
    fab.sweep()
    simlib.wait(lambda: (lambda q, done: q > sent and done >= q)(
        *sa_counts()), 15, 0.1)


def diag(args, host="node02"):
    return subprocess.run(args, capture_output=True, text=True, timeout=30,
                          env=dict(fab.diag_env, SIM_HOST=host),
                          cwd=fab.dir)


def walk(sub, sec=None):
    """{(column, index tuple): (type, value)} of one table."""
    base = "%s.%s" % (SM, sub)
    out = fab.snmp("snmpbulkwalk", (sec or fab.v2("fabric")) + ["-Ox"],
                   [base], timeout=10)
    # Long hex strings wrap onto further lines: join them first.
    text = re.sub(r"\n(?!\.)", " ", out.stdout)
    rows, bad = {}, []
    for oid, tv in parse_vars(text).items():
        if not oid.startswith(base + "."):
            continue
        rest = [int(x) for x in oid[len(base) + 1:].split(".")]
        if rest[1:9] != PFX:
            bad.append(oid)
        rows[(rest[0], tuple(rest[9:]))] = tv
    R.check(not bad, "%s: every row has the subnet prefix" % sub, bad[:5])
    return rows, out


def hexbytes(v):
    return bytes.fromhex(re.sub(r"[^0-9A-Fa-f]", "", v))


def build_client():
    cc = shutil.which("cc") or shutil.which("gcc")
    exe = os.path.join(fab.dir, "sa-client")
    out = subprocess.run([cc, "-O2", "-o", exe, os.path.join(
        HERE, "..", "sim", "sa-client.c"), "-libmad", "-libumad"],
        capture_output=True, text=True, timeout=120)
    R.check(out.returncode == 0, "sa-client builds", out.stderr)
    return exe


def expected_partitions():
    """{pkey & 0x7fff: {(guid, port, 1 full | 2 limited)}} from smpquery
    pkeys of every CA port and switch port 0."""
    want = {}
    ports = [(n, p) for n in NAMES if n.startswith("node") for p in (1, 2)]
    ports += [(n, 0) for n in NAMES if not n.startswith("node")]
    for name, p in ports:
        out = diag(["smpquery", "-G", "pkeys",
                    simlib.port_addr(name, p, NAMES)], "node04")
        R.check(out.returncode == 0, "smpquery pkeys %s/%d" % (name, p),
                out.stderr)
        for line in out.stdout.splitlines():
            m = re.match(r"^\s*\d+:\s+(.*)$", line)
            if not m:
                continue
            for k in m.group(1).split():
                k = int(k, 16)
                if k & 0x7fff:
                    want.setdefault(k & 0x7fff, set()).add(
                        (NAMES[name], p, 1 if k & 0x8000 else 2))
    return want


def check_partitions():
    want = expected_partitions()
    R.check(0x0001 in want and 0x0022 in want and 0x7fff in want,
            "opensm applied the three partitions", sorted(want))
    rows, out = walk("5.1.1")
    got = {}
    for (col, idx), (typ, val) in rows.items():
        if col != 4:
            continue
        key = idx[0] << 8 | idx[1]
        b = hexbytes(val)
        R.equal(len(b) % 10, 0, "vector of pkey 0x%04x is whole elements"
                % key)
        for i in range(0, len(b), 10):
            got.setdefault(key, set()).add(
                (int.from_bytes(b[i:i + 8], "big"), b[i + 8], b[i + 9]))
    R.equal(got, want, "ibSmPartitionTable is every port's P_KeyTable "
            "(smpquery pkeys)")
    sizes = {idx: v for (col, idx), (_, v) in rows.items() if col == 5}
    R.check(sizes and all(sizes[idx] == len(hexbytes(
        rows[(4, idx)][1])) for idx in sizes),
        "VectorSize is the vector's length", sizes)
    return got


def check_mcast():
    out = diag(["saquery", "-g"])
    want = {}
    cur = None
    for line in out.stdout.splitlines():
        m = re.match(r"^\s*(\w+)\.+(.*)$", line)
        if not m:
            continue
        k, v = m.group(1), m.group(2).strip()
        if k == "MGID":
            cur = want.setdefault(v, {})
        elif cur is not None:
            cur[k] = v
    R.check(len(want) == 3, "saquery -g lists the three IPoIB broadcast "
            "groups", out.stdout + out.stderr)
    rows, _ = walk("7.1.1")
    got = {}
    for (col, idx), (typ, val) in rows.items():
        mgid = ":".join("%02x%02x" % (idx[i], idx[i + 1])
                        for i in range(0, 16, 2))
        got.setdefault(mgid, {})[col] = val
    norm = {}
    for mgid, f in want.items():
        full = subprocess.run(["/usr/bin/python3", "-c",
                               "import ipaddress,sys;print(ipaddress."
                               "IPv6Address(sys.argv[1]).exploded)", mgid],
                              capture_output=True, text=True).stdout.strip()
        norm[full] = {"mlid": int(f["Mlid"], 16), "pkey": int(f["pkey"], 16),
                      "mtu": int(f["Mtu"], 16) & 0x3f,
                      "rate": int(f["Rate"], 16) & 0x3f,
                      "sl": int(f["SL"], 16)}
    mine = {m: {"mlid": int.from_bytes(hexbytes(c[4]), "big"),
                "pkey": int.from_bytes(hexbytes(c[7]), "big"),
                "mtu": c[5], "rate": c[9], "sl": c[11]}
            for m, c in got.items() if all(k in c for k in (4, 5, 7, 9, 11))}
    R.equal(mine, norm, "ibSmMcastGroupTable is saquery -g (MGID, MLID, "
            "P_Key, MTU, rate, SL)")
    rows, _ = walk("7.2.1")
    R.equal(rows, {}, "no port joined a group (no IPoIB in ibsim): "
            "ibSmMcastMemberTable is empty, as saquery -m lists no port")
    return norm


def saquery_members(key=None):
    """{(MGID, port GUID, JoinState, ProxyJoin as TruthValue)} from
    saquery -m, as the gateway's host asks (with --smkey: a trusted
    requester). Records with PortGid :: are groups, not members."""
    out = diag(["saquery"] + (["--smkey", key] if key else []) + ["-m"])
    got, cur = set(), {}
    for line in out.stdout.splitlines() + ["MGID....end"]:
        m = re.match(r"^\s*(\w+)\.+(.*)$", line)
        if not m:
            continue
        k, v = m.group(1), m.group(2).strip()
        if k == "MGID":
            if cur.get("PortGid", "::") != "::":
                got.add((str(ipaddress.IPv6Address(cur["MGID"])),
                         int.from_bytes(ipaddress.IPv6Address(
                             cur["PortGid"]).packed[8:], "big"),
                         int(cur["ScopeState"], 16) & 0xf,
                         1 if int(cur["ProxyJoin"], 16) else 2))
            cur = {}
        cur[k] = v
    return got, out


def member_rows():
    rows, _ = walk("7.2.1")
    got = set()
    for (col, idx), (typ, val) in rows.items():
        if col != 4:
            continue
        mgid = str(ipaddress.IPv6Address(bytes(idx[0:16])))
        b = hexbytes(val)
        for i in range(0, len(b), 18):
            got.add((mgid, int.from_bytes(b[i + 8:i + 16], "big"),
                     b[i + 16], b[i + 17]))
    return got


def check_members(exe, groups):
    """Ports join the default group (sa-client: SubnAdmSet MCMemberRecord,
    JoinState full). opensm lists members to a trusted requester only
    (SM_Key = its sa_key, 1 by default); without ib.sa-key-file the
    gateway sees the groups but no member, like saquery without --smkey."""
    dflt = "ff12:401b:ffff::ffff:ffff"
    joined = ("node03", "node05")
    for host in joined:
        out = diag([exe, "join", dflt], host)
        R.check(out.returncode == 0, "%s joins the default group" % host,
                out.stderr)
    want = {(dflt, NAMES[h] + 1, 1, 2) for h in joined}
    trusted, out = saquery_members("1")
    R.equal(trusted, want, "saquery --smkey 1 -m lists the two members")
    sa_sweep()              # the SA is read again at the sweep's end
    untrusted, _ = saquery_members()
    R.equal((member_rows(), untrusted), (set(), set()),
            "without an SA key neither the gateway nor saquery -m sees a "
            "member")
    key = os.path.join(fab.dir, "sa.key")
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, b"0x0000000000000001\n")
    os.close(fd)
    path = os.path.join(fab.dir, "ibsnmpgw.yaml")
    text = open(path).read()
    open(path, "w").write(text.replace(
        "ib:\n", "ib:\n  sa-key-file: \"%s\"\n" % key, 1))
    fab.reload()
    R.check("SA queries carry the SM_Key from %s" % key in fab.log(),
            "reload: the SA queries carry the key from ib.sa-key-file")
    R.check("0x0000000000000001" not in fab.log(), "... which is never "
            "logged")
    end = time.time() + 20
    while member_rows() != want and time.time() < end:
        time.sleep(0.2)
    R.equal(member_rows(), want, "with it, ibSmMcastMemberTable is "
            "saquery --smkey 1 -m (MGID, port GID, JoinState full, not a "
            "proxy join)")
    rows, _ = walk("7.1.1")
    got = {str(ipaddress.IPv6Address(bytes(idx[0:16]))) for (_, idx) in rows}
    R.equal(got, {str(ipaddress.IPv6Address(m)) for m in groups},
            "... and the groups without members stay listed (the SA "
            "shows those to untrusted requesters only)")


def saquery_services():
    out = diag(["saquery", "-S"])
    svc, cur = {}, None
    for line in out.stdout.splitlines():
        m = re.match(r"^\s*(\w+)\.+(.*)$", line)
        if not m:
            continue
        k, v = m.group(1), m.group(2).strip()
        if k == "ServiceID":
            cur = svc.setdefault(int(v, 16), {})
        elif cur is not None:
            cur[k] = v
    return svc


def check_services(exe):
    for host, sid, name in (("node06", 0x1000000000000042,
                             "storage target 1"),
                            ("node07", 0x1000000000000043,
                             "storage target 2")):
        out = diag([exe, "service", "0x%x" % sid, name], host)
        R.check(out.returncode == 0, "%s registers service %s" %
                (host, name), out.stderr)
    want = {sid: (f["ServiceName"], f["ServiceGID"].split(":")[-2:],
                  int(f["ServiceLease"], 16))
            for sid, f in saquery_services().items()}
    # ibsim has no RMPP: an answer is the SA's first segment, which holds
    # one 176-octet ServiceRecord (tests/sim/README.md). saquery and the
    # gateway see the same one; the gateway says the rest is missing.
    R.check(len(want) >= 1, "saquery -S lists a service", want)
    sa_sweep()              # the SA is read again at the sweep's end
    end = time.time() + 10
    while True:
        rows, _ = walk("13.1.1")
        if rows or time.time() > end:
            break
        time.sleep(0.2)
    got = {}
    for (col, idx), (typ, val) in rows.items():
        sid = int.from_bytes(bytes(idx[0:8]), "big")
        got.setdefault(sid, {})[col] = val
        got[sid]["gid"] = ["%x" % (idx[20] << 8 | idx[21]),
                           "%x" % (idx[22] << 8 | idx[23])]
    mine = {sid: (hexbytes(c.get(7, "")).decode(), c["gid"], c.get(5, -1))
            for sid, c in got.items()}
    R.equal(mine, want, "ibSmServiceTable is saquery -S (ID, name, GID, "
            "lease)")
    st = fab.ctl("stats").stdout
    m = re.search(r"sa sm-lid (\d+) .* truncated (\d+) .* services (\d+)",
                  st)
    R.check(m and int(m.group(1)) == 101 and int(m.group(2)) > 0,
            "the gateway asked the SM at LID 101 and counts the answers "
            "cut short by the missing RMPP", st)
    R.check("sa: ServiceRecord: the answer fills one MAD and was not "
            "reassembled" in fab.log(),
            "... and logs it once", fab.log()[-800:])
    return {sid: int(c["gid"][1], 16) for sid, c in got.items()}


def mad_sent():
    m = re.search(r"mad sent (\d+)", fab.ctl("stats").stdout)
    return int(m.group(1)) if m else -1


def check_warm():
    before = mad_sent()
    for sub in ("5.1.1", "7.1.1", "13.1.1", "14.1.1", "15.1.1", "16.1.1"):
        walk(sub)
    R.equal(mad_sent() - before, 0, "a second walk within the TTLs sends "
            "no MAD (partitions and VL tables from the cache, SA tables "
            "from the snapshot)")


def check_tenant(parts, services):
    """A tenant of the node whose service the SA showed."""
    sid, low = next(iter(services.items()))
    owner = next(n for n, g in NAMES.items() if n.startswith("node") and
                 (g + 1) & 0xffff == low)
    path = os.path.join(fab.dir, "ibsnmpgw.yaml")
    text = open(path).read()
    text = text.replace("  communities:\n    - name: public\n",
                        "  communities:\n    - name: public\n"
                        "    - name: tenant\n"
                        "      nodes: {name: \"%s\"}\n"
                        "    - name: other\n"
                        "      nodes: {name: \"leaf01\"}\n" % owner, 1)
    open(path, "w").write(text)
    fab.reload()
    sec = fab.v2("fabric", "tenant")
    g = NAMES[owner]
    rows, _ = walk("5.1.1", sec)
    got = {}
    for (col, idx), (_, val) in rows.items():
        if col == 4:
            b = hexbytes(val)
            got[idx[0] << 8 | idx[1]] = {int.from_bytes(b[i:i + 8], "big")
                                         for i in range(0, len(b), 10)}
    want = {k: {g} for k, v in parts.items() if any(m[0] == g for m in v)}
    R.equal(got, want, "a tenant sees its own node's partition "
            "memberships only")
    rows, _ = walk("13.1.1", sec)
    R.equal({int.from_bytes(bytes(idx[0:8]), "big") for (_, idx) in rows},
            {sid}, "... and its node's service")
    rows, _ = walk("13.1.1", fab.v2("fabric", "other"))
    R.equal(rows, {}, "a tenant of a leaf sees no service")
    rows, _ = walk("7.1.1", sec)
    R.equal(rows, {}, "... and no group (no member is its port)")


def diag_rows(pattern, out):
    return [m.groups() for m in re.finditer(pattern, out.stdout, re.M)]


def linked_ports():
    """{switch guid: {linked ports}} from ibnetdiscover."""
    out = diag(["ibnetdiscover"], "node04")
    res, cur = {}, None
    for line in out.stdout.splitlines():
        m = re.match(r'^Switch\s+\d+\s+"S-([0-9a-f]{16})"', line)
        if m:
            cur = int(m.group(1), 16)
            res[cur] = set()
            continue
        if re.match(r"^(Ca|Rt)\s", line):
            cur = None
        m = re.match(r"^\[(\d+)\]", line)
        if m and cur is not None:
            res[cur].add(int(m.group(1)))
    return res


def check_vl():
    links = linked_ports()
    rows, _ = walk("14.1.1")
    got = {}
    for (col, idx), (_, v) in rows.items():
        g = int.from_bytes(bytes(idx[0:8]), "big")
        got.setdefault(g, {}).setdefault((idx[8], idx[9]), {})[col - 5] = v
    R.equal({g: {o for (_, o) in pairs} for g, pairs in got.items()},
            links, "ibSmSwSLtoVLMapTable: every switch, its linked ports "
            "as outputs (ibnetdiscover)")
    for name in ("spine01", "leaf03"):
        g = NAMES[name]
        for o in sorted(links[g])[:3]:
            out = diag(["smpquery", "-G", "sl2vl", "0x%016x" % g, str(o)],
                       "node04")
            want = {(255 if int(i) == 0 else int(i), o): {
                sl: int(x) for sl, x in enumerate(vals.split("|")[1:17])}
                for i, vals in diag_rows(
                    r"^ports: in\s+(\d+), out\s+\d+: (.*)$", out)
                if int(i) == 0 or int(i) in links[g]}
            mine = {k: v for k, v in got[g].items() if k[1] == o}
            R.equal(mine, want, "%s output port %d: SL to VL is smpquery "
                    "sl2vl's for every linked input port and port 0" %
                    (name, o))
    rows, _ = walk("15.1.1")
    ca = {}
    for (col, idx), (_, v) in rows.items():
        g = int.from_bytes(bytes(idx[0:8]), "big")
        ca.setdefault((g, idx[8]), {})[col - 4] = v
    want = {}
    for n in (n for n in NAMES if n.startswith("node")):
        for p in (1, 2):
            out = diag(["smpquery", "-G", "sl2vl",
                        simlib.port_addr(n, p, NAMES)], "node04")
            for _, vals in diag_rows(r"^ports: in\s+(\d+), out\s+\d+: "
                                     r"(.*)$", out):
                want[(NAMES[n], p)] = {sl: int(x) for sl, x in
                                       enumerate(vals.split("|")[1:17])}
    R.equal(ca, want, "ibSmCaSLtoVLMapTable is smpquery sl2vl of every CA "
            "port")
    rows, _ = walk("16.1.1")
    arb = {}
    for (col, idx), (_, v) in rows.items():
        g = int.from_bytes(bytes(idx[0:8]), "big")
        arb.setdefault((g, idx[8]), {}).setdefault(
            (idx[9], idx[10]), {})["w" if col == 6 else "vl"] = v
    for name, p in (("node01", 1), ("node03", 2), ("node08", 1),
                    ("leaf01", 1), ("spine02", 2)):
        sw = not name.startswith("node")
        out = diag(["smpquery", "-G", "vlarb",
                    simlib.port_addr(name, p, NAMES)] + ([str(p)] if sw
                                                         else []), "node04")
        vls = [[int(x, 16) for x in r.split("|")[1:] if x.strip()]
               for (r,) in diag_rows(r"^VL\s+: (.*)$", out)]
        ws = [[int(x, 16) for x in r.split("|")[1:] if x.strip()]
              for (r,) in diag_rows(r"^WEIGHT: (.*)$", out)]
        want = {}
        for pri, (vl, w) in zip((1, 2), zip(vls, ws)):
            for i, (a, b) in enumerate(zip(vl, w)):
                want[(pri, i + 1)] = {"vl": a, "w": b}
        R.equal(arb.get((NAMES[name], p)), want, "ibSmVLArbitrationTable "
                "of %s port %d is smpquery vlarb's" % (name, p))
    R.check(len(arb) > 30, "VL arbitration rows for every linked port "
            "(%d ports)" % len(arb))


def main():
    exe = build_client()
    check_vl()
    parts = check_partitions()
    groups = check_mcast()
    services = check_services(exe)
    check_members(exe, groups)
    check_warm()
    check_tenant(parts, services)


simlib.run(main, fab, R)
