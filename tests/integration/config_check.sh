#!/bin/sh
# ibsnmpgw -n: a good file prints "configuration ok"; a bad one prints one
# "file:line: message" per error and exits non-zero.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
IBSNMPGW=${IBSNMPGW:-$top_srcdir/gateway/ibsnmpgw}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() {
	if [ "$1" = 0 ]; then
		pass=$((pass + 1)); echo "ok - $2"
	else
		fail=$((fail + 1)); echo "not ok - $2"; [ -n "$3" ] && echo "$3" | sed 's/^/#   /'
	fi
}

out=$("$IBSNMPGW" -n -c "$top_srcdir/etc/ibsnmpgw.yaml" 2>&1)
rc=$?
[ $rc = 0 ] && [ "$out" = "configuration ok" ]
check $? "sample etc/ibsnmpgw.yaml is valid" "$out"

cat > "$tmp/bad.yaml" <<'YAML'
snmp:
  listen:
    - "udp:127.0.0.1:161"
    - "udp:127.0.0.1:161"
  communities:
    - name: public
  shoe-size: 9
mad:
  retries: eleven
  max-in-flight: 100000
YAML
out=$("$IBSNMPGW" -n -c "$tmp/bad.yaml" 2>&1)
rc=$?
[ $rc != 0 ]
check $? "a bad file exits non-zero" "$out"
n=$(printf '%s\n' "$out" | grep -c "^$tmp/bad.yaml:[0-9][0-9]*: ")
[ "$n" = 4 ]
check $? "one file:line: message per error (got $n)" "$out"
printf '%s\n' "$out" | grep -q "^$tmp/bad.yaml:4: duplicate listener"
check $? "duplicate listener reported at its line" "$out"
printf '%s\n' "$out" | grep -q "^$tmp/bad.yaml:7: unknown key 'shoe-size'"
check $? "unknown key reported at its line" "$out"
printf '%s\n' "$out" | grep -q "^$tmp/bad.yaml:9: 'retries' must be an integer"
check $? "wrong type reported at its line" "$out"
printf '%s\n' "$out" | grep -q "^$tmp/bad.yaml:10: 'max-in-flight' is 100000, out of range"
check $? "out-of-range number reported at its line" "$out"
printf '%s\n' "$out" | grep -q "configuration ok"
[ $? != 0 ]
check $? "no 'configuration ok' for a bad file" "$out"

out=$("$IBSNMPGW" -n -c "$tmp/missing.yaml" 2>&1)
[ $? != 0 ] && printf '%s\n' "$out" | grep -q "missing.yaml:0: cannot open"
check $? "a missing file is reported" "$out"

printf '\001\002\377garbage: [\n' > "$tmp/bin.yaml"
out=$("$IBSNMPGW" -n -c "$tmp/bin.yaml" 2>&1)
rc=$?
[ $rc = 1 ] && printf '%s\n' "$out" | grep -q "^$tmp/bin.yaml:[0-9]*: "
check $? "a binary file gets a file:line error, not a crash" "$out"

# ibsnmp-tunneld -n: the same promises for the node agent's file.
TUNNELD=${IBSNMP_TUNNELD:-${top_builddir:-$top_srcdir}/tunneld/ibsnmp-tunneld}
if [ -x "$TUNNELD" ]; then
	printf 'agent: "udp:127.0.0.1:1161"\ncommunity: c\nallow-lids: [12, 0x20]\n' > "$tmp/td.yaml"
	out=$("$TUNNELD" -n -c "$tmp/td.yaml" 2>&1)
	[ $? = 0 ] && [ "$out" = "configuration ok" ]
	check $? "ibsnmp-tunneld: a good file" "$out"
	printf 'agent: "udp:127.0.0.1:1161"\ncommunity: c\nallow-guids: [0x0002c903000a1b2c]\n' > "$tmp/tdg.yaml"
	out=$("$TUNNELD" -n -c "$tmp/tdg.yaml" 2>&1)
	[ $? = 0 ] && [ "$out" = "configuration ok" ]
	check $? "ibsnmp-tunneld: port GUIDs alone allowed" "$out"
	printf 'agent: "udp:127.0.0.1:1161"\ncommunity: c\nallow-guids:\n  - 0x0\n' > "$tmp/tdg.yaml"
	out=$("$TUNNELD" -n -c "$tmp/tdg.yaml" 2>&1)
	[ $? != 0 ] && printf '%s\n' "$out" | grep -q "tdg.yaml:4: not a port GUID"
	check $? "ibsnmp-tunneld: a bad port GUID gets file:line" "$out"
	cat > "$tmp/tdbad.yaml" <<'YAML'
agent: "udp:10.0.0.1:161"
community: ""
allow-lids: [0, 49152, x]
segment-octets: 193
shoe-size: 9
YAML
	out=$("$TUNNELD" -n -c "$tmp/tdbad.yaml" 2>&1)
	rc=$?
	n=$(printf '%s\n' "$out" | grep -c "^$tmp/tdbad.yaml:[0-9][0-9]*: ")
	[ $rc != 0 ] && [ "$n" = 5 ] &&
	    printf '%s\n' "$out" | grep -q "tdbad.yaml:1: agent must be udp:127"
	check $? "ibsnmp-tunneld: a non-loopback agent, bad LIDs, a bad size and an unknown key, one file:line each (got $n)" "$out"
	printf 'agent: "udp:127.0.0.1:161"\n' > "$tmp/tdnone.yaml"
	out=$("$TUNNELD" -n -c "$tmp/tdnone.yaml" 2>&1)
	[ $? != 0 ] && printf '%s\n' "$out" | grep -q "are required"
	check $? "ibsnmp-tunneld: no community or allowed LIDs is an error" "$out"
	out=$("$TUNNELD" -n -c "$tmp/bin.yaml" 2>&1)
	[ $? = 1 ] && printf '%s\n' "$out" | grep -q "^$tmp/bin.yaml:[0-9]*: "
	check $? "ibsnmp-tunneld: a binary file gets file:line, not a crash" "$out"
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
