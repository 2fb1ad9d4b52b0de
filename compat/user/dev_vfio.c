// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The VFIO backend: chunks a real device reaches through the IOMMU.
 *
 * A chunk is a fresh anonymous mapping of the process (never shared, never
 * inherited by a child: MADV_DONTFORK, as pinned DMA memory must be) that
 * the device can reach only through one VFIO_IOMMU_MAP_DMA mapping of its
 * own, at an IOVA taken from a window the application reserved for us in
 * its container (iova.c).  dmapool hands out that IOVA as the dma address.
 * One mapping per chunk keeps unmap exact (type1v2 removes whole mappings
 * only) and lets every chunk go back on its own; the price is one entry of
 * the container's mapping budget (dma_entry_limit) per chunk, so pools of
 * small blocks should use a larger chunk_size.
 *
 * Order matters on the way back: unmap first (type1 unmaps and flushes the
 * IOTLB before the ioctl returns: the device has lost the pages), then
 * munmap, then make the IOVA reusable.  If the unmap fails, or removes
 * less than the chunk, the device may still reach the memory: the chunk is
 * then neither munmap'ed nor its IOVA reused (leaked and counted), which is
 * what the core does for a pool destroyed with blocks in use.
 *
 * No allocator state lives in the chunks: the IOVA allocator, counters and
 * errors are ordinary host memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/vfio.h>

#include "dev.h"
#include "dev_vfio.h"
#include "iova.h"

#define VFIO_PROT	(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)

struct vfio_backend {
	pthread_mutex_t lock;		/* everything below */
	dp_vfio_ioctl_fn io;
	int container;
	bool own_fd;			/* close container at release */
	unsigned int flags;
	uint64_t base, size, max_chunks;
	uint64_t granule, pgsizes;
	struct dp_iova iova;
	uint64_t chunks_mapped;		/* incl. ones being mapped right now */
	uint64_t maps, unmaps, map_failures, unmap_failures, leaked;
	int last_error;
	char last_msg[sizeof(((struct dmapool_vfio_info *)0)->last_error_msg)];
};

/* Record "<what>: <strerror>" as the last error (lock held); returns err. */
static int set_error(struct vfio_backend *b, int err, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(b->last_msg, sizeof(b->last_msg), fmt, ap);
	va_end(ap);
	n = strlen(b->last_msg);
	snprintf(b->last_msg + n, sizeof(b->last_msg) - n, ": %s",
		 strerror(-err));
	b->last_error = err;
	return err;
}

static int vfio_chunk_alloc(struct dmapool_dev *dev, size_t size,
			    size_t align, void **vaddr, dmapool_dma_t *dma)
{
	struct vfio_backend *b = dmapool_dev_priv(dev);
	uint64_t len, al, iova;
	void *p;
	int ret;

	len = ((uint64_t)size + b->granule - 1) & ~(b->granule - 1);
	al = align > b->granule ? align : b->granule;
	if (!size || len < size || (al & (al - 1)) || len > SIZE_MAX) {
		pthread_mutex_lock(&b->lock);
		b->map_failures++;
		ret = set_error(b, -EINVAL, "chunk of %zu bytes aligned to %zu",
				size, align);
		pthread_mutex_unlock(&b->lock);
		return ret;
	}
	p = dp_user_map_aligned(len, al);
	if (!p) {
		ret = -ENOMEM;
		pthread_mutex_lock(&b->lock);
		b->map_failures++;
		set_error(b, ret, "mmap of %llu bytes",
			  (unsigned long long)len);
		pthread_mutex_unlock(&b->lock);
		return ret;
	}
	/* A child must not share (or copy-on-write) pinned DMA pages. */
	if (madvise(p, len, MADV_DONTFORK)) {
		ret = -errno;
		munmap(p, len);
		pthread_mutex_lock(&b->lock);
		b->map_failures++;
		set_error(b, ret, "madvise(MADV_DONTFORK)");
		pthread_mutex_unlock(&b->lock);
		return ret;
	}

	pthread_mutex_lock(&b->lock);
	if (b->max_chunks && b->chunks_mapped >= b->max_chunks) {
		ret = set_error(b, -ENOSPC, "max_chunks %llu reached",
				(unsigned long long)b->max_chunks);
	} else {
		ret = dp_iova_alloc(&b->iova, len, al, &iova);
		if (ret)
			set_error(b, ret,
				  "no free IOVA range of %llu bytes aligned to %llu in the window",
				  (unsigned long long)len,
				  (unsigned long long)al);
		else
			b->chunks_mapped++;
	}
	if (ret) {
		b->map_failures++;
		pthread_mutex_unlock(&b->lock);
		munmap(p, len);
		return ret;
	}
	pthread_mutex_unlock(&b->lock);

	/* The slow part (pinning) runs without our lock. */
	ret = dp_vfio_map(b->io, b->container, p, iova, len, VFIO_PROT);
	pthread_mutex_lock(&b->lock);
	if (ret) {
		/*
		 * The kernel undid whatever it had pinned and mapped: the
		 * IOVA and the memory are ours to reuse.
		 */
		dp_iova_free(&b->iova, iova, len);
		b->chunks_mapped--;
		b->map_failures++;
		set_error(b, ret, "VFIO_IOMMU_MAP_DMA(iova %#llx size %#llx)",
			  (unsigned long long)iova, (unsigned long long)len);
	} else {
		b->maps++;
	}
	pthread_mutex_unlock(&b->lock);
	if (ret) {
		munmap(p, len);
		return ret;
	}
	*vaddr = p;
	*dma = iova;
	return 0;
}

static void vfio_chunk_free(struct dmapool_dev *dev, void *vaddr,
			    dmapool_dma_t dma, size_t size)
{
	struct vfio_backend *b = dmapool_dev_priv(dev);
	uint64_t len = ((uint64_t)size + b->granule - 1) & ~(b->granule - 1);
	uint64_t unmapped = 0;
	int ret;

	pthread_mutex_lock(&b->lock);
	if (!dp_iova_is_allocated(&b->iova, dma, len)) {
		/* Not ours: touch neither the mapping nor the memory. */
		b->unmap_failures++;
		set_error(b, -EINVAL,
			  "chunk_free(iova %#llx size %#llx): not mapped by this backend",
			  (unsigned long long)dma, (unsigned long long)len);
		pthread_mutex_unlock(&b->lock);
		return;
	}
	pthread_mutex_unlock(&b->lock);

	ret = dp_vfio_unmap(b->io, b->container, dma, len, &unmapped);
	if (!ret && unmapped != len)
		ret = unmapped ? -EIO : -ENOENT;
	pthread_mutex_lock(&b->lock);
	if (ret) {
		/* The device may still reach it: keep memory and IOVA. */
		b->unmap_failures++;
		b->leaked += len;
		set_error(b, ret,
			  "VFIO_IOMMU_UNMAP_DMA(iova %#llx size %#llx) removed %llu bytes, chunk leaked",
			  (unsigned long long)dma, (unsigned long long)len,
			  (unsigned long long)unmapped);
		pthread_mutex_unlock(&b->lock);
		return;
	}
	b->unmaps++;
	b->chunks_mapped--;
	pthread_mutex_unlock(&b->lock);

	munmap(vaddr, len);

	pthread_mutex_lock(&b->lock);
	ret = dp_iova_free(&b->iova, dma, len);
	if (ret)	/* only -ENOMEM: the IOVA stays used, never doubled */
		set_error(b, ret, "IOVA %#llx not made reusable",
			  (unsigned long long)dma);
	pthread_mutex_unlock(&b->lock);
}

/*
 * Last put.  Chunks still mapped belong to pools destroyed with blocks in
 * use (or failed an unmap): a device may still use them, so they stay
 * mapped and allocated; only our bookkeeping goes.
 */
static void vfio_release(struct dmapool_dev *dev)
{
	struct vfio_backend *b = dmapool_dev_priv(dev);

	if (b->own_fd)
		close(b->container);
	dp_iova_fini(&b->iova);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static const struct dmapool_dev_ops vfio_ops = {
	.chunk_alloc = vfio_chunk_alloc,
	.chunk_free = vfio_chunk_free,
	.release = vfio_release,
};

static int check_cfg(const struct dmapool_vfio_cfg *cfg, uint64_t page)
{
	size_t i;

	if (cfg->container_fd < 0)
		return -EBADF;
	if (cfg->flags & ~DMAPOOL_VFIO_QUERY_IOMMU)
		return -EINVAL;
	for (i = 0; i < sizeof(cfg->reserved) / sizeof(cfg->reserved[0]); i++)
		if (cfg->reserved[i])
			return -EINVAL;
	if (!cfg->iova_size || ((cfg->iova_base | cfg->iova_size) & (page - 1)))
		return -EINVAL;
	if (cfg->iova_base + (cfg->iova_size - 1) < cfg->iova_base)
		return -EINVAL;
	return 0;
}

/* Ask the IOMMU; cut the window to its usable ranges and page sizes. */
static int setup_window(struct vfio_backend *b)
{
	struct dp_vfio_iommu_info *info;
	uint64_t last = b->base + (b->size - 1), lo, hi, minpg;
	unsigned int i;
	int ret = 0;

	if (!(b->flags & DMAPOOL_VFIO_QUERY_IOMMU))
		return dp_iova_add(&b->iova, b->base, last);

	info = calloc(1, sizeof(*info));
	if (!info)
		return -ENOMEM;
	ret = dp_vfio_iommu_info(b->io, b->container, info);
	if (ret)
		goto out;
	b->pgsizes = info->pgsizes;
	if (info->pgsizes) {
		minpg = info->pgsizes & -info->pgsizes;
		if (minpg > b->granule) {
			b->granule = minpg;
			dp_iova_fini(&b->iova);
			ret = dp_iova_init(&b->iova, minpg);
			if (ret)
				goto out;
		}
	}
	if (!info->nr_ranges) {
		ret = dp_iova_add(&b->iova, b->base, last);
		goto out;
	}
	for (i = 0; i < info->nr_ranges && !ret; i++) {
		lo = info->ranges[i].start > b->base ? info->ranges[i].start :
						       b->base;
		hi = info->ranges[i].end < last ? info->ranges[i].end : last;
		if (lo <= hi)
			ret = dp_iova_add(&b->iova, lo, hi);
	}
out:
	free(info);
	if (!ret && !b->iova.total)
		ret = -ERANGE;	/* no usable IOVA in the window */
	return ret;
}

int dp_dev_vfio_create_io(const struct dmapool_vfio_cfg *cfg,
			  dp_vfio_ioctl_fn io, bool own_fd,
			  struct dmapool_dev **devp)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct vfio_backend *b;
	struct dmapool_dev *dev;
	int ret;

	if (!devp)
		return -EINVAL;
	*devp = NULL;
	if (!cfg || !io)
		return -EINVAL;
	ret = check_cfg(cfg, page);
	if (ret)
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->io = io;
	b->container = cfg->container_fd;
	b->own_fd = own_fd;
	b->flags = cfg->flags;
	b->base = cfg->iova_base;
	b->size = cfg->iova_size;
	b->max_chunks = cfg->max_chunks;
	b->granule = page;
	ret = dp_iova_init(&b->iova, page);
	if (!ret)
		ret = setup_window(b);
	if (ret) {
		dp_iova_fini(&b->iova);
		free(b);
		return ret;
	}
	pthread_mutex_init(&b->lock, NULL);
	dev = dmapool_dev_new(&vfio_ops, b);
	if (!dev) {
		dp_iova_fini(&b->iova);
		pthread_mutex_destroy(&b->lock);
		free(b);
		return -ENOMEM;
	}
	*devp = dev;
	return 0;
}

/*
 * The backend keeps a duplicate of the container fd: the container (and
 * the mappings of live chunks) then lasts as long as the dev, and an fd
 * number the application closes and reuses can never reach another file.
 */
int dmapool_dev_vfio_create(const struct dmapool_vfio_cfg *cfg,
			    struct dmapool_dev **devp)
{
	struct dmapool_vfio_cfg mine;
	int ret;

	if (!cfg || !devp) {
		if (devp)
			*devp = NULL;
		return -EINVAL;
	}
	mine = *cfg;
	if (cfg->container_fd >= 0) {
		mine.container_fd = fcntl(cfg->container_fd, F_DUPFD_CLOEXEC, 3);
		if (mine.container_fd < 0) {
			*devp = NULL;
			return -errno;
		}
	}
	ret = dp_dev_vfio_create_io(&mine, dp_vfio_sys_ioctl, true, devp);
	if (ret && mine.container_fd >= 0)
		close(mine.container_fd);
	return ret;
}

struct dmapool_dev *dmapool_dev_vfio(int container_fd, uint64_t iova_base,
				     uint64_t iova_size)
{
	struct dmapool_vfio_cfg cfg = {
		.container_fd = container_fd,
		.flags = DMAPOOL_VFIO_QUERY_IOMMU,
		.iova_base = iova_base,
		.iova_size = iova_size,
	};
	struct dmapool_dev *dev;
	int ret = dmapool_dev_vfio_create(&cfg, &dev);

	if (ret)
		errno = -ret;
	return dev;
}

int dmapool_dev_vfio_info(const struct dmapool_dev *dev,
			  struct dmapool_vfio_info *info)
{
	struct vfio_backend *b;
	struct dp_vfio_iommu_info *ii;

	if (!dev || !info || dev->ops != &vfio_ops)
		return -EINVAL;
	b = dev->priv;
	memset(info, 0, sizeof(*info));
	info->dma_avail = -1;
	/* Live from the kernel: the container's budget is shared. */
	if (b->flags & DMAPOOL_VFIO_QUERY_IOMMU) {
		ii = calloc(1, sizeof(*ii));
		if (ii && !dp_vfio_iommu_info(b->io, b->container, ii))
			info->dma_avail = ii->dma_avail;
		free(ii);
	}
	pthread_mutex_lock(&b->lock);
	info->iova_base = b->base;
	info->iova_size = b->size;
	info->iova_usable = b->iova.total;
	info->iova_mapped = b->iova.in_use;
	info->granule = b->granule;
	info->iommu_pgsizes = b->pgsizes;
	info->chunks_mapped = b->chunks_mapped;
	info->maps = b->maps;
	info->unmaps = b->unmaps;
	info->map_failures = b->map_failures;
	info->unmap_failures = b->unmap_failures;
	info->leaked_bytes = b->leaked;
	info->last_error = b->last_error;
	memcpy(info->last_error_msg, b->last_msg, sizeof(info->last_error_msg));
	pthread_mutex_unlock(&b->lock);
	return 0;
}
