// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Answers about a struct dma_pool from its real definition (lx612.h).
 *
 * The definition lives in mm/dmapool.c only, so this file includes the
 * extracted mm/dmapool.c once more (mm-dmapool-layout.h is a copy of it,
 * named so that the build extracts it first) with its exported functions
 * renamed:
 * the copies here are never called (the pool's code that runs is the
 * separate, untouched object built from the same file), they only make
 * the struct layouts visible.  Nothing here runs on a timed path.
 */
#define dma_pool_create		lx612_layout_unused_dma_pool_create
#define dma_pool_destroy	lx612_layout_unused_dma_pool_destroy
#define dma_pool_alloc		lx612_layout_unused_dma_pool_alloc
#define dma_pool_free		lx612_layout_unused_dma_pool_free
#define dmam_pool_create	lx612_layout_unused_dmam_pool_create
#define dmam_pool_destroy	lx612_layout_unused_dmam_pool_destroy
#include "mm-dmapool-layout.h"
#undef dma_pool_create
#undef dma_pool_destroy
#undef dma_pool_alloc
#undef dma_pool_free
#undef dmam_pool_create
#undef dmam_pool_destroy

#include "lx612.h"

struct device *lx612_pool_device(struct dma_pool *pool)
{
	return pool->dev;
}

void lx612_pool_counts(struct dma_pool *pool, struct lx612_counts *c)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	c->nr_blocks = pool->nr_blocks;
	c->nr_active = pool->nr_active;
	c->nr_pages = pool->nr_pages;
	c->size = pool->size;
	c->allocation = pool->allocation;
	c->boundary = pool->boundary;
	spin_unlock_irqrestore(&pool->lock, flags);
	c->sizeof_pool = sizeof(struct dma_pool);
	c->sizeof_page = sizeof(struct dma_page);
}

void lx612_pool_walk(struct dma_pool *pool,
		     void (*fn)(void *vaddr, u64 dma, size_t len, void *ctx),
		     void *ctx)
{
	struct dma_page *page;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	list_for_each_entry(page, &pool->page_list, page_list)
		fn(page->vaddr, page->dma, pool->allocation, ctx);
	spin_unlock_irqrestore(&pool->lock, flags);
}
