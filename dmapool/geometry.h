/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Block geometry: where the blocks of a chunk are, computed once per pool.
 *
 * The kernel's rules, exactly: the block size is rounded up to the
 * alignment; the kernel allocates max(page, size) bytes at a time (aligned
 * by dma_alloc_coherent to their power-of-two order) and a block never
 * crosses a multiple of the boundary, which defaults to (and is capped at)
 * that allocation.  A chunk here is a whole number of such allocations, so
 * every block sits where the kernel would have put it.
 *
 * Blocks are numbered by position: segment << seg_bits | slot, where a
 * segment is one boundary-sized stretch and slot the block's place in it.
 * When the boundary is a multiple of the stride no block can cross it and
 * the chunk is a single segment.  Position <-> offset is shifts, a mask and
 * one multiply; offset -> position uses a 32-bit reciprocal of the stride
 * and verifies the result, so an offset that is not a block start is caught.
 *
 * The fast paths use the linear form off = pos * stride, which is exact for
 * every chunk that is one segment (fast_recip = recip, and fast_n the
 * bound of dp_geo_fast_pos()); a chunk of several segments with gaps
 * between them has both 0, so the fast path's check fails and the slow
 * path does the segment arithmetic.  Linear positions past the last block of a one-segment chunk
 * with a tail gap (nstate > nbits) have a state word that is never
 * "allocated", so a free there fails its claim and is judged slowly.
 *
 * Every computation is checked for overflow: a request that would wrap, or
 * that leaves no block in a chunk, is refused (bad-geometry).
 */
#ifndef DMAPOOL_GEOMETRY_H
#define DMAPOOL_GEOMETRY_H

#include "os.h"

/* errno values the core returns (the same in both worlds). */
#define DP_ENOMEM	12
#define DP_EINVAL	22
#define DP_EOPNOTSUPP	95

#define DP_MAX_BLOCKS_PER_CHUNK	4096u	/* 64 bitmap words + 1 summary word */
#define DP_MAX_CHUNK_SIZE	((size_t)1 << 30)
/*
 * The default chunk holds this many blocks, when that fits in the world's
 * DP_OS_CHUNK_DEFAULT_MAX (os.h): taking a chunk into and out of a heap's
 * lists costs about a hundred instructions, shared by that many blocks.
 */
#define DP_CHUNK_MIN_BLOCKS	64u

struct dp_geometry {
	u32 size;		/* block size after rounding to align */
	u32 align;
	u32 boundary;		/* effective boundary (kernel semantics) */
	u32 per_seg;		/* blocks per segment */
	u32 seg_bits;		/* slot bits in a position */
	u32 seg_shift;		/* log2(segment bytes); 31 for one segment */
	u32 blocks;		/* blocks per chunk */
	u32 nbits;		/* positions per chunk (holes included) */
	u32 nwords;		/* 64-bit bitmap words */
	u32 nstate;		/* state words per chunk (>= nbits) */
	/*
	 * Word-sized, as fast_n: the fast paths multiply and compare with
	 * them straight from memory (no load into a register first).
	 */
	size_t stride;		/* distance between block starts in a segment */
	u64 recip;		/* ceil(2^32 / stride) */
	u64 fast_recip;		/* recip for one-segment chunks, else 0 */
	u64 fast_inv;		/* inverse of stride's odd part mod 2^64 */
	size_t fast_n;		/* nstate for one-segment chunks, else 0 */
	u32 fast_rot;		/* stride's trailing zero bits */
	u32 page_shift;
	bool one_seg;		/* no block can cross the boundary */
	size_t chunk_size;
	size_t chunk_align;	/* what the backend must align chunks to */
};

/*
 * Fill @g.  Returns NULL on success, else a sentence saying what is wrong
 * (the caller reports it as bad-geometry).
 */
const char *dp_geometry_init(struct dp_geometry *g, size_t size, size_t align,
			     size_t boundary, size_t redzone,
			     size_t chunk_size, size_t page_size);

/* Offset of the block at position @pos. */
static inline size_t dp_geo_offset(const struct dp_geometry *g, u32 pos)
{
	size_t seg, slot;

	if (DP_LIKELY(g->one_seg))
		return (size_t)pos * g->stride;
	seg = pos >> g->seg_bits;
	slot = pos & ((1u << g->seg_bits) - 1);
	return (seg << g->seg_shift) + slot * g->stride;
}

/*
 * Position of the block starting at @off (which must be below chunk_size)
 * in *pos; false when @off is not the start of a block.
 */
static inline bool dp_geo_position(const struct dp_geometry *g, size_t off,
				   u32 *pos)
{
	u64 seg, in, slot;

	if (DP_LIKELY(g->one_seg)) {
		/* off < chunk_size = per_seg * stride bounds the slot. */
		slot = ((u64)off * g->recip) >> 32;
		*pos = (u32)slot;
		return slot * g->stride == off;
	}
	seg = off >> g->seg_shift;
	in = off & (((u64)1 << g->seg_shift) - 1);
	slot = (in * g->recip) >> 32;
	if (DP_UNLIKELY(slot * g->stride != in || slot >= g->per_seg))
		return false;
	*pos = (u32)(seg << g->seg_bits | slot);
	return true;
}

/*
 * The linear position of offset @off (any 64-bit value) in a one-segment
 * chunk: below fast_n exactly when @off is a block start, and then the
 * block's position (off / stride).  One multiply and a rotate, no
 * division and no range check of its own: with stride = odd * 2^k,
 * multiplying by the odd part's inverse modulo 2^64 and rotating right by
 * k maps the multiples m * stride of the 64-bit range onto 0, 1, 2, ...
 * (m itself) and, being a bijection, every other value above them
 * (Granlund and Montgomery's divisibility test, 1994).
 */
static inline u64 dp_geo_fast_pos(const struct dp_geometry *g, u64 off)
{
	const u64 x = off * g->fast_inv;

	return x >> g->fast_rot | x << ((64 - g->fast_rot) & 63);
}

/* Is @pos a position that holds a block (not a hole between segments)? */
static inline bool dp_geo_valid_position(const struct dp_geometry *g,
					 u64 pos)
{
	if (DP_LIKELY(g->one_seg))
		return pos < g->nbits;
	return pos < g->nbits &&
	       (pos & ((1u << g->seg_bits) - 1)) < g->per_seg;
}

#endif /* DMAPOOL_GEOMETRY_H */
