// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * linux-6.12 behind the baselines' interface (baseline.h): one struct
 * device per pool, whose coherent DMA memory comes from the dmapool
 * backend the caller passes, and Linux's own dma_pool_* on top.
 *
 * This file sees both the shim's <linux/dmapool.h> and baseline.h, so the
 * compiler checks that the declarations the benchmark calls directly
 * (baseline.h) are the kernel file's.
 */
#include <linux/device.h>
#include <linux/dmapool.h>
#include <linux/gfp.h>
#include <linux/slab.h>

#include "baseline.h"
#include "lx612.h"
#include "lx_host.h"

_Static_assert(BL_L612_GFP == GFP_KERNEL,
	       "baseline.h's BL_L612_GFP must be the shim's GFP_KERNEL");
_Static_assert(sizeof(dma_addr_t) == sizeof(dmapool_dma_t),
	       "dma_addr_t must be dmapool_dma_t");

struct bl_pool *bl_l612_create(struct dmapool_dev *dev, size_t size,
			       size_t align, size_t boundary)
{
	struct device *d = NULL;
	struct dma_pool *pool;

	/* No backend: pass no device, and let the kernel's code refuse it. */
	if (dev) {
		d = kzalloc(sizeof(*d), GFP_KERNEL);
		if (!d)
			return NULL;
		lx_device_init(d, "bench", dev);
		lx_host_dev_get(dev);
	}
	pool = dma_pool_create("linux-6.12", d, size, align, boundary);
	if (!pool && d) {
		lx_host_dev_put(dev);
		kfree(d);
	}
	return (struct bl_pool *)pool;
}

void bl_l612_destroy(struct bl_pool *p)
{
	struct dma_pool *pool = (struct dma_pool *)p;
	struct device *d;

	if (!pool)
		return;
	d = lx612_pool_device(pool);
	/* Busy: the kernel's code keeps (leaks) the pages, as in a kernel. */
	dma_pool_destroy(pool);
	lx_host_dev_put(d->backend);
	kfree(d);
}

static void *l612_alloc(struct bl_pool *p, dmapool_dma_t *dma)
{
	return dma_pool_alloc((struct dma_pool *)p, GFP_KERNEL, dma);
}

static void l612_free(struct bl_pool *p, void *vaddr, dmapool_dma_t dma)
{
	dma_pool_free((struct dma_pool *)p, vaddr, dma);
}

static void l612_walk(struct bl_pool *p, dmapool_chunk_fn fn, void *ctx)
{
	lx612_pool_walk((struct dma_pool *)p, fn, ctx);
}

static void l612_mem(struct bl_pool *p, struct bl_mem *m)
{
	struct dma_pool *pool = (struct dma_pool *)p;
	struct device *d = lx612_pool_device(pool);
	struct lx612_counts c;

	lx612_pool_counts(pool, &c);
	m->chunks = c.nr_pages;
	m->dma_bytes = d->coherent_bytes;
	m->meta_bytes = c.sizeof_pool + c.nr_pages * c.sizeof_page;
}

static size_t l612_block_size(struct bl_pool *p)
{
	struct lx612_counts c;

	lx612_pool_counts((struct dma_pool *)p, &c);
	return c.size;
}

int bl_l612_sysfs_pools(struct bl_pool *p, char *buf)
{
	struct device *d = lx612_pool_device((struct dma_pool *)p);

	return (int)lx_device_read_file(d, "pools", buf);
}

const struct bl_ops bl_linux_612 = {
	.name = "linux-6.12",
	.create = bl_l612_create,
	.destroy = bl_l612_destroy,
	.alloc = l612_alloc,
	.free = l612_free,
	.walk = l612_walk,
	.mem = l612_mem,
	.block_size = l612_block_size,
};
