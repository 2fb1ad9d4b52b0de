// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Shrink: empty chunks go back to the backend beyond the reserve, zeroed;
 * what still points into them (addresses, handles) is reported, never
 * followed; the thread caches keep their blocks' chunks.  Runs once per
 * index kind (DMAPOOL_TEST_INDEX); every test sets its own flags.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "testlib.h"

/* A backend that checks what it gets back is zeroed. */
struct zero_check {
	int allocs, frees, dirty;
};

static int zc_alloc(struct dmapool_dev *dv, size_t size, size_t align,
		    void **vaddr, dmapool_dma_t *dma)
{
	struct zero_check *z = dmapool_dev_priv(dv);

	if (posix_memalign(vaddr, align, size))
		return -12;
	memset(*vaddr, 0xee, size);	/* fresh memory is not zero here */
	*dma = (dmapool_dma_t)(uintptr_t)*vaddr + 0x1000000000000ull;
	z->allocs++;
	return 0;
}

static void zc_free(struct dmapool_dev *dv, void *vaddr, dmapool_dma_t dma,
		    size_t size)
{
	struct zero_check *z = dmapool_dev_priv(dv);
	const unsigned char *p = vaddr;
	size_t i;

	for (i = 0; i < size; i++)
		if (p[i]) {
			z->dirty++;
			break;
		}
	z->frees++;
	free(vaddr);
}

static const struct dmapool_dev_ops zc_ops = {
	.chunk_alloc = zc_alloc,
	.chunk_free = zc_free,
};

static struct dmapool *make(struct dmapool_dev *dev, size_t size,
			    unsigned int flags, size_t reserve)
{
	struct dmapool_opts o;
	struct dmapool *pool;

	dmapool_opts_init(&o);
	o.flags = flags;
	o.reserve_chunks = reserve;
	/* One page per chunk, as the kernel allocates: the counts below. */
	o.chunk_size = 4096;
	pool = tl_pool_opts(dev, size, size, 0, &o);
	cr_assert_not_null(pool);
	return pool;
}

static struct dmapool_stats stats(struct dmapool *pool)
{
	struct dmapool_stats st;

	dmapool_get_stats(pool, &st);
	return st;
}

/* Fill @n chunks, return their blocks in @v/@d. */
static size_t fill(struct dmapool *pool, size_t chunks, void **v,
		   dmapool_dma_t *d)
{
	size_t per = stats(pool).blocks_per_chunk, i;

	for (i = 0; i < chunks * per; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(pool, 0, &d[i]));
	cr_assert_eq(stats(pool).chunks, chunks);
	return chunks * per;
}

Test(shrink, explicit_keeps_the_reserve_and_zeroes)
{
	struct zero_check z = { 0 };
	struct dmapool_dev *dev = dmapool_dev_new(&zc_ops, &z);
	struct dmapool *pool;
	void *v[64];
	dmapool_dma_t d[64];
	size_t n, i;

	tl_reset();
	pool = make(dev, 1024, 0, 2);
	n = fill(pool, 8, v, d);
	for (i = 0; i < n; i++)
		memset(v[i], 0xab, 1024);	/* data the next owner must not see */
	cr_assert_eq(dmapool_shrink(pool), 0, "nothing is empty yet");
	/* Empty 5 of the 8 chunks (4 blocks a chunk). */
	for (i = 0; i < 20; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(stats(pool).chunks, 8, "no automatic shrink by default");
	cr_assert_eq(dmapool_shrink(pool), 3, "5 empty, 2 kept");
	cr_assert_eq(stats(pool).chunks, 5);
	cr_assert_eq(stats(pool).chunks_released, 3);
	cr_assert_eq(stats(pool).dma_bytes, 5 * stats(pool).chunk_size);
	cr_assert_eq(stats(pool).blocks_in_use, n - 20);
	cr_assert_eq(z.frees, 3);
	cr_assert_eq(z.dirty, 0, "released memory was zeroed first");
	cr_assert_eq(dmapool_shrink(pool), 0, "the reserve stays");
	/* The pool still works, and grows again. */
	for (i = 0; i < 20; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(pool, 0, &d[i]));
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	cr_assert_eq(z.frees, z.allocs, "destroy gives back the rest");
	cr_assert_eq(z.dirty, 0, "zeroed on destroy too");
	dmapool_dev_put(dev);
}

Test(shrink, automatic_beyond_reserve_keeps_the_hot_chunk)
{
	struct zero_check z = { 0 };
	struct dmapool_dev *dev = dmapool_dev_new(&zc_ops, &z);
	struct dmapool *pool;
	void *v[64];
	dmapool_dma_t d[64];
	size_t n, i;

	tl_reset();
	pool = make(dev, 1024, DMAPOOL_OPT_AUTO_SHRINK, 1);
	n = fill(pool, 6, v, d);
	/* Chunk 0 empties: it is the reserve. */
	for (i = 0; i < 4; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(stats(pool).chunks, 6);
	/* Chunk 1 empties: one of the two goes, the one just emptied stays. */
	for (i = 4; i < 8; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(stats(pool).chunks, 5);
	cr_assert_eq(stats(pool).chunks_released, 1);
	dmapool_free(pool, v[7], d[7]);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE,
		     "the hot chunk stayed: still a double free");
	dmapool_free(pool, v[0], d[0]);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_FREE_OUTSIDE,
		     "the released chunk is gone: outside every pool");
	for (i = 8; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(stats(pool).chunks, 1);
	cr_assert_eq(stats(pool).blocks_in_use, 0);
	cr_assert_eq(z.dirty, 0);
	cr_assert_eq(tl_cap.n, 2);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(shrink, reserve_zero_releases_every_empty_chunk)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool;
	void *v[256];
	dmapool_dma_t d[256];
	size_t n, i, round;

	tl_reset();
	pool = make(dev, 64, DMAPOOL_OPT_AUTO_SHRINK, 0);
	for (round = 0; round < 5; round++) {
		n = fill(pool, 3, v, d);
		for (i = 0; i < n; i++)
			dmapool_free(pool, v[i], d[i]);
		cr_assert_eq(stats(pool).chunks, 0);
		cr_assert_eq(stats(pool).blocks_total, 0);
	}
	cr_assert_eq(stats(pool).chunks_released, 15);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(shrink, handles_into_released_chunks_are_reported)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool;
	struct dmapool_block b[8], c[8];
	struct dmapool_stats st;
	int i;

	tl_reset();
	pool = make(dev, 2048, 0, 0);
	for (i = 0; i < 8; i++)		/* 4 chunks of 2 */
		cr_assert_not_null((b[i] = dmapool_alloc_block(pool, 0)).vaddr);
	for (i = 0; i < 8; i++)
		dmapool_free_block(pool, b[i]);
	cr_assert_eq(dmapool_shrink(pool), 4);
	/* Every slot is empty now. */
	for (i = 0; i < 8; i++) {
		dmapool_free_block(pool, b[i]);
		cr_assert_eq(tl_last()->kind, DMAPOOL_R_BAD_HANDLE);
	}
	/* New chunks take the slots again: the old handles still fail. */
	for (i = 0; i < 8; i++)
		cr_assert_not_null((c[i] = dmapool_alloc_block(pool, 0)).vaddr);
	for (i = 0; i < 8; i++) {
		unsigned int before = tl_cap.n;

		dmapool_free_block(pool, b[i]);
		cr_assert_eq(tl_cap.n, before + 1);
		cr_assert(tl_last()->kind == DMAPOOL_R_BAD_HANDLE ||
			  tl_last()->kind == DMAPOOL_R_STALE_HANDLE ||
			  tl_last()->kind == DMAPOOL_R_FREE_WRONG_POOL,
			  "kind %s", dmapool_report_kind_name(tl_last()->kind));
	}
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 8, "the new owners keep their blocks");
	for (i = 0; i < 8; i++)
		dmapool_free_block(pool, c[i]);
	cr_assert_eq(stats(pool).blocks_in_use, 0);
	cr_assert_eq(stats(pool).violations, 16);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(shrink, busy_chunks_never_go)
{
	struct zero_check z = { 0 };
	struct dmapool_dev *dev = dmapool_dev_new(&zc_ops, &z);
	struct dmapool *pool;
	void *v[64];
	dmapool_dma_t d[64];
	size_t n, i;

	tl_reset();
	pool = make(dev, 1024, DMAPOOL_OPT_AUTO_SHRINK, 0);
	n = fill(pool, 8, v, d);
	/* Keep one block in every chunk. */
	for (i = 0; i < n; i++)
		if (i % 4)
			dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(dmapool_shrink(pool), 0);
	cr_assert_eq(stats(pool).chunks, 8);
	for (i = 0; i < n; i += 4)
		memset(v[i], 0x11, 1024);	/* still the caller's */
	for (i = 0; i < n; i += 4)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(stats(pool).chunks, 0);
	cr_assert_eq(z.dirty, 0);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

struct owner {
	struct dmapool *pool;
	void *v[8];
	dmapool_dma_t d[8];
	pthread_barrier_t *hold;
};

/* Allocate and free in a thread: its heap keeps the chunk until it exits. */
static void *own_some(void *arg)
{
	struct owner *k = arg;
	int i;

	for (i = 0; i < 8; i++)
		k->v[i] = dmapool_alloc(k->pool, 0, &k->d[i]);
	for (i = 0; i < 8; i++)
		dmapool_free(k->pool, k->v[i], k->d[i]);
	pthread_barrier_wait(k->hold);		/* main looks now */
	pthread_barrier_wait(k->hold);		/* then we exit */
	return NULL;
}

Test(shrink, thread_heaps_keep_their_chunks_until_exit)
{
	struct dmapool_dev *dev = tl_heap();
	pthread_barrier_t hold;
	struct owner k;
	pthread_t t;
	int i;

	tl_reset();
	k.pool = make(dev, 64, 0, 0);
	k.hold = &hold;
	pthread_barrier_init(&hold, NULL, 2);
	pthread_create(&t, NULL, own_some, &k);
	pthread_barrier_wait(&hold);
	cr_assert_eq(stats(k.pool).blocks_in_use, 0);
	cr_assert_eq(dmapool_shrink(k.pool), 0, "another thread's heap holds it");
	cr_assert_eq(stats(k.pool).chunks, 1);
	pthread_barrier_wait(&hold);
	pthread_join(t, NULL);
	/* Its heap is an orphan now: shrink may release what it holds. */
	cr_assert_eq(dmapool_shrink(k.pool), 1);
	cr_assert_eq(stats(k.pool).chunks, 0);
	/* Our own heap's empty chunks go too. */
	for (i = 0; i < 8; i++)
		k.v[i] = dmapool_alloc(k.pool, 0, &k.d[i]);
	for (i = 0; i < 8; i++)
		dmapool_free(k.pool, k.v[i], k.d[i]);
	cr_assert_eq(stats(k.pool).chunks, 1);
	cr_assert_eq(dmapool_shrink(k.pool), 1);
	cr_assert_eq(stats(k.pool).chunks, 0);
	cr_assert_eq(tl_cap.n, 0);
	pthread_barrier_destroy(&hold);
	dmapool_destroy(k.pool);
	dmapool_dev_put(dev);
}

/* Free another thread's blocks: they wait for their owner (blocks_cached). */
static void *free_theirs(void *arg)
{
	struct owner *k = arg;
	int i;

	for (i = 0; i < 8; i++)
		dmapool_free(k->pool, k->v[i], k->d[i]);
	return NULL;
}

Test(shrink, remote_frees_wait_for_their_owner)
{
	struct dmapool_dev *dev = tl_heap();
	struct owner k;
	pthread_t t;
	dmapool_dma_t d;
	int i;

	tl_reset();
	k.pool = make(dev, 64, 0, 0);
	for (i = 0; i < 8; i++)
		k.v[i] = dmapool_alloc(k.pool, 0, &k.d[i]);
	pthread_create(&t, NULL, free_theirs, &k);
	pthread_join(t, NULL);
	cr_assert_eq(stats(k.pool).blocks_in_use, 0);
	cr_assert_eq(stats(k.pool).blocks_cached, 8, "freed, not yet collected");
	/* A second free of one of them, here or there, is a double free. */
	dmapool_free(k.pool, k.v[3], k.d[3]);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE);
	/* Shrink collects them: the chunk is empty and goes. */
	cr_assert_eq(dmapool_shrink(k.pool), 1);
	cr_assert_eq(stats(k.pool).blocks_cached, 0);
	cr_assert_eq(stats(k.pool).chunks, 0);
	cr_assert_not_null(dmapool_alloc(k.pool, 0, &d));
	cr_assert_eq(tl_cap.n, 1);
	dmapool_destroy(k.pool);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DESTROY_BUSY);
	dmapool_dev_put(dev);
}

/* Another thread frees blocks [from, to) of @v. */
struct span {
	struct dmapool *pool;
	void **v;
	dmapool_dma_t *d;
	int from, to;
};

static void *free_span(void *arg)
{
	struct span *k = arg;
	int i;

	for (i = k->from; i < k->to; i++)
		dmapool_free(k->pool, k->v[i], k->d[i]);
	return NULL;
}

static void free_span_in_thread(struct span *k, int from, int to)
{
	pthread_t t;

	k->from = from;
	k->to = to;
	cr_assert_eq(pthread_create(&t, NULL, free_span, k), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
}

/*
 * Remote frees mark a region of 16 state words for the owner (remote.c); a
 * collection clears the marks.  Blocks freed into a region after its
 * collection, and into a region already marked, all come back, once.
 */
Test(shrink, remote_frees_after_a_collection_come_back)
{
	struct dmapool_dev *dev = tl_heap();
	void *v[40];
	dmapool_dma_t d[40];
	struct span k = { NULL, v, d, 0, 0 };
	int i;

	tl_reset();
	k.pool = make(dev, 64, 0, 0);
	for (i = 0; i < 40; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(k.pool, 0, &d[i]));
	cr_assert_eq(stats(k.pool).chunks, 1);
	free_span_in_thread(&k, 0, 4);
	cr_assert_eq(stats(k.pool).blocks_cached, 4, "freed, not collected");
	/* A collection (shrink collects the caller's heap first): ours again. */
	cr_assert_eq(dmapool_shrink(k.pool), 0, "the chunk holds 36 blocks");
	cr_assert_eq(stats(k.pool).blocks_cached, 0);
	cr_assert_eq(stats(k.pool).blocks_in_use, 36);
	/* The same region again after it, then one marked twice in a row. */
	free_span_in_thread(&k, 4, 8);
	free_span_in_thread(&k, 8, 12);
	free_span_in_thread(&k, 12, 33);
	cr_assert_eq(stats(k.pool).blocks_in_use, 40 - 33);
	cr_assert_eq(stats(k.pool).blocks_cached, 33 - 4);
	/* Pending, not collected: a second free is a double free, once. */
	dmapool_free(k.pool, v[5], d[5]);
	cr_assert_eq(tl_cap.n, 1);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE);
	free_span_in_thread(&k, 20, 21);
	cr_assert_eq(tl_cap.n, 2);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE);
	for (i = 33; i < 40; i++)
		dmapool_free(k.pool, v[i], d[i]);
	/* Every block back: the chunk is empty and goes. */
	cr_assert_eq(dmapool_shrink(k.pool), 1);
	cr_assert_eq(stats(k.pool).chunks, 0);
	cr_assert_eq(stats(k.pool).blocks_in_use, 0);
	cr_assert_eq(tl_cap.n, 2);
	dmapool_destroy(k.pool);
	dmapool_dev_put(dev);
}

Test(shrink, thread_cache_double_free_is_reported)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool;
	dmapool_dma_t d;
	void *v;

	tl_reset();
	pool = make(dev, 64, DMAPOOL_OPT_THREAD_CACHE, 0);
	v = dmapool_alloc(pool, 0, &d);
	dmapool_free(pool, v, d);		/* into the cache */
	cr_assert_eq(tl_cap.n, 0);
	dmapool_free(pool, v, d);
	cr_assert_eq(tl_cap.n, 1);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE);
	cr_assert_eq(tl_last()->block, v);
	cr_assert_eq(stats(pool).blocks_in_use, 0);
	/* It comes back once, not twice. */
	cr_assert_eq(dmapool_alloc(pool, 0, &d), v);
	cr_assert_neq(dmapool_alloc(pool, 0, &d), v);
	dmapool_destroy(pool);			/* destroy-busy: 2 in use */
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DESTROY_BUSY);
	cr_assert_eq(tl_last()->count, 2);
	dmapool_dev_put(dev);
}

Test(shrink, null_pool)
{
	tl_reset();
	cr_assert_eq(dmapool_shrink(NULL), 0);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_NULL_POOL);
}
