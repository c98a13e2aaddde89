#!/bin/sh
# Runs hasubnets.py (a pair of gateways on two subnets).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/hasubnets.py"
