// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * dmapool: a hardened DMA pool allocator.
 *
 * A pool hands out fixed-size blocks carved from chunks of DMA memory, like
 * the kernel's dma_pool, but none of its state lives in that memory: each
 * chunk is described by a host-memory record (chunk.h) with a free map and
 * a state word per block (block.h); every context that allocates has a heap
 * of chunks of its own (heap.h), so threads (CPUs in the kernel) allocate
 * and free their own blocks without a lock or a shared cache line; an index
 * maps an address back to its chunk for dmapool_free() (index.h), and a
 * handle names slot, block and generation for dmapool_free_handle()
 * (handle.c).  A device that writes anywhere in pool memory therefore
 * changes data, never the allocator's decisions, and every free is checked
 * against the allocator's own records before anything changes.  The price
 * of out-of-line state is a lookup on free (a radix tree over page frames:
 * a few loads); what it buys is that alloc and free never touch block
 * memory, and that a free races nothing but one atomic on a word of its
 * own.  Options add steps to one slow path per direction (alloc.c,
 * free.c); dp_pool_paths() below decides, once, which paths a pool takes.
 *
 * This file: creating, destroying and describing pools; quiesce; shrink.
 */
#include "datapath.h"

#define DP_SUPPORTED_FLAGS	(DMAPOOL_OPT_ABORT_ON_VIOLATION | \
				 DMAPOOL_OPT_THREAD_CACHE | \
				 DMAPOOL_OPT_AUTO_SHRINK | \
				 DMAPOOL_OPT_POISON | DMAPOOL_OPT_QUARANTINE | \
				 DMAPOOL_OPT_SCRUB | DMAPOOL_OPT_RANDOM | \
				 DMAPOOL_OPT_SHARED | \
				 DMAPOOL_OPT_POISON_SAMPLED)

void dmapool_opts_init(struct dmapool_opts *o)
{
	dp_os_memset(o, 0, sizeof(*o));
	o->index = DMAPOOL_INDEX_HASH;
}
EXPORT_SYMBOL(dmapool_opts_init);

/*
 * Options this build left out (a kernel tree's Kconfig: os.h's DP_HAVE_*):
 * refused by name, with EOPNOTSUPP, never silently ignored.
 */
static const char *compiled_out(const struct dmapool_opts *o)
{
	static const struct {
		unsigned int flag;
		const char *why;
	} harden[] = {
		{ DMAPOOL_OPT_POISON, "DMAPOOL_OPT_POISON is compiled out" },
		{ DMAPOOL_OPT_POISON_SAMPLED,
		  "DMAPOOL_OPT_POISON_SAMPLED is compiled out" },
		{ DMAPOOL_OPT_QUARANTINE, "DMAPOOL_OPT_QUARANTINE is compiled out" },
		{ DMAPOOL_OPT_SCRUB, "DMAPOOL_OPT_SCRUB is compiled out" },
		{ DMAPOOL_OPT_RANDOM, "DMAPOOL_OPT_RANDOM is compiled out" },
	};
	unsigned int i;

	if (!DP_HAVE_BTREE && o->index == DMAPOOL_INDEX_BTREE)
		return "the B-tree index is compiled out";
	if (DP_HAVE_HARDEN)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(harden); i++)
		if (o->flags & harden[i].flag)
			return harden[i].why;
	return o->redzone ? "redzones are compiled out" : NULL;
}

static const char *check_opts(const struct dmapool_opts *o)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(o->reserved); i++)
		if (o->reserved[i])
			return "reserved option fields must be zero";
	if (o->reserved32)
		return "reserved option fields must be zero";
	if (o->flags & ~DP_SUPPORTED_FLAGS)
		return "unknown option flags";
	if (o->index != DMAPOOL_INDEX_RADIX && o->index != DMAPOOL_INDEX_BTREE &&
	    o->index != DMAPOOL_INDEX_HASH)
		return "unknown index kind";
	return dp_harden_check_opts(o);
}

/*
 * What an owner's free does after its claim (dp_free_owner_steps(), which
 * calls the kind's entry of dp_free_kinds[]).  Only the fast paths come
 * there, and only for one-segment chunks: the special kinds are for those.
 */
static u8 free_kind(const struct dmapool *pool)
{
	const u32 bytes = pool->steps & (DP_STEP_AUTO_SHRINK | DP_STEP_POISON |
					 DP_STEP_SCRUB | DP_STEP_REDZONE |
					 DP_STEP_SAMPLED);

	if (!bytes)
		return (pool->steps & DP_STEP_QUARANTINE) ? DP_FREE_QUARANTINE :
							    DP_FREE_REUSE;
	if (!pool->geo.fast_n)
		return DP_FREE_STEPS;
	if (bytes == DP_STEP_SAMPLED &&
	    !(pool->steps & (DP_STEP_QUARANTINE | DP_STEP_SHARED)) &&
	    pool->geo.size >= DP_POISON_HEAD)
		return DP_FREE_HEAD;
	if (bytes == DP_STEP_REDZONE && pool->redzone == 16 &&
	    !(pool->steps & DP_STEP_QUARANTINE))
		return DP_FREE_REDZONE16;
	return DP_FREE_STEPS;
}

/*
 * The one place that decides a pool's paths: which steps its slow paths
 * take, and whether its allocations and frees may take the fast paths.
 */
static void dp_pool_paths(struct dmapool *pool, const struct dmapool_opts *o)
{
	dp_harden_init(pool, o);
	if (o->flags & DMAPOOL_OPT_AUTO_SHRINK)
		pool->steps |= DP_STEP_AUTO_SHRINK;
	if (o->flags & DMAPOOL_OPT_SHARED)
		pool->steps |= DP_STEP_SHARED;
	/* The fast path's offset arithmetic is for one-segment chunks. */
	pool->fast_alloc = !(pool->steps & DP_STEPS_ALLOC_SLOW) &&
			   pool->geo.fast_recip;
	/* Byte checks only: the staged word, then the checks. */
	pool->alloc_stepped = (pool->steps & DP_STEPS_ALLOC_SLOW) &&
			      !(pool->steps & (DP_STEP_RANDOM |
					       DP_STEP_SHARED));
	/* Random placement (with byte checks or not): its own draw. */
	pool->alloc_random = (pool->steps & DP_STEP_RANDOM) &&
			     !(pool->steps & DP_STEP_SHARED);
	pool->fast_free = !(pool->steps & DP_STEPS_FREE_SLOW) &&
			  pool->index.ops == &dp_hash_ops && pool->geo.fast_n;
	/*
	 * The magazine hands back the most recent free first: not for random
	 * placement, and automatic shrink looks for empty chunks in the maps.
	 */
	pool->mag = !(pool->steps & (DP_STEP_RANDOM | DP_STEP_AUTO_SHRINK));
	pool->free_steps_out =
		(pool->steps & (DP_STEP_AUTO_SHRINK | DP_STEP_POISON |
				DP_STEP_SCRUB)) ||
		((pool->steps & DP_STEP_REDZONE) && pool->redzone != 16) ||
		((pool->steps & DP_STEP_SAMPLED) &&
		 pool->geo.size < DP_POISON_HEAD);
	pool->free_kind = free_kind(pool);
	pool->free_steps = &dp_free_kinds[pool->free_kind];
	/* One-segment chunks (their offsets are pos * stride). */
	pool->alloc_head = (pool->steps & DP_STEP_SAMPLED) &&
			   !(pool->steps & DP_STEP_POISON) &&
			   pool->geo.size >= DP_POISON_HEAD &&
			   pool->geo.fast_recip;
	/* Handles need no index: only the geometry counts. */
	pool->hnbits = pool->geo.fast_n ? pool->geo.nbits : 0;
}

/* The index's granule: what every chunk is aligned to and a multiple of. */
static u32 grain_shift(const struct dp_geometry *g)
{
	u32 s = 0;

	while (((size_t)2 << s) <= g->chunk_align)
		s++;
	return s;
}

static void pool_free(struct dmapool *pool)
{
	struct dp_heap *h, *next;

	for (h = pool->heaps; h; h = next) {
		next = h->pnext;
		dp_heap_ring_free(h);
		dp_os_host_free(h, sizeof(*h));
	}
	dp_heap_ring_free(&pool->shared);
	dp_index_fini(&pool->index);
	if (pool->full_map)
		dp_full_map_free(&pool->geo, pool->full_map);
	dp_lock_fini(&pool->lock);
	dp_os_host_free(pool, sizeof(*pool));
}

static void release_pending_work(struct dp_work *w)
{
	dp_supply_run_pending(DP_CONTAINER_OF(w, struct dmapool, work));
}

struct dmapool *dmapool_create_opts(const char *name, struct dmapool_dev *dev,
				    size_t size, size_t align, size_t boundary,
				    const struct dmapool_opts *opts)
{
	struct dmapool_opts defaults;
	struct dp_geometry geo;
	struct dmapool *pool;
	const char *why;
	int err = DP_EINVAL;

	if (!opts) {
		dmapool_opts_init(&defaults);
		opts = &defaults;
	}
	why = compiled_out(opts);
	if (why)
		err = DP_EOPNOTSUPP;
	else
		why = check_opts(opts);
	if (!why && !dev)
		why = "no device";
	if (!why)
		why = dp_geometry_init(&geo, size, align, boundary,
				       opts->redzone, opts->chunk_size,
				       dp_os_page_size());
	if (why) {
		dp_report_create(name, opts->report, opts->report_ctx,
				 opts->flags & DMAPOOL_OPT_ABORT_ON_VIOLATION,
				 why);
		dp_os_set_errno(err);
		return NULL;
	}

	pool = dp_os_host_zalloc(sizeof(*pool), 0);
	if (!pool)
		goto oom;
	dp_lock_init(&pool->lock);
	pool->geo = geo;
	dp_index_init(&pool->index, opts->index, grain_shift(&geo));
	/* Before any reader: lock-free lookups read it plainly. */
	pool->index.hash.len = geo.chunk_size;
	dp_pool_paths(pool, opts);
	pool->flags = opts->flags;
	pool->reserve = opts->reserve_chunks;
	pool->report = opts->report;
	pool->report_ctx = opts->report_ctx;
	dp_os_strscpy(pool->name, name ? name : "", sizeof(pool->name));
	pool->dev = dev;
	dp_work_init(&pool->work, release_pending_work);
	dp_supply_init(pool);
	dp_heap_init(&pool->shared, pool, DP_OWNER_SHARED);
	pool->full_map = dp_full_map_new(&pool->geo);
	if (!pool->full_map || dp_heap_ring_alloc(&pool->shared, 0))
		goto oom_pool;
	if (dp_owners_init(&pool->owners, dp_heap_orphan, pool))
		goto oom_pool;
	dp_os_dev_get(dev);
	dp_registry_add(pool);
	return pool;

oom_pool:
	pool_free(pool);
oom:
	dp_os_set_errno(DP_ENOMEM);
	return NULL;
}
EXPORT_SYMBOL(dmapool_create_opts);

struct dmapool *dmapool_create(const char *name, struct dmapool_dev *dev,
			       size_t size, size_t align, size_t boundary)
{
	return dmapool_create_opts(name, dev, size, align, boundary, NULL);
}
EXPORT_SYMBOL(dmapool_create);

/* ---- reading the records ------------------------------------------------ */

/* Blocks allocated now, over every live chunk; lock held. */
static u64 in_use(struct dmapool *pool, u64 *pending)
{
	u64 n = 0;
	u32 id;

	*pending = 0;
	for (id = 1; id < pool->nslots; id++) {
		struct dp_chunk *c = dp_slot_record(pool, id);

		if (c && c->live)
			n += dp_chunk_allocated(&pool->geo, c, pending);
	}
	return n;
}

void dmapool_destroy(struct dmapool *pool)
{
	struct dp_pending p;
	u64 busy, pending;
	unsigned long flags;

	if (!pool)
		return;
	dp_registry_del(pool);
	dp_work_flush(&pool->work);
	dp_owners_fini(&pool->owners);
	flags = dp_lock(&pool->lock);
	pool->dying = true;
	busy = in_use(pool, &pending);
	dp_unlock(&pool->lock, flags);
	/* Blocks still allocated stay where the device may be using them. */
	if (busy) {
		dp_report_fill(pool, &p, DMAPOOL_R_DESTROY_BUSY, NULL, 0,
			       "destroyed with blocks still allocated: their chunks are kept, not returned to the backend");
		p.r.count = busy;
		dp_report_deliver(pool, &p);
	}
	dp_supply_fini(pool);
	/*
	 * B-tree nodes retired earlier: their callbacks need nothing of us,
	 * but userspace runs them only when asked.
	 */
	dp_rcu_reclaim();
	dp_os_dev_put(pool->dev);
	pool_free(pool);
}
EXPORT_SYMBOL(dmapool_destroy);

static u64 heap_bytes(const struct dp_heap *h)
{
	return h->q.ring ? h->q.max * sizeof(*h->q.ring) : 0;
}

static void get_stats(struct dmapool *pool, struct dmapool_stats *st)
{
	const struct dp_geometry *g = &pool->geo;
	u64 heaps = 0, rings = 0, pending;
	struct dp_heap *h;
	unsigned long flags;
	u32 k;

	dp_os_memset(st, 0, sizeof(*st));
	flags = dp_lock(&pool->lock);
	st->blocks_in_use = in_use(pool, &pending);
	st->blocks_cached = pending;
	for (h = &pool->shared; h; h = h == &pool->shared ? pool->heaps :
							      h->pnext) {
		st->quarantined += DP_READ_ONCE(h->q.count);
		st->quarantine_forced += DP_READ_ONCE(h->q.forced);
		rings += heap_bytes(h);
		heaps += h != &pool->shared;
	}
	st->chunks_released = pool->chunks_released;
	st->chunks = pool->nchunks;
	st->blocks_total = pool->nchunks * g->blocks;
	st->dma_bytes = pool->nchunks * g->chunk_size;
	st->meta_bytes = sizeof(*pool) + g->nwords * sizeof(u64) +
			 /* Slot 0 names nothing: no record. */
			 (u64)(pool->nslots - 1) *
				 (dp_chunk_meta_size(g) + sizeof(void *)) +
			 heaps * sizeof(struct dp_heap) + rings +
			 dp_index_meta_bytes(&pool->index);
	dp_unlock(&pool->lock, flags);
	st->violations = dp_os_atomic_read(&pool->violations);
	for (k = 0; k < DMAPOOL_R_KINDS; k++)
		st->by_kind[k] = dp_os_atomic_read(&pool->by_kind[k]);
	st->block_size = g->size;
	st->stride = g->stride;
	st->chunk_size = g->chunk_size;
	st->blocks_per_chunk = g->blocks;
}

void dmapool_get_stats_size(const struct dmapool *pool,
			    struct dmapool_stats *st, size_t size)
{
	struct dmapool_stats full;

	if (!st)
		return;
	dp_os_memset(&full, 0, sizeof(full));
	/* The lock is the only thing a reader changes. */
	if (pool)
		get_stats((struct dmapool *)pool, &full);
	if (size > sizeof(full)) {
		dp_os_memset((char *)st + sizeof(full), 0, size - sizeof(full));
		size = sizeof(full);
	}
	dp_os_memcpy(st, &full, size);
}
EXPORT_SYMBOL(dmapool_get_stats_size);

unsigned int dmapool_version(void)
{
	return DMAPOOL_VERSION;
}
EXPORT_SYMBOL(dmapool_version);

void dmapool_walk_chunks(const struct dmapool *cpool, dmapool_chunk_fn fn,
			 void *ctx)
{
	struct dmapool *pool = (struct dmapool *)cpool;
	unsigned long flags;
	u32 id;

	if (!pool)
		return;
	flags = dp_lock(&pool->lock);
	for (id = 1; id < pool->nslots; id++) {
		struct dp_chunk *c = dp_slot_record(pool, id);

		if (c && c->live)
			fn((void *)c->vaddr, c->dma, pool->geo.chunk_size, ctx);
	}
	dp_unlock(&pool->lock, flags);
}
EXPORT_SYMBOL(dmapool_walk_chunks);

/* ---- quiesce and shrink ------------------------------------------------- */

static void quiesce_null(void)
{
	dp_report_global(DMAPOOL_R_NULL_POOL, NULL, 0,
			 "dmapool_quiesce called with a NULL pool");
}

static void shrink_null(void)
{
	dp_report_global(DMAPOOL_R_NULL_POOL, NULL, 0,
			 "dmapool_shrink called with a NULL pool");
}

void dmapool_quiesce(struct dmapool *pool)
{
	struct dp_chunk *release = NULL;
	struct dp_heap *h;
	unsigned long flags;
	unsigned long pin;

	if (DP_UNLIKELY(!pool)) {
		quiesce_null();
		return;
	}
	if (!(pool->steps & DP_STEP_QUARANTINE))
		return;
	/* Every block queued so far is older than the new epoch. */
	DP_FETCH_ADD(&pool->qepoch, 1);
	dp_owner_pin(&pool->owners, &pin);
	h = dp_owner_heap(&pool->owners);
	if (h)
		dp_heap_quiesce(h, false, &release);
	dp_owner_unpin(&pool->owners, pin);
	/*
	 * The heaps no context owns; other contexts' heaps release theirs at
	 * their next free or refill.
	 */
	flags = dp_lock(&pool->lock);
	dp_heap_quiesce(&pool->shared, false, &release);
	for (h = pool->orphans; h; h = h->onext)
		dp_heap_quiesce(h, false, &release);
	dp_unlock(&pool->lock, flags);
	dp_supply_release(pool, release, false);
}
EXPORT_SYMBOL(dmapool_quiesce);

static struct dp_chunk *join(struct dp_chunk *a, struct dp_chunk *b)
{
	struct dp_chunk *c = a;

	if (!a)
		return b;
	while (c->pnext)
		c = c->pnext;
	c->pnext = b;
	return a;
}

size_t dmapool_shrink(struct dmapool *pool)
{
	struct dp_chunk *release = NULL, *list = NULL;
	size_t keep, n;
	struct dp_heap *h;
	unsigned long flags;
	unsigned long pin;

	if (!pool) {
		shrink_null();
		return 0;
	}
	keep = pool->reserve;
	/* The caller's heap: blocks freed to it elsewhere come back first. */
	dp_owner_pin(&pool->owners, &pin);
	h = dp_owner_heap(&pool->owners);
	if (h) {
		dp_heap_refill(h, &release);
		list = dp_heap_detach_empty(h, &keep);
	}
	dp_owner_unpin(&pool->owners, pin);
	/* The heaps no context owns are the lock holder's. */
	flags = dp_lock(&pool->lock);
	dp_heap_refill(&pool->shared, &release);
	list = join(list, dp_heap_detach_empty(&pool->shared, &keep));
	for (h = pool->orphans; h; h = h->onext) {
		dp_heap_refill(h, &release);
		list = join(list, dp_heap_detach_empty(h, &keep));
	}
	dp_unlock(&pool->lock, flags);
	list = join(list, release);
	n = dp_supply_run_pending(pool);
	n += dp_supply_release(pool, list, false);
	dp_rcu_reclaim();
	return n;
}
EXPORT_SYMBOL(dmapool_shrink);
