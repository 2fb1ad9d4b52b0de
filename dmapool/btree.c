// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The B-tree index: a tree of chunk ranges [start, start + len), one entry
 * per chunk, in the spirit of the kernel's maple tree (lib/maple_tree.c):
 * 256-byte nodes of sorted keys and slots, a fan-out near 16, lock-free
 * readers under RCU, writers serialized by the pool lock.
 *
 * It differs from the maple tree where a pool's needs are simpler.  All of a
 * pool's chunks have one length, so a leaf keeps only each chunk's start and
 * the range end is start + len; gaps between chunks need no entries (the
 * maple tree stores them as NULL ranges).  Inner nodes keep the smallest
 * start below each child.  A lookup walks down picking, in every node, the
 * last key <= addr, and checks addr < start + len at the leaf: O(log n) in
 * chunks, a handful of cache lines.
 *
 * Writers copy instead of changing in place.  An insert or a remove builds
 * new nodes for the leaf it changes and for every node above it (splitting a
 * node that overflows, merging or rebalancing one that underflows with a
 * sibling), and publishes the new root with one release store.  A reader
 * therefore walks either the whole old tree or the whole new one, never a
 * node that is halfway through a change; the replaced nodes are freed after
 * a grace period.  That costs a few node copies per chunk added or removed,
 * which happens once per chunk_size bytes of pool growth, and keeps the
 * reader a plain walk with no retry (the maple tree instead marks replaced
 * nodes dead and makes readers check and restart).  Nodes come from the
 * index's spares (the pool allocates them with its lock dropped).
 */
#include "index.h"

#define BT_NODE_BYTES	256
#define BT_SLOTS	((BT_NODE_BYTES - sizeof(struct dp_rcu_head)) / \
			 (2 * sizeof(uintptr_t)))
#define BT_MIN		(BT_SLOTS / 2)	/* entries in a non-root node */
#define BT_NONE		UINTPTR_MAX	/* key of an unused entry */
#define BT_LEAF		((uintptr_t)1)	/* tag: the node pointed to is a leaf */
#define BT_MAX_HEIGHT	24		/* 2 * 7^23 entries: never reached */

struct dp_bt_node {
	uintptr_t key[BT_SLOTS];	/* sorted; BT_NONE past the last */
	void *slot[BT_SLOTS];		/* chunks (leaf) or tagged children */
	struct dp_rcu_head rcu;
};

/* Entries being assembled for up to two new nodes. */
struct bt_ent {
	uintptr_t key;
	void *ptr;
};

/*
 * A writer keeps one of these on its stack and reuses it level by level, so
 * it is sized to the most it ever holds: a full node plus one entry (an
 * insert, or a child that split), or an underflowing node (fewer than
 * BT_MIN entries) merged with a sibling.  Kernel stacks are small, and
 * under KASAN every local grows redzones: no second buffer, no copies.
 */
#define BT_BUF_MAX	(BT_SLOTS + BT_MIN)

struct bt_buf {
	u32 n;
	struct bt_ent e[BT_BUF_MAX];
};

static_assert(sizeof(struct dp_bt_node) <= BT_NODE_BYTES,
	      "a B-tree node fits its allocation");
static_assert(BT_MIN >= 2, "nodes hold at least two entries");
static_assert(BT_SLOTS < 256, "a path's entry index fits a byte");

static struct dp_bt_node *untag(const void *p)
{
	return (struct dp_bt_node *)((uintptr_t)p & ~BT_LEAF);
}

static bool is_leaf(const void *p)
{
	return (uintptr_t)p & BT_LEAF;
}

/* Entries in a node. */
static u32 node_count(const struct dp_bt_node *n)
{
	u32 i = 0;

	while (i < BT_SLOTS && n->key[i] != BT_NONE)
		i++;
	return i;
}

/* The last entry whose key is <= @addr, or -1. */
static int node_search(const struct dp_bt_node *n, uintptr_t addr)
{
	int i = 0;

	while (i < (int)BT_SLOTS && n->key[i] <= addr)
		i++;
	return i - 1;
}

static struct dp_chunk *bt_lookup(const struct dp_index *ix, uintptr_t addr)
{
	const struct dp_btree *t = &ix->u.btree;
	const void *p = DP_RCU_DEREF(t->root);

	/* BT_NONE marks unused keys: no range reaches it. */
	if (DP_UNLIKELY(addr == BT_NONE))
		return NULL;
	while (p) {
		const struct dp_bt_node *n = untag(p);
		int i = node_search(n, addr);

		if (i < 0)
			return NULL;
		if (is_leaf(p))
			return addr - n->key[i] < DP_READ_ONCE(t->len) ?
			       DP_RCU_DEREF(n->slot[i]) : NULL;
		p = DP_RCU_DEREF(n->slot[i]);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Writers: the pool lock is held.                                    */

static u32 bt_nodes_needed(const struct dp_index *ix, uintptr_t start,
			   size_t len)
{
	/* Each level: the copy and its split half; plus a new root. */
	return 2 * ix->u.btree.height + 1;
}

static u32 bt_remove_nodes_needed(const struct dp_index *ix,
				  uintptr_t start, size_t len)
{
	/* Each level: a node merged with, or rebalanced against, a sibling. */
	return 2 * ix->u.btree.height;
}

static void node_free_rcu(struct dp_rcu_head *head)
{
	struct dp_bt_node *n = DP_CONTAINER_OF(head, struct dp_bt_node, rcu);

	dp_os_host_free(n, BT_NODE_BYTES);
}

static void retire(struct dp_index *ix, void *tagged)
{
	dp_index_node_retire(ix, &untag(tagged)->rcu, node_free_rcu);
}

/* Append @n's entries to @b. */
static void buf_load(struct bt_buf *b, const struct dp_bt_node *n)
{
	u32 i, cnt = node_count(n);

	for (i = 0; i < cnt; i++) {
		b->e[b->n].key = n->key[i];
		b->e[b->n].ptr = n->slot[i];
		b->n++;
	}
}

/* Put @n's entries in front of @b's. */
static void buf_load_front(struct bt_buf *b, const struct dp_bt_node *n)
{
	u32 i, cnt = node_count(n);

	for (i = b->n; i > 0; i--)
		b->e[i - 1 + cnt] = b->e[i - 1];
	for (i = 0; i < cnt; i++) {
		b->e[i].key = n->key[i];
		b->e[i].ptr = n->slot[i];
	}
	b->n += cnt;
}

static void buf_insert(struct bt_buf *b, u32 at, uintptr_t key, void *ptr)
{
	u32 i;

	for (i = b->n; i > at; i--)
		b->e[i] = b->e[i - 1];
	b->e[at].key = key;
	b->e[at].ptr = ptr;
	b->n++;
}

static void buf_delete(struct bt_buf *b, u32 at)
{
	u32 i;

	for (i = at; i + 1 < b->n; i++)
		b->e[i] = b->e[i + 1];
	b->n--;
}

/* A new node holding @n entries of @e, tagged as a leaf or not. */
static void *node_make(struct dp_index *ix, const struct bt_ent *e, u32 n,
		       bool leaf)
{
	struct dp_bt_node *node = dp_index_node_take(ix);
	u32 i;

	for (i = 0; i < BT_SLOTS; i++) {
		node->key[i] = i < n ? e[i].key : BT_NONE;
		node->slot[i] = i < n ? e[i].ptr : NULL;
	}
	return (void *)((uintptr_t)node | (leaf ? BT_LEAF : 0));
}

/*
 * Turn @b into one node, or two when it overflows, as entries of their
 * parent in @out (the smallest key below each, and the node).
 */
static u32 build(struct dp_index *ix, const struct bt_buf *b, bool leaf,
		 struct bt_ent out[2])
{
	u32 half;

	if (b->n <= BT_SLOTS) {
		out[0].key = b->e[0].key;
		out[0].ptr = node_make(ix, b->e, b->n, leaf);
		return 1;
	}
	half = b->n / 2;
	out[0].key = b->e[0].key;
	out[0].ptr = node_make(ix, b->e, half, leaf);
	out[1].key = b->e[half].key;
	out[1].ptr = node_make(ix, b->e + half, b->n - half, leaf);
	return 2;
}

/*
 * Root to leaf: the nodes (tagged) and the entry taken in each, and how
 * many levels, from the leaf up, a remove folded a sibling into.  All of
 * them are retired only once the new root is published: until then readers
 * can reach them.  The siblings are not kept: the old parents still name
 * them (old nodes never change), which keeps this off the stack.
 */
struct bt_path {
	u32 depth, nsib;
	void *node[BT_MAX_HEIGHT];
	u8 idx[BT_MAX_HEIGHT];
};

static void walk(const struct dp_btree *t, uintptr_t key, struct bt_path *p)
{
	void *cur = t->root;

	p->depth = 0;
	p->nsib = 0;
	for (;;) {
		int i = node_search(untag(cur), key);

		if (i < 0)
			i = 0;		/* below every key: the first child */
		p->node[p->depth] = cur;
		p->idx[p->depth] = (u8)i;
		p->depth++;
		if (is_leaf(cur) || DP_WARN_ON(p->depth == BT_MAX_HEIGHT))
			return;
		cur = untag(cur)->slot[i];
	}
}

/*
 * Replace the old nodes of @p from level @level up with what @b becomes,
 * then publish the new root.  @b holds the new entries of the node at
 * @level; once built into nodes it is refilled with the parent's entries.
 */
static void rebuild_up(struct dp_index *ix, struct bt_path *p, u32 level,
		       struct bt_buf *b)
{
	struct dp_btree *t = &ix->u.btree;
	struct bt_ent out[2];
	u32 n;

	for (;;) {
		n = build(ix, b, level == p->depth - 1, out);
		if (!level)
			break;
		level--;
		b->n = 0;
		buf_load(b, untag(p->node[level]));
		b->e[p->idx[level]] = out[0];
		if (n == 2)
			buf_insert(b, p->idx[level] + 1u, out[1].key, out[1].ptr);
	}
	if (n == 2) {
		/* The root split: a new root above the two halves. */
		out[0].ptr = node_make(ix, out, 2, false);
		t->height++;
	}
	DP_RCU_ASSIGN(t->root, out[0].ptr);
}

/* The sibling a remove merges the node at @level (> 0) of @p with. */
static void *sibling(const struct bt_path *p, u32 level)
{
	u32 pi = p->idx[level - 1];

	return untag(p->node[level - 1])->slot[pi ? pi - 1 : pi + 1];
}

static void retire_path(struct dp_index *ix, const struct bt_path *p)
{
	u32 i;

	for (i = 0; i < p->nsib; i++)
		retire(ix, sibling(p, p->depth - 1 - i));
	for (i = 0; i < p->depth; i++)
		retire(ix, p->node[i]);
}

static void bt_insert(struct dp_index *ix, uintptr_t start, size_t len,
		      struct dp_chunk *c)
{
	struct dp_btree *t = &ix->u.btree;
	struct bt_buf b = { 0 };
	struct bt_path p;
	u32 at;

	if (DP_WARN_ON(!len || (t->len && len != t->len) ||
		       start > BT_NONE - len))
		return;
	if (!t->root) {
		struct bt_ent e = { start, c };

		DP_WRITE_ONCE(t->len, len);
		t->height = 1;
		DP_RCU_ASSIGN(t->root, node_make(ix, &e, 1, true));
		return;
	}
	walk(t, start, &p);
	buf_load(&b, untag(p.node[p.depth - 1]));
	for (at = 0; at < b.n && b.e[at].key < start; at++)
		;
	if (DP_WARN_ON(at < b.n && b.e[at].key == start))
		return;
	buf_insert(&b, at, start, c);
	rebuild_up(ix, &p, p.depth - 1, &b);
	retire_path(ix, &p);
}

/*
 * The node at @level of @p would hold the @b entries, too few: take in a
 * sibling's.  The parent's entries then lose one (merge) or keep both
 * (rebalance); returns the parent's new entries in @b.  Kept out of
 * bt_remove so that its locals do not add to bt_remove's frame.
 */
static DP_NOINLINE DP_COLD void fix_underflow(struct dp_index *ix,
					      struct bt_path *p, u32 level,
					      struct bt_buf *b)
{
	const struct dp_bt_node *parent = untag(p->node[level - 1]);
	u32 pi = p->idx[level - 1];
	u32 si = pi ? pi - 1 : pi + 1, first = pi < si ? pi : si;
	bool leaf = level == p->depth - 1;
	void *sib = sibling(p, level);
	struct bt_ent out[2];
	u32 n;

	/* Fewer than BT_MIN entries and a sibling's: within BT_BUF_MAX. */
	if (si < pi)
		buf_load_front(b, untag(sib));
	else
		buf_load(b, untag(sib));
	n = build(ix, b, leaf, out);
	/* Levels are fixed from the leaf up, one after the other. */
	p->nsib++;

	b->n = 0;
	buf_load(b, parent);
	buf_delete(b, first);
	b->e[first] = out[0];
	if (n == 2)
		buf_insert(b, first + 1, out[1].key, out[1].ptr);
}

static void bt_remove(struct dp_index *ix, uintptr_t start, size_t len)
{
	struct dp_btree *t = &ix->u.btree;
	struct bt_buf b = { 0 };
	struct bt_path p;
	u32 level, at;

	if (!t->root)
		return;
	walk(t, start, &p);
	buf_load(&b, untag(p.node[p.depth - 1]));
	for (at = 0; at < b.n && b.e[at].key != start; at++)
		;
	if (DP_WARN_ON(at == b.n))
		return;
	buf_delete(&b, at);

	/* Bottom up, while nodes underflow, fold in a sibling. */
	level = p.depth - 1;
	while (level && b.n < BT_MIN) {
		fix_underflow(ix, &p, level, &b);
		level--;
	}
	if (level) {
		rebuild_up(ix, &p, level, &b);
	} else if (!b.n) {
		DP_RCU_ASSIGN(t->root, NULL);
		t->height = 0;
	} else if (b.n == 1 && p.depth > 1) {
		/* A root with one child: the child is the root now. */
		DP_RCU_ASSIGN(t->root, b.e[0].ptr);
		t->height--;
	} else {
		rebuild_up(ix, &p, 0, &b);
	}
	retire_path(ix, &p);
}

/*
 * Unmap a range in place, with no node: the leaf entry keeps its key and
 * points at nothing (one store, which a reader sees before or after), so a
 * free that empties a chunk can release it without allocating.  The entry
 * is removed for real (bt_remove) before a range with that start is added
 * again; until then it only costs a slot.
 */
static void bt_clear(struct dp_index *ix, uintptr_t start, size_t len)
{
	struct dp_btree *t = &ix->u.btree;
	struct dp_bt_node *leaf;
	struct bt_path p;
	u32 i;

	if (!t->root)
		return;
	walk(t, start, &p);
	leaf = untag(p.node[p.depth - 1]);
	for (i = 0; i < BT_SLOTS && leaf->key[i] != BT_NONE; i++)
		if (leaf->key[i] == start) {
			DP_WRITE_ONCE(leaf->slot[i], NULL);
			return;
		}
	DP_WARN_ON(1);
}

static void destroy_node(struct dp_index *ix, void *tagged)
{
	struct dp_bt_node *n = untag(tagged);
	u32 i, cnt = node_count(n);

	if (!is_leaf(tagged))
		for (i = 0; i < cnt; i++)
			destroy_node(ix, n->slot[i]);
	dp_index_node_free(ix, n);
}

/* No reader is left: free at once. */
static void bt_destroy(struct dp_index *ix)
{
	struct dp_btree *t = &ix->u.btree;

	if (t->root)
		destroy_node(ix, t->root);
	t->root = NULL;
	t->height = 0;
}

/* ------------------------------------------------------------------ */
/* Self-check, for the unit suite.                                    */

static bool check_node(const struct dp_btree *t, const void *tagged,
		       u32 depth, bool is_root, uintptr_t lo, uintptr_t hi,
		       size_t *entries, const char **why)
{
	const struct dp_bt_node *n = untag(tagged);
	u32 i, cnt = node_count(n);

	for (i = cnt; i < BT_SLOTS; i++)
		if (n->key[i] != BT_NONE || n->slot[i]) {
			*why = "unused entry not cleared";
			return false;
		}
	if (!cnt || (!is_root && cnt < BT_MIN)) {
		*why = "node under minimum fill";
		return false;
	}
	if (is_root && !is_leaf(tagged) && cnt < 2) {
		*why = "inner root with one child";
		return false;
	}
	for (i = 0; i < cnt; i++) {
		if (n->key[i] < lo || n->key[i] >= hi ||
		    (i && n->key[i] <= n->key[i - 1])) {
			*why = "keys out of order";
			return false;
		}
		if (!n->slot[i]) {
			*why = "empty slot in use";
			return false;
		}
	}
	if (is_leaf(tagged)) {
		if (depth != t->height) {
			*why = "leaves at different depths";
			return false;
		}
		for (i = 0; i + 1 < cnt; i++)
			if (n->key[i + 1] - n->key[i] < t->len) {
				*why = "ranges overlap";
				return false;
			}
		*entries += cnt;
		return true;
	}
	for (i = 0; i < cnt; i++) {
		const struct dp_bt_node *child = untag(n->slot[i]);

		if (child->key[0] != n->key[i]) {
			*why = "inner key is not its child's smallest";
			return false;
		}
		if (!check_node(t, n->slot[i], depth + 1, false, n->key[i],
				i + 1 < cnt ? n->key[i + 1] : hi, entries, why))
			return false;
	}
	return true;
}

bool dp_btree_check(const struct dp_index *ix, size_t *entries,
		    u32 *height, const char **why);

bool dp_btree_check(const struct dp_index *ix, size_t *entries,
		    u32 *height, const char **why)
{
	const struct dp_btree *t = &ix->u.btree;

	*entries = 0;
	*height = t->height;
	*why = NULL;
	if (!t->root) {
		if (t->height)
			*why = "empty tree with a height";
		return !t->height;
	}
	return check_node(t, t->root, 1, true, 0, BT_NONE, entries, why);
}

const struct dp_index_ops dp_btree_ops = {
	.name = "btree",
	.node_size = BT_NODE_BYTES,
	.nodes_needed = bt_nodes_needed,
	.remove_nodes_needed = bt_remove_nodes_needed,
	.insert = bt_insert,
	.remove = bt_remove,
	.clear = bt_clear,
	.clear_keeps_entry = true,
	.lookup = bt_lookup,
	.destroy = bt_destroy,
};
