#!/usr/bin/python3
"""One SNMP engine (docs/snmp-engine.md): SNMP-FRAMEWORK-MIB's snmpEngine
group (RFC 3411 5) in every context, equal to what USM uses on the wire
(net-snmp's tools given that engine ID authenticate without discovery;
pysnmp's discovery sees the same ID, boots and time); a restart, clean
or SIGKILL, takes snmpEngineBoots up by exactly one with the same engine
ID, and snmpEngineTime starts again; a configured snmp.engine-id is the
one used."""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
fab = simlib.Fabric()

ENGINE = ".1.3.6.1.6.3.10.2.1"
ID, BOOTS, TIME, MAXMSG = (ENGINE + ".%d.0" % i for i in (1, 2, 3, 4))
CONFIGURED = "80001f880469626e736d7067"     # text format, "ibnsmpg"


def unwrap(text):
    """net-snmp's output with a long Hex-STRING's continuation lines
    joined to their first."""
    lines = []
    for line in text.splitlines():
        if lines and not line.startswith("."):
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return "\n".join(lines)


def engine(context=None, extra=()):
    """The snmpEngine group over v3 authPriv in a context: {oid: value},
    {} when there is no answer."""
    out = fab.snmp("snmpget", fab.v3(context) + list(extra),
                   [ID, BOOTS, TIME, MAXMSG])
    got = simlib.parse_vars(unwrap(out.stdout))
    return {k: v[1] for k, v in got.items()} if len(got) == 4 else {}


def answering():
    """The gateway's engine group once v3 answers again."""
    got = {}

    def ok():
        got.update(engine())
        return bool(got)
    simlib.wait(ok, 30, 0.1)
    return got


def pysnmp_view():
    """What pysnmp's USM saw in the messages of one authPriv GET
    (discovery Report included): [(engine ID hex, boots, time)], and the
    GET's varbinds {oid: value}."""
    try:
        sys.path.insert(0, "/usr/lib/python3/dist-packages")
        from pysnmp.hlapi import (ContextData, ObjectIdentity, ObjectType,
                                  SnmpEngine, UdpTransportTarget,
                                  UsmUserData, getCmd, usmAesCfb128Protocol,
                                  usmHMACSHAAuthProtocol)
    except ImportError as e:
        return None, str(e)
    seen = []

    def observe(eng, point, v, ctx):
        seen.append((bytes(v["securityEngineId"]).hex(),
                     int(v["snmpEngineBoots"]), int(v["snmpEngineTime"])))
    eng = SnmpEngine()
    eng.observer.registerObserver(observe, "rfc3414.processIncomingMsg")
    host, port = fab.endpoint.split(":")[1:]
    err, status, idx, vbs = next(getCmd(
        eng, UsmUserData(fab.v3user, fab.v3auth[1], fab.v3priv[1],
                         authProtocol=usmHMACSHAAuthProtocol,
                         privProtocol=usmAesCfb128Protocol),
        UdpTransportTarget((host, int(port)), timeout=3, retries=1),
        ContextData(), *[ObjectType(ObjectIdentity(o[1:])) for o in
                         (ID, BOOTS)]))
    if err or status:
        return None, "%r %r" % (err, status)
    return seen, {"." + str(o): v for o, v in vbs}


def hexid(v):
    return v.replace(" ", "").lower()


def check_group(what, g):
    """The group as RFC 3411 types it, and snmpEngineID the one USM
    authenticates with: net-snmp's snmpget told it (-e) skips discovery
    and is answered, told another is refused (RFC 3414 3.2 step 3: an
    unknown engine ID is a Report)."""
    eid = hexid(g[ID])
    R.check(len(eid) // 2 in range(5, 33),
            "%s: snmpEngineID is 5 to 32 octets" % what, g)
    R.check(1 <= g[BOOTS] <= 2147483647 and 0 <= g[TIME] and
            484 <= g[MAXMSG] <= 65507,
            "%s: boots, time and max message size in range" % what, g)
    out = fab.snmp("snmpget", fab.v3() + ["-e", "0x" + eid], [ID])
    R.check(out.returncode == 0 and ID in out.stdout,
            "%s: net-snmp told snmpEngineID authenticates without "
            "discovery" % what, out.stdout + out.stderr)
    other = eid[:-2] + "%02x" % (int(eid[-2:], 16) ^ 1)
    out = fab.snmp("snmpget", fab.v3() + ["-e", "0x" + other], [ID])
    R.check(out.returncode != 0 and ID not in out.stdout,
            "%s: and told another engine ID is refused" % what,
            out.stdout + out.stderr)


def check_pysnmp(what, g):
    """pysnmp's discovery and GET: every message it received (the
    discovery Report, the Response) carried snmpEngineID, Boots and a
    time within a second or two of snmpEngineTime (RFC 3414 2.3)."""
    seen, vbs = pysnmp_view()
    if seen is None:
        R.check(False, "%s: pysnmp GET" % what, vbs)
        return
    R.check(len(seen) >= 2, "%s: pysnmp discovered, then read" % what,
            seen)
    R.equal(set(s[0] for s in seen), {hexid(g[ID])},
            "%s: pysnmp's USM saw snmpEngineID in every message" % what)
    R.equal(set(s[1] for s in seen), {g[BOOTS]},
            "%s: and snmpEngineBoots" % what)
    t = engine().get(TIME, -100)
    R.check(all(abs(s[2] - t) <= 2 for s in seen),
            "%s: and snmpEngineTime" % what, "%r, now %d" % (seen, t))
    R.equal(vbs[ID].asOctets().hex() if ID in vbs else None, hexid(g[ID]),
            "%s: pysnmp reads the same snmpEngineID" % what)


def check_contexts(g):
    """One engine whatever the context: the fabric's, a node's (v3
    context name, and a v2c community@node)."""
    for ctx in ("fabric", "leaf03", "node03"):
        h = engine(ctx)
        R.check(h and h[ID] == g[ID] and h[BOOTS] == g[BOOTS],
                "context %s serves the same engine ID and boots" % ctx, h)
    out = fab.snmp("snmpget", fab.v2("spine01"), [ID, BOOTS])
    got = simlib.parse_vars(unwrap(out.stdout))
    R.check(got.get(ID, (0, ""))[1] == g[ID] and
            got.get(BOOTS, (0, 0))[1] == g[BOOTS],
            "v2c community@spine01 too", out.stdout + out.stderr)


def restart(sig, what, before):
    """Restart; the boots one up, the same ID, the time from 0 again."""
    R.equal(fab.sql("SELECT value FROM meta WHERE key = "
                    "'snmp-engine-boots'"), str(before[BOOTS]),
            "%s: the store has the boots in force" % what)
    t0 = time.time()
    fab.restart_gateway(wait=0, sig=sig)
    after = answering()
    if not R.check(bool(after), "%s: the gateway answers v3 again" % what):
        return before
    R.equal(after[BOOTS], before[BOOTS] + 1,
            "%s: snmpEngineBoots went up by exactly one" % what)
    R.equal(after[ID], before[ID], "%s: snmpEngineID unchanged" % what)
    R.check(after[TIME] <= time.time() - t0 + 1 and
            after[TIME] < before[TIME],
            "%s: snmpEngineTime started again" % what,
            "before %d, after %d, %.1f s since the restart" % (
                before[TIME], after[TIME], time.time() - t0))
    return after


def configure_engine_id(before):
    path = os.path.join(fab.dir, "ibsnmpgw.yaml")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("snmp:\n", "snmp:\n  engine-id: 0x%s\n" %
                             CONFIGURED, 1))
    fab.restart_gateway(wait=0)
    after = answering()
    if not R.check(bool(after), "configured engine-id: answers v3"):
        return
    R.equal(hexid(after[ID]), CONFIGURED,
            "configured snmp.engine-id is snmpEngineID")
    R.equal(after[BOOTS], before[BOOTS] + 1,
            "boots go on up across an engine ID change")
    check_group("configured engine-id", after)
    check_pysnmp("configured engine-id", after)
    R.check("engine ID 0x%s, boots %d" % (CONFIGURED, after[BOOTS]) in
            fab.log(), "the log names the engine ID and boots")


def main():
    g = answering()
    if not R.check(bool(g), "v3 authPriv reads the snmpEngine group", g):
        return
    R.equal(fab.sql("SELECT value FROM meta WHERE key = 'snmp-engine-id'"),
            "0x" + hexid(g[ID]), "the store keeps the engine ID")
    check_group("first start", g)
    check_pysnmp("first start", g)
    check_contexts(g)
    # Old enough that a restart's time is certainly lower.
    simlib.wait(lambda: engine().get(TIME, 0) >= 3, 10, 0.2)
    g = engine()
    g = restart(signal.SIGTERM, "SIGTERM restart", g)
    check_group("after a restart", g)
    simlib.wait(lambda: engine().get(TIME, 0) >= 3, 10, 0.2)
    g = restart(signal.SIGKILL, "SIGKILL restart", engine())
    configure_engine_id(g)
    R.check("Traceback" not in fab.log() and "crit" not in fab.log(),
            "gateway log has no crash or critical line")


simlib.run(main, fab, R)
