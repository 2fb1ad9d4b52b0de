/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The workload of the kernel's own dma_pool benchmark (mm/dmapool_test.c,
 * Linux 6.3+), restated: for each geometry below, allocate
 * clamp((PAGE_SIZE / size) * 512, 1024, 8192) blocks, then free them all, in
 * order; 100 rounds.  The geometries and the formula are the benchmark's
 * parameters, so numbers compare with what it prints.
 */
#ifndef DMAPOOL_TC_WORKLOAD_H
#define DMAPOOL_TC_WORKLOAD_H

#include "tc.h"

struct tc_workload {
	size_t size, align, boundary;
};

static const struct tc_workload tc_workloads[] = {
	{ 16, 16, 0 },
	{ 64, 64, 0 },
	{ 256, 256, 0 },
	{ 1024, 1024, 0 },
	{ 4096, 4096, 0 },
	{ 68, 32, 4096 },
};

#define TC_WORKLOAD_ROUNDS	100

static inline unsigned int tc_workload_blocks(size_t size)
{
	size_t n = TC_PAGE_SIZE / size * 512;

	if (n < 1024)
		n = 1024;
	if (n > 8192)
		n = 8192;
	return (unsigned int)n;
}

/*
 * One round of the workload on a fresh pool, checked rather than timed:
 * every block comes back aligned (address and dma) and inside one boundary
 * segment, no block is handed out twice (each is filled with its own byte,
 * checked at free), the counts add up, nothing is reported.
 */
static inline bool tc_workload_run(struct tc_env *e,
				   const struct tc_workload *w)
{
	unsigned int n = tc_workload_blocks(w->size), i;
	size_t align = w->align ? w->align : 1;
	struct dmapool_stats st;
	struct dmapool *pool;
	dmapool_dma_t *d;
	uint8_t **v;
	size_t j;

	tc_begin(e);
	pool = tc_pool(e, w->size, w->align, w->boundary);
	TC_CHECK(e, pool, "%zu/%zu/%zu refused", w->size, w->align,
		 w->boundary);
	v = tc_zalloc(n * sizeof(*v));
	d = tc_zalloc(n * sizeof(*d));
	TC_CHECK(e, v && d, "out of memory");
	for (i = 0; i < n; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		TC_CHECK(e, v[i], "block %u of %u: alloc failed", i, n);
		TC_CHECK(e, (uintptr_t)v[i] % align == 0 && d[i] % align == 0,
			 "block %u misaligned", i);
		TC_CHECK(e, !w->boundary ||
			    d[i] / w->boundary ==
			    (d[i] + w->size - 1) / w->boundary,
			 "block %u crosses a %zu boundary", i, w->boundary);
		memset(v[i], (int)(i * 37 + 11) & 0xff, w->size);
	}
	dmapool_get_stats(pool, &st);
	TC_CHECK(e, st.blocks_in_use == n, "%llu blocks in use, want %u",
		 (unsigned long long)st.blocks_in_use, n);
	for (i = 0; i < n; i++) {
		for (j = 0; j < w->size; j++)
			TC_CHECK(e, v[i][j] == ((i * 37 + 11) & 0xff),
				 "block %u byte %zu overwritten", i, j);
		dmapool_free(pool, v[i], d[i]);
	}
	dmapool_get_stats(pool, &st);
	TC_CHECK(e, st.blocks_in_use == 0, "%llu blocks left in use",
		 (unsigned long long)st.blocks_in_use);
	TC_CHECK(e, e->cap.n == 0, "%u reports from correct use", e->cap.n);
	dmapool_destroy(pool);
	tc_free(v);
	tc_free(d);
	tc_end(e);
	return true;
}

#endif /* DMAPOOL_TC_WORKLOAD_H */
