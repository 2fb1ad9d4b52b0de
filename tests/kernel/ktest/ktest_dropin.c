// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The dma_pool drop-in, checked against the kernel's own dma_pool in the
 * same kernel: the same blocks at the same places for every geometry (and
 * the same refusals), the same zeroing under init_on_alloc / init_on_free /
 * __GFP_ZERO, devres lifetime, atomic context, concurrent users; and what
 * differs on purpose: misuse is reported instead of acted on, and a device
 * writing into a freed block cannot make the pool hand out a block twice.
 *
 * The kernel's pool is called through its real names (dma_pool_*), the
 * drop-in through dmapool_dma_pool_*, which is what <dmapool/dma_pool.h>
 * turns a driver's dma_pool_* calls into.
 */
#include <linux/completion.h>
#include <linux/dmapool.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/version.h>

#include "ktest.h"
#include "cases/geometry.h"

/* The kernel's pool keeps {next, dma} in a free block (v6.3+). */
#define KT_KERNEL_HDR	(sizeof(void *) + sizeof(dma_addr_t))

/* ---- same layout as the kernel's pool, same refusals ---------------- */

#define KT_LAYOUT_MAX	300

struct kt_run {
	void *v[KT_LAYOUT_MAX];
	dma_addr_t d[KT_LAYOUT_MAX];
	unsigned int n;		/* blocks in the first allocation unit */
	unsigned int taken;	/* blocks allocated (n, plus one beyond) */
};

/* Allocate until a block lands outside the first allocation unit. */
static bool kt_fill_unit(struct dma_pool *p, bool kernel, size_t unit,
			 struct kt_run *r)
{
	dma_addr_t base = 0;

	r->n = r->taken = 0;
	while (r->taken < KT_LAYOUT_MAX) {
		unsigned int i = r->taken;

		r->v[i] = kernel ? dma_pool_alloc(p, GFP_KERNEL, &r->d[i]) :
			  dmapool_dma_pool_alloc(p, GFP_KERNEL, &r->d[i]);
		if (!r->v[i])
			return false;
		r->taken++;
		if (!i)
			base = r->d[0] & ~(dma_addr_t)(unit - 1);
		if ((r->d[i] & ~(dma_addr_t)(unit - 1)) != base)
			return true;
		r->n++;
	}
	return false;
}

static void kt_empty(struct dma_pool *p, bool kernel, struct kt_run *r)
{
	unsigned int i;

	for (i = 0; i < r->taken; i++) {
		if (kernel)
			dma_pool_free(p, r->v[i], r->d[i]);
		else
			dmapool_dma_pool_free(p, r->v[i], r->d[i]);
	}
}

static bool kt_layout_one(size_t size, size_t align, size_t boundary,
			  struct kt_run *k, struct kt_run *d, char *why,
			  size_t whylen, unsigned int *refused)
{
	struct dma_pool *kp, *dp;
	size_t rsize, unit;
	unsigned int i;
	bool ok = true;

	kp = dma_pool_create("kt-kernel", kt_dev, size, align, boundary);
	dp = dmapool_dma_pool_create("kt-dropin", kt_dev, size, align,
				     boundary);
	if (!kp || !dp) {
		if (kp || dp)
			snprintf(why, whylen,
				 "size %zu align %zu boundary %zu: %s refuses, %s accepts",
				 size, align, boundary,
				 kp ? "dmapool" : "the kernel",
				 kp ? "the kernel" : "dmapool");
		dma_pool_destroy(kp);
		dmapool_dma_pool_destroy(dp);
		*refused += !kp && !dp;
		return !kp && !dp;
	}
	rsize = ALIGN(max_t(size_t, size, KT_KERNEL_HDR), align ? align : 1);
	unit = PAGE_SIZE << get_order(max_t(size_t, rsize, PAGE_SIZE));
	if (!kt_fill_unit(kp, true, unit, k) ||
	    !kt_fill_unit(dp, false, unit, d)) {
		snprintf(why, whylen, "size %zu align %zu boundary %zu: alloc failed or unit too large",
			 size, align, boundary);
		ok = false;
	} else if (k->n != d->n) {
		snprintf(why, whylen, "size %zu align %zu boundary %zu: the kernel has %u blocks per %zu bytes, dmapool %u",
			 size, align, boundary, k->n, unit, d->n);
		ok = false;
	} else {
		for (i = 0; i < k->n; i++) {
			size_t ko = k->d[i] & (unit - 1);
			size_t dof = d->d[i] & (unit - 1);

			if (ko != dof ||
			    (k->v[i] - k->v[0]) != (d->v[i] - d->v[0])) {
				snprintf(why, whylen, "size %zu align %zu boundary %zu: block %u at offset %zu, the kernel's at %zu",
					 size, align, boundary, i, dof, ko);
				ok = false;
				break;
			}
		}
	}
	kt_empty(kp, true, k);
	kt_empty(dp, false, d);
	dma_pool_destroy(kp);
	dmapool_dma_pool_destroy(dp);
	return ok;
}

static void kt_layout_vs_kernel(void)
{
	struct kt_run *k, *d;
	struct tc_env *e;
	unsigned int cases = 0, refused = 0;
	size_t i, j, l;
	char why[200] = "";
	bool ok = true;

	if (KT_IN_TREE) {
		pr_info(KT_PFX "INFO layout-vs-kernel not run: in this kernel dma_pool is dmapool\n");
		return;
	}
	if (LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)) {
		pr_info(KT_PFX "INFO layout-vs-kernel not run: this kernel's dma_pool predates the v6.3 layout dmapool reproduces\n");
		return;
	}
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	e = kt_env();
	if (!k || !d || !e) {
		kt_fail("dropin/layout-vs-kernel", "out of memory");
		goto out;
	}
	tc_begin(e);	/* dmapool's refusals are reported: count them */
	for (i = 0; ok && i < TC_ARRAY_SIZE(tc_geo_sizes); i++)
		for (j = 0; ok && j < TC_ARRAY_SIZE(tc_geo_aligns); j++)
			for (l = 0; ok && l < TC_ARRAY_SIZE(tc_geo_boundaries);
			     l++) {
				ok = kt_layout_one(tc_geo_sizes[i],
						   tc_geo_aligns[j],
						   tc_geo_boundaries[l], k, d,
						   why, sizeof(why), &refused);
				cases++;
			}
	for (i = 0; ok && i < TC_ARRAY_SIZE(tc_geo_sizes); i++)
		for (j = 0; ok && j < TC_ARRAY_SIZE(tc_geo_bad_aligns); j++) {
			ok = kt_layout_one(tc_geo_sizes[i],
					   tc_geo_bad_aligns[j], 0, k, d, why,
					   sizeof(why), &refused);
			cases++;
		}
	tc_end(e);
	if (ok && e->cap.n != refused) {
		snprintf(why, sizeof(why), "%u refusals but %u reports",
			 refused, e->cap.n);
		ok = false;
	}
	pr_info(KT_PFX "INFO layout-vs-kernel: %u geometries, %u refused by both, the rest with identical block offsets\n",
		cases, refused);
	kt_result("dropin/layout-vs-kernel", ok, why);
out:
	kfree(k);
	kfree(d);
	kfree(e);
}

/* ---- zeroing as the kernel's pool does ------------------------------ */

/* Bytes [from, n) of @p all equal to @c? */
static bool kt_all(const u8 *p, size_t from, size_t n, u8 c)
{
	size_t i;

	for (i = from; i < n; i++)
		if (p[i] != c)
			return false;
	return true;
}

/*
 * Dirty a block, free it, look at it, take it back, look again, then
 * zalloc.  The kernel's pool writes its free-list header over the first
 * bytes of a free block, so only the rest of its blocks is compared.
 */
static bool kt_zeroing(bool kernel, char *why, size_t whylen)
{
	const size_t size = 256;
	const size_t from = kernel ? KT_KERNEL_HDR : 0;
	u8 after_free = want_init_on_free() ? 0 : 0xa5;
	u8 after_alloc = want_init_on_alloc(GFP_KERNEL) ? 0 : after_free;
	const char *who = kernel ? "kernel" : "dmapool";
	struct dma_pool *p;
	dma_addr_t d, d2;
	u8 *v, *v2;
	bool ok = false;

	p = kernel ? dma_pool_create("kt-zero", kt_dev, size, size, 0) :
	    dmapool_dma_pool_create("kt-zero", kt_dev, size, size, 0);
	if (!p) {
		snprintf(why, whylen, "%s: create failed", who);
		return false;
	}
#define KT_ALLOC(g, dd) (kernel ? dma_pool_alloc(p, (g), (dd)) :	\
			 dmapool_dma_pool_alloc(p, (g), (dd)))
#define KT_FREE(vv, dd) (kernel ? dma_pool_free(p, (vv), (dd)) :	\
			 dmapool_dma_pool_free(p, (vv), (dd)))
	v = KT_ALLOC(GFP_KERNEL, &d);
	if (!v)
		goto out;
	memset(v, 0xa5, size);
	KT_FREE(v, d);
	if (!kt_all(v, from, size, after_free)) {
		snprintf(why, whylen, "%s: freed block holds %#x, want %#x (init_on_free=%d)",
			 who, v[size - 1], after_free, want_init_on_free());
		goto out;
	}
	v2 = KT_ALLOC(GFP_KERNEL, &d2);
	if (v2 != v || d2 != d) {
		snprintf(why, whylen, "%s: the freed block was not reused", who);
		goto out;
	}
	if (!kt_all(v2, from, size, after_alloc)) {
		snprintf(why, whylen, "%s: reallocated block holds %#x at byte %zu, want %#x (init_on_alloc=%d)",
			 who, v2[from], from, after_alloc,
			 want_init_on_alloc(GFP_KERNEL));
		goto out;
	}
	memset(v2, 0xa5, size);
	KT_FREE(v2, d2);
	v2 = kernel ? dma_pool_zalloc(p, GFP_KERNEL, &d2) :
	     dmapool_dma_pool_zalloc(p, GFP_KERNEL, &d2);
	if (!v2 || !kt_all(v2, 0, size, 0)) {
		snprintf(why, whylen, "%s: dma_pool_zalloc gave a dirty block",
			 who);
		goto out;
	}
	KT_FREE(v2, d2);
	ok = true;
#undef KT_ALLOC
#undef KT_FREE
out:
	if (kernel)
		dma_pool_destroy(p);
	else
		dmapool_dma_pool_destroy(p);
	return ok;
}

static void kt_zeroing_vs_kernel(void)
{
	char why[160] = "";
	bool ok;

	ok = kt_zeroing(true, why, sizeof(why));
	if (!ok)
		pr_info(KT_PFX "INFO the kernel's own pool: %s\n", why);
	kt_result("dropin/zeroing-as-the-kernel",
		  ok && kt_zeroing(false, why, sizeof(why)), why);
}

/* ---- misuse through the drop-in ------------------------------------- */

static void kt_dropin_misuse(void)
{
	struct tc_env *e = kt_env();
	struct dmapool_stats st;
	struct dma_pool *p;
	dma_addr_t d, d2;
	u8 *v, *v2;
	bool ok = false;
	char why[160] = "";

	if (!e) {
		kt_fail("dropin/misuse", "out of memory");
		return;
	}
	tc_begin(e);
	p = dmapool_dma_pool_create("kt-misuse", kt_dev, 64, 64, 0);
	v = p ? dmapool_dma_pool_alloc(p, GFP_KERNEL, &d) : NULL;
	v2 = p ? dmapool_dma_pool_alloc(p, GFP_KERNEL, &d2) : NULL;
	if (!v || !v2) {
		snprintf(why, sizeof(why), "setup failed");
		goto out;
	}
	dmapool_dma_pool_free(p, v, d);
	dmapool_dma_pool_free(p, v, d);			/* double */
	dmapool_dma_pool_free(p, v2 + 8, d2 + 8);	/* interior */
	dmapool_dma_pool_free(p, v2, d);		/* wrong dma */
	dmapool_dma_pool_free(p, e, 0);			/* not a block */
	if (dmapool_dma_pool_alloc(NULL, GFP_KERNEL, &d)) /* NULL pool */
		goto out;
	dmapool_dma_pool_free(NULL, v2, d2);
	dmapool_dma_pool_destroy(NULL);			/* a no-op */
	if (e->cap.n != 6 ||
	    tc_count(e, DMAPOOL_R_DOUBLE_FREE) != 1 ||
	    tc_count(e, DMAPOOL_R_FREE_NOT_BLOCK) != 1 ||
	    tc_count(e, DMAPOOL_R_FREE_DMA_MISMATCH) != 1 ||
	    tc_count(e, DMAPOOL_R_FREE_OUTSIDE) != 1 ||
	    tc_count(e, DMAPOOL_R_NULL_POOL) != 2) {
		snprintf(why, sizeof(why), "%u reports, not the 6 expected: double %u interior %u dma %u outside %u null %u",
			 e->cap.n, tc_count(e, DMAPOOL_R_DOUBLE_FREE),
			 tc_count(e, DMAPOOL_R_FREE_NOT_BLOCK),
			 tc_count(e, DMAPOOL_R_FREE_DMA_MISMATCH),
			 tc_count(e, DMAPOOL_R_FREE_OUTSIDE),
			 tc_count(e, DMAPOOL_R_NULL_POOL));
		goto out;
	}
	dmapool_get_stats(dmapool_of_dma_pool(p), &st);
	if (st.blocks_in_use != 1) {
		snprintf(why, sizeof(why), "%llu blocks in use after misuse, want 1",
			 st.blocks_in_use);
		goto out;
	}
	/* Destroyed busy: reported, the chunk kept for the device. */
	dmapool_dma_pool_destroy(p);
	p = NULL;
	if (e->cap.n != 7 || tc_count(e, DMAPOOL_R_DESTROY_BUSY) != 1 ||
	    tc_last(e)->count != 1) {
		snprintf(why, sizeof(why), "busy destroy not reported");
		goto out;
	}
	ok = true;
out:
	tc_end(e);
	if (p && v2)
		dmapool_dma_pool_free(p, v2, d2);
	dmapool_dma_pool_destroy(p);
	kt_result("dropin/misuse-reported", ok, why);
	kfree(e);
}

/* ---- the default report sink ---------------------------------------- */

static void kt_default_sink(void)
{
	struct dmapool_stats st;
	struct dmapool *p;
	dmapool_dma_t d;
	void *v;

	/* No sink installed: the report goes to pr_err (the runner looks). */
	dmapool_set_report_handler(NULL, NULL);
	p = dmapool_create("kt-default-sink", dmapool_kdev(kt_dev), 32, 32, 0);
	v = p ? dmapool_alloc(p, 0, &d) : NULL;
	if (!v) {
		kt_fail("default-sink", "setup failed");
		dmapool_destroy(p);
		return;
	}
	dmapool_free(p, v, d);
	dmapool_free(p, v, d);
	dmapool_get_stats(p, &st);
	dmapool_destroy(p);
	kt_result("default-sink", st.violations == 1,
		  "the double free was not counted");
}

/* ---- devres: dmam_pool_create --------------------------------------- */

static void kt_dmam(void)
{
	struct dma_pool *p1, *p2;
	struct device *dev;
	unsigned int r0, r1, r2;
	dma_addr_t d;
	void *v;
	char why[128] = "";
	bool ok = false;

	dev = kt_dev_new("dmapool-ktest-dmam");
	if (!dev) {
		kt_fail("dropin/dmam-lifetime", "cannot register a device");
		return;
	}
	/* A pool holds its device: the reference count shows the pools. */
	r0 = kref_read(&dev->kobj.kref);
	p1 = dmapool_dmam_pool_create("kt-dmam1", dev, 64, 64, 0);
	p2 = dmapool_dmam_pool_create("kt-dmam2", dev, 128, 0, 0);
	r1 = kref_read(&dev->kobj.kref);
	v = p1 ? dmapool_dma_pool_alloc(p1, GFP_KERNEL, &d) : NULL;
	if (!p1 || !p2 || !v || r1 != r0 + 2) {
		snprintf(why, sizeof(why), "create: refs %u -> %u", r0, r1);
		goto out;
	}
	dmapool_dma_pool_free(p1, v, d);
	dmapool_dmam_pool_destroy(p1);	/* released now, exactly once */
	r2 = kref_read(&dev->kobj.kref);
	if (r2 != r0 + 1) {
		snprintf(why, sizeof(why), "dmam_pool_destroy: refs %u, want %u",
			 r2, r0 + 1);
		goto out;
	}
	/* Device teardown releases the other one. */
	get_device(dev);
	r1 = kref_read(&dev->kobj.kref);
	device_del(dev);
	r2 = kref_read(&dev->kobj.kref);
	put_device(dev);
	put_device(dev);
	dev = NULL;
	if (r2 != r1 - 1) {
		snprintf(why, sizeof(why), "device_del: refs %u -> %u, the managed pool stayed",
			 r1, r2);
		goto out;
	}
	ok = true;
out:
	if (dev)
		kt_dev_del(dev);
	kt_result("dropin/dmam-lifetime", ok, why);
}

/* ---- a device writes into a freed block ----------------------------- */

#define KT_ATTACK_BLOCKS	8

/*
 * The device knows the kernel's free-list format and redirects it to a
 * block the driver still uses (block 3): v6.3+ keeps {next pointer, dma}
 * in a free block, older kernels a 4-byte offset of the next free block in
 * the page.  Returns whether the pool handed block 3 out again.
 */
static bool kt_attack(struct dma_pool *p, bool kernel, bool *failed)
{
	void *v[KT_ATTACK_BLOCKS], *a1, *a2;
	dma_addr_t d[KT_ATTACK_BLOCKS], d1, d2;
	bool dup;
	int i;

	*failed = false;
	for (i = 0; i < KT_ATTACK_BLOCKS; i++) {
		v[i] = kernel ? dma_pool_alloc(p, GFP_KERNEL, &d[i]) :
		       dmapool_dma_pool_alloc(p, GFP_KERNEL, &d[i]);
		if (!v[i]) {
			*failed = true;
			while (--i >= 0)
				kernel ? dma_pool_free(p, v[i], d[i]) :
					 dmapool_dma_pool_free(p, v[i], d[i]);
			return false;
		}
	}
	if (kernel)
		dma_pool_free(p, v[0], d[0]);
	else
		dmapool_dma_pool_free(p, v[0], d[0]);
	/* The device's write into the freed block 0. */
	if (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)) {
		memcpy(v[0], &v[3], sizeof(void *));
		memcpy((u8 *)v[0] + sizeof(void *), &d[3], sizeof(dma_addr_t));
	} else {
		u32 off = (u32)offset_in_page(v[3]);

		memcpy(v[0], &off, sizeof(off));
	}
	a1 = kernel ? dma_pool_alloc(p, GFP_KERNEL, &d1) :
	     dmapool_dma_pool_alloc(p, GFP_KERNEL, &d1);
	a2 = kernel ? dma_pool_alloc(p, GFP_KERNEL, &d2) :
	     dmapool_dma_pool_alloc(p, GFP_KERNEL, &d2);
	dup = false;
	for (i = 1; i < KT_ATTACK_BLOCKS; i++)
		dup |= v[i] == a1 || v[i] == a2;
	/* Every allocation freed once: the counts balance either way. */
	for (i = 1; i < KT_ATTACK_BLOCKS; i++)
		kernel ? dma_pool_free(p, v[i], d[i]) :
			 dmapool_dma_pool_free(p, v[i], d[i]);
	if (a1)
		kernel ? dma_pool_free(p, a1, d1) :
			 dmapool_dma_pool_free(p, a1, d1);
	if (a2)
		kernel ? dma_pool_free(p, a2, d2) :
			 dmapool_dma_pool_free(p, a2, d2);
	*failed = !a1 || !a2;
	return dup;
}

static void kt_attack_vs_kernel(void)
{
	struct dma_pool *kp, *dp;
	struct tc_env *e = kt_env();
	bool kdup = false, ddup = true, kfail = true, dfail = true;

	kp = dma_pool_create("kt-attack-kernel", kt_dev, 64, 64, 0);
	if (kp) {
		kdup = kt_attack(kp, true, &kfail);
		dma_pool_destroy(kp);
	}
	if (e)
		tc_begin(e);
	dp = dmapool_dma_pool_create("kt-attack-dmapool", kt_dev, 64, 64, 0);
	if (dp) {
		ddup = kt_attack(dp, false, &dfail);
		dmapool_dma_pool_destroy(dp);
	}
	if (e)
		tc_end(e);
	pr_info(KT_PFX "INFO hostile write into a freed block: %s then handed out a block still in use: %s\n",
		KT_IN_TREE ? "dma_pool (dmapool in this kernel)" :
		"the kernel's dma_pool", kfail ? "(not run)" : kdup ? "yes" : "no");
	kt_result("dropin/hostile-write-into-freed-block",
		  e && !dfail && !ddup && !e->cap.n,
		  dfail ? "alloc failed" : ddup ?
		  "dmapool handed out a block still in use" :
		  "the pool reported something");
	kfree(e);
}

/* ---- atomic context ------------------------------------------------- */

#define KT_ATOMIC_BLOCKS	2000

static void kt_atomic(void)
{
	static DEFINE_SPINLOCK(lock);
	struct dmapool_stats st;
	struct dma_pool *p;
	unsigned long flags;
	dma_addr_t *d;
	void **v;
	int i, got = 0;

	v = kcalloc(KT_ATOMIC_BLOCKS, sizeof(*v), GFP_KERNEL);
	d = kcalloc(KT_ATOMIC_BLOCKS, sizeof(*d), GFP_KERNEL);
	p = dmapool_dma_pool_create("kt-atomic", kt_dev, 64, 64, 0);
	if (!v || !d || !p) {
		kt_fail("dropin/atomic-context", "setup failed");
		goto out;
	}
	/* Growth (chunks, index nodes, slot tables) with interrupts off. */
	spin_lock_irqsave(&lock, flags);
	for (i = 0; i < KT_ATOMIC_BLOCKS; i++) {
		v[i] = dmapool_dma_pool_alloc(p, GFP_ATOMIC, &d[i]);
		got += v[i] != NULL;
	}
	for (i = 0; i < KT_ATOMIC_BLOCKS; i++)
		if (v[i])
			dmapool_dma_pool_free(p, v[i], d[i]);
	spin_unlock_irqrestore(&lock, flags);
	dmapool_get_stats(dmapool_of_dma_pool(p), &st);
	kt_result("dropin/atomic-context",
		  got == KT_ATOMIC_BLOCKS && !st.blocks_in_use &&
		  !st.violations, "GFP_ATOMIC allocations failed or leaked");
out:
	dmapool_dma_pool_destroy(p);
	kfree(v);
	kfree(d);
}

/* ---- concurrent users ----------------------------------------------- */

#define KT_THREADS	2
#define KT_RING		64
#define KT_OPS		20000

struct kt_worker {
	struct dma_pool *pool;
	struct completion done;
	u8 tag;
	bool bad;
	void *v[KT_RING];
	dma_addr_t d[KT_RING];
};

static int kt_worker_fn(void *arg)
{
	struct kt_worker *w = arg;
	int i, k;

	for (i = 0; i < KT_OPS && !w->bad; i++) {
		k = i % KT_RING;
		if (w->v[k]) {
			/* Nobody else wrote into our block meanwhile. */
			if (!kt_all(w->v[k], 0, 64, w->tag))
				w->bad = true;
			dmapool_dma_pool_free(w->pool, w->v[k], w->d[k]);
		}
		w->v[k] = dmapool_dma_pool_alloc(w->pool, GFP_KERNEL, &w->d[k]);
		if (!w->v[k])
			w->bad = true;
		else
			memset(w->v[k], w->tag, 64);
		if (!(i & 1023))
			cond_resched();
	}
	for (k = 0; k < KT_RING; k++)
		if (w->v[k])
			dmapool_dma_pool_free(w->pool, w->v[k], w->d[k]);
	complete(&w->done);
	return 0;
}

static void kt_concurrent(void)
{
	struct kt_worker *w;
	struct dmapool_stats st;
	struct dma_pool *p;
	bool bad = false;
	int t;

	w = kcalloc(KT_THREADS, sizeof(*w), GFP_KERNEL);
	p = dmapool_dma_pool_create("kt-threads", kt_dev, 64, 64, 0);
	if (!w || !p) {
		kt_fail("dropin/concurrent", "setup failed");
		goto out;
	}
	for (t = 0; t < KT_THREADS; t++) {
		struct task_struct *task;

		w[t].pool = p;
		w[t].tag = 0x11 * (t + 1);
		init_completion(&w[t].done);
		task = kthread_run(kt_worker_fn, &w[t], "dmapool-kt%d", t);
		if (IS_ERR(task)) {
			w[t].bad = true;
			complete(&w[t].done);
		}
	}
	for (t = 0; t < KT_THREADS; t++) {
		wait_for_completion(&w[t].done);
		bad |= w[t].bad;
	}
	dmapool_get_stats(dmapool_of_dma_pool(p), &st);
	kt_result("dropin/concurrent", !bad && !st.blocks_in_use &&
		  !st.violations, "a block was shared, lost or reported");
out:
	dmapool_dma_pool_destroy(p);
	kfree(w);
}

void kt_run_dropin(void)
{
	kt_layout_vs_kernel();
	kt_zeroing_vs_kernel();
	kt_dropin_misuse();
	kt_default_sink();
	kt_dmam();
	kt_attack_vs_kernel();
	kt_atomic();
	kt_concurrent();
}
