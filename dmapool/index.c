// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Index plumbing shared by every kind: choosing the ops (the spare-node
 * protocol every kind uses is in nodes.c; see index.h).
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
