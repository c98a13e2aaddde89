#!/bin/sh
# Lint the project's SMIv2 MIB modules with smilint (libsmi).
#
# Usage: tests/mibs/smilint.sh [TOP_SRCDIR]
#
# TOP_SRCDIR defaults to the repository top directory, derived from the
# location of this script, so it may be run from any directory (e.g.
# from a separate build directory by "make check").
#
# The IETF base modules (SNMPv2-SMI, SNMPv2-TC, SNMPv2-CONF,
# SNMP-FRAMEWORK-MIB) come from Debian's erlang-snmp package, which
# ships them as NAME.mib; libsmi looks modules up by plain name, so they
# are symlinked without the suffix into a temporary directory (see
# mibenv.sh).  The same directory gets a link NET-SNMP-MIB to
# net-snmp's NET-SNMP-MIB.txt (libsnmp-base), which IBSNMPGW-MIB imports
# netSnmpPlaypen from; it is only loaded to resolve that import, never
# linted.  IB-IF-MIB imports InterfaceIndex from IF-MIB (RFC 2863),
# which Debian ships only in the non-free snmp-mibs-downloader: a real
# IF-MIB (with IANAifType-MIB) is linked into the same directory when
# one is found, and only otherwise is tests/mibs/stubs, which holds a
# lint-only stand-in IF-MIB, appended to the path (see mibenv.sh).
# SMIPATH is TOP_SRCDIR/mibs, that directory and, as a fallback, the
# stubs directory.
#
# Environment:
#   SMILINT        smilint binary (default: smilint)
#   SMILINT_LEVEL  error level passed to -l (default: 3)
#   ERLANG_SNMP_MIBDIR  directory holding the erlang-snmp *.mib files
#   NETSNMP_MIBDIR      directory holding net-snmp's NET-SNMP-MIB.txt
#   IETF_MIBDIR         directory holding a real IF-MIB and IANAifType-MIB
#
# Prints smilint's messages, if any, and which IF-MIB was used.  Exit
# status: 0 and the line "smilint: N modules clean" if smilint printed
# nothing and succeeded; 1 otherwise; 77 (automake "skip") if smilint,
# erlang-snmp or NET-SNMP-MIB is missing; 2 on usage errors (also when
# neither a real IF-MIB nor the stand-in is there).

set -u

MODULES="IB-TC-MIB IB-SMA-MIB IBSNMPGW-MIB IB-IF-MIB IB-SM-MIB LLDP-MIB"

. "$(dirname -- "$0")/mibenv.sh" || exit 2
mibenv_init "${1:-}"

SMILINT=${SMILINT:-smilint}
level=${SMILINT_LEVEL:-3}

if ! command -v "$SMILINT" >/dev/null 2>&1; then
    echo "smilint.sh: $SMILINT not found (apt-get install smitools)" >&2
    exit 77
fi

files=
for m in $MODULES; do
    if [ ! -f "$mibdir/$m" ]; then
        echo "smilint.sh: missing $mibdir/$m" >&2
        exit 1
    fi
    files="$files $mibdir/$m"
done

mibenv_basedir

out=$tmpdir/smilint.out
# The base modules are found through SMIPATH (imports are resolved by
# module name) rather than preloaded with -p: a preloaded module is
# linted itself, and erlang-snmp's copies of SNMPv2-SMI/SNMPv2-TC draw
# complaints that are not ours.  SMIPATH without a leading or trailing
# separator replaces the configured search path, and -c /dev/null keeps
# global and user smi.conf files out.
# shellcheck disable=SC2086
SMIPATH="$mibdir:$tmpdir$stubpath" "$SMILINT" -c /dev/null -s -l "$level" \
    $files >"$out" 2>&1
rc=$?

if [ "$ifmib_source" = stub ]; then
    echo "smilint: IF-MIB: lint-only stand-in $stubdir/IF-MIB" \
         "(no real IF-MIB found)"
else
    echo "smilint: IF-MIB: $ifmib_source"
fi

if [ -s "$out" ]; then
    cat "$out"
fi
if [ $rc -ne 0 ] || [ -s "$out" ]; then
    echo "smilint: FAILED (exit $rc, level $level) for$files" >&2
    exit 1
fi

# shellcheck disable=SC2086
n=$(printf '%s\n' $MODULES | wc -l)
echo "smilint: $n modules clean"
exit 0
