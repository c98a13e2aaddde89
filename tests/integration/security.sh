#!/bin/sh
# Runs security.py (access control, wrong keys, SETs, the MAD rate limit).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/security.py"
