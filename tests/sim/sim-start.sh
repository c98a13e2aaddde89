# cmd_start of ibsnmpgw-sim, sourced by it: phases that share cmd_start's
# locals (bash scopes them dynamically). Any phase ends the script on a
# failure (die, fail_start); none returns early.
# shellcheck shell=bash disable=SC2030,SC2031

cmd_start() {
	local topo="" dir="" gw_host="" sm_host="" no_gw=0 map="" port=""
	local extra_yaml=""
	local partitions="" standby_sm="" notify="" sm_events=0
	local tunnels="" tunnel_allow="" tunnel_guids=""
	local sm_timeout="" gw_timeout="" keep_store=0
	local ha=0 gw_host2="" ibsim_port="" sm_host2="" gw_host_b="" gw_host2_b=""
	local umad2sim n p alive info nodes switches cas swports caports maxlid
	local N S P L extra k sim_topo split_out cand sock t0 ibsim_pid ok i
	local ibsim_ms conf osm_pid sm_ms listen6 authpw
	local privpw yaml a gw_cmd gw_ms gw_pid tun tnode taddr tyaml tpid tbin
	local gwlid s
	start_args "$@"
	start_plan
	start_sms
	start_gateway
	start_tunnels
	start_report
	return 0
}

# The options and the arguments, checked; DIR made.
start_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--ha) ha=1; shift ;;
		--gw-host2) gw_host2=${2:?--gw-host2 needs a value}; shift 2 ;;
		--gw-host2=*) gw_host2=${1#*=}; shift ;;
		--gw-host) gw_host=${2:?--gw-host needs a value}; shift 2 ;;
		--gw-host=*) gw_host=${1#*=}; shift ;;
		--sm-host) sm_host=${2:?--sm-host needs a value}; shift 2 ;;
		--sm-host=*) sm_host=${1#*=}; shift ;;
		--sm-host2) sm_host2=${2:?--sm-host2 needs a value}; shift 2 ;;
		--sm-host2=*) sm_host2=${1#*=}; shift ;;
		--no-gateway) no_gw=1; shift ;;
		--keep-store) keep_store=1; shift ;;
		--extra-yaml) extra_yaml=${2:?--extra-yaml needs a file}; shift 2 ;;
		--partitions) partitions=${2:?--partitions needs a file}; shift 2 ;;
		--standby-sm) standby_sm=${2:?--standby-sm needs a host}; shift 2 ;;
		--sm-events) sm_events=1; shift ;;
		--tunnel|--tunnel-prefer)
			case ${2:?$1 needs NODE=udp:127.0.0.1:PORT} in
			?*=udp:127.*:[0-9]*) ;;
			*) die "start: $1 $2: not NODE=udp:127.x.y.z:PORT" ;;
			esac
			case $1 in
			--tunnel) tunnels="$tunnels auto:$2" ;;
			*) tunnels="$tunnels prefer:$2" ;;
			esac
			shift 2 ;;
		--tunnel-allow)
			case ${2:?--tunnel-allow needs a LID} in
			*[!0-9]*) die "start: --tunnel-allow $2: not a LID" ;;
			esac
			tunnel_allow="$tunnel_allow${tunnel_allow:+, }$2"; shift 2 ;;
		--tunnel-allow-guid)
			case ${2:?--tunnel-allow-guid needs a port GUID} in
			0x*) ;;
			*) die "start: --tunnel-allow-guid $2: not a port GUID 0x..." ;;
			esac
			tunnel_guids="$tunnel_guids${tunnel_guids:+, }$2"; shift 2 ;;
		--notify)
			case ${2:?--notify needs udp:HOST:PORT} in
			udp:*|udp6:*) ;;
			*) die "start: --notify $2: not udp:HOST:PORT or udp6:[HOST]:PORT" ;;
			esac
			notify="$notify $2"; shift 2 ;;
		--node-name-map) map=${2:?--node-name-map needs a value}; shift 2 ;;
		--node-name-map=*) map=${1#*=}; shift ;;
		--port) port=${2:?--port needs a value}; shift 2 ;;
		--port=*) port=${1#*=}; shift ;;
		--sm-timeout) sm_timeout=${2:?}; shift 2 ;;
		--gw-timeout) gw_timeout=${2:?}; shift 2 ;;
		-h|--help) usage; exit 0 ;;
		-*) die "start: unknown option $1" ;;
		*)
			if [ -z "$topo" ]; then topo=$1
			elif [ -z "$dir" ]; then dir=$1
			else die "start: too many arguments"; fi
			shift ;;
		esac
	done
	if [ -z "$topo" ] || [ -z "$dir" ]; then
		die "usage: $PROG start TOPOLOGY DIR [options]"
	fi
	[ -r "$topo" ] || die "cannot read topology $topo"
	topo=$(abspath "$topo")
	if [ -n "$notify" ] && [ -n "$extra_yaml" ] &&
	    grep -q '^notify:' "$extra_yaml"; then
		die "start: --notify and a notify: section in $extra_yaml: one or the other"
	fi

	if [ "$ha" = 1 ]; then
		[ "$no_gw" = 0 ] || die "start: --ha and --no-gateway: one or the other"
		[ -z "$tunnels" ] || die "start: --ha and --tunnel: one or the other"
		[ "$(id -u)" = 0 ] || die "start --ha: network namespaces need root"
		command -v ip > /dev/null || die "start --ha: ip (iproute2) not found"
		command -v keepalived > /dev/null || die "start --ha: keepalived not found (apt-get install keepalived)"
		case $dir in
		*[[:space:]]*) die "start --ha: DIR must have no white space (keepalived's script lines)" ;;
		esac
	elif [ -n "$gw_host2" ]; then
		die "start: --gw-host2 needs --ha"
	fi
	if [ -n "$sm_host2" ]; then
		[ -z "$standby_sm" ] || die "start: --sm-host2 and --standby-sm: not yet together"
	fi

	umad2sim=$(find_umad2sim) || die "libumad2sim.so not found (install ibsim-utils or set UMAD2SIM)"
	command -v "$IBSIM_BIN" > /dev/null || die "ibsim not found"
	command -v "$OPENSM_BIN" > /dev/null || die "opensm not found"
	if [ "$no_gw" = 0 ]; then
		[ -x "$GW_BIN" ] || die "gateway binary $GW_BIN not found or not executable (build it, set IBSNMPGW, or use --no-gateway)"
	fi

	DIR=$(abspath "$dir")
	mkdir -p -- "$DIR" || die "cannot create $DIR"
	if [ -f "$DIR/pids" ]; then
		alive=0
		while read -r n p; do pid_is_ours "$n" "$p" && alive=1; done < "$DIR/pids"
		[ "$alive" = 1 ] && die "$DIR is already running (use: $PROG stop $DIR)"
		rm -f -- "$DIR/pids"
	fi
}

# ibsim's sizes, the hosts, the node-name-map, the socket; DIR emptied
# of an earlier run's files.
start_plan() {
	# sizes
	info=$(topo_info "$topo")
	read -r nodes switches cas swports caports maxlid <<< "$info"
	[ "$nodes" -gt 0 ] || die "$topo: no Switch/Ca records found"
	N=$((nodes + 16)) S=$((switches + 8)) P=$((swports + caports + 64))
	[ "$N" -lt 2048 ] && N=2048
	[ "$S" -lt 256 ] && S=256
	[ "$P" -lt 13312 ] && P=13312
	L=30720
	[ "$maxlid" -ge "$L" ] && L=$((maxlid + 1))
	extra=$((nodes / 20))
	sm_timeout=${sm_timeout:-$((120 + extra))}
	gw_timeout=${gw_timeout:-$((120 + extra))}

	# hosts
	[ -n "$sm_host" ] || sm_host=$(nth_ca "$topo" 1)
	[ -n "$sm_host" ] || die "$topo has no Ca/Hca node for the SM (use --sm-host)"
	[ -n "$gw_host" ] || gw_host=$(nth_ca "$topo" 2)
	[ -n "$gw_host" ] || die "$topo has fewer than two Ca/Hca nodes (use --gw-host)"
	[ ${#sm_host} -le 31 ] || die "--sm-host: ibsim host names are limited to 31 characters"
	[ ${#gw_host} -le 31 ] || die "--gw-host: ibsim host names are limited to 31 characters"
	topo_has_host "$topo" "$sm_host" || die "SM host \"$sm_host\" is neither a node id nor a NodeDescription in $topo"
	topo_has_host "$topo" "$gw_host" || die "gateway host \"$gw_host\" is neither a node id nor a NodeDescription in $topo"
	if [ "$ha" = 1 ]; then
		k=3
		while [ -z "$gw_host2" ] || [ "$gw_host2" = "$gw_host" ] || [ "$gw_host2" = "$sm_host" ]; do
			gw_host2=$(nth_ca "$topo" "$k")
			[ -n "$gw_host2" ] || die "$topo has no third Ca/Hca node for gw2 (use --gw-host2)"
			k=$((k + 1))
		done
		[ ${#gw_host2} -le 31 ] || die "--gw-host2: ibsim host names are limited to 31 characters"
		topo_has_host "$topo" "$gw_host2" || die "gateway host \"$gw_host2\" is neither a node id nor a NodeDescription in $topo"
		[ "$gw_host2" != "$gw_host" ] || die "--gw-host2: the two gateways need two hosts"
	fi
	[ "$sm_host" != "$gw_host" ] || warn "warning: gateway and SM share host $sm_host"
	# Two subnets: the gateway host's port 2 is a node of its own in the
	# topology ibsim loads (tests/sim/split-host says why).
	sim_topo=$topo
	if [ -n "$sm_host2" ]; then
		[ ${#sm_host2} -le 31 ] || die "--sm-host2: ibsim host names are limited to 31 characters"
		topo_has_host "$topo" "$sm_host2" || die "second SM host \"$sm_host2\" is neither a node id nor a NodeDescription in $topo"
		mkdir -p -- "$DIR" || die "cannot create $DIR"
		sim_topo=$DIR/split.topo
		split_out=$("$SCRIPT_DIR/split-host" "$topo" "$gw_host" "$sim_topo" \
		    --sm "$sm_host" "$sm_host2") || die "start --sm-host2: the topology is not two subnets joined at $gw_host (see above)"
		gw_host_b=$(sed -n 's/^host-b //p' <<< "$split_out")
		# A pair: gw2's host is split too (both gateways have a
		# port in each subnet).
		if [ "$ha" = 1 ]; then
			split_out=$("$SCRIPT_DIR/split-host" "$sim_topo" "$gw_host2" \
			    "$DIR/split2.topo" --sm "$sm_host" "$sm_host2") ||
				die "start --ha --sm-host2: $gw_host2 (gw2) is not a two-port HCA joining both subnets (see above)"
			mv -f -- "$DIR/split2.topo" "$sim_topo"
			gw_host2_b=$(sed -n 's/^host-b //p' <<< "$split_out")
		fi
	fi

	# node-name-map
	if [ -z "$map" ]; then
		for cand in "${topo%.topo}.map" "$topo.map"; do
			[ "$cand" != "$topo" ] && [ -r "$cand" ] && { map=$cand; break; }
		done
		if [ -z "$map" ] && [ "$topo" = "$SCRIPT_DIR/topologies/fabric.topo" ]; then
			map=$SCRIPT_DIR/node-name-map
		fi
	fi
	if [ -n "$map" ]; then
		[ -r "$map" ] || die "cannot read node-name-map $map"
		cp -- "$map" "$DIR/node-name-map" || die "cannot copy $map"
		map=$DIR/node-name-map
	else
		rm -f -- "$DIR/node-name-map"
	fi

	# private socket name: abstract namespace, unique per DIR
	sock="ibsnmpgw-$(printf '%s' "$DIR" | sha1sum | cut -c1-12)"
	if grep -qE "@$sock:ctl@?\$" /proc/net/unix 2>/dev/null; then
		die "an ibsim already listens on @$sock:ctl (stale simulation of $DIR? stop it first)"
	fi
	echo "$sock" > "$DIR/socket"
	printf 'export IBSIM_SOCKNAME=%q;\nexport LD_PRELOAD=%q;\n' "$sock" "$umad2sim" > "$DIR/sim.env"
	rm -f -- "$DIR/ibsim-port"
	if [ "$ha" = 1 ]; then
		# ibsim's inet mode: PORT (control) and PORT+1..PORT+10 (its
		# ten clients) free on UDP
		ibsim_port=$(/usr/bin/python3 -c 'import socket
for _ in range(50):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", 0))
    base = s.getsockname()[1]
    s.close()
    if base > 65000:
        continue
    try:
        socks = []
        for p in range(base, base + 11):
            t = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            t.bind(("0.0.0.0", p))
            socks.append(t)
    except OSError:
        continue
    print(base)
    break') || die "cannot find 11 free UDP ports for ibsim"
		echo "$ibsim_port" > "$DIR/ibsim-port"
		printf 'export IBSIM_SERVER_NAME=127.0.0.1;\nexport IBSIM_SERVER_PORT=%s;\n' "$ibsim_port" >> "$DIR/sim.env"
	fi
	echo "$topo" > "$DIR/topology"

	rm -rf -- "$DIR/osm" "$DIR"/sys-[0-9]*
	mkdir -p -- "$DIR/osm"
	: > "$DIR/pids"
	# from here on, an interrupted start cleans up after itself
	trap 'fail_start "interrupted"' INT TERM HUP
	rm -f -- "$DIR/gw.bin"
	if [ "$ha" = 1 ]; then
		echo "$GW_BIN" > "$DIR/gw.bin"
		rm -rf -- "$DIR/gw1" "$DIR/gw2"
		mkdir -p -- "$DIR/gw1" "$DIR/gw2"
		echo "$gw_host" > "$DIR/gw1/host"
		echo "$gw_host2" > "$DIR/gw2/host"
		echo "$gw_host_b" > "$DIR/gw1/host-b"
		echo "$gw_host2_b" > "$DIR/gw2/host-b"
		ha_net_up "$(printf '%s' "$DIR" | sha1sum | cut -c1-6)" ||
			fail_start "cannot make the pair's network (namespaces, veths, bridge)"
	fi
	rm -f -- "$DIR/ibsim.fifo"
	mkfifo -m 600 -- "$DIR/ibsim.fifo" || die "mkfifo failed"
	: > "$DIR/ibsim.log"; : > "$DIR/ibsim.err"
	: > "$DIR/opensm.log"; : > "$DIR/opensm.out"
	rm -f -- "$DIR/gw.prog"
}

# ibsim, opensm, and the standby or the second subnet's SM.
start_sms() {
	# ---- ibsim
	t0=$(now)
	(
		cd "$DIR" || exit 1
		export IBSIM_SOCKNAME=$sock
		exec setsid "$IBSIM_BIN" -s ${ibsim_port:+-r -l "$ibsim_port"} \
			-N "$N" -S "$S" -P "$P" -L "$L" "$sim_topo" \
			0<> "$DIR/ibsim.fifo" > "$DIR/ibsim.log" 2> "$DIR/ibsim.err"
	) &
	ibsim_pid=$!
	record_pid ibsim "$ibsim_pid"
	ok=0
	for ((i = 0; i < 600; i++)); do	# up to 60 s to parse the topology
		if ibsim_listening "$sock" &&
			grep -q "sim> " "$DIR/ibsim.log"; then
			ok=1; break
		fi
		pid_alive "$ibsim_pid" || break
		sleep 0.1
	done
	[ $ok = 1 ] || fail_start "ibsim did not come up" "$DIR/ibsim.log" "$DIR/ibsim.err"
	ibsim_ms=$(elapsed_ms "$t0")

	# ---- opensm
	conf=$DIR/osm/opensm.conf
	cat > "$conf" <<-EOF
		# generated by $PROG
		dump_files_dir $DIR/osm
		partition_config_file $DIR/osm/partitions.conf
		force_log_flush TRUE
		sweep_interval 10
		# a standby declares the master dead after 2 unanswered SMInfo
		# polls 1 s apart (opensm's defaults: 4 and 10 s)
		sminfo_polling_timeout 1000
		polling_retry_number 2
	EOF
	if [ -n "${OSM_LOG_FLAGS:-}" ]; then
		echo "log_flags $OSM_LOG_FLAGS" >> "$conf"
	fi
	if [ -n "$partitions" ]; then
		cp -- "$partitions" "$DIR/osm/partitions.conf" ||
			fail_start "cannot read --partitions $partitions"
	else
		echo 'Default=0x7fff, ipoib, defmember=full : ALL, ALL_SWITCHES=full, SELF=full;' > "$DIR/osm/partitions.conf"
	fi
	t0=$(now)
	echo "$sm_host" > "$DIR/sm-host"
	(
		cd "$DIR" || exit 1
		export IBSIM_SOCKNAME=$sock SIM_HOST=$sm_host LD_PRELOAD=$umad2sim
		sim_inet 127.0.0.1
		export OSM_TMP_DIR=$DIR/osm OSM_CACHE_DIR=$DIR/osm
		exec setsid "$OPENSM_BIN" -F "$conf" -d2 -f "$DIR/opensm.log" \
			< /dev/null > "$DIR/opensm.out" 2>&1
	) &
	osm_pid=$!
	started opensm "$osm_pid" "$DIR/opensm.log" "SUBNET UP" "$sm_timeout" \
	    opensm "$DIR/opensm.out" "$DIR/ibsim.err"
	sm_ms=$(elapsed_ms "$t0")

	# ---- a standby SM: same configuration, its own files. Equal
	# priorities, so the lower port GUID (the master's) stays master
	# (IBA 14.4.1.1); it must not be started before the master is up.
	[ -z "$standby_sm" ] || start_extra_sm standby "$standby_sm" \
	    "Entering STANDBY state" "the standby opensm on $standby_sm"

	# ---- the second subnet's SM: its own configuration and files,
	# on a host of the other fabric; both are masters.
	rm -f -- "$DIR/sm-host2" "$DIR/gw-host-b"
	if [ -n "$sm_host2" ]; then
		echo "$sm_host2" > "$DIR/sm-host2"
		echo "$gw_host_b" > "$DIR/gw-host-b"
		start_extra_sm b "$sm_host2" "SUBNET UP" \
		    "the second subnet's opensm on $sm_host2"
	fi
}

# An opensm besides the first, with its configuration and files in
# DIR/osm-SUF and DIR/opensm-SUF.*: start_extra_sm SUF HOST LINE WHAT
# starts it on HOST and waits for LINE in its log.
start_extra_sm() {
	local suf=$1 host=$2 line=$3 what=$4 pid
	mkdir -p -- "$DIR/osm-$suf"
	sed "s|$DIR/osm|$DIR/osm-$suf|g" "$conf" > "$DIR/osm-$suf/opensm.conf"
	cp -- "$DIR/osm/partitions.conf" "$DIR/osm-$suf/"
	: > "$DIR/opensm-$suf.log"
	(
		cd "$DIR" || exit 1
		export IBSIM_SOCKNAME=$sock SIM_HOST=$host LD_PRELOAD=$umad2sim
		sim_inet 127.0.0.1
		export OSM_TMP_DIR=$DIR/osm-$suf OSM_CACHE_DIR=$DIR/osm-$suf
		exec setsid "$OPENSM_BIN" -F "$DIR/osm-$suf/opensm.conf" -d2 \
			-f "$DIR/opensm-$suf.log" < /dev/null \
			> "$DIR/opensm-$suf.out" 2>&1
	) &
	pid=$!
	started opensm "$pid" "$DIR/opensm-$suf.log" "$line" "$sm_timeout" \
	    "$what" "$DIR/opensm-$suf.out"
}

# started NAME PID LOG LINE TIMEOUT WHAT [FILE...]: PID recorded as
# NAME, then LINE waited for in LOG; if it does not come, the start
# stops with the tails of LOG and the FILEs.
started() {
	local name=$1 pid=$2 log=$3 line=$4 timeout=$5 what=$6
	shift 6
	record_pid "$name" "$pid"
	wait_for_log "$log" "$line" "$timeout" "$pid"
	case $? in
	1) fail_start "$what did not log '$line' within ${timeout}s" "$log" "$@" ;;
	2) fail_start "$what exited before '$line'" "$log" "$@" ;;
	esac
}

# The gateway's configuration, then the gateway (or the pair).
start_gateway() {
	# ---- gateway config
	if [ -z "$port" ]; then
		port=$(/usr/bin/python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
			fail_start "cannot pick a free UDP port"
	fi
	# Also listen on IPv6 loopback when the same port is free there.
	listen6=""
	if [ "$ha" = 0 ] && /usr/bin/python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("::1", int(sys.argv[1])))' "$port" 2>/dev/null; then
		listen6="udp6:[::1]:$port"
	fi
	authpw=auth-$(od -An -tx1 -N10 /dev/urandom | tr -d ' \n')
	privpw=priv-$(od -An -tx1 -N10 /dev/urandom | tr -d ' \n')
	yaml=$DIR/ibsnmpgw.yaml
	{
		echo "# generated by $PROG for $topo"
		echo "snmp:"
		if [ -n "$listen6" ]; then
			echo "  listen: [\"udp:127.0.0.1:$port\", \"$listen6\"]"
		else
			echo "  listen: [\"udp:127.0.0.1:$port\"]"
		fi
		echo "  communities:"
		echo "    - name: public"
		echo "  users:"
		echo "    - name: ibsnmpgw"
		echo "      auth-protocol: SHA"
		echo "      auth-passphrase: \"$authpw\""
		echo "      priv-protocol: AES"
		echo "      priv-passphrase: \"$privpw\""
		# IsSM: ibsim hands requests (the SA's Reports, the tunnel
		# agents' Sends) only to IsSM clients.
		if [ -n "$map" ] || [ "$sm_events" = 1 ] || [ -n "$tunnels" ] ||
		    [ -n "$sm_host2" ]; then
			echo "ib:"
			[ -n "$map" ] && echo "  node-name-map: \"$map\""
			[ "$sm_events" = 1 ] || [ -n "$tunnels" ] && echo "  sim-issm: true"
		fi
		# Two subnets: port 2 is the split node's port 1, served by
		# a process of its own with that SIM_HOST.
		if [ -n "$sm_host2" ]; then
			echo "  ports:"
			echo "    - { port: 1, subnet: a }"
			echo "    - { port: 1, subnet: b, sim-host: \"$gw_host_b\" }"
		fi
		if [ -n "$tunnels" ]; then
			echo "tunnel:"
			echo "  segment-octets: 160   # ibsim keeps MAD octets 0-223"
		fi
		echo "store:"
		echo "  path: \"$DIR/inventory.db\""
		# An --extra-yaml with its own discovery: section replaces
		# this one (the sweep driver's settings, docs/design.md).
		if [ -z "$extra_yaml" ] || ! grep -q '^discovery:' "$extra_yaml"; then
			echo "discovery:"
			echo "  interval: 60"
		fi
		echo "mad:"
		echo "  timeout-ms: 100"
		echo "  retries: 2"
		if [ -n "$notify" ]; then
			echo "notify:"
			echo "  targets:"
			n=0
			for a in $notify; do
				n=$((n + 1))
				echo "    - name: sim$n"
				echo "      address: \"$a\""
				echo "      community: public"
			done
		fi
		# Further top-level sections (e.g. cache:) for tests. The
		# tunnel policies go first in polling:, the test's after them.
		if [ -n "$tunnels" ]; then
			# shellcheck disable=SC2086 # one argument per --tunnel
			tunnel_policies $tunnels > "$DIR/tunnel-policies.yaml"
			if [ -n "$extra_yaml" ] && grep -q '^polling:' "$extra_yaml"; then
				awk -v f="$DIR/tunnel-policies.yaml" '
					{ print }
					/^polling:/ { while ((getline l < f) > 0) print l }
				' "$extra_yaml"
			else
				echo "polling:"
				cat "$DIR/tunnel-policies.yaml"
				[ -n "$extra_yaml" ] && cat "$extra_yaml"
			fi
		else
			[ -n "$extra_yaml" ] && cat "$extra_yaml"
		fi
	} > "$yaml"
	# @HOST@: where the gateway reaches the root namespace
	[ "$ha" = 1 ] || sed -i 's/@HOST@/127.0.0.1/g' "$yaml"
	# a store from an earlier run may describe another fabric
	[ "$keep_store" = 1 ] ||
		rm -f -- "$DIR/inventory.db" "$DIR/inventory.db-wal" "$DIR/inventory.db-shm"

	gw_cmd="cd $(printf %q "$DIR") && IBSIM_SOCKNAME=$sock SIM_HOST=$(printf %q "$gw_host") LD_PRELOAD=$umad2sim $(printf %q "$GW_BIN") -f -c $(printf %q "$yaml")"

	# ---- gateway
	gw_ms=""
	if [ "$ha" = 1 ]; then
		basename -- "$GW_BIN" > "$DIR/gw.prog"
		t0=$(now)
		ha_start_pair "$port" "0x80001f8880$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')"
		gw_ms=$(elapsed_ms "$t0")
	elif [ "$no_gw" = 0 ]; then
		: > "$DIR/ibsnmpgw.log"
		basename -- "$GW_BIN" > "$DIR/gw.prog"
		t0=$(now)
		(
			cd "$DIR" || exit 1
			export IBSIM_SOCKNAME=$sock SIM_HOST=$gw_host LD_PRELOAD=$umad2sim
			sim_inet 127.0.0.1
			exec setsid "$GW_BIN" -f -c "$yaml" < /dev/null > "$DIR/ibsnmpgw.log" 2>&1
		) &
		gw_pid=$!
		started ibsnmpgw "$gw_pid" "$DIR/ibsnmpgw.log" "sweep 1 done" \
		    "$gw_timeout" ibsnmpgw "$DIR/ibsim.err"
		note_gw_prog "$gw_pid"
		gw_ms=$(elapsed_ms "$t0")
	fi
}

# The tunnel agents, and DIR/timings.
start_tunnels() {
	# ---- tunnel agents, one per --tunnel NODE (ibsim: IsSM, so the
	# tunneled requests reach them; one IsSM client per node).
	tbin=${IBSNMP_TUNNELD:-$(dirname -- "$GW_BIN")/../tunneld/ibsnmp-tunneld}
	# The gateway's LID (its log) is always allowed.
	if [ -n "$tunnels" ]; then
		gwlid=$(sed -n 's/.*mad: using .* LID \([0-9][0-9]*\).*/\1/p' "$DIR/ibsnmpgw.log" | head -n 1)
		[ -n "$gwlid" ] && [ "$gwlid" != 0 ] &&
			tunnel_allow="$gwlid${tunnel_allow:+, }$tunnel_allow"
		[ -n "$tunnel_allow" ] || fail_start "no LID for the tunnel agents to allow (no gateway: use --tunnel-allow)"
	fi
	for tun in $tunnels; do
		tun=${tun#*:}
		tnode=${tun%%=*}
		taddr=${tun#*=}
		[ -x "$tbin" ] || fail_start "ibsnmp-tunneld not found at $tbin (set IBSNMP_TUNNELD)"
		tyaml=$DIR/tunneld-$tnode.yaml
		{
			echo "# generated by $PROG"
			echo "agent: \"$taddr\""
			echo "community: public"
			echo "allow-lids: [$tunnel_allow]"
			[ -n "$tunnel_guids" ] && echo "allow-guids: [$tunnel_guids]"
			echo "sim-issm: true"
			echo "segment-octets: 160   # ibsim keeps MAD octets 0-223"
		} > "$tyaml"
		: > "$DIR/tunneld-$tnode.log"
		(
			cd "$DIR" || exit 1
			export IBSIM_SOCKNAME=$sock SIM_HOST=$tnode LD_PRELOAD=$umad2sim
			sim_inet 127.0.0.1
			exec setsid "$tbin" -f -c "$tyaml" < /dev/null \
				> "$DIR/tunneld-$tnode.log" 2>&1
		) &
		tpid=$!
		record_pid ibsnmp-tunneld "$tpid"
		wait_for_log "$DIR/tunneld-$tnode.log" "tunneld: ready" 30 "$tpid"
		case $? in
		0) ;;
		*) fail_start "ibsnmp-tunneld at $tnode did not start" "$DIR/tunneld-$tnode.log" ;;
		esac
	done

	{
		echo "ibsim-ready-ms $ibsim_ms"
		echo "subnet-up-ms $sm_ms"
		[ -n "$gw_ms" ] && echo "gateway-sweep1-ms $gw_ms"
		echo "nodes $nodes switches $switches cas $cas"
	} > "$DIR/timings"
}

# What the caller needs, on stdout (see the header of ibsnmpgw-sim).
start_report() {
	trap - INT TERM HUP
	if [ "$ha" = 1 ]; then
		s=$(ha_get subnet)
		echo "endpoint: udp:$s.10:$port"
		echo "gw1: udp:$s.11:$port"
		echo "gw2: udp:$s.12:$port"
		echo "host-addr: $s.1"
		echo "gw1-netns: $(ha_get ns1)"
		echo "gw2-netns: $(ha_get ns2)"
		echo "ibsim-server: 127.0.0.1:$ibsim_port"
	else
		echo "endpoint: udp:127.0.0.1:$port"
	fi
	[ -n "$listen6" ] && echo "endpoint6: $listen6"
	echo "community: public"
	echo "v3-user: ibsnmpgw"
	echo "v3-auth: SHA:$authpw"
	echo "v3-priv: AES:$privpw"
	echo "ibsim-socket: $sock"
	echo "gw-host: $gw_host"
	[ "$ha" = 1 ] && echo "gw-host2: $gw_host2"
	echo "sm-host: $sm_host"
	if [ -n "$sm_host2" ]; then
		echo "sm-host2: $sm_host2"
		echo "gw-host-b: $gw_host_b"
		[ "$ha" = 1 ] && echo "gw-host2-b: $gw_host2_b"
	fi
	echo "dir: $DIR"
	[ "$no_gw" = 1 ] && echo "gw-command: $gw_cmd"
}
