#!/bin/sh
# Runs lldp.py (LLDP-MIB in the node contexts, the fabric context's
# system group).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/lldp.py"
