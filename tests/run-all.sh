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
[ $status = 0 ] || { cat test-suite.log; exit $status; }
# distcheck: the tarball builds and passes the same tests out of tree.
make distcheck > distcheck.log 2>&1 || { tail -n 60 distcheck.log; exit 1; }
grep -E "^# (TOTAL|PASS|FAIL):" distcheck.log | sed 's/^/distcheck /'
echo "distcheck: ok"
