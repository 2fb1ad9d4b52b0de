/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * dev_region.h - library-internal view of the region backend (dev_region.c)
 * for tests: what it has carved and what it refused.
 */
#ifndef DMAPOOL_COMPAT_USER_DEV_REGION_H
#define DMAPOOL_COMPAT_USER_DEV_REGION_H

#include <stdint.h>

#include <dmapool/dmapool.h>

struct dp_region_info {
	void *vaddr;		/* the region after trimming to whole pages */
	uint64_t dma, size;
	uint64_t used;		/* bytes in chunks handed out now */
	uint64_t chunks;	/* chunks handed out now */
	uint64_t carved, returned;	/* so far */
	uint64_t failures;	/* chunk requests refused (full, alignment) */
	uint64_t bad_frees;	/* chunk_free of a range not handed out */
};

/* 0, or -EINVAL when @dev is not a region backend. */
int dp_dev_region_info(const struct dmapool_dev *dev,
		       struct dp_region_info *info);

#endif /* DMAPOOL_COMPAT_USER_DEV_REGION_H */
