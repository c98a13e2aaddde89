#!/bin/sh
# Runs converge.py (the gateway agrees with the fabric within the bound).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/converge.py"
