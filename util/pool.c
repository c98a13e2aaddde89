/* pool: fixed-size objects in blocks mapped apart from the heap (see
 * pool.h for why). */
#include "config.h"

#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "util/pool.h"

#define POOL_BLOCK	(256 * 1024)
#define POOL_HEAD	16	/* the block's link, kept 16-aligned */

void
pool_init(struct pool *p, size_t size)
{
	memset(p, 0, sizeof(*p));
	p->size = (size + 7) & ~(size_t)7;
	if (p->size < sizeof(void *))
		p->size = sizeof(void *);
}

#ifndef POOL_MALLOC
/* One more block; its objects are carved from next..end. */
static int
pool_grow(struct pool *p)
{
	size_t len = p->size + POOL_HEAD > POOL_BLOCK ? p->size + POOL_HEAD :
	    POOL_BLOCK;
	char *b = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (b == MAP_FAILED)
		return -1;
	*(void **)b = p->blocks;
	p->blocks = b;
	p->next = b + POOL_HEAD;
	p->end = b + len;
	p->nblocks++;
	return 0;
}
#endif

void *
pool_get(struct pool *p)
{
	void *o;

#ifdef POOL_MALLOC
	o = calloc(1, p->size);
#else
	if ((o = p->free) != NULL) {
		p->free = *(void **)o;
		memset(o, 0, p->size);
	} else {
		if ((size_t)(p->end - p->next) < p->size && pool_grow(p) == -1)
			return NULL;
		o = p->next;	/* fresh mapped memory is zero */
		p->next += p->size;
	}
#endif
	if (o != NULL)
		p->nobj++;
	return o;
}

void
pool_put(struct pool *p, void *o)
{
	if (o == NULL)
		return;
	p->nobj--;
#ifdef POOL_MALLOC
	free(o);
#else
	*(void **)o = p->free;
	p->free = o;
#endif
}

void
pool_free(struct pool *p)
{
	size_t len = p->size + POOL_HEAD > POOL_BLOCK ? p->size + POOL_HEAD :
	    POOL_BLOCK;

	while (p->blocks != NULL) {
		void *b = p->blocks;

		p->blocks = *(void **)b;
		munmap(b, len);
	}
	pool_init(p, p->size);
}

size_t
pool_mapped(const struct pool *p)
{
	return p->nblocks * (p->size + POOL_HEAD > POOL_BLOCK ?
	    p->size + POOL_HEAD : POOL_BLOCK);
}

/* Regions. A block starts with its link and its length. */
struct region_block {
	struct region_block	*next;
	size_t			 len;
};
#define REGION_HEAD	((sizeof(struct region_block) + 15) & ~(size_t)15)

static void *
block_new(size_t len)
{
#ifdef POOL_MALLOC
	return calloc(1, len);
#else
	/* Populated: a region is filled from its start right away (a
	 * sweep's nodes), and 64 page faults a block were 4% of a sweep's
	 * loop thread. */
	void *b = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return b == MAP_FAILED ? NULL : b;
#endif
}

/* Whether the newest block has len bytes left. Under ASan every object
 * is its own block, so that ASan sees each one's bounds. */
static int
region_room(const struct pool_region *r, size_t len)
{
#ifdef POOL_MALLOC
	return 0;
#else
	return (size_t)(r->end - r->next) >= len;
#endif
}

static size_t
region_block_len(size_t len)
{
#ifdef POOL_MALLOC
	return len + REGION_HEAD;
#else
	return len + REGION_HEAD > POOL_BLOCK ? len + REGION_HEAD : POOL_BLOCK;
#endif
}

void *
pool_region_alloc(struct pool_region *r, size_t len)
{
	struct region_block *b;
	void *o;

	len = (len + 15) & ~(size_t)15;
	if (!region_room(r, len)) {
		size_t blen = region_block_len(len);

		if ((b = block_new(blen)) == NULL)
			return NULL;
		b->next = r->blocks;
		b->len = blen;
		r->blocks = b;
		r->next = (char *)b + REGION_HEAD;
		r->end = (char *)b + blen;
	}
	o = r->next;	/* fresh blocks are zero */
	r->next += len;
	r->used += len;
	return o;
}

void
pool_region_free(struct pool_region *r)
{
	struct region_block *b, *nx;

	for (b = r->blocks; b != NULL; b = nx) {
		nx = b->next;
#ifdef POOL_MALLOC
		free(b);
#else
		munmap(b, b->len);
#endif
	}
	r->blocks = NULL;
	r->next = r->end = NULL;
	r->used = 0;
}
