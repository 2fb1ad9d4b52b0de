/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The seam between the core and the world.
 *
 * The core (every file in dmapool/) includes this header and nothing from
 * libc, pthread, urcu or Linux.  Each world provides "dmapool_os_impl.h" on
 * its include path (compat/user/ or compat/kernel/) with the definitions
 * below, most of them static inline because they sit on the hot path.
 *
 *  types     u8, u16, u32, u64, s64 (the kernel's names; uint8_t..uint64_t
 *            too, which the public header uses), uintptr_t, size_t, bool,
 *            true, false, NULL
 *  static_assert(cond, msg), ARRAY_SIZE(a), __always_inline
 *  EXPORT_SYMBOL(fn)          after each API function (kernel: exported to
 *                             modules; userspace: a redeclaration)
 *  DP_LIKELY(x), DP_UNLIKELY(x)
 *  DP_NOINLINE                a function kept out of its caller
 *  DP_COLD                    a function off the fast path (with DP_NOINLINE
 *                             on every slow step: placed and laid out as cold)
 *  DP_HOT                     a function only cold code calls that is still
 *                             hot (the compiler would lay it out as cold)
 *  DP_WARN_ON(cond)           internal-bug check; evaluates to cond
 *  DP_ASSERT(cond)            compiled out unless debugging
 *  DP_HAVE_HARDEN             1 when the hardening options are built
 *                             (poison, sampled poison, scrub, redzones,
 *                             quarantine, random placement; harden.c,
 *                             placement.c), else 0
 *  DP_HAVE_BTREE              1 when the B-tree index is built (btree.c)
 *                             A left-out option is refused at create.
 *
 * Locks (the pool lock guards what is shared: the slot table, the index's
 * writers, the shared heap, orphaned heaps, spare chunks):
 *
 *  struct dp_lock; the flags a lock saves are an unsigned long
 *  void dp_lock_init(struct dp_lock *l), void dp_lock_fini(struct dp_lock *l)
 *  unsigned long dp_lock(struct dp_lock *l)
 *  bool dp_trylock(struct dp_lock *l, unsigned long *f)   true when taken
 *  void dp_unlock(struct dp_lock *l, unsigned long f)
 *  unsigned long dp_global_lock(void), void dp_global_unlock(unsigned long)
 *
 * Owners: the contexts that own heaps (userspace: threads; kernel: CPUs).
 * A context pins itself, and while pinned nothing else runs as that
 * context (kernel: local_lock_irqsave on a per-CPU lock; userspace: a
 * thread is its own context).  The core keeps the heap pointer of each
 * context in struct dp_owners and the owning context's token in each chunk:
 * a free compares tokens to know whether it runs as the owner.
 *
 *  tokens are uintptr_t: even, never 0 for a live context
 *  struct dp_owners            one per pool
 *  struct dp_pin_lock          the first member of a heap (kernel: its
 *                              local_lock_t lives there)
 *  the pin is an unsigned long: what pin saves and unpin takes
 *  int dp_owners_init(struct dp_owners *o, void (*exit)(void *heap, void *arg),
 *                     void *arg)           0 or a negative errno.  exit(heap)
 *                     runs when a context that installed a heap goes away
 *                     (a userspace thread exiting; never in the kernel); it
 *                     may take the pool lock.
 *  void dp_owners_fini(struct dp_owners *o) forget every context's heap (no
 *                     callbacks; no other call on the pool may run)
 *  uintptr_t dp_owner_pin(struct dp_owners *o, unsigned long *pin)
 *                     pin to this context; its token
 *  void dp_owner_unpin(struct dp_owners *o, unsigned long pin)
 *  void *dp_owner_heap(struct dp_owners *o)      pinned: this context's heap
 *                     or NULL;  dp_owner_heap_fast() the same, but returns
 *                     DP_NO_HEAP (&dp_heap_none, the core's heap that has
 *                     no block: never NULL) instead of NULL, and also when
 *                     the heap is only found the slow way
 *  uintptr_t dp_owner_set_heap(struct dp_owners *o, void *heap)
 *                     pinned: install this context's heap (userspace may
 *                     allocate); its token, or 0 when it cannot (out of
 *                     memory, an exiting thread): the caller does without
 *  Nothing between pin and unpin may sleep.  Lock order: pin, then the
 *  pool lock.
 *
 *  size_t dp_os_page_size(void)            a power of two
 *  DP_OS_CHUNK_DEFAULT_MAX    the largest default chunk (bytes): what one
 *                             DMA allocation may cost in this world
 *  DP_OS_CHUNK_DEFAULT_MIN    the smallest default chunk of one segment
 *                             (bytes): what a context may hold at least
 *  void *dp_os_host_alloc(size_t n, dmapool_gfp_t gfp)   NULL on failure
 *  void *dp_os_host_zalloc(size_t n, dmapool_gfp_t gfp)
 *                     zeroed, and 64-byte aligned where the world can
 *                     (userspace always; the kernel's kmalloc for the
 *                     power-of-two sizes): a chunk record's and a heap's
 *                     lines are laid out for other contexts' frees
 *                     (chunk.h, heap.h), and only speed depends on it
 *  void dp_os_host_free(void *p, size_t n)  any context (kernel: defers
 *                                           what may not be freed there)
 *  int dp_os_chunk_alloc(struct dmapool_dev *dev, size_t size, size_t align,
 *                        dmapool_gfp_t gfp, void **vaddr, dmapool_dma_t *dma)
 *                                          DMA memory; 0 or a negative errno
 *  void dp_os_chunk_free(struct dmapool_dev *dev, size_t size, void *vaddr,
 *                        dmapool_dma_t dma)  process context (kernel)
 *  void dp_os_dev_get(struct dmapool_dev *dev), dp_os_dev_put(...)
 *  void dp_os_memset(void *p, int c, size_t n), dp_os_memcpy(d, s, n)
 *  void dp_os_strscpy(char *d, const char *s, size_t n)   always terminates
 *  void dp_os_set_errno(int e)             userspace errno; kernel: nothing
 *  bool dp_os_gfp_may_block(dmapool_gfp_t gfp)  may an allocation sleep
 *
 *  void dp_os_report_default(const struct dmapool_report *r)  the default sink
 *  void dp_os_violation_abort(const struct dmapool_report *r) abort-on-violation
 *  uint64_t dp_os_atomic_inc(uint64_t *p), dp_os_atomic_read(const uint64_t *p)
 *  uint64_t dp_os_random_seed(void)
 *  unsigned int dp_os_popcount64(uint64_t x), dp_os_ctz64(uint64_t x) (x != 0)
 *  unsigned int dp_os_fls64(uint64_t x)    highest set bit from 1; 0 for 0
 *  void dp_os_prefetch_w(const void *p)    a hint: the line of @p will be
 *                                          written soon (never faults)
 *
 * Atomics:
 *  DP_READ_ONCE(x), DP_WRITE_ONCE(x, v)     one untorn access, no ordering
 *  DP_LOAD_ACQUIRE(x), DP_STORE_RELEASE(x, v)  the same, acquire / release
 *  DP_XCHG(p, v), DP_FETCH_OR(p, v)         fully ordered; the old value
 *  DP_READ_ORDERED(x)       a load that a fully ordered operation before it
 *                           in the same context keeps after it
 *  DP_ADD_RELEASE32(x, v)   x += v (u32) by its only plain writer, published
 *                           as DP_STORE_RELEASE would (others only read x
 *                           or change it atomically): x86 does it in one
 *                           instruction
 *  DP_COUNT_ONCE64(x)       x += 1 (u64) by its only writer, others only
 *                           read it (DP_READ_ONCE): a statistic; x86-64
 *                           does it in one instruction
 *  DP_FETCH_ADD(p, v)                       relaxed; the old value
 *  bool dp_os_test_and_clear_bit32(uint32_t nr, uint32_t *w)  fully ordered
 *  bool dp_os_cmpxchg32(uint32_t *p, uint32_t old, uint32_t new)
 *  bool dp_os_cmpxchg_ptr(void **p, void *old, void *new)
 *  bool dp_os_test_and_set_bit64(uint32_t nr, uint64_t *w)
 *  void dp_os_set_bit64(uint32_t nr, uint64_t *w), dp_os_clear_bit64(...)
 *
 * RCU: lock-free readers (frees of other contexts' blocks, bad frees, the
 * B-tree index); writers under the pool lock.
 *  struct dp_rcu_head
 *  void dp_rcu_read_lock(void), dp_rcu_read_unlock(void)
 *  DP_RCU_DEREF(p), DP_RCU_ASSIGN(p, v)
 *  void dp_call_rcu(struct dp_rcu_head *h, void (*fn)(struct dp_rcu_head *))
 *                     fn(h) runs after a grace period; never allocates and
 *                     never blocks (a free may call it); fn only frees host
 *                     memory
 *  void dp_rcu_reclaim(void)  may block: let queued callbacks run (userspace
 *                     runs them here, after a grace period; kernel: nothing)
 *  void dp_rcu_barrier(void)  may block: every callback queued so far ran
 *  void dp_synchronize_rcu(void)               may block
 *  unsigned long dp_rcu_gp_cookie(void)        a grace period beginning now
 *  bool dp_rcu_gp_done(unsigned long cookie)   has it completed?
 *  void dp_rcu_gp_wait(unsigned long cookie)   may block until it has
 *  DP_CONTAINER_OF(ptr, type, member)
 *
 * Deferred work (a chunk release the caller's context may not do):
 *  DP_HAVE_WORK                            1 when dp_work_queue() works
 *  struct dp_work
 *  void dp_work_init(struct dp_work *w, void (*fn)(struct dp_work *w))
 *  bool dp_work_queue(struct dp_work *w)   true: fn runs later in process
 *                     context (kernel); false: nobody will run it (userspace)
 *  void dp_work_flush(struct dp_work *w)   may block: no fn is pending/running
 *
 * Memory ordering: what contexts share is guarded by the pool lock or the
 * global lock, except the atomics above, the RCU-published index, the state
 * words of blocks and the remote-free words of chunks (see block.h).
 */
#ifndef DMAPOOL_OS_H
#define DMAPOOL_OS_H

#include "dmapool_os_impl.h"
#include <dmapool/dmapool.h>

#endif /* DMAPOOL_OS_H */
