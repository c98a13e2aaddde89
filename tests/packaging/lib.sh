# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154  # (names for the tests; their top_srcdir)
# Shared by the package tests (install.sh, upgrade.sh): sourced, not run.
#
# TAP-like results (ok, skipped, finish), the conditions under which a
# test may install and purge the package on this machine (pkg_preflight:
# root, dpkg-buildpackage and the build dependencies, nothing of the
# package there already, one run at a time), the simulated fabric's
# tools, and what a purge must leave (pkg_contents, pkg_check_purged).
# The caller sets top_srcdir and defines nothing of these names.

PKG=ibsnmpgw
GW=/usr/sbin/ibsnmpgw
CONF=/etc/ibsnmpgw/ibsnmpgw.yaml
STATE=/var/lib/ibsnmpgw

skip() { echo "SKIP: $*"; exit 77; }

n=0 pass=0 fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1)); echo "ok $n - $2"
	else
		fail=$((fail + 1)); echo "not ok $n - $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/#   /'
	fi
	return 0
}
skipped() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1 # SKIP $2"; }

finish() {
	echo "$pass passed, $fail failed"
	[ $fail = 0 ]
	exit
}

# Whether package $1 is installed, or removed but not purged.
pkg_present() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -v "not-installed" >/dev/null
}

# Skips (exit 77) unless this machine may have the package installed and
# purged by the test, then takes the lock that serialises the package
# tests (fd 8: the test's children must not keep it, 8>&-).
pkg_preflight() {
	local out p g
	[ "$(id -u)" = 0 ] || skip "not root"
	command -v dpkg-buildpackage >/dev/null || skip "no dpkg-buildpackage (apt-get install dpkg-dev debhelper)"
	command -v dpkg >/dev/null || skip "no dpkg"
	out=$(dpkg-checkbuilddeps "$top_srcdir/packaging/debian/control" 2>&1) ||
		skip "build dependencies missing: ${out#*: }"

	# One run at a time on this machine (the package and user are global).
	lock=/tmp/ibsnmpgw-install-test.lock
	exec 8>>"$lock" || skip "cannot open $lock"
	flock -w 900 8 || skip "another install test holds $lock"

	for p in "$PKG" ibsnmp-tunneld; do
		pkg_present "$p" && skip "package $p is already installed or not purged; not touching it"
	done
	for p in /etc/ibsnmpgw "$STATE"; do
		[ -e "$p" ] && skip "$p exists already; purging the test package would remove it"
	done
	getent passwd ibsnmpgw >/dev/null && skip "user ibsnmpgw exists already"
	for g in ibsnmpgw ibsnmpgw-umad; do
		getent group "$g" >/dev/null && skip "group $g exists already"
	done
	dpkg-statoverride --list "$CONF" >/dev/null 2>&1 && skip "a statoverride for $CONF exists already"
	return 0
}

# Paths named *ibsnmpgw* in the system directories, to find leftovers.
pkg_sweep() {
	local d dirs=(/etc /var/lib /var/log /var/cache /usr /run)
	[ -L /lib ] || dirs+=(/lib)
	for d in "${dirs[@]}"; do
		[ -d "$d" ] || continue
		find "$d" -xdev -name '*ibsnmpgw*' -print 2>/dev/null
	done | sort
}

# What the simulated fabric needs and is missing into sim_need (empty:
# nothing), the preload library into umad2sim.
pkg_sim_check() {
	local p f
	sim_need=""
	for p in ibsim opensm snmpget python3; do
		command -v $p >/dev/null || sim_need="$sim_need $p"
	done
	umad2sim=${UMAD2SIM:-}
	for f in /usr/lib/*/umad2sim/libumad2sim.so /usr/lib/umad2sim/libumad2sim.so \
		/usr/lib64/umad2sim/libumad2sim.so; do
		[ -z "$umad2sim" ] && [ -r "$f" ] && umad2sim=$f
	done
	[ -n "$umad2sim" ] || sim_need="$sim_need libumad2sim(ibsim-utils)"
}

# The paths of the .debs $2... into $1/contents, those that exist before
# they are installed (shared directories such as /usr/share/snmp/mibs)
# into $1/preexisting, the others into $1/new. One ok line: no file of
# the package exists already; returns 1 if one does.
pkg_contents() {
	local dir=$1 deb p clash=""
	shift
	for deb in "$@"; do
		dpkg-deb --fsys-tarfile "$deb" | tar -tf -
	done | sed 's#^\./#/#; s#/$##' |
		grep -v '^$' | grep -v '^/\.\?$' | sort -u > "$dir/contents"
	: > "$dir/preexisting"
	while IFS= read -r p; do
		if [ -e "$p" ] || [ -L "$p" ]; then echo "$p" >> "$dir/preexisting"; fi
	done < "$dir/contents"
	grep -vxF -f "$dir/preexisting" "$dir/contents" | grep -v '/$' > "$dir/new" || true
	# A non-directory that exists already would be overwritten: not ours.
	while IFS= read -r p; do
		[ -d "$p" ] || clash="$clash $p"
	done < "$dir/preexisting"
	[ -z "$clash" ]
	ok $? "no file of the package exists before installation" "$clash"
	[ -z "$clash" ]
}

# After dpkg --purge: ok lines for what must be gone. $1: the package's
# `dpkg -L` as installed, $2: pkg_contents' directory.
pkg_check_purged() {
	local list=$1 dir=$2 p left="" gone=""
	while IFS= read -r p; do
		[ "$p" = /. ] && continue
		if grep -qxF -- "$p" "$dir/preexisting"; then
			# shared directories that were there before stay
			[ -d "$p" ] || gone="$gone $p"
		elif [ -e "$p" ] || [ -L "$p" ]; then
			left="$left $p"
		fi
	done < "$list"
	[ -z "$left" ]
	ok $? "no file or directory of the package is left ($(wc -l < "$dir/new") new paths checked)" "left:$left"
	[ -z "$gone" ]
	ok $? "directories that existed before the installation are still there" "gone:$gone"

	[ ! -e /etc/ibsnmpgw ]
	ok $? "/etc/ibsnmpgw is gone" "$(ls -la /etc/ibsnmpgw 2>&1)"
	[ ! -e "$STATE" ]
	ok $? "$STATE is gone" "$(ls -la "$STATE" 2>&1)"
	! getent passwd ibsnmpgw >/dev/null
	ok $? "user ibsnmpgw is gone" "$(getent passwd ibsnmpgw)"
	! getent group ibsnmpgw >/dev/null && ! getent group ibsnmpgw-umad >/dev/null
	ok $? "groups ibsnmpgw and ibsnmpgw-umad are gone" "$(getent group ibsnmpgw ibsnmpgw-umad)"
	! dpkg-statoverride --list "$CONF" >/dev/null 2>&1
	ok $? "the statoverride of $CONF is gone"
}

# dpkg --purge $1, if this run installed it and it is still there.
pkg_purge_quietly() {
	pkg_present "$1" || return 0
	echo "# cleanup: purging $1"
	DEBIAN_FRONTEND=noninteractive dpkg --purge "$1" >/dev/null 2>&1 ||
		echo "# cleanup: dpkg --purge $1 failed"
}
