// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Geometry: every block where the kernel's dma_pool would put it, aligned
 * in both address spaces, never across a boundary, never overlapping.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "testlib.h"
#include "cases/geometry.h"

#define PAGE 4096u

/* The matrix and the rejections are shared with the in-kernel tests. */
Test(geometry, matches_kernel_layout_and_rules)
{
	struct tc_env *e = tl_env();
	size_t cases;

	cr_assert(tc_geometry_matrix(e, &cases), "%s", e->msg);
	cr_assert_gt(cases, 500);
	tl_env_put(e);
}

Test(geometry, rejects_what_the_kernel_rejects)
{
	struct tc_env *e = tl_env();

	cr_assert(tc_geometry_rejects(e), "%s", e->msg);
	tl_env_put(e);
}

Test(geometry, tiny_blocks_are_allowed)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool *pool;
	struct dmapool_stats st;
	dmapool_dma_t d;
	void *v;

	tl_reset();
	pool = tl_pool(dev, 1, 1, 0);
	cr_assert_not_null(pool);
	dmapool_get_stats(pool, &st);
	cr_assert_leq(st.block_size, 2);
	v = dmapool_alloc(pool, 0, &d);
	cr_assert_not_null(v);
	dmapool_free(pool, v, d);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(geometry, chunk_size_option_keeps_kernel_layout)
{
	struct dmapool_dev *dev = tl_heap();
	struct dmapool_opts o;
	struct dmapool_stats st;
	struct dmapool *pool;

	tl_reset();
	dmapool_opts_init(&o);
	o.chunk_size = 10000;	/* rounded up to whole pages */
	pool = tl_pool_opts(dev, 68, 32, 4096, &o);
	cr_assert_not_null(pool);
	dmapool_get_stats(pool, &st);
	if (!getenv("DMAPOOL_TEST_REDZONE")) {
		cr_assert_eq(st.chunk_size, 3 * PAGE);
		cr_assert_eq(st.blocks_per_chunk, 3 * 42);
	}
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}
