/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * kt_matrix.h: the pool configurations the kernel-tree modules (kt_contexts,
 * kt_stress) run through, a report sink that counts, and the "pending" gate.
 *
 * Every combination of
 *   index      radix, btree, hash (the default)
 *   shrink     none, DMAPOOL_OPT_AUTO_SHRINK (reserve_chunks 0: every empty
 *              chunk may go)
 *   ownership  default, DMAPOOL_OPT_THREAD_CACHE (the old flag: per-CPU
 *              caches in the old core, a no-op from the per-CPU core on),
 *              DMAPOOL_OPT_SHARED (one shared heap)
 *   hardening  none, poison, quarantine (quarantine_max 8, so frees push
 *              blocks out and empty chunks), scrub, random, redzone (16
 *              bytes), DMAPOOL_OPT_POISON_SAMPLED (1 in 4), all (poison,
 *              quarantine, scrub, random and a redzone)
 * is one struct kt_combo, named like "hash/auto-shrink/shared/poison".
 *
 * The pending gate.  A combination the running core refuses at create is a
 * failure, unless it matches an entry of the module parameter "pending"
 * (tests/kernel-tree/pending, one entry a line): then it is reported as
 * PENDING and not run.  An entry names features joined by '+' (e.g.
 * "shared" or "thread-cache+poison") and matches every combination having
 * all of them.  A pending combination that the core accepts fails too: the
 * list must say exactly what the core cannot do yet.
 *
 * Static functions in a header: each module includes it once.
 */
#ifndef KT_MATRIX_H
#define KT_MATRIX_H

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>

#include <dmapool/dmapool.h>
#include <dmapool/kernel.h>

/* Features of a combination, for names and for the pending gate. */
#define KT_F_BTREE		0x0001u
#define KT_F_AUTO_SHRINK	0x0002u
#define KT_F_THREAD_CACHE	0x0004u
#define KT_F_SHARED		0x0008u
#define KT_F_POISON		0x0010u
#define KT_F_QUARANTINE		0x0020u
#define KT_F_SCRUB		0x0040u
#define KT_F_RANDOM		0x0080u
#define KT_F_REDZONE		0x0100u
#define KT_F_POISON_SAMPLED	0x0200u
#define KT_F_HASH		0x0400u

/* A feature set (KT_F_*) and its name. */
struct kt_named {
	unsigned int f;
	const char *name;
};

static const struct kt_named kt_feature_names[] = {
	{ KT_F_BTREE, "btree" },
	{ KT_F_AUTO_SHRINK, "auto-shrink" },
	{ KT_F_THREAD_CACHE, "thread-cache" },
	{ KT_F_SHARED, "shared" },
	{ KT_F_POISON, "poison" },
	{ KT_F_QUARANTINE, "quarantine" },
	{ KT_F_SCRUB, "scrub" },
	{ KT_F_RANDOM, "random" },
	{ KT_F_REDZONE, "redzone" },
	{ KT_F_POISON_SAMPLED, "poison-sampled" },
	{ KT_F_HASH, "hash" },
};

#define KT_HARD_ALL	(KT_F_POISON | KT_F_QUARANTINE | KT_F_SCRUB | \
			 KT_F_RANDOM | KT_F_REDZONE)

/* The hardening axis, in order; "all" is the last. */
static const struct kt_named kt_hardenings[] = {
	{ 0, "none" },
	{ KT_F_POISON, "poison" },
	{ KT_F_QUARANTINE, "quarantine" },
	{ KT_F_SCRUB, "scrub" },
	{ KT_F_RANDOM, "random" },
	{ KT_F_REDZONE, "redzone" },
	{ KT_F_POISON_SAMPLED, "poison-sampled" },
	{ KT_HARD_ALL, "all" },
};

static const struct kt_named kt_owners[] = {
	{ 0, "default" },
	{ KT_F_THREAD_CACHE, "thread-cache" },
	{ KT_F_SHARED, "shared" },
};

/* The index axis: radix has no feature bit (the pending gate needs none). */
static const struct {
	unsigned int f;
	const char *name;
	enum dmapool_index_kind index;
} kt_indexes[] = {
	{ 0, "radix", DMAPOOL_INDEX_RADIX },
	{ KT_F_BTREE, "btree", DMAPOOL_INDEX_BTREE },
	{ KT_F_HASH, "hash", DMAPOOL_INDEX_HASH },
};

#define KT_NHARD	ARRAY_SIZE(kt_hardenings)
#define KT_NOWNERS	ARRAY_SIZE(kt_owners)
#define KT_NINDEXES	ARRAY_SIZE(kt_indexes)
#define KT_NCOMBOS	(KT_NINDEXES * 2 * KT_NOWNERS * KT_NHARD)

#define KT_REDZONE_BYTES	16
#define KT_QUARANTINE_MAX	8
#define KT_POISON_SAMPLE	4

struct kt_combo {
	unsigned int features;	/* KT_F_* */
	enum dmapool_index_kind index;
	char name[64];
};

/* Combination @i (0 <= i < KT_NCOMBOS). */
static void kt_combo_get(unsigned int i, struct kt_combo *c)
{
	unsigned int hard = i % KT_NHARD, owner = i / KT_NHARD % KT_NOWNERS;
	unsigned int shrink = i / (KT_NHARD * KT_NOWNERS) % 2;
	unsigned int ix = i / (KT_NHARD * KT_NOWNERS * 2) % KT_NINDEXES;

	c->index = kt_indexes[ix].index;
	c->features = kt_hardenings[hard].f | kt_owners[owner].f |
		      (shrink ? KT_F_AUTO_SHRINK : 0) | kt_indexes[ix].f;
	snprintf(c->name, sizeof(c->name), "%s/%s/%s/%s",
		 kt_indexes[ix].name, shrink ? "auto-shrink" : "keep",
		 kt_owners[owner].name, kt_hardenings[hard].name);
}

/* Options for @c, its reports going to @fn(@ctx). */
static void kt_combo_opts(const struct kt_combo *c, struct dmapool_opts *o,
			  dmapool_report_fn fn, void *ctx)
{
	static const struct {
		unsigned int f, opt;
	} map[] = {
		{ KT_F_AUTO_SHRINK, DMAPOOL_OPT_AUTO_SHRINK },
		{ KT_F_THREAD_CACHE, DMAPOOL_OPT_THREAD_CACHE },
		{ KT_F_SHARED, DMAPOOL_OPT_SHARED },
		{ KT_F_POISON, DMAPOOL_OPT_POISON },
		{ KT_F_QUARANTINE, DMAPOOL_OPT_QUARANTINE },
		{ KT_F_SCRUB, DMAPOOL_OPT_SCRUB },
		{ KT_F_RANDOM, DMAPOOL_OPT_RANDOM },
		{ KT_F_POISON_SAMPLED, DMAPOOL_OPT_POISON_SAMPLED },
	};
	unsigned int k;

	dmapool_opts_init(o);
	for (k = 0; k < ARRAY_SIZE(map); k++)
		if (c->features & map[k].f)
			o->flags |= map[k].opt;
	o->index = c->index;
	if (c->features & KT_F_REDZONE)
		o->redzone = KT_REDZONE_BYTES;
	if (c->features & KT_F_QUARANTINE)
		o->quarantine_max = KT_QUARANTINE_MAX;
	if (c->features & KT_F_POISON_SAMPLED)
		o->poison_sample = KT_POISON_SAMPLE;
	if (c->features & KT_F_RANDOM)
		o->seed = 0x6b74u + c->features;
	o->reserve_chunks = 0;
	o->report = fn;
	o->report_ctx = ctx;
}

/* ---- the pending gate -------------------------------------------------- */

#define KT_MAX_PENDING	32

struct kt_pending {
	unsigned int n;
	unsigned int mask[KT_MAX_PENDING];
};

/*
 * Parse "a+b,c,..." (feature names) into @p.  Returns 0, or -EINVAL after
 * printing the entry it does not understand under @pfx.
 */
static int kt_pending_parse(struct kt_pending *p, const char *s,
			    const char *pfx)
{
	char word[32];
	unsigned int mask = 0, len = 0, k;

	p->n = 0;
	for (;; s++) {
		if (*s && *s != ',' && *s != '+') {
			if (len + 1 >= sizeof(word))
				goto bad;
			word[len++] = *s;
			continue;
		}
		word[len] = '\0';
		if (len) {
			for (k = 0; k < ARRAY_SIZE(kt_feature_names); k++)
				if (!strcmp(word, kt_feature_names[k].name))
					break;
			if (k == ARRAY_SIZE(kt_feature_names))
				goto bad;
			mask |= kt_feature_names[k].f;
		}
		len = 0;
		if (*s == '+')
			continue;
		if (mask) {
			if (p->n == KT_MAX_PENDING)
				goto bad;
			p->mask[p->n++] = mask;
		}
		mask = 0;
		if (!*s)
			return 0;
	}
bad:
	pr_err("%sFAIL bad pending entry near \"%s\" (features: btree, hash, auto-shrink, thread-cache, shared, poison, quarantine, scrub, random, redzone, poison-sampled)\n",
	       pfx, word);
	return -EINVAL;
}

static bool kt_pending_match(const struct kt_pending *p,
			     const struct kt_combo *c)
{
	unsigned int k;

	for (k = 0; k < p->n; k++)
		if ((c->features & p->mask[k]) == p->mask[k])
			return true;
	return false;
}

/* ---- a report sink that counts ----------------------------------------- */

struct kt_sink {
	atomic_t total;
	atomic_t by_kind[DMAPOOL_R_KINDS];
	atomic_t other;		/* kinds out of range */
};

static void kt_sink_reset(struct kt_sink *s)
{
	unsigned int k;

	atomic_set(&s->total, 0);
	atomic_set(&s->other, 0);
	for (k = 0; k < DMAPOOL_R_KINDS; k++)
		atomic_set(&s->by_kind[k], 0);
}

/* May run in any context, under the pool's locks: counts only. */
static void kt_sink_fn(const struct dmapool_report *r, void *ctx)
{
	struct kt_sink *s = ctx;

	if ((unsigned int)r->kind < DMAPOOL_R_KINDS)
		atomic_inc(&s->by_kind[r->kind]);
	else
		atomic_inc(&s->other);
	atomic_inc(&s->total);
}

/*
 * What a second free of a block may be reported as: double-free, or, by
 * handle, stale-handle; and once automatic shrink gave the block's chunk
 * back (reserve_chunks 0), free-outside-pool or bad-handle: the address
 * or the handle names nothing of the pool any more.  Each is one report.
 */
static const enum dmapool_report_kind kt_bad_free_kinds[] = {
	DMAPOOL_R_DOUBLE_FREE, DMAPOOL_R_STALE_HANDLE,
	DMAPOOL_R_FREE_OUTSIDE, DMAPOOL_R_BAD_HANDLE,
};

/* Reports of the kinds above, in the pool's stats. */
static u64 kt_stats_bad_frees(const struct dmapool_stats *st)
{
	u64 n = 0;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(kt_bad_free_kinds); k++)
		n += st->by_kind[kt_bad_free_kinds[k]];
	return n;
}

/* Reports the sink saw of other kinds than those. */
static int kt_sink_unexpected(struct kt_sink *s)
{
	int n = atomic_read(&s->total);
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(kt_bad_free_kinds); k++)
		n -= atomic_read(&s->by_kind[kt_bad_free_kinds[k]]);
	return n;
}

/* Print the kinds seen, one line, for a failure message. */
static void kt_sink_print(struct kt_sink *s, const char *pfx, const char *name)
{
	char buf[256];
	unsigned int k, len = 0;

	buf[0] = '\0';
	for (k = 0; k < DMAPOOL_R_KINDS && len < sizeof(buf); k++)
		if (atomic_read(&s->by_kind[k]))
			len += scnprintf(buf + len, sizeof(buf) - len, " %s=%d",
					 dmapool_report_kind_name(k),
					 atomic_read(&s->by_kind[k]));
	pr_err("%s%s: reports:%s (total %d, unknown kinds %d)\n", pfx, name,
	       len ? buf : " none", atomic_read(&s->total),
	       atomic_read(&s->other));
}

/*
 * Create the pool of @c on @dev, through the gate.  Returns the pool, or
 * NULL with *@pending true (refused and pending: skip it) or false (a
 * failure, already counted through @fail).
 */
static struct dmapool *kt_combo_create(const struct kt_combo *c,
				       const struct kt_pending *p,
				       struct device *dev, size_t size,
				       size_t align, struct kt_sink *sink,
				       const char *pfx, bool *pending,
				       void (*fail)(const char *name,
						    const char *what))
{
	struct dmapool_opts o;
	struct dmapool *pool;
	bool gated = kt_pending_match(p, c);

	kt_combo_opts(c, &o, kt_sink_fn, sink);
	pool = dmapool_create_opts(c->name, dmapool_kdev(dev), size, align, 0,
				   &o);
	*pending = false;
	if (!pool && gated) {
		pr_info("%sPENDING %s: refused by this core (in the pending list)\n",
			pfx, c->name);
		*pending = true;
		return NULL;
	}
	if (!pool)
		fail(c->name, "dmapool_create_opts refused this combination (not in the pending list)");
	else if (gated)
		fail(c->name, "accepted, but in the pending list: take its entry out of tests/kernel-tree/pending");
	return pool;
}

/* What kt_matrix_for_each() did. */
struct kt_matrix_count {
	unsigned int run, pending, skipped;
};

/*
 * For every combination: reset @sink, create the pool through the gate of
 * @pending (kt_combo_create) and hand it to @run, which destroys it.
 * Combinations matching @skip (same syntax; for narrowing a failure down
 * by hand, run-ci never passes it) are not created at all.  Returns 0, or
 * -EINVAL when a list does not parse (printed under @pfx).
 */
static int kt_matrix_for_each(const char *pending, const char *skip,
			      struct device *dev, size_t size, size_t align,
			      struct kt_sink *sink, const char *pfx,
			      void (*fail)(const char *name, const char *what),
			      void (*run)(const struct kt_combo *c,
					  struct dmapool *pool),
			      struct kt_matrix_count *cnt)
{
	static struct kt_pending gate, by_hand;
	struct kt_combo c;
	unsigned int i;

	memset(cnt, 0, sizeof(*cnt));
	if (kt_pending_parse(&gate, pending, pfx) ||
	    kt_pending_parse(&by_hand, skip, pfx))
		return -EINVAL;
	for (i = 0; i < KT_NCOMBOS; i++) {
		struct dmapool *pool;
		bool gated;

		kt_combo_get(i, &c);
		if (kt_pending_match(&by_hand, &c)) {
			pr_info("%sSKIPPED %s (module parameter skip)\n", pfx,
				c.name);
			cnt->skipped++;
			continue;
		}
		kt_sink_reset(sink);
		pool = kt_combo_create(&c, &gate, dev, size, align, sink, pfx,
				       &gated, fail);
		if (!pool) {
			cnt->pending += gated;
			continue;
		}
		cnt->run++;
		run(&c, pool);
		cond_resched();
	}
	pr_info("%s%u combinations: %u run, %u pending, %u skipped by hand\n",
		pfx, (unsigned int)KT_NCOMBOS, cnt->run, cnt->pending,
		cnt->skipped);
	return 0;
}

#endif /* KT_MATRIX_H */
