#!/bin/sh
# Runs staletrap.py (a late trap 64 or 65 is put right by a reading).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/staletrap.py"
