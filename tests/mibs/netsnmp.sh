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
# 1. Loads IB-SMA-MIB (which imports IB-TC-MIB), IBSNMPGW-MIB (which
#    imports NET-SNMP-MIB) and IB-IF-MIB (which imports IF-MIB) with
#    "snmptranslate -Tp"; any message on stderr is a failure.  The IETF
#    base modules come from erlang-snmp (see mibenv.sh), because
#    Debian's net-snmp ships none; NET-SNMP-MIB is linked into the same
#    directory from libsnmp-base, and so is a real IF-MIB (with
#    IANAifType-MIB) if one is found.  Only TOP_SRCDIR/mibs and that
#    directory are searched (-M without "+"), followed by
#    tests/mibs/stubs (a lint-only stand-in IF-MIB) only when no real
#    IF-MIB was found; and only IB-SMA-MIB, IBSNMPGW-MIB and IB-IF-MIB
#    are loaded (-m without "+"), so net-snmp's default module list,
#    which is not installed, does not get in the way.
# 2. For every row of the tables between "<!-- oidmap:begin NAME -->"
#    and "<!-- oidmap:end NAME -->" in docs/mibs.md
#        | sub-id | `object` | `OID` | `syntax` | range / values | access |
#    checks the numeric OID (snmptranslate -On), the sub-id, the syntax
#    or TC name, the range/size/enumeration and MAX-ACCESS
#    (snmptranslate -Td).  A row may have more columns; if it does, the
#    seventh is the UNITS clause: a quoted string, or "none" (or "-")
#    for no UNITS clause.  Objects named ibsnmpgw* are looked up in
#    IBSNMPGW-MIB, ibIf* and ibIpoib* in IB-IF-MIB, all others in
#    IB-SMA-MIB.
# 3. A few fixed checks (scalar and column instance OIDs, table INDEX,
#    sysObjectID values, UNITS).
#
# Prints each failure and a closing line "netsnmp: N passed, M failed".
# Exit status: 0 if nothing failed, 1 otherwise, 77 (automake "skip")
# if snmptranslate, erlang-snmp or NET-SNMP-MIB is missing, 2 on usage
# errors (also when neither a real IF-MIB nor the stand-in is there).
#
# Environment: SNMPTRANSLATE, ERLANG_SNMP_MIBDIR, NETSNMP_MIBDIR and
# IETF_MIBDIR (a directory holding a real IF-MIB and IANAifType-MIB);
# see mibenv.sh.

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
# net-snmp creates <persistent dir>/cert_indexes on its first run and
# says so on stderr: on a fresh machine, whichever test runs first would
# see "Created directory: /var/lib/snmp/cert_indexes". A private one,
# made beforehand, keeps stderr for the parser's messages.
mkdir -p "$tmpdir/persist/cert_indexes" || exit 2
SNMP_PERSISTENT_DIR=$tmpdir/persist
export SNMP_PERSISTENT_DIR
unset MIBS MIBDIRS MIBFILES PREFIX 2>/dev/null || true

st() {
    "$SNMPTRANSLATE" -M "$mibdir:$tmpdir$stubpath" \
        -m IB-SMA-MIB:IBSNMPGW-MIB:IB-IF-MIB:IB-SM-MIB:LLDP-MIB "$@"
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
   grep -q 'ibsnmpgwMIB(117)' "$tmpdir/tree.out" &&
   grep -q 'ibIfMIB(2)' "$tmpdir/tree.out" &&
   grep -q 'ibSmMIB(7)' "$tmpdir/tree.out"; then
    ok
else
    bad "snmptranslate -Tp IB-SMA-MIB:IBSNMPGW-MIB:IB-IF-MIB:IB-SM-MIB:LLDP-MIB (exit $rc):"
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

while IFS='|' read -r _ sub obj oid syn vals acc rest; do
    sub=$(mibenv_trim "$sub"); obj=$(mibenv_trim "$obj")
    oid=$(mibenv_trim "$oid"); syn=$(mibenv_trim "$syn")
    vals=$(mibenv_trim "$vals"); acc=$(mibenv_trim "$acc")
    units=$(mibenv_trim "${rest%%|*}")
    case $obj in
        ibsnmpgw*)       mod=IBSNMPGW-MIB ;;
        ibIf*|ibIpoib*)  mod=IB-IF-MIB ;;
        ibSm[A-Z]*)      mod=IB-SM-MIB ;;
        *)               mod=IB-SMA-MIB ;;
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
    if [ -n "$units" ]; then
        case $units in
            none|-) units= ;;
        esac
        check "$obj units" "$units" \
            "$(sed -n "s/^  UNITS${tab}${tab}//p" "$tmpdir/td")"
    fi
done <"$tmpdir/rows"

# INDEX clauses: $1 = module, then one "Entry:{ INDEX list }" per row.
check_indexes() {
    ci_mod=$1
    shift
    for e in "$@"; do
        check "${e%%:*} INDEX" "${e#*:}" \
            "$(st -Td "$ci_mod::${e%%:*}" 2>&1 |
               sed -n "s/^  INDEX${tab}${tab}//p")"
    done
}

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
check "ibsnmpgwFabric" ".1.3.6.1.4.1.8072.9999.9999.117.0.2" \
    "$(st -On IBSNMPGW-MIB::ibsnmpgwFabric 2>&1)"
t=1
for n in ibsnmpgwChannelAdapter ibsnmpgwSwitch ibsnmpgwRouter; do
    check "$n" ".1.3.6.1.4.1.8072.9999.9999.117.1.$t" \
        "$(st -On "IBSNMPGW-MIB::$n" 2>&1)"
    t=$((t + 1))
done
check "ibsnmpgwLastSweepDuration UNITS" '"milliseconds"' \
    "$(st -Td IBSNMPGW-MIB::ibsnmpgwLastSweepDuration 2>&1 |
       sed -n "s/^  UNITS${tab}${tab}//p")"

# IB-SM-MIB: root, one column of each table, the corrected INDEX
# clauses (VL arbitration's added entry index, the service
# association's own IMPLIED name) and the conformance arcs.
check "ibSmMIB" ".1.3.6.1.3.117.7" "$(st -On IB-SM-MIB::ibSmMIB 2>&1)"
for e in ibSmConfigOperStatus:1.1.1.6 ibSmNodeInfoDescription:2.1.1.14 \
         ibSmPortInfoLID:3.1.1.6 ibSmPortInfoInitTypeReply:3.1.1.45 \
         ibSmSwitchInfoEnhanced0:4.1.1.18 ibSmPartitionLastChange:5.1.1.7 \
         ibSmPartitionConfigMemberType:5.2.6 ibSmMcastGroupScope:7.1.1.14 \
         ibSmMcastMemberVector:7.2.1.4 ibSmSMInfoSMState:8.1.1.6 \
         ibSmLinkToPortNum:9.1.1.5 ibSmPathReqPreference:10.1.1.23 \
         ibSmPathResultPreference:10.2.1.21 \
         ibSmMultiPathReqSDGIDBlock32:11.1.1.53 \
         ibSmMultiPathResultPreference:11.2.1.21 \
         ibSmTraceReqExitPort:12.1.1.13 ibSmTraceResultExitPort:12.2.1.11 \
         ibSmServiceData:13.1.1.8 ibSmServiceAssocRowStatus:13.2.1.4 \
         ibSmSwSLtoVLMapSL15toVL:14.1.1.20 ibSmCaSLtoVLMapSL15toVL:15.1.1.19 \
         ibSmVLArbitrationWeight:16.1.1.6 ibSmVLArbitrationVL:16.1.1.7; do
    check "${e%%:*}" ".1.3.6.1.3.117.7.1.${e#*:}" \
        "$(st -On "IB-SM-MIB::${e%%:*}" 2>&1)"
done
check_indexes IB-SM-MIB \
    "ibSmVLArbitrationEntry:{ ibSmVLArbitrationSubnetPrefix, ibSmVLArbitrationNodeGUID, ibSmVLArbitrationPortNum, ibSmVLArbitrationPriority, ibSmVLArbitrationIndex }" \
    "ibSmServiceAssocEntry:{ ibSmServiceAssocSubnetPrefix, ibSmServiceAssocKey, IMPLIED ibSmServiceAssocName }" \
    "ibSmPortInfoEntry:{ ibSmPortInfoSubnetPrefix, ibSmPortInfoNodeGUID, ibSmPortInfoLocalPortNum }"
check "ibSmMIBCompliance" ".1.3.6.1.3.117.7.3.1.1" \
    "$(st -On IB-SM-MIB::ibSmMIBCompliance 2>&1)"

# LLDP-MIB (our subset of IEEE 802.1AB-2005's): the root spelt from
# iso, one object of each group, the two remote INDEX clauses and a
# lldpRemTable instance (time mark, local port, remote index).
check "lldpMIB" ".1.0.8802.1.1.2" "$(st -On LLDP-MIB::lldpMIB 2>&1)"
for e in lldpStatsRemTablesDeletes:1.2.3 lldpLocChassisId:1.3.2 \
         lldpLocPortId:1.3.7.1.3 lldpRemSysName:1.4.1.1.9 \
         lldpRemManAddrOID:1.4.2.1.5 lldpRemSysGroup:2.2.7; do
    check "${e%%:*}" ".1.0.8802.1.1.2.${e#*:}" \
        "$(st -On "LLDP-MIB::${e%%:*}" 2>&1)"
done
check "lldpRemChassisId.0.7.1" ".1.0.8802.1.1.2.1.4.1.1.5.0.7.1" \
    "$(st -On LLDP-MIB::lldpRemChassisId.0.7.1 2>&1)"
check_indexes LLDP-MIB \
    "lldpRemEntry:{ lldpRemTimeMark, lldpRemLocalPortNum, lldpRemIndex }" \
    "lldpRemManAddrEntry:{ lldpRemTimeMark, lldpRemLocalPortNum, lldpRemIndex, lldpRemManAddrSubtype, lldpRemManAddr }"

# IB-IF-MIB: root, instance OIDs (ifIndex 3; VL15 is IbVirtualLane 16;
# address 1), the three INDEX clauses, the arcs, compliance statements
# and groups, and the InterfaceIndex syntax from IF-MIB.
check "ibIfMIB" ".1.3.6.1.3.117.2" "$(st -On IB-IF-MIB::ibIfMIB 2>&1)"
check "ibIfPortSymbolErrs.3" ".1.3.6.1.3.117.2.1.1.1.2.3" \
    "$(st -On IB-IF-MIB::ibIfPortSymbolErrs.3 2>&1)"
check "ibIfVLInOctets.3.16" ".1.3.6.1.3.117.2.1.2.1.5.3.16" \
    "$(st -On IB-IF-MIB::ibIfVLInOctets.3.16 2>&1)"
check "ibIpoibLinkLayerAddr.3.1" ".1.3.6.1.3.117.2.1.3.1.3.3.1" \
    "$(st -On IB-IF-MIB::ibIpoibLinkLayerAddr.3.1 2>&1)"
check_indexes IB-IF-MIB "ibIfPortStatEntry:{ ibIfPortStatIfIndex }" \
    "ibIfVLTrafficEntry:{ ibIfVLTrafficIfIndex, ibIfVLIndex }" \
    "ibIpoibLinkLayerAddrEntry:{ ibIpoibLinkLayerIfIndex, ibIpoibLinkLayerIndex }"
for e in ibIfObjects:1 ibIfNotifications:2 ibIfConformance:3 \
         ibIfCompliances:3.1 ibIfBasicCompliance:3.1.1 \
         ibIfFullCompliance:3.1.2 ibIfMIBGroups:3.2 \
         ibIfStatMandatoryPortStatGroup:3.2.1 \
         ibIfStatOptionalPortStatGroup:3.2.2 ibIfVLTrafficGroup:3.2.3 \
         ibIpoibLinkAddrGroup:3.2.4; do
    check "${e%%:*}" ".1.3.6.1.3.117.2.${e#*:}" \
        "$(st -On "IB-IF-MIB::${e%%:*}" 2>&1)"
done
check "InterfaceIndex (IF-MIB: $ifmib_source)" "Integer32 (1..2147483647)" \
    "$(st -Td IB-IF-MIB::ibIfPortStatIfIndex 2>&1 |
       sed -n "s/^  SYNTAX${tab}//p" | sed 's/ *$//')"
if [ "$ifmib_source" = stub ]; then
    echo "netsnmp: IF-MIB: lint-only stand-in $stubdir/IF-MIB" \
         "(no real IF-MIB found)"
else
    echo "netsnmp: IF-MIB: $ifmib_source"
fi

echo "netsnmp: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
