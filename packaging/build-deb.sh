#!/bin/bash
# build-deb.sh [OUTDIR]: build the binary .debs (ibsnmpgw, and
# ibsnmp-tunneld for the hosts).
#
# Copies the clean source tree (copy-tree.sh: no build products, test
# logs or earlier packages) to a temporary directory, puts
# packaging/debian at the top as debian/, and runs
# `dpkg-buildpackage -us -uc -b` there.  The .deb files (the package and
# its -dbgsym companion) are copied to OUTDIR (default packaging/out);
# the build log goes to stderr, and the last line on stdout is the path
# of the ibsnmpgw .deb (ibsnmp-tunneld's lies next to it).
#
# Needs: git, dpkg-dev, debhelper and the Build-Depends of
# packaging/debian/control (dpkg-buildpackage checks them).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
out=${1:-$top/packaging/out}
mkdir -p -- "$out"
out=$(cd "$out" && pwd -P)

command -v dpkg-buildpackage >/dev/null ||
	{ echo "build-deb.sh: dpkg-buildpackage not found (apt-get install dpkg-dev debhelper)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibsnmpgw-deb.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
src=$tmp/ibsnmpgw
mkdir -- "$src"

bash "$top/packaging/copy-tree.sh" "$top" "$src"
cp -a -- "$src/packaging/debian" "$src/debian"
# One copy of the unit, sysusers and tmpfiles files, in packaging/systemd;
# debhelper wants them as debian/ibsnmpgw.*.
for f in service sysusers tmpfiles; do
	cp -- "$src/packaging/systemd/ibsnmpgw.$f" "$src/debian/ibsnmpgw.$f"
done
cp -- "$src/packaging/systemd/ibsnmp-tunneld.service" \
	"$src/debian/ibsnmp-tunneld.service"

# The package version comes from debian/changelog; say so when it lags
# behind configure.ac.
ac_version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$src/configure.ac")
deb_version=$(cd "$src" && dpkg-parsechangelog -S Version)
if [ -n "$ac_version" ] && [ "${deb_version%%-*}" != "$ac_version" ]; then
	echo "build-deb.sh: warning: debian/changelog says $deb_version, configure.ac $ac_version" >&2
fi

(cd "$src" && dpkg-buildpackage -us -uc -b) >&2

shopt -s nullglob
debs=("$tmp"/*.deb)
[ ${#debs[@]} -gt 0 ] || { echo "build-deb.sh: no .deb was produced" >&2; exit 1; }
main=""
for d in "${debs[@]}"; do
	cp -- "$d" "$out/"
	case ${d##*/} in
	ibsnmpgw_*.deb) main=$out/${d##*/} ;;
	esac
done
[ -n "$main" ] || { echo "build-deb.sh: no ibsnmpgw_*.deb among ${debs[*]##*/}" >&2; exit 1; }
echo "$main"
