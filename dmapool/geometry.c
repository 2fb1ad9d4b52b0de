// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Block geometry (see geometry.h for the layout and why).  Every input is
 * bounded before it is used in arithmetic, so nothing here can wrap.
 */
#include "geometry.h"

static bool is_pow2(size_t x)
{
	return x && !(x & (x - 1));
}

/* Round @x up to a multiple of @a; both at most DP_MAX_CHUNK_SIZE. */
static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

/*
 * The inverse of @odd modulo 2^64 (Newton's iteration: each step doubles
 * the correct low bits; odd * odd = 1 mod 8 gives the first three).
 */
static u64 inverse64(u64 odd)
{
	u64 x = odd;
	int i;

	for (i = 0; i < 5; i++)
		x *= 2 - odd * x;
	return x;
}

/* floor(log2(x)), 0 for 0 and 1. */
static u32 ilog2_floor(u64 x)
{
	/* fls64 in the kernel: __builtin_clzll may be a libgcc call there. */
	return x ? dp_os_fls64(x) - 1 : 0;
}

static u32 ilog2_ceil(u64 x)
{
	return x <= 1 ? 0 : ilog2_floor(x - 1) + 1;
}

/* Positions needed for @segs (>= 1) segments of @per_seg blocks. */
static u64 positions(u64 segs, u64 per_seg)
{
	return ((segs - 1) << ilog2_ceil(per_seg)) + per_seg;
}

/* The chunk: a multiple of @base within the bitmap's reach; 0 if none. */
static size_t chunk_bytes(struct dp_geometry *g, size_t want, size_t base,
			  size_t b, size_t stride)
{
	size_t chunk, n;

	if (want > DP_MAX_CHUNK_SIZE)
		want = DP_MAX_CHUNK_SIZE;
	if (!want) {
		/*
		 * The default: enough kernel-sized allocations for
		 * DP_CHUNK_MIN_BLOCKS blocks (the work of taking a chunk into
		 * and out of a heap's lists is shared by that many) and for
		 * DP_OS_CHUNK_DEFAULT_MIN bytes (fewer chunks for a large
		 * set of small blocks: fewer records and index entries for
		 * the frees to miss in the cache), up to
		 * DP_OS_CHUNK_DEFAULT_MAX; cut below to what one bitmap
		 * describes, as any chunk is.
		 */
		size_t per = base / stride;

		/*
		 * Not when boundary segments leave gaps: a chunk of one
		 * segment keeps the fast paths' linear arithmetic.
		 */
		if (b % stride || !per) {
			n = 1;
		} else {
			n = (DP_CHUNK_MIN_BLOCKS + per - 1) / per;
			if (n * base < DP_OS_CHUNK_DEFAULT_MIN)
				n = (DP_OS_CHUNK_DEFAULT_MIN + base - 1) / base;
		}
		while (n > 1 && n * base > DP_OS_CHUNK_DEFAULT_MAX)
			n--;
		want = n * base;
	}
	chunk = align_up(want, base);
	if (chunk > DP_MAX_CHUNK_SIZE)
		chunk = DP_MAX_CHUNK_SIZE / base * base;
	for (n = chunk / base; n > 1; n--) {
		u64 nbits = b % stride ?
				 positions(n * (base / b), g->per_seg) :
				 (u64)n * (base / stride);

		if (nbits <= DP_MAX_BLOCKS_PER_CHUNK)
			break;
	}
	return n * base;
}

const char *dp_geometry_init(struct dp_geometry *g, size_t size, size_t align,
			     size_t boundary, size_t redzone,
			     size_t chunk_size, size_t page_size)
{
	size_t stride, base, b, chunk;

	dp_os_memset(g, 0, sizeof(*g));
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
	if (!is_pow2(page_size) || page_size > DP_MAX_CHUNK_SIZE)
		return "page size is not a power of two below 1 GiB";

	/* Tiny blocks on large pages: keep a page's blocks within one bitmap. */
	if (size < page_size / DP_MAX_BLOCKS_PER_CHUNK)
		size = page_size / DP_MAX_BLOCKS_PER_CHUNK;
	size = align_up(size, align);
	if (size > DP_MAX_CHUNK_SIZE)
		return "block size rounded up to align is larger than 1 GiB";
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
		return "block size plus redzone rounds up to more than 1 GiB";

	/*
	 * When the stride divides the boundary no block can cross it and the
	 * chunk is one segment; else each boundary-sized segment holds
	 * b / stride blocks.
	 */
	g->seg_shift = b % stride ? ilog2_floor(b) : 31;
	g->per_seg = (u32)(b / stride);
	chunk = chunk_bytes(g, chunk_size, base, b, stride);
	if (!(b % stride))
		g->per_seg = (u32)(chunk / stride);

	g->size = (u32)size;
	g->stride = stride;
	g->align = (u32)align;
	g->boundary = (u32)b;
	g->chunk_size = chunk;
	g->page_shift = ilog2_floor(page_size);
	g->one_seg = !(b % stride);
	if (g->one_seg) {
		g->blocks = g->per_seg;
		g->nbits = g->per_seg;
	} else {
		u64 nbits = positions(chunk / b, g->per_seg);

		if (nbits > DP_MAX_BLOCKS_PER_CHUNK)
			return "too many block positions for one chunk";
		g->blocks = (u32)(chunk / b) * g->per_seg;
		g->nbits = (u32)nbits;
	}
	if (!g->blocks || g->nbits > DP_MAX_BLOCKS_PER_CHUNK)
		return "no chunk the bitmap can describe holds a block";
	g->seg_bits = ilog2_ceil(g->per_seg);
	g->nwords = (g->nbits + 63) / 64;
	/* ceil(2^32 / stride) without a 64-bit division (32-bit kernels). */
	g->recip = (u64)(0xffffffffu / (u32)stride) + 1;
	if (g->one_seg || chunk == b) {
		g->fast_recip = g->recip;
		g->nstate = (u32)((chunk - 1) / stride + 1);
		g->fast_rot = (u32)dp_os_ctz64(stride);
		g->fast_inv = inverse64((u64)stride >> g->fast_rot);
	} else {
		g->fast_recip = 0;
		g->nstate = g->nbits;
	}
	if (g->nstate < g->nbits)
		g->nstate = g->nbits;
	if (g->fast_recip)
		g->fast_n = g->nstate;
	/* Both addresses of a chunk sit on a boundary (and on align). */
	g->chunk_align = b > align ? b : align;
	if (g->chunk_align < page_size)
		g->chunk_align = page_size;
	return NULL;
}
