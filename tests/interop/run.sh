#!/bin/sh
# make interop: the NMS servers themselves against the simulated fabric
# (not in `make check`: they install packages and take minutes). Each
# test's output goes to interop-NAME.log in the current directory; a
# line per test and a summary are printed. Exit 1 if any test failed.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_srcdir
pass=0 fail=0 skip=0
for t in zabbix; do
	start=$(date +%s)
	/usr/bin/python3 "$top_srcdir/tests/interop/$t.py" >"interop-$t.log" 2>&1
	rc=$?
	took=$(( $(date +%s) - start ))
	case $rc in
	0) res=PASS; pass=$((pass + 1)) ;;
	77) res=SKIP; skip=$((skip + 1)) ;;
	*) res=FAIL; fail=$((fail + 1)) ;;
	esac
	echo "$res: $t ($took s; $(tail -n 1 "interop-$t.log"))"
	grep '^# figure' "interop-$t.log" | awk '!seen[$0]++'
	if [ $res = FAIL ]; then
		grep -A 20 '^not ok' "interop-$t.log" | head -n 60
	fi
done
echo "# interop: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
