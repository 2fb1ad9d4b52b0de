// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The xarray-like radix tree (see xarray.h): stores and teardown.
 */
#include <errno.h>

#include "xarray.h"

static void *mk_node(struct bxa_node *n)
{
	return (void *)((uintptr_t)n | 2);
}

void bxa_init(struct bxa *xa)
{
	dp_lock_init(&xa->lock);
	xa->head = NULL;
	xa->nodes = 0;
}

static struct bxa_node *node_new(struct bxa *xa, unsigned int shift,
				 struct bxa_node *parent, unsigned int offset)
{
	struct bxa_node *n = dp_os_host_zalloc(sizeof(*n), 0);

	if (!n)
		return NULL;
	n->shift = (unsigned char)shift;
	n->parent = parent;
	n->offset = (unsigned char)offset;
	n->array = xa;
	xa->nodes++;
	return n;
}

/* The lowest top-node shift whose node can hold @index. */
static unsigned int shift_for(unsigned long index)
{
	unsigned int shift = 0;

	while ((index >> shift) > BXA_MASK)
		shift += BXA_SHIFT;
	return shift;
}

/* Grow the tree upward until its top node covers @index. */
static int expand(struct bxa *xa, unsigned long index)
{
	void *head = xa->head;
	struct bxa_node *top, *up;

	if (!head) {
		top = node_new(xa, shift_for(index), NULL, 0);
		if (!top)
			return -ENOMEM;
		__atomic_store_n(&xa->head, mk_node(top), __ATOMIC_RELEASE);
		return 0;
	}
	if (!bxa_is_node(head)) {
		/* A lone entry at index 0 moves into slot 0 of a node. */
		top = node_new(xa, 0, NULL, 0);
		if (!top)
			return -ENOMEM;
		top->slots[0] = head;
		top->count = 1;
		__atomic_store_n(&xa->head, mk_node(top), __ATOMIC_RELEASE);
	}
	top = bxa_to_node(xa->head);
	while ((index >> top->shift) > BXA_MASK) {
		up = node_new(xa, top->shift + BXA_SHIFT, NULL, 0);
		if (!up)
			return -ENOMEM;
		up->slots[0] = mk_node(top);
		up->count = 1;
		top->parent = up;
		top->offset = 0;
		__atomic_store_n(&xa->head, mk_node(up), __ATOMIC_RELEASE);
		top = up;
	}
	return 0;
}

int bxa_store(struct bxa *xa, unsigned long index, void *entry)
{
	struct bxa_node *node, *child;
	unsigned long flags;
	unsigned int off;
	int ret = 0;

	flags = dp_lock(&xa->lock);
	if (!xa->head && !index) {
		__atomic_store_n(&xa->head, entry, __ATOMIC_RELEASE);
		goto out;
	}
	ret = expand(xa, index);
	if (ret)
		goto out;
	node = bxa_to_node(xa->head);
	for (;;) {
		off = (index >> node->shift) & BXA_MASK;
		if (!node->shift) {
			if (!node->slots[off])
				node->count++;
			__atomic_store_n(&node->slots[off], entry,
					 __ATOMIC_RELEASE);
			break;
		}
		if (!node->slots[off]) {
			child = node_new(xa, node->shift - BXA_SHIFT, node, off);
			if (!child) {
				ret = -ENOMEM;
				break;
			}
			node->count++;
			__atomic_store_n(&node->slots[off], mk_node(child),
					 __ATOMIC_RELEASE);
		}
		node = bxa_to_node(node->slots[off]);
	}
out:
	dp_unlock(&xa->lock, flags);
	return ret;
}

static void free_tree(struct bxa *xa, struct bxa_node *n)
{
	unsigned int i;

	if (n->shift)
		for (i = 0; i < BXA_SLOTS; i++)
			if (bxa_is_node(n->slots[i]))
				free_tree(xa, bxa_to_node(n->slots[i]));
	dp_os_host_free(n, sizeof(*n));
	xa->nodes--;
}

void bxa_destroy(struct bxa *xa)
{
	if (bxa_is_node(xa->head))
		free_tree(xa, bxa_to_node(xa->head));
	xa->head = NULL;
}
