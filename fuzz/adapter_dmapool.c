// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The ops harness's view of dmapool: its public API, one arena backend per
 * pool, every report forwarded to the harness.
 *
 * Features other branches are still adding switch on by themselves:
 * option flags, redzones and index kinds are probed at init by creating a
 * pool with each (a build that lacks one refuses it with bad-geometry), and
 * quiesce / shrink are compiled in when dmapool.h declares them
 * (DPF_HAVE_QUIESCE, DPF_HAVE_SHRINK in the generated dpf_features.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpf_features.h"
#include "harness.h"

struct dpool {
	struct dmapool *pool;
	struct dmapool_dev *dev;
	dpf_report_cb cb;
	void *ctx;
};

static dpf_report_cb global_cb;
static void *global_ctx;

/*
 * Pools made with plain dmapool_create() have no sink of their own: their
 * reports reach the global one, which finds the pool here.
 */
#define MAX_PLAIN	16
static struct dpool *plain[MAX_PLAIN];

static void convert(const struct dmapool_report *r, struct dpf_report *out,
		    const void *pool)
{
	memset(out, 0, sizeof(*out));
	out->kind = r->kind;
	out->pool = pool;
	out->addr = r->addr;
	out->dma = r->dma;
	out->block = r->block;
	out->offset = r->offset;
	out->handle = r->handle;
	out->count = r->count;
	if (r->owner_name)
		snprintf(out->owner, sizeof(out->owner), "%s", r->owner_name);
	if (r->pool_name)
		snprintf(out->name, sizeof(out->name), "%s", r->pool_name);
	if (r->detail)
		snprintf(out->detail, sizeof(out->detail), "%s", r->detail);
}

static void to_pool(const struct dmapool_report *r, struct dpool *dp,
		    bool own_sink);

static void on_global(const struct dmapool_report *r, void *ctx)
{
	struct dpf_report out;
	unsigned int i;

	for (i = 0; r->pool && i < MAX_PLAIN; i++)
		if (plain[i] && plain[i]->pool == r->pool) {
			to_pool(r, plain[i], false);
			return;
		}
	convert(r, &out, NULL);
	if (global_cb)
		global_cb(&out, global_ctx);
}

static void to_pool(const struct dmapool_report *r, struct dpool *dp,
		    bool own_sink)
{
	struct dpf_report out;

	/* A refused create reports to the sink it was given, about no pool
	 * (the pool never existed): pass it on as the report without a pool
	 * it is, marked as having come the pool's own way. */
	convert(r, &out, r->pool ? dp : NULL);
	out.own_sink = own_sink;
	dpf_check(r->pool == dp->pool,
		  "report %s for pool %p delivered to the sink of pool %p",
		  dmapool_report_kind_name(r->kind), (const void *)r->pool,
		  (const void *)dp->pool);
	dp->cb(&out, dp->ctx);
}

static void on_pool(const struct dmapool_report *r, void *ctx)
{
	to_pool(r, ctx, true);
}

static void dp_init(dpf_report_cb cb, void *ctx)
{
	global_cb = cb;
	global_ctx = ctx;
	dmapool_set_report_handler(on_global, NULL);
}

int dpf_create_errno;

void dpf_params_to_opts(const struct dpf_params *p, struct dmapool_opts *o)
{
	dmapool_opts_init(o);
	o->flags = p->flags;
	o->index = (enum dmapool_index_kind)p->index;
	o->chunk_size = p->chunk_size;
	o->redzone = p->redzone;
	o->quarantine_max = p->quarantine_max;
	o->reserve_chunks = p->reserve_chunks;
	o->seed = p->seed;
	o->poison_sample = p->poison_sample;
	if (p->reserved == 1)
		o->reserved32 = 1;
	else if (p->reserved >= 2 && p->reserved <= 4)
		o->reserved[p->reserved - 2] = 1;
}

bool dpf_dmapool_plain(const struct dpf_params *p)
{
	struct dmapool_opts def;

	dmapool_opts_init(&def);
	return p->plain && !p->flags && p->index == (unsigned int)def.index &&
	       !p->chunk_size && !p->redzone && !p->quarantine_max &&
	       !p->reserve_chunks && !p->poison_sample && !p->reserved;
}

static void *dp_create(const struct dpf_params *p, int owner,
		       const char *name, dpf_report_cb cb, void *ctx)
{
	struct dmapool_opts o;
	struct dpool *dp = calloc(1, sizeof(*dp));
	unsigned int i;

	dpf_create_errno = ENOMEM;	/* the harness's own memory */
	if (!dp)
		return NULL;
	dpf_params_to_opts(p, &o);
	o.report = on_pool;
	o.report_ctx = dp;
	dp->cb = cb;
	dp->ctx = ctx;
	dp->dev = dpf_arena_dev(owner, p->low);
	if (!dp->dev) {
		free(dp);
		return NULL;
	}
	if (dpf_dmapool_plain(p)) {
		/* The contract's own entry point. */
		for (i = 0; i < MAX_PLAIN && plain[i]; i++)
			;
		if (i < MAX_PLAIN) {
			dp->pool = dmapool_create(name, dp->dev, p->size,
						  p->align, p->boundary);
			if (dp->pool)
				plain[i] = dp;
			goto made;
		}
	}
	dp->pool = dmapool_create_opts(name, dp->dev, p->size, p->align,
				       p->boundary, &o);
made:
	if (!dp->pool) {
		dpf_create_errno = errno;
		dmapool_dev_put(dp->dev);
		free(dp);
		return NULL;
	}
	return dp;
}

static void dp_destroy(void *pool)
{
	struct dpool *dp = pool;
	unsigned int i;

	dmapool_destroy(dp->pool);
	for (i = 0; i < MAX_PLAIN; i++)
		if (plain[i] == dp)
			plain[i] = NULL;
	dmapool_dev_put(dp->dev);
	free(dp);
}

/* NULL stands for "a NULL pool" in misuse ops. */
static struct dmapool *P(void *pool)
{
	return pool ? ((struct dpool *)pool)->pool : NULL;
}

static void *dp_alloc(void *pool, dmapool_gfp_t gfp, uint64_t *dma)
{
	dmapool_dma_t d = 0;
	void *v;

	if (gfp & DMAPOOL_GFP_ZERO)
		v = dmapool_zalloc(P(pool), gfp & ~DMAPOOL_GFP_ZERO, &d);
	else
		v = dmapool_alloc(P(pool), gfp, &d);
	*dma = d;
	return v;
}

static void dp_free(void *pool, void *vaddr, uint64_t dma)
{
	dmapool_free(P(pool), vaddr, dma);
}

static void dp_free_zero(void *pool, void *vaddr, uint64_t dma)
{
	dmapool_free_zero(P(pool), vaddr, dma);
}

static unsigned int dp_alloc_bulk(void *pool, dmapool_gfp_t gfp,
				  unsigned int n, void **vaddrs, uint64_t *dmas)
{
	return dmapool_alloc_bulk(P(pool), gfp, n, vaddrs, dmas);
}

static void dp_free_bulk(void *pool, unsigned int n, void *const *vaddrs,
			 const uint64_t *dmas)
{
	dmapool_free_bulk(P(pool), n, vaddrs, dmas);
}

static struct dmapool_block dp_alloc_block(void *pool, dmapool_gfp_t gfp)
{
	return dmapool_alloc_block(P(pool), gfp);
}

static void dp_free_block(void *pool, struct dmapool_block b)
{
	dmapool_free_block(P(pool), b);
}

#ifdef DPF_HAVE_QUIESCE
static void dp_quiesce(void *pool)
{
	dmapool_quiesce(P(pool));
}
#define DP_QUIESCE	dp_quiesce
#define DP_CAP_QUIESCE	DPF_CAP_QUIESCE
#else
#define DP_QUIESCE	NULL
#define DP_CAP_QUIESCE	0
#endif

#ifdef DPF_HAVE_SHRINK
static size_t dp_shrink(void *pool)
{
	return dmapool_shrink(P(pool));
}
#define DP_SHRINK	dp_shrink
#define DP_CAP_SHRINK	DPF_CAP_SHRINK
#else
#define DP_SHRINK	NULL
#define DP_CAP_SHRINK	0
#endif

static void dp_stats(void *pool, struct dmapool_stats *st)
{
	dmapool_get_stats(P(pool), st);
}

static void dp_walk(void *pool, dmapool_chunk_fn fn, void *ctx)
{
	dmapool_walk_chunks(P(pool), fn, ctx);
}

static void ignore_report(const struct dmapool_report *r, void *ctx)
{
	(void)r;
	(void)ctx;
}

/* Does this build accept a 64-byte pool with these options? */
static bool accepts(const struct dmapool_opts *o)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct dmapool *pool;
	bool ok;

	if (!dev)
		return false;
	pool = dmapool_create_opts("probe", dev, 64, 64, 0, o);
	ok = pool != NULL;
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
	return ok;
}

/* Feature @i (see struct dpf_features): accepted alone, and asked for. */
static bool feature_on(const struct dpf_features *f, unsigned int i)
{
	if (i == DPF_FEAT_REDZONE)
		return f->redzone;
	return (f->opt_flags >> i) & 1;
}

static void feature_set(struct dmapool_opts *o, unsigned int i)
{
	if (i == DPF_FEAT_REDZONE)
		o->redzone = 16;
	else
		o->flags |= 1u << i;
}

/* Every option the header names, as this harness knows them. */
#define DP_ALL_FLAGS	(DMAPOOL_OPT_ABORT_ON_VIOLATION | DMAPOOL_OPT_POISON | \
			 DMAPOOL_OPT_QUARANTINE | DMAPOOL_OPT_SCRUB | \
			 DMAPOOL_OPT_RANDOM | DMAPOOL_OPT_THREAD_CACHE | \
			 DMAPOOL_OPT_AUTO_SHRINK | DMAPOOL_OPT_SHARED | \
			 DMAPOOL_OPT_POISON_SAMPLED)

/*
 * The probe against the contract: every option on every pool (issue 15),
 * alone and with any other, but the two poison modes together; every index
 * kind the header names.
 */
static void check_features(const struct dpf_features *f)
{
	const uint32_t poisons = DMAPOOL_OPT_POISON | DMAPOOL_OPT_POISON_SAMPLED;
	unsigned int i, j;

	dpf_check((f->opt_flags & DP_ALL_FLAGS) == DP_ALL_FLAGS,
		  "options %#x refused on their own",
		  DP_ALL_FLAGS & ~f->opt_flags);
	dpf_check(f->redzone, "redzones refused");
	for (i = 0; i <= DMAPOOL_INDEX_HASH; i++)
		dpf_check(f->index_kinds & (1u << i), "index kind %u refused",
			  i);
	for (i = 0; i < 32; i++) {
		for (j = 0; j < 32; j++) {
			uint32_t pair = 1u << i | 1u << j;
			bool known = (i == DPF_FEAT_REDZONE ||
				      (DP_ALL_FLAGS >> i) & 1) &&
				     (j == DPF_FEAT_REDZONE ||
				      (DP_ALL_FLAGS >> j) & 1);
			bool ok = (f->pair_ok[i] >> j) & 1;

			if (known)
				dpf_check(ok == (i == j || pair != poisons),
					  "options %u and %u %s together", i,
					  j, ok ? "accepted" : "refused");
		}
	}
}

static void dp_features(struct dpf_features *f)
{
	static struct dpf_features cached;
	static bool done;
	struct dmapool_opts o;
	unsigned int bit, k, i, j;

	if (!done) {
		/* Probes are refused with a report: keep them quiet. */
		dmapool_set_report_handler(ignore_report, NULL);
		for (bit = 1; bit; bit <<= 1) {
			dmapool_opts_init(&o);
			o.flags = bit;
			o.quarantine_max = 16;
			if (accepts(&o))
				cached.opt_flags |= bit;
		}
		for (k = 0; k < 8; k++) {
			dmapool_opts_init(&o);
			o.index = (enum dmapool_index_kind)k;
			if (accepts(&o))
				cached.index_kinds |= 1u << k;
		}
		dmapool_opts_init(&o);
		o.redzone = 16;
		cached.redzone = accepts(&o);
		/* Pairs of what is accepted alone. */
		for (i = 0; i < 32; i++) {
			for (j = 0; j < 32; j++) {
				if (!feature_on(&cached, i) ||
				    !feature_on(&cached, j))
					continue;
				dmapool_opts_init(&o);
				o.quarantine_max = 16;
				feature_set(&o, i);
				feature_set(&o, j);
				if (i == j || accepts(&o))
					cached.pair_ok[i] |= 1u << j;
			}
		}
		dmapool_set_report_handler(on_global, NULL);
		check_features(&cached);
		done = true;
	}
	*f = cached;
}

const struct dpf_adapter dpf_dmapool_adapter = {
	.name = "dmapool",
	.caps = DPF_CAP_REPORTS | DPF_CAP_HANDLES | DPF_CAP_OPTIONS |
		DPF_CAP_EXACT_DESTROY | DPF_CAP_STATS | DPF_CAP_IN_USE |
		DPF_CAP_CHECKS_BACKEND | DP_CAP_QUIESCE |
		DP_CAP_SHRINK,
	.init = dp_init,
	.features = dp_features,
	.create = dp_create,
	.destroy = dp_destroy,
	.alloc = dp_alloc,
	.free = dp_free,
	.alloc_block = dp_alloc_block,
	.free_block = dp_free_block,
	.free_zero = dp_free_zero,
	.alloc_bulk = dp_alloc_bulk,
	.free_bulk = dp_free_bulk,
	.quiesce = DP_QUIESCE,
	.shrink = DP_SHRINK,
	.stats = dp_stats,
	.walk = dp_walk,
	.global_violations = dmapool_global_violations,
};
