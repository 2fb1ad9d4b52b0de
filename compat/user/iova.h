/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * iova.h - a small allocator of IOVA ranges, for the VFIO backend.
 *
 * The VFIO backend gives every chunk its own IOMMU mapping at an IOVA it
 * picks itself inside a window the application reserved for it.  This is
 * the bookkeeping: a sorted array of free extents, first fit with
 * alignment, neighbours merged on free, so an IOVA comes back into use as
 * soon as its chunk is unmapped and the lowest free address is reused
 * first.  Everything lives in host memory; nothing here touches a device.
 *
 * Every address and length is a multiple of the granule (the smallest page
 * both the CPU and the IOMMU can map).  Ends are inclusive ("last") so a
 * window may reach the top of the 64-bit space without wrapping.
 *
 * Cost: O(number of free extents) per call, which is fine for a path that
 * runs once per chunk (a chunk holds many blocks), never per block.
 *
 * Not thread-safe: the backend calls it under its own lock.
 */
#ifndef DMAPOOL_COMPAT_USER_IOVA_H
#define DMAPOOL_COMPAT_USER_IOVA_H

#include <stddef.h>
#include <stdint.h>

struct dp_iova_ext {
	uint64_t first, last;		/* inclusive */
};

struct dp_iova {
	uint64_t granule;		/* power of two */
	struct dp_iova_ext *avail;	/* sorted, disjoint, never adjacent */
	size_t navail, capavail;
	struct dp_iova_ext *win;	/* what dp_iova_add gave us, sorted */
	size_t nwin, capwin;
	uint64_t total;			/* bytes managed */
	uint64_t in_use;		/* bytes handed out */
};

/* An empty allocator; @granule a power of two. 0 or -EINVAL. */
int dp_iova_init(struct dp_iova *a, uint64_t granule);
void dp_iova_fini(struct dp_iova *a);

/*
 * Make [first, last] available, trimmed inwards to the granule.  Ranges
 * must not overlap what was added before (-EEXIST); a range with no whole
 * granule in it adds nothing and returns 0.  -ENOMEM when out of memory.
 */
int dp_iova_add(struct dp_iova *a, uint64_t first, uint64_t last);

/*
 * Take @size bytes aligned to @align (powers of two are not required for
 * @size, which must be a multiple of the granule; @align must be a power of
 * two, rounded up to the granule).  The lowest fitting address wins.
 * 0 and *iova, or -EINVAL (bad size/align), -ENOSPC (no free extent fits),
 * -ENOMEM (could not split an extent).
 */
int dp_iova_alloc(struct dp_iova *a, uint64_t size, uint64_t align,
		  uint64_t *iova);

/*
 * Give back what dp_iova_alloc returned.  Checked first, changed after:
 * -EINVAL when the range is unaligned, wraps, lies outside the added
 * ranges or overlaps anything free (a double or a wild free).  -ENOMEM
 * when the free list cannot grow: the range then stays in use (leaked,
 * never handed out twice).
 */
int dp_iova_free(struct dp_iova *a, uint64_t iova, uint64_t size);

/* Is [iova, iova + size) entirely handed out right now? */
int dp_iova_is_allocated(const struct dp_iova *a, uint64_t iova,
			 uint64_t size);

#endif /* DMAPOOL_COMPAT_USER_IOVA_H */
