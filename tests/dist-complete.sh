#!/bin/sh
# Every file git tracks is in the release tarball, but these few that
# only a checkout needs. distcheck proves the tarball builds and passes
# the static and unit tests; this proves nothing the other tests read
# (scripts, topologies, docs) was left out of EXTRA_DIST.
# Usage: dist-complete.sh TARBALL SRCDIR. Exit 77 outside a git checkout.
set -e
tarball=$1 src=$2
[ -f "$tarball" ] || { echo "dist-complete: $tarball: no such file"; exit 1; }
if ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	echo "dist-complete: SKIP: $src is not a git checkout"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar tzf "$tarball" | sed 's|^[^/]*/||' | sort -u > "$tmp/dist"
git -C "$src" ls-files | grep -v -x -e .gitignore -e m4/.keep |
    sort -u > "$tmp/git"
missing=$(comm -13 "$tmp/dist" "$tmp/git")
if [ -n "$missing" ]; then
	echo "dist-complete: tracked but not in $(basename "$tarball"):"
	echo "$missing" | sed 's/^/  /'
	exit 1
fi
echo "dist-complete: ok, $(wc -l < "$tmp/git") tracked files in the tarball"
