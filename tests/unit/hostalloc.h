/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The host allocator, interposed (tests/unit/hostalloc.c).
 *
 * A program linked with hostalloc.c defines malloc, calloc, realloc, free,
 * posix_memalign, aligned_alloc, memalign, valloc, pvalloc, mmap, mmap64
 * and mremap itself.  The executable comes first in the dynamic linker's
 * lookup order, before libc and before a sanitizer runtime, so every call
 * in the process goes through them: the library's own, liburcu-bp's,
 * glibc's internal ones that go through the PLT (pthread_create's TLS,
 * stdio buffers).  Each forwards to the next definition
 * (dlsym(RTLD_NEXT)): libc's, or the sanitizer's, so ASan, LSan and TSan
 * keep working.
 *
 * "Host allocations" are the malloc family (every call that returns new
 * heap memory; realloc to a non-zero size counts, free and realloc to 0 do
 * not).  The mmap family is counted separately: liburcu-bp maps its reader
 * registry with mmap when a thread first enters a read-side section.
 *
 * Two tools on top:
 *  - failure injection: after ha_fail_at(K, persistent), the K-th host
 *    allocation from then on fails (NULL, errno ENOMEM), and with
 *    @persistent every later one too;
 *  - a forbidden window: between ha_forbid_begin() and ha_forbid_end() in
 *    a thread, any host allocation or mmap in that thread is recorded with
 *    a backtrace (the allocation itself is still served).
 */
#ifndef DMAPOOL_TESTS_HOSTALLOC_H
#define DMAPOOL_TESTS_HOSTALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* Host allocations (malloc family) made so far in the process. */
unsigned long ha_allocs(void);
/* Of those, how many were failed on purpose. */
unsigned long ha_failed(void);
/* Host blocks live now (allocated and not yet freed), process-wide. */
long ha_live(void);
/* mmap and mremap calls so far. */
unsigned long ha_maps(void);

/*
 * Fail the @k-th host allocation counted from now (1 = the next one), and
 * with @persistent every one after it; @k = 0 stops failing.
 */
void ha_fail_at(unsigned long k, bool persistent);

/* Forbidden window of this thread; @what names it in the message. */
void ha_forbid_begin(const char *what);
/*
 * End it: the number of host allocations and maps the thread made in it
 * (not counting those a UBSan report handler made while reporting); the
 * kind, size and backtrace of the first few were printed as TAP comments.
 */
unsigned long ha_forbid_end(void);

/* Call once at start, before threads: resolves the real functions. */
void ha_init(void);

#endif
