// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Block geometry (see geometry.h for the layout and why).
 */
#include "geometry.h"

static bool is_pow2(size_t x)
{
	return x && !(x & (x - 1));
}

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

static uint32_t ilog2_floor(uint64_t x)
{
	return 63 - (uint32_t)__builtin_clzll(x);
}

static uint32_t ilog2_ceil(uint64_t x)
{
	return x <= 1 ? 0 : ilog2_floor(x - 1) + 1;
}

/* Positions needed for @segs segments of @per_seg blocks. */
static uint64_t positions(uint64_t segs, uint64_t per_seg)
{
	return ((segs - 1) << ilog2_ceil(per_seg)) + per_seg;
}

const char *dp_geometry_init(struct dp_geometry *g, size_t size, size_t align,
			     size_t boundary, unsigned int redzone,
			     size_t chunk_size, size_t page_size)
{
	size_t stride, base, b, chunk, n;

	if (size == 0)
		return "block size is zero";
	if (size > DP_MAX_CHUNK_SIZE)
		return "block size is larger than 1 GiB";
	if (align == 0)
		align = 1;
	else if (!is_pow2(align))
		return "align is not a power of two";
	if (align > DP_MAX_CHUNK_SIZE)
		return "align is larger than 1 GiB";
	if (redzone > DP_MAX_CHUNK_SIZE)
		return "redzone is larger than 1 GiB";

	/* Tiny blocks on large pages: keep a page's blocks within one bitmap. */
	if (size < page_size / DP_MAX_BLOCKS_PER_CHUNK)
		size = page_size / DP_MAX_BLOCKS_PER_CHUNK;
	size = align_up(size, align);
	stride = align_up(size + redzone, align);
	if (stride > DP_MAX_CHUNK_SIZE)
		return "block size plus redzone is larger than 1 GiB";
	/*
	 * The kernel allocates max(page, size) bytes at a time, and
	 * dma_alloc_coherent aligns that to its power-of-two order: blocks
	 * never cross a multiple of that order, nor of the boundary.
	 */
	base = (size_t)1 << ilog2_ceil(size > page_size ? size : page_size);
	if (!boundary) {
		b = base;
	} else {
		if (boundary < size)
			return "boundary is smaller than the block size";
		if (!is_pow2(boundary))
			return "boundary is not a power of two";
		b = boundary < base ? boundary : base;
	}
	if (stride > b) {
		/*
		 * Only a redzone gets here.  An explicit boundary is a device's
		 * limit: refuse if the block and its redzone do not fit in it.
		 * Else (the implicit boundary, or an explicit one above the
		 * allocation) each block gets a power-of-two segment of its
		 * own, which fits within an explicit boundary (both are powers
		 * of two, the boundary not below the stride).
		 */
		if (boundary && boundary < stride)
			return "block plus redzone does not fit within the boundary";
		b = (size_t)1 << ilog2_ceil(stride);
		base = b;
	}
	if (base > DP_MAX_CHUNK_SIZE)
		return "block size is larger than 1 GiB";

	/*
	 * A chunk is a whole number of kernel-sized allocations, as many as
	 * asked for within the bitmap's reach.  When the stride divides the
	 * boundary no block can cross it and the chunk is one segment; else
	 * each boundary-sized segment holds b / stride blocks.
	 */
	g->seg_shift = b % stride ? ilog2_floor(b) : 31;
	g->per_seg = (uint32_t)(b % stride ? b / stride : base / stride);
	chunk = chunk_size ? align_up(chunk_size, base) : base;
	if (chunk > DP_MAX_CHUNK_SIZE)
		chunk = DP_MAX_CHUNK_SIZE;
	for (n = chunk / base; n > 1; n--) {
		uint64_t nbits = b % stride ?
				 positions(n * (base / b), g->per_seg) :
				 n * g->per_seg;

		if (nbits <= DP_MAX_BLOCKS_PER_CHUNK)
			break;
	}
	chunk = n * base;
	if (!(b % stride))
		g->per_seg = (uint32_t)(chunk / stride);

	g->size = (uint32_t)size;
	g->stride = (uint32_t)stride;
	g->align = (uint32_t)align;
	g->boundary = (uint32_t)b;
	g->chunk_size = chunk;
	g->page_shift = ilog2_floor(page_size);
	g->blocks = (uint32_t)(b % stride ? chunk / b * g->per_seg : g->per_seg);
	g->nbits = (uint32_t)(b % stride ? positions(chunk / b, g->per_seg) :
			      g->per_seg);
	g->seg_bits = ilog2_ceil(g->per_seg);
	g->one_seg = !(b % stride);
	g->nwords = (g->nbits + 63) / 64;
	g->held_words = 0;
	g->held_superset = false;
	/* ceil(2^32 / stride) without a 64-bit division (32-bit kernels). */
	g->recip = (uint64_t)(0xffffffffu / (uint32_t)stride) + 1;
	/* Both addresses of a chunk sit on a boundary (and on align). */
	g->chunk_align = b > align ? b : align;
	if (g->chunk_align < page_size)
		g->chunk_align = page_size;
	return NULL;
}
