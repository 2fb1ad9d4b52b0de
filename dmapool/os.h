/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The seam between the core and the world.
 *
 * The core (every file in dmapool/) includes this header and nothing from
 * libc, pthread, urcu or Linux.  Each world provides "dmapool_os_impl.h" on
 * its include path (compat/user/ or compat/kernel/) with the definitions
 * below, most of them static inline because they sit on the hot path.
 *
 * What an implementation provides:
 *
 *  types     uint8_t..uint64_t, uintptr_t, size_t, bool, true, false, NULL
 *  DP_LIKELY(x), DP_UNLIKELY(x)
 *  DP_NOINLINE                a cold function kept out of its caller
 *  DP_WARN_ON(cond)           internal-bug check; evaluates to cond
 *  DP_ASSERT(cond)            compiled out unless debugging
 *
 *  struct dp_lock             a lock a pool can hold on its hot path
 *  dp_irqflags_t              what dp_lock() returns and dp_unlock() takes
 *  void dp_lock_init(struct dp_lock *l)
 *  void dp_lock_fini(struct dp_lock *l)
 *  dp_irqflags_t dp_lock(struct dp_lock *l)
 *  void dp_unlock(struct dp_lock *l, dp_irqflags_t f)
 *  dp_irqflags_t dp_global_lock(void)      guards the registry of pools
 *  void dp_global_unlock(dp_irqflags_t f)
 *
 *  size_t dp_os_page_size(void)            a power of two
 *  void *dp_os_host_alloc(size_t n, dmapool_gfp_t gfp)   host memory, NULL on failure
 *  void *dp_os_host_zalloc(size_t n, dmapool_gfp_t gfp)
 *  void dp_os_host_free(void *p, size_t n)
 *  int dp_os_chunk_alloc(struct dmapool_dev *dev, size_t size, size_t align,
 *                        dmapool_gfp_t gfp, void **vaddr, dmapool_dma_t *dma)
 *                                          DMA memory; 0 or a negative errno
 *  void dp_os_chunk_free(struct dmapool_dev *dev, size_t size, void *vaddr,
 *                        dmapool_dma_t dma)
 *  void dp_os_dev_get(struct dmapool_dev *dev)
 *  void dp_os_dev_put(struct dmapool_dev *dev)
 *
 *  void dp_os_memset(void *p, int c, size_t n)
 *  void dp_os_memcpy(void *d, const void *s, size_t n)
 *  void dp_os_strscpy(char *d, const char *s, size_t n)   always terminates
 *
 *  void dp_os_report_default(const struct dmapool_report *r)  the default sink
 *  void dp_os_violation_abort(const struct dmapool_report *r) abort-on-violation
 *  uint64_t dp_os_atomic_inc(uint64_t *p)                    returns the new value
 *  uint64_t dp_os_atomic_read(const uint64_t *p)
 *  uint64_t dp_os_random_seed(void)                          any entropy source
 *  unsigned int dp_os_popcount64(uint64_t x)                 bits set in x
 *  unsigned int dp_os_ctz64(uint64_t x)       index of the lowest set bit; x != 0
 *
 * Memory ordering: everything the core shares between threads is guarded by
 * a pool's lock or the global lock, except the atomics above.
 */
#ifndef DMAPOOL_OS_H
#define DMAPOOL_OS_H

#include "dmapool_os_impl.h"
#include <dmapool/dmapool.h>

#endif /* DMAPOOL_OS_H */
