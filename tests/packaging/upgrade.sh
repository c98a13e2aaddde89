#!/bin/bash
# Upgrade test of the Debian package (issue 23, part 3; docs/upgrades.md).
#
# Builds the previous release's package from the commit its changelog
# entry names ("Release commit: HASH", git archive) and this tree's;
# installs the previous release and runs its daemon as the service
# would (user ibsnmpgw, /var/lib/ibsnmpgw/inventory.db) on the simulated
# fabric, counters polled every second; upgrades with dpkg -i and checks
# that the service restarted once, that every counter served is equal
# or higher, the nodes the same, the schema migrated with a copy; makes
# events with informs waiting and reinstalls (the upgrade path, one more
# restart): the event history and the inform queue are back; a database
# of a newer schema makes dpkg refuse the package, and a downgrade past
# the database's schema fails with a clear message, the database
# byte-identical either way; the purge leaves nothing.
#
# The service manager is tests/packaging/fake-systemd: dpkg runs in a
# mount namespace of its own where /run/systemd/system exists, with
# systemctl and deb-systemd-invoke replaced on PATH, so the maintainer
# scripts' calls are recorded and carried out on the test's gateway.
#
# Runs only as root on Debian with dpkg-buildpackage and the build
# dependencies, the simulated fabric (ibsim, opensm, ibsim-utils, snmp),
# from a git work tree whose history has the previous release's commit;
# otherwise exits 77 (skip). The same conditions and lock as install.sh.
#
# Output: TAP-like "ok N - ..." / "not ok N - ..." lines, then
# "N passed, M failed"; exit status 1 on any failure.
set -u
set -o pipefail

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd -P)}
top_srcdir=$(cd "$top_srcdir" && pwd -P)
# shellcheck source=tests/packaging/lib.sh
. "$top_srcdir/tests/packaging/lib.sh"
SIM=$top_srcdir/tests/sim/ibsnmpgw-sim
FAKE=$top_srcdir/tests/packaging/fake-systemd
DB=$STATE/inventory.db
CL=$top_srcdir/packaging/debian/changelog
T0=$(date +%s)
# The schema this tree writes, and one above it (a later release's).
SV=$(sed -n 's/^#define STORE_SCHEMA_VERSION[[:space:]]*//p' "$top_srcdir/store/schema.h")
SV_NEXT=$((SV + 1))

# The previous release comes from git history: not from a release
# tarball (make distcheck), which may sit inside some other work tree.
gittop=$(git -C "$top_srcdir" rev-parse --show-toplevel 2>/dev/null) || gittop=""
if [ -z "$gittop" ] || [ "$(cd "$gittop" && pwd -P)" != "$top_srcdir" ]; then
	skip "$top_srcdir is not a git work tree (a release tarball?): the previous release is built from git history"
fi
command -v dpkg-parsechangelog >/dev/null || skip "no dpkg-parsechangelog (dpkg-dev)"
new_version=$(dpkg-parsechangelog -l "$CL" -S Version)
prev_version=$(dpkg-parsechangelog -l "$CL" --offset 1 --count 1 -S Version)
[ -n "$prev_version" ] || skip "packaging/debian/changelog names no earlier release"
prev_commit=$(dpkg-parsechangelog -l "$CL" --offset 1 --count 1 -S Changes |
	sed -n 's/^ *\* Release commit: \([0-9a-f]\{40\}\)$/\1/p')
if [ -z "$prev_commit" ]; then
	echo "not ok 1 - the changelog entry of $prev_version names its commit ('* Release commit: <full hash>', docs/upgrades.md)"
	echo "0 passed, 1 failed"
	exit 1
fi
git -C "$top_srcdir" cat-file -e "$prev_commit^{commit}" 2>/dev/null ||
	skip "commit $prev_commit of $prev_version is not in this clone's history (a shallow clone?)"
pkg_sim_check
[ -z "$sim_need" ] || skip "the simulated fabric needs:$sim_need"
for p in setpriv runuser unshare snmpbulkwalk sha256sum; do
	command -v $p >/dev/null || skip "no $p"
done

pkg_preflight

tmp=$(mktemp -d /tmp/ibsnmpgw-upgrade-test.XXXXXX) || exit 99
sim=$tmp/sim unit=$tmp/unit run=$tmp/run
mkdir -p "$unit" "$tmp/bin" "$tmp/prev" "$tmp/c"
installed=0 sim_started=0

# shellcheck disable=SC2317  # (called from the EXIT trap)
cleanup() {
	set +e
	[ -f "$unit/pid" ] && "$FAKE" "$unit" stop
	[ "$sim_started" = 1 ] && "$SIM" stop "$sim" >/dev/null 2>&1
	[ "$installed" = 1 ] && pkg_purge_quietly "$PKG"
	rm -rf -- "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

pkg_sweep > "$tmp/sweep.before"

# ---- helpers

status() { dpkg-query -W -f='${Status} ${Version}' "$PKG" 2>/dev/null; }

# dpkg where the maintainer scripts find a systemd: /run/systemd/system
# exists (a tmpfs over /run/systemd in a mount namespace of their own)
# and systemctl and deb-systemd-invoke are fake-systemd's.
dpkg_systemd() {
	PATH="$tmp/bin:$PATH" unshare --mount --propagation private -- \
		sh -c 'mount -t tmpfs -o mode=0755 ibsnmpgw-test /run/systemd &&
			mkdir /run/systemd/system && exec "$@"' sh \
		env DEBIAN_FRONTEND=noninteractive dpkg "$@" < /dev/null
}

# How many times the maintainer scripts started, stopped and restarted
# the service since calls was emptied: "restart start stop".
service_calls() {
	local v r=0 s=0 t=0
	while read -r _ v; do
		case $v in
		"restart ibsnmpgw.service"|"try-restart ibsnmpgw.service") r=$((r + 1)) ;;
		"start ibsnmpgw.service") s=$((s + 1)) ;;
		"stop ibsnmpgw.service") t=$((t + 1)) ;;
		esac
	done < <(sed "s/'//g; s/--[a-z-]* //g" "$unit/calls")
	echo "$r $s $t"
}

gw_pid() { cat "$unit/pid" 2>/dev/null; }
pid_alive() {	# (a zombie is gone)
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[ "${st%% *}" != Z ]
}

# dpkg -i $1 into out and rc, the service manager played by
# fake-systemd; without a mount namespace (ns=0), the test restarts the
# service itself after a successful dpkg, as the postinst would ask.
dpkg_i() {
	if [ $ns = 1 ]; then
		out=$(dpkg_systemd -i "$1" 2>&1)
		rc=$?
	else
		out=$(DEBIAN_FRONTEND=noninteractive dpkg -i "$1" < /dev/null 2>&1)
		rc=$?
		[ $rc = 0 ] && "$FAKE" "$unit" restart
	fi
	return 0
}
starts() { grep -c ' ibsnmpgw [0-9][^ ]* starting$' "$unit/log"; }

# Wait (up to $3 s) for the gateway's log to have $2 lines matching $1.
wait_log() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		[ "$(grep -c -- "$1" "$unit/log")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

walk() {	# CONTEXT OID: "OID value" lines
	snmpbulkwalk -v2c -c "public@$1" -On -Oq -t 5 -r 1 "$ep" "$2" 2>/dev/null
}

# Every node's context name, from ibsnmpgwNodeContext.
node_names() {
	walk fabric .1.3.6.1.4.1.8072.9999.9999.117.5.1.1.2 |
		sed 's/^[^ ]* //; s/"//g' | sort
}

# The nodes as served (fabric context): "INDEX GUID DESCRIPTION" from
# ibsnmpgwNodeGuid and ibsnmpgwNodeDescription.
node_table() {
	local e=.1.3.6.1.4.1.8072.9999.9999.117.5.1.1
	{ walk fabric $e.3 | sed 's/^/G /'; walk fabric $e.5 | sed 's/^/D /'; } |
		awk '{	n = split($2, o, "."); t = $1; $1 = $2 = ""
			if (t == "G") g[o[n]] = substr($0, 3); else d[o[n]] = substr($0, 3) }
		END { for (i in g) print i, g[i], d[i] }' | sort -n
}

# "NODE OID VALUE": ifHCInOctets, ifHCInUcastPkts, ifHCOutOctets,
# ifHCOutUcastPkts, ifInErrors, ifOutDiscards of every port of every
# node.
COLS=".1.3.6.1.2.1.31.1.1.1.6 .1.3.6.1.2.1.31.1.1.1.7 .1.3.6.1.2.1.31.1.1.1.10
.1.3.6.1.2.1.31.1.1.1.11 .1.3.6.1.2.1.2.2.1.14 .1.3.6.1.2.1.2.2.1.19"
counters() {
	local node col
	for node in $nodes; do
		for col in $COLS; do
			walk "$node" "$col" | sed "s/^/$node /"
		done
	done | sort
}

# Each counter of $1 again in $2, and not lower (decimal strings of any
# length). Prints the problems; the counts go to $tmp/cmp.
counters_cmp() {
	awk -v out="$tmp/cmp" '
		function ge(a, b) {
			if (length(a) != length(b)) return length(a) > length(b)
			return a >= b
		}
		NR == FNR { was[$1 " " $2] = $3; next }
		($1 " " $2) in was {
			k = $1 " " $2; n++
			if (!ge($3, was[k])) print "lower: " k " " was[k] " -> " $3
			else if ($3 != was[k]) up++
			delete was[k]
		}
		END {
			for (k in was) print "not served any more: " k
			print n + 0, up + 0 > out
		}' "$1" "$2"
}

# ifInErrors.1 of node03 (PortRcvErrors of its port 1, ibsim's console
# sets it).
in_errors() {
	snmpget -v2c -c public@node03 -Oqv -t 5 -r 1 "$ep" .1.3.6.1.2.1.2.2.1.14.1 2>&1
}
rcv_errors() {
	"$SIM" cmd "$sim" "PerformanceSet \"node03\"[1] PortCounters.PortRcvErrors=$1" &&
		sleep 3	# > polling interval + TTL (1 s each)
}

ctl() { "$GW" -c "$run/gw.yaml" ctl "$@" 2>&1; }

# SQL on database $1 as the service user (whose files SQLite may create
# next to it), one line per row. $3: "ro" (the daemon's -wal and -shm
# exist: nothing is created), "immutable" (no daemon, a file alone) or
# "rw".
sql() {
	(cd / && runuser -u ibsnmpgw -- python3 -c 'import sqlite3, sys
path, q, mode = sys.argv[1:4]
if mode == "rw":
    c = sqlite3.connect(path)
else:
    c = sqlite3.connect("file:%s?%s" % (path, "mode=ro" if mode == "ro"
                                        else "immutable=1"), uri=True)
for r in c.execute(q):
    print(" ".join(str(x) for x in r))
c.commit()
c.close()' "$1" "$2" "$3")
}

state_listing() { (cd "$STATE" && find . -printf '%p %s %u %m\n' | sort); }

# 1. both packages ----------------------------------------------------------
t=$(date +%s)
git -C "$top_srcdir" archive --prefix=src/ "$prev_commit" | tar -x -C "$tmp/prev" &&
prev_deb=$(bash "$tmp/prev/src/packaging/build-deb.sh" "$tmp/prev/out" \
	2> "$tmp/prev-build.log" | tail -n 1)
[ -n "${prev_deb:-}" ] && [ -f "$prev_deb" ] &&
	[ "$(dpkg-deb -f "$prev_deb" Version)" = "$prev_version" ]
ok $? "the $prev_version package builds from git archive of ${prev_commit:0:12} (${prev_deb##*/}, $(($(date +%s) - t)) s)" \
	"$(tail -n 25 "$tmp/prev-build.log")"
t=$(date +%s)
deb=$("$top_srcdir/packaging/build-deb.sh" "$tmp/out" 2> "$tmp/build.log" | tail -n 1)
[ -n "$deb" ] && [ -f "$deb" ] && [ "$(dpkg-deb -f "$deb" Version)" = "$new_version" ] &&
	dpkg --compare-versions "$new_version" gt "$prev_version"
ok $? "the $new_version package builds from this tree (${deb##*/}, $(($(date +%s) - t)) s), newer than $prev_version" \
	"$(tail -n 25 "$tmp/build.log")"
if [ ! -f "${prev_deb:-}" ] || [ ! -f "$deb" ]; then finish; fi
pkg_contents "$tmp/c" "$prev_deb" "$deb" || finish

# 2. the previous release, running ------------------------------------------
installed=1
out=$(DEBIAN_FRONTEND=noninteractive dpkg -i "$prev_deb" < /dev/null 2>&1)
st=$(status)
[ "$st" = "install ok installed $prev_version" ]
ok $? "dpkg -i installs $prev_version ($st)" "$out"
[ "$st" = "install ok installed $prev_version" ] || finish
dpkg -L "$PKG" > "$tmp/dpkg-L"

# The fabric, and the gateway as the unit runs it: user ibsnmpgw, the
# package's state directory; counters polled every second; an inform
# target that never answers, so that informs wait.
cat > "$tmp/extra.yaml" <<-EOF
	cache:
	  ttl:
	    counters: 1
	polling:
	  - name: all
	    groups: [counters]
	    interval: 1
	    ttl: 1
	notify:
	  targets:
	    - name: nms
	      address: "udp:127.0.0.1:9"
	      type: inform
	      community: public
	      timeout-ms: 200
	      retries: 0
EOF
chmod 711 "$tmp"
sim_started=1
if ! "$SIM" start "$top_srcdir/tests/sim/topologies/fabric.topo" "$sim" \
	--no-gateway --extra-yaml "$tmp/extra.yaml" > "$tmp/sim.info" 2> "$tmp/sim.err" 8>&-; then
	ok 1 "the simulated fabric starts" "$(cat "$tmp/sim.err")"
	finish
fi
ep=$(sed -n 's/^endpoint: //p' "$tmp/sim.info")
mkdir -m 0750 "$run" && chown ibsnmpgw:ibsnmpgw "$run"
sed "s|^  path: .*|  path: \"$DB\"|" "$sim/ibsnmpgw.yaml" > "$run/gw.yaml"
chown root:ibsnmpgw "$run/gw.yaml" && chmod 0640 "$run/gw.yaml"
cat > "$unit/exec" <<-EOF
	#!/bin/sh
	# ExecStart, and what the simulated fabric needs (tests/sim/README.md)
	cd "$run" || exit 1
	exec setpriv --reuid=ibsnmpgw --regid=ibsnmpgw --init-groups \\
	    env IBSIM_SOCKNAME=$(cat "$sim/socket") SIM_HOST=$(sed -n 's/^gw-host: //p' "$tmp/sim.info") \\
	    LD_PRELOAD=$umad2sim $GW -f -c "$run/gw.yaml"
EOF
chmod 755 "$unit/exec"
: > "$unit/log"
: > "$unit/calls"
ln -s "$FAKE" "$tmp/bin/systemctl"
ln -s "$FAKE" "$tmp/bin/deb-systemd-invoke"

"$FAKE" "$unit" start && wait_log "sweep 1 done" 1 60
ok $? "the $prev_version daemon runs as the service would, on $DB" "$(tail -n 15 "$unit/log")"
pid=$(gw_pid)
[ "$(stat -c %U "/proc/$pid" 2>/dev/null)" = ibsnmpgw ] &&
	[ "$(readlink "/proc/$pid/exe")" = "$GW" ]
ok $? "it is $GW as user ibsnmpgw (pid $pid)"

rcv_errors 100
nodes=$(node_names)
counters > "$tmp/counters.before"
node_table > "$tmp/nodes.before"
[ "$(echo "$nodes" | wc -w)" = 14 ] && [ -s "$tmp/counters.before" ] &&
	[ "$(in_errors)" = 100 ]
ok $? "it serves 14 nodes and $(wc -l < "$tmp/counters.before") port counters (node03 ifInErrors.1 = 100)" \
	"$(echo "$nodes" | tr '\n' ' '; head -n 5 "$tmp/counters.before")"

# 3. the upgrade ------------------------------------------------------------
ns=1
if ! dpkg_systemd --version >/dev/null 2>&1; then
	ns=0
	echo "# no mount namespace here: the test restarts the service itself"
fi
pid_before=$(gw_pid) starts_before=$(starts)
: > "$unit/calls"
dpkg_i "$deb"
st=$(status)
[ $rc = 0 ] && [ "$st" = "install ok installed $new_version" ]
ok $? "dpkg -i upgrades $prev_version to $new_version ($st)" "$out"
dpkg -L "$PKG" >> "$tmp/dpkg-L"

calls=$(service_calls)
if [ $ns = 1 ]; then
	[ "$calls" = "1 0 0" ]
	ok $? "the maintainer scripts restarted the service once, no other start or stop (restart start stop: $calls)" \
		"$(cat "$unit/calls")"
else
	skipped "the maintainer scripts restarted the service once" "unshare --mount does not work here"
fi
pid=$(gw_pid)
[ -n "$pid" ] && [ "$pid" != "$pid_before" ] && ! pid_alive "$pid_before" &&
	[ "$(readlink "/proc/$pid/exe")" = "$GW" ] &&
	[ "$(starts)" = $((starts_before + 1)) ] &&
	[ "$(grep -c " ibsnmpgw $new_version starting$" "$unit/log")" = 1 ]
ok $? "one new gateway process ($pid_before -> $pid), one 'ibsnmpgw $new_version starting', the old process gone" \
	"$(grep ' starting$\|shutting down\|stopped$' "$unit/log")"

wait_log "sweep 1 done" 2 60
out=$("$GW" -c "$run/gw.yaml" schema 2>&1)
bak=$DB.schema6.bak
printf '%s\n' "$out" | grep -qx "schema $SV" &&
	printf '%s\n' "$out" | grep -qx "previous-release $prev_version" &&
	printf '%s\n' "$out" | grep -qx "migrated-from 6" &&
	printf '%s\n' "$out" | grep -qx "backup $bak" &&
	grep -q "written by ibsnmpgw $prev_version (schema 6), migrated to schema $SV; the schema-6 copy is $bak" "$unit/log"
ok $? "the database is at schema $SV, migrated from 6 after $prev_version, and says so in the log" "$out"
v=$(sql "$bak" "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM nodes), (SELECT count(*) FROM counters)" immutable 2>&1)
[ "$(stat -c %U "$bak")" = ibsnmpgw ] && [ "${v%% *}" = 6 ] && [ "$(echo "$v" | cut -d' ' -f2)" = 14 ]
ok $? "the copy taken before the migration is the schema-6 database ($bak: schema, nodes, accumulators: $v)"

counters > "$tmp/counters.after"
node_table > "$tmp/nodes.after"
problems=$(counters_cmp "$tmp/counters.before" "$tmp/counters.after")
read -r compared higher < "$tmp/cmp"
[ -z "$problems" ] && [ "$compared" = "$(wc -l < "$tmp/counters.before")" ]
ok $? "every counter served before is served, equal or higher ($compared compared, $higher higher)" "$problems"
# (By GUID and description: 0.1.0 kept no index, docs/upgrades.md.)
[ "$(wc -l < "$tmp/nodes.before")" = 14 ] &&
	cmp -s <(cut -d' ' -f2- "$tmp/nodes.before" | sort) <(cut -d' ' -f2- "$tmp/nodes.after" | sort)
ok $? "the same 14 nodes, GUIDs and descriptions (ibsnmpgwNodeTable)" \
	"$(diff "$tmp/nodes.before" "$tmp/nodes.after")"
rcv_errors 30
v=$(in_errors)
[ "$v" = 130 ]
ok $? "node03 ifInErrors.1 counts on from the accumulator the upgrade kept (100, counter reset to 30: $v)"

# 4. the event history and the inform queue, across one more restart ------
"$SIM" cmd "$sim" 'Unlink "node05"' && ctl sweep >/dev/null && sleep 3
"$SIM" cmd "$sim" 'ReLink "node05"' && ctl sweep >/dev/null && sleep 3
ctl events | tail -n +2 > "$tmp/events.before"
node_table > "$tmp/nodes.before"
queued=$(ctl targets | sed -n 's/^nms .* queued \([0-9]*\) .*/\1/p')
sql "$DB" "SELECT seq FROM notify_queue WHERE target = 'nms' ORDER BY seq" ro > "$tmp/queue.before"
walk fabric .1.3.6.1.4.1.8072.9999.9999.117.6.1.1.8 > "$tmp/evtable.before"
[ "$(wc -l < "$tmp/events.before")" -ge 3 ] && [ "${queued:-0}" -ge 3 ] &&
	[ "$(wc -l < "$tmp/queue.before")" = "$queued" ]
ok $? "events after Unlink and ReLink of node05: $(wc -l < "$tmp/events.before") kept, $queued informs waiting for nms" \
	"$(cat "$tmp/events.before"; ctl targets)"

pid_before=$(gw_pid)
: > "$unit/calls"
dpkg_i "$deb"
calls=$(service_calls)
[ $rc = 0 ] && [ "$(status)" = "install ok installed $new_version" ] &&
	{ [ $ns = 0 ] || [ "$calls" = "1 0 0" ]; } && [ "$(gw_pid)" != "$pid_before" ]
ok $? "dpkg -i of $new_version again: the upgrade path, one restart (restart start stop: $calls)" \
	"$out$(cat "$unit/calls")"
wait_log "sweep 1 done" 3 60
ctl events | tail -n +2 > "$tmp/events.after"
walk fabric .1.3.6.1.4.1.8072.9999.9999.117.6.1.1.8 > "$tmp/evtable.after"
missing=$(comm -23 <(sort "$tmp/events.before") <(sort "$tmp/events.after"))
last=$(tail -n 1 "$tmp/events.before" | cut -d' ' -f2)
next=$(grep " gateway gateway-start " "$tmp/events.after" | tail -n 1 | cut -d' ' -f2)
[ -z "$missing" ] && [ "$next" = $((last + 1)) ] &&
	[ -z "$(comm -23 <(sort "$tmp/evtable.before") <(sort "$tmp/evtable.after"))" ]
ok $? "the event history is back, numbers and times included (ctl events, ibsnmpgwEventTable); the restart's event is number $next" \
	"missing:$missing
after: $(cat "$tmp/events.after")"
grep -q "notify: target nms: $queued informs waiting from before the restart" "$unit/log" &&
	sql "$DB" "SELECT seq FROM notify_queue WHERE target = 'nms' ORDER BY seq" ro > "$tmp/queue.after" &&
	[ -z "$(comm -23 "$tmp/queue.before" "$tmp/queue.after")" ]
ok $? "the $queued informs waiting for nms are waiting again" \
	"$(grep 'notify:' "$unit/log" | tail -n 3; ctl targets)"
node_table > "$tmp/nodes.after"
[ "$(wc -l < "$tmp/nodes.before")" = 14 ] && cmp -s "$tmp/nodes.before" "$tmp/nodes.after"
ok $? "the same nodes at the same indexes (ibsnmpgwNodeIndex)" \
	"$(diff "$tmp/nodes.before" "$tmp/nodes.after")"

# 5. a database newer than the package --------------------------------------
"$FAKE" "$unit" stop
sql "$DB" "PRAGMA user_version = $SV_NEXT" rw
sum=$(sha256sum < "$DB")
out=$(DEBIAN_FRONTEND=noninteractive dpkg -i "$deb" < /dev/null 2>&1)
rc=$?
[ $rc != 0 ] && [ "$(status)" = "install ok installed $new_version" ] &&
	printf '%s\n' "$out" | grep -q "has schema $SV_NEXT; ibsnmpgw $new_version reads schema $SV at most" &&
	[ "$(sha256sum < "$DB")" = "$sum" ]
ok $? "a database of schema $SV_NEXT: dpkg refuses $new_version (preinst), the database byte-identical" "$out"
sql "$DB" "PRAGMA user_version = $SV" rw

# 6. the downgrade -----------------------------------------------------------
# With the daemon stopped, so that nothing else writes the database.
sum=$(sha256sum < "$DB")
state_listing > "$tmp/state.before"
starts_before=$(starts)
: > "$unit/calls"
dpkg_i "$prev_deb"
st=$(status)
printf '%s\n' "$out" | grep -q "ibsnmpgw $prev_version reads schema 6 at most and would refuse it" &&
	printf '%s\n' "$out" | grep -q "refusing to downgrade to $prev_version; the database is left untouched"
ok $? "dpkg -i $prev_version: the prerm says why the database cannot go back" "$out"
printf '%s\n' "$out" | grep '^ibsnmpgw: \|^dpkg: ' | sed 's/^/#   /'
case $st in
"install ok installed $prev_version")
	# dpkg went on: 0.1.0's prerm lets failed-upgrade pass. Its daemon
	# (the postinst's restart) must refuse the database.
	grep -q "schema version $SV is newer than this release supports (6)" "$unit/log" &&
		[ "$(starts)" = $((starts_before + 1)) ] && ! "$FAKE" "$unit" is-active
	ok $? "dpkg went on to $prev_version (its prerm lets a failed-upgrade pass); its daemon refused the database and exited" \
		"$(tail -n 5 "$unit/log")" ;;
*)
	[ $rc != 0 ] && [ "$st" = "install ok installed $new_version" ]
	ok $? "dpkg refused the downgrade; $new_version stays installed ($st)" ;;
esac
dpkg -L "$PKG" >> "$tmp/dpkg-L"
[ "$(sha256sum < "$DB")" = "$sum" ] && state_listing | cmp -s - "$tmp/state.before"
ok $? "the database is byte-identical (sha256) and nothing in $STATE changed" \
	"$(state_listing | diff "$tmp/state.before" -)"

# 7. purge --------------------------------------------------------------------
"$FAKE" "$unit" stop
"$SIM" stop "$sim" >/dev/null 2>&1
sim_started=0
out=$(DEBIAN_FRONTEND=noninteractive dpkg --purge "$PKG" < /dev/null 2>&1)
rc=$?
st=$(status)
[ $rc = 0 ] && { [ -z "$st" ] || [ "${st% *}" = "unknown ok not-installed" ]; }
ok $? "dpkg --purge removes the package (${st:-no record})" "$out"
[ $rc = 0 ] && installed=0
sort -u -o "$tmp/dpkg-L" "$tmp/dpkg-L"
pkg_check_purged "$tmp/dpkg-L" "$tmp/c"
pkg_sweep > "$tmp/sweep.after"
extra=$(comm -13 "$tmp/sweep.before" "$tmp/sweep.after")
[ -z "$extra" ]
ok $? "no path named *ibsnmpgw* appeared in /etc, /var, /usr, /run" "$extra"

echo "# $(($(date +%s) - T0)) s"
finish
