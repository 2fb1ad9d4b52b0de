/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * zalloc: every byte of the block is zero, whatever was in it before.
 */
#ifndef DMAPOOL_TC_ZALLOC_H
#define DMAPOOL_TC_ZALLOC_H

#include "tc.h"

static const size_t tc_zalloc_sizes[] = { 1, 16, 24, 64, 68, 200, 256, 1000,
					  1024, 3000, 4096, 6000 };

#define TC_ZALLOC_BLOCKS	64

static inline bool tc_zalloc_case(struct tc_env *e, size_t size)
{
	struct dmapool_stats st;
	struct dmapool *pool;
	dmapool_dma_t *d;
	void **v;
	size_t k, j;

	pool = tc_pool(e, size, 0, 0);
	TC_CHECK(e, pool, "size %zu refused", size);
	dmapool_get_stats(pool, &st);
	v = tc_zalloc(TC_ZALLOC_BLOCKS * sizeof(*v));
	d = tc_zalloc(TC_ZALLOC_BLOCKS * sizeof(*d));
	TC_CHECK(e, v && d, "out of memory");
	/* Dirty blocks, free them, zalloc them back. */
	for (k = 0; k < TC_ZALLOC_BLOCKS; k++) {
		v[k] = dmapool_alloc(pool, 0, &d[k]);
		TC_CHECK(e, v[k], "alloc failed");
		memset(v[k], 0xa5, st.block_size);
	}
	for (k = 0; k < TC_ZALLOC_BLOCKS; k++)
		dmapool_free(pool, v[k], d[k]);
	for (k = 0; k < TC_ZALLOC_BLOCKS; k++) {
		unsigned char *p = dmapool_zalloc(pool, 0, &d[k]);

		TC_CHECK(e, p, "zalloc failed");
		for (j = 0; j < st.block_size; j++)
			TC_CHECK(e, p[j] == 0, "size %zu byte %zu is %#x", size,
				 j, p[j]);
		v[k] = p;
	}
	for (k = 0; k < TC_ZALLOC_BLOCKS; k++)
		dmapool_free(pool, v[k], d[k]);
	dmapool_destroy(pool);
	tc_free(v);
	tc_free(d);
	return true;
}

/* One size, and nothing reported from correct use. */
static inline bool tc_zalloc_one(struct tc_env *e, size_t size)
{
	tc_begin(e);
	if (!tc_zalloc_case(e, size))
		return false;
	TC_CHECK(e, e->cap.n == 0, "size %zu: %u reports from correct use",
		 size, e->cap.n);
	tc_end(e);
	return true;
}

static inline bool tc_zalloc_all(struct tc_env *e)
{
	size_t i;

	for (i = 0; i < TC_ARRAY_SIZE(tc_zalloc_sizes); i++)
		if (!tc_zalloc_one(e, tc_zalloc_sizes[i]))
			return false;
	return true;
}

#endif /* DMAPOOL_TC_ZALLOC_H */
