// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Concurrency stress: threads allocate and free with random lifetimes
 * across pools of every index and option while the pools grow and shrink
 * and a "device" thread keeps overwriting all pool memory; lock-free index
 * readers race index writers; frees of one block race each other.  At the
 * end the accounting is exact.  Run under TSan by scripts/test-all.
 *
 * No assertion depends on timing: every check is about what happened, and
 * the thread interleavings only decide how much of it is exercised.
 *
 * A standalone TAP program, not a Criterion suite: Criterion cannot start
 * under ThreadSanitizer ("Could not initialize inheritable arena",
 * Snaipe/Criterion#274), and this suite exists to run under it.  Each test
 * runs in this process, in order; a failed check ends the run with exit
 * status 1.  Pass test names as arguments to run only those.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdarg.h>
#include <stdio.h>

#include "pool.h"

/* The harness: CHECK(cond, fmt, ...) ends the run when cond is false. */
static const char *current;

static void fail(const char *file, int line, const char *cond,
		 const char *fmt, ...)
{
	va_list ap;

	printf("not ok - %s\n# %s:%d: check failed: %s\n# ", current, file,
	       line, cond);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			fail(__FILE__, __LINE__, #cond, "" __VA_ARGS__); \
	} while (0)

#define NOTE(...)							\
	do {								\
		printf("# " __VA_ARGS__);				\
		printf("\n");						\
	} while (0)

/* Deterministic pseudo-random numbers (xorshift64*). */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* ------------------------------------------------------------------ */
/* Lock-free index readers against a writer.                          */

#define IX_RANGES	384

struct ix_test {
	struct dp_index ix;
	pthread_mutex_t lock;		/* plays the pool lock */
	size_t len;
	uintptr_t start[IX_RANGES];
	struct dp_chunk val[IX_RANGES];	/* mapped-to values, never read */
	atomic_bool in[IX_RANGES];
	atomic_bool stop;
	atomic_ulong lookups, wrong;
};

static void ix_stock(struct dp_index *ix, uint32_t need)
{
	if (need > ix->nspare) {
		void *nodes = dp_index_alloc_nodes(ix, need - ix->nspare, 0);

		CHECK(nodes);
		dp_index_add_spares(ix, nodes, need - ix->nspare);
	}
}

static void ix_set(struct ix_test *t, size_t i, bool in)
{
	struct dp_index *ix = &t->ix;

	pthread_mutex_lock(&t->lock);
	if (in) {
		ix_stock(ix, ix->ops->nodes_needed(ix, t->start[i], t->len));
		ix->ops->insert(ix, t->start[i], t->len, &t->val[i]);
	} else {
		ix_stock(ix, ix->ops->remove_nodes_needed(ix, t->start[i],
							  t->len));
		ix->ops->remove(ix, t->start[i], t->len);
	}
	atomic_store(&t->in[i], in);
	pthread_mutex_unlock(&t->lock);
}

/*
 * Even ranges never change: a reader must always find them.  Odd ones come
 * and go: a reader finds them or nothing, never another range.  Gaps and
 * outside: nothing.
 */
static void *ix_reader(void *arg)
{
	struct ix_test *t = arg;
	uint64_t rng = (uint64_t)(uintptr_t)&rng | 1;

	while (!atomic_load(&t->stop)) {
		size_t i = rnd(&rng) % IX_RANGES;
		uintptr_t a = t->start[i] + rnd(&rng) % t->len;
		uintptr_t gap = t->start[i] + t->len + rnd(&rng) % t->len;
		struct dp_chunk *c, *g;

		dp_rcu_read_lock();
		c = dp_index_lookup_rcu(&t->ix, a);
		g = dp_index_lookup_rcu(&t->ix, gap);
		dp_rcu_read_unlock();
		if (i % 2 == 0 ? c != &t->val[i] : c && c != &t->val[i])
			atomic_fetch_add(&t->wrong, 1);
		if (g)
			atomic_fetch_add(&t->wrong, 1);
		atomic_fetch_add(&t->lookups, 1);
	}
	return NULL;
}

static void ix_run(enum dmapool_index_kind kind, size_t len)
{
	struct ix_test *t = calloc(1, sizeof(*t));
	pthread_t rd[2];
	uint64_t rng = 77;
	size_t i, k;

	CHECK(t);
	pthread_mutex_init(&t->lock, NULL);
	CHECK(dp_index_init(&t->ix, kind, 12) == 0);
	t->len = len;
	/*
	 * Stable ranges close together, with a gap of one range after each;
	 * changing ones 16 MiB apart, so that removing one empties radix
	 * nodes (kept: type-stable) and adding them grows the tree.
	 */
	for (i = 0; i < IX_RANGES; i++)
		t->start[i] = i % 2 ?
			((uintptr_t)1 << 36) + (i / 2) * ((uintptr_t)16 << 20) :
			((uintptr_t)1 << 34) + i * 2 * len;
	for (i = 0; i < IX_RANGES; i += 2)
		ix_set(t, i, true);
	for (i = 0; i < 2; i++)
		pthread_create(&rd[i], NULL, ix_reader, t);
	for (k = 0; k < 6000 || atomic_load(&t->lookups) < 20000; k++) {
		size_t j = 2 * (rnd(&rng) % (IX_RANGES / 2)) + 1;

		ix_set(t, j, !atomic_load(&t->in[j]));
		if (k % 97 == 0)
			sched_yield();
	}
	atomic_store(&t->stop, true);
	for (i = 0; i < 2; i++)
		pthread_join(rd[i], NULL);
	NOTE("%s: %lu lookups, %lu writes, %lu nodes retired",
		    t->ix.ops->name, atomic_load(&t->lookups), (unsigned long)k,
		    (unsigned long)t->ix.retired);
	CHECK(atomic_load(&t->wrong) == 0, "%lu of %lu lookups wrong",
	      atomic_load(&t->wrong), atomic_load(&t->lookups));
	/*
	 * The B-tree copies and retires nodes under its readers; radix nodes
	 * are type-stable (index.h: the fast free path reads them with no
	 * RCU at all), so none may ever be retired.
	 */
	if (kind == DMAPOOL_INDEX_BTREE)
		CHECK(t->ix.retired > 0, "writers retired nodes under readers");
	else
		CHECK(t->ix.retired == 0, "radix nodes are never retired");
	dp_index_fini(&t->ix);
	dp_rcu_barrier();
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static void radix_readers_vs_writer(void)
{
	ix_run(DMAPOOL_INDEX_RADIX, 4 * 4096);
}

static void btree_readers_vs_writer(void)
{
	ix_run(DMAPOOL_INDEX_BTREE, 4096);
}

/* ------------------------------------------------------------------ */
/* Pools under threads and a device.                                  */

#define NPOOLS		7
#define NWORKERS	4
#define LIVE_MAX	192
/*
 * Shm offsets the test tracks.  The backend never reuses an offset, and
 * the auto-shrink pools give back and regrow 64 KiB chunks thousands of
 * times (about 330 MiB of offsets in one run).
 */
#define OWN_SPAN	((size_t)1 << 30)
#define OWN_UNIT	16			/* smallest stride used */
#define XCHG_MAX	64

struct pool_cfg {
	const char *name;
	size_t size, align, boundary;
	enum dmapool_index_kind index;
	unsigned int flags;
	size_t reserve;
	bool handles;			/* some allocations by handle */
};

static const struct pool_cfg cfgs[NPOOLS] = {
	{ "radix-tc", 64, 64, 0, DMAPOOL_INDEX_RADIX,
	  DMAPOOL_OPT_THREAD_CACHE | DMAPOOL_OPT_AUTO_SHRINK, 1, false },
	{ "btree-tc", 200, 8, 1024, DMAPOOL_INDEX_BTREE,
	  DMAPOOL_OPT_THREAD_CACHE | DMAPOOL_OPT_AUTO_SHRINK, 0, false },
	{ "radix", 1024, 1024, 0, DMAPOOL_INDEX_RADIX, 0, 0, true },
	{ "btree-shrink", 4096, 4096, 0, DMAPOOL_INDEX_BTREE,
	  DMAPOOL_OPT_AUTO_SHRINK, 1, true },
	/*
	 * The default index: another thread's free is claimed against the
	 * state word it read, with no RCU (free.c), while chunks are
	 * released and their records reused.
	 */
	{ "hash", 64, 64, 0, DMAPOOL_INDEX_HASH, 0, 0, true },
	{ "hash-shrink", 256, 256, 0, DMAPOOL_INDEX_HASH,
	  DMAPOOL_OPT_AUTO_SHRINK, 0, true },
	{ "hash-quarantine", 16, 16, 0, DMAPOOL_INDEX_HASH,
	  DMAPOOL_OPT_QUARANTINE | DMAPOOL_OPT_AUTO_SHRINK, 0, false },
};

struct blk {
	int p;				/* pool */
	struct dmapool_block b;		/* handle 0 when by address */
	bool by_handle;
};

/* Reports arrive from many threads at once: count them atomically. */
static void count_report(const struct dmapool_report *r, void *ctx)
{
	atomic_fetch_add((atomic_ulong *)ctx, 1);
}

struct world {
	atomic_ulong reports[NPOOLS];	/* delivered to the pool's sink */
	struct dmapool_dev *dev[NPOOLS];
	struct dmapool *pool[NPOOLS];
	atomic_uchar *own[NPOOLS];	/* per OWN_UNIT of shm offset */
	atomic_ulong misuse[NPOOLS];	/* reports we caused on purpose */
	atomic_ulong errors;		/* broken promises */
	atomic_ulong allocs, frees, remote;
	atomic_bool stop;
	pthread_mutex_t xlock;		/* blocks handed between threads */
	struct blk xchg[XCHG_MAX];
	int nx;
	/* What each worker still holds when it exits. */
	struct blk live[NWORKERS][LIVE_MAX];
	int nlive[NWORKERS];
	atomic_ulong device_rounds;
};

static struct world *W;

static atomic_uchar *own_slot(int p, dmapool_dma_t dma)
{
	size_t off = dma - DMAPOOL_SHM_IOVA_BASE;

	if (off >= OWN_SPAN) {
		atomic_fetch_add(&W->errors, 1);
		return NULL;
	}
	return &W->own[p][off / OWN_UNIT];
}

/* A block we were just given: check the promises, then own it. */
static void took(const struct blk *k)
{
	const struct pool_cfg *c = &cfgs[k->p];
	uintptr_t va = (uintptr_t)k->b.vaddr;
	atomic_uchar *o = own_slot(k->p, k->b.dma);
	unsigned char zero = 0;

	if (va % c->align || k->b.dma % c->align ||
	    (va & 4095) != (k->b.dma & 4095))
		atomic_fetch_add(&W->errors, 1);
	if (c->boundary && va / c->boundary != (va + c->size - 1) / c->boundary)
		atomic_fetch_add(&W->errors, 1);
	/* Nobody else may hold this block now. */
	if (o && !atomic_compare_exchange_strong(o, &zero, 1))
		atomic_fetch_add(&W->errors, 1);
	memset(k->b.vaddr, 0x5a, c->size);	/* the caller owns every byte */
	atomic_fetch_add(&W->allocs, 1);
}

static void give_back(const struct blk *k)
{
	atomic_uchar *o = own_slot(k->p, k->b.dma);

	if (o && atomic_exchange(o, 0) != 1)
		atomic_fetch_add(&W->errors, 1);
	if (k->by_handle)
		dmapool_free_block(W->pool[k->p], k->b);
	else
		dmapool_free(W->pool[k->p], k->b.vaddr, k->b.dma);
	atomic_fetch_add(&W->frees, 1);
}

static bool get_one(int p, uint64_t *rng, struct blk *k)
{
	k->p = p;
	k->by_handle = cfgs[p].handles && rnd(rng) % 2;
	if (k->by_handle) {
		k->b = dmapool_alloc_block(W->pool[p],
					   rnd(rng) % 4 ? 0 : DMAPOOL_GFP_ZERO);
	} else {
		k->b.handle = 0;
		k->b.vaddr = dmapool_alloc(W->pool[p], 0, &k->b.dma);
	}
	if (!k->b.vaddr) {
		atomic_fetch_add(&W->errors, 1);
		return false;
	}
	took(k);
	return true;
}

/* Wrong frees that must be reported and change nothing. */
static void misuse(const struct blk *k, uint64_t *rng)
{
	size_t off = 1 + rnd(rng) % (cfgs[k->p].size - 1);

	if (rnd(rng) % 2)
		dmapool_free(W->pool[k->p], (char *)k->b.vaddr + off,
			     k->b.dma + off);
	else
		dmapool_free(W->pool[k->p], k->b.vaddr,
			     k->b.dma + cfgs[k->p].align * (1 + off % 3));
	atomic_fetch_add(&W->misuse[k->p], 1);
}

struct worker_arg {
	int id;
};

static void *worker(void *arg)
{
	int id = ((struct worker_arg *)arg)->id;
	uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1);
	struct blk *live = W->live[id];
	int n = 0;
	unsigned long step;

	for (step = 0; !atomic_load(&W->stop); step++) {
		uint64_t r = rnd(&rng) % 1000;
		int p = (int)(rnd(&rng) % NPOOLS);

		if (r < 450 && n < LIVE_MAX) {
			n += get_one(p, &rng, &live[n]);
		} else if (r < 880 && n) {
			int i = (int)(rnd(&rng) % (uint64_t)n);

			give_back(&live[i]);
			live[i] = live[--n];
		} else if (r < 930) {
			/* Hand a block to another thread, or take one. */
			pthread_mutex_lock(&W->xlock);
			if (n && W->nx < XCHG_MAX && rnd(&rng) % 2) {
				W->xchg[W->nx++] = live[--n];
			} else if (W->nx && n < LIVE_MAX) {
				live[n++] = W->xchg[--W->nx];
				atomic_fetch_add(&W->remote, 1);
			}
			pthread_mutex_unlock(&W->xlock);
		} else if (r < 950 && n) {
			misuse(&live[rnd(&rng) % (uint64_t)n], &rng);
		} else if (r < 960) {
			dmapool_shrink(W->pool[p]);
		} else if (r < 965) {
			/* A burst ends: everything goes back, chunks empty. */
			while (n)
				give_back(&live[--n]);
		}
	}
	W->nlive[id] = n;
	return NULL;
}

/* The device: overwrite every chunk of every pool, through its own
 * mapping of the backend's file, over and over. */
struct dev_range {
	dmapool_dma_t dma;
	size_t len;
};

struct dev_walk {
	struct dev_range r[4096];
	size_t n;
};

static void dev_collect(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct dev_walk *w = ctx;

	if (w->n < 4096) {
		w->r[w->n].dma = dma;
		w->r[w->n].len = len;
		w->n++;
	}
}

static void *device(void *arg)
{
	struct dev_walk *w = malloc(sizeof(*w));
	uint64_t x = 12345;
	int p;

	if (!w) {
		atomic_fetch_add(&W->errors, 1);
		return NULL;
	}
	while (!atomic_load(&W->stop)) {
		for (p = 0; p < NPOOLS; p++) {
			int fd = dmapool_dev_shm_fd(W->dev[p]);
			size_t flen = dmapool_dev_shm_size(W->dev[p]), i, o;
			uint8_t *m;

			w->n = 0;
			dmapool_walk_chunks(W->pool[p], dev_collect, w);
			if (!flen)
				continue;
			m = mmap(NULL, flen, PROT_READ | PROT_WRITE,
				 MAP_SHARED, fd, 0);
			if (m == MAP_FAILED) {
				atomic_fetch_add(&W->errors, 1);
				continue;
			}
			for (i = 0; i < w->n; i++) {
				size_t at = w->r[i].dma - DMAPOOL_SHM_IOVA_BASE;

				for (o = 0; o + 8 <= w->r[i].len &&
					    at + o + 8 <= flen; o += 8) {
					x = x * 6364136223846793005ull + 1;
					memcpy(m + at + o, &x, 8);
				}
			}
			munmap(m, flen);
		}
		atomic_fetch_add(&W->device_rounds, 1);
	}
	free(w);
	return NULL;
}

static void world_init(void)
{
	int p;

	W = calloc(1, sizeof(*W));
	CHECK(W);
	pthread_mutex_init(&W->xlock, NULL);
	for (p = 0; p < NPOOLS; p++) {
		struct dmapool_opts o;

		dmapool_opts_init(&o);
		o.index = cfgs[p].index;
		o.flags = cfgs[p].flags;
		o.reserve_chunks = cfgs[p].reserve;
		o.report = count_report;
		o.report_ctx = &W->reports[p];
		W->dev[p] = dmapool_dev_shm();
		CHECK(W->dev[p]);
		W->pool[p] = dmapool_create_opts(cfgs[p].name, W->dev[p],
						 cfgs[p].size, cfgs[p].align,
						 cfgs[p].boundary, &o);
		CHECK(W->pool[p]);
		W->own[p] = calloc(OWN_SPAN / OWN_UNIT, 1);
		CHECK(W->own[p]);
	}
}

static void world_fini(void)
{
	int p;

	for (p = 0; p < NPOOLS; p++) {
		dmapool_destroy(W->pool[p]);
		dmapool_dev_put(W->dev[p]);
		free(W->own[p]);
	}
	pthread_mutex_destroy(&W->xlock);
	free(W);
	W = NULL;
}

static void pools_threads_and_device(void)
{
	struct worker_arg args[NWORKERS];
	pthread_t th[NWORKERS], dv;
	uint64_t held[NPOOLS] = { 0 }, released = 0;
	struct dmapool_stats st;
	int i, p;

	world_init();
	pthread_create(&dv, NULL, device, NULL);
	for (i = 0; i < NWORKERS; i++) {
		args[i].id = i;
		pthread_create(&th[i], NULL, worker, &args[i]);
	}
	/* Enough work to grow and shrink every pool many times. */
	while (atomic_load(&W->allocs) < 120000 ||
	       atomic_load(&W->device_rounds) < 5)
		usleep(20000);
	atomic_store(&W->stop, true);
	for (i = 0; i < NWORKERS; i++)
		pthread_join(th[i], NULL);
	pthread_join(dv, NULL);
	CHECK(atomic_load(&W->errors) == 0,
	      "a block was handed out twice, misaligned, or lost");
	CHECK(atomic_load(&W->remote) > 0, "cross-thread frees happened");

	/* Exact accounting: the workers' caches went back when they exited. */
	for (i = 0; i < NWORKERS; i++)
		for (int k = 0; k < W->nlive[i]; k++)
			held[W->live[i][k].p]++;
	for (i = 0; i < W->nx; i++)
		held[W->xchg[i].p]++;
	for (p = 0; p < NPOOLS; p++) {
		dmapool_get_stats(W->pool[p], &st);
		CHECK(st.blocks_cached == 0, "%s: caches drained",
		      cfgs[p].name);
		CHECK(st.blocks_in_use == held[p], "%s: in use %lu, held %lu",
		      cfgs[p].name, (unsigned long)st.blocks_in_use,
		      (unsigned long)held[p]);
		CHECK(st.violations == atomic_load(&W->misuse[p]),
		      "%s: exactly the misuse we did was reported",
		      cfgs[p].name);
		CHECK(st.by_kind[DMAPOOL_R_FREE_NOT_BLOCK] +
		      st.by_kind[DMAPOOL_R_FREE_DMA_MISMATCH] == st.violations);
		CHECK(st.blocks_total == st.chunks * st.blocks_per_chunk);
		CHECK(atomic_load(&W->reports[p]) == st.violations,
		      "every report reached the sink");
		released += st.chunks_released;
	}
	CHECK(released > 0, "pools shrank");
	NOTE("allocs %lu frees %lu remote %lu device rounds %lu released %lu",
	     atomic_load(&W->allocs), atomic_load(&W->frees),
	     atomic_load(&W->remote), atomic_load(&W->device_rounds),
	     (unsigned long)released);

	/* Everything back; then only the reserves remain. */
	for (i = 0; i < NWORKERS; i++)
		for (int k = 0; k < W->nlive[i]; k++)
			give_back(&W->live[i][k]);
	for (i = 0; i < W->nx; i++)
		give_back(&W->xchg[i]);
	for (p = 0; p < NPOOLS; p++) {
		/* Quarantined blocks become free, then chunks can go. */
		dmapool_quiesce(W->pool[p]);
		dmapool_shrink(W->pool[p]);
		dmapool_get_stats(W->pool[p], &st);
		CHECK(st.blocks_in_use == 0, "%s", cfgs[p].name);
		CHECK(st.blocks_cached == 0, "%s", cfgs[p].name);
		CHECK(st.chunks <= cfgs[p].reserve, "%s: %lu chunks left",
		      cfgs[p].name, (unsigned long)st.chunks);
		CHECK(st.violations == atomic_load(&W->misuse[p]),
		      "no report but the deliberate ones");
		CHECK(atomic_load(&W->reports[p]) == st.violations);
	}
	world_fini();
}

/* ------------------------------------------------------------------ */
/* Two threads free the same block at the same time.                  */

struct race {
	atomic_ulong reports;
	struct dmapool *pool;
	pthread_barrier_t go, done;
	void *v;
	dmapool_dma_t d;
	int rounds;
};

static void *racer(void *arg)
{
	struct race *r = arg;
	int i;

	for (i = 0; i < r->rounds; i++) {
		pthread_barrier_wait(&r->go);
		dmapool_free(r->pool, r->v, r->d);
		pthread_barrier_wait(&r->done);
	}
	return NULL;
}

/* A 64-byte pool whose reports count into *@reports. */
static struct dmapool *race_pool(struct dmapool_dev *dev, const char *name,
				 unsigned int flags,
				 enum dmapool_index_kind index,
				 atomic_ulong *reports)
{
	struct dmapool_opts o;
	struct dmapool *pool;

	dmapool_opts_init(&o);
	o.flags = flags;
	o.index = index;
	o.report = count_report;
	o.report_ctx = reports;
	CHECK(dev);
	pool = dmapool_create_opts(name, dev, 64, 64, 0, &o);
	CHECK(pool);
	return pool;
}

static void race_run(unsigned int flags, enum dmapool_index_kind index)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct dmapool_stats st;
	struct race r;
	pthread_t t[2];
	int i;

	memset(&r, 0, sizeof(r));
	r.pool = race_pool(dev, "race", flags, index, &r.reports);
	r.rounds = 3000;
	pthread_barrier_init(&r.go, NULL, 3);
	pthread_barrier_init(&r.done, NULL, 3);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, racer, &r);
	for (i = 0; i < r.rounds; i++) {
		r.v = dmapool_alloc(r.pool, 0, &r.d);
		CHECK(r.v);
		pthread_barrier_wait(&r.go);
		pthread_barrier_wait(&r.done);
		/* Exactly one of the two frees succeeded. */
		CHECK(atomic_load(&r.reports) == (unsigned long)i + 1);
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	dmapool_get_stats(r.pool, &st);
	CHECK(st.by_kind[DMAPOOL_R_DOUBLE_FREE] == (uint64_t)r.rounds);
	CHECK(st.violations == (uint64_t)r.rounds);
	CHECK(st.blocks_in_use == 0);
	/* The racers' caches drained when they exited; ours goes now. */
	dmapool_shrink(r.pool);
	dmapool_get_stats(r.pool, &st);
	CHECK(st.blocks_cached == 0);
	CHECK(st.blocks_in_use == 0);
	CHECK(st.chunks == 0, "all empty, no reserve: all released");
	pthread_barrier_destroy(&r.go);
	pthread_barrier_destroy(&r.done);
	dmapool_destroy(r.pool);
	dmapool_dev_put(dev);
}

static void racing_double_free_default(void)
{
	race_run(0, DMAPOOL_INDEX_RADIX);
}

static void racing_double_free_thread_cache(void)
{
	race_run(DMAPOOL_OPT_THREAD_CACHE, DMAPOOL_INDEX_RADIX);
}

static void racing_double_free_btree_cache(void)
{
	race_run(DMAPOOL_OPT_THREAD_CACHE | DMAPOOL_OPT_AUTO_SHRINK,
		 DMAPOOL_INDEX_BTREE);
}

/* The default index: both racers' frees are remote (claim_seen, free.c). */
static void racing_double_free_hash(void)
{
	race_run(0, DMAPOOL_INDEX_HASH);
}

/*
 * By handle (the hash index): the main thread allocates, two others free
 * the block by its handle at once (both remote: the claim makes it pending
 * for the owner, handle.c) and each also frees the block of the round
 * before by its old handle, which the owner may have handed out again
 * meanwhile.  Exactly one free of each block succeeds; every other is
 * reported, as a double free or a stale handle, and none disturbs the
 * block the handle's position holds now.
 */
struct hrace {
	atomic_ulong reports;
	struct dmapool *pool;
	pthread_barrier_t go, done;
	struct dmapool_block b, old;
	int rounds;
};

static void *hracer(void *arg)
{
	struct hrace *r = arg;
	int i;

	for (i = 0; i < r->rounds; i++) {
		pthread_barrier_wait(&r->go);
		dmapool_free_block(r->pool, r->b);
		if (r->old.vaddr)
			dmapool_free_block(r->pool, r->old);
		pthread_barrier_wait(&r->done);
	}
	return NULL;
}

static void racing_double_free_handles(void)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct dmapool_stats st;
	struct hrace r;
	pthread_t t[2];
	unsigned long want = 0;
	int i;

	memset(&r, 0, sizeof(r));
	r.pool = race_pool(dev, "hrace", 0, DMAPOOL_INDEX_HASH, &r.reports);
	r.rounds = 3000;
	pthread_barrier_init(&r.go, NULL, 3);
	pthread_barrier_init(&r.done, NULL, 3);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, hracer, &r);
	for (i = 0; i < r.rounds; i++) {
		r.old = r.b;
		r.b = dmapool_alloc_block(r.pool, 0);
		CHECK(r.b.vaddr);
		pthread_barrier_wait(&r.go);
		pthread_barrier_wait(&r.done);
		/* One of the two frees of b won; both of the old one lost. */
		want += i ? 3 : 1;
		CHECK(atomic_load(&r.reports) == want, "round %d: %lu reports",
		      i, (unsigned long)atomic_load(&r.reports));
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	dmapool_get_stats(r.pool, &st);
	CHECK(st.by_kind[DMAPOOL_R_DOUBLE_FREE] +
	      st.by_kind[DMAPOOL_R_STALE_HANDLE] == want);
	CHECK(st.violations == want);
	CHECK(st.blocks_in_use == 0);
	pthread_barrier_destroy(&r.go);
	pthread_barrier_destroy(&r.done);
	dmapool_destroy(r.pool);
	dmapool_dev_put(dev);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "radix_readers_vs_writer", radix_readers_vs_writer },
	{ "btree_readers_vs_writer", btree_readers_vs_writer },
	{ "pools_threads_and_device", pools_threads_and_device },
	{ "racing_double_free_default", racing_double_free_default },
	{ "racing_double_free_thread_cache", racing_double_free_thread_cache },
	{ "racing_double_free_btree_cache", racing_double_free_btree_cache },
	{ "racing_double_free_hash", racing_double_free_hash },
	{ "racing_double_free_handles", racing_double_free_handles },
};

int main(int argc, char **argv)
{
	size_t i, n = sizeof(tests) / sizeof(tests[0]), ran = 0;
	int a;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	for (i = 0; i < n; i++) {
		bool want = argc < 2;

		for (a = 1; a < argc; a++)
			want |= !strcmp(argv[a], tests[i].name);
		if (!want)
			continue;
		current = tests[i].name;
		tests[i].fn();
		printf("ok %zu - %s\n", ++ran, current);
	}
	if (!ran) {
		printf("not ok - no test matched\n");
		return 1;
	}
	printf("1..%zu\n", ran);
	return 0;
}
