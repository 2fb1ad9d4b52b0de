/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The dma_pool drop-in: include this (after or instead of <linux/dmapool.h>,
 * or with "-include", see dropin.mk) and every dma_pool_*() and
 * dmam_pool_*() call of the file goes to dmapool, with the kernel's
 * signatures and semantics.  No other change to the driver.
 *
 * <linux/dmapool.h> is included first, so that a later include of it (from
 * another header) is a no-op and cannot bring the kernel's names back.
 * Every file that touches one pool must see the same mapping: a pool from
 * dmapool handed to the kernel's dma_pool_free() is not a dma_pool.
 *
 * Both shapes of <linux/dmapool.h> work: 6.12's, where dma_pool_create()
 * is a function, and newer kernels', where it is a static inline over
 * dma_pool_create_node().  Either name goes to dmapool; the kernel's inline
 * is left unused.
 */
#ifndef DMAPOOL_DMA_POOL_H
#define DMAPOOL_DMA_POOL_H

#include <linux/dmapool.h>

#include <dmapool/kernel.h>

#ifndef DMAPOOL_IN_TREE
#define dma_pool_create		dmapool_dma_pool_create
#define dma_pool_create_node	dmapool_dma_pool_create_node
#define dma_pool_destroy	dmapool_dma_pool_destroy
#define dma_pool_alloc		dmapool_dma_pool_alloc
#define dma_pool_zalloc		dmapool_dma_pool_zalloc
#define dma_pool_free		dmapool_dma_pool_free
#define dmam_pool_create	dmapool_dmam_pool_create
#define dmam_pool_destroy	dmapool_dmam_pool_destroy
#endif

#endif /* DMAPOOL_DMA_POOL_H */
