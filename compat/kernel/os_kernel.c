// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Kernel side of the seam, out of line: the global lock, the per-CPU owner
 * objects, the work item runner, DMA chunks on a struct device, the default
 * report sink, and host frees that must not happen in the caller's
 * context.
 *
 * Deferred host frees.  The caller of a free may be atomic (dma_pool_free()
 * in an interrupt or under the driver's spinlock) and the core may free host
 * memory there (an RCU callback runs in softirq, too): vfree() may sleep.
 * A vmalloc'd area goes onto a lock-free list drained by a work item,
 * linked through its own first bytes (every host allocation of the core is
 * at least 16 bytes): deferring allocates nothing.
 *
 * DMA chunks are never freed in atomic context: the core releases the
 * chunks a free emptied from its pool's work item (dp_work_*), and growth,
 * shrink and destroy run where they may sleep.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/export.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/printk.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "dmapool_os_impl.h"
#include "dmapool_kernel_priv.h"

static DEFINE_SPINLOCK(dp_global);

unsigned long dp_global_lock(void)
{
	unsigned long flags;

	spin_lock_irqsave(&dp_global, flags);
	return flags;
}

void dp_global_unlock(unsigned long flags)
{
	spin_unlock_irqrestore(&dp_global, flags);
}

/* ---- deferred host frees ------------------------------------------- */

static LLIST_HEAD(dp_vfree_list);

static void dp_deferred_fn(struct work_struct *work)
{
	struct llist_node *n, *next;

	llist_for_each_safe(n, next, llist_del_all(&dp_vfree_list))
		vfree(n);
}

static DECLARE_WORK(dp_deferred_work, dp_deferred_fn);

void dp_os_host_free(void *p, size_t n)
{
	if (!p)
		return;
	if (likely(!is_vmalloc_addr(p))) {
		kfree(p);
		return;
	}
	/*
	 * preemptible() is 0 whenever the kernel cannot tell: then defer.
	 * Under a PREEMPT_RT spinlock or local lock (the pool lock, a pin)
	 * the task is preemptible but inside an RCU read section, where
	 * vfree() must not sleep either.
	 */
	if (preemptible() && !rcu_preempt_depth()) {
		vfree(p);
		return;
	}
	BUILD_BUG_ON(sizeof(struct llist_node) > 16);
	llist_add((struct llist_node *)p, &dp_vfree_list);
	schedule_work(&dp_deferred_work);
}

/* ---- RCU, owners, work ---------------------------------------------- */

static void dp_rcu_cb(struct rcu_head *rcu)
{
	struct dp_rcu_head *head = container_of(rcu, struct dp_rcu_head, rcu);

	head->fn(head);
}

void dp_call_rcu(struct dp_rcu_head *head, void (*fn)(struct dp_rcu_head *))
{
	head->fn = fn;
	call_rcu(&head->rcu, dp_rcu_cb);
}

/*
 * Grace-period cookies (records of released chunks wait for one before
 * they describe a new chunk).  start_poll_synchronize_rcu() takes the
 * snapshot and asks RCU for the grace period it needs, but it must run
 * with interrupts on (it may wake RCU's kthread), and the core takes
 * cookies under the pool lock.  There the snapshot is taken alone and a
 * work item asks for the grace period: it runs after the snapshot, so the
 * grace period it asks for covers the cookie (a pending run too; a running
 * one is queued again).  Otherwise the grace period would start only when
 * something else needed one, and a growing pool would wait for all of it.
 */
static void dp_gp_kick_fn(struct work_struct *work)
{
	start_poll_synchronize_rcu();
}

static DECLARE_WORK(dp_gp_kick, dp_gp_kick_fn);

unsigned long dp_rcu_gp_cookie(void)
{
	unsigned long cookie;

	if (!irqs_disabled())
		return start_poll_synchronize_rcu();
	cookie = get_state_synchronize_rcu();
	schedule_work(&dp_gp_kick);
	return cookie;
}

/* Module unload: no work item of this module may be left. */
void dp_kernel_flush_deferred(void)
{
	flush_work(&dp_deferred_work);
	flush_work(&dp_gp_kick);
}

/*
 * A CPU's heap lives as long as its pool: the exit callback (a context
 * going away) never runs in the kernel, and an offline CPU keeps its heap
 * for when it comes back.
 */
int dp_owners_init(struct dp_owners *o, void (*exit)(void *heap, void *arg),
		   void *arg)
{
	int cpu;

	/* One per possible CPU, without a heap yet. */
	o->pcpu = alloc_percpu(struct dp_owner_cpu);
	if (!o->pcpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		local_lock_init(&per_cpu_ptr(o->pcpu, cpu)->lock);
		per_cpu_ptr(o->pcpu, cpu)->heap = DP_NO_HEAP;
	}
	return 0;
}

/* The heaps are the core's to free; only the per-CPU objects go here. */
void dp_owners_fini(struct dp_owners *o)
{
	free_percpu(o->pcpu);
	o->pcpu = NULL;
}

void dp_work_run(struct work_struct *work)
{
	struct dp_work *w = container_of(work, struct dp_work, work);

	w->fn(w);
}

/* ---- DMA chunks ----------------------------------------------------- */

int dp_os_chunk_alloc(struct dmapool_dev *dev, size_t size, size_t align,
		      dmapool_gfp_t gfp, void **vaddr, dmapool_dma_t *dma)
{
	dma_addr_t handle;
	void *v;

	/*
	 * dma_alloc_coherent() aligns both addresses to the allocation's
	 * power-of-two order; the core asks for no more than that and checks
	 * what it gets.
	 */
	v = dma_alloc_coherent(dmapool_kdev_of(dev), size, &handle,
			       dp_kgfp(gfp));
	if (!v)
		return -ENOMEM;
	*vaddr = v;
	*dma = handle;
	return 0;
}

void dp_os_chunk_free(struct dmapool_dev *dev, size_t size, void *vaddr,
		      dmapool_dma_t dma)
{
	/*
	 * Process context only (os.h): a free that empties a chunk leaves it
	 * to the pool's work item.  Anything else is a bug in the core.
	 */
	WARN_ONCE(irqs_disabled() || in_interrupt(),
		  "dmapool: DMA chunk freed in atomic context\n");
	dma_free_coherent(dmapool_kdev_of(dev), size, vaddr, (dma_addr_t)dma);
}

void dp_os_dev_get(struct dmapool_dev *dev)
{
	get_device(dmapool_kdev_of(dev));
}

void dp_os_dev_put(struct dmapool_dev *dev)
{
	put_device(dmapool_kdev_of(dev));
}

/* ---- reports -------------------------------------------------------- */

void dp_os_report_default(const struct dmapool_report *r)
{
	char found[3 * sizeof(r->found) + 1];
	unsigned int i, n = 0;

	found[0] = '\0';
	for (i = 0; i < r->found_len && i < sizeof(r->found); i++)
		n += scnprintf(found + n, sizeof(found) - n, " %02x",
			       r->found[i]);
	/* %p hashes addresses, as the kernel's own dma_pool messages do. */
	pr_err_ratelimited("dmapool: %s: pool \"%s\": addr %p dma %pad block %p (dma %pad) +%zu%s%s%s%s count %llu: %s\n",
			   dmapool_report_kind_name(r->kind), r->pool_name,
			   r->addr, &r->dma, r->block, &r->block_dma, r->offset,
			   r->found_len ? " found" : "", found,
			   r->owner_name ? " owner " : "",
			   r->owner_name ? r->owner_name : "",
			   (unsigned long long)r->count,
			   r->detail ? r->detail : "");
}
