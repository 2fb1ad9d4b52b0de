// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The registry of live pools, so a free to the wrong pool can be told apart
 * from a free of an address no pool knows.  Only error paths search it.
 * Lock order: the global lock, then a pool's lock.
 */
#include "report.h"

static struct dmapool *pools;

void dp_registry_add(struct dmapool *pool)
{
	unsigned long f = dp_global_lock();

	pool->reg_prev = NULL;
	pool->reg_next = pools;
	if (pools)
		pools->reg_prev = pool;
	pools = pool;
	dp_global_unlock(f);
}

void dp_registry_del(struct dmapool *pool)
{
	unsigned long f = dp_global_lock();

	if (pool->reg_prev)
		pool->reg_prev->reg_next = pool->reg_next;
	else
		pools = pool->reg_next;
	if (pool->reg_next)
		pool->reg_next->reg_prev = pool->reg_prev;
	pool->reg_next = NULL;
	pool->reg_prev = NULL;
	dp_global_unlock(f);
}

bool dp_registry_owner(const struct dmapool *self, const void *addr,
		       char name[32])
{
	const uintptr_t va = (uintptr_t)addr;
	unsigned long f = dp_global_lock();
	struct dmapool *p;
	bool found = false;

	dp_rcu_read_lock();
	for (p = pools; p && !found; p = p->reg_next) {
		struct dp_chunk *c;

		if (p == self)
			continue;
		c = dp_index_lookup_rcu(&p->index, va);
		found = c && DP_READ_ONCE(c->live) &&
			va - DP_READ_ONCE(c->vaddr) < p->geo.chunk_size;
		if (found)
			dp_os_strscpy(name, p->name, 32);
	}
	dp_rcu_read_unlock();
	dp_global_unlock(f);
	return found;
}
