// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * edu_vfio_test: userspace DMA through VFIO with QEMU's edu device, behind
 * emulated VT-d. Runs as a static binary in a busybox guest (tests/device/run).
 *
 *  1. loads vfio-pci + vfio_iommu_type1 (busybox modprobe), binds edu to
 *     vfio-pci, opens container/group/device (type1v2), maps BAR0, turns on
 *     bus mastering through the config region;
 *  2. maps an anonymous buffer at an IOVA of its choosing and has edu copy
 *     data out of it and back into it: data compared;
 *  3. unmaps it and has edu write to the old IOVA: the write must be refused
 *     by the IOMMU (the guest kernel logs a DMAR fault for that address,
 *     which this program also finds in /dev/kmsg) and the buffer untouched;
 *  4. along the way provokes the VFIO failures a backend must handle and
 *     prints the errno each returns (documented in vfio_dev.c).
 *
 * Markers: "VFIO-EDU: ..." lines, "VFIO-EDU: FAIL ..." on any surprise, and
 * "VFIO-EDU SUMMARY: PASS|FAIL" at the end (exit status 0|1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/vfio.h>

#include "guest.h"
#include "vfio_dev.h"
#include "../edu.h"

#define PAGE		4096UL
/* Below edu's 28-bit DMA mask, well clear of the low reserved ranges. */
#define TEST_IOVA	0x1000000UL
#define TEST_LEN	(2 * PAGE)

extern char **environ;

static int fails;

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("VFIO-EDU: ", stdout);
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

/* An expected failure: report what the kernel returned, check it. */
static void expect_errno(const char *what, int got, int want)
{
	say("probe %s -> %s (%d)", what, guest_errname(got), got);
	if (got != want)
		FAILF("probe %s: expected %s, got %s", what, guest_errname(want),
		      guest_errname(got));
}

static int run(const char *prog, const char *arg)
{
	char *argv[] = { (char *)prog, (char *)arg, NULL };
	int st, err;
	pid_t pid;

	err = posix_spawnp(&pid, prog, NULL, NULL, argv, environ);
	if (err)
		return -err;
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -EINTR;
}

static void fill(uint8_t *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed ^ (i * 13));
}

static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return i;
	return len;
}

static void probe_map_errors(struct vfio_dev *vd, uint8_t *buf)
{
	void *hole;

	expect_errno("MAP_DMA size not page aligned",
		     -vfio_dma_map(vd, buf, TEST_IOVA, PAGE + 1,
				   VFIO_DMA_MAP_FLAG_READ), EINVAL);
	expect_errno("MAP_DMA iova in the MSI window 0xfee00000",
		     -vfio_dma_map(vd, buf, 0xfee00000UL, PAGE,
				   VFIO_DMA_MAP_FLAG_READ), EINVAL);
	/* A reserved, inaccessible range: nothing there to pin. */
	hole = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED) {
		FAILF("mmap PROT_NONE: %s", strerror(errno));
		return;
	}
	expect_errno("MAP_DMA vaddr with no accessible memory",
		     -vfio_dma_map(vd, hole, TEST_IOVA, PAGE,
				   VFIO_DMA_MAP_FLAG_READ), EFAULT);
	munmap(hole, PAGE);
}

static void roundtrip(edu_bar_t bar, uint8_t *buf)
{
	uint8_t expect[EDU_DMA_MAX];
	size_t d;
	int ret;

	/* Page 0 -> edu buffer -> page 1, 2048 bytes. */
	fill(buf, EDU_DMA_MAX, 0x5c);
	memset(buf + PAGE, 0, PAGE);
	ret = edu_dma_from_ram(bar, TEST_IOVA, 0, EDU_DMA_MAX);
	if (ret) {
		FAILF("edu DMA RAM -> device: %s", strerror(-ret));
		return;
	}
	ret = edu_dma_to_ram(bar, 0, TEST_IOVA + PAGE, EDU_DMA_MAX);
	if (ret) {
		FAILF("edu DMA device -> RAM: %s", strerror(-ret));
		return;
	}
	d = first_diff(buf, buf + PAGE, EDU_DMA_MAX);
	if (d != EDU_DMA_MAX)
		FAILF("round trip differs at byte %zu (%#x vs %#x)", d, buf[d],
		      buf[PAGE + d]);
	else
		say("round trip of %d bytes iova %#lx -> edu -> iova %#lx: data OK",
		    EDU_DMA_MAX, TEST_IOVA, TEST_IOVA + PAGE);

	/* Odd offsets on both sides, landing inside page 0. */
	memcpy(expect, buf + 100, 1000);
	memset(buf + 3000, 0, 1000);
	ret = edu_dma_to_ram(bar, 100, TEST_IOVA + 3000, 1000);
	if (ret) {
		FAILF("edu DMA device+100 -> RAM+3000: %s", strerror(-ret));
		return;
	}
	d = first_diff(expect, buf + 3000, 1000);
	if (d != 1000)
		FAILF("offset copy differs at byte %zu", d);
	else
		say("offset copy of 1000 bytes edu+100 -> iova %#lx: data OK",
		    TEST_IOVA + 3000);
}

/* After unmap the IOVA must be dead for the device. */
static void dma_after_unmap(struct vfio_dev *vd, edu_bar_t bar, uint8_t *buf)
{
	uint64_t unmapped = 0, iova = TEST_IOVA + PAGE;
	char line[512];
	size_t i;
	int ret, kmsg;

	ret = vfio_dma_unmap(vd, TEST_IOVA, TEST_LEN, &unmapped);
	if (ret || unmapped != TEST_LEN) {
		FAILF("unmap: %s (unmapped %llu)", vfio_last_error(),
		      (unsigned long long)unmapped);
		return;
	}
	say("unmapped iova %#lx size %#lx", TEST_IOVA, TEST_LEN);
	memset(buf, 0xee, TEST_LEN);

	/* The edu buffer still holds the pattern: aim it at the dead IOVA. */
	kmsg = guest_kmsg_open_end();
	if (kmsg < 0) {
		FAILF("open /dev/kmsg: %s", strerror(-kmsg));
		return;
	}
	ret = edu_dma_to_ram(bar, 0, iova, EDU_DMA_MAX);
	if (ret) {
		close(kmsg);
		FAILF("edu DMA to unmapped iova did not complete: %s",
		      strerror(-ret));
		return;
	}
	for (i = 0; i < TEST_LEN; i++)
		if (buf[i] != 0xee)
			break;
	if (i != TEST_LEN)
		FAILF("DMA to unmapped iova %#llx changed memory at byte %zu",
		      (unsigned long long)iova, i);
	else
		say("DMA write to unmapped iova %#llx: memory untouched",
		    (unsigned long long)iova);

	ret = guest_dmar_fault(kmsg, iova, line, sizeof(line));
	close(kmsg);
	if (ret)
		FAILF("no DMAR fault logged for iova %#llx",
		      (unsigned long long)iova);
	else
		say("DMA to unmapped iova %#llx refused by the IOMMU: kernel logged \"%s\"",
		    (unsigned long long)iova, line);
}

int main(void)
{
	struct vfio_iommu_caps caps;
	struct vfio_dev vd = { .container = -1, .group = -1, .device = -1 };
	char bdf[32], path[64];
	uint64_t unmapped;
	volatile void *regs = NULL;
	size_t regs_size = 0;
	uint8_t *buf = NULL;
	unsigned int i;
	int ret, fd, group;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (vfio_pci_find(EDU_VENDOR_ID, EDU_DEVICE_ID, bdf, sizeof(bdf))) {
		FAILF("%s (start QEMU with -device edu)", vfio_last_error());
		goto out;
	}
	group = vfio_pci_group(bdf);
	if (group < 0) {
		FAILF("%s (need -device intel-iommu and intel_iommu=on)",
		      vfio_last_error());
		goto out;
	}
	say("edu at %s, iommu group %d", bdf, group);

	/* Provoked failures along the setup path, before each step is ready. */
	fd = open("/dev/vfio/vfio", O_RDWR);
	expect_errno("open /dev/vfio/vfio before vfio is loaded",
		     fd < 0 ? errno : 0, ENOENT);
	if (fd >= 0)
		close(fd);
	ret = run("modprobe", "vfio-pci");
	if (ret) {
		FAILF("modprobe vfio-pci: status %d", ret);
		goto out;
	}
	fd = open("/dev/vfio/vfio", O_RDWR);
	if (fd < 0) {
		FAILF("open /dev/vfio/vfio after modprobe: %s", strerror(errno));
		goto out;
	}
	ret = ioctl(fd, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU);
	say("probe VFIO_CHECK_EXTENSION(TYPE1v2) after 'modprobe vfio-pci' alone -> %d", ret);
	close(fd);
	ret = run("modprobe", "vfio_iommu_type1");
	if (ret) {
		FAILF("modprobe vfio_iommu_type1: status %d", ret);
		goto out;
	}
	snprintf(path, sizeof(path), "/dev/vfio/%d", group);
	fd = open(path, O_RDWR);
	expect_errno("open group before binding to vfio-pci",
		     fd < 0 ? errno : 0, ENOENT);
	if (fd >= 0)
		close(fd);

	if (vfio_pci_bind(bdf)) {
		FAILF("bind: %s", vfio_last_error());
		goto out;
	}
	say("%s bound to vfio-pci", bdf);
	if (vfio_dev_open(&vd, bdf)) {
		FAILF("open: %s", vfio_last_error());
		goto out;
	}
	say("container/group/device open: group %d, %u regions, type1v2 set",
	    vd.group_id, vd.num_regions);

	fd = open(path, O_RDWR);
	expect_errno("second open of the group", fd < 0 ? errno : 0, EBUSY);
	if (fd >= 0)
		close(fd);
	fd = ioctl(vd.group, VFIO_GROUP_GET_DEVICE_FD, "0000:00:1f.0");
	expect_errno("GET_DEVICE_FD for a device of another group",
		     fd < 0 ? errno : 0, ENODEV);
	if (fd >= 0)
		close(fd);

	if (vfio_iommu_query(&vd, &caps)) {
		FAILF("%s", vfio_last_error());
		goto out;
	}
	say("iommu page sizes %#llx, dma mappings available %ld",
	    (unsigned long long)caps.pgsizes, caps.dma_avail);
	for (i = 0; i < caps.nr_ranges; i++)
		say("usable iova range %#llx-%#llx",
		    (unsigned long long)caps.ranges[i].start,
		    (unsigned long long)caps.ranges[i].end);
	if (!vfio_iova_usable(&caps, TEST_IOVA, TEST_LEN)) {
		FAILF("test iova %#lx not in a usable range", TEST_IOVA);
		goto out;
	}

	regs = vfio_bar_map(&vd, EDU_BAR, &regs_size);
	if (!regs) {
		FAILF("%s", vfio_last_error());
		goto out;
	}
	if (edu_probe_regs(regs)) {
		FAILF("BAR0 does not look like edu (id %#x)",
		      edu_rd32(regs, EDU_REG_ID));
		goto out;
	}
	say("BAR0 mapped (%zu bytes), edu id %#x", regs_size,
	    edu_rd32(regs, EDU_REG_ID));
	if (vfio_bus_master(&vd, 1)) {
		FAILF("%s", vfio_last_error());
		goto out;
	}
	say("bus master enabled through the config region");

	buf = mmap(NULL, TEST_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		buf = NULL;
		FAILF("mmap buffer: %s", strerror(errno));
		goto out;
	}
	probe_map_errors(&vd, buf);
	if (vfio_dma_map(&vd, buf, TEST_IOVA, TEST_LEN,
			 VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)) {
		FAILF("%s", vfio_last_error());
		goto out;
	}
	say("mapped buffer %p at iova %#lx size %#lx", (void *)buf, TEST_IOVA,
	    TEST_LEN);
	expect_errno("MAP_DMA overlapping an existing mapping",
		     -vfio_dma_map(&vd, buf, TEST_IOVA + PAGE, PAGE,
				   VFIO_DMA_MAP_FLAG_READ), EEXIST);
	expect_errno("UNMAP_DMA of half a mapping",
		     -vfio_dma_unmap(&vd, TEST_IOVA + PAGE, PAGE, NULL), EINVAL);
	unmapped = 1;
	ret = vfio_dma_unmap(&vd, 0x2000000UL, PAGE, &unmapped);
	say("probe UNMAP_DMA where nothing is mapped -> %s, %llu bytes unmapped",
	    guest_errname(-ret), (unsigned long long)unmapped);
	if (ret || unmapped)
		FAILF("unmap of nothing: ret %d unmapped %llu", ret,
		      (unsigned long long)unmapped);

	roundtrip(regs, buf);
	dma_after_unmap(&vd, regs, buf);
	vfio_bus_master(&vd, 0);
out:
	if (buf)
		munmap(buf, TEST_LEN);
	vfio_bar_unmap(regs, regs_size);
	vfio_dev_close(&vd);
	printf("VFIO-EDU SUMMARY: %s\n", fails ? "FAIL" : "PASS");
	return fails ? 1 : 0;
}
