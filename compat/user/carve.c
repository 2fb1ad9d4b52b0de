// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * carve.c - chunks carved out of a slab of DMA memory (see carve.h).
 */
#include <errno.h>
#include <string.h>

#include "carve.h"

int dp_slab_init(struct dp_slab *s, void *vaddr, uint64_t dma, uint64_t len,
		 uint64_t granule)
{
	int ret;

	memset(s, 0, sizeof(*s));
	if (!vaddr || !len || dma + (len - 1) < dma ||
	    (uintptr_t)vaddr + (len - 1) < (uintptr_t)vaddr)
		return -EINVAL;
	ret = dp_iova_init(&s->space, granule);
	if (ret)
		return ret;
	if ((dma | len) & (granule - 1)) {
		dp_iova_fini(&s->space);
		return -EINVAL;
	}
	ret = dp_iova_add(&s->space, dma, dma + (len - 1));
	if (ret) {
		dp_iova_fini(&s->space);
		return ret;
	}
	s->vaddr = vaddr;
	s->dma = dma;
	s->len = len;
	return 0;
}

void dp_slab_fini(struct dp_slab *s)
{
	dp_iova_fini(&s->space);
	memset(s, 0, sizeof(*s));
}

static uint64_t round_up(uint64_t x, uint64_t granule)
{
	return (x + granule - 1) & ~(granule - 1);
}

int dp_slab_carve(struct dp_slab *s, uint64_t size, uint64_t align,
		  void **vaddr, uint64_t *dma)
{
	uint64_t g = s->space.granule, len = round_up(size, g), d;
	int ret;

	if (!size || len < size || !align || (align & (align - 1)))
		return -EINVAL;
	/* Both addresses move by the same offset: they must agree mod align. */
	if (((uintptr_t)s->vaddr - s->dma) & (align - 1))
		return -EINVAL;
	if (len > s->len)
		return -ENOSPC;
	ret = dp_iova_alloc(&s->space, len, align, &d);
	if (ret)
		return ret;
	*dma = d;
	*vaddr = s->vaddr + (d - s->dma);
	return 0;
}

int dp_slab_uncarve(struct dp_slab *s, void *vaddr, uint64_t dma,
		    uint64_t size)
{
	uint64_t len = round_up(size, s->space.granule);

	if (!size || len < size || dma < s->dma || dma - s->dma >= s->len ||
	    (uint8_t *)vaddr != s->vaddr + (dma - s->dma))
		return -EINVAL;
	return dp_iova_free(&s->space, dma, len);
}

bool dp_slab_holds(const struct dp_slab *s, const void *vaddr, uint64_t size)
{
	uintptr_t v = (uintptr_t)vaddr, base = (uintptr_t)s->vaddr;

	return v >= base && v - base < s->len && size <= s->len - (v - base);
}
