// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * "A free never allocates" (issue 13, DESIGN.md): no free path may take
 * host memory, for any index, option or combination (in the kernel a free
 * may run in hard irq or under a driver's spinlock).
 *
 * The process's allocator is interposed (tests/unit/hostalloc.h): every
 * malloc, calloc, realloc, memalign and every mmap/mremap, whoever makes it
 * (the library, liburcu-bp, glibc).  Every free call of the API runs in a
 * forbidden window: dmapool_free, dmapool_free_zero, dmapool_free_handle,
 * dmapool_free_block, dmapool_free_bulk, good and bad (double frees by
 * address, zeroing and handle, frees outside the pool, inside a block, with
 * a wrong dma, of another pool's block, by a stale or forged handle, of an
 * address whose chunk went back, with a NULL pool, bulk calls with bad
 * entries among good ones).  Any allocation or mapping in the window fails
 * the test, with its backtrace.
 *
 * Workload: per round, four chunks' worth of blocks are allocated and every
 * one freed, so chunks empty (and with DMAPOOL_OPT_AUTO_SHRINK, go back in
 * the free itself) and fill again; three rounds; the old handles of blocks
 * that come back are tried.  Each configuration runs in a fresh process
 * (state made lazily, such as liburcu-bp's reader registry, is not made
 * yet) over index (hash, radix, B-tree) x automatic shrink (off, reserve
 * 0, reserve 1) x ownership (the allocating thread frees; THREAD_CACHE;
 * SHARED; a fresh thread per round frees everything) x hardening (none,
 * each option alone, all of them).
 *
 * Each bad free must also be reported exactly once, with its kind, and
 * each good one not at all: so the test knows every path it claims ran.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dmapool/dmapool.h>

#include "unit/hostalloc.h"
#include "unit/tap.h"

#define BLOCK		128
#define CHUNK		4096	/* 32 blocks */
#define CHUNKS		4	/* allocated per round */
#define ROUNDS		3
#define MAX_BLK		(CHUNKS * CHUNK / BLOCK + 16)
#define NQ		4	/* blocks of the other pool */

struct cfg {
	enum dmapool_index_kind index;
	unsigned int shrink;	/* 0 off, 1 auto reserve 0, 2 auto reserve 1 */
	unsigned int owner;	/* 0 self, 1 thread-cache, 2 shared, 3 remote */
	unsigned int hflags;
	unsigned int redzone;
	char name[96];
};

struct blk {
	void *v;
	dmapool_dma_t dma;
	uint64_t handle;
};

/* Reports, counted by kind (the sinks may run in the freeing thread). */
struct sink {
	unsigned long n, kind[DMAPOOL_R_KINDS_MAX];
};

static struct sink psink, qsink, gsink;

static void sink_fn(const struct dmapool_report *r, void *ctx)
{
	struct sink *s = ctx;

	__atomic_add_fetch(&s->n, 1, __ATOMIC_RELAXED);
	if ((unsigned int)r->kind < DMAPOOL_R_KINDS_MAX)
		__atomic_add_fetch(&s->kind[r->kind], 1, __ATOMIC_RELAXED);
}

struct world {
	const struct cfg *cfg;
	struct dmapool *p, *q;
	struct blk b[MAX_BLK];
	size_t n;
	struct blk qb[NQ];
	struct blk old[MAX_BLK];	/* last round's blocks and handles */
	size_t nold;
	void *gone[8];			/* addresses of released chunks */
	dmapool_dma_t gone_dma[8];
	size_t ngone;
	unsigned long frees, bad_frees;
	unsigned long allocating;	/* free calls that allocated */
	unsigned long misreported;	/* wrong number or kind of reports */
	uint64_t rng;
};

/* ---- one checked free call ----------------------------------------------- */

enum call { C_FREE, C_ZERO, C_HANDLE, C_BLOCK };

static const char *const call_name[] = {
	"dmapool_free", "dmapool_free_zero", "dmapool_free_handle",
	"dmapool_free_block",
};

static unsigned long reports(void)
{
	return __atomic_load_n(&psink.n, __ATOMIC_RELAXED) +
	       __atomic_load_n(&qsink.n, __ATOMIC_RELAXED) +
	       __atomic_load_n(&gsink.n, __ATOMIC_RELAXED);
}

/* Reports of the kinds in @mask so far. */
static unsigned long kinds_count(unsigned int mask)
{
	unsigned long n = 0;
	int k;

	for (k = 0; k < DMAPOOL_R_KINDS; k++)
		if (mask & (1u << k))
			n += __atomic_load_n(&psink.kind[k], __ATOMIC_RELAXED) +
			     __atomic_load_n(&qsink.kind[k], __ATOMIC_RELAXED) +
			     __atomic_load_n(&gsink.kind[k], __ATOMIC_RELAXED);
	return n;
}

#define K(x)	(1u << DMAPOOL_R_##x)

static const char *mask_name(unsigned int mask)
{
	int k;

	for (k = 0; k < DMAPOOL_R_KINDS; k++)
		if (mask & (1u << k))
			return dmapool_report_kind_name(k);
	return "-";
}

struct window {
	const char *what;
	unsigned int kinds;	/* 0: a good free, no report */
	unsigned long r0, k0;
};

static void window_begin(struct window *win, const char *what,
			 unsigned int kinds)
{
	win->what = what;
	win->kinds = kinds;
	win->r0 = reports();
	win->k0 = kinds_count(kinds);
	ha_forbid_begin(what);
}

/*
 * After a free call: no allocation in the window; one report of one of
 * the kinds expected for a bad free, none for a good one.
 */
static void window_end(struct world *w, struct window *win)
{
	unsigned long allocs = ha_forbid_end();
	unsigned long want = win->kinds ? 1 : 0;
	unsigned long got = reports() - win->r0;
	unsigned long of_kind = kinds_count(win->kinds) - win->k0;

	w->frees++;
	w->bad_frees += want;
	if (allocs && w->allocating++ < 4)
		NOTE("%s: %s (%s) allocated %lu time(s)", w->cfg->name,
		     win->what, want ? "a bad free" : "a good free", allocs);
	if ((got != want || of_kind != want) && w->misreported++ < 4)
		NOTE("%s: %lu reports (%lu of kind %s...), want %lu", win->what,
		     got, of_kind, mask_name(win->kinds), want);
}

/* One free call of @how; @kinds 0: a good free. */
static void one_free(struct world *w, struct dmapool *pool, enum call how,
		     const struct blk *b, unsigned int kinds)
{
	struct dmapool_block blk = { b->v, b->dma, b->handle };
	struct window win;

	window_begin(&win, call_name[how], kinds);
	switch (how) {
	case C_FREE:
		dmapool_free(pool, b->v, b->dma);
		break;
	case C_ZERO:
		dmapool_free_zero(pool, b->v, b->dma);
		break;
	case C_HANDLE:
		dmapool_free_handle(pool, b->v, b->dma, b->handle);
		break;
	case C_BLOCK:
		dmapool_free_block(pool, blk);
		break;
	}
	window_end(w, &win);
}

/* A bulk free of @n entries, one of them bad (of @kinds) unless 0. */
static void bulk_free(struct world *w, struct dmapool *pool, unsigned int n,
		      void *const *v, const dmapool_dma_t *d,
		      unsigned int kinds)
{
	struct window win;

	window_begin(&win, "dmapool_free_bulk", kinds);
	dmapool_free_bulk(pool, n, v, d);
	window_end(w, &win);
}

struct walk {
	void *v[64];
	size_t n;
};

static void walk_fn(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct walk *wk = ctx;

	if (wk->n < 64)
		wk->v[wk->n++] = vaddr;
}

static bool in_live_chunk(const struct walk *wk, const void *v)
{
	size_t i;

	for (i = 0; i < wk->n; i++)
		if ((const char *)v >= (const char *)wk->v[i] &&
		    (const char *)v < (const char *)wk->v[i] + CHUNK)
			return true;
	return false;
}

/* ---- the frees of one round --------------------------------------------- */

/*
 * A second free of a block: a double free, or (its chunk emptied and went
 * back meanwhile, automatic shrink) a free outside the pool; by handle also
 * a handle naming no block.
 */
#define AGAIN		(K(DOUBLE_FREE) | K(FREE_OUTSIDE))
#define AGAIN_HANDLE	(AGAIN | K(BAD_HANDLE))

static void bad_frees(struct world *w)
{
	static char not_pool[BLOCK];
	struct walk wk = { { 0 }, 0 };
	/* Blocks from dmapool_alloc_handle() (see fill()). */
	struct blk x, *b = &w->b[2], *c = &w->b[9];
	void *v[2];
	dmapool_dma_t d[2];
	size_t i;
	unsigned int tried = 0;

	CHECK(b->handle && c->handle);
	/* Inside a block, with every call. */
	x = *b;
	x.v = (char *)b->v + 1;
	x.dma = b->dma + 1;
	one_free(w, w->p, C_FREE, &x, K(FREE_NOT_BLOCK));
	one_free(w, w->p, C_ZERO, &x, K(FREE_NOT_BLOCK));
	one_free(w, w->p, C_HANDLE, &x, K(BAD_HANDLE) | K(FREE_NOT_BLOCK));
	/* A wrong dma. */
	x = *c;
	x.dma ^= 0x1000;
	one_free(w, w->p, C_FREE, &x, K(FREE_DMA_MISMATCH));
	one_free(w, w->p, C_ZERO, &x, K(FREE_DMA_MISMATCH));
	one_free(w, w->p, C_HANDLE, &x, K(FREE_DMA_MISMATCH));
	/* Another pool's block, both ways. */
	one_free(w, w->p, C_FREE, &w->qb[0], K(FREE_WRONG_POOL));
	one_free(w, w->p, C_HANDLE, &w->qb[0],
		 K(FREE_WRONG_POOL) | K(BAD_HANDLE));
	one_free(w, w->q, C_ZERO, b, K(FREE_WRONG_POOL));
	/* Outside any pool: a static buffer, NULL. */
	x.v = not_pool;
	x.dma = (dmapool_dma_t)(uintptr_t)not_pool;
	x.handle = b->handle;
	one_free(w, w->p, C_FREE, &x, K(FREE_OUTSIDE));
	one_free(w, w->p, C_ZERO, &x, K(FREE_OUTSIDE));
	one_free(w, w->p, C_HANDLE, &x, K(BAD_HANDLE));
	x.v = NULL;
	x.dma = 0;
	one_free(w, w->p, C_FREE, &x, K(FREE_OUTSIDE));
	/* Forged handles on a live block. */
	x = *b;
	x.handle = tap_rand(&w->rng);
	one_free(w, w->p, C_HANDLE, &x, K(BAD_HANDLE) | K(STALE_HANDLE));
	/*
	 * The other pool's handles (no pool in a handle: one that equals the
	 * block's own handle bit for bit is not a bad free).
	 */
	for (i = 0; i < NQ; i++) {
		if (w->qb[i].handle == b->handle)
			continue;
		x.handle = w->qb[i].handle;
		one_free(w, w->p, C_BLOCK, &x,
			 K(BAD_HANDLE) | K(STALE_HANDLE));
		break;
	}
	/* Last round's handles of blocks that came back. */
	for (i = 0; i < w->nold && tried < 8; i++) {
		size_t j;

		for (j = 0; j < w->n; j++) {
			if (w->b[j].v != w->old[i].v || !w->old[i].handle ||
			    w->b[j].handle == w->old[i].handle)
				continue;
			x = w->b[j];
			x.handle = w->old[i].handle;
			one_free(w, w->p, tried % 2 ? C_BLOCK : C_HANDLE, &x,
				 K(STALE_HANDLE) | K(BAD_HANDLE));
			tried++;
			break;
		}
	}
	/* Addresses of chunks that went back (and did not come back). */
	dmapool_walk_chunks(w->p, walk_fn, &wk);
	for (i = 0; i < w->ngone; i++) {
		if (in_live_chunk(&wk, w->gone[i]))
			continue;
		x.v = w->gone[i];
		x.dma = w->gone_dma[i];
		one_free(w, w->p, i % 2 ? C_ZERO : C_FREE, &x, K(FREE_OUTSIDE));
	}
	/* A NULL pool, every call. */
	one_free(w, NULL, C_FREE, b, K(NULL_POOL));
	one_free(w, NULL, C_ZERO, b, K(NULL_POOL));
	one_free(w, NULL, C_HANDLE, b, K(NULL_POOL));
	one_free(w, NULL, C_BLOCK, b, K(NULL_POOL));
	v[0] = b->v;
	d[0] = b->dma;
	bulk_free(w, NULL, 1, v, d, K(NULL_POOL));
	/* Bulk: only bad entries. */
	v[0] = (char *)b->v + 8;
	d[0] = b->dma + 8;
	v[1] = w->qb[2].v;
	d[1] = w->qb[2].dma;
	bulk_free(w, w->p, 1, v, d, K(FREE_NOT_BLOCK));
	bulk_free(w, w->p, 1, v + 1, d + 1, K(FREE_WRONG_POOL));
}

/* Every block of the round goes back, the calls mixed; bulk calls carry one
 * bad entry each; then double frees of a few. */
static void good_frees(struct world *w)
{
	void *v[9];
	dmapool_dma_t d[9];
	struct blk dbl[4];
	unsigned int k = 0, nv;
	size_t i;

	for (i = 0; i < w->n; k++) {
		if (k % 5 == 4 && w->n - i >= 8) {
			for (nv = 0; nv < 8; nv++) {
				v[nv] = w->b[i + nv].v;
				d[nv] = w->b[i + nv].dma;
			}
			/* ... and a double free of the first among them. */
			v[8] = v[0];
			d[8] = d[0];
			bulk_free(w, w->p, 9, v, d, AGAIN);
			i += 8;
			continue;
		}
		if (w->b[i].handle)
			one_free(w, w->p, k % 2 ? C_BLOCK : C_HANDLE,
				 &w->b[i], 0);
		else
			one_free(w, w->p, k % 3 ? C_FREE : C_ZERO, &w->b[i], 0);
		i++;
	}
	for (i = 0; i < 4; i++)
		dbl[i] = w->b[w->n - 1 - 3 * i];
	for (i = 0; i < 4; i++) {
		if (dbl[i].handle)
			one_free(w, w->p, C_HANDLE, &dbl[i], AGAIN_HANDLE);
		else
			one_free(w, w->p, i % 2 ? C_ZERO : C_FREE, &dbl[i],
				 AGAIN);
	}
	for (i = 0; i < NQ; i++)
		one_free(w, w->q, C_HANDLE, &w->qb[i], 0);
}

static void free_phase(struct world *w)
{
	bad_frees(w);
	good_frees(w);
}

static void *freer_thread(void *arg)
{
	free_phase(arg);
	return NULL;
}

/* ---- allocation (not checked for allocations: it may) ------------------- */

static void fill(struct world *w)
{
	size_t want = CHUNKS * CHUNK / BLOCK, i;
	unsigned int k = 0;

	w->n = 0;
	while (w->n < want) {
		struct blk *b = &w->b[w->n];

		b->handle = 0;
		switch (k++ % 4) {
		case 0:
			b->v = dmapool_alloc(w->p, 0, &b->dma);
			break;
		case 1:
			b->v = dmapool_zalloc(w->p, 0, &b->dma);
			break;
		case 2:
			b->v = dmapool_alloc_handle(w->p, 0, &b->dma,
						    &b->handle);
			break;
		default: {
			void *v[4];
			dmapool_dma_t d[4];

			CHECK(dmapool_alloc_bulk(w->p, 0, 4, v, d) == 4);
			for (i = 0; i < 4 && w->n < MAX_BLK; i++) {
				w->b[w->n].v = v[i];
				w->b[w->n].dma = d[i];
				w->b[w->n++].handle = 0;
			}
			continue;
		}
		}
		CHECK(b->v, "allocation %zu failed", w->n);
		w->n++;
	}
	for (i = 0; i < NQ; i++) {
		w->qb[i].v = dmapool_alloc_handle(w->q, 0, &w->qb[i].dma,
						  &w->qb[i].handle);
		CHECK(w->qb[i].v);
	}
}

/* After a round: nothing in use; shrink; remember what went back. */
static void settle(struct world *w)
{
	struct dmapool_stats st;
	struct walk wk = { { 0 }, 0 };
	size_t i;

	dmapool_get_stats(w->p, &st);
	CHECK(st.blocks_in_use == 0, "%llu blocks in use after freeing all",
	      (unsigned long long)st.blocks_in_use);
	dmapool_quiesce(w->p);
	dmapool_shrink(w->p);
	dmapool_walk_chunks(w->p, walk_fn, &wk);
	memcpy(w->old, w->b, w->n * sizeof(w->b[0]));
	w->nold = w->n;
	w->ngone = 0;
	for (i = 0; i < w->n && w->ngone < 8; i += CHUNK / BLOCK)
		if (!in_live_chunk(&wk, w->b[i].v)) {
			w->gone[w->ngone] = w->b[i].v;
			w->gone_dma[w->ngone++] = w->b[i].dma;
		}
}

static struct dmapool *make_pool(const struct cfg *c, struct sink *s,
				 const char *name)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct dmapool_opts o;
	struct dmapool *pool;

	CHECK(dev);
	dmapool_opts_init(&o);
	o.index = c->index;
	o.flags = c->hflags;
	o.redzone = c->redzone;
	o.chunk_size = CHUNK;
	o.quarantine_max = 16;
	if (c->shrink) {
		o.flags |= DMAPOOL_OPT_AUTO_SHRINK;
		o.reserve_chunks = c->shrink - 1;
	}
	if (c->owner == 1)
		o.flags |= DMAPOOL_OPT_THREAD_CACHE;
	if (c->owner == 2)
		o.flags |= DMAPOOL_OPT_SHARED;
	if (c->hflags & DMAPOOL_OPT_POISON_SAMPLED)
		o.poison_sample = 3;
	o.report = sink_fn;
	o.report_ctx = s;
	pool = dmapool_create_opts(name, dev, BLOCK, 0, 0, &o);
	CHECK(pool, "create");
	dmapool_dev_put(dev);
	return pool;
}

static void run_cfg(void *arg)
{
	static struct world w;
	struct dmapool_stats st;
	pthread_t t;
	int r;

	ha_init();
	memset(&w, 0, sizeof(w));
	w.cfg = arg;
	w.rng = 0x9e3779b97f4a7c15ull;
	dmapool_set_report_handler(sink_fn, &gsink);
	w.p = make_pool(w.cfg, &psink, "p");
	w.q = make_pool(w.cfg, &qsink, "q");
	for (r = 0; r < ROUNDS; r++) {
		fill(&w);
		if (w.cfg->owner == 3) {
			/* A fresh thread each round does every free. */
			CHECK(!pthread_create(&t, NULL, freer_thread, &w));
			CHECK(!pthread_join(t, NULL));
		} else {
			free_phase(&w);
		}
		settle(&w);
	}
	dmapool_get_stats(w.p, &st);
	NOTE("%lu free calls (%lu bad), %llu chunks released; %lu allocated, %lu misreported",
	     w.frees, w.bad_frees, (unsigned long long)st.chunks_released,
	     w.allocating, w.misreported);
	if (w.cfg->shrink == 1)
		CHECK(st.chunks_released > 0, "no chunk was released: the workload does not empty chunks");
	dmapool_destroy(w.p);
	dmapool_destroy(w.q);
	CHECK(w.allocating == 0, "%lu free calls allocated host memory",
	      w.allocating);
	CHECK(w.misreported == 0, "%lu free calls were misreported",
	      w.misreported);
}

int main(int argc, char **argv)
{
	static const struct { enum dmapool_index_kind ix; const char *n; } ix[] = {
		{ DMAPOOL_INDEX_HASH, "hash" },
		{ DMAPOOL_INDEX_RADIX, "radix" },
		{ DMAPOOL_INDEX_BTREE, "btree" },
	};
	static const char *const shrink_name[] = {
		"no-shrink", "autoshrink-0", "autoshrink-1",
	};
	static const char *const owner_name[] = {
		"self", "thread-cache", "shared", "remote",
	};
	static const struct { unsigned int f, rz; const char *n; } hard[] = {
		{ 0, 0, "plain" },
		{ DMAPOOL_OPT_POISON, 0, "poison" },
		{ DMAPOOL_OPT_POISON_SAMPLED, 0, "poison-sampled" },
		{ DMAPOOL_OPT_QUARANTINE, 0, "quarantine" },
		{ DMAPOOL_OPT_SCRUB, 0, "scrub" },
		{ DMAPOOL_OPT_RANDOM, 0, "random" },
		{ 0, 16, "redzone" },
		{ DMAPOOL_OPT_POISON | DMAPOOL_OPT_QUARANTINE |
		  DMAPOOL_OPT_SCRUB | DMAPOOL_OPT_RANDOM, 16, "all" },
	};
	static struct cfg cfgs[3 * 3 * 4 * 8];
	unsigned int i, s, o, h, n = 0;

	tap_init(argc, argv);
	ha_init();
	for (i = 0; i < 3; i++)
		for (s = 0; s < 3; s++)
			for (o = 0; o < 4; o++)
				for (h = 0; h < 8; h++) {
					struct cfg *c = &cfgs[n++];

					c->index = ix[i].ix;
					c->shrink = s;
					c->owner = o;
					c->hflags = hard[h].f;
					c->redzone = hard[h].rz;
					snprintf(c->name, sizeof(c->name),
						 "free-noalloc/%s/%s/%s/%s",
						 ix[i].n, shrink_name[s],
						 owner_name[o], hard[h].n);
					tap_run(c->name, 120, run_cfg, c);
				}
	return tap_done();
}
