#!/bin/sh
# Runs smevents.py (events from the SM: InformInfo, Reports).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/smevents.py"
