// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * vfio_type1.c - VFIO type1 IOMMU ioctls of a container (see vfio_type1.h).
 *
 * Errno notes: "seen:" is what the Debian 6.12 guest kernel returned when
 * tests/device/ provoked the failure (edu behind emulated VT-d); "doc:"
 * is what the 6.12 source (drivers/vfio/) says and we did not provoke.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/vfio.h>

#include "vfio_type1.h"

int dp_vfio_sys_ioctl(int fd, unsigned long req, void *arg)
{
	int ret = ioctl(fd, req, arg);

	return ret < 0 ? -errno : ret;
}

/* The capability chain: a linked list of offsets from the start of @buf. */
static void parse_caps(const uint8_t *buf, size_t len, uint32_t off,
		       struct dp_vfio_iommu_info *info)
{
	const struct vfio_info_cap_header *h;
	const struct vfio_iommu_type1_info_cap_iova_range *r;
	const struct vfio_iommu_type1_info_dma_avail *d;
	uint32_t i;

	while (off && off <= len && len - off >= sizeof(*h)) {
		h = (const void *)(buf + off);
		if (h->id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE &&
		    len - off >= sizeof(*r)) {
			r = (const void *)h;
			for (i = 0; i < r->nr_iovas; i++) {
				if ((len - off - sizeof(*r)) /
				    sizeof(r->iova_ranges[0]) <= i)
					break;	/* truncated: stop */
				if (info->nr_ranges == DP_VFIO_MAX_RANGES) {
					info->ranges_dropped++;
					continue;
				}
				info->ranges[info->nr_ranges].start =
					r->iova_ranges[i].start;
				info->ranges[info->nr_ranges].end =
					r->iova_ranges[i].end;
				info->nr_ranges++;
			}
		} else if (h->id == VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL &&
			   len - off >= sizeof(*d)) {
			d = (const void *)h;
			info->dma_avail = d->avail;
		}
		if (h->next <= off)
			break;	/* malformed or last: never loop */
		off = h->next;
	}
}

/*
 * seen: EINVAL on a container whose IOMMU is not set yet (the container
 * answers every unknown ioctl with EINVAL until VFIO_SET_IOMMU); ENOTTY
 * on an fd that is not a VFIO container (/dev/null).
 */
int dp_vfio_iommu_info(dp_vfio_ioctl_fn io, int container,
		       struct dp_vfio_iommu_info *info)
{
	struct vfio_iommu_type1_info *ti;
	size_t len = sizeof(*ti);
	int ret, tries;

	memset(info, 0, sizeof(*info));
	info->dma_avail = -1;
	/* The first call says how big the info with its capabilities is. */
	for (tries = 0; tries < 4; tries++) {
		ti = calloc(1, len);
		if (!ti)
			return -ENOMEM;
		ti->argsz = (uint32_t)len;
		ret = io(container, VFIO_IOMMU_GET_INFO, ti);
		if (ret < 0 || ti->argsz <= len)
			break;
		len = ti->argsz;
		free(ti);
		ti = NULL;
	}
	if (!ti)
		return -EOVERFLOW;	/* the size kept growing: give up */
	if (ret >= 0) {
		ret = 0;
		if (ti->flags & VFIO_IOMMU_INFO_PGSIZES)
			info->pgsizes = ti->iova_pgsizes;
		if ((ti->flags & VFIO_IOMMU_INFO_CAPS) && ti->argsz <= len)
			parse_caps((const uint8_t *)ti, ti->argsz,
				   ti->cap_offset, info);
	}
	free(ti);
	return ret;
}

/*
 * seen (type1v2):
 *   EINVAL  size not a multiple of the IOMMU page size;
 *   EINVAL  iova range outside the usable IOVA ranges (the x86 MSI window
 *           0xfee00000-0xfeefffff);
 *   EEXIST  iova range overlaps an existing mapping of the container;
 *   EFAULT  vaddr range has no accessible memory (pinning fails);
 *   ENOSPC  the container holds dma_entry_limit mappings already
 *           (vfio_iommu_type1 parameter, 65535 by default).
 * doc: EINVAL for an unaligned iova/vaddr, size 0 or a wrapping range;
 * ENOMEM when the pinned pages would pass RLIMIT_MEMLOCK of a process
 * without CAP_IPC_LOCK.
 */
int dp_vfio_map(dp_vfio_ioctl_fn io, int container, void *vaddr,
		uint64_t iova, uint64_t size, uint32_t prot)
{
	struct vfio_iommu_type1_dma_map m = {
		.argsz = sizeof(m),
		.flags = prot,
		.vaddr = (uintptr_t)vaddr,
		.iova = iova,
		.size = size,
	};
	int ret = io(container, VFIO_IOMMU_MAP_DMA, &m);

	return ret < 0 ? ret : 0;
}

/*
 * seen (type1v2): EINVAL for a range that starts or ends inside a mapping
 * (v2 unmaps whole mappings only); a range with no mapping succeeds and
 * reports 0 bytes.
 */
int dp_vfio_unmap(dp_vfio_ioctl_fn io, int container, uint64_t iova,
		  uint64_t size, uint64_t *unmapped)
{
	struct vfio_iommu_type1_dma_unmap u = {
		.argsz = sizeof(u),
		.iova = iova,
		.size = size,
	};
	int ret = io(container, VFIO_IOMMU_UNMAP_DMA, &u);

	if (ret < 0)
		return ret;
	if (unmapped)
		*unmapped = u.size;
	return 0;
}
