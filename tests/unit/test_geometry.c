// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Geometry: every block where the kernel's dma_pool would put it, aligned
 * in both address spaces, never across a boundary, never overlapping.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "testlib.h"

#define PAGE 4096u

static const size_t sizes[] = {
	1, 2, 3, 7, 8, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 68, 96,
	100, 127, 128, 200, 255, 256, 257, 500, 512, 777, 1000, 1023, 1024,
	1025, 1500, 2000, 2047, 2048, 2049, 3000, 4000, 4095, 4096, 5000,
	8192, 12345,
};
static const size_t aligns[] = { 0, 1, 8, 16, 32, 64, 256, 4096 };
static const size_t boundaries[] = { 0, 16, 64, 128, 256, 1024, 4096, 8192,
				     65536 };

static size_t round_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

/*
 * The kernel's layout of one allocation, stated independently: blocks are
 * packed from offset 0; a block that would cross the next boundary moves to
 * that boundary instead.  Marks block starts in @start (allocation bytes).
 */
static size_t ref_layout(size_t size, size_t allocation, size_t boundary,
			 unsigned char *start)
{
	size_t off = 0, next = boundary, n = 0;

	while (off + size <= allocation) {
		if (off + size > next) {
			off = next;
			next += boundary;
			continue;
		}
		start[off] = 1;
		n++;
		off += size;
	}
	return n;
}

static bool kernel_accepts(size_t size, size_t align, size_t boundary)
{
	if (align && (align & (align - 1)))
		return false;
	if (boundary && (boundary < round_up(size, align ? align : 1) ||
			 (boundary & (boundary - 1))))
		return false;
	return true;
}

/* Returns false when a redzone made the pool refuse the geometry. */
static bool check_case(struct dmapool_dev *dev, size_t size, size_t align,
		       size_t boundary, unsigned int redzone)
{
	size_t a = align ? align : 1, rsize = round_up(size, a);
	size_t allocation = rsize > PAGE ? rsize : PAGE;
	size_t b = boundary ? (boundary < allocation ? boundary : allocation) :
		   allocation;
	size_t unit = 1;	/* dma_alloc_coherent's power-of-two order */
	struct dmapool_stats st;
	struct tl_chunk ch[4];
	unsigned char *ref = NULL;
	size_t ref_n = 0, nch, i, j, want;
	struct dmapool *pool;
	void **v;
	dmapool_dma_t *d;

	pool = tl_pool(dev, size, align, boundary);
	if (redzone && !pool) {
		/* A redzone may not fit a tight boundary: only then. */
		cr_assert(boundary &&
			  round_up(rsize + redzone, a) > boundary,
			  "size %zu align %zu boundary %zu redzone %u refused",
			  size, align, boundary, redzone);
		return false;
	}
	cr_assert_not_null(pool, "size %zu align %zu boundary %zu", size,
			   align, boundary);
	dmapool_get_stats(pool, &st);
	cr_assert_geq(st.block_size, size);
	cr_assert_eq(st.block_size % a, 0);
	while (unit < allocation)
		unit <<= 1;
	if (!redzone) {
		ref = calloc(unit, 1);
		ref_n = ref_layout(rsize, allocation, b, ref);
		cr_assert_eq(st.block_size, rsize);
		cr_assert_eq(st.chunk_size % unit, 0);
		cr_assert_eq(st.blocks_per_chunk,
			     ref_n * (st.chunk_size / unit),
			     "size %zu align %zu boundary %zu: %llu blocks, kernel has %zu per %zu bytes",
			     size, align, boundary,
			     (unsigned long long)st.blocks_per_chunk, ref_n,
			     allocation);
	}

	/* Two chunks' worth, then check every block. */
	want = 2 * st.blocks_per_chunk;
	v = calloc(want, sizeof(*v));
	d = calloc(want, sizeof(*d));
	for (i = 0; i < want; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		cr_assert_not_null(v[i]);
	}
	nch = tl_chunks(pool, ch, 4);
	cr_assert_eq(nch, 2);
	for (i = 0; i < want; i++) {
		uintptr_t va = (uintptr_t)v[i];
		size_t off = 0;

		for (j = 0; j < nch; j++)
			if (va >= (uintptr_t)ch[j].vaddr &&
			    va < (uintptr_t)ch[j].vaddr + ch[j].len)
				break;
		cr_assert_lt(j, nch, "block outside every chunk");
		off = va - (uintptr_t)ch[j].vaddr;
		cr_assert_leq(off + st.block_size, ch[j].len);
		cr_assert_eq(d[i], ch[j].dma + off, "vaddr/dma do not correspond");
		cr_assert_eq(va % a, 0, "vaddr misaligned");
		cr_assert_eq(d[i] % a, 0, "dma misaligned");
		if (boundary)
			cr_assert_eq(d[i] / boundary,
				     (d[i] + st.block_size - 1) / boundary,
				     "size %zu align %zu boundary %zu: block at dma %#llx crosses the boundary",
				     size, align, boundary,
				     (unsigned long long)d[i]);
		/* Never across a page unless larger than one (the kernel's
		 * implicit boundary). */
		if (st.block_size <= PAGE)
			cr_assert_eq(d[i] / PAGE,
				     (d[i] + st.block_size - 1) / PAGE);
		if (ref)
			cr_assert(ref[off % unit],
				  "offset %zu is not where the kernel puts a block",
				  off);
	}
	/* Distinct and non-overlapping: sort by address and compare. */
	for (i = 1; i < want; i++) {
		void *x = v[i];

		for (j = i; j > 0 && (uintptr_t)v[j - 1] > (uintptr_t)x; j--)
			v[j] = v[j - 1];
		v[j] = x;
		if (i > 4096)
			break;	/* insertion sort: bounded work */
	}
	/* ...with the redzone between them. */
	for (i = 1; i < want && i <= 4096; i++)
		cr_assert_geq((uintptr_t)v[i] - (uintptr_t)v[i - 1],
			      st.block_size + redzone, "blocks overlap");
	dmapool_destroy(pool);
	free(v);
	free(d);
	free(ref);
	return true;
}

Test(geometry, matches_kernel_layout_and_rules)
{
	struct dmapool_dev *dev = tl_heap();
	const char *rz = getenv("DMAPOOL_TEST_REDZONE");
	unsigned int redzone = rz ? (unsigned int)atoi(rz) : 0;
	size_t i, j, k, cases = 0, refused = 0;
	uint64_t global0 = dmapool_global_violations();

	tl_reset();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (j = 0; j < sizeof(aligns) / sizeof(aligns[0]); j++)
			for (k = 0; k < sizeof(boundaries) / sizeof(boundaries[0]); k++) {
				if (!kernel_accepts(sizes[i], aligns[j],
						    boundaries[k]))
					continue;
				if (!check_case(dev, sizes[i], aligns[j],
						boundaries[k], redzone))
					refused++;
				cases++;
			}
	cr_assert_gt(cases, 500);
	cr_assert_lt(refused, cases / 4);
	/* bad-geometry reports have no pool: they count globally. */
	cr_assert_eq(dmapool_global_violations() - global0, refused);
	dmapool_dev_put(dev);
}

Test(geometry, rejects_what_the_kernel_rejects)
{
	struct dmapool_dev *dev = tl_heap();
	size_t i, j, k;

	tl_reset();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (j = 0; j < 3; j++)
			for (k = 0; k < 4; k++) {
				static const size_t bad_align[] = { 3, 24, 100 };
				static const size_t bad_boundary[] = { 3, 48, 1000, 6000 };
				struct dmapool *p;

				p = tl_pool(dev, sizes[i], bad_align[j], 0);
				cr_assert_null(p);
				p = tl_pool(dev, sizes[i], 0, bad_boundary[k]);
				cr_assert_null(p);
			}
	/* Boundary smaller than the (rounded) size. */
	cr_assert_null(tl_pool(dev, 100, 0, 64));
	cr_assert_null(tl_pool(dev, 60, 64, 32));
	cr_assert_null(tl_pool(dev, 0, 0, 0));
	cr_assert_null(dmapool_create("x", NULL, 64, 64, 0));
	cr_assert_eq(tl_cap.n, sizeof(sizes) / sizeof(sizes[0]) * 3 * 4 * 2 + 4);
	cr_assert_eq(tl_count(DMAPOOL_R_BAD_GEOMETRY), TL_MAX_REPORTS);
	dmapool_dev_put(dev);
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
