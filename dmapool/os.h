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
 *  bool dp_trylock(struct dp_lock *l, dp_irqflags_t *f)   true when taken
 *                             (the hot paths try first and take the lock
 *                             in a separate function when it is busy, so
 *                             they make no call that returns to them)
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
 * Atomics on shared words (kernel: READ_ONCE, WRITE_ONCE and the bitops on
 * unsigned long, which is 64 bits where the core runs):
 *
 *  DP_READ_ONCE(x), DP_WRITE_ONCE(x, v)     one untorn access, no ordering
 *  bool dp_os_test_and_set_bit64(uint32_t nr, uint64_t *w)
 *                     test_and_set_bit(): atomic, fully ordered; the old bit
 *  void dp_os_set_bit64(uint32_t nr, uint64_t *w)      set_bit(): atomic
 *  void dp_os_clear_bit64(uint32_t nr, uint64_t *w)    clear_bit(): atomic
 *
 * RCU: lock-free readers of the index, writers under the pool lock.  Each
 * primitive is the kernel call named next to it, with its semantics:
 *
 *  struct dp_rcu_head                        struct rcu_head
 *  void dp_rcu_read_lock(void)               rcu_read_lock()
 *  void dp_rcu_read_unlock(void)             rcu_read_unlock()
 *  DP_RCU_DEREF(p)                           rcu_dereference(p)
 *  DP_RCU_ASSIGN(p, v)                       rcu_assign_pointer(p, v)
 *  void dp_call_rcu(struct dp_rcu_head *h, void (*fn)(struct dp_rcu_head *))
 *                                            call_rcu(): fn(h) runs after a
 *                     grace period, in any context the world allows (kernel:
 *                     softirq), so fn only frees host memory
 *  void dp_rcu_barrier(void)                 rcu_barrier(): every fn queued
 *                     so far has run (the pool's destroy; may sleep)
 *  void dp_synchronize_rcu(void)             synchronize_rcu() (may sleep)
 *  DP_CONTAINER_OF(ptr, type, member)        container_of()
 *
 * A reader may be any thread that calls into a pool, at any time: userspace
 * implementations must not require threads to register by hand.  Read-side
 * sections never sleep; a pool lock may be taken inside one (RCU read side
 * first, then the pool lock), as in the kernel.
 *
 * Per-context objects, for the per-thread caches (userspace: one object per
 * thread and pool, drained when the thread exits; kernel: alloc_percpu(),
 * one object per CPU, reached with preemption off):
 *
 *  struct dp_local                one per pool
 *  dp_local_flags_t
 *  int dp_os_local_init(struct dp_local *l, size_t size,
 *                       void (*drain)(void *obj, void *arg), void *arg)
 *                     0 or a negative errno; objects start zeroed
 *  void *dp_os_local_get(struct dp_local *l, dp_local_flags_t *f)
 *                     this context's object, pinned to it until put
 *                     (kernel: get_cpu_ptr() or local_lock_irqsave() on a
 *                     per-CPU object); NULL when none can be had (out of
 *                     memory, or a thread that is exiting): the caller then
 *                     does without.  Nothing between get and put may sleep.
 *  void dp_os_local_put(struct dp_local *l, dp_local_flags_t f)
 *  void dp_os_local_fini(struct dp_local *l)
 *                     calls drain(obj, arg) for every object, then frees
 *                     them; no other thread may use the pool meanwhile
 *  void dp_os_local_for_each(struct dp_local *l,
 *                            void (*fn)(void *obj, void *ctx), void *ctx)
 *                     visit every object (statistics; the objects' owners
 *                     may be changing them: read with DP_READ_ONCE)
 *  A userspace implementation calls drain(obj, arg) when a thread that has
 *  an object exits; drain may take the pool lock.  The kernel has no
 *  per-thread exit: objects stay with their CPU until fini.
 *
 * Memory ordering: everything the core shares between threads is guarded by
 * a pool's lock or the global lock, except the atomics, the RCU-published
 * index and the per-thread caches' held bits (see tcache.c).
 */
#ifndef DMAPOOL_OS_H
#define DMAPOOL_OS_H

#include "dmapool_os_impl.h"
#include <dmapool/dmapool.h>

#endif /* DMAPOOL_OS_H */
