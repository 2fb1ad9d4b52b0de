// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Free by address.
 *
 * The fast path is for the common case only: a hash-index pool whose
 * frees have no steps, freeing a block of the caller's own heap.  It finds
 * the chunk, checks that the chunk is the caller's (one compare of owner
 * tokens), that the address is a block start and the dma its bus address,
 * claims the block's state word (one atomic test-and-clear: of two racing
 * frees one wins) and puts the block back into its chunk's free map.  It
 * touches no lock and no line another context writes.
 *
 * Everything else is one slow path: locate (index lookup under RCU, but
 * for another context's block in a hash pool: free_remote()), validate
 * (the same checks), claim, then the steps the pool's options
 * switch on, in order: byte work (redzone check, zero, poison or sampled
 * poison, scrub), then dispose, by who owns the chunk: the caller's own
 * heap (quarantine or reuse; an emptied chunk released under automatic
 * shrink: owner.c), the shared heap or an orphan under the pool lock, or
 * another context's heap (published as a remote free, remote.c).  Any
 * failed check sends the free to dp_report_bad_free() (reports.c), which
 * says exactly what is wrong; the pool is unchanged (invariant 3).
 */
#include "datapath.h"

/* ---- reports of bad frees (cold) ---------------------------------------- */

static DP_NOINLINE DP_COLD void free_null(void *vaddr, dmapool_dma_t dma)
{
	dp_report_global(DMAPOOL_R_NULL_POOL, vaddr, dma,
			 "dmapool_free called with a NULL pool");
}

DP_NOINLINE DP_COLD void dp_free_double(struct dmapool *pool, struct dp_chunk *c,
					void *vaddr, dmapool_dma_t dma,
					u64 handle)
{
	struct dp_pending p;

	dp_report_fill(pool, &p, DMAPOOL_R_DOUBLE_FREE, vaddr, dma,
		       "block is not allocated: already freed (it may be waiting in quarantine or for its owner to take it back)");
	p.r.block = vaddr;
	p.r.block_dma = c->dma + ((uintptr_t)vaddr - c->vaddr);
	p.r.handle = handle;
	dp_report_deliver(pool, &p);
}

/* ---- the steps after the claim ------------------------------------------ */

/* A claimed block of a chunk the caller does not own. */
static void give_other(struct dmapool *pool, struct dp_chunk *c, u32 pos,
		       struct dp_chunk **release)
{
	uintptr_t o = DP_READ_ONCE(c->owner);

	if (o == DP_OWNER_SHARED || o == DP_OWNER_ORPHAN) {
		unsigned long flags = dp_lock(&pool->lock);

		/* An orphan may have been adopted meanwhile. */
		o = c->owner;
		if (o == DP_OWNER_SHARED || o == DP_OWNER_ORPHAN) {
			dp_heap_give(c->heap, c, pos, release);
			dp_unlock(&pool->lock, flags);
			return;
		}
		dp_unlock(&pool->lock, flags);
	}
	dp_heap_remote_free(c, pos);
}

/* free_claimed_other() with byte work, or for the pool lock's heaps. */
static DP_NOINLINE void free_claimed_steps(struct dmapool *pool,
					   struct dp_chunk *c, u32 pos,
					   bool zero)
{
	struct dp_chunk *release = NULL;
	struct dp_pending rep;
	bool bad = false;

	if ((pool->steps & DP_STEPS_FREE_BYTES) || zero)
		bad = dp_harden_free_bytes(pool, c, pos,
					   dp_harden_sample_now(pool, c, pos),
					   zero, &rep);
	/* Ours by now (an orphan adopted)?  Then our own remote list. */
	give_other(pool, c, pos, &release);
	if (release)
		dp_supply_release(pool, release, true);
	if (bad)
		dp_report_deliver(pool, &rep);
}

/* A claimed block of a chunk the caller did not own a moment ago. */
static __always_inline void free_claimed_other(struct dmapool *pool,
					       struct dp_chunk *c, u32 pos,
					       bool zero)
{
	/* Mostly: no byte work, and another thread's heap (give_other()). */
	if (DP_LIKELY(dp_remote_direct(pool, c, zero))) {
		dp_heap_remote_free(c, pos);
		return;
	}
	free_claimed_steps(pool, c, pos, zero);
}

void dp_free_claimed(struct dmapool *pool, struct dp_chunk *c, u32 pos,
		     bool zero)
{
	uintptr_t tok;
	unsigned long pin;

	tok = dp_owner_pin(&pool->owners, &pin);
	if (DP_READ_ONCE(c->owner) == tok) {
		dp_owner_steps(pool, c, pos, zero, pin);
		return;
	}
	dp_owner_unpin(&pool->owners, pin);
	free_claimed_other(pool, c, pos, zero);
}

/*
 * A free of the caller's own block in a hash pool, whatever its steps, @c
 * the chunk the index gave for the address and @off the address's offset
 * in it: no RCU (the record is the caller's, type-stable, chunk.h).  True
 * when done; false (nothing changed) when the block is not the caller's or
 * the checks or the claim fail.
 */
static __always_inline bool
free_owned(struct dmapool *pool, struct dp_chunk *c,
	   uintptr_t off, dmapool_dma_t dma, bool zero)
{
	const struct dp_geometry *g = &pool->geo;
	uintptr_t tok;
	unsigned long pin;
	size_t pos;
	u32 p32;

	tok = dp_owner_pin(&pool->owners, &pin);
	if (DP_READ_ONCE(c->owner) != tok)
		goto no;
	if (DP_LIKELY(g->fast_n)) {
		if (!dp_block_check_fast(g, c, off, dma, &pos))
			goto no;
	} else {
		if (!dp_geo_position(g, off, &p32) || c->dma + off != dma)
			goto no;
		pos = p32;
	}
	if (DP_UNLIKELY(!dp_state_claim(c, pos)))
		goto no;
	dp_owner_steps(pool, c, pos, zero, pin);
	return true;
no:
	dp_owner_unpin(&pool->owners, pin);
	return false;
}

/* Anything but the caller's own block in a hash pool: under RCU. */
static void free_general(struct dmapool *pool, void *vaddr, dmapool_dma_t dma,
			 bool zero)
{
	const uintptr_t va = (uintptr_t)vaddr;
	struct dp_chunk *c;
	u32 pos;

	/* The record cannot describe other memory while we look (chunk.h). */
	dp_rcu_read_lock();
	c = dp_index_lookup_rcu(&pool->index, va);
	if (DP_UNLIKELY(!c || !DP_READ_ONCE(c->live) ||
			!dp_block_check(&pool->geo, c, va, dma, &pos))) {
		dp_rcu_read_unlock();
		dp_report_bad_free(pool, vaddr, dma);
		return;
	}
	if (DP_UNLIKELY(!dp_state_claim(c, pos))) {
		dp_rcu_read_unlock();
		dp_free_double(pool, c, vaddr, dma, 0);
		return;
	}
	/* Claimed: the chunk holds our block and stays until we let it go. */
	dp_rcu_read_unlock();
	dp_free_claimed(pool, c, pos, zero);
}

/*
 * Another context's block in a hash pool with the one-multiply check, @c
 * what the lookup found and @pos the position it computed: no RCU, no
 * second lookup.  The claim succeeds only if the state word read first
 * (acquire) is still there: the block stayed allocated, so its chunk
 * stayed, and the fields read after it are its (the allocation's release
 * store published them, block.h); so @va must be block @pos of the chunk
 * they describe, whatever the record described when @pos was computed.
 * @pending: the claim makes the block pending for its owner too (a free
 * with no byte work, remote.c).  False (nothing changed) when anything
 * fails: the general path judges it.
 */
static __always_inline bool remote_claim_at(struct dmapool *pool,
					    struct dp_chunk *c, uintptr_t va,
					    dmapool_dma_t dma, size_t pos,
					    bool pending)
{
	u32 s = DP_LOAD_ACQUIRE(c->st[pos]);
	uintptr_t start = DP_READ_ONCE(c->vaddr);

	/* @va is block @pos of the chunk the record describes now. */
	if (DP_UNLIKELY(!(s & DP_ST_ALLOC) ||
			va - start != pos * pool->geo.stride ||
			DP_READ_ONCE(c->dma) + (va - start) != dma))
		return false;
	return pending ? dp_state_claim_remote(c, pos, s) :
			 dp_state_claim_seen(c, pos, s);
}

/* The same from the address alone: the position from the record's vaddr. */
static __always_inline bool remote_claim(struct dmapool *pool,
					 struct dp_chunk *c, uintptr_t va,
					 dmapool_dma_t dma, bool pending,
					 u32 *posp)
{
	const struct dp_geometry *g = &pool->geo;
	uintptr_t start;
	size_t pos;

	/* Where no address is a hole, a position in them may look valid. */
	if (DP_UNLIKELY(c == &dp_chunk_none || c == &dp_chunk_tomb))
		return false;
	start = DP_READ_ONCE(c->vaddr);
	pos = (size_t)dp_geo_fast_pos(g, va - start);
	if (DP_UNLIKELY(pos >= g->fast_n) ||
	    !remote_claim_at(pool, c, va, dma, pos, pending))
		return false;
	*posp = (u32)pos;
	return true;
}

/*
 * A free by another context than the owner: mostly no byte work and a
 * thread's heap, where the claim makes the block pending and the owner
 * learns of it (remote.c) with no second atomic on its state word; else
 * the claim, then the steps of free_claimed_other().
 */
static bool free_remote(struct dmapool *pool, struct dp_chunk *c,
			uintptr_t va, dmapool_dma_t dma, bool zero)
{
	const bool direct = dp_remote_direct(pool, c, zero);
	u32 pos;

	if (!remote_claim(pool, c, va, dma, direct, &pos))
		return false;
	if (DP_LIKELY(direct)) {
		/*
		 * If the heap was orphaned meanwhile, its stack is still the
		 * one to publish on: whoever takes the heap collects it.
		 */
		dp_remote_publish(c, pos);
		return true;
	}
	free_claimed_other(pool, c, pos, zero);
	return true;
}

/*
 * free_remote() for dmapool_free_bulk(): a block of another thread's heap
 * with no byte work joins the run (one look at the remote word for the
 * regions of one word the batch frees in a row); anything else as
 * free_remote().
 */
static DP_NOINLINE bool free_remote_run(struct dmapool *pool,
					struct dp_chunk *c, uintptr_t va,
					dmapool_dma_t dma, size_t pos,
					struct dp_remote_run *r)
{
	/* @pos: the fast path's, as in free_other() (a marker is not direct). */
	if (!dp_remote_direct(pool, c, false))
		return free_remote(pool, c, va, dma, false);
	if (!remote_claim_at(pool, c, va, dma, pos, true))
		return false;
	dp_remote_run_add(r, c, (u32)pos);
	return true;
}

/*
 * The caller's own block, another context's block, or anything else,
 * judged in that order (not inlined: free_other() stays frameless).
 */
DP_NOINLINE void dp_free_slow(struct dmapool *pool, void *vaddr,
			      dmapool_dma_t dma, bool zero)
{
	uintptr_t off = 0;
	struct dp_chunk *c = dp_hash_find_off(&pool->index.hash,
					      (uintptr_t)vaddr, &off);

	if (DP_LIKELY(pool->index.ops == &dp_hash_ops)) {
		if (free_owned(pool, c, off, dma, zero))
			return;
		if (DP_LIKELY(pool->geo.fast_n) &&
		    free_remote(pool, c, (uintptr_t)vaddr, dma, zero))
			return;
	}
	free_general(pool, vaddr, dma, zero);
}

/* free_other() for a remote free with steps, or none at all: out of line. */
static DP_NOINLINE void free_other_steps(struct dmapool *pool, void *vaddr,
					 dmapool_dma_t dma, struct dp_chunk *c)
{
	if (free_remote(pool, c, (uintptr_t)vaddr, dma, false))
		return;
	dp_free_slow(pool, vaddr, dma, false);
}

/*
 * Not the fast path's free (@c: what its lookup found).  A valid one here
 * is another context's (the caller's own come here only when a check
 * fails): the remote free first, without the judging's frame.  Hot, not
 * cold as its caller: a thread freeing what another allocated comes here
 * every time.
 */
static DP_NOINLINE DP_HOT void free_other(struct dmapool *pool, void *vaddr,
					  dmapool_dma_t dma, struct dp_chunk *c,
					  size_t pos)
{
	const uintptr_t va = (uintptr_t)vaddr;

	/*
	 * @pos is the fast path's, from the vaddr it read: a position of the
	 * record's geometry unless @c is a marker, whose owner is the pool
	 * lock's (hash.c).  Only tail calls: no stack frame.
	 */
	if (DP_UNLIKELY(!dp_remote_direct(pool, c, false)))
		return free_other_steps(pool, vaddr, dma, c);
	if (DP_UNLIKELY(!remote_claim_at(pool, c, va, dma, pos, true)))
		return dp_free_slow(pool, vaddr, dma, false);
	dp_remote_publish(c, (u32)pos);
}

/*
 * The fast path declined: a jump to free_other().  Cold, so that the fast
 * path keeps its registers (a hot call there costs option pools a move).
 */
static DP_NOINLINE DP_COLD void free_declined(struct dmapool *pool, void *vaddr,
					      dmapool_dma_t dma, struct dp_chunk *c,
					      size_t pos)
{
	free_other(pool, vaddr, dma, c, pos);
}

/* ---- the fast path ------------------------------------------------------ */

/*
 * The fast path's lookup and block check in one: the chunk of @va's bucket
 * run in which @va is a block start (*@pos its position), or
 * &dp_chunk_none.  dp_geo_fast_pos() bounds the offset too, so a probe is
 * one multiply and one compare; an address that is no block start of a
 * one-segment chunk runs on to the run's end and is judged slowly.  The
 * offset is from the bucket's copy of the chunk's start (index.h), so the
 * block's state word is known, and its line asked for, before the record
 * is read: the claim then waits for one miss, not two in a row.
 *
 * With @run, the whole run; without, the home bucket only: false when it
 * holds another chunk (or a removed one) in which @va is no block start,
 * and dmapool_free() starts again with @run (a loop here would cost the
 * fast path a saved register).  An empty home bucket is a miss either way
 * (pools with another index always find one).
 */
static __always_inline bool
find_block(const struct dmapool *pool, uintptr_t va, struct dp_chunk **cp,
	   uintptr_t *off, size_t *pos, const bool run)
{
	const struct dp_hash *h = &pool->index.hash;
	const struct dp_hash_table *t;
	const char *b = dp_hash_bytes(h, &t);
	/* The multiplier read from the pool: no 64-bit immediate to load. */
	u64 i = dp_hash_home_byte(t, va & h->gmask, h->mult);

	for (;;) {
		const struct dp_hash_bucket *bk =
			(const struct dp_hash_bucket *)(b + i);
		struct dp_chunk *c = DP_READ_ONCE(bk->c);
		u64 q;

		*off = va - DP_READ_ONCE(bk->vaddr);
		q = dp_geo_fast_pos(&pool->geo, *off);
		*pos = (size_t)q;
		*cp = c;
		if (DP_LIKELY(q < pool->geo.fast_n)) {
			dp_os_prefetch_w(&c->st[q]);
			return true;
		}
		/* An empty bucket ends the run: a miss, judged slowly. */
		if (c == &dp_chunk_none)
			return true;
		if (!run)
			return false;
		i = (i + sizeof(*bk)) & t->bmask;
	}
}

static DP_NOINLINE void free_probed(struct dmapool *pool, void *vaddr,
				    dmapool_dma_t dma);

/*
 * @run: a bulk free's remote run (a constant: NULL or not); @probe: look
 * past the home bucket (else a longer run goes to free_probed()).
 */
static __always_inline void
free_one(struct dmapool *pool, void *vaddr, dmapool_dma_t dma,
	 struct dp_remote_run *run, const bool probe)
{
	const uintptr_t va = (uintptr_t)vaddr;
	struct dp_chunk *c;
	uintptr_t off;
	uintptr_t tok;
	unsigned long pin;
	size_t pos;

	/* A miss gives dp_chunk_none, whose owners match no context. */
	if (!find_block(pool, va, &c, &off, &pos, probe)) {
		free_probed(pool, vaddr, dma);
		return;
	}
	tok = dp_owner_pin(&pool->owners, &pin);
	/* Invariant 3: a block start of the caller's own chunk, its dma... */
	if (DP_UNLIKELY(DP_READ_ONCE(c->fast_owner) != tok)) {
		/*
		 * The caller's own chunk in a pool with steps, or a full one
		 * (for the magazine): the same checks and claim, then the
		 * steps (no second lookup).
		 */
		if (DP_READ_ONCE(c->owner) == tok && c->dma + off == dma &&
		    dp_state_claim(c, pos)) {
			dp_free_owner_steps(pool, c, pos, pin, va);
			return;
		}
		goto declined;
	}
	/* ... and allocated until this instant. */
	if (DP_UNLIKELY(c->dma + off != dma || !dp_state_claim(c, pos)))
		goto declined;
	if (DP_UNLIKELY(dp_block_put(c, pos))) {
		dp_relist_unpin(pool, c, pin);
		return;
	}
	dp_owner_unpin(&pool->owners, pin);
	return;
declined:
	dp_owner_unpin(&pool->owners, pin);
	/* A bulk free's remote block joins its run (@run: a constant). */
	if (run && DP_LIKELY(pool->geo.fast_n) &&
	    free_remote_run(pool, c, va, dma, pos, run))
		return;
	/* Another context's block, or wrong: judged again. */
	free_declined(pool, vaddr, dma, c, pos);
}

/*
 * A free whose home bucket holds another chunk, or a removed one, in which
 * its address is no block start: the whole run.
 */
static DP_NOINLINE void free_probed(struct dmapool *pool, void *vaddr,
				    dmapool_dma_t dma)
{
	free_one(pool, vaddr, dma, NULL, true);
}

void dmapool_free(struct dmapool *pool, void *vaddr, dmapool_dma_t dma)
{
	if (DP_UNLIKELY(!pool)) {
		free_null(vaddr, dma);
		return;
	}
	free_one(pool, vaddr, dma, NULL, false);
}
EXPORT_SYMBOL(dmapool_free);

void dmapool_free_zero(struct dmapool *pool, void *vaddr, dmapool_dma_t dma)
{
	if (DP_UNLIKELY(!pool)) {
		free_null(vaddr, dma);
		return;
	}
	dp_free_slow(pool, vaddr, dma, true);
}
EXPORT_SYMBOL(dmapool_free_zero);

void dmapool_free_bulk(struct dmapool *pool, unsigned int n,
		       void *const *vaddrs, const dmapool_dma_t *dmas)
{
	struct dp_remote_run run = { NULL, 0, 0 };
	unsigned int i;

	if (DP_UNLIKELY(!pool)) {
		if (n)
			free_null(vaddrs[0], dmas[0]);
		return;
	}
	for (i = 0; i < n; i++)
		free_one(pool, vaddrs[i], dmas[i], &run, true);
	dp_remote_run_flush(&run);
}
EXPORT_SYMBOL(dmapool_free_bulk);
