#!/bin/sh
# Runs smquery.py (IB-SM-MIB path and trace queries against saquery and ibtracert).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/smquery.py"
