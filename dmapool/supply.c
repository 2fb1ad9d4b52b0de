// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Supply of chunks (see supply.h).
 */
#include "supply.h"

/* ---- the slot table ---------------------------------------------------- */

/* The table before the first growth: no slot. */
static struct dp_slot_tab no_slots;

static size_t tab_bytes(u32 cap)
{
	return sizeof(struct dp_slot_tab) + cap * sizeof(struct dp_chunk *);
}

void dp_supply_init(struct dmapool *pool)
{
	pool->slot_tab = &no_slots;
	pool->slot_rec = no_slots.rec;
	pool->nslots = 1;		/* id 0 names nothing */
}

/*
 * Make slot @id exist; lock held on entry and exit, dropped to allocate.
 * False when out of memory.
 */
static bool slot_room(struct dmapool *pool, u32 id, dmapool_gfp_t gfp,
		      unsigned long *flags)
{
	while (id >= pool->slot_tab->cap) {
		struct dp_slot_tab *old = pool->slot_tab, *t;
		u32 cap = old->cap ? old->cap * 2 : 64, i;

		while (cap <= id)
			cap *= 2;
		dp_unlock(&pool->lock, *flags);
		t = dp_os_host_zalloc(tab_bytes(cap), gfp);
		*flags = dp_lock(&pool->lock);
		if (!t)
			return false;
		if (pool->slot_tab->cap >= cap) {
			/* Someone grew it meanwhile. */
			dp_unlock(&pool->lock, *flags);
			dp_os_host_free(t, tab_bytes(cap));
			*flags = dp_lock(&pool->lock);
			continue;
		}
		old = pool->slot_tab;
		dp_os_memcpy(t->rec, old->rec, old->cap * sizeof(t->rec[0]));
		/*
		 * Empty slots describe no memory: a handle to one fails its
		 * vaddr check, with no NULL test on the fast path.
		 */
		for (i = old->cap; i < cap; i++)
			t->rec[i] = &dp_chunk_none;
		t->cap = cap;
		t->older = old == &no_slots ? NULL : old;
		pool->slot_tab = t;
		DP_RCU_ASSIGN(pool->slot_rec, t->rec);
	}
	return true;
}

/* ---- records ------------------------------------------------------------ */

/* A released record that may describe a new chunk; lock held. */
static struct dp_chunk *take_retired(struct dmapool *pool, bool wait,
				     unsigned long *flags)
{
	struct dp_chunk **pp, *c;
	unsigned long cookie;

	for (pp = &pool->retired; (c = *pp); pp = &c->pnext) {
		/* Off every remote stack (remote.c), and no reader left. */
		if (DP_READ_ONCE(c->rem->queued))
			continue;
		cookie = c->cookie;
		if (!dp_rcu_gp_done(cookie)) {
			if (!wait)
				continue;
			/*
			 * The cookie was read under the lock: once it is
			 * dropped, another grower may take @c, and its chunk be
			 * released and @c retired again (a new cookie).
			 */
			dp_unlock(&pool->lock, *flags);
			dp_rcu_gp_wait(cookie);
			*flags = dp_lock(&pool->lock);
			return take_retired(pool, false, flags);
		}
		*pp = c->pnext;
		c->pnext = NULL;
		return c;
	}
	return NULL;
}

/* A record for a new chunk; lock held on entry and exit. */
static struct dp_chunk *record_get(struct dmapool *pool, dmapool_gfp_t gfp,
				   unsigned long *flags)
{
	const bool may_block = dp_os_gfp_may_block(gfp);
	struct dp_chunk *c;
	u32 id;

	c = take_retired(pool, false, flags);
	if (!c && pool->retired && may_block)
		c = take_retired(pool, true, flags);
	if (c)
		return c;
	if (pool->nslots > DP_MAX_SLOTS)
		return NULL;
	/*
	 * The record first, its slot once record and table exist: a pool has
	 * DP_MAX_SLOTS slot ids for its life, and an allocation that fails
	 * (no host memory, GFP_ATOMIC under pressure) must not use one up.
	 * The lock is dropped to allocate, so the id is the one free when
	 * everything is in hand.
	 */
	dp_unlock(&pool->lock, *flags);
	c = dp_chunk_record_new(&pool->geo, gfp);
	*flags = dp_lock(&pool->lock);
	if (!c)
		return NULL;
	for (;;) {
		if (pool->nslots > DP_MAX_SLOTS)
			goto undo;
		if (pool->nslots < pool->slot_tab->cap)
			break;
		if (!slot_room(pool, pool->nslots, gfp, flags))
			goto undo;
	}
	id = pool->nslots++;
	c->id = id;
	DP_RCU_ASSIGN(pool->slot_tab->rec[id], c);
	return c;
undo:
	dp_unlock(&pool->lock, *flags);
	dp_chunk_record_free(&pool->geo, c);
	*flags = dp_lock(&pool->lock);
	return NULL;
}

static void retire(struct dmapool *pool, struct dp_chunk *c)
{
	DP_WRITE_ONCE(c->heap, NULL);
	c->cookie = dp_rcu_gp_cookie();
	c->pnext = pool->retired;
	pool->retired = c;
}

/* ---- the index's spare nodes -------------------------------------------- */

/*
 * Stock the index with @need nodes; lock held, dropped to allocate.  False
 * when out of memory.
 */
static bool stock(struct dmapool *pool, u32 need, dmapool_gfp_t gfp,
		  unsigned long *flags)
{
	struct dp_index *ix = &pool->index;

	while (ix->nspare < need) {
		u32 want = need - ix->nspare;
		void *nodes;

		dp_unlock(&pool->lock, *flags);
		nodes = dp_index_alloc_nodes(ix, want, gfp);
		*flags = dp_lock(&pool->lock);
		if (!nodes)
			return false;
		dp_index_add_spares(ix, nodes, want);
	}
	return true;
}

/*
 * Give a table index the table one more chunk needs; lock held, dropped to
 * allocate.  False when out of memory.
 */
static bool table(struct dmapool *pool, dmapool_gfp_t gfp,
		  unsigned long *flags)
{
	struct dp_index *ix = &pool->index;
	size_t bytes;
	void *mem;

	if (!ix->ops->table_needed)
		return true;
	bytes = ix->ops->table_needed(ix, pool->geo.chunk_size);
	if (!bytes)
		return true;
	dp_unlock(&pool->lock, *flags);
	mem = dp_os_host_alloc(bytes, gfp);
	*flags = dp_lock(&pool->lock);
	if (!mem)
		return false;
	mem = ix->ops->table_give(ix, mem, bytes);
	if (mem) {
		dp_unlock(&pool->lock, *flags);
		dp_os_host_free(mem, bytes);
		*flags = dp_lock(&pool->lock);
	}
	return true;
}

static u32 remove_need(const struct dp_index *ix)
{
	return ix->ops->remove_nodes_needed(ix, 0, 0);
}

/* ---- release ------------------------------------------------------------ */

/*
 * Index entries of released chunks that a free cleared in place (a B-tree
 * entry that still holds its key, index.h): removed for real here, where
 * allocating is allowed, and their records retired; lock held.  False when
 * some could not be (out of memory).
 */
static bool purge(struct dmapool *pool, dmapool_gfp_t gfp,
		  unsigned long *flags)
{
	struct dp_index *ix = &pool->index;
	struct dp_chunk *c;

	while ((c = pool->dead)) {
		if (ix->nspare < ix->ops->remove_nodes_needed(ix, c->vaddr,
							      pool->geo.chunk_size) &&
		    !stock(pool, remove_need(ix), gfp, flags))
			return false;
		if (c != pool->dead)
			continue;	/* the list changed while unlocked */
		DP_WRITE_ONCE(pool->dead, c->pnext);
		ix->ops->remove(ix, c->vaddr, pool->geo.chunk_size);
		retire(pool, c);
	}
	return true;
}

/* True when @c went back to the backend now. */
static bool release_one(struct dmapool *pool, struct dp_chunk *c,
			bool from_free)
{
	struct dp_index *ix = &pool->index;
	const size_t len = pool->geo.chunk_size;
	unsigned long flags;
	dmapool_dma_t dma;
	uintptr_t va;

	/* The kernel frees DMA memory only in process context: defer. */
	if (from_free && DP_HAVE_WORK) {
		flags = dp_lock(&pool->lock);
		c->pnext = pool->pending;
		DP_WRITE_ONCE(pool->pending, c);
		dp_unlock(&pool->lock, flags);
		dp_work_queue(&pool->work);
		return false;
	}
	flags = dp_lock(&pool->lock);
	if (!from_free)
		stock(pool, remove_need(ix), 0, &flags);
	if (ix->nspare >= ix->ops->remove_nodes_needed(ix, c->vaddr, len)) {
		ix->ops->remove(ix, c->vaddr, len);
		retire(pool, c);
	} else {
		/* Lookups find nothing there from now on. */
		ix->ops->clear(ix, c->vaddr, len);
		if (ix->ops->clear_keeps_entry) {
			c->pnext = pool->dead;
			DP_WRITE_ONCE(pool->dead, c);
		} else {
			retire(pool, c);
		}
	}
	DP_WRITE_ONCE(c->live, 0);
	pool->nchunks--;
	pool->chunks_released++;
	/* The record may describe another chunk before we are done here. */
	va = c->vaddr;
	dma = c->dma;
	dp_unlock(&pool->lock, flags);
	dp_chunk_drain(&pool->geo, pool->dev, va, dma);
	return true;
}

size_t dp_supply_release(struct dmapool *pool, struct dp_chunk *list,
			 bool from_free)
{
	struct dp_chunk *c, *next;
	size_t n = 0;

	for (c = list; c; c = next) {
		next = c->pnext;
		c->pnext = NULL;
		n += release_one(pool, c, from_free);
	}
	return n;
}

size_t dp_supply_run_pending(struct dmapool *pool)
{
	struct dp_chunk *list;
	unsigned long flags;

	if (!DP_READ_ONCE(pool->pending) && !DP_READ_ONCE(pool->dead))
		return 0;
	flags = dp_lock(&pool->lock);
	list = pool->pending;
	DP_WRITE_ONCE(pool->pending, NULL);
	purge(pool, 0, &flags);
	dp_unlock(&pool->lock, flags);
	return dp_supply_release(pool, list, false);
}

/* ---- growth ------------------------------------------------------------- */

struct dp_chunk *dp_supply_grow(struct dmapool *pool, dmapool_gfp_t gfp)
{
	struct dp_index *ix = &pool->index;
	unsigned long flags;
	struct dp_chunk *c;

	/*
	 * Releases go back to the device only where the caller may block:
	 * the kernel frees DMA memory in process context only (an atomic
	 * grow leaves them to the pool's work item).
	 */
	if (!DP_HAVE_WORK || dp_os_gfp_may_block(gfp))
		dp_supply_run_pending(pool);
	dp_rcu_reclaim();
	flags = dp_lock(&pool->lock);
	c = record_get(pool, gfp, &flags);
	dp_unlock(&pool->lock, flags);
	if (!c)
		return NULL;
	if (dp_chunk_fill(&pool->geo, pool->dev, c, pool->full_map, gfp)) {
		flags = dp_lock(&pool->lock);
		retire(pool, c);
		dp_unlock(&pool->lock, flags);
		return NULL;
	}
	flags = dp_lock(&pool->lock);
	/*
	 * No cleared entry may be left that has this chunk's start (the
	 * backend may hand out memory a release just gave back), and the
	 * index gets the insert's nodes and one removal's, for the free that
	 * empties the chunk.  Both drop the lock to allocate, and another
	 * context's insert meanwhile may change what this one needs (a new
	 * root far away): counted again under the lock that the insert holds.
	 */
	for (;;) {
		u32 need = ix->ops->nodes_needed(ix, c->vaddr,
						      pool->geo.chunk_size) +
				remove_need(ix);

		if (!pool->dead && ix->nspare >= need &&
		    !(ix->ops->table_needed &&
		      ix->ops->table_needed(ix, pool->geo.chunk_size)))
			break;
		if (!purge(pool, gfp, &flags) ||
		    (ix->nspare < need && !stock(pool, need, gfp, &flags)) ||
		    !table(pool, gfp, &flags)) {
			dp_unlock(&pool->lock, flags);
			dp_chunk_drain(&pool->geo, pool->dev, c->vaddr, c->dma);
			flags = dp_lock(&pool->lock);
			retire(pool, c);
			dp_unlock(&pool->lock, flags);
			return NULL;
		}
	}
	ix->ops->insert(ix, c->vaddr, pool->geo.chunk_size, c);
	DP_WRITE_ONCE(c->live, 1);
	pool->nchunks++;
	dp_unlock(&pool->lock, flags);
	return c;
}

/* ---- destroy ------------------------------------------------------------ */

u64 dp_supply_fini(struct dmapool *pool)
{
	struct dp_slot_tab *t = pool->slot_tab, *older;
	u64 busy = 0;
	u32 id;

	for (id = 1; id < pool->nslots; id++) {
		struct dp_chunk *c = dp_slot_record(pool, id);
		u32 n;

		if (!c || c == &dp_chunk_none)
			continue;
		if (c->live) {
			n = dp_chunk_allocated(&pool->geo, c, NULL);
			busy += n;
			/* A device may still be using a busy chunk: keep it. */
			if (!n)
				dp_chunk_drain(&pool->geo, pool->dev, c->vaddr,
					       c->dma);
		}
		dp_chunk_record_free(&pool->geo, c);
	}
	for (; t && t != &no_slots; t = older) {
		older = t->older;
		dp_os_host_free(t, tab_bytes(t->cap));
	}
	dp_supply_init(pool);
	return busy;
}
