# Shared helpers for the MIB checks in tests/mibs/.  Source, don't run.
#
#   mibenv_init [TOP_SRCDIR]
#       Sets top_srcdir, mibdir (TOP_SRCDIR/mibs) and stubdir (the
#       stubs/ directory next to this file).  Without an
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
#       Then looks for a real IF-MIB (RFC 2863, imported by IB-IF-MIB
#       for InterfaceIndex) and the IANAifType-MIB it imports (see
#       mibenv_ifmib).  If both are found they are linked into
#       $tmpdir as well and $stubpath is empty.  Otherwise $stubpath is
#       ":$stubdir" (tests/mibs/stubs, which holds a lint-only stand-in
#       IF-MIB); append it to the search path after $tmpdir so that the
#       stand-in is used only as a last resort.  $ifmib_source says
#       which IF-MIB was used (a file name, or "stub").
#
# shellcheck shell=sh disable=SC2034
# (variables set here are used by the sourcing scripts)
#
# Environment: ERLANG_SNMP_MIBDIR overrides the directory that holds
# the erlang-snmp *.mib files; NETSNMP_MIBDIR the directory that holds
# net-snmp's NET-SNMP-MIB.txt (default: from libsnmp-base, else
# /usr/share/snmp/mibs).  IETF_MIBDIR names an extra directory that is
# searched first for a real IF-MIB and IANAifType-MIB (file names with
# or without a ".txt" or ".mib" suffix).  The stand-in in
# tests/mibs/stubs is for the checks only: it is not installed and not
# linted.

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
    stubdir=$_me_script_dir/stubs
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
    mibenv_ifmib
}

# Print the first file that holds module $1 in the directories $2...
# (tried as NAME, NAME.txt and NAME.mib).
mibenv_find_module() {
    _me_m=$1
    shift
    for _me_d in "$@"; do
        [ -n "$_me_d" ] || continue
        for _me_s in '' .txt .mib; do
            if [ -f "$_me_d/$_me_m$_me_s" ]; then
                echo "$_me_d/$_me_m$_me_s"
                return 0
            fi
        done
    done
    return 1
}

# Directories where a real IF-MIB may live: $IETF_MIBDIR, net-snmp's
# MIB directory, and the layouts of Debian's snmp-mibs-downloader and
# libsmi's own MIB collection.
mibenv_ietf_dirs() {
    echo "${IETF_MIBDIR:-}" "${NETSNMP_MIBDIR:-}" \
        /usr/share/snmp/mibs /usr/share/snmp/mibs/ietf \
        /usr/share/snmp/mibs/iana /var/lib/mibs/ietf /var/lib/mibs/iana \
        /var/lib/snmp/mibs/ietf /var/lib/snmp/mibs/iana \
        /usr/share/mibs/ietf /usr/share/mibs/iana \
        /usr/local/share/mibs/ietf /usr/local/share/mibs/iana
}

# A real IF-MIB if there is one (it also needs IANAifType-MIB; SNMPv2-MIB,
# its third import, comes from erlang-snmp), else the stand-in.
mibenv_ifmib() {
    stubpath=
    if [ -e "$tmpdir/IF-MIB" ] && [ -e "$tmpdir/IANAifType-MIB" ]; then
        ifmib_source=$erlmibdir/IF-MIB.mib
        return
    fi
    rm -f "$tmpdir/IF-MIB" "$tmpdir/IANAifType-MIB"
    # Word splitting of the directory list is intended.
    # shellcheck disable=SC2046
    if _me_if=$(mibenv_find_module IF-MIB $(mibenv_ietf_dirs)) &&
       _me_iana=$(mibenv_find_module IANAifType-MIB \
                  "$(dirname -- "$_me_if")" $(mibenv_ietf_dirs)); then
        ln -s "$_me_if" "$tmpdir/IF-MIB"
        ln -s "$_me_iana" "$tmpdir/IANAifType-MIB"
        ifmib_source=$_me_if
        return
    fi
    if [ ! -f "$stubdir/IF-MIB" ]; then
        echo "$(basename -- "$0"): no IF-MIB found and stand-in" \
             "$stubdir/IF-MIB missing" >&2
        exit 2
    fi
    stubpath=:$stubdir
    ifmib_source=stub
}
