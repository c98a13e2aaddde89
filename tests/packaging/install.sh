#!/bin/bash
# Install test of the Debian package: build the .deb from this tree,
# install it, check what it installed, run the installed daemon on the
# simulated fabric, purge it, and check that nothing of it is left.
#
# Runs only as root on a Debian system with dpkg-buildpackage (and the
# build dependencies), from a git work tree; otherwise exits 77 (skip).
# It refuses (skip) to run when ibsnmpgw is installed already, or when
# anything the package would create or its purge would delete exists
# already (user, groups, /etc/ibsnmpgw, /var/lib/ibsnmpgw): it only ever
# removes what it installed itself.  Runs of this test on one machine are
# serialised with a lock.  The steps that need the simulated fabric
# (ibsim, opensm, ibsim-utils, snmp) are skipped when it is not
# available.
#
# Output: TAP-like "ok N - ..." / "not ok N - ..." lines, then
# "N passed, M failed"; exit status 1 on any failure.
set -u
set -o pipefail

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd -P)}
top_srcdir=$(cd "$top_srcdir" && pwd -P)
# shellcheck source=tests/packaging/lib.sh
. "$top_srcdir/tests/packaging/lib.sh"
MIBDIR=/usr/share/snmp/mibs
MIBS="IB-TC-MIB IB-SMA-MIB IB-IF-MIB IB-SM-MIB IBSNMPGW-MIB"

pkg_preflight

tmp=$(mktemp -d /tmp/ibsnmpgw-install-test.XXXXXX) || exit 99
sim=$tmp/sim
installed=0
t_installed=0
sim_started=0

# shellcheck disable=SC2317  # (called from the EXIT trap)
cleanup() {
	set +e
	if [ "$sim_started" = 1 ]; then
		IBSNMPGW=$GW "$top_srcdir/tests/sim/ibsnmpgw-sim" stop "$sim" >/dev/null 2>&1
	fi
	# Only a package this run installed, and only if still there.
	[ "$installed" = 1 ] && pkg_purge_quietly "$PKG"
	[ "$t_installed" = 1 ] && pkg_purge_quietly ibsnmp-tunneld
	rm -rf -- "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

pkg_sweep > "$tmp/sweep.before"

# 1. build ---------------------------------------------------------------
deb=$("$top_srcdir/packaging/build-deb.sh" "$tmp/out" 2> "$tmp/build.log" | tail -n 1)
[ -n "$deb" ] && [ -f "$deb" ]
ok $? "build-deb.sh builds the package (${deb##*/})" "$(tail -n 25 "$tmp/build.log")"
[ -f "$deb" ] || finish

# lintian: no errors and no warnings on the binary package.
if command -v lintian >/dev/null; then
	out=$(lintian --tag-display-limit 0 "$deb" 2>&1 | grep -E '^[EW]: ')
	[ -z "$out" ]
	ok $? "lintian reports no errors or warnings" "$out"
else
	skipped "lintian" "not installed"
fi

# The RPM (rpmbuild --nodeps: the BuildRequires use Fedora names): it
# builds, and carries the same files, the configuration as %config.
if command -v rpmbuild >/dev/null; then
	rpm=$(bash "$top_srcdir/packaging/build-rpm.sh" "$tmp/rpm" \
	    2> "$tmp/rpm.log" | tail -n 1)
	[ -n "$rpm" ] && [ -f "$rpm" ]
	ok $? "build-rpm.sh builds the RPM (${rpm##*/})" \
	    "$(tail -n 25 "$tmp/rpm.log")"
	# Listed once into a file: `rpm -qlp | grep -q` under pipefail fails
	# whenever grep stops reading before rpm has written every line.
	rpm -qlp "$rpm" > "$tmp/rpm.files" 2>/dev/null
	missing=""
	for f in /usr/sbin/ibsnmpgw /usr/lib/systemd/system/ibsnmpgw.service \
	    /usr/lib/sysusers.d/ibsnmpgw.conf \
	    /usr/lib/udev/rules.d/90-ibsnmpgw-umad.rules \
	    /usr/share/snmp/mibs/IB-TC-MIB /usr/share/snmp/mibs/IB-SMA-MIB \
	    /usr/share/snmp/mibs/IB-IF-MIB /usr/share/snmp/mibs/IB-SM-MIB \
	    /usr/share/snmp/mibs/IBSNMPGW-MIB \
	    /usr/share/man/man8/ibsnmpgw.8 /usr/share/man/man5/ibsnmpgw.yaml.5 \
	    /var/lib/ibsnmpgw; do
		grep -qx -- "$f" "$tmp/rpm.files" ||
		    missing="$missing $f"
	done
	[ -z "$missing" ] &&
	    [ "$(rpm -qcp "$rpm" 2>/dev/null)" = /etc/ibsnmpgw/ibsnmpgw.yaml ]
	ok $? "the RPM has the binary, unit, udev rule, MIBs, man pages and state directory, and ibsnmpgw.yaml as its config file" \
	    "missing:$missing; config: $(rpm -qcp "$rpm" 2>&1)"
	trpm=$(ls "${rpm%/*}"/ibsnmp-tunneld-[0-9]*.rpm 2>/dev/null | head -n 1)
	rpm -qlp "$trpm" > "$tmp/trpm.files" 2>/dev/null
	missing=""
	for f in /usr/sbin/ibsnmp-tunneld \
	    /usr/lib/systemd/system/ibsnmp-tunneld.service \
	    /usr/share/man/man8/ibsnmp-tunneld.8; do
		grep -qx -- "$f" "$tmp/trpm.files" || missing="$missing $f"
	done
	! grep -q ibsnmp-tunneld "$tmp/rpm.files" && [ -z "$missing" ] &&
	    [ "$(rpm -qcp "$trpm" 2>/dev/null)" = /etc/ibsnmpgw/ibsnmp-tunneld.yaml ]
	ok $? "the ibsnmp-tunneld RPM has the agent, its unit and man page, and its config file; the gateway's RPM has none of them" \
	    "${trpm:-no ibsnmp-tunneld RPM}; missing:$missing; config: $(rpm -qcp "$trpm" 2>&1)"
else
	skipped "RPM build" "rpmbuild not installed"
fi

pkg_contents "$tmp" "$deb" || finish

# 2. install -------------------------------------------------------------
installed=1
out=$(DEBIAN_FRONTEND=noninteractive dpkg -i "$deb" < /dev/null 2>&1)
rc=$?
st=$(dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null)
[ $rc = 0 ] && [ "$st" = "install ok installed" ]
ok $? "dpkg -i installs the package ($st)" "$out"
[ "$st" = "install ok installed" ] || finish
dpkg -L "$PKG" | sort > "$tmp/dpkg-L"

# 3. what is in place ----------------------------------------------------
[ -x "$GW" ] && "$GW" -V | grep "^ibsnmpgw [0-9]" >/dev/null
ok $? "$GW is installed and runs ($("$GW" -V 2>&1))"

missing=""
for f in "$CONF" /lib/systemd/system/ibsnmpgw.service \
	/usr/lib/sysusers.d/ibsnmpgw.conf /usr/lib/tmpfiles.d/ibsnmpgw.conf \
	/usr/lib/udev/rules.d/90-ibsnmpgw-umad.rules \
	/usr/share/man/man8/ibsnmpgw.8.gz /usr/share/man/man5/ibsnmpgw.yaml.5.gz \
	/usr/share/doc/ibsnmpgw/copyright \
	/usr/share/doc/ibsnmpgw/examples/keepalived.conf \
	/usr/share/doc/ibsnmpgw/examples/ibsnmpgw-notify; do
	[ -f "$f" ] || missing="$missing $f"
done
for m in $MIBS; do
	[ -f "$MIBDIR/$m" ] || missing="$missing $MIBDIR/$m"
done
[ -z "$missing" ]
ok $? "configuration, unit, sysusers, tmpfiles, udev rule, man pages, MIBs and the keepalived examples are installed" "missing:$missing"

dpkg-query -W -f='${Conffiles}\n' "$PKG" | grep "^ $CONF " >/dev/null
ok $? "$CONF is a conffile"

perm=$(stat -c '%a %U %G' "$CONF" 2>&1)
[ "$perm" = "640 root ibsnmpgw" ]
ok $? "$CONF is mode 640 root:ibsnmpgw ($perm)"

getent passwd ibsnmpgw >/dev/null && id -nG ibsnmpgw | tr ' ' '\n' | grep -x ibsnmpgw-umad >/dev/null
ok $? "system user ibsnmpgw exists and is in group ibsnmpgw-umad ($(id ibsnmpgw 2>&1))"

perm=$(stat -c '%a %U %G' "$STATE" 2>&1)
[ "$perm" = "750 ibsnmpgw ibsnmpgw" ]
ok $? "$STATE is mode 750 ibsnmpgw:ibsnmpgw ($perm)"

out=$(runuser -u ibsnmpgw -- "$GW" -n -c "$CONF" 2>&1)
[ "$out" = "configuration ok" ]
ok $? "the service user can read and check the installed configuration" "$out"

# (Copies: man-db would keep cat pages of files under /usr/share/man in
# /var/cache/man, which the package does not own.)
out=""
for f in /usr/share/man/man8/ibsnmpgw.8.gz /usr/share/man/man5/ibsnmpgw.yaml.5.gz; do
	cp -- "$f" "$tmp/"
	out="$out$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$tmp/${f##*/}" 2>&1 >/dev/null)"
done
[ -z "$out" ]
ok $? "the installed man pages render without warnings" "$out"

# The unit's Documentation= pages, found on the standard manual path.
# (man -w only locates them: formatting them would leave cat pages in
# /var/cache/man, which the package does not own; hence also --man=no.)
out=$(man -w 8 ibsnmpgw 2>&1; man -w 5 ibsnmpgw.yaml 2>&1)
[ "$out" = "$(printf '%s\n' /usr/share/man/man8/ibsnmpgw.8.gz /usr/share/man/man5/ibsnmpgw.yaml.5.gz)" ]
ok $? "man finds ibsnmpgw(8) and ibsnmpgw.yaml(5)" "$out"
if command -v systemd-analyze >/dev/null; then
	out=$(systemd-analyze verify --man=no /lib/systemd/system/ibsnmpgw.service 2>&1)
	rc=$?
	[ $rc = 0 ] && [ -z "$out" ]
	ok $? "systemd-analyze verify accepts the installed unit" "$out"
else
	skipped "systemd-analyze verify accepts the installed unit" "no systemd-analyze"
fi

# 4. the installed daemon on the simulated fabric -------------------------
pkg_sim_check
if [ -n "$sim_need" ]; then
	skipped "installed $GW answers public@leaf01 on the simulated fabric" "missing:$sim_need"
else
	sim_started=1
	# 8>&-: the simulation's daemons must not hold the test's lock.
	if IBSNMPGW=$GW "$top_srcdir/tests/sim/ibsnmpgw-sim" start \
		"$top_srcdir/tests/sim/topologies/fabric.topo" "$sim" \
		> "$tmp/sim.info" 2> "$tmp/sim.err" 8>&-; then
		ep=$(sed -n 's/^endpoint: //p' "$tmp/sim.info")
		val=$(snmpget -v2c -c public@leaf01 -Oqv -t 5 -r 1 "$ep" \
			1.3.6.1.3.117.3.1.1.1.0 2>&1)
		[ "$(printf '%s' "$val" | tr -d '"')" = leaf01 ]
		ok $? "installed $GW answers public@leaf01 ibSmaNodeString.0 = leaf01 ($val)" \
			"$(tail -n 15 "$sim/ibsnmpgw.log" 2>/dev/null)"
		pid=$(awk '$1 == "ibsnmpgw" { print $2 }' "$sim/pids" 2>/dev/null)
		exe=$(readlink "/proc/$pid/exe" 2>/dev/null)
		[ "$exe" = "$GW" ]
		ok $? "the gateway the simulation runs is $GW (${exe:-no process})"
	else
		ok 1 "installed $GW starts on the simulated fabric" \
			"$(cat "$tmp/sim.err"; tail -n 15 "$sim/ibsnmpgw.log" 2>/dev/null)"
	fi
	IBSNMPGW=$GW "$top_srcdir/tests/sim/ibsnmpgw-sim" stop "$sim" > /dev/null 2>&1
	ok $? "the simulation stops"
	sim_started=0
fi

# 5. the MIB modules from /usr/share/snmp/mibs ----------------------------
# IB-SMA-MIB imports the IETF base modules (SNMPv2-SMI, -TC, -CONF), which
# Debian's net-snmp does not ship.  Use them from net-snmp's own search
# path when they are there (snmp-mibs-downloader), else from erlang-snmp
# through a private directory that holds only those: the ibsnmpgw modules
# must come from the installed files either way.
tr_args=() tr_how=""
if [ "$(snmptranslate -On -m SNMPv2-SMI SNMPv2-SMI::enterprises 2>/dev/null)" = .1.3.6.1.4.1 ]; then
	tr_how="IETF base modules on net-snmp's path"
else
	erl=""
	for d in /usr/lib/erlang/lib/snmp-*/mibs; do
		[ -d "$d" ] && erl=$d
	done
	if [ -n "$erl" ] && [ -f "$erl/SNMPv2-SMI.mib" ]; then
		mkdir -p "$tmp/base"
		for m in SNMPv2-SMI SNMPv2-TC SNMPv2-CONF SNMP-FRAMEWORK-MIB; do
			ln -s "$erl/$m.mib" "$tmp/base/$m"
		done
		tr_args=(-M "+$tmp/base")
		tr_how="IETF base modules from erlang-snmp"
	fi
fi
if ! command -v snmptranslate >/dev/null; then
	skipped "snmptranslate resolves the installed MIB modules" "no snmptranslate"
elif [ -z "$tr_how" ]; then
	skipped "snmptranslate resolves the installed MIB modules" \
		"no IETF base modules (SNMPv2-SMI); the files are checked above"
else
	out=$(snmptranslate "${tr_args[@]}" -On -m IB-SMA-MIB \
		IB-SMA-MIB::ibSmaNodeString.0 2> "$tmp/tr.err")
	[ "$out" = .1.3.6.1.3.117.3.1.1.1.0 ]
	ok $? "snmptranslate resolves IB-SMA-MIB::ibSmaNodeString.0 = $out ($tr_how)" \
		"$(head -n 20 "$tmp/tr.err")"
	out=$(snmptranslate "${tr_args[@]}" -On -m IBSNMPGW-MIB \
		IBSNMPGW-MIB::ibsnmpgwMIB 2> "$tmp/tr.err")
	[ "$out" = .1.3.6.1.4.1.8072.9999.9999.117 ]
	ok $? "snmptranslate resolves IBSNMPGW-MIB::ibsnmpgwMIB = $out" \
		"$(head -n 20 "$tmp/tr.err")"
fi

# 6. purge ---------------------------------------------------------------
out=$(DEBIAN_FRONTEND=noninteractive dpkg --purge "$PKG" < /dev/null 2>&1)
rc=$?
st=$(dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null)
[ $rc = 0 ] && { [ -z "$st" ] || [ "$st" = "unknown ok not-installed" ]; }
ok $? "dpkg --purge removes the package (${st:-no record})" "$out"
[ $rc = 0 ] && installed=0

pkg_check_purged "$tmp/dpkg-L" "$tmp"

# 7. ibsnmp-tunneld, the hosts' package -----------------------------------
tdeb=$(ls "${deb%/*}"/ibsnmp-tunneld_*.deb 2>/dev/null | head -n 1)
[ -n "$tdeb" ]
ok $? "build-deb.sh builds ibsnmp-tunneld too (${tdeb##*/})"
if [ -n "$tdeb" ]; then
	if command -v lintian >/dev/null; then
		out=$(lintian --tag-display-limit 0 "$tdeb" 2>&1 | grep -E '^[EW]: ')
		[ -z "$out" ]
		ok $? "lintian reports no errors or warnings on ibsnmp-tunneld" "$out"
	fi
	t_installed=1
	out=$(DEBIAN_FRONTEND=noninteractive dpkg -i "$tdeb" < /dev/null 2>&1)
	st=$(dpkg-query -W -f='${Status}' ibsnmp-tunneld 2>/dev/null)
	[ "$st" = "install ok installed" ]
	ok $? "dpkg -i installs ibsnmp-tunneld ($st)" "$out"
	dpkg -L ibsnmp-tunneld | sort > "$tmp/t-dpkg-L"
	out=$(/usr/sbin/ibsnmp-tunneld -n 2>&1)
	[ "$out" = "configuration ok" ]
	ok $? "the installed ibsnmp-tunneld accepts its default configuration" "$out"
	dpkg-query -W -f='${Conffiles}\n' ibsnmp-tunneld |
		grep "^ /etc/ibsnmpgw/ibsnmp-tunneld.yaml " >/dev/null
	ok $? "/etc/ibsnmpgw/ibsnmp-tunneld.yaml is a conffile"
	[ -f /lib/systemd/system/ibsnmp-tunneld.service ] &&
		[ -f /usr/share/man/man8/ibsnmp-tunneld.8.gz ] &&
		! systemctl is-enabled ibsnmp-tunneld >/dev/null 2>&1
	ok $? "its unit and man page are installed, the unit not enabled"
	if command -v systemd-analyze >/dev/null; then
		out=$(systemd-analyze verify --man=no /lib/systemd/system/ibsnmp-tunneld.service 2>&1)
		rc=$?
		[ $rc = 0 ] && [ -z "$out" ]
		ok $? "systemd-analyze verify accepts the ibsnmp-tunneld unit" "$out"
	fi
	cp -- /usr/share/man/man8/ibsnmp-tunneld.8.gz "$tmp/"
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l \
		"$tmp/ibsnmp-tunneld.8.gz" 2>&1 >/dev/null)
	[ -z "$out" ]
	ok $? "ibsnmp-tunneld(8) renders without warnings" "$out"
	out=$(DEBIAN_FRONTEND=noninteractive dpkg --purge ibsnmp-tunneld < /dev/null 2>&1)
	rc=$?
	[ $rc = 0 ] && t_installed=0
	left=""
	while IFS= read -r p; do
		[ "$p" = /. ] && continue
		grep -qxF -- "$p" "$tmp/preexisting" && continue
		case $p in /usr|/usr/*/|/etc|/lib|/lib/systemd|/lib/systemd/system|/usr/share|/usr/share/doc|/usr/share/man|/usr/share/man/man8|/usr/sbin) continue ;; esac
		if [ -e "$p" ] && [ ! -d "$p" ]; then left="$left $p"; fi
	done < "$tmp/t-dpkg-L"
	[ $rc = 0 ] && [ -z "$left" ] && [ ! -e /etc/ibsnmpgw ]
	ok $? "dpkg --purge removes ibsnmp-tunneld and leaves none of its files" "$out left:$left"
fi

pkg_sweep > "$tmp/sweep.after"
extra=$(comm -13 "$tmp/sweep.before" "$tmp/sweep.after")
[ -z "$extra" ]
ok $? "no path named *ibsnmpgw* appeared in /etc, /var, /usr, /run" "$extra"

finish
