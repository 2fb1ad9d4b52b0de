// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The chunk limit (dmapool_opts.chunk_size: "a pool holds at most 2^20 - 1
 * chunks; an allocation past that fails as out of memory"), against a core
 * built with the limit lowered to LIMIT (-DDP_MAX_SLOTS, tests/meson.build)
 * so that a test reaches it: pools of one block per chunk hold exactly
 * LIMIT blocks, the next allocation fails cleanly (NULL, no report, the
 * pool unchanged and working), a freed block and a shrunk chunk can be had
 * again, and failed host allocations on the way (unit/hostalloc.c's
 * failure injection) use up none of the pool's chunk names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include <dmapool/dmapool.h>

#include "hostalloc.h"
#include "tap.h"

#ifndef LIMIT
#error "LIMIT: the DP_MAX_SLOTS the library was built with"
#endif

/* One 4 KiB block per 4 KiB chunk: a chunk per allocation. */
#define BLOCK	4096u

static unsigned int reports;

static void sink_fn(const struct dmapool_report *r, void *ctx)
{
	(void)ctx;
	reports++;
	NOTE("report: %s: %s", dmapool_report_kind_name(r->kind),
	     r->detail ? r->detail : "");
}

static struct dmapool *make_pool(const char *name,
				 enum dmapool_index_kind index)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct dmapool_opts o;
	struct dmapool *pool;

	CHECK(dev);
	dmapool_opts_init(&o);
	o.chunk_size = BLOCK;
	o.index = index;
	o.report = sink_fn;
	pool = dmapool_create_opts(name, dev, BLOCK, BLOCK, 0, &o);
	dmapool_dev_put(dev);
	CHECK(pool, "create: errno %d", errno);
	return pool;
}

static void check_stats(struct dmapool *pool, unsigned long chunks,
			unsigned long in_use)
{
	struct dmapool_stats st;

	dmapool_get_stats(pool, &st);
	CHECK(st.blocks_per_chunk == 1, "%lu blocks per chunk",
	      (unsigned long)st.blocks_per_chunk);
	CHECK(st.chunks == chunks, "%lu chunks, want %lu",
	      (unsigned long)st.chunks, chunks);
	CHECK(st.blocks_in_use == in_use, "%lu blocks in use, want %lu",
	      (unsigned long)st.blocks_in_use, in_use);
}

/* Fill @pool to the limit by address; every block distinct. */
static void fill(struct dmapool *pool, void **v, dmapool_dma_t *d)
{
	unsigned int i, j;

	for (i = 0; i < LIMIT; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		CHECK(v[i], "allocation %u of %u failed", i + 1, LIMIT);
		for (j = 0; j < i; j++)
			CHECK(v[j] != v[i], "block %u handed out twice", j);
	}
}

static void at_limit(void *arg)
{
	const enum dmapool_index_kind index = *(enum dmapool_index_kind *)arg;
	struct dmapool *pool = make_pool("slot-limit", index);
	void *v[LIMIT], *w;
	dmapool_dma_t d[LIMIT], dw = 7;
	unsigned int i;

	fill(pool, v, d);
	check_stats(pool, LIMIT, LIMIT);
	/* Past the limit: NULL, *dma untouched, no report, nothing changed. */
	w = dmapool_alloc(pool, 0, &dw);
	CHECK(!w, "allocation %u past the limit succeeded", LIMIT + 1);
	CHECK(dw == 7, "a failed allocation wrote *dma");
	CHECK(reports == 0, "%u reports", reports);
	check_stats(pool, LIMIT, LIMIT);
	/* A block freed is had again (from its chunk: no new name needed). */
	dmapool_free(pool, v[3], d[3]);
	w = dmapool_alloc(pool, 0, &dw);
	CHECK(w == v[3] && dw == d[3], "the freed block did not come back");
	check_stats(pool, LIMIT, LIMIT);
	for (i = 0; i < LIMIT; i++)
		dmapool_free(pool, v[i], d[i]);
	CHECK(reports == 0, "%u reports", reports);
	check_stats(pool, LIMIT, 0);
	dmapool_destroy(pool);
}

/* The handle calls at the limit: NULL, and the handle and dma zeroed. */
static void handles_at_limit(void *arg)
{
	struct dmapool *pool = make_pool("slot-limit-handles",
					 DMAPOOL_INDEX_HASH);
	dmapool_dma_t d[LIMIT], dw = 7;
	uint64_t h[LIMIT], hw = 9;
	void *v[LIMIT], *w;
	unsigned int i;

	(void)arg;
	for (i = 0; i < LIMIT; i++) {
		v[i] = dmapool_alloc_handle(pool, 0, &d[i], &h[i]);
		CHECK(v[i] && h[i], "handle allocation %u failed", i + 1);
	}
	w = dmapool_alloc_handle(pool, 0, &dw, &hw);
	CHECK(!w && hw == 0 && dw == 0,
	      "past the limit: vaddr %p, handle %#llx, dma %#llx", w,
	      (unsigned long long)hw, (unsigned long long)dw);
	for (i = 0; i < LIMIT; i++)
		dmapool_free_handle(pool, v[i], d[i], h[i]);
	CHECK(reports == 0, "%u reports", reports);
	check_stats(pool, LIMIT, 0);
	dmapool_destroy(pool);
}

/* Chunks given back by shrink free their names for new chunks. */
static void shrink_then_refill(void *arg)
{
	struct dmapool *pool = make_pool("slot-limit-shrink",
					 DMAPOOL_INDEX_RADIX);
	void *v[LIMIT];
	dmapool_dma_t d[LIMIT];
	unsigned int i, round;
	size_t gone;

	(void)arg;
	for (round = 0; round < 3; round++) {
		fill(pool, v, d);
		CHECK(!dmapool_alloc(pool, 0, &d[0]),
		      "round %u: past the limit succeeded", round);
		for (i = 0; i < LIMIT; i++)
			dmapool_free(pool, v[i], d[i]);
		gone = dmapool_shrink(pool);
		CHECK(gone == LIMIT, "round %u: shrink gave back %zu chunks",
		      round, gone);
		check_stats(pool, 0, 0);
	}
	CHECK(reports == 0, "%u reports", reports);
	dmapool_destroy(pool);
}

/*
 * Host allocations that fail while the pool grows (the record, the slot
 * table, the backend's memory, index nodes: the K-th of each growth) leave
 * the pool able to grow to exactly LIMIT chunks afterwards.
 */
static void failures_keep_names(void *arg)
{
	struct dmapool *pool = make_pool("slot-limit-oom", DMAPOOL_INDEX_HASH);
	void *v[LIMIT], *w;
	dmapool_dma_t d[LIMIT];
	unsigned int n = 0, k, i, failed = 0;

	(void)arg;
	/*
	 * Up to LIMIT - 1 chunks, each allocation tried first with the first
	 * host allocation of the growth failing (the chunk's record: the
	 * backend here maps its memory with mmap), then with none failing.
	 */
	for (k = 0; n < LIMIT - 1; k++) {
		CHECK(k < 30 * LIMIT, "no progress: %u chunks", n);
		ha_fail_at(k % 2 ? 0 : 1, false);
		w = dmapool_alloc(pool, 0, &d[n]);
		ha_fail_at(0, false);
		if (w)
			v[n++] = w;
		else
			failed++;
	}
	NOTE("%u allocations failed on purpose, %u succeeded", failed, n);
	CHECK(failed >= LIMIT - 3, "%u allocations failed: the injection missed",
	      failed);
	while (n < LIMIT) {
		v[n] = dmapool_alloc(pool, 0, &d[n]);
		CHECK(v[n], "only %u chunks after the failures, want %u", n,
		      LIMIT);
		n++;
	}
	CHECK(!dmapool_alloc(pool, 0, &d[0]), "past the limit succeeded");
	check_stats(pool, LIMIT, LIMIT);
	for (i = 0; i < LIMIT; i++)
		dmapool_free(pool, v[i], d[i]);
	CHECK(reports == 0, "%u reports", reports);
	dmapool_destroy(pool);
}

int main(int argc, char **argv)
{
	static enum dmapool_index_kind idx[] = {
		DMAPOOL_INDEX_HASH, DMAPOOL_INDEX_RADIX, DMAPOOL_INDEX_BTREE,
	};

	ha_init();
	tap_init(argc, argv);
	tap_run("at-limit-hash", 60, at_limit, &idx[0]);
	tap_run("at-limit-radix", 60, at_limit, &idx[1]);
	tap_run("at-limit-btree", 60, at_limit, &idx[2]);
	tap_run("handles-at-limit", 60, handles_at_limit, NULL);
	tap_run("shrink-then-refill", 60, shrink_then_refill, NULL);
	tap_run("failures-keep-names", 60, failures_keep_names, NULL);
	return tap_done();
}
