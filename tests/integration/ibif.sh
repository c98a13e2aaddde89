#!/bin/sh
# Runs ibif.py (IB-IF-MIB per-VL traffic).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/ibif.py"
