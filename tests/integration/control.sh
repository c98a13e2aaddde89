#!/bin/sh
# ibsnmpgw ctl: every control command against the simulated fabric.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
IBSNMPGW=${IBSNMPGW:-$top_srcdir/gateway/ibsnmpgw}
export IBSNMPGW
for p in ibsim opensm snmpget; do
	command -v $p >/dev/null || { echo "SKIP: no $p"; exit 77; }
done
dir=$(mktemp -d /tmp/ibsnmpgw-ctl.XXXXXX)
trap '"$top_srcdir/tests/sim/ibsnmpgw-sim" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"' EXIT
"$top_srcdir/tests/sim/ibsnmpgw-sim" start "$top_srcdir/tests/sim/topologies/fabric.topo" "$dir" > "$dir/info" || exit 1
ctl() { "$IBSNMPGW" -c "$dir/ibsnmpgw.yaml" ctl "$@"; }
pass=0 fail=0
check() {
	if [ "$1" = 0 ]; then pass=$((pass + 1)); echo "ok - $2"
	else fail=$((fail + 1)); echo "not ok - $2"; [ -n "$3" ] && printf '%s\n' "$3" | sed 's/^/#   /'; fi
}

out=$(ctl nodes); n=$(printf '%s\n' "$out" | grep -c reachable)
[ "$n" = 14 ]; check $? "nodes lists all 14 nodes with reachability ($n)" "$out"
printf '%s\n' "$out" | grep -q "^0x0002c90300aa0101 leaf01 .* route 0,[0-9,]* policy default"
check $? "nodes shows GUID, alias, route and policy" "$out"
out=$(ctl node leaf02)
printf '%s\n' "$out" | grep -q "^ports: 36" && printf '%s\n' "$out" | grep -q "^port   1 .* -> 0x"
check $? "node shows one node with its ports and links" "$out"
out=$(ctl node nosuch); rc=$?
[ $rc = 1 ] && printf '%s\n' "$out" | grep -q "no node named"
check $? "node with an unknown name is an error" "$out"
ep=$(sed -n 's/^endpoint: //p' "$dir/info")
snmpget -v2c -c public@leaf01 "$ep" 1.3.6.1.3.117.3.1.1.7.0 >/dev/null
out=$(ctl stats)
printf '%s\n' "$out" | grep -q "^mad sent [1-9]" && printf '%s\n' "$out" | grep -q "node-requests [1-9]"
check $? "stats shows MAD, cache and SNMP counters" "$out"
# Background polls add cache entries at any time, and nothing but a
# flush removes one: so count per node, and let the flush say what it did.
node_entries() { ctl node "$1" | sed -n 's/^cache entries: //p'; }
snmpget -v2c -c public@leaf02 "$ep" 1.3.6.1.3.117.3.1.1.7.0 >/dev/null
l2=$(node_entries leaf02)
out=$(ctl flush leaf01); d1=$(printf '%s\n' "$out" | sed -n 's/^cache of leaf01 flushed, \([0-9]*\) entries dropped$/\1/p')
l2b=$(node_entries leaf02)
[ -n "$d1" ] && [ "$d1" -gt 0 ] && [ "$l2" -gt 0 ] && [ "$l2b" -ge "$l2" ]
check $? "flush NAME drops that node's entries only (leaf01 $d1 dropped, leaf02 $l2 -> $l2b)" "$out"
out=$(ctl flush); d2=$(printf '%s\n' "$out" | sed -n 's/^cache flushed, \([0-9]*\) entries dropped$/\1/p')
# leaf02's NodeDescription (long TTL, never polled) is among them.
[ -n "$d2" ] && [ "$d2" -gt 0 ]
check $? "flush drops every entry ($d2 dropped)" "$out"
# Per node: the MADs the engine sent it, PerfMgt and retries apart. A
# cold NodeInfo read is one SMP. The gateway's own SMPs to leaf01 in
# between (a sweep) can only add to it: tried again, and never fewer.
smps() { ctl node leaf01 | awk '$1 == "mads:" { gsub(/[(),]/, ""); print $3 - $5 - $7 }'; }
seen=""
for try in 1 2 3 4 5; do
	ctl flush leaf01 > /dev/null
	m0=$(smps)
	snmpget -v2c -c public@leaf01 "$ep" 1.3.6.1.3.117.3.1.1.7.0 >/dev/null
	m1=$(smps)
	[ -n "$m0" ] && [ -n "$m1" ] || break
	seen="$seen $((m1 - m0))"
	[ $((m1 - m0)) -le 1 ] && break
done
out=$(ctl node leaf01 | grep "^mads:")
[ -n "$m0" ] && [ -n "$m1" ] && [ $((m1 - m0)) = 1 ] &&
	printf '%s\n' "$out" | grep -Eq "^mads: sent [1-9][0-9]* \(PerfMgt [0-9]+, retries [0-9]+\) timeouts [0-9]+ errors [0-9]+$"
check $? "node counts the MADs sent to it: a cold NodeInfo read is one SMP (per try:$seen)" "$out"
before=$(grep -c "sweep [0-9]* done" "$dir/ibsnmpgw.log")
out=$(ctl sweep)
sleep 1
after=$(grep -c "sweep [0-9]* done" "$dir/ibsnmpgw.log")
[ "$out" = "sweep started" ] && [ "$after" -gt "$before" ]
check $? "sweep starts a sweep" "$out"
perm=$(stat -c %a "$dir/ibsnmpgw.sock")
[ "$perm" = 660 ]; check $? "the socket is mode 0660 ($perm)"
out=$(ctl frobnicate); rc=$?
[ $rc = 1 ]; check $? "unknown commands are refused" "$out"

# Logging: what libraries print on stderr goes through the logger. A
# second gateway attaches at a node ibsim does not know, so umad2sim
# prints "ibwarn" and "ibpanic" on stderr and exits.
sed -e "s/udp:127.0.0.1:[0-9]*/udp:127.0.0.1:$(( ${ep##*:} + 7 ))/" \
    -e "s|^\( *\)path:.*|\1path: $dir/log-test.db\n\1control-socket: $dir/log-test.sock|" \
    "$dir/ibsnmpgw.yaml" > "$dir/log-test.yaml"
grep -q "log-test.db" "$dir/log-test.yaml" && grep -q "log-test.sock" "$dir/log-test.yaml" ||
	{ echo "ERROR: could not give the second gateway its own store and socket"; exit 99; }
second() { (. "$dir/sim.env"; SIM_HOST=nosuchnode timeout 30 "$IBSNMPGW" "$@" -c "$dir/log-test.yaml"); }
second -f 2> "$dir/fg.err"; rc=$?
raw=$(grep -v -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+ ibsnmpgw\[[a-z]+\]: ' "$dir/fg.err")
[ $rc != 0 ] && [ $rc != 124 ] && [ -z "$raw" ] && grep -q 'ibsnmpgw\[warning\]: ibwarn: ' "$dir/fg.err" &&
	grep -q 'ibsnmpgw\[crit\]: ibpanic: ' "$dir/fg.err"
check $? "under -f, library messages (ibwarn, ibpanic) come out as log lines with levels (rc $rc)" "$(cat "$dir/fg.err")"
second 2> "$dir/bg.err"; rc=$?
[ $rc != 0 ] && [ $rc != 124 ] && [ ! -s "$dir/bg.err" ]
check $? "without -f (syslog), nothing reaches stderr (rc $rc)" "$(cat "$dir/bg.err")"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
