# Shared helpers for the MIB checks in tests/mibs/.  Source, don't run.
#
#   mibenv_init [TOP_SRCDIR]
#       Sets top_srcdir and mibdir (TOP_SRCDIR/mibs).  Without an
#       argument the top directory is derived from the location of the
#       calling script ($0), which lives in tests/mibs/.
#   mibenv_basedir
#       Creates $tmpdir (removed on exit) and fills it with one symlink
#       per IETF base module shipped by Debian's erlang-snmp package,
#       named after the module without the ".mib" suffix (SNMPv2-SMI,
#       SNMPv2-TC, SNMPv2-CONF, SNMP-FRAMEWORK-MIB, ...).  Exits 77
#       (automake "skip") when the package is missing.  Also links
#       NET-SNMP-MIB (imported by IBSNMPGW-MIB for netSnmpPlaypen) from
#       Debian's libsnmp-base, which ships it as NET-SNMP-MIB.txt; exits
#       77 when that file is missing.  The link only lets smilint and
#       snmptranslate resolve the import: NET-SNMP-MIB is never linted.
#
# shellcheck shell=sh disable=SC2034
# (variables set here are used by the sourcing scripts)
#
# Environment: ERLANG_SNMP_MIBDIR overrides the directory that holds
# the erlang-snmp *.mib files; NETSNMP_MIBDIR the directory that holds
# net-snmp's NET-SNMP-MIB.txt (default: from libsnmp-base, else
# /usr/share/snmp/mibs).

MIBENV_BASE_MODULES="SNMPv2-SMI SNMPv2-TC SNMPv2-CONF SNMP-FRAMEWORK-MIB"

# Strip leading and trailing blanks from $1.
mibenv_trim() {
    printf '%s\n' "$1" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//'
}

mibenv_init() {
    _me_script_dir=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd) || exit 2
    if [ $# -ge 1 ] && [ -n "$1" ]; then
        top_srcdir=$1
    else
        top_srcdir=$_me_script_dir/../..
    fi
    top_srcdir=$(CDPATH='' cd -- "$top_srcdir" 2>/dev/null && pwd) || {
        echo "$(basename -- "$0"): cannot enter top source dir '$1'" >&2
        exit 2
    }
    mibdir=$top_srcdir/mibs
}

mibenv_find_erlang_mibdir() {
    if [ -n "${ERLANG_SNMP_MIBDIR:-}" ]; then
        echo "$ERLANG_SNMP_MIBDIR"
        return
    fi
    _me_f=
    if command -v dpkg >/dev/null 2>&1; then
        _me_f=$(dpkg -L erlang-snmp 2>/dev/null |
                grep '/mibs/SNMPv2-SMI\.mib$' | head -n 1)
    fi
    if [ -z "$_me_f" ]; then
        for _me_c in /usr/lib/erlang/lib/snmp-*/mibs/SNMPv2-SMI.mib; do
            [ -f "$_me_c" ] && _me_f=$_me_c
        done
    fi
    [ -n "$_me_f" ] && dirname -- "$_me_f"
}

mibenv_find_netsnmp_mib() {
    if [ -n "${NETSNMP_MIBDIR:-}" ]; then
        echo "$NETSNMP_MIBDIR/NET-SNMP-MIB.txt"
        return
    fi
    _me_f=
    if command -v dpkg >/dev/null 2>&1; then
        _me_f=$(dpkg -L libsnmp-base 2>/dev/null |
                grep '/NET-SNMP-MIB\.txt$' | head -n 1)
    fi
    echo "${_me_f:-/usr/share/snmp/mibs/NET-SNMP-MIB.txt}"
}

mibenv_basedir() {
    erlmibdir=$(mibenv_find_erlang_mibdir)
    if [ -z "$erlmibdir" ] || [ ! -f "$erlmibdir/SNMPv2-SMI.mib" ]; then
        echo "$(basename -- "$0"): erlang-snmp base MIBs not found" \
             "(apt-get install erlang-snmp)" >&2
        exit 77
    fi
    tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/ibsnmpgw-mibs.XXXXXX") || exit 2
    trap 'rm -rf "$tmpdir"' EXIT
    trap 'exit 130' INT TERM HUP
    for _me_f in "$erlmibdir"/*.mib; do
        [ -f "$_me_f" ] || continue
        ln -s "$_me_f" "$tmpdir/$(basename -- "$_me_f" .mib)"
    done
    for _me_m in $MIBENV_BASE_MODULES; do
        if [ ! -e "$tmpdir/$_me_m" ]; then
            echo "$(basename -- "$0"): base module $_me_m missing in" \
                 "$erlmibdir" >&2
            exit 77
        fi
    done
    _me_f=$(mibenv_find_netsnmp_mib)
    if [ ! -f "$_me_f" ]; then
        echo "$(basename -- "$0"): $_me_f not found" \
             "(apt-get install libsnmp-base)" >&2
        exit 77
    fi
    ln -s "$_me_f" "$tmpdir/NET-SNMP-MIB"
}
