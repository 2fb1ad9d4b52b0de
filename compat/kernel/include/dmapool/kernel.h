/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * dmapool in the Linux kernel: what a kernel caller needs beyond
 * <dmapool/dmapool.h>.
 *
 * Devices.  In the kernel a struct dmapool_dev is a struct device: pass
 * dmapool_kdev(dev) where the API takes a struct dmapool_dev *.  Chunks come
 * from dma_alloc_coherent() on that device, and a pool holds a reference to
 * it (get_device) until it is destroyed.
 *
 *	struct dmapool *p = dmapool_create("cmds", dmapool_kdev(&pdev->dev),
 *					   64, 64, 4096);
 *	void *v = dmapool_zalloc(p, GFP_KERNEL, &dma);
 *
 * Flags are a gfp_t (cast to dmapool_gfp_t): it goes to kmalloc and
 * dma_alloc_coherent when the pool grows; __GFP_ZERO zeroes the block; 0 is
 * GFP_KERNEL.
 *
 * The dma_pool API.  dmapool also implements the kernel's dma_pool_*()
 * functions, dma_pool_create_node() included (the NUMA-aware create of
 * newer kernels; it exists here for 6.12 too).  Built as a module, they
 * are exported under the names below;
 * <dmapool/dma_pool.h> maps the kernel's names onto them, so a driver
 * switches by including that header (or with -include, see dropin.mk).
 * Installed into a kernel tree (install-into-tree), they are the kernel's
 * own dma_pool_*() and this mapping is not needed.
 */
#ifndef DMAPOOL_KERNEL_H
#define DMAPOOL_KERNEL_H

#include <linux/device.h>
#include <linux/gfp.h>
#include <linux/types.h>

#include <dmapool/dmapool.h>

/**
 * dmapool_kdev() - The dmapool device of a struct device.
 * @dev: the device whose DMA memory a pool will use
 *
 * A cast, nothing is allocated and no reference is taken: dmapool_create()
 * takes its own.
 *
 * Context: Any context.
 * Return: @dev as a struct dmapool_dev, for dmapool_create() and
 * dmapool_create_opts().
 */
static inline struct dmapool_dev *dmapool_kdev(struct device *dev)
{
	return (struct dmapool_dev *)dev;
}

/**
 * dmapool_kdev_of() - The struct device behind a dmapool device.
 * @dev: a device made by dmapool_kdev()
 *
 * Context: Any context.
 * Return: the struct device that dmapool_kdev() was given.
 */
static inline struct device *dmapool_kdev_of(struct dmapool_dev *dev)
{
	return (struct device *)dev;
}

struct dma_pool;

#ifdef DMAPOOL_IN_TREE
#define dmapool_dma_pool_create_node	dma_pool_create_node
#define dmapool_dma_pool_create		dma_pool_create
#define dmapool_dma_pool_destroy	dma_pool_destroy
#define dmapool_dma_pool_alloc		dma_pool_alloc
#define dmapool_dma_pool_free		dma_pool_free
#define dmapool_dmam_pool_create	dmam_pool_create
#define dmapool_dmam_pool_destroy	dmam_pool_destroy
#endif

struct dma_pool *dmapool_dma_pool_create_node(const char *name,
					      struct device *dev, size_t size,
					      size_t align, size_t boundary,
					      int node);
/*
 * In a tree whose <linux/dmapool.h> has dma_pool_create() as a static
 * inline (DMAPOOL_CREATE_INLINE, set by install-into-tree), that inline is
 * the only declaration.
 */
#if !defined(DMAPOOL_IN_TREE) || !defined(DMAPOOL_CREATE_INLINE)
struct dma_pool *dmapool_dma_pool_create(const char *name, struct device *dev,
					 size_t size, size_t align,
					 size_t boundary);
#endif
void dmapool_dma_pool_destroy(struct dma_pool *pool);
void *dmapool_dma_pool_alloc(struct dma_pool *pool, gfp_t mem_flags,
			     dma_addr_t *handle);
void dmapool_dma_pool_free(struct dma_pool *pool, void *vaddr,
			   dma_addr_t dma);
struct dma_pool *dmapool_dmam_pool_create(const char *name,
					  struct device *dev, size_t size,
					  size_t align, size_t boundary);
void dmapool_dmam_pool_destroy(struct dma_pool *pool);

/**
 * dmapool_dma_pool_zalloc() - Allocate a zeroed block (dma_pool_zalloc()).
 * @pool: a pool made by dmapool_dma_pool_create() or
 *	dmapool_dmam_pool_create()
 * @mem_flags: how a new chunk is allocated, if one is needed
 * @handle: where the block's DMA address is stored
 *
 * dmapool_dma_pool_alloc() with __GFP_ZERO.
 *
 * Context: As dmapool_dma_pool_alloc().
 * Return: the block, zeroed, or NULL.
 */
static inline void *dmapool_dma_pool_zalloc(struct dma_pool *pool,
					    gfp_t mem_flags,
					    dma_addr_t *handle)
{
	return dmapool_dma_pool_alloc(pool, mem_flags | __GFP_ZERO, handle);
}

struct dmapool *dmapool_of_dma_pool(struct dma_pool *pool);

#endif /* DMAPOOL_KERNEL_H */
