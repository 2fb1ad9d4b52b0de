// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The data path: alloc and free by address.
 *
 * Alloc takes the first free position of the first chunk on the avail list;
 * free finds the chunk through the index, turns the address into a position
 * with arithmetic, and validates everything (invariant 3) before it flips a
 * bit.  Neither reads or writes the block itself: the state is out of line.
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
	return dp_take_block(pool, pos);
}

void *dmapool_alloc(struct dmapool *pool, dmapool_gfp_t gfp,
		    dmapool_dma_t *dma)
{
	struct dp_garbage gb = DP_GARBAGE_INIT;
	struct dp_chunk *c;
	dp_irqflags_t flags;
	uint32_t pos;
	size_t off;
	void *vaddr;

	if (DP_UNLIKELY(!pool)) {
		dp_report_global(DMAPOOL_R_NULL_POOL, NULL, 0,
				 "dmapool_alloc called with a NULL pool");
		return NULL;
	}
	flags = dp_lock(&pool->lock);
	c = dp_take_block(pool, &pos);
	if (DP_UNLIKELY(!c))
		c = dp_take_block_slow(pool, gfp, &pos, &flags, &gb);
	dp_unlock(&pool->lock, flags);
	if (DP_UNLIKELY(gb.list || gb.nodes))
		dp_garbage_free(pool, &gb);
	if (DP_UNLIKELY(!c))
		return NULL;

	/* The chunk cannot go away while it holds our block. */
	off = dp_geo_offset(&pool->geo, pos);
	vaddr = (void *)(c->vaddr + off);
	if (dma)
		*dma = c->dma + off;
	if (gfp & DMAPOOL_GFP_ZERO)
		dp_os_memset(vaddr, 0, pool->geo.size);
	return vaddr;
}

void *dmapool_zalloc(struct dmapool *pool, dmapool_gfp_t gfp,
		     dmapool_dma_t *dma)
{
	return dmapool_alloc(pool, gfp | DMAPOOL_GFP_ZERO, dma);
}

/*
 * Describe an offset that is not a block start: inside which block (if any)
 * it falls, and where.  Lock held.
 */
static void not_block_start(struct dmapool *pool, struct dp_pending *p,
			    struct dp_chunk *c, size_t off, const void *vaddr,
			    dmapool_dma_t dma)
{
	const struct dp_geometry *g = &pool->geo;
	size_t seg = off >> g->seg_shift;
	size_t in = off & (((size_t)1 << g->seg_shift) - 1);
	size_t slot = in / g->stride;

	dp_report_fill(pool, p, DMAPOOL_R_FREE_NOT_BLOCK, vaddr, dma,
			  "address is inside the pool but not at a block start");
	if (slot < g->per_seg) {
		size_t start = (seg << g->seg_shift) + slot * g->stride;

		p->r.block = (const void *)(c->vaddr + start);
		p->r.block_dma = c->dma + start;
		p->r.offset = off - start;
	}
}

void dmapool_free(struct dmapool *pool, void *vaddr, dmapool_dma_t dma)
{
	const uintptr_t va = (uintptr_t)vaddr;
	struct dp_pending p;
	struct dp_chunk *c;
	dp_irqflags_t flags;
	uint32_t pos;
	size_t off;

	if (DP_UNLIKELY(!pool)) {
		dp_report_global(DMAPOOL_R_NULL_POOL, vaddr, dma,
				 "dmapool_free called with a NULL pool");
		return;
	}
	flags = dp_lock(&pool->lock);
	c = dp_index_lookup(&pool->index, va);
	/* The index maps whole pages; a chunk may end inside its last one. */
	if (DP_UNLIKELY(!c || va - c->vaddr >= pool->geo.chunk_size)) {
		dp_unlock(&pool->lock, flags);
		dp_report_unknown_address(pool, &p, vaddr, dma);
		dp_report_deliver(pool, &p);
		return;
	}
	off = va - c->vaddr;
	pos = dp_geo_position(&pool->geo, off);
	if (DP_UNLIKELY(pos == DP_BAD_INDEX)) {
		not_block_start(pool, &p, c, off, vaddr, dma);
	} else if (DP_UNLIKELY(dp_chunk_is_free(c, pos))) {
		dp_report_fill(pool, &p, DMAPOOL_R_DOUBLE_FREE, vaddr, dma,
				  "block is already free");
		p.r.block = vaddr;
		p.r.block_dma = c->dma + off;
	} else if (DP_UNLIKELY(c->dma + off != dma)) {
		dp_report_fill(pool, &p, DMAPOOL_R_FREE_DMA_MISMATCH, vaddr,
				  dma, "dma address does not belong to this block");
		p.r.block = vaddr;
		p.r.block_dma = c->dma + off;
	} else {
		dp_put_block(pool, c, pos);
		dp_unlock(&pool->lock, flags);
		return;
	}
	dp_unlock(&pool->lock, flags);
	dp_report_deliver(pool, &p);
}
