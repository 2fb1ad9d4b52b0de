// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The hash index (the default): granule -> chunk in an open-addressed table.
 *
 * A pool's chunks are aligned to their granule (geometry's chunk_align) and
 * a whole number of granules long, so the granule number of an address,
 * va >> grain_shift, names its chunk (and is never 0, the empty key): with the default chunk size a chunk is
 * one granule, one entry.  The table is open addressing with linear probing
 * and Fibonacci hashing (one multiply, one shift), kept at most a quarter
 * full, so a lookup is nearly always one probe: the table pointer, one
 * bucket, the chunk pointer: two dependent loads after the table's, however
 * far apart the chunks are (the kernel's dma_alloc_coherent pages are spread
 * over all of memory, where a radix tree would be four levels deep).
 *
 * Readers need no lock and no RCU: tables are type-stable.  An insert writes
 * the chunk pointer, then the key, with release stores; a removal clears the
 * chunk pointer and leaves the key (a later insert of the same granule reuses
 * the bucket), so a reader probing past it still finds what lies beyond.
 * Growing (or shedding cleared keys) builds a new table under the pool lock
 * in memory the pool allocated with the lock dropped (table_needed /
 * table_give), publishes it with one release store and keeps the old one
 * until the index is destroyed: a reader still in it finds every mapping as
 * it was when the table was replaced, which the callers' owner and
 * liveness checks make harmless (free.c).
 */
#include "index.h"

#define GOLDEN	0x9e3779b97f4a7c15ull
#define MIN_BUCKETS	16u

/* Two empty buckets: every lookup in it ends at its first probe. */
struct dp_hash_table dp_hash_empty = {
	.shift = 63, .mask = 1, .b = { { 0, NULL }, { 0, NULL } },
};

/* The pool's own table, or NULL while it has none. */
static struct dp_hash_table *own(const struct dp_index *ix)
{
	return ix->hash.table == &dp_hash_empty ? NULL : ix->hash.table;
}

static size_t table_bytes(uint32_t nbuckets)
{
	return sizeof(struct dp_hash_table) +
	       (size_t)nbuckets * sizeof(struct dp_hash_bucket);
}

static uint32_t ilog2(uint64_t x)
{
	uint32_t r = 0;

	while (x >>= 1)
		r++;
	return r;
}

static uint64_t first_grain(const struct dp_index *ix, uintptr_t start)
{
	return start >> ix->grain_shift;
}

static uint64_t grains(const struct dp_index *ix, size_t len)
{
	return (len + ((size_t)1 << ix->grain_shift) - 1) >> ix->grain_shift;
}

/* Buckets for @live mappings: at most a quarter full. */
static uint32_t buckets_for(uint64_t live)
{
	uint64_t n = MIN_BUCKETS;

	while (n < 4 * live)
		n *= 2;
	return n > 0x80000000u ? 0x80000000u : (uint32_t)n;
}

static uint32_t hash_nodes_needed(const struct dp_index *ix, uintptr_t start,
				  size_t len)
{
	return 0;
}

static size_t hash_table_needed(const struct dp_index *ix, size_t len)
{
	const struct dp_hash_table *t = own(ix);
	const uint64_t add = grains(ix, len);

	if (t && 4 * (t->used + add) <= (uint64_t)t->mask + 1)
		return 0;
	return table_bytes(buckets_for((t ? t->live : 0) + add));
}

static void put(struct dp_hash_table *t, uint64_t key, struct dp_chunk *c,
		bool fresh)
{
	uint32_t i = (uint32_t)((key * GOLDEN) >> t->shift);

	for (;; i = (i + 1) & t->mask) {
		uint64_t k = t->b[i].key;

		if (k == key) {
			DP_RCU_ASSIGN(t->b[i].c, c);
			return;
		}
		if (!k) {
			/* Not yet visible to readers if fresh: plain stores. */
			if (fresh) {
				t->b[i].c = c;
				t->b[i].key = key;
			} else {
				DP_RCU_ASSIGN(t->b[i].c, c);
				DP_RCU_ASSIGN(t->b[i].key, key);
			}
			t->used++;
			return;
		}
	}
}

static void *hash_table_give(struct dp_index *ix, void *mem, size_t bytes)
{
	struct dp_hash_table *old = own(ix), *t = mem;
	uint32_t n = MIN_BUCKETS, i;

	while (table_bytes(n * 2) <= bytes && n < 0x80000000u)
		n *= 2;
	/* Too small for what it must hold, or no better than the table now
	 * (someone replaced it meanwhile): not taken. */
	if (table_bytes(n) > bytes || (old && n < buckets_for(old->live + 1)) ||
	    (old && n <= old->mask + 1 && old->used == old->live))
		return mem;
	dp_os_memset(t, 0, table_bytes(n));
	t->mask = n - 1;
	t->shift = 64 - ilog2(n);
	t->bytes = bytes;
	for (i = 0; old && i <= old->mask; i++)
		if (old->b[i].c)
			put(t, old->b[i].key, old->b[i].c, true);
	t->live = old ? old->live : 0;
	t->older = old;
	DP_RCU_ASSIGN(ix->hash.table, t);
	ix->table_bytes += bytes;
	return NULL;
}

static void hash_insert(struct dp_index *ix, uintptr_t start, size_t len,
			struct dp_chunk *c)
{
	struct dp_hash_table *t = own(ix);
	uint64_t g = first_grain(ix, start), n = grains(ix, len);

	if (DP_WARN_ON(!t || 4 * (t->used + n) > (uint64_t)t->mask + 1))
		return;
	for (; n; n--, g++) {
		put(t, g, c, false);
		t->live++;
	}
}

static void hash_clear(struct dp_index *ix, uintptr_t start, size_t len)
{
	struct dp_hash_table *t = own(ix);
	uint64_t g = first_grain(ix, start), n = grains(ix, len);

	for (; t && n; n--, g++) {
		uint64_t key = g;
		uint32_t i = (uint32_t)((key * GOLDEN) >> t->shift);

		for (; t->b[i].key; i = (i + 1) & t->mask)
			if (t->b[i].key == key) {
				if (t->b[i].c)
					t->live--;
				DP_WRITE_ONCE(t->b[i].c, NULL);
				break;
			}
	}
}

static struct dp_chunk *hash_lookup(const struct dp_index *ix, uintptr_t addr)
{
	return dp_hash_lookup(&ix->hash, addr >> ix->grain_shift);
}

static void hash_destroy(struct dp_index *ix)
{
	struct dp_hash_table *t = own(ix), *older;

	for (; t; t = older) {
		older = t->older;
		ix->table_bytes -= t->bytes;
		dp_os_host_free(t, t->bytes);
	}
	ix->hash.table = &dp_hash_empty;
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
