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
			if (pool->slots[id].chunk && !pool->slots[id].gen)
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
			if (pool->slots[id].chunk && !pool->slots[id].gen)
				break;
		if (id == pool->nslots) {
			dp_garbage_add(gb, gen, dp_gen_bytes(pool));
			continue;
		}
		dp_gen_init(pool, gen);
		pool->slots[id].gen = gen;
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

struct dmapool_block dmapool_alloc_block(struct dmapool *pool,
					 dmapool_gfp_t gfp)
{
	struct dp_garbage gb = DP_GARBAGE_INIT;
	struct dmapool_block blk = { NULL, 0, 0 };
	struct dp_chunk *c = NULL;
	dp_irqflags_t flags;
	uint32_t pos = 0;
	uint16_t gen = 0;
	size_t off;

	if (DP_UNLIKELY(!pool)) {
		dp_report_global(DMAPOOL_R_NULL_POOL, NULL, 0,
				 "dmapool_alloc_block called with a NULL pool");
		return blk;
	}
	flags = dp_lock(&pool->lock);
	if (DP_LIKELY(pool->handle_fast)) {
		c = dp_take_block(pool, &pos);
		if (DP_UNLIKELY(!c))
			c = dp_take_block_slow(pool, gfp, &pos, &flags, &gb);
	} else {
		c = take_special(pool, gfp, &pos, &flags, &gb);
	}
	if (c)
		gen = pool->slots[c->id].gen[pos];
	dp_unlock(&pool->lock, flags);
	if (DP_UNLIKELY(gb.list || gb.nodes))
		dp_garbage_free(pool, &gb);
	if (DP_UNLIKELY(!c))
		return blk;

	off = dp_geo_offset(&pool->geo, pos);
	blk.vaddr = (void *)(c->vaddr + off);
	blk.dma = c->dma + off;
	blk.handle = dp_handle_make(c->id, pos, gen);
	if (gfp & DMAPOOL_GFP_ZERO)
		dp_os_memset(blk.vaddr, 0, pool->geo.size);
	return blk;
}

/* Fill @p for a handle that does not name a block of this pool. */
static void bad_handle(struct dmapool *pool, struct dp_pending *p,
		       const struct dmapool_block *blk, const char *why)
{
	dp_report_fill(pool, p, DMAPOOL_R_BAD_HANDLE, blk->vaddr, blk->dma,
			  why);
	p->r.handle = blk->handle;
}

void dmapool_free_block(struct dmapool *pool, struct dmapool_block blk)
{
	const uint64_t h = blk.handle;
	const uint32_t id = (uint32_t)(h >> DP_HANDLE_POS_BITS);
	const uint32_t pos = (uint32_t)(h & ((1u << DP_HANDLE_POS_BITS) - 1));
	const uint16_t gen = (uint16_t)(h >> (DP_HANDLE_POS_BITS +
					      DP_HANDLE_ID_BITS));
	struct dp_pending p;
	struct dp_chunk *c;
	dp_irqflags_t flags;
	size_t off;

	if (DP_UNLIKELY(!pool)) {
		dp_report_global(DMAPOOL_R_NULL_POOL, blk.vaddr, blk.dma,
				 "dmapool_free_block called with a NULL pool");
		return;
	}
	flags = dp_lock(&pool->lock);
	if (DP_UNLIKELY(id >= pool->nslots || !pool->slots[id].chunk ||
			!pool->slots[id].gen ||
			!dp_geo_valid_position(&pool->geo, pos))) {
		dp_unlock(&pool->lock, flags);
		/* Maybe a block of another pool, handed to the wrong one. */
		dp_report_unknown_address(pool, &p, blk.vaddr, blk.dma);
		if (p.r.kind != DMAPOOL_R_FREE_WRONG_POOL)
			bad_handle(pool, &p, &blk,
				   "handle names no block of this pool");
		p.r.handle = h;
		dp_report_deliver(pool, &p);
		return;
	}
	c = pool->slots[id].chunk;
	off = dp_geo_offset(&pool->geo, pos);
	if (DP_UNLIKELY(c->vaddr + off != (uintptr_t)blk.vaddr)) {
		bad_handle(pool, &p, &blk,
			   "vaddr is not the block the handle names");
		p.r.block = (const void *)(c->vaddr + off);
		p.r.block_dma = c->dma + off;
	} else if (DP_UNLIKELY(c->dma + off != blk.dma)) {
		dp_report_fill(pool, &p, DMAPOOL_R_FREE_DMA_MISMATCH,
				  blk.vaddr, blk.dma,
				  "dma address does not belong to this block");
		p.r.block = blk.vaddr;
		p.r.block_dma = c->dma + off;
		p.r.handle = h;
	} else if (DP_UNLIKELY(!dp_chunk_is_allocated(c, &pool->geo, pos))) {
		dp_report_fill(pool, &p, DMAPOOL_R_DOUBLE_FREE, blk.vaddr,
				  blk.dma, "block is already free");
		p.r.block = blk.vaddr;
		p.r.block_dma = blk.dma;
		p.r.handle = h;
	} else if (DP_UNLIKELY(pool->slots[id].gen[pos] != gen)) {
		dp_report_fill(pool, &p, DMAPOOL_R_STALE_HANDLE, blk.vaddr,
				  blk.dma,
				  "handle is from an earlier allocation of this block");
		p.r.block = blk.vaddr;
		p.r.block_dma = blk.dma;
		p.r.handle = h;
	} else if (DP_LIKELY(pool->handle_fast)) {
		/* dp_put_block, knowing the generations exist. */
		pool->slots[id].gen[pos]++;
		if (dp_chunk_put(c, pos))
			dp_avail_push(pool, c);
		pool->in_use--;
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
		dp_report_fill(pool, &p, DMAPOOL_R_DOUBLE_FREE, blk.vaddr,
			       blk.dma, "block is already freed and held (quarantine or cache)");
		p.r.block = blk.vaddr;
		p.r.block_dma = blk.dma;
		p.r.handle = h;
	}
	dp_unlock(&pool->lock, flags);
	dp_report_deliver(pool, &p);
}
