#!/bin/sh
# Runs sma.py (the whole IB-SMA-MIB of every node against infiniband-diags).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/sma.py"
