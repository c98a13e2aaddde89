#!/bin/sh
# Runs verdict.py (the standing verdict per port, docs/health.md).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/verdict.py"
