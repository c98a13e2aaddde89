#!/bin/sh
# Runs smview.py (IB-SM-MIB in the fabric context against infiniband-diags).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/smview.py"
