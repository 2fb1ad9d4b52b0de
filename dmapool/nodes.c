// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The radix and B-tree indexes' nodes: the spare-node protocol that keeps
 * host allocation out of the pool lock (see index.h).  Its own file so
 * that the kinds (radix.c, btree.c) and the choice among them (index.c)
 * call down into it, not into each other.
 */
#include "index.h"

void *dp_index_node_take(struct dp_index *ix)
{
	void **node = ix->spare;

	if (DP_WARN_ON(!node))
		return NULL;
	ix->spare = *node;
	ix->nspare--;
	ix->nodes++;
	dp_os_memset(node, 0, ix->ops->node_size);
	return node;
}

void dp_index_node_free(struct dp_index *ix, void *node)
{
	ix->nodes--;
	dp_os_host_free(node, ix->ops->node_size);
}

void dp_index_node_retire(struct dp_index *ix, struct dp_rcu_head *head,
			  void (*fn)(struct dp_rcu_head *head))
{
	ix->nodes--;
	ix->retired++;
	dp_call_rcu(head, fn);
}

void dp_index_add_spares(struct dp_index *ix, void *list, u32 n)
{
	void **last = list;

	if (!list)
		return;
	while (*last)
		last = *last;
	*last = ix->spare;
	ix->spare = list;
	ix->nspare += n;
}

void *dp_index_steal_spares(struct dp_index *ix)
{
	void *list = ix->spare;

	ix->spare = NULL;
	ix->nspare = 0;
	return list;
}

void *dp_index_alloc_nodes(const struct dp_index *ix, u32 n,
			   dmapool_gfp_t gfp)
{
	void **list = NULL;

	while (n--) {
		void **node = dp_os_host_alloc(ix->ops->node_size, gfp);

		if (!node) {
			dp_index_free_nodes(ix, list);
			return NULL;
		}
		*node = list;
		list = node;
	}
	return list;
}

void dp_index_free_nodes(const struct dp_index *ix, void *list)
{
	while (list) {
		void *next = *(void **)list;

		dp_os_host_free(list, ix->ops->node_size);
		list = next;
	}
}
