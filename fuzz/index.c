// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The index harness: every index kind this build has (whatever
 * dp_index_init accepts: radix, and btree once it lands) against a model
 * map, under fuzzed insert / remove / lookup sequences, through the
 * internal API of dmapool/index.h and its spare-node protocol exactly as
 * the pool drives it (nodes_needed / remove_nodes_needed, allocate that
 * many, insert or remove, hand the rest back).
 *
 * The input:  kind u8 (picks among the kinds this build accepts),
 *             page_shift u8 (12, 13, 14 or 16), pages u16 (every range's
 *             length: 1 + pages % 64 pages, or with bit 15 set
 *             1 + pages % 4096), then ops:
 *   0 INSERT  base u8, page u32
 *   1 REMOVE  which u16
 *   2 LOOKUP  base u8, page u32, off u16
 *   3 EDGE    which u16, edge u8 (first byte, last byte, the byte before,
 *             the byte after, the middle of a mapped range)
 * A range starts at (bases[base] + page) << page_shift, clamped to the
 * address space.  Like a pool's chunks, ranges are page aligned, never
 * overlap (an insert that would is skipped) and all have one length (the
 * B-tree relies on that).
 *
 * After every op the B-tree passes its own structural check (sorted,
 * balanced, filled, one entry per range), every mapped range must be found
 * at its first and last byte, lookups must agree with the model (the locked hot-path lookup, the
 * ops table and the RCU lookup alike), a change may take no more nodes
 * than it asked for and every node is accounted for (see with_spares),
 * and once every range is removed no node may be left.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "index.h"

#define MAX_RANGES	256
#define MAX_KINDS	8

/* The B-tree's own structural check (btree.c, for tests). */
bool dp_btree_check(const struct dp_index *ix, size_t *entries,
		    uint32_t *height, const char **why);

struct range {
	uint64_t start, len;
	struct dp_chunk *c;
};

static struct {
	unsigned int kinds[MAX_KINDS];
	unsigned int nkinds;
	struct dp_index ix;
	uint32_t shift;
	uint64_t pages;			/* every range's length, in pages */
	struct range r[MAX_RANGES];	/* sorted by start */
	size_t nr;
	bool inited;
} X;

/* Page numbers (in units of the page size) where ranges cluster. */
static const uint64_t bases[8] = {
	0, 0x100, 0x3f0000000ull, 0x7ffffff00ull, 0xffff888000000ull,
	0x123456789ull, 0x800000000ull, UINT64_MAX,
};

static const struct range *model_find(uint64_t addr)
{
	size_t lo = 0, hi = X.nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr - X.r[mid].start < X.r[mid].len)
			return &X.r[mid];
		if (addr < X.r[mid].start)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static void check_lookup(uint64_t addr)
{
	const struct range *r = model_find(addr);
	struct dp_chunk *want = r ? r->c : NULL;
	struct dp_chunk *hot = dp_index_lookup(&X.ix, (uintptr_t)addr);
	struct dp_chunk *ops = X.ix.ops->lookup(&X.ix, (uintptr_t)addr);
	struct dp_chunk *rcu;

	dp_rcu_read_lock();
	rcu = dp_index_lookup_rcu(&X.ix, (uintptr_t)addr);
	dp_rcu_read_unlock();
	dpf_check(hot == want && ops == want && rcu == want,
		  "%s: lookup(%#llx) gave %p (ops table %p, RCU %p), the model %p",
		  X.ix.ops->name, (unsigned long long)addr, (void *)hot,
		  (void *)ops, (void *)rcu, (void *)want);
}

/*
 * The first address of a range of @pages pages at page @page past a base,
 * kept (end included) strictly inside the address space, as a pool's chunk
 * always is.
 */
static uint64_t place(uint8_t base, uint32_t page, uint64_t pages)
{
	uint64_t limit = (uint64_t)1 << (64 - X.shift);	/* page numbers */
	uint64_t b = bases[base % 8], pn = b + page;

	if (pn < b || pn >= limit - pages)
		pn = limit - pages - 1 - page % 0x10000;
	return pn << X.shift;
}

/*
 * The spare-node protocol, as the pool drives it: ask how many nodes a
 * change may take, stock exactly that many, make the change, hand back the
 * rest.  The change may take no more than it asked for (a writer that runs
 * out of spares would need to allocate under the pool's spinlock), and
 * every node is accounted for: live nodes grow by what was taken and shrink
 * by what was retired to RCU.
 */
static size_t nodes_before;
static uint64_t retired_before;

static void with_spares(uint32_t need, const char *what)
{
	void *list = dp_index_alloc_nodes(&X.ix, need, 0);

	dpf_check(list || !need, "out of memory for %u nodes", need);
	dp_index_add_spares(&X.ix, list, need);
	nodes_before = X.ix.nodes;
	retired_before = X.ix.retired;
}

static void spares_done(uint32_t need, const char *what)
{
	uint32_t taken = need - X.ix.nspare;
	uint64_t retired = X.ix.retired - retired_before;

	dpf_check(X.ix.nspare <= need, "%s: %s left %u spares of %u",
		  X.ix.ops->name, what, X.ix.nspare, need);
	dpf_check(X.ix.nodes + retired == nodes_before + taken,
		  "%s: %s took %u nodes and retired %llu, live nodes went from %zu to %zu",
		  X.ix.ops->name, what, taken, (unsigned long long)retired,
		  nodes_before, X.ix.nodes);
	dp_index_free_nodes(&X.ix, dp_index_steal_spares(&X.ix));
}

static void op_insert(struct dpf_in *in)
{
	uint8_t base = dpf_u8(in);
	uint32_t page = dpf_u32(in);
	uint64_t pages = X.pages, start, len;
	uint32_t need;
	struct dp_chunk *c;
	size_t i;

	if (X.nr == MAX_RANGES)
		return;
	start = place(base, page, pages);
	len = pages << X.shift;
	/* Pools never map overlapping chunks. */
	for (i = 0; i < X.nr; i++)
		if (start < X.r[i].start + X.r[i].len &&
		    X.r[i].start < start + len)
			return;
	dpf_log("  insert [%#llx, +%#llx)", (unsigned long long)start,
		(unsigned long long)len);

	c = calloc(1, sizeof(*c));
	dpf_check(c, "out of memory");
	c->vaddr = (uintptr_t)start;
	c->dma = start ^ 0x5a5a000000000000ull;

	need = X.ix.ops->nodes_needed(&X.ix, (uintptr_t)start, (size_t)len);
	with_spares(need, "insert");
	X.ix.ops->insert(&X.ix, (uintptr_t)start, (size_t)len, c);
	spares_done(need, "insert");

	for (i = X.nr; i > 0 && X.r[i - 1].start > start; i--)
		X.r[i] = X.r[i - 1];
	X.r[i].start = start;
	X.r[i].len = len;
	X.r[i].c = c;
	X.nr++;
}

static void remove_at(size_t i)
{
	struct range r = X.r[i];

	dpf_log("  remove [%#llx, +%#llx)", (unsigned long long)r.start,
		(unsigned long long)r.len);
	uint32_t need = X.ix.ops->remove_nodes_needed(&X.ix,
						      (uintptr_t)r.start,
						      (size_t)r.len);

	with_spares(need, "remove");
	X.ix.ops->remove(&X.ix, (uintptr_t)r.start, (size_t)r.len);
	spares_done(need, "remove");
	memmove(&X.r[i], &X.r[i + 1], (X.nr - i - 1) * sizeof(X.r[0]));
	X.nr--;
	free(r.c);
}

static void op_remove(struct dpf_in *in)
{
	uint16_t which = dpf_u16(in);

	if (X.nr)
		remove_at(which % X.nr);
}

static void op_lookup(struct dpf_in *in)
{
	uint8_t base = dpf_u8(in);
	uint32_t page = dpf_u32(in);
	uint16_t off = dpf_u16(in);

	check_lookup(place(base, page, 1) +
		     (off & (((uint64_t)1 << X.shift) - 1)));
}

static void op_edge(struct dpf_in *in)
{
	uint16_t which = dpf_u16(in);
	uint8_t edge = dpf_u8(in);
	const struct range *r;
	uint64_t a;

	if (!X.nr)
		return;
	r = &X.r[which % X.nr];
	switch (edge % 5) {
	case 0: a = r->start; break;
	case 1: a = r->start + r->len - 1; break;
	case 2: a = r->start - 1; break;
	case 3: a = r->start + r->len; break;
	default: a = r->start + r->len / 2; break;
	}
	check_lookup(a);
}

/* Every range is found at both ends, and just outside them as the model
 * says. */
static void check_all(void)
{
	size_t i, entries;
	const char *why;
	uint32_t height;

	if (X.ix.ops == &dp_btree_ops) {
		dpf_check(dp_btree_check(&X.ix, &entries, &height, &why),
			  "btree: %s (height %u)", why ? why : "?", height);
		dpf_check(entries == X.nr, "btree: %zu entries, the model %zu",
			  entries, X.nr);
	}

	for (i = 0; i < X.nr; i++) {
		check_lookup(X.r[i].start);
		check_lookup(X.r[i].start + X.r[i].len - 1);
		check_lookup(X.r[i].start - 1);
		check_lookup(X.r[i].start + X.r[i].len);
	}
}

static void index_init(void)
{
	struct dp_index ix;
	unsigned int k;

	if (X.inited)
		return;
	dpf_env_init();
	for (k = 0; k < MAX_KINDS; k++) {
		if (dp_index_init(&ix, (enum dmapool_index_kind)k, 12))
			continue;
		dp_index_fini(&ix);
		X.kinds[X.nkinds++] = k;
	}
	if (!X.nkinds) {
		fprintf(stderr, "dpf: dp_index_init accepts no index kind\n");
		abort();
	}
	X.inited = true;
}

int dpf_index_run(const uint8_t *data, size_t size)
{
	static const uint32_t shifts[4] = { 12, 13, 14, 16 };
	static char where[48];
	struct dpf_in in = { data, size };
	unsigned int kind;
	uint16_t n;

	index_init();
	kind = X.kinds[dpf_u8(&in) % X.nkinds];
	X.shift = shifts[dpf_u8(&in) % 4];
	n = dpf_u16(&in);
	X.pages = (n & 0x8000) ? 1 + n % 4096 : 1 + n % 64;
	dpf_check(!dp_index_init(&X.ix, (enum dmapool_index_kind)kind, X.shift),
		  "dp_index_init(%u) failed after it worked", kind);
	snprintf(where, sizeof(where), "index(%s, page shift %u)",
		 X.ix.ops->name, X.shift);
	dpf_where = where;
	dpf_step = 0;
	X.nr = 0;
	while (dpf_more(&in)) {
		dpf_step++;
		switch (dpf_u8(&in) % 4) {
		case 0: op_insert(&in); break;
		case 1: op_remove(&in); break;
		case 2: op_lookup(&in); break;
		default: op_edge(&in); break;
		}
		/* Between steps no reader is inside: retired nodes go now, and
		 * ASan catches the index if it still reaches one. */
		dpf_rcu_flush();
		check_all();
	}
	dpf_step++;
	while (X.nr) {
		remove_at(X.nr - 1);
		dpf_rcu_flush();
		check_all();
	}
	dpf_check(!X.ix.nodes, "%s: %zu nodes left with nothing mapped",
		  X.ix.ops->name, X.ix.nodes);
	dp_index_fini(&X.ix);
	dpf_rcu_flush();
	return 0;
}

#ifndef DPF_NO_ENTRY
DPF_FUZZ_ENTRY(index_init, dpf_index_run)
#endif
