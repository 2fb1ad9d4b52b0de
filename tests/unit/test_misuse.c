// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The misuse matrix: every wrong call is reported with the right kind and
 * details, and leaves the pool exactly as it was and usable.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "testlib.h"
#include "cases/misuse.h"

static struct dmapool_dev *dev;
static struct dmapool *pool;
static struct dmapool_stats st0;

static void setup(void)
{
	tl_reset();
	dev = tl_heap();
	pool = tl_pool(dev, 64, 16, 0);
	cr_assert_not_null(pool);
}

static void teardown(void)
{
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

/* Snapshot before the misuse... */
static void before(void)
{
	dmapool_get_stats(pool, &st0);
}

/* ...and after: nothing changed but the counters, and the pool still works. */
static void unchanged_and_usable(enum dmapool_report_kind kind)
{
	struct dmapool_stats st;
	void *v[300];
	dmapool_dma_t d[300];
	unsigned int reports = tl_cap.n;
	int i;

	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, st0.blocks_in_use);
	cr_assert_eq(st.blocks_total, st0.blocks_total);
	cr_assert_eq(st.violations, st0.violations + 1);
	cr_assert_eq(st.by_kind[kind], st0.by_kind[kind] + 1);
	for (i = 0; i < 300; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(pool, 0, &d[i]));
	for (i = 0; i < 300; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(tl_cap.n, reports, "no report from correct use");
}

TestSuite(misuse, .init = setup, .fini = teardown);

Test(misuse, double_free)
{
	dmapool_dma_t d;
	void *v = dmapool_alloc(pool, 0, &d);

	dmapool_free(pool, v, d);
	before();
	dmapool_free(pool, v, d);
	cr_assert_eq(tl_cap.n, 1);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE);
	cr_assert_eq(tl_last()->addr, v);
	cr_assert_eq(tl_last()->block, v);
	cr_assert_eq(tl_last()->block_dma, d);
	cr_assert_eq(tl_last()->pool, pool);
	cr_assert_str_eq(tl_last()->pool_name, "test");
	unchanged_and_usable(DMAPOOL_R_DOUBLE_FREE);
}

Test(misuse, double_free_after_reuse_is_not_a_false_alarm)
{
	dmapool_dma_t d, d2;
	void *v = dmapool_alloc(pool, 0, &d), *v2;

	dmapool_free(pool, v, d);
	v2 = tl_realloc(pool, v, &d2);
	cr_assert_eq(v2, v);
	dmapool_free(pool, v2, d2);
	cr_assert_eq(tl_cap.n, 0);
}

Test(misuse, free_outside_pool)
{
	int on_stack;
	char *heap = malloc(64);
	dmapool_dma_t d;
	void *v = dmapool_alloc(pool, 0, &d);

	before();
	dmapool_free(pool, &on_stack, 0x1234);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_FREE_OUTSIDE);
	cr_assert_eq(tl_last()->addr, &on_stack);
	cr_assert_eq(tl_last()->dma, 0x1234);
	cr_assert_null(tl_last()->block);
	unchanged_and_usable(DMAPOOL_R_FREE_OUTSIDE);
	before();
	dmapool_free(pool, heap, tl_heap_dma(heap));
	unchanged_and_usable(DMAPOOL_R_FREE_OUTSIDE);
	before();
	dmapool_free(pool, NULL, 0);
	unchanged_and_usable(DMAPOOL_R_FREE_OUTSIDE);
	before();
	dmapool_free(pool, (void *)~(uintptr_t)0, ~0ull);
	unchanged_and_usable(DMAPOOL_R_FREE_OUTSIDE);
	cr_assert_eq(tl_cap.n, 4);
	dmapool_free(pool, v, d);
	free(heap);
}

Test(misuse, free_inside_block_not_at_start)
{
	dmapool_dma_t d;
	char *v = dmapool_alloc(pool, 0, &d);
	int off;

	for (off = 1; off < 64; off += 7) {
		before();
		dmapool_free(pool, v + off, d + off);
		cr_assert_eq(tl_last()->kind, DMAPOOL_R_FREE_NOT_BLOCK);
		cr_assert_eq(tl_last()->block, v);
		cr_assert_eq(tl_last()->block_dma, d);
		cr_assert_eq(tl_last()->offset, (size_t)off);
		unchanged_and_usable(DMAPOOL_R_FREE_NOT_BLOCK);
	}
	/* The block is still allocated and frees normally. */
	dmapool_free(pool, v, d);
	cr_assert_eq(tl_count(DMAPOOL_R_DOUBLE_FREE), 0);
	dmapool_free(pool, v, d);
	cr_assert_eq(tl_count(DMAPOOL_R_DOUBLE_FREE), 1);
}

Test(misuse, free_in_unused_tail_of_a_page)
{
	/* 68/32/4096: 42 blocks of 96 bytes, 64 bytes left at each page end. */
	struct dmapool *p2 = tl_pool(dev, 68, 32, 4096);
	struct dmapool_stats st;
	dmapool_dma_t d;
	char *v = dmapool_alloc(p2, 0, &d);
	struct tl_chunk ch[1];

	cr_assert_not_null(v);
	dmapool_get_stats(p2, &st);
	tl_chunks(p2, ch, 1);
	if (st.stride == 96) {
		dmapool_free(p2, ch[0].vaddr + 4096 - 32, ch[0].dma + 4096 - 32);
		cr_assert_eq(tl_last()->kind, DMAPOOL_R_FREE_NOT_BLOCK);
		cr_assert_null(tl_last()->block, "in no block at all");
	}
	dmapool_free(p2, v, d);
	dmapool_destroy(p2);
}

Test(misuse, free_with_wrong_dma)
{
	dmapool_dma_t d, d2;
	void *v = dmapool_alloc(pool, 0, &d);
	void *v2 = dmapool_alloc(pool, 0, &d2);
	const dmapool_dma_t wrong[] = { 0, d + 64, d - 64, d2, d ^ 1,
					(dmapool_dma_t)(uintptr_t)v };
	unsigned int i;

	for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		before();
		dmapool_free(pool, v, wrong[i]);
		cr_assert_eq(tl_last()->kind, DMAPOOL_R_FREE_DMA_MISMATCH);
		cr_assert_eq(tl_last()->dma, wrong[i]);
		cr_assert_eq(tl_last()->block_dma, d);
		unchanged_and_usable(DMAPOOL_R_FREE_DMA_MISMATCH);
	}
	dmapool_free(pool, v, d);
	dmapool_free(pool, v2, d2);
	cr_assert_eq(tl_cap.n, i);
}

Test(misuse, free_to_wrong_pool)
{
	struct dmapool_opts o;
	struct dmapool *other;
	dmapool_dma_t d;
	void *v;

	dmapool_opts_init(&o);
	other = dmapool_create_opts("other-pool", dev, 64, 16, 0, &o);
	cr_assert_not_null(other);
	v = dmapool_alloc(other, 0, &d);
	before();
	dmapool_free(pool, v, d);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_FREE_WRONG_POOL);
	cr_assert_str_eq(tl_last()->owner_name, "other-pool");
	cr_assert_eq(tl_last()->pool, pool);
	unchanged_and_usable(DMAPOOL_R_FREE_WRONG_POOL);
	/* Still allocated in its own pool. */
	dmapool_free(other, v, d);
	cr_assert_eq(tl_count(DMAPOOL_R_DOUBLE_FREE), 0);
	dmapool_destroy(other);
}

Test(misuse, null_pool_everywhere)
{
	struct dmapool_block b;
	dmapool_dma_t d = 7;
	uint64_t before_global = dmapool_global_violations();

	cr_assert_null(dmapool_alloc(NULL, 0, &d));
	cr_assert_null(dmapool_zalloc(NULL, 0, &d));
	dmapool_free(NULL, &d, 7);
	b = dmapool_alloc_block(NULL, 0);
	cr_assert_null(b.vaddr);
	dmapool_free_block(NULL, b);
	cr_assert_eq(tl_count(DMAPOOL_R_NULL_POOL), 5);
	cr_assert_eq(dmapool_global_violations(), before_global + 5);
	cr_assert_null(tl_last()->pool);
}

Test(misuse, pool_survives_a_storm_of_misuse)
{
	uint64_t rng = 42;
	void *v[256];
	dmapool_dma_t d[256];
	bool live[256];
	int i, step;

	for (i = 0; i < 256; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		live[i] = true;
	}
	for (step = 0; step < 20000; step++) {
		int k = (int)(tl_rand(&rng) % 256);
		uint64_t r = tl_rand(&rng);

		switch (r % 6) {
		case 0:	/* correct free / alloc */
			if (live[k]) {
				dmapool_free(pool, v[k], d[k]);
			} else {
				v[k] = dmapool_alloc(pool, 0, &d[k]);
				cr_assert_not_null(v[k]);
			}
			live[k] = !live[k];
			break;
		case 1:	/* double free of a free block (not reused since) */
			if (!live[k]) {
				int j;

				for (j = 0; j < 256; j++)
					if (live[j] && v[j] == v[k])
						break;
				if (j == 256)
					dmapool_free(pool, v[k], d[k]);
			}
			break;
		case 2:	/* interior pointer */
			dmapool_free(pool, (char *)v[k] + 1 + r % 63,
				     d[k] + 1 + r % 63);
			break;
		case 3:	/* wrong dma */
			if (live[k])
				dmapool_free(pool, v[k], d[k] + 64 * (1 + r % 4));
			break;
		case 4:	/* garbage pointer */
			dmapool_free(pool, (void *)(uintptr_t)(r | 1), r);
			break;
		default: /* a random block's vaddr with another's dma */
			if (live[k] && live[(k + 1) % 256] && d[k] != d[(k + 1) % 256])
				dmapool_free(pool, v[k], d[(k + 1) % 256]);
			break;
		}
	}
	/* Exactly the live blocks are allocated. */
	{
		struct dmapool_stats st;
		uint64_t n = 0;

		for (i = 0; i < 256; i++)
			n += live[i];
		dmapool_get_stats(pool, &st);
		cr_assert_eq(st.blocks_in_use, n);
		cr_assert_eq(st.violations, tl_cap.n);
		for (i = 0; i < 256; i++)
			if (live[i])
				dmapool_free(pool, v[i], d[i]);
		dmapool_get_stats(pool, &st);
		cr_assert_eq(st.blocks_in_use, 0);
		cr_assert_eq(st.violations, tl_cap.n, "no new reports");
	}
}

/* A backend that records what it got back, for destroy-busy. */
struct tracker {
	int allocs, frees;
	void *freed[64];
	void *given[64];
	size_t size;
};

static int track_alloc(struct dmapool_dev *dv, size_t size, size_t align,
		       void **vaddr, dmapool_dma_t *dma)
{
	struct tracker *t = dmapool_dev_priv(dv);

	if (t->allocs == 64 || posix_memalign(vaddr, align, size))
		return -12;
	t->given[t->allocs++] = *vaddr;
	t->size = size;
	*dma = (dmapool_dma_t)(uintptr_t)*vaddr + 0x1000000000000ull;
	return 0;
}

static void track_free(struct dmapool_dev *dv, void *vaddr, dmapool_dma_t dma,
		       size_t size)
{
	struct tracker *t = dmapool_dev_priv(dv);

	t->freed[t->frees++] = vaddr;
	free(vaddr);
}

static const struct dmapool_dev_ops track_ops = {
	.chunk_alloc = track_alloc,
	.chunk_free = track_free,
};

Test(misuse, destroy_busy_keeps_busy_chunks_only)
{
	struct tracker t = { 0 };
	struct dmapool_dev *tdev = dmapool_dev_new(&track_ops, &t);
	struct dmapool_opts o;
	struct dmapool *p2;
	struct dmapool_stats st;
	void *v[12], *kept;
	dmapool_dma_t d[12];
	int i, n;

	/* One page per chunk, as the kernel allocates. */
	dmapool_opts_init(&o);
	o.chunk_size = 4096;
	p2 = tl_pool_opts(tdev, 1024, 1024, 0, &o);
	cr_assert_not_null(p2);
	dmapool_get_stats(p2, &st);
	/* 4 blocks of 1024 per page; fewer with a redzone. */
	cr_assert_leq(st.blocks_per_chunk, 4);
	cr_assert_geq(st.blocks_per_chunk, 2);
	n = 3 * (int)st.blocks_per_chunk;
	for (i = 0; i < n; i++)
		v[i] = dmapool_alloc(p2, 0, &d[i]);
	dmapool_get_stats(p2, &st);
	cr_assert_eq(st.chunks, 3);
	/* Empty two chunks; keep one block in the third. */
	for (i = 0; i < n; i++)
		if (i != 5)
			dmapool_free(p2, v[i], d[i]);
	memset(v[5], 0x77, 1024);	/* "the device is still using it" */
	dmapool_destroy(p2);
	cr_assert_eq(tl_count(DMAPOOL_R_DESTROY_BUSY), 1);
	cr_assert_eq(tl_last()->count, 1);
	cr_assert_eq(t.frees, 2, "empty chunks are released");
	kept = NULL;
	for (i = 0; i < t.allocs; i++)
		if (t.given[i] != t.freed[0] && t.given[i] != t.freed[1])
			kept = t.given[i];
	cr_assert_not_null(kept);
	cr_assert((char *)v[5] >= (char *)kept &&
		  (char *)v[5] < (char *)kept + t.size,
		  "the busy chunk is the one kept");
	cr_assert_eq(((unsigned char *)v[5])[1023], 0x77,
		     "kept memory is still intact");
	free(kept);	/* the test, standing in for the driver, cleans up */
	dmapool_dev_put(tdev);
}

/* The misuse table shared with the in-kernel tests, on a fresh backend. */
Test(misuse_table, every_row)
{
	struct tc_env *e = tl_env();
	size_t i;

	for (i = 0; i < TC_ARRAY_SIZE(tc_misuse_cases); i++)
		cr_assert(tc_misuse_run(e, &tc_misuse_cases[i]), "%s: %s",
			  tc_misuse_cases[i].name, e->msg);
	tl_env_put(e);
}
