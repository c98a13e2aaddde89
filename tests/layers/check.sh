#!/bin/sh
# The house's rules, checked on every include line and file; run by make
# check, which prints every violation.
#  1. Layers only look down: util < codec < store < proxy < gateway. No
#     file of a layer includes a header of a higher one.
#  2. gateway/mib/ holds the table files. They import the engine's API
#     (gateway/mib.h, gateway/oids.h, the notifier's read-only
#     gateway/notify.h) and their own folder's headers, never the rest
#     of gateway/.
#  3. The rest of gateway/ does not reach into gateway/mib/: only the
#     registration (gateway/mib_reg.c) reads the module list.
#  4. No file in gateway/ is longer than 1,000 lines, and no function
#     in it longer than 100.
top=${top_srcdir:-$(dirname "$0")/../..}
cd "$top" || exit 99

rank() {
	case $1 in
	util) echo 0 ;; codec) echo 1 ;; store) echo 2 ;; proxy) echo 3 ;;
	gateway) echo 4 ;; *) echo -1 ;;
	esac
}

bad=0
checked=0
complain() {
	echo "$*"
	bad=$((bad + 1))
}

for f in util/*.[ch] codec/*.[ch] store/*.[ch] proxy/*.[ch] gateway/*.[ch] \
    gateway/mib/*.[ch]; do
	[ -f "$f" ] || continue
	checked=$((checked + 1))
	own=$(rank "${f%%/*}")
	for inc in $(sed -n 's/^#[ \t]*include[ \t]*"\([a-z]*\/[^"]*\)".*/\1/p' "$f"); do
		r=$(rank "${inc%%/*}")
		[ "$r" -gt "$own" ] &&
			complain "$f includes $inc: ${f%%/*} is below ${inc%%/*}"
		case $f:$inc in
		gateway/mib/*:gateway/mib/*.h) ;;
		gateway/mib/*:gateway/mib.h|gateway/mib/*:gateway/oids.h) ;;
		gateway/mib/*:gateway/notify.h) ;;
		gateway/mib/*:gateway/*)
			complain "$f includes $inc: table files import only" \
			    "the engine's API and gateway/mib/" ;;
		gateway/mib_reg.c:gateway/mib/modules.h) ;;
		gateway/*:gateway/mib/*)
			complain "$f includes $inc: only gateway/mib_reg.c" \
			    "reads gateway/mib/ (its module list)" ;;
		esac
	done
done

# Sizes. Functions are found in the project's style: the name at the
# start of a line, the body from a "{" to a "}" in column 0.
for f in gateway/*.[ch] gateway/mib/*.[ch]; do
	[ -f "$f" ] || continue
	n=$(wc -l < "$f")
	[ "$n" -gt 1000 ] && complain "$f: $n lines (at most 1,000)"
	long=$(awk '
	/^[a-zA-Z_][a-zA-Z0-9_]*\(/ { name = $0; sub(/\(.*/, "", name) }
	/^\{/ { start = FNR }
	/^\}/ { if (start && FNR - start + 1 > 100)
			printf "%s (%d lines) ", name, FNR - start + 1
		start = 0 }' "$f")
	[ -n "$long" ] && complain "$f: functions over 100 lines: $long"
done

# The check must have seen the tree, or it proves nothing.
if [ "$checked" -lt 40 ]; then
	echo "only $checked files found under $top"
	exit 99
fi
echo "$checked files, $bad violations"
[ "$bad" -eq 0 ]
