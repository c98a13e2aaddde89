#!/bin/sh
# Prometheus: generate the snmp_exporter config from packaging/prometheus,
# run Debian's prometheus-snmp-exporter on loopback and scrape two nodes
# of the simulated fabric through the gateway.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
IBSNMPGW=${IBSNMPGW:-$top_srcdir/gateway/ibsnmpgw}
export IBSNMPGW
for p in prometheus-snmp-generator prometheus-snmp-exporter ibsim opensm; do
	command -v $p >/dev/null || { echo "SKIP: no $p"; exit 77; }
done
dir=$(mktemp -d /tmp/ibsnmpgw-prom.XXXXXX)
exp_pid=""
cleanup() {
	[ -n "$exp_pid" ] && kill "$exp_pid" 2>/dev/null && wait "$exp_pid" 2>/dev/null
	"$top_srcdir/tests/sim/ibsnmpgw-sim" stop "$dir/fab" >/dev/null 2>&1
	rm -rf "$dir"
}
trap cleanup EXIT
pass=0 fail=0
check() {
	if [ "$1" = 0 ]; then pass=$((pass + 1)); echo "ok - $2"
	else fail=$((fail + 1)); echo "not ok - $2"; [ -n "$3" ] && printf '%s\n' "$3" | tail -n 15 | sed 's/^/#   /'; fi
}

# Base modules for the generator: erlang-snmp's, by module name.
mkdir -p "$dir/mibs"
for f in $(dpkg -L erlang-snmp | grep -E '/(SNMPv2-SMI|SNMPv2-TC|SNMPv2-CONF|SNMPv2-MIB|SNMP-FRAMEWORK-MIB)\.mib$'); do
	ln -sf "$f" "$dir/mibs/$(basename "$f" .mib)"
done
[ -e "$dir/mibs/IF-MIB" ] || ln -sf "$top_srcdir/tests/mibs/stubs/IF-MIB" "$dir/mibs/IF-MIB"
# IBSNMPGW-MIB imports netSnmpPlaypen (libsnmp-base's NET-SNMP-MIB).
ln -sf "${NETSNMP_MIBDIR:-/usr/share/snmp/mibs}/NET-SNMP-MIB.txt" "$dir/mibs/NET-SNMP-MIB"
cp "$top_srcdir/packaging/prometheus/generator.yml" "$dir/"
(cd "$dir" && MIBDIRS="$top_srcdir/mibs:$dir/mibs" prometheus-snmp-generator generate) > "$dir/gen.log" 2>&1
grep -q "^ibsnmpgw:" "$dir/snmp.yml" 2>/dev/null
check $? "the generator turns generator.yml into an ibsnmpgw module" "$(cat "$dir/gen.log")"

# The spines' links expected at 8x: their 16 links are degraded links.
printf 'health:\n  expect:\n    - nodes: {name: "spine*"}\n      width: 8x\n' > "$dir/health.yaml"
"$top_srcdir/tests/sim/ibsnmpgw-sim" start "$top_srcdir/tests/sim/topologies/fabric.topo" "$dir/fab" --extra-yaml "$dir/health.yaml" > "$dir/info" || exit 1
ep=$(sed -n 's/^endpoint: udp://p' "$dir/info")
grep -q "^ibsnmpgw_fabric:" "$dir/snmp.yml"
check $? "and the node table into an ibsnmpgw_fabric module" "$(cat "$dir/gen.log")"
# The node modules come from the gateway's node table (--from).
"$top_srcdir/packaging/prometheus/ibsnmpgw-snmp-yml" "$dir/snmp.yml" public --from "$ep" > "$dir/nodes.yml" 2> "$dir/yml.err"
mods=$(grep -c '^[A-Za-z0-9._-]*:$' "$dir/nodes.yml")
[ "$mods" = 15 ] && grep -q '^leaf01:$' "$dir/nodes.yml" && grep -q '^fabric:$' "$dir/nodes.yml" &&
    grep -q '^    community: public@fabric$' "$dir/nodes.yml"
check $? "ibsnmpgw-snmp-yml --from writes the fabric module and one per node ($mods of 15)" "$(cat "$dir/yml.err" "$dir/nodes.yml" | head -40)"
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
prometheus-snmp-exporter --config.file="$dir/nodes.yml" --web.listen-address="127.0.0.1:$port" > "$dir/exporter.log" 2>&1 &
exp_pid=$!
scrape() {
	/usr/bin/python3 - "$port" "$1" "$ep" <<'PY'
import sys, time, urllib.request
port, module, target = sys.argv[1:4]
url = "http://127.0.0.1:%s/snmp?module=%s&target=%s" % (port, module, target)
for _ in range(50):
    try:
        print(urllib.request.urlopen(url, timeout=20).read().decode())
        sys.exit(0)
    except Exception:
        time.sleep(0.2)
sys.exit(1)
PY
}
out=$(scrape leaf01)
printf '%s\n' "$out" | grep -q '^ibSmaPortLinkState{ibSmaPortIndex="1"} 4$' &&
    [ "$(printf '%s\n' "$out" | grep -c '^ibSmaPortLinkState{')" = 36 ]
check $? "scraping module leaf01 gives its 36 ports' link state" "$out"
printf '%s\n' "$out" | grep -q '^ibIfPortSymbolErrs{ibIfPortStatIfIndex="36"} 0$'
check $? "and its IB-IF-MIB error counters" "$out"
# LLDP-MIB: leaf01's 8 cabled ports, each a series naming the neighbour.
[ "$(printf '%s\n' "$out" | grep -c '^lldpRemSysName{')" = 8 ] &&
    printf '%s\n' "$out" | grep '^lldpRemSysName{' | grep 'lldpRemLocalPortNum="5"' |
    grep 'lldpRemChassisId="0x0002c90300aa0001"' | grep 'lldpRemPortId="port1"' |
    grep -q 'lldpRemSysName="spine01"'
check $? "and its 8 LLDP neighbours, port 5 to spine01 port1" "$(printf '%s\n' "$out" | grep '^lldp')"
"$top_srcdir/tests/sim/ibsnmpgw-sim" cmd "$dir/fab" 'PerformanceSet "node03"[2] PortCounters.SymbolErrorCounter=12'
# Whatever the poller read before is stale now.
"$IBSNMPGW" -c "$dir/fab/ibsnmpgw.yaml" ctl flush node03 >/dev/null
out=$(scrape node03)
[ "$(printf '%s\n' "$out" | grep -c '^ibSmaPortLinkState{')" = 2 ] &&
    printf '%s\n' "$out" | grep -q '^ibIfPortSymbolErrs{ibIfPortStatIfIndex="2"} 12$'
check $? "scraping module node03 (a CA, 2 ports) sees the counter ibsim set" "$out"
# docs/health.md: the congestion table, a series per port.
[ "$(printf '%s\n' "$out" | grep -c '^ibsnmpgwPortXmitWait{ibsnmpgwPortCongestionIfIndex="[12]"} [0-9]*$')" = 2 ] &&
    [ "$(printf '%s\n' "$out" | grep -c '^ibsnmpgwPortXmitWaitRatio{ibsnmpgwPortCongestionIfIndex="[12]"} [0-9]*$')" = 2 ] &&
    printf '%s\n' "$out" | grep -q '^ibsnmpgwPortXmitWaitSource_info{.*ibsnmpgwPortXmitWaitSource="portCounters"} 1$'
check $? "and its ports' PortXmitWait, ratio and source" "$(printf '%s\n' "$out" | grep '^ibsnmpgwPort')"
out=$(scrape fabric)
[ "$(printf '%s\n' "$out" | grep '^ibsnmpgwNodeState{' | grep -c 'ibsnmpgwNodeState="ok"} 1$')" = 14 ] &&
    printf '%s\n' "$out" | grep '^ibsnmpgwNodeState{' | grep 'ibsnmpgwNodeContext="leaf01"' |
    grep -q 'ibsnmpgwNodeState="ok"} 1$' &&
    printf '%s\n' "$out" | grep -q '^ibsnmpgwNodeType_info{.*ibsnmpgwNodeContext="spine01".*ibsnmpgwNodeType="switch"} 1$' &&
    printf '%s\n' "$out" | grep '^ibsnmpgwNodeMadSent{' | grep -q 'ibsnmpgwNodeContext="node03"'
check $? "scraping module fabric gives every node's state, type and MAD counts" "$(printf '%s\n' "$out" | grep -E '^ibsnmpgwNode(State|Type)')"
links=$(printf '%s\n' "$out" | grep '^ibsnmpgwDegradedLinkActiveWidth{')
[ "$(printf '%s\n' "$links" | grep -c 'ibsnmpgwDegradedLinkPeerContext="[a-z]*0[1-4]".* 4$')" = 16 ] &&
    printf '%s\n' "$out" | grep -q '^ibsnmpgwDegradedLinkExpectedWidth{.* 8$' &&
    printf '%s\n' "$out" | grep -q '^ibsnmpgwDegradedLinkRule_info{.*ibsnmpgwDegradedLinkRule="expected".*} 1$'
check $? "and the spines' 16 links at 4x, expected at 8x, as degraded links with both ends" "$(printf '%s\n' "$out" | grep -E '^ibsnmpgwDegradedLink(ActiveWidth|Rule)' | head -4)"

# snmp_exporter 0.26+ (generator-0.26.yml): not installable here, so its
# modules are checked against generator.yml's, and its v3 auth is run
# through 0.21 as one module per context (0.21 has no snmp_context URL
# parameter; the auth's context_name is what that parameter overrides).
mkdir -p "$dir/v3"
/usr/bin/python3 - "$top_srcdir/packaging/prometheus" "$dir" <<'PY' > "$dir/v3.log" 2>&1
import sys, yaml
src, out = sys.argv[1:3]
old = yaml.safe_load(open(src + "/generator.yml"))["modules"]
new = yaml.safe_load(open(src + "/generator-0.26.yml"))
for m in old.values():
    m.pop("version", None)
if new["modules"] != old:
    sys.exit("generator-0.26.yml's modules differ from generator.yml's")
a = new["auths"]["ibsnmpgw_v3"]
if a.get("version") != 3 or a.get("security_level") != "authPriv" or \
        "context_name" in a or set(new["auths"]) != {"ibsnmpgw_v3"}:
    sys.exit("generator-0.26.yml: one v3 authPriv auth, no context")
info = dict(l.split(": ", 1) for l in open(out + "/info").read().splitlines()
            if ": " in l)
aproto, apw = info["v3-auth"].split(":", 1)
pproto, ppw = info["v3-priv"].split(":", 1)
a.pop("version")
# The simulated gateway's user, in place of the sample's.
a.update(username=info["v3-user"], password=apw, auth_protocol=aproto,
         priv_protocol=pproto, priv_password=ppw)
mods = {}
for ctx, mod in (("leaf01", "ibsnmpgw"), ("fabric", "ibsnmpgw_fabric")):
    m = dict(new["modules"][mod], version=3, auth=dict(a, context_name=ctx))
    mods["v3_" + ctx] = m
yaml.safe_dump({"modules": mods}, open(out + "/v3/generator.yml", "w"))
PY
rc=$?
check $rc "generator-0.26.yml has generator.yml's modules and one v3 auth" "$(cat "$dir/v3.log")"
if [ $rc = 0 ]; then
	(cd "$dir/v3" && MIBDIRS="$top_srcdir/mibs:$dir/mibs" prometheus-snmp-generator generate) > "$dir/v3/gen.log" 2>&1
	grep -q "^v3_leaf01:" "$dir/v3/snmp.yml" 2>/dev/null && grep -q "context_name: leaf01" "$dir/v3/snmp.yml"
	check $? "the generator takes its v3 auth with a context" "$(cat "$dir/v3/gen.log")"
	kill "$exp_pid" 2>/dev/null && wait "$exp_pid" 2>/dev/null
	prometheus-snmp-exporter --config.file="$dir/v3/snmp.yml" --web.listen-address="127.0.0.1:$port" > "$dir/exporter-v3.log" 2>&1 &
	exp_pid=$!
	out=$(scrape v3_leaf01)
	[ "$(printf '%s\n' "$out" | grep -c '^ibSmaPortLinkState{')" = 36 ] &&
	    [ "$(printf '%s\n' "$out" | grep -c '^lldpRemSysName{')" = 8 ]
	check $? "over SNMPv3, context leaf01 gives leaf01's 36 ports and 8 neighbours" "$out"
	out=$(scrape v3_fabric)
	[ "$(printf '%s\n' "$out" | grep '^ibsnmpgwNodeState{' | grep -c 'ibsnmpgwNodeState="ok"} 1$')" = 14 ]
	check $? "and context fabric every node's state" "$(printf '%s\n' "$out" | grep -E '^ibsnmpgwNode(State|Type)|snmp_')"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
