// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The hash index (the default): granule -> chunk in an open-addressed table.
 *
 * A pool's chunks are aligned to their granule (1 << grain_shift, geometry's
 * chunk_align) and a whole number of granules long, so the granule number of
 * an address names its chunk; with the default chunk size a chunk is one
 * granule, one entry.  The table is open addressing with linear probing and
 * Fibonacci hashing (one multiply, one shift), kept at most a quarter full,
 * so a lookup is nearly always one probe: the bucket array, one bucket, the
 * chunk's start, however far apart the chunks are (the kernel's
 * dma_alloc_coherent pages are spread over all of memory, where a radix tree
 * would be four levels deep).  A bucket is a chunk pointer and the chunk's
 * start (index.h), and matches when the address lies inside that chunk,
 * which is the bounds check a free makes anyway.
 *
 * Readers need no lock and no RCU: tables are type-stable.  An insert stores
 * the start, then the chunk pointer with a release store, into an empty or
 * removed bucket; a removal stores dp_chunk_tomb there, then DP_NO_MEMORY as
 * the start (a reader probing past it still finds what lies beyond).
 * Growing, or shedding tombs, builds a new table under the pool lock in
 * memory the pool allocated with the lock dropped (table_needed /
 * table_give), publishes it with one release store and keeps the old one
 * until the index is destroyed: a reader still in it finds every mapping as
 * it was when the table was replaced, which the callers' owner and liveness
 * checks make harmless (free.c).
 */
#include "index.h"

#define GOLDEN		0x9e3779b97f4a7c15ull
#define MIN_BUCKETS	16u

/*
 * Empty and removed buckets: owned by no context, describing no memory (a
 * start no address is within a chunk's length of: DP_NO_MEMORY).  Their
 * owner is the pool lock's, so that a free that found one takes the locked
 * route, which judges it (datapath.h, dp_remote_direct()), with no test of its
 * own on the way.
 */
struct dp_chunk dp_chunk_none = {
	.fast_owner = DP_OWNER_NONE, .owner = DP_OWNER_SHARED,
	.vaddr = DP_NO_MEMORY,
};

struct dp_chunk dp_chunk_tomb = {
	.fast_owner = DP_OWNER_NONE, .owner = DP_OWNER_SHARED,
	.vaddr = DP_NO_MEMORY,
};

/* Two empty buckets: every lookup in it ends at its first probe. */
struct dp_hash_table dp_hash_empty = {
	.bmask = sizeof(struct dp_hash_bucket), .mask = 1,
	.b = { { &dp_chunk_none, DP_NO_MEMORY },
	       { &dp_chunk_none, DP_NO_MEMORY } },
};

static bool empty(const struct dp_chunk *c)
{
	return c == &dp_chunk_none || c == &dp_chunk_tomb;
}

static size_t table_bytes(u32 nbuckets)
{
	return sizeof(struct dp_hash_table) +
	       (size_t)nbuckets * sizeof(struct dp_hash_bucket);
}

static u64 grains(const struct dp_index *ix, size_t len)
{
	return (len + ((size_t)1 << ix->grain_shift) - 1) >> ix->grain_shift;
}

static u32 home(const struct dp_index *ix,
		const struct dp_hash_table *t, u64 g)
{
	return (u32)dp_hash_home(t, (uintptr_t)g << ix->grain_shift);
}

/* Buckets for @live mappings: at most a quarter full. */
static u32 buckets_for(u64 live)
{
	u64 n = MIN_BUCKETS;

	while (n < 4 * live)
		n *= 2;
	return n > 0x80000000u ? 0x80000000u : (u32)n;
}

static u32 hash_nodes_needed(const struct dp_index *ix, uintptr_t start,
			     size_t len)
{
	return 0;
}

static size_t hash_table_needed(const struct dp_index *ix, size_t len)
{
	const struct dp_hash_table *t = ix->hash.table;
	const u64 add = grains(ix, len);

	if (t && 4 * (t->used + add) <= (u64)t->mask + 1)
		return 0;
	return table_bytes(buckets_for((t ? t->live : 0) + add));
}

/*
 * Map granule @g to @c, whose chunk starts at @start, in @t (which has
 * room); @fresh: not yet published.  The start first, then the chunk: a
 * reader that sees the chunk sees its start.
 */
static void put(const struct dp_index *ix, struct dp_hash_table *t,
		u64 g, struct dp_chunk *c, uintptr_t start, bool fresh)
{
	u32 i = home(ix, t, g);

	while (!empty(t->b[i].c))
		i = (i + 1) & t->mask;
	if (t->b[i].c == &dp_chunk_none)
		t->used++;
	if (fresh) {
		t->b[i].vaddr = start;
		t->b[i].c = c;
	} else {
		DP_WRITE_ONCE(t->b[i].vaddr, start);
		DP_RCU_ASSIGN(t->b[i].c, c);
	}
	t->live++;
}

/* Map every granule of @c's range [@start, + @len) in @t. */
static void put_range(const struct dp_index *ix, struct dp_hash_table *t,
		      uintptr_t start, size_t len, struct dp_chunk *c,
		      bool fresh)
{
	u64 g = start >> ix->grain_shift, n = grains(ix, len);

	for (; n; n--, g++)
		put(ix, t, g, c, start, fresh);
}

static void *hash_table_give(struct dp_index *ix, void *mem, size_t bytes)
{
	struct dp_hash_table *old = ix->hash.table, *t = mem;
	const size_t len = ix->hash.len;
	u32 n = MIN_BUCKETS, i;

	while (table_bytes(n * 2) <= bytes && n < 0x80000000u)
		n *= 2;
	/*
	 * Too small for what it must hold, or no better than the table now
	 * (someone replaced it meanwhile): not taken.
	 */
	if (table_bytes(n) > bytes || (old && n < buckets_for(old->live + 1)) ||
	    (old && n <= old->mask + 1 && old->used == old->live))
		return mem;
	dp_os_memset(t, 0, sizeof(*t));
	t->mask = n - 1;
	t->bmask = t->mask * (u32)sizeof(struct dp_hash_bucket);
	if ((u64)n * sizeof(struct dp_hash_bucket) > 0x100000000ull)
		return mem;	/* bmask is 32 bits */
	t->bytes = bytes;
	for (i = 0; i < n; i++) {
		t->b[i].c = &dp_chunk_none;
		t->b[i].vaddr = DP_NO_MEMORY;
	}
	/* Each live chunk once, at its first granule's lookup. */
	for (i = 0; old && i <= old->mask; i++) {
		struct dp_chunk *c = old->b[i].c;
		struct dp_hash probe;

		if (empty(c))
			continue;
		probe = (struct dp_hash){
			.b = t->b, .len = len, .gmask = ix->hash.gmask,
			.mult = DP_HASH_MULT, .table = t,
		};
		if (dp_hash_find_fast(&probe, c->vaddr) == c)
			continue;
		put_range(ix, t, c->vaddr, len, c, true);
	}
	t->older = old;
	ix->hash.table = t;
	DP_RCU_ASSIGN(ix->hash.b, t->b);
	ix->table_bytes += bytes;
	return NULL;
}

static void hash_insert(struct dp_index *ix, uintptr_t start, size_t len,
			struct dp_chunk *c)
{
	struct dp_hash_table *t = ix->hash.table;

	if (DP_WARN_ON(!t || 4 * (t->used + grains(ix, len)) >
			     (u64)t->mask + 1))
		return;
	/*
	 * Pools set it at create (every chunk has one length); other users
	 * of the index at the first insert, before any lookup.
	 */
	if (ix->hash.len != len)
		DP_WRITE_ONCE(ix->hash.len, len);
	put_range(ix, t, start, len, c, false);
}

static void hash_clear(struct dp_index *ix, uintptr_t start, size_t len)
{
	struct dp_hash_table *t = ix->hash.table;
	u64 g = start >> ix->grain_shift, n = grains(ix, len);
	struct dp_chunk *c = dp_hash_lookup(&ix->hash, start);

	for (; t && c && n; n--, g++) {
		u32 i = home(ix, t, g);

		for (; t->b[i].c != &dp_chunk_none; i = (i + 1) & t->mask)
			if (t->b[i].c == c) {
				DP_RCU_ASSIGN(t->b[i].c, &dp_chunk_tomb);
				DP_WRITE_ONCE(t->b[i].vaddr, DP_NO_MEMORY);
				t->live--;
				break;
			}
	}
}

static struct dp_chunk *hash_lookup(const struct dp_index *ix, uintptr_t addr)
{
	return dp_hash_lookup(&ix->hash, addr);
}

static void hash_destroy(struct dp_index *ix)
{
	struct dp_hash_table *t = ix->hash.table, *older;

	for (; t; t = older) {
		older = t->older;
		ix->table_bytes -= t->bytes;
		dp_os_host_free(t, t->bytes);
	}
	ix->hash.table = NULL;
	ix->hash.b = dp_hash_empty.b;
}

const struct dp_index_ops dp_hash_ops = {
	.name = "hash",
	.node_size = sizeof(void *),
	.nodes_needed = hash_nodes_needed,
	.remove_nodes_needed = hash_nodes_needed,
	.table_needed = hash_table_needed,
	.table_give = hash_table_give,
	.insert = hash_insert,
	.remove = hash_clear,
	.clear = hash_clear,
	.clear_keeps_entry = false,
	.lookup = hash_lookup,
	.destroy = hash_destroy,
};
