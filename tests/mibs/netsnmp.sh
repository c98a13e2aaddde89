#!/bin/sh
# Check that the project's MIB modules load in net-snmp and that the
# object map in docs/mibs.md matches the modules.
#
# Usage: tests/mibs/netsnmp.sh [TOP_SRCDIR]
#
# TOP_SRCDIR defaults to the repository top directory, derived from the
# location of this script (so "make check" may run it from any build
# directory).
#
# 1. Loads IB-SMA-MIB (which imports IB-TC-MIB) and IBSNMPGW-MIB
#    (which imports NET-SNMP-MIB) with "snmptranslate -Tp"; any message
#    on stderr is a failure.  The IETF base modules come from
#    erlang-snmp (see mibenv.sh), because Debian's net-snmp ships none;
#    NET-SNMP-MIB is linked into the same directory from libsnmp-base.
#    Only TOP_SRCDIR/mibs and that directory are searched (-M without
#    "+"), and only IB-SMA-MIB and IBSNMPGW-MIB are loaded (-m without
#    "+"), so net-snmp's default module list, which is not installed,
#    does not get in the way.
# 2. For every row of the tables between "<!-- oidmap:begin NAME -->"
#    and "<!-- oidmap:end NAME -->" in docs/mibs.md
#        | sub-id | `object` | `OID` | `syntax` | range / values | access |
#    checks the numeric OID (snmptranslate -On), the sub-id, the syntax
#    or TC name, the range/size/enumeration and MAX-ACCESS
#    (snmptranslate -Td).  Objects named ibsnmpgw* are looked up in
#    IBSNMPGW-MIB, all others in IB-SMA-MIB.
# 3. A few fixed checks (scalar instance OIDs, table INDEX,
#    sysObjectID values, UNITS).
#
# Prints each failure and a closing line "netsnmp: N passed, M failed".
# Exit status: 0 if nothing failed, 1 otherwise, 77 (automake "skip")
# if snmptranslate, erlang-snmp or NET-SNMP-MIB is missing, 2 on usage
# errors.

set -u

SNMPTRANSLATE=${SNMPTRANSLATE:-snmptranslate}

. "$(dirname -- "$0")/mibenv.sh" || exit 2
mibenv_init "${1:-}"
doc=$top_srcdir/docs/mibs.md

if ! command -v "$SNMPTRANSLATE" >/dev/null 2>&1; then
    echo "netsnmp.sh: $SNMPTRANSLATE not found (apt-get install snmp)" >&2
    exit 77
fi
if [ ! -f "$doc" ]; then
    echo "netsnmp.sh: missing $doc" >&2
    exit 1
fi

mibenv_basedir

# Keep snmp.conf files and MIB environment variables out of the test.
mkdir "$tmpdir/conf" || exit 2
SNMPCONFPATH=$tmpdir/conf
export SNMPCONFPATH
unset MIBS MIBDIRS MIBFILES PREFIX 2>/dev/null || true

st() {
    "$SNMPTRANSLATE" -M "$mibdir:$tmpdir" -m IB-SMA-MIB:IBSNMPGW-MIB "$@"
}

pass=0
fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

tab=$(printf '\t')

# 1. The modules load without any parser message.
st -Tp >"$tmpdir/tree.out" 2>"$tmpdir/tree.err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$tmpdir/tree.err" ] &&
   grep -q 'ibSmaMIB(3)' "$tmpdir/tree.out" &&
   grep -q 'ibsnmpgwMIB(117)' "$tmpdir/tree.out"; then
    ok
else
    bad "snmptranslate -Tp IB-SMA-MIB:IBSNMPGW-MIB (exit $rc):"
    cat "$tmpdir/tree.err"
fi

# Compare one item; $1 = label, $2 = expected, $3 = actual.
check() {
    if [ "$2" = "$3" ]; then
        ok
    else
        bad "$1: docs say '$2', module says '$3'"
    fi
}

# 2. The object map in docs/mibs.md.
sed -n '/^<!-- oidmap:begin /,/^<!-- oidmap:end /p' "$doc" |
    grep '^| *[0-9]' | tr -d '`' >"$tmpdir/rows"
nrows=$(wc -l <"$tmpdir/rows")
if [ "$nrows" -eq 0 ]; then
    bad "no oidmap rows found in $doc"
fi

while IFS='|' read -r _ sub obj oid syn vals acc _; do
    sub=$(mibenv_trim "$sub"); obj=$(mibenv_trim "$obj")
    oid=$(mibenv_trim "$oid"); syn=$(mibenv_trim "$syn")
    vals=$(mibenv_trim "$vals"); acc=$(mibenv_trim "$acc")
    case $obj in
        ibsnmpgw*) mod=IBSNMPGW-MIB ;;
        *)         mod=IB-SMA-MIB ;;
    esac

    got=$(st -On "$mod::$obj" 2>&1)
    check "$obj OID" "$oid" "$got"
    check "$obj sub-id" "$sub" "${got##*.}"

    st -Td "$mod::$obj" >"$tmpdir/td" 2>&1
    t_tc=$(sed -n 's/^  -- TEXTUAL CONVENTION \(.*\)$/\1/p' "$tmpdir/td")
    t_syn=$(sed -n "s/^  SYNTAX${tab}//p" "$tmpdir/td" | sed 's/ *$//')
    t_acc=$(sed -n "s/^  MAX-ACCESS${tab}//p" "$tmpdir/td")
    case $t_syn in
        "OCTET STRING"*) t_base="OCTET STRING" ;;
        *)               t_base=${t_syn%% *} ;;
    esac
    t_rest=${t_syn#"$t_base"}
    t_rest=$(mibenv_trim "$t_rest")
    case $t_rest in
        "("*")") t_vals=${t_rest#"("}; t_vals=${t_vals%")"}
                 [ "$t_base" = "OCTET STRING" ] && t_vals="SIZE($t_vals)" ;;
        "{"*"}") t_vals=${t_rest#"{"}; t_vals=${t_vals%"}"} ;;
        *)       t_vals=$t_rest ;;
    esac
    check "$obj syntax" "$syn" "${t_tc:-$t_base}"
    check "$obj values" "$vals" "$t_vals"
    check "$obj access" "$acc" "$t_acc"
done <"$tmpdir/rows"

# 3. Fixed checks.
check "ibSmaNodeString.0" ".1.3.6.1.3.117.3.1.1.1.0" \
    "$(st -On IB-SMA-MIB::ibSmaNodeString.0 2>&1)"
check "ibSmaPortLinkState.3" ".1.3.6.1.3.117.3.1.5.1.1.6.3" \
    "$(st -On IB-SMA-MIB::ibSmaPortLinkState.3 2>&1)"
check "ibSmaPortInfoEntry INDEX" "{ ibSmaPortIndex }" \
    "$(st -Td IB-SMA-MIB::ibSmaPortInfoEntry 2>&1 |
       sed -n "s/^  INDEX${tab}${tab}//p")"
check "infinibandMIB" ".1.3.6.1.3.117" \
    "$(st -On IB-TC-MIB::infinibandMIB 2>&1)"
check "ibsnmpgwMadSent.0" ".1.3.6.1.4.1.8072.9999.9999.117.2.1.0" \
    "$(st -On IBSNMPGW-MIB::ibsnmpgwMadSent.0 2>&1)"
check "ibsnmpgwGateway" ".1.3.6.1.4.1.8072.9999.9999.117.0.1" \
    "$(st -On IBSNMPGW-MIB::ibsnmpgwGateway 2>&1)"
t=1
for n in ibsnmpgwChannelAdapter ibsnmpgwSwitch ibsnmpgwRouter; do
    check "$n" ".1.3.6.1.4.1.8072.9999.9999.117.1.$t" \
        "$(st -On "IBSNMPGW-MIB::$n" 2>&1)"
    t=$((t + 1))
done
check "ibsnmpgwLastSweepDuration UNITS" '"milliseconds"' \
    "$(st -Td IBSNMPGW-MIB::ibsnmpgwLastSweepDuration 2>&1 |
       sed -n "s/^  UNITS${tab}${tab}//p")"

echo "netsnmp: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
