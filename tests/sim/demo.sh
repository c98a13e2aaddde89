#!/bin/sh
# The demo: build ibsnmpgw, start the bundled simulated fabric (ibsim +
# opensm) and the gateway, then walk a switch and a host through the
# gateway's one SNMP address, over v2c and v3, and reach a host's own
# snmpd over the fabric (IB SNMP Tunneling, ibsnmp-tunneld on node03).
# Stops what it started.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/deps.sh
install_deps
if [ ! -x _demo/gateway/ibsnmpgw ]; then
	./autogen.sh >/dev/null
	mkdir -p _demo
	(cd _demo && ../configure --quiet --disable-tests && make -j2 >/dev/null)
fi
dir=$(mktemp -d /tmp/ibsnmpgw-demo.XXXXXX)
sd_pid=""
trap 'tests/sim/ibsnmpgw-sim stop "$dir" >/dev/null 2>&1; [ -n "$sd_pid" ] && kill "$sd_pid" 2>/dev/null; rm -rf "$dir"' EXIT
# node03's own SNMP agent: a stock snmpd on a loopback port of its own.
hport=$(/usr/bin/python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'rocommunity public 127.0.0.1\nsysName node03\n' > "$dir/snmpd.conf"
snmpd -f -Lf "$dir/snmpd.log" -C -c "$dir/snmpd.conf" -M /dev/null -m "" \
    udp:127.0.0.1:$hport < /dev/null > /dev/null 2>&1 &
sd_pid=$!
echo "== starting the simulated fabric and the gateway"
IBSNMPGW=$top/_demo/gateway/ibsnmpgw tests/sim/ibsnmpgw-sim start \
    tests/sim/topologies/fabric.topo "$dir" \
    --tunnel node03=udp:127.0.0.1:$hport > "$dir/info"
cat "$dir/info"
ep=$(sed -n 's/^endpoint: //p' "$dir/info")
user=$(sed -n 's/^v3-user: //p' "$dir/info")
auth=$(sed -n 's/^v3-auth: SHA://p' "$dir/info")
priv=$(sed -n 's/^v3-priv: AES://p' "$dir/info")
M="-M +$top/mibs:$dir/mibs -m IB-TC-MIB:IB-SMA-MIB"
mkdir -p "$dir/mibs"
for f in $(dpkg -L erlang-snmp | grep -E '/(SNMPv2-SMI|SNMPv2-TC|SNMPv2-CONF|SNMP-FRAMEWORK-MIB)\.mib$'); do
	ln -sf "$f" "$dir/mibs/$(basename "$f" .mib)"
done
echo
echo "== the gateway itself: snmpget -v2c -c public $ep sysDescr.0"
snmpget -v2c -c public "$ep" 1.3.6.1.2.1.1.1.0
echo
echo "== switch leaf01, v2c community public@leaf01: snmpwalk ibSmaNodeInfo"
snmpwalk $M -v2c -c public@leaf01 "$ep" IB-SMA-MIB::ibSmaNodeInfo
echo
echo "== switch leaf01: link state of its first 8 ports"
snmpbulkwalk $M -v2c -c public@leaf01 -Cr8 "$ep" IB-SMA-MIB::ibSmaPortLinkState | head -8
echo
echo "== host node03, v3 context node03 (SHA/AES): snmpbulkwalk ibSmaPortInfoTable"
snmpbulkwalk $M -v3 -l authPriv -u "$user" -a SHA -A "$auth" -x AES -X "$priv" \
    -n node03 "$ep" IB-SMA-MIB::ibSmaPortInfoTable
echo
echo "== the same host by GUID and by LID"
snmpget $M -v2c -c public@0x0002c90300bb0300 "$ep" IB-SMA-MIB::ibSmaNodeString.0
snmpget $M -v2c -c public@lid-105 "$ep" IB-SMA-MIB::ibSmaNodeString.0
echo
echo "== host node03's own snmpd, through the gateway and the fabric (tunnel: auto):"
echo "   HOST-RESOURCES-MIB hrSystemUptime.0, hrMemorySize.0, next to the gateway's sysDescr.0"
snmpget -v2c -c public@node03 "$ep" 1.3.6.1.2.1.25.1.1.0 1.3.6.1.2.1.25.2.2.0 1.3.6.1.2.1.1.1.0
echo
echo "== done; the gateway log was:"
tail -n 5 "$dir/ibsnmpgw.log"
