// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Host allocation failure at every K (issue 13).
 *
 * The host allocator is interposed (hostalloc.h: malloc, calloc, realloc
 * and the memalign family of the whole process: the library's, liburcu-bp's
 * and glibc's own).  A workload that uses every call of the API (create,
 * alloc, zalloc, the handle API, bulk calls, every free, quiesce, shrink,
 * destroy, a second pool) runs once to count the host allocations it makes
 * (M); then, for every K from 1 to M (sampled above 300), a fresh process
 * runs it again with the K-th allocation failing, once ("once") or that one
 * and every later one ("from-k").  "cold": the workload is the first thing
 * the process does with the library; "warm": a first round ran before
 * (with its pool still alive and used in the second), so the lazily made
 * state exists.
 *
 * What must hold for every K:
 *  - no abort, no crash, no hang, no sanitizer report;
 *  - a failed call is clean: create returns NULL with errno ENOMEM, an
 *    allocation NULL (a handle of 0) or 0 for bulk, and the pool's stats
 *    still say exactly the blocks the test holds; a free, shrink or quiesce
 *    still does its work (a free never needs memory);
 *  - nothing is handed out twice (no block the test holds comes back, in
 *    any of its pools), blocks do not overlap (tags in every block survive);
 *  - no report of any kind;
 *  - afterwards, with allocation working again, the pools are usable: two
 *    chunks' worth more blocks come, every block is where invariant 4 says,
 *    all free, destroy reports nothing;
 *  - at the end no more host blocks are live than after the run without
 *    failures (nothing leaked on a failure path; fewer is allowed: state
 *    the library makes lazily once per process may stay unmade after a
 *    failure).  LeakSanitizer also scans the run without failures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostalloc.h"
#include "tap.h"
#include "xcheck.h"

#define BLOCK		256	/* 16 blocks per page-sized chunk */
#define CHUNK		4096
#define MAX_HELD	1024
#define BULK		8
#define DENSE_K		300	/* every K up to this */
#define SAMPLES		48	/* K sampled above it */
#define CHILD_TIMEOUT	120

struct cfg {
	const char *name;
	unsigned int flags;
	enum dmapool_index_kind index;
	unsigned int redzone;
	size_t reserve;
};

enum temp { COLD, WARM };

struct sink {
	unsigned long n;
	enum dmapool_report_kind first;
};

struct held {
	struct dmapool *pool;
	struct sink sink;
	size_t n, bpc;
	struct xblk b[MAX_HELD];
	size_t tag[MAX_HELD];
};

/* What a child tells its parent. */
struct result {
	unsigned long allocs;	/* host allocations in the window */
	unsigned long failed;	/* of those, failed on purpose */
	long residual;		/* host blocks live at the end */
	unsigned long nulls;	/* API calls that failed cleanly */
	int done;
};

static struct result *res;	/* shared with the parent */
static struct sink global_sink;
static struct held *pools[3];	/* every pool alive, for "handed out twice" */
static size_t next_tag;
static const struct cfg *cfg;

static void sink_fn(const struct dmapool_report *r, void *ctx)
{
	struct sink *s = ctx;

	if (!s->n++)
		s->first = r->kind;
}

/* ---- the checked calls --------------------------------------------------- */

static void no_reports(const struct held *h, const char *after)
{
	CHECK(global_sink.n == 0, "after %s: %lu reports to the process-wide sink (first: %s)",
	      after, global_sink.n, dmapool_report_kind_name(global_sink.first));
	CHECK(!h || h->sink.n == 0, "after %s: %lu reports (first: %s)", after,
	      h->sink.n, dmapool_report_kind_name(h->sink.first));
}

static void check_in_use(const struct held *h, const char *after)
{
	struct dmapool_stats st;

	dmapool_get_stats(h->pool, &st);
	CHECK(st.blocks_in_use == h->n,
	      "after %s: blocks_in_use %llu, the test holds %zu", after,
	      (unsigned long long)st.blocks_in_use, h->n);
	CHECK(st.violations == 0, "after %s: %llu violations", after,
	      (unsigned long long)st.violations);
	no_reports(h, after);
}

static void got(struct held *h, void *v, dmapool_dma_t dma, uint64_t handle)
{
	unsigned int p;
	size_t i;

	for (p = 0; p < sizeof(pools) / sizeof(pools[0]); p++)
		for (i = 0; pools[p] && i < pools[p]->n; i++)
			CHECK(pools[p]->b[i].v != v && pools[p]->b[i].dma != dma,
			      "block %p (dma %#llx) handed out while the test holds it",
			      v, (unsigned long long)dma);
	CHECK(h->n < MAX_HELD);
	h->b[h->n].v = v;
	h->b[h->n].dma = dma;
	h->b[h->n].handle = handle;
	h->tag[h->n] = next_tag++;
	xcheck_tag(&h->b[h->n], BLOCK, h->tag[h->n]);
	h->n++;
}

static void failed_call(struct held *h, const char *what)
{
	res->nulls++;
	check_in_use(h, what);
}

/* One allocation of kind @k; false when it failed (cleanly). */
static bool alloc_one(struct held *h, unsigned int k)
{
	dmapool_dma_t dma = 0;
	uint64_t handle = 0;
	void *v;

	switch (k % 5) {
	case 0:
		v = dmapool_alloc(h->pool, 0, &dma);
		break;
	case 1:
		v = dmapool_zalloc(h->pool, 0, &dma);
		if (v) {
			static const uint8_t zero[BLOCK];

			CHECK(!memcmp(v, zero, BLOCK), "zalloc: not zero");
		}
		break;
	case 2:
		handle = 1;
		v = dmapool_alloc_handle(h->pool, 0, &dma, &handle);
		if (!v)
			CHECK(handle == 0, "a failed alloc_handle left handle %#llx",
			      (unsigned long long)handle);
		else
			CHECK(handle != 0, "alloc_handle: handle 0");
		break;
	case 3: {
		void *vs[BULK];
		dmapool_dma_t ds[BULK];
		unsigned int i, n = dmapool_alloc_bulk(h->pool, 0, BULK, vs, ds);

		CHECK(n == 0 || n == BULK, "alloc_bulk returned %u of %u", n,
		      BULK);
		if (!n) {
			failed_call(h, "a failed alloc_bulk");
			return false;
		}
		for (i = 0; i < n; i++)
			got(h, vs[i], ds[i], 0);
		return true;
	}
	default:
		v = dmapool_alloc(h->pool, DMAPOOL_GFP_NOGROW, &dma);
	}
	if (!v) {
		failed_call(h, "a failed allocation");
		return false;
	}
	got(h, v, dma, handle);
	return true;
}

/* Forget block @i of @h (it was freed): the last one takes its place. */
static void drop(struct held *h, size_t i)
{
	xcheck_tag_ok(&h->b[i], BLOCK, h->tag[i]);
	h->n--;
	h->b[i] = h->b[h->n];
	h->tag[i] = h->tag[h->n];
}

/* Free block @i of @h by a call chosen by @k (a bulk call takes a few). */
static void free_one(struct held *h, size_t i, unsigned int k)
{
	struct xblk b = h->b[i];

	if (k % 4 == 3 && h->n - i >= 3) {
		void *vs[3] = { h->b[i].v, h->b[i + 1].v, h->b[i + 2].v };
		dmapool_dma_t ds[3] = {
			h->b[i].dma, h->b[i + 1].dma, h->b[i + 2].dma,
		};

		/* Drop from the end first: drop() moves the last block. */
		xcheck_tag_ok(&h->b[i + 2], BLOCK, h->tag[i + 2]);
		xcheck_tag_ok(&h->b[i + 1], BLOCK, h->tag[i + 1]);
		xcheck_tag_ok(&h->b[i], BLOCK, h->tag[i]);
		memmove(&h->b[i], &h->b[i + 3], (h->n - i - 3) * sizeof(h->b[0]));
		memmove(&h->tag[i], &h->tag[i + 3],
			(h->n - i - 3) * sizeof(h->tag[0]));
		h->n -= 3;
		dmapool_free_bulk(h->pool, 3, vs, ds);
		check_in_use(h, "free_bulk");
		return;
	}
	drop(h, i);
	if (b.handle)
		dmapool_free_handle(h->pool, b.v, b.dma, b.handle);
	else if (k % 4 == 1)
		dmapool_free_zero(h->pool, b.v, b.dma);
	else
		dmapool_free(h->pool, b.v, b.dma);
	check_in_use(h, "a free");
}

static void grow(struct held *h, size_t target)
{
	unsigned int k = 0, tries = 0;

	while (h->n + BULK <= target && tries++ < target + 16)
		alloc_one(h, k++);
}

static void free_every_other(struct held *h)
{
	unsigned int k = 0;
	size_t i;

	for (i = 0; i < h->n; i++)
		free_one(h, i, k++);
}

static void free_all(struct held *h)
{
	unsigned int k = 0;

	for (; h->n; k++)
		free_one(h, h->n - 1 - (h->n > 4 ? k % 3 : 0), k);
}

/*
 * Up to 24 chunks with the B-tree index (more than a node holds: it
 * splits), 6 with the others.
 */
static void workload(struct held *h)
{
	grow(h, (cfg->index == DMAPOOL_INDEX_BTREE ? 24 : 6) * h->bpc + 5);
	free_every_other(h);
	dmapool_quiesce(h->pool);
	check_in_use(h, "quiesce");
	dmapool_shrink(h->pool);
	check_in_use(h, "shrink");
	grow(h, h->n + 2 * h->bpc);
	free_all(h);
	dmapool_shrink(h->pool);
	check_in_use(h, "shrink of an empty pool");
	grow(h, h->bpc / 2 + BULK);
}

/* ---- pools ------------------------------------------------------------- */

static bool open_pool(struct held *h, struct dmapool_dev *dev)
{
	struct dmapool_opts o;
	struct dmapool_stats st;

	memset(h, 0, sizeof(*h));
	dmapool_opts_init(&o);
	o.flags = cfg->flags;
	o.index = cfg->index;
	o.redzone = cfg->redzone;
	o.reserve_chunks = cfg->reserve;
	o.chunk_size = CHUNK;
	o.seed = 42;
	if (cfg->flags & DMAPOOL_OPT_QUARANTINE)
		o.quarantine_max = 8;
	if (cfg->flags & DMAPOOL_OPT_POISON_SAMPLED)
		o.poison_sample = 2;
	o.report = sink_fn;
	o.report_ctx = &h->sink;
	errno = 0;
	h->pool = dmapool_create_opts("oom", dev, BLOCK, 0, 0, &o);
	if (!h->pool) {
		CHECK(errno == ENOMEM, "create failed with errno %d, want ENOMEM",
		      errno);
		no_reports(h, "a failed create");
		res->nulls++;
		return false;
	}
	dmapool_get_stats(h->pool, &st);
	h->bpc = st.blocks_per_chunk;
	CHECK(h->bpc >= 8 && 30 * h->bpc + 64 < MAX_HELD, "%zu blocks per chunk",
	      h->bpc);
	return true;
}

/* With allocation working again: the pool must be fully usable. */
static void verify(struct held *h)
{
	size_t i, want = h->n + 2 * h->bpc;
	unsigned int k = 0;

	while (h->n < want)
		CHECK(alloc_one(h, k++ % 3),
		      "allocation failed after the failures stopped (%zu of %zu)",
		      h->n, want);
	xcheck_blocks(h->pool, h->b, h->n, 0, 0, NULL);
	for (i = 0; i < h->n; i++)
		xcheck_tag_ok(&h->b[i], BLOCK, h->tag[i]);
	free_all(h);
	dmapool_shrink(h->pool);
	check_in_use(h, "freeing everything");
}

static void close_pool(struct held *h)
{
	dmapool_destroy(h->pool);
	no_reports(h, "destroy");
	h->pool = NULL;
	h->n = 0;
}

/* ---- one run ------------------------------------------------------------- */

struct run {
	const struct cfg *cfg;
	enum temp temp;
	unsigned long k;	/* 0: count only */
	bool persistent;
};

static struct held hp, hw, ht;

static void run(void *arg)
{
	const struct run *r = arg;
	struct dmapool_dev *dev = NULL;
	unsigned long base;
	long live0 = ha_live();

	cfg = r->cfg;
	ha_init();
	memset(res, 0, sizeof(*res));
	dmapool_set_report_handler(sink_fn, &global_sink);
	pools[0] = &hp;
	pools[1] = &hw;
	pools[2] = &ht;
	if (r->temp == WARM) {
		/* The first round: everything once, without failures. */
		dev = dmapool_dev_heap();
		CHECK(dev);
		CHECK(open_pool(&hp, dev));
		workload(&hp);
		verify(&hp);
		close_pool(&hp);
		CHECK(open_pool(&hw, dev));
		grow(&hw, hw.bpc + BULK);
	}

	base = ha_allocs();
	ha_fail_at(r->k, r->persistent);
	/* -- the window: the K-th host allocation from here fails -- */
	if (!dev)
		dev = dmapool_dev_heap();
	if (dev && open_pool(&hp, dev))
		workload(&hp);
	if (hw.pool)
		workload(&hw);
	/* A second pool while the first lives, emptied and destroyed. */
	if (dev && open_pool(&ht, dev)) {
		grow(&ht, ht.bpc + BULK);
		free_every_other(&ht);
		free_all(&ht);
		close_pool(&ht);
	}
	/* -- end of the window -- */
	res->allocs = ha_allocs() - base;
	res->failed = ha_failed();
	ha_fail_at(0, false);

	if (!dev) {
		dev = dmapool_dev_heap();
		CHECK(dev, "no dev after the failures stopped");
	}
	if (!hp.pool)
		CHECK(open_pool(&hp, dev), "create after the failures stopped");
	verify(&hp);
	close_pool(&hp);
	if (hw.pool) {
		verify(&hw);
		close_pool(&hw);
	}
	dmapool_dev_put(dev);
	no_reports(NULL, "the end");
	res->residual = ha_live() - live0;
	res->done = 1;
	/*
	 * The runs with failures end here, without LeakSanitizer's exit scan
	 * (the residual count above is the leak check; the count run, with
	 * k = 0, gets the scan too).
	 */
	if (r->k) {
		fflush(stdout);
		_exit(0);
	}
}

/* ---- the loops over K -------------------------------------------------- */

struct job {
	const struct cfg *cfg;
	enum temp temp;
	bool persistent;
};

static unsigned long next_k(unsigned long k, unsigned long m)
{
	unsigned long step;

	if (k < DENSE_K || m <= DENSE_K)
		return k + 1;
	step = (m - DENSE_K) / SAMPLES;
	return k + (step ? step : 1);
}

/* The K after @k: the next of next_k(), then M + 1 once, then past it. */
static unsigned long after(unsigned long k, unsigned long m)
{
	if (k > m)
		return m + 2;
	k = next_k(k, m);
	return k > m ? m + 1 : k;
}

static void inject_all(void *arg)
{
	const struct job *j = arg;
	struct run r = { j->cfg, j->temp, 0, j->persistent };
	unsigned long m, k, runs = 0, bad = 0, nulls = 0, fewer = 0;
	long residual;
	char why[96];
	int status;

	/* The count: the same run, nothing failing. */
	status = tap_fork(CHILD_TIMEOUT, run, &r);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status) && res->done,
	      "the run without failures failed: %s",
	      tap_status(status, why, sizeof(why)));
	m = res->allocs;
	residual = res->residual;
	CHECK(m > 0, "the workload made no host allocation");
	/* Every K (sampled above DENSE_K), then M + 1: nothing fails. */
	for (k = 1; k <= m + 1; k = after(k, m)) {
		r.k = k;
		res->done = 0;
		status = tap_fork(CHILD_TIMEOUT, run, &r);
		runs++;
		if (!WIFEXITED(status) || WEXITSTATUS(status) || !res->done) {
			if (bad++ < 8)
				NOTE("K=%lu of %lu: %s", k, m,
				     tap_status(status, why, sizeof(why)));
			continue;
		}
		nulls += res->nulls;
		if (k <= m && !res->failed) {
			if (bad++ < 8)
				NOTE("K=%lu of %lu: no allocation failed: the run is not deterministic",
				     k, m);
		} else if (res->residual > residual) {
			if (bad++ < 8)
				NOTE("K=%lu of %lu: %ld host blocks live at the end, %ld without failures: a leak on a failure path",
				     k, m, res->residual, residual);
		} else if (res->residual < residual) {
			fewer++;
		}
	}
	NOTE("%s %s %s: %lu host allocations, %lu runs, %lu failed calls seen, %lu bad",
	     j->cfg->name, j->temp == COLD ? "cold" : "warm",
	     j->persistent ? "from-k" : "once", m, runs, nulls, bad);
	if (fewer)
		NOTE("in %lu runs fewer host blocks were live at the end than without failures (lazily made process state that a failure left unmade)",
		     fewer);
	CHECK(!bad, "%lu of %lu values of K failed", bad, runs);
	CHECK(nulls > 0, "no API call ever failed: the injection did not reach the library");
}

static const struct cfg cfgs[] = {
	{ "default-hash", 0, DMAPOOL_INDEX_HASH, 0, 0 },
	{ "radix", 0, DMAPOOL_INDEX_RADIX, 0, 0 },
	{ "btree", 0, DMAPOOL_INDEX_BTREE, 0, 0 },
	{ "abort-on-violation", DMAPOOL_OPT_ABORT_ON_VIOLATION,
	  DMAPOOL_INDEX_HASH, 0, 0 },
	{ "poison", DMAPOOL_OPT_POISON, DMAPOOL_INDEX_HASH, 0, 0 },
	{ "quarantine", DMAPOOL_OPT_QUARANTINE, DMAPOOL_INDEX_HASH, 0, 0 },
	{ "scrub", DMAPOOL_OPT_SCRUB, DMAPOOL_INDEX_HASH, 0, 0 },
	{ "random", DMAPOOL_OPT_RANDOM, DMAPOOL_INDEX_HASH, 0, 0 },
	{ "thread-cache", DMAPOOL_OPT_THREAD_CACHE, DMAPOOL_INDEX_HASH, 0, 0 },
	{ "auto-shrink-0", DMAPOOL_OPT_AUTO_SHRINK, DMAPOOL_INDEX_HASH, 0, 0 },
	{ "auto-shrink-1", DMAPOOL_OPT_AUTO_SHRINK, DMAPOOL_INDEX_HASH, 0, 1 },
	{ "shared", DMAPOOL_OPT_SHARED, DMAPOOL_INDEX_HASH, 0, 0 },
	{ "poison-sampled", DMAPOOL_OPT_POISON_SAMPLED, DMAPOOL_INDEX_HASH, 0,
	  0 },
	{ "redzone", 0, DMAPOOL_INDEX_HASH, 16, 0 },
	{ "all-hardening", DMAPOOL_OPT_POISON | DMAPOOL_OPT_QUARANTINE |
			   DMAPOOL_OPT_SCRUB | DMAPOOL_OPT_RANDOM,
	  DMAPOOL_INDEX_HASH, 16, 0 },
	{ "shared-autoshrink0-quarantine", DMAPOOL_OPT_SHARED |
		DMAPOOL_OPT_AUTO_SHRINK | DMAPOOL_OPT_QUARANTINE,
	  DMAPOOL_INDEX_HASH, 0, 0 },
	{ "btree-autoshrink0-poison", DMAPOOL_OPT_AUTO_SHRINK |
		DMAPOOL_OPT_POISON, DMAPOOL_INDEX_BTREE, 0, 0 },
	{ "radix-shared-autoshrink1", DMAPOOL_OPT_SHARED |
		DMAPOOL_OPT_AUTO_SHRINK, DMAPOOL_INDEX_RADIX, 0, 1 },
	{ "btree-all-autoshrink1", DMAPOOL_OPT_POISON | DMAPOOL_OPT_QUARANTINE |
		DMAPOOL_OPT_SCRUB | DMAPOOL_OPT_RANDOM |
		DMAPOOL_OPT_AUTO_SHRINK, DMAPOOL_INDEX_BTREE, 24, 1 },
	{ "sampled-shared-autoshrink0", DMAPOOL_OPT_POISON_SAMPLED |
		DMAPOOL_OPT_SHARED | DMAPOOL_OPT_AUTO_SHRINK,
	  DMAPOOL_INDEX_HASH, 0, 0 },
};

int main(int argc, char **argv)
{
	unsigned int i, t, p;
	char name[96];

	tap_init(argc, argv);
	ha_init();
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		printf("Bail out! mmap\n");
		return 2;
	}
	for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
		for (t = COLD; t <= WARM; t++)
			for (p = 0; p < 2; p++) {
				struct job j = { &cfgs[i], t, p };

				snprintf(name, sizeof(name), "oom/%s/%s/%s",
					 cfgs[i].name, t == COLD ? "cold" : "warm",
					 p ? "from-k" : "once");
				tap_run(name, 1200, inject_all, &j);
			}
	return tap_done();
}
