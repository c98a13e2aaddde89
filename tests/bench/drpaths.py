#!/usr/bin/python3
"""Directed routes from the local port to every port of the fabric, for
madfloor -c dr: breadth first, as a sweep finds them.

    drpaths.py PORTGUID < ibnetdiscover -p output

PORTGUID is the local port's (smpquery -D nodeinfo 0). Prints one
"P1,P2,...,Pn" a line: the initial path's ports (IBA 14.2.1.2)."""
import re
import sys

LINK = re.compile(r"^(SW|CA)\s+\d+\s+(\d+)\s+(0x[0-9a-f]+)\s.*?-\s+"
                  r"(SW|CA)\s+\d+\s+(\d+)\s+(0x[0-9a-f]+)\s")


def main():
    local = int(sys.argv[1], 16)
    ports = {}      # (node, port) -> (type, node, port) at the far end
    for line in sys.stdin:
        m = LINK.match(line)
        if m:
            ports[(int(m.group(3), 16), int(m.group(2)))] = (
                m.group(4), int(m.group(6), 16), int(m.group(5)))
    # A switch's ports share its GUID; a CA port has its own, so the
    # local port's link is found by the local port GUID alone.
    first = [(k, v) for k, v in ports.items() if k[0] == local]
    if not first:
        sys.exit("drpaths: port 0x%x is not in the input" % local)
    (_, lport), (ftype, fguid, _) = first[0]
    seen, queue = {local, fguid}, [(ftype, fguid, [lport])]
    print(lport)
    while queue:
        t, guid, path = queue.pop(0)
        if t != "SW" or len(path) >= 63:
            continue
        for (g, p), (nt, ng, _) in sorted(ports.items()):
            if g != guid or ng in seen:
                continue
            seen.add(ng)
            print(",".join(str(x) for x in path + [p]))
            queue.append((nt, ng, path + [p]))


main()
