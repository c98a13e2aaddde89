#!/bin/sh
# Runs notify.py (SNMP notifications to snmptrapd and pysnmp).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/notify.py"
