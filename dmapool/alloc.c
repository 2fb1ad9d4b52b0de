// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Allocation.
 *
 * The fast path: the caller's heap (one TLS load in userspace, this CPU's
 * in the kernel), the first chunk with a free block, find-first-set in its
 * free map, a plain store of the block's new state word.  No lock, no
 * atomic, nothing another context writes.  Pools whose allocations have
 * steps (poison checks, randomized placement, the shared heap) keep their
 * chunks on a list the fast path does not look at, so it costs them one
 * failed test.
 *
 * The slow path, in order: enter the heap (context.c: create one, or adopt
 * a heap an exited thread left; a context that cannot have one uses the
 * shared heap under the pool lock), take a block (first free, or random),
 * else refill (quarantined blocks whose epoch passed, blocks other
 * contexts freed, kept empty chunks), else grow (supply.c, with nothing pinned or locked),
 * then the alloc-side byte check (poison) once the block is the caller's.
 */
#include "datapath.h"

/* The entry points' reports of a NULL pool, out of the functions they name. */
enum { NULL_ALLOC, NULL_ZALLOC, NULL_ALLOC_HANDLE, NULL_ALLOC_BULK };
static const char *const null_pool_call[] = {
	[NULL_ALLOC] = "dmapool_alloc called with a NULL pool",
	[NULL_ZALLOC] = "dmapool_zalloc called with a NULL pool",
	[NULL_ALLOC_HANDLE] = "dmapool_alloc_handle called with a NULL pool",
	[NULL_ALLOC_BULK] = "dmapool_alloc_bulk called with a NULL pool",
};

static DP_NOINLINE DP_COLD void *alloc_null(unsigned int call)
{
	dp_report_global(DMAPOOL_R_NULL_POOL, NULL, 0, null_pool_call[call]);
	return NULL;
}

/* ---- the slow path ------------------------------------------------------ */

/* No free block in the heap: a new chunk, with nothing pinned or locked. */
static bool grow(struct dmapool *pool, dmapool_gfp_t gfp, struct dp_ctx *x)
{
	struct dp_chunk *c;

	dp_ctx_exit(pool, x);
	c = (gfp & DMAPOOL_GFP_NOGROW) ? NULL : dp_supply_grow(pool, gfp);
	if (c && (pool->steps & (DP_STEP_POISON | DP_STEP_SAMPLED |
				 DP_STEP_REDZONE)))
		dp_harden_chunk_init(pool, c);
	dp_ctx_enter(pool, gfp, x);
	if (!c)
		return false;
	dp_heap_adopt_chunk(x->h, c);
	return true;
}

/*
 * The block @pos of @c is the caller's (state word @st, @before while it
 * was free), nothing pinned or locked: the alloc-side check (poison), the
 * handle, the address; a report once all that is done.
 */
static __always_inline void *
alloc_finish(struct dmapool *pool, struct dp_chunk *c,
	     u32 pos, u32 before, u32 st,
	     dmapool_gfp_t gfp, dmapool_dma_t *dma,
	     u64 *handle)
{
	struct dp_pending rep;
	bool bad = false;
	void *vaddr;

	if (pool->steps & (DP_STEP_POISON | DP_STEP_SAMPLED))
		bad = dp_harden_alloc_check(pool, c, pos, before, &rep);
	if (handle)
		*handle = dp_handle_make(c->id, pos, st);
	vaddr = dp_hand_out(pool, c, pos, gfp, dma);
	if (DP_UNLIKELY(bad))
		dp_report_deliver(pool, &rep);
	return vaddr;
}

void *dp_alloc_slow(struct dmapool *pool, dmapool_gfp_t gfp,
		    dmapool_dma_t *dma, u64 *handle)
{
	struct dp_chunk *c = NULL, *release = NULL;
	struct dp_ctx x;
	u32 pos, before, st;

	dp_ctx_enter(pool, gfp, &x);
	while (!dp_heap_take(x.h, &c, &pos)) {
		if (dp_heap_refill(x.h, &release))
			continue;
		if (!grow(pool, gfp, &x)) {
			dp_ctx_exit(pool, &x);
			if (release)
				dp_supply_release(pool, release,
						  !dp_os_gfp_may_block(gfp));
			/*
			 * dmapool_alloc leaves *dma alone, as the kernel's
			 * dma_pool_alloc does; the handle calls say 0, 0.
			 */
			if (handle) {
				*handle = 0;
				if (dma)
					*dma = 0;
			}
			return NULL;
		}
	}
	before = DP_READ_ONCE(c->st[pos]);
	st = dp_state_alloc_clear(c, pos, before);
	dp_ctx_exit(pool, &x);
	if (release)
		dp_supply_release(pool, release, !dp_os_gfp_may_block(gfp));
	return alloc_finish(pool, c, pos, before, st, gfp, dma, handle);
}

/* ---- the fast path ------------------------------------------------------ */

/*
 * The owner allocates @pos of @c, in a pool that never marks a block
 * poisoned whole: the new state word, and the handle when @want_handle
 * (then @handle is not NULL; an allocation by address adds to the word in
 * place, os.h).
 */
static __always_inline void take_state(struct dp_chunk *c, u32 pos,
				       u64 *handle, const bool want_handle)
{
	if (want_handle)
		*handle = dp_handle_make(c->id, pos, dp_state_alloc(c, pos));
	else
		dp_state_alloc_quiet(c, pos);
}

/* alloc_checked()'s position argument: the block was poisoned whole. */
#define CHECKED_WHOLE	0x80000000u

/*
 * alloc_finish() out of line, for the block @pos of @c just allocated by
 * its owner: a whole poison check, or a report.  Six arguments, so that
 * it is reached by a tail call: the state words come from the block's
 * (dp_state_alloc_clear() added one constant to the free one and cleared
 * DP_ST_WHOLE, which @pos carries as CHECKED_WHOLE; a racing bad free may
 * have cleared the allocated bit since, and nothing else: set again).
 */
static DP_NOINLINE DP_COLD void *alloc_checked(struct dmapool *pool,
					       struct dp_chunk *c, u32 pos,
					       dmapool_gfp_t gfp,
					       dmapool_dma_t *dma, u64 *handle)
{
	const u32 whole = pos & CHECKED_WHOLE ? DP_ST_WHOLE : 0;
	u32 st;

	pos &= ~CHECKED_WHOLE;
	st = DP_READ_ONCE(c->st[pos]) | DP_ST_ALLOC;
	return alloc_finish(pool, c, pos,
			    (st - (DP_ST_GEN_ONE | DP_ST_ALLOC)) | whole,
			    st, gfp, dma, handle);
}

/*
 * A block just allocated in a pool whose allocations have byte steps
 * (poison checks), @before and @st its state word while free and now
 * (nothing pinned): the sampled poison's usual case (an intact 16-byte
 * head, not one of the blocks checked whole) here, with no stack frame; a
 * whole check or a report in alloc_checked().
 */
static __always_inline void *stepped_out(struct dmapool *pool,
					 struct dp_chunk *c, u32 pos,
					 u32 before, u32 st, dmapool_gfp_t gfp,
					 dmapool_dma_t *dma, u64 *handle,
					 const bool want_handle)
{
	size_t off;

	/* Whole, or a pool that checks more (poison, small, segmented). */
	if (DP_UNLIKELY(!pool->alloc_head || (before & DP_ST_WHOLE)))
		return alloc_checked(pool, c, pos | (before & DP_ST_WHOLE ?
						     CHECKED_WHOLE : 0),
				     gfp, dma, handle);
	/* alloc_head: one-segment chunks. */
	off = (size_t)pos * pool->geo.stride;
	if (DP_UNLIKELY(!dp_poison_head_intact((const void *)(c->vaddr + off))))
		return alloc_checked(pool, c, pos, gfp, dma, handle);
	if (want_handle)
		*handle = dp_handle_make(c->id, pos, st);
	return dp_hand_out_at(pool, c, off, gfp, dma);
}

/*
 * Pools whose allocations have byte steps but take blocks in the fast
 * path's order: the heap's stepped staged word (heap.h), then the check
 * once the block is the caller's (stepped_take()).  Pinned on entry.
 * @handle is not NULL; alloc_stepped_addr() is the same without one.
 */
static DP_NOINLINE void *alloc_stepped(struct dmapool *pool,
				       struct dp_heap *h, dmapool_gfp_t gfp,
				       dmapool_dma_t *dma, u64 *handle,
				       unsigned long pin);
static DP_NOINLINE void *alloc_stepped_addr(struct dmapool *pool,
					    struct dp_heap *h,
					    dmapool_gfp_t gfp,
					    dmapool_dma_t *dma,
					    unsigned long pin);

static DP_NOINLINE void *alloc_mag(struct dmapool *pool, struct dp_heap *h,
				   dmapool_gfp_t gfp, dmapool_dma_t *dma,
				   u64 *handle, unsigned long pin);

/* No heap yet, or nothing to stage or draw (pinned): the slow path. */
static DP_NOINLINE DP_COLD void *alloc_unpin_slow(struct dmapool *pool,
						  dmapool_gfp_t gfp,
						  dmapool_dma_t *dma,
						  u64 *handle, unsigned long pin)
{
	dp_owner_unpin(&pool->owners, pin);
	return dp_alloc_slow(pool, gfp, dma, handle);
}

/*
 * The staged word of alloc_stepped ran dry, or the context has no heap yet
 * (pinned): the magazine's blocks (a stepped pool takes them when its word
 * runs dry), the next word, or the slow path.
 */
static DP_NOINLINE DP_COLD void *alloc_restage_staged(struct dmapool *pool,
						      struct dp_heap *h,
						      dmapool_gfp_t gfp,
						      dmapool_dma_t *dma,
						      u64 *handle,
						      unsigned long pin)
{
	if (h != &dp_heap_none && h->nmag)
		return alloc_mag(pool, h, gfp, dma, handle, pin);
	if (h == &dp_heap_none || !dp_heap_restage_stepped(h))
		return alloc_unpin_slow(pool, gfp, dma, handle, pin);
	if (!handle)
		return alloc_stepped_addr(pool, h, gfp, dma, pin);
	return alloc_stepped(pool, h, gfp, dma, handle, pin);
}

static __always_inline void *
stepped_take(struct dmapool *pool, struct dp_heap *h, dmapool_gfp_t gfp,
	     dmapool_dma_t *dma, u64 *handle, unsigned long pin,
	     const bool want_handle)
{
	struct dp_chunk *c;
	u64 *wp = h->swp, word = *wp;
	u32 pos, before, st;

	/* A tail call: no stack frame here. */
	if (DP_UNLIKELY(!word))
		return alloc_restage_staged(pool, h, gfp, dma, handle, pin);
	*wp = word & (word - 1);
	pos = h->base + dp_os_ctz64(word);
	c = h->cur;
	before = DP_READ_ONCE(c->st[pos]);
	st = dp_state_alloc_clear(c, pos, before);
	dp_owner_unpin(&pool->owners, pin);
	return stepped_out(pool, c, pos, before, st, gfp, dma, handle,
			   want_handle);
}

static DP_NOINLINE void *alloc_stepped(struct dmapool *pool,
				       struct dp_heap *h, dmapool_gfp_t gfp,
				       dmapool_dma_t *dma, u64 *handle,
				       unsigned long pin)
{
	return stepped_take(pool, h, gfp, dma, handle, pin, true);
}

/* The same for an allocation by address (no handle). */
static DP_NOINLINE void *alloc_stepped_addr(struct dmapool *pool,
					    struct dp_heap *h,
					    dmapool_gfp_t gfp,
					    dmapool_dma_t *dma,
					    unsigned long pin)
{
	return stepped_take(pool, h, gfp, dma, NULL, pin, false);
}

/*
 * Randomized placement (pinned): a random free block of the word the heap
 * drew with its chunk (heap.h, placement.c), drawn again after a run of at
 * most DP_RANDOM_RUN allocations or when it empties.  The poison checks of
 * a pool that has them too run in alloc_checked().  (The run is not over.)
 */
static __always_inline void *random_take(struct dmapool *pool,
					 struct dp_heap *h, dmapool_gfp_t gfp,
					 dmapool_dma_t *dma, u64 *handle,
					 unsigned long pin)
{
	struct dp_chunk *c = h->cur;
	u32 pos, before;

	/* A chunk this fills stays listed until the next draw (heap.c). */
	pos = dp_random_staged_take(h);
	if (DP_UNLIKELY(pool->steps & (DP_STEP_POISON | DP_STEP_SAMPLED))) {
		before = DP_READ_ONCE(c->st[pos]);
		dp_state_alloc_clear(c, pos, before);
		dp_owner_unpin(&pool->owners, pin);
		return alloc_checked(pool, c, pos | (before & DP_ST_WHOLE ?
						     CHECKED_WHOLE : 0),
				     gfp, dma, handle);
	}
	/* No poison: the state word never has DP_ST_WHOLE. */
	take_state(c, pos, handle, !!handle);
	dp_owner_unpin(&pool->owners, pin);
	return dp_hand_out(pool, c, pos, gfp, dma);
}

/*
 * The run is over, or the context has no heap yet (pinned): the next draw
 * and its first take, or the slow path.
 */
static DP_NOINLINE void *alloc_random_draw(struct dmapool *pool,
					   struct dp_heap *h,
					   dmapool_gfp_t gfp,
					   dmapool_dma_t *dma, u64 *handle,
					   unsigned long pin)
{
	if (h == &dp_heap_none || !dp_heap_restage_random(h))
		return alloc_unpin_slow(pool, gfp, dma, handle, pin);
	return random_take(pool, h, gfp, dma, handle, pin);
}

/* Every allocation of a random pool: a take, or a draw first. */
static __always_inline void *random_alloc(struct dmapool *pool,
					  struct dp_heap *h, dmapool_gfp_t gfp,
					  dmapool_dma_t *dma, u64 *handle,
					  unsigned long pin)
{
	/* A tail call: no stack frame here. */
	if (DP_UNLIKELY(dp_random_run_over(h)))
		return alloc_random_draw(pool, h, gfp, dma, handle, pin);
	return random_take(pool, h, gfp, dma, handle, pin);
}

static DP_NOINLINE void *alloc_random(struct dmapool *pool,
				      struct dp_heap *h, dmapool_gfp_t gfp,
				      dmapool_dma_t *dma, u64 *handle,
				      unsigned long pin)
{
	return random_alloc(pool, h, gfp, dma, handle, pin);
}

/* The same for an allocation by address (no handle to make). */
static DP_NOINLINE void *alloc_random_addr(struct dmapool *pool,
					   struct dp_heap *h,
					   dmapool_gfp_t gfp,
					   dmapool_dma_t *dma,
					   unsigned long pin)
{
	return random_alloc(pool, h, gfp, dma, NULL, pin);
}

/*
 * The staged word is empty and the magazine has a block (pinned): the most
 * recent, which its chunk's free map does not have (heap.h).  No frame.
 */
static DP_NOINLINE void *alloc_mag(struct dmapool *pool, struct dp_heap *h,
				   dmapool_gfp_t gfp, dmapool_dma_t *dma,
				   u64 *handle, unsigned long pin)
{
	const struct dp_mag_ent *e = dp_heap_mag_pop(h);
	struct dp_chunk *c = e->c;
	const u32 pos = e->pos;
	const size_t off = e->off;
	u32 before, st;

	if (pool->alloc_stepped) {
		before = DP_READ_ONCE(c->st[pos]);
		st = dp_state_alloc_clear(c, pos, before);
		dp_owner_unpin(&pool->owners, pin);
		return stepped_out(pool, c, pos, before, st, gfp, dma, handle,
				   !!handle);
	}
	take_state(c, pos, handle, !!handle);
	dp_owner_unpin(&pool->owners, pin);
	return dp_hand_out_at(pool, c, off, gfp, dma);
}

/* The staged chunk's next word (pinned), or the slow path. */
static DP_NOINLINE DP_COLD void *alloc_restage_word(struct dmapool *pool,
						    struct dp_heap *h,
						    dmapool_gfp_t gfp,
						    dmapool_dma_t *dma,
						    u64 *handle, unsigned long pin)
{
	struct dp_chunk *c;
	u64 word;
	u32 pos;

	if (!dp_heap_restage(h))
		return alloc_unpin_slow(pool, gfp, dma, handle, pin);
	word = *h->wp;
	*h->wp = word & (word - 1);
	pos = h->base + dp_os_ctz64(word);
	c = h->cur;
	take_state(c, pos, handle, !!handle);
	dp_owner_unpin(&pool->owners, pin);
	return dp_hand_out(pool, c, pos, gfp, dma);
}

/*
 * The fast path found its staged word empty (pinned), in a pool without
 * alloc-side byte steps or random placement: no heap yet, blocks on the
 * magazine, or the word used up.  Only tests and tail calls, so the
 * fast path needs no saved registers.
 */
static DP_NOINLINE void *alloc_restage(struct dmapool *pool,
				       struct dp_heap *h, dmapool_gfp_t gfp,
				       dmapool_dma_t *dma, u64 *handle,
				       unsigned long pin)
{
	if (DP_UNLIKELY(h == &dp_heap_none))
		return alloc_unpin_slow(pool, gfp, dma, handle, pin);
	if (h->nmag)
		return alloc_mag(pool, h, gfp, dma, handle, pin);
	return alloc_restage_word(pool, h, gfp, dma, handle, pin);
}

/*
 * The fast path takes the lowest free block of the heap's staged word
 * (heap.h): a find-first-set in a word the heap points at, no chunk list,
 * no summary.  Staging the next word is the slow path's.
 */
static __always_inline void *
alloc_one(struct dmapool *pool, dmapool_gfp_t gfp, dmapool_dma_t *dma,
	  u64 *handle, const bool want_handle)
{
	struct dp_heap *h;
	struct dp_chunk *c;
	u64 *wp, word;
	u32 pos;
	size_t off;
	unsigned long pin;

	dp_owner_pin(&pool->owners, &pin);
	/*
	 * Never NULL: a context without a heap finds dp_heap_none, whose
	 * staged word is empty.
	 */
	h = dp_owner_heap_fast(&pool->owners);
	wp = h->wp;
	word = *wp;
	if (DP_UNLIKELY(!word)) {
		/* Stepped pools: their own staged word (dp_heap_none's is 0). */
		if (pool->alloc_stepped)
			return want_handle ?
			       alloc_stepped(pool, h, gfp, dma, handle, pin) :
			       alloc_stepped_addr(pool, h, gfp, dma, pin);
		/* Random pools: each allocation (dp_heap_none's run is over). */
		if (pool->alloc_random)
			return want_handle ?
			       alloc_random(pool, h, gfp, dma, handle, pin) :
			       alloc_random_addr(pool, h, gfp, dma, pin);
		return alloc_restage(pool, h, gfp, dma, handle, pin);
	}
	*wp = word & (word - 1);
	pos = h->base + dp_os_ctz64(word);
	c = h->cur;
	take_state(c, pos, handle, want_handle);
	dp_owner_unpin(&pool->owners, pin);
	/* Fast-path pools are one segment per chunk: off = pos * stride. */
	off = (size_t)pos * pool->geo.stride;
	if (dma)
		*dma = c->dma + off;
	if (DP_UNLIKELY(gfp & DMAPOOL_GFP_ZERO))
		return dp_zero_block((void *)(c->vaddr + off), pool->geo.size);
	return (void *)(c->vaddr + off);
}

void *dmapool_alloc(struct dmapool *pool, dmapool_gfp_t gfp,
		    dmapool_dma_t *dma)
{
	if (DP_UNLIKELY(!pool))
		return alloc_null(NULL_ALLOC);
	return alloc_one(pool, gfp, dma, NULL, false);
}
EXPORT_SYMBOL(dmapool_alloc);

void *dmapool_zalloc(struct dmapool *pool, dmapool_gfp_t gfp,
		     dmapool_dma_t *dma)
{
	if (DP_UNLIKELY(!pool))
		return alloc_null(NULL_ZALLOC);
	return alloc_one(pool, gfp | DMAPOOL_GFP_ZERO, dma, NULL, false);
}
EXPORT_SYMBOL(dmapool_zalloc);

void *dmapool_alloc_handle(struct dmapool *pool, dmapool_gfp_t gfp,
			   dmapool_dma_t *dma, u64 *handle)
{
	if (DP_UNLIKELY(!pool)) {
		*handle = 0;
		if (dma)
			*dma = 0;
		return alloc_null(NULL_ALLOC_HANDLE);
	}
	/* @handle is never NULL here (the header says so). */
	return alloc_one(pool, gfp, dma, handle, true);
}
EXPORT_SYMBOL(dmapool_alloc_handle);

unsigned int dmapool_alloc_bulk(struct dmapool *pool, dmapool_gfp_t gfp,
				unsigned int n, void **vaddrs,
				dmapool_dma_t *dmas)
{
	unsigned int i;

	if (DP_UNLIKELY(!pool)) {
		alloc_null(NULL_ALLOC_BULK);
		return 0;
	}
	for (i = 0; i < n; i++) {
		vaddrs[i] = alloc_one(pool, gfp, &dmas[i], NULL, false);
		if (DP_UNLIKELY(!vaddrs[i]))
			break;
	}
	if (DP_LIKELY(i == n))
		return n;
	/* All or none: the ones taken go back. */
	while (i--) {
		dmapool_free(pool, vaddrs[i], dmas[i]);
		vaddrs[i] = NULL;
	}
	return 0;
}
EXPORT_SYMBOL(dmapool_alloc_bulk);
