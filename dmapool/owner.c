// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The steps of a free by the block's owner, after the claim: byte work
 * (redzone check, zero, poison or sampled poison, scrub), then quarantine
 * or reuse (the magazine, or the bit back into the free map), and a chunk
 * automatic shrink releases.  The fast paths (free.c, handle.c) come here
 * for the caller's own block of a pool with steps, or of a full chunk;
 * the slow paths through dp_owner_steps().
 */
#include "datapath.h"

/*
 * The steps of a free of a block of the caller's own chunk, claimed, pinned,
 * when the byte work has something to report: byte work, then quarantine
 * or reuse (and a release automatic shrink asks for).  Unpins.
 */
static DP_NOINLINE DP_COLD void owner_steps_reported(struct dmapool *pool,
						     struct dp_chunk *c, u32 pos,
						     bool zero, bool whole,
						     unsigned long pin)
{
	struct dp_chunk *release = NULL;
	struct dp_pending rep;
	bool bad;

	bad = dp_harden_free_bytes(pool, c, pos, whole, zero, &rep);
	dp_heap_give(c->heap, c, pos, &release);
	dp_owner_unpin(&pool->owners, pin);
	if (release)
		dp_supply_release(pool, release, true);
	if (bad)
		dp_report_deliver(pool, &rep);
}

/*
 * Quarantine's steady state, inline: the ring is full and its oldest block
 * still waits for a quiesce, so the oldest is pushed out (forced, counted)
 * and the new block takes its slot.  *@c, *@pos: the block that goes back
 * (true), or unchanged (false: dp_heap_give() does the rest).
 */
static __always_inline bool
quarantine_swap(struct dmapool *pool, struct dp_heap *h, struct dp_chunk **c,
		size_t *pos)
{
	struct dp_quarantine *q = &h->q;
	const u32 now = DP_READ_ONCE(pool->qepoch);
	struct dp_qent *e = q->head;
	struct dp_chunk *oc;
	u32 op;

	if (q->count != q->max || (int32_t)(e->epoch - now) < 0)
		return false;
	oc = e->c;
	e->c = *c;
	*c = oc;
	op = e->pos;
	e->pos = (u32)*pos;
	*pos = op;
	e->epoch = now;
	q->head = e + 1 == q->end ? q->ring : e + 1;
	DP_COUNT_ONCE64(q->forced);
	return true;
}

DP_NOINLINE DP_COLD void dp_relist_unpin(struct dmapool *pool,
					 struct dp_chunk *c, unsigned long pin)
{
	dp_heap_relist(c->heap, c);
	dp_owner_unpin(&pool->owners, pin);
}

/*
 * Reuse (no automatic shrink here): the magazine when the chunk is full
 * (the default pool comes here for that: its fast path takes only listed
 * chunks), or the bit back and a chunk that was full listed again.
 * Unpins.
 */
static __always_inline void reuse_unpin(struct dmapool *pool,
					struct dp_chunk *c, size_t pos,
					unsigned long pin)
{
	if (DP_UNLIKELY(dp_reuse(pool, c, pos)))
		dp_relist_unpin(pool, c, pin);
	else
		dp_owner_unpin(&pool->owners, pin);
}

/* Quarantine took the block and gave nothing back yet.  Unpins. */
static DP_NOINLINE void give_unpin(struct dmapool *pool, struct dp_chunk *c,
				   size_t pos, unsigned long pin)
{
	struct dp_chunk *release = NULL;

	dp_heap_give(c->heap, c, (u32)pos, &release);
	dp_owner_unpin(&pool->owners, pin);
	if (DP_UNLIKELY(release))
		dp_supply_release(pool, release, true);
}

/*
 * The steps of a free of a block of the caller's own chunk, claimed, pinned:
 * byte work (@whole: sampled poison's decision, dp_owner_sample()), then
 * quarantine or reuse (and a release automatic shrink asks for).  Unpins.
 * The common cases inline; a report, automatic shrink and quarantine's
 * other cases in heap.c.
 */
static __always_inline void
owner_steps(struct dmapool *pool, struct dp_chunk *c, size_t pos, bool zero,
	    bool whole, unsigned long pin)
{
	const u32 steps = pool->steps;

	if (DP_UNLIKELY((steps & DP_STEPS_FREE_BYTES) || zero) &&
	    DP_UNLIKELY(!dp_harden_free_quick(pool, c, (u32)pos, whole,
					      zero))) {
		owner_steps_reported(pool, c, (u32)pos, zero, whole, pin);
		return;
	}
	if (steps & (DP_STEP_QUARANTINE | DP_STEP_AUTO_SHRINK)) {
		if ((steps & DP_STEP_AUTO_SHRINK) ||
		    !quarantine_swap(pool, c->heap, &c, &pos)) {
			give_unpin(pool, c, pos, pin);
			return;
		}
	}
	reuse_unpin(pool, c, pos, pin);
}

void dp_owner_steps(struct dmapool *pool, struct dp_chunk *c, size_t pos,
		    bool zero, unsigned long pin)
{
	owner_steps(pool, c, pos, zero, dp_owner_sample(pool, c), pin);
}

/*
 * owner_steps() out of line: poison, scrub, a whole sampled poison (@ran_out:
 * the heap's countdown ran out at this free, draw it again; else decided
 * here), a changed redzone, automatic shrink.
 */
static DP_NOINLINE void free_owner_steps_all(struct dmapool *pool,
					     struct dp_chunk *c, size_t pos,
					     bool ran_out, unsigned long pin)
{
	if (ran_out)
		c->heap->sample_left = dp_heap_sample_draw(c->heap);
	owner_steps(pool, c, pos, false, ran_out || dp_owner_sample(pool, c),
		    pin);
}

/*
 * DP_FREE_HEAD: sampled poison's head is the only free step (one-segment
 * chunks): the head, then reuse, with no stack frame; a whole sample (the
 * countdown runs out in dp_owner_sample()) out of line.
 */
static void free_owner_head(struct dmapool *pool, struct dp_chunk *c,
			    size_t pos, unsigned long pin, uintptr_t va)
{
	struct dp_heap *h = c->heap;

	/* The countdown as dp_owner_sample() keeps it. */
	if (DP_UNLIKELY(!--h->sample_left)) {
		free_owner_steps_all(pool, c, pos, true, pin);
		return;
	}
	dp_poison_head((void *)va);
	reuse_unpin(pool, c, pos, pin);
}

/*
 * DP_FREE_QUARANTINE, and the last steps of the kinds with byte work in a
 * pool with quarantine: the swap, then reuse (pinned; unpins).  Out of
 * line, reached by a tail call (quarantine's churn measured faster this
 * way, docs/benchmarks.md).
 */
static DP_NOINLINE void free_quarantine(struct dmapool *pool,
					struct dp_chunk *c, size_t pos,
					unsigned long pin, uintptr_t va)
{
	(void)va;
	if (!quarantine_swap(pool, c->heap, &c, &pos)) {
		give_unpin(pool, c, pos, pin);
		return;
	}
	reuse_unpin(pool, c, pos, pin);
}

/* After the byte steps: quarantine or reuse (pinned; unpins). */
static __always_inline void dispose_unpin(struct dmapool *pool,
					  struct dp_chunk *c, size_t pos,
					  unsigned long pin, uintptr_t va)
{
	if (pool->steps & DP_STEP_QUARANTINE)
		free_quarantine(pool, c, pos, pin, va);
	else
		reuse_unpin(pool, c, pos, pin);
}

/*
 * DP_FREE_REDZONE16: a 16-byte redzone is the only step (one-segment
 * chunks): its check, then reuse, with no stack frame; a changed redzone
 * out of line.
 */
static void free_owner_redzone(struct dmapool *pool, struct dp_chunk *c,
			       size_t pos, unsigned long pin, uintptr_t va)
{
	const u8 *b = (const u8 *)va;

	if (DP_UNLIKELY(!dp_harden_redzone_intact(b + pool->geo.size, 16,
						  pool->key))) {
		free_owner_steps_all(pool, c, pos, false, pin);
		return;
	}
	reuse_unpin(pool, c, pos, pin);
}

/*
 * DP_FREE_STEPS: any other combination of steps, for any geometry (@va is
 * the block's start): the common ones (an intact 16-byte redzone, sampled
 * poison's head, quarantine, reuse) inline, the rest in
 * free_owner_steps_all().
 */
static void free_owner_steps_mixed(struct dmapool *pool, struct dp_chunk *c,
				   size_t pos, unsigned long pin, uintptr_t va)
{
	const u32 steps = pool->steps;
	const struct dp_geometry *g = &pool->geo;
	u8 *b = (u8 *)va;
	bool ran_out = false;

	if (DP_UNLIKELY(pool->free_steps_out))
		goto all;
	if ((steps & DP_STEP_REDZONE) &&
	    !dp_harden_redzone_intact(b + g->size, 16, pool->key))
		goto all;
	if (steps & DP_STEP_SAMPLED) {
		/* dp_heap_sample_whole(), its draw out of line. */
		ran_out = !--c->heap->sample_left;
		if (DP_UNLIKELY(ran_out))
			goto all;
		dp_poison_head(b);
	}
	dispose_unpin(pool, c, pos, pin, va);
	return;
all:
	free_owner_steps_all(pool, c, pos, ran_out, pin);
}

/* DP_FREE_REUSE: no step, the magazine or the free map. */
DP_NOINLINE void dp_free_owner_reuse(struct dmapool *pool, struct dp_chunk *c,
				     size_t pos, unsigned long pin)
{
	reuse_unpin(pool, c, pos, pin);
}

/* The same as a free kind (dp_free_kinds[]). */
static void free_owner_reuse(struct dmapool *pool, struct dp_chunk *c,
			     size_t pos, unsigned long pin, uintptr_t va)
{
	(void)va;
	dp_free_owner_reuse(pool, c, pos, pin);
}

/*
 * dp_free_owner_steps() out of line, the block's address from its
 * position: for the handle's fast path, which keeps no register for it
 * (and takes only one-segment chunks: the offset is pos * stride).
 */
DP_NOINLINE void dp_free_owner_steps_at(struct dmapool *pool,
					struct dp_chunk *c, size_t pos,
					unsigned long pin)
{
	/* dp_free_owner_steps(), its address not computed for reuse. */
	if (DP_LIKELY(pool->free_kind == DP_FREE_REUSE)) {
		reuse_unpin(pool, c, pos, pin);
		return;
	}
	pool->free_steps->free(pool, c, pos, pin,
			       c->vaddr + pos * pool->geo.stride);
}

/* The steps of each free kind (dp_free_owner_steps()). */
const struct dp_free_kind dp_free_kinds[DP_FREE_KINDS] = {
	[DP_FREE_REUSE] = { free_owner_reuse },
	[DP_FREE_QUARANTINE] = { free_quarantine },
	[DP_FREE_HEAD] = { free_owner_head },
	[DP_FREE_REDZONE16] = { free_owner_redzone },
	[DP_FREE_STEPS] = { free_owner_steps_mixed },
};
