// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * kt_stress: one pool, several CPUs, every pool option combination.
 *
 * For each combination of kt_matrix.h (index, automatic shrink, ownership,
 * hardening), on one native pool:
 *
 *   traffic  "threads" kthreads, bound round-robin to the online CPUs,
 *            each "rounds" times: allocate a batch (bulk, by handle, by
 *            address, zeroing), keep half and pass half to the next thread
 *            (which runs on another CPU: its frees are remote), free what
 *            the previous thread passed, free the kept half.  Some frees
 *            run under a driver's spinlock with interrupts off.  Every
 *            block gets an owner tag in a table of this module's own (host
 *            memory, keyed by address): a block the pool hands out while
 *            the table says someone holds it was handed out twice.  Each
 *            block carries its owner's stamp, checked by whoever frees it.
 *   races    two kthreads on two CPUs free the same block at the same
 *            moment, "races" times (by address, then by handle, in turn):
 *            each race must produce exactly one report, counted through
 *            the pool's own sink (opts.report).
 *   balance  at the end nothing is in use, the pool's violations and its
 *            counts of bad frees (kt_matrix.h: double-free, stale-handle,
 *            or free-outside-pool / bad-handle once the chunk went back)
 *            equal the races, the sink saw exactly those reports, every
 *            tag is clear, and as many blocks were freed as allocated.
 *
 * The detectors of the kernel it runs in (lockdep and KASAN in the debug
 * kernel, KCSAN on PREEMPT_RT in the rt kernel, atomic-sleep checks in
 * both) judge the rest: any report fails the suite.  Prints
 * "KT-STRESS: <combination> ok|FAIL ...", "KT-STRESS: PENDING ..." for
 * gated combinations (kt_matrix.h) and "KT-STRESS SUMMARY: PASS|FAIL".
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "kt_device.h"
#include "kt_matrix.h"

#define KS_PFX		"KT-STRESS: "
#define KS_SIZE		128
#define KS_ALIGN	32
#define KS_MAX_THREADS	8
#define KS_MAX_BATCH	64
#define KS_RING		256	/* blocks in flight to one thread */
#define KS_TABLE_BITS	16	/* owner table: 64 Ki addresses per pool */
#define KS_TIMEOUT	(30 * HZ)	/* for one race rendezvous */

static char *pending = "";
module_param(pending, charp, 0444);
MODULE_PARM_DESC(pending, "combinations the running core refuses (kt_matrix.h)");
static char *skip = "";
module_param(skip, charp, 0444);
MODULE_PARM_DESC(skip, "combinations not to run at all, same syntax (by hand only)");
static unsigned int threads = 4;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "kthreads per pool, bound round-robin to the CPUs (2-8)");
static unsigned int rounds = 24;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "batches each thread allocates per pool");
static unsigned int batch = 16;
module_param(batch, uint, 0444);
MODULE_PARM_DESC(batch, "blocks per batch (2-64)");
static unsigned int races = 8;
module_param(races, uint, 0444);
MODULE_PARM_DESC(races, "racing double frees per pool");

struct ks_blk {
	void *vaddr;
	dma_addr_t dma;
	u64 handle;		/* 0: allocated by address */
	unsigned int tag;	/* the allocating thread, 1-based */
};

/* Blocks passed to one thread; the sender's unlock orders its stamp. */
struct ks_inbox {
	spinlock_t lock;
	unsigned int head, tail;
	struct ks_blk ring[KS_RING];
};

struct ks_thread {
	struct task_struct *task;
	unsigned int id;	/* 0-based; tag id + 1 */
	struct ks_inbox in;
	struct completion done;
	/* scratch, off the stack (frames stay small under KASAN) */
	struct ks_blk batch[KS_MAX_BATCH], got[KS_MAX_BATCH];
	void *va[KS_MAX_BATCH];
	dmapool_dma_t da[KS_MAX_BATCH];
};

/* Owner table: address -> the tag of the thread that holds the block. */
struct ks_slot {
	atomic_long_t key;	/* block address, 0 = empty slot */
	atomic_t owner;		/* tag, 0 = nobody */
};

static struct {
	struct dmapool *pool;
	struct kt_sink sink;
	struct ks_slot *table;
	struct ks_thread th[KS_MAX_THREADS];
	unsigned int nthreads;
	atomic_t finished;	/* threads done with their rounds */
	atomic_t failures;	/* for the current pool */
	atomic64_t allocs, frees;
	spinlock_t driver_lock;	/* a driver's lock, taken around frees */
	/* the race */
	atomic_t arrive;
	atomic_t abort;
	struct ks_blk race_blk;
	int race_errors;
} ks;

static struct device *ks_dev;
static atomic_t ks_total_failures = ATOMIC_INIT(0);

static void ks_fail(const char *name, const char *what)
{
	atomic_inc(&ks.failures);
	pr_err(KS_PFX "FAIL %s: %s\n", name, what);
}

/* A failure with an address; rate limited, a broken pool fails in bulk. */
static void ks_fail_at(const char *what, const void *v, unsigned int a)
{
	if (atomic_inc_return(&ks.failures) <= 10)
		pr_err(KS_PFX "FAIL %s (block %px, %u)\n", what, v, a);
}

/* ---- the owner table ------------------------------------------------ */

static struct ks_slot *ks_slot_of(const void *v, bool insert)
{
	unsigned long key = (unsigned long)v, i, n = 1ul << KS_TABLE_BITS;
	unsigned long h = hash_long(key / KS_ALIGN, KS_TABLE_BITS);

	for (i = 0; i < n; i++) {
		struct ks_slot *s = &ks.table[(h + i) & (n - 1)];
		unsigned long k = atomic_long_read(&s->key);

		if (k == key)
			return s;
		if (k)
			continue;
		if (!insert)
			return NULL;
		k = atomic_long_cmpxchg(&s->key, 0, key);
		if (!k || k == key)
			return s;
	}
	return NULL;
}

/* The pool just handed @b out: nobody may hold it. */
static bool ks_claim(const struct ks_blk *b)
{
	struct ks_slot *s = ks_slot_of(b->vaddr, true);
	int old;

	if (!s) {
		ks_fail_at("owner table full", b->vaddr, 0);
		return false;
	}
	old = atomic_cmpxchg(&s->owner, 0, b->tag);
	if (old) {
		ks_fail_at("block handed out twice: already held by thread", b->vaddr,
			   old);
		return false;
	}
	*(u64 *)b->vaddr = (unsigned long)b->vaddr ^ b->tag;
	memset((u8 *)b->vaddr + sizeof(u64), b->tag, KS_SIZE - sizeof(u64));
	return true;
}

/* About to free @b: it must still be its allocator's, stamp intact. */
static bool ks_release(const struct ks_blk *b)
{
	struct ks_slot *s = ks_slot_of(b->vaddr, false);
	int old;

	if (*(u64 *)b->vaddr != ((unsigned long)b->vaddr ^ b->tag) ||
	    memchr_inv((u8 *)b->vaddr + sizeof(u64), b->tag,
		       KS_SIZE - sizeof(u64))) {
		ks_fail_at("block changed while held (another holder wrote it)",
			   b->vaddr, b->tag);
		return false;
	}
	old = s ? atomic_cmpxchg(&s->owner, b->tag, 0) : -1;
	if (old != b->tag) {
		ks_fail_at("freeing a block the owner table gives to thread",
			   b->vaddr, old);
		return false;
	}
	return true;
}

/* ---- allocating and freeing ----------------------------------------- */

static unsigned int ks_alloc_batch(struct ks_thread *t, struct ks_blk *out,
				   unsigned int n, unsigned int round)
{
	void **va = t->va;
	dmapool_dma_t *da = t->da;
	unsigned int i, got = 0, nb = round % 3 ? 0 : n / 2;
	dmapool_gfp_t g = (__force dmapool_gfp_t)GFP_KERNEL;

	if (nb && dmapool_alloc_bulk(ks.pool, g, nb, va, da) == nb) {
		for (i = 0; i < nb; i++) {
			out[got].vaddr = va[i];
			out[got].dma = da[i];
			out[got].handle = 0;
			out[got].tag = t->id + 1;
			got++;
		}
	} else if (nb) {
		ks_fail_at("bulk allocation failed", NULL, nb);
	}
	while (got < n) {
		struct ks_blk *b = &out[got];
		dmapool_dma_t dma = 0;

		b->handle = 0;
		b->tag = t->id + 1;
		if ((got + round) % 2)
			b->vaddr = dmapool_alloc_handle(ks.pool, g, &dma,
							&b->handle);
		else if ((got + round) % 4)
			b->vaddr = dmapool_alloc(ks.pool, g, &dma);
		else
			b->vaddr = dmapool_zalloc(ks.pool, g, &dma);
		b->dma = dma;
		if (!b->vaddr) {
			ks_fail_at("allocation failed", NULL, got);
			break;
		}
		got++;
	}
	atomic64_add(got, &ks.allocs);
	for (i = 0; i < got; i++)
		if (((unsigned long)out[i].vaddr | out[i].dma) & (KS_ALIGN - 1))
			ks_fail_at("misaligned block", out[i].vaddr, i);
	/* a block that fails its claim is not ours to free: drop it */
	for (i = 0; i < got; i++)
		if (!ks_claim(&out[i]))
			out[i].vaddr = NULL;
	return got;
}

/* Free @n blocks (NULL entries skipped), some under the driver's lock. */
static void ks_free_blocks(struct ks_blk *b, unsigned int n, unsigned int salt)
{
	unsigned long flags;
	unsigned int i, nfreed = 0;
	bool locked = salt % 4 == 0;

	if (locked)
		spin_lock_irqsave(&ks.driver_lock, flags);
	for (i = 0; i < n; i++) {
		if (!b[i].vaddr || !ks_release(&b[i]))
			continue;
		if (b[i].handle)
			dmapool_free_handle(ks.pool, b[i].vaddr, b[i].dma,
					    b[i].handle);
		else if ((i + salt) % 3)
			dmapool_free(ks.pool, b[i].vaddr, b[i].dma);
		else
			dmapool_free_zero(ks.pool, b[i].vaddr, b[i].dma);
		nfreed++;
	}
	if (locked)
		spin_unlock_irqrestore(&ks.driver_lock, flags);
	atomic64_add(nfreed, &ks.frees);
}

/* Pass @b to thread @to; false if its inbox is full (free it yourself). */
static bool ks_send(unsigned int to, const struct ks_blk *b)
{
	struct ks_inbox *in = &ks.th[to].in;
	bool ok;

	spin_lock(&in->lock);
	ok = in->tail - in->head < KS_RING;
	if (ok)
		in->ring[in->tail++ % KS_RING] = *b;
	spin_unlock(&in->lock);
	return ok;
}

/* Free everything in @t's inbox; returns how many. */
static unsigned int ks_drain(struct ks_thread *t, unsigned int salt)
{
	struct ks_blk *got = t->got;
	unsigned int n, total = 0;

	do {
		spin_lock(&t->in.lock);
		for (n = 0; n < KS_MAX_BATCH && t->in.head != t->in.tail; n++)
			got[n] = t->in.ring[t->in.head++ % KS_RING];
		spin_unlock(&t->in.lock);
		ks_free_blocks(got, n, salt + total);
		total += n;
	} while (n == KS_MAX_BATCH);
	return total;
}

static void ks_wait_for_stop(void)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static int ks_traffic_fn(void *arg)
{
	struct ks_thread *t = arg;
	unsigned int next = (t->id + 1) % ks.nthreads;
	struct ks_blk *b = t->batch;
	unsigned int r, i, n, kept;

	for (r = 0; r < rounds && !atomic_read(&ks.abort); r++) {
		n = ks_alloc_batch(t, b, batch, r + t->id);
		/* keep the first half, pass the other half on */
		kept = n / 2;
		for (i = kept; i < n; i++)
			if (b[i].vaddr && !ks_send(next, &b[i]))
				ks_free_blocks(&b[i], 1, r);
		ks_drain(t, r);
		ks_free_blocks(b, kept, r + 1);
		cond_resched();
	}
	atomic_inc(&ks.finished);
	/* nobody sends once all are finished: drain once after that */
	while (atomic_read(&ks.finished) < ks.nthreads) {
		if (!ks_drain(t, r++))
			usleep_range(50, 200);
	}
	ks_drain(t, r);
	complete(&t->done);
	ks_wait_for_stop();
	return 0;
}

/* ---- the racing double frees ----------------------------------------- */

/* Both racers reach rendezvous @phase (1, 2, ...), or the race aborts. */
static bool ks_rendezvous(unsigned int phase)
{
	unsigned long end = jiffies + KS_TIMEOUT;

	/* fully ordered inc, acquire reads: what one racer wrote before
	 * the rendezvous, the other sees after it */
	atomic_inc_return(&ks.arrive);
	while (atomic_read_acquire(&ks.arrive) < 2 * phase) {
		if (atomic_read(&ks.abort))
			return false;
		if (time_after(jiffies, end)) {
			atomic_set(&ks.abort, 1);
			ks_fail_at("race rendezvous timed out", NULL, phase);
			return false;
		}
		cpu_relax();
	}
	return true;
}

static void ks_race_free(const struct ks_blk *b)
{
	if (b->handle)
		dmapool_free_handle(ks.pool, b->vaddr, b->dma, b->handle);
	else
		dmapool_free(ks.pool, b->vaddr, b->dma);
}

static int ks_race_fn(void *arg)
{
	struct ks_thread *t = arg;
	unsigned int d, phase = 0;
	struct ks_blk b;
	int before = 0;

	for (d = 0; d < races; d++) {
		if (t->id == 0) {
			dmapool_dma_t dma = 0;

			b.handle = 0;
			b.tag = 1;
			b.vaddr = d % 2 ?
				dmapool_alloc_handle(ks.pool, 0, &dma, &b.handle) :
				dmapool_alloc(ks.pool, 0, &dma);
			b.dma = dma;
			if (!b.vaddr) {
				ks_fail_at("race allocation failed", NULL, d);
				atomic_set(&ks.abort, 1);
				break;
			}
			atomic64_inc(&ks.allocs);
			if (!ks_claim(&b) || !ks_release(&b)) {
				atomic_set(&ks.abort, 1);
				break;
			}
			ks.race_blk = b;
			before = atomic_read(&ks.sink.total);
		}
		if (!ks_rendezvous(++phase))
			break;
		b = ks.race_blk;
		ks_race_free(&b);
		if (!ks_rendezvous(++phase))
			break;
		if (t->id == 0) {
			atomic64_inc(&ks.frees);
			if (atomic_read(&ks.sink.total) != before + 1) {
				ks.race_errors++;
				ks_fail_at("racing double free: reports seen, want 1",
					   b.vaddr,
					   atomic_read(&ks.sink.total) - before);
			}
		}
	}
	complete(&t->done);
	ks_wait_for_stop();
	return 0;
}

/* ---- one pool -------------------------------------------------------- */

/* Start ks.nthreads of @fn, thread i on the i-th online CPU (round-robin),
 * and wait for them all. */
static void ks_run_threads(int (*fn)(void *), unsigned int n, const char *what)
{
	unsigned int i, cpu = cpumask_first(cpu_online_mask);

	for (i = 0; i < n; i++) {
		struct ks_thread *t = &ks.th[i];

		t->id = i;
		t->in.head = t->in.tail = 0;
		spin_lock_init(&t->in.lock);
		init_completion(&t->done);
		t->task = kthread_create(fn, t, "kt_stress/%s%u", what, i);
		if (IS_ERR(t->task)) {
			t->task = NULL;
			ks_fail_at("kthread_create failed", NULL, i);
			atomic_set(&ks.abort, 1);
			/* the others must not wait for it to finish */
			atomic_inc(&ks.finished);
			complete(&t->done);
			continue;
		}
		kthread_bind(t->task, cpu);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	for (i = 0; i < n; i++)
		if (ks.th[i].task)
			wake_up_process(ks.th[i].task);
	for (i = 0; i < n; i++) {
		wait_for_completion(&ks.th[i].done);
		if (ks.th[i].task)
			kthread_stop(ks.th[i].task);
		ks.th[i].task = NULL;
	}
}

static void ks_check_balance(const struct kt_combo *c)
{
	struct dmapool_stats st;
	u64 df;
	unsigned long i, held = 0;

	dmapool_quiesce(ks.pool);
	dmapool_get_stats(ks.pool, &st);
	df = kt_stats_bad_frees(&st);
	if (st.blocks_in_use) {
		pr_err(KS_PFX "%s: %llu blocks in use at the end\n", c->name,
		       st.blocks_in_use);
		ks_fail(c->name, "stats: blocks still in use");
	}
	if (atomic64_read(&ks.allocs) != atomic64_read(&ks.frees)) {
		pr_err(KS_PFX "%s: %lld allocated, %lld freed\n", c->name,
		       (long long)atomic64_read(&ks.allocs),
		       (long long)atomic64_read(&ks.frees));
		ks_fail(c->name, "allocations and frees do not balance");
	}
	if (st.violations != races || df != races ||
	    atomic_read(&ks.sink.total) != races ||
	    kt_sink_unexpected(&ks.sink)) {
		pr_err(KS_PFX "%s: %u races; stats: %llu violations, %llu reported as bad frees\n",
		       c->name, races, st.violations, df);
		kt_sink_print(&ks.sink, KS_PFX, c->name);
		ks_fail(c->name, "reports differ from the racing double frees");
	}
	for (i = 0; i < (1ul << KS_TABLE_BITS); i++)
		held += atomic_read(&ks.table[i].owner) != 0;
	if (held) {
		pr_err(KS_PFX "%s: %lu blocks still tagged\n", c->name, held);
		ks_fail(c->name, "owner table: blocks never freed");
	}
}

static void ks_pool(const struct kt_combo *c, struct dmapool *pool)
{
	struct dmapool_stats st;

	atomic_set(&ks.failures, 0);
	ks.pool = pool;
	memset(ks.table, 0, sizeof(*ks.table) << KS_TABLE_BITS);
	atomic_set(&ks.finished, 0);
	atomic_set(&ks.abort, 0);
	atomic_set(&ks.arrive, 0);
	atomic64_set(&ks.allocs, 0);
	atomic64_set(&ks.frees, 0);
	ks.race_errors = 0;

	ks_run_threads(ks_traffic_fn, ks.nthreads, "t");
	if (!atomic_read(&ks.abort))
		ks_run_threads(ks_race_fn, 2, "race");
	ks_check_balance(c);
	dmapool_get_stats(pool, &st);
	dmapool_destroy(pool);
	if (atomic_read(&ks.sink.total) != races)
		ks_fail(c->name, "destroy reported");
	ks.pool = NULL;
	if (atomic_read(&ks.failures)) {
		pr_err(KS_PFX "%s FAIL (%d failures)\n", c->name,
		       atomic_read(&ks.failures));
		atomic_add(atomic_read(&ks.failures), &ks_total_failures);
	} else {
		pr_info(KS_PFX "%s ok (%lld blocks, %llu chunks released)\n",
			c->name, (long long)atomic64_read(&ks.allocs),
			st.chunks_released);
	}
}

static void ks_pool_fail(const char *name, const char *what)
{
	atomic_inc(&ks_total_failures);
	pr_err(KS_PFX "FAIL %s: %s\n", name, what);
}

static int __init ks_init(void)
{
	struct kt_matrix_count cnt;

	spin_lock_init(&ks.driver_lock);
	ks.nthreads = threads;
	if (threads < 2 || threads > KS_MAX_THREADS || batch < 2 ||
	    batch > KS_MAX_BATCH || !rounds) {
		pr_err(KS_PFX "FAIL setup: threads 2-%d, batch 2-%d, rounds > 0\n",
		       KS_MAX_THREADS, KS_MAX_BATCH);
		atomic_inc(&ks_total_failures);
		goto summary;
	}
	if (num_online_cpus() < 2) {
		pr_err(KS_PFX "FAIL setup: %u CPU online, the stress needs 2 or more\n",
		       num_online_cpus());
		atomic_inc(&ks_total_failures);
		goto summary;
	}
	ks.table = vzalloc(sizeof(*ks.table) << KS_TABLE_BITS);
	ks_dev = kt_dev_new("kt-stress");
	if (!ks.table || !ks_dev) {
		pr_err(KS_PFX "FAIL setup: no memory or no test device\n");
		atomic_inc(&ks_total_failures);
		goto summary;
	}
	pr_info(KS_PFX "%u CPUs online, %u threads, %u rounds of %u blocks, %u races per pool\n",
		num_online_cpus(), threads, rounds, batch, races);
	if (kt_matrix_for_each(pending, skip, ks_dev, KS_SIZE, KS_ALIGN,
			       &ks.sink, KS_PFX, ks_pool_fail, ks_pool, &cnt))
		atomic_inc(&ks_total_failures);
summary:
	pr_info("KT-STRESS SUMMARY: %s\n",
		atomic_read(&ks_total_failures) ? "FAIL" : "PASS");
	return 0;
}

static void __exit ks_exit(void)
{
	if (ks_dev)
		kt_dev_del(ks_dev);
	vfree(ks.table);
}

module_init(ks_init);
module_exit(ks_exit);
MODULE_DESCRIPTION("dmapool from several CPUs on one pool, every option, racing double frees");
MODULE_LICENSE("Dual MIT/GPL");
