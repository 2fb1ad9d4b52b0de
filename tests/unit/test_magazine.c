// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The magazine (dmapool/heap.h): the owner's frees into full chunks are
 * kept on a short stack in host memory and handed out again, most recent
 * first, before the heap looks for another chunk.  What it must keep:
 * nothing is lost or handed out twice, however many frees overflow it; a
 * block on it is still free for every check (double frees, stale handles,
 * device writes under poison); shrink sees its chunks' blocks as free; and
 * the pools that must not use it (random placement, automatic shrink) do
 * not.  Runs once per index kind (DMAPOOL_TEST_INDEX): the hash index frees
 * through the fast path, the others through the slow one.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "testlib.h"

/* 64-byte blocks in 4 KiB chunks: 64 blocks a chunk. */
#define BS	64
#define PER	64

static struct dmapool *make(struct dmapool_dev *dev, unsigned int flags)
{
	struct dmapool_opts o;
	struct dmapool *pool;

	dmapool_opts_init(&o);
	o.flags = flags;
	o.chunk_size = 4096;
	o.seed = 7;
	pool = tl_pool_opts(dev, BS, BS, 0, &o);
	cr_assert_not_null(pool);
	return pool;
}

static struct dmapool_stats stats(struct dmapool *pool)
{
	struct dmapool_stats st;

	dmapool_get_stats(pool, &st);
	return st;
}

static void setup(void)
{
	tl_reset();
}

TestSuite(magazine, .init = setup);

/* Fill exactly @chunks chunks: the heap has no free block left. */
static void fill(struct dmapool *pool, size_t chunks, void **v,
		 dmapool_dma_t *d)
{
	size_t i;

	cr_assert_eq(stats(pool).blocks_per_chunk, PER);
	for (i = 0; i < chunks * PER; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(pool, 0, &d[i]));
	cr_assert_eq(stats(pool).chunks, chunks);
}

Test(magazine, a_block_freed_into_a_full_chunk_comes_back_first)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool = make(dev, 0);
	void *v[2 * PER], *w;
	dmapool_dma_t d[2 * PER], dw;
	size_t i;

	fill(pool, 2, v, d);
	/*
	 * Most recent first, and no growth.  (Frees into the second chunk,
	 * the one the heap still allocates from, go back to its free map:
	 * it is full only once an allocation has looked for more.)
	 */
	for (i = 0; i < PER; i += 9)
		dmapool_free(pool, v[i], d[i]);
	for (i = (PER - 1) / 9 * 9;; i -= 9) {
		w = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &dw);
		cr_assert_eq(w, v[i], "block %zu comes back in LIFO order", i);
		cr_assert_eq(dw, d[i]);
		if (!i)
			break;
	}
	cr_assert_null(dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &dw),
		       "every block is allocated again");
	cr_assert_eq(stats(pool).blocks_in_use, 2 * PER);
	for (i = 0; i < 2 * PER; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(stats(pool).blocks_in_use, 0);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

/* Frees past the magazine's room go to the free maps: nothing is lost. */
static void overflow_round_trip(unsigned int flags)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool = make(dev, flags);
	void *v[4 * PER], *again[4 * PER];
	dmapool_dma_t d[4 * PER], da[4 * PER];
	size_t i, j, n = 4 * PER;
	uint64_t rng = 99;

	fill(pool, 4, v, d);
	/* Free all of them in a random order: 256 frees into full chunks. */
	for (i = n - 1; i > 0; i--) {
		void *t = v[i];
		dmapool_dma_t td = d[i];

		j = tl_rand(&rng) % (i + 1);
		v[i] = v[j];
		d[i] = d[j];
		v[j] = t;
		d[j] = td;
	}
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(stats(pool).blocks_in_use, 0);
	if (flags & DMAPOOL_OPT_QUARANTINE)
		dmapool_quiesce(pool);
	/* Every block once, and then the pool is full again. */
	for (i = 0; i < n; i++) {
		again[i] = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &da[i]);
		cr_assert_not_null(again[i], "block %zu of %zu", i, n);
		cr_assert_eq(da[i], tl_heap_dma(again[i]));
		for (j = 0; j < i; j++)
			cr_assert_neq(again[j], again[i], "handed out twice");
	}
	cr_assert_null(dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &da[0]));
	cr_assert_eq(stats(pool).chunks, 4);
	for (i = 0; i < n; i++)
		dmapool_free(pool, again[i], da[i]);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(magazine, overflow_loses_nothing)
{
	overflow_round_trip(0);
}

Test(magazine, overflow_loses_nothing_with_quarantine)
{
	overflow_round_trip(DMAPOOL_OPT_QUARANTINE);
}

Test(magazine, overflow_loses_nothing_with_poison)
{
	overflow_round_trip(DMAPOOL_OPT_POISON);
}

Test(magazine, overflow_loses_nothing_with_random_placement)
{
	overflow_round_trip(DMAPOOL_OPT_RANDOM);
}

Test(magazine, a_double_free_of_a_block_on_it_is_reported)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool = make(dev, 0);
	void *v[PER], *a, *b;
	dmapool_dma_t d[PER], da, db;
	size_t i;

	fill(pool, 1, v, d);
	dmapool_free(pool, v[5], d[5]);
	dmapool_free(pool, v[5], d[5]);
	cr_assert_eq(tl_cap.n, 1);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE);
	cr_assert_eq(tl_last()->block, v[5]);
	/* It is on the magazine once: handed out once. */
	a = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &da);
	b = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &db);
	cr_assert_eq(a, v[5]);
	cr_assert_null(b, "the chunk is full again");
	for (i = 0; i < PER; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(tl_cap.n, 1);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(magazine, a_stale_handle_of_a_reused_block_is_reported)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool = make(dev, 0);
	struct dmapool_block b[PER], now;
	size_t i;

	for (i = 0; i < PER; i++)
		cr_assert_not_null((b[i] = dmapool_alloc_block(pool, 0)).vaddr);
	cr_assert_eq(stats(pool).chunks, 1);
	dmapool_free_block(pool, b[9]);
	now = dmapool_alloc_block(pool, DMAPOOL_GFP_NOGROW);
	cr_assert_eq(now.vaddr, b[9].vaddr, "reused from the magazine");
	cr_assert_neq(now.handle, b[9].handle);
	dmapool_free_block(pool, b[9]);
	cr_assert_eq(tl_cap.n, 1);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_STALE_HANDLE);
	cr_assert_eq(stats(pool).blocks_in_use, PER, "the new owner keeps it");
	dmapool_free_block(pool, now);
	for (i = 0; i < PER; i++)
		if (i != 9)
			dmapool_free_block(pool, b[i]);
	cr_assert_eq(stats(pool).blocks_in_use, 0);
	cr_assert_eq(tl_cap.n, 1);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(magazine, poison_checks_a_block_handed_out_from_it)
{
	unsigned int flags[] = { DMAPOOL_OPT_POISON,
				 DMAPOOL_OPT_POISON_SAMPLED };
	size_t f;

	for (f = 0; f < 2; f++) {
		struct dmapool_dev *dev = tl_heap();
		struct dmapool *pool = make(dev, flags[f]);
		void *v[PER], *a;
		dmapool_dma_t d[PER], da;
		size_t i;

		tl_reset();
		fill(pool, 1, v, d);
		dmapool_free(pool, v[3], d[3]);
		/* The device writes where an embedded list keeps its link. */
		memset(v[3], 0x5a, 8);
		a = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &da);
		cr_assert_eq(a, v[3], "from the magazine");
		cr_assert_eq(tl_count(DMAPOOL_R_DEVICE_WRITE_AFTER_FREE), 1,
			     "flags %#x: the write is reported", flags[f]);
		cr_assert_eq(tl_last()->block, v[3]);
		cr_assert_eq(tl_last()->offset, 0);
		for (i = 0; i < PER; i++)
			dmapool_free(pool, v[i], d[i]);
		cr_assert_eq(tl_cap.n, 1);
		dmapool_destroy(pool);
		dmapool_dev_put(dev);
	}
}

Test(magazine, shrink_sees_the_blocks_on_it_as_free)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool = make(dev, 0);
	void *v[2 * PER];
	dmapool_dma_t d[2 * PER];
	size_t i;

	fill(pool, 2, v, d);
	/* The first chunk emptied by frees that all found it full. */
	for (i = 0; i < PER; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(dmapool_shrink(pool), 1, "the emptied chunk goes back");
	cr_assert_eq(stats(pool).chunks, 1);
	cr_assert_eq(stats(pool).blocks_in_use, PER);
	/* The rest is intact and the pool grows again. */
	for (i = 0; i < PER; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(pool, 0, &d[i]));
	cr_assert_eq(stats(pool).chunks, 2);
	for (i = 0; i < 2 * PER; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(magazine, automatic_shrink_releases_a_chunk_its_frees_empty)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool;
	struct dmapool_opts o;
	void *v[2 * PER];
	dmapool_dma_t d[2 * PER];
	size_t i;

	dmapool_opts_init(&o);
	o.flags = DMAPOOL_OPT_AUTO_SHRINK;
	o.reserve_chunks = 1;
	o.chunk_size = 4096;
	pool = tl_pool_opts(dev, BS, BS, 0, &o);
	cr_assert_not_null(pool);
	fill(pool, 2, v, d);
	/* Both emptied: the one kept is hot, the other goes at once. */
	for (i = 0; i < 2 * PER; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(stats(pool).chunks, 1, "no block waits on a magazine");
	cr_assert_eq(stats(pool).chunks_released, 1);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}
