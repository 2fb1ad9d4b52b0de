/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The index: from an address to the chunk that holds it.
 *
 * dmapool_free(pool, vaddr, dma) gets only an address, so it needs this
 * lookup; the handle API does not.  Index kinds plug in behind an ops table.
 * The hot path does not call through the table for the default kind: an
 * indirect call (a retpoline in the kernel) costs more than the lookup, so
 * dp_index_lookup() calls the radix lookup directly and uses the table only
 * for the other kinds.
 *
 * Writers (insert, remove) run under the pool lock and never allocate: the
 * pool asks nodes_needed() (or remove_nodes_needed()) under the lock, drops
 * it to allocate that many nodes onto the index's spare list, retakes it and
 * asks again.  So the allocation can block (GFP_KERNEL) while the lock is a
 * spinlock.
 *
 * Readers come in two kinds.  Under the pool lock nothing changes, so the
 * radix fast path (dp_index_lookup) reads the writer's own fields.  Without
 * the pool lock, under the RCU read lock (dp_index_lookup_rcu), a reader may
 * run while a writer changes the index: every kind publishes a node only
 * after filling it (DP_RCU_ASSIGN), never changes what a reader could be
 * halfway through in a way that misleads it, and frees a node it unlinked
 * only after a grace period (dp_call_rcu), so a reader finds either the old
 * or the new answer for every address, and never a freed node.
 */
#ifndef DMAPOOL_INDEX_H
#define DMAPOOL_INDEX_H

#include "chunk.h"

struct dp_index;

struct dp_index_ops {
	const char *name;
	size_t node_size;
	/* Nodes an insert of [start, start + len) may take, at most. */
	u32 (*nodes_needed)(const struct dp_index *ix, uintptr_t start,
			    size_t len);
	/* Nodes a remove of [start, start + len) may take, at most. */
	u32 (*remove_nodes_needed)(const struct dp_index *ix,
				   uintptr_t start, size_t len);
	/*
	 * Indexes that need one contiguous table (NULL otherwise): the bytes
	 * an insert of @len more bytes of ranges needs first (0: none), and
	 * taking a table the pool allocated with its lock dropped (returns
	 * memory to free after unlocking, or NULL when it took it).
	 */
	size_t (*table_needed)(const struct dp_index *ix, size_t len);
	void *(*table_give)(struct dp_index *ix, void *mem, size_t bytes);
	/* Map [start, start + len) to @c; takes nodes from the spares. */
	void (*insert)(struct dp_index *ix, uintptr_t start, size_t len,
		       struct dp_chunk *c);
	/*
	 * Unmap what insert mapped; nodes it no longer needs are freed after
	 * a grace period.
	 */
	void (*remove)(struct dp_index *ix, uintptr_t start, size_t len);
	/*
	 * Unmap it with no node at all (a free may do this); lookups find
	 * nothing there afterwards.  When clear_keeps_entry, an entry stays
	 * that remove() must take out before the range is inserted again.
	 */
	void (*clear)(struct dp_index *ix, uintptr_t start, size_t len);
	bool clear_keeps_entry;
	/*
	 * Safe under the RCU read lock or the pool lock.  May return a chunk
	 * that does not contain @addr (the radix maps whole pages): the
	 * caller checks.
	 */
	struct dp_chunk *(*lookup)(const struct dp_index *ix, uintptr_t addr);
	/* Free every node (the pool is going away). */
	void (*destroy)(struct dp_index *ix);
};

/* Radix tree keyed by page frame, 64 slots a node, grown upward on demand. */
#define DP_RADIX_BITS	6u
#define DP_RADIX_SLOTS	((u32)1 << DP_RADIX_BITS)

/* What an RCU reader needs to start a walk, published as one pointer. */
struct dp_radix_root {
	struct dp_radix_node *node;
	u64 prefix;
	u32 top_shift;
};

struct dp_radix_node {
	union {
		void *slot[DP_RADIX_SLOTS];	/* child nodes, or chunks */
		struct dp_radix_root root;	/* a published root */
	} u;
	struct dp_radix_node *older;	/* replaced published roots */
};

/*
 * The root covers keys whose bits above top_shift + DP_RADIX_BITS equal
 * prefix; a tree of one leaf has top_shift 0.  A pool whose chunks sit in
 * one 256 KiB stretch of address space is one node deep.  Growing the tree
 * changes all three at once, which a lock-free reader cannot read
 * atomically, so they are also published together in a node of their own
 * (pub), replaced on every change; the locked fast path reads the writer's
 * copy, one load shorter.
 */
struct dp_radix {
	struct dp_radix_node *root;
	u64 prefix;
	u32 top_shift;
	struct dp_radix_node *pub;	/* u.root mirrors the three above */
};

/*
 * Radix nodes are type-stable: none is freed while the pool lives (a node
 * that empties stays in the tree, a replaced published root is kept on
 * pub->older), so a free may walk the tree with no RCU read lock at all:
 * the fast path does.  The tree's size is bounded by the address range the
 * pool's chunks ever spanned.
 */

/*
 * The B-tree (btree.c): chunk starts in sorted 256-byte nodes, every chunk
 * [start, start + len) one entry.  The root pointer is tagged: bit 0 set
 * when the node it names is a leaf (so is every child pointer).
 */
struct dp_btree {
	void *root;
	size_t len;			/* every range's length */
	u32 height;			/* levels; 0 = empty */
};

/*
 * The hash index (hash.c): buckets of chunk pointers, a chunk in the bucket
 * of each granule it covers (or one after it: linear probing).  A bucket
 * matches an address when the address lies inside its chunk, so the check
 * is the caller's bounds check itself.  Empty buckets hold dp_chunk_none,
 * removed ones dp_chunk_tomb (probing goes on past those); both describe
 * no memory.
 *
 * A bucket also holds its chunk's start, written before the chunk pointer
 * is published: the fast free computes a block's position from the bucket
 * alone, so it can fetch the block's state word (at a fixed offset in the
 * record, chunk.h) while the record's first line is still on its way,
 * rather than after it.  Only the fast path reads that copy, and only
 * trusts it for the caller's own chunk, which stays mapped while the
 * caller owns it; every other free checks the record's own vaddr.
 */
struct dp_hash_bucket {
	struct dp_chunk *c;
	uintptr_t vaddr;		/* c->vaddr; DP_NO_MEMORY for markers */
};

struct dp_hash_table {
	/*
	 * mask * sizeof(bucket): the fast path finds a bucket by its offset
	 * in bytes, which needs no scaling (a bucket is two words, and an
	 * address scales by 8 at most).
	 */
	u32 bmask;
	u32 mask;			/* buckets - 1 */
	u32 used;			/* buckets not empty */
	u32 live;			/* of which mapped */
	struct dp_hash_table *older;	/* replaced tables (type-stable) */
	size_t bytes;
	struct dp_hash_bucket b[];
};

struct dp_hash {
	struct dp_hash_bucket *b;	/* the table's buckets, never NULL */
	size_t len;			/* every chunk's length */
	uintptr_t gmask;		/* ~(granule - 1) */
	/* DP_HASH_MULT (a multiply from memory keeps the fast path off %rdx) */
	u64 mult;
	struct dp_hash_table *table;	/* NULL until the first insert */
};

extern struct dp_chunk dp_chunk_none, dp_chunk_tomb;

/*
 * The start of the empty and removed buckets' chunks.  A lookup matches a
 * bucket when the address lies within a chunk length of its start, so that
 * start must be one no chunk comes near: on 64-bit machines the middle of
 * the address space, which is not canonical on any of Linux's (user memory
 * lies below it, kernel memory far above it; chunk.c refuses a backend's
 * chunk in that window); on 32-bit ones no such hole exists and the probe
 * tests for a removed bucket by name.
 */
#define DP_NO_MEMORY		((UINTPTR_MAX >> 1) + 1)
#define DP_NO_MEMORY_HOLE	(UINTPTR_MAX > 0xffffffffu)
extern struct dp_hash_table dp_hash_empty;

/*
 * The home bucket of an address's granule: Fibonacci hashing of the
 * granule's start, bits 33 and up of the product (no variable shift: a
 * constant shift and a mask keep the fast path off the shift-count
 * register).  dp_hash_home_byte() is the same bucket's offset in bytes.
 */
#define DP_HASH_MULT	0x9e3779b97f4a7c15ull
#define DP_HASH_BUCKET_SHIFT	(sizeof(void *) == 8 ? 4 : 3)

static inline u64 dp_hash_home(const struct dp_hash_table *t,
			       uintptr_t gstart)
{
	return ((gstart * DP_HASH_MULT) >> 33) & t->mask;
}

static inline u64 dp_hash_home_byte(const struct dp_hash_table *t,
				    uintptr_t gstart, u64 mult)
{
	return ((gstart * mult) >> (33 - DP_HASH_BUCKET_SHIFT)) & t->bmask;
}

/* The bucket array as bytes, and the table it belongs to. */
static inline const char *dp_hash_bytes(const struct dp_hash *h,
					const struct dp_hash_table **t)
{
	const struct dp_hash_bucket *b = DP_RCU_DEREF(h->b);

	*t = DP_CONTAINER_OF(b, struct dp_hash_table, b[0]);
	return (const char *)b;
}

/*
 * Lock-free: the chunk @va lies in, or &dp_chunk_none; @va's offset in it
 * in *@off.  The record's own vaddr decides, not the bucket's copy.
 */
static inline struct dp_chunk *dp_hash_find_off(const struct dp_hash *h,
						uintptr_t va, uintptr_t *off)
{
	const struct dp_hash_bucket *b = DP_RCU_DEREF(h->b);
	const struct dp_hash_table *t = DP_CONTAINER_OF(b, struct dp_hash_table,
							b[0]);
	u64 i = dp_hash_home(t, va & h->gmask);

	for (;;) {
		struct dp_chunk *c = DP_RCU_DEREF(b[i].c);

		*off = va - DP_READ_ONCE(c->vaddr);
		if (DP_LIKELY(*off < h->len) &&
		    (DP_NO_MEMORY_HOLE || c != &dp_chunk_tomb))
			return c;
		if (c == &dp_chunk_none)
			return c;
		i = (i + 1) & t->mask;
	}
}

static inline struct dp_chunk *dp_hash_find_fast(const struct dp_hash *h,
						 uintptr_t va)
{
	uintptr_t off;

	return dp_hash_find_off(h, va, &off);
}

/* Lock-free: the chunk @va lies in, or NULL. */
static inline struct dp_chunk *dp_hash_lookup(const struct dp_hash *h,
					      uintptr_t va)
{
	struct dp_chunk *c = dp_hash_find_fast(h, va);

	return c == &dp_chunk_none || c == &dp_chunk_tomb ? NULL : c;
}

struct dp_index {
	const struct dp_index_ops *ops;
	bool radix;			/* ops == &dp_radix_ops, for the hot path */
	u32 grain_shift;		/* ranges: multiples of 1 << this, aligned */
	size_t table_bytes;		/* hash tables, for meta_bytes */
	/*
	 * The hash kind's (outside the union: the fast free path reads it in
	 * every pool, and finds nothing in others).
	 */
	struct dp_hash hash;
	size_t nodes;			/* live nodes, for meta_bytes */
	void *spare;			/* spare nodes, linked by first word */
	u32 nspare;
	u64 retired;			/* nodes handed to dp_call_rcu */
	union {
		struct dp_radix radix;
		struct dp_btree btree;
		void *priv;		/* other kinds keep their root here */
	} u;
};

extern const struct dp_index_ops dp_radix_ops;
extern const struct dp_index_ops dp_btree_ops;
extern const struct dp_index_ops dp_hash_ops;

static inline struct dp_chunk *dp_radix_lookup(const struct dp_radix *r,
					       u64 key)
{
	const struct dp_radix_node *n = r->root;
	u32 s = r->top_shift;

	if (DP_UNLIKELY(!n || (key >> (s + DP_RADIX_BITS)) != r->prefix))
		return NULL;
	/* Laid out for the common one-level tree (chunks within 256 KiB). */
	while (s) {
		n = n->u.slot[(key >> s) & (DP_RADIX_SLOTS - 1)];
		if (DP_UNLIKELY(!n))
			return NULL;
		s -= DP_RADIX_BITS;
	}
	return n->u.slot[key & (DP_RADIX_SLOTS - 1)];
}

/* Under the RCU read lock (or the pool lock). */
static inline struct dp_chunk *dp_radix_lookup_rcu(const struct dp_radix *r,
						   u64 key)
{
	const struct dp_radix_node *pub = DP_RCU_DEREF(r->pub);
	const struct dp_radix_node *n;
	u32 s;

	if (DP_UNLIKELY(!pub))
		return NULL;
	n = pub->u.root.node;
	s = pub->u.root.top_shift;
	if (DP_UNLIKELY((key >> (s + DP_RADIX_BITS)) != pub->u.root.prefix))
		return NULL;
	while (s) {
		n = DP_RCU_DEREF(n->u.slot[(key >> s) & (DP_RADIX_SLOTS - 1)]);
		if (DP_UNLIKELY(!n))
			return NULL;
		s -= DP_RADIX_BITS;
	}
	return DP_RCU_DEREF(n->u.slot[key & (DP_RADIX_SLOTS - 1)]);
}

/* Under the pool lock. */
static inline struct dp_chunk *dp_index_lookup(const struct dp_index *ix,
					       uintptr_t addr)
{
	if (DP_LIKELY(ix->ops == &dp_hash_ops))
		return dp_hash_lookup(&ix->hash, addr);
	if (ix->radix)
		return dp_radix_lookup(&ix->u.radix, addr >> ix->grain_shift);
	return ix->ops->lookup(ix, addr);
}

/* Under the RCU read lock, while writers may be changing the index. */
static inline struct dp_chunk *dp_index_lookup_rcu(const struct dp_index *ix,
						   uintptr_t addr)
{
	if (DP_LIKELY(ix->ops == &dp_hash_ops))
		return dp_hash_lookup(&ix->hash, addr);
	if (ix->radix)
		return dp_radix_lookup_rcu(&ix->u.radix,
					   addr >> ix->grain_shift);
	return ix->ops->lookup(ix, addr);
}

/* Returns 0, or -1 for an index kind this build does not have. */
int dp_index_init(struct dp_index *ix, enum dmapool_index_kind kind,
		  u32 grain_shift);
void dp_index_fini(struct dp_index *ix);
size_t dp_index_meta_bytes(const struct dp_index *ix);

/*
 * For index implementations: a zeroed node from the spares (never NULL
 * after a successful reserve), and giving one back.
 */
void *dp_index_node_take(struct dp_index *ix);
void dp_index_node_free(struct dp_index *ix, void *node);
/*
 * A node unlinked from a published index: @fn frees it after a grace
 * period (@head is inside the node, where no reader looks).
 */
void dp_index_node_retire(struct dp_index *ix, struct dp_rcu_head *head,
			  void (*fn)(struct dp_rcu_head *head));

/* For the pool: stock the spares, and hand back what is left over. */
void dp_index_add_spares(struct dp_index *ix, void *list, u32 n);
void *dp_index_steal_spares(struct dp_index *ix);
void *dp_index_alloc_nodes(const struct dp_index *ix, u32 n,
			   dmapool_gfp_t gfp);
void dp_index_free_nodes(const struct dp_index *ix, void *list);

#endif /* DMAPOOL_INDEX_H */
