// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The region backend: chunks carved out of memory the caller already
 * mapped for the device - a hugepage, a DPDK memzone, an SPDK buffer, an
 * existing VFIO mapping - given as [vaddr, vaddr + size) at bus address
 * dma.  The backend never maps, pins or frees memory: a chunk comes from
 * the region and goes back to it, and when the region is full, growing a
 * pool fails cleanly (dmapool_alloc returns NULL).  Any number of pools
 * may share one region; one lock keeps the carving thread-safe.
 *
 * The region is trimmed inwards to whole pages.  vaddr and dma must sit at
 * the same offset in their page: a chunk aligned to the page (or more) in
 * one must be aligned in the other.  Alignments above the page work as far
 * as vaddr and dma agree (a region whose two addresses are both 2 MiB
 * aligned serves any chunk alignment up to 2 MiB).
 *
 * A chunk is zeroed when it is handed out: the region's memory may hold
 * anything (the caller's old data, or what a device wrote into a chunk
 * after it came back), and the next pool must not find it.  The core
 * zeroes a chunk before it gives it back, too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "carve.h"
#include "dev.h"
#include "dev_region.h"

struct region {
	pthread_mutex_t lock;		/* everything below */
	struct dp_slab slab;
	uint64_t chunks, carved, returned, failures, bad_frees;
};

static int region_alloc(struct dmapool_dev *dev, size_t size, size_t align,
			void **vaddr, dmapool_dma_t *dma)
{
	struct region *r = dmapool_dev_priv(dev);
	uint64_t d;
	void *v;
	int ret;

	pthread_mutex_lock(&r->lock);
	ret = dp_slab_carve(&r->slab, size, align, &v, &d);
	if (ret) {
		r->failures++;
	} else {
		r->chunks++;
		r->carved++;
	}
	pthread_mutex_unlock(&r->lock);
	if (ret)
		return ret == -ENOSPC ? -ENOMEM : ret;
	memset(v, 0, size);
	*vaddr = v;
	*dma = d;
	return 0;
}

static void region_free(struct dmapool_dev *dev, void *vaddr,
			dmapool_dma_t dma, size_t size)
{
	struct region *r = dmapool_dev_priv(dev);

	pthread_mutex_lock(&r->lock);
	/* A range this region did not hand out changes nothing. */
	if (dp_slab_uncarve(&r->slab, vaddr, dma, size)) {
		r->bad_frees++;
	} else {
		r->chunks--;
		r->returned++;
	}
	pthread_mutex_unlock(&r->lock);
}

static void region_release(struct dmapool_dev *dev)
{
	struct region *r = dmapool_dev_priv(dev);

	dp_slab_fini(&r->slab);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

static const struct dmapool_dev_ops region_ops = {
	.chunk_alloc = region_alloc,
	.chunk_free = region_free,
	.release = region_release,
};

struct dmapool_dev *dmapool_dev_region(void *vaddr, dmapool_dma_t dma,
				       size_t size)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), skip, len;
	uintptr_t va = (uintptr_t)vaddr;
	struct dmapool_dev *dev;
	struct region *r;
	int ret;

	if (!vaddr || !size || va + (size - 1) < va ||
	    dma + (size - 1) < dma || ((va ^ dma) & (page - 1))) {
		errno = EINVAL;
		return NULL;
	}
	/* Whole pages only: skip to the first page start, cut the tail. */
	skip = (page - (dma & (page - 1))) & (page - 1);
	if (size <= skip || (size - skip) < page) {
		errno = EINVAL;
		return NULL;
	}
	len = (size - skip) & ~(page - 1);
	r = calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	ret = dp_slab_init(&r->slab, (uint8_t *)vaddr + skip, dma + skip, len,
			   page);
	if (ret) {
		free(r);
		errno = -ret;
		return NULL;
	}
	pthread_mutex_init(&r->lock, NULL);
	dev = dmapool_dev_new(&region_ops, r);
	if (!dev) {
		dp_slab_fini(&r->slab);
		pthread_mutex_destroy(&r->lock);
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	return dev;
}

int dp_dev_region_info(const struct dmapool_dev *dev,
		       struct dp_region_info *info)
{
	struct region *r;

	if (!dev || !info || dev->ops != &region_ops)
		return -EINVAL;
	r = dev->priv;
	pthread_mutex_lock(&r->lock);
	info->vaddr = r->slab.vaddr;
	info->dma = r->slab.dma;
	info->size = r->slab.len;
	info->used = dp_slab_used(&r->slab);
	info->chunks = r->chunks;
	info->carved = r->carved;
	info->returned = r->returned;
	info->failures = r->failures;
	info->bad_frees = r->bad_frees;
	pthread_mutex_unlock(&r->lock);
	return 0;
}
