/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * carve.h - chunks carved out of a larger piece of DMA memory (a "slab"):
 * memory the caller mapped for the device (the region backend) or one IOMMU
 * mapping of the VFIO backend.
 *
 * A slab is [vaddr, vaddr + len) at bus address dma.  Its free space is an
 * extent list (iova.h) over bus addresses, so a chunk is the lowest free
 * range of the size and alignment the core asks for, and neighbours merge
 * again when chunks come back.  The vaddr of a chunk is the slab's vaddr
 * plus the same offset: a chunk aligned in dma is aligned in vaddr when
 * both ends of the slab agree modulo that alignment, which dp_slab_carve
 * checks instead of assuming.  Every free is checked against the slab's
 * records first: a range it did not hand out changes nothing.
 *
 * All bookkeeping is host memory; nothing is stored in the slab itself.
 * Not thread-safe: each backend calls it under its own lock.
 */
#ifndef DMAPOOL_COMPAT_USER_CARVE_H
#define DMAPOOL_COMPAT_USER_CARVE_H

#include <stdbool.h>
#include <stdint.h>

#include "iova.h"

struct dp_slab {
	uint8_t *vaddr;
	uint64_t dma;			/* bus address of vaddr */
	uint64_t len;			/* a multiple of the granule */
	struct dp_iova space;		/* free ranges, as bus addresses */
};

/*
 * A slab over [vaddr, vaddr + len) at @dma; @granule (a power of two)
 * divides @dma and @len.  0, -EINVAL or -ENOMEM.
 */
int dp_slab_init(struct dp_slab *s, void *vaddr, uint64_t dma, uint64_t len,
		 uint64_t granule);
void dp_slab_fini(struct dp_slab *s);

/*
 * @size bytes (rounded up to the granule) aligned to @align (a power of
 * two) in both vaddr and dma.  0, -EINVAL (bad size or align, or an align
 * the slab's vaddr and dma do not share), -ENOSPC (no room), -ENOMEM.
 */
int dp_slab_carve(struct dp_slab *s, uint64_t size, uint64_t align,
		  void **vaddr, uint64_t *dma);

/*
 * Give back what dp_slab_carve returned: @vaddr and @dma must name the same
 * offset of the slab and [dma, dma + size) must be handed out now.
 * 0, -EINVAL (not so: nothing changes) or -ENOMEM (the range stays in use,
 * never handed out twice).
 */
int dp_slab_uncarve(struct dp_slab *s, void *vaddr, uint64_t dma,
		    uint64_t size);

/* Does the slab hold [vaddr, vaddr + size)? */
bool dp_slab_holds(const struct dp_slab *s, const void *vaddr, uint64_t size);

/* Bytes handed out now. */
static inline uint64_t dp_slab_used(const struct dp_slab *s)
{
	return s->space.in_use;
}

#endif /* DMAPOOL_COMPAT_USER_CARVE_H */
