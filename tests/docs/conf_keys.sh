#!/bin/sh
# Runs conf_keys.py: every configuration key the parsers accept is in
# the man pages and the sample files.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/docs/conf_keys.py"
