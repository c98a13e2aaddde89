/* The pair's SNMP access, as one digest: both gateways of a pair must
 * answer the same managers the same way (issue 22: USM users and
 * configuration the same on both, checked at start). HELLO carries it
 * (docs/ha.md); a peer whose digest differs is refused with that reason.
 *
 * What it covers: every USM user (name, authentication and privacy
 * protocols and passphrases, the nodes it may see, whether it may create
 * fabric queries) and every community (name, source networks, nodes,
 * fabric queries). Order does not matter where the file's order does
 * not: users, communities, a selector's GUIDs and a community's sources
 * are each sorted before they are hashed. Listen addresses are not in
 * it: they are each host's own. */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/evp.h>

#include "gateway/conf.h"
#include "gateway/ha_int.h"
#include "store/select.h"

#define DLEN	32

static int
sha256(const void *a, size_t alen, uint8_t out[DLEN])
{
	unsigned int n = 0;

	return EVP_Digest(a, alen, out, &n, EVP_sha256(), NULL) == 1 &&
	    n == DLEN ? 0 : -1;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A node selector, canonical: NodeType, glob, regex, sorted GUIDs. */
static int
put_select(FILE *f, const struct store_select *s)
{
	uint64_t *g = NULL;

	fprintf(f, "%c%d%c%d%c%s%c%s%c", 0, s->set, 0, s->type, 0,
	    s->glob ? s->glob : "", 0, s->regex_src ? s->regex_src : "", 0);
	if (s->nguids > 0) {
		if ((g = malloc((size_t)s->nguids * sizeof(*g))) == NULL)
			return -1;
		memcpy(g, s->guids, (size_t)s->nguids * sizeof(*g));
		qsort(g, (size_t)s->nguids, sizeof(*g), cmp_u64);
		for (int i = 0; i < s->nguids; i++)
			fprintf(f, "%016llx,", (unsigned long long)g[i]);
		free(g);
	}
	return 0;
}

/* A community's source networks, as sorted "addr/bits" strings. */
static int
put_sources(FILE *f, const struct gw_cidr *c, int n)
{
	char (*s)[INET6_ADDRSTRLEN + 8];
	char **p;

	fputc(0, f);
	if (n <= 0)
		return 0;
	s = calloc((size_t)n, sizeof(*s));
	p = calloc((size_t)n, sizeof(*p));
	if (s == NULL || p == NULL) {
		free(s);
		free(p);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char a[INET6_ADDRSTRLEN] = "?";

		inet_ntop(c[i].family, c[i].addr, a, sizeof(a));
		snprintf(s[i], sizeof(s[i]), "%s/%d", a, c[i].bits);
		p[i] = s[i];
	}
	qsort(p, (size_t)n, sizeof(*p), cmp_str);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s,", p[i]);
	free(p);
	free(s);
	return 0;
}

/* One entry's digest: kind, then NUL-separated fields. */
static int
entry(uint8_t out[DLEN], char kind, const char *name, int auth,
    const char *ap, int priv, const char *pp, int fq,
    const struct store_select *sel, const struct gw_cidr *src, int nsrc)
{
	char *b = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&b, &n);
	int rc = -1;

	if (f == NULL)
		return -1;
	fprintf(f, "%c%c%s%c%d%c%s%c%d%c%s%c%d", kind, 0, name ? name : "",
	    0, auth, 0, ap ? ap : "", 0, priv, 0, pp ? pp : "", 0, fq);
	if (put_select(f, sel) == -1 || put_sources(f, src, nsrc) == -1) {
		fclose(f);
		free(b);
		return -1;
	}
	if (fclose(f) == 0)
		rc = sha256(b, n, out);
	free(b);
	return rc;
}

static int
cmp(const void *a, const void *b)
{
	return memcmp(a, b, DLEN);
}

int
ha_access_digest(const struct gw_conf *c, uint8_t out[DLEN])
{
	size_t n = (size_t)c->nusers + (size_t)c->ncommunities, k = 0;
	uint8_t *all = calloc(n ? n : 1, DLEN);
	int rc = -1;

	if (all == NULL)
		return -1;
	for (int i = 0; i < c->nusers; i++, k++) {
		const struct gw_user *u = &c->users[i];

		if (entry(all + k * DLEN, 'u', u->name, (int)u->auth,
		    u->auth_pass, (int)u->priv, u->priv_pass,
		    u->fabric_queries, &u->nodes, NULL, 0) == -1)
			goto out;
	}
	for (int i = 0; i < c->ncommunities; i++, k++) {
		const struct gw_community *m = &c->communities[i];

		if (entry(all + k * DLEN, 'c', m->name, 0, NULL, 0, NULL,
		    m->fabric_queries, &m->nodes, m->sources,
		    m->nsources) == -1)
			goto out;
	}
	qsort(all, n, DLEN, cmp);
	rc = sha256(all, n * DLEN, out);
out:
	free(all);
	return rc;
}
