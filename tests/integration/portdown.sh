#!/bin/sh
# Runs portdown.py (the gateway's own port goes away and comes back).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/portdown.py"
