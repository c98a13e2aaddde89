#!/bin/bash
# build-rpm.sh [OUTDIR]: build the ibsnmpgw source and binary RPMs.
#
# Makes NAME-VERSION.tar.gz from the clean source tree (copy-tree.sh),
# then runs `rpmbuild -ba --nodeps` on packaging/rpm/ibsnmpgw.spec
# with a private %_topdir in a temporary directory.  --nodeps: the
# BuildRequires use Fedora/RHEL names; on other systems (Debian) the
# equivalent build dependencies must be installed by hand.
# The .rpm files are copied to OUTDIR (default packaging/out); the build
# log goes to stderr and the paths of the RPMs to stdout, the binary
# ibsnmpgw RPM last.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
out=${1:-$top/packaging/out}
mkdir -p -- "$out"
out=$(cd "$out" && pwd -P)
spec=$top/packaging/rpm/ibsnmpgw.spec

command -v rpmbuild >/dev/null ||
	{ echo "build-rpm.sh: rpmbuild not found (apt-get install rpm / dnf install rpm-build)" >&2; exit 1; }

name=$(sed -n 's/^Name:[[:space:]]*//p' "$spec" | head -n 1)
version=$(sed -n 's/^Version:[[:space:]]*//p' "$spec" | head -n 1)
ac_version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$top/configure.ac")
if [ -n "$ac_version" ] && [ "$version" != "$ac_version" ]; then
	echo "build-rpm.sh: warning: the spec says $version, configure.ac $ac_version" >&2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibsnmpgw-rpm.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
topdir=$tmp/rpmbuild
mkdir -p -- "$topdir"/{BUILD,BUILDROOT,RPMS,SOURCES,SPECS,SRPMS}

# The clean tree, as NAME-VERSION/ in the tarball.
stage=$tmp/stage/$name-$version
mkdir -p -- "$stage"
bash "$top/packaging/copy-tree.sh" "$top" "$stage"
tar -C "$tmp/stage" --owner=0 --group=0 -czf "$topdir/SOURCES/$name-$version.tar.gz" "$name-$version"
cp -- "$spec" "$topdir/SPECS/"

rpmbuild -ba --nodeps --define "_topdir $topdir" \
	"$topdir/SPECS/${spec##*/}" >&2

shopt -s nullglob
srpms=("$topdir"/SRPMS/*.rpm)
rpms=("$topdir"/RPMS/*/*.rpm)
[ ${#rpms[@]} -gt 0 ] || { echo "build-rpm.sh: no binary RPM was produced" >&2; exit 1; }
main=""
for r in "${srpms[@]}" "${rpms[@]}"; do
	cp -- "$r" "$out/"
	case ${r##*/} in
	"$name-$version"-*.src.rpm) echo "$out/${r##*/}" ;;
	"$name-$version"-*.rpm) main=$out/${r##*/} ;;
	*) echo "$out/${r##*/}" ;;
	esac
done
[ -n "$main" ] || { echo "build-rpm.sh: no $name-$version-*.rpm among the RPMs" >&2; exit 1; }
echo "$main"
