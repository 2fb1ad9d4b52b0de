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
 * written.
 *
 * Then the matrix (kt_matrix.h): one native pool of every combination of
 * index, automatic shrink, ownership and hardening, each on a workload
 * that fills a few chunks in process context, frees all of them from hard
 * irq (chunks empty: with auto shrink they go back inside the free), grows
 * and empties again there, refills, and does the same under a driver's
 * spinlock with interrupts off; a double free by address and one by handle
 * in each of the two contexts.  Each pool must end with nothing in use,
 * exactly the four provoked reports (through its own sink, opts.report;
 * the kinds a second free may have, kt_matrix.h) and nothing else; no
 * block may be handed out twice.  A free must never
 * allocate or sleep: DEBUG_ATOMIC_SLEEP and lockdep judge that.  The
 * module parameter "pending" gates combinations the running core cannot
 * create yet (kt_matrix.h).
 *
 * On PREEMPT_RT the kernel's own dma_pool takes a spinlock_t, a sleeping
 * lock there, so no driver calls dma_pool from a non-threaded hard irq:
 * RT runs interrupt handlers in threads.  There the "hardirq" parts use a
 * plain irq_work, which RT runs in its per-CPU irq_work thread, the
 * context of a threaded handler; elsewhere a hard irq_work.
 *
 * The drop-in pools then stay until rmmod, so the guest can read the
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
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

#include "kt_device.h"
#include "kt_matrix.h"

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

#ifdef CONFIG_PREEMPT_RT
/* The irq_work thread: what a threaded interrupt handler runs in. */
#define KT_IRQ_WORK_INIT(fn)	IRQ_WORK_INIT(fn)
#define KT_IN_IRQ()		(in_task() && (current->flags & PF_KTHREAD))
#else
/* Hard: the callback runs in hardirq context. */
#define KT_IRQ_WORK_INIT(fn)	IRQ_WORK_INIT_HARD(fn)
#define KT_IN_IRQ()		in_hardirq()
#endif

static struct irq_work kt_work;
static struct completion kt_work_done;

static void kt_work_fn(struct irq_work *w)
{
	kt_atomic_round("hardirq", KT_IN_IRQ(), &kt_work_done);
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

/* ---- the matrix: every pool option combination, frees in atomic context -- */

#define KT_M_SIZE	256
#define KT_M_ALIGN	64
/* 3.5 chunks of 16 blocks (4.7 of 12 with a redzone) */
#define KT_M_BLOCKS	56
/* what the atomic contexts grow and empty again: two chunks or more */
#define KT_M_OWN	32
#define KT_M_BULK	4

static char *pending = "";
module_param(pending, charp, 0444);
MODULE_PARM_DESC(pending, "combinations the running core refuses, e.g. shared,thread-cache+poison (kt_matrix.h)");
static char *skip = "";
module_param(skip, charp, 0444);
MODULE_PARM_DESC(skip, "combinations not to run at all, same syntax (by hand only)");

struct kt_mblk {
	void *vaddr;
	dma_addr_t dma;
	u64 handle;		/* 0: allocated by address */
};

struct kt_mset {
	unsigned int n;
	struct kt_mblk b[KT_M_BLOCKS];
};

/* The pool under test and what the process side hands to the atomic side. */
static struct {
	struct dmapool *pool;
	struct kt_sink sink;
	int provoked;			/* reports the test caused */
	struct kt_mset held;		/* process context allocated these */
	struct kt_mset own;		/* the atomic side's scratch */
	u8 fill;
} kt_m;

static struct irq_work kt_mwork;
static struct completion kt_mwork_done;

static void kt_mfail(const char *name, const char *what)
{
	atomic_inc(&kt_failures);
	pr_err(KT_PFX "FAIL matrix %s: %s\n", name, what);
}

/* The test holds @v in no other slot of held or own. */
static bool kt_m_unique(const void *v, const struct kt_mblk *self)
{
	const struct kt_mset *sets[] = { &kt_m.held, &kt_m.own };
	unsigned int s, i;

	for (s = 0; s < ARRAY_SIZE(sets); s++)
		for (i = 0; i < sets[s]->n; i++)
			if (&sets[s]->b[i] != self && sets[s]->b[i].vaddr == v)
				return false;
	return true;
}

/* A new block in @b: where the geometry says, zeroed if asked, not held. */
static bool kt_m_accept(const char *where, struct kt_mblk *b, bool zeroed)
{
	unsigned long v = (unsigned long)b->vaddr;

	if (!b->vaddr) {
		kt_fail(where, "matrix allocation failed", 0);
		return false;
	}
	if ((v | b->dma) & (KT_M_ALIGN - 1)) {
		kt_fail(where, "matrix block misaligned", v);
		return false;
	}
	if (zeroed && memchr_inv(b->vaddr, 0, KT_M_SIZE)) {
		kt_fail(where, "matrix zalloc block not zeroed", v);
		return false;
	}
	if (!kt_m_unique(b->vaddr, b)) {
		kt_fail(where, "matrix block handed out twice", v);
		return false;
	}
	memset(b->vaddr, kt_m.fill++, KT_M_SIZE);
	return true;
}

/*
 * Fill @s to @n blocks with @gfp: a bulk allocation first, then handle,
 * address and zeroing allocations in turn.
 */
static void kt_m_fill(const char *where, struct kt_mset *s, unsigned int n,
		      gfp_t gfp)
{
	dmapool_gfp_t g = (__force dmapool_gfp_t)gfp;
	void *va[KT_M_BULK];
	dmapool_dma_t da[KT_M_BULK];
	unsigned int k;

	if (s->n + KT_M_BULK <= n) {
		if (dmapool_alloc_bulk(kt_m.pool, g, KT_M_BULK, va, da) !=
		    KT_M_BULK) {
			kt_fail(where, "matrix bulk allocation failed", 0);
			return;
		}
		for (k = 0; k < KT_M_BULK; k++) {
			struct kt_mblk *b = &s->b[s->n++];

			b->vaddr = va[k];
			b->dma = da[k];
			b->handle = 0;
			if (!kt_m_accept(where, b, false))
				return;
		}
	}
	while (s->n < n) {
		struct kt_mblk *b = &s->b[s->n];
		dmapool_dma_t dma = 0;
		bool zeroed = false;

		b->handle = 0;
		switch (s->n % 3) {
		case 0:
			b->vaddr = dmapool_alloc_handle(kt_m.pool, g, &dma,
							&b->handle);
			if (b->vaddr && !b->handle)
				kt_fail(where, "matrix block without a handle",
					(unsigned long)b->vaddr);
			break;
		case 1:
			b->vaddr = dmapool_alloc(kt_m.pool, g, &dma);
			break;
		default:
			b->vaddr = dmapool_zalloc(kt_m.pool, g, &dma);
			zeroed = true;
			break;
		}
		b->dma = dma;
		s->n++;
		if (!kt_m_accept(where, b, zeroed)) {
			s->n--;
			return;
		}
	}
}

/*
 * Free all of @s, newest first: by handle, by address, zeroing, and a bulk
 * free of the first blocks; with @dup, one double free by address and one
 * by handle (two reports provoked).
 */
static void kt_m_drain(struct kt_mset *s, bool dup)
{
	struct kt_mblk dup_addr = { NULL }, dup_handle = { NULL };
	void *va[KT_M_BULK];
	dmapool_dma_t da[KT_M_BULK];
	unsigned int nb = 0;

	while (s->n) {
		struct kt_mblk *b = &s->b[--s->n];

		if (b->handle) {
			dmapool_free_handle(kt_m.pool, b->vaddr, b->dma,
					    b->handle);
			if (!dup_handle.vaddr)
				dup_handle = *b;
		} else if (s->n < KT_M_BULK) {
			va[nb] = b->vaddr;
			da[nb++] = b->dma;
		} else {
			if (s->n % 2)
				dmapool_free(kt_m.pool, b->vaddr, b->dma);
			else
				dmapool_free_zero(kt_m.pool, b->vaddr, b->dma);
			if (!dup_addr.vaddr)
				dup_addr = *b;
		}
	}
	if (nb)
		dmapool_free_bulk(kt_m.pool, nb, va, da);
	if (!dup)
		return;
	if (dup_addr.vaddr) {
		kt_m.provoked++;
		dmapool_free(kt_m.pool, dup_addr.vaddr, dup_addr.dma);
	}
	if (dup_handle.vaddr) {
		kt_m.provoked++;
		dmapool_free_handle(kt_m.pool, dup_handle.vaddr, dup_handle.dma,
				    dup_handle.handle);
	}
}

/* The atomic side: free what process context handed over, grow, empty. */
static void kt_m_atomic(const char *where)
{
	kt_m_drain(&kt_m.held, true);
	kt_m_fill(where, &kt_m.own, KT_M_OWN, GFP_ATOMIC);
	kt_m_drain(&kt_m.own, false);
}

static void kt_mwork_fn(struct irq_work *w)
{
	if (!KT_IN_IRQ())
		kt_fail("matrix hardirq", "callback not in the expected context", 0);
	kt_m_atomic("matrix hardirq");
	complete(&kt_mwork_done);
}

/* The pool of @c on one workload, then destroyed. */
static void kt_m_run(const struct kt_combo *c, struct dmapool *pool)
{
	int before = atomic_read(&kt_failures);
	struct dmapool_stats st;
	unsigned long flags;
	u64 double_frees;

	kt_m.pool = pool;
	kt_m.provoked = 0;
	kt_m.held.n = 0;
	kt_m.own.n = 0;

	/* fill, then free from hard irq (chunks empty there), twice */
	kt_m_fill("matrix process", &kt_m.held, KT_M_BLOCKS, GFP_KERNEL);
	reinit_completion(&kt_mwork_done);
	irq_work_queue(&kt_mwork);
	wait_for_completion(&kt_mwork_done);
	irq_work_sync(&kt_mwork);

	/* refill, then free under a driver's spinlock, interrupts off */
	kt_m_fill("matrix process", &kt_m.held, KT_M_BLOCKS, GFP_KERNEL);
	spin_lock_irqsave(&kt_driver_lock, flags);
	kt_m_atomic("matrix spinlock");
	spin_unlock_irqrestore(&kt_driver_lock, flags);

	/* a failed fill leaves blocks behind: give them back */
	kt_m_drain(&kt_m.held, false);
	kt_m_drain(&kt_m.own, false);
	dmapool_quiesce(pool);
	dmapool_get_stats(pool, &st);
	double_frees = kt_stats_bad_frees(&st);
	if (st.blocks_in_use)
		kt_mfail(c->name, "blocks still in use after every free");
	if (atomic_read(&kt_m.sink.total) != kt_m.provoked ||
	    kt_sink_unexpected(&kt_m.sink) || st.violations != kt_m.provoked ||
	    double_frees != kt_m.provoked) {
		pr_err(KT_PFX "matrix %s: provoked %d double frees; stats: %llu violations, %llu reported as bad frees\n",
		       c->name, kt_m.provoked, st.violations, double_frees);
		kt_sink_print(&kt_m.sink, KT_PFX "matrix ", c->name);
		kt_mfail(c->name, "reports differ from the double frees provoked");
	}
	if ((c->features & KT_F_AUTO_SHRINK) && !st.chunks_released)
		kt_mfail(c->name, "auto shrink released no chunk although every chunk emptied");
	dmapool_destroy(pool);
	if (atomic_read(&kt_m.sink.total) != kt_m.provoked)
		kt_mfail(c->name, "destroy reported");
	kt_m.pool = NULL;
	if (atomic_read(&kt_failures) != before)
		pr_err(KT_PFX "matrix %s FAIL (%d failures)\n", c->name,
		       atomic_read(&kt_failures) - before);
	else
		pr_info(KT_PFX "matrix %s ok (%llu chunks released)\n",
			c->name, st.chunks_released);
}

static void kt_matrix(void)
{
	int before = atomic_read(&kt_failures);
	struct kt_matrix_count cnt;

	if (kt_matrix_for_each(pending, skip, kt_dev, KT_M_SIZE, KT_M_ALIGN,
			       &kt_m.sink, KT_PFX "matrix: ", kt_mfail,
			       kt_m_run, &cnt))
		atomic_inc(&kt_failures);
	kt_part("matrix", before);
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
	kt_work = KT_IRQ_WORK_INIT(kt_work_fn);
	kt_mwork = KT_IRQ_WORK_INIT(kt_mwork_fn);
	init_completion(&kt_mwork_done);
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
	kt_matrix();

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
