/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The pool configurations the kernel runs every shared case under: each
 * index, automatic shrink, one shared heap and every hardening option at
 * once, as the userspace suites run theirs.  Used by dmapool_ktest
 * (tests/kernel/ktest) and the KUnit suite (tests/kunit).
 */
#ifndef DMAPOOL_TC_CONFIGS_H
#define DMAPOOL_TC_CONFIGS_H

#include "tc.h"

#define TC_HARDENING	(DMAPOOL_OPT_POISON | DMAPOOL_OPT_QUARANTINE | \
			 DMAPOOL_OPT_SCRUB | DMAPOOL_OPT_RANDOM)

struct tc_config {
	const char *name;
	enum dmapool_index_kind index;
	unsigned int flags;
	size_t reserve;
	unsigned int redzone;
};

static const struct tc_config tc_configs[] = {
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
	{ "all-hardening", DMAPOOL_INDEX_HASH, TC_HARDENING, 0, 24 },
	{ "radix-all-hardening", DMAPOOL_INDEX_RADIX, TC_HARDENING, 0, 24 },
	{ "btree-all-hardening", DMAPOOL_INDEX_BTREE, TC_HARDENING, 0, 24 },
};

/* Apply @c to options a case is creating a pool with. */
static inline void tc_config_apply(const struct tc_config *c,
				   struct dmapool_opts *o)
{
	o->index = c->index;
	o->flags |= c->flags;
	if (!o->reserve_chunks)
		o->reserve_chunks = c->reserve;
	if (!o->redzone)
		o->redzone = c->redzone;
}

#endif /* DMAPOOL_TC_CONFIGS_H */
