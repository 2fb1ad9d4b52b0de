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
 * pool asks nodes_needed() under the lock, drops it to allocate that many
 * nodes onto the index's spare list, retakes it and asks again.  So the
 * allocation can block (GFP_KERNEL) while the lock is a spinlock.
 */
#ifndef DMAPOOL_INDEX_H
#define DMAPOOL_INDEX_H

#include "chunk.h"

struct dp_index;

struct dp_index_ops {
	const char *name;
	size_t node_size;
	/* Nodes an insert of [start, start + len) may take, at most. */
	uint32_t (*nodes_needed)(const struct dp_index *ix, uintptr_t start,
				 size_t len);
	/* Map [start, start + len) to @c; takes nodes from the spares. */
	void (*insert)(struct dp_index *ix, uintptr_t start, size_t len,
		       struct dp_chunk *c);
	/* Unmap what insert mapped; frees nodes that became empty. */
	void (*remove)(struct dp_index *ix, uintptr_t start, size_t len);
	struct dp_chunk *(*lookup)(const struct dp_index *ix, uintptr_t addr);
	/* Free every node (the pool is going away). */
	void (*destroy)(struct dp_index *ix);
};

/* Radix tree keyed by page frame, 64 slots a node, grown upward on demand. */
#define DP_RADIX_BITS	6u
#define DP_RADIX_SLOTS	(1u << DP_RADIX_BITS)

struct dp_radix_node {
	void *slot[DP_RADIX_SLOTS];	/* child nodes, or chunks in a leaf */
};

/*
 * The root covers keys whose bits above top_shift + DP_RADIX_BITS equal
 * prefix; a tree of one leaf has top_shift 0.  A pool whose chunks sit in
 * one 256 KiB stretch of address space is one node deep.
 */
struct dp_radix {
	struct dp_radix_node *root;
	uint64_t prefix;
	uint32_t top_shift;
};

struct dp_index {
	const struct dp_index_ops *ops;
	bool radix;			/* ops == &dp_radix_ops, for the hot path */
	uint32_t page_shift;
	size_t nodes;			/* live nodes, for meta_bytes */
	void *spare;			/* spare nodes, linked by first word */
	uint32_t nspare;
	union {
		struct dp_radix radix;
		void *priv;		/* other kinds keep their root here */
	} u;
};

extern const struct dp_index_ops dp_radix_ops;

static inline struct dp_chunk *dp_radix_lookup(const struct dp_radix *r,
					       uint64_t key)
{
	const struct dp_radix_node *n = r->root;
	uint32_t s = r->top_shift;

	if (DP_UNLIKELY(!n || (key >> (s + DP_RADIX_BITS)) != r->prefix))
		return NULL;
	while (s) {
		n = n->slot[(key >> s) & (DP_RADIX_SLOTS - 1)];
		if (DP_UNLIKELY(!n))
			return NULL;
		s -= DP_RADIX_BITS;
	}
	return n->slot[key & (DP_RADIX_SLOTS - 1)];
}

static inline struct dp_chunk *dp_index_lookup(const struct dp_index *ix,
					       uintptr_t addr)
{
	if (DP_LIKELY(ix->radix))
		return dp_radix_lookup(&ix->u.radix, addr >> ix->page_shift);
	return ix->ops->lookup(ix, addr);
}

/* Returns 0, or -1 for an index kind this build does not have. */
int dp_index_init(struct dp_index *ix, enum dmapool_index_kind kind,
		  uint32_t page_shift);
void dp_index_fini(struct dp_index *ix);
size_t dp_index_meta_bytes(const struct dp_index *ix);

/* For index implementations: a zeroed node from the spares (never NULL
 * after a successful reserve), and giving one back. */
void *dp_index_node_take(struct dp_index *ix);
void dp_index_node_free(struct dp_index *ix, void *node);

/* For the pool: stock the spares, and hand back what is left over. */
void dp_index_add_spares(struct dp_index *ix, void *list, uint32_t n);
void *dp_index_steal_spares(struct dp_index *ix);
void *dp_index_alloc_nodes(const struct dp_index *ix, uint32_t n,
			   dmapool_gfp_t gfp);
void dp_index_free_nodes(const struct dp_index *ix, void *list);

#endif /* DMAPOOL_INDEX_H */
