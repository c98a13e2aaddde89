#!/bin/sh
# Runs cluster.py (a fabric shaped like a real cluster).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/cluster.py"
