// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The VFIO backend without a device: its IOVA allocator (reuse after free,
 * ranges with holes, alignment, exhaustion, validation, a random model
 * check) and the backend's logic against a fake type1 container that
 * answers the way the 6.12 kernel does (EINVAL for unaligned or reserved
 * IOVAs, EEXIST for overlaps, ENOSPC past dma_entry_limit, whole-mapping
 * unmaps).  The fake also checks the order on the way back: a chunk's
 * memory must still be there when it is unmapped.
 *
 * The real kernel path is tests/device (edu behind emulated VT-d).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/vfio.h>

#include <criterion/criterion.h>

#include "testlib.h"
#include "dev.h"
#include "dev_vfio.h"
#include "iova.h"

#define PG		4096ull
#define FAKE_FD		77
#define FAKE_MAX_MAPS	256
/* 0.1's mode: each chunk its own mapping (the tests written for it). */
#define PER_CHUNK	(DMAPOOL_VFIO_QUERY_IOMMU | DMAPOOL_VFIO_MAP_PER_CHUNK)
#define MIB		(1ull << 20)

/* ------------------------------------------------------------------ */
/* The IOVA allocator.                                                 */

Test(vfio_iova, lowest_first_aligned_and_reused_after_free)
{
	struct dp_iova a;
	uint64_t x[4], y;
	int i;

	cr_assert_eq(dp_iova_init(&a, PG), 0);
	cr_assert_eq(dp_iova_add(&a, 0x100000, 0x1fffff), 0);
	cr_assert_eq(a.total, 0x100000);
	for (i = 0; i < 4; i++) {
		cr_assert_eq(dp_iova_alloc(&a, PG, PG, &x[i]), 0);
		cr_assert_eq(x[i], 0x100000 + i * PG);
	}
	/* Alignment skips ahead, leaving the gap usable. */
	cr_assert_eq(dp_iova_alloc(&a, 2 * PG, 0x10000, &y), 0);
	cr_assert_eq(y, 0x110000);
	cr_assert_eq(dp_iova_alloc(&a, PG, PG, &y), 0);
	cr_assert_eq(y, 0x104000, "the gap before the aligned one is reused");
	cr_assert_eq(dp_iova_free(&a, y, PG), 0);
	/* Free the middle two: they merge and serve a 2-page request. */
	cr_assert_eq(dp_iova_free(&a, x[1], PG), 0);
	cr_assert_eq(dp_iova_free(&a, x[2], PG), 0);
	cr_assert_eq(dp_iova_alloc(&a, 2 * PG, PG, &y), 0);
	cr_assert_eq(y, x[1]);
	cr_assert_eq(a.in_use, 6 * PG);
	dp_iova_fini(&a);
}

Test(vfio_iova, ranges_with_holes_are_respected)
{
	struct dp_iova a;
	uint64_t x;
	int i;

	cr_assert_eq(dp_iova_init(&a, PG), 0);
	/* Like x86: usable below and above the MSI window. */
	cr_assert_eq(dp_iova_add(&a, 0xfed00000, 0xfedfffff), 0);
	cr_assert_eq(dp_iova_add(&a, 0xfef00000, 0xfeffffff), 0);
	cr_assert_eq(dp_iova_add(&a, 0xfedff000, 0xfee00fff), -EEXIST);
	for (i = 0; i < 512; i++) {
		cr_assert_eq(dp_iova_alloc(&a, PG, PG, &x), 0);
		cr_assert(x < 0xfee00000 || x > 0xfeefffff,
			  "iova %#llx in the hole", (unsigned long long)x);
	}
	cr_assert_eq(dp_iova_alloc(&a, PG, PG, &x), -ENOSPC);
	/* A free range spanning the hole never existed. */
	cr_assert_eq(dp_iova_free(&a, 0xfedff000, 0x102000), -EINVAL);
	dp_iova_fini(&a);

	/* Bigger than each range, smaller than their sum: no fit. */
	cr_assert_eq(dp_iova_init(&a, PG), 0);
	cr_assert_eq(dp_iova_add(&a, 0, 3 * PG - 1), 0);
	cr_assert_eq(dp_iova_add(&a, 5 * PG, 8 * PG - 1), 0);
	cr_assert_eq(dp_iova_alloc(&a, 4 * PG, PG, &x), -ENOSPC);
	cr_assert_eq(dp_iova_alloc(&a, 3 * PG, PG, &x), 0);
	cr_assert_eq(x, 0);
	dp_iova_fini(&a);
}

Test(vfio_iova, adjacent_ranges_behave_as_one)
{
	struct dp_iova a;
	uint64_t x;

	cr_assert_eq(dp_iova_init(&a, PG), 0);
	cr_assert_eq(dp_iova_add(&a, 2 * PG, 4 * PG - 1), 0);
	cr_assert_eq(dp_iova_add(&a, 0, 2 * PG - 1), 0);
	cr_assert_eq(a.navail, 1, "merged into one free extent");
	cr_assert_eq(dp_iova_alloc(&a, 4 * PG, PG, &x), 0);
	cr_assert_eq(x, 0);
	cr_assert(dp_iova_is_allocated(&a, 0, 4 * PG));
	cr_assert_eq(dp_iova_free(&a, 0, 4 * PG), 0);
	dp_iova_fini(&a);
}

Test(vfio_iova, exhaustion_then_recovery)
{
	struct dp_iova a;
	uint64_t x[8], y;
	int i;

	cr_assert_eq(dp_iova_init(&a, PG), 0);
	cr_assert_eq(dp_iova_add(&a, 0x40000000, 0x40000000 + 8 * PG - 1), 0);
	for (i = 0; i < 8; i++)
		cr_assert_eq(dp_iova_alloc(&a, PG, PG, &x[i]), 0);
	cr_assert_eq(dp_iova_alloc(&a, PG, PG, &y), -ENOSPC);
	cr_assert_eq(a.in_use, a.total);
	cr_assert_eq(dp_iova_free(&a, x[5], PG), 0);
	cr_assert_eq(dp_iova_alloc(&a, PG, PG, &y), 0);
	cr_assert_eq(y, x[5]);
	/* Alignment larger than anything left: no fit although space is. */
	cr_assert_eq(dp_iova_free(&a, x[1], PG), 0);
	cr_assert_eq(dp_iova_alloc(&a, PG, 0x100000, &y), -ENOSPC);
	dp_iova_fini(&a);
}

Test(vfio_iova, bad_calls_are_refused_and_change_nothing)
{
	struct dp_iova a;
	uint64_t x, y;

	cr_assert_eq(dp_iova_init(&a, 3000), -EINVAL);
	cr_assert_eq(dp_iova_init(&a, PG), 0);
	/* Trimmed inwards to whole pages; nothing whole: nothing added. */
	cr_assert_eq(dp_iova_add(&a, 100, PG + 50), 0);
	cr_assert_eq(a.total, 0);
	cr_assert_eq(dp_iova_add(&a, 100, 3 * PG + 50), 0);
	cr_assert_eq(a.total, 2 * PG, "[PG, 3 PG) survives the trim");
	cr_assert_eq(dp_iova_add(&a, 5, 4), -EINVAL);
	cr_assert_eq(dp_iova_alloc(&a, PG, PG, &x), 0);
	cr_assert_eq(x, PG);
	cr_assert_eq(dp_iova_alloc(&a, 0, PG, &y), -EINVAL);
	cr_assert_eq(dp_iova_alloc(&a, 100, PG, &y), -EINVAL);
	cr_assert_eq(dp_iova_alloc(&a, PG, 3 * PG, &y), -EINVAL);
	cr_assert_eq(dp_iova_free(&a, x + 1, PG), -EINVAL);
	cr_assert_eq(dp_iova_free(&a, x, PG + 1), -EINVAL);
	cr_assert_eq(dp_iova_free(&a, 8 * PG, PG), -EINVAL, "outside");
	cr_assert_eq(dp_iova_free(&a, x, PG), 0);
	cr_assert_eq(dp_iova_free(&a, x, PG), -EINVAL, "double free");
	cr_assert_eq(a.in_use, 0);
	dp_iova_fini(&a);
}

Test(vfio_iova, window_at_the_top_of_the_address_space)
{
	struct dp_iova a;
	uint64_t x;

	cr_assert_eq(dp_iova_init(&a, PG), 0);
	cr_assert_eq(dp_iova_add(&a, UINT64_MAX - 4 * PG + 1, UINT64_MAX), 0);
	cr_assert_eq(a.total, 4 * PG);
	cr_assert_eq(dp_iova_alloc(&a, 4 * PG, PG, &x), 0);
	cr_assert_eq(x, UINT64_MAX - 4 * PG + 1);
	cr_assert_eq(dp_iova_alloc(&a, PG, PG, &x), -ENOSPC);
	cr_assert_eq(dp_iova_free(&a, UINT64_MAX - PG + 1, PG), 0);
	cr_assert_eq(dp_iova_alloc(&a, PG, 1ull << 63, &x), -ENOSPC);
	cr_assert_eq(dp_iova_alloc(&a, PG, PG, &x), 0);
	cr_assert_eq(x, UINT64_MAX - PG + 1);
	dp_iova_fini(&a);
}

/* Random allocs and frees, checked granule by granule against a model. */
Test(vfio_iova, random_sequence_matches_a_model)
{
	enum { NG = 512, LIVE = 64 };
	static uint8_t owner[NG];	/* 0 free, else live slot + 1 */
	struct { uint64_t iova, size; } live[LIVE];
	uint64_t rng = 0x5eed, base = 0x800000, x, g;
	struct dp_iova a;
	int nlive = 0, i, step, ret;

	cr_assert_eq(dp_iova_init(&a, PG), 0);
	/* Two ranges with a hole of 16 granules in between. */
	cr_assert_eq(dp_iova_add(&a, base, base + 300 * PG - 1), 0);
	cr_assert_eq(dp_iova_add(&a, base + 316 * PG, base + NG * PG - 1), 0);
	for (step = 0; step < 20000; step++) {
		uint64_t r = tl_rand(&rng);

		if (nlive < LIVE && (r & 3) != 0) {
			uint64_t size = (1 + (r >> 8) % 8) * PG;
			uint64_t align = PG << ((r >> 16) % 5);

			ret = dp_iova_alloc(&a, size, align, &x);
			if (ret) {
				cr_assert_eq(ret, -ENOSPC);
				continue;
			}
			cr_assert_eq(x % align, 0);
			cr_assert(x >= base && x + size <= base + NG * PG);
			for (g = (x - base) / PG; g < (x + size - base) / PG; g++) {
				cr_assert(g < 300 || g >= 316,
					  "granule %llu in the hole",
					  (unsigned long long)g);
				cr_assert_eq(owner[g], 0, "granule %llu given twice",
					     (unsigned long long)g);
				owner[g] = (uint8_t)(nlive + 1);
			}
			live[nlive].iova = x;
			live[nlive].size = size;
			nlive++;
		} else if (nlive) {
			i = (int)((r >> 8) % (uint64_t)nlive);
			cr_assert(dp_iova_is_allocated(&a, live[i].iova,
						       live[i].size));
			cr_assert_eq(dp_iova_free(&a, live[i].iova,
						  live[i].size), 0);
			for (g = (live[i].iova - base) / PG;
			     g < (live[i].iova + live[i].size - base) / PG; g++)
				owner[g] = 0;
			live[i] = live[--nlive];
			/* Renumber the moved entry's granules. */
			if (i < nlive)
				for (g = (live[i].iova - base) / PG;
				     g < (live[i].iova + live[i].size - base) / PG;
				     g++)
					owner[g] = (uint8_t)(i + 1);
		}
	}
	for (i = 0; i < nlive; i++)
		cr_assert_eq(dp_iova_free(&a, live[i].iova, live[i].size), 0);
	cr_assert_eq(a.in_use, 0);
	cr_assert_eq(a.navail, 2, "fully freed: one extent per range");
	dp_iova_fini(&a);
}

/* ------------------------------------------------------------------ */
/* A fake type1 container.                                             */

struct fake_map {
	uint64_t iova, size;
	void *vaddr;
};

static struct fake {
	uint64_t pgsizes;
	unsigned int nr_ranges;
	struct vfio_iova_range ranges[4];
	int64_t dma_avail;
	int info_errno;			/* GET_INFO fails with this */
	int map_errno, map_fail_count;	/* the next N maps fail */
	int unmap_errno;		/* every unmap fails with this */
	int unmap_nothing;		/* unmaps "succeed" removing 0 bytes */
	struct fake_map maps[FAKE_MAX_MAPS];
	int nmaps;
	int order_violations;		/* unmapped after munmap */
	int calls_map, calls_unmap;
} fk;

static void fake_reset(void)
{
	memset(&fk, 0, sizeof(fk));
	fk.pgsizes = 0x40201000;	/* 4K 2M 1G, what VT-d reported */
	fk.nr_ranges = 2;
	fk.ranges[0].start = 0;
	fk.ranges[0].end = 0xfedfffff;
	fk.ranges[1].start = 0xfef00000;
	fk.ranges[1].end = 0x7fffffffffull;
	fk.dma_avail = 65535;
}

/* Is [p, p + len) mapped in this process? */
static int mapped(void *p, size_t len)
{
	return msync(p, len, MS_ASYNC) == 0;
}

static int fake_info(struct vfio_iommu_type1_info *ti)
{
	size_t need, rangeoff, availoff;
	struct vfio_iommu_type1_info_cap_iova_range *r;
	struct vfio_iommu_type1_info_dma_avail *d;
	unsigned int i;

	if (fk.info_errno)
		return -fk.info_errno;
	rangeoff = sizeof(*ti);
	availoff = rangeoff + sizeof(*r) + fk.nr_ranges * sizeof(r->iova_ranges[0]);
	need = availoff + sizeof(*d);
	ti->flags = VFIO_IOMMU_INFO_PGSIZES | VFIO_IOMMU_INFO_CAPS;
	ti->iova_pgsizes = fk.pgsizes;
	if (ti->argsz < need) {
		ti->argsz = (uint32_t)need;
		ti->cap_offset = 0;
		return 0;
	}
	ti->argsz = (uint32_t)need;
	ti->cap_offset = (uint32_t)rangeoff;
	r = (void *)((char *)ti + rangeoff);
	r->header.id = VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE;
	r->header.version = 1;
	r->header.next = (uint32_t)availoff;
	r->nr_iovas = fk.nr_ranges;
	for (i = 0; i < fk.nr_ranges; i++)
		r->iova_ranges[i] = fk.ranges[i];
	d = (void *)((char *)ti + availoff);
	d->header.id = VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL;
	d->header.version = 1;
	d->header.next = 0;
	d->avail = (uint32_t)fk.dma_avail;
	return 0;
}

static int fake_map(struct vfio_iommu_type1_dma_map *m)
{
	uint64_t pg = fk.pgsizes & -fk.pgsizes, last;
	unsigned int i;
	int k;

	fk.calls_map++;
	if (fk.map_fail_count > 0) {
		fk.map_fail_count--;
		return -fk.map_errno;
	}
	if (!m->size || ((m->size | m->iova | m->vaddr) & (pg - 1)))
		return -EINVAL;
	last = m->iova + m->size - 1;
	for (k = 0; k < fk.nmaps; k++)
		if (m->iova <= fk.maps[k].iova + fk.maps[k].size - 1 &&
		    last >= fk.maps[k].iova)
			return -EEXIST;
	if (!fk.dma_avail)
		return -ENOSPC;
	for (i = 0; i < fk.nr_ranges; i++)
		if (m->iova >= fk.ranges[i].start && last <= fk.ranges[i].end)
			break;
	if (i == fk.nr_ranges)
		return -EINVAL;
	if (!mapped((void *)(uintptr_t)m->vaddr, m->size))
		return -EFAULT;
	cr_assert_lt(fk.nmaps, FAKE_MAX_MAPS);
	fk.maps[fk.nmaps].iova = m->iova;
	fk.maps[fk.nmaps].size = m->size;
	fk.maps[fk.nmaps].vaddr = (void *)(uintptr_t)m->vaddr;
	fk.nmaps++;
	fk.dma_avail--;
	return 0;
}

static int fake_unmap(struct vfio_iommu_type1_dma_unmap *u)
{
	uint64_t last = u->iova + u->size - 1, done = 0;
	int k;

	fk.calls_unmap++;
	if (fk.unmap_errno)
		return -fk.unmap_errno;
	if (fk.unmap_nothing) {
		u->size = 0;
		return 0;
	}
	/* type1v2: a mapping cut by either end is an error. */
	for (k = 0; k < fk.nmaps; k++) {
		uint64_t mf = fk.maps[k].iova, ml = mf + fk.maps[k].size - 1;

		if (ml < u->iova || mf > last)
			continue;
		if (mf < u->iova || ml > last)
			return -EINVAL;
	}
	for (k = 0; k < fk.nmaps; k++) {
		uint64_t mf = fk.maps[k].iova, ml = mf + fk.maps[k].size - 1;

		if (mf < u->iova || ml > last)
			continue;
		if (!mapped(fk.maps[k].vaddr, fk.maps[k].size))
			fk.order_violations++;
		done += fk.maps[k].size;
		fk.maps[k] = fk.maps[--fk.nmaps];
		fk.dma_avail++;
		k--;
	}
	u->size = done;
	return 0;
}

/* The kernel serializes a container's ioctls with its own lock. */
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	if (fd != FAKE_FD)
		return -EBADF;
	pthread_mutex_lock(&fake_lock);
	switch (req) {
	case VFIO_IOMMU_GET_INFO:
		ret = fake_info(arg);
		break;
	case VFIO_IOMMU_MAP_DMA:
		ret = fake_map(arg);
		break;
	case VFIO_IOMMU_UNMAP_DMA:
		ret = fake_unmap(arg);
		break;
	default:
		ret = -ENOTTY;
	}
	pthread_mutex_unlock(&fake_lock);
	return ret;
}

static struct dmapool_dev *fake_dev(uint64_t base, uint64_t size,
				    unsigned int flags, uint64_t max_chunks)
{
	struct dmapool_vfio_cfg cfg = {
		.container_fd = FAKE_FD,
		.flags = flags,
		.iova_base = base,
		.iova_size = size,
		.max_chunks = max_chunks,
	};
	struct dmapool_dev *dev = NULL;
	int ret = dp_dev_vfio_create_io(&cfg, fake_ioctl, false, &dev);

	cr_assert_eq(ret, 0, "create: %d", ret);
	cr_assert_not_null(dev);
	return dev;
}

static struct dmapool_vfio_info vinfo(struct dmapool_dev *dev)
{
	struct dmapool_vfio_info vi;

	cr_assert_eq(dmapool_dev_vfio_info(dev, &vi), 0);
	return vi;
}

/* The chunk that @dma lies in, from the fake's mappings. */
static const struct fake_map *fake_find(uint64_t dma)
{
	int k;

	for (k = 0; k < fk.nmaps; k++)
		if (dma >= fk.maps[k].iova &&
		    dma - fk.maps[k].iova < fk.maps[k].size)
			return &fk.maps[k];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The backend.                                                        */

Test(vfio_backend, create_refuses_bad_configurations)
{
	struct dmapool_vfio_cfg ok = {
		.container_fd = FAKE_FD,
		.flags = DMAPOOL_VFIO_QUERY_IOMMU,
		.iova_base = 0x1000000,
		.iova_size = 0x100000,
	}, c;
	struct dmapool_dev *dev = (void *)1;

	fake_reset();
	cr_assert_eq(dp_dev_vfio_create_io(NULL, fake_ioctl, false, &dev), -EINVAL);
	cr_assert_null(dev, "*devp cleared on failure");
	cr_assert_eq(dp_dev_vfio_create_io(&ok, fake_ioctl, false, NULL), -EINVAL);
	c = ok;
	c.container_fd = -1;
	cr_assert_eq(dp_dev_vfio_create_io(&c, fake_ioctl, false, &dev), -EBADF);
	c = ok;
	c.iova_size = 0;
	cr_assert_eq(dp_dev_vfio_create_io(&c, fake_ioctl, false, &dev), -EINVAL);
	c = ok;
	c.iova_base += 100;
	cr_assert_eq(dp_dev_vfio_create_io(&c, fake_ioctl, false, &dev), -EINVAL);
	c = ok;
	c.iova_size = 0x1800;
	cr_assert_eq(dp_dev_vfio_create_io(&c, fake_ioctl, false, &dev), -EINVAL);
	c = ok;
	c.iova_base = UINT64_MAX - PG + 1;
	c.iova_size = 2 * PG;
	cr_assert_eq(dp_dev_vfio_create_io(&c, fake_ioctl, false, &dev), -EINVAL,
		     "wrapping window");
	c = ok;
	c.flags |= 0x80;
	cr_assert_eq(dp_dev_vfio_create_io(&c, fake_ioctl, false, &dev), -EINVAL);
	c = ok;
	c.reserved[2] = 1;
	cr_assert_eq(dp_dev_vfio_create_io(&c, fake_ioctl, false, &dev), -EINVAL);
	/* Entirely inside the x86 MSI hole: nothing usable. */
	c = ok;
	c.iova_base = 0xfee00000;
	c.iova_size = 0x100000;
	cr_assert_eq(dp_dev_vfio_create_io(&c, fake_ioctl, false, &dev), -ERANGE);
	/* The kernel's answer to GET_INFO is passed on. */
	fk.info_errno = EINVAL;
	cr_assert_eq(dp_dev_vfio_create_io(&ok, fake_ioctl, false, &dev), -EINVAL);
	fk.info_errno = 0;
	c = ok;
	c.container_fd = FAKE_FD + 1;
	cr_assert_eq(dp_dev_vfio_create_io(&c, fake_ioctl, false, &dev), -EBADF);
	cr_assert_null(dev);
	/* Without the query the window is taken as given. */
	c = ok;
	c.flags = 0;
	c.iova_base = 0xfee00000;
	cr_assert_eq(dp_dev_vfio_create_io(&c, fake_ioctl, false, &dev), 0);
	cr_assert_eq(vinfo(dev).iommu_pgsizes, 0);
	cr_assert_eq(vinfo(dev).dma_avail, -1);
	cr_assert_eq(vinfo(dev).iova_usable, 0x100000);
	dmapool_dev_put(dev);
	cr_assert_eq(fk.calls_map + fk.calls_unmap, 0);
}

/* How many fds this process has open. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	cr_assert_not_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

Test(vfio_backend, real_ioctl_errors_without_a_device)
{
	struct dmapool_dev *dev;
	int fd = open("/dev/null", O_RDWR), nfds = open_fds();

	cr_assert_geq(fd, 0);
	errno = 0;
	dev = dmapool_dev_vfio(fd, 0x1000000, 0x100000);
	cr_assert_null(dev);
	cr_assert_eq(errno, ENOTTY, "GET_INFO on /dev/null: %d", errno);
	close(fd);
	errno = 0;
	dev = dmapool_dev_vfio(fd, 0x1000000, 0x100000);
	cr_assert_null(dev);
	cr_assert_eq(errno, EBADF, "GET_INFO on a closed fd: %d", errno);
	cr_assert_eq(dmapool_dev_vfio_info(NULL, NULL), -EINVAL);

	/* The failed creates above kept no duplicate of the fd. */
	cr_assert_eq(open_fds(), nfds - 1, "an fd leaked");
	fd = open("/dev/null", O_RDWR);
	/*
	 * Without the query nothing is asked at create; the dev holds its own
	 * duplicate, so closing ours changes nothing: the first map reaches
	 * the same file (/dev/null: ENOTTY), not a closed number (EBADF).
	 */
	{
		struct dmapool_vfio_cfg cfg = {
			.container_fd = fd,
			.iova_base = 0x1000000,
			.iova_size = 0x100000,
		};
		struct dmapool *pool;
		dmapool_dma_t d;

		nfds = open_fds();
		cr_assert_eq(dmapool_dev_vfio_create(&cfg, &dev), 0);
		cr_assert_eq(open_fds(), nfds + 1, "the dev holds a duplicate");
		close(fd);
		pool = tl_pool(dev, 64, 0, 0);
		cr_assert_not_null(pool);
		cr_assert_null(dmapool_alloc(pool, 0, &d));
		cr_assert_eq(vinfo(dev).last_error, -ENOTTY, "%s",
			     vinfo(dev).last_error_msg);
		dmapool_destroy(pool);
		dmapool_dev_put(dev);
		cr_assert_eq(open_fds(), nfds - 1, "the duplicate was closed");
	}
	dev = tl_heap();
	{
		struct dmapool_vfio_info vi;

		cr_assert_eq(dmapool_dev_vfio_info(dev, &vi), -EINVAL,
			     "a heap dev is not a VFIO dev");
	}
	dmapool_dev_put(dev);
}

Test(vfio_backend, per_chunk_blocks_live_at_mapped_iovas_and_all_go_back)
{
	const uint64_t base = 0x2000000, size = 0x400000;
	struct dmapool_dev *dev;
	struct dmapool *pool;
	struct dmapool_stats st;
	struct dmapool_vfio_info vi;
	void *v[200];
	dmapool_dma_t d[200];
	int i;

	fake_reset();
	tl_reset();
	dev = fake_dev(base, size, PER_CHUNK, 0);
	pool = tl_pool(dev, 256, 64, 0);
	cr_assert_not_null(pool);
	for (i = 0; i < 200; i++) {
		const struct fake_map *m;

		v[i] = dmapool_alloc(pool, 0, &d[i]);
		cr_assert_not_null(v[i]);
		/* dma is the IOVA; the mapping behind it holds vaddr. */
		cr_assert(d[i] >= base && d[i] + 256 <= base + size);
		cr_assert_eq(d[i] % 64, 0);
		m = fake_find(d[i]);
		cr_assert_not_null(m, "dma %#llx not mapped",
				   (unsigned long long)d[i]);
		cr_assert_eq((char *)v[i] - (char *)m->vaddr,
			     (ptrdiff_t)(d[i] - m->iova));
		memset(v[i], 0x5a, 256);	/* the memory is real */
	}
	dmapool_get_stats(pool, &st);
	vi = vinfo(dev);
	cr_assert_eq((uint64_t)fk.nmaps, st.chunks);
	cr_assert_eq(vi.chunks_mapped, st.chunks);
	cr_assert_eq(vi.maps, st.chunks);
	cr_assert_eq(vi.iova_mapped, st.chunks * st.chunk_size);
	cr_assert_eq(vi.granule, PG);
	cr_assert_eq(vi.iommu_pgsizes, 0x40201000);
	cr_assert_eq(vi.dma_avail, 65535 - (int64_t)st.chunks,
		     "dma_avail asked live");
	for (i = 0; i < 200; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	vi = vinfo(dev);
	cr_assert_eq(fk.nmaps, 0, "every chunk unmapped");
	cr_assert_eq(fk.order_violations, 0, "unmapped before munmap");
	cr_assert_eq(vi.unmaps, vi.maps);
	cr_assert_eq(vi.chunks_mapped, 0);
	cr_assert_eq(vi.iova_mapped, 0);
	cr_assert_eq(vi.map_failures + vi.unmap_failures, 0);
	cr_assert_eq(vi.last_error, 0);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_dev_put(dev);
}

/* Every block at an IOVA the fake has mapped, at the same offset. */
static void check_mapped_block(const void *v, dmapool_dma_t d, size_t size,
			       uint64_t base, uint64_t wsize)
{
	const struct fake_map *m;

	cr_assert(d >= base && d + size <= base + wsize);
	m = fake_find(d);
	cr_assert_not_null(m, "dma %#llx not mapped", (unsigned long long)d);
	cr_assert_eq((const char *)v - (char *)m->vaddr,
		     (ptrdiff_t)(d - m->iova));
	cr_assert(d + size <= m->iova + m->size, "block crosses its mapping");
}

Test(vfio_backend, chunks_are_carved_from_2mib_mappings)
{
	const uint64_t base = 0x2000000, size = 0x1000000;
	enum { N = 1000 };
	static void *v[N];
	static dmapool_dma_t d[N];
	struct dmapool_dev *dev;
	struct dmapool *pool;
	struct dmapool_stats st;
	struct dmapool_vfio_info vi;
	uint64_t first_map;
	int i, k;

	fake_reset();
	tl_reset();
	dev = fake_dev(base, size, DMAPOOL_VFIO_QUERY_IOMMU, 0);
	/* One 4 KiB chunk per block: 1000 chunks, two 2 MiB mappings. */
	pool = tl_pool(dev, 4096, 0, 0);
	cr_assert_not_null(pool);
	for (i = 0; i < N; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		cr_assert_not_null(v[i], "alloc %d: %s", i,
				   vinfo(dev).last_error_msg);
		check_mapped_block(v[i], d[i], 4096, base, size);
		memset(v[i], 0x5a, 4096);	/* the memory is real */
	}
	dmapool_get_stats(pool, &st);
	cr_assert_geq(st.chunks, N / 2, "chunks of one or two blocks");
	cr_assert_eq(fk.nmaps, 2, "%d mappings for %llu chunks", fk.nmaps,
		     (unsigned long long)st.chunks);
	for (k = 0; k < fk.nmaps; k++) {
		cr_assert_eq(fk.maps[k].size, 2 * MIB);
		cr_assert_eq(fk.maps[k].iova % (2 * MIB), 0);
		cr_assert_eq((uintptr_t)fk.maps[k].vaddr % (2 * MIB), 0,
			     "vaddr aligned like the IOVA");
	}
	vi = vinfo(dev);
	cr_assert_eq(vi.chunks_mapped, 2);
	cr_assert_eq(vi.maps, 2);
	cr_assert_eq(vi.iova_mapped, 4 * MIB);
	cr_assert_eq(vi.dma_avail, 65535 - 2);
	/* Emptying the first mapping unmaps it; the second stays. */
	first_map = fake_find(d[0])->iova;
	for (i = 0; i < N; i++)
		if (d[i] - first_map < 2 * MIB) {
			dmapool_free(pool, v[i], d[i]);
			v[i] = NULL;
		}
	cr_assert_eq(dmapool_shrink(pool) > 0, 1);
	cr_assert_eq(fk.nmaps, 1, "the emptied mapping went");
	cr_assert_null(fake_find(first_map));
	cr_assert_eq(vinfo(dev).unmaps, 1);
	/* The pool grows into the same IOVA again. */
	for (i = 0; i < N; i++)
		if (!v[i]) {
			v[i] = dmapool_alloc(pool, 0, &d[i]);
			cr_assert_not_null(v[i]);
			check_mapped_block(v[i], d[i], 4096, base, size);
		}
	cr_assert_eq(fk.nmaps, 2);
	cr_assert_not_null(fake_find(first_map));
	for (i = 0; i < N; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	vi = vinfo(dev);
	cr_assert_eq(fk.nmaps, 0, "every mapping removed");
	cr_assert_eq(fk.order_violations, 0, "unmapped before munmap");
	cr_assert_eq(vi.unmaps, vi.maps);
	cr_assert_eq(vi.chunks_mapped, 0);
	cr_assert_eq(vi.iova_mapped, 0);
	cr_assert_eq(vi.map_failures + vi.unmap_failures, 0);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_dev_put(dev);
}

Test(vfio_backend, small_blocks_do_not_exhaust_the_entry_limit)
{
	enum { N = 2048 };
	static void *v[N];
	static dmapool_dma_t d[N];
	struct dmapool_dev *dev;
	struct dmapool *pool;
	int i, n;

	/* A container with 8 mappings left, like a busy application's. */
	fake_reset();
	fk.dma_avail = 8;
	dev = fake_dev(0x10000000, 0x2000000, DMAPOOL_VFIO_QUERY_IOMMU, 0);
	pool = tl_pool(dev, 4096, 4096, 0);
	for (i = 0; i < N; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		cr_assert_not_null(v[i], "block %d: %s", i,
				   vinfo(dev).last_error_msg);
	}
	cr_assert_eq(fk.nmaps, 4, "8 MiB of 4 KiB blocks in 4 mappings");
	for (i = 0; i < N; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);

	/* One mapping per chunk: the same pool stops at the limit. */
	fake_reset();
	fk.dma_avail = 8;
	dev = fake_dev(0x10000000, 0x2000000, PER_CHUNK, 0);
	pool = tl_pool(dev, 4096, 4096, 0);
	for (n = 0; n < N && (v[n] = dmapool_alloc(pool, 0, &d[n])); n++)
		;
	cr_assert_eq(n, 8);
	cr_assert_eq(vinfo(dev).last_error, -ENOSPC);
	cr_assert(strstr(vinfo(dev).last_error_msg, "VFIO_IOMMU_MAP_DMA"));
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	cr_assert_eq(fk.nmaps, 0);
	dmapool_dev_put(dev);
}

Test(vfio_backend, big_chunks_and_small_windows_get_mappings_of_their_size)
{
	struct dmapool_opts o;
	struct dmapool_dev *dev;
	struct dmapool *big, *small;
	dmapool_dma_t d1, d2, d3;
	void *v1, *v2, *v3;

	fake_reset();
	dev = fake_dev(0x20000000, 0x1000000, DMAPOOL_VFIO_QUERY_IOMMU, 0);
	dmapool_opts_init(&o);
	tl_opts(&o);
	o.chunk_size = 4 * MIB;	/* bigger than a unit */
	big = dmapool_create_opts("big", dev, 4096, 4096, 0, &o);
	cr_assert_not_null(big);
	cr_assert_not_null(v1 = dmapool_alloc(big, 0, &d1));
	cr_assert_eq(fk.nmaps, 1);
	cr_assert_eq(fake_find(d1)->size, 4 * MIB);
	/* Small chunks share a unit of their own, not the big mapping. */
	small = tl_pool(dev, 64, 64, 0);
	cr_assert_not_null(v2 = dmapool_alloc(small, 0, &d2));
	cr_assert_eq(fk.nmaps, 2);
	cr_assert_eq(fake_find(d2)->size, 2 * MIB);
	dmapool_free(big, v1, d1);
	dmapool_free(small, v2, d2);
	dmapool_destroy(big);
	dmapool_destroy(small);
	cr_assert_eq(fk.nmaps, 0);
	dmapool_dev_put(dev);

	/* A window of 1 MiB holds no unit: one mapping per chunk. */
	fake_reset();
	dev = fake_dev(0x20000000, MIB, DMAPOOL_VFIO_QUERY_IOMMU, 0);
	small = tl_pool(dev, 4096, 0, 0);
	cr_assert_not_null(v2 = dmapool_alloc(small, 0, &d2));
	cr_assert_not_null(v3 = dmapool_alloc(small, 0, &d3));
	cr_assert_eq(fk.nmaps, 2);
	cr_assert_eq(fake_find(d2)->size, PG);
	dmapool_free(small, v2, d2);
	dmapool_free(small, v3, d3);
	dmapool_destroy(small);
	cr_assert_eq(fk.nmaps, 0);
	dmapool_dev_put(dev);
}

/* ------------------------------------------------------------------ */
/* Huge pages, faked: what the backend asks for and what it does.      */

static struct {
	uint64_t total, nfree;		/* what the "system" reserved */
	int count_errno;		/* huge_count fails with this */
	int maps;			/* huge_map calls that succeeded */
	size_t last_len, last_align;
} fh;

static int fake_huge_count(uint64_t size, uint64_t *total, uint64_t *nfree)
{
	cr_assert_eq(size, 2 * MIB);
	if (fh.count_errno)
		return -fh.count_errno;
	*total = fh.total;
	*nfree = fh.nfree;
	return 0;
}

/* Ordinary memory at a huge page alignment, as long as pages are free. */
static void *fake_huge_map(size_t len, size_t align)
{
	void *p;

	fh.last_len = len;
	fh.last_align = align;
	if (len % (2 * MIB) || len / (2 * MIB) > fh.nfree) {
		errno = ENOMEM;
		return NULL;
	}
	p = dp_user_map_aligned(len, align > 2 * MIB ? align : 2 * MIB);
	if (p) {
		fh.nfree -= len / (2 * MIB);
		fh.maps++;
	}
	return p;
}

static const struct dp_vfio_env huge_env = {
	.huge_size = 2 * MIB,
	.huge_count = fake_huge_count,
	.huge_map = fake_huge_map,
};

static int huge_dev(uint64_t base, uint64_t size, unsigned int flags,
		    struct dmapool_dev **devp)
{
	struct dmapool_vfio_cfg cfg = {
		.container_fd = FAKE_FD,
		.flags = flags,
		.iova_base = base,
		.iova_size = size,
	};

	return dp_dev_vfio_create_env(&cfg, fake_ioctl, false, &huge_env,
				      devp);
}

Test(vfio_hugepages, one_mapping_per_huge_page_chunks_inside)
{
	const unsigned int fl = DMAPOOL_VFIO_QUERY_IOMMU | DMAPOOL_VFIO_HUGEPAGES;
	enum { N = 1024 };
	static void *v[N];
	static dmapool_dma_t d[N];
	struct dmapool_dev *dev;
	struct dmapool *pool;
	struct dmapool_vfio_info vi;
	int i, k, n;

	fake_reset();
	memset(&fh, 0, sizeof(fh));
	fh.total = fh.nfree = 2;
	cr_assert_eq(huge_dev(0x40000000, 0x1000000, fl, &dev), 0);
	pool = tl_pool(dev, 2048, 2048, 0);
	/* Two huge pages hold 2048 blocks of 2 KiB; then the pages run out. */
	for (n = 0; n < N; n++) {
		v[n] = dmapool_alloc(pool, 0, &d[n]);
		cr_assert_not_null(v[n], "block %d: %s", n,
				   vinfo(dev).last_error_msg);
		check_mapped_block(v[n], d[n], 2048, 0x40000000, 0x1000000);
	}
	cr_assert_eq(fh.maps, 1, "1024 blocks of 2 KiB fill one huge page");
	cr_assert_eq(fk.nmaps, 1);
	for (k = 0; k < fk.nmaps; k++) {
		cr_assert_eq(fk.maps[k].size, 2 * MIB);
		cr_assert_eq(fk.maps[k].iova % (2 * MIB), 0);
	}
	for (i = 0; i < N; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	cr_assert_eq(fk.nmaps, 0);
	cr_assert_eq(fh.maps, 1);

	/* More than the reserve: a clean NULL and an error that says why. */
	fh.nfree = 1;
	pool = tl_pool(dev, 4096, 4096, 0);
	for (n = 0; n < 513; n++) {
		v[n % N] = dmapool_alloc(pool, 0, &d[n % N]);
		if (!v[n % N])
			break;
	}
	cr_assert_eq(n, 512, "one free huge page holds 512 chunks of 4 KiB");
	vi = vinfo(dev);
	cr_assert_eq(vi.last_error, -ENOMEM);
	cr_assert(strstr(vi.last_error_msg, "MAP_HUGETLB") &&
		  strstr(vi.last_error_msg, "0 of 2 huge pages of 2048 KiB free"),
		  "%s", vi.last_error_msg);
	cr_assert_eq(vi.chunks_mapped, 1, "the failed mapping's IOVA went back");
	cr_assert_eq(vi.iova_mapped, 2 * MIB);
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	cr_assert_eq(fk.nmaps, 0);
	cr_assert_eq(fk.order_violations, 0);
	dmapool_dev_put(dev);
}

Test(vfio_hugepages, big_chunks_take_several_pages_in_one_mapping)
{
	const unsigned int fl = DMAPOOL_VFIO_QUERY_IOMMU | DMAPOOL_VFIO_HUGEPAGES;
	struct dmapool_opts o;
	struct dmapool_dev *dev;
	struct dmapool *pool;
	dmapool_dma_t d;
	void *v;

	fake_reset();
	memset(&fh, 0, sizeof(fh));
	fh.total = fh.nfree = 4;
	cr_assert_eq(huge_dev(0x40000000, 0x1000000, fl, &dev), 0);
	dmapool_opts_init(&o);
	tl_opts(&o);
	o.chunk_size = 3 * MIB;		/* rounded up to two huge pages */
	pool = dmapool_create_opts("big", dev, 4096, 4096, 0, &o);
	cr_assert_not_null(pool);
	cr_assert_not_null(v = dmapool_alloc(pool, 0, &d));
	cr_assert_eq(fh.last_len, 4 * MIB);
	cr_assert_eq(fk.nmaps, 1);
	cr_assert_eq(fake_find(d)->size, 4 * MIB);
	dmapool_free(pool, v, d);
	dmapool_destroy(pool);
	cr_assert_eq(fk.nmaps, 0);
	dmapool_dev_put(dev);
}

Test(vfio_hugepages, create_says_when_there_are_none)
{
	const unsigned int fl = DMAPOOL_VFIO_QUERY_IOMMU | DMAPOOL_VFIO_HUGEPAGES;
	struct dmapool_dev *dev;

	fake_reset();
	memset(&fh, 0, sizeof(fh));
	/* None reserved: ENOMEM at create, not at some later alloc. */
	cr_assert_eq(huge_dev(0x40000000, 0x1000000, fl, &dev), -ENOMEM);
	cr_assert_null(dev);
	/* A kernel without hugetlb (no sysfs directory for the size). */
	fh.count_errno = ENOENT;
	cr_assert_eq(huge_dev(0x40000000, 0x1000000, fl, &dev), -EOPNOTSUPP);
	/* A huge page is shared by its chunks: not with one per chunk. */
	fh.count_errno = 0;
	fh.total = fh.nfree = 1;
	cr_assert_eq(huge_dev(0x40000000, 0x1000000,
			      fl | DMAPOOL_VFIO_MAP_PER_CHUNK, &dev), -EINVAL);
	cr_assert_eq(huge_dev(0x40000000, 0x1000000, fl, &dev), 0);
	dmapool_dev_put(dev);
	cr_assert_eq(fk.calls_map, 0);
}

/* This machine's huge pages, through the public call. */
Test(vfio_hugepages, the_system_reserve_is_read)
{
	struct dmapool_vfio_cfg cfg = {
		.flags = DMAPOOL_VFIO_HUGEPAGES,	/* no query: no ioctl */
		.iova_base = 0x1000000,
		.iova_size = 0x1000000,
	};
	struct dmapool_dev *dev = NULL;
	unsigned long long kb = 0, total = ~0ull;
	char path[96], line[128];
	FILE *f;
	int ret;

	cfg.container_fd = open("/dev/null", O_RDWR);
	cr_assert_geq(cfg.container_fd, 0);
	f = fopen("/proc/meminfo", "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %llu kB", &kb) == 1)
			break;
	fclose(f);
	cr_assert_gt(kb, 0, "Hugepagesize in /proc/meminfo");
	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/hugepages/hugepages-%llukB/nr_hugepages", kb);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fscanf(f, "%llu", &total), 1);
	fclose(f);
	ret = dmapool_dev_vfio_create(&cfg, &dev);
	if (total)
		cr_assert_eq(ret, 0, "%llu huge pages reserved, create: %d",
			     total, ret);
	else
		cr_assert_eq(ret, -ENOMEM, "none reserved, create: %d", ret);
	dmapool_dev_put(dev);
	close(cfg.container_fd);
}

Test(vfio_backend, iova_is_reused_after_unmap)
{
	struct dmapool_dev *dev;
	struct dmapool *pool;
	dmapool_dma_t d1, d2;
	void *v;

	fake_reset();
	dev = fake_dev(0x3000000, 0x100000, PER_CHUNK, 0);
	pool = tl_pool(dev, 512, 0, 0);
	v = dmapool_alloc(pool, 0, &d1);
	cr_assert_not_null(v);
	dmapool_free(pool, v, d1);
	dmapool_destroy(pool);
	cr_assert_eq(fk.nmaps, 0);
	pool = tl_pool(dev, 64, 0, 0);
	v = dmapool_alloc(pool, 0, &d2);
	cr_assert_not_null(v);
	cr_assert_eq(d2, d1, "the unmapped IOVA %#llx comes back first",
		     (unsigned long long)d1);
	dmapool_free(pool, v, d2);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(vfio_backend, window_holes_and_iommu_page_size_respected)
{
	struct dmapool_dev *dev;
	struct dmapool *pool;
	struct dmapool_vfio_info vi;
	void *v[48];
	dmapool_dma_t d[48];
	int i, k;

	/* An IOMMU whose smallest page is 64K (like some Arm SMMUs). */
	fake_reset();
	fk.pgsizes = 0x10000 | 0x20000000;
	dev = fake_dev(0xfec00000, 0x400000, PER_CHUNK, 0);
	vi = vinfo(dev);
	cr_assert_eq(vi.granule, 0x10000);
	cr_assert_eq(vi.iova_usable, 0x300000, "the 1 MiB MSI hole is cut out");
	/*
	 * One-page chunks each take a whole 64K mapping: 48 fit in the
	 * 3 MiB (a pool should use chunk_size >= the IOMMU page here).
	 */
	pool = tl_pool(dev, 4096, 0, 0);
	for (i = 0; i < 48; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		cr_assert_not_null(v[i], "alloc %d: %s", i,
				   vinfo(dev).last_error_msg);
		cr_assert(d[i] < 0xfee00000 || d[i] > 0xfeefffff,
			  "dma %#llx in the MSI hole", (unsigned long long)d[i]);
	}
	for (k = 0; k < fk.nmaps; k++) {
		cr_assert_eq(fk.maps[k].iova % 0x10000, 0);
		cr_assert_eq(fk.maps[k].size % 0x10000, 0);
		cr_assert_eq((uintptr_t)fk.maps[k].vaddr % 0x10000, 0);
	}
	{
		dmapool_dma_t dx;

		cr_assert_null(dmapool_alloc(pool, 0, &dx));
		cr_assert_eq(vinfo(dev).last_error, -ENOSPC);
	}
	for (i = 0; i < 48; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	cr_assert_eq(fk.nmaps, 0);
	cr_assert_eq(fk.order_violations, 0);
	dmapool_dev_put(dev);
}

Test(vfio_backend, exhaustion_is_enospc_from_each_limit)
{
	struct dmapool_dev *dev;
	struct dmapool *pool;
	struct dmapool_vfio_info vi;
	dmapool_dma_t d[4];
	void *v[4];

	/* The window: two pages, one-page chunks. */
	fake_reset();
	dev = fake_dev(0x4000000, 2 * PG, PER_CHUNK, 0);
	pool = tl_pool(dev, 4096, 0, 0);
	cr_assert_not_null(v[0] = dmapool_alloc(pool, 0, &d[0]));
	cr_assert_not_null(v[1] = dmapool_alloc(pool, 0, &d[1]));
	cr_assert_null(dmapool_alloc(pool, 0, &d[2]));
	vi = vinfo(dev);
	cr_assert_eq(vi.last_error, -ENOSPC);
	cr_assert_eq(vi.map_failures, 1);
	cr_assert_eq(fk.calls_map, 2, "no ioctl for what cannot fit");
	dmapool_free(pool, v[1], d[1]);
	dmapool_free(pool, v[0], d[0]);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);

	/* Our own budget: max_chunks. */
	fake_reset();
	dev = fake_dev(0x4000000, 0x100000, PER_CHUNK, 1);
	pool = tl_pool(dev, 4096, 0, 0);
	cr_assert_not_null(v[0] = dmapool_alloc(pool, 0, &d[0]));
	cr_assert_null(dmapool_alloc(pool, 0, &d[1]));
	vi = vinfo(dev);
	cr_assert_eq(vi.last_error, -ENOSPC);
	cr_assert(strstr(vi.last_error_msg, "max_chunks"), "%s",
		  vi.last_error_msg);
	dmapool_free(pool, v[0], d[0]);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);

	/* The container's: dma_entry_limit, shared with the application. */
	fake_reset();
	fk.dma_avail = 1;
	dev = fake_dev(0x4000000, 0x100000, PER_CHUNK, 0);
	pool = tl_pool(dev, 4096, 0, 0);
	cr_assert_not_null(v[0] = dmapool_alloc(pool, 0, &d[0]));
	cr_assert_null(dmapool_alloc(pool, 0, &d[1]));
	vi = vinfo(dev);
	cr_assert_eq(vi.last_error, -ENOSPC);
	cr_assert(strstr(vi.last_error_msg, "VFIO_IOMMU_MAP_DMA"), "%s",
		  vi.last_error_msg);
	cr_assert_eq(vi.dma_avail, 0);
	cr_assert_eq(vi.chunks_mapped, 1);
	cr_assert_eq(vi.iova_mapped, PG, "the failed chunk's IOVA went back");
	dmapool_free(pool, v[0], d[0]);
	dmapool_destroy(pool);
	cr_assert_eq(fk.nmaps, 0);
	dmapool_dev_put(dev);
}

Test(vfio_backend, map_failure_is_reported_and_undone)
{
	struct dmapool_dev *dev;
	struct dmapool *pool;
	struct dmapool_vfio_info vi;
	dmapool_dma_t d;
	void *v;

	fake_reset();
	dev = fake_dev(0x5000000, 0x100000, PER_CHUNK, 0);
	pool = tl_pool(dev, 128, 0, 0);
	fk.map_errno = EFAULT;
	fk.map_fail_count = 1;
	cr_assert_null(dmapool_alloc(pool, 0, &d));
	vi = vinfo(dev);
	cr_assert_eq(vi.last_error, -EFAULT);
	cr_assert(strstr(vi.last_error_msg, "VFIO_IOMMU_MAP_DMA(iova 0x5000000"),
		  "%s", vi.last_error_msg);
	cr_assert_eq(vi.chunks_mapped, 0);
	cr_assert_eq(vi.iova_mapped, 0);
	/* Transient: the next try maps at the same IOVA. */
	v = dmapool_alloc(pool, 0, &d);
	cr_assert_not_null(v);
	cr_assert_eq(d, 0x5000000);
	dmapool_free(pool, v, d);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);

	/* The application holds a mapping inside our window: EEXIST. */
	fake_reset();
	fk.maps[0].iova = 0x6000000;
	fk.maps[0].size = PG;
	fk.maps[0].vaddr = NULL;
	fk.nmaps = 1;
	dev = fake_dev(0x6000000, 0x100000, PER_CHUNK, 0);
	pool = tl_pool(dev, 128, 0, 0);
	cr_assert_null(dmapool_alloc(pool, 0, &d));
	cr_assert_eq(vinfo(dev).last_error, -EEXIST);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

Test(vfio_backend, failed_unmap_leaks_the_chunk_and_never_reuses_it)
{
	struct dmapool_dev *dev;
	struct dmapool *pool;
	struct dmapool_vfio_info vi;
	dmapool_dma_t d1, d2;
	const struct fake_map *m;
	void *v, *chunk;

	fake_reset();
	dev = fake_dev(0x7000000, 0x100000, PER_CHUNK, 0);
	pool = tl_pool(dev, 1024, 0, 0);
	v = dmapool_alloc(pool, 0, &d1);
	cr_assert_not_null(v);
	m = fake_find(d1);
	cr_assert_not_null(m);
	chunk = m->vaddr;
	dmapool_free(pool, v, d1);
	fk.unmap_errno = EINVAL;
	dmapool_destroy(pool);
	vi = vinfo(dev);
	cr_assert_eq(vi.unmap_failures, 1);
	cr_assert_eq(vi.leaked_bytes, PG);
	cr_assert_eq(vi.last_error, -EINVAL);
	cr_assert(strstr(vi.last_error_msg, "chunk leaked"), "%s",
		  vi.last_error_msg);
	cr_assert(mapped(chunk, PG), "memory kept: the device may reach it");
	cr_assert_eq(vi.chunks_mapped, 1);

	/* A later chunk never gets that IOVA. */
	fk.unmap_errno = 0;
	pool = tl_pool(dev, 1024, 0, 0);
	v = dmapool_alloc(pool, 0, &d2);
	cr_assert_not_null(v);
	cr_assert_neq(d2 & ~(PG - 1), d1 & ~(PG - 1));
	dmapool_free(pool, v, d2);
	dmapool_destroy(pool);

	/* An unmap that removes nothing is a failure too (-ENOENT). */
	pool = tl_pool(dev, 1024, 0, 0);
	v = dmapool_alloc(pool, 0, &d2);
	cr_assert_not_null(v);
	dmapool_free(pool, v, d2);
	fk.unmap_nothing = 1;
	dmapool_destroy(pool);
	vi = vinfo(dev);
	cr_assert_eq(vi.last_error, -ENOENT);
	cr_assert_eq(vi.unmap_failures, 2);
	cr_assert_eq(vi.leaked_bytes, 2 * PG);
	dmapool_dev_put(dev);
}

Test(vfio_backend, busy_destroy_keeps_chunks_mapped)
{
	struct dmapool_dev *dev;
	struct dmapool *pool;
	dmapool_dma_t d;
	void *v;

	fake_reset();
	tl_reset();
	dev = fake_dev(0x8000000, 0x100000, PER_CHUNK, 0);
	pool = tl_pool(dev, 64, 0, 0);
	v = dmapool_alloc(pool, 0, &d);
	cr_assert_not_null(v);
	dmapool_destroy(pool);		/* reported: destroy-busy */
	cr_assert_eq(tl_count(DMAPOOL_R_DESTROY_BUSY), 1);
	cr_assert_eq(fk.nmaps, 1, "a device may still use it: stays mapped");
	cr_assert_eq(fk.calls_unmap, 0);
	dmapool_dev_put(dev);
	cr_assert_eq(fk.nmaps, 1, "not even when the dev goes");
	cr_assert(mapped(v, 64));
}

/* Several threads, each with its own pools, share one VFIO dev. */
#define THREADS		4
#define ROUNDS		40

static void *churn(void *arg)
{
	struct dmapool_dev *dev = arg;
	struct dmapool *pool;
	dmapool_dma_t d[6];
	void *v[6];
	int r, i;

	for (r = 0; r < ROUNDS; r++) {
		pool = tl_pool(dev, 4096, 0, 0);
		if (!pool)
			return (void *)1;
		for (i = 0; i < 6; i++) {
			v[i] = dmapool_alloc(pool, 0, &d[i]);
			if (!v[i])
				return (void *)2;
			memset(v[i], r, 4096);
		}
		for (i = 0; i < 6; i++)
			dmapool_free(pool, v[i], d[i]);
		dmapool_destroy(pool);
	}
	return NULL;
}

Test(vfio_backend, threads_share_one_dev)
{
	pthread_t t[THREADS];
	struct dmapool_dev *dev;
	struct dmapool_vfio_info vi;
	void *ret;
	int i;

	fake_reset();
	dev = fake_dev(0x9000000, THREADS * 6 * PG, PER_CHUNK, 0);
	for (i = 0; i < THREADS; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, churn, dev), 0);
	for (i = 0; i < THREADS; i++) {
		cr_assert_eq(pthread_join(t[i], &ret), 0);
		cr_assert_null(ret, "thread %d failed at step %p: %s", i, ret,
			       vinfo(dev).last_error_msg);
	}
	vi = vinfo(dev);
	cr_assert_eq(vi.maps, THREADS * ROUNDS * 6);
	cr_assert_eq(vi.unmaps, vi.maps);
	cr_assert_eq(vi.map_failures + vi.unmap_failures, 0);
	cr_assert_eq(vi.iova_mapped, 0);
	cr_assert_eq(fk.nmaps, 0);
	cr_assert_eq(fk.order_violations, 0);
	dmapool_dev_put(dev);
}
