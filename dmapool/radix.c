// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The radix index: page frame -> chunk.
 *
 * A tree of 64-slot nodes over the page frame number of an address.  The
 * root carries the key bits that every key below it shares (prefix) and the
 * level it starts at (top_shift), so a pool whose chunks sit close together
 * needs only as many levels as their spread, not as the address space.  A
 * key outside the root's reach grows the tree upward: a new root whose slot
 * holds the old one.  Lookup is a prefix compare plus one load per level;
 * dp_radix_lookup() is inline in index.h because it is on the free path.
 * Every page of a chunk has an entry, so any address inside a chunk finds it.
 *
 * Lock-free readers: a writer fills a node before linking it, links with one
 * release store, and clears a slot with one store, so a reader sees each
 * slot either before or after.  Growth changes root, prefix and top level at
 * once: lock-free readers start from a copy of those three in a node of its
 * own (pub), replaced as a whole.  No node is ever freed before the index
 * is destroyed (index.h), so readers need no grace period at all.
 */
#include "index.h"

static u64 first_key(const struct dp_index *ix, uintptr_t start)
{
	return start >> ix->grain_shift;
}

static u64 last_key(const struct dp_index *ix, uintptr_t start, size_t len)
{
	return (start + len - 1) >> ix->grain_shift;
}

static bool covers(u32 top, u64 prefix, u64 k)
{
	return (k >> (top + DP_RADIX_BITS)) == prefix;
}

/* The lowest root level at which one node covers both keys. */
static u32 span_shift(u64 k0, u64 k1)
{
	u32 s = 0;

	while ((k0 >> (s + DP_RADIX_BITS)) != (k1 >> (s + DP_RADIX_BITS)))
		s += DP_RADIX_BITS;
	return s;
}

static u32 radix_nodes_needed(const struct dp_index *ix, uintptr_t start,
			      size_t len)
{
	const struct dp_radix *r = &ix->u.radix;
	u64 k0 = first_key(ix, start), k1 = last_key(ix, start, len);
	u32 top, old_top = 0, level, n = 0;
	u64 prefix;

	if (r->root) {
		top = r->top_shift;
		old_top = top;
		prefix = r->prefix;
		while (!covers(top, prefix, k0) || !covers(top, prefix, k1)) {
			top += DP_RADIX_BITS;
			prefix >>= DP_RADIX_BITS;
		}
	} else {
		top = span_shift(k0, k1);
	}
	/*
	 * An upper bound: every node on every new path, plus the chain above
	 * the old root, plus a new published root.
	 */
	for (level = 0; level <= top; level += DP_RADIX_BITS) {
		n += (u32)((k1 >> (level + DP_RADIX_BITS)) -
				(k0 >> (level + DP_RADIX_BITS)) + 1);
		if (r->root && level > old_top)
			n++;
	}
	return n + 1;
}

static u32 radix_remove_nodes_needed(const struct dp_index *ix,
				     uintptr_t start, size_t len)
{
	return 0;
}

/* Publish the writer's root, prefix and top level for lock-free readers. */
static void publish_root(struct dp_index *ix)
{
	struct dp_radix *r = &ix->u.radix;
	struct dp_radix_node *old = r->pub, *pub = NULL;

	if (r->root) {
		pub = dp_index_node_take(ix);
		pub->u.root.node = r->root;
		pub->u.root.prefix = r->prefix;
		pub->u.root.top_shift = r->top_shift;
	}
	if (pub)
		pub->older = old;
	DP_RCU_ASSIGN(r->pub, pub);
}

static void radix_insert(struct dp_index *ix, uintptr_t start, size_t len,
			 struct dp_chunk *c)
{
	struct dp_radix *r = &ix->u.radix;
	u64 k0 = first_key(ix, start), k1 = last_key(ix, start, len), k;
	bool new_root = false;

	if (!r->root) {
		r->top_shift = span_shift(k0, k1);
		r->prefix = k0 >> (r->top_shift + DP_RADIX_BITS);
		r->root = dp_index_node_take(ix);
		new_root = true;
	}
	while (!covers(r->top_shift, r->prefix, k0) ||
	       !covers(r->top_shift, r->prefix, k1)) {
		struct dp_radix_node *up = dp_index_node_take(ix);

		/* Not yet visible to readers: plain stores will do. */
		up->u.slot[r->prefix & (DP_RADIX_SLOTS - 1)] = r->root;
		r->root = up;
		r->top_shift += DP_RADIX_BITS;
		r->prefix >>= DP_RADIX_BITS;
		new_root = true;
	}
	if (new_root)
		publish_root(ix);
	for (k = k0; k <= k1; k++) {
		struct dp_radix_node *n = r->root;
		u32 s;

		for (s = r->top_shift; s; s -= DP_RADIX_BITS) {
			void **slot = &n->u.slot[(k >> s) & (DP_RADIX_SLOTS - 1)];

			if (!*slot)
				DP_RCU_ASSIGN(*slot, dp_index_node_take(ix));
			n = *slot;
		}
		DP_RCU_ASSIGN(n->u.slot[k & (DP_RADIX_SLOTS - 1)], (void *)c);
	}
}

static void radix_remove_key(struct dp_index *ix, u64 k)
{
	struct dp_radix *r = &ix->u.radix;
	struct dp_radix_node *n = r->root;
	u32 s = r->top_shift;

	if (!n || !covers(r->top_shift, r->prefix, k))
		return;
	while (s) {
		n = n->u.slot[(k >> s) & (DP_RADIX_SLOTS - 1)];
		if (!n)
			return;
		s -= DP_RADIX_BITS;
	}
	/* Nodes that empty stay: readers may be in them, now or later. */
	DP_WRITE_ONCE(n->u.slot[k & (DP_RADIX_SLOTS - 1)], NULL);
}

static void radix_remove(struct dp_index *ix, uintptr_t start, size_t len)
{
	u64 k, k1 = last_key(ix, start, len);

	for (k = first_key(ix, start); k <= k1; k++)
		radix_remove_key(ix, k);
}

static struct dp_chunk *radix_lookup(const struct dp_index *ix, uintptr_t addr)
{
	return dp_radix_lookup_rcu(&ix->u.radix, addr >> ix->grain_shift);
}

static void destroy_node(struct dp_index *ix, struct dp_radix_node *n,
			 u32 s)
{
	u32 i;

	if (s)
		for (i = 0; i < DP_RADIX_SLOTS; i++)
			if (n->u.slot[i])
				destroy_node(ix, n->u.slot[i], s - DP_RADIX_BITS);
	dp_index_node_free(ix, n);
}

static void free_pubs(struct dp_index *ix, struct dp_radix_node *n)
{
	while (n) {
		struct dp_radix_node *older = n->older;

		dp_index_node_free(ix, n);
		n = older;
	}
}

/* No reader is left: free at once. */
static void radix_destroy(struct dp_index *ix)
{
	struct dp_radix *r = &ix->u.radix;

	if (r->root)
		destroy_node(ix, r->root, r->top_shift);
	free_pubs(ix, r->pub);
	r->root = NULL;
	r->pub = NULL;
}

const struct dp_index_ops dp_radix_ops = {
	.name = "radix",
	.node_size = sizeof(struct dp_radix_node),
	.nodes_needed = radix_nodes_needed,
	.remove_nodes_needed = radix_remove_nodes_needed,
	.insert = radix_insert,
	.remove = radix_remove,
	.clear = radix_remove,
	.clear_keeps_entry = false,
	.lookup = radix_lookup,
	.destroy = radix_destroy,
};
