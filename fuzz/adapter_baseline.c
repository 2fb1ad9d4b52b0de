// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The ops harness's view of a baseline design (bench/baselines/: the
 * kernel's embedded free list, its older page list, the unmerged xarray
 * fix), on the same arena backend as dmapool.
 *
 * The baselines validate nothing and report nothing, so the harness drives
 * them with pool operations and device writes only: no host misuse, no
 * handles, no options.  Whatever the harness finds against them is
 * therefore the device's doing.  Only what the interface exposes is
 * checked from stats (chunks, block size); the rest of the model (every
 * block inside the pool, aligned, not overlapping, dma matching vaddr,
 * live blocks left alone, no chunk with a live block given back) applies
 * as to dmapool.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "baseline.h"

static const struct bl_ops *cur;

struct bpool {
	struct bl_pool *pool;
	struct dmapool_dev *dev;
};

static void bl_init(dpf_report_cb cb, void *ctx)
{
	(void)cb;
	(void)ctx;
}

static void *bl_create(const struct dpf_params *p, int owner,
		       const char *name, dpf_report_cb cb, void *ctx)
{
	struct bpool *bp = calloc(1, sizeof(*bp));

	(void)name;
	(void)cb;
	(void)ctx;
	if (!bp)
		return NULL;
	bp->dev = dpf_arena_dev(owner, p->low);
	if (bp->dev)
		bp->pool = cur->create(bp->dev, p->size, p->align, p->boundary);
	if (!bp->pool) {
		if (bp->dev)
			dmapool_dev_put(bp->dev);
		free(bp);
		return NULL;
	}
	return bp;
}

static void bl_destroy(void *pool)
{
	struct bpool *bp = pool;

	cur->destroy(bp->pool);
	dmapool_dev_put(bp->dev);
	free(bp);
}

static void *bl_alloc(void *pool, dmapool_gfp_t gfp, uint64_t *dma)
{
	struct bpool *bp = pool;
	dmapool_dma_t d = 0;
	void *v = cur->alloc(bp->pool, &d);

	*dma = d;
	if (v && (gfp & DMAPOOL_GFP_ZERO))
		memset(v, 0, cur->block_size(bp->pool));	/* the kernel's zalloc */
	return v;
}

static void bl_free(void *pool, void *vaddr, uint64_t dma)
{
	cur->free(((struct bpool *)pool)->pool, vaddr, dma);
}

static void bl_stats(void *pool, struct dmapool_stats *st)
{
	struct bpool *bp = pool;
	struct bl_mem m;

	memset(st, 0, sizeof(*st));
	cur->mem(bp->pool, &m);
	st->chunks = m.chunks;
	st->dma_bytes = m.dma_bytes;
	st->meta_bytes = m.meta_bytes;
	st->block_size = cur->block_size(bp->pool);
}

static void bl_walk(void *pool, dmapool_chunk_fn fn, void *ctx)
{
	cur->walk(((struct bpool *)pool)->pool, fn, ctx);
}

static const struct dpf_adapter baseline_adapter = {
	.name = "baseline",
	.caps = 0,
	.init = bl_init,
	.create = bl_create,
	.destroy = bl_destroy,
	.alloc = bl_alloc,
	.free = bl_free,
	.stats = bl_stats,
	.walk = bl_walk,
};

const struct dpf_adapter *dpf_baseline_adapter(const char *name)
{
	static struct dpf_adapter a;

	cur = bl_find(name);
	if (!cur) {
		fprintf(stderr, "dpf: no baseline design named \"%s\"\n", name);
		abort();
	}
	a = baseline_adapter;
	a.name = cur->name;
	return &a;
}
