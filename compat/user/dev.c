// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Backend objects: reference counted, so a pool keeps its backend alive.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dev.h"

struct dmapool_dev *dmapool_dev_new(const struct dmapool_dev_ops *ops,
				    void *priv)
{
	struct dmapool_dev *dev;

	if (!ops || !ops->chunk_alloc || !ops->chunk_free)
		return NULL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->ops = ops;
	dev->priv = priv;
	dev->refs = 1;
	return dev;
}

void *dmapool_dev_priv(const struct dmapool_dev *dev)
{
	return dev ? dev->priv : NULL;
}

void dmapool_dev_get(struct dmapool_dev *dev)
{
	if (dev)
		__atomic_add_fetch(&dev->refs, 1, __ATOMIC_RELAXED);
}

void dmapool_dev_put(struct dmapool_dev *dev)
{
	if (!dev || __atomic_sub_fetch(&dev->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (dev->ops->release)
		dev->ops->release(dev);
	free(dev);
}

void *dp_user_map_aligned(size_t size, size_t align)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), span;
	uintptr_t base, start;
	void *p;

	if (align < page)
		align = page;
	span = size + align - page;
	if (span < size)
		return NULL;
	p = mmap(NULL, span, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* Trim the slack on both sides of the aligned stretch. */
	base = (uintptr_t)p;
	start = (base + align - 1) & ~(uintptr_t)(align - 1);
	if (start > base)
		munmap(p, start - base);
	if (base + span > start + size)
		munmap((void *)(start + size), base + span - (start + size));
	return (void *)start;
}
