#!/bin/sh
# Runs smfailover.py (the master SM dies, the standby takes over).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/smfailover.py"
