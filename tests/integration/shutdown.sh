#!/bin/sh
# Runs shutdown.py (SIGTERM while MADs are on their way).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/shutdown.py"
