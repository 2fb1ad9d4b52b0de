// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * xarray-fix: the Nov 2024 "dmapool: Mitigate device-controllable mem.
 * corruption" PATCH v3 design (never merged), re-implemented.
 *
 * It is the v6.3+ design (one LIFO free list, pages kept until destroy,
 * boundary-skipping layout) with the list moved out of DMA memory: each
 * page gets a host array of block records { next, dma, vaddr }, the free
 * list links records, and dma_pool_free() finds a block's record through an
 * xarray keyed by the block's address, one entry per block, filled when the
 * page is carved.  The lookup runs before the pool lock is taken (xa_load is
 * RCU-safe); an address with no entry is refused.  Nothing else is checked
 * (no double-free detection outside slub debugging), and the record's dma
 * is overwritten with the dma the caller passes, as the patch does.
 * Without an embedded list there is no minimum block size.
 *
 * The xarray is keyed the way the kernel keys it, by the block's kernel
 * virtual address: a direct-map address (0xffff8880...) needs a tree of 11
 * levels, a userspace one only 8.  Keys are therefore moved into the upper
 * half (xf_key) so lookups walk as deep a tree as in the kernel.
 */
#include <stdint.h>

#include "dmapool_os_impl.h"
#include "baseline.h"
#include "xarray.h"

/* Host memory: one record per block. */
struct xf_block {
	struct xf_block *next;
	dmapool_dma_t dma;
	void *vaddr;
};

struct xf_page {
	struct xf_page *next;
	void *vaddr;
	dmapool_dma_t dma;
	struct xf_block *blocks;
	size_t blocks_per_page;
};

struct xf_pool {
	struct dp_lock lock;
	struct xf_block *free;
	size_t nr_active;
	size_t nr_blocks;
	size_t nr_pages;
	struct xf_page *pages;
	struct dmapool_dev *dev;
	unsigned int size;
	unsigned int allocation;
	unsigned int boundary;
	size_t chunk_align;
	struct bxa block_map;		/* block vaddr -> its record */
};

#define XF_KERNEL_HALF	0xffff800000000000ull

/* The index the kernel would use: a kernel-half address, 11 levels deep. */
static inline unsigned long xf_key(const void *vaddr)
{
	return (unsigned long)((uint64_t)(uintptr_t)vaddr + XF_KERNEL_HALF);
}

static inline struct xf_pool *to_xf(struct bl_pool *p)
{
	return (struct xf_pool *)p;
}

struct bl_pool *bl_xa_create(struct dmapool_dev *dev, size_t size,
			     size_t align, size_t boundary)
{
	size_t page = dp_os_page_size(), allocation, order;
	struct xf_pool *pool;

	if (!dev || !size || size > INT32_MAX)
		return NULL;
	if (!align)
		align = 1;
	else if (align & (align - 1))
		return NULL;
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
	for (order = page; order < allocation; order <<= 1)
		;
	dp_lock_init(&pool->lock);
	bxa_init(&pool->block_map);
	pool->dev = dev;
	pool->size = (unsigned int)size;
	pool->allocation = (unsigned int)allocation;
	pool->boundary = (unsigned int)boundary;
	pool->chunk_align = order;
	dmapool_dev_get(dev);
	return (struct bl_pool *)pool;
}

static void free_page_meta(struct xf_page *page)
{
	dp_os_host_free(page->blocks,
			page->blocks_per_page * sizeof(*page->blocks));
	dp_os_host_free(page, sizeof(*page));
}

void bl_xa_destroy(struct bl_pool *p)
{
	struct xf_pool *pool = to_xf(p);
	struct xf_page *page, *next;
	bool busy;

	if (!pool)
		return;
	bxa_destroy(&pool->block_map);
	busy = pool->nr_active != 0;
	for (page = pool->pages; page; page = next) {
		next = page->next;
		if (!busy)
			dp_os_chunk_free(pool->dev, pool->allocation,
					 page->vaddr, page->dma);
		free_page_meta(page);
	}
	dmapool_dev_put(pool->dev);
	dp_os_host_free(pool, sizeof(*pool));
}

static struct xf_page *new_page(struct xf_pool *pool)
{
	struct xf_page *page = dp_os_host_alloc(sizeof(*page), 0);

	if (!page)
		return NULL;
	page->blocks_per_page = pool->allocation / pool->size;
	page->blocks = dp_os_host_alloc(page->blocks_per_page *
					sizeof(*page->blocks), 0);
	if (!page->blocks) {
		dp_os_host_free(page, sizeof(*page));
		return NULL;
	}
	if (dp_os_chunk_alloc(pool->dev, pool->allocation, pool->chunk_align,
			      0, &page->vaddr, &page->dma)) {
		free_page_meta(page);
		return NULL;
	}
	return page;
}

/*
 * Fill a fresh page's records in address order, register each block in the
 * xarray and splice them in front of the free list; lock held (as in the
 * patch).  False when the xarray ran out of memory: the blocks registered
 * so far stay unused (the patch returns early the same way).
 */
static bool carve_page(struct xf_pool *pool, struct xf_page *page)
{
	const unsigned int size = pool->size, end = pool->allocation;
	unsigned int off = 0, limit = pool->boundary;
	struct xf_block *head = NULL, **link = &head, *b;
	size_t i = 0;
	bool ok = true;

	page->next = pool->pages;
	pool->pages = page;
	pool->nr_pages++;
	for (;;) {
		if (off + size > limit) {
			off = limit;
			limit += pool->boundary;
		}
		if (off + size > end)
			break;
		b = &page->blocks[i++];
		b->vaddr = (char *)page->vaddr + off;
		b->dma = page->dma + off;
		if (bxa_store(&pool->block_map, xf_key(b->vaddr), b)) {
			ok = false;
			break;
		}
		*link = b;
		link = &b->next;
		off += size;
		pool->nr_blocks++;
	}
	*link = pool->free;
	pool->free = head;
	return ok;
}

static inline struct xf_block *pop(struct xf_pool *pool)
{
	struct xf_block *b = pool->free;

	if (b) {
		pool->free = b->next;
		pool->nr_active++;
	}
	return b;
}

void *bl_xa_alloc(struct bl_pool *p, dmapool_dma_t *dma)
{
	struct xf_pool *pool = to_xf(p);
	struct xf_page *page;
	struct xf_block *b;
	unsigned long flags;

	flags = dp_lock(&pool->lock);
	b = pop(pool);
	if (DP_UNLIKELY(!b)) {
		dp_unlock(&pool->lock, flags);
		page = new_page(pool);
		if (!page)
			return NULL;
		flags = dp_lock(&pool->lock);
		carve_page(pool, page);
		b = pop(pool);
		if (!b) {
			dp_unlock(&pool->lock, flags);
			return NULL;
		}
	}
	dp_unlock(&pool->lock, flags);
	*dma = b->dma;
	return b->vaddr;
}

void bl_xa_free(struct bl_pool *p, void *vaddr, dmapool_dma_t dma)
{
	struct xf_pool *pool = to_xf(p);
	struct xf_block *b;
	unsigned long flags;

	b = bxa_load(&pool->block_map, xf_key(vaddr));
	if (DP_UNLIKELY(!b))
		return;		/* the patch prints "invalid vaddr" */
	flags = dp_lock(&pool->lock);
	b->dma = dma;
	b->next = pool->free;
	pool->free = b;
	pool->nr_active--;
	dp_unlock(&pool->lock, flags);
}

static void xf_walk(struct bl_pool *p, dmapool_chunk_fn fn, void *ctx)
{
	struct xf_pool *pool = to_xf(p);
	struct xf_page *page;
	unsigned long flags;

	flags = dp_lock(&pool->lock);
	for (page = pool->pages; page; page = page->next)
		fn(page->vaddr, page->dma, pool->allocation, ctx);
	dp_unlock(&pool->lock, flags);
}

static void xf_mem(struct bl_pool *p, struct bl_mem *m)
{
	struct xf_pool *pool = to_xf(p);
	size_t per_page = sizeof(struct xf_page) +
			  pool->allocation / pool->size * sizeof(struct xf_block);

	m->chunks = pool->nr_pages;
	m->dma_bytes = pool->nr_pages * pool->chunk_align;
	m->meta_bytes = sizeof(*pool) + pool->nr_pages * per_page +
			pool->block_map.nodes * sizeof(struct bxa_node);
}

static size_t xf_block_size(struct bl_pool *p)
{
	return to_xf(p)->size;
}

const struct bl_ops bl_xarray_fix = {
	.name = "xarray-fix",
	.create = bl_xa_create,
	.destroy = bl_xa_destroy,
	.alloc = bl_xa_alloc,
	.free = bl_xa_free,
	.walk = xf_walk,
	.mem = xf_mem,
	.block_size = xf_block_size,
};
