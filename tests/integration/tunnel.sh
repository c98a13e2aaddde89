#!/bin/sh
# Runs tunnel.py (ibsnmp-tunneld: SNMP through the fabric).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/tunnel.py"
