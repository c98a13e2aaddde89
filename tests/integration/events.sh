#!/bin/sh
# Runs events.py (the event stream against Unlink/ReLink on ibsim).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/events.py"
