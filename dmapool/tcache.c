// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Per-thread caches (DMAPOOL_OPT_THREAD_CACHE): a small magazine of blocks
 * per thread and pool in front of the pool lock, so a thread that allocates
 * and frees touches its own cache line and the block's chunk record, not the
 * pool lock.  A magazine refills from the pool and flushes to it in batches
 * under one lock acquisition; it is drained when its thread exits and when
 * the pool is destroyed.  (In the kernel the "thread" is a CPU: see os.h.)
 *
 * Invariant 3 holds for a free that goes into a cache: the block must be
 * allocated right now, and two frees of it, racing on two CPUs, must not
 * both succeed.  The free path therefore looks the chunk up under RCU (no
 * pool lock), validates the address and dma, and then takes the block with
 * one atomic test-and-set of its held bit.  For that to be exact the held
 * bits of a thread-cache pool mean "not allocated" (geo.held_superset):
 *
 *   state       free bit  held bit   changes
 *   allocated      0         0       -> cached: test-and-set held (no lock)
 *                                    -> free: test-and-set held, set free
 *                                       (pool lock)
 *   cached         0         1       -> allocated: its thread clears held
 *                                    -> free: flush sets free (pool lock)
 *   free           1         1       -> cached: refill clears free (lock)
 *                                    -> allocated: clear free, clear held
 *                                       (pool lock)
 *
 * Every way out of "allocated" is the test-and-set that finds the bit clear,
 * so exactly one of two racing frees wins and the other is reported as a
 * double free; a free of a cached or free block finds the bit set and
 * changes nothing.  Only the owning thread clears a cached block's bit.
 *
 * The handle API keeps its generation check exact by never using the cache:
 * once a pool has handles, frees by address take the lock too.
 */
#include "pool.h"

#define DP_TC_SIZE	32	/* blocks a magazine holds */
#define DP_TC_BATCH	16	/* blocks moved per refill or flush */

struct dp_tc_ent {
	struct dp_chunk *c;
	uint32_t pos;
};

struct dp_tc {
	uint32_t n;			/* DP_WRITE_ONCE: stats read it */
	struct dp_tc_ent e[DP_TC_SIZE];	/* e[n - 1] is handed out next */
};

/*
 * Give the @k oldest cached blocks back to the bitmap (cached -> free);
 * lock held.  Returns a chunk that emptied in an auto-shrink pool, or NULL.
 */
static const struct dp_chunk *tc_flush_locked(struct dmapool *pool,
					      struct dp_tc *tc, uint32_t k)
{
	const struct dp_chunk *shrink = NULL;
	uint32_t i, n = tc->n;

	for (i = 0; i < k; i++) {
		struct dp_chunk *c = tc->e[i].c;
		uint32_t pos = tc->e[i].pos;

		if (dp_chunk_put(c, pos))
			dp_avail_push(pool, c);
		pool->in_use--;
		if (pool->auto_shrink && dp_chunk_emptied(pool, c, pos))
			shrink = c;
	}
	for (i = k; i < n; i++)
		tc->e[i - k] = tc->e[i];
	DP_WRITE_ONCE(tc->n, n - k);
	return shrink;
}

/* Take up to a batch of free blocks (free -> cached); the cache is empty. */
static uint32_t tc_refill(struct dmapool *pool, struct dp_tc *tc)
{
	struct dp_tc_ent got[DP_TC_BATCH];
	dp_irqflags_t flags;
	uint32_t k, i;

	flags = dp_lock(&pool->lock);
	for (k = 0; k < DP_TC_BATCH; k++) {
		got[k].c = dp_take_block(pool, &got[k].pos);
		if (!got[k].c)
			break;
	}
	dp_unlock(&pool->lock, flags);
	/* Lowest position on top: the order an uncached pool hands out. */
	for (i = 0; i < k; i++)
		tc->e[i] = got[k - 1 - i];
	DP_WRITE_ONCE(tc->n, k);
	return k;
}

/* Without the cache: the locked path, the block claimed for the caller. */
static void *alloc_uncached(struct dmapool *pool, dmapool_gfp_t gfp,
			    dmapool_dma_t *dma)
{
	struct dp_garbage gb = DP_GARBAGE_INIT;
	struct dp_chunk *c;
	dp_irqflags_t flags;
	uint32_t pos;

	flags = dp_lock(&pool->lock);
	c = dp_take_block(pool, &pos);
	if (!c)
		c = dp_take_block_slow(pool, gfp, &pos, &flags, &gb);
	if (c)
		dp_claim_block(pool, c, pos);
	dp_unlock(&pool->lock, flags);
	dp_garbage_free(pool, &gb);
	return c ? dp_hand_out(pool, c, pos, gfp, dma) : NULL;
}

void *dp_tc_alloc(struct dmapool *pool, dmapool_gfp_t gfp, dmapool_dma_t *dma)
{
	dp_local_flags_t lf;
	struct dp_tc *tc = dp_os_local_get(&pool->local, &lf);
	struct dp_chunk *c;
	uint32_t n, pos;

	if (DP_UNLIKELY(!tc))
		return alloc_uncached(pool, gfp, dma);
	n = tc->n;
	if (DP_UNLIKELY(!n)) {
		n = tc_refill(pool, tc);
		if (!n) {
			dp_os_local_put(&pool->local, lf);
			return alloc_uncached(pool, gfp, dma);
		}
	}
	n--;
	c = tc->e[n].c;
	pos = tc->e[n].pos;
	DP_WRITE_ONCE(tc->n, n);
	/* cached -> allocated: only this thread clears a cached bit. */
	dp_os_clear_bit64(pos % 64, dp_chunk_held_word(c, &pool->geo, pos));
	dp_os_local_put(&pool->local, lf);
	return dp_hand_out(pool, c, pos, gfp, dma);
}

static DP_NOINLINE void tc_double_free(struct dmapool *pool, void *vaddr,
				       dmapool_dma_t dma)
{
	struct dp_pending p;

	dp_report_fill(pool, &p, DMAPOOL_R_DOUBLE_FREE, vaddr, dma,
		       "block is already free or held (quarantine or cache)");
	p.r.block = vaddr;
	p.r.block_dma = dma;
	dp_report_deliver(pool, &p);
}

void dp_tc_free(struct dmapool *pool, void *vaddr, dmapool_dma_t dma)
{
	const struct dp_geometry *g = &pool->geo;
	const uintptr_t va = (uintptr_t)vaddr;
	dp_local_flags_t lf;
	struct dp_chunk *c;
	const struct dp_chunk *shrink = NULL;
	struct dp_tc *tc;
	uint32_t n, pos;
	size_t off;

	if (DP_UNLIKELY(DP_READ_ONCE(pool->handles)))
		goto locked;
	tc = dp_os_local_get(&pool->local, &lf);
	if (DP_UNLIKELY(!tc))
		goto locked;
	dp_rcu_read_lock();
	c = dp_index_lookup_rcu(&pool->index, va);
	/* Invariant 3, the parts that do not change while the chunk lives. */
	if (DP_UNLIKELY(!c || (off = va - c->vaddr) >= g->chunk_size ||
			!dp_geo_position(g, off, &pos) || c->dma + off != dma)) {
		/* The locked path says what is wrong. */
		dp_rcu_read_unlock();
		dp_os_local_put(&pool->local, lf);
		goto locked;
	}
	/* ... and "allocated", decided by whoever sets the bit first. */
	if (DP_UNLIKELY(dp_os_test_and_set_bit64(pos % 64,
						 dp_chunk_held_word(c, g, pos)))) {
		dp_rcu_read_unlock();
		dp_os_local_put(&pool->local, lf);
		tc_double_free(pool, vaddr, dma);
		return;
	}
	/* The chunk holds a cached block now: shrink leaves it alone. */
	dp_rcu_read_unlock();
	n = tc->n;
	if (DP_UNLIKELY(n == DP_TC_SIZE)) {
		dp_irqflags_t flags = dp_lock(&pool->lock);

		shrink = tc_flush_locked(pool, tc, DP_TC_BATCH);
		dp_unlock(&pool->lock, flags);
		n = tc->n;
	}
	tc->e[n].c = c;
	tc->e[n].pos = pos;
	DP_WRITE_ONCE(tc->n, n + 1);
	dp_os_local_put(&pool->local, lf);
	if (shrink)
		dp_auto_shrink(pool, shrink);
	return;
locked:
	dp_free_locked(pool, vaddr, dma, false);
}

/* A thread exits or the pool goes away: every cached block goes back. */
static void tc_drain(void *obj, void *arg)
{
	struct dmapool *pool = arg;
	const struct dp_chunk *shrink;
	struct dp_tc *tc = obj;
	dp_irqflags_t flags;

	flags = dp_lock(&pool->lock);
	shrink = tc_flush_locked(pool, tc, tc->n);
	dp_unlock(&pool->lock, flags);
	if (shrink && !pool->dying)
		dp_auto_shrink(pool, shrink);
}

void dp_tc_flush_mine(struct dmapool *pool)
{
	dp_local_flags_t lf;
	struct dp_tc *tc = dp_os_local_get(&pool->local, &lf);
	dp_irqflags_t flags;

	if (!tc)
		return;
	flags = dp_lock(&pool->lock);
	tc_flush_locked(pool, tc, tc->n);
	dp_unlock(&pool->lock, flags);
	dp_os_local_put(&pool->local, lf);
}

struct tc_count {
	uint64_t cached, caches;
};

static void tc_count_one(void *obj, void *ctx)
{
	struct dp_tc *tc = obj;
	struct tc_count *cnt = ctx;

	cnt->cached += DP_READ_ONCE(tc->n);
	cnt->caches++;
}

void dp_tc_stats(struct dmapool *pool, uint64_t *cached, uint64_t *bytes)
{
	struct tc_count cnt = { 0, 0 };

	if (pool->tcache)
		dp_os_local_for_each(&pool->local, tc_count_one, &cnt);
	*cached = cnt.cached;
	*bytes = cnt.caches * sizeof(struct dp_tc);
}

int dp_tc_init(struct dmapool *pool)
{
	pool->geo.held_words = pool->geo.nwords;
	pool->geo.held_superset = true;
	pool->tcache = true;
	return dp_os_local_init(&pool->local, sizeof(struct dp_tc), tc_drain,
				pool);
}
