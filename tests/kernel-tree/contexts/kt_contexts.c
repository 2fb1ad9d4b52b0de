// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * kt_contexts: the kernel's dma_pool API used the way drivers use it, from
 * every context, for lockdep, the atomic-sleep checks and DMA-API debug.
 *
 * In a tree where dmapool replaced mm/dmapool.c the dma_pool_* calls here
 * are dmapool's.  The kernel's own dmapool_test allocates and frees in
 * process context only; drivers also allocate with GFP_ATOMIC under their
 * own spinlocks and free descriptors in their interrupt handlers.  Lockdep
 * only judges what it has seen, so this module shows it each of those
 * uses of one pool, and it runs first in the guest: after a KASAN report
 * the kernel turns lock debugging off.
 *
 * On load, on two pools (one with a boundary) and one managed pool:
 *   - process context: GFP_KERNEL growth, dma_pool_zalloc, frees;
 *   - interrupts off under a spinlock: GFP_ATOMIC growth and frees;
 *   - softirq (a timer) and hardirq (a hard irq_work), several rounds
 *     each: GFP_ATOMIC growth, frees, and frees of blocks that process
 *     context allocated (completion-style), while process context keeps
 *     allocating and freeing on the same pools.
 * Every block is checked (alignment and boundary of vaddr and dma) and
 * written.  The pools then stay until rmmod, so the guest can read the
 * device's sysfs "pools" file while they exist and while rmmod destroys
 * them (contexts.sh).  Prints "KT-CONTEXTS: <part> ok|FAIL ..." lines and
 * "KT-CONTEXTS SUMMARY: PASS|FAIL".
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

#include "kt_device.h"

#define KT_PFX		"KT-CONTEXTS: "
#define KT_BLOCKS	96	/* per pool and context: a few chunks' worth */
#define KT_ROUNDS	8	/* timer and irq_work rounds */

struct kt_geo {
	const char *name;
	size_t size, align, boundary;
};

/* Two geometries: plain, and one whose blocks must not cross 4 KiB. */
static const struct kt_geo kt_geos[] = {
	{ "kt-ctx-64", 64, 64, 0 },
	{ "kt-ctx-boundary", 200, 32, 4096 },
};
#define KT_NPOOLS	ARRAY_SIZE(kt_geos)

struct kt_block {
	void *vaddr;
	dma_addr_t dma;
};

/* Blocks one context holds on one pool. */
struct kt_set {
	unsigned int n;
	struct kt_block b[KT_BLOCKS];
};

static struct device *kt_dev;
static struct dma_pool *kt_pools[KT_NPOOLS];
static struct dma_pool *kt_managed;
static atomic_t kt_failures = ATOMIC_INIT(0);

/*
 * Handed from process context to the timer and the irq_work: blocks for
 * them to free (as a completion handler would), and their own scratch.
 */
static struct kt_set kt_handoff[KT_NPOOLS];
static struct kt_set kt_irq_own[KT_NPOOLS];
static struct kt_set kt_proc[KT_NPOOLS];
static DEFINE_SPINLOCK(kt_driver_lock);

static void kt_fail(const char *where, const char *what, unsigned long a)
{
	atomic_inc(&kt_failures);
	pr_err(KT_PFX "FAIL %s: %s (%#lx)\n", where, what, a);
}

/* The block is where the pool's geometry says it may be. */
static bool kt_check(const char *where, const struct kt_geo *g, void *vaddr,
		     dma_addr_t dma)
{
	unsigned long v = (unsigned long)vaddr;

	if (!vaddr) {
		kt_fail(where, "allocation failed", 0);
		return false;
	}
	if ((v & (g->align - 1)) || (dma & (g->align - 1))) {
		kt_fail(where, "misaligned block", v);
		return false;
	}
	if (g->boundary && (v / g->boundary != (v + g->size - 1) / g->boundary ||
			    dma / g->boundary != (dma + g->size - 1) / g->boundary)) {
		kt_fail(where, "block crosses its boundary", v);
		return false;
	}
	memset(vaddr, 0xa5, g->size);
	return true;
}

/* Fill @s up to @n blocks of pool @i with @gfp. */
static void kt_fill(const char *where, unsigned int i, struct kt_set *s,
		    unsigned int n, gfp_t gfp)
{
	while (s->n < n) {
		struct kt_block *b = &s->b[s->n];

		b->vaddr = dma_pool_alloc(kt_pools[i], gfp, &b->dma);
		if (!kt_check(where, &kt_geos[i], b->vaddr, b->dma))
			return;
		s->n++;
	}
}

/* Free all of @s, newest first (drivers free in any order). */
static void kt_drain(unsigned int i, struct kt_set *s)
{
	while (s->n) {
		s->n--;
		dma_pool_free(kt_pools[i], s->b[s->n].vaddr, s->b[s->n].dma);
	}
}

/*
 * What the timer and the irq_work do: handed-over frees, growth, frees;
 * @in_ctx says whether the callback really runs in the context it tests.
 */
static void kt_atomic_round(const char *where, bool in_ctx,
			    struct completion *done)
{
	unsigned int i;

	if (!in_ctx)
		kt_fail(where, "callback not in the expected context", 0);
	for (i = 0; i < KT_NPOOLS; i++) {
		kt_drain(i, &kt_handoff[i]);
		kt_fill(where, i, &kt_irq_own[i], KT_BLOCKS, GFP_ATOMIC);
		kt_drain(i, &kt_irq_own[i]);
	}
	complete(done);
}

static struct timer_list kt_timer;
static struct completion kt_timer_done;

static void kt_timer_fn(struct timer_list *t)
{
	kt_atomic_round("softirq", in_serving_softirq(), &kt_timer_done);
}

static struct irq_work kt_work;
static struct completion kt_work_done;

static void kt_work_fn(struct irq_work *w)
{
	kt_atomic_round("hardirq", in_hardirq(), &kt_work_done);
}

/* Process context keeps working on the pools while an irq round is due. */
static void kt_busy_until(struct completion *done)
{
	unsigned int i;

	while (!try_wait_for_completion(done)) {
		for (i = 0; i < KT_NPOOLS; i++) {
			kt_fill("process", i, &kt_proc[i], KT_BLOCKS / 2,
				GFP_KERNEL);
			kt_drain(i, &kt_proc[i]);
		}
		cond_resched();
	}
}

/* Hand blocks over for the next irq round to free. */
static void kt_handoff_fill(void)
{
	unsigned int i;

	for (i = 0; i < KT_NPOOLS; i++)
		kt_fill("process", i, &kt_handoff[i], KT_BLOCKS / 4,
			GFP_KERNEL);
}

static void kt_part(const char *name, int before)
{
	int now = atomic_read(&kt_failures);

	if (now == before)
		pr_info(KT_PFX "%s ok\n", name);
	else
		pr_err(KT_PFX "%s FAIL (%d failures)\n", name, now - before);
}

static void kt_run(void)
{
	unsigned long flags;
	unsigned int i, r;
	int before;
	void *z;
	dma_addr_t dma;

	/* Process context: growth, zalloc; the blocks stay for a while. */
	before = atomic_read(&kt_failures);
	for (i = 0; i < KT_NPOOLS; i++) {
		kt_fill("process", i, &kt_proc[i], KT_BLOCKS, GFP_KERNEL);
		z = dma_pool_zalloc(kt_pools[i], GFP_KERNEL, &dma);
		if (z && memchr_inv(z, 0, kt_geos[i].size))
			kt_fail("process", "zalloc block not zeroed",
				(unsigned long)z);
		if (kt_check("process", &kt_geos[i], z, dma))
			dma_pool_free(kt_pools[i], z, dma);
	}
	z = dma_pool_alloc(kt_managed, GFP_KERNEL, &dma);
	if (!z)
		kt_fail("process", "managed pool allocation failed", 0);
	else
		dma_pool_free(kt_managed, z, dma);
	kt_part("process", before);

	/*
	 * A driver's submit path: its own lock held, interrupts off; with the
	 * process blocks still held, the pools must grow here.
	 */
	before = atomic_read(&kt_failures);
	spin_lock_irqsave(&kt_driver_lock, flags);
	for (i = 0; i < KT_NPOOLS; i++) {
		kt_fill("irqs-off", i, &kt_irq_own[i], KT_BLOCKS, GFP_ATOMIC);
		kt_drain(i, &kt_irq_own[i]);
	}
	spin_unlock_irqrestore(&kt_driver_lock, flags);
	for (i = 0; i < KT_NPOOLS; i++)
		kt_drain(i, &kt_proc[i]);
	kt_part("irqs-off", before);

	before = atomic_read(&kt_failures);
	for (r = 0; r < KT_ROUNDS; r++) {
		kt_handoff_fill();
		reinit_completion(&kt_timer_done);
		mod_timer(&kt_timer, jiffies + 1);
		kt_busy_until(&kt_timer_done);
	}
	timer_delete_sync(&kt_timer);
	kt_part("softirq", before);

	before = atomic_read(&kt_failures);
	for (r = 0; r < KT_ROUNDS; r++) {
		kt_handoff_fill();
		reinit_completion(&kt_work_done);
		if (!irq_work_queue(&kt_work))
			kt_fail("hardirq", "irq_work already queued", r);
		kt_busy_until(&kt_work_done);
		irq_work_sync(&kt_work);
	}
	kt_part("hardirq", before);
}

static void kt_teardown(void)
{
	unsigned int i;

	for (i = 0; i < KT_NPOOLS; i++) {
		dma_pool_destroy(kt_pools[i]);
		kt_pools[i] = NULL;
	}
	/* Before device_del: a managed pool's sysfs file goes with it. */
	if (kt_managed)
		dmam_pool_destroy(kt_managed);
	kt_managed = NULL;
	if (kt_dev) {
		kt_dev_del(kt_dev);
		kt_dev = NULL;
	}
}

static int __init kt_init(void)
{
	unsigned int i;

	timer_setup(&kt_timer, kt_timer_fn, 0);
	init_completion(&kt_timer_done);
	/* Hard: the callback runs in hardirq context even on PREEMPT_RT. */
	kt_work = IRQ_WORK_INIT_HARD(kt_work_fn);
	init_completion(&kt_work_done);

	kt_dev = kt_dev_new("kt-contexts");
	if (!kt_dev) {
		pr_err(KT_PFX "FAIL setup: cannot register the test device\n");
		return -ENODEV;
	}
	for (i = 0; i < KT_NPOOLS; i++) {
		kt_pools[i] = dma_pool_create(kt_geos[i].name, kt_dev,
					      kt_geos[i].size, kt_geos[i].align,
					      kt_geos[i].boundary);
		if (!kt_pools[i])
			kt_fail("setup", "dma_pool_create failed", i);
	}
	kt_managed = dmam_pool_create("kt-ctx-managed", kt_dev, 32, 8, 0);
	if (!kt_managed)
		kt_fail("setup", "dmam_pool_create failed", 0);
	if (atomic_read(&kt_failures)) {
		kt_teardown();
		pr_info("KT-CONTEXTS SUMMARY: FAIL\n");
		return -ENOMEM;
	}

	kt_run();

	pr_info("KT-CONTEXTS SUMMARY: %s\n",
		atomic_read(&kt_failures) ? "FAIL" : "PASS");
	/* The pools stay until rmmod: the guest reads "pools" meanwhile. */
	return 0;
}

static void __exit kt_exit(void)
{
	kt_teardown();
	pr_info(KT_PFX "pools destroyed\n");
}

module_init(kt_init);
module_exit(kt_exit);
MODULE_DESCRIPTION("dma_pool from process, irqs-off, softirq and hardirq context");
MODULE_LICENSE("Dual MIT/GPL");
