/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * vfio_dev.h - the few VFIO steps a userspace driver needs, type1 IOMMU:
 * bind a PCI function to vfio-pci, open container/group/device, map a BAR,
 * touch config space, map and unmap DMA memory at IOVAs of our choosing.
 *
 * Written for tests/device/vfio (QEMU's edu device in a guest).  The type1
 * IOMMU calls (query, map, unmap) are the library's own
 * (compat/user/vfio_type1.c, also used by the VFIO backend dev_vfio.c): link
 * with libdmapool and put compat/user on the include path.  What is here is
 * what an application does before it hands its container to the backend.
 *
 * Every int-returning function returns 0 (or a count) on success and a
 * negative errno on failure; vfio_last_error() then says which step failed
 * and why, e.g. "VFIO_GROUP_SET_CONTAINER: Device or resource busy".
 * The errno each step returned when we provoked it is noted in vfio_dev.c.
 */
#ifndef DMAPOOL_TESTS_VFIO_DEV_H
#define DMAPOOL_TESTS_VFIO_DEV_H

#include <stddef.h>
#include <stdint.h>

#define VFIO_DEV_MAX_RANGES	16

struct vfio_dev {
	int container;		/* /dev/vfio/vfio */
	int group;		/* /dev/vfio/<group_id> */
	int device;		/* from VFIO_GROUP_GET_DEVICE_FD */
	int group_id;
	unsigned int num_regions;
	uint64_t cfg_offset;	/* config space region, offset in device fd */
	char bdf[32];		/* "0000:00:01.0" */
};

/* What the type1 IOMMU lets us map (VFIO_IOMMU_GET_INFO). */
struct vfio_iommu_caps {
	uint64_t pgsizes;	/* bitmap of supported IOMMU page sizes */
	unsigned int nr_ranges;	/* usable IOVA ranges, [start, end] inclusive */
	struct {
		uint64_t start, end;
	} ranges[VFIO_DEV_MAX_RANGES];
	long dma_avail;		/* mappings left (type1 dma_entry_limit), -1 unknown */
};

const char *vfio_last_error(void);

/* sysfs: find a function by ids; bind it to vfio-pci; its IOMMU group. */
int vfio_pci_find(uint16_t vendor, uint16_t device, char *bdf, size_t len);
int vfio_pci_bind(const char *bdf);
int vfio_pci_group(const char *bdf);

/* Container + group + type1v2 IOMMU + device fd. Closes all on failure. */
int vfio_dev_open(struct vfio_dev *vd, const char *bdf);
void vfio_dev_close(struct vfio_dev *vd);

int vfio_iommu_query(struct vfio_dev *vd, struct vfio_iommu_caps *caps);
/* Is [iova, iova + size) inside one usable range? */
int vfio_iova_usable(const struct vfio_iommu_caps *caps, uint64_t iova,
		     uint64_t size);

/* BAR index 0..5 -> mmap'd registers (NULL on failure), size returned. */
volatile void *vfio_bar_map(struct vfio_dev *vd, unsigned int bar,
			    size_t *size);
void vfio_bar_unmap(volatile void *regs, size_t size);

int vfio_cfg_read(struct vfio_dev *vd, unsigned int off, void *buf,
		  size_t len);
int vfio_cfg_write(struct vfio_dev *vd, unsigned int off, const void *buf,
		   size_t len);
int vfio_bus_master(struct vfio_dev *vd, int on);

/*
 * Make [vaddr, vaddr + size) reachable by the device at IOVA iova (both page
 * aligned). prot: VFIO_DMA_MAP_FLAG_READ (device reads) | _WRITE.
 * The pages are pinned until unmapped. Unmap takes whole mappings only
 * (type1v2); *unmapped (may be NULL) gets the byte count the kernel removed.
 */
int vfio_dma_map(struct vfio_dev *vd, void *vaddr, uint64_t iova,
		 uint64_t size, uint32_t prot);
int vfio_dma_unmap(struct vfio_dev *vd, uint64_t iova, uint64_t size,
		   uint64_t *unmapped);

#endif /* DMAPOOL_TESTS_VFIO_DEV_H */
