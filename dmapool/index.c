// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Index plumbing shared by every kind: choosing the ops and the spare-node
 * protocol that keeps allocation out of the pool lock (see index.h).
 */
#include "index.h"

int dp_index_init(struct dp_index *ix, enum dmapool_index_kind kind,
		  u32 grain_shift)
{
	dp_os_memset(ix, 0, sizeof(*ix));
	ix->grain_shift = grain_shift;
	ix->hash.b = dp_hash_empty.b;
	ix->hash.gmask = ~(((uintptr_t)1 << grain_shift) - 1);
	ix->hash.mult = DP_HASH_MULT;
	switch (kind) {
	case DMAPOOL_INDEX_HASH:
		ix->ops = &dp_hash_ops;
		return 0;
	case DMAPOOL_INDEX_RADIX:
		ix->ops = &dp_radix_ops;
		ix->radix = true;
		return 0;
#if DP_HAVE_BTREE	/* else refused at create (pool.c) */
	case DMAPOOL_INDEX_BTREE:
		ix->ops = &dp_btree_ops;
		return 0;
#endif
	default:
		return -1;
	}
}

void dp_index_fini(struct dp_index *ix)
{
	if (ix->ops)
		ix->ops->destroy(ix);
	dp_index_free_nodes(ix, dp_index_steal_spares(ix));
}

size_t dp_index_meta_bytes(const struct dp_index *ix)
{
	return (ix->nodes + ix->nspare) * ix->ops->node_size + ix->table_bytes;
}

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
