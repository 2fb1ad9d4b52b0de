// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The data path: alloc and free by address.
 *
 * Alloc takes the first free position of the first chunk on the avail list;
 * free finds the chunk through the index, turns the address into a position
 * with arithmetic, and validates everything (invariant 3) before it flips a
 * bit.  Neither reads or writes the block itself: the state is out of line.
 * Growth and every error path live in separate cold functions, so the hot
 * paths stay short and keep few registers.
 */
#include "pool.h"

struct dp_chunk *dp_take_block_slow(struct dmapool *pool, dmapool_gfp_t gfp,
				    uint32_t *pos, dp_irqflags_t *flags,
				    struct dp_garbage *gb)
{
	struct dp_chunk *c;

	if (gfp & DMAPOOL_GFP_NOGROW)
		return NULL;
	dp_unlock(&pool->lock, *flags);
	c = dp_chunk_create(pool, gfp);
	*flags = dp_lock(&pool->lock);
	if (!c || !dp_chunk_attach(pool, c, gfp, flags, gb))
		return NULL;
	/* Another thread may have freed a block meanwhile: any will do. */
	return dp_take_block_any(pool, pos);
}

/* No free block: grow (lock held on entry, released on return). */
static DP_NOINLINE void *alloc_slow(struct dmapool *pool, dmapool_gfp_t gfp,
				    dmapool_dma_t *dma, dp_irqflags_t flags)
{
	struct dp_garbage gb = DP_GARBAGE_INIT;
	struct dp_chunk *c;
	uint32_t pos;

	c = dp_take_block_slow(pool, gfp, &pos, &flags, &gb);
	dp_unlock(&pool->lock, flags);
	dp_garbage_free(pool, &gb);
	return c ? dp_hand_out(pool, c, pos, gfp, dma) : NULL;
}

/*
 * Pools with hardening options: random placement, and a poison check of the
 * block once it is ours (unlocked).  Not cold: such pools live here.
 */
static __attribute__((__noinline__)) void *alloc_hooked(struct dmapool *pool,
						    dmapool_gfp_t gfp,
						    dmapool_dma_t *dma)
{
	struct dp_garbage gb = DP_GARBAGE_INIT;
	dp_irqflags_t flags;
	struct dp_chunk *c;
	uint32_t pos;

	flags = dp_lock(&pool->lock);
	c = dp_take_block_any(pool, &pos);
	if (DP_UNLIKELY(!c))
		c = dp_take_block_slow(pool, gfp, &pos, &flags, &gb);
	dp_unlock(&pool->lock, flags);
	if (DP_UNLIKELY(gb.list || gb.nodes))
		dp_garbage_free(pool, &gb);
	if (DP_UNLIKELY(!c))
		return NULL;
	if (pool->hooks & DMAPOOL_OPT_POISON)
		dp_harden_alloc_check(pool, c, pos);
	return dp_hand_out(pool, c, pos, gfp, dma);
}

static DP_NOINLINE void *alloc_null(void)
{
	dp_report_global(DMAPOOL_R_NULL_POOL, NULL, 0,
			 "dmapool_alloc called with a NULL pool");
	return NULL;
}

void *dmapool_alloc(struct dmapool *pool, dmapool_gfp_t gfp,
		    dmapool_dma_t *dma)
{
	struct dp_chunk *c;
	dp_irqflags_t flags;
	uint32_t pos;

	if (DP_UNLIKELY(!pool))
		return alloc_null();
	/* One test for every pool that leaves the fast path. */
	if (DP_UNLIKELY(pool->alloc_special)) {
		if (pool->tcache)
			return dp_tc_alloc(pool, gfp, dma);
		return alloc_hooked(pool, gfp, dma);
	}
	flags = dp_lock(&pool->lock);
	c = dp_take_block(pool, &pos);
	if (DP_UNLIKELY(!c))
		return alloc_slow(pool, gfp, dma, flags);
	dp_unlock(&pool->lock, flags);
	return dp_hand_out(pool, c, pos, gfp, dma);
}

void *dmapool_zalloc(struct dmapool *pool, dmapool_gfp_t gfp,
		     dmapool_dma_t *dma)
{
	return dmapool_alloc(pool, gfp | DMAPOOL_GFP_ZERO, dma);
}

DP_NOINLINE void dp_free_bad(struct dmapool *pool, struct dp_chunk *c,
			     void *vaddr, dmapool_dma_t dma,
			     dp_irqflags_t flags)
{
	const struct dp_geometry *g = &pool->geo;
	const uintptr_t va = (uintptr_t)vaddr;
	struct dp_pending p;
	size_t off, seg, in, slot, start;
	uint32_t pos;

	/* The index maps whole pages; a chunk may end inside its last one. */
	if (!c || va - c->vaddr >= g->chunk_size) {
		dp_unlock(&pool->lock, flags);
		dp_report_unknown_address(pool, &p, vaddr, dma);
		dp_report_deliver(pool, &p);
		return;
	}
	off = va - c->vaddr;
	if (!dp_geo_position(g, off, &pos)) {
		dp_report_fill(pool, &p, DMAPOOL_R_FREE_NOT_BLOCK, vaddr, dma,
			       "address is inside the pool but not at a block start");
		seg = g->one_seg ? 0 : off >> g->seg_shift;
		in = off - (seg << g->seg_shift);
		slot = in / g->stride;
		if (slot < g->per_seg) {
			start = (seg << g->seg_shift) + slot * g->stride;
			p.r.block = (const void *)(c->vaddr + start);
			p.r.block_dma = c->dma + start;
			p.r.offset = off - start;
		}
	} else if (!dp_chunk_is_allocated(c, g, pos)) {
		dp_report_fill(pool, &p, DMAPOOL_R_DOUBLE_FREE, vaddr, dma,
			       dp_chunk_is_free(c, pos) ? "block is already free" :
			       "block is already freed and held (quarantine or cache)");
		p.r.block = vaddr;
		p.r.block_dma = c->dma + off;
	} else {
		dp_report_fill(pool, &p, DMAPOOL_R_FREE_DMA_MISMATCH, vaddr, dma,
			       "dma address does not belong to this block");
		p.r.block = vaddr;
		p.r.block_dma = c->dma + off;
	}
	dp_unlock(&pool->lock, flags);
	dp_report_deliver(pool, &p);
}

static DP_NOINLINE void free_null(void *vaddr, dmapool_dma_t dma)
{
	dp_report_global(DMAPOOL_R_NULL_POOL, vaddr, dma,
			 "dmapool_free called with a NULL pool");
}

void dmapool_free(struct dmapool *pool, void *vaddr, dmapool_dma_t dma)
{
	const uintptr_t va = (uintptr_t)vaddr;
	struct dp_chunk *c;
	dp_irqflags_t flags;
	uint32_t pos;
	size_t off;

	if (DP_UNLIKELY(!pool)) {
		free_null(vaddr, dma);
		return;
	}
	if (DP_UNLIKELY(pool->special)) {
		if (pool->tcache)
			dp_tc_free(pool, vaddr, dma);
		else
			dp_free_locked(pool, vaddr, dma);
		return;
	}
	flags = dp_lock(&pool->lock);
	/* Writers change the index under this lock: no RCU needed here. */
	c = dp_radix_lookup(&pool->index.u.radix, va >> pool->index.page_shift);
	/* Invariant 3: in this pool, at a block start, allocated, its dma. */
	if (DP_LIKELY(c)) {
		off = va - c->vaddr;
		if (DP_LIKELY(off < pool->geo.chunk_size &&
			      dp_geo_position(&pool->geo, off, &pos) &&
			      c->dma + off == dma)) {
			const struct dp_geometry *g = &pool->geo;
			size_t w = pos / 64;
			uint64_t bit = (uint64_t)1 << (pos % 64);

			/* Not special: no lock-free writer, plain reads. */
			if (DP_LIKELY(!((&c->map[1])[w] & bit) &&
				      !(g->held_words &&
					(c->map[1 + g->nwords + w] & bit)))) {
				dp_put_block(pool, c, pos);
				dp_unlock(&pool->lock, flags);
				return;
			}
		}
	}
	dp_free_bad(pool, c, vaddr, dma, flags);
}
