#!/usr/bin/python3
"""Notifications on the simulated fabric, received by two SNMP stacks:
net-snmp's snmptrapd (v2c trap, v2c inform, v3 inform) and pysnmp
(tests/integration/trapsink.py: a v3 trap with SHA/AES, and a tenant's
v2c inform limited to some nodes).

Checks: coldStart informs wait in their queue while no receiver runs and
arrive once one does; ibsim Unlink of a switch-to-switch link gives
IF-MIB linkDown for both ends with ifIndex = port, and the event's
GUID and context name, to every target; v3 notifications carry the
node's context; a tenant target hears about its nodes only; a port in
notify.link-updown-disabled sends no linkDown and reads
ifLinkUpDownTrapEnable disabled(2); ibsnmpgwEventTable matches `ctl
events` and hides other nodes' rows from a tenant; ibsnmpgwTargetTable
counts what was acknowledged; informs queued while the receiver is down
survive a reload and are delivered."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import parse_vars  # noqa: E402

simlib.skip_if_missing()
if shutil.which("snmptrapd") is None:
    print("1..0 # SKIP snmptrapd is not installed")
    sys.exit(77)


TRAPD, SINK = simlib.free_udp_port(), simlib.free_udp_port()
# snmptrapd.conf's "engineID ibsim1" is the text form (RFC 3411
# SnmpEngineID format 4): 80001f88 04 "ibsim1".
TRAPD_EID = "80001f8804" + b"ibsim1".hex()
BASE = ".1.3.6.1.4.1.8072.9999.9999.117"
EVENT = BASE + ".6.1.1"
TARGET = BASE + ".6.2.1"
LINK_DOWN, LINK_UP = ".1.3.6.1.6.3.1.1.5.3", ".1.3.6.1.6.3.1.1.5.4"
COLD = ".1.3.6.1.6.3.1.1.5.1"
UNREACHABLE = BASE + ".7.0.1"
TRAP_OID = ".1.3.6.1.6.3.1.1.4.1.0"

YAML = """polling:
  - name: none
    groups: []
    interval: 86400
notify:
  targets:
    - name: trapd-trap
      address: udp:127.0.0.1:%(trapd)d
      community: public
    - name: trapd-inform
      address: udp:127.0.0.1:%(trapd)d
      type: inform
      community: public
      timeout-ms: 300
      retries: 1
    - name: trapd-v3-inform
      address: udp:127.0.0.1:%(trapd)d
      version: 3
      type: inform
      engine-id: "0x%(eid)s"
      timeout-ms: 300
      retries: 1
      user:
        name: gwinform
        auth-protocol: SHA
        auth-passphrase: "inform-auth-pass"
        priv-protocol: AES
        priv-passphrase: "inform-priv-pass"
    - name: pysnmp-v3-trap
      address: udp:127.0.0.1:%(sink)d
      version: 3
      user:
        name: gwtrap
        auth-protocol: SHA
        auth-passphrase: "trap-auth-pass"
        priv-protocol: AES
        priv-passphrase: "trap-priv-pass"
    - name: pysnmp-tenant
      address: udp:127.0.0.1:%(sink)d
      type: inform
      community: tenant
      nodes: {name: "node0[5-8]"}
      events: [node, link]
      timeout-ms: 300
      retries: 1
  link-updown-disabled:
    - nodes: {name: spine02}
      ports: [1]
""" % {"trapd": TRAPD, "sink": SINK, "eid": TRAPD_EID}

R = simlib.Report()
fab = simlib.Fabric(extra_yaml=YAML)
NAMES = simlib.read_name_map()
TMP = tempfile.mkdtemp(prefix="ibsnmpgw-notify-")
procs = {}


def gw_engine_id():
    m = re.search(r"engine-id 0x([0-9a-f]+)", fab.ctl("targets").stdout)
    return m.group(1) if m else ""


def start_trapd():
    conf = os.path.join(TMP, "snmptrapd.conf")
    with open(conf, "w") as f:
        f.write("authCommunity log public\n"
                "engineID ibsim1\n"
                "createUser gwinform SHA inform-auth-pass AES "
                "inform-priv-pass\n"
                "authUser log gwinform\n")
    persist = os.path.join(TMP, "persist")
    os.makedirs(persist, exist_ok=True)
    # A log per run: snmptrapd truncates its -Lf file.
    procs["trapd-runs"] = procs.get("trapd-runs", 0) + 1
    log = os.path.join(TMP, "trapd%d.log" % procs["trapd-runs"])
    procs["trapd"] = subprocess.Popen(
        ["snmptrapd", "-f", "-Lf", log, "-C", "-c", conf, "-M", "/dev/null",
         "-m", "", "-On", "-F", "@@%P@@%v\n", "udp:127.0.0.1:%d" % TRAPD],
        env=dict(os.environ, SNMP_PERSISTENT_DIR=persist),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.time() + 10
    while time.time() < end and "NET-SNMP version" not in read(log):
        time.sleep(0.05)


def stop(name):
    p = procs.pop(name, None)
    if isinstance(p, simlib.TrapSink):
        p.stop()
    elif isinstance(p, subprocess.Popen):
        simlib.terminate(p)


def start_sink():
    procs["sink"] = simlib.TrapSink(
        "tenant", ("gwtrap", "trap-auth-pass", "trap-priv-pass",
                   gw_engine_id()), port=SINK)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def trapd_notes():
    """snmptrapd's notifications: (kind, security, {oid: value text})."""
    got = []
    text = "".join(read(os.path.join(TMP, "trapd%d.log" % i))
                   for i in range(1, procs.get("trapd-runs", 0) + 1))
    for line in text.splitlines():
        m = re.match(r"^@@(.*?)@@(.*)$", line)
        if m:
            vbs = {}
            for vb in m.group(2).split("\t"):
                k, _, v = vb.partition(" = ")
                vbs[k] = v
            got.append((m.group(1), vbs))
    return got


def sink_notes():
    return procs["sink"].notes() if "sink" in procs else []


def wait_for(cond, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


def targets():
    """ctl targets: {name: {counter: value}}."""
    t = {}
    for line in fab.ctl("targets").stdout.splitlines()[1:]:
        f = line.split()
        t[f[0]] = {f[i]: int(f[i + 1]) for i in range(4, len(f) - 1, 2)
                   if f[i + 1].isdigit()}
    return t


def of_kind(notes, kind):
    return [vb for k, vb in notes if k.startswith(kind)]


def link_downs(vbs_list):
    """(ifIndex, node GUID hex) of every linkDown among varbind maps."""
    out = set()
    for vbs in vbs_list:
        if LINK_DOWN not in vbs.get(TRAP_OID, ""):
            continue
        idx = [k for k in vbs if k.startswith(".1.3.6.1.2.1.2.2.1.1.")]
        guid = [v for k, v in vbs.items() if k.startswith(EVENT + ".3.")]
        if idx and guid:
            out.add((int(idx[0].rsplit(".", 1)[1]),
                     guid[0].split(": ", 1)[1].replace(" ", "").lower()))
    return out


def check_cold_start():
    # The gateway started before any receiver: its coldStart trap is
    # lost, its informs wait and are sent again.
    R.check(wait_for(lambda: targets().get("trapd-inform", {})
                     .get("failed", 0) >= 1, 15),
            "no receiver: the coldStart inform goes unanswered",
            fab.ctl("targets").stdout)
    start_trapd()
    start_sink()
    ok = wait_for(lambda: len(of_kind(trapd_notes(), "INFORM")) >= 2, 40)
    kinds = [(k.split(",")[0], k.split(",")[1].strip(), vb.get(TRAP_OID))
             for k, vb in trapd_notes()]
    R.check(ok and ("INFORM", "SNMP v2c", "OID: " + COLD) in kinds and
            ("INFORM", "SNMP v3", "OID: " + COLD) in kinds,
            "once snmptrapd runs, the queued coldStart informs (v2c and "
            "v3) arrive", str(kinds) + fab.ctl("targets").stdout)
    R.check(not any(k[0] == "TRAP2" for k in kinds),
            "the coldStart trap sent while nobody listened is not sent "
            "again", str(kinds))


def check_link_down():
    spine01, leaf01 = NAMES["spine01"], NAMES["leaf01"]
    want = {(5, "%016x" % leaf01), (1, "%016x" % spine01)}
    n_trapd, n_sink = len(trapd_notes()), len(sink_notes())
    fab.cmd('Unlink "leaf01"[5]')
    fab.sweep()
    wait_for(lambda: len(link_downs(of_kind(trapd_notes()[n_trapd:],
                                            "INFORM, SNMP v3"))) >= 2)
    wait_for(lambda: len(sink_notes()) >= n_sink + 2, 10)
    new = trapd_notes()[n_trapd:]
    for kind, what in (("TRAP2, SNMP v2c", "v2c trap"),
                       ("INFORM, SNMP v2c", "v2c inform"),
                       ("INFORM, SNMP v3", "v3 inform")):
        R.equal(link_downs(of_kind(new, kind)), want,
                "snmptrapd, %s: linkDown for leaf01 port 5 and spine01 "
                "port 1 (ifIndex = port, ibsnmpgwEventNodeGuid)" % what)
    v3 = [k for k, vb in new if k.startswith("INFORM, SNMP v3") and
          LINK_DOWN in vb.get(TRAP_OID, "")]
    R.equal(sorted(re.sub(r".*context ", "", k) for k in v3),
            ["leaf01", "spine01"], "v3 informs are in the node's context")
    downs = [vb for k, vb in new if k.startswith("TRAP2") and
             LINK_DOWN in vb.get(TRAP_OID, "")]
    R.check(all(vb.get(".1.3.6.1.2.1.2.2.1.8.%s" % k.rsplit(".", 1)[1]) ==
                "INTEGER: 2" for vb in downs for k in vb
                if k.startswith(".1.3.6.1.2.1.2.2.1.1.")) and downs,
            "ifOperStatus in linkDown is down(2)", str(downs))
    ctx = [vb for vb in downs if any(
        k.startswith(EVENT + ".4.") and v == 'STRING: "leaf01"'
        for k, v in vb.items())]
    R.check(len(ctx) == 1, "ibsnmpgwEventNodeContext names leaf01",
            str(downs))
    sink = sink_notes()[n_sink:]
    v3 = [d for d in sink if d["model"] == 3 and d["security"] == "gwtrap"]
    R.equal(sorted((d["context"], [v for o, v in d["varbinds"]
                                   if o.startswith(".1.3.6.1.2.1.2.2.1.1.")][0])
                   for d in v3 if d["varbinds"][1][1] == LINK_DOWN),
            [("leaf01", 5), ("spine01", 1)],
            "pysnmp accepts the v3 traps (SHA/AES, the gateway's engine "
            "ID) in the nodes' contexts")
    R.equal([d for d in sink if d["security"] != "gwtrap"], [],
            "the tenant target hears nothing of leaf01 and spine01")
    fab.cmd('ReLink "leaf01"[5]')
    fab.sweep()
    R.check(wait_for(lambda: len([1 for k, vb in trapd_notes()
                                  if k.startswith("TRAP2") and
                                  LINK_UP in vb.get(TRAP_OID, "")]) >= 2),
            "ReLink: linkUp for both ends", str(trapd_notes()[-4:]))


def check_disabled():
    # spine02 port 1 is in link-updown-disabled: the event is kept,
    # no linkDown is sent for it.
    spine02 = NAMES["spine02"]
    r = fab.snmp("snmpget", fab.v2("spine02"), [".1.3.6.1.2.1.31.1.1.1.14.1",
                                               ".1.3.6.1.2.1.31.1.1.1.14.2"])
    R.equal(sorted(v for _, v in parse_vars(r.stdout).values()), [1, 2],
            "ifLinkUpDownTrapEnable: spine02 port 1 disabled(2), port 2 "
            "enabled(1)")
    n = len(trapd_notes())
    fab.cmd('Unlink "spine02"[1]')
    fab.sweep()
    wait_for(lambda: len(trapd_notes()) >= n + 1)
    time.sleep(1)
    new = [vb for k, vb in trapd_notes()[n:] if k.startswith("TRAP2")]
    guids = link_downs(new)
    R.check(("%016x" % spine02) not in {g for _, g in guids} and
            len(guids) == 1,
            "Unlink spine02[1]: a linkDown for the leaf's end only",
            str(guids))
    ev = fab.ctl("events").stdout
    R.check(re.search(r"link-down port 1 node 0x%016x" % spine02, ev),
            "... while the event stream keeps spine02's", ev)
    fab.cmd('ReLink "spine02"[1]')
    fab.sweep()


def check_tenant():
    n = len(sink_notes())
    fab.cmd('Unlink "node08"')
    fab.sweep()
    # The tenant's own inform: the v3 trap target (pysnmp-v3-trap) hears
    # node08 too, and may be heard first.
    wait_for(lambda: any(d["security"] == "tenant" and
                         d["varbinds"][1][1] == UNREACHABLE
                         for d in sink_notes()[n:]), 15)
    got = [d for d in sink_notes()[n:] if d["security"] == "tenant"]
    R.check(got and all(d["model"] == 2 for d in got),
            "the tenant's notifications are SNMPv2c", json.dumps(got))
    R.check([d["pdu"] for d in got if d["varbinds"][1][1] == UNREACHABLE]
            == ["InformRequestPDU"],
            "node08 unreachable: the tenant's inform "
            "(ibsnmpgwNodeUnreachable) reaches pysnmp",
            json.dumps(got))
    guid = [v for d in got for o, v in d["varbinds"]
            if o.startswith(EVENT + ".3.")]
    R.check("%016x" % NAMES["node08"] in guid,
            "... with node08's GUID", json.dumps(got))
    fab.cmd('ReLink "node08"')
    fab.sweep()
    # The event table: a tenant community, and the whole fabric.
    path = os.path.join(fab.dir, "ibsnmpgw.yaml")
    text = open(path).read().replace(
        "  communities:\n    - name: public\n",
        "  communities:\n    - name: public\n"
        "    - name: tenant\n      nodes: {name: \"node0[5-8]\"}\n", 1)
    open(path, "w").write(text)
    fab.reload()
    rows = parse_vars(fab.snmp("snmpbulkwalk", fab.v2("fabric"),
                               [EVENT + ".6"]).stdout)
    ev = fab.ctl("events").stdout
    seqs = [int(line.split()[1]) for line in ev.splitlines()[1:]]
    R.equal(sorted(int(k.rsplit(".", 1)[1]) for k in rows), seqs,
            "ibsnmpgwEventTable has a row per event of ctl events")
    texts = {k: v for k, (_, v) in parse_vars(fab.snmp(
        "snmpbulkwalk", fab.v2("fabric", "tenant"),
        [EVENT + ".4"]).stdout).items()}
    R.check(texts and set(texts.values()) <= {"node08", '""'} and
            "node08" in texts.values(),
            "a tenant community sees only its nodes' events (and the "
            "gateway's start)", str(texts))


def check_reload_keeps_queue():
    stop("trapd")
    before = len(trapd_notes())
    fab.cmd('Unlink "leaf02"[6]')
    fab.sweep()
    R.check(wait_for(lambda: targets().get("trapd-inform", {})
                     .get("queued", 0) >= 1, 10),
            "snmptrapd stopped: informs wait in the queue",
            fab.ctl("targets").stdout)
    fab.reload()
    R.check(targets().get("trapd-inform", {}).get("queued", 0) >= 1,
            "a reload keeps the target's queue", fab.ctl("targets").stdout)
    start_trapd()
    R.check(wait_for(lambda: len(link_downs(of_kind(
        trapd_notes()[before:], "INFORM, SNMP v2c"))) >= 2, 90),
            "snmptrapd back: the queued linkDown informs arrive",
            fab.ctl("targets").stdout)
    R.check(wait_for(lambda: targets()["trapd-inform"]["queued"] == 0, 10),
            "... and the queue is empty", fab.ctl("targets").stdout)
    rows = {k: v for k, (_, v) in parse_vars(fab.snmp(
        "snmpbulkwalk", fab.v2(), [TARGET]).stdout).items()}
    t = targets()
    names = {k.rsplit(".", 1)[1]: v for k, v in rows.items()
             if k.startswith(TARGET + ".2.")}
    idx = [i for i, v in names.items() if v == "trapd-inform"]
    R.check(idx and rows.get("%s.5.%s" % (TARGET, idx[0])) ==
            t["trapd-inform"]["acked"] > 0,
            "ibsnmpgwTargetTable: acknowledged informs as ctl targets "
            "counts them", str(rows))
    fab.cmd('ReLink "leaf02"[6]')


SILENT = """    - name: silent-inform
      address: udp:127.0.0.1:%d
      type: inform
      community: public
      timeout-ms: 60000
      retries: 0
  link-updown-disabled:"""


def silent_inform_out(port, cmd):
    """A last target whose receiver takes informs and answers none, with
    an inform out to it (a minute's timeout): cmd's linkDown or linkUp,
    or an earlier event's."""
    fab.reconfigure("  link-updown-disabled:", SILENT % port)
    fab.cmd('%s "leaf02"[7]' % cmd)
    fab.sweep()
    return wait_for(lambda: inform_out(targets().get("silent-inform")), 20)


def inform_out(t):
    """Sent and neither acknowledged nor failed: out (an earlier event,
    a previous check's late linkUp, may be the one)."""
    return t is not None and t.get("sent", 0) > t.get("acked", 0) + \
        t.get("failed", 0)


def check_close_with_inform_out():
    """A target taken out, by a reload or at the stop, while an inform
    is out to it: closing its session calls back for that inform, and
    the callback must find neither targets moved to the new list (a
    reload: NULL) nor ones freed before (the stop)."""
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    silent.bind(("127.0.0.1", 0))
    port = silent.getsockname()[1]
    try:
        R.check(silent_inform_out(port, "Unlink"), "an inform is out to a "
                "target that answers none", fab.ctl("targets").stdout)
        fab.reconfigure(SILENT % port, "  link-updown-disabled:")
        t = targets()
        R.check(simlib.running(fab.pid()) and "silent-inform" not in t and
                "trapd-inform" in t, "a reload removes that target while "
                "its inform is out; the gateway runs on, the others kept",
                fab.log()[-1500:])
        R.check(silent_inform_out(port, "ReLink"), "an inform is out to "
                "it again",
                fab.ctl("targets").stdout)
        pid, stops = fab.pid(), fab.log().count("stopped")
        fab.restart_gateway(wait=0)
        R.check(not simlib.running(pid) and
                fab.log().count("stopped") > stops,
                "the gateway stops cleanly with an inform out to its last "
                "target (under ASan: no use of a freed target)",
                fab.log()[-1500:])
        fab.reconfigure(SILENT % port, "  link-updown-disabled:")
    finally:
        silent.close()


def main():
    try:
        check_cold_start()
        check_link_down()
        check_disabled()
        check_tenant()
        check_reload_keeps_queue()
        check_close_with_inform_out()
    finally:
        for name in list(procs):
            stop(name)
        if os.environ.get("KEEP_TMP") is None:
            shutil.rmtree(TMP, ignore_errors=True)


simlib.run(main, fab, R)
