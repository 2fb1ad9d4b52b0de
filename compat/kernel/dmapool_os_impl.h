/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Kernel side of the seam (see dmapool/os.h for the contract).
 *
 * Found on the module's include path instead of compat/user's, so the core
 * files compile unchanged as kernel C.  What each primitive becomes:
 *
 *  lock          a spinlock taken with spin_lock_irqsave(), like the lock of
 *                the kernel's dma_pool: alloc and free work in any context.
 *  host memory   kvmalloc() with the caller's gfp minus __GFP_ZERO and the
 *                zone modifiers; gfp 0 (what dmapool_create passes, and the
 *                project's "may block") is GFP_KERNEL.  kvmalloc only falls
 *                back to vmalloc for blocking gfp, and a vmalloc'd area is
 *                never freed where vfree() could sleep (see os_kernel.c).
 *  chunks        dma_alloc_coherent() on a struct device; gfp passes through
 *                (minus __GFP_ZERO, as the kernel's pool does).
 *  devices       struct dmapool_dev is never defined in the kernel: a
 *                (struct dmapool_dev *) IS a (struct device *), converted by
 *                dmapool_kdev() (<dmapool/kernel.h>).  A pool holds a
 *                reference (get_device) for its whole life.
 *  reports       pr_err_ratelimited() by default (os_kernel.c).
 *  internal bugs WARN_ON(); abort-on-violation is panic().
 *  atomics       the kernel's atomic_t/atomic64_t operations on the core's
 *                u32 and u64 words, xchg/cmpxchg, READ_ONCE/WRITE_ONCE and
 *                the bitops; the claim of a block is one lock btr on x86.
 *  RCU           the kernel's own: rcu_read_lock(), call_rcu() (callbacks
 *                run in softirq and only free host memory), rcu_barrier(),
 *                synchronize_rcu(), and the polled grace-period cookies.
 *  owners       CPUs: a per-CPU object per pool with a local_lock_t and the
 *                CPU's heap.  Pinning is local_lock_irqsave() on it: with
 *                interrupts off (PREEMPT_RT: a per-CPU sleeping lock with
 *                migration off), so an interrupt on the same CPU never finds
 *                a heap half-changed.  The token is the object's address.
 *  deferred work a work_struct on the system workqueue: chunks that a free
 *                emptied go back to the device there, in process context.
 *  randomness    get_random_u64().
 */
#ifndef DMAPOOL_OS_IMPL_H
#define DMAPOOL_OS_IMPL_H

#include <linux/array_size.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/build_bug.h>	/* static_assert */
#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/export.h>
#include <linux/gfp.h>
#include <linux/instrumented.h>
#include <linux/irqflags.h>
#include <linux/kcsan-checks.h>
#include <linux/limits.h>
#include <linux/local_lock.h>
#include <linux/mm.h>
#include <linux/panic.h>
#include <linux/percpu.h>
#include <linux/prefetch.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#ifdef CONFIG_X86
#include <asm/alternative.h>	/* LOCK_PREFIX */
#include <asm/asm.h>		/* CC_SET, CC_OUT */
#endif

#include <dmapool/dmapool.h>

#ifndef UINT64_MAX
#define UINT64_MAX	U64_MAX
#endif
#ifndef UINTPTR_MAX
#define UINTPTR_MAX	ULONG_MAX
#endif

#define DP_LIKELY(x)	likely(x)
#define DP_UNLIKELY(x)	unlikely(x)
#define DP_NOINLINE	noinline
#define DP_COLD		__cold
#define DP_HOT		__attribute__((__hot__))

/*
 * Features: all of them in dmapool.ko; in a tree, what Kconfig says
 * (mm/dmapool/Kconfig, installed by install-into-tree).
 */
#ifdef DMAPOOL_IN_TREE
#define DP_HAVE_HARDEN	IS_ENABLED(CONFIG_DMAPOOL_HARDENED)
#define DP_HAVE_BTREE	IS_ENABLED(CONFIG_DMAPOOL_BTREE)
#else
#define DP_HAVE_HARDEN	1
#define DP_HAVE_BTREE	1
#endif

#define DP_WARN_ON(c)	WARN_ON(c)
#ifdef DMAPOOL_DEBUG
#define DP_ASSERT(c)	((void)WARN_ON_ONCE(!(c)))
#else
#define DP_ASSERT(c)	BUILD_BUG_ON_INVALID(c)
#endif

/* ---- locks --------------------------------------------------------- */

struct dp_lock {
	spinlock_t lock;	/* the pool lock (os.h says what it guards) */
};

static inline void dp_lock_init(struct dp_lock *l)
{
	spin_lock_init(&l->lock);
}

static inline void dp_lock_fini(struct dp_lock *l)
{
}

static inline unsigned long dp_lock(struct dp_lock *l)
{
	unsigned long flags;

	spin_lock_irqsave(&l->lock, flags);
	return flags;
}

/* spin_trylock_irqsave(): interrupts stay as they were when it fails. */
static inline bool dp_trylock(struct dp_lock *l, unsigned long *flags)
{
	return spin_trylock_irqsave(&l->lock, *flags);
}

static inline void dp_unlock(struct dp_lock *l, unsigned long flags)
{
	spin_unlock_irqrestore(&l->lock, flags);
}

unsigned long dp_global_lock(void);
void dp_global_unlock(unsigned long flags);

/* ---- RCU ------------------------------------------------------------ */

struct dp_rcu_head {
	struct rcu_head rcu;
	void (*fn)(struct dp_rcu_head *head);
};

static inline void dp_rcu_read_lock(void)
{
	rcu_read_lock();
}

static inline void dp_rcu_read_unlock(void)
{
	rcu_read_unlock();
}

/*
 * The core reads the index under rcu_read_lock() or under the pool lock
 * (which excludes its writers): the raw form, so that lockdep does not
 * mistake the second for a bug.
 */
#define DP_RCU_DEREF(p)		rcu_dereference_raw(p)
#define DP_RCU_ASSIGN(p, v)	rcu_assign_pointer(p, v)

void dp_call_rcu(struct dp_rcu_head *head, void (*fn)(struct dp_rcu_head *));

static inline void dp_rcu_barrier(void)
{
	rcu_barrier();
}

static inline void dp_synchronize_rcu(void)
{
	synchronize_rcu();
}

/* Callbacks run by themselves after a grace period: nothing to do. */
static inline void dp_rcu_reclaim(void)
{
}

/* A grace period beginning now; os_kernel.c says how it gets started. */
unsigned long dp_rcu_gp_cookie(void);

static inline bool dp_rcu_gp_done(unsigned long cookie)
{
	return poll_state_synchronize_rcu(cookie);
}

static inline void dp_rcu_gp_wait(unsigned long cookie)
{
	cond_synchronize_rcu(cookie);
}

#define DP_CONTAINER_OF(ptr, type, member)	container_of(ptr, type, member)

/* ---- owners: CPUs ------------------------------------------------------ */

/* One per pool and CPU: the CPU's pin lock and its heap in the pool. */
struct dp_owner_cpu {
	local_lock_t lock;
	void *heap;
};

struct dp_owners {
	struct dp_owner_cpu __percpu *pcpu;
};

/*
 * The token: this CPU's dp_owner_cpu (aligned, so even; never 0).  The pin:
 * what local_lock_irqsave() saved.
 */

/*
 * The heap's first member: nothing here.  local_lock_irqsave() takes a
 * per-CPU lock, so the lock lives in struct dp_owner_cpu instead.
 */
struct dp_pin_lock {
};

int dp_owners_init(struct dp_owners *o, void (*exit)(void *heap, void *arg),
		   void *arg);
void dp_owners_fini(struct dp_owners *o);

static __always_inline uintptr_t dp_owner_pin(struct dp_owners *o,
					      unsigned long *pin)
{
	local_lock_irqsave(&o->pcpu->lock, *pin);
	return (uintptr_t)this_cpu_ptr(o->pcpu);
}

static __always_inline void dp_owner_unpin(struct dp_owners *o,
					   unsigned long pin)
{
	local_unlock_irqrestore(&o->pcpu->lock, pin);
}

/*
 * The core's heap with no block (heap.c): what a CPU's heap is before it
 * has one, so that the fast path needs no NULL test.
 */
struct dp_heap;
extern struct dp_heap dp_heap_none;
#define DP_NO_HEAP	((void *)&dp_heap_none)

/* Pinned: this CPU's heap (one %gs-relative load on x86). */
static __always_inline void *dp_owner_heap_fast(struct dp_owners *o)
{
	return this_cpu_read(o->pcpu->heap);
}

static __always_inline void *dp_owner_heap(struct dp_owners *o)
{
	void *h = dp_owner_heap_fast(o);

	return h == DP_NO_HEAP ? NULL : h;
}

/* Pinned: install this CPU's heap; it never fails here. */
static __always_inline uintptr_t dp_owner_set_heap(struct dp_owners *o,
						   void *heap)
{
	this_cpu_write(o->pcpu->heap, heap);
	return (uintptr_t)this_cpu_ptr(o->pcpu);
}

/* ---- deferred work -------------------------------------------------------- */

#define DP_HAVE_WORK	1

struct dp_work {
	struct work_struct work;
	void (*fn)(struct dp_work *w);
};

void dp_work_run(struct work_struct *work);

static inline void dp_work_init(struct dp_work *w, void (*fn)(struct dp_work *))
{
	w->fn = fn;
	INIT_WORK(&w->work, dp_work_run);
}

/* Any context.  Already queued: it still runs (once) after this call. */
static inline bool dp_work_queue(struct dp_work *w)
{
	schedule_work(&w->work);
	return true;
}

/* Process context: nothing queued runs, nothing runs, once it returns. */
static inline void dp_work_flush(struct dp_work *w)
{
	cancel_work_sync(&w->work);
}

/* ---- memory --------------------------------------------------------- */

static inline size_t dp_os_page_size(void)
{
	return PAGE_SIZE;
}

/*
 * The largest default chunk: eight pages.  dma_alloc_coherent() of an
 * order-3 block is what the kernel's own pools and drivers ask for without
 * thinking twice; beyond that, a fragmented machine starts to refuse, or
 * compacts memory in the caller's allocation.
 */
#define DP_OS_CHUNK_DEFAULT_MAX	((size_t)32 << 10)
/*
 * No more than a page when 64 blocks fit in one, as the kernel's own pool
 * allocates: a pool holds that much per CPU that allocates from it.
 */
#define DP_OS_CHUNK_DEFAULT_MIN	PAGE_SIZE

/* The caller's gfp as the kernel's allocators want it. */
static inline gfp_t dp_kgfp(dmapool_gfp_t gfp)
{
	gfp_t f = (__force gfp_t)gfp;

	return f ? f & ~__GFP_ZERO : GFP_KERNEL;
}

/* Metadata never needs a DMA zone or highmem. */
static inline gfp_t dp_host_gfp(dmapool_gfp_t gfp)
{
	return dp_kgfp(gfp) & ~(__GFP_DMA | __GFP_DMA32 | __GFP_HIGHMEM);
}

static inline void *dp_os_host_alloc(size_t n, dmapool_gfp_t gfp)
{
	return kvmalloc(n, dp_host_gfp(gfp));
}

static inline void *dp_os_host_zalloc(size_t n, dmapool_gfp_t gfp)
{
	return kvzalloc(n, dp_host_gfp(gfp));
}

void dp_os_host_free(void *p, size_t n);

/* May an allocation with @gfp sleep?  (0 is GFP_KERNEL: yes.) */
static inline bool dp_os_gfp_may_block(dmapool_gfp_t gfp)
{
	return gfpflags_allow_blocking(dp_kgfp(gfp));
}

/* Callers see failures as NULL returns; the kernel has no errno. */
static inline void dp_os_set_errno(int e)
{
}

int dp_os_chunk_alloc(struct dmapool_dev *dev, size_t size, size_t align,
		      dmapool_gfp_t gfp, void **vaddr, dmapool_dma_t *dma);
void dp_os_chunk_free(struct dmapool_dev *dev, size_t size, void *vaddr,
		      dmapool_dma_t dma);
void dp_os_dev_get(struct dmapool_dev *dev);
void dp_os_dev_put(struct dmapool_dev *dev);

static inline void dp_os_memset(void *p, int c, size_t n)
{
	memset(p, c, n);
}

static inline void dp_os_memcpy(void *d, const void *s, size_t n)
{
	memcpy(d, s, n);
}

static inline void dp_os_strscpy(char *d, const char *s, size_t n)
{
	strscpy(d, s, n);
}

/* ---- reports -------------------------------------------------------- */

void dp_os_report_default(const struct dmapool_report *r);

/*
 * A pool created with DMAPOOL_OPT_ABORT_ON_VIOLATION asked to stop the
 * world on misuse (fuzzing, bring-up): panic, after the report is out.
 * Inline, so that objtool sees the caller end in panic(): out of line it
 * either warns that the function lacks __noreturn (6.12, vmlinux.o) or,
 * with __noreturn, that the caller runs on past the call (6.1, one object).
 */
static inline void dp_os_violation_abort(const struct dmapool_report *r)
{
	panic("dmapool: %s in pool \"%s\" (abort-on-violation)\n",
	      dmapool_report_kind_name(r->kind), r->pool_name);
}

/* ---- atomics and entropy -------------------------------------------- */

#define DP_READ_ONCE(x)		READ_ONCE(x)
#define DP_WRITE_ONCE(x, v)	WRITE_ONCE(x, v)
/*
 * A state word's allocation is published with a release store and read
 * with an acquire load by another CPU's free (block.h): the record's fields
 * the allocation saw are the ones that free checks.
 */
#define DP_LOAD_ACQUIRE(x)	smp_load_acquire(&(x))
/* The allocation's side of it: fields before the state word. */
#define DP_STORE_RELEASE(x, v)	smp_store_release(&(x), (v))
/* Value-returning atomics are fully ordered (atomic_t.txt): a plain load. */
#define DP_READ_ORDERED(x)	READ_ONCE(x)
/*
 * x += v by its only plain writer, published like DP_STORE_RELEASE: on x86
 * (TSO: every store is a release) one add to memory; elsewhere, and where
 * KCSAN must see the access, the release store of the sum.
 */
static __always_inline void dp_os_add_release32(u32 *p, u32 v)
{
#if defined(CONFIG_X86) && !defined(CONFIG_KCSAN)
	asm volatile("addl %1, %0" : "+m"(*p) : "ir"(v) : "memory");
#else
	/* Pairs with the acquire load of another CPU's free (block.h). */
	smp_store_release(p, READ_ONCE(*p) + v);
#endif
}

#define DP_ADD_RELEASE32(x, v)	dp_os_add_release32(&(x), (v))

static __always_inline void dp_os_count_once64(u64 *p)
{
	WRITE_ONCE(*p, READ_ONCE(*p) + 1);
}

#define DP_COUNT_ONCE64(x)	dp_os_count_once64(&(x))

/*
 * The bitops work on unsigned long: on 64-bit that is the core's word; on a
 * 32-bit little-endian kernel bit nr of a u64 is bit nr of two longs too.
 */
#if BITS_PER_LONG != 64 && defined(__BIG_ENDIAN)
#error "dmapool's bitmap words need 64-bit longs or little endian"
#endif

static inline bool dp_os_test_and_set_bit64(u32 nr, u64 *w)
{
	return test_and_set_bit(nr, (unsigned long *)w);
}

static inline void dp_os_set_bit64(u32 nr, u64 *w)
{
	set_bit(nr, (unsigned long *)w);
}

static inline void dp_os_clear_bit64(u32 nr, u64 *w)
{
	clear_bit(nr, (unsigned long *)w);
}

/*
 * Bit @nr of the 32-bit word *@w cleared, fully ordered; was it set?  The
 * claim of every free.  The kernel's bitops work on longs, which would
 * reach past a state word into its neighbour (and across a cache line), so
 * x86 gets its own 32-bit lock btr, instrumented like the kernel's bitops;
 * elsewhere a fetch-and-not.
 */
static __always_inline bool dp_os_test_and_clear_bit32(u32 nr, u32 *w)
{
#ifdef CONFIG_X86
	bool old;

	kcsan_mb();
	instrument_atomic_read_write(w, sizeof(*w));
	asm volatile(LOCK_PREFIX "btrl %[nr], %[w]" CC_SET(c)
		     : [w] "+m" (*w), CC_OUT(c) (old)
		     : [nr] "Ir" (nr)
		     : "memory");
	return old;
#else
	const u32 bit = 1u << nr;

	return atomic_fetch_andnot(bit, (atomic_t *)w) & bit;
#endif
}

/* *@p = @new if it was @old; true when it was.  Fully ordered. */
static __always_inline bool dp_os_cmpxchg32(u32 *p, u32 old, u32 new)
{
	return try_cmpxchg(p, &old, new);
}

static __always_inline bool dp_os_cmpxchg_ptr(void **p, void *old, void *new)
{
	return try_cmpxchg(p, &old, new);
}

/* Fully ordered exchange and fetch-or (of a u32 or a u64); the old value. */
#if BITS_PER_LONG == 64
#define DP_XCHG(p, v)		xchg((p), (v))
#else
/*
 * xchg() takes at most a long: on a 32-bit kernel a u64 goes through
 * atomic64_xchg() (through memory, so that no branch casts a pointer to a
 * wider integer).  The test is a constant: the other branch is dropped.
 */
static __always_inline void dp_xchg_wide(void *p, const void *v, void *old)
{
	*(u64 *)old = (u64)atomic64_xchg((atomic64_t *)p, *(const s64 *)v);
}

#define DP_XCHG(p, v)							\
	({								\
		__typeof__(p) __dp_p = (p);				\
		__typeof__(*__dp_p) __dp_new = (v), __dp_old;		\
		if (sizeof(*__dp_p) > sizeof(long))			\
			dp_xchg_wide(__dp_p, &__dp_new, &__dp_old);	\
		else							\
			__dp_old = xchg(__dp_p, __dp_new);		\
		__dp_old;						\
	})
#endif

#define DP_ATOMIC_SIZED(p, op32, op64, v)				\
	({								\
		__auto_type __dp_p = (p);				\
		__auto_type __dp_v = (v);				\
									\
		BUILD_BUG_ON(sizeof(*__dp_p) != 4 && sizeof(*__dp_p) != 8); \
		(__typeof__(*__dp_p))__builtin_choose_expr(		\
			sizeof(*__dp_p) == 8,				\
			op64((s64)__dp_v, (atomic64_t *)__dp_p),	\
			op32((int)__dp_v, (atomic_t *)__dp_p));		\
	})

#define DP_FETCH_OR(p, v) \
	DP_ATOMIC_SIZED(p, atomic_fetch_or, atomic64_fetch_or, v)
/* Relaxed. */
#define DP_FETCH_ADD(p, v) \
	DP_ATOMIC_SIZED(p, atomic_fetch_add_relaxed, atomic64_fetch_add_relaxed, v)

/* The core's counters are plain u64s; atomic64_t is a u64 in a struct. */
static inline atomic64_t *dp_atomic64(const u64 *p)
{
	BUILD_BUG_ON(sizeof(atomic64_t) != sizeof(u64));
	return (atomic64_t *)p;
}

static inline u64 dp_os_atomic_inc(u64 *p)
{
	return (u64)atomic64_inc_return(dp_atomic64(p));
}

static inline u64 dp_os_atomic_read(const u64 *p)
{
	return (u64)atomic64_read(dp_atomic64(p));
}

static inline u64 dp_os_random_seed(void)
{
	return get_random_u64();
}

/*
 * The builtins would call libgcc (popcount on x86-64 without -mpopcnt, ctz
 * on 32-bit), which the kernel does not link.
 */
static inline unsigned int dp_os_popcount64(u64 x)
{
	return hweight64(x);
}

static inline void dp_os_prefetch_w(const void *p)
{
	prefetchw(p);
}

static inline unsigned int dp_os_ctz64(u64 x)
{
	return __ffs64(x);
}

static inline unsigned int dp_os_fls64(u64 x)
{
	return fls64(x);
}

#endif /* DMAPOOL_OS_IMPL_H */
