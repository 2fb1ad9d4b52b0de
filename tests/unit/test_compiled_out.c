// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * A core built without its optional parts (DP_HAVE_HARDEN 0 and
 * DP_HAVE_BTREE 0: what a kernel tree with CONFIG_DMAPOOL_HARDENED=n and
 * CONFIG_DMAPOOL_BTREE=n builds, harden.c, placement.c and btree.c left
 * out), linked here as its own library.
 *
 * Every left-out option must be refused at create, never silently
 * ignored: NULL, errno EOPNOTSUPP, and exactly one "bad-geometry" report
 * to the pool's sink that names the pool and the option.  What stays must
 * work: the default pool, the radix and hash indexes, automatic shrink,
 * the shared heap, handles, and misuse reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include <dmapool/dmapool.h>

#include "tap.h"

struct sink {
	unsigned int n;
	enum dmapool_report_kind kind;
	char pool_name[32];
	char detail[128];
};

static void sink_fn(const struct dmapool_report *r, void *ctx)
{
	struct sink *s = ctx;

	s->n++;
	s->kind = r->kind;
	snprintf(s->pool_name, sizeof(s->pool_name), "%s", r->pool_name);
	snprintf(s->detail, sizeof(s->detail), "%s", r->detail ? r->detail : "");
}

struct refusal {
	const char *name;	/* pool name, also the test's */
	unsigned int flags;
	unsigned int redzone;
	enum dmapool_index_kind index;
	const char *says;	/* in the report's detail */
};

static const struct refusal refusals[] = {
	{ "out-poison", DMAPOOL_OPT_POISON, 0, DMAPOOL_INDEX_HASH,
	  "DMAPOOL_OPT_POISON" },
	{ "out-sampled", DMAPOOL_OPT_POISON_SAMPLED, 0, DMAPOOL_INDEX_HASH,
	  "DMAPOOL_OPT_POISON_SAMPLED" },
	{ "out-quarantine", DMAPOOL_OPT_QUARANTINE, 0, DMAPOOL_INDEX_RADIX,
	  "DMAPOOL_OPT_QUARANTINE" },
	{ "out-scrub", DMAPOOL_OPT_SCRUB, 0, DMAPOOL_INDEX_HASH,
	  "DMAPOOL_OPT_SCRUB" },
	{ "out-random", DMAPOOL_OPT_RANDOM | DMAPOOL_OPT_AUTO_SHRINK, 0,
	  DMAPOOL_INDEX_HASH, "DMAPOOL_OPT_RANDOM" },
	{ "out-redzone", 0, 16, DMAPOOL_INDEX_HASH, "redzones" },
	{ "out-btree", 0, 0, DMAPOOL_INDEX_BTREE, "B-tree" },
};

static void refused(void *arg)
{
	const struct refusal *rf = arg;
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct sink s = { 0 };
	struct dmapool_opts o;
	struct dmapool *pool;

	CHECK(dev);
	dmapool_opts_init(&o);
	o.flags = rf->flags;
	o.redzone = rf->redzone;
	o.index = rf->index;
	o.report = sink_fn;
	o.report_ctx = &s;
	errno = 0;
	pool = dmapool_create_opts(rf->name, dev, 64, 64, 0, &o);
	CHECK(!pool, "%s: a compiled-out option was accepted", rf->name);
	CHECK(errno == EOPNOTSUPP, "%s: errno %d (%s), want EOPNOTSUPP",
	      rf->name, errno, strerror(errno));
	CHECK(s.n == 1, "%s: %u reports, want 1", rf->name, s.n);
	CHECK(s.kind == DMAPOOL_R_BAD_GEOMETRY, "%s: report kind %s",
	      rf->name, dmapool_report_kind_name(s.kind));
	CHECK(!strcmp(s.pool_name, rf->name), "%s: report names pool '%s'",
	      rf->name, s.pool_name);
	CHECK(strstr(s.detail, rf->says) && strstr(s.detail, "compiled out"),
	      "%s: detail '%s' does not say '%s ... compiled out'", rf->name,
	      s.detail, rf->says);
	NOTE("%s: refused: %s", rf->name, s.detail);
	dmapool_dev_put(dev);
}

struct kept {
	const char *name;
	unsigned int flags;
	enum dmapool_index_kind index;
};

static const struct kept kept[] = {
	{ "kept-default", 0, DMAPOOL_INDEX_HASH },
	{ "kept-radix", 0, DMAPOOL_INDEX_RADIX },
	{ "kept-shrink", DMAPOOL_OPT_AUTO_SHRINK, DMAPOOL_INDEX_HASH },
	{ "kept-shared", DMAPOOL_OPT_SHARED, DMAPOOL_INDEX_RADIX },
};

#define KEPT_BLOCKS 300

/* A pool of what stays: blocks, handles, quiesce, a reported double free. */
static void works(void *arg)
{
	const struct kept *k = arg;
	struct dmapool_dev *dev = dmapool_dev_heap();
	static void *v[KEPT_BLOCKS];
	static dmapool_dma_t d[KEPT_BLOCKS];
	struct dmapool_stats st;
	struct sink s = { 0 };
	struct dmapool_block b;
	struct dmapool_opts o;
	struct dmapool *pool;
	unsigned int i, j;

	CHECK(dev);
	dmapool_opts_init(&o);
	o.flags = k->flags;
	o.index = k->index;
	o.report = sink_fn;
	o.report_ctx = &s;
	pool = dmapool_create_opts(k->name, dev, 48, 16, 0, &o);
	CHECK(pool, "%s: refused (%s)", k->name, s.detail);
	for (i = 0; i < KEPT_BLOCKS; i++) {
		v[i] = dmapool_zalloc(pool, 0, &d[i]);
		CHECK(v[i] && (uintptr_t)v[i] % 16 == 0 && d[i] % 16 == 0,
		      "%s: block %u", k->name, i);
		for (j = 0; j < 48; j++)
			CHECK(((unsigned char *)v[i])[j] == 0);
		memset(v[i], 0xa5, 48);
	}
	for (i = 0; i < KEPT_BLOCKS; i++)
		for (j = i + 1; j < KEPT_BLOCKS; j++)
			CHECK(v[i] != v[j], "%s: block handed out twice", k->name);
	for (i = 0; i < KEPT_BLOCKS; i += 2)
		dmapool_free(pool, v[i], d[i]);
	dmapool_quiesce(pool);
	dmapool_free(pool, v[0], d[0]);
	CHECK(s.n == 1 && s.kind == DMAPOOL_R_DOUBLE_FREE,
	      "%s: double free: %u reports, kind %s", k->name, s.n,
	      dmapool_report_kind_name(s.kind));
	b = dmapool_alloc_block(pool, 0);
	CHECK(b.vaddr && b.handle);
	dmapool_free_block(pool, b);
	for (i = 1; i < KEPT_BLOCKS; i += 2)
		dmapool_free(pool, v[i], d[i]);
	dmapool_get_stats(pool, &st);
	CHECK(st.blocks_in_use == 0 && st.violations == 1,
	      "%s: %llu in use, %llu reports", k->name,
	      (unsigned long long)st.blocks_in_use,
	      (unsigned long long)st.violations);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

int main(int argc, char **argv)
{
	unsigned int i;

	tap_init(argc, argv);
	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		tap_run(refusals[i].name, 60, refused, (void *)&refusals[i]);
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		tap_run(kept[i].name, 60, works, (void *)&kept[i]);
	return tap_done();
}
