#!/bin/sh
# Runs hafailover.py (the pair behind a VIP with keepalived, a kill -9).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/hafailover.py"
