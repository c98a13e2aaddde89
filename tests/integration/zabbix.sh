#!/bin/sh
# Runs zabbix.py (the Zabbix templates against the simulated fabric).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/zabbix.py"
