#!/bin/sh
# Runs engine.py (SNMP-FRAMEWORK-MIB's snmpEngine group, engine ID and
# boots across restarts).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/engine.py"
