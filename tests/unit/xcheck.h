/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Checks of what a pool promises about the blocks it handed out
 * (invariant 4, DESIGN.md), through the public API only.
 */
#ifndef DMAPOOL_TESTS_XCHECK_H
#define DMAPOOL_TESTS_XCHECK_H

#include <stddef.h>
#include <stdint.h>

#include <dmapool/dmapool.h>

struct xdev;

struct xblk {
	void *v;
	dmapool_dma_t dma;
	uint64_t handle;	/* 0: freed by address */
};

/*
 * Every block of @b[0..n) (block_size bytes each, from the pool's stats)
 * is aligned to @align in vaddr and dma, crosses no multiple of @boundary
 * (of the page when @boundary is 0 and the block fits in one), lies inside
 * a chunk of the pool (dmapool_walk_chunks()) and, when @x is not NULL,
 * inside a live chunk of that backend, at the same offset in vaddr and dma;
 * no two overlap, in vaddr or in dma.  A failed check ends the test.
 */
void xcheck_blocks(const struct dmapool *pool, const struct xblk *b, size_t n,
		   size_t align, size_t boundary, const struct xdev *x);

/* Write a tag derived from @i into the first and last byte of block @b. */
void xcheck_tag(const struct xblk *b, size_t block_size, size_t i);
/* ... and check it is still there. */
void xcheck_tag_ok(const struct xblk *b, size_t block_size, size_t i);

#endif
