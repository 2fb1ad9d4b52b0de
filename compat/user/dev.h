/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * A userspace DMA backend: an ops table, its private data, a reference count.
 */
#ifndef DMAPOOL_COMPAT_USER_DEV_H
#define DMAPOOL_COMPAT_USER_DEV_H

#include <dmapool/dmapool.h>

struct dmapool_dev {
	const struct dmapool_dev_ops *ops;
	void *priv;
	unsigned long refs;
};

/*
 * @size bytes of fresh, zeroed, private anonymous memory whose address is a
 * multiple of @align (a power of two): what the heap and VFIO backends hand
 * out as chunks.  NULL on failure.
 */
void *dp_user_map_aligned(size_t size, size_t align);

#endif /* DMAPOOL_COMPAT_USER_DEV_H */
