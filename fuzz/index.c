// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The index harness: every index kind this build has (whatever
 * dp_index_init accepts: radix, btree, hash) against a model map, under
 * fuzzed insert / remove / clear / lookup sequences, through the internal
 * API of dmapool/index.h and its protocols exactly as the pool drives them
 * (supply.c): ask nodes_needed (plus one removal's remove_nodes_needed,
 * stocked for the free that will empty the chunk) and table_needed, stock
 * that many nodes and give that table, insert, hand the rest back; remove
 * with remove_nodes_needed spares; clear with none at all (a free that
 * releases a chunk may not allocate), and a cleared entry that stays
 * (clear_keeps_entry) removed for real before anything is inserted again.
 *
 * The input:  kind u8 (picks among the kinds this build accepts),
 *             grain_shift u8 (12, 13, 14 or 16), pages u16 (every range's
 *             length: 1 + pages % 64 granules, or with bit 15 set
 *             1 + pages % 4096), then ops:
 *   0 INSERT  base u8, page u32
 *   1 REMOVE  which u16
 *   2 LOOKUP  base u8, page u32, off u16
 *   3 EDGE    which u16, edge u8 (first byte, last byte, the byte before,
 *             the byte after, the middle of a mapped range)
 *   4 CLEAR   which u16: unmapped with no spare node
 *   5 GIVE    size u8: a table of 2^(4 + size % 13) buckets plus
 *             size / 13 bytes offered to table_give, as a racing grower
 *             that asked before the table changed would (kinds with a
 *             table)
 * A range starts at (bases[base % 8] + page) << grain_shift (base 0xf8
 * and above: within a few lengths of DP_NO_MEMORY), clamped to the
 * address space (and at granule 1, not NULL; moved off the window around
 * DP_NO_MEMORY that no chunk may touch).  Like a pool's chunks, ranges are granule aligned, never
 * overlap (an insert that would is skipped) and all have one length (the
 * B-tree and the hash rely on that); the hash kind maps at most 65536
 * granules at once (its tables grow with them).
 *
 * After every op the B-tree passes its own structural check (sorted,
 * balanced, filled, one entry per range; skipped while a cleared entry
 * stays, which the check counts as an empty slot), every mapped range
 * must be found at its first and last byte and not just outside, lookups
 * must agree with the model (the locked hot-path lookup, the ops table,
 * the RCU lookup and the hash's lock-free one alike), a change may take no
 * more nodes than it asked for and every node is accounted for (see
 * with_spares), table memory is accounted exactly, a clear takes nothing,
 * radix and hash never retire a node (type-stable), and once every range
 * is removed no B-tree node is left; after fini nothing is.  A failed
 * internal check of the core (DP_WARN_ON) aborts too (common.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "index.h"

#define MAX_RANGES	256
#define MAX_KINDS	8
#define HASH_GRAINS	65536

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
	uint64_t pages;			/* every range's length, in granules */
	struct range r[MAX_RANGES];	/* sorted by start */
	size_t nr;
	struct range dead[MAX_RANGES];	/* cleared, entry kept */
	size_t ndead;
	size_t table_bytes;		/* tables the index took */
	bool inited;
} X;

/* Page numbers (in units of the granule) where ranges cluster. */
static const uint64_t bases[8] = {
	0, 0x100, 0x3f0000000ull, 0x7ffffff00ull, 0xffff888000000ull,
	0x123456789ull, 0x800000000ull, UINT64_MAX,
};

static bool is_hash(void)
{
	return X.ix.ops == &dp_hash_ops;
}

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
	struct dp_chunk *rcu, *fast;
	uintptr_t off;

	dp_rcu_read_lock();
	rcu = dp_index_lookup_rcu(&X.ix, (uintptr_t)addr);
	dp_rcu_read_unlock();
	dpf_check(hot == want && ops == want && rcu == want,
		  "%s: lookup(%#llx) gave %p (ops table %p, RCU %p), the model %p",
		  X.ix.ops->name, (unsigned long long)addr, (void *)hot,
		  (void *)ops, (void *)rcu, (void *)want);
	/* The fast free path's probe, which every pool's free takes. */
	fast = dp_hash_find_off(&X.ix.hash, (uintptr_t)addr, &off);
	if (want && is_hash())
		dpf_check(fast == want && off == addr - r->start,
			  "hash: fast probe of %#llx gave %p +%#llx, the model %p +%#llx",
			  (unsigned long long)addr, (void *)fast,
			  (unsigned long long)off, (void *)want,
			  (unsigned long long)(addr - r->start));
	else
		dpf_check(fast == &dp_chunk_none || fast == &dp_chunk_tomb,
			  "%s: fast probe of %#llx gave %p, the model %p",
			  X.ix.ops->name, (unsigned long long)addr,
			  (void *)fast, (void *)want);
}

/*
 * The first address of a range of @pages granules at granule @page past a
 * base, kept (end included) strictly inside the address space, off NULL
 * and not within a range's length of DP_NO_MEMORY (where the hash's empty
 * and removed buckets start), as a pool's chunk always is (dp_chunk_fill
 * refuses the others).  A range that would come nearer ends right below
 * DP_NO_MEMORY, or starts one length above it when there is no room below:
 * lookups just outside it probe the window.
 */
static uint64_t place(uint8_t base, uint32_t page, uint64_t pages)
{
	uint64_t limit = (uint64_t)1 << (64 - X.shift);	/* granules */
	const uint64_t hole = DP_NO_MEMORY;
	uint64_t b = bases[base % 8], pn, start, len;

	/* The top eight bases: around DP_NO_MEMORY. */
	if (base >= 0xf8)
		b = (hole >> X.shift) - pages - 1;
	pn = b + (base >= 0xf8 ? page % (3 * pages + 3) : page);
	if (pn < b || pn >= limit - pages)
		pn = limit - pages - 1 - page % 0x10000;
	start = (pn ? pn : 1) << X.shift;
	len = pages << X.shift;
	if (DP_NO_MEMORY_HOLE && start < hole + len && start + len > hole)
		start = hole - len >= (1ull << X.shift) ? hole - len : hole + len;
	return start;
}

/*
 * The spare-node protocol, as the pool drives it: ask how many nodes a
 * change may take, stock exactly that many, make the change, hand back the
 * rest.  The change may take no more than it asked for (a writer that runs
 * out of spares would need to allocate under the pool's spinlock), and
 * every node is accounted for: live nodes grow by what was taken and shrink
 * by what was retired to RCU.  Radix and hash nodes are never retired.
 */
static size_t nodes_before;
static uint64_t retired_before;

static void with_spares(uint32_t need)
{
	void *list = dp_index_alloc_nodes(&X.ix, need, 0);

	dpf_check(list || !need, "out of memory for %u nodes", need);
	dp_index_add_spares(&X.ix, list, need);
	nodes_before = X.ix.nodes;
	retired_before = X.ix.retired;
}

static void check_accounts(const char *what)
{
	dpf_check(X.ix.ops == &dp_btree_ops || !X.ix.retired,
		  "%s: %s retired %llu nodes (type-stable: none may go)",
		  X.ix.ops->name, what, (unsigned long long)X.ix.retired);
	dpf_check(X.ix.table_bytes == X.table_bytes,
		  "%s: %s: index counts %zu table bytes, it took %zu",
		  X.ix.ops->name, what, X.ix.table_bytes, X.table_bytes);
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
	check_accounts(what);
	dp_index_free_nodes(&X.ix, dp_index_steal_spares(&X.ix));
}

/* Offer @bytes of table; the index takes them or hands them back. */
static bool give_table(size_t bytes)
{
	void *mem = dp_os_host_alloc(bytes, 0), *left;

	dpf_check(mem, "out of memory for a %zu-byte table", bytes);
	left = X.ix.ops->table_give(&X.ix, mem, bytes);
	dpf_check(!left || left == mem,
		  "%s: table_give handed back %p, not what it was given (%p)",
		  X.ix.ops->name, left, mem);
	if (left)
		dp_os_host_free(left, bytes);
	else
		X.table_bytes += bytes;
	check_accounts("table_give");
	return !left;
}

/* What the pool does before an insert of @len bytes: the table it asks. */
static void stock_table(size_t len)
{
	size_t bytes;

	if (!X.ix.ops->table_needed)
		return;
	bytes = X.ix.ops->table_needed(&X.ix, len);
	if (!bytes)
		return;
	dpf_check(give_table(bytes), "%s: refused the %zu-byte table it asked for",
		  X.ix.ops->name, bytes);
	dpf_check(!X.ix.ops->table_needed(&X.ix, len),
		  "%s: still needs a table after taking the %zu bytes it asked",
		  X.ix.ops->name, bytes);
}

static void remove_range(const struct range *r, const char *what)
{
	uint32_t need = X.ix.ops->remove_nodes_needed(&X.ix,
						      (uintptr_t)r->start,
						      (size_t)r->len);

	dpf_log("  %s [%#llx, +%#llx)", what, (unsigned long long)r->start,
		(unsigned long long)r->len);
	with_spares(need);
	X.ix.ops->remove(&X.ix, (uintptr_t)r->start, (size_t)r->len);
	spares_done(need, what);
	free(r->c);
}

/* Cleared entries that stayed go for real (supply.c's purge). */
static void purge(void)
{
	while (X.ndead)
		remove_range(&X.dead[--X.ndead], "purge");
}

static void op_insert(struct dpf_in *in)
{
	uint8_t base = dpf_u8(in);
	uint32_t page = dpf_u32(in);
	uint64_t pages = X.pages, start, len;
	uint32_t need;
	struct dp_chunk *c;
	size_t i;

	if (X.nr == MAX_RANGES ||
	    (is_hash() && (X.nr + 1) * pages > HASH_GRAINS))
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

	purge();
	need = X.ix.ops->nodes_needed(&X.ix, (uintptr_t)start, (size_t)len) +
	       X.ix.ops->remove_nodes_needed(&X.ix, 0, 0);
	with_spares(need);
	stock_table((size_t)len);
	X.ix.ops->insert(&X.ix, (uintptr_t)start, (size_t)len, c);
	spares_done(need, "insert");

	for (i = X.nr; i > 0 && X.r[i - 1].start > start; i--)
		X.r[i] = X.r[i - 1];
	X.r[i].start = start;
	X.r[i].len = len;
	X.r[i].c = c;
	X.nr++;
}

static void forget(size_t i)
{
	memmove(&X.r[i], &X.r[i + 1], (X.nr - i - 1) * sizeof(X.r[0]));
	X.nr--;
}

static void op_remove(struct dpf_in *in)
{
	uint16_t which = dpf_u16(in);
	struct range r;

	if (!X.nr)
		return;
	r = X.r[which % X.nr];
	forget(which % X.nr);
	remove_range(&r, "remove");
}

/* Unmap with no spare node: nothing may be taken, nothing allocated. */
static void op_clear(struct dpf_in *in)
{
	uint16_t which = dpf_u16(in);
	void *spares;
	uint32_t nspare;
	size_t nodes;
	uint64_t retired;
	struct range r;

	if (!X.nr)
		return;
	r = X.r[which % X.nr];
	forget(which % X.nr);
	dpf_log("  clear [%#llx, +%#llx)", (unsigned long long)r.start,
		(unsigned long long)r.len);
	nspare = X.ix.nspare;
	spares = dp_index_steal_spares(&X.ix);
	nodes = X.ix.nodes;
	retired = X.ix.retired;
	X.ix.ops->clear(&X.ix, (uintptr_t)r.start, (size_t)r.len);
	dpf_check(X.ix.nodes == nodes && X.ix.retired == retired &&
		  !X.ix.nspare,
		  "%s: clear changed the nodes (%zu -> %zu, %llu retired)",
		  X.ix.ops->name, nodes, X.ix.nodes,
		  (unsigned long long)(X.ix.retired - retired));
	check_accounts("clear");
	dp_index_add_spares(&X.ix, spares, nspare);
	if (X.ix.ops->clear_keeps_entry)
		X.dead[X.ndead++] = r;
	else
		free(r.c);
}

static void op_give(struct dpf_in *in)
{
	uint8_t sel = dpf_u8(in);
	size_t buckets = (size_t)1 << (4 + sel % 13);

	if (!X.ix.ops->table_give)
		return;
	dpf_log("  give %zu buckets + %u bytes", buckets, sel / 13);
	give_table(sizeof(struct dp_hash_table) +
		   buckets * sizeof(struct dp_chunk *) + sel / 13);
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
 * says; a cleared one nowhere. */
static void check_all(void)
{
	size_t i, entries;
	const char *why;
	uint32_t height;

	if (X.ix.ops == &dp_btree_ops && !X.ndead) {
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
	for (i = 0; i < X.ndead; i++) {
		check_lookup(X.dead[i].start);
		check_lookup(X.dead[i].start + X.dead[i].len - 1);
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
	snprintf(where, sizeof(where), "index(%s, grain shift %u)",
		 X.ix.ops->name, X.shift);
	dpf_where = where;
	dpf_step = 0;
	X.nr = X.ndead = 0;
	X.table_bytes = 0;
	while (dpf_more(&in)) {
		dpf_step++;
		switch (dpf_u8(&in) % 6) {
		case 0: op_insert(&in); break;
		case 1: op_remove(&in); break;
		case 2: op_lookup(&in); break;
		case 3: op_edge(&in); break;
		case 4: op_clear(&in); break;
		default: op_give(&in); break;
		}
		/* Between steps no reader is inside: retired nodes go now, and
		 * ASan catches the index if it still reaches one. */
		dpf_rcu_flush();
		check_all();
	}
	dpf_step++;
	purge();
	while (X.nr) {
		struct range r = X.r[X.nr - 1];

		forget(X.nr - 1);
		remove_range(&r, "remove");
		dpf_rcu_flush();
		check_all();
	}
	dpf_check(X.ix.ops != &dp_btree_ops || !X.ix.nodes,
		  "%s: %zu nodes left with nothing mapped", X.ix.ops->name,
		  X.ix.nodes);
	dp_index_fini(&X.ix);
	dpf_rcu_flush();
	dpf_check(!X.ix.nodes && !X.ix.table_bytes,
		  "%s: %zu nodes and %zu table bytes left after fini",
		  X.ix.ops->name, X.ix.nodes, X.ix.table_bytes);
	return 0;
}

#ifndef DPF_NO_ENTRY
DPF_FUZZ_ENTRY(index_init, dpf_index_run)
#endif
