// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Shrink: empty chunks go back to the backend (the kernel's dma_pool keeps
 * every page until destroy).
 *
 * A chunk is empty when every block is free in its bitmap (a block that is
 * allocated, cached by a thread or otherwise held keeps its chunk).  The
 * pool keeps opts.reserve_chunks empty chunks for the next burst and
 * releases the rest, on dmapool_shrink() and, with DMAPOOL_OPT_AUTO_SHRINK,
 * whenever a free leaves a chunk empty.  A released chunk leaves the avail
 * list, the index and its handle slot under the pool lock; then, unlocked,
 * its DMA memory is zeroed and returned to the backend, and its host record
 * is freed after an RCU grace period, because a lock-free free may still be
 * looking at it (it finds every block free there and reports).  A handle
 * into a released chunk names an empty slot, or a slot that a later chunk
 * took with other generations and another address: bad-handle or
 * stale-handle, never a crash.
 */
#include "pool.h"

size_t dp_full_map_bytes(const struct dp_geometry *g)
{
	return (1 + g->nwords) * sizeof(uint64_t);
}

uint64_t *dp_full_map_new(const struct dp_geometry *g)
{
	uint64_t *map = dp_os_host_zalloc(dp_full_map_bytes(g), 0);
	uint32_t pos;

	if (!map)
		return NULL;
	for (pos = 0; pos < g->nbits; pos++)
		if (dp_geo_valid_position(g, pos)) {
			map[1 + pos / 64] |= (uint64_t)1 << (pos % 64);
			map[0] |= (uint64_t)1 << (pos / 64);
		}
	return map;
}

/* Lock held. */
static size_t count_empty(const struct dmapool *pool)
{
	const struct dp_chunk *c;
	size_t n = 0;

	for (c = pool->avail; c; c = c->next)
		n += dp_chunk_is_empty(pool, c);
	return n;
}

/* Take @c out of the pool; lock held.  Its record stays readable. */
static void unhook(struct dmapool *pool, struct dp_chunk *c,
		   struct dp_garbage *gb)
{
	struct dp_slot *slot = &pool->slots[c->id];

	dp_avail_del(pool, c);
	pool->index.ops->remove(&pool->index, c->vaddr, pool->geo.chunk_size);
	dp_garbage_add(gb, c->gen, dp_gen_bytes(pool));
	c->gen = NULL;
	slot->chunk = NULL;
	pool->free_slots++;
	pool->nchunks--;
	pool->chunks_released++;
}

size_t dp_shrink(struct dmapool *pool, size_t keep, dmapool_gfp_t gfp,
		 const struct dp_chunk *hot)
{
	struct dp_garbage gb = DP_GARBAGE_INIT;
	struct dp_index *ix = &pool->index;
	struct dp_chunk *c, *next, *victims = NULL;
	dp_irqflags_t flags;
	size_t n = 0, kept = 0;

	flags = dp_lock(&pool->lock);
	/* Stock the spares an index may need to remove, lock dropped. */
	for (;;) {
		size_t empty = count_empty(pool);
		uint32_t per = ix->ops->remove_nodes_needed(ix, 0, 0);
		uint32_t need, want;
		void *nodes;

		if (empty <= keep || !per)
			break;
		need = per * (uint32_t)(empty - keep);
		if (need <= ix->nspare)
			break;
		want = need - ix->nspare;
		dp_unlock(&pool->lock, flags);
		nodes = dp_index_alloc_nodes(ix, want, gfp);
		flags = dp_lock(&pool->lock);
		if (!nodes)
			break;		/* release what the spares allow */
		dp_index_add_spares(ix, nodes, want);
	}
	/* The chunk a free just emptied is the one to keep: its lines are
	 * hot, and a second free of its last block is still a double free. */
	if (hot && keep)
		for (c = pool->avail; c; c = c->next)
			if (c == hot && dp_chunk_is_empty(pool, c)) {
				kept++;
				break;
			}
	for (c = pool->avail; c; c = next) {
		next = c->next;
		if (!dp_chunk_is_empty(pool, c) || (kept && c == hot))
			continue;
		if (kept < keep) {
			kept++;
			continue;
		}
		if (ix->ops->remove_nodes_needed(ix, c->vaddr,
						 pool->geo.chunk_size) >
		    ix->nspare)
			break;
		unhook(pool, c, &gb);
		c->next = victims;
		victims = c;
		n++;
	}
	gb.nodes = dp_index_steal_spares(ix);
	dp_unlock(&pool->lock, flags);

	for (c = victims; c; c = next) {
		next = c->next;
		dp_chunk_retire(pool, c);
	}
	dp_garbage_free(pool, &gb);
	return n;
}

void dp_auto_shrink(struct dmapool *pool, const struct dp_chunk *hot)
{
	dp_shrink(pool, pool->reserve, 0, hot);
}

size_t dmapool_shrink(struct dmapool *pool)
{
	if (!pool) {
		dp_report_global(DMAPOOL_R_NULL_POOL, NULL, 0,
				 "dmapool_shrink called with a NULL pool");
		return 0;
	}
	if (pool->tcache)
		dp_tc_flush_mine(pool);
	return dp_shrink(pool, pool->reserve, 0, NULL);
}
