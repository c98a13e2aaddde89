#!/usr/bin/python3
"""SNMP load for tests/soak/soak.py, one role per process, so that the
load of one does not skew the latencies another measures (one Python
process holds the GIL for all its threads).

Usage: soakload.py ROLE CONFIG.json OUT

Roles:
  v2c      raw SNMPv2c GET, GETNEXT and GETBULK (BER built and parsed
           here, no SNMP library in the way) over the requests of
           CONFIG's "requests", WINDOW in flight, RATE per second;
  v3       SNMPv3 authPriv GET, GETNEXT and GETBULK through pysnmp, one
           at a time, at most RATE per second, with the context names of
           "requests";
  counters every second, one GET per entry of "counters"; each Counter64
           it reads must never be smaller than the last.

Every request is one tab-separated line of OUT: send time (wall clock),
latency in microseconds (-1: no answer), version, operation, context,
node, the OIDs asked for (comma-separated), the result ("ok", or an
error kind: timeout, an SNMP error-status name, noSuch (a GET of an
object that exists answered noSuchObject or noSuchInstance), mismatch
(a GET answered for other OIDs), not-increasing (a GETNEXT or GETBULK
answer not after the OID asked), went-back (a Counter64 smaller than
before), report:OID (an SNMPv3 Report), error (pysnmp's errorIndication)
and a detail. Each role runs until CONFIG's "deadline" (wall clock),
then waits for what it has in flight, at most "timeout" seconds."""

import json
import random
import select
import socket
import sys
import time

ERR_NAMES = ["noError", "tooBig", "noSuchName", "badValue", "readOnly",
             "genErr", "noAccess", "wrongType", "wrongLength",
             "wrongEncoding", "wrongValue", "noCreation",
             "inconsistentValue", "resourceUnavailable", "commitFailed",
             "undoFailed", "authorizationError", "notWritable",
             "inconsistentName"]
GET, NEXT, BULK, RESP = 0xa0, 0xa1, 0xa5, 0xa2
OPS = {"get": GET, "next": NEXT, "bulk": BULK}


# ---- BER (X.690): what SNMPv2c needs

def tlv(tag, body):
    n = len(body)
    if n < 0x80:
        ln = bytes([n])
    else:
        b = n.to_bytes((n.bit_length() + 7) // 8, "big")
        ln = bytes([0x80 | len(b)]) + b
    return bytes([tag]) + ln + body


def ber_int(v):
    return tlv(0x02, v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big",
                                signed=True))


def ber_oid(dotted):
    subs = [int(x) for x in dotted.strip(".").split(".")]
    body = bytes([subs[0] * 40 + subs[1]])
    for s in subs[2:]:
        enc = [s & 0x7f]
        s >>= 7
        while s:
            enc.append(0x80 | (s & 0x7f))
            s >>= 7
        body += bytes(reversed(enc))
    return tlv(0x06, body)


def message(community, op, reqid, oids, maxrep=0):
    vbs = tlv(0x30, b"".join(tlv(0x30, ber_oid(o) + b"\x05\x00")
                             for o in oids))
    pdu = tlv(op, ber_int(reqid) + ber_int(0) + ber_int(maxrep) + vbs)
    return tlv(0x30, ber_int(1) + tlv(0x04, community.encode()) + pdu)


def read_tlv(buf, i):
    tag, n = buf[i], buf[i + 1]
    i += 2
    if n & 0x80:
        k = n & 0x7f
        n = int.from_bytes(buf[i:i + k], "big")
        i += k
    return tag, buf[i:i + n], i + n


def children(body):
    i, out = 0, []
    while i < len(body):
        tag, val, i = read_tlv(body, i)
        out.append((tag, val))
    return out


def oid_text(body):
    subs = [body[0] // 40, body[0] % 40]
    v = 0
    for b in body[1:]:
        v = (v << 7) | (b & 0x7f)
        if not b & 0x80:
            subs.append(v)
            v = 0
    return "." + ".".join(str(s) for s in subs)


def parse_response(data):
    """(request-id, error-status, [(oid, value tag, value)],
    error-index) of a v2c Response, None if it is none."""
    try:
        _, msg, _ = read_tlv(data, 0)
        parts = children(msg)
        tag, pdu = parts[2]
        if tag != RESP:
            return None
        f = children(pdu)
        vbs = [children(v) for _, v in children(f[3][1])]
        return (int.from_bytes(f[0][1], "big", signed=True),
                int.from_bytes(f[1][1], "big"),
                [(oid_text(vb[0][1]), vb[1][0], vb[1][1]) for vb in vbs],
                int.from_bytes(f[2][1], "big"))
    except (IndexError, ValueError):
        return None


def key(oid):
    return tuple(int(x) for x in oid.strip(".").split("."))


def judge(op, oids, status, vbs, index=0):
    """ok, or the error kind and a detail, of an answer to op on oids:
    vbs as (oid, value tag, value octets); tags 0x80/0x81 are
    noSuchObject/noSuchInstance; an error names the varbind its
    error-index points at."""
    if status:
        name = ERR_NAMES[status] if status < len(ERR_NAMES) else \
            "status-%d" % status
        return name, "error-index %d %s" % (
            index, oids[index - 1] if 0 < index <= len(oids) else "")
    if op == "get":
        got = [o for o, _, _ in vbs]
        if got != list(oids):
            return "mismatch", ",".join(got)
        bad = [o for o, t, _ in vbs if t in (0x80, 0x81)]
        if bad:
            return "noSuch", ",".join(bad)
        return "ok", ""
    if not vbs or key(vbs[0][0]) <= key(oids[0]):
        return "not-increasing", vbs[0][0] if vbs else "no varbind"
    return "ok", ""


class Out:
    def __init__(self, path):
        self.f = open(path, "w")

    def line(self, t, lat_us, ver, op, ctx, node, oids, result, detail):
        self.f.write("%.6f\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" % (
            t, lat_us, ver, op, ctx, node, ",".join(oids), result,
            detail.replace("\t", " ").replace("\n", " ")[:200]))

    def close(self):
        self.f.close()


def endpoint(cfg):
    host, port = cfg["endpoint"].split(":")[1:]
    return host, int(port)


# ---- roles

def run_v2c(cfg, out):
    """WINDOW requests in flight at RATE per second, drawn from the
    request list; each answer judged, each silence past timeout an
    error."""
    reqs, rnd = cfg["requests"], random.Random(cfg.get("seed", 1))
    rate, window, timeout = cfg["rate"], cfg["window"], cfg["timeout"]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect(endpoint(cfg))
    pending, reqid = {}, rnd.randrange(1, 1 << 30)
    next_send = time.time()
    while True:
        now = time.time()
        sending = now < cfg["deadline"]
        if not sending and not pending:
            break
        while sending and len(pending) < window and now >= next_send:
            r = rnd.choice(reqs)
            reqid = reqid % 0x7fffffff + 1
            s.send(message(r["community"], OPS[r["op"]], reqid, r["oids"],
                           r.get("maxrep", 0)))
            pending[reqid] = (now, time.perf_counter(), r)
            next_send += 1.0 / rate
            if next_send < now - 1:     # fell behind: no burst to catch up
                next_send = now
        until = [now + timeout]
        if sending:
            until.append(next_send if len(pending) < window else now + 1)
        if pending:
            until.append(min(p[0] for p in pending.values()) + timeout)
        ready, _, _ = select.select([s], [], [], max(0, min(until) - now))
        if ready:
            while True:
                try:
                    data = s.recv(65536, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    break
                done = time.perf_counter()
                a = parse_response(data)
                if a is None or a[0] not in pending:
                    continue
                t, t0, r = pending.pop(a[0])
                res, detail = judge(r["op"], r["oids"], a[1], a[2], a[3])
                out.line(t, int((done - t0) * 1e6), "v2c", r["op"], r["ctx"],
                         r["node"], r["oids"], res, detail)
        now = time.time()
        for rid in [k for k, p in pending.items() if now - p[0] > timeout]:
            t, _, r = pending.pop(rid)
            out.line(t, -1, "v2c", r["op"], r["ctx"], r["node"], r["oids"],
                     "timeout", "no answer in %g s" % timeout)


def run_v3(cfg, out):
    """One request at a time through pysnmp, at most RATE per second."""
    from pysnmp import hlapi as h
    reqs, rnd = cfg["requests"], random.Random(cfg.get("seed", 2))
    eng = h.SnmpEngine()
    user = h.UsmUserData(cfg["user"], cfg["auth"], cfg["priv"],
                         authProtocol=h.usmHMACSHAAuthProtocol,
                         privProtocol=h.usmAesCfb128Protocol)
    target = h.UdpTransportTarget(endpoint(cfg), timeout=cfg["timeout"],
                                  retries=0)
    next_send = time.time()
    while time.time() < cfg["deadline"]:
        now = time.time()
        if now < next_send:
            time.sleep(next_send - now)
        next_send = max(next_send + 1.0 / cfg["rate"], time.time() - 1)
        r = rnd.choice(reqs)
        ctx = h.ContextData(contextName=h.OctetString(r["ctx"]))
        objs = [h.ObjectType(h.ObjectIdentity(o)) for o in r["oids"]]
        t, t0 = time.time(), time.perf_counter()
        if r["op"] == "get":
            it = h.getCmd(eng, user, target, ctx, *objs, lookupMib=False)
        elif r["op"] == "next":
            it = h.nextCmd(eng, user, target, ctx, *objs, lookupMib=False)
        else:
            it = h.bulkCmd(eng, user, target, ctx, 0, r["maxrep"], *objs,
                           lookupMib=False)
        ind, status, index, vbs = next(it)
        lat = int((time.perf_counter() - t0) * 1e6)
        if ind is not None:
            text = str(ind)
            if "before timeout" in text:
                res = "timeout"
            elif text.startswith("1.3.6"):      # a Report's counter OID
                res = "report:" + text
            else:
                res = "error"
            out.line(t, -1 if res == "timeout" else lat, "v3", r["op"],
                     r["ctx"], r["node"], r["oids"], res, text)
            continue
        tags = {"NoSuchObject": 0x80, "NoSuchInstance": 0x81,
                "EndOfMibView": 0x82}
        got = [("." + str(o), tags.get(v.__class__.__name__, 0), b"")
               for o, v in vbs]
        res, detail = judge(r["op"], r["oids"], int(status), got,
                            int(index))
        out.line(t, lat, "v3", r["op"], r["ctx"], r["node"], r["oids"], res,
                 detail)


def run_counters(cfg, out):
    """Once a second, each entry's Counter64 objects by v2c; values as
    INTEGER-like octets, compared with the last answer."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect(endpoint(cfg))
    last, reqid = {}, 0
    tick = time.time()
    while tick < cfg["deadline"]:
        for c in cfg["counters"]:
            reqid += 1
            t, t0 = time.time(), time.perf_counter()
            s.send(message(c["community"], GET, reqid, c["oids"]))
            a = None
            while a is None or a[0] != reqid:
                ready, _, _ = select.select([s], [], [],
                                            max(0, t + cfg["timeout"] -
                                                time.time()))
                if not ready:
                    break
                a = parse_response(s.recv(65536))
            if a is None or a[0] != reqid:
                out.line(t, -1, "v2c", "get", c["ctx"], c["node"], c["oids"],
                         "timeout", "no answer in %g s" % cfg["timeout"])
                continue
            lat = int((time.perf_counter() - t0) * 1e6)
            res, detail = judge("get", c["oids"], a[1], a[2], a[3])
            if res == "ok":
                for o, tag, v in a[2]:
                    n = int.from_bytes(v, "big")
                    k = (c["node"], o)
                    if k in last and n < last[k]:
                        res, detail = "went-back", "%s %d -> %d" % (
                            o, last[k], n)
                    last[k] = n
            out.line(t, lat, "v2c", "counters", c["ctx"], c["node"],
                     c["oids"], res, detail)
        tick += 1.0
        time.sleep(max(0, tick - time.time()))


def main():
    role, cfg_path, out_path = sys.argv[1:4]
    with open(cfg_path) as f:
        cfg = json.load(f)
    out = Out(out_path)
    try:
        {"v2c": run_v2c, "v3": run_v3, "counters": run_counters}[role](
            cfg, out)
    finally:
        out.close()


if __name__ == "__main__":
    main()
