/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Coherent DMA memory from the device's dmapool backend (the benchmark's
 * arena, or any struct dmapool_dev): the same memory the other subjects
 * get.  Like the kernel's, an allocation is a power-of-two number of pages,
 * aligned to its size; unlike the kernel's it is not zeroed (nothing in the
 * benchmark zeroes its chunks).
 */
#ifndef LX_SHIM_LINUX_DMA_MAPPING_H
#define LX_SHIM_LINUX_DMA_MAPPING_H

#include <linux/device.h>
#include <linux/gfp.h>
#include <linux/types.h>

void *dma_alloc_coherent(struct device *dev, size_t size,
			 dma_addr_t *dma_handle, gfp_t gfp);
void dma_free_coherent(struct device *dev, size_t size, void *cpu_addr,
		       dma_addr_t dma_handle);

#endif /* LX_SHIM_LINUX_DMA_MAPPING_H */
