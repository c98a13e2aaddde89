#!/bin/sh
# The whole test suite on a fresh Debian 12 machine: installs what it
# needs, builds out of tree, and runs `make check` (unit tests, MIB checks,
# integration tests on the simulated fabric), the same tests on a
# sanitizer build (tests/sanitize.sh), every fuzz target for a while
# (tests/fuzz/run.sh) and `make distcheck`.
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
# The same tests (all but the package install) on an ASan and UBSan build:
# memory errors that do not crash a normal build. Reports go to files;
# any report fails the run.
sh ../tests/sanitize.sh
# Every libFuzzer target (ASan, UBSan) from the committed corpus, for
# FUZZ_SECONDS each: a crash fails the run and its input is printed.
sh ../tests/fuzz/run.sh "${FUZZ_SECONDS:-15}" > fuzz.log 2>&1 ||
    { cat fuzz.log; exit 1; }
grep -E "^fuzz_|^stat::number_of_executed_units" fuzz.log | paste - - |
    awk '{ print "fuzz " $1 " " $4 " inputs in " $2 }'
echo "fuzz: ok"
# distcheck: the tarball builds out of tree and passes the static and
# unit tests and one integration test; the integration suite already ran
# twice above, and a third run (16 minutes) would prove only that its
# files are in the tarball, which dist-complete.sh checks directly.
quick=$(make -s print-tests | tr ' ' '\n' |
    grep -v -e '^tests/integration/' -e '^tests/packaging/' | tr '\n' ' ')
make distcheck TESTS="$quick tests/integration/fabric.sh" > distcheck.log 2>&1 ||
    { tail -n 60 distcheck.log; exit 1; }
sh ../tests/dist-complete.sh "$(ls ibsnmpgw-*.tar.gz | tail -n 1)" ..
grep -E "^# (TOTAL|PASS|FAIL):" distcheck.log | sed 's/^/distcheck /'
echo "distcheck: ok"
