#!/bin/sh
# Runs reread.py (SM Reports into the inventory without a sweep).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/reread.py"
