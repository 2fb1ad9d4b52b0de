// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The data path: alloc and free by address.
 *
 * Alloc takes the first free position of the first chunk on the avail list;
 * free finds the chunk through the index, turns the address into a position
 * with arithmetic, and validates everything (invariant 3) before it flips a
 * bit.  Neither reads or writes the block itself: the state is out of line.
 * Growth and every error path live in separate cold functions, so the hot
 * paths stay short and keep few registers.
 */
#include "pool.h"

struct dp_chunk *dp_take_block_slow(struct dmapool *pool, dmapool_gfp_t gfp,
				    uint32_t *pos, dp_irqflags_t *flags,
				    struct dp_garbage *gb)
{
	struct dp_chunk *c;

	if (gfp & DMAPOOL_GFP_NOGROW)
		return NULL;
	dp_unlock(&pool->lock, *flags);
	c = dp_chunk_create(pool, gfp);
	*flags = dp_lock(&pool->lock);
	if (!c || !dp_chunk_attach(pool, c, gfp, flags, gb))
		return NULL;
	/* Another thread may have freed a block meanwhile: any will do. */
	return dp_take_block_any(pool, pos);
}

/* No free block: grow (lock held on entry, released on return). */
static DP_NOINLINE void *alloc_slow(struct dmapool *pool, dmapool_gfp_t gfp,
				    dmapool_dma_t *dma, dp_irqflags_t flags)
{
	struct dp_garbage gb = DP_GARBAGE_INIT;
	struct dp_chunk *c;
	uint32_t pos;

	c = dp_take_block_slow(pool, gfp, &pos, &flags, &gb);
	dp_unlock(&pool->lock, flags);
	dp_garbage_free(pool, &gb);
	return c ? dp_hand_out(pool, c, pos, gfp, dma) : NULL;
}

/*
 * Pools with hardening options: random placement, and a poison check of the
 * block once it is ours (unlocked).  Not cold: such pools live here.
 */
static __attribute__((__noinline__)) void *alloc_hooked(struct dmapool *pool,
						    dmapool_gfp_t gfp,
						    dmapool_dma_t *dma)
{
	struct dp_garbage gb = DP_GARBAGE_INIT;
	dp_irqflags_t flags;
	struct dp_chunk *c;
	uint32_t pos;

	flags = dp_lock(&pool->lock);
	c = dp_take_block_any(pool, &pos);
	if (DP_UNLIKELY(!c))
		c = dp_take_block_slow(pool, gfp, &pos, &flags, &gb);
	dp_unlock(&pool->lock, flags);
	if (DP_UNLIKELY(gb.list || gb.nodes))
		dp_garbage_free(pool, &gb);
	if (DP_UNLIKELY(!c))
		return NULL;
	if (pool->hooks & DMAPOOL_OPT_POISON)
		dp_harden_alloc_check(pool, c, pos);
	return dp_hand_out(pool, c, pos, gfp, dma);
}

static DP_NOINLINE void *alloc_null(void)
{
	dp_report_global(DMAPOOL_R_NULL_POOL, NULL, 0,
			 "dmapool_alloc called with a NULL pool");
	return NULL;
}

/* The locked part of a plain allocation; returns with the lock dropped. */
static __attribute__((__always_inline__)) inline void *
alloc_locked(struct dmapool *pool, dmapool_gfp_t gfp, dmapool_dma_t *dma,
	     dp_irqflags_t flags)
{
	struct dp_chunk *c;
	uint32_t pos;

	c = dp_take_block(pool, &pos);
	if (DP_UNLIKELY(!c))
		return alloc_slow(pool, gfp, dma, flags);
	dp_unlock(&pool->lock, flags);
	return dp_hand_out(pool, c, pos, gfp, dma);
}

/* The lock was busy: wait for it here, off the fast path. */
static DP_NOINLINE void *alloc_contended(struct dmapool *pool,
					 dmapool_gfp_t gfp, dmapool_dma_t *dma)
{
	return alloc_locked(pool, gfp, dma, dp_lock(&pool->lock));
}

/*
 * Every call below is a tail call, so the fast path makes no call that
 * returns here and keeps its values in scratch registers.
 */
void *dmapool_alloc(struct dmapool *pool, dmapool_gfp_t gfp,
		    dmapool_dma_t *dma)
{
	dp_irqflags_t flags;

	if (DP_UNLIKELY(!pool))
		return alloc_null();
	/* One test for every pool that leaves the fast path. */
	if (DP_UNLIKELY(pool->alloc_special)) {
		if (pool->tcache)
			return dp_tc_alloc(pool, gfp, dma);
		return alloc_hooked(pool, gfp, dma);
	}
	if (DP_UNLIKELY(!dp_trylock(&pool->lock, &flags)))
		return alloc_contended(pool, gfp, dma);
	return alloc_locked(pool, gfp, dma, flags);
}

void *dmapool_zalloc(struct dmapool *pool, dmapool_gfp_t gfp,
		     dmapool_dma_t *dma)
{
	return dmapool_alloc(pool, gfp | DMAPOOL_GFP_ZERO, dma);
}

DP_NOINLINE void dp_free_bad(struct dmapool *pool, struct dp_chunk *c,
			     void *vaddr, dmapool_dma_t dma,
			     dp_irqflags_t flags)
{
	const struct dp_geometry *g = &pool->geo;
	const uintptr_t va = (uintptr_t)vaddr;
	struct dp_pending p;
	size_t off, seg, in, slot, start;
	uint32_t pos;

	/* The index maps whole pages; a chunk may end inside its last one. */
	if (!c || va - c->vaddr >= g->chunk_size) {
		dp_unlock(&pool->lock, flags);
		dp_report_unknown_address(pool, &p, vaddr, dma);
		dp_report_deliver(pool, &p);
		return;
	}
	off = va - c->vaddr;
	if (!dp_geo_position(g, off, &pos)) {
		dp_report_fill(pool, &p, DMAPOOL_R_FREE_NOT_BLOCK, vaddr, dma,
			       "address is inside the pool but not at a block start");
		seg = g->one_seg ? 0 : off >> g->seg_shift;
		in = off - (seg << g->seg_shift);
		slot = in / g->stride;
		if (slot < g->per_seg) {
			start = (seg << g->seg_shift) + slot * g->stride;
			p.r.block = (const void *)(c->vaddr + start);
			p.r.block_dma = c->dma + start;
			p.r.offset = off - start;
		}
	} else if (!dp_chunk_is_allocated(c, g, pos)) {
		dp_report_fill(pool, &p, DMAPOOL_R_DOUBLE_FREE, vaddr, dma,
			       dp_chunk_is_free(c, pos) ? "block is already free" :
			       "block is already freed and held (quarantine or cache)");
		p.r.block = vaddr;
		p.r.block_dma = c->dma + off;
	} else {
		dp_report_fill(pool, &p, DMAPOOL_R_FREE_DMA_MISMATCH, vaddr, dma,
			       "dma address does not belong to this block");
		p.r.block = vaddr;
		p.r.block_dma = c->dma + off;
	}
	dp_unlock(&pool->lock, flags);
	dp_report_deliver(pool, &p);
}

static DP_NOINLINE void free_null(void *vaddr, dmapool_dma_t dma)
{
	dp_report_global(DMAPOOL_R_NULL_POOL, vaddr, dma,
			 "dmapool_free called with a NULL pool");
}

/* The locked part of a plain free; returns with the lock dropped. */
static __attribute__((__always_inline__)) inline void
free_locked(struct dmapool *pool, void *vaddr, dmapool_dma_t dma,
	    dp_irqflags_t flags)
{
	const uintptr_t va = (uintptr_t)vaddr;
	struct dp_chunk *c;
	uint32_t pos;
	size_t off;

	/* Writers change the index under this lock: no RCU needed here. */
	c = dp_radix_lookup(&pool->index.u.radix, va >> pool->index.page_shift);
	/* Invariant 3: in this pool, at a block start, allocated, its dma. */
	if (DP_LIKELY(c)) {
		off = va - c->vaddr;
		if (DP_LIKELY(off < pool->geo.chunk_size &&
			      dp_geo_position(&pool->geo, off, &pos) &&
			      c->dma + off == dma)) {
			size_t w = pos / 64;
			uint64_t bit = (uint64_t)1 << (pos % 64);

			/*
			 * Not special: no lock-free writer, plain reads, and
			 * no held blocks (only special pools hold blocks).
			 */
			if (DP_LIKELY(!((&c->map[1])[w] & bit))) {
				dp_put_block(pool, c, pos);
				dp_unlock(&pool->lock, flags);
				return;
			}
		}
	}
	dp_free_bad(pool, c, vaddr, dma, flags);
}

static DP_NOINLINE void free_contended(struct dmapool *pool, void *vaddr,
				       dmapool_dma_t dma)
{
	free_locked(pool, vaddr, dma, dp_lock(&pool->lock));
}

static DP_NOINLINE void free_special(struct dmapool *pool, void *vaddr,
				     dmapool_dma_t dma)
{
	if (pool->tcache)
		dp_tc_free(pool, vaddr, dma);
	else
		dp_free_locked(pool, vaddr, dma, false);
}

/*
 * The free fast path finds the chunk and does its arithmetic under the RCU
 * read lock, before it takes the pool lock: the index and the chunk records
 * are RCU-protected (writers retire them after a grace period), and on x86
 * a locked instruction waits for everything before it, so work done first
 * overlaps the lock's latency instead of adding to it.  Only the bitmap,
 * which the lock guards, is read and changed under the lock.  A chunk that
 * shrink unhooked between the lookup and the lock has every block free, so
 * the bit test fails; every failure (and a busy lock) is judged again from
 * scratch under the lock by free_contended(), which reports what is wrong.
 */
void dmapool_free(struct dmapool *pool, void *vaddr, dmapool_dma_t dma)
{
	const uintptr_t va = (uintptr_t)vaddr;
	dp_irqflags_t flags;
	struct dp_chunk *c;
	uint32_t pos;
	size_t off;

	if (DP_UNLIKELY(!pool)) {
		free_null(vaddr, dma);
		return;
	}
	if (DP_UNLIKELY(pool->special)) {
		free_special(pool, vaddr, dma);
		return;
	}
	dp_rcu_read_lock();
	c = dp_radix_lookup_rcu(&pool->index.u.radix,
				va >> pool->index.page_shift);
	/* Invariant 3: in this pool, at a block start, allocated, its dma. */
	if (DP_LIKELY(c)) {
		off = va - c->vaddr;
		if (DP_LIKELY(off < pool->geo.chunk_size &&
			      dp_geo_position(&pool->geo, off, &pos) &&
			      c->dma + off == dma)) {
			uint64_t *word = &c->map[1 + pos / 64];
			uint64_t bit = (uint64_t)1 << (pos % 64);

			if (DP_LIKELY(dp_trylock(&pool->lock, &flags))) {
				/*
				 * Not special: no held blocks, no lock-free
				 * writer of the bitmap.
				 */
				if (DP_LIKELY(!(*word & bit))) {
					dp_put_block(pool, c, pos);
					dp_unlock(&pool->lock, flags);
					dp_rcu_read_unlock();
					return;
				}
				dp_unlock(&pool->lock, flags);
			}
		}
	}
	dp_rcu_read_unlock();
	/* Busy, or wrong: judge it again, all under the lock. */
	free_contended(pool, vaddr, dma);
}

/*
 * dmapool_free that zeroes the block once the free is validated, before
 * anyone can allocate it again (the kernel's init_on_free).  Through the
 * general locked path, which bypasses the thread caches: a separate entry
 * point, so dmapool_free pays nothing for it.
 */
void dmapool_free_zero(struct dmapool *pool, void *vaddr, dmapool_dma_t dma)
{
	if (DP_UNLIKELY(!pool)) {
		free_null(vaddr, dma);
		return;
	}
	dp_free_locked(pool, vaddr, dma, true);
}

/* Until the data path does them in one pass: one block at a time. */
unsigned int dmapool_alloc_bulk(struct dmapool *pool, dmapool_gfp_t gfp,
				unsigned int n, void **vaddrs,
				dmapool_dma_t *dmas)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		vaddrs[i] = dmapool_alloc(pool, gfp, &dmas[i]);
		if (!vaddrs[i])
			break;
	}
	if (i == n)
		return n;
	while (i--)
		dmapool_free(pool, vaddrs[i], dmas[i]);
	return 0;
}

void dmapool_free_bulk(struct dmapool *pool, unsigned int n,
		       void *const *vaddrs, const dmapool_dma_t *dmas)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		dmapool_free(pool, vaddrs[i], dmas[i]);
}
