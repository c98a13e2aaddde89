# Spell every OID of the MIB modules the gateway serves once, as C
# macros, from the MIB texts themselves (OpenBSD snmpd's mib.h, but
# generated, so it cannot drift from mibs/):
#   GW_ARC_<name>  the object's last arc (a column's or scalar's subid);
#   GW_OID_<name>  its whole OID, for objects that have children.
# Conformance statements (groups, compliances) are left out: no agent
# code names them. IBSNMPGW-MIB's OIDs are relative to snmp.sys-object-id-base, which
# stands in for ibsnmpgwMIB (the MIB's own value is a playpen default).
#
# Usage: awk -f mibs/gen-oids.awk mibs/std-arcs.smi mibs/IB-TC-MIB ... >
# gateway/oids.h. It fails on a parent it cannot resolve or a name
# defined twice.

function fail(msg) {
	printf("gen-oids: %s:%d: %s\n", FILENAME, FNR, msg) > "/dev/stderr"
	failed = 1
	exit 1
}

function define(name, parent, arc) {
	if (name in par)
		fail(name " defined twice")
	gsub(/-/, "_", parent)
	par[name] = parent
	num[name] = arc
	order[++n] = name
	file[name] = module
	haskids[parent] = 1
}

# A root spelt out from iso, as IEEE modules do: "{ iso std(0)
# iso8802(8802) ieee802dot1(1) ieee802dot1mibs(1) 2 }" (LLDP-MIB).
function define_root(name, f, nf,    i, p, a) {
	p = ""
	for (i = 1; i < nf; i++) {
		if (f[i] == "iso")
			a = 1
		else if (f[i] ~ /^[a-z][A-Za-z0-9-]*\([0-9]+\)$/) {
			a = f[i]
			sub(/.*\(/, "", a)
			sub(/\)/, "", a)
		} else
			fail("cannot read the value of " name ": " f[i])
		p = p == "" ? a : p ", " a
	}
	define(name, "", f[nf])
	root[name] = p ", " f[nf]
}

# The whole OID of name, or "" for ibsnmpgwMIB itself (the base).
function path(name,    p) {
	if (name == "ibsnmpgwMIB")
		return ""
	if (name in root)
		return root[name]
	if (!(name in par))
		fail("cannot resolve " name)
	p = path(par[name])
	return p == "" ? num[name] : p ", " num[name]
}

BEGIN {
	root["iso"] = "1"
	root["experimental"] = "1, 3, 6, 1, 3"
	root["mib_2"] = "1, 3, 6, 1, 2, 1"
	root["snmpModules"] = "1, 3, 6, 1, 6, 3"
	root["netSnmpPlaypen"] = "1, 3, 6, 1, 4, 1, 8072, 9999, 9999"
	kw = "(OBJECT-TYPE|OBJECT IDENTIFIER|MODULE-IDENTITY|OBJECT-IDENTITY|" \
	    "NOTIFICATION-TYPE)"
}

FNR == 1 {
	module = FILENAME
	sub(/.*\//, "", module)
	cur = pending = ""
}

{ sub(/--.*/, "") }

# "name MACRO ..." on one line, or the name alone and the macro next.
$0 ~ "^[a-z][A-Za-z0-9-]*[ \t]+" kw {
	cur = $1
	pending = ""
}
/^[a-z][A-Za-z0-9-]*[ \t]*$/ {
	pending = $1
	next
}
pending != "" && $0 ~ "^[ \t]+" kw {
	cur = pending
}
/[^ \t]/ { pending = "" }

# Conformance statements are read past, not defined.
$0 ~ "^[a-z][A-Za-z0-9-]*[ \t]+(OBJECT-GROUP|NOTIFICATION-GROUP|MODULE-COMPLIANCE)" {
	cur = ""
}

cur != "" && /::=[ \t]*\{/ {
	s = $0
	sub(/.*::=[ \t]*\{[ \t]*/, "", s)
	sub(/[ \t]*\}.*/, "", s)
	nf = split(s, f, /[ \t]+/)
	if (nf < 2 || f[nf] !~ /^[0-9]+$/)
		fail("cannot read the value of " cur ": { " s " }")
	if (nf == 2)
		define(cur, f[1], f[2])
	else
		define_root(cur, f, nf)
	cur = ""
}

END {
	if (failed)
		exit 1
	# Every name must resolve to a root, leaves too.
	for (i = 1; i <= n; i++)
		if (order[i] != "ibsnmpgwMIB")
			path(order[i])
	print "/* Made by make with mibs/gen-oids.awk from the MIB texts in"
	print " * mibs/. GW_ARC_x: x's last arc; GW_OID_x: x's OID (objects with"
	print " * children only). IBSNMPGW-MIB's are relative to"
	print " * snmp.sys-object-id-base. */"
	print "#ifndef IBSNMPGW_GW_MIB_OIDS_H"
	print "#define IBSNMPGW_GW_MIB_OIDS_H"
	last = ""
	for (i = 1; i <= n; i++) {
		name = order[i]
		if (file[name] != last) {
			printf("\n/* %s */\n", file[name])
			last = file[name]
		}
		c = name
		gsub(/-/, "_", c)
		if (c == "ibsnmpgwMIB")
			printf("#define GW_OID_%s_DEFAULT\t%s, %s\n", c,
			    path(par[c]), num[c])
		else if (c in haskids)
			printf("#define GW_OID_%s\t%s\n", c, path(c))
		printf("#define GW_ARC_%s\t%s\n", c, num[name])
	}
	print "\n#endif"
}
