#!/usr/bin/python3
"""LLDP-MIB in the node contexts and the fabric context as a device
(issue 24): every node's lldpRemTable against ibnetdiscover (one row per
cabled port naming the right GUID and port, no others), each neighbour's
local IDs against what the other end reports, lldpLocPortTable against
IF-MIB's ifIndex, a map built as LibreNMS's LLDP discovery builds it
(remote chassis ID or system name matched to the devices polled) from
the node contexts alone, a tenant not seeing hidden neighbours, an
Unlink leaving the table after the SM's Report and its sweep and moving
lldpStatsRemTablesDeletes, and the fabric context's system group through
net-snmp, pysnmp and check_snmp (when monitoring-plugins is there)."""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars, STATS  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
# The SM's Reports drive the sweeps (an Unlink is seen within about a
# second), as on a fabric with an SM subscription.
fab = simlib.Fabric(extra=["--sm-events"])

LLDP = ".1.0.8802.1.1.2.1"
LOC = LLDP + ".3"
LOC_PORT = LOC + ".7.1"
REM = LLDP + ".4.1.1"
MAN = LLDP + ".4.2.1"
ST = LLDP + ".2"
NT = STATS[:-2] + ".5.1.1"        # ibsnmpgwNodeEntry
IFINDEX = ".1.3.6.1.2.1.2.2.1.1"
SYSTEM = ".1.3.6.1.2.1.1"


def discovered():
    """ibnetdiscover's links: {(guid, port): (guid, port)}, both ways."""
    out = fab.diag(["ibnetdiscover"])
    links, cur = {}, None
    for line in out.stdout.splitlines():
        m = re.match(r'^(?:Switch|Ca|Rt)\s+\d+\s+"[SHR]-([0-9a-f]{16})"',
                     line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"[SHR]-([0-9a-f]{16})"'
                     r'\[(\d+)\]', line)
        if m and cur:
            links[(cur, int(m.group(1)))] = (m.group(2), int(m.group(3)))
    return links, out


def contexts():
    """The fabric context's node table: {guid: context name}."""
    v = walk("fabric", NT)
    names = {o.split(".")[-1]: val for o, (t, val) in v.items()
             if o.startswith(NT + ".2.")}
    guids = {o.split(".")[-1]: val for o, (t, val) in v.items()
             if o.startswith(NT + ".3.")}
    return {guids[i]: names[i] for i in names}


def walk(ctx, oid, sec=None):
    out = fab.snmp("snmpbulkwalk", sec or fab.v2(ctx), [oid])
    return parse_vars(out.stdout)


def lldp_of(ctx, sec=None):
    """One node context's LLDP-MIB: local scalars {subid: value}, local
    ports {port: (subtype, id)}, remote rows {(mark, port, idx): {col:
    value}}, management address rows [index], stats {subid: value}."""
    v = walk(ctx, LLDP, sec)
    loc, ports, rem, man, st = {}, {}, {}, [], {}
    for o, (t, val) in v.items():
        if o.startswith(LOC_PORT + "."):
            col, port = o[len(LOC_PORT) + 1:].split(".")
            ports.setdefault(int(port), {})[int(col)] = val
        elif o.startswith(LOC + "."):
            loc[int(o[len(LOC) + 1:].split(".")[0])] = val
        elif o.startswith(REM + "."):
            sub = [int(x) for x in o[len(REM) + 1:].split(".")]
            rem.setdefault(tuple(sub[1:]), {})[sub[0]] = val
        elif o.startswith(MAN + ".3."):
            man.append(tuple(int(x) for x in o[len(MAN) + 3:].split(".")))
        elif o.startswith(ST + "."):
            st[int(o[len(ST) + 1:].split(".")[0])] = val
    return loc, ports, rem, man, st


def hexid(g):
    return "0x" + g


def check_tables(names, links):
    """Every node's tables against ibnetdiscover and its neighbours."""
    tabs = {g: lldp_of(names[g]) for g in names}
    for g, ctx in sorted(names.items(), key=lambda x: x[1]):
        loc, ports, rem, man, st = tabs[g]
        R.equal((loc.get(1), loc.get(2), loc.get(3)), (7, hexid(g), ctx),
                "%s: chassis ID local(7) = its GUID, sysName = its context"
                % ctx)
        ifx = sorted(int(o.split(".")[-1]) for o in walk(ctx, IFINDEX))
        R.equal(sorted(ports), ifx, "%s: lldpLocPortTable rows are "
                "IF-MIB's ifIndex rows" % ctx)
        got = {k[1]: (r.get(4), r.get(5), r.get(6), r.get(7), r.get(9))
               for k, r in rem.items()}
        want = {p: (7, hexid(rg), 5, "port%d" % rp, names[rg])
                for (lg, p), (rg, rp) in links.items() if lg == g}
        R.equal(got, want, "%s: one lldpRemTable row per cabled port, "
                "naming ibnetdiscover's neighbour and port" % ctx)
        R.check(len(got) == len(rem) and all(k[2] == 1 for k in rem),
                "%s: no other rows (one per local port, lldpRemIndex 1)"
                % ctx, sorted(rem))
        R.check(sorted((m[0], m[1], m[2]) for m in man) == sorted(rem) and
                all(m[3:] == (1, 4, 127, 0, 0, 1) for m in man),
                "%s: each neighbour's management address is the "
                "gateway's (ipV4 127.0.0.1)" % ctx, man)
        bad = []
        for p, (sub, ch, psub, pid, name) in got.items():
            rg, rp = links[(g, p)]
            rloc, rports = tabs[rg][0], tabs[rg][1]
            if (rloc.get(1), rloc.get(2), rloc.get(3)) != (sub, ch, name) \
                    or rports.get(rp, {}).get(2) != psub \
                    or rports.get(rp, {}).get(3) != pid:
                bad.append((p, rg, rp))
        R.check(not bad, "%s: every neighbour serves as its local IDs "
                "what this node reports as remote" % ctx, bad)
    return tabs


def check_map(names, links):
    """What LibreNMS's LLDP discovery does: for each polled device's
    remote rows, find the remote device among the polled ones by
    lldpRemChassisId, else by lldpRemSysName; the remote port by
    lldpRemPortId against its ifName (lldpLocPortId)."""
    devices = {}                # polled: chassis ID and sysName -> device
    for ctx in names.values():
        loc = lldp_of(ctx)[0]
        devices[loc[2]] = ctx
        devices[loc[3]] = ctx
    found = set()
    for ctx in names.values():
        loc, ports, rem, man, st = lldp_of(ctx)
        for (mark, lport, idx), r in rem.items():
            peer = devices.get(r.get(5)) or devices.get(r.get(9))
            if peer is None:
                continue
            pports = tabs_by_ctx[peer]
            rport = [p for p, c in pports.items() if c.get(3) == r.get(7)]
            if len(rport) == 1:
                found.add(frozenset([(ctx, lport), (peer, rport[0])]))
    want = {frozenset([(names[a], ap), (names[b], bp)])
            for (a, ap), (b, bp) in links.items()}
    R.equal(sorted(map(sorted, found)), sorted(map(sorted, want)),
            "a LibreNMS-style map from the node contexts alone finds "
            "every link ibnetdiscover finds (%d)" % len(want))


tabs_by_ctx = {}


def rem_ports(ctx, sec=None):
    return sorted(k[1] for k in lldp_of(ctx, sec)[2])


def check_unlink(names, links):
    """An Unlink between two switches: both ends' rows leave at the
    sweep the SM's Report starts, and each end counts one delete; the
    ReLink brings them back and counts one insert."""
    rg, rp = links[(GUID["leaf01"], 5)]
    peer = names[rg]
    R.check(simlib.wait(lambda: "sweep-driver sm-events" in
                        fab.ctl("stats").stdout, 60, 0.2),
            "the SM subscription drives the sweeps")
    before = {c: lldp_of(c)[4] for c in ("leaf01", peer)}
    fab.cmd('Unlink "leaf01"[5]')
    gone = simlib.wait(lambda: 5 not in rem_ports("leaf01") and
                       rp not in rem_ports(peer), 30, 0.2)
    R.check(gone, "after Unlink leaf01[5] the row leaves both ends' "
            "lldpRemTable (leaf01[5], %s[%d])" % (peer, rp))
    for c in ("leaf01", peer):
        st = lldp_of(c)[4]
        R.equal((st[3] - before[c][3], st[2] - before[c][2]), (1, 0),
                "%s: lldpStatsRemTablesDeletes +1, inserts +0" % c)
        R.check(st[1] > before[c][1], "%s: lldpStatsRemTablesLastChange"
                "Time moved (%d -> %d)" % (c, before[c][1], st[1]))
    fab.cmd('ReLink "leaf01"[5]')
    back = simlib.wait(lambda: 5 in rem_ports("leaf01") and
                       rp in rem_ports(peer), 30, 0.2)
    R.check(back, "after ReLink the rows are back")
    for c in ("leaf01", peer):
        st = lldp_of(c)[4]
        R.equal((st[3] - before[c][3], st[2] - before[c][2]), (1, 1),
                "%s: ... and one insert counted" % c)


def check_tenant(names):
    """A community limited to leaf01 sees in leaf01's context only the
    rows of neighbours it may see (none of them: rows hidden)."""
    path = os.path.join(fab.dir, "ibsnmpgw.yaml")
    text = open(path).read()
    text = text.replace(
        "  communities:\n    - name: public\n",
        "  communities:\n    - name: public\n"
        "    - name: tenant\n"
        "      nodes: {regex: \"^(leaf01|spine01)$\"}\n", 1)
    open(path, "w").write(text)
    fab.reload()
    sec = fab.v2("leaf01", "tenant")
    got = lldp_of("leaf01", sec)
    peers = sorted({r.get(9) for r in got[2].values()})
    R.equal(peers, ["spine01"], "a tenant of leaf01 and spine01 sees only "
            "spine01's rows in leaf01's lldpRemTable")
    R.equal(len(got[3]), len(got[2]), "... and only their management "
            "address rows")
    R.equal(got[0].get(3), "leaf01", "... and leaf01's own local data")


def check_fabric_system():
    oids = [SYSTEM + ".%d.0" % i for i in (1, 2, 3, 5, 7)]
    v = parse_vars(fab.snmp("snmpget", fab.v2("fabric"), oids).stdout)
    descr = v.get(oids[0], ("", ""))[1]
    R.check(re.match(r"InfiniBand subnet 0xfe80000000000000: 14 nodes, "
                     r"6 switches, master SM 0x[0-9a-f]{16} LID \d+",
                     descr) is not None,
            "fabric sysDescr names prefix, counts and master SM", descr)
    R.equal(v.get(oids[1], ("", ""))[1],
            ".1.3.6.1.4.1.8072.9999.9999.117.0.2",
            "fabric sysObjectID is ibsnmpgwFabric")
    R.equal(v.get(oids[3], ("", ""))[1], "ib-fe80000000000000",
            "fabric sysName defaults to ib-<prefix>")
    R.equal(v.get(oids[4], ("", ""))[1], 2, "fabric sysServices 2")
    R.check(v.get(oids[2], ("", ""))[0] == "Timeticks",
            "fabric sysUpTime is TimeTicks", v)
    snmp_in = parse_vars(fab.snmp("snmpget", fab.v2("fabric"),
                                  [".1.3.6.1.2.1.11.1.0"]).stdout)
    R.check(snmp_in.get(".1.3.6.1.2.1.11.1.0", ("", 0))[1] > 0,
            "fabric context serves the snmp group (snmpInPkts)", snmp_in)
    check_pysnmp(oids)
    check_plugin()


def check_pysnmp(oids):
    try:
        sys.path.insert(0, "/usr/lib/python3/dist-packages")
        from pysnmp.hlapi import (CommunityData, ContextData, ObjectIdentity,
                                  ObjectType, SnmpEngine, UdpTransportTarget,
                                  getCmd)
    except ImportError as e:
        print("# skip: pysnmp check (%s)" % e)     # not a pass
        return
    host, port = fab.endpoint.split(":")[1:]
    err, status, idx, vbs = next(getCmd(
        SnmpEngine(), CommunityData("%s@fabric" % fab.community),
        UdpTransportTarget((host, int(port)), timeout=3, retries=1),
        ContextData(), *[ObjectType(ObjectIdentity(o[1:])) for o in oids]))
    vals = [str(v) for _, v in vbs] if vbs else []
    R.check(not err and not status and len(vals) == 5 and
            vals[0].startswith("InfiniBand subnet") and
            vals[3] == "ib-fe80000000000000",
            "pysnmp GET of the fabric context's system group",
            "%r %r %r" % (err, status, vals))


def check_plugin():
    plugin = shutil.which("check_snmp") or \
        "/usr/lib/nagios/plugins/check_snmp"
    if not os.access(plugin, os.X_OK):
        print("# skip: check_snmp (monitoring-plugins not installed)")
        return
    host, port = fab.endpoint.split(":")[1:]
    out = subprocess.run([plugin, "-H", host, "-p", port, "-P", "2c",
                          "-C", "%s@fabric" % fab.community,
                          # numeric: Debian ships no SNMPv2-MIB text
                          "-o", SYSTEM + ".1.0," + SYSTEM + ".3.0",
                          "-t", "10"], capture_output=True, text=True,
                         timeout=30, stdin=subprocess.DEVNULL)
    R.check(out.returncode == 0 and "InfiniBand subnet" in out.stdout,
            "check_snmp reads the fabric context's sysDescr and sysUpTime "
            "(OK)", out.stdout + out.stderr)


GUID = {}


def main():
    links, dout = discovered()
    # 4 leaves with 4 hosts and 2 x 2 spine links each: 32 cables, each
    # listed from both ends.
    R.check(len(links) == 64 and all(links[b] == a for a, b in
                                     links.items()),
            "ibnetdiscover lists the 32 cables from both ends",
            dout.stdout[-600:])
    names = contexts()
    R.equal(len(names), 14, "the node table names the 14 nodes")
    GUID.update({v: k for k, v in names.items()})
    tabs = check_tables(names, links)
    tabs_by_ctx.update({names[g]: t[1] for g, t in tabs.items()})
    check_map(names, links)
    check_fabric_system()
    check_unlink(names, links)
    check_tenant(names)


simlib.run(main, fab, R)
