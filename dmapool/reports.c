// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Reports: every detected problem becomes a struct dmapool_report, counted
 * in its pool and handed to a sink.  A report never changes the pool.
 */
#include "report.h"

static const char *const kind_names[DMAPOOL_R_KINDS] = {
	[DMAPOOL_R_DOUBLE_FREE] = "double-free",
	[DMAPOOL_R_FREE_OUTSIDE] = "free-outside-pool",
	[DMAPOOL_R_FREE_NOT_BLOCK] = "free-not-block-start",
	[DMAPOOL_R_FREE_DMA_MISMATCH] = "free-dma-mismatch",
	[DMAPOOL_R_FREE_WRONG_POOL] = "free-wrong-pool",
	[DMAPOOL_R_STALE_HANDLE] = "stale-handle",
	[DMAPOOL_R_BAD_HANDLE] = "bad-handle",
	[DMAPOOL_R_NULL_POOL] = "null-pool",
	[DMAPOOL_R_BAD_GEOMETRY] = "bad-geometry",
	[DMAPOOL_R_DESTROY_BUSY] = "destroy-busy",
	[DMAPOOL_R_DEVICE_WRITE_AFTER_FREE] = "device-write-after-free",
	[DMAPOOL_R_DEVICE_OVERRUN] = "device-overrun",
};

const char *dmapool_report_kind_name(enum dmapool_report_kind k)
{
	if ((unsigned int)k >= DMAPOOL_R_KINDS || !kind_names[k])
		return "unknown";
	return kind_names[k];
}
EXPORT_SYMBOL(dmapool_report_kind_name);

/* The global sink and the count of reports that have no pool. */
static dmapool_report_fn global_fn;
static void *global_ctx;
static u64 global_violations;

void dmapool_set_report_handler(dmapool_report_fn fn, void *ctx)
{
	unsigned long f = dp_global_lock();

	global_fn = fn;
	global_ctx = ctx;
	dp_global_unlock(f);
}
EXPORT_SYMBOL(dmapool_set_report_handler);

u64 dmapool_global_violations(void)
{
	return dp_os_atomic_read(&global_violations);
}
EXPORT_SYMBOL(dmapool_global_violations);

void dp_report_fill(struct dmapool *pool, struct dp_pending *p,
		    enum dmapool_report_kind kind, const void *addr,
		    dmapool_dma_t dma, const char *detail)
{
	dp_os_memset(p, 0, sizeof(*p));
	p->r.kind = kind;
	p->r.pool = pool;
	p->r.pool_name = pool ? pool->name : "";
	p->r.addr = addr;
	p->r.dma = dma;
	p->r.detail = detail;
}

static void dispatch(dmapool_report_fn fn, void *ctx, bool abort_after,
		     const struct dmapool_report *r)
{
	if (!fn) {
		unsigned long f = dp_global_lock();

		fn = global_fn;
		ctx = global_ctx;
		dp_global_unlock(f);
	}
	if (fn)
		fn(r, ctx);
	else
		dp_os_report_default(r);
	if (abort_after)
		dp_os_violation_abort(r);
}

void dp_report_deliver(struct dmapool *pool, struct dp_pending *p)
{
	dp_os_atomic_inc(&pool->violations);
	dp_os_atomic_inc(&pool->by_kind[p->r.kind]);
	if (p->owner[0])
		p->r.owner_name = p->owner;
	dispatch(pool->report, pool->report_ctx,
		 pool->flags & DMAPOOL_OPT_ABORT_ON_VIOLATION, &p->r);
}

void dp_report_global(enum dmapool_report_kind kind, const void *addr,
		      dmapool_dma_t dma, const char *detail)
{
	struct dp_pending p;

	dp_report_fill(NULL, &p, kind, addr, dma, detail);
	dp_os_atomic_inc(&global_violations);
	dispatch(NULL, NULL, false, &p.r);
}

void dp_report_create(const char *name, dmapool_report_fn sink, void *ctx,
		      bool abort_after, const char *detail)
{
	struct dp_pending p;

	dp_report_fill(NULL, &p, DMAPOOL_R_BAD_GEOMETRY, NULL, 0, detail);
	dp_os_strscpy(p.owner, name ? name : "", sizeof(p.owner));
	p.r.pool_name = p.owner;
	dp_os_atomic_inc(&global_violations);
	dispatch(sink, ctx, abort_after, &p.r);
}

void dp_report_unknown_address(struct dmapool *pool, struct dp_pending *p,
			       const void *addr, dmapool_dma_t dma)
{
	char owner[32];

	if (dp_registry_owner(pool, addr, owner)) {
		dp_report_fill(pool, p, DMAPOOL_R_FREE_WRONG_POOL, addr, dma,
			       "address belongs to another pool");
		dp_os_strscpy(p->owner, owner, sizeof(p->owner));
	} else {
		dp_report_fill(pool, p, DMAPOOL_R_FREE_OUTSIDE, addr, dma,
			       "address is not inside any chunk of this pool");
	}
}

DP_NOINLINE DP_COLD void dp_report_bad_free(struct dmapool *pool,
					    void *vaddr, dmapool_dma_t dma)
{
	const struct dp_geometry *g = &pool->geo;
	const uintptr_t va = (uintptr_t)vaddr;
	struct dp_pending p;
	struct dp_chunk *c;
	uintptr_t base;
	size_t off, seg, in, slot, start;
	u32 pos;

	dp_rcu_read_lock();
	c = dp_index_lookup_rcu(&pool->index, va);
	base = c ? DP_READ_ONCE(c->vaddr) : 0;
	if (!c || !DP_READ_ONCE(c->live) || va - base >= g->chunk_size) {
		dp_rcu_read_unlock();
		dp_report_unknown_address(pool, &p, vaddr, dma);
		dp_report_deliver(pool, &p);
		return;
	}
	off = va - base;
	if (!dp_geo_position(g, off, &pos)) {
		dp_report_fill(pool, &p, DMAPOOL_R_FREE_NOT_BLOCK, vaddr, dma,
			       "address is inside the pool but not at a block start");
		seg = g->one_seg ? 0 : off >> g->seg_shift;
		in = off - (seg << g->seg_shift);
		slot = in / g->stride;
		if (slot < g->per_seg) {
			start = (seg << g->seg_shift) + slot * g->stride;
			p.r.block = (const void *)(base + start);
			p.r.block_dma = c->dma + start;
			p.r.offset = off - start;
		}
	} else if (DP_READ_ONCE(c->dma) + off != dma) {
		dp_report_fill(pool, &p, DMAPOOL_R_FREE_DMA_MISMATCH, vaddr, dma,
			       "dma address does not belong to this block");
		p.r.block = vaddr;
		p.r.block_dma = DP_READ_ONCE(c->dma) + off;
	} else {
		/* Checks pass now: the block was not allocated a moment ago. */
		dp_report_fill(pool, &p, DMAPOOL_R_DOUBLE_FREE, vaddr, dma,
			       "block is not allocated: already freed (it may be waiting in quarantine or for its owner to take it back)");
		p.r.block = vaddr;
		p.r.block_dma = dma;
	}
	dp_rcu_read_unlock();
	dp_report_deliver(pool, &p);
}
