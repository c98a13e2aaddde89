#!/bin/sh
# Runs tunnelgw.py (SNMP to hosts through the gateway and the tunnel).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/tunnelgw.py"
