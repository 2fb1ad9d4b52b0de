// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The heap backend: chunks are ordinary host memory, each its own anonymous
 * mapping (like DMA memory, page-granular and page-aligned; unlike
 * posix_memalign, no slack page between chunks, and neighbouring chunks sit
 * next to each other, which keeps the radix index shallow).  The bus address
 * is the virtual address moved above the user address space, so it is never
 * equal to the vaddr (code that mixes them up is caught) and keeps every
 * alignment the vaddr has.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dev.h"

#define HEAP_DMA_OFFSET	0xd0000000000000ull

static int heap_alloc(struct dmapool_dev *dev, size_t size, size_t align,
		      void **vaddr, dmapool_dma_t *dma)
{
	void *p = dp_user_map_aligned(size, align);

	(void)dev;
	if (!p)
		return -ENOMEM;
	*vaddr = p;
	*dma = (dmapool_dma_t)(uintptr_t)p + HEAP_DMA_OFFSET;
	return 0;
}

static void heap_free(struct dmapool_dev *dev, void *vaddr, dmapool_dma_t dma,
		      size_t size)
{
	(void)dev;
	(void)dma;
	munmap(vaddr, size);
}

static const struct dmapool_dev_ops heap_ops = {
	.chunk_alloc = heap_alloc,
	.chunk_free = heap_free,
};

struct dmapool_dev *dmapool_dev_heap(void)
{
	return dmapool_dev_new(&heap_ops, NULL);
}
