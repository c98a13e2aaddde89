#!/usr/bin/python3
"""Hostile datagrams against the running gateway (issue 23, part 2): a
mutation engine over well-formed seeds of every SNMP version and PDU
type sends NETFUZZ_COUNT (default 100,000) datagrams at the gateway on
the simulated fabric while cold node reads keep the MAD engine busy.

Seeds: v1, v2c and v3 messages (GET, GETNEXT, GETBULK with absurd
max-repetitions and negative non-repeaters, SET, Response, Trap, Inform,
Report), OIDs of 128 sub-identifiers up to 2^32-1, 2,000 varbinds, wrong
communities and unknown node names, v3 with unknown engine IDs, boots
and times out of range, and auth flags with keys that cannot be right.
Mutations: bit flips, random bytes, truncation, insertion, duplicated
runs and BER length fields set to extremes.

Sending paces itself on the gateway's own snmpInPkts (a batch, then
until the counter stops moving), and the counters are checked: every
datagram is counted in snmpInPkts or was dropped by the kernel at a full
receive buffer (/proc/net/udp), and every one whose outer BER length
overruns the datagram (truncations) is in snmpInASNParseErrs. After the run the
gateway still answers, its open descriptors are as before, and its RSS
grew less than 16 MB (the tunnel and answer caches are bounded; a leak
per datagram would show in 100,000). The sanitizer stage runs the same
script, so a memory error anywhere in the parse fails the suite."""

import os
import random
import re
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simlib  # noqa: E402
from simlib import SMA  # noqa: E402

simlib.skip_if_missing()
R = simlib.Report()
fab = simlib.Fabric()
COUNT = int(os.environ.get("NETFUZZ_COUNT", "100000"))
SEED = int(os.environ.get("NETFUZZ_SEED", str(int(time.time()))))
BATCH = 100             # datagrams between two looks at snmpInPkts
SNMP_IN_PKTS = ".1.3.6.1.2.1.11.1.0"
SNMP_IN_ASN_PARSE_ERRS = ".1.3.6.1.2.1.11.6.0"
USM_UNKNOWN_ENGINE = ".1.3.6.1.6.3.15.1.1.4.0"


# ---- BER (X.690), just what SNMP needs

def tlv(tag, body):
    n = len(body)
    if n < 0x80:
        ln = bytes([n])
    else:
        b = n.to_bytes((n.bit_length() + 7) // 8, "big")
        ln = bytes([0x80 | len(b)]) + b
    return bytes([tag]) + ln + body


def integer(v, tag=0x02):
    n = max(1, (v.bit_length() + 8) // 8)
    return tlv(tag, v.to_bytes(n, "big", signed=True))


def octets(s):
    return tlv(0x04, s if isinstance(s, bytes) else s.encode())


def null():
    return b"\x05\x00"


def oid(dotted):
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


def seq(*parts):
    return tlv(0x30, b"".join(parts))


def varbinds(oids, value=None):
    return seq(*(seq(oid(o), value if value is not None else null())
                 for o in oids))


def pdu(tag, oids, reqid=1, a=0, b=0, value=None):
    return tlv(tag, integer(reqid) + integer(a) + integer(b) +
               varbinds(oids, value))


def community_msg(version, community, p):
    return seq(integer(version), octets(community), p)


def v3_msg(engine_id, user, p, flags=0x04, boots=0, etime=0, auth=b"",
           context=b"", context_engine=None):
    header = seq(integer(random.randint(1, 2 ** 31 - 1)), integer(65507),
                 octets(bytes([flags])), integer(3))
    usm = octets(seq(octets(engine_id), integer(boots), integer(etime),
                     octets(user), octets(auth), octets(b"")))
    scoped = seq(octets(context_engine if context_engine is not None
                        else engine_id), octets(context), p)
    return seq(integer(3), header, usm, scoped)


GET, NEXT, RESP, SET, TRAP1, BULK, INFORM, TRAP2, REPORT = (
    0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8)
SYSDESCR = "1.3.6.1.2.1.1.1.0"
NODESTR = SMA + ".1.1.0"


def seeds():
    s = []
    big = "1.3.6.1." + ".".join(str(random.choice((0, 1, 127, 128,
                                                   2 ** 32 - 1)))
                                for _ in range(124))
    many = ["1.3.6.1.2.1.1.%d.0" % (i % 9 + 1) for i in range(2000)]
    for ver, comm in ((0, "public"), (1, "public"), (1, "public@leaf01"),
                      (1, "public@0x0002c90300aa0101"), (1, "wrong"),
                      (1, "public@nosuchnode"), (0, "public@leaf02"),
                      (1, "public@fabric"), (1, "public@@"), (1, "")):
        s.append(community_msg(ver, comm, pdu(GET, [SYSDESCR, NODESTR])))
        s.append(community_msg(ver, comm, pdu(NEXT, [SMA])))
        s.append(community_msg(ver, comm, pdu(BULK, [SMA], a=0,
                                              b=2 ** 31 - 1)))
        s.append(community_msg(ver, comm, pdu(BULK, [SMA, SYSDESCR],
                                              a=-5, b=-1)))
        s.append(community_msg(ver, comm, pdu(SET, [NODESTR],
                                              value=octets("x"))))
        s.append(community_msg(ver, comm, pdu(RESP, [SYSDESCR])))
        s.append(community_msg(ver, comm, pdu(INFORM, [SYSDESCR])))
        s.append(community_msg(ver, comm, pdu(TRAP2, [SYSDESCR])))
        s.append(community_msg(ver, comm, pdu(REPORT, [SYSDESCR])))
        s.append(community_msg(ver, comm, pdu(GET, [big])))
    s.append(community_msg(1, "public@leaf01", pdu(GET, many)))
    s.append(community_msg(1, "public", pdu(BULK, many[:200], a=100,
                                            b=100)))
    s.append(community_msg(0, "public", tlv(TRAP1, oid("1.3.6.1.4.1") +
                                            tlv(0x40, b"\x7f\0\0\1") +
                                            integer(6) + integer(1) +
                                            integer(0, 0x43) +
                                            varbinds([SYSDESCR]))))
    # v3: discovery, unknown engines, boots and times out of range, an
    # auth flag with parameters no key makes, a privacy flag alone.
    for eid in (b"", b"\x80\0\0\0\x01", os.urandom(32), b"\x80" * 3):
        for user, flags, auth in ((b"", 0x04, b""),
                                  (b"ibsnmpgw", 0x05, os.urandom(12)),
                                  (b"ibsnmpgw", 0x07, os.urandom(12)),
                                  (b"nosuchuser", 0x04, b""),
                                  (b"ibsnmpgw", 0x02, b"")):
            for boots, etime in ((0, 0), (2 ** 31 - 1, 2 ** 31 - 1),
                                 (1, -1)):
                s.append(v3_msg(eid, user, pdu(GET, [SYSDESCR]), flags,
                                boots, etime, auth, b"leaf01"))
    s.append(v3_msg(b"\x80\0\0\0\x01", b"ibsnmpgw", pdu(BULK, [SMA],
                                                      b=2 ** 31 - 1),
                    context=b"nosuchcontext"))
    return s


# ---- mutations

def mutate(m):
    """A mutated copy of m, and whether its outer length now overruns
    the datagram (a certain ASN.1 parse error)."""
    b = bytearray(m)
    op = random.randrange(8)
    if op == 0:                       # bit flips
        for _ in range(random.randint(1, 8)):
            i = random.randrange(len(b))
            b[i] ^= 1 << random.randrange(8)
    elif op == 1:                     # random bytes
        for _ in range(random.randint(1, 4)):
            b[random.randrange(len(b))] = random.randrange(256)
    elif op == 2:                     # truncated inside the message
        cut = random.randint(1, len(b) - 1)
        return bytes(b[:cut]), outer_overruns(bytes(b[:cut]))
    elif op == 3:                     # inserted junk
        i = random.randrange(len(b))
        b[i:i] = os.urandom(random.randint(1, 16))
    elif op == 4:                     # a duplicated run
        i = random.randrange(len(b))
        j = min(len(b), i + random.randint(1, 32))
        b[j:j] = b[i:j]
    elif op == 5:                     # a length byte to an extreme
        for i in range(1, len(b) - 1):
            if b[i - 1] in (0x02, 0x04, 0x06, 0x30, 0xa0, 0xa1, 0xa5) and \
                    random.random() < 0.2:
                b[i] = random.choice((0x00, 0x7f, 0x81, 0x84, 0x89, 0xff))
                break
    elif op == 6:                     # the tag of something else
        b[random.randrange(len(b))] = random.choice(
            (0x30, 0x02, 0x04, 0x05, 0x06, 0x40, 0x41, 0x44, 0x46, 0x80,
             0x81, 0x82, 0xa0, 0xa5, 0xbf))
    # op 7: unchanged, the seed itself
    return bytes(b), outer_overruns(bytes(b))


def outer_overruns(d):
    """The outer SEQUENCE declares more octets than the datagram has."""
    if len(d) < 2 or d[0] != 0x30:
        return False
    n = d[1]
    if n < 0x80:
        return 2 + n > len(d)
    k = n & 0x7f
    if k == 0 or k > 4 or len(d) < 2 + k:
        return False
    return 2 + k + int.from_bytes(d[2:2 + k], "big") > len(d)


# ---- the gateway's side

def counter(o):
    v = fab.counter(o)
    return int(v) if v is not None else None


def udp_drops(port):
    """The kernel's drop count of the gateway's UDP socket on port (a
    full receive buffer), from /proc/net/udp."""
    with open("/proc/net/udp") as f:
        for line in f.readlines()[1:]:
            fl = line.split()
            if int(fl[1].split(":")[1], 16) == port:
                return int(fl[-1])
    return 0


def fds():
    return len(os.listdir("/proc/%d/fd" % fab.pid()))


def rss_kb():
    with open("/proc/%d/status" % fab.pid()) as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def main():
    random.seed(SEED)
    print("# NETFUZZ_SEED=%d NETFUZZ_COUNT=%d" % (SEED, COUNT))
    host, port = fab.endpoint.split(":")[1:3]
    dest = (host, int(port))
    pool = seeds()
    nodes = sorted(simlib.read_name_map())
    # Warm the paths once, so that RSS after is compared with a gateway
    # that has allocated what normal use allocates.
    fab.snmp("snmpbulkwalk", fab.v2("leaf01"), [SMA])
    fd0, rss0 = fds(), rss_kb()
    in0, asn0 = counter(SNMP_IN_PKTS), counter(SNMP_IN_ASN_PARSE_ERRS)
    drop0 = udp_drops(dest[1])
    usm0 = counter(USM_UNKNOWN_ENGINE)
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
             for _ in range(4)]
    for s in socks:
        s.setblocking(False)
    sent = overrun = own = 0
    t0 = time.time()
    while sent < COUNT:
        for _ in range(min(BATCH, COUNT - sent)):
            d, bad = mutate(random.choice(pool))
            try:
                random.choice(socks).sendto(d, dest)
            except OSError:
                continue          # too long for UDP: never sent
            sent += 1
            overrun += bad
        for s in socks:           # drain the answers
            try:
                while s.recv(65536):
                    pass
            except OSError:
                pass
        # Cold reads keep the MAD engine working (and some time out).
        if sent % 10000 < BATCH:
            fab.ctl("flush")
            name = random.choice(nodes)
            fab.snmp("snmpget", fab.v2(name), [NODESTR], timeout=1)
            own += 1
        # Pace on what the gateway has taken in: once snmpInPkts stops
        # moving, its socket is drained and nothing was lost to a full
        # buffer. (A datagram the front end drops before net-snmp
        # parses it is not counted there.)
        end, prev = time.time() + 30, None
        while time.time() < end:
            got = counter(SNMP_IN_PKTS)
            own += 1
            if got is not None and prev is not None and got == prev + 1:
                break
            prev = got
            time.sleep(0.02)
    took = time.time() - t0
    for s in socks:
        s.close()
    R.check(sent >= COUNT * 0.99, "%d datagrams sent in %.1f s (%d "
            "certainly unparseable)" % (sent, took, overrun))
    out = fab.snmp("snmpget", fab.v2(), [SYSDESCR], timeout=5, retries=1)
    R.check(out.returncode == 0 and "STRING" in out.stdout,
            "the gateway still answers its own sysDescr", out.stderr)
    out = fab.snmp("snmpget", fab.v2("leaf01"), [NODESTR], timeout=5,
                   retries=1)
    R.check(out.returncode == 0 and "STRING" in out.stdout,
            "... and a node object through the fabric", out.stderr)
    in1, asn1 = counter(SNMP_IN_PKTS), counter(SNMP_IN_ASN_PARSE_ERRS)
    own += 3
    drops = udp_drops(dest[1]) - drop0
    # Every datagram is counted, or was dropped by the kernel before the
    # gateway could read it (a full receive buffer; /proc/net/udp).
    R.check(abs(in1 - in0 + drops - (sent + own)) <= 5,
            "snmpInPkts %d + %d kernel drops = %d datagrams sent + %d "
            "requests of our own" % (in1 - in0, drops, sent, own))
    R.check(asn1 - asn0 >= overrun - drops and asn1 - asn0 <= sent,
            "snmpInASNParseErrs %d: at least the %d datagrams whose BER "
            "length overruns them (less what the kernel dropped), at most "
            "all" % (asn1 - asn0, overrun))
    usm1 = counter(USM_UNKNOWN_ENGINE)
    R.check(usm0 is not None and usm1 is not None and usm1 > usm0,
            "usmStatsUnknownEngineIDs counted the unknown engines (%s -> %s)"
            % (usm0, usm1))
    fd1, rss1 = fds(), rss_kb()
    R.check(abs(fd1 - fd0) <= 2, "open descriptors %d before, %d after "
            "(bound: +-2)" % (fd0, fd1))
    if os.environ.get("ASAN_OPTIONS"):
        print("# RSS %d -> %d kB under ASan (quarantine): not checked" %
              (rss0, rss1))
    else:
        R.check(rss1 - rss0 < 16384, "RSS %d -> %d kB (bound: +16 MB)" %
                (rss0, rss1))
    log = fab.log()
    R.check("fatal" not in log.lower() and "assert" not in log.lower(),
            "no fatal error in the gateway's log")


if __name__ == "__main__":
    simlib.run(main, fab, R)
