// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The B-tree index on its own, against a simple model (a sorted array of
 * ranges): inserts and removes in random and sorted orders, with node splits
 * and merges, and after every step the tree's own invariants (dp_btree_check)
 * and a lookup of every address class: inside a range, at its edges, in the
 * gaps between ranges, and outside all of them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "pool.h"
#include "testlib.h"

bool dp_btree_check(const struct dp_index *ix, size_t *entries,
		    uint32_t *height, const char **why);

struct range {
	uintptr_t start;
	struct dp_chunk *val;
	bool in;			/* in the tree now */
};

struct model {
	size_t n, len;
	struct range *r;		/* sorted by start */
	struct dp_chunk *vals;		/* what the tree maps to (never read) */
	struct dp_index ix;
	uint32_t max_height;
	uint64_t splits, merges;	/* height went up / down */
};

/* @n ranges of @len bytes, with random gaps (some none) between them. */
static void model_init(struct model *m, size_t n, size_t len, uint64_t *rng)
{
	uintptr_t at = (uintptr_t)1 << 40;
	size_t i;

	memset(m, 0, sizeof(*m));
	m->n = n;
	m->len = len;
	m->r = calloc(n, sizeof(*m->r));
	m->vals = calloc(n, sizeof(*m->vals));
	cr_assert(m->r && m->vals);
	for (i = 0; i < n; i++) {
		uint64_t gap = tl_rand(rng) % 4;

		at += gap == 0 ? 0 : gap * len * (1 + tl_rand(rng) % 5);
		m->r[i].start = at;
		m->r[i].val = &m->vals[i];
		at += len;
	}
	cr_assert_eq(dp_index_init(&m->ix, DMAPOOL_INDEX_BTREE, 12), 0);
}

static void model_fini(struct model *m)
{
	dp_index_fini(&m->ix);
	/* Retired nodes are freed by RCU callbacks: let them run. */
	dp_rcu_barrier();
	free(m->r);
	free(m->vals);
}

/* The spare protocol, as the pool does it. */
static void stock(struct dp_index *ix, uint32_t need)
{
	if (need > ix->nspare) {
		uint32_t more = need - ix->nspare;
		void *nodes = dp_index_alloc_nodes(ix, more, 0);

		cr_assert_not_null(nodes);
		dp_index_add_spares(ix, nodes, more);
	}
}

static void check_tree(struct model *m)
{
	size_t entries, want = 0, i;
	const char *why;
	uint32_t height;

	for (i = 0; i < m->n; i++)
		want += m->r[i].in;
	cr_assert(dp_btree_check(&m->ix, &entries, &height, &why),
		  "tree invariant broken: %s", why);
	cr_assert_eq(entries, want, "one entry per range");
	if (height > m->max_height)
		m->max_height = height;
}

static void do_insert(struct model *m, size_t i)
{
	uint32_t before = m->ix.u.btree.height;

	stock(&m->ix, m->ix.ops->nodes_needed(&m->ix, m->r[i].start, m->len));
	m->ix.ops->insert(&m->ix, m->r[i].start, m->len, m->r[i].val);
	m->r[i].in = true;
	m->splits += m->ix.u.btree.height > before;
}

static void do_remove(struct model *m, size_t i)
{
	uint32_t before = m->ix.u.btree.height;

	stock(&m->ix, m->ix.ops->remove_nodes_needed(&m->ix, m->r[i].start,
						     m->len));
	m->ix.ops->remove(&m->ix, m->r[i].start, m->len);
	m->r[i].in = false;
	m->merges += m->ix.u.btree.height < before;
}

/* What the model says @addr maps to. */
static struct dp_chunk *expect(const struct model *m, uintptr_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	return m->r[lo].in && addr - m->r[lo].start < m->len ? m->r[lo].val :
							       NULL;
}

static void probe(const struct model *m, uintptr_t addr, const char *what)
{
	struct dp_chunk *got = m->ix.ops->lookup(&m->ix, addr);

	cr_assert_eq(got, expect(m, addr), "lookup(%#lx) %s: got %p",
		     (unsigned long)addr, what, (void *)got);
}

/* Every address class, for every range (in the tree or not). */
static void check_lookups(const struct model *m)
{
	size_t i;

	probe(m, 0, "outside, zero");
	probe(m, UINTPTR_MAX, "outside, top");
	probe(m, m->r[0].start - 1, "outside, below all");
	probe(m, m->r[m->n - 1].start + m->len, "outside, above all");
	probe(m, m->r[m->n - 1].start + 1000 * m->len, "outside, far above");
	for (i = 0; i < m->n; i++) {
		uintptr_t s = m->r[i].start;

		probe(m, s, "first byte");
		probe(m, s + 1, "inside");
		probe(m, s + m->len / 2, "middle");
		probe(m, s + m->len - 1, "last byte");
		probe(m, s + m->len, "one past the end (gap or next)");
		probe(m, s - 1, "one before (gap or previous)");
		if (i + 1 < m->n && m->r[i + 1].start > s + m->len)
			probe(m, s + m->len +
				 (m->r[i + 1].start - s - m->len) / 2,
			      "inside a gap");
	}
}

static void shuffle(size_t *a, size_t n, uint64_t *rng)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j = tl_rand(rng) % i, t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

enum order { RANDOM, ASCENDING, DESCENDING };

static void run(size_t n, size_t len, enum order ord, uint64_t seed,
		size_t check_every)
{
	uint64_t rng = seed;
	struct model m;
	size_t *idx = calloc(n, sizeof(*idx)), i, step = 0;

	cr_assert_not_null(idx);
	model_init(&m, n, len, &rng);
	for (i = 0; i < n; i++)
		idx[i] = ord == DESCENDING ? n - 1 - i : i;
	if (ord == RANDOM)
		shuffle(idx, n, &rng);
	check_lookups(&m);
	for (i = 0; i < n; i++) {
		do_insert(&m, idx[i]);
		check_tree(&m);
		if (++step % check_every == 0)
			check_lookups(&m);
	}
	check_lookups(&m);
	cr_assert_geq(m.max_height, n > 200 ? 3u : 1u,
		      "enough entries to split the root twice");
	/* Remove in another order, re-inserting some on the way. */
	if (ord == RANDOM)
		shuffle(idx, n, &rng);
	for (i = 0; i < n; i++) {
		do_remove(&m, idx[i]);
		if (tl_rand(&rng) % 8 == 0) {
			size_t j = idx[tl_rand(&rng) % (i + 1)];

			if (!m.r[j].in)
				do_insert(&m, j);
		}
		check_tree(&m);
		if (++step % check_every == 0)
			check_lookups(&m);
	}
	for (i = 0; i < n; i++)
		if (m.r[i].in)
			do_remove(&m, i);
	check_tree(&m);
	check_lookups(&m);
	cr_assert_eq(m.ix.u.btree.height, 0, "empty again");
	cr_assert_null(m.ix.u.btree.root);
	cr_assert_eq(m.ix.nodes, 0, "every node retired");
	cr_assert_gt(m.splits, 0);
	cr_assert_gt(m.merges, 0);
	model_fini(&m);
	free(idx);
}

Test(btree, random_order_page_ranges)
{
	run(3000, 4096, RANDOM, 1, 97);
}

Test(btree, random_order_many_seeds)
{
	uint64_t seed;

	for (seed = 2; seed < 12; seed++)
		run(400 + seed * 37, 65536, RANDOM, seed, 13);
}

Test(btree, ascending_and_descending)
{
	run(2500, 8192, ASCENDING, 3, 101);
	run(2500, 8192, DESCENDING, 4, 101);
}

Test(btree, huge_ranges)
{
	run(700, (size_t)2 << 20, RANDOM, 5, 29);
}

Test(btree, tiny_trees_every_step)
{
	uint64_t seed;

	/* Up to a few leaves: every lookup after every step. */
	for (seed = 20; seed < 60; seed++)
		run(1 + seed % 40, 4096, RANDOM, seed, 1);
}

Test(btree, node_fits_cache_lines)
{
	struct dp_index ix;

	cr_assert_eq(dp_index_init(&ix, DMAPOOL_INDEX_BTREE, 12), 0);
	cr_assert_eq(ix.ops->node_size, 256);
	cr_assert_eq(ix.ops->node_size % 64, 0);
	dp_index_fini(&ix);
}

Test(btree, pool_uses_one_entry_per_chunk)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool_opts o;
	struct dmapool *pool;
	struct dmapool_stats st;
	size_t entries;
	const char *why;
	uint32_t height;
	void *v[3000];
	dmapool_dma_t d[3000];
	int i;

	dmapool_opts_init(&o);
	o.index = DMAPOOL_INDEX_BTREE;
	o.chunk_size = 4096;	/* ~47 chunks */
	tl_reset();
	pool = dmapool_create_opts("bt", dev, 64, 64, 0, &o);
	cr_assert_not_null(pool);
	for (i = 0; i < 3000; i++)
		cr_assert_not_null(v[i] = dmapool_alloc(pool, 0, &d[i]));
	dmapool_get_stats(pool, &st);
	cr_assert(dp_btree_check(&pool->index, &entries, &height, &why), "%s",
		  why);
	cr_assert_eq(entries, st.chunks, "one entry per chunk, not per block");
	/* Leaves are at least half full: a few nodes for ~47 chunks. */
	cr_assert_leq(pool->index.nodes, st.chunks / 7 + 2);
	cr_assert_geq(height, 2);
	for (i = 0; i < 3000; i++)
		dmapool_free(pool, v[i], d[i]);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}
