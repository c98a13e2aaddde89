#!/bin/sh
# Runs durability.py (SIGKILL at the worst moments).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/durability.py"
