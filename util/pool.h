/* pool: fixed-size objects that live long (cache entries, counter
 * accumulators) in blocks mapped apart from the malloc heap.
 *
 * At 10,000 nodes the gateway holds ~90,000 cache entries and ~26,000
 * accumulator sets, made while sweeps and polls allocate and free far
 * more short-lived requests. In one heap, those requests' holes stay
 * mapped between the long-lived objects (13 MB measured after a polling
 * round and 20 sweeps). Here the long-lived objects pack their own
 * blocks, with no per-object header, and the heap's holes coalesce and
 * are trimmed. Built with AddressSanitizer, objects are plain calloc()s
 * so that every check still applies. */
#ifndef IBSNMPGW_POOL_H
#define IBSNMPGW_POOL_H

#include <stddef.h>

/* Built with AddressSanitizer: objects are plain allocations, and other
 * modules that recycle memory (proxy/mad.c) do not either. */
#if defined(__SANITIZE_ADDRESS__)
#define POOL_MALLOC	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_MALLOC	1
#endif
#endif

struct pool {
	size_t	 size;		/* object size, rounded up to 8 */
	void	*free;		/* freed objects, linked through them */
	void	*blocks;	/* mapped blocks, linked through their head */
	char	*next, *end;	/* the newest block's unused tail */
	size_t	 nobj;		/* objects in use */
	size_t	 nblocks;
};

void	 pool_init(struct pool *p, size_t size);
/* A zeroed object, or NULL when memory is short. */
void	*pool_get(struct pool *p);
void	 pool_put(struct pool *p, void *obj);
/* Every block back to the system: all objects are gone. */
void	 pool_free(struct pool *p);
/* Bytes mapped for the pool (ctl stats, tests). */
size_t	 pool_mapped(const struct pool *p);

/* A region: objects of any size that all go at once (a sweep's nodes
 * and port arrays, ~10 MB at 10,000 nodes), bumped from mapped blocks,
 * so that a sweep leaves no holes in the heap. */
struct pool_region {
	void	*blocks;	/* mapped (or, under ASan, malloc'd) */
	char	*next, *end;
	size_t	 used;		/* bytes handed out */
};

#define POOL_REGION_INIT	{ NULL, NULL, NULL, 0 }
/* len zeroed bytes, 16-aligned, or NULL when memory is short. */
void	*pool_region_alloc(struct pool_region *r, size_t len);
/* Everything allocated from r goes. */
void	 pool_region_free(struct pool_region *r);

#endif
