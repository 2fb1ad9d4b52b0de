// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The kernel's dmapool_test workload (tests/cases/workload.h) timed in one
 * boot for the kernel's own dma_pool and for dmapool, side by side.
 *
 * Like with like: every column does what the kernel's pool does for the
 * same call.  Under init_on_alloc (Debian's default) the kernel's pool
 * zeroes every block it hands out, so the drop-in does too (it honours
 * init_on_alloc), and the native columns ask for zeroing (__GFP_ZERO)
 * exactly when the kernel would zero.  Boot with init_on_alloc=0 to time
 * the allocators alone.
 *
 * The four pools of a row exist side by side and take turns round by
 * round (bench_reps x 100 rounds each), so a slow stretch of the host hits
 * them alike; a row prints the fastest round x 100 (the kernel benchmark's
 * unit: microseconds per 100 rounds; host noise only ever adds time, so
 * the fastest round is the least disturbed one) and its ratio to the
 * kernel's pool (below 1.000: dmapool is faster).  A TCG guest emulates every memory
 * access in software, so its times weigh loads and stores more than
 * hardware does: compare within a row, never across boots, and read the
 * userspace instruction counts for the hardware picture.
 */
#include <linux/dmapool.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "ktest.h"
#include "cases/workload.h"

enum kt_impl { KT_KERNEL, KT_DROPIN, KT_NATIVE, KT_HANDLE, KT_NIMPL };

struct kt_bufs {
	void *v[8192];
	dma_addr_t d[8192];
	struct dmapool_block b[8192];
};

struct kt_pools {
	struct dma_pool *kp, *dp;
	struct dmapool *np, *hp;
};

static bool kt_pools_create(struct kt_pools *p, const struct tc_workload *w)
{
	p->kp = dma_pool_create("kt-bench", kt_dev, w->size, w->align,
				w->boundary);
	p->dp = dmapool_dma_pool_create("kt-bench", kt_dev, w->size, w->align,
					w->boundary);
	p->np = dmapool_create("kt-bench", dmapool_kdev(kt_dev), w->size,
			       w->align, w->boundary);
	p->hp = dmapool_create("kt-bench-h", dmapool_kdev(kt_dev), w->size,
			       w->align, w->boundary);
	return p->kp && p->dp && p->np && p->hp;
}

static void kt_pools_destroy(struct kt_pools *p)
{
	dma_pool_destroy(p->kp);
	dmapool_dma_pool_destroy(p->dp);
	dmapool_destroy(p->np);
	dmapool_destroy(p->hp);
}

/* One round, alloc-all then free-all in order, in nanoseconds. */
static u64 kt_round(enum kt_impl impl, struct kt_pools *p, unsigned int blocks,
		    struct kt_bufs *bf, bool *failed)
{
	dmapool_gfp_t gfp = (__force dmapool_gfp_t)GFP_KERNEL;
	bool zero_free = want_init_on_free();
	unsigned int i;
	u64 t0, t1;

	BUILD_BUG_ON(sizeof(dma_addr_t) != sizeof(dmapool_dma_t));
	/* Native calls zero when the kernel's pool would. */
	if (want_init_on_alloc(GFP_KERNEL))
		gfp |= DMAPOOL_GFP_ZERO;
	t0 = ktime_get_ns();
	switch (impl) {
	case KT_KERNEL:
		for (i = 0; i < blocks; i++)
			bf->v[i] = dma_pool_alloc(p->kp, GFP_KERNEL, &bf->d[i]);
		for (i = 0; i < blocks; i++)
			dma_pool_free(p->kp, bf->v[i], bf->d[i]);
		break;
	case KT_DROPIN:
		for (i = 0; i < blocks; i++)
			bf->v[i] = dmapool_dma_pool_alloc(p->dp, GFP_KERNEL,
							  &bf->d[i]);
		for (i = 0; i < blocks; i++)
			dmapool_dma_pool_free(p->dp, bf->v[i], bf->d[i]);
		break;
	case KT_NATIVE:
		for (i = 0; i < blocks; i++)
			bf->v[i] = dmapool_alloc(p->np, gfp,
						 (dmapool_dma_t *)&bf->d[i]);
		for (i = 0; i < blocks; i++) {
			if (zero_free)
				dmapool_free_zero(p->np, bf->v[i], bf->d[i]);
			else
				dmapool_free(p->np, bf->v[i], bf->d[i]);
		}
		break;
	default:
		for (i = 0; i < blocks; i++)
			bf->b[i] = dmapool_alloc_block(p->hp, gfp);
		for (i = 0; i < blocks; i++)
			dmapool_free_block(p->hp, bf->b[i]);
		break;
	}
	t1 = ktime_get_ns();
	/* (A NULL block would already have crashed the kernel's loop.) */
	if (impl == KT_HANDLE ? !bf->b[blocks - 1].vaddr : !bf->v[blocks - 1])
		*failed = true;
	return t1 - t0;
}

static int kt_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* "1.234": @t / @base with three decimals, integers only. */
static void kt_ratio(char *buf, size_t len, u64 t, u64 base)
{
	u64 milli;

	if (!base) {
		snprintf(buf, len, "  -  ");
		return;
	}
	milli = div64_u64(t * 1000 + base / 2, base);
	snprintf(buf, len, "%llu.%03llu", milli / 1000, milli % 1000);
}

void kt_run_bench(void)
{
	static const char *const head[KT_NIMPL] = {
		"kernel dma_pool", "dmapool drop-in", "dmapool_alloc/free",
		"dmapool handles",
	};
	unsigned int reps = clamp(kt_bench_reps, 1, 20);
	unsigned int n = reps * TC_WORKLOAD_ROUNDS;
	u64 *t[KT_NIMPL], best[KT_NIMPL];
	char rat[KT_NIMPL][16];
	struct kt_pools pools;
	struct kt_bufs *bf;
	bool failed = false;
	unsigned int r;
	size_t c;
	int k;

	bf = kvzalloc(sizeof(*bf), GFP_KERNEL);
	for (k = 0; k < KT_NIMPL; k++)
		t[k] = kvcalloc(n, sizeof(u64), GFP_KERNEL);
	if (!bf || !t[0] || !t[1] || !t[2] || !t[3]) {
		kt_fail("bench", "out of memory");
		goto out;
	}
	pr_info("DMAPOOL-KTEST BENCH: the kernel's dmapool_test workload (alloc-all/free-all rounds); the four pools take turns round by round, %u rounds each; us per %d rounds = fastest round x %d (ratio to the kernel's dma_pool)\n",
		n, TC_WORKLOAD_ROUNDS, TC_WORKLOAD_ROUNDS);
	pr_info("DMAPOOL-KTEST BENCH: init_on_alloc=%d init_on_free=%d: every column zeroes %s\n",
		want_init_on_alloc(GFP_KERNEL), want_init_on_free(),
		want_init_on_alloc(GFP_KERNEL) ?
		"each block at alloc, as the kernel's dma_pool does" :
		"nothing at alloc");
	pr_info("DMAPOOL-KTEST BENCH: %-16s %6s | %15s | %15s %5s | %18s %5s | %15s %5s\n",
		"size/align/bound", "blocks", head[0], head[1], "ratio",
		head[2], "ratio", head[3], "ratio");
	for (c = 0; c < TC_ARRAY_SIZE(tc_workloads) && !failed; c++) {
		const struct tc_workload *w = &tc_workloads[c];
		unsigned int blocks = tc_workload_blocks(w->size);
		char geo[32];

		if (!kt_pools_create(&pools, w)) {
			kt_pools_destroy(&pools);
			failed = true;
			break;
		}
		for (r = 0; r < n && !failed; r++) {
			for (k = 0; k < KT_NIMPL; k++)
				t[k][r] = kt_round(k, &pools, blocks, bf,
						   &failed);
			if (need_resched())
				cond_resched();
		}
		kt_pools_destroy(&pools);
		for (k = 0; k < KT_NIMPL; k++) {
			sort(t[k], n, sizeof(u64), kt_cmp_u64, NULL);
			best[k] = div_u64(t[k][0] * TC_WORKLOAD_ROUNDS, 1000);
			kt_ratio(rat[k], sizeof(rat[k]), best[k], best[0]);
		}
		snprintf(geo, sizeof(geo), "%zu/%zu/%zu", w->size, w->align,
			 w->boundary);
		pr_info("DMAPOOL-KTEST BENCH: %-16s %6u | %15llu | %15llu %5s | %18llu %5s | %15llu %5s\n",
			geo, blocks, best[0], best[1], rat[1], best[2], rat[2],
			best[3], rat[3]);
	}
	kt_result("bench", !failed, "an allocation failed during the benchmark");
out:
	for (k = 0; k < KT_NIMPL; k++)
		kvfree(t[k]);
	kvfree(bf);
}
