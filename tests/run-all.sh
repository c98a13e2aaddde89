#!/bin/sh
# The whole test suite on a fresh Debian 12 machine: installs what it
# needs, builds out of tree, and runs `make check` (unit tests, MIB checks,
# integration tests on the simulated fabric) and `make distcheck`.
set -e
cd "$(dirname "$0")/.."
. tests/deps.sh
install_deps
./autogen.sh >/dev/null
rm -rf _check && mkdir _check && cd _check
../configure --quiet
make -j2 >/dev/null
status=0
make -j2 check || status=$?
# Keep the runner's summary visible even when make stops early.
for f in test-suite.log; do
	[ -f "$f" ] && sed -n '1,/^=*$/p' "$f" | head -20
done
[ $status = 0 ] || { cat test-suite.log; exit $status; }
make distcheck >/dev/null 2>distcheck.err || { cat distcheck.err; exit 1; }
echo "distcheck: ok"
