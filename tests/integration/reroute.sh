#!/bin/sh
# Runs reroute.py (a node's failures forgotten when a sweep reroutes it).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/reroute.py"
