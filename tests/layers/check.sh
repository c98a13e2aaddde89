#!/bin/sh
# Layers only look down: util < codec < store < proxy < gateway. No file
# of a layer includes a header of a higher one, and the gateway's table
# files (mib_*.c) import only gateway/mib.h and gateway/mib_node.h
# (the IB-SM-MIB files also gateway/mib_sm.h; the event and IF-MIB
# tables the notifier's read-only gateway/notify.h), never each other.
# Run by make check; prints every violation.
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
for f in util/*.[ch] codec/*.[ch] store/*.[ch] proxy/*.[ch] gateway/*.[ch]; do
	[ -f "$f" ] || continue
	checked=$((checked + 1))
	own=$(rank "${f%%/*}")
	for inc in $(sed -n 's/^#[ \t]*include[ \t]*"\([a-z]*\/[^"]*\)".*/\1/p' "$f"); do
		dir=${inc%%/*}
		r=$(rank "$dir")
		if [ "$r" -gt "$own" ]; then
			echo "$f includes $inc: ${f%%/*} is below $dir"
			bad=$((bad + 1))
		fi
		case $f in
		gateway/mib_node.[ch]|gateway/mib.[ch]|gateway/mib_sm.h) ;;
		gateway/mib_*.c)
			case $f:$inc in
			*:gateway/mib.h|*:gateway/mib_node.h) ;;
			gateway/mib_sm*.c:gateway/mib_sm.h) ;;
			gateway/mib_events.c:gateway/notify.h) ;;
			gateway/mib_if.c:gateway/notify.h) ;;
			*:gateway/*)
				echo "$f includes $inc: table files import" \
				    "only mib.h and mib_node.h"
				bad=$((bad + 1)) ;;
			esac ;;
		esac
	done
done
# The check must have seen the tree, or it proves nothing.
if [ "$checked" -lt 40 ]; then
	echo "only $checked files found under $top"
	exit 99
fi
echo "$checked files, $bad violations"
[ "$bad" -eq 0 ]
