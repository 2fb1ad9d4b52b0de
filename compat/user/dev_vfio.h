/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * dev_vfio.h - library-internal entries of the VFIO backend: the same as
 * dmapool_dev_vfio_create() with the ioctl function and the memory source
 * supplied, so tests can run the backend's logic against a fake container
 * and fake huge pages (no device, no reserved huge pages needed).
 */
#ifndef DMAPOOL_COMPAT_USER_DEV_VFIO_H
#define DMAPOOL_COMPAT_USER_DEV_VFIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dmapool/dmapool.h>

#include "vfio_type1.h"

/*
 * Flags of struct dmapool_vfio_cfg beyond DMAPOOL_VFIO_QUERY_IOMMU, meant
 * for dmapool.h (defined here until the public header has them; the values
 * are the ABI):
 *  HUGEPAGES      mappings are huge pages (MAP_HUGETLB, the system's
 *                 default huge page size), one VFIO_IOMMU_MAP_DMA per huge
 *                 page, chunks carved inside; create fails with ENOMEM
 *                 when the system has no huge page reserved.
 *  MAP_PER_CHUNK  one mapping per chunk, exactly its size (0.1's
 *                 behaviour): a chunk that goes back is unmapped at once,
 *                 at the price of one dma_entry_limit entry per chunk.
 */
#ifndef DMAPOOL_VFIO_HUGEPAGES
#define DMAPOOL_VFIO_HUGEPAGES		0x2u
#endif
#ifndef DMAPOOL_VFIO_MAP_PER_CHUNK
#define DMAPOOL_VFIO_MAP_PER_CHUNK	0x4u
#endif

/* Bytes per shared mapping by default: 65535 of them cover 128 GiB. */
#define DP_VFIO_MAP_UNIT	(2ull << 20)

/* Where the backend's memory comes from; NULL members: the system's. */
struct dp_vfio_env {
	uint64_t map_unit;		/* 0: DP_VFIO_MAP_UNIT */
	uint64_t huge_size;		/* 0: the system's default */
	/* Huge pages of @size reserved (total, free), or a negative errno. */
	int (*huge_count)(uint64_t size, uint64_t *total, uint64_t *free);
	/* @len bytes of huge pages aligned to @align; NULL and errno set. */
	void *(*huge_map)(size_t len, size_t align);
};

/* @own_fd: close cfg->container_fd when the dev goes. */
int dp_dev_vfio_create_io(const struct dmapool_vfio_cfg *cfg,
			  dp_vfio_ioctl_fn io, bool own_fd,
			  struct dmapool_dev **devp);
/* The same with @env (NULL: the system's memory). */
int dp_dev_vfio_create_env(const struct dmapool_vfio_cfg *cfg,
			   dp_vfio_ioctl_fn io, bool own_fd,
			   const struct dp_vfio_env *env,
			   struct dmapool_dev **devp);

#endif /* DMAPOOL_COMPAT_USER_DEV_VFIO_H */
