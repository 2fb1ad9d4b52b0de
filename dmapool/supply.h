/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Supply: where heaps get chunks from and where empty chunks go back to.
 *
 * Growth takes a record (a released one whose grace period is over, or a
 * new slot), gives it DMA memory from the backend and makes it known: the
 * slot directory (for handles) and the index (for frees by address), under
 * the pool lock.  Nothing is allocated under the lock: index nodes and
 * directory pages are allocated with it dropped, as many as the lock holder
 * said it needs, and the need is checked again (so the kernel shim can use
 * a spinlock and GFP_KERNEL).  Every attach also stocks the index with the
 * nodes one removal needs, so a free that empties a chunk can release it
 * without allocating.  Both return how many chunks went back now.
 *
 * Release takes an empty chunk out of the index, zeroes its DMA memory and
 * returns it to the backend, and retires its record.  A free that empties a
 * chunk releases it in place when its context allows (userspace) and else
 * leaves it on the pool's pending list for a context that may (the kernel:
 * a work item; both: the next growth or dmapool_shrink()).  When the index
 * needs nodes to remove an entry and the releasing free may not allocate
 * (a B-tree), the entry stays, marked dead by its record (lookups check
 * c->live), and is removed at the next growth or shrink.
 *
 * The slot table is type-stable: one array of record pointers, replaced by a
 * copy twice its size when it fills (old ones are kept until destroy), so
 * dmapool_free_handle() reads it without a lock.
 */
#ifndef DMAPOOL_SUPPLY_H
#define DMAPOOL_SUPPLY_H

#include "pool.h"

/* The slot table: record pointers by id; slot 0 is never used. */
struct dp_slot_tab {
	struct dp_slot_tab *older;	/* replaced tables (type-stable) */
	u32 cap;			/* ids below this have an entry */
	u32 pad;
	struct dp_chunk *rec[];
};

/*
 * The record of slot @id, or &dp_chunk_none (an empty slot); NULL for an
 * id beyond the table.  Any context, no lock.
 */
static inline struct dp_chunk *dp_slot_fast(struct dmapool *pool,
					    u32 id)
{
	struct dp_chunk **rec = DP_RCU_DEREF(pool->slot_rec);
	const struct dp_slot_tab *t = DP_CONTAINER_OF(rec, struct dp_slot_tab,
						      rec[0]);

	if (DP_UNLIKELY(id >= t->cap))
		return NULL;
	return DP_RCU_DEREF(rec[id]);
}

/* The record of slot @id, or NULL. */
static inline struct dp_chunk *dp_slot_record(struct dmapool *pool,
					      u32 id)
{
	struct dp_chunk *c = dp_slot_fast(pool, id);

	return c == &dp_chunk_none ? NULL : c;
}

/*
 * A new chunk with every block free, known to the index, owned by no heap;
 * NULL when none can be had.  Not pinned, no lock held; may block as @gfp
 * allows.  Also runs releases left pending.
 */
struct dp_chunk *dp_supply_grow(struct dmapool *pool, dmapool_gfp_t gfp);
/*
 * Give back the empty chunks on @list (through pnext; no heap's).  From a
 * free (@from_free): nothing that may block or allocate; what cannot be
 * done here is left pending.
 */
size_t dp_supply_release(struct dmapool *pool, struct dp_chunk *list,
			 bool from_free);
/* Releases left pending, now (process context); how many went. */
size_t dp_supply_run_pending(struct dmapool *pool);
/* A new pool's empty slot table. */
void dp_supply_init(struct dmapool *pool);
/*
 * Destroy: DMA memory back unless a block is still allocated; records,
 * directory and index freed.  Returns the blocks still allocated.
 */
u64 dp_supply_fini(struct dmapool *pool);

#endif /* DMAPOOL_SUPPLY_H */
