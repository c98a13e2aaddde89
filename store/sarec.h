/* store_sarec: what the master SM's SA last answered about the records
 * only it knows (MCMemberRecord, ServiceRecord; IBA 15.2.5). Held in
 * memory, one snapshot per kind: proxy/sa.c replaces a snapshot when a
 * query completes, the fabric context reads it. A reader that finds a
 * snapshot older than cache.ttl.sa asks for a new one through a hook,
 * and meanwhile serves the old one. */
#ifndef IBSNMPGW_STORE_SAREC_H
#define IBSNMPGW_STORE_SAREC_H

#include <stddef.h>
#include <stdint.h>

enum store_sa_kind {
	STORE_SA_MCMEMBER,	/* MCMemberRecord 0x0038, 64 octets */
	STORE_SA_SERVICE,	/* ServiceRecord 0x0031, 176 octets */
	STORE_SA_MAX
};

struct store_sa_set {
	const uint8_t	*recs;		/* n records of recsize octets */
	size_t		 n, recsize;
	uint64_t	 when;		/* ms (ev_now) of the answer; 0: none */
	/* The SA announced more than arrived: a simulator without RMPP
	 * (tests/sim/README.md), or a reassembly that lost segments. */
	size_t		 announced;
	uint64_t	 changes;	/* times the contents changed */
	uint64_t	 changed;	/* ms of the last change */
};

/* The last snapshot of kind (n == 0 and when == 0 before any answer).
 * If older than the TTL, the refresh hook is asked for a new one. */
const struct store_sa_set *store_sa_get(enum store_sa_kind kind);
/* The same without asking for a refresh (statistics). */
const struct store_sa_set *store_sa_peek(enum store_sa_kind kind);
/* A completed query: copies n records. announced: how many the SA said
 * it had (n if it said nothing). Returns 0 or -1 (memory). */
int	store_sa_put(enum store_sa_kind kind, const uint8_t *recs, size_t n,
	    size_t recsize, size_t announced);
/* A failed query: the old snapshot stays, the failure is counted. */
void	store_sa_failed(enum store_sa_kind kind);
uint64_t store_sa_failures(enum store_sa_kind kind);
void	store_sa_set_refresh(void (*fn)(enum store_sa_kind, void *),
	    void *arg);
void	store_sa_finalise(void);

#endif
