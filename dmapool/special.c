// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Free by address for pools that leave the default fast path (pool->special):
 * a B-tree index, per-thread caches, automatic shrink, hardening options.  The validation is
 * dmapool_free's (invariant 3), through the index's ops; a thread-cache pool
 * tries its cache first (tcache.c).  Kept out of alloc.c so the fast path's
 * function stays small.
 */
#include "pool.h"

bool dp_put_special(struct dmapool *pool, struct dp_chunk *c, uint32_t pos,
		    bool *shrink)
{
	if (pool->geo.held_superset &&
	    dp_os_test_and_set_bit64(pos % 64,
				     dp_chunk_held_word(c, &pool->geo, pos)))
		return false;
	dp_put_block(pool, c, pos);
	*shrink = pool->auto_shrink && dp_chunk_emptied(pool, c, pos);
	return true;
}

/*
 * Pools with another index, thread caches or automatic shrink: the same
 * validation as dmapool_free, through the index's ops, under the lock.
 * @zero: clear the block once it is ours again, before the lock is dropped
 * (dmapool_free_zero, any pool).
 */
void dp_free_locked(struct dmapool *pool, void *vaddr, dmapool_dma_t dma,
		    bool zero)
{
	const uintptr_t va = (uintptr_t)vaddr;
	const struct dp_geometry *g = &pool->geo;
	struct dp_chunk *c;
	dp_irqflags_t flags;
	bool shrink = false;
	uint32_t pos;
	size_t off;

	flags = dp_lock(&pool->lock);
	c = dp_index_lookup(&pool->index, va);
	if (c) {
		off = va - c->vaddr;
		if (off < g->chunk_size && dp_geo_position(g, off, &pos) &&
		    c->dma + off == dma && dp_chunk_is_allocated(c, g, pos)) {
			if (pool->hooked) {
				/* No lock-free path in hardened pools: ours. */
				if (zero)
					dp_os_memset(vaddr, 0, g->size);
				dp_harden_free(pool, c, pos, flags);
				return;
			}
			if (dp_put_special(pool, c, pos, &shrink)) {
				if (zero)
					dp_os_memset(vaddr, 0, g->size);
				dp_unlock(&pool->lock, flags);
				if (shrink)
					dp_auto_shrink(pool, c);
				return;
			}
		}
	}
	dp_free_bad(pool, c, vaddr, dma, flags);
}
