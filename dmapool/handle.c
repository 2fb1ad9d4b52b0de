// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The handle API: a free that needs no lookup.
 *
 * A handle names a chunk by its slot, a block by its bitmap position, and
 * the allocation by a 16-bit generation that every free of the block bumps.
 * Freeing by handle is a bounds check, a table load and arithmetic; the
 * vaddr and dma the caller hands back must match what the handle names, so
 * a handle from another pool or a corrupted one cannot free the wrong block,
 * and an old handle for a block that was freed and reused does not match its
 * generation.  (A 16-bit generation repeats after 65536 frees of one block:
 * a stale handle that old, to a block allocated again, would pass.)
 *
 * Generations cost 2 bytes per block, so a pool keeps them only from its
 * first handle allocation on.
 */
#include "pool.h"

/* Give every chunk a generation array; lock held, dropped to allocate. */
static bool enable_handles(struct dmapool *pool, dmapool_gfp_t gfp,
			   dp_irqflags_t *flags, struct dp_garbage *gb)
{
	for (;;) {
		uint16_t *gen;
		uint32_t id;

		for (id = 0; id < pool->nslots; id++)
			if (pool->slots[id].chunk && !pool->slots[id].chunk->gen)
				break;
		if (id == pool->nslots) {
			/* Thread-cache frees read it without the lock. */
			DP_WRITE_ONCE(pool->handles, true);
			/* The index kind does not matter: handles need no lookup. */
			pool->handle_fast = !pool->tcache &&
					    !pool->auto_shrink && !pool->hooked;
			return true;
		}
		dp_unlock(&pool->lock, *flags);
		gen = dp_os_host_alloc(dp_gen_bytes(pool), gfp);
		*flags = dp_lock(&pool->lock);
		if (!gen)
			return false;
		/* The slot may have changed hands while unlocked: look again. */
		for (id = 0; id < pool->nslots; id++)
			if (pool->slots[id].chunk && !pool->slots[id].chunk->gen)
				break;
		if (id == pool->nslots) {
			dp_garbage_add(gb, gen, dp_gen_bytes(pool));
			continue;
		}
		dp_gen_init(pool, gen);
		pool->slots[id].chunk->gen = gen;
	}
}

/*
 * A block for a handle in a pool that is not handle_fast: the first handle
 * allocation, or a special pool (a thread-cache pool's block is claimed; a
 * poisoned pool's block is checked, unlocked: it is ours already).
 */
static DP_NOINLINE struct dp_chunk *take_special(struct dmapool *pool,
						 dmapool_gfp_t gfp,
						 uint32_t *pos,
						 dp_irqflags_t *flags,
						 struct dp_garbage *gb)
{
	struct dp_chunk *c;

	if (!pool->handles && !enable_handles(pool, gfp, flags, gb))
		return NULL;
	c = dp_take_block_any(pool, pos);
	if (!c)
		c = dp_take_block_slow(pool, gfp, pos, flags, gb);
	if (c)
		dp_claim_block(pool, c, *pos);
	if (c && (pool->hooks & DMAPOOL_OPT_POISON)) {
		dp_unlock(&pool->lock, *flags);
		dp_harden_alloc_check(pool, c, *pos);
		*flags = dp_lock(&pool->lock);
	}
	return c;
}

static DP_NOINLINE void *alloc_handle_null(void)
{
	dp_report_global(DMAPOOL_R_NULL_POOL, NULL, 0,
			 "dmapool_alloc_handle called with a NULL pool");
	return NULL;
}

/* The rare paths of an allocation: growth, the first handle, special pools. */
static DP_NOINLINE void *alloc_handle_slow(struct dmapool *pool,
					   dmapool_gfp_t gfp,
					   dmapool_dma_t *dma,
					   uint64_t *handle,
					   dp_irqflags_t flags)
{
	struct dp_garbage gb = DP_GARBAGE_INIT;
	struct dp_chunk *c;
	uint32_t pos = 0;
	uint16_t gen = 0;

	if (pool->handle_fast)
		c = dp_take_block_slow(pool, gfp, &pos, &flags, &gb);
	else
		c = take_special(pool, gfp, &pos, &flags, &gb);
	if (c)
		gen = c->gen[pos];
	dp_unlock(&pool->lock, flags);
	dp_garbage_free(pool, &gb);
	if (!c) {
		*handle = 0;
		if (dma)
			*dma = 0;
		return NULL;
	}
	*handle = dp_handle_make(c->id, pos, gen);
	return dp_hand_out(pool, c, pos, gfp, dma);
}

static __attribute__((__always_inline__)) inline void *
alloc_handle_locked(struct dmapool *pool, dmapool_gfp_t gfp,
		    dmapool_dma_t *dma, uint64_t *handle, dp_irqflags_t flags)
{
	struct dp_chunk *c;
	uint32_t pos;
	uint16_t gen;

	if (DP_UNLIKELY(!pool->handle_fast) ||
	    DP_UNLIKELY(!(c = dp_take_block(pool, &pos))))
		return alloc_handle_slow(pool, gfp, dma, handle, flags);
	gen = c->gen[pos];
	dp_unlock(&pool->lock, flags);
	*handle = dp_handle_make(c->id, pos, gen);
	return dp_hand_out(pool, c, pos, gfp, dma);
}

static DP_NOINLINE void *alloc_handle_contended(struct dmapool *pool,
						dmapool_gfp_t gfp,
						dmapool_dma_t *dma,
						uint64_t *handle)
{
	return alloc_handle_locked(pool, gfp, dma, handle,
				   dp_lock(&pool->lock));
}

/* Tail calls only, as in dmapool_alloc. */
void *dmapool_alloc_handle(struct dmapool *pool, dmapool_gfp_t gfp,
			   dmapool_dma_t *dma, uint64_t *handle)
{
	dp_irqflags_t flags;

	if (DP_UNLIKELY(!pool)) {
		*handle = 0;
		return alloc_handle_null();
	}
	if (DP_UNLIKELY(!dp_trylock(&pool->lock, &flags)))
		return alloc_handle_contended(pool, gfp, dma, handle);
	return alloc_handle_locked(pool, gfp, dma, handle, flags);
}

/* Fill @p for a handle that does not name a block of this pool. */
static void bad_handle(struct dmapool *pool, struct dp_pending *p,
		       void *vaddr, dmapool_dma_t dma, uint64_t h,
		       const char *why)
{
	dp_report_fill(pool, p, DMAPOOL_R_BAD_HANDLE, vaddr, dma, why);
	p->r.handle = h;
}

/*
 * Everything but the plain, valid free of a handle_fast pool: reports, and
 * the frees of special pools.  Lock held on entry, released on return.
 */
static DP_NOINLINE void free_handle_slow(struct dmapool *pool, void *vaddr,
					 dmapool_dma_t dma, uint64_t h,
					 dp_irqflags_t flags)
{
	const uint32_t id = (uint32_t)(h >> DP_HANDLE_POS_BITS);
	const uint32_t pos = (uint32_t)(h & ((1u << DP_HANDLE_POS_BITS) - 1));
	const uint16_t gen = (uint16_t)(h >> (DP_HANDLE_POS_BITS +
					      DP_HANDLE_ID_BITS));
	struct dp_pending p;
	struct dp_chunk *c;
	size_t off;

	if (id >= pool->nslots || !pool->slots[id].chunk ||
	    !pool->slots[id].chunk->gen ||
	    !dp_geo_valid_position(&pool->geo, pos)) {
		dp_unlock(&pool->lock, flags);
		/* Maybe a block of another pool, handed to the wrong one. */
		dp_report_unknown_address(pool, &p, vaddr, dma);
		if (p.r.kind != DMAPOOL_R_FREE_WRONG_POOL)
			bad_handle(pool, &p, vaddr, dma, h,
				   "handle names no block of this pool");
		p.r.handle = h;
		dp_report_deliver(pool, &p);
		return;
	}
	c = pool->slots[id].chunk;
	off = dp_geo_offset(&pool->geo, pos);
	if (c->vaddr + off != (uintptr_t)vaddr) {
		bad_handle(pool, &p, vaddr, dma, h,
			   "vaddr is not the block the handle names");
		p.r.block = (const void *)(c->vaddr + off);
		p.r.block_dma = c->dma + off;
	} else if (c->dma + off != dma) {
		dp_report_fill(pool, &p, DMAPOOL_R_FREE_DMA_MISMATCH, vaddr, dma,
			       "dma address does not belong to this block");
		p.r.block = vaddr;
		p.r.block_dma = c->dma + off;
		p.r.handle = h;
	} else if (!dp_chunk_is_allocated(c, &pool->geo, pos)) {
		dp_report_fill(pool, &p, DMAPOOL_R_DOUBLE_FREE, vaddr, dma,
			       "block is already free");
		p.r.block = vaddr;
		p.r.block_dma = dma;
		p.r.handle = h;
	} else if (c->gen[pos] != gen) {
		dp_report_fill(pool, &p, DMAPOOL_R_STALE_HANDLE, vaddr, dma,
			       "handle is from an earlier allocation of this block");
		p.r.block = vaddr;
		p.r.block_dma = dma;
		p.r.handle = h;
	} else if (pool->handle_fast) {
		/* Valid after all (the fast path only declines, never judges). */
		dp_put_block(pool, c, pos);
		dp_unlock(&pool->lock, flags);
		return;
	} else if (pool->hooked) {
		dp_harden_free(pool, c, pos, flags);
		return;
	} else {
		bool shrink = false;

		if (dp_put_special(pool, c, pos, &shrink)) {
			dp_unlock(&pool->lock, flags);
			if (shrink)
				dp_auto_shrink(pool, c);
			return;
		}
		/* A thread-cache free by address took it first. */
		dp_report_fill(pool, &p, DMAPOOL_R_DOUBLE_FREE, vaddr, dma,
			       "block is already freed and held (quarantine or cache)");
		p.r.block = vaddr;
		p.r.block_dma = dma;
		p.r.handle = h;
	}
	dp_unlock(&pool->lock, flags);
	dp_report_deliver(pool, &p);
}

static DP_NOINLINE void free_handle_null(void *vaddr, dmapool_dma_t dma)
{
	dp_report_global(DMAPOOL_R_NULL_POOL, vaddr, dma,
			 "dmapool_free_handle called with a NULL pool");
}

static __attribute__((__always_inline__)) inline void
free_handle_locked(struct dmapool *pool, void *vaddr, dmapool_dma_t dma,
		   uint64_t h, dp_irqflags_t flags)
{
	const uint32_t id = (uint32_t)(h >> DP_HANDLE_POS_BITS);
	const uint32_t pos = (uint32_t)(h & ((1u << DP_HANDLE_POS_BITS) - 1));
	const uint16_t gen = (uint16_t)(h >> (DP_HANDLE_POS_BITS +
					      DP_HANDLE_ID_BITS));
	struct dp_chunk *c;
	uint64_t *word, bit;
	size_t off;

	/*
	 * Invariant 3 without a lookup: the slot exists, the position holds a
	 * block, vaddr and dma are that block's, it is allocated, and this
	 * handle is from its current allocation.  handle_fast pools have a
	 * generation array in every slot and no held blocks.
	 */
	if (DP_LIKELY(pool->handle_fast && id < pool->nslots)) {
		c = pool->slots[id].chunk;
		if (DP_LIKELY(c && dp_geo_valid_position(&pool->geo, pos))) {
			off = dp_geo_offset(&pool->geo, pos);
			word = &c->map[1 + pos / 64];
			bit = (uint64_t)1 << (pos % 64);
			if (DP_LIKELY(c->vaddr + off == (uintptr_t)vaddr &&
				      c->dma + off == dma && !(*word & bit) &&
				      c->gen[pos] == gen)) {
				c->gen[pos] = gen + 1;
				dp_block_to_free(pool, c, pos);
				pool->in_use--;
				dp_unlock(&pool->lock, flags);
				return;
			}
		}
	}
	free_handle_slow(pool, vaddr, dma, h, flags);
}

static DP_NOINLINE void free_handle_contended(struct dmapool *pool,
					      void *vaddr, dmapool_dma_t dma,
					      uint64_t h)
{
	free_handle_locked(pool, vaddr, dma, h, dp_lock(&pool->lock));
}

void dmapool_free_handle(struct dmapool *pool, void *vaddr, dmapool_dma_t dma,
			 uint64_t h)
{
	dp_irqflags_t flags;

	if (DP_UNLIKELY(!pool)) {
		free_handle_null(vaddr, dma);
		return;
	}
	if (DP_UNLIKELY(!dp_trylock(&pool->lock, &flags))) {
		free_handle_contended(pool, vaddr, dma, h);
		return;
	}
	free_handle_locked(pool, vaddr, dma, h, flags);
}
