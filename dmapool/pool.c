// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * dmapool: a hardened DMA pool allocator.
 *
 * A pool hands out fixed-size blocks carved from chunks of DMA memory, like
 * the kernel's dma_pool, but none of its state lives in that memory: each
 * chunk is described by a small host-memory record with a bitmap of its free
 * blocks (chunk.h), chunks with free blocks sit on an avail list, an index
 * maps an address back to its chunk for dmapool_free() (index.h), and a
 * handle names chunk, block and generation for dmapool_free_block()
 * (handle.c).  A device that writes anywhere in pool memory therefore
 * changes data, never the allocator's decisions, and every free is checked
 * against the allocator's own records before anything changes (reports.c).
 * The price is a lookup on free; a radix tree over page frames keeps it to a
 * few loads, and because alloc and free never touch block memory the cache
 * footprint is a bit per block instead of a cache line per block.
 *
 * This file: creating, destroying and describing pools.
 */
#include "pool.h"

#define DP_SUPPORTED_FLAGS	(DMAPOOL_OPT_ABORT_ON_VIOLATION | \
				 DMAPOOL_OPT_THREAD_CACHE | \
				 DMAPOOL_OPT_AUTO_SHRINK | \
				 DMAPOOL_OPT_POISON | DMAPOOL_OPT_QUARANTINE | \
				 DMAPOOL_OPT_SCRUB | DMAPOOL_OPT_RANDOM)

void dmapool_opts_init(struct dmapool_opts *o)
{
	dp_os_memset(o, 0, sizeof(*o));
	o->index = DMAPOOL_INDEX_RADIX;
}

static const char *check_opts(const struct dmapool_opts *o)
{
	unsigned int i;

	for (i = 0; i < sizeof(o->reserved) / sizeof(o->reserved[0]); i++)
		if (o->reserved[i])
			return "reserved option fields must be zero";
	if (o->reserved32)
		return "reserved option fields must be zero";
	if (o->flags & ~DP_SUPPORTED_FLAGS)
		return "option flags not supported by this build";
	return dp_harden_check_opts(o);
}

struct dmapool *dmapool_create_opts(const char *name, struct dmapool_dev *dev,
				    size_t size, size_t align, size_t boundary,
				    const struct dmapool_opts *opts)
{
	struct dmapool_opts defaults;
	struct dp_geometry geo;
	struct dmapool *pool;
	const char *why;

	if (!opts) {
		dmapool_opts_init(&defaults);
		opts = &defaults;
	}
	why = check_opts(opts);
	if (!why && !dev)
		why = "no device";
	if (!why)
		why = dp_geometry_init(&geo, size, align, boundary,
				       opts->redzone, opts->chunk_size,
				       dp_os_page_size());
	if (why) {
		dp_report_global(DMAPOOL_R_BAD_GEOMETRY, NULL, 0, why);
		return NULL;
	}

	pool = dp_os_host_zalloc(sizeof(*pool), 0);
	if (!pool)
		return NULL;
	if (dp_index_init(&pool->index, opts->index, geo.page_shift)) {
		dp_os_host_free(pool, sizeof(*pool));
		dp_report_global(DMAPOOL_R_BAD_GEOMETRY, NULL, 0,
				 "index kind not available in this build");
		return NULL;
	}
	dp_lock_init(&pool->lock);
	pool->geo = geo;
	/* (check_opts refused thread caches with hardening options.) */
	if (dp_harden_init(pool, opts)) {
		dp_harden_fini(pool);
		dp_index_fini(&pool->index);
		dp_os_host_free(pool, sizeof(*pool));
		return NULL;
	}
	if ((opts->flags & DMAPOOL_OPT_THREAD_CACHE) && dp_tc_init(pool)) {
		dp_index_fini(&pool->index);
		dp_os_host_free(pool, sizeof(*pool));
		return NULL;
	}
	pool->auto_shrink = opts->flags & DMAPOOL_OPT_AUTO_SHRINK;
	pool->special = !pool->index.radix || pool->tcache ||
			pool->auto_shrink || pool->hooked;
	pool->alloc_special = pool->tcache || pool->hooked;
	pool->reserve = opts->reserve_chunks;
	pool->full_map = dp_full_map_new(&pool->geo);
	if (!pool->full_map) {
		dp_harden_fini(pool);
		if (pool->tcache)
			dp_os_local_fini(&pool->local);
		dp_index_fini(&pool->index);
		dp_os_host_free(pool, sizeof(*pool));
		return NULL;
	}
	pool->flags = opts->flags;
	pool->report = opts->report;
	pool->report_ctx = opts->report_ctx;
	pool->gen_seed = (uint16_t)dp_os_random_seed();
	dp_os_strscpy(pool->name, name ? name : "", sizeof(pool->name));
	pool->dev = dev;
	dp_os_dev_get(dev);
	dp_registry_add(pool);
	return pool;
}

struct dmapool *dmapool_create(const char *name, struct dmapool_dev *dev,
			       size_t size, size_t align, size_t boundary)
{
	return dmapool_create_opts(name, dev, size, align, boundary, NULL);
}

void dmapool_destroy(struct dmapool *pool)
{
	struct dp_pending p;
	dp_irqflags_t flags;
	uint64_t in_use;
	uint32_t id;

	if (!pool)
		return;
	dp_registry_del(pool);
	/* Every thread's cached blocks go back first: they are not in use. */
	if (pool->tcache) {
		pool->dying = true;
		dp_os_local_fini(&pool->local);
	}

	/* Blocks still allocated stay where the device may be using them. */
	flags = dp_lock(&pool->lock);
	in_use = pool->in_use;
	dp_unlock(&pool->lock, flags);
	if (in_use) {
		dp_report_fill(pool, &p, DMAPOOL_R_DESTROY_BUSY, NULL, 0,
			       "destroyed with blocks still allocated: their chunks are kept, not returned to the backend");
		p.r.count = in_use;
		dp_report_deliver(pool, &p);
	}

	for (id = 0; id < pool->nslots; id++) {
		struct dp_chunk *c = pool->slots[id].chunk;

		if (c && c->gen)
			dp_os_host_free(c->gen, dp_gen_bytes(pool));
		if (c)
			dp_chunk_destroy(pool, c,
					 !dp_chunk_allocated_count(c, &pool->geo));
	}
	/*
	 * Index nodes and chunk records retired earlier are freed by their RCU
	 * callbacks, which need nothing of the pool: no need to wait for them
	 * here (a kernel module calls rcu_barrier() before it unloads).
	 */
	dp_harden_fini(pool);
	dp_index_fini(&pool->index);
	if (pool->slots)
		dp_os_host_free(pool->slots,
				pool->slot_cap * sizeof(*pool->slots));
	dp_os_host_free(pool->full_map, dp_full_map_bytes(&pool->geo));
	dp_os_dev_put(pool->dev);
	dp_lock_fini(&pool->lock);
	dp_os_host_free(pool, sizeof(*pool));
}

static void get_stats(const struct dmapool *cpool, struct dmapool_stats *st)
{
	/* The lock is the only thing a reader changes. */
	struct dmapool *pool = (struct dmapool *)cpool;
	const struct dp_geometry *g;
	uint64_t gens = 0, cached, cache_bytes;
	dp_irqflags_t flags;
	uint32_t id, k;

	dp_os_memset(st, 0, sizeof(*st));
	if (!pool)
		return;
	g = &pool->geo;
	/* Exact when no thread is using its cache meanwhile. */
	dp_tc_stats(pool, &cached, &cache_bytes);
	flags = dp_lock(&pool->lock);
	for (id = 0; id < pool->nslots; id++)
		if (pool->slots[id].chunk && pool->slots[id].chunk->gen)
			gens++;
	st->blocks_in_use = pool->in_use > cached ? pool->in_use - cached : 0;
	st->blocks_cached = cached;
	st->chunks_released = pool->chunks_released;
	st->chunks = pool->nchunks;
	st->blocks_total = pool->nchunks * g->blocks;
	st->dma_bytes = pool->nchunks * g->chunk_size;
	st->meta_bytes = sizeof(*pool) + dp_full_map_bytes(g) +
			 pool->nchunks * dp_chunk_meta_size(g) +
			 pool->slot_cap * sizeof(struct dp_slot) +
			 gens * dp_gen_bytes(pool) +
			 dp_index_meta_bytes(&pool->index) + cache_bytes +
			 dp_harden_meta_bytes(pool);
	st->violations = pool->violations;
	for (k = 0; k < DMAPOOL_R_KINDS; k++)
		st->by_kind[k] = pool->by_kind[k];
	st->quarantined = pool->hard.q.count;
	st->quarantine_forced = pool->hard.q.forced;
	dp_unlock(&pool->lock, flags);
	st->block_size = g->size;
	st->stride = g->stride;
	st->chunk_size = g->chunk_size;
	st->blocks_per_chunk = g->blocks;
}

void dmapool_walk_chunks(const struct dmapool *cpool, dmapool_chunk_fn fn,
			 void *ctx)
{
	struct dmapool *pool = (struct dmapool *)cpool;
	dp_irqflags_t flags;
	uint32_t id;

	if (!pool)
		return;
	flags = dp_lock(&pool->lock);
	for (id = 0; id < pool->nslots; id++) {
		struct dp_chunk *c = pool->slots[id].chunk;

		if (c)
			fn((void *)c->vaddr, c->dma, pool->geo.chunk_size, ctx);
	}
	dp_unlock(&pool->lock, flags);
}

void dmapool_get_stats_size(const struct dmapool *pool,
			    struct dmapool_stats *st, size_t size)
{
	struct dmapool_stats full;

	if (!st)
		return;
	get_stats(pool, &full);
	if (size > sizeof(full)) {
		dp_os_memset((char *)st + sizeof(full), 0, size - sizeof(full));
		size = sizeof(full);
	}
	dp_os_memcpy(st, &full, size);
}

unsigned int dmapool_version(void)
{
	return DMAPOOL_VERSION;
}
