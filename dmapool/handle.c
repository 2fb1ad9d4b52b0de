// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Free by handle: no lookup.
 *
 * A handle names a slot (a chunk record, supply.h), a position and the
 * generation of one allocation (block.h).  The free checks that the slot
 * holds a record, that vaddr and dma are the named block's, and then claims
 * the block with a compare-and-exchange of its state word against
 * "allocated, this generation": a handle from an earlier allocation of the
 * block, a second free, or a racing free by address cannot succeed.  A
 * successful claim also proves the record was not reused meanwhile (the
 * block stayed allocated, so its chunk stayed), so nothing here needs RCU.
 * After the claim the handle free takes the same steps as a free by address
 * (free.c).  Generations outlive a chunk's release (the record is the
 * slot's for the pool's life): a stale handle is reported until its block
 * has been allocated 2^28 more times.
 */
#include "datapath.h"

static DP_NOINLINE DP_COLD void free_handle_null(void *vaddr, dmapool_dma_t dma)
{
	dp_report_global(DMAPOOL_R_NULL_POOL, vaddr, dma,
			 "dmapool_free_handle called with a NULL pool");
}

/* Is @pos a block of @c's geometry, and where is it? */
static bool handle_block(const struct dmapool *pool, u32 pos,
			 size_t *off)
{
	if (DP_UNLIKELY(!dp_geo_valid_position(&pool->geo, pos)))
		return false;
	*off = dp_geo_offset(&pool->geo, pos);
	return true;
}

/* Why a free by handle failed; not pinned, no lock held. */
static DP_NOINLINE DP_COLD void handle_judge(struct dmapool *pool, void *vaddr,
					     dmapool_dma_t dma, u64 h)
{
	const u32 pos = dp_handle_pos(h);
	const u32 want = dp_handle_state(h);
	struct dp_chunk *c = dp_slot_record(pool, dp_handle_id(h));
	struct dp_pending p;
	size_t off = 0;
	u32 s;

	if (!c || !handle_block(pool, pos, &off) || !DP_READ_ONCE(c->live) ||
	    dp_handle_malformed(h)) {
		/* Maybe a block of another pool, handed to the wrong one. */
		dp_report_unknown_address(pool, &p, vaddr, dma);
		if (p.r.kind != DMAPOOL_R_FREE_WRONG_POOL)
			dp_report_fill(pool, &p, DMAPOOL_R_BAD_HANDLE, vaddr,
				       dma, "handle names no block of this pool");
	} else if (DP_READ_ONCE(c->vaddr) + off != (uintptr_t)vaddr) {
		dp_report_fill(pool, &p, DMAPOOL_R_BAD_HANDLE, vaddr, dma,
			       "vaddr is not the block the handle names");
		p.r.block = (const void *)(c->vaddr + off);
		p.r.block_dma = c->dma + off;
	} else if (c->dma + off != dma) {
		dp_report_fill(pool, &p, DMAPOOL_R_FREE_DMA_MISMATCH, vaddr, dma,
			       "dma address does not belong to this block");
		p.r.block = vaddr;
		p.r.block_dma = c->dma + off;
	} else {
		s = DP_READ_ONCE(c->st[pos]);
		if ((s ^ want) >> DP_ST_GEN_SHIFT)
			dp_report_fill(pool, &p, DMAPOOL_R_STALE_HANDLE, vaddr,
				       dma, "handle is from an earlier allocation of this block");
		else
			dp_report_fill(pool, &p, DMAPOOL_R_DOUBLE_FREE, vaddr,
				       dma, (s & DP_ST_ALLOC) ?
				       "block was freed by a racing call" :
				       "block is not allocated: already freed (it may be waiting in quarantine or for its owner to take it back)");
		p.r.block = vaddr;
		p.r.block_dma = dma;
	}
	p.r.handle = h;
	dp_report_deliver(pool, &p);
}

/* Is @c the calling context's chunk?  (A moment's answer: pinned only here.) */
static bool owned_here(struct dmapool *pool, const struct dp_chunk *c)
{
	unsigned long pin;
	const uintptr_t tok = dp_owner_pin(&pool->owners, &pin);
	const bool mine = DP_READ_ONCE(c->owner) == tok;

	dp_owner_unpin(&pool->owners, pin);
	return mine;
}

/*
 * The claim and what follows, once @vaddr and @dma are block @pos of @c
 * (the fast path's checks, or free_handle_slow()'s).  Another context's
 * block, mostly (the fast path takes the caller's own): as the address
 * path's remote free (free.c), one compare-and-exchange that ends the
 * handle's allocation and makes the block pending for its owner, then the
 * publication (remote.c).  Else the claim and the steps of any free.
 */
static DP_NOINLINE void free_handle_checked(struct dmapool *pool, void *vaddr,
					    dmapool_dma_t dma, u64 h,
					    struct dp_chunk *c, size_t pos)
{
	const u32 want = dp_handle_state(h);

	if (DP_LIKELY(dp_remote_direct(pool, c, false)) &&
	    !owned_here(pool, c)) {
		if (DP_LIKELY(dp_state_claim_gen_remote(c, pos, want))) {
			dp_remote_publish(c, (u32)pos);
			return;
		}
	} else if (dp_state_claim_gen(c, pos, want)) {
		dp_free_claimed(pool, c, (u32)pos, false);
		return;
	}
	handle_judge(pool, vaddr, dma, h);
}

/*
 * Everything but the owner's free of a fast pool's block: the same checks
 * for every geometry, then the steps of any free.
 */
static DP_NOINLINE DP_COLD void free_handle_slow(struct dmapool *pool, void *vaddr,
						 dmapool_dma_t dma, u64 h)
{
	const u32 pos = dp_handle_pos(h);
	struct dp_chunk *c = dp_slot_record(pool, dp_handle_id(h));
	size_t off;

	if (!c || !handle_block(pool, pos, &off) ||
	    DP_READ_ONCE(c->vaddr) + off != (uintptr_t)vaddr ||
	    DP_READ_ONCE(c->dma) + off != dma) {
		handle_judge(pool, vaddr, dma, h);
		return;
	}
	free_handle_checked(pool, vaddr, dma, h, c, pos);
}

void dmapool_free_handle(struct dmapool *pool, void *vaddr, dmapool_dma_t dma,
			 u64 h)
{
	const u32 id = dp_handle_id(h);
	const size_t pos = (size_t)dp_handle_pos(h);
	struct dp_chunk *const *rec;
	struct dp_chunk *c;
	uintptr_t tok;
	unsigned long pin;
	size_t off;

	if (DP_UNLIKELY(!pool)) {
		free_handle_null(vaddr, dma);
		return;
	}
	/*
	 * The slot table (supply.h) holds &dp_chunk_none in every empty slot,
	 * whose memory no vaddr matches: only the table's bound to test.
	 * hnbits: 0 unless the chunks are one segment.
	 */
	rec = DP_RCU_DEREF(pool->slot_rec);
	if (DP_UNLIKELY(id >= DP_CONTAINER_OF(rec, struct dp_slot_tab,
					      rec[0])->cap ||
			pos >= pool->hnbits))
		goto slow;
	c = DP_RCU_DEREF(rec[id]);
	off = pos * pool->geo.stride;
	if (DP_UNLIKELY(c->vaddr + off != (uintptr_t)vaddr ||
			c->dma + off != dma))
		goto slow;
	tok = dp_owner_pin(&pool->owners, &pin);
	if (DP_UNLIKELY(DP_READ_ONCE(c->fast_owner) != tok)) {
		/*
		 * The caller's own chunk in a pool with steps, or a full one:
		 * the same claim, then the steps of a free by address.
		 */
		if (DP_READ_ONCE(c->owner) == tok &&
		    dp_state_claim_gen(c, pos, dp_handle_state(h))) {
			dp_free_owner_steps_at(pool, c, pos, pin);
			return;
		}
		/* Mostly another context's block: no second lookup. */
		dp_owner_unpin(&pool->owners, pin);
		free_handle_checked(pool, vaddr, dma, h, c, pos);
		return;
	}
	if (DP_UNLIKELY(!dp_state_claim_gen(c, pos, dp_handle_state(h)))) {
		dp_owner_unpin(&pool->owners, pin);
		goto slow;
	}
	if (DP_UNLIKELY(dp_block_put(c, pos)))
		dp_heap_relist(c->heap, c);
	dp_owner_unpin(&pool->owners, pin);
	return;
slow:
	free_handle_slow(pool, vaddr, dma, h);
}
EXPORT_SYMBOL(dmapool_free_handle);
