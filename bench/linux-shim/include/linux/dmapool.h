/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* The dma_pool API that Linux 6.12's mm/dmapool.c implements. */
#ifndef LX_SHIM_LINUX_DMAPOOL_H
#define LX_SHIM_LINUX_DMAPOOL_H

#include <linux/gfp.h>
#include <linux/types.h>

struct device;
struct dma_pool;

struct dma_pool *dma_pool_create(const char *name, struct device *dev,
				 size_t size, size_t align, size_t boundary);
void dma_pool_destroy(struct dma_pool *pool);
void *dma_pool_alloc(struct dma_pool *pool, gfp_t mem_flags,
		     dma_addr_t *handle);
void dma_pool_free(struct dma_pool *pool, void *vaddr, dma_addr_t dma);
struct dma_pool *dmam_pool_create(const char *name, struct device *dev,
				  size_t size, size_t align,
				  size_t allocation);
void dmam_pool_destroy(struct dma_pool *pool);

static inline void *dma_pool_zalloc(struct dma_pool *pool, gfp_t mem_flags,
				    dma_addr_t *handle)
{
	return dma_pool_alloc(pool, mem_flags | __GFP_ZERO, handle);
}

#endif /* LX_SHIM_LINUX_DMAPOOL_H */
