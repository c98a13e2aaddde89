# Debian 12 packages the build, the tests and the demo need.
DEPS="build-essential autoconf automake libtool pkg-config
 libsnmp-dev snmp snmpd snmptrapd libibumad-dev libibmad-dev libsqlite3-dev sqlite3 libssl-dev
 libyaml-dev libcmocka-dev ibsim-utils opensm infiniband-diags
 smitools erlang-snmp python3 python3-pysnmp4
 debhelper dpkg-dev fakeroot lintian rpm prometheus-snmp-exporter
 php-cli php-xml clang libclang-rt-14-dev keepalived iproute2
 monitoring-plugins-standard stress-ng"

# What `make interop` adds (tests/interop): a real Zabbix 6.0 server on
# PostgreSQL and its frontend's API, run by the test itself.
INTEROP_DEPS="postgresql zabbix-server-pgsql zabbix-frontend-php php-cli
 php-pgsql"

# install_pkgs PKG...: apt-get install those not installed yet.
install_pkgs() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		    grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	SUDO=""
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
	    --no-install-recommends $missing >/dev/null
}

install_deps() {
	# shellcheck disable=SC2086
	install_pkgs $DEPS
}

install_interop_deps() {
	# shellcheck disable=SC2086
	install_pkgs $INTEROP_DEPS
}
