/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Geometry cases: every block where the kernel's dma_pool would put it,
 * aligned in both address spaces, never across a boundary, never across a
 * page unless larger than one, never overlapping; and the geometry the
 * kernel refuses is refused.
 *
 * The kernel's layout is restated here independently of dmapool/geometry.c
 * (tc_ref_layout), as the kernel's pool_initialise_page() defines it.
 */
#ifndef DMAPOOL_TC_GEOMETRY_H
#define DMAPOOL_TC_GEOMETRY_H

#include "tc.h"

static const size_t tc_geo_sizes[] = {
	1, 2, 3, 7, 8, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 68, 96,
	100, 127, 128, 200, 255, 256, 257, 500, 512, 777, 1000, 1023, 1024,
	1025, 1500, 2000, 2047, 2048, 2049, 3000, 4000, 4095, 4096, 5000,
	8192, 12345,
};
static const size_t tc_geo_aligns[] = { 0, 1, 8, 16, 32, 64, 256, 4096 };
static const size_t tc_geo_boundaries[] = { 0, 16, 64, 128, 256, 1024, 4096,
					    8192, 65536 };
static const size_t tc_geo_bad_aligns[] = { 3, 24, 100 };
static const size_t tc_geo_bad_boundaries[] = { 3, 48, 1000, 6000 };

static inline size_t tc_round_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

/*
 * The kernel's layout of one allocation: blocks packed from offset 0; a
 * block that would cross the next boundary moves to that boundary instead.
 * Marks block starts in @start (@allocation bytes); returns the count.
 */
static inline size_t tc_ref_layout(size_t size, size_t allocation,
				   size_t boundary, unsigned char *start)
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

/*
 * What dma_pool_create() accepts (sizes below 16 aside: dmapool has no
 * in-block header, so it takes them as they are).
 */
static inline bool tc_kernel_accepts(size_t size, size_t align,
				     size_t boundary)
{
	if (align && (align & (align - 1)))
		return false;
	if (boundary && (boundary < tc_round_up(size, align ? align : 1) ||
			 (boundary & (boundary - 1))))
		return false;
	return true;
}

/*
 * One geometry: make a pool, take two chunks' worth of blocks, check every
 * one.  With a redzone in this run's options the kernel's layout no longer
 * applies (blocks are further apart, the redzone between them), the other
 * rules still do; a pool may refuse the geometry then (*refused), but only
 * when block plus redzone does not fit the explicit boundary.
 */
static inline bool tc_geometry_case(struct tc_env *e, size_t size,
				    size_t align, size_t boundary,
				    bool *refused)
{
	const size_t page = TC_PAGE_SIZE;
	size_t a = align ? align : 1, rsize = tc_round_up(size, a);
	size_t allocation = rsize > page ? rsize : page;
	size_t b = boundary ? (boundary < allocation ? boundary : allocation) :
		   allocation;
	size_t unit = 1;	/* dma_alloc_coherent's power-of-two order */
	struct dmapool_opts o;
	struct dmapool_stats st;
	struct tc_chunk ch[4];
	unsigned char *ref = NULL;
	size_t ref_n = 0, nch, i, j, want;
	struct dmapool *pool;
	void **v;
	dmapool_dma_t *d;

	*refused = false;
	tc_opts(e, &o);
	pool = tc_pool(e, size, align, boundary);
	if (o.redzone && !pool) {
		TC_CHECK(e, boundary &&
			    tc_round_up(rsize + o.redzone, a) > boundary,
			 "size %zu align %zu boundary %zu redzone %u refused",
			 size, align, boundary, o.redzone);
		*refused = true;
		return true;
	}
	TC_CHECK(e, pool, "size %zu align %zu boundary %zu refused", size,
		 align, boundary);
	dmapool_get_stats(pool, &st);
	TC_CHECK(e, st.block_size >= size && st.block_size % a == 0,
		 "size %zu align %zu: block size %llu", size, align,
		 (unsigned long long)st.block_size);
	while (unit < allocation)
		unit <<= 1;
	if (!o.redzone) {
		ref = tc_zalloc(unit);
		TC_CHECK(e, ref, "out of memory");
		ref_n = tc_ref_layout(rsize, allocation, b, ref);
		TC_CHECK(e, st.block_size == rsize, "block size %llu, want %zu",
			 (unsigned long long)st.block_size, rsize);
		TC_CHECK(e, st.chunk_size % unit == 0,
			 "chunk size %llu not a multiple of %zu",
			 (unsigned long long)st.chunk_size, unit);
		TC_CHECK(e, st.blocks_per_chunk == ref_n * (st.chunk_size / unit),
			 "size %zu align %zu boundary %zu: %llu blocks, the kernel has %zu per %zu bytes",
			 size, align, boundary,
			 (unsigned long long)st.blocks_per_chunk, ref_n,
			 allocation);
	}

	/* Two chunks' worth, then check every block. */
	want = 2 * st.blocks_per_chunk;
	v = tc_zalloc(want * sizeof(*v));
	d = tc_zalloc(want * sizeof(*d));
	TC_CHECK(e, v && d, "out of memory");
	for (i = 0; i < want; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		TC_CHECK(e, v[i], "alloc %zu of %zu failed", i, want);
	}
	nch = tc_chunks(pool, ch, TC_ARRAY_SIZE(ch));
	TC_CHECK(e, nch == 2, "%zu chunks for two chunks' worth", nch);
	for (i = 0; i < want; i++) {
		uintptr_t va = (uintptr_t)v[i];
		long c = tc_chunk_of(ch, nch, v[i], st.block_size);
		size_t off;

		TC_CHECK(e, c >= 0, "block %p outside every chunk", v[i]);
		off = va - (uintptr_t)ch[c].vaddr;
		TC_CHECK(e, d[i] == ch[c].dma + off,
			 "vaddr and dma do not correspond (block %zu)", i);
		TC_CHECK(e, va % a == 0 && d[i] % a == 0,
			 "size %zu align %zu: block misaligned", size, align);
		if (boundary)
			TC_CHECK(e, d[i] / boundary ==
				    (d[i] + st.block_size - 1) / boundary,
				 "size %zu align %zu boundary %zu: block at dma %#llx crosses the boundary",
				 size, align, boundary,
				 (unsigned long long)d[i]);
		/* The kernel's implicit boundary: a page, unless larger. */
		if (st.block_size <= page)
			TC_CHECK(e, d[i] / page ==
				    (d[i] + st.block_size - 1) / page,
				 "block at dma %#llx crosses a page",
				 (unsigned long long)d[i]);
		if (ref)
			TC_CHECK(e, ref[off % unit],
				 "size %zu align %zu boundary %zu: offset %zu is not where the kernel puts a block",
				 size, align, boundary, off);
	}
	/*
	 * Distinct and non-overlapping: sort by address, compare neighbours
	 * (insertion sort, bounded: blocks come out nearly sorted).
	 */
	for (i = 1; i < want && i <= 4096; i++) {
		void *x = v[i];

		for (j = i; j > 0 && (uintptr_t)v[j - 1] > (uintptr_t)x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	for (i = 1; i < want && i <= 4096; i++)
		TC_CHECK(e, (uintptr_t)v[i] - (uintptr_t)v[i - 1] >=
			    st.block_size + o.redzone,
			 "blocks overlap (or their redzones do)");
	/* Give back by address (the order was lost in sorting). */
	for (i = 0; i < want; i++) {
		long c = tc_chunk_of(ch, nch, v[i], st.block_size);

		dmapool_free(pool, v[i],
			     ch[c].dma + ((uint8_t *)v[i] - ch[c].vaddr));
	}
	dmapool_get_stats(pool, &st);
	TC_CHECK(e, st.blocks_in_use == 0 && st.violations == 0,
		 "%llu in use, %llu reports after freeing all",
		 (unsigned long long)st.blocks_in_use,
		 (unsigned long long)st.violations);
	dmapool_destroy(pool);
	tc_free(v);
	tc_free(d);
	tc_free(ref);
	return true;
}

/* The whole matrix the kernel accepts; *ncases says how many ran. */
static inline bool tc_geometry_matrix(struct tc_env *e, size_t *ncases)
{
	size_t i, j, k, refused = 0;
	bool r;

	*ncases = 0;
	tc_begin(e);
	for (i = 0; i < TC_ARRAY_SIZE(tc_geo_sizes); i++)
		for (j = 0; j < TC_ARRAY_SIZE(tc_geo_aligns); j++)
			for (k = 0; k < TC_ARRAY_SIZE(tc_geo_boundaries); k++) {
				if (!tc_kernel_accepts(tc_geo_sizes[i],
						       tc_geo_aligns[j],
						       tc_geo_boundaries[k]))
					continue;
				if (!tc_geometry_case(e, tc_geo_sizes[i],
						      tc_geo_aligns[j],
						      tc_geo_boundaries[k],
						      &r))
					return false;
				refused += r;
				(*ncases)++;
			}
	TC_CHECK(e, *ncases > 500, "only %zu cases", *ncases);
	TC_CHECK(e, refused < *ncases / 4, "%zu of %zu refused", refused,
		 *ncases);
	/* Nothing but the refusals, each a bad-geometry report. */
	TC_CHECK(e, e->cap.n == refused, "%u reports for %zu refusals",
		 e->cap.n, refused);
	TC_CHECK(e, tc_count(e, DMAPOOL_R_BAD_GEOMETRY) ==
		    (refused < TC_MAX_REPORTS ? refused : TC_MAX_REPORTS),
		 "a report other than bad-geometry");
	tc_end(e);
	return true;
}

/* What the kernel refuses is refused, and said so (bad-geometry). */
static inline bool tc_geometry_rejects(struct tc_env *e)
{
	unsigned int want = 0;
	size_t i, j;

	tc_begin(e);
	for (i = 0; i < TC_ARRAY_SIZE(tc_geo_sizes); i++) {
		for (j = 0; j < TC_ARRAY_SIZE(tc_geo_bad_aligns); j++) {
			TC_CHECK(e, !tc_pool(e, tc_geo_sizes[i],
					     tc_geo_bad_aligns[j], 0),
				 "size %zu align %zu accepted",
				 tc_geo_sizes[i], tc_geo_bad_aligns[j]);
			want++;
		}
		for (j = 0; j < TC_ARRAY_SIZE(tc_geo_bad_boundaries); j++) {
			TC_CHECK(e, !tc_pool(e, tc_geo_sizes[i], 0,
					     tc_geo_bad_boundaries[j]),
				 "size %zu boundary %zu accepted",
				 tc_geo_sizes[i], tc_geo_bad_boundaries[j]);
			want++;
		}
	}
	/* Boundary below the (rounded) size; size 0; no device. */
	TC_CHECK(e, !tc_pool(e, 100, 0, 64), "boundary < size accepted");
	TC_CHECK(e, !tc_pool(e, 60, 64, 32), "boundary < rounded size accepted");
	TC_CHECK(e, !tc_pool(e, 0, 0, 0), "size 0 accepted");
	TC_CHECK(e, !dmapool_create("x", NULL, 64, 64, 0), "no device accepted");
	want += 4;
	TC_CHECK(e, e->cap.n == want, "%u reports for %u refusals", e->cap.n,
		 want);
	TC_CHECK(e, tc_count(e, DMAPOOL_R_BAD_GEOMETRY) == TC_MAX_REPORTS,
		 "not every refusal was a bad-geometry report");
	tc_end(e);
	return true;
}

#endif /* DMAPOOL_TC_GEOMETRY_H */
