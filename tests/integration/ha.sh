#!/bin/sh
# Runs ha.py (a standby pair on one simulated fabric).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/ha.py"
