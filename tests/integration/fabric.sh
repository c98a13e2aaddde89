#!/bin/sh
# Runs fabric.py (every node of the simulated fabric against smpquery).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/fabric.py"
