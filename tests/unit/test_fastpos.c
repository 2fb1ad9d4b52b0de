// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The fast paths' block check (geometry.h, dp_geo_fast_pos()): for every
 * geometry whose chunks are one segment, an offset passes exactly when it
 * is a block start inside the chunk, and then gives that block's position.
 * Checked against plain division for every offset of a chunk and a stride
 * either side, for offsets far outside it (an address below the chunk
 * wraps to a huge offset), and for random 64-bit values.
 */
#include <stdint.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "geometry.h"

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* True when the geometry's fast check agrees with division at @off. */
static bool agrees(const struct dp_geometry *g, uint64_t off)
{
	const uint64_t q = dp_geo_fast_pos(g, off);
	const bool start = off < g->chunk_size && off % g->stride == 0;

	if (start)
		return q < g->fast_n && q == off / g->stride;
	return q >= g->fast_n;
}

static size_t check_geometry(size_t size, size_t align, size_t boundary)
{
	struct dp_geometry g;
	const char *err;
	uint64_t off, end;
	size_t fast = 0;
	int i;

	err = dp_geometry_init(&g, size, align, boundary, 0, 0, 4096);
	cr_assert_null(err, "size %zu align %zu boundary %zu: %s", size,
		       align, boundary, err);
	if (!g.fast_n) {
		/* Several segments: the fast check must refuse everything. */
		cr_assert(!g.one_seg && g.chunk_size != g.boundary);
		for (off = 0; off < g.chunk_size; off += g.stride)
			cr_assert_geq(dp_geo_fast_pos(&g, off), g.fast_n);
		return 0;
	}
	cr_assert_eq(g.fast_n, g.nstate);
	end = g.chunk_size + 2 * (uint64_t)g.stride;
	for (off = 0; off < end; off++) {
		cr_assert(agrees(&g, off), "stride %u offset %llu", g.stride,
			  (unsigned long long)off);
		fast += off % g.stride == 0 && off < g.chunk_size;
	}
	for (i = 1; i <= 4096; i++) {
		cr_assert(agrees(&g, (uint64_t)0 - (uint64_t)i));
		cr_assert(agrees(&g, next()));
		cr_assert(agrees(&g, ((uint64_t)1 << 32) + (uint64_t)i));
		cr_assert(agrees(&g, (next() % (1u << 20)) * g.stride));
	}
	cr_assert_eq(fast, g.nstate);
	return fast;
}

Test(fastpos, matches_division_for_every_offset)
{
	static const size_t aligns[] = { 1, 2, 4, 8, 16, 32, 64, 4096 };
	size_t size, a, blocks = 0;

	for (size = 1; size <= 1100; size += size < 160 ? 1 : 37)
		for (a = 0; a < sizeof(aligns) / sizeof(aligns[0]); a++)
			blocks += check_geometry(size, aligns[a], 0);
	/* The dmapool_test cases, and strides that do not divide a page. */
	blocks += check_geometry(4096, 4096, 0);
	blocks += check_geometry(68, 32, 4096);
	blocks += check_geometry(3000, 8, 0);
	blocks += check_geometry(24, 8, 64);
	cr_assert_gt(blocks, 100000);
}

/* Set bits, one at a time: the reference for the shim's bit helpers. */
static unsigned int slow_popcount(uint64_t x)
{
	unsigned int n = 0;

	for (; x; x >>= 1)
		n += (unsigned int)(x & 1);
	return n;
}

/*
 * The shim's popcount (random placement's run length, remote-free counts):
 * a bit-slicing count where the compiler has no popcnt instruction.  Every
 * single bit, every all-ones prefix, and random words of every density.
 */
Test(fastpos, popcount_matches_a_bit_count)
{
	uint64_t x;
	unsigned int i, k;

	cr_assert_eq(dp_os_popcount64(0), 0);
	cr_assert_eq(dp_os_popcount64(~0ull), 64);
	for (i = 0; i < 64; i++) {
		cr_assert_eq(dp_os_popcount64((uint64_t)1 << i), 1);
		cr_assert_eq(dp_os_popcount64(~0ull >> i), 64 - i);
		cr_assert_eq(dp_os_ctz64((uint64_t)1 << i), i);
	}
	for (i = 0; i < 100000; i++) {
		/* AND or OR a few draws: sparse and dense words too. */
		x = next();
		for (k = i % 4; k; k--)
			x = (i & 4) ? (x & next()) : (x | next());
		cr_assert_eq(dp_os_popcount64(x), slow_popcount(x),
			     "popcount of %#llx", (unsigned long long)x);
	}
}
