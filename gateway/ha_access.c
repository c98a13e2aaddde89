/* The pair's SNMP access, as one digest: both gateways of a pair must
 * answer the same managers the same way (issue 22: USM users and
 * configuration the same on both, checked at start). HELLO carries it
 * (docs/ha.md); a peer whose digest differs is refused with that reason.
 *
 * What it covers: every USM user (name, authentication and privacy
 * protocols and passphrases, whether it may create fabric queries) and
 * every community (name, fabric queries). Order does not matter: the
 * entries' own SHA-256 digests are sorted before they are hashed
 * together. Node selectors and source networks are left out: they are
 * host-local in places (listen addresses) and compared by the operator's
 * review of the two files (docs/ha.md). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "gateway/conf.h"
#include "gateway/ha_int.h"

#define DLEN	32

static int
sha256(const void *a, size_t alen, uint8_t out[DLEN])
{
	unsigned int n = 0;

	return EVP_Digest(a, alen, out, &n, EVP_sha256(), NULL) == 1 &&
	    n == DLEN ? 0 : -1;
}

/* One entry: kind, then NUL-separated fields. */
static int
entry(uint8_t out[DLEN], char kind, const char *name, int auth,
    const char *ap, int priv, const char *pp, int fq)
{
	char b[1024];
	int n = snprintf(b, sizeof(b), "%c%c%s%c%d%c%s%c%d%c%s%c%d", kind, 0,
	    name ? name : "", 0, auth, 0, ap ? ap : "", 0, priv, 0,
	    pp ? pp : "", 0, fq);

	if (n < 0 || (size_t)n >= sizeof(b))
		return -1;
	return sha256(b, (size_t)n, out);
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
		    u->fabric_queries) == -1)
			goto out;
	}
	for (int i = 0; i < c->ncommunities; i++, k++) {
		const struct gw_community *m = &c->communities[i];

		if (entry(all + k * DLEN, 'c', m->name, 0, NULL, 0, NULL,
		    m->fabric_queries) == -1)
			goto out;
	}
	qsort(all, n, DLEN, cmp);
	rc = sha256(all, n * DLEN, out);
out:
	free(all);
	return rc;
}
