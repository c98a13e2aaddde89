#!/bin/sh
# Runs hostilemad.py (hostile MADs from the fabric through the fault shim).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/hostilemad.py"
