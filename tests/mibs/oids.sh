#!/bin/sh
# gateway/oids.h is made by make from the MIB texts (mibs/gen-oids.awk):
# check the build's copy against the drafts' OIDs, that it is what the
# generator makes of the MIBs now, and that the generator refuses a MIB
# it cannot resolve (a wrong OID would otherwise reach the wire).
top=${top_srcdir:-$(dirname "$0")/../..}
built=${top_builddir:-$top}/gateway/oids.h
cd "$top" || exit 99
[ -f "$built" ] || { echo "no $built: run make first"; exit 99; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

awk -f mibs/gen-oids.awk mibs/std-arcs.smi mibs/IB-TC-MIB mibs/IB-SMA-MIB \
    mibs/IB-IF-MIB mibs/IB-SM-MIB mibs/IBSNMPGW-MIB mibs/LLDP-MIB \
    > "$tmp/oids.h" || {
	echo "not ok 1 - the generator failed"; exit 1; }
if cmp -s "$tmp/oids.h" "$built"; then
	echo "ok 1 - the build's gateway/oids.h matches mibs/"
else
	echo "not ok 1 - the build's gateway/oids.h is stale:"
	diff -u "$built" "$tmp/oids.h" | head -20
	fail=1
fi
# Spot checks against the drafts' OIDs.
for want in "GW_OID_ibSmaPortInfoEntry	1, 3, 6, 1, 3, 117, 3, 1, 5, 1, 1" \
    "GW_OID_ibSmMIBObjects	1, 3, 6, 1, 3, 117, 7, 1" \
    "GW_OID_ifXEntry	1, 3, 6, 1, 2, 1, 31, 1, 1, 1" \
    "GW_OID_ibsnmpgwNodeEntry	5, 1, 1" \
    "GW_OID_lldpRemEntry	1, 0, 8802, 1, 1, 2, 1, 4, 1, 1"; do
	if grep -qF "#define $want" "$tmp/oids.h"; then
		echo "ok - ${want%%	*}"
	else
		echo "not ok - ${want%%	*} is not {${want#*	}}"
		fail=1
	fi
done
printf 'fooBar OBJECT IDENTIFIER ::= { nowhere 1 }\n' > "$tmp/bad.smi"
if awk -f mibs/gen-oids.awk "$tmp/bad.smi" > /dev/null 2> "$tmp/err"; then
	echo "not ok - an unresolvable parent was accepted"
	fail=1
elif grep -q "cannot resolve nowhere" "$tmp/err"; then
	echo "ok - an unresolvable parent is refused: $(cat "$tmp/err")"
else
	echo "not ok - unclear error: $(cat "$tmp/err")"
	fail=1
fi
exit $fail
