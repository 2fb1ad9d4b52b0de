// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * API semantics: alloc, zalloc, free, growth, exhaustion, reuse, stats,
 * backends.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "testlib.h"
#include "cases/zalloc.h"

/* Shared with the in-kernel tests. */
Test(api, zalloc_zeroes_every_byte)
{
	struct tc_env *e = tl_env();

	cr_assert(tc_zalloc_all(e), "%s", e->msg);
	tl_env_put(e);
}

/*
 * A pool of page-sized chunks, the kernel's unit: for the tests that count
 * chunks (the default chunk holds at least 64 KiB of small blocks).
 */
static struct dmapool *page_pool(struct dmapool_dev *dev, size_t size,
				 size_t align, size_t boundary)
{
	struct dmapool_opts o;

	dmapool_opts_init(&o);
	o.chunk_size = 4096;
	return tl_pool_opts(dev, size, align, boundary, &o);
}

Test(api, grows_across_many_chunks_and_accounts)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool;
	struct dmapool_stats st;
	const size_t n = 20000;
	void **v = calloc(n, sizeof(*v));
	dmapool_dma_t *d = calloc(n, sizeof(*d));
	size_t i;

	tl_reset();
	pool = page_pool(dev, 64, 64, 0);
	cr_assert_not_null(pool);
	for (i = 0; i < n; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		cr_assert_not_null(v[i]);
		memset(v[i], (int)i, 64);	/* the caller owns every byte */
	}
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, n);
	cr_assert_geq(st.blocks_total, n);
	cr_assert_lt(st.blocks_total - n, st.blocks_per_chunk);
	cr_assert_eq(st.blocks_total, st.chunks * st.blocks_per_chunk);
	cr_assert_eq(st.dma_bytes, st.chunks * st.chunk_size);
	cr_assert_gt(st.chunks, 100);
	cr_assert_gt(st.meta_bytes, 0);
	for (i = 0; i < n; i++) {
		unsigned char *p = v[i];

		cr_assert_eq(p[0], (unsigned char)i, "block %zu was overwritten", i);
		cr_assert_eq(p[63], (unsigned char)i);
	}
	for (i = 0; i < n; i += 2)
		dmapool_free(pool, v[i], d[i]);
	for (i = 1; i < n; i += 2)
		dmapool_free(pool, v[i], d[i]);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 0);
	cr_assert_eq(st.violations, 0);
	dmapool_destroy(pool);
	free(v);
	free(d);
	dmapool_dev_put(dev);
}

/*
 * The default chunk (dmapool.h, opts.chunk_size): at least 64 blocks and,
 * in userspace, 64 KiB, in whole kernel-sized units, at most 256 KiB and
 * the 4096 blocks one bitmap names; one unit when boundaries leave gaps.
 */
Test(api, default_chunk_sizes)
{
	static const struct {
		size_t size, align, boundary, chunk, blocks;
	} cs[] = {
		{ 1, 1, 0, 4096, 4096 },	/* one page is 4096 blocks */
		{ 8, 8, 0, 32 << 10, 4096 },	/* the bitmap's reach */
		{ 16, 16, 0, 64 << 10, 4096 },
		{ 64, 64, 0, 64 << 10, 1024 },
		{ 256, 256, 0, 64 << 10, 256 },
		{ 1024, 1024, 0, 64 << 10, 64 },
		{ 4096, 4096, 0, 256 << 10, 64 },
		{ 8192, 8192, 0, 256 << 10, 32 },	/* the 256 KiB cap */
		{ 68, 32, 4096, 4096, 42 },	/* gaps at each boundary */
	};
	struct dmapool_dev *dev = tl_heap();
	struct dmapool_stats st;
	struct dmapool *pool;
	size_t i;

	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		pool = dmapool_create("chunks", dev, cs[i].size, cs[i].align,
				      cs[i].boundary);
		cr_assert_not_null(pool);
		dmapool_get_stats(pool, &st);
		cr_assert_eq(st.chunk_size, cs[i].chunk, "%zu/%zu/%zu: %llu",
			     cs[i].size, cs[i].align, cs[i].boundary,
			     (unsigned long long)st.chunk_size);
		cr_assert_eq(st.blocks_per_chunk, cs[i].blocks,
			     "%zu/%zu/%zu: %llu blocks", cs[i].size,
			     cs[i].align, cs[i].boundary,
			     (unsigned long long)st.blocks_per_chunk);
		dmapool_destroy(pool);
	}
	dmapool_dev_put(dev);
}

/*
 * meta_bytes counts the records the pool has: one per chunk it ever held
 * (slot 0 names nothing and has none).  A pool of one chunk of 16-byte
 * blocks, whose record is mostly a 32-bit state word per block, counts
 * at least those words and less than twice them.  (The default pool, not
 * this run's configuration: a redzone would change the geometry.)
 */
Test(api, meta_bytes_counts_one_record_per_chunk)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool;
	struct dmapool_stats st;
	dmapool_dma_t d;
	void *v;

	pool = dmapool_create("meta", dev, 16, 16, 0);
	cr_assert_not_null(pool);
	cr_assert_not_null(v = dmapool_alloc(pool, 0, &d));
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.chunks, 1);
	cr_assert_geq(st.blocks_per_chunk, 1024, "a chunk of small blocks is at least 64 KiB");
	cr_assert_geq(st.meta_bytes, st.blocks_per_chunk * 4);
	cr_assert_lt(st.meta_bytes, st.blocks_per_chunk * 8,
		     "%llu bytes of metadata for one chunk of %llu blocks",
		     (unsigned long long)st.meta_bytes,
		     (unsigned long long)st.blocks_per_chunk);
	dmapool_free(pool, v, d);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(api, reuses_freed_blocks_before_growing)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool;
	struct dmapool_stats st;
	void *v[1000];
	dmapool_dma_t d[1000];
	int round, i;

	tl_reset();
	pool = tl_pool(dev, 100, 4, 0);
	cr_assert_not_null(pool);
	for (round = 0; round < 50; round++) {
		for (i = 0; i < 1000; i++)
			cr_assert_not_null(v[i] = dmapool_alloc(pool, 0, &d[i]));
		for (i = 999; i >= 0; i--)
			dmapool_free(pool, v[i], d[i]);
	}
	dmapool_get_stats(pool, &st);
	cr_assert_lt(st.blocks_total,
		     1000 + tl_held_back() + st.blocks_per_chunk);
	cr_assert_eq(st.blocks_in_use, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(api, nogrow_exhausts_then_recovers)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool;
	struct dmapool_stats st;
	void *v[64], *extra;
	dmapool_dma_t d[64], de;
	uint64_t i;

	tl_reset();
	pool = page_pool(dev, 512, 0, 0);
	cr_assert_not_null(pool);
	cr_assert_null(dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &de),
		       "an empty pool cannot serve without growing");
	v[0] = dmapool_alloc(pool, 0, &d[0]);
	cr_assert_not_null(v[0]);
	dmapool_get_stats(pool, &st);
	cr_assert_leq(st.blocks_per_chunk, 64);
	for (i = 1; i < st.blocks_per_chunk; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW,
							&d[i]));
	cr_assert_null(dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &de));
	dmapool_free(pool, v[0], d[0]);
	if (tl_held_back()) {
		cr_assert_null(dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &de),
			       "quarantined until quiesce");
		dmapool_quiesce(pool);
	}
	extra = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &de);
	cr_assert_eq(extra, v[0], "the one free block is the one handed out");
	cr_assert_eq(de, d[0]);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.chunks, 1);
	for (i = 0; i < st.blocks_per_chunk; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

/* A backend that fails on demand, or hands out memory it should not. */
struct flaky {
	int fail_after;		/* allocations that succeed; -1 = all */
	int misalign;		/* hand out a misaligned chunk */
	int allocs, frees;
};

static int flaky_alloc(struct dmapool_dev *dev, size_t size, size_t align,
		       void **vaddr, dmapool_dma_t *dma)
{
	struct flaky *f = dmapool_dev_priv(dev);
	char *p;

	if (f->fail_after >= 0 && f->allocs >= f->fail_after)
		return -12;
	if (posix_memalign((void **)&p, align, size + align))
		return -12;
	f->allocs++;
	*vaddr = p + (f->misalign ? 8 : 0);
	*dma = (dmapool_dma_t)(uintptr_t)*vaddr + 0x1000000000000ull;
	return 0;
}

static void flaky_free(struct dmapool_dev *dev, void *vaddr,
		       dmapool_dma_t dma, size_t size)
{
	struct flaky *f = dmapool_dev_priv(dev);

	f->frees++;
	free((char *)vaddr - (f->misalign ? 8 : 0));
}

static const struct dmapool_dev_ops flaky_ops = {
	.chunk_alloc = flaky_alloc,
	.chunk_free = flaky_free,
};

Test(api, backend_failure_is_null_not_crash)
{
	struct flaky f = { .fail_after = 3 };
	struct dmapool_dev *dev = dmapool_dev_new(&flaky_ops, &f);
	struct dmapool *pool;
	struct dmapool_stats st;
	void *v[64 * 4];
	dmapool_dma_t d[64 * 4];
	int i, got = 0;

	tl_reset();
	pool = page_pool(dev, 64, 64, 0);
	cr_assert_not_null(pool);
	for (i = 0; i < 64 * 4; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		if (v[i])
			got++;
	}
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.chunks, 3);
	cr_assert_eq(got, 3 * st.blocks_per_chunk);
	for (i = 0; i < 64 * 4; i++)
		if (v[i])
			dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	cr_assert_eq(f.frees, 3, "every chunk back to the backend");
	cr_assert_eq(tl_cap.n, 0);
	dmapool_dev_put(dev);
}

Test(api, misaligned_backend_chunk_is_refused)
{
	struct flaky f = { .fail_after = -1, .misalign = 1 };
	struct dmapool_dev *dev = dmapool_dev_new(&flaky_ops, &f);
	struct dmapool *pool;
	dmapool_dma_t d;

	tl_reset();
	pool = tl_pool(dev, 64, 64, 0);
	cr_assert_not_null(pool);
	cr_assert_null(dmapool_alloc(pool, 0, &d));
	cr_assert_eq(f.allocs, f.frees, "the refused chunk went back");
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(api, dev_new_rejects_incomplete_ops)
{
	static const struct dmapool_dev_ops none = { 0 };

	cr_assert_null(dmapool_dev_new(NULL, NULL));
	cr_assert_null(dmapool_dev_new(&none, NULL));
}

Test(api, pool_keeps_its_backend_alive)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool;
	dmapool_dma_t d;
	void *v;

	tl_reset();
	pool = tl_pool(dev, 32, 0, 0);
	dmapool_dev_put(dev);	/* the pool holds its own reference */
	v = dmapool_alloc(pool, 0, &d);
	cr_assert_not_null(v);
	dmapool_free(pool, v, d);
	dmapool_destroy(pool);
}

Test(api, shm_backend_is_visible_to_a_second_mapping)
{
	struct dmapool_dev *dev = dmapool_dev_shm();
	struct dmapool *pool;
	unsigned char *dev_view, *v;
	dmapool_dma_t d;
	size_t len;
	int fd;

	cr_assert_not_null(dev);
	tl_reset();
	pool = tl_pool(dev, 256, 256, 0);
	cr_assert_not_null(pool);
	v = dmapool_alloc(pool, 0, &d);
	cr_assert_not_null(v);
	cr_assert_geq(d, DMAPOOL_SHM_IOVA_BASE);
	fd = dmapool_dev_shm_fd(dev);
	len = dmapool_dev_shm_size(dev);
	cr_assert_geq(fd, 0);
	cr_assert_geq(len, d - DMAPOOL_SHM_IOVA_BASE + 256);
	/* The "device" maps the file and addresses by dma. */
	dev_view = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert_neq(dev_view, MAP_FAILED);
	dev_view[d - DMAPOOL_SHM_IOVA_BASE + 7] = 0x5a;
	cr_assert_eq(v[7], 0x5a, "the device's write is seen by the host");
	v[9] = 0x3c;
	cr_assert_eq(dev_view[d - DMAPOOL_SHM_IOVA_BASE + 9], 0x3c);
	munmap(dev_view, len);
	dmapool_free(pool, v, d);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
	cr_assert_eq(tl_cap.n, 0);
	cr_assert_eq(dmapool_dev_shm_fd(NULL), -1);
}

Test(api, heap_dma_is_never_the_vaddr)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool = tl_pool(dev, 4096, 4096, 0);
	dmapool_dma_t d;
	void *v = dmapool_alloc(pool, 0, &d);

	cr_assert_not_null(v);
	cr_assert_neq(d, (dmapool_dma_t)(uintptr_t)v);
	cr_assert_eq(d % 4096, 0);
	dmapool_free(pool, v, d);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(api, report_kind_names_are_stable)
{
	cr_assert_str_eq(dmapool_report_kind_name(DMAPOOL_R_DOUBLE_FREE),
			 "double-free");
	cr_assert_str_eq(dmapool_report_kind_name(DMAPOOL_R_FREE_WRONG_POOL),
			 "free-wrong-pool");
	cr_assert_str_eq(dmapool_report_kind_name(DMAPOOL_R_DEVICE_WRITE_AFTER_FREE),
			 "device-write-after-free");
	cr_assert_str_eq(dmapool_report_kind_name(DMAPOOL_R_KINDS), "unknown");
	cr_assert_str_eq(dmapool_report_kind_name((enum dmapool_report_kind)-1),
			 "unknown");
}

Test(api, opts_are_validated)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool_opts o;

	tl_reset();
	dmapool_opts_init(&o);
	o.reserved[2] = 1;
	cr_assert_null(dmapool_create_opts("x", dev, 64, 0, 0, &o));
	dmapool_opts_init(&o);
	o.flags = 0x80000000u;
	cr_assert_null(dmapool_create_opts("x", dev, 64, 0, 0, &o));
	dmapool_opts_init(&o);
	o.index = (enum dmapool_index_kind)77;
	cr_assert_null(dmapool_create_opts("x", dev, 64, 0, 0, &o));
	cr_assert_eq(tl_count(DMAPOOL_R_BAD_GEOMETRY), 3);
	dmapool_dev_put(dev);
}

Test(api, stats_of_null_pool_are_zero)
{
	struct dmapool_stats st;

	memset(&st, 0xff, sizeof(st));
	dmapool_get_stats(NULL, &st);
	cr_assert_eq(st.blocks_total, 0);
	cr_assert_eq(st.violations, 0);
	dmapool_destroy(NULL);	/* a no-op, like the kernel's */
}

Test(api, long_name_is_truncated_not_overflowed)
{
	struct dmapool_dev *dev = tl_heap();
	char name[200];
	struct dmapool *pool;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	tl_reset();
	pool = dmapool_create(name, dev, 64, 0, 0);
	cr_assert_not_null(pool);
	dmapool_destroy(pool);
	pool = dmapool_create(NULL, dev, 64, 0, 0);
	cr_assert_not_null(pool);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

/*
 * Another thread frees with dmapool_free_bulk(): its remote blocks are
 * published one free-map word at a time (heap.h, struct dp_remote_run).  Runs
 * in order, runs broken at every block (shuffled), a block twice in one batch (the
 * second still unpublished when it comes) and a block of an earlier batch
 * again: each double free reported once, every block back exactly once.
 */
#define BULK_N		1024
#define BULK_BATCH	32

struct bulk_arg {
	struct dmapool *pool;
	void **v;
	dmapool_dma_t *d;
};

static void *bulk_freer(void *p)
{
	struct bulk_arg *a = p;
	void *v[BULK_BATCH + 1];
	dmapool_dma_t d[BULK_BATCH + 1];
	size_t order[BULK_N];
	uint64_t rng = 11;
	size_t i, k, n;

	/* The first half in allocation order, the second shuffled. */
	for (i = 0; i < BULK_N; i++)
		order[i] = i;
	for (k = BULK_N - 1; k > BULK_N / 2; k--) {
		size_t j = BULK_N / 2 + tl_rand(&rng) % (k + 1 - BULK_N / 2);
		size_t t = order[k];

		order[k] = order[j];
		order[j] = t;
	}
	for (i = 0; i < BULK_N; i += BULK_BATCH) {
		for (k = 0; k < BULK_BATCH; k++) {
			v[k] = a->v[order[i + k]];
			d[k] = a->d[order[i + k]];
		}
		n = BULK_BATCH;
		if (i == 2 * BULK_BATCH) {
			/* The batch's fifth block again, at its end. */
			v[n] = v[4];
			d[n] = d[4];
			n++;
		}
		if (i == 3 * BULK_BATCH) {
			/* A block of the first batch, long published. */
			v[n] = a->v[7];
			d[n] = a->d[7];
			n++;
		}
		dmapool_free_bulk(a->pool, (unsigned int)n, v, d);
	}
	return NULL;
}

static int cmp_ptr(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)*(void *const *)x;
	uintptr_t b = (uintptr_t)*(void *const *)y;

	return a < b ? -1 : a > b;
}

Test(api, bulk_remote_frees_come_back_once)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool;
	struct dmapool_stats st;
	void **v = calloc(BULK_N, sizeof(*v));
	dmapool_dma_t *d = calloc(BULK_N, sizeof(*d));
	void **w = calloc(BULK_N, sizeof(*w));
	struct bulk_arg a;
	pthread_t t;
	uint64_t total;
	size_t i;

	cr_assert(v && d && w);
	tl_reset();
	pool = tl_pool(dev, 64, 64, 0);
	cr_assert_not_null(pool);
	for (i = 0; i < BULK_N; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(pool, 0, &d[i]));
	dmapool_get_stats(pool, &st);
	total = st.blocks_total;
	a = (struct bulk_arg){ pool, v, d };
	cr_assert_eq(pthread_create(&t, NULL, bulk_freer, &a), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 0);
	cr_assert_eq(tl_count(DMAPOOL_R_DOUBLE_FREE), 2);
	cr_assert_eq(st.violations, 2);
	/* Every block comes back, none twice, without growing. */
	dmapool_quiesce(pool);
	for (i = 0; i < BULK_N; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(pool, 0, &d[i]));
	memcpy(w, v, BULK_N * sizeof(*v));
	qsort(w, BULK_N, sizeof(*w), cmp_ptr);
	for (i = 1; i < BULK_N; i++)
		cr_assert_neq(w[i - 1], w[i], "block %p handed out twice",
			      w[i]);
	dmapool_get_stats(pool, &st);
	cr_assert_leq(st.blocks_total, total + (tl_held_back() ?
		      tl_held_back() + st.blocks_per_chunk : 0));
	cr_assert_eq(st.blocks_in_use, BULK_N);
	dmapool_free_bulk(pool, BULK_N, v, d);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 0);
	cr_assert_eq(st.violations, 2);
	dmapool_destroy(pool);
	free(w);
	free(v);
	free(d);
	dmapool_dev_put(dev);
}
