// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * linux-embedded: the Linux v6.3+ mm/dmapool.c design, re-implemented.
 *
 * A pool takes "pages" of max(PAGE_SIZE, size) bytes from the backend (the
 * kernel's dma_alloc_coherent, aligned to the allocation's power-of-two
 * order) and keeps every free block of every page on one LIFO list.  The
 * list lives in the free blocks themselves: the first bytes of a free block
 * are { next block, its dma address }.  Alloc pops the head, free pushes the
 * block back; both are O(1) and touch the block.  A new page is carved in
 * address order, skipping to the next boundary multiple whenever a block
 * would cross it, and its blocks are spliced in front of the list.  Pages go
 * back to the backend only when the pool is destroyed.
 *
 * Exactly as in the kernel without slub debugging: a free is not checked (a
 * double free or a foreign address goes on the list), and alloc returns
 * whatever the head's next pointer says, with the dma stored next to it.
 * A device that writes into a free block therefore decides what the next
 * allocations return.
 */
#include <stdint.h>

#include "dmapool_os_impl.h"
#include "baseline.h"

/* What the design keeps inside every free block (DMA memory). */
struct emb_block {
	struct emb_block *next;
	dmapool_dma_t dma;
};

/* Host memory: one per backend allocation. */
struct emb_page {
	struct emb_page *next;
	void *vaddr;
	dmapool_dma_t dma;
};

struct emb_pool {
	struct dp_lock lock;
	struct emb_block *free;		/* head of the in-block free list */
	size_t nr_active;
	size_t nr_blocks;
	size_t nr_pages;
	struct emb_page *pages;
	struct dmapool_dev *dev;
	unsigned int size;
	unsigned int allocation;
	unsigned int boundary;
	size_t chunk_align;
};

static inline struct emb_pool *to_emb(struct bl_pool *p)
{
	return (struct emb_pool *)p;
}

static size_t pow2_at_least(size_t x)
{
	size_t p = 1;

	while (p < x)
		p <<= 1;
	return p;
}

struct bl_pool *bl_emb_create(struct dmapool_dev *dev, size_t size,
			      size_t align, size_t boundary)
{
	size_t page = dp_os_page_size(), allocation;
	struct emb_pool *pool;

	if (!dev || !size || size > INT32_MAX)
		return NULL;
	if (!align)
		align = 1;
	else if (align & (align - 1))
		return NULL;
	/* A free block must hold the list entry. */
	if (size < sizeof(struct emb_block))
		size = sizeof(struct emb_block);
	size = (size + align - 1) & ~(align - 1);
	allocation = size > page ? size : page;
	if (!boundary)
		boundary = allocation;
	else if (boundary < size || (boundary & (boundary - 1)))
		return NULL;
	if (boundary > allocation)
		boundary = allocation;

	pool = dp_os_host_zalloc(sizeof(*pool), 0);
	if (!pool)
		return NULL;
	dp_lock_init(&pool->lock);
	pool->dev = dev;
	pool->size = (unsigned int)size;
	pool->allocation = (unsigned int)allocation;
	pool->boundary = (unsigned int)boundary;
	pool->chunk_align = pow2_at_least(allocation);
	dmapool_dev_get(dev);
	return (struct bl_pool *)pool;
}

void bl_emb_destroy(struct bl_pool *p)
{
	struct emb_pool *pool = to_emb(p);
	struct emb_page *page, *next;
	bool busy;

	if (!pool)
		return;
	busy = pool->nr_active != 0;
	for (page = pool->pages; page; page = next) {
		next = page->next;
		if (!busy)
			dp_os_chunk_free(pool->dev, pool->allocation,
					 page->vaddr, page->dma);
		dp_os_host_free(page, sizeof(*page));
	}
	dmapool_dev_put(pool->dev);
	dp_os_host_free(pool, sizeof(*pool));
}

/* Lay a fresh page's blocks out in address order; lock held. */
static void carve_page(struct emb_pool *pool, struct emb_page *page)
{
	const unsigned int size = pool->size, end = pool->allocation;
	unsigned int off = 0, limit = pool->boundary;
	struct emb_block *head = NULL, **link = &head, *b;

	for (;;) {
		if (off + size > limit) {
			/* The block would cross a boundary: start at it. */
			off = limit;
			limit += pool->boundary;
		}
		if (off + size > end)
			break;
		b = (void *)((char *)page->vaddr + off);
		b->dma = page->dma + off;
		*link = b;
		link = &b->next;
		off += size;
		pool->nr_blocks++;
	}
	*link = pool->free;
	pool->free = head;
	page->next = pool->pages;
	pool->pages = page;
	pool->nr_pages++;
}

static struct emb_page *new_page(struct emb_pool *pool)
{
	struct emb_page *page = dp_os_host_alloc(sizeof(*page), 0);

	if (!page)
		return NULL;
	if (dp_os_chunk_alloc(pool->dev, pool->allocation, pool->chunk_align,
			      0, &page->vaddr, &page->dma)) {
		dp_os_host_free(page, sizeof(*page));
		return NULL;
	}
	return page;
}

static inline struct emb_block *pop(struct emb_pool *pool)
{
	struct emb_block *b = pool->free;

	if (b) {
		pool->free = b->next;	/* trusted: it is in DMA memory */
		pool->nr_active++;
	}
	return b;
}

void *bl_emb_alloc(struct bl_pool *p, dmapool_dma_t *dma)
{
	struct emb_pool *pool = to_emb(p);
	struct emb_page *page;
	struct emb_block *b;
	unsigned long flags;

	flags = dp_lock(&pool->lock);
	b = pop(pool);
	if (DP_UNLIKELY(!b)) {
		/* The backend may sleep: not under the lock. */
		dp_unlock(&pool->lock, flags);
		page = new_page(pool);
		if (!page)
			return NULL;
		flags = dp_lock(&pool->lock);
		carve_page(pool, page);
		b = pop(pool);
	}
	dp_unlock(&pool->lock, flags);
	*dma = b->dma;			/* also read from the block */
	return b;
}

void bl_emb_free(struct bl_pool *p, void *vaddr, dmapool_dma_t dma)
{
	struct emb_pool *pool = to_emb(p);
	struct emb_block *b = vaddr;
	unsigned long flags;

	flags = dp_lock(&pool->lock);
	b->dma = dma;
	b->next = pool->free;
	pool->free = b;
	pool->nr_active--;
	dp_unlock(&pool->lock, flags);
}

static void emb_walk(struct bl_pool *p, dmapool_chunk_fn fn, void *ctx)
{
	struct emb_pool *pool = to_emb(p);
	struct emb_page *page;
	unsigned long flags;

	flags = dp_lock(&pool->lock);
	for (page = pool->pages; page; page = page->next)
		fn(page->vaddr, page->dma, pool->allocation, ctx);
	dp_unlock(&pool->lock, flags);
}

static void emb_mem(struct bl_pool *p, struct bl_mem *m)
{
	struct emb_pool *pool = to_emb(p);

	m->chunks = pool->nr_pages;
	/* dma_alloc_coherent hands out whole power-of-two page orders. */
	m->dma_bytes = pool->nr_pages * pool->chunk_align;
	m->meta_bytes = sizeof(*pool) + pool->nr_pages * sizeof(struct emb_page);
}

static size_t emb_block_size(struct bl_pool *p)
{
	return to_emb(p)->size;
}

const struct bl_ops bl_linux_embedded = {
	.name = "linux-embedded",
	.create = bl_emb_create,
	.destroy = bl_emb_destroy,
	.alloc = bl_emb_alloc,
	.free = bl_emb_free,
	.walk = emb_walk,
	.mem = emb_mem,
	.block_size = emb_block_size,
};
