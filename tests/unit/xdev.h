/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Test backends (dmapool_dev_new()) that keep a record of every chunk they
 * handed out, so a test can check each block against what the backend
 * really gave, not against what the pool believes it got.
 *
 * Modes:
 *  XDEV_PLAIN      an honest backend: anonymous mappings, aligned as asked
 *  XDEV_ZERO_OK    honest, and a 0-byte request succeeds: a 0-byte chunk
 *                  (its address is a mapped page, so a pool that uses it
 *                  corrupts nothing the test cannot see)
 *  XDEV_MISALIGN   the vaddr (and with it the dma) is 64 bytes past the
 *                  alignment asked for
 *  XDEV_MISALIGN_DMA  the vaddr is aligned, the dma 64 bytes off
 *  XDEV_REUSE      freed chunks are kept and handed back (newest first) to
 *                  the next request of the same size, at the same vaddr and
 *                  dma: what mmap often does after munmap
 */
#ifndef DMAPOOL_TESTS_XDEV_H
#define DMAPOOL_TESTS_XDEV_H

#include <stdbool.h>
#include <stddef.h>

#include <dmapool/dmapool.h>

enum xdev_mode {
	XDEV_PLAIN,
	XDEV_ZERO_OK,
	XDEV_MISALIGN,
	XDEV_MISALIGN_DMA,
	XDEV_REUSE,
};

#define XDEV_MAX_CHUNKS	64
#define XDEV_DMA_OFFSET	0x7a0000000000000ull	/* dma = vaddr + this */

struct xdev_chunk {
	void *vaddr;		/* as handed out */
	dmapool_dma_t dma;
	size_t size;		/* as asked for */
	void *map;		/* the mapping behind it */
	size_t map_len;
	bool live;
};

struct xdev {
	enum xdev_mode mode;
	struct dmapool_dev *dev;
	struct xdev_chunk c[XDEV_MAX_CHUNKS];
	unsigned long allocs, frees, zero_requests, reused;
	unsigned long bad_align_requests;	/* align not a power of two >= page */
	unsigned long bad_frees;		/* chunk_free of nothing we gave */
	unsigned int fail_after;	/* >0: requests beyond this many fail */
};

/* A backend of @mode; aborts the test (CHECK) if it cannot be made. */
struct xdev *xdev_new(enum xdev_mode mode);
/* Put the dev and unmap everything (every pool on it must be gone). */
void xdev_put(struct xdev *x);
/* Is [v, v + len) inside a live chunk of @x, with @dma at the same offset? */
bool xdev_holds(const struct xdev *x, const void *v, size_t len,
		dmapool_dma_t dma);
/* Live chunks now. */
unsigned int xdev_live(const struct xdev *x);

#endif
