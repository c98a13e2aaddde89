#!/bin/sh
# Runs slurm.py (ctl topology slurm against ibnetdiscover).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
exec /usr/bin/python3 "$top_srcdir/tests/integration/slurm.py"
