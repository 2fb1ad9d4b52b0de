/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The pool: what every core file shares.
 */
#ifndef DMAPOOL_POOL_H
#define DMAPOOL_POOL_H

#include "index.h"
#include "harden.h"

/* What a handle names: a chunk, and its blocks' generations. */
struct dp_slot {
	struct dp_chunk *chunk;		/* NULL: slot free */
	uint16_t *gen;			/* per position; NULL until handles */
};

struct dmapool {
	/* Hot: read on every alloc and free. */
	struct dp_lock lock;
	unsigned int flags;		/* DMAPOOL_OPT_* */
	unsigned int hooks;		/* DP_HOOK_*: 0 = no hardening work */
	bool handles;			/* some chunk keeps generations */
	bool hooked;			/* hooks != 0 (one byte compare) */
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
	struct dp_harden hard;		/* harden.h; used when hooks != 0 */
	struct dmapool *reg_next, *reg_prev;	/* registry of pools */
	char name[32];
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
	if (DP_UNLIKELY(pool->handles)) {
		uint16_t *gen = pool->slots[c->id].gen;

		if (gen)
			gen[pos]++;
	}
}

/*
 * Make a block that no caller holds any more free for reuse; lock held.
 * Every path that frees a block ends here (plain free, quarantine release).
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
