#!/bin/bash
# copy-tree.sh TOP DEST: copy the clean source tree at TOP into DEST.
#
# In a git checkout (TOP is the work tree's top): the files git knows
# about, i.e. tracked files plus untracked ones that .gitignore does not
# exclude, skipping files deleted from the work tree but still in the
# index.  In an unpacked release tarball (as under make distcheck, which
# may sit inside some other git checkout): the tree minus build and
# install directories.  packaging/out and a top-level debian/ are never
# copied.  Used by build-deb.sh and build-rpm.sh.
set -euo pipefail

top=$1 dest=$2
gittop=$(git -C "$top" rev-parse --show-toplevel 2>/dev/null || true)
if [ -n "$gittop" ] && [ "$(cd "$gittop" && pwd -P)" = "$(cd "$top" && pwd -P)" ]; then
	(
		cd "$top"
		git ls-files -z --cached --others --exclude-standard -- . \
			':(exclude)packaging/out' ':(exclude)debian' |
		while IFS= read -r -d '' f; do
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done |
		tar --null --no-recursion -T - -cf -
	) | tar -xf - -C "$dest"
elif [ -f "$top/configure.ac" ]; then
	tar -C "$top" --exclude=./_build --exclude=./_inst --exclude=./_check \
		--exclude=./packaging/out --exclude=./debian -cf - . |
		tar -xf - -C "$dest"
	chmod -R u+w -- "$dest"
else
	echo "copy-tree.sh: $top is neither a git work tree nor a release tree" >&2
	exit 1
fi
