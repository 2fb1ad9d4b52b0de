/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * guest.h - small helpers shared by the static test programs that run in
 * the QEMU guest: errno names for greppable output, and reading the guest
 * kernel's log (/dev/kmsg) to find the DMAR fault an IOMMU-refused DMA
 * leaves behind.
 */
#ifndef DMAPOOL_TESTS_GUEST_H
#define DMAPOOL_TESTS_GUEST_H

#include <stddef.h>
#include <stdint.h>

/* "EINVAL" for EINVAL (positive or negative), "success" for 0. */
const char *guest_errname(int err);

/*
 * /dev/kmsg opened at its end: guest_kmsg_find() then only sees records
 * logged after this call.  A negative errno on failure.
 */
int guest_kmsg_open_end(void);

/*
 * Wait up to @timeout_ms for a new record holding both @a and @b (b may be
 * NULL); copy its text (without the kmsg prefix) to @line.  0, -ENOENT
 * when none came, or another negative errno.
 */
int guest_kmsg_find(int fd, const char *a, const char *b, char *line,
		    size_t len, unsigned int timeout_ms);

/* Records in the whole log holding @a: a count or a negative errno. */
int guest_kmsg_count(const char *a);

/*
 * Wait for the guest's DMAR fault record for @iova ("fault addr 0x...")
 * logged after @fd was opened.  0 (record in @line) or -ENOENT.
 */
int guest_dmar_fault(int fd, uint64_t iova, char *line, size_t len);

#endif /* DMAPOOL_TESTS_GUEST_H */
