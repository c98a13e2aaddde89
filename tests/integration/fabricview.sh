#!/bin/sh
# Runs fabricview.py (the fabric context: node table, tenants, names).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/fabricview.py"
