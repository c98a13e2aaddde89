#!/bin/sh
# Runs counters.py (saturation, resets, restarts and link changes).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/counters.py"
