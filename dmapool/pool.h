/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The pool: what every core file shares.
 */
#ifndef DMAPOOL_POOL_H
#define DMAPOOL_POOL_H

#include "index.h"
#include "harden.h"

/* What a handle names: a chunk (its generations are in the chunk). */
struct dp_slot {
	struct dp_chunk *chunk;		/* NULL: slot free */
};

struct dmapool {
	/* Hot: read on every alloc and free. */
	struct dp_lock lock;
	unsigned int flags;		/* DMAPOOL_OPT_* */
	unsigned int hooks;		/* DP_HOOK_*: 0 = no hardening work */
	bool handles;			/* some chunk keeps generations */
	bool handle_fast;		/* handles and not special */
	bool special;			/* free is not the radix fast path: another
					 * index, thread caches or auto shrink */
	bool tcache;			/* per-thread caches (tcache.c) */
	bool hooked;			/* hooks != 0 (harden.h) */
	bool alloc_special;		/* alloc is not the fast path: tcache
					 * or hooked */
	struct dp_chunk *avail;		/* chunks with a free block */
	struct dp_geometry geo;
	struct dp_index index;
	uint64_t in_use;		/* blocks allocated */
	struct dp_slot *slots;		/* by chunk id */
	uint32_t nslots;		/* slots in use or freed (high mark) */
	uint32_t slot_cap;

	/* Cold. */
	uint64_t nchunks;
	uint32_t free_slots;		/* slots below nslots with no chunk */
	uint16_t gen_seed;		/* first generation of a new chunk */
	struct dmapool_dev *dev;
	dmapool_report_fn report;
	void *report_ctx;
	uint64_t violations;
	uint64_t by_kind[DMAPOOL_R_KINDS];
	struct dp_harden hard;		/* harden.h; used when hooked */
	struct dmapool *reg_next, *reg_prev;	/* registry of pools */
	char name[32];

	/* Thread caches and shrink (tcache.c, shrink.c). */
	struct dp_local local;		/* each thread's cache */
	bool auto_shrink;		/* DMAPOOL_OPT_AUTO_SHRINK */
	bool dying;			/* in dmapool_destroy */
	size_t reserve;			/* empty chunks shrink keeps */
	uint64_t *full_map;		/* map[] of a chunk with every block
					 * free, summary word first */
	uint64_t chunks_released;
};

/* reports.c */

/*
 * A report is built where the problem is seen (often under the pool lock)
 * and delivered after unlocking, so a sink may call back into the pool.
 */
struct dp_pending {
	struct dmapool_report r;
	char owner[32];			/* free-wrong-pool: the owner's name */
};

/* Start a report about @pool. */
void dp_report_fill(struct dmapool *pool, struct dp_pending *p,
		    enum dmapool_report_kind kind, const void *addr,
		    dmapool_dma_t dma, const char *detail);
/* Count it in @pool and hand it to the pool's sink or the global one.
 * The pool lock must NOT be held. */
void dp_report_deliver(struct dmapool *pool, struct dp_pending *p);
/* A report with no pool to count it in. */
void dp_report_global(enum dmapool_report_kind kind, const void *addr,
		      dmapool_dma_t dma, const char *detail);
/*
 * After a free found no chunk for @addr in @pool: is it in another pool?
 * Fills @p as free-wrong-pool or free-outside-pool.  Pool lock NOT held.
 */
void dp_report_unknown_address(struct dmapool *pool, struct dp_pending *p,
			       const void *addr, dmapool_dma_t dma);

/* registry.c */
void dp_registry_add(struct dmapool *pool);
void dp_registry_del(struct dmapool *pool);
/* Is @addr in a pool other than @self?  Copies that pool's name to @name.
 * Neither pool's lock may be held. */
bool dp_registry_owner(const struct dmapool *self, const void *addr,
		       char name[32]);

/* chunk.c */

/*
 * Host memory a locked section let go of, freed after unlocking (a vmalloc'd
 * table may not be freed under a spinlock in the kernel).
 */
struct dp_garbage {
	struct dp_garbage_rec *list;
	void *nodes;			/* index nodes, linked by first word */
};
#define DP_GARBAGE_INIT	{ NULL, NULL }
void dp_garbage_add(struct dp_garbage *gb, void *p, size_t size);
void dp_garbage_free(struct dmapool *pool, struct dp_garbage *gb);

struct dp_chunk *dp_chunk_create(struct dmapool *pool, dmapool_gfp_t gfp);
void dp_chunk_destroy(struct dmapool *pool, struct dp_chunk *c, bool release);
/*
 * Make a new chunk known to the pool (slot, index, avail list).  The lock is
 * held on entry and exit but dropped to allocate.  False when host memory ran
 * out; the chunk is then given back.
 */
bool dp_chunk_attach(struct dmapool *pool, struct dp_chunk *c,
		     dmapool_gfp_t gfp, dp_irqflags_t *flags,
		     struct dp_garbage *gb);
size_t dp_gen_bytes(const struct dmapool *pool);
/* Set every generation of a new array to a fresh value. */
void dp_gen_init(struct dmapool *pool, uint16_t *gen);

static inline void dp_avail_push(struct dmapool *pool, struct dp_chunk *c)
{
	c->prev = NULL;
	c->next = pool->avail;
	if (pool->avail)
		pool->avail->prev = c;
	pool->avail = c;
}

static inline void dp_avail_del(struct dmapool *pool, struct dp_chunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		pool->avail = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->next = c->prev = NULL;
}

/* alloc.c */

/* Take a block from the avail list; lock held.  NULL when none is free. */
static inline struct dp_chunk *dp_take_block(struct dmapool *pool,
					     uint32_t *pos)
{
	struct dp_chunk *c = pool->avail;

	if (DP_UNLIKELY(!c))
		return NULL;
	*pos = dp_chunk_take_first(c);
	if (dp_chunk_full(c))
		dp_avail_del(pool, c);
	pool->in_use++;
	return c;
}

/* dp_take_block, or a random block for DMAPOOL_OPT_RANDOM; lock held. */
static inline struct dp_chunk *dp_take_block_any(struct dmapool *pool,
						 uint32_t *pos)
{
	if (DP_UNLIKELY(pool->hooks & DMAPOOL_OPT_RANDOM))
		return dp_random_take(pool, pos);
	return dp_take_block(pool, pos);
}

/* Grow the pool and take a block; lock held, dropped to allocate. */
struct dp_chunk *dp_take_block_slow(struct dmapool *pool, dmapool_gfp_t gfp,
				    uint32_t *pos, dp_irqflags_t *flags,
				    struct dp_garbage *gb);

/* Give back a validated, allocated block; lock held. */
static inline void dp_put_block(struct dmapool *pool, struct dp_chunk *c,
				uint32_t pos);

/* The caller's part of an allocation, outside the lock. */
static inline void *dp_hand_out(struct dmapool *pool, struct dp_chunk *c,
				uint32_t pos, dmapool_gfp_t gfp,
				dmapool_dma_t *dma)
{
	/* The chunk cannot go away while it holds our block. */
	size_t off = dp_geo_offset(&pool->geo, pos);
	void *vaddr = (void *)(c->vaddr + off);

	if (dma)
		*dma = c->dma + off;
	if (gfp & DMAPOOL_GFP_ZERO)
		dp_os_memset(vaddr, 0, pool->geo.size);
	return vaddr;
}

/*
 * A free that failed validation: say why.  Lock held on entry (so nothing
 * changes between the check and the report), released before delivery.
 */
void dp_free_bad(struct dmapool *pool, struct dp_chunk *c, void *vaddr,
		 dmapool_dma_t dma, dp_irqflags_t flags);
/* dmapool_free for pools with pool->special set, under the lock. */
void dp_free_locked(struct dmapool *pool, void *vaddr, dmapool_dma_t dma,
		    bool zero);
/*
 * dp_put_block for special pools: in thread-cache pools the held bit is the
 * token that makes a block's free happen once (see tcache.c).  False when it
 * was taken already: a double free, nothing changed.  *@shrink: the chunk
 * emptied and the pool shrinks automatically (call dp_auto_shrink(pool, c)
 * unlocked).
 */
bool dp_put_special(struct dmapool *pool, struct dp_chunk *c, uint32_t pos,
		    bool *shrink);
/* A block taken from the bitmap under the lock becomes the caller's. */
static inline void dp_claim_block(struct dmapool *pool, struct dp_chunk *c,
				  uint32_t pos)
{
	if (pool->geo.held_superset)
		dp_os_clear_bit64(pos % 64,
				  dp_chunk_held_word(c, &pool->geo, pos));
}

/* tcache.c */
int dp_tc_init(struct dmapool *pool);
void *dp_tc_alloc(struct dmapool *pool, dmapool_gfp_t gfp, dmapool_dma_t *dma);
/* dmapool_free through the cache, or dp_free_locked when it cannot. */
void dp_tc_free(struct dmapool *pool, void *vaddr, dmapool_dma_t dma);
/* Give the calling thread's cached blocks back to the pool. */
void dp_tc_flush_mine(struct dmapool *pool);
/* Blocks in every thread's cache, and bytes of caches. */
void dp_tc_stats(struct dmapool *pool, uint64_t *cached, uint64_t *bytes);

/* shrink.c */
static inline bool dp_chunk_is_empty(const struct dmapool *pool,
				     const struct dp_chunk *c)
{
	uint32_t w;

	for (w = 0; w <= pool->geo.nwords; w++)
		if (c->map[w] != pool->full_map[w])
			return false;
	return true;
}

/* After @pos went free: did its chunk just empty?  Mostly one compare. */
static inline bool dp_chunk_emptied(const struct dmapool *pool,
				    const struct dp_chunk *c, uint32_t pos)
{
	uint32_t w = 1 + pos / 64;

	return c->map[w] == pool->full_map[w] && dp_chunk_is_empty(pool, c);
}

/* The bitmap of an empty chunk; NULL when out of memory. */
uint64_t *dp_full_map_new(const struct dp_geometry *g);
size_t dp_full_map_bytes(const struct dp_geometry *g);
/*
 * Release empty chunks beyond @keep, keeping @hot if it is one of them (it
 * is compared, never dereferenced); the lock is NOT held.  Returns how many
 * went back to the backend.
 */
size_t dp_shrink(struct dmapool *pool, size_t keep, dmapool_gfp_t gfp,
		 const struct dp_chunk *hot);
/* The automatic policy, after a free emptied @hot. */
void dp_auto_shrink(struct dmapool *pool, const struct dp_chunk *hot);
/* chunk.c: DMA memory zeroed and released now, metadata after a grace
 * period (lock-free readers may still be looking at it). */
void dp_chunk_retire(struct dmapool *pool, struct dp_chunk *c);

/* handle.c */
#define DP_HANDLE_POS_BITS	16
#define DP_HANDLE_ID_BITS	32

static inline uint64_t dp_handle_make(uint32_t id, uint32_t pos, uint16_t gen)
{
	return (uint64_t)gen << (DP_HANDLE_POS_BITS + DP_HANDLE_ID_BITS) |
	       (uint64_t)id << DP_HANDLE_POS_BITS | pos;
}

/* Bump the generation of a block that is being freed. */
static inline void dp_gen_bump(struct dmapool *pool, struct dp_chunk *c,
			       uint32_t pos)
{
	if (DP_UNLIKELY(pool->handles) && c->gen)
		c->gen[pos]++;
}

/*
 * Make a block that no caller holds any more free for reuse; lock held.
 * (A plain free, and a block leaving quarantine.)
 */
static inline void dp_block_to_free(struct dmapool *pool, struct dp_chunk *c,
				    uint32_t pos)
{
	if (dp_chunk_put(c, pos))
		dp_avail_push(pool, c);
}

static inline void dp_put_block(struct dmapool *pool, struct dp_chunk *c,
				uint32_t pos)
{
	dp_gen_bump(pool, c, pos);
	dp_block_to_free(pool, c, pos);
	pool->in_use--;
}

#endif /* DMAPOOL_POOL_H */
