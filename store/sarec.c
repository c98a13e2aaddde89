/* store_sarec: in-memory snapshots of SA records (store/sarec.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "store/cache.h"
#include "store/sarec.h"
#include "util/ev.h"
#include "util/log.h"

struct sa_slot {
	struct store_sa_set	 set;
	uint8_t			*buf;
	uint64_t		 failures;
};

static struct sa_slot	 sa_slots[STORE_SA_MAX];
static void		(*sa_refresh)(enum store_sa_kind, void *);
static void		*sa_refresh_arg;

void
store_sa_set_refresh(void (*fn)(enum store_sa_kind, void *), void *arg)
{
	sa_refresh = fn;
	sa_refresh_arg = arg;
}

const struct store_sa_set *
store_sa_get(enum store_sa_kind kind)
{
	struct sa_slot *s = &sa_slots[kind];

	/* Stale or never read: ask (the hook keeps one query in flight),
	 * answer with what there is. */
	if (sa_refresh != NULL && (s->set.when == 0 || ev_now() -
	    s->set.when >= (uint64_t)cache_get_ttl(ATTR_TTL_SA) * 1000))
		sa_refresh(kind, sa_refresh_arg);
	return &s->set;
}

const struct store_sa_set *
store_sa_peek(enum store_sa_kind kind)
{
	return &sa_slots[kind].set;
}

int
store_sa_put(enum store_sa_kind kind, const uint8_t *recs, size_t n,
    size_t recsize, size_t announced)
{
	struct sa_slot *s = &sa_slots[kind];
	size_t len = n * recsize;
	uint8_t *b = NULL;

	if (len > 0 && (b = malloc(len)) == NULL) {
		log_warn("store: SA records");
		s->failures++;
		return -1;
	}
	if (len > 0)
		memcpy(b, recs, len);
	if (s->set.when == 0 || s->set.n != n || s->set.recsize != recsize ||
	    (len > 0 && memcmp(s->buf, b, len) != 0)) {
		s->set.changes++;
		s->set.changed = ev_now();
	}
	free(s->buf);
	s->buf = b;
	s->set.recs = b;
	s->set.n = n;
	s->set.recsize = recsize;
	s->set.announced = announced > n ? announced : n;
	s->set.when = ev_now();
	return 0;
}

void
store_sa_failed(enum store_sa_kind kind)
{
	sa_slots[kind].failures++;
}

uint64_t
store_sa_failures(enum store_sa_kind kind)
{
	return sa_slots[kind].failures;
}

void
store_sa_finalise(void)
{
	int i;

	for (i = 0; i < STORE_SA_MAX; i++) {
		free(sa_slots[i].buf);
		memset(&sa_slots[i], 0, sizeof(sa_slots[i]));
	}
	sa_refresh = NULL;
}
