/* store_topo: ibnetdiscover's topology format, read and written.
 *
 * What ibnetdiscover(8) prints, per node (infiniband-diags):
 *
 *   vendid=0x2c9                          \
 *   devid=0xcf08                           | optional
 *   sysimgguid=0x2c90300aa0104            /
 *   switchguid=0x2c90300aa0104(2c9...)    the node GUID (caguid=,
 *                                         routerguid=)
 *   Switch 36 "S-0002c90300aa0104"  # "leaf04" enhanced port 0 lid 6 lmc 0
 *   [1] "H-0002c90300bb0700"[1](2c90300bb0701)  # "node07 HCA-1" lid 113 4xEDR
 *   Ca 2 "H-0002c90300bb0800"  # "node08 HCA-1"
 *   [1](2c90300bb0801) "S-0002c90300aa0104"[2]  # lid 115 lmc 0 "leaf04" lid 6 4xEDR
 *
 * A node is named by the quoted id; its GUID is the *guid= line above
 * the header, else the id's when it is "S-", "H-" or "R-" and 16 hex
 * digits; a node with neither is matched by its description (the
 * header comment's quoted string, else the id). A cable is usually
 * listed from both ends; both must agree. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "codec/smp.h"
#include "store/topo.h"
#include "util/htab.h"

#define MAX_ERRORS	20
#define MAX_FILE	(64 << 20)

/* A port line before every node is known. */
struct pend {
	uint32_t	node;
	uint8_t		port, rport, lanes, speed;
	int		line;
	char		rid[STORE_TOPO_ID_LEN + 1];
};

struct parse {
	const char		*name;
	FILE			*err;
	int			 line, errors;
	struct store_topo	*t;
	size_t			 ncap, lcap, npend, pcap;
	struct pend		*pend;
	struct htab		 by_id, by_guid, ends;
	long			 cur;		/* node of the port lines */
	uint64_t		 next_guid;	/* a *guid= line's */
	int			 next_guid_line;
};

static void
perr(struct parse *ps, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
perr(struct parse *ps, int line, const char *fmt, ...)
{
	va_list ap;

	if (ps->errors++ >= MAX_ERRORS)
		return;
	if (ps->err == NULL)
		return;
	fprintf(ps->err, "%s:%d: ", ps->name, line);
	va_start(ap, fmt);
	vfprintf(ps->err, fmt, ap);
	va_end(ap);
	fputc('\n', ps->err);
}

static const char *
skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* "..." into buf; the position after it, or NULL. */
static const char *
quoted(const char *p, char *buf, size_t len)
{
	const char *q;

	if (*p != '"' || (q = strchr(p + 1, '"')) == NULL ||
	    (size_t)(q - p - 1) >= len)
		return NULL;
	memcpy(buf, p + 1, q - p - 1);
	buf[q - p - 1] = '\0';
	return q + 1;
}

/* [N] with 0 <= N <= 255. */
static const char *
bracket(const char *p, uint8_t *num)
{
	char *end;
	unsigned long v;

	if (*p != '[' || !isdigit((unsigned char)p[1]))
		return NULL;
	v = strtoul(p + 1, &end, 10);
	if (*end != ']' || v > 255)
		return NULL;
	*num = (uint8_t)v;
	return end + 1;
}

/* (hex GUID) */
static const char *
paren_guid(const char *p, uint64_t *guid)
{
	const char *q;

	if (*p != '(' || (q = strchr(p, ')')) == NULL ||
	    store_parse_guid(p + 1, q - p - 1, guid) == -1)
		return NULL;
	return q + 1;
}

static uint8_t
speed_code(const char *s, size_t len)
{
	/* FDR10 is a vendor extension: PortInfo's own fields say QDR. */
	if (len == 5 && strncmp(s, "FDR10", 5) == 0)
		return SMP_SPEED_QDR;
	for (int i = SMP_SPEED_SDR; i <= SMP_SPEED_XDR; i++)
		if (strlen(smp_speed_name(i)) == len &&
		    strncmp(s, smp_speed_name(i), len) == 0)
			return (uint8_t)i;
	return 0;
}

/* A comment's "4xEDR" token, if any (ibnetdiscover -f adds more). */
static void
comment_rate(const char *p, uint8_t *lanes, uint8_t *speed)
{
	while (*(p = skip_ws(p)) != '\0') {
		const char *e = p + strcspn(p, " \t\r\n");
		char *x;
		unsigned long w = strtoul(p, &x, 10);

		if (x > p && *x == 'x' && (w == 1 || w == 2 || w == 4 ||
		    w == 8 || w == 12) && speed_code(x + 1, e - x - 1)) {
			*lanes = (uint8_t)w;
			*speed = speed_code(x + 1, e - x - 1);
		}
		p = e;
	}
}

static int
grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;
	size_t c;

	if (n < *cap)
		return 0;
	for (c = *cap ? *cap * 2 : 64; c <= n; c *= 2)
		;
	if ((q = reallocarray(*p, c, size)) == NULL)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

/* vendid=, devid=, sysimgguid= and the node's GUID line. */
static void
key_line(struct parse *ps, const char *p)
{
	static const char *guids[] = { "switchguid=", "caguid=",
	    "routerguid=" };
	uint64_t g;

	if (strncmp(p, "vendid=", 7) == 0 || strncmp(p, "devid=", 6) == 0 ||
	    strncmp(p, "sysimgguid=", 11) == 0)
		return;
	for (size_t i = 0; i < 3; i++) {
		size_t kl = strlen(guids[i]), n;

		if (strncmp(p, guids[i], kl) != 0)
			continue;
		p += kl;
		n = strcspn(p, "( \t\r\n");
		if (store_parse_guid(p, n, &g) == -1 || g == 0) {
			perr(ps, ps->line, "bad GUID in %.*s", (int)kl - 1,
			    guids[i]);
			return;
		}
		ps->next_guid = g;
		ps->next_guid_line = ps->line;
		return;
	}
	perr(ps, ps->line, "unknown line (not ibnetdiscover's output?)");
}

/* The GUID in an id that ibnetdiscover made ("S-" and 16 digits). */
static uint64_t
id_guid(const char *id)
{
	uint64_t g;

	if (strlen(id) != 18 || id[1] != '-' || strchr("SHR", id[0]) == NULL ||
	    store_parse_guid(id + 2, 16, &g) == -1)
		return 0;
	return g;
}

static int
header_type(const char *p, size_t *kw)
{
	static const struct { const char *w; int type; } kws[] = {
		{ "Switch", STORE_NODE_SWITCH }, { "Ca", STORE_NODE_CA },
		{ "Rt", STORE_NODE_ROUTER },
	};

	for (size_t i = 0; i < 3; i++) {
		size_t l = strlen(kws[i].w);

		if (strncmp(p, kws[i].w, l) == 0 && (p[l] == ' ' ||
		    p[l] == '\t')) {
			*kw = l;
			return kws[i].type;
		}
	}
	return 0;
}

static int
add_node(struct parse *ps, struct store_topo_node *n)
{
	struct store_topo *t = ps->t;
	uintptr_t prev;

	if ((prev = (uintptr_t)htab_get(&ps->by_id, n->id, strlen(n->id)))) {
		perr(ps, n->line, "node \"%s\" again (first at line %d)",
		    n->id, t->nodes[prev - 1].line);
		return -1;
	}
	if (n->guid && (prev = (uintptr_t)htab_get_u64(&ps->by_guid,
	    n->guid))) {
		perr(ps, n->line, "GUID 0x%016llx again (first at line %d)",
		    (unsigned long long)n->guid, t->nodes[prev - 1].line);
		return -1;
	}
	if (grow((void **)&t->nodes, &ps->ncap, t->nnodes,
	    sizeof(*t->nodes)) == -1)
		return -1;
	t->nodes[t->nnodes++] = *n;
	if (htab_put(&ps->by_id, n->id, strlen(n->id),
	    (void *)(uintptr_t)t->nnodes) == -1 || (n->guid &&
	    htab_put_u64(&ps->by_guid, n->guid,
	    (void *)(uintptr_t)t->nnodes) == -1))
		return -1;
	ps->cur = (long)t->nnodes - 1;
	return 0;
}

/* Switch N "id"  # "desc" ... */
static void
header_line(struct parse *ps, const char *p, int type, size_t kw)
{
	struct store_topo_node n;
	unsigned long np;
	char *end;

	memset(&n, 0, sizeof(n));
	n.type = (uint8_t)type;
	n.line = ps->line;
	ps->cur = -1;
	np = strtoul(p + kw, &end, 10);
	if (end == p + kw || np < 1 || np > 254) {
		perr(ps, ps->line, "a node's port count must be 1 to 254");
		return;
	}
	n.nports = (uint8_t)np;
	if ((p = quoted(skip_ws(end), n.id, sizeof(n.id))) == NULL ||
	    n.id[0] == '\0') {
		perr(ps, ps->line, "expected the node's id in double quotes "
		    "(at most %d characters)", STORE_TOPO_ID_LEN);
		return;
	}
	p = skip_ws(p);
	if (*p == '#') {
		/* A node-name-map name may be longer than a NodeDescription
		 * (IBA 14.2.5.2: 64 octets): its start is kept. */
		const char *d = skip_ws(p + 1), *e;

		if (*d == '"' && (e = strchr(d + 1, '"')) != NULL)
			snprintf(n.desc, sizeof(n.desc), "%.*s",
			    (int)(e - d - 1), d + 1);
	} else if (*p != '\0' && *p != '\r' && *p != '\n') {
		perr(ps, ps->line, "unexpected text after the node's id");
		return;
	}
	n.guid = ps->next_guid_line ? ps->next_guid : id_guid(n.id);
	ps->next_guid = 0;
	ps->next_guid_line = 0;
	if (n.desc[0] == '\0' && n.guid == 0)	/* an id as long as 80: cut */
		snprintf(n.desc, sizeof(n.desc), "%.*s", STORE_DESC_LEN, n.id);
	(void)add_node(ps, &n);
}

/* [p](guid)  "rid"[rp](rguid)  # ... */
static void
port_line(struct parse *ps, const char *p)
{
	struct pend pd;
	uint64_t g;
	uint8_t ext;
	const char *q;

	memset(&pd, 0, sizeof(pd));
	pd.line = ps->line;
	if (ps->cur < 0) {
		perr(ps, ps->line, "a port line before any node header");
		return;
	}
	pd.node = (uint32_t)ps->cur;
	if ((p = bracket(p, &pd.port)) == NULL || pd.port == 0 ||
	    pd.port > ps->t->nodes[pd.node].nports) {
		perr(ps, ps->line, "expected [PORT] with PORT 1 to %u",
		    ps->t->nodes[pd.node].nports);
		return;
	}
	if ((q = paren_guid(p, &g)) != NULL)
		p = q;
	if ((q = bracket(p, &ext)) != NULL)	/* an external port number */
		p = q;
	if ((p = quoted(skip_ws(p), pd.rid, sizeof(pd.rid))) == NULL ||
	    (p = bracket(p, &pd.rport)) == NULL || pd.rport == 0) {
		perr(ps, ps->line, "expected \"REMOTE-ID\"[PORT] after the "
		    "port number");
		return;
	}
	if ((q = paren_guid(p, &g)) != NULL)
		p = q;
	if ((q = bracket(p, &ext)) != NULL)
		p = q;
	p = skip_ws(p);
	if (*p == '#')
		comment_rate(p + 1, &pd.lanes, &pd.speed);
	else if (*p != '\0' && *p != '\r' && *p != '\n') {
		perr(ps, ps->line, "unexpected text after the remote port");
		return;
	}
	if (grow((void **)&ps->pend, &ps->pcap, ps->npend,
	    sizeof(*ps->pend)) == -1)
		return;
	ps->pend[ps->npend++] = pd;
}

static void
parse_line(struct parse *ps, const char *p)
{
	size_t kw;
	int type;

	p = skip_ws(p);
	if (*p == '\0' || *p == '#' || *p == '\r' || *p == '\n')
		return;
	if (*p == '[')
		port_line(ps, p);
	else if ((type = header_type(p, &kw)) != 0)
		header_line(ps, p, type, kw);
	else if (isalpha((unsigned char)*p) && strchr(p, '=') != NULL) {
		if (ps->cur >= 0 || !ps->next_guid_line)
			ps->cur = -1;
		key_line(ps, p);
	} else
		perr(ps, ps->line, "unknown line (not ibnetdiscover's "
		    "output?)");
}

static uint64_t
end_key(uint32_t node, uint8_t port)
{
	return (uint64_t)node << 8 | port;
}

static int
same_end(const struct store_topo_link *l, uint32_t n, uint8_t p, int b)
{
	return b ? l->b == n && l->pb == p : l->a == n && l->pa == p;
}

/* Where a port's line says the cable goes, checked against what the
 * other end (or an earlier line) said. */
static void
resolve(struct parse *ps, const struct pend *pd)
{
	struct store_topo *t = ps->t;
	uintptr_t r = (uintptr_t)htab_get(&ps->by_id, pd->rid,
	    strlen(pd->rid)), li;
	struct store_topo_link *l, nl;

	if (r == 0) {
		perr(ps, pd->line, "\"%s\" is no node of the file", pd->rid);
		return;
	}
	r--;
	if (pd->rport > t->nodes[r].nports) {
		perr(ps, pd->line, "\"%s\" has %u ports, not %u", pd->rid,
		    t->nodes[r].nports, pd->rport);
		return;
	}
	if (r == pd->node && pd->rport == pd->port) {
		perr(ps, pd->line, "a port cabled to itself");
		return;
	}
	li = (uintptr_t)htab_get_u64(&ps->ends, end_key(pd->node, pd->port));
	if (li == 0)
		li = (uintptr_t)htab_get_u64(&ps->ends, end_key((uint32_t)r,
		    pd->rport));
	if (li != 0) {
		l = &t->links[li - 1];
		if (!((same_end(l, pd->node, pd->port, 0) &&
		    same_end(l, (uint32_t)r, pd->rport, 1)) ||
		    (same_end(l, pd->node, pd->port, 1) &&
		    same_end(l, (uint32_t)r, pd->rport, 0)))) {
			perr(ps, pd->line, "\"%s\"[%u] - \"%s\"[%u] disagrees "
			    "with line %d", t->nodes[pd->node].id, pd->port,
			    pd->rid, pd->rport, l->line);
			return;
		}
		if (l->lanes == 0) {
			l->lanes = pd->lanes;
			l->speed = pd->speed;
		}
		return;
	}
	if (grow((void **)&t->links, &ps->lcap, t->nlinks,
	    sizeof(*t->links)) == -1)
		return;
	memset(&nl, 0, sizeof(nl));
	nl.a = pd->node, nl.pa = pd->port;
	nl.b = (uint32_t)r, nl.pb = pd->rport;
	nl.lanes = pd->lanes, nl.speed = pd->speed, nl.line = pd->line;
	t->links[t->nlinks++] = nl;
	if (htab_put_u64(&ps->ends, end_key(nl.a, nl.pa),
	    (void *)(uintptr_t)t->nlinks) == -1 ||
	    htab_put_u64(&ps->ends, end_key(nl.b, nl.pb),
	    (void *)(uintptr_t)t->nlinks) == -1)
		ps->errors++;
}

static void
parse_free(struct parse *ps)
{
	htab_free(&ps->by_id);
	htab_free(&ps->by_guid);
	htab_free(&ps->ends);
	free(ps->pend);
}

struct store_topo *
store_topo_parse(const char *name, const char *text, size_t len, FILE *err)
{
	struct parse ps;
	char line[1024];

	memset(&ps, 0, sizeof(ps));
	ps.name = name, ps.err = err, ps.cur = -1;
	htab_init(&ps.by_id);
	htab_init(&ps.by_guid);
	htab_init(&ps.ends);
	if ((ps.t = calloc(1, sizeof(*ps.t))) == NULL)
		ps.errors++;
	for (size_t off = 0; ps.t != NULL && off < len; ) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - text - off) : len - off;

		ps.line++;
		if (ll >= sizeof(line) || memchr(text + off, '\0', ll))
			perr(&ps, ps.line, ll >= sizeof(line) ?
			    "line too long" : "a NUL character");
		else {
			memcpy(line, text + off, ll);
			line[ll] = '\0';
			parse_line(&ps, line);
		}
		off += ll + 1;
	}
	for (size_t i = 0; ps.t != NULL && i < ps.npend; i++)
		resolve(&ps, &ps.pend[i]);
	if (ps.t != NULL && ps.t->nnodes == 0 && ps.errors == 0)
		perr(&ps, ps.line, "no node (not ibnetdiscover's output?)");
	parse_free(&ps);
	if (ps.errors > MAX_ERRORS && err != NULL)
		fprintf(err, "%s: %d more errors\n", name,
		    ps.errors - MAX_ERRORS);
	if (ps.errors) {
		store_topo_free(ps.t);
		return NULL;
	}
	return ps.t;
}

struct store_topo *
store_topo_load(const char *path, FILE *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	struct store_topo *t = NULL;

	if (f == NULL) {
		if (err != NULL)
			fprintf(err, "%s: %s\n", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 65536 > cap && (cap > MAX_FILE || grow((void **)&buf,
		    &cap, len + 65536, 1) == -1))
			break;
		if ((n = fread(buf + len, 1, cap - len, f)) == 0)
			break;
		len += n;
	}
	if (ferror(f) || !feof(f)) {
		if (err != NULL)
			fprintf(err, "%s: %s\n", path, ferror(f) ?
			    strerror(errno) : "larger than 64 MB");
	} else
		t = store_topo_parse(path, buf ? buf : "", len, err);
	fclose(f);
	free(buf);
	return t;
}

void
store_topo_free(struct store_topo *t)
{
	if (t == NULL)
		return;
	free(t->nodes);
	free(t->links);
	free(t);
}

const char *
store_topo_rate(uint8_t lanes, uint8_t speed, char *buf, size_t len)
{
	if (lanes == 0 && speed == 0)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "%ux%s", lanes, speed ?
		    smp_speed_name(speed) : "?");
	return buf;
}

void
store_topo_port_rate(const struct store_port *pt, uint8_t *lanes,
    uint8_t *speed)
{
	struct smp_portinfo pi;

	memset(&pi, 0, sizeof(pi));
	pi.state = pt->state;
	pi.width_active = pt->width;
	if (pt->speed & 0x80)
		pi.speed_ext_active = pt->speed & 0x7f;
	else
		pi.speed_active = pt->speed;
	*speed = (uint8_t)smp_speed_active(&pi);
	*lanes = *speed ? (uint8_t)smp_width_lanes(pt->width) : 0;
}

/* A description as a quoted string can hold it. */
static const char *
desc_quotable(const char *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s", d);
	for (char *p = buf; *p; p++)
		if (*p == '"' || *p == '\n' || *p == '\r')
			*p = '\'';
	return buf;
}

static void
write_node(const struct store_topo *t, size_t i, const uint32_t *ends,
    FILE *f)
{
	static const char *kw[] = { "?", "Ca", "Switch", "Rt" },
	    *gk[] = { "?", "caguid", "switchguid", "routerguid" };
	const struct store_topo_node *n = &t->nodes[i];
	char d[STORE_DESC_LEN + 1], r[16];

	fputc('\n', f);
	if (n->guid && n->type == STORE_NODE_SWITCH)
		fprintf(f, "%s=0x%llx(%llx)\n", gk[n->type],
		    (unsigned long long)n->guid, (unsigned long long)n->guid);
	else if (n->guid && n->type <= STORE_NODE_ROUTER)
		fprintf(f, "%s=0x%llx\n", gk[n->type],
		    (unsigned long long)n->guid);
	fprintf(f, "%s\t%u \"%s\"\t\t# \"%s\"\n", kw[n->type <= 3 ?
	    n->type : 0], n->nports, n->id, desc_quotable(n->desc, d,
	    sizeof(d)));
	for (unsigned p = 1; p <= n->nports; p++) {
		const struct store_topo_link *l;
		uint32_t o;
		uint8_t op;

		if (ends[p] == 0)
			continue;
		l = &t->links[ends[p] - 1];
		o = l->a == i && l->pa == p ? l->b : l->a;
		op = l->a == i && l->pa == p ? l->pb : l->pa;
		fprintf(f, "[%u]\t\"%s\"[%u]\t\t# \"%s\" %s\n", p,
		    t->nodes[o].id, op, desc_quotable(t->nodes[o].desc, d,
		    sizeof(d)), store_topo_rate(l->lanes, l->speed, r,
		    sizeof(r)));
	}
}

void
store_topo_write(const struct store_topo *t, FILE *f)
{
	size_t *off = calloc(t->nnodes + 1, sizeof(*off));
	uint32_t *ends;

	if (off == NULL)
		return;
	for (size_t i = 0; i < t->nnodes; i++)
		off[i + 1] = off[i] + t->nodes[i].nports + 1;
	if ((ends = calloc(off[t->nnodes] + 1, sizeof(*ends))) == NULL) {
		free(off);
		return;
	}
	for (size_t k = 0; k < t->nlinks; k++) {
		ends[off[t->links[k].a] + t->links[k].pa] = (uint32_t)k + 1;
		ends[off[t->links[k].b] + t->links[k].pb] = (uint32_t)k + 1;
	}
	fprintf(f, "#\n# Topology file: the blueprint ibsnmpgw keeps\n#\n");
	/* Switches first, as ibnetdiscover prints them. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < t->nnodes; i++)
			if ((t->nodes[i].type == STORE_NODE_SWITCH) == !pass)
				write_node(t, i, ends + off[i], f);
	free(ends);
	free(off);
}
