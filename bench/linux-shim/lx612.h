/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * What the adapter needs to know about a struct dma_pool, which only
 * mm/dmapool.c defines: layout.c compiles that same file a second time
 * (its exported functions renamed, never called) to answer these from the
 * real struct layout.  Plain C types only.
 */
#ifndef LX_SHIM_LX612_H
#define LX_SHIM_LX612_H

#include <stddef.h>

struct device;
struct dma_pool;

struct lx612_counts {
	size_t nr_blocks, nr_active, nr_pages;
	size_t size, allocation, boundary;
	size_t sizeof_pool, sizeof_page;	/* kmalloc'd per pool, per page */
};

struct device *lx612_pool_device(struct dma_pool *pool);
void lx612_pool_counts(struct dma_pool *pool, struct lx612_counts *c);
/* Every page of the pool (its vaddr, dma and length), under the pool lock. */
void lx612_pool_walk(struct dma_pool *pool,
		     void (*fn)(void *vaddr, __UINT64_TYPE__ dma, size_t len,
				void *ctx),
		     void *ctx);

#endif /* LX_SHIM_LX612_H */
