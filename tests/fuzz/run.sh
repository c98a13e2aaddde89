#!/bin/sh
# run.sh [SECONDS]: build the libFuzzer targets with clang (ASan, UBSan)
# in _fuzz/ under the source tree and run each for SECONDS (default 60)
# from the seed corpus in tests/fuzz/corpus/<target>. Not part of `make
# check` (it runs for as long as it is told); a crash, leak, timeout or
# out-of-memory leaves the input as _fuzz/crash-* (leak-*, ...) and fails
# the script, as does any other failure of a fuzzer; the input is also
# printed in base64, so that a CI log alone reproduces it. The README's
# test command runs it (tests/run-all.sh, FUZZ_SECONDS each, default 15).
#   apt-get install clang libclang-rt-14-dev
set -e
secs=${1:-60}
top=$(cd "$(dirname "$0")/../.." && pwd -P)
command -v clang >/dev/null || { echo "run.sh: clang not found" >&2; exit 1; }
[ -x "$top/configure" ] || (cd "$top" && ./autogen.sh >/dev/null)
mkdir -p "$top/_fuzz" && cd "$top/_fuzz"
san="-fsanitize=address,undefined"
if [ ! -f Makefile ]; then
	"$top/configure" --quiet CC=clang \
	    CFLAGS="-g -O1 -fno-omit-frame-pointer $san -fsanitize=fuzzer-no-link" \
	    LDFLAGS="$san"
fi
make -j2 libibsnmpgw.a >/dev/null
libs=$(make -s print-gw-libs)
status=0
rm -f crash-* leak-* timeout-* oom-* fuzz_*-crash-* fuzz_*-leak-* \
    fuzz_*-timeout-* fuzz_*-oom-*
for t in conf name tunnel tunreply; do
	clang -g -O1 $san -fsanitize=fuzzer -I"$top" -I. \
	    $(pkg-config --cflags yaml-0.1 sqlite3) \
	    -o "fuzz_$t" "$top/tests/fuzz/fuzz_$t.c" libibsnmpgw.a $libs
	mkdir -p "corpus_$t"
	echo "fuzz_$t: ${secs}s"
	rc=0
	ASAN_OPTIONS=detect_leaks=1 ./"fuzz_$t" -max_total_time="$secs" \
	    -max_len=4096 -timeout=5 -print_final_stats=1 \
	    "corpus_$t" "$top/tests/fuzz/corpus/$t" > "fuzz_$t.log" 2>&1 ||
	    rc=$?
	grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY|Test unit written)" \
	    "fuzz_$t.log" || true
	if [ $rc != 0 ]; then
		echo "fuzz_$t: exit status $rc (see _fuzz/fuzz_$t.log)"
		status=1
	fi
	for f in crash-* leak-* timeout-* oom-*; do
		[ -f "$f" ] || continue
		status=1
		echo "fuzz_$t: artifact _fuzz/$f (base64):"
		base64 "$f"
		mv "$f" "fuzz_$t-$f"	# the next target starts clean
	done
done
exit $status
