/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * vfio_type1.h - the VFIO type1 IOMMU calls of a container: what the IOMMU
 * lets us map (VFIO_IOMMU_GET_INFO), map and unmap DMA memory.
 *
 * Used by the VFIO backend (dev_vfio.c) and by the device tests
 * (tests/device/vfio/vfio_dev.c), so the ioctl code exists once.  Every
 * ioctl goes through a dp_vfio_ioctl_fn so the backend's logic can be
 * tested against a fake container without a device (tests/unit/test_vfio.c);
 * dp_vfio_sys_ioctl is the real one.
 *
 * Every call returns 0 on success or the negative errno the kernel gave.
 * The errno each one returns, as seen on a Debian 6.12 guest with QEMU's
 * edu device behind emulated VT-d, is noted in vfio_type1.c.
 */
#ifndef DMAPOOL_COMPAT_USER_VFIO_TYPE1_H
#define DMAPOOL_COMPAT_USER_VFIO_TYPE1_H

#include <stdint.h>

/* ioctl(fd, req, arg): its result (>= 0) or -errno. */
typedef int (*dp_vfio_ioctl_fn)(int fd, unsigned long req, void *arg);

int dp_vfio_sys_ioctl(int fd, unsigned long req, void *arg);

/*
 * Usable IOVA ranges beyond this many are dropped (using fewer ranges than
 * exist is safe: it only leaves some IOVA space unused).
 */
#define DP_VFIO_MAX_RANGES	64

struct dp_vfio_iommu_info {
	uint64_t pgsizes;		/* bitmap of IOMMU page sizes */
	unsigned int nr_ranges;		/* 0: the kernel did not say */
	unsigned int ranges_dropped;	/* beyond DP_VFIO_MAX_RANGES */
	struct {
		uint64_t start, end;	/* inclusive */
	} ranges[DP_VFIO_MAX_RANGES];
	int64_t dma_avail;		/* mappings left (dma_entry_limit);
					 * -1 when the kernel did not say */
};

int dp_vfio_iommu_info(dp_vfio_ioctl_fn io, int container,
		       struct dp_vfio_iommu_info *info);

/*
 * Make [vaddr, vaddr + size) reachable by the devices of @container at
 * @iova.  @prot: VFIO_DMA_MAP_FLAG_READ (device reads) | _WRITE.
 */
int dp_vfio_map(dp_vfio_ioctl_fn io, int container, void *vaddr,
		uint64_t iova, uint64_t size, uint32_t prot);

/*
 * Remove the mapping(s) in [iova, iova + size); *unmapped (may be NULL)
 * gets the bytes the kernel removed, which is 0 and no error when nothing
 * was mapped there: callers must check it.
 */
int dp_vfio_unmap(dp_vfio_ioctl_fn io, int container, uint64_t iova,
		  uint64_t size, uint64_t *unmapped);

#endif /* DMAPOOL_COMPAT_USER_VFIO_TYPE1_H */
