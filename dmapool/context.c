// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Contexts: where a slow path runs.  A context (a thread in userspace, a
 * CPU in the kernel) enters its own heap of the pool, pinned, creating one
 * or adopting the heap an exited thread left (an orphan); a context that
 * cannot have one (a pool with DMAPOOL_OPT_SHARED, a thread that is
 * exiting) uses the pool's shared heap under the pool lock.
 */
#include "datapath.h"

static struct dp_heap *heap_new(struct dmapool *pool, dmapool_gfp_t gfp)
{
	struct dp_heap *h = dp_os_host_zalloc(sizeof(*h), gfp);

	if (!h)
		return NULL;
	dp_heap_init(h, pool, DP_OWNER_ORPHAN);
	if (dp_heap_ring_alloc(h, gfp)) {
		dp_os_host_free(h, sizeof(*h));
		return NULL;
	}
	return h;
}

/* An orphan, made this context's; pinned, lock not held. */
static struct dp_heap *adopt(struct dmapool *pool, uintptr_t tok)
{
	struct dp_heap *h;
	unsigned long flags;

	if (!DP_READ_ONCE(pool->orphans))
		return NULL;
	flags = dp_lock(&pool->lock);
	h = pool->orphans;
	if (h) {
		DP_WRITE_ONCE(pool->orphans, h->onext);
		h->onext = NULL;
		dp_heap_set_owner(h, tok, NULL);
	}
	dp_unlock(&pool->lock, flags);
	return h;
}

/*
 * @h (linked in the pool) goes to the orphans: the pool lock owns it now,
 * and frees of its blocks take that lock instead of the remote path.  What
 * other contexts freed to it until now comes back first.
 */
static void orphan(struct dmapool *pool, struct dp_heap *h)
{
	struct dp_chunk *release = NULL;
	unsigned long flags = dp_lock(&pool->lock);

	dp_heap_set_owner(h, DP_OWNER_ORPHAN, &release);
	dp_heap_refill(h, &release);
	h->onext = pool->orphans;
	DP_WRITE_ONCE(pool->orphans, h);
	dp_unlock(&pool->lock, flags);
	dp_supply_release(pool, release, true);
}

void dp_heap_orphan(void *heap, void *arg)
{
	orphan(arg, heap);
}

/* This context has no heap in @pool: find or make one; pinned on return. */
static struct dp_heap *heap_create(struct dmapool *pool, dmapool_gfp_t gfp,
				   struct dp_ctx *x)
{
	struct dp_heap *h = adopt(pool, x->tok), *fresh;
	unsigned long flags;

	if (!h) {
		dp_owner_unpin(&pool->owners, x->pin);
		fresh = heap_new(pool, gfp);
		x->tok = dp_owner_pin(&pool->owners, &x->pin);
		/* Another CPU now, or an interrupt made one meanwhile. */
		h = dp_owner_heap(&pool->owners);
		if (h || !fresh) {
			if (fresh) {
				dp_heap_ring_free(fresh);
				dp_os_host_free(fresh, sizeof(*fresh));
			}
			return h;
		}
		h = fresh;
		flags = dp_lock(&pool->lock);
		h->pnext = pool->heaps;
		pool->heaps = h;
		dp_heap_set_owner(h, x->tok, NULL);
		dp_unlock(&pool->lock, flags);
	}
	if (!dp_owner_set_heap(&pool->owners, h)) {
		orphan(pool, h);
		return NULL;
	}
	return h;
}

void dp_ctx_enter(struct dmapool *pool, dmapool_gfp_t gfp, struct dp_ctx *x)
{
	x->locked = false;
	x->tok = dp_owner_pin(&pool->owners, &x->pin);
	if (!(pool->steps & DP_STEP_SHARED)) {
		x->h = dp_owner_heap(&pool->owners);
		if (!x->h)
			x->h = heap_create(pool, gfp, x);
		if (x->h)
			return;
	}
	dp_owner_unpin(&pool->owners, x->pin);
	x->flags = dp_lock(&pool->lock);
	x->locked = true;
	x->h = &pool->shared;
}

void dp_ctx_exit(struct dmapool *pool, struct dp_ctx *x)
{
	if (x->locked)
		dp_unlock(&pool->lock, x->flags);
	else
		dp_owner_unpin(&pool->owners, x->pin);
}
