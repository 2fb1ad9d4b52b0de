/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The data path's shared pieces: the slow paths both directions end in
 * (alloc.c, free.c), which the handle calls (handle.c) reach too, and the
 * contexts they run in.
 */
#ifndef DMAPOOL_DATAPATH_H
#define DMAPOOL_DATAPATH_H

#include "harden.h"
#include "supply.h"

/* Where a slow path runs: pinned to its own heap, or the shared one locked. */
struct dp_ctx {
	struct dp_heap *h;
	uintptr_t tok;
	unsigned long pin;
	unsigned long flags;
	bool locked;
};

/* Enter this context's heap, creating or adopting one if need be. */
void dp_ctx_enter(struct dmapool *pool, dmapool_gfp_t gfp, struct dp_ctx *x);
void dp_ctx_exit(struct dmapool *pool, struct dp_ctx *x);

/* alloc.c: every allocation that is not the fast path; @handle may be NULL. */
void *dp_alloc_slow(struct dmapool *pool, dmapool_gfp_t gfp,
		    dmapool_dma_t *dma, u64 *handle);

/*
 * Can another context's free of a block of @c make it pending with its
 * claim?  No byte work, and a thread's heap (not the pool lock's).  Never
 * for the index's markers (their owner is the pool lock's, hash.c).  The
 * address path's remote free (free.c) and the handle's (handle.c).
 */
static __always_inline bool dp_remote_direct(const struct dmapool *pool,
					     const struct dp_chunk *c,
					     bool zero)
{
	const uintptr_t o = DP_READ_ONCE(c->owner);

	return !((pool->steps & DP_STEPS_FREE_BYTES) || zero) &&
	       o != DP_OWNER_SHARED && o != DP_OWNER_ORPHAN;
}

/* The vaddr and dma of a block just taken, at @off in @c. */
static inline void *dp_hand_out_at(const struct dmapool *pool,
				   const struct dp_chunk *c, size_t off,
				   dmapool_gfp_t gfp, dmapool_dma_t *dma)
{
	void *vaddr = (void *)(c->vaddr + off);

	if (dma)
		*dma = c->dma + off;
	if (DP_UNLIKELY(gfp & DMAPOOL_GFP_ZERO))
		return dp_zero_block(vaddr, pool->geo.size);
	return vaddr;
}

/* The same for the block at position @pos. */
static inline void *dp_hand_out(const struct dmapool *pool,
				const struct dp_chunk *c, u32 pos,
				dmapool_gfp_t gfp, dmapool_dma_t *dma)
{
	return dp_hand_out_at(pool, c, dp_geo_offset(&pool->geo, pos), gfp,
			      dma);
}

/*
 * The owner reuses block @pos of its chunk @c, claimed: onto the magazine
 * when @c is full, else into its free map.  True when @c was full and gets
 * listed again (dp_heap_relist()).
 */
static __always_inline bool dp_reuse(const struct dmapool *pool,
				     struct dp_chunk *c, size_t pos)
{
	if (DP_UNLIKELY(c->listed == DP_LISTED_NONE) && pool->mag &&
	    dp_heap_mag_push(c->heap, c, (u32)pos,
			     (u32)dp_geo_offset(&pool->geo, (u32)pos)))
		return false;
	return dp_block_put(c, pos);
}

/*
 * Sampled poison, a free by @c's owner (pinned): is this block poisoned
 * whole?  (Always false in other pools.)
 */
static __always_inline bool dp_owner_sample(const struct dmapool *pool,
					    struct dp_chunk *c)
{
	return (pool->steps & DP_STEP_SAMPLED) && dp_heap_sample_whole(c->heap);
}

/*
 * owner.c: the steps of a free of the caller's own claimed block @pos of
 * @c (pinned): byte work, then quarantine or reuse.  Unpins.
 */
void dp_owner_steps(struct dmapool *pool, struct dp_chunk *c, size_t pos,
		    bool zero, unsigned long pin);
/* owner.c: the steps of each free kind (pool.h). */
extern const struct dp_free_kind dp_free_kinds[DP_FREE_KINDS];
/* DP_FREE_REUSE's: the magazine or the free map. */
void dp_free_owner_reuse(struct dmapool *pool, struct dp_chunk *c, size_t pos,
			 unsigned long pin);

/*
 * The owner's free of @pos (at @va) in its chunk @c, checked and claimed
 * by a fast path (pinned): the same, by the pool's free kind, each kind a
 * function with no stack frame reached by a tail call.  The default pool's
 * (reuse: its frees into full chunks) by a direct call, the others through
 * their entry of the constant table: one indirect jump instead of a test
 * of the kind for each kind before it.  Unpins.
 */
static __always_inline void dp_free_owner_steps(struct dmapool *pool,
						struct dp_chunk *c,
						size_t pos, unsigned long pin,
						uintptr_t va)
{
	if (DP_LIKELY(pool->free_kind == DP_FREE_REUSE))
		dp_free_owner_reuse(pool, c, pos, pin);
	else
		pool->free_steps->free(pool, c, pos, pin, va);
}

/* The same out of line, the address from @pos (the handle's fast path). */
void dp_free_owner_steps_at(struct dmapool *pool, struct dp_chunk *c,
			    size_t pos, unsigned long pin);
/* A full chunk got a block back (pinned): on its heap's list again; unpins. */
void dp_relist_unpin(struct dmapool *pool, struct dp_chunk *c,
		     unsigned long pin);

/* free.c: a free by address that is not the fast path (@zero: free_zero). */
void dp_free_slow(struct dmapool *pool, void *vaddr, dmapool_dma_t dma,
		  bool zero);
/*
 * The steps after a successful claim of @pos in @c: bytes, then back to
 * the owner (quarantine or reuse, release) or published to it.
 */
void dp_free_claimed(struct dmapool *pool, struct dp_chunk *c, u32 pos,
		     bool zero);
/* A free whose claim failed: the block is not allocated. */
void dp_free_double(struct dmapool *pool, struct dp_chunk *c, void *vaddr,
		    dmapool_dma_t dma, u64 handle);
/* Heaps of exited threads (owners' exit callback). */
void dp_heap_orphan(void *heap, void *arg);

#endif /* DMAPOOL_DATAPATH_H */
