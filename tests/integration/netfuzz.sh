#!/bin/sh
# Runs netfuzz.py (hostile datagrams against the running gateway).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/netfuzz.py"
