// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * edu_pool_test: dmapool on the VFIO backend, with QEMU's edu device doing
 * real DMA into and out of pool blocks behind emulated VT-d.  A static
 * binary run in a busybox guest by tests/device/run (scenario "pool");
 * vfio-pci and vfio_iommu_type1 (dma_entry_limit=128) are loaded by then.
 *
 *  1. setup: edu bound to vfio-pci, container/group/device opened the way
 *     an application does (vfio_dev.c), BAR0 mapped, bus mastering on; two
 *     buffers of the test's own are mapped outside the pool's window:
 *     "staging" (the CPU fills it, edu copies it into its internal buffer)
 *     and "bait" (the address a hostile device would like the pool to hand
 *     out);
 *  2. backend errors from the real kernel: GET_INFO on a container with no
 *     IOMMU, on a non-VFIO fd, on a closed fd; a window in the MSI hole;
 *     MAP_DMA failures surfacing through dmapool_dev_vfio_info(); the
 *     container's dma_entry_limit reached (ENOSPC);
 *  3. round trips: blocks of three pools; edu reads each from its IOVA and
 *     writes it into another block; data compared, neighbours untouched;
 *  4. the hostile device: edu DMA-writes fake free-list entries (the
 *     kernel's struct dma_block layout, pointing at the bait) into freed
 *     blocks; the next allocations must all be valid pool blocks, none at
 *     the device's address, live blocks untouched (with DMAPOOL_OPT_POISON,
 *     when this build has it, the write must also be reported);
 *  5. release: after destroy (and, when this build has dmapool_shrink, after
 *     shrink), a DMA to a released chunk's IOVA must be refused by the
 *     IOMMU (DMAR fault logged for that address) and change no memory the
 *     test can see; the IOVA is then reused for a new chunk that works.
 *     With one mapping per chunk (DMAPOOL_VFIO_MAP_PER_CHUNK) that holds
 *     for each chunk; with the default 2 MiB mappings, for the mapping
 *     once its last chunk went;
 *  6. the backend's memory sources: the default dev fits 256 one-page
 *     chunks into one mapping where one mapping per chunk stops at the
 *     container's dma_entry_limit; huge pages (DMAPOOL_VFIO_HUGEPAGES):
 *     ENOMEM at create with none reserved, then (after reserving some
 *     through /proc/sys/vm/nr_hugepages) blocks carved from one mapping
 *     per huge page, edu DMA across two of them, a clean NULL when the
 *     reserve is used up; a region pool (dmapool_dev_region) in a huge
 *     page the test mapped for edu itself, edu DMA through its blocks, a
 *     clean NULL when the region is full, every chunk back afterwards.
 *
 * Markers: "EDU-POOL: ..." lines, "EDU-POOL: FAIL ..." on any surprise,
 * "EDU-POOL SUMMARY: PASS|FAIL" at the end (exit status 0|1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/vfio.h>

#include <dmapool/dmapool.h>

#include "dev_vfio.h"		/* DMAPOOL_VFIO_HUGEPAGES, _MAP_PER_CHUNK */
#include "guest.h"
#include "vfio_dev.h"
#include "../edu.h"

#define PAGE		4096UL
/* All below edu's 28-bit DMA mask. */
#define STAGE_IOVA	0x1000000UL	/* 2 pages, the test's own */
#define BAIT_IOVA	0x1800000UL	/* 1 page, the test's own */
#define WIN_BASE	0x2000000UL	/* the pools' windows: 16 MiB, */
#define WIN_SIZE	0x1000000UL
#define PC_BASE		0x2800000UL	/* the upper half one per chunk */
#define REL_BASE	0x3000000UL	/* 4 MiB: release, default mode */
#define REL_SIZE	0x400000UL
#define HUGE_BASE	0x4000000UL	/* 16 MiB: huge page mappings */
#define HUGE_SIZE	0x1000000UL
#define REGION_IOVA	0x6000000UL	/* one huge page, the test's own */
#define HUGE_PAGE	0x200000UL
#define HUGE_RESERVE	4		/* huge pages the test reserves */
#define ENTRY_LIMIT	128		/* dma_entry_limit set by the runner */
#define MAX_CHUNKS	1024		/* 2 MiB of 2 KiB blocks, and more */

struct dma_block_like {			/* what Linux >= 6.3 keeps in a
					 * free block: a next pointer and
					 * the block's dma address */
	uint64_t next;
	uint64_t dma;
};

static int fails;
static int faults_provoked;

static struct {
	struct vfio_dev vd;
	edu_bar_t bar;
	uint8_t *stage;			/* at STAGE_IOVA */
	uint8_t *bait;			/* at BAIT_IOVA */
	struct dmapool_dev *dev;	/* the default: 2 MiB mappings */
	struct dmapool_dev *pc;		/* one mapping per chunk */
	uint64_t win_lo, win_hi;	/* where check_block wants a dma */
} T = {
	.vd = { .container = -1, .group = -1, .device = -1 },
	.win_lo = WIN_BASE, .win_hi = WIN_BASE + WIN_SIZE,
};

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("EDU-POOL: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
}

#define FAILF(...)						\
	do {							\
		say("FAIL " __VA_ARGS__);			\
		fails++;					\
	} while (0)

static void fill(uint8_t *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed ^ (i * 29) ^ (i >> 8));
}

static int all_bytes(const uint8_t *p, size_t len, uint8_t v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

/* ---- edu transfers ------------------------------------------------ */

/* The device reads @len bytes at @iova into its buffer at @off. */
static int dev_read(uint64_t iova, unsigned int off, unsigned int len)
{
	int ret = edu_dma_from_ram(T.bar, iova, off, len);

	if (ret)
		FAILF("edu DMA iova %#llx -> edu+%u (%u bytes): %s",
		      (unsigned long long)iova, off, len, strerror(-ret));
	return ret;
}

/* The device writes @len bytes of its buffer at @off to @iova. */
static int dev_write(unsigned int off, uint64_t iova, unsigned int len)
{
	int ret = edu_dma_to_ram(T.bar, off, iova, len);

	if (ret)
		FAILF("edu DMA edu+%u -> iova %#llx (%u bytes): %s", off,
		      (unsigned long long)iova, len, strerror(-ret));
	return ret;
}

/* Load @len bytes into edu's buffer at @off, through the staging page. */
static int dev_load(const void *src, unsigned int off, unsigned int len)
{
	memcpy(T.stage, src, len);
	return dev_read(STAGE_IOVA, off, len);
}

/* ---- pool introspection ------------------------------------------- */

struct chunks {
	size_t n;
	struct {
		uint8_t *v;
		uint64_t d;
		size_t len;
	} c[MAX_CHUNKS];
};

static void walk_cb(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct chunks *cs = ctx;

	if (cs->n < MAX_CHUNKS) {
		cs->c[cs->n].v = vaddr;
		cs->c[cs->n].d = dma;
		cs->c[cs->n].len = len;
	}
	cs->n++;
}

static void get_chunks(const struct dmapool *pool, struct chunks *cs)
{
	cs->n = 0;
	dmapool_walk_chunks(pool, walk_cb, cs);
	if (cs->n > MAX_CHUNKS)
		FAILF("pool has %zu chunks, test keeps %d", cs->n, MAX_CHUNKS);
}

static int has_chunk_at(const struct chunks *cs, uint64_t iova)
{
	size_t i;

	for (i = 0; i < cs->n && i < MAX_CHUNKS; i++)
		if (cs->c[i].d == iova)
			return 1;
	return 0;
}

/*
 * Everything a block handed out must be (invariant 4): inside a chunk of
 * its pool, at a block start, aligned, vaddr and dma at the same offset,
 * in the backend's window, never the test's own (bait) memory.  The pools
 * here have blocks that tile their chunks (stride divides the page).
 */
static int check_block(const struct dmapool *pool, const void *v,
		       uint64_t d, size_t align, const char *what)
{
	struct dmapool_stats st;
	struct chunks cs;
	uintptr_t va = (uintptr_t)v;
	size_t i, off;

	dmapool_get_stats(pool, &st);
	get_chunks(pool, &cs);
	if (va >= (uintptr_t)T.bait && va < (uintptr_t)T.bait + PAGE) {
		FAILF("%s: block %p is the bait buffer", what, v);
		return -1;
	}
	if (d >= BAIT_IOVA && d < BAIT_IOVA + PAGE) {
		FAILF("%s: dma %#llx is the bait's IOVA", what,
		      (unsigned long long)d);
		return -1;
	}
	if (d < T.win_lo || d + st.block_size > T.win_hi) {
		FAILF("%s: dma %#llx outside the window", what,
		      (unsigned long long)d);
		return -1;
	}
	if ((va | d) & (align - 1)) {
		FAILF("%s: %p / %#llx not aligned to %zu", what, v,
		      (unsigned long long)d, align);
		return -1;
	}
	for (i = 0; i < cs.n && i < MAX_CHUNKS; i++) {
		if (va < (uintptr_t)cs.c[i].v ||
		    va >= (uintptr_t)cs.c[i].v + cs.c[i].len)
			continue;
		off = va - (uintptr_t)cs.c[i].v;
		if (d != cs.c[i].d + off) {
			FAILF("%s: vaddr %p is chunk+%zu but dma %#llx is not",
			      what, v, off, (unsigned long long)d);
			return -1;
		}
		if (off % st.stride || off + st.block_size > cs.c[i].len) {
			FAILF("%s: %p is not a block start (chunk+%zu)", what,
			      v, off);
			return -1;
		}
		return 0;
	}
	FAILF("%s: %p (dma %#llx) is in no chunk of the pool", what, v,
	      (unsigned long long)d);
	return -1;
}

/* ---- setup -------------------------------------------------------- */

static int map_own(uint8_t **buf, uint64_t iova, size_t len)
{
	*buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*buf == MAP_FAILED) {
		*buf = NULL;
		FAILF("mmap: %s", strerror(errno));
		return -1;
	}
	if (vfio_dma_map(&T.vd, *buf, iova, len,
			 VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)) {
		FAILF("%s", vfio_last_error());
		return -1;
	}
	return 0;
}

static int setup(void)
{
	struct vfio_iommu_caps caps;
	char bdf[32];
	size_t bar_size;
	unsigned int i;

	if (vfio_pci_find(EDU_VENDOR_ID, EDU_DEVICE_ID, bdf, sizeof(bdf)) ||
	    vfio_pci_bind(bdf) || vfio_dev_open(&T.vd, bdf)) {
		FAILF("%s", vfio_last_error());
		return -1;
	}
	T.bar = vfio_bar_map(&T.vd, EDU_BAR, &bar_size);
	if (!T.bar || edu_probe_regs(T.bar) || vfio_bus_master(&T.vd, 1)) {
		FAILF("edu BAR0/bus master: %s", vfio_last_error());
		return -1;
	}
	say("edu %s in iommu group %d bound to vfio-pci; container, group and device open (type1v2)",
	    bdf, T.vd.group_id);
	if (vfio_iommu_query(&T.vd, &caps)) {
		FAILF("%s", vfio_last_error());
		return -1;
	}
	for (i = 0; i < caps.nr_ranges; i++)
		say("usable iova range %#llx-%#llx",
		    (unsigned long long)caps.ranges[i].start,
		    (unsigned long long)caps.ranges[i].end);
	say("iommu page sizes %#llx, container mappings available %ld (dma_entry_limit=%d for this test; 65535 by default)",
	    (unsigned long long)caps.pgsizes, caps.dma_avail, ENTRY_LIMIT);
	if (caps.dma_avail != ENTRY_LIMIT)
		FAILF("dma_avail %ld, runner should have set %d",
		      caps.dma_avail, ENTRY_LIMIT);
	if (map_own(&T.stage, STAGE_IOVA, 2 * PAGE) ||
	    map_own(&T.bait, BAIT_IOVA, PAGE))
		return -1;
	memset(T.bait, 0xba, PAGE);
	return 0;
}

/* ---- 2: errors from the real kernel ------------------------------- */

static void expect_create(const char *what, int fd, uint64_t base,
			  uint64_t size, int want)
{
	struct dmapool_dev *dev;
	int got;

	errno = 0;
	dev = dmapool_dev_vfio(fd, base, size);
	got = dev ? 0 : errno;
	say("backend error: dmapool_dev_vfio(%s) -> %s", what,
	    guest_errname(got));
	if (got != want)
		FAILF("dmapool_dev_vfio(%s): expected %s, got %s", what,
		      guest_errname(want), guest_errname(got));
	dmapool_dev_put(dev);
}

/* A pool's first chunk fails to map: dmapool_alloc NULL, info says why. */
static void expect_chunk_error(const char *what, struct dmapool_dev *dev,
			       int want)
{
	struct dmapool_vfio_info vi;
	struct dmapool_opts o;
	struct dmapool *pool;
	dmapool_dma_t d;
	void *v;

	/* One-page chunks: the first fits the smallest window tried. */
	dmapool_opts_init(&o);
	o.chunk_size = PAGE;
	pool = dmapool_create_opts("err", dev, 64, 0, 0, &o);
	if (!pool) {
		FAILF("%s: dmapool_create failed", what);
		return;
	}
	v = dmapool_alloc(pool, 0, &d);
	dmapool_dev_vfio_info(dev, &vi);
	say("backend error: %s -> dmapool_alloc %s, %s (\"%s\")", what,
	    v ? "a block" : "NULL", guest_errname(vi.last_error),
	    vi.last_error_msg);
	if (v || vi.last_error != want || !strstr(vi.last_error_msg, "MAP_DMA"))
		FAILF("%s: expected NULL and %s from MAP_DMA", what,
		      guest_errname(want));
	if (v)
		dmapool_free(pool, v, d);
	dmapool_destroy(pool);
}

static void backend_errors(void)
{
	struct dmapool_vfio_cfg cfg = {
		.container_fd = T.vd.container,
		.iova_base = 0xfee00000UL,
		.iova_size = 0x100000,
	};
	struct dmapool_dev *dev;
	int fd, ret;

	fd = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		FAILF("open /dev/vfio/vfio: %s", strerror(errno));
		return;
	}
	expect_create("a container with no IOMMU set", fd, WIN_BASE, WIN_SIZE,
		      EINVAL);
	close(fd);
	expect_create("a closed fd", fd, WIN_BASE, WIN_SIZE, EBADF);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	expect_create("/dev/null", fd, WIN_BASE, WIN_SIZE, ENOTTY);
	close(fd);
	expect_create("window inside the MSI hole 0xfee00000", T.vd.container,
		      0xfee00000UL, 0x100000, ERANGE);
	expect_create("window not page aligned", T.vd.container,
		      WIN_BASE + 100, WIN_SIZE, EINVAL);

	/* Without the query the kernel refuses the hole itself. */
	ret = dmapool_dev_vfio_create(&cfg, &dev);
	if (ret) {
		FAILF("create without query: %s", guest_errname(ret));
	} else {
		expect_chunk_error("window in the MSI hole, no query", dev,
				   -EINVAL);
		dmapool_dev_put(dev);
	}
	/* A window over the test's own staging mapping. */
	dev = dmapool_dev_vfio(T.vd.container, STAGE_IOVA, 2 * PAGE);
	if (!dev) {
		FAILF("create over staging: %s", guest_errname(errno));
	} else {
		expect_chunk_error("window over an existing mapping", dev,
				   -EEXIST);
		dmapool_dev_put(dev);
	}
}

/* A pool of one-page blocks in one-page chunks (the default chunk holds
 * several blocks). */
static struct dmapool *page_chunk_pool(const char *name,
				       struct dmapool_dev *dev)
{
	struct dmapool_opts o;

	dmapool_opts_init(&o);
	o.chunk_size = 4096;
	return dmapool_create_opts(name, dev, 4096, 0, 0, &o);
}

/* Fill the container up to dma_entry_limit with one-page chunks. */
static void entry_limit(void)
{
	static void *v[ENTRY_LIMIT];
	static dmapool_dma_t d[ENTRY_LIMIT];
	struct dmapool_vfio_info vi;
	struct dmapool *pool = page_chunk_pool("limit", T.pc);
	int64_t avail;
	int n = 0, i;

	if (!pool) {
		FAILF("create limit pool");
		return;
	}
	dmapool_dev_vfio_info(T.pc, &vi);
	avail = vi.dma_avail;
	while (n < ENTRY_LIMIT && (v[n] = dmapool_alloc(pool, 0, &d[n])))
		n++;
	dmapool_dev_vfio_info(T.pc, &vi);
	say("dma_entry_limit: %d one-page chunks mapped with %lld mappings available, then dmapool_alloc NULL: %s (\"%s\")",
	    n, (long long)avail, guest_errname(vi.last_error),
	    vi.last_error_msg);
	if (n != avail || vi.last_error != -ENOSPC || vi.dma_avail != 0 ||
	    !strstr(vi.last_error_msg, "MAP_DMA"))
		FAILF("entry limit: %d chunks for %lld available, error %s",
		      n, (long long)avail, guest_errname(vi.last_error));
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	dmapool_dev_vfio_info(T.pc, &vi);
	if (vi.dma_avail != avail || vi.chunks_mapped != 0)
		FAILF("entry limit: after destroy %lld available (want %lld), %llu mapped",
		      (long long)vi.dma_avail, (long long)avail,
		      (unsigned long long)vi.chunks_mapped);
}

/* ---- 3: round trips ----------------------------------------------- */

/*
 * Block @a -> edu -> block @b, @len bytes, through edu's buffer at @off;
 * the device reads one pool block and writes another.
 */
static int roundtrip(uint8_t *a, uint64_t da, uint8_t *b, uint64_t db,
		     unsigned int off, unsigned int len, uint8_t seed)
{
	size_t i;

	fill(a, len, seed);
	memset(b, 0, len);
	if (dev_read(da, off, len) || dev_write(off, db, len))
		return -1;
	for (i = 0; i < len; i++)
		if (a[i] != b[i]) {
			FAILF("round trip %#llx -> edu+%u -> %#llx differs at byte %zu",
			      (unsigned long long)da, off,
			      (unsigned long long)db, i);
			return -1;
		}
	return 0;
}

static void roundtrips(void)
{
	static const struct {
		size_t size, align, n;
		unsigned int len, off;
	} P[] = {
		{ 64, 64, 80, 64, 777 },	/* descriptors, odd offset */
		{ 256, 256, 24, 256, 100 },	/* two chunks */
		{ 2048, 2048, 4, 2048, 0 },	/* a whole block per DMA */
	};
	struct dmapool *pool;
	struct dmapool_stats st;
	void *v[80];
	dmapool_dma_t d[80];
	unsigned int p, i, k, xfers = 0, blocks = 0, chunks = 0;

	for (p = 0; p < sizeof(P) / sizeof(P[0]); p++) {
		pool = dmapool_create("edu", T.dev, P[p].size, P[p].align, 0);
		if (!pool) {
			FAILF("dmapool_create(%zu)", P[p].size);
			continue;
		}
		for (i = 0; i < P[p].n; i++) {
			v[i] = dmapool_alloc(pool, 0, &d[i]);
			if (!v[i]) {
				FAILF("alloc %zu-byte block %u", P[p].size, i);
				break;
			}
			if (check_block(pool, v[i], d[i], P[p].align, "alloc"))
				break;
			memset(v[i], 0xc0 + i % 16, P[p].size);
		}
		if (i == P[p].n) {
			/*
			 * Pairs from both ends so the DMAs cross chunks; every
			 * other block keeps its CPU-written byte: a device
			 * write that spilled over would show there.
			 */
			for (k = 0; k < P[p].n / 2 && !fails; k += 3) {
				unsigned int j = P[p].n - 1 - k;

				if (roundtrip(v[k], d[k], v[j], d[j], P[p].off,
					      P[p].len, (uint8_t)(k + p)))
					break;
				xfers += 2;
				blocks += 2;
				memset(v[k], 0xc0 + k % 16, P[p].size);
				memset(v[j], 0xc0 + j % 16, P[p].size);
			}
			for (k = 0; k < P[p].n; k++)
				if (!all_bytes(v[k], P[p].size, 0xc0 + k % 16))
					FAILF("block %u of the %zu-byte pool changed behind the test",
					      k, P[p].size);
		}
		dmapool_get_stats(pool, &st);
		chunks += st.chunks;
		if (st.violations)
			FAILF("%llu reports from the %zu-byte pool",
			      (unsigned long long)st.violations, P[p].size);
		while (i-- > 0)
			dmapool_free(pool, v[i], d[i]);
		dmapool_destroy(pool);
	}
	if (!fails)
		say("round trip: %u edu DMAs (device reads one pool block, writes another; 64/256/2048-byte blocks, %u chunks) into and out of %u blocks: data OK, neighbours untouched",
		    xfers, chunks, blocks);
}

/* ---- 4: the hostile device ---------------------------------------- */

struct rep_log {
	unsigned int n, waf;
	uint64_t block_dma[8];
};

static void on_report(const struct dmapool_report *r, void *ctx)
{
	struct rep_log *rl = ctx;

	if (r->kind == DMAPOOL_R_DEVICE_WRITE_AFTER_FREE) {
		if (rl->waf < 8)
			rl->block_dma[rl->waf] = r->block_dma;
		rl->waf++;
	}
	rl->n++;
}

/*
 * @poison: create the pool with DMAPOOL_OPT_POISON; returns 1 when this
 * build refuses it (the variant is then off), else 0.
 */
static int hostile(int poison)
{
	enum { LIVE = 32, FREED = 4, AFTER = 64 };
	static uint8_t garbage[FREED * 256];
	struct dmapool_opts o;
	struct rep_log rl = { 0 };
	struct dmapool *pool;
	struct dmapool_stats st;
	struct dma_block_like *fake = (void *)garbage;
	void *v[LIVE + AFTER];
	dmapool_dma_t d[LIVE + AFTER];
	uint8_t tag[LIVE + AFTER];
	const char *name = poison ? "hostile-poison" : "hostile";
	unsigned int i, k, first = 0, n, bad = 0;
	uint64_t target;

	dmapool_opts_init(&o);
	o.report = on_report;
	o.report_ctx = &rl;
	if (poison)
		o.flags |= DMAPOOL_OPT_POISON;
	pool = dmapool_create_opts(name, T.dev, 256, 256, 0, &o);
	if (!pool && poison)
		return 1;
	if (!pool) {
		FAILF("create hostile pool");
		return 0;
	}
	for (i = 0; i < LIVE; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		if (!v[i] || check_block(pool, v[i], d[i], 256, "alloc")) {
			FAILF("hostile: alloc %u", i);
			return 0;
		}
		tag[i] = (uint8_t)(0x40 + i);
		memset(v[i], tag[i], 256);
	}
	/* FREED blocks in a row: one device write covers them. */
	for (i = 0; i + FREED <= LIVE; i++) {
		for (k = 1; k < FREED; k++)
			if (d[i + k] != d[i] + k * 256)
				break;
		if (k == FREED)
			break;
	}
	if (i + FREED > LIVE) {
		FAILF("hostile: no %d adjacent blocks", FREED);
		return 0;
	}
	first = i;
	target = d[first];
	for (k = 0; k < FREED; k++)
		dmapool_free(pool, v[first + k], d[first + k]);

	/*
	 * The device (edu's DMA engine, not the CPU) writes what would
	 * hijack Linux's dma_pool: free-list entries whose next and dma
	 * fields point at the bait buffer.
	 */
	for (k = 0; k < sizeof(garbage) / sizeof(*fake); k++) {
		fake[k].next = (uintptr_t)T.bait + (k % 16) * 256;
		fake[k].dma = BAIT_IOVA + (k % 16) * 256;
	}
	if (dev_load(garbage, 1024, sizeof(garbage)) ||
	    dev_write(1024, target, sizeof(garbage)))
		return 0;
	if (memcmp(v[first], garbage, sizeof(garbage)))
		FAILF("hostile: the device write did not land in the freed blocks");
	else
		say("hostile device: edu DMA-wrote %zu bytes of fake free-list entries (next=%p dma=%#lx, the bait) into %d freed blocks at iova %#llx (read back: landed)",
		    sizeof(garbage), (void *)T.bait, BAIT_IOVA, FREED,
		    (unsigned long long)target);

	/* Move the survivors down so v[0..n) are the live blocks. */
	n = 0;
	for (i = 0; i < LIVE; i++)
		if (i < first || i >= first + FREED) {
			v[n] = v[i];
			d[n] = d[i];
			tag[n] = tag[i];
			n++;
		}
	for (i = 0; i < AFTER; i++, n++) {
		v[n] = dmapool_alloc(pool, 0, &d[n]);
		if (!v[n]) {
			FAILF("hostile: alloc after the attack %u", i);
			break;
		}
		if (check_block(pool, v[n], d[n], 256, "alloc after the attack"))
			bad++;
		for (k = 0; k < n; k++)
			if (v[k] == v[n] || d[k] == d[n]) {
				FAILF("hostile: %p / %#llx handed out twice",
				      v[n], (unsigned long long)d[n]);
				bad++;
			}
		tag[n] = (uint8_t)(0x80 + i);
		memset(v[n], tag[n], 256);
	}
	for (k = 0; k < n; k++)
		if (!all_bytes(v[k], 256, tag[k])) {
			FAILF("hostile: live block %u changed", k);
			bad++;
		}
	if (!all_bytes(T.bait, PAGE, 0xba)) {
		FAILF("hostile: the bait buffer was written");
		bad++;
	}
	dmapool_get_stats(pool, &st);
	if (st.blocks_in_use != n) {
		FAILF("hostile: %llu blocks in use, test holds %u",
		      (unsigned long long)st.blocks_in_use, n);
		bad++;
	}
	if (!bad)
		say("hostile device: %d allocations after the device write: every one a valid block of the pool (in a chunk, at a block start, vaddr/dma matching), none at the device's address, %u live blocks untouched (INTACT)",
		    AFTER, n - AFTER);
	if (poison) {
		for (k = 0; k < rl.waf && k < 8; k++)
			if (rl.block_dma[k] >= target &&
			    rl.block_dma[k] < target + sizeof(garbage))
				break;
		if (k == rl.waf || k == 8)
			FAILF("hostile: with poison, %u device-write-after-free reports, none for iova %#llx",
			      rl.waf, (unsigned long long)target);
		else
			say("hostile device: with DMAPOOL_OPT_POISON the write was reported (%u device-write-after-free, block dma %#llx) (REPORTED)",
			    rl.waf, (unsigned long long)rl.block_dma[k]);
	} else if (rl.n) {
		FAILF("hostile: %u reports without poison", rl.n);
	}
	for (k = 0; k < n; k++)
		dmapool_free(pool, v[k], d[k]);
	dmapool_get_stats(pool, &st);
	if (st.violations != rl.n || (!poison && st.violations))
		FAILF("hostile: %llu violations counted",
		      (unsigned long long)st.violations);
	dmapool_destroy(pool);
	return 0;
}

/* ---- 5: released chunks are dead for the device ------------------- */

#define DEAD_SIG 0x2144414544444145ull	/* "EADDEAD!" */

/* Does @sig appear anywhere in the memory the test can still see? */
static int sig_visible(const struct dmapool *const *pools, int npools)
{
	struct chunks cs;
	uint64_t w;
	size_t i, off;
	int p;

	for (off = 0; off + 8 <= 2 * PAGE; off += 8) {
		memcpy(&w, T.stage + off, 8);
		if (w == DEAD_SIG)
			return 1;	/* cleared after loading edu */
	}
	for (off = 0; off + 8 <= PAGE; off += 8) {
		memcpy(&w, T.bait + off, 8);
		if (w == DEAD_SIG)
			return 1;
	}
	for (p = 0; p < npools; p++) {
		get_chunks(pools[p], &cs);
		for (i = 0; i < cs.n && i < MAX_CHUNKS; i++)
			for (off = 0; off + 8 <= cs.c[i].len; off += 8) {
				memcpy(&w, cs.c[i].v + off, 8);
				if (w == DEAD_SIG)
					return 1;
			}
	}
	return 0;
}

/*
 * edu writes the dead signature to @iova, which no longer has a mapping:
 * the IOMMU must refuse it and log a fault for exactly that address, and
 * the signature must appear nowhere the test can look.
 */
static int dma_to_released(uint64_t iova, const struct dmapool *const *pools,
			   int npools, const char *how)
{
	uint64_t sig[EDU_DMA_MAX / 8];
	char line[256];
	size_t i;
	int kmsg, ret;

	for (i = 0; i < EDU_DMA_MAX / 8; i++)
		sig[i] = DEAD_SIG;
	if (dev_load(sig, 0, EDU_DMA_MAX))
		return -1;
	memset(T.stage, 0, 2 * PAGE);
	kmsg = guest_kmsg_open_end();
	if (kmsg < 0) {
		FAILF("open /dev/kmsg: %s", strerror(-kmsg));
		return -1;
	}
	faults_provoked++;
	ret = dev_write(0, iova, EDU_DMA_MAX);
	if (!ret) {
		ret = guest_dmar_fault(kmsg, iova, line, sizeof(line));
		if (ret)
			FAILF("%s: no DMAR fault logged for iova %#llx", how,
			      (unsigned long long)iova);
		else
			say("%s: edu DMA write to the released chunk's iova %#llx refused by the IOMMU: kernel logged \"%s\"",
			    how, (unsigned long long)iova, line);
	}
	close(kmsg);
	if (sig_visible(pools, npools)) {
		FAILF("%s: the DMA to the released iova reached memory", how);
		ret = -1;
	} else if (!ret) {
		say("%s: no memory the test can see was touched (live pool chunks, staging, bait scanned)",
		    how);
	}
	return ret;
}

/* A new chunk at a released IOVA works for the device again. */
static void reuse(const uint64_t *released, int nrel, const char *how)
{
	struct dmapool *pool = dmapool_create("reuse", T.pc, 2048, 0, 0);
	struct chunks cs;
	void *v[8];
	dmapool_dma_t d[8];
	int n = 0, i, hit = -1;

	if (!pool) {
		FAILF("%s: create reuse pool", how);
		return;
	}
	/* Grow until a chunk lands on a released IOVA (lowest first). */
	while (n < 8 && hit < 0) {
		v[n] = dmapool_alloc(pool, 0, &d[n]);
		if (!v[n]) {
			FAILF("%s: reuse alloc", how);
			break;
		}
		n++;
		get_chunks(pool, &cs);
		for (i = 0; i < nrel; i++)
			if (has_chunk_at(&cs, released[i]))
				hit = i;
	}
	if (hit < 0) {
		FAILF("%s: no new chunk reused a released iova", how);
	} else {
		for (i = 0; i < n; i++)
			if ((d[i] & ~(PAGE - 1)) == released[hit])
				break;
		if (i < n && !roundtrip(v[i], d[i], (uint8_t *)v[i] + 1024,
					d[i] + 1024, 0, 1024, 7))
			say("%s: the released iova %#llx was reused for a new chunk, which edu reaches again (DMA round trip OK)",
			    how, (unsigned long long)released[hit]);
		else if (!fails)
			FAILF("%s: reused chunk at %#llx not usable", how,
			      (unsigned long long)released[hit]);
	}
	while (n-- > 0)
		dmapool_free(pool, v[n], d[n]);
	dmapool_destroy(pool);
}

static void release_destroy(void)
{
	struct dmapool *witness, *pool;
	const struct dmapool *alive[1];
	struct dmapool_vfio_info before, after;
	struct chunks cs;
	uint64_t released[MAX_CHUNKS];
	void *v[8], *w;
	dmapool_dma_t d[8], dw;
	int i, n = 0;

	/* A pool that stays: its memory must not see the dead DMA. */
	witness = dmapool_create("witness", T.pc, 1024, 0, 0);
	pool = dmapool_create("doomed", T.pc, 1024, 0, 0);
	if (!witness || !pool) {
		FAILF("release: create");
		return;
	}
	w = dmapool_zalloc(witness, 0, &dw);
	for (i = 0; i < 8; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		if (!v[i])
			break;
		memset(v[i], 0x11, 1024);
	}
	if (!w || i < 8) {
		FAILF("release: alloc");
		return;
	}
	/* The device reaches the doomed pool while it lives. */
	if (roundtrip(v[0], d[0], v[7], d[7], 0, 1024, 3))
		return;
	get_chunks(pool, &cs);
	for (i = 0; i < (int)cs.n && i < MAX_CHUNKS; i++)
		released[n++] = cs.c[i].d;
	dmapool_dev_vfio_info(T.pc, &before);
	for (i = 0; i < 8; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	dmapool_dev_vfio_info(T.pc, &after);
	say("destroy: pool of %d chunks destroyed: backend unmapped %llu chunks (VFIO_IOMMU_UNMAP_DMA), %llu still mapped",
	    n, (unsigned long long)(after.unmaps - before.unmaps),
	    (unsigned long long)after.chunks_mapped);
	if (after.unmaps - before.unmaps != (uint64_t)n ||
	    after.unmap_failures != before.unmap_failures)
		FAILF("destroy: %llu unmaps for %d chunks",
		      (unsigned long long)(after.unmaps - before.unmaps), n);
	alive[0] = witness;
	dma_to_released(released[n - 1], alive, 1, "destroy");
	if (!all_bytes(w, 1024, 0))
		FAILF("destroy: the witness block changed");
	reuse(released, n, "destroy");
	dmapool_free(witness, w, dw);
	dmapool_destroy(witness);
}

#ifdef DMAPOOL_HAVE_SHRINK
static void release_shrink(void)
{
	struct dmapool_opts o;
	struct dmapool *pool;
	const struct dmapool *alive[1];
	struct dmapool_stats st0, st1;
	struct chunks before, after;
	uint64_t released[MAX_CHUNKS];
	void *v[12];
	dmapool_dma_t d[12];
	int i, k, n = 0, mid;

	dmapool_opts_init(&o);
	o.reserve_chunks = 0;
	pool = dmapool_create_opts("shrink", T.pc, 1024, 0, 0, &o);
	if (!pool) {
		FAILF("shrink: create");
		return;
	}
	for (i = 0; i < 12; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		if (!v[i]) {
			FAILF("shrink: alloc");
			return;
		}
		memset(v[i], 0x60 + i, 1024);
	}
	get_chunks(pool, &before);
	dmapool_get_stats(pool, &st0);
	/* Empty the chunk holding block 4: free every block in it. */
	mid = -1;
	for (k = 0; k < (int)before.n; k++)
		if (d[4] - before.c[k].d < before.c[k].len)
			mid = k;
	for (i = 0; i < 12; i++)
		if (mid >= 0 && d[i] - before.c[mid].d < before.c[mid].len) {
			dmapool_free(pool, v[i], d[i]);
			v[i] = NULL;
		}
	(void)dmapool_shrink(pool);
	get_chunks(pool, &after);
	dmapool_get_stats(pool, &st1);
	for (k = 0; k < (int)before.n; k++)
		if (!has_chunk_at(&after, before.c[k].d))
			released[n++] = before.c[k].d;
	say("shrink: %llu -> %llu chunks, chunk at iova %#llx given back",
	    (unsigned long long)st0.chunks, (unsigned long long)st1.chunks,
	    n ? (unsigned long long)released[0] : 0ull);
	if (n != 1 || released[0] != before.c[mid].d) {
		FAILF("shrink released %d chunks, expected the emptied one", n);
	} else {
		alive[0] = pool;
		dma_to_released(released[0], alive, 1, "shrink");
		for (i = 0; i < 12; i++)
			if (v[i] && !all_bytes(v[i], 1024, 0x60 + i))
				FAILF("shrink: live block %d changed", i);
		reuse(released, n, "shrink");
	}
	for (i = 0; i < 12; i++)
		if (v[i])
			dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
}
#endif

/* ---- 6: memory sources ------------------------------------------- */

/* The same one-page chunks on the default dev: they share mappings. */
static void entry_limit_default(void)
{
	enum { N = 2 * ENTRY_LIMIT };
	static void *v[N];
	static dmapool_dma_t d[N];
	struct dmapool_vfio_info before, vi;
	struct dmapool *pool = page_chunk_pool("limit-default", T.dev);
	int n = 0, i;

	if (!pool) {
		FAILF("create limit-default pool");
		return;
	}
	dmapool_dev_vfio_info(T.dev, &before);
	while (n < N && (v[n] = dmapool_alloc(pool, 0, &d[n])))
		n++;
	dmapool_dev_vfio_info(T.dev, &vi);
	say("dma_entry_limit: %d one-page chunks on the default dev took %llu mapping(s) of %llu KiB (%lld of %d mappings left), where one mapping per chunk stopped at %d",
	    n, (unsigned long long)(vi.chunks_mapped - before.chunks_mapped),
	    (unsigned long long)((vi.iova_mapped - before.iova_mapped) >> 10),
	    (long long)vi.dma_avail, ENTRY_LIMIT, ENTRY_LIMIT - 2);
	if (n != N || vi.chunks_mapped - before.chunks_mapped != 1 ||
	    vi.iova_mapped - before.iova_mapped != 2 << 20 ||
	    before.dma_avail - vi.dma_avail != 1)
		FAILF("default dev: %d chunks, %llu new mappings", n,
		      (unsigned long long)(vi.chunks_mapped - before.chunks_mapped));
	for (i = 0; i < n; i++)
		if (check_block(pool, v[i], d[i], 4096, "limit-default"))
			break;
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	dmapool_dev_vfio_info(T.dev, &vi);
	if (vi.chunks_mapped != before.chunks_mapped)
		FAILF("default dev: the mapping stayed after destroy");
}

/*
 * Default mode: chunks of one pool share a mapping; it goes when its last
 * chunk goes, and then the device cannot reach it.
 */
static void release_default(void)
{
	struct dmapool_dev *dev = dmapool_dev_vfio(T.vd.container, REL_BASE,
						   REL_SIZE);
	struct dmapool_vfio_info vi;
	struct dmapool *witness, *pool;
	const struct dmapool *alive[1];
	uint64_t iova;
	void *v[8], *w;
	dmapool_dma_t d[8], dw;
	int i;

	if (!dev) {
		FAILF("release-default: dmapool_dev_vfio: %s", strerror(errno));
		return;
	}
	witness = dmapool_create("witness", T.dev, 1024, 0, 0);
	pool = dmapool_create("doomed", dev, 1024, 0, 0);
	w = witness ? dmapool_zalloc(witness, 0, &dw) : NULL;
	for (i = 0; pool && i < 8; i++)
		if (!(v[i] = dmapool_alloc(pool, 0, &d[i])))
			break;
	if (!w || i < 8) {
		FAILF("release-default: alloc");
		return;
	}
	dmapool_dev_vfio_info(dev, &vi);
	iova = d[7] & ~(PAGE - 1);
	if (vi.chunks_mapped != 1 ||
	    roundtrip(v[0], d[0], v[7], d[7], 0, 1024, 5))
		FAILF("release-default: %llu mappings for 2 chunks, or no DMA",
		      (unsigned long long)vi.chunks_mapped);
	for (i = 0; i < 8; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	dmapool_dev_vfio_info(dev, &vi);
	say("release-default: pool of 8 blocks in 2 chunks of one 2 MiB mapping destroyed: %llu unmap(s), %llu mappings left",
	    (unsigned long long)vi.unmaps,
	    (unsigned long long)vi.chunks_mapped);
	if (vi.unmaps != 1 || vi.chunks_mapped)
		FAILF("release-default: the emptied mapping was not removed");
	alive[0] = witness;
	dma_to_released(iova, alive, 1, "release-default");
	if (!all_bytes(w, 1024, 0))
		FAILF("release-default: the witness block changed");
	dmapool_free(witness, w, dw);
	dmapool_destroy(witness);
	dmapool_dev_put(dev);
}

static int set_nr_hugepages(unsigned int n)
{
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "w");
	int ret;

	if (!f)
		return -errno;
	ret = fprintf(f, "%u\n", n) < 0 ? -EIO : 0;
	if (fclose(f))
		ret = -errno;
	return ret;
}

/* HugePages_Total and _Free from /proc/meminfo. */
static void huge_counts(long *total, long *nfree)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];

	*total = *nfree = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "HugePages_Total: %ld", total);
		sscanf(line, "HugePages_Free: %ld", nfree);
	}
	fclose(f);
}

static void hugepages(void)
{
	struct dmapool_vfio_cfg cfg = {
		.container_fd = T.vd.container,
		.flags = DMAPOOL_VFIO_QUERY_IOMMU | DMAPOOL_VFIO_HUGEPAGES,
		.iova_base = HUGE_BASE,
		.iova_size = HUGE_SIZE,
	};
	enum { PER = HUGE_PAGE / 2048, MAXB = HUGE_RESERVE * PER + 1 };
	static void *v[MAXB];
	static dmapool_dma_t d[MAXB];
	struct dmapool_vfio_info vi;
	struct dmapool_dev *dev;
	struct dmapool *pool;
	long total, nfree, nfree0;
	int ret, n, i;

	if (set_nr_hugepages(0))
		FAILF("hugepages: cannot write /proc/sys/vm/nr_hugepages");
	huge_counts(&total, &nfree);
	ret = dmapool_dev_vfio_create(&cfg, &dev);
	say("hugepages: %ld reserved -> dmapool_dev_vfio_create(DMAPOOL_VFIO_HUGEPAGES) %s",
	    total, guest_errname(ret));
	if (total != 0 || ret != -ENOMEM) {
		FAILF("hugepages: with none reserved expected ENOMEM");
		if (!ret)
			dmapool_dev_put(dev);
	}
	ret = set_nr_hugepages(HUGE_RESERVE);
	huge_counts(&total, &nfree0);
	if (ret || total != HUGE_RESERVE || nfree0 != HUGE_RESERVE) {
		FAILF("hugepages: could not reserve %d huge pages (%ld, %ld free)",
		      HUGE_RESERVE, total, nfree0);
		return;
	}
	ret = dmapool_dev_vfio_create(&cfg, &dev);
	if (ret) {
		FAILF("hugepages: create with %ld reserved: %s", total,
		      guest_errname(ret));
		return;
	}
	T.win_lo = HUGE_BASE;
	T.win_hi = HUGE_BASE + HUGE_SIZE;
	pool = dmapool_create("huge", dev, 2048, 2048, 0);
	/* One huge page and one block of the next. */
	for (n = 0; pool && n < PER + 1; n++) {
		v[n] = dmapool_alloc(pool, 0, &d[n]);
		if (!v[n] || check_block(pool, v[n], d[n], 2048, "huge"))
			break;
	}
	dmapool_dev_vfio_info(dev, &vi);
	huge_counts(&total, &nfree);
	if (n != PER + 1 || vi.chunks_mapped != 2 ||
	    vi.iova_mapped != 2 * HUGE_PAGE || nfree0 - nfree != 2) {
		FAILF("hugepages: %d blocks, %llu mappings, %llu bytes mapped, %ld huge pages taken: %s",
		      n, (unsigned long long)vi.chunks_mapped,
		      (unsigned long long)vi.iova_mapped, nfree0 - nfree,
		      vi.last_error_msg);
	} else if (!roundtrip(v[0], d[0], v[PER], d[PER], 512, 2048, 9) &&
		   !roundtrip(v[PER], d[PER], v[PER / 2], d[PER / 2], 0, 2048,
			      11)) {
		say("hugepages: %d blocks of 2 KiB in %llu mappings of one 2 MiB huge page each (iova %#llx, %#llx), %ld huge pages taken; edu DMA from one huge page into the other and back: data OK (HUGEPAGES OK)",
		    n, (unsigned long long)vi.chunks_mapped,
		    (unsigned long long)(d[0] & ~(HUGE_PAGE - 1)),
		    (unsigned long long)(d[PER] & ~(HUGE_PAGE - 1)),
		    nfree0 - nfree);
	}
	/* Use up the reserve: then a clean NULL and an error that says so. */
	while (pool && n < MAXB && (v[n] = dmapool_alloc(pool, 0, &d[n])))
		n++;
	dmapool_dev_vfio_info(dev, &vi);
	say("hugepages: reserve used up after %d blocks: dmapool_alloc NULL, %s (\"%s\")",
	    n, guest_errname(vi.last_error), vi.last_error_msg);
	if (n != HUGE_RESERVE * PER || vi.last_error != -ENOMEM ||
	    !strstr(vi.last_error_msg, "MAP_HUGETLB"))
		FAILF("hugepages: %d blocks before NULL, want %d", n,
		      HUGE_RESERVE * PER);
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	dmapool_dev_vfio_info(dev, &vi);
	huge_counts(&total, &nfree);
	if (vi.chunks_mapped || vi.unmaps != vi.maps || nfree != nfree0)
		FAILF("hugepages: after destroy %llu mappings, %ld of %ld huge pages free",
		      (unsigned long long)vi.chunks_mapped, nfree, nfree0);
	dmapool_dev_put(dev);
	T.win_lo = WIN_BASE;
	T.win_hi = WIN_BASE + WIN_SIZE;
}

/*
 * A region: a huge page the test maps for edu itself (as an application
 * with its own DMA memory does), handed to dmapool_dev_region.
 */
static void region_pool(void)
{
	enum { N = HUGE_PAGE / 256 + 1 };
	static void *v[N];
	static dmapool_dma_t d[N];
	struct dmapool_dev *dev;
	struct dmapool *pool;
	struct dmapool_stats st;
	uint8_t *mem;
	uint64_t unmapped = 0;
	int n = 0, i, bad = 0;

	mem = mmap(NULL, HUGE_PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (mem == MAP_FAILED) {
		FAILF("region: mmap(MAP_HUGETLB): %s", strerror(errno));
		return;
	}
	memset(mem, 0xee, HUGE_PAGE);
	if (vfio_dma_map(&T.vd, mem, REGION_IOVA, HUGE_PAGE,
			 VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)) {
		FAILF("region: %s", vfio_last_error());
		munmap(mem, HUGE_PAGE);
		return;
	}
	dev = dmapool_dev_region(mem, REGION_IOVA, HUGE_PAGE);
	pool = dev ? dmapool_create("region", dev, 256, 256, 0) : NULL;
	if (!pool) {
		FAILF("region: dmapool_dev_region/create: %s", strerror(errno));
		goto out;
	}
	T.win_lo = REGION_IOVA;
	T.win_hi = REGION_IOVA + HUGE_PAGE;
	while (n < N && (v[n] = dmapool_alloc(pool, 0, &d[n]))) {
		if (check_block(pool, v[n], d[n], 256, "region") ||
		    d[n] - REGION_IOVA != (uint64_t)((uint8_t *)v[n] - mem))
			bad++;
		n++;
	}
	dmapool_get_stats(pool, &st);
	if (n != HUGE_PAGE / 256 || bad || st.dma_bytes != HUGE_PAGE)
		FAILF("region: %d blocks (want %lu), %d bad, %llu bytes held",
		      n, HUGE_PAGE / 256, bad,
		      (unsigned long long)st.dma_bytes);
	else if (!roundtrip(v[0], d[0], v[n - 1], d[n - 1], 64, 256, 13) &&
		 !roundtrip(v[n / 2], d[n / 2], v[1], d[1], 300, 256, 17))
		say("region: a huge page mapped by the test at iova %#lx, %d blocks of 256 bytes carved from it (every one inside, vaddr and dma at the same offset), then dmapool_alloc NULL; edu DMA between its first, middle and last blocks: data OK (REGION OK)",
		    REGION_IOVA, n);
	if (st.violations)
		FAILF("region: %llu reports", (unsigned long long)st.violations);
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
	/* Every chunk went back: a new pool gets the whole region again. */
	pool = dmapool_create("region2", dev, 4096, 4096, 0);
	for (n = 0; pool && n < N && (v[n] = dmapool_alloc(pool, 0, &d[n])); n++)
		;
	say("region: after destroy a new pool of 4 KiB blocks got %d blocks from the region", n);
	if (n != HUGE_PAGE / 4096)
		FAILF("region: chunks did not all come back (%d of %lu)", n,
		      HUGE_PAGE / 4096);
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_destroy(pool);
out:
	dmapool_dev_put(dev);
	T.win_lo = WIN_BASE;
	T.win_hi = WIN_BASE + WIN_SIZE;
	if (vfio_dma_unmap(&T.vd, REGION_IOVA, HUGE_PAGE, &unmapped) ||
	    unmapped != HUGE_PAGE)
		FAILF("region: unmap: %s", vfio_last_error());
	munmap(mem, HUGE_PAGE);
}

/* ---- main --------------------------------------------------------- */

static void show_info(struct dmapool_dev *dev, const char *when)
{
	struct dmapool_vfio_info vi;

	if (dmapool_dev_vfio_info(dev, &vi)) {
		FAILF("dmapool_dev_vfio_info");
		return;
	}
	say("backend %s: window %#llx+%#llx (usable %#llx), granule %llu, %llu chunks mapped (%llu bytes), %llu maps, %llu unmaps, %llu map failures, %llu unmap failures, %llu bytes leaked",
	    when, (unsigned long long)vi.iova_base,
	    (unsigned long long)vi.iova_size,
	    (unsigned long long)vi.iova_usable,
	    (unsigned long long)vi.granule,
	    (unsigned long long)vi.chunks_mapped,
	    (unsigned long long)vi.iova_mapped,
	    (unsigned long long)vi.maps, (unsigned long long)vi.unmaps,
	    (unsigned long long)vi.map_failures,
	    (unsigned long long)vi.unmap_failures,
	    (unsigned long long)vi.leaked_bytes);
}

int main(void)
{
	struct dmapool_vfio_info vi;
	int faults;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (setup())
		goto out;
	backend_errors();
	T.dev = dmapool_dev_vfio(T.vd.container, WIN_BASE, PC_BASE - WIN_BASE);
	{
		struct dmapool_vfio_cfg cfg = {
			.container_fd = T.vd.container,
			.flags = DMAPOOL_VFIO_QUERY_IOMMU |
				 DMAPOOL_VFIO_MAP_PER_CHUNK,
			.iova_base = PC_BASE,
			.iova_size = WIN_BASE + WIN_SIZE - PC_BASE,
		};
		int ret = dmapool_dev_vfio_create(&cfg, &T.pc);

		if (ret)
			errno = -ret;
	}
	if (!T.dev || !T.pc) {
		FAILF("dmapool_dev_vfio: %s", strerror(errno));
		goto out;
	}
	show_info(T.dev, "created (default)");
	show_info(T.pc, "created (one mapping per chunk)");
	entry_limit();
	entry_limit_default();
	roundtrips();
	hostile(0);
	if (hostile(1))
		say("hostile device: poison variant off (DMAPOOL_OPT_POISON not supported by this build)");
	release_destroy();
#ifdef DMAPOOL_HAVE_SHRINK
	release_shrink();
#else
	say("shrink variant off (no dmapool_shrink in this build; destroy covers release)");
#endif
	release_default();
	hugepages();
	region_pool();
	show_info(T.dev, "at the end (default)");
	show_info(T.pc, "at the end (one mapping per chunk)");
	dmapool_dev_vfio_info(T.pc, &vi);
	/* entry_limit's ENOSPC is the one expected map failure. */
	if (vi.chunks_mapped || vi.unmap_failures || vi.leaked_bytes ||
	    vi.map_failures != 1 || vi.maps != vi.unmaps)
		FAILF("backend accounting at the end (one mapping per chunk)");
	dmapool_dev_vfio_info(T.dev, &vi);
	if (vi.chunks_mapped || vi.unmap_failures || vi.leaked_bytes ||
	    vi.map_failures || vi.maps != vi.unmaps)
		FAILF("backend accounting at the end (default)");
	faults = guest_kmsg_count("DMAR: [DMA");
	say("DMAR faults logged: %d, provoked: %d", faults, faults_provoked);
	if (faults != faults_provoked)
		FAILF("unexpected DMAR faults: %d logged, %d provoked", faults,
		      faults_provoked);
out:
	dmapool_dev_put(T.dev);
	dmapool_dev_put(T.pc);
	vfio_bus_master(&T.vd, 0);
	vfio_dev_close(&T.vd);
	printf("EDU-POOL SUMMARY: %s\n", fails ? "FAIL" : "PASS");
	return fails ? 1 : 0;
}
