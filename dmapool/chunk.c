// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Chunk lifecycle: take DMA memory from the backend, describe it in host
 * memory, make it known to the pool (index, handle slot), give it back.
 */
#include "pool.h"

void dp_chunk_init_map(struct dp_chunk *c, const struct dp_geometry *g)
{
	uint32_t pos;

	dp_os_memset(c->map, 0,
		     (1 + g->nwords + g->held_words) * sizeof(uint64_t));
	for (pos = 0; pos < g->nbits; pos++)
		if (dp_geo_valid_position(g, pos))
			dp_chunk_put(c, pos);
	if (g->held_superset)
		dp_os_memcpy(&c->map[1 + g->nwords], &c->map[1],
			     g->nwords * sizeof(uint64_t));
}

struct dp_chunk *dp_chunk_create(struct dmapool *pool, dmapool_gfp_t gfp)
{
	const struct dp_geometry *g = &pool->geo;
	struct dp_chunk *c;
	void *vaddr = NULL;
	dmapool_dma_t dma = 0;
	uintptr_t va;

	c = dp_os_host_alloc(dp_chunk_meta_size(g), gfp);
	if (!c)
		return NULL;
	if (dp_os_chunk_alloc(pool->dev, g->chunk_size, g->chunk_align, gfp,
			      &vaddr, &dma)) {
		dp_os_host_free(c, dp_chunk_meta_size(g));
		return NULL;
	}
	/*
	 * Invariant 4 rests on the backend's alignment promise and on neither
	 * range wrapping: check them rather than trust them.
	 */
	va = (uintptr_t)vaddr;
	if (DP_WARN_ON(!vaddr || (va & (g->chunk_align - 1)) ||
		       (dma & (g->chunk_align - 1)) ||
		       va > UINTPTR_MAX - g->chunk_size ||
		       dma > UINT64_MAX - g->chunk_size)) {
		if (vaddr)
			dp_os_chunk_free(pool->dev, g->chunk_size, vaddr, dma);
		dp_os_host_free(c, dp_chunk_meta_size(g));
		return NULL;
	}
	c->vaddr = va;
	c->dma = dma;
	c->next = c->prev = NULL;
	c->id = 0;
	c->gen = NULL;
	c->meta_size = dp_chunk_meta_size(g);
	dp_chunk_init_map(c, g);
	if (DP_UNLIKELY(pool->hooks))
		dp_harden_chunk_init(pool, c);
	return c;
}

/*
 * Give a chunk's DMA memory back to the backend.  It is zeroed first: the
 * next owner of that memory (another pool, another driver, a device) must
 * not find what our callers left in it.
 */
static void chunk_release_dma(struct dmapool *pool, struct dp_chunk *c)
{
	dp_os_memset((void *)c->vaddr, 0, pool->geo.chunk_size);
	dp_os_chunk_free(pool->dev, pool->geo.chunk_size, (void *)c->vaddr,
			 c->dma);
}

void dp_chunk_destroy(struct dmapool *pool, struct dp_chunk *c, bool release)
{
	if (release)
		chunk_release_dma(pool, c);
	dp_os_host_free(c, c->meta_size);
}

static void chunk_free_rcu(struct dp_rcu_head *head)
{
	struct dp_chunk *c = DP_CONTAINER_OF(head, struct dp_chunk, rcu);

	dp_os_host_free(c, c->meta_size);
}

void dp_chunk_retire(struct dmapool *pool, struct dp_chunk *c)
{
	chunk_release_dma(pool, c);
	dp_call_rcu(&c->rcu, chunk_free_rcu);
}

size_t dp_gen_bytes(const struct dmapool *pool)
{
	size_t n = pool->geo.nbits * sizeof(uint16_t);

	/* At least a garbage record, so it can be freed from a list. */
	return n < 16 ? 16 : n;
}

void dp_gen_init(struct dmapool *pool, uint16_t *gen)
{
	uint32_t i;

	/* A fresh start per chunk, so a handle into a chunk that was freed
	 * and whose slot was reused is unlikely to match by accident. */
	for (i = 0; i < pool->geo.nbits; i++)
		gen[i] = pool->gen_seed;
	pool->gen_seed += 0x9e37;
}

static uint32_t slot_take(struct dmapool *pool)
{
	uint32_t id;

	if (pool->free_slots) {
		for (id = 0; pool->slots[id].chunk; id++)
			;
		pool->free_slots--;
		return id;
	}
	return pool->nslots++;
}

/* Host memory to free once the lock is dropped, linked through itself. */
struct dp_garbage_rec {
	struct dp_garbage_rec *next;
	size_t size;
};

void dp_garbage_add(struct dp_garbage *gb, void *p, size_t size)
{
	struct dp_garbage_rec *rec = p;

	if (!p)
		return;
	rec->next = gb->list;
	rec->size = size;
	gb->list = rec;
}

void dp_garbage_free(struct dmapool *pool, struct dp_garbage *gb)
{
	struct dp_garbage_rec *rec = gb->list;

	while (rec) {
		struct dp_garbage_rec *next = rec->next;

		dp_os_host_free(rec, rec->size);
		rec = next;
	}
	gb->list = NULL;
	dp_index_free_nodes(&pool->index, gb->nodes);
	gb->nodes = NULL;
}

/* What a chunk attach still lacks, seen under the lock. */
struct dp_want {
	uint32_t nodes;
	uint32_t slot_cap;	/* 0: the slot table is big enough */
	bool gen;
};

static bool want_nothing(const struct dp_want *w)
{
	return !w->nodes && !w->slot_cap && !w->gen;
}

static struct dp_want want_for(struct dmapool *pool, struct dp_chunk *c,
			       uint16_t *gen)
{
	struct dp_index *ix = &pool->index;
	uint32_t need = ix->ops->nodes_needed(ix, c->vaddr, pool->geo.chunk_size);
	struct dp_want w = { 0, 0, false };

	if (need > ix->nspare)
		w.nodes = need - ix->nspare;
	if (!pool->free_slots && pool->nslots == pool->slot_cap)
		w.slot_cap = pool->slot_cap ? pool->slot_cap * 2 : 8;
	w.gen = pool->handles && !gen;
	return w;
}

bool dp_chunk_attach(struct dmapool *pool, struct dp_chunk *c,
		     dmapool_gfp_t gfp, dp_irqflags_t *flags,
		     struct dp_garbage *gb)
{
	struct dp_index *ix = &pool->index;
	uint16_t *gen = NULL;
	struct dp_want w;
	uint32_t id;

	/* Allocate outside the lock until what the lock holder sees is enough. */
	while (w = want_for(pool, c, gen), !want_nothing(&w)) {
		struct dp_slot *slots = NULL;
		void *nodes = NULL;
		bool ok = true;

		dp_unlock(&pool->lock, *flags);
		if (w.nodes) {
			nodes = dp_index_alloc_nodes(ix, w.nodes, gfp);
			ok &= nodes != NULL;
		}
		if (w.slot_cap) {
			slots = dp_os_host_zalloc(w.slot_cap * sizeof(*slots), gfp);
			ok &= slots != NULL;
		}
		if (w.gen) {
			gen = dp_os_host_alloc(dp_gen_bytes(pool), gfp);
			ok &= gen != NULL;
		}
		*flags = dp_lock(&pool->lock);
		dp_index_add_spares(ix, nodes, nodes ? w.nodes : 0);
		if (slots && w.slot_cap > pool->slot_cap) {
			/* The first table has nothing to copy (and memcpy from
			 * NULL is undefined even for 0 bytes). */
			if (pool->nslots)
				dp_os_memcpy(slots, pool->slots,
					     pool->nslots * sizeof(*slots));
			dp_garbage_add(gb, pool->slots,
				       pool->slot_cap * sizeof(*slots));
			pool->slots = slots;
			pool->slot_cap = w.slot_cap;
		} else {
			dp_garbage_add(gb, slots, w.slot_cap * sizeof(*slots));
		}
		if (!ok)
			goto fail;
	}

	id = slot_take(pool);
	c->id = id;
	pool->slots[id].chunk = c;
	c->gen = NULL;
	if (pool->handles) {
		dp_gen_init(pool, gen);
		c->gen = gen;
		gen = NULL;
	}
	ix->ops->insert(ix, c->vaddr, pool->geo.chunk_size, c);
	dp_avail_push(pool, c);
	pool->nchunks++;
	dp_garbage_add(gb, gen, dp_gen_bytes(pool));
	gb->nodes = dp_index_steal_spares(ix);
	return true;

fail:
	dp_garbage_add(gb, gen, dp_gen_bytes(pool));
	gb->nodes = dp_index_steal_spares(ix);
	dp_unlock(&pool->lock, *flags);
	dp_chunk_destroy(pool, c, true);
	*flags = dp_lock(&pool->lock);
	return false;
}
