// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The region backend (compat/user/dev_region.c): chunks carved out of memory
 * the test mapped itself, at a bus address of the test's choosing.
 *
 * Through pools: every chunk lies inside the region at the right offset in
 * both addresses, aligned as the pool asks, zeroed when handed out (the
 * region starts out full of garbage); a full region makes dmapool_alloc
 * return NULL and nothing else; chunks a pool gives back (shrink, destroy)
 * serve the next pool; several pools and threads share one region without
 * two chunks ever overlapping.  Through the ops directly: alignment the
 * region's two addresses cannot both meet is refused, frees of ranges the
 * region did not hand out change nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "testlib.h"
#include "dev.h"
#include "dev_region.h"

#define PG		4096ull
#define REGION_DMA	0x40000000ull	/* 1 GiB: aligned to 2 MiB and more */
#define GARBAGE		0xa5

/* @len bytes of fresh memory aligned to 2 MiB, filled with garbage. */
static uint8_t *region_mem(size_t len)
{
	size_t span = len + (2u << 20);
	uint8_t *p = mmap(NULL, span, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;

	cr_assert_neq(p, MAP_FAILED);
	a = ((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
	memset((void *)a, GARBAGE, len);
	return (uint8_t *)a;
}

static struct dp_region_info info(const struct dmapool_dev *dev)
{
	struct dp_region_info ri;

	cr_assert_eq(dp_dev_region_info(dev, &ri), 0);
	return ri;
}

/* Every chunk of @pool: inside the region, same offset, aligned. */
static size_t check_chunks(const struct dmapool *pool, const uint8_t *mem,
			   size_t len, uint64_t align)
{
	struct tl_chunk c[256];
	size_t n = tl_chunks(pool, c, 256), i;

	cr_assert(n <= 256);
	for (i = 0; i < n; i++) {
		cr_assert(c[i].vaddr >= mem && c[i].vaddr + c[i].len <= mem + len,
			  "chunk %p+%zu outside the region", c[i].vaddr,
			  c[i].len);
		cr_assert_eq(c[i].dma - REGION_DMA,
			     (uint64_t)(c[i].vaddr - mem),
			     "chunk vaddr and dma at different offsets");
		cr_assert_eq((uintptr_t)c[i].vaddr & (align - 1), 0);
		cr_assert_eq(c[i].dma & (align - 1), 0);
	}
	return n;
}

Test(region, chunks_inside_zeroed_and_exhaustion_is_a_clean_null)
{
	const size_t len = 64 * PG;
	uint8_t *mem = region_mem(len);
	struct dmapool_dev *dev = dmapool_dev_region(mem, REGION_DMA, len);
	struct dmapool *pool;
	struct dmapool_stats st;
	static void *v[64 * 16];
	static dmapool_dma_t d[64 * 16];
	size_t n = 0, i, k;

	cr_assert_not_null(dev);
	cr_assert_eq(info(dev).size, len);
	pool = tl_pool(dev, 256, 256, 0);
	cr_assert_not_null(pool);
	/* 16 blocks per 4 KiB chunk, 64 chunks: then the region is full. */
	while (n < 64 * 16 && (v[n] = dmapool_alloc(pool, 0, &d[n]))) {
		cr_assert_eq(d[n] - REGION_DMA, (uint64_t)((uint8_t *)v[n] - mem));
		n++;
	}
	dmapool_get_stats(pool, &st);
	cr_assert_eq(n, st.blocks_total, "every block of the region used (%zu of %llu)",
		     n, (unsigned long long)st.blocks_total);
	cr_assert_eq(st.dma_bytes, len, "the pool holds the whole region");
	cr_assert_null(dmapool_alloc(pool, 0, &d[0]), "a full region gives no block");
	cr_assert_eq(info(dev).used, len);
	cr_assert_geq(info(dev).failures, 1);
	check_chunks(pool, mem, len, PG);
	/* Without the poison option the block is what the chunk held: 0. */
	if (!(tl_flags() & (DMAPOOL_OPT_POISON | DMAPOOL_OPT_POISON_SAMPLED)) &&
	    !tl_redzone()) {
		for (i = 0; i < n; i++)
			for (k = 0; k < 256; k++)
				cr_assert_eq(((uint8_t *)v[i])[k], 0,
					     "block %zu byte %zu not zeroed", i, k);
	}
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.violations, 0);
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	cr_assert_eq(info(dev).used, 0, "destroy gave every chunk back");
	cr_assert_eq(info(dev).bad_frees, 0);
	dmapool_dev_put(dev);
}

/*
 * A region smaller than a pool's default chunk (at least 64 KiB of small
 * blocks) is full from the start; one-page chunks use all of it.
 */
Test(region, smaller_than_the_default_chunk_needs_chunk_size)
{
	const size_t len = 8 * PG;
	uint8_t *mem = region_mem(len);
	struct dmapool_dev *dev = dmapool_dev_region(mem, REGION_DMA, len);
	static void *v[8 * 64];
	static dmapool_dma_t d[8 * 64];
	struct dmapool_opts o;
	struct dmapool_stats st;
	struct dmapool *pool;
	size_t n = 0;

	cr_assert_not_null(dev);
	/* The default chunk (tl_pool() would apply DMAPOOL_TEST_CHUNK). */
	pool = dmapool_create("small", dev, 64, 64, 0);
	cr_assert_not_null(pool);
	dmapool_get_stats(pool, &st);
	cr_assert_gt(st.chunk_size, len);
	cr_assert_null(dmapool_alloc(pool, 0, &d[0]),
		       "a %llu-byte chunk does not fit a %zu-byte region",
		       (unsigned long long)st.chunk_size, len);
	cr_assert_geq(info(dev).failures, 1);
	cr_assert_eq(info(dev).used, 0);
	dmapool_destroy(pool);

	dmapool_opts_init(&o);
	o.chunk_size = PG;
	pool = tl_pool_opts(dev, 64, 64, 0, &o);
	cr_assert_not_null(pool);
	dmapool_get_stats(pool, &st);
	while (n < 8 * 64 && (v[n] = dmapool_alloc(pool, 0, &d[n])))
		n++;
	dmapool_get_stats(pool, &st);
	cr_assert_eq(n, st.blocks_total);
	cr_assert_eq(st.dma_bytes, len, "one-page chunks fill the region");
	check_chunks(pool, mem, len, PG);
	while (n--)
		dmapool_free(pool, v[n], d[n]);
	dmapool_destroy(pool);
	cr_assert_eq(info(dev).used, 0);
	dmapool_dev_put(dev);
}

Test(region, chunks_come_back_and_serve_the_next_pool)
{
	const size_t len = 8 * PG;
	uint8_t *mem = region_mem(len);
	struct dmapool_dev *dev = dmapool_dev_region(mem, REGION_DMA, len);
	struct dmapool_opts o;
	struct dmapool *a, *b;
	void *v[8];
	dmapool_dma_t d[8];
	int i;

	cr_assert_not_null(dev);
	a = tl_pool(dev, 4096, 4096, 0);
	for (i = 0; i < 8; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(a, 0, &d[i]));
	/* Full: a second pool cannot get its first chunk. */
	b = tl_pool(dev, 64, 64, 0);
	cr_assert_not_null(b);
	cr_assert_null(dmapool_alloc(b, 0, &d[0]));
	for (i = 0; i < 8; i++)
		dmapool_free(a, v[i], d[i]);
	dmapool_destroy(a);
	cr_assert_eq(info(dev).chunks, 0);
	/* Now b grows into the same memory. */
	for (i = 0; i < 8; i++) {
		cr_assert_not_null(v[i] = dmapool_alloc(b, 0, &d[i]));
		cr_assert(d[i] >= REGION_DMA && d[i] < REGION_DMA + len);
	}
	for (i = 0; i < 8; i++)
		dmapool_free(b, v[i], d[i]);
	dmapool_destroy(b);

	/* Shrink gives chunks back too. */
	dmapool_opts_init(&o);
	tl_opts(&o);
	o.reserve_chunks = 0;
	o.flags &= ~DMAPOOL_OPT_AUTO_SHRINK;
	a = dmapool_create_opts("shrinker", dev, 4096, 4096, 0, &o);
	cr_assert_not_null(a);
	for (i = 0; i < 8; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(a, 0, &d[i]));
	for (i = 0; i < 4; i++)
		dmapool_free(a, v[i], d[i]);
	dmapool_quiesce(a);
	cr_assert_eq(dmapool_shrink(a), 4);
	cr_assert_eq(info(dev).chunks, 4);
	cr_assert_eq(info(dev).used, 4 * PG);
	for (i = 4; i < 8; i++)
		dmapool_free(a, v[i], d[i]);
	dmapool_destroy(a);
	cr_assert_eq(info(dev).chunks, 0);
	cr_assert_eq(info(dev).bad_frees, 0);
	dmapool_dev_put(dev);
}

Test(region, pool_alignments_above_the_page)
{
	const size_t len = 64 * PG;
	uint8_t *mem = region_mem(len);
	struct dmapool_dev *dev = dmapool_dev_region(mem, REGION_DMA, len);
	struct dmapool_opts o;
	struct dmapool *p8k, *p64k;
	void *v, *w;
	dmapool_dma_t d, e;

	cr_assert_not_null(dev);
	/* A 5000-byte block needs an 8 KiB chunk aligned to 8 KiB. */
	p8k = tl_pool(dev, 5000, 8, 0);
	cr_assert_not_null(p8k);
	cr_assert_not_null(v = dmapool_alloc(p8k, 0, &d));
	check_chunks(p8k, mem, len, 8192);
	dmapool_opts_init(&o);
	tl_opts(&o);
	o.chunk_size = 65536;
	p64k = dmapool_create_opts("64k", dev, 4096, 4096, 0, &o);
	cr_assert_not_null(p64k);
	cr_assert_not_null(w = dmapool_alloc(p64k, 0, &e));
	check_chunks(p64k, mem, len, PG);
	dmapool_free(p8k, v, d);
	dmapool_free(p64k, w, e);
	dmapool_destroy(p8k);
	dmapool_destroy(p64k);
	cr_assert_eq(info(dev).used, 0);
	dmapool_dev_put(dev);
}

Test(region, create_refuses_what_it_cannot_serve)
{
	uint8_t *mem = region_mem(4 * PG);
	struct dmapool_dev *dev;
	struct dp_region_info ri;

	errno = 0;
	cr_assert_null(dmapool_dev_region(NULL, REGION_DMA, 4 * PG));
	cr_assert_eq(errno, EINVAL);
	errno = 0;
	cr_assert_null(dmapool_dev_region(mem, REGION_DMA, 0));
	cr_assert_eq(errno, EINVAL);
	/* vaddr and dma at different offsets in their page. */
	errno = 0;
	cr_assert_null(dmapool_dev_region(mem, REGION_DMA + 64, 4 * PG));
	cr_assert_eq(errno, EINVAL);
	/* Less than a whole page once trimmed. */
	errno = 0;
	cr_assert_null(dmapool_dev_region(mem + 100, REGION_DMA + 100, PG));
	cr_assert_eq(errno, EINVAL);
	/* A dma range that wraps. */
	errno = 0;
	cr_assert_null(dmapool_dev_region(mem, UINT64_MAX - PG + 1, 4 * PG));
	cr_assert_eq(errno, EINVAL);
	/* Trimmed inwards to whole pages. */
	dev = dmapool_dev_region(mem + 100, REGION_DMA + 100, 3 * PG);
	cr_assert_not_null(dev);
	ri = info(dev);
	cr_assert_eq(ri.vaddr, mem + PG);
	cr_assert_eq(ri.dma, REGION_DMA + PG);
	cr_assert_eq(ri.size, 2 * PG);
	dmapool_dev_put(dev);
}

Test(region, ops_refuse_bad_alignment_and_foreign_frees)
{
	const size_t len = 16 * PG;
	uint8_t *mem = region_mem(len);
	/* vaddr 2 MiB aligned, dma only 4 KiB aligned. */
	struct dmapool_dev *dev = dmapool_dev_region(mem, REGION_DMA + PG, len);
	const struct dmapool_dev_ops *ops;
	struct dp_region_info ri;
	void *v, *w;
	dmapool_dma_t d, e;

	cr_assert_not_null(dev);
	ops = dev->ops;
	cr_assert_eq(ops->chunk_alloc(dev, PG, PG, &v, &d), 0);
	cr_assert_eq(d, REGION_DMA + PG);
	cr_assert_eq(v, mem);
	/* 8 KiB alignment in both addresses is impossible here. */
	cr_assert_eq(ops->chunk_alloc(dev, 2 * PG, 2 * PG, &w, &e), -EINVAL);
	/* Frees of what the region did not hand out change nothing. */
	ops->chunk_free(dev, mem + PG, REGION_DMA + 2 * PG, PG);	/* free */
	ops->chunk_free(dev, v, d + PG, PG);			/* wrong dma */
	ops->chunk_free(dev, v, 0x1000, PG);			/* outside */
	ri = info(dev);
	cr_assert_eq(ri.bad_frees, 3);
	cr_assert_eq(ri.used, PG);
	cr_assert_eq(ri.chunks, 1);
	ops->chunk_free(dev, v, d, PG);
	ops->chunk_free(dev, v, d, PG);				/* twice */
	ri = info(dev);
	cr_assert_eq(ri.bad_frees, 4);
	cr_assert_eq(ri.used, 0);
	/* The whole region in one chunk, then nothing. */
	cr_assert_eq(ops->chunk_alloc(dev, len, PG, &v, &d), 0);
	cr_assert_eq(ops->chunk_alloc(dev, PG, PG, &w, &e), -ENOMEM);
	ops->chunk_free(dev, v, d, len);
	cr_assert_eq(info(dev).used, 0);
	dmapool_dev_put(dev);
	/* Not a region: the info call says so. */
	dev = tl_heap();
	cr_assert_eq(dp_dev_region_info(dev, &ri), -EINVAL);
	dmapool_dev_put(dev);
}

/* ------------------------------------------------------------------ */
/* Threads: pools of their own on one shared region.                   */

#define THREADS		4
#define PER_THREAD	200

struct worker {
	struct dmapool_dev *dev;
	unsigned int id;
	unsigned int got, nulls;
	struct dmapool *pool;
	pthread_barrier_t *start;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	static const size_t sizes[THREADS] = { 64, 512, 4096, 1000 };
	void *v[PER_THREAD];
	dmapool_dma_t d[PER_THREAD];
	uint64_t seed = 0x9e3779b97f4a7c15ull * (w->id + 1);
	unsigned int i, n = 0, round;

	w->pool = tl_pool(w->dev, sizes[w->id], 0, 0);
	/*
	 * Every pool takes its first chunk before any pool competes: the
	 * region holds the four first chunks, and a pool that lost every race
	 * for memory later would prove nothing about overlap.
	 */
	if (w->pool) {
		v[n] = dmapool_alloc(w->pool, 0, &d[n]);
		if (v[n]) {
			memset(v[n], (int)(w->id + 1), sizes[w->id]);
			n++;
			w->got++;
		}
	}
	pthread_barrier_wait(w->start);
	if (!w->pool || !n)
		return NULL;
	for (round = 0; round < 20; round++) {
		while (n < PER_THREAD) {
			v[n] = dmapool_alloc(w->pool, 0, &d[n]);
			if (!v[n]) {
				w->nulls++;
				break;
			}
			memset(v[n], (int)(w->id + 1), sizes[w->id]);
			n++;
			w->got++;
		}
		/* Every block still holds this thread's byte. */
		for (i = 0; i < n; i++)
			if (((uint8_t *)v[i])[0] != w->id + 1 ||
			    ((uint8_t *)v[i])[sizes[w->id] - 1] != w->id + 1)
				return NULL;
		while (n > PER_THREAD / 4) {
			i = (unsigned int)(tl_rand(&seed) % n);
			dmapool_free(w->pool, v[i], d[i]);
			v[i] = v[--n];
			d[i] = d[n];
		}
		dmapool_shrink(w->pool);
	}
	while (n--)
		dmapool_free(w->pool, v[n], d[n]);
	return w;
}

Test(region, threads_share_one_region_without_overlap)
{
	/* Tight: the pools compete and some growth fails cleanly. */
	const size_t len = 96 * PG;
	uint8_t *mem = region_mem(len);
	struct dmapool_dev *dev = dmapool_dev_region(mem, REGION_DMA, len);
	struct worker w[THREADS];
	pthread_t t[THREADS];
	struct tl_chunk c[THREADS][256];
	size_t nc[THREADS], i, j, p, q;
	pthread_barrier_t start;
	void *ret;

	cr_assert_not_null(dev);
	cr_assert_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .dev = dev, .id = (unsigned int)i,
					.start = &start };
		cr_assert_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (i = 0; i < THREADS; i++) {
		cr_assert_eq(pthread_join(t[i], &ret), 0);
		cr_assert_eq(ret, &w[i], "worker %zu saw a wrong block", i);
		cr_assert_gt(w[i].got, 0);
	}
	pthread_barrier_destroy(&start);
	/* No two chunks of any pools overlap, all inside the region. */
	for (p = 0; p < THREADS; p++) {
		check_chunks(w[p].pool, mem, len, PG);
		nc[p] = tl_chunks(w[p].pool, c[p], 256);
	}
	for (p = 0; p < THREADS; p++)
		for (i = 0; i < nc[p]; i++)
			for (q = 0; q < THREADS; q++)
				for (j = 0; j < nc[q]; j++) {
					if (p == q && i == j)
						continue;
					cr_assert(c[p][i].vaddr + c[p][i].len <= c[q][j].vaddr ||
						  c[q][j].vaddr + c[q][j].len <= c[p][i].vaddr,
						  "chunks of pools %zu and %zu overlap", p, q);
				}
	for (i = 0; i < THREADS; i++)
		dmapool_destroy(w[i].pool);
	cr_assert_eq(info(dev).used, 0);
	cr_assert_eq(info(dev).bad_frees, 0);
	dmapool_dev_put(dev);
}
