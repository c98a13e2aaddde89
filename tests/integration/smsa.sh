#!/bin/sh
# Runs smsa.py (IB-SM-MIB partitions, multicast groups and services against smpquery and saquery).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/smsa.py"
