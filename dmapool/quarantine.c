// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Quarantine (DMAPOOL_OPT_QUARANTINE): a freed block is not reused until the
 * driver says the device can no longer reach it.
 *
 * Why: with a lazy ("non-strict") IOMMU, or none, a device keeps access to
 * a buffer for a while after the driver freed it.  If the block were handed
 * straight to a new user, a late device write would land in the new user's
 * data.  Held back, the late write lands in a block nobody uses (and with
 * DMAPOOL_OPT_POISON it is reported when the block is finally reused).
 * dmapool_quiesce() is the grace period: the driver calls it once the device
 * is known idle (an IOTLB flush, a completion, a reset), like synchronize_rcu
 * ends an RCU grace period.
 *
 * The quarantine is a ring of (chunk id, position) in host memory, sized at
 * pool creation so a free never allocates.  When it is full, the oldest
 * block is released early and counted (stats quarantine_forced): memory
 * stays bounded, and the count tells the driver its bound or its quiesce
 * rate is too low.  A quarantined block is "held" in its chunk's bitmap:
 * neither allocated (a second free of it is a double free) nor free (no
 * alloc can take it, and shrink does not see its chunk as empty: the ring's
 * chunk ids stay valid), and not in use (a pool can be destroyed with
 * blocks in quarantine).
 */
#include "pool.h"

int dp_quarantine_init(struct dp_quarantine *q, unsigned int max)
{
	q->max = max ? max : DP_QUARANTINE_DEFAULT;
	q->head = q->count = 0;
	q->forced = 0;
	q->ring = dp_os_host_alloc(q->max * sizeof(*q->ring), 0);
	return q->ring ? 0 : -1;
}

void dp_quarantine_fini(struct dp_quarantine *q)
{
	if (q->ring)
		dp_os_host_free(q->ring, q->max * sizeof(*q->ring));
	q->ring = NULL;
}

/*
 * Let the oldest block go; lock held, quarantine not empty.  Returns its
 * chunk if that is now empty in an auto-shrink pool, else NULL.
 */
static const struct dp_chunk *release_oldest(struct dmapool *pool)
{
	struct dp_quarantine *q = &pool->hard.q;
	uint64_t e = q->ring[q->head];
	struct dp_chunk *c = pool->slots[(uint32_t)(e >> 32)].chunk;
	uint32_t pos = (uint32_t)e;

	if (++q->head == q->max)
		q->head = 0;
	q->count--;
	dp_chunk_unhold(c, &pool->geo, pos);
	dp_block_to_free(pool, c, pos);
	return pool->auto_shrink && dp_chunk_emptied(pool, c, pos) ? c : NULL;
}

const struct dp_chunk *dp_quarantine_add(struct dmapool *pool,
					 struct dp_chunk *c, uint32_t pos)
{
	struct dp_quarantine *q = &pool->hard.q;
	const struct dp_chunk *emptied = NULL;
	uint32_t tail;

	if (q->count == q->max) {
		emptied = release_oldest(pool);
		q->forced++;
	}
	tail = q->head + q->count;
	if (tail >= q->max)
		tail -= q->max;
	q->ring[tail] = (uint64_t)c->id << 32 | pos;
	q->count++;
	dp_chunk_hold(c, &pool->geo, pos);
	return emptied;
}

void dmapool_quiesce(struct dmapool *pool)
{
	dp_irqflags_t flags;

	if (DP_UNLIKELY(!pool)) {
		dp_report_global(DMAPOOL_R_NULL_POOL, NULL, 0,
				 "dmapool_quiesce called with a NULL pool");
		return;
	}
	if (!(pool->hooks & DMAPOOL_OPT_QUARANTINE))
		return;
	/*
	 * Blocks whose free is still under way (held, not yet queued) are
	 * queued after this and wait for the next quiesce: conservative.
	 */
	flags = dp_lock(&pool->lock);
	while (pool->hard.q.count)
		release_oldest(pool);
	dp_unlock(&pool->lock, flags);
	/* Chunks that only quarantined blocks kept busy may go now. */
	if (pool->auto_shrink)
		dp_auto_shrink(pool, NULL);
}
