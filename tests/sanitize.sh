#!/bin/sh
# The test suite, but the package install test, on a build with
# AddressSanitizer and UndefinedBehaviorSanitizer, in _sanitize/ next to
# the build tree it is called from (tests/run-all.sh, after `make check`).
# A sanitizer report fails the run even when the test that caused it
# passed: the gateway runs as a daemon, and a memory error in it need not
# show in any answer.
set -e
top=$(cd "$(dirname "$0")/.." && pwd -P)
rm -rf _sanitize && mkdir _sanitize && cd _sanitize
san="-fsanitize=address,undefined -fno-omit-frame-pointer"
"$top/configure" --quiet CFLAGS="-O1 -g $san" LDFLAGS="$san"
make -j2 >/dev/null
tests=$(make -s print-tests | tr ' ' '\n' | grep -v '^tests/packaging/' |
    tr '\n' ' ')
rep=$(pwd -P)/reports
mkdir -p "$rep"
# umad2sim is preloaded before the ASan runtime (verify_asan_link_order);
# leaks at exit are not errors of a daemon that is killed.
ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=0:log_path=$rep/asan:suppressions=$top/tests/asan.supp"
UBSAN_OPTIONS="print_stacktrace=1:log_path=$rep/ubsan"
export ASAN_OPTIONS UBSAN_OPTIONS
status=0
make -j2 check TESTS="$tests" > check.log 2>&1 || status=$?
grep -E "^# (TOTAL|PASS|FAIL):" check.log | sed 's/^/sanitize /'
if [ $status != 0 ]; then
	cat test-suite.log
	exit $status
fi
if [ -n "$(ls "$rep")" ]; then
	echo "sanitize: reports:"
	cat "$rep"/*
	exit 1
fi
echo "sanitize: ok, no reports"
