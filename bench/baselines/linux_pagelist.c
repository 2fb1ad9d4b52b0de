// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * linux-pagelist: the Linux <= v6.2 mm/dmapool.c design, re-implemented.
 *
 * A pool is a list of "pages" (max(PAGE_SIZE, size) bytes each from the
 * backend), newest first.  Each page records the offset of its first free
 * block; the first four bytes of every free block hold the offset of the
 * next one, and an offset at or past the end of the page means "full".
 * Alloc walks the page list to the first page that is not full and pops its
 * chain; free walks the page list to the page whose dma range holds the
 * address and pushes the block on that page's chain.  Both walks are linear
 * in the number of pages, so large pools get slow; that is the design.
 *
 * A new page's chain is laid out in address order.  The old code moved to
 * the next boundary as soon as the block after next would reach it
 * ("next + size >= boundary"), one block too early, so the last block
 * before every boundary was never used (a 4096-byte page held 255 16-byte
 * blocks, 3 1024-byte ones).  Kept as it was: memory figures depend on it.
 *
 * One deviation, for memory safety: the boundary is clamped to the page
 * (see bl_pl_create()).
 *
 * As in the kernel without slub debugging, a free is not checked beyond
 * finding its page, and alloc trusts the offset it reads from the block:
 * a device that rewrites it makes the next allocation land anywhere inside
 * the page, overlapping live blocks or misaligned.
 */
#include <stdint.h>

#include "dmapool_os_impl.h"
#include "baseline.h"

/* Host memory: one per backend allocation. */
struct pl_page {
	struct pl_page *next, *prev;
	void *vaddr;
	dmapool_dma_t dma;
	unsigned int in_use;
	unsigned int offset;		/* first free block; >= allocation: full */
};

struct pl_pool {
	struct pl_page *pages;		/* newest first */
	struct dp_lock lock;
	unsigned int size;
	unsigned int allocation;
	unsigned int boundary;
	size_t nr_pages;
	size_t chunk_align;
	struct dmapool_dev *dev;
};

static inline struct pl_pool *to_pl(struct bl_pool *p)
{
	return (struct pl_pool *)p;
}

struct bl_pool *bl_pl_create(struct dmapool_dev *dev, size_t size,
			     size_t align, size_t boundary)
{
	size_t page = dp_os_page_size(), allocation, order;
	struct pl_pool *pool;

	if (!dev || !size || size > INT32_MAX)
		return NULL;
	if (!align)
		align = 1;
	else if (align & (align - 1))
		return NULL;
	if (size < sizeof(int))
		size = sizeof(int);
	size = (size + align - 1) & ~(align - 1);
	allocation = size > page ? size : page;
	if (!boundary)
		boundary = allocation;
	else if (boundary < size || (boundary & (boundary - 1)))
		return NULL;
	/*
	 * The old code did not clamp the boundary to the page: with a
	 * boundary above the page size and a size that does not divide it,
	 * its last block ran past the end of the page.  Clamped here (as
	 * v6.3 does) so the baseline never hands out memory it does not own.
	 */
	if (boundary > allocation)
		boundary = allocation;

	pool = dp_os_host_zalloc(sizeof(*pool), 0);
	if (!pool)
		return NULL;
	for (order = page; order < allocation; order <<= 1)
		;
	dp_lock_init(&pool->lock);
	pool->dev = dev;
	pool->size = (unsigned int)size;
	pool->allocation = (unsigned int)allocation;
	pool->boundary = (unsigned int)boundary;
	pool->chunk_align = order;
	dmapool_dev_get(dev);
	return (struct bl_pool *)pool;
}

void bl_pl_destroy(struct bl_pool *p)
{
	struct pl_pool *pool = to_pl(p);
	struct pl_page *page, *next;

	if (!pool)
		return;
	for (page = pool->pages; page; page = next) {
		next = page->next;
		/* A page with blocks in use is leaked: a device may use it. */
		if (!page->in_use)
			dp_os_chunk_free(pool->dev, pool->allocation,
					 page->vaddr, page->dma);
		dp_os_host_free(page, sizeof(*page));
	}
	dmapool_dev_put(pool->dev);
	dp_os_host_free(pool, sizeof(*pool));
}

/* Chain a fresh page's blocks in address order (outside the lock). */
static void chain_page(const struct pl_pool *pool, struct pl_page *page)
{
	unsigned int off = 0, next, limit = pool->boundary;

	while (off < pool->allocation) {
		next = off + pool->size;
		if (next + pool->size >= limit) {
			next = limit;
			limit += pool->boundary;
		}
		*(unsigned int *)((char *)page->vaddr + off) = next;
		off = next;
	}
	page->offset = 0;
	page->in_use = 0;
}

static struct pl_page *new_page(struct pl_pool *pool)
{
	struct pl_page *page = dp_os_host_alloc(sizeof(*page), 0);

	if (!page)
		return NULL;
	if (dp_os_chunk_alloc(pool->dev, pool->allocation, pool->chunk_align,
			      0, &page->vaddr, &page->dma)) {
		dp_os_host_free(page, sizeof(*page));
		return NULL;
	}
	chain_page(pool, page);
	return page;
}

static void add_page(struct pl_pool *pool, struct pl_page *page)
{
	page->prev = NULL;
	page->next = pool->pages;
	if (pool->pages)
		pool->pages->prev = page;
	pool->pages = page;
	pool->nr_pages++;
}

void *bl_pl_alloc(struct bl_pool *p, dmapool_dma_t *dma)
{
	struct pl_pool *pool = to_pl(p);
	struct pl_page *page;
	unsigned long flags;
	unsigned int off;
	void *vaddr;

	flags = dp_lock(&pool->lock);
	for (page = pool->pages; page; page = page->next)
		if (page->offset < pool->allocation)
			break;
	if (DP_UNLIKELY(!page)) {
		dp_unlock(&pool->lock, flags);
		page = new_page(pool);
		if (!page)
			return NULL;
		flags = dp_lock(&pool->lock);
		add_page(pool, page);
	}
	page->in_use++;
	off = page->offset;
	/* Trusted: the next offset is read from the block (DMA memory). */
	page->offset = *(unsigned int *)((char *)page->vaddr + off);
	vaddr = (char *)page->vaddr + off;
	*dma = page->dma + off;
	dp_unlock(&pool->lock, flags);
	return vaddr;
}

void bl_pl_free(struct bl_pool *p, void *vaddr, dmapool_dma_t dma)
{
	struct pl_pool *pool = to_pl(p);
	struct pl_page *page;
	unsigned long flags;
	unsigned int off;

	flags = dp_lock(&pool->lock);
	for (page = pool->pages; page; page = page->next)
		if (dma >= page->dma && dma - page->dma < pool->allocation)
			break;
	if (DP_UNLIKELY(!page)) {
		/* The kernel prints "bad dma" and ignores the free. */
		dp_unlock(&pool->lock, flags);
		return;
	}
	off = (unsigned int)((char *)vaddr - (char *)page->vaddr);
	page->in_use--;
	*(unsigned int *)vaddr = page->offset;
	page->offset = off;
	dp_unlock(&pool->lock, flags);
}

static void pl_walk(struct bl_pool *p, dmapool_chunk_fn fn, void *ctx)
{
	struct pl_pool *pool = to_pl(p);
	struct pl_page *page;
	unsigned long flags;

	flags = dp_lock(&pool->lock);
	for (page = pool->pages; page; page = page->next)
		fn(page->vaddr, page->dma, pool->allocation, ctx);
	dp_unlock(&pool->lock, flags);
}

static void pl_mem(struct bl_pool *p, struct bl_mem *m)
{
	struct pl_pool *pool = to_pl(p);

	m->chunks = pool->nr_pages;
	m->dma_bytes = pool->nr_pages * pool->chunk_align;
	m->meta_bytes = sizeof(*pool) + pool->nr_pages * sizeof(struct pl_page);
}

static size_t pl_block_size(struct bl_pool *p)
{
	return to_pl(p)->size;
}

const struct bl_ops bl_linux_pagelist = {
	.name = "linux-pagelist",
	.create = bl_pl_create,
	.destroy = bl_pl_destroy,
	.alloc = bl_pl_alloc,
	.free = bl_pl_free,
	.walk = pl_walk,
	.mem = pl_mem,
	.block_size = pl_block_size,
};
