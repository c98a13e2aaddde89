#!/bin/sh
# Runs health.py (per-node hold-down of silent nodes).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/health.py"
