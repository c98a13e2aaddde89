#!/bin/sh
# Validates packaging/zabbix/ibsnmpgw_templates.xml with Zabbix's own
# import code: the frontend's reader, the 6.0 schema validator and the
# converters the API runs before an import (zabbix-check.php). The
# frontend comes from ZABBIX_FRONTEND, an installed zabbix-frontend-php,
# or Debian's package unpacked into a temporary directory (no install,
# no web server). A damaged copy must be refused, so the check bites.
# Exit 77 (skip) without php or the frontend.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
tmpl=$top_srcdir/packaging/zabbix/ibsnmpgw_templates.xml
check=$top_srcdir/tests/packaging/zabbix-check.php
command -v php >/dev/null 2>&1 || { echo "zabbix.sh: php not found (apt-get install php-cli php-xml)"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fe=${ZABBIX_FRONTEND:-/usr/share/zabbix}
if [ ! -d "$fe/include/classes/import" ]; then
	(cd "$tmp" && timeout 120 apt-get download -q zabbix-frontend-php \
	    >/dev/null 2>&1) && dpkg-deb -x "$tmp"/zabbix-frontend-php_*.deb \
	    "$tmp/fe" && fe=$tmp/fe/usr/share/zabbix
fi
[ -d "$fe/include/classes/import" ] || { echo "zabbix.sh: no Zabbix frontend (zabbix-frontend-php)"; exit 77; }
export ZABBIX_FRONTEND=$fe
fail=0
out=$(php "$check" "$tmpl" 2>&1)
echo "$out"
case $out in *"valid Zabbix 6.0 export, 2 templates"*) ;; *) fail=1 ;; esac
sed 's|<delay>1h</delay>|<delay>1h</delay><bogus/>|' "$tmpl" >"$tmp/bad.xml"
if php "$check" "$tmp/bad.xml" >"$tmp/bad.out" 2>&1; then
	echo "FAIL: a template with an unknown tag passed"; fail=1
else
	echo "a damaged copy is refused: $(cat "$tmp/bad.out")"
fi
[ $fail = 0 ] && echo "zabbix: template valid" && exit 0
exit 1
