// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The list of designs, and dmapool itself behind the baselines' interface
 * (default options, free by address), so harnesses can treat all alike.
 */
#include <string.h>

#include "baseline.h"

static struct bl_pool *dp_create(struct dmapool_dev *dev, size_t size,
				 size_t align, size_t boundary)
{
	return (struct bl_pool *)dmapool_create("baseline", dev, size, align,
						boundary);
}

static void dp_destroy(struct bl_pool *pool)
{
	dmapool_destroy((struct dmapool *)pool);
}

static void *dp_alloc(struct bl_pool *pool, dmapool_dma_t *dma)
{
	return dmapool_alloc((struct dmapool *)pool, 0, dma);
}

static void dp_free(struct bl_pool *pool, void *vaddr, dmapool_dma_t dma)
{
	dmapool_free((struct dmapool *)pool, vaddr, dma);
}

static void dp_walk(struct bl_pool *pool, dmapool_chunk_fn fn, void *ctx)
{
	dmapool_walk_chunks((struct dmapool *)pool, fn, ctx);
}

static void dp_mem(struct bl_pool *pool, struct bl_mem *m)
{
	struct dmapool_stats st;

	dmapool_get_stats((struct dmapool *)pool, &st);
	m->dma_bytes = st.dma_bytes;
	m->meta_bytes = st.meta_bytes;
	m->chunks = st.chunks;
}

static size_t dp_block_size(struct bl_pool *pool)
{
	struct dmapool_stats st;

	dmapool_get_stats((struct dmapool *)pool, &st);
	return st.block_size;
}

const struct bl_ops bl_dmapool = {
	.name = "dmapool",
	.create = dp_create,
	.destroy = dp_destroy,
	.alloc = dp_alloc,
	.free = dp_free,
	.walk = dp_walk,
	.mem = dp_mem,
	.block_size = dp_block_size,
};

const struct bl_ops *const bl_all[] = {
	&bl_linux_embedded,
	&bl_linux_pagelist,
	&bl_xarray_fix,
	&bl_dmapool,
	NULL,
};

const struct bl_ops *bl_find(const char *name)
{
	unsigned int i;

	for (i = 0; bl_all[i]; i++)
		if (!strcmp(bl_all[i]->name, name))
			return bl_all[i];
	return NULL;
}
