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
 * Blocks are numbered by bitmap position: segment << seg_bits | slot, where
 * a segment is one boundary-sized stretch and slot the block's place in it.
 * When the boundary is a multiple of the stride no block can cross it and the
 * chunk is a single segment.  Position <-> offset is shifts, a mask and one
 * multiply; offset -> position uses a 32-bit reciprocal of the stride and
 * verifies the result, so an offset that is not a block start is caught.
 */
#ifndef DMAPOOL_GEOMETRY_H
#define DMAPOOL_GEOMETRY_H

#include "os.h"

#define DP_MAX_BLOCKS_PER_CHUNK	4096u	/* 64 bitmap words + 1 summary word */
#define DP_MAX_CHUNK_SIZE	(1u << 30)
#define DP_BAD_INDEX		0xffffffffu

struct dp_geometry {
	uint32_t size;		/* block size after rounding to align */
	uint32_t stride;	/* distance between block starts in a segment */
	uint32_t align;
	uint32_t boundary;	/* effective boundary (kernel semantics) */
	uint32_t per_seg;	/* blocks per segment */
	uint32_t seg_bits;	/* slot bits in a position */
	uint32_t seg_shift;	/* log2(segment bytes); 31 for one segment */
	uint32_t blocks;	/* blocks per chunk */
	uint32_t nbits;		/* bitmap positions per chunk */
	uint32_t nwords;	/* 64-bit bitmap words (without the summary) */
	uint64_t recip;		/* ceil(2^32 / stride) */
	size_t chunk_size;
	size_t chunk_align;	/* what the backend must align chunks to */
	uint32_t page_shift;
};

/*
 * Fill @g.  Returns NULL on success, else a sentence saying what is wrong
 * (the caller reports it as bad-geometry).
 */
const char *dp_geometry_init(struct dp_geometry *g, size_t size, size_t align,
			     size_t boundary, unsigned int redzone,
			     size_t chunk_size, size_t page_size);

/* Offset of the block at bitmap position @pos. */
static inline size_t dp_geo_offset(const struct dp_geometry *g, uint32_t pos)
{
	size_t seg = pos >> g->seg_bits;
	size_t slot = pos & ((1u << g->seg_bits) - 1);

	return (seg << g->seg_shift) + slot * g->stride;
}

/*
 * Bitmap position of the block starting at @off (< chunk_size), or
 * DP_BAD_INDEX when @off is not the start of a block.
 */
static inline uint32_t dp_geo_position(const struct dp_geometry *g, size_t off)
{
	uint64_t seg = off >> g->seg_shift;
	uint64_t in = off & (((uint64_t)1 << g->seg_shift) - 1);
	uint64_t slot = (in * g->recip) >> 32;

	if (DP_UNLIKELY(slot * g->stride != in || slot >= g->per_seg))
		return DP_BAD_INDEX;
	return (uint32_t)(seg << g->seg_bits | slot);
}

/* Is @pos a position that holds a block (not a hole between segments)? */
static inline bool dp_geo_valid_position(const struct dp_geometry *g,
					 uint64_t pos)
{
	return pos < g->nbits &&
	       (pos & ((1u << g->seg_bits) - 1)) < g->per_seg;
}

#endif /* DMAPOOL_GEOMETRY_H */
