# The pair (--ha) of ibsnmpgw-sim, sourced by it.
# cmd_start's locals (gw_timeout) are seen through bash's dynamic scope.
# shellcheck shell=bash disable=SC2030,SC2031,SC2154

# ---------------------------------------------------------------- the pair (--ha)
#
# Two gateways, gw1 and gw2, each in its own network namespace
# ibgw-<h>-N with one veth into a bridge of the root namespace:
#   bridge ibb<h>   S.1/24  the root namespace: managers, trap sinks, ibsim
#   gw1    ibn<h>1  S.11    in ibgw-<h>-1 (host side of the veth: ibh<h>1)
#   gw2    ibn<h>2  S.12    in ibgw-<h>-2
#   VIP             S.10    keepalived adds it to the master's veth
# S is 10.213.X (X from a hash of DIR, the first one no root-namespace
# address uses), <h> six hex digits of the same hash. DIR/ha.net holds
# the names, DIR/gwN/ each gateway's YAML, store, control socket, log,
# keepalived.conf and keepalived.log. VRRP (unicast) and SNMP: S.1N;
# replication: S.2N:7411, a second address on the same veth, so that
# ha-cut-vrrp can cut VRRP alone (a dedicated replication network, as a
# pair may have).

HA_REPL_PORT=7411

ha_get() { awk -v k="$1" '$1 == k { print $2 }' "$DIR/ha.net" 2>/dev/null; }

# ha_net_up HASH: the namespaces, veths and bridge; DIR/ha.net first, so
# that a failed start removes whatever part was made.
ha_net_up() {
	local h=$1 s="" i x n ns
	for ((i = 0; i < 254; i++)); do
		x=$(( (0x${h:0:4} + i) % 254 + 1 ))
		ip -4 -o addr show 2>/dev/null | grep -q " 10\.213\.$x\." ||
			{ s=10.213.$x; break; }
	done
	[ -n "$s" ] || { warn "no free 10.213.X.0/24 for the pair"; return 1; }
	for n in "ibgw-$h-1" "ibgw-$h-2"; do
		[ -e "/run/netns/$n" ] && { warn "network namespace $n exists (a stale run of $DIR? $PROG stop $DIR)"; return 1; }
	done
	for n in "ibb$h" "ibh${h}1" "ibh${h}2"; do
		[ -e "/sys/class/net/$n" ] && { warn "link $n exists (a stale run of $DIR? $PROG stop $DIR)"; return 1; }
	done
	printf '%s %s\n' subnet "$s" ns1 "ibgw-$h-1" ns2 "ibgw-$h-2" \
		veth1 "ibh${h}1" veth2 "ibh${h}2" dev1 "ibn${h}1" \
		dev2 "ibn${h}2" bridge "ibb$h" vip "$s.10" > "$DIR/ha.net"
	ip link add "ibb$h" type bridge &&
		ip addr add "$s.1/24" dev "ibb$h" &&
		ip link set "ibb$h" up || return 1
	for n in 1 2; do
		ns=ibgw-$h-$n
		ip netns add "$ns" &&
			ip link add "ibh$h$n" type veth peer name "ibn$h$n" &&
			ip link set "ibh$h$n" master "ibb$h" up &&
			ip link set "ibn$h$n" netns "$ns" &&
			ip -n "$ns" addr add "$s.1$n/24" dev "ibn$h$n" &&
			ip -n "$ns" addr add "$s.2$n/24" dev "ibn$h$n" &&
			ip -n "$ns" link set "ibn$h$n" up &&
			ip -n "$ns" link set lo up &&
			ip netns exec "$ns" sysctl -qw net.ipv4.ip_nonlocal_bind=1 ||
			return 1
	done
	# the veths come up at once (no STP on the bridge); wait for ARP
	for ((i = 0; i < 50; i++)); do
		ip netns exec "ibgw-$h-1" ping -c1 -W1 -q "$s.12" > /dev/null 2>&1 && return 0
		sleep 0.1
	done
	warn "gw1's namespace does not reach gw2's ($s.12)"
	return 1
}

# ha_net_down: what DIR/ha.net names (namespaces first: their veths go
# with them), then the file.
ha_net_down() {
	[ -f "$DIR/ha.net" ] || return 0
	local k v
	for k in ns1 ns2 veth1 veth2 bridge; do
		v=$(ha_get "$k")
		[ -n "$v" ] || continue
		case $k in
		ns*) [ -e "/run/netns/$v" ] && ip netns del "$v" ;;
		*) [ -e "/sys/class/net/$v" ] && ip link del "$v" ;;
		esac
	done
	rm -f -- "$DIR/ha.net"
}

# the launcher's gateway binary and the paths of gateway N
ha_bin() { cat "$DIR/gw.bin" 2>/dev/null || echo "$GW_BIN"; }
ha_ctl() { local n=$1; shift; timeout 10 "$(ha_bin)" -c "$DIR/gw$n/ibsnmpgw.yaml" ctl "$@"; }

# ha_gw_yaml N PORT ENGINEID: DIR/gwN/ibsnmpgw.yaml, the launcher's
# DIR/ibsnmpgw.yaml with its own listeners (the VIP and its address),
# the pair's engine ID, its own store and control socket, @HOST@ as the
# bridge's address, and the ha: section.
ha_gw_yaml() {
	local n=$1 port=$2 eid=$3 s hostb
	s=$(ha_get subnet)
	hostb=$(cat "$DIR/gw$n/host-b" 2>/dev/null)
	mkdir -p -- "$DIR/gw$n"
	awk -v listen="  listen: [\"udp:$s.10:$port\", \"udp:$s.1$n:$port\"]" \
	    -v eid="  engine-id: $eid" -v st="$DIR/gw$n" -v hostb="$hostb" '
		/^snmp:/ && !e { e = 1; print; print eid; next }
		/sim-host: "/ && hostb != "" {
			sub(/sim-host: "[^"]*"/, "sim-host: \"" hostb "\"") }
		/^  listen: / && !l { l = 1; print listen; next }
		/^  path: "/ && !p { p = 1
			printf "  path: \"%s/inventory.db\"\n", st
			printf "  control-socket: \"%s/ctl.sock\"\n", st; next }
		{ gsub(/@HOST@/, host); print }' host="$s.1" "$DIR/ibsnmpgw.yaml" \
		> "$DIR/gw$n/ibsnmpgw.yaml" || return 1
	cat >> "$DIR/gw$n/ibsnmpgw.yaml" <<-EOF
		ha:
		  role: auto
		  listen: $s.2$n:$HA_REPL_PORT
		  peer: $s.2$((3 - n)):$HA_REPL_PORT
		  key-file: "$DIR/ha.key"
		  name: gw$n
		  takeover-timeout: 2
	EOF
}

# ha_ka_conf N VRID: DIR/gwN/keepalived.conf, the packaged example
# (packaging/keepalived/keepalived.conf) with this pair's addresses,
# device, binary, configuration and notify script; without
# enable_script_security, which refuses a script below a directory
# others may write (the build tree, /tmp).
ha_ka_conf() {
	local n=$1 vrid=$2 s dev ex=$REPO_TOP/packaging/keepalived
	s=$(ha_get subnet)
	dev=$(ha_get "dev$n")
	[ -r "$ex/keepalived.conf" ] && [ -x "$ex/ibsnmpgw-notify" ] ||
		{ warn "$ex: keepalived.conf or ibsnmpgw-notify missing"; return 1; }
	sed -e "s|/usr/sbin/ibsnmpgw|$(ha_bin)|g" \
	    -e "s|/etc/ibsnmpgw/ibsnmpgw.yaml|$DIR/gw$n/ibsnmpgw.yaml|g" \
	    -e "s|notify \"/etc/keepalived/ibsnmpgw-notify\"|notify \"$ex/ibsnmpgw-notify -b $(ha_bin) -c $DIR/gw$n/ibsnmpgw.yaml -l $DIR/gw$n/notify.log\"|" \
	    -e "s|\\beth0\\b|$dev|g" -e "s|192\\.0\\.2\\.10/|$s.10/|" \
	    -e "s|192\\.0\\.2\\.11\\b|$s.1$n|" -e "s|192\\.0\\.2\\.12\\b|$s.1$((3 - n))|" \
	    -e "s|virtual_router_id 51|virtual_router_id $vrid|" \
	    -e "s|router_id ibsnmpgw-a|router_id gw$n|" \
	    -e '/^[[:space:]]*enable_script_security/d' \
	    "$ex/keepalived.conf" > "$DIR/gw$n/keepalived.conf"
}

# ha_start_gw N [TIMEOUT]: gateway N in its namespace, attached at its
# host; waits for one more "sweep 1 done" in its log.
ha_start_gw() {
	local n=$1 timeout=${2:-120} ns sock umad2sim before t pid
	ns=$(ha_get "ns$n")
	sock=$(cat "$DIR/socket") || return 1
	umad2sim=$(find_umad2sim) || { warn "libumad2sim.so not found"; return 1; }
	touch "$DIR/gw$n/ibsnmpgw.log"
	before=$(grep -c "sweep 1 done" "$DIR/gw$n/ibsnmpgw.log")
	(
		cd "$DIR/gw$n" || exit 1
		export IBSIM_SOCKNAME=$sock SIM_HOST
		SIM_HOST=$(cat "$DIR/gw$n/host")
		sim_inet "$(ha_get subnet).1"
		exec ip netns exec "$ns" setsid env LD_PRELOAD="$umad2sim" \
			"$(ha_bin)" -f -c "$DIR/gw$n/ibsnmpgw.yaml" < /dev/null \
			>> "$DIR/gw$n/ibsnmpgw.log" 2>&1
	) &
	pid=$!
	record_pid "ibsnmpgw-gw$n" "$pid"
	for ((t = 0; t < timeout * 10; t++)); do
		[ "$(grep -c "sweep 1 done" "$DIR/gw$n/ibsnmpgw.log")" -gt "$before" ] &&
			{ note_gw_prog "$pid"; echo "$pid"; return 0; }
		pid_alive "$pid" || { warn "gw$n exited before its first sweep"; return 1; }
		sleep 0.1
	done
	warn "gw$n did not log 'sweep 1 done' within ${timeout}s"
	return 1
}

# ha_start_ka N: keepalived for gateway N in its namespace (foreground,
# VRRP only, its own pid files), logging to DIR/gwN/keepalived.log.
ha_start_ka() {
	local n=$1 ns
	ns=$(ha_get "ns$n")
	(
		cd "$DIR/gw$n" || exit 1
		IBSIM_SOCKNAME=$(cat "$DIR/socket")	# for pid_is_ours
		export IBSIM_SOCKNAME
		exec ip netns exec "$ns" setsid keepalived -n -l -D -P \
			-f "$DIR/gw$n/keepalived.conf" -p "$DIR/gw$n/keepalived.pid" \
			-r "$DIR/gw$n/vrrp.pid" < /dev/null \
			>> "$DIR/gw$n/keepalived.log" 2>&1
	) &
	record_pid "keepalived-gw$n" "$!"
}

# does namespace N hold the VIP?
ha_has_vip() {
	ip -n "$(ha_get "ns$1")" -4 -o addr show 2>/dev/null |
		grep -qF " $(ha_get vip)/"
}

# wait_until TIMEOUT CMD...: 0 once CMD succeeds, 1 on timeout
wait_until() {
	local timeout=$1 t
	shift
	for ((t = 0; t < timeout * 10; t++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

ha_eligible() { ha_ctl "$1" ha status > /dev/null 2>&1; }
ha_protected() { ha_ctl "$1" ha status 2>/dev/null | grep -qx protected; }
ha_ka_state() { grep -q "Entering $2 STATE" "$DIR/gw$1/keepalived.log" 2>/dev/null; }

# ha_start_pair PORT ENGINEID: the key, both YAMLs and keepalived
# configurations; gw1 started and made active by hand (a fresh pair has
# no copy anywhere, so neither would be eligible: docs/ha.md "Install a
# pair"), its keepalived, then gw2, which takes its snapshot, and its
# keepalived, which stays BACKUP (nopreempt).
ha_start_pair() {
	local port=$1 eid=$2 vrid n
	vrid=$(( 0x$(printf '%s' "$DIR" | sha1sum | cut -c1-2) % 254 + 1 ))
	( umask 077; od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$DIR/ha.key" ) &&
		chmod 600 "$DIR/ha.key" || fail_start "cannot write $DIR/ha.key"
	for n in 1 2; do
		ha_gw_yaml "$n" "$port" "$eid" || fail_start "cannot write $DIR/gw$n/ibsnmpgw.yaml"
		ha_ka_conf "$n" "$vrid" || fail_start "cannot write $DIR/gw$n/keepalived.conf"
		: > "$DIR/gw$n/keepalived.log"
	done
	"$(ha_bin)" -n -c "$DIR/gw1/ibsnmpgw.yaml" > "$DIR/gw1/check.out" 2>&1 ||
		fail_start "ibsnmpgw -n refuses $DIR/gw1/ibsnmpgw.yaml" "$DIR/gw1/check.out"
	ha_start_gw 1 "$gw_timeout" > /dev/null ||
		fail_start "gw1 did not start" "$DIR/gw1/ibsnmpgw.log" "$DIR/ibsim.err"
	ha_ctl 1 ha master > /dev/null ||
		fail_start "ctl ha master on gw1 failed" "$DIR/gw1/ibsnmpgw.log"
	ha_start_ka 1
	wait_until 20 ha_has_vip 1 ||
		fail_start "keepalived did not give gw1 the VIP" "$DIR/gw1/keepalived.log" "$DIR/gw1/notify.log"
	ha_start_gw 2 "$gw_timeout" > /dev/null ||
		fail_start "gw2 did not start" "$DIR/gw2/ibsnmpgw.log" "$DIR/ibsim.err"
	wait_until 30 ha_eligible 2 ||
		fail_start "gw2 took no snapshot from gw1" "$DIR/gw2/ibsnmpgw.log" "$DIR/gw1/ibsnmpgw.log"
	ha_start_ka 2
	wait_until 20 ha_ka_state 2 BACKUP ||
		fail_start "gw2's keepalived did not enter BACKUP" "$DIR/gw2/keepalived.log"
	wait_until 10 ha_protected 1 ||
		fail_start "gw1 is not protected" "$DIR/gw1/ibsnmpgw.log"
	ha_has_vip 1 && ! ha_has_vip 2 ||
		fail_start "the VIP moved during the start" "$DIR/gw1/keepalived.log" "$DIR/gw2/keepalived.log"
}

# ha_role N: the role gateway N reports, "down" if it does not answer
ha_role() {
	local out
	out=$(ha_ctl "$1" ha status 2>/dev/null)
	out=$(printf '%s\n' "$out" | sed -n 's/^role //p')
	echo "${out:-down}"
}

ha_load() {
	load_dir "$1"
	[ -f "$DIR/ha.net" ] || die "$DIR: not a pair started with --ha"
}

# ha-status: which gateway is active; one line per gateway
cmd_ha_status() {
	[ $# -eq 1 ] || die "usage: $PROG ha-status DIR"
	ha_load "$1"
	local n active="" role vip pid lines=""
	for n in 1 2; do
		role=$(ha_role "$n")
		[ "$role" = active ] && active="$active${active:+ }gw$n"
		vip=no
		ha_has_vip "$n" && vip=yes
		pid=$(awk -v k="ibsnmpgw-gw$n" '$1 == k { p = $2 } END { print p }' "$DIR/pids" 2>/dev/null)
		pid_is_ours "ibsnmpgw-gw$n" "$pid" || pid=-
		lines="${lines}gw$n: role $role, vip $vip, pid $pid, address $(ha_get subnet).1$n"$'\n'
	done
	echo "active: ${active:-none}"
	printf '%s' "$lines"
	case $active in
	gw1|gw2) return 0 ;;
	*) return 1 ;;
	esac
}

# ha-kill: SIGKILL to the active gateway (the one whose ctl says
# active); prints which, its pid and the moment (ms since the epoch).
cmd_ha_kill() {
	[ $# -eq 1 ] || die "usage: $PROG ha-kill DIR"
	ha_load "$1"
	local n active="" pid t
	for n in 1 2; do
		[ "$(ha_role "$n")" = active ] && active="$active${active:+ }$n"
	done
	case $active in
	1|2) ;;
	"") die "no gateway of $DIR is active" ;;
	*) die "both gateways of $DIR are active (split brain): not killing either" ;;
	esac
	n=$active
	pid=$(awk -v k="ibsnmpgw-gw$n" '$1 == k { p = $2 } END { print p }' "$DIR/pids")
	pid_is_ours "ibsnmpgw-gw$n" "$pid" || die "gw$n is active but its pid ($pid) is not ours"
	t=$(date +%s%3N)
	kill -KILL "$pid"
	for ((i = 0; i < 100; i++)); do pid_alive "$pid" || break; sleep 0.05; done
	sed -i "/^ibsnmpgw-gw$n $pid\$/d" "$DIR/pids"
	echo "killed: gw$n"
	echo "pid: $pid"
	echo "at-ms: $t"
	# Seen gone: a request sent before this may still have been
	# answered by the killed one (the signal lands after at-ms).
	echo "dead-ms: $(date +%s%3N)"
	# its ibsim client slot
	cmd_gc "$DIR" > /dev/null 2>&1
	return 0
}

# ha-cut-vrrp DIR / ha-heal-vrrp DIR: VRRP between the two cut or
# restored; replication (S.2N) and the VIP's traffic stay. A blackhole
# route to the peer's VRRP address in each namespace stops what is sent
# to it, and strict reverse-path filtering (rp_filter 1, left on after a
# heal: every route there is direct) what comes from it: keepalived's
# raw socket, bound to its interface, is not stopped by the route alone.
# With VRRP cut both keepalived become MASTER: split brain through
# keepalived.
ha_vrrp_route() {
	local op=$1 n s ns
	s=$(ha_get subnet)
	for n in 1 2; do
		ns=$(ha_get "ns$n")
		if [ "$op" = add ]; then
			ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=1 \
			    "net.ipv4.conf.$(ha_get "dev$n").rp_filter=1" &&
			ip -n "$ns" route replace blackhole "$s.1$((3 - n))/32" || return 1
		else
			ip -n "$ns" route del blackhole "$s.1$((3 - n))/32" 2>/dev/null
		fi
	done
	return 0
}

cmd_ha_cut_vrrp() {
	[ $# -eq 1 ] || die "usage: $PROG ha-cut-vrrp DIR"
	ha_load "$1"
	ha_vrrp_route add || die "ha-cut-vrrp: the blackhole routes could not be added"
	echo "vrrp: cut"
}

cmd_ha_heal_vrrp() {
	[ $# -eq 1 ] || die "usage: $PROG ha-heal-vrrp DIR"
	ha_load "$1"
	ha_vrrp_route del
	echo "vrrp: restored"
}

# ha-restart DIR gwN: start gateway N again in its namespace (role
# auto: a standby, which takes a snapshot from the active).
cmd_ha_restart() {
	[ $# -eq 2 ] || die "usage: $PROG ha-restart DIR gw1|gw2"
	ha_load "$1"
	local n pid old
	case $2 in
	gw1|1) n=1 ;;
	gw2|2) n=2 ;;
	*) die "ha-restart: $2: not gw1 or gw2" ;;
	esac
	old=$(awk -v k="ibsnmpgw-gw$n" '$1 == k { p = $2 } END { print p }' "$DIR/pids")
	pid_is_ours "ibsnmpgw-gw$n" "$old" && die "gw$n is running (pid $old)"
	[ -n "$old" ] && sed -i "/^ibsnmpgw-gw$n $old\$/d" "$DIR/pids"
	cmd_gc "$DIR" > /dev/null 2>&1
	pid=$(ha_start_gw "$n" 120) || die "gw$n did not start again (see $DIR/gw$n/ibsnmpgw.log)"
	echo "gw$n: pid $pid"
}
