#!/usr/bin/python3
"""A notification receiver on the second SNMP stack (pysnmp): prints one
JSON line per notification it accepts (traps and informs; informs are
acknowledged by pysnmp), for notify.py.

Usage: trapsink.py [HOST:]PORT COMMUNITY [V3USER V3AUTHPASS V3PRIVPASS ENGINEID]
HOST defaults to 127.0.0.1.
SNMPv3 traps are accepted from the engine ENGINEID (hex, the sender's:
it is authoritative for traps), with SHA and AES-128."""

import json
import sys

from pysnmp.carrier.asyncore.dgram import udp
from pysnmp.entity import config, engine
from pysnmp.entity.rfc3413 import ntfrcv
from pysnmp.proto import rfc1902

host, _, port = sys.argv[1].rpartition(":")
host, port, community = host or "127.0.0.1", int(port), sys.argv[2]
eng = engine.SnmpEngine()
config.addTransport(eng, udp.domainName,
                    udp.UdpTransport().openServerMode((host, port)))
config.addV1System(eng, community, community)
if len(sys.argv) > 6:
    config.addV3User(eng, sys.argv[3], config.usmHMACSHAAuthProtocol,
                     sys.argv[4], config.usmAesCfb128Protocol, sys.argv[5],
                     securityEngineId=rfc1902.OctetString(
                         hexValue=sys.argv[6]))
last = {}


def observe(snmp_engine, point, variables, ctx):
    last.update(variables)


eng.observer.registerObserver(observe, "rfc3412.receiveMessage:request")


def value(v):
    """OIDs as dotted text, strings as hex, numbers as int."""
    if hasattr(v, "asTuple"):
        return "." + ".".join(str(x) for x in v.asTuple())
    if hasattr(v, "asOctets"):
        return v.asOctets().hex()
    try:
        return int(v)
    except (TypeError, ValueError):
        return str(v)


def received(snmp_engine, ref, ctx_engine, ctx_name, var_binds, cb):
    print(json.dumps({
        "pdu": last.get("pdu").__class__.__name__,
        "security": str(last.get("securityName", "")),
        "model": int(last.get("securityModel", 0)),
        "context": bytes(ctx_name).decode(errors="replace"),
        "from": str((last.get("transportAddress") or ("",))[0]),
        "varbinds": [["." + str(o), value(v)] for o, v in var_binds]}),
        flush=True)


ntfrcv.NotificationReceiver(eng, received)
print(json.dumps({"ready": port}), flush=True)
eng.transportDispatcher.jobStarted(1)
try:
    eng.transportDispatcher.runDispatcher()
finally:
    eng.transportDispatcher.closeDispatcher()
