// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The VFIO backend: chunks a real device reaches through the IOMMU.
 *
 * Memory comes in mappings: a fresh anonymous (or, with
 * DMAPOOL_VFIO_HUGEPAGES, huge page) mapping of the process, never shared
 * and never inherited by a child (MADV_DONTFORK, as pinned DMA memory must
 * be), that the device reaches only through one VFIO_IOMMU_MAP_DMA of its
 * own, at an IOVA taken from the window the application reserved for us
 * in its container (iova.c).  Chunks are carved out of a mapping
 * (carve.c), so a pool of 4 KiB blocks no longer spends one entry of the
 * container's mapping budget (dma_entry_limit, 65535 by default) per
 * block: a mapping is DP_VFIO_MAP_UNIT (2 MiB) by default, one huge page
 * with HUGEPAGES, and a chunk bigger than that gets a mapping of its own.
 * When the window has no room for a whole unit, a chunk gets a mapping of
 * exactly its size.  dmapool hands out the IOVA as the dma address.
 *
 * A mapping is removed once its last chunk comes back.  Until then a chunk
 * that went back stays reachable by the device (its memory zeroed by the
 * core, reused only for chunks of this backend, never returned to the
 * system while mapped).  DMAPOOL_VFIO_MAP_PER_CHUNK gives every chunk its
 * own mapping instead, so each is unmapped when it goes back.
 *
 * Order matters on the way back: unmap first (type1 unmaps and flushes the
 * IOTLB before the ioctl returns: the device has lost the pages), then
 * munmap, then make the IOVA reusable.  If the unmap fails, or removes
 * less than the mapping, the device may still reach the memory: the
 * mapping is then neither munmap'ed nor its IOVA reused (leaked and
 * counted), which is what the core does for a pool destroyed with blocks
 * in use.
 *
 * No allocator state lives in DMA memory: mappings, the IOVA allocator,
 * counters and errors are ordinary host memory.
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

#include "carve.h"
#include "dev.h"
#include "dev_vfio.h"
#include "iova.h"

#define VFIO_PROT	(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)
#define VFIO_FLAGS	(DMAPOOL_VFIO_QUERY_IOMMU | DMAPOOL_VFIO_HUGEPAGES | \
			 DMAPOOL_VFIO_MAP_PER_CHUNK)

/* One IOMMU mapping and the chunks carved out of it. */
struct vfio_map {
	struct dp_slab slab;		/* vaddr, iova, length, free space */
	struct vfio_map *next;
};

struct vfio_backend {
	pthread_mutex_t lock;		/* everything below */
	dp_vfio_ioctl_fn io;
	struct dp_vfio_env env;
	int container;
	bool own_fd;			/* close container at release */
	unsigned int flags;
	uint64_t base, size, max_chunks;
	uint64_t granule, pgsizes;
	uint64_t unit;			/* bytes per shared mapping; 0: one
					 * mapping per chunk */
	uint64_t huge;			/* huge page size, 0 without */
	struct dp_iova iova;
	struct vfio_map *maps;		/* mappings in use */
	uint64_t chunks_mapped;		/* mappings, incl. ones being made */
	uint64_t maps_done, unmaps, map_failures, unmap_failures, leaked;
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

/* The same, taking the lock, and counting a failed chunk. */
static int map_error(struct vfio_backend *b, int err, const char *fmt, ...)
{
	va_list ap;
	char what[sizeof(b->last_msg)];

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&b->lock);
	b->map_failures++;
	set_error(b, err, "%s", what);
	pthread_mutex_unlock(&b->lock);
	return err;
}

static uint64_t round_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* ---- huge pages ---------------------------------------------------- */

/* The system's default huge page size (/proc/meminfo), 0 if none. */
static uint64_t sys_huge_size(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

static int read_u64(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "re");
	unsigned long long x;
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%llu", &x) == 1;
	fclose(f);
	if (!ok)
		return -EIO;
	*v = x;
	return 0;
}

static int sys_huge_count(uint64_t size, uint64_t *total, uint64_t *free)
{
	char path[96];
	int ret;

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/hugepages/hugepages-%llukB/nr_hugepages",
		 (unsigned long long)(size >> 10));
	ret = read_u64(path, total);
	if (ret)
		return ret;
	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/hugepages/hugepages-%llukB/free_hugepages",
		 (unsigned long long)(size >> 10));
	return read_u64(path, free);
}

/*
 * @len bytes of huge pages (the default size) at an address aligned to
 * @align: mapped with room to spare, the slack cut off in whole huge pages.
 */
static void *sys_huge_map(size_t len, size_t align)
{
	size_t huge = (size_t)sys_huge_size(), span;
	uintptr_t base, start;
	void *p;

	if (!huge) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (align < huge)
		align = huge;
	span = len + align - huge;
	p = mmap(NULL, span, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	base = (uintptr_t)p;
	start = (base + align - 1) & ~(uintptr_t)(align - 1);
	if (start > base)
		munmap(p, start - base);
	if (base + span > start + len)
		munmap((void *)(start + len), base + span - (start + len));
	return (void *)start;
}

/* ---- chunks -------------------------------------------------------- */

/* Carve from a mapping we hold (lock held); 0 or -ENOSPC. */
static int carve_existing(struct vfio_backend *b, uint64_t len, uint64_t al,
			  void **vaddr, uint64_t *dma)
{
	struct vfio_map *m;

	for (m = b->maps; m; m = m->next)
		if (!dp_slab_carve(&m->slab, len, al, vaddr, dma))
			return 0;
	return -ENOSPC;
}

/*
 * Reserve the IOVA of a new mapping for a chunk of @len aligned to @al
 * (lock held): *mlen and *iova, 0 or a negative errno (recorded).
 */
static int reserve_mapping(struct vfio_backend *b, uint64_t len, uint64_t al,
			   uint64_t *mlen, uint64_t *iova)
{
	uint64_t ml = len, mal = al;
	int ret;

	if (b->huge) {
		ml = round_up(len, b->huge);
		mal = al > b->huge ? al : b->huge;
	} else if (b->unit && len <= b->unit && al <= b->unit) {
		ml = b->unit;
		mal = b->unit;
	}
	if (b->max_chunks && b->chunks_mapped >= b->max_chunks)
		return set_error(b, -ENOSPC, "max_chunks %llu reached",
				 (unsigned long long)b->max_chunks);
	ret = dp_iova_alloc(&b->iova, ml, mal, iova);
	if (ret == -ENOSPC && ml != len && !b->huge) {
		/* No room for a whole unit: a mapping of the chunk's size. */
		ml = len;
		mal = al;
		ret = dp_iova_alloc(&b->iova, ml, mal, iova);
	}
	if (ret)
		return set_error(b, ret,
				 "no free IOVA range of %llu bytes aligned to %llu in the window",
				 (unsigned long long)ml,
				 (unsigned long long)mal);
	b->chunks_mapped++;
	*mlen = ml;
	return 0;
}

/* Host memory for a new mapping; NULL with the error in *err, recorded. */
static void *mapping_memory(struct vfio_backend *b, uint64_t mlen,
			    uint64_t al, int *err)
{
	uint64_t total = 0, nfree = 0;
	void *p;

	if (!b->huge) {
		/* Aligned like its IOVA, so every chunk alignment holds. */
		p = dp_user_map_aligned(mlen, al > b->unit ? al : b->unit);
		if (!p)
			*err = map_error(b, -ENOMEM, "mmap of %llu bytes",
					 (unsigned long long)mlen);
		return p;
	}
	errno = 0;
	p = b->env.huge_map(mlen, al);
	if (p)
		return p;
	*err = errno ? -errno : -ENOMEM;
	if (b->env.huge_count(b->huge, &total, &nfree))
		total = nfree = 0;
	/* Short: last_error_msg holds 120 bytes, strerror included. */
	map_error(b, *err,
		  "mmap(MAP_HUGETLB, %llu KiB): %llu of %llu huge pages of %llu KiB free (vm.nr_hugepages)",
		  (unsigned long long)(mlen >> 10), (unsigned long long)nfree,
		  (unsigned long long)total, (unsigned long long)(b->huge >> 10));
	return NULL;
}

/* Undo reserve_mapping() after a failure. */
static void unreserve_mapping(struct vfio_backend *b, uint64_t iova,
			      uint64_t mlen)
{
	pthread_mutex_lock(&b->lock);
	dp_iova_free(&b->iova, iova, mlen);
	b->chunks_mapped--;
	pthread_mutex_unlock(&b->lock);
}

static int vfio_chunk_alloc(struct dmapool_dev *dev, size_t size,
			    size_t align, void **vaddr, dmapool_dma_t *dma)
{
	struct vfio_backend *b = dmapool_dev_priv(dev);
	uint64_t len, al, iova = 0, mlen = 0, d;
	struct vfio_map *m;
	void *p, *v;
	int ret;

	len = ((uint64_t)size + b->granule - 1) & ~(b->granule - 1);
	al = align > b->granule ? align : b->granule;
	if (!size || len < size || (al & (al - 1)) || len > SIZE_MAX)
		return map_error(b, -EINVAL, "chunk of %zu bytes aligned to %zu",
				 size, align);

	pthread_mutex_lock(&b->lock);
	if (!carve_existing(b, len, al, &v, &d)) {
		pthread_mutex_unlock(&b->lock);
		goto carved;
	}
	ret = reserve_mapping(b, len, al, &mlen, &iova);
	if (ret) {
		b->map_failures++;
		pthread_mutex_unlock(&b->lock);
		return ret;
	}
	pthread_mutex_unlock(&b->lock);

	m = calloc(1, sizeof(*m));
	if (!m) {
		unreserve_mapping(b, iova, mlen);
		return map_error(b, -ENOMEM, "host memory");
	}
	p = mapping_memory(b, mlen, al, &ret);
	if (!p) {
		free(m);
		unreserve_mapping(b, iova, mlen);
		return ret;
	}
	/* A child must not share (or copy-on-write) pinned DMA pages. */
	if (madvise(p, mlen, MADV_DONTFORK)) {
		ret = map_error(b, -errno, "madvise(MADV_DONTFORK)");
		goto undo_mem;
	}
	ret = dp_slab_init(&m->slab, p, iova, mlen, b->granule);
	if (ret) {
		map_error(b, ret, "host memory");
		goto undo_mem;
	}
	/* The slow part (pinning) runs without our lock. */
	ret = dp_vfio_map(b->io, b->container, p, iova, mlen, VFIO_PROT);
	if (ret) {
		/*
		 * The kernel undid whatever it had pinned and mapped: the
		 * IOVA and the memory are ours to reuse.
		 */
		map_error(b, ret, "VFIO_IOMMU_MAP_DMA(iova %#llx size %#llx)",
			  (unsigned long long)iova, (unsigned long long)mlen);
		dp_slab_fini(&m->slab);
		goto undo_mem;
	}
	pthread_mutex_lock(&b->lock);
	b->maps_done++;
	ret = dp_slab_carve(&m->slab, len, al, &v, &d);	/* fresh: fits */
	m->next = b->maps;
	b->maps = m;
	pthread_mutex_unlock(&b->lock);
	if (ret)
		return map_error(b, ret, "carving a fresh mapping");
carved:
	/* Fresh memory is zero; a reused range may hold a late DMA. */
	memset(v, 0, len);
	*vaddr = v;
	*dma = d;
	return 0;

undo_mem:
	munmap(p, mlen);
	free(m);
	unreserve_mapping(b, iova, mlen);
	return ret;
}

/*
 * The link to the mapping holding [vaddr, vaddr + len) (lock held); the
 * dma is checked against it by dp_slab_uncarve().
 */
static struct vfio_map **find_map(struct vfio_backend *b, void *vaddr,
				  uint64_t len)
{
	struct vfio_map **pm;

	for (pm = &b->maps; *pm; pm = &(*pm)->next)
		if (dp_slab_holds(&(*pm)->slab, vaddr, len))
			return pm;
	return NULL;
}

static void vfio_chunk_free(struct dmapool_dev *dev, void *vaddr,
			    dmapool_dma_t dma, size_t size)
{
	struct vfio_backend *b = dmapool_dev_priv(dev);
	uint64_t len = ((uint64_t)size + b->granule - 1) & ~(b->granule - 1);
	uint64_t unmapped = 0, iova, mlen;
	struct vfio_map **pm, *m;
	int ret;

	pthread_mutex_lock(&b->lock);
	pm = find_map(b, vaddr, len);
	if (!pm || dp_slab_uncarve(&(*pm)->slab, vaddr, dma, len)) {
		/* Not ours: touch neither the mapping nor the memory. */
		b->unmap_failures++;
		set_error(b, -EINVAL,
			  "chunk_free(iova %#llx size %#llx): not mapped by this backend",
			  (unsigned long long)dma, (unsigned long long)len);
		pthread_mutex_unlock(&b->lock);
		return;
	}
	m = *pm;
	if (dp_slab_used(&m->slab)) {
		pthread_mutex_unlock(&b->lock);
		return;		/* other chunks still live in this mapping */
	}
	/* Empty: nobody can carve from it once it is off the list. */
	*pm = m->next;
	pthread_mutex_unlock(&b->lock);

	iova = m->slab.dma;
	mlen = m->slab.len;
	ret = dp_vfio_unmap(b->io, b->container, iova, mlen, &unmapped);
	if (!ret && unmapped != mlen)
		ret = unmapped ? -EIO : -ENOENT;
	pthread_mutex_lock(&b->lock);
	if (ret) {
		/* The device may still reach it: keep memory and IOVA. */
		b->unmap_failures++;
		b->leaked += mlen;
		set_error(b, ret,
			  "VFIO_IOMMU_UNMAP_DMA(iova %#llx size %#llx) removed %llu bytes, chunk leaked",
			  (unsigned long long)iova, (unsigned long long)mlen,
			  (unsigned long long)unmapped);
		pthread_mutex_unlock(&b->lock);
		dp_slab_fini(&m->slab);
		free(m);
		return;
	}
	b->unmaps++;
	b->chunks_mapped--;
	pthread_mutex_unlock(&b->lock);

	munmap(m->slab.vaddr, mlen);
	dp_slab_fini(&m->slab);
	free(m);

	pthread_mutex_lock(&b->lock);
	ret = dp_iova_free(&b->iova, iova, mlen);
	if (ret)	/* only -ENOMEM: the IOVA stays used, never doubled */
		set_error(b, ret, "IOVA %#llx not made reusable",
			  (unsigned long long)iova);
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
	struct vfio_map *m;

	while ((m = b->maps)) {
		b->maps = m->next;
		dp_slab_fini(&m->slab);
		free(m);
	}
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
	if (cfg->flags & ~VFIO_FLAGS)
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

/*
 * How memory comes (lock not needed yet): the mapping unit, and with
 * DMAPOOL_VFIO_HUGEPAGES the huge page size and whether any is reserved.
 */
static int setup_memory(struct vfio_backend *b, const struct dp_vfio_env *env)
{
	uint64_t total = 0, nfree = 0;
	int ret;

	if (env)
		b->env = *env;
	if (!b->env.huge_count)
		b->env.huge_count = sys_huge_count;
	if (!b->env.huge_map)
		b->env.huge_map = sys_huge_map;
	if (b->flags & DMAPOOL_VFIO_MAP_PER_CHUNK) {
		if (b->flags & DMAPOOL_VFIO_HUGEPAGES)
			return -EINVAL;	/* a huge page is shared by design */
		b->unit = 0;
		return 0;
	}
	b->unit = b->env.map_unit ? b->env.map_unit : DP_VFIO_MAP_UNIT;
	if (b->unit & (b->unit - 1))
		return -EINVAL;
	if (b->unit < b->granule)
		b->unit = b->granule;
	if (!(b->flags & DMAPOOL_VFIO_HUGEPAGES))
		return 0;
	b->huge = b->env.huge_size ? b->env.huge_size : sys_huge_size();
	if (!b->huge || (b->huge & (b->huge - 1)))
		return -EOPNOTSUPP;	/* no hugetlb in this kernel */
	if (b->huge < b->granule)
		return -EINVAL;
	ret = b->env.huge_count(b->huge, &total, &nfree);
	if (ret)
		return ret == -ENOENT ? -EOPNOTSUPP : ret;
	/* None reserved: no chunk could ever come; say so now. */
	if (!total)
		return -ENOMEM;
	b->unit = b->huge;
	return 0;
}

int dp_dev_vfio_create_env(const struct dmapool_vfio_cfg *cfg,
			   dp_vfio_ioctl_fn io, bool own_fd,
			   const struct dp_vfio_env *env,
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
	if (!ret)
		ret = setup_memory(b, env);
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

int dp_dev_vfio_create_io(const struct dmapool_vfio_cfg *cfg,
			  dp_vfio_ioctl_fn io, bool own_fd,
			  struct dmapool_dev **devp)
{
	return dp_dev_vfio_create_env(cfg, io, own_fd, NULL, devp);
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
	info->maps = b->maps_done;
	info->unmaps = b->unmaps;
	info->map_failures = b->map_failures;
	info->unmap_failures = b->unmap_failures;
	info->leaked_bytes = b->leaked;
	info->last_error = b->last_error;
	memcpy(info->last_error_msg, b->last_msg, sizeof(info->last_error_msg));
	pthread_mutex_unlock(&b->lock);
	return 0;
}
