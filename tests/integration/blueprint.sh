#!/bin/sh
# Runs blueprint.py (the fabric against a blueprint, docs/health.md).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/blueprint.py"
