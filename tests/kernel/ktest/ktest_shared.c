// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The cases of tests/cases/, the same source the Criterion suites run, here
 * on dma_alloc_coherent() memory of a registered device, with kmalloc'd
 * metadata, spinlocks, kernel RCU and per-CPU heaps: the kernel build of
 * the core, under each index and the pool configurations the userspace
 * suites use.
 */
#include <linux/slab.h>

#include "ktest.h"
#include "cases/geometry.h"
#include "cases/hostile.h"
#include "cases/misuse.h"
#include "cases/zalloc.h"

/* The pool configurations the userspace suites run under, here too. */
#define KT_HARDENING	(DMAPOOL_OPT_POISON | DMAPOOL_OPT_QUARANTINE | \
			 DMAPOOL_OPT_SCRUB | DMAPOOL_OPT_RANDOM)

static const struct kt_config {
	const char *name;
	enum dmapool_index_kind index;
	unsigned int flags;
	size_t reserve;
	unsigned int redzone;
} kt_configs[] = {
	/* The default index, the only one with the fast free path. */
	{ "hash", DMAPOOL_INDEX_HASH, 0, 0, 0 },
	{ "radix", DMAPOOL_INDEX_RADIX, 0, 0, 0 },
	{ "btree", DMAPOOL_INDEX_BTREE, 0, 0, 0 },
	/*
	 * The suites' "tcache" sets: DMAPOOL_OPT_THREAD_CACHE is accepted
	 * and has no effect now (every pool has per-CPU heaps); what they
	 * test is automatic shrink keeping one empty chunk, whose releases
	 * go through the pool's work item here.
	 */
	{ "hash-tcache", DMAPOOL_INDEX_HASH,
	  DMAPOOL_OPT_THREAD_CACHE | DMAPOOL_OPT_AUTO_SHRINK, 1, 0 },
	{ "radix-tcache", DMAPOOL_INDEX_RADIX,
	  DMAPOOL_OPT_THREAD_CACHE | DMAPOOL_OPT_AUTO_SHRINK, 1, 0 },
	{ "btree-tcache", DMAPOOL_INDEX_BTREE,
	  DMAPOOL_OPT_THREAD_CACHE | DMAPOOL_OPT_AUTO_SHRINK, 1, 0 },
	/* One heap for all CPUs, under the pool lock. */
	{ "shared", DMAPOOL_INDEX_HASH, DMAPOOL_OPT_SHARED, 0, 0 },
	/* Every hardening option at once, as the suites' all-hardening. */
	{ "all-hardening", DMAPOOL_INDEX_HASH, KT_HARDENING, 0, 24 },
	{ "radix-all-hardening", DMAPOOL_INDEX_RADIX, KT_HARDENING, 0, 24 },
	{ "btree-all-hardening", DMAPOOL_INDEX_BTREE, KT_HARDENING, 0, 24 },
};

static const struct kt_config *kt_cur;

static void kt_config_opts(struct dmapool_opts *o)
{
	o->index = kt_cur->index;
	o->flags |= kt_cur->flags;
	if (!o->reserve_chunks)
		o->reserve_chunks = kt_cur->reserve;
	if (!o->redzone)
		o->redzone = kt_cur->redzone;
}

static void shared_result(struct tc_env *e, const char *name, bool ok)
{
	char full[96];

	/* A failed case returns early, with the capture still installed. */
	dmapool_set_report_handler(NULL, NULL);
	snprintf(full, sizeof(full), "%s/%s", kt_cur->name, name);
	kt_result(full, ok, e->msg);
}

static void kt_run_config(struct tc_env *e)
{
	char name[64];
	size_t i, n = 0;
	bool ok;

	ok = tc_geometry_matrix(e, &n);
	pr_info(KT_PFX "INFO %s: geometry matrix: %zu size/align/boundary cases\n",
		kt_cur->name, n);
	shared_result(e, "geometry-matrix", ok);
	shared_result(e, "geometry-rejects", tc_geometry_rejects(e));
	shared_result(e, "zalloc", tc_zalloc_all(e));

	for (i = 0; i < TC_ARRAY_SIZE(tc_misuse_cases); i++) {
		snprintf(name, sizeof(name), "misuse/%s",
			 tc_misuse_cases[i].name);
		shared_result(e, name, tc_misuse_run(e, &tc_misuse_cases[i]));
	}

	for (i = 0; i < TC_ARRAY_SIZE(tc_hostile_cases); i++) {
		snprintf(name, sizeof(name), "hostile/%s",
			 tc_hostile_cases[i].name);
		shared_result(e, name, tc_hostile_run(e, &tc_hostile_cases[i],
						      kt_hostile_div));
	}
}

void kt_run_shared(void)
{
	struct tc_env *e = kt_env();
	size_t c;

	if (!e) {
		kt_fail("shared", "out of memory");
		return;
	}
	e->opts = kt_config_opts;
	for (c = 0; c < ARRAY_SIZE(kt_configs); c++) {
		kt_cur = &kt_configs[c];
		kt_run_config(e);
	}
	kfree(e);
}
