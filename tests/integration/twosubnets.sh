#!/bin/sh
# Runs twosubnets.py (two subnets in one simulation, issue 37).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/twosubnets.py"
