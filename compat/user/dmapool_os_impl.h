/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Userspace side of the seam (see dmapool/os.h for the contract).
 *
 * The pool lock is an inline test-and-test-and-set spinlock, like the
 * kernel's spinlock that the kernel's dma_pool holds: the critical sections
 * are a few dozen instructions, and calling a lock out of line costs more
 * than holding it.  A waiter that spins too long yields the CPU, so a lock
 * holder that was preempted is not starved by its waiters.
 */
#ifndef DMAPOOL_OS_IMPL_H
#define DMAPOOL_OS_IMPL_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <dmapool/dmapool.h>

/*
 * The kernel's spellings, so that the core reads as kernel C in both worlds:
 * fixed-width types, static_assert (C11's, from <assert.h>; always given a
 * message), ARRAY_SIZE, EXPORT_SYMBOL, __always_inline (glibc's
 * <sys/cdefs.h> has it too) and __aligned.
 */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
/*
 * The core marks its API functions the kernel's way; here a redeclaration
 * (visibility comes from DMAPOOL_API and the version script).
 */
#ifndef EXPORT_SYMBOL
#define EXPORT_SYMBOL(sym)	extern __typeof__(sym) sym
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#ifndef __aligned
#define __aligned(x)	__attribute__((__aligned__(x)))
#endif

#define DP_LIKELY(x)	__builtin_expect(!!(x), 1)
#define DP_UNLIKELY(x)	__builtin_expect(!!(x), 0)
#define DP_NOINLINE	__attribute__((noinline))
#define DP_COLD		__attribute__((cold))
#define DP_HOT		__attribute__((hot))

/* Every feature is built in userspace (a test build may say otherwise). */
#ifndef DP_HAVE_HARDEN
#define DP_HAVE_HARDEN	1
#endif
#ifndef DP_HAVE_BTREE
#define DP_HAVE_BTREE	1
#endif

void dp_os_warn(const char *file, int line, const char *cond);
static inline bool dp_warn_check(bool c, const char *file, int line,
				 const char *cond)
{
	if (DP_UNLIKELY(c))
		dp_os_warn(file, line, cond);
	return c;
}
#define DP_WARN_ON(c)	dp_warn_check(!!(c), __FILE__, __LINE__, #c)
#ifdef DMAPOOL_DEBUG
#define DP_ASSERT(c)	((void)DP_WARN_ON(!(c)))
#else
#define DP_ASSERT(c)	((void)0)
#endif

struct dp_lock {
	int locked;
};

void dp_os_lock_slow(struct dp_lock *l);

static inline void dp_lock_init(struct dp_lock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELAXED);
}

static inline void dp_lock_fini(struct dp_lock *l)
{
	(void)l;
}

static inline unsigned long dp_lock(struct dp_lock *l)
{
	if (DP_UNLIKELY(__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)))
		dp_os_lock_slow(l);
	return 0;
}

/* Take the lock if it is free: true when taken. */
static inline bool dp_trylock(struct dp_lock *l, unsigned long *f)
{
	*f = 0;
	return !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

static inline void dp_unlock(struct dp_lock *l, unsigned long f)
{
	(void)f;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

unsigned long dp_global_lock(void);
void dp_global_unlock(unsigned long f);

size_t dp_os_page_size(void);
/* mmap'd chunks: a quarter MiB is nothing to ask for. */
#define DP_OS_CHUNK_DEFAULT_MAX	((size_t)256 << 10)
/*
 * And at least 64 KiB of small blocks: a million live 64-byte blocks in
 * 4 KiB chunks are 16384 records and index entries, more than the caches
 * hold beside the state words, and a free of a random one misses on both
 * (docs/benchmarks.md, A4).  The memory a thread holds in a pool at least.
 */
#define DP_OS_CHUNK_DEFAULT_MIN	((size_t)64 << 10)
void *dp_os_host_alloc(size_t n, dmapool_gfp_t gfp);
void *dp_os_host_zalloc(size_t n, dmapool_gfp_t gfp);
void dp_os_host_free(void *p, size_t n);

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

void dp_os_strscpy(char *d, const char *s, size_t n);

void dp_os_report_default(const struct dmapool_report *r);
void dp_os_violation_abort(const struct dmapool_report *r);

static inline uint64_t dp_os_atomic_inc(uint64_t *p)
{
	return __atomic_add_fetch(p, 1, __ATOMIC_RELAXED);
}

static inline uint64_t dp_os_atomic_read(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

uint64_t dp_os_random_seed(void);

/*
 * Without -mpopcnt (the x86-64 baseline) the builtin is a libgcc call.  On
 * x86-64 the instruction when the CPU has it (dp_os_popcnt, set when the
 * library loads: every x86-64 CPU since about 2008 has it), else the
 * bit-slicing count, a dozen instructions inline.
 */
#if defined(__x86_64__) && !defined(__POPCNT__)
extern bool dp_os_popcnt;
#endif

static inline unsigned int dp_os_popcount64(uint64_t x)
{
#if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
	return (unsigned int)__builtin_popcountll(x);
#else
#if defined(__x86_64__)
	if (__builtin_expect(dp_os_popcnt, 1)) {
		uint64_t n;

		__asm__("popcnt %1, %0" : "=r"(n) : "rm"(x) : "cc");
		return (unsigned int)n;
	}
#endif
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned int)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* The builtin: prefetchw where the target has it, else a read prefetch. */
static inline void dp_os_prefetch_w(const void *p)
{
	__builtin_prefetch(p, 1, 3);
}

static inline unsigned int dp_os_ctz64(uint64_t x)
{
	return (unsigned int)__builtin_ctzll(x);
}

/* The position of the highest set bit, counted from 1; 0 when x is 0. */
static inline unsigned int dp_os_fls64(uint64_t x)
{
	return x ? 64 - (unsigned int)__builtin_clzll(x) : 0;
}

/* Atomics: the GCC builtins, which TSan understands. */
#define DP_READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define DP_WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define DP_LOAD_ACQUIRE(x)	__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define DP_STORE_RELEASE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
/*
 * x += v by its only plain writer (the block's owner), published like
 * DP_STORE_RELEASE (others only read it or change it atomically): on x86,
 * whose stores are releases, one add to memory instead of a load, an add
 * and a store; elsewhere, and under TSan (which must see the store), the
 * same as a release store of the sum.
 */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DP_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define DP_TSAN 1
#endif
#if defined(__x86_64__) && !defined(DP_TSAN)
#define DP_ADD_RELEASE32(x, v)						\
	__asm__ volatile("addl %1, %0" : "+m"(x) : "ir"((uint32_t)(v)) :	\
			 "memory")
/* One add to memory: untorn on x86-64, and no ordering wanted. */
#define DP_COUNT_ONCE64(x)						\
	__asm__ volatile("addq $1, %0" : "+m"(x))
#else
#define DP_ADD_RELEASE32(x, v)						\
	DP_STORE_RELEASE(x, DP_READ_ONCE(x) + (uint32_t)(v))
#define DP_COUNT_ONCE64(x)	DP_WRITE_ONCE(x, DP_READ_ONCE(x) + 1)
#endif
/*
 * After a sequentially consistent operation: sequentially consistent too,
 * which C11 needs to keep it after (x86: a plain load all the same).
 */
#define DP_READ_ORDERED(x)	__atomic_load_n(&(x), __ATOMIC_SEQ_CST)

static inline bool dp_os_test_and_set_bit64(uint32_t nr, uint64_t *w)
{
	uint64_t bit = (uint64_t)1 << nr;

	return __atomic_fetch_or(w, bit, __ATOMIC_SEQ_CST) & bit;
}

static inline void dp_os_set_bit64(uint32_t nr, uint64_t *w)
{
	__atomic_fetch_or(w, (uint64_t)1 << nr, __ATOMIC_RELAXED);
}

static inline void dp_os_clear_bit64(uint32_t nr, uint64_t *w)
{
	__atomic_fetch_and(w, ~((uint64_t)1 << nr), __ATOMIC_RELAXED);
}

/*
 * Bit @nr of *w cleared; was it set?  Fully ordered.  On x86-64 one lock
 * btr written out: GCC's own pattern for the builtin below will not take
 * an address with a displacement (a state word at a fixed offset in its
 * record) and spends a saved register and a lea on it.  Not under TSan,
 * which must see the atomic.
 */
static inline bool dp_os_test_and_clear_bit32(uint32_t nr, uint32_t *w)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__) && !defined(DP_TSAN)
	bool was;

	__asm__ volatile("lock btrl %2, %0"
			 : "+m"(*w), "=@ccc"(was)
			 : "Ir"(nr)
			 : "memory");
	return was;
#else
	uint32_t bit = 1u << nr;

	return __atomic_fetch_and(w, ~bit, __ATOMIC_SEQ_CST) & bit;
#endif
}

/*
 * *p = new if *p == old; true when it was.  Fully ordered.  Written out on
 * x86-64 for the reason dp_os_test_and_clear_bit32() is.
 */
static inline bool dp_os_cmpxchg32(uint32_t *p, uint32_t old, uint32_t new)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__) && !defined(DP_TSAN)
	bool ok;

	__asm__ volatile("lock cmpxchgl %3, %1"
			 : "=@ccz"(ok), "+m"(*p), "+a"(old)
			 : "r"(new)
			 : "memory");
	return ok;
#else
	return __atomic_compare_exchange_n(p, &old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
#endif
}

static inline bool dp_os_cmpxchg_ptr(void **p, void *old, void *new)
{
	return __atomic_compare_exchange_n(p, &old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* Fully ordered exchange and fetch-or. */
#define DP_XCHG(p, v)		__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define DP_FETCH_OR(p, v)	__atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST)
#define DP_FETCH_ADD(p, v)	__atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

#define DP_CONTAINER_OF(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/*
 * RCU (rcu.c): readers are a thread's own counter in static TLS, so a read
 * lock never allocates, never fails and never registers anything by hand
 * (a thread links its counter into the list of readers on its first read
 * lock, with no allocation).  The read side is a load and a store of that
 * counter around compiler barriers; grace periods use membarrier() to
 * order them (the flavour liburcu calls "memb"), or, where the kernel lacks
 * it, full fences in the readers.
 */
#if defined(__SANITIZE_THREAD__)
#define DP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DP_TSAN 1
#endif
#endif

struct dp_rcu_head {
	struct dp_rcu_head *next;	/* on rcu.c's deferred list */
	void (*fn)(struct dp_rcu_head *head);
};

/* A thread's reader state (rcu.c). */
struct dp_rcu_reader {
	unsigned long ctr;		/* 0: outside; else the grace-period
					 * phase it entered in, + nesting */
	struct dp_rcu_reader *next, *prev;	/* every linked reader */
	bool linked;
};

#define DP_RCU_NEST_MASK	0xffffUL
#define DP_RCU_PHASE		0x10000UL

extern __thread struct dp_rcu_reader dp_rcu_me
	__attribute__((tls_model("initial-exec")));
extern unsigned long dp_rcu_gp_ctr;
extern int dp_rcu_fence;		/* readers fence: no membarrier() */
void dp_rcu_link(struct dp_rcu_reader *r);
/* Readers that could not be linked (rcu.c): counted per phase instead. */
void dp_rcu_lock_unlinked(struct dp_rcu_reader *r);
void dp_rcu_unlock_unlinked(struct dp_rcu_reader *r);
#ifdef DP_TSAN
void dp_rcu_tsan_release(void);
#endif

static inline void dp_rcu_reader_fence(void)
{
	if (DP_UNLIKELY(__atomic_load_n(&dp_rcu_fence, __ATOMIC_RELAXED)))
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/*
 * The read side names dp_rcu_me itself rather than going through a pointer
 * to it.  Through a pointer, -fsanitize=null checks every member access;
 * GCC 12 at -O2 and above can fold that check into the flags of the
 * "add x@gottpoff(%rip), %reg" that computes the address, and a linker
 * building an executable rewrites that add into a lea, which sets no
 * flags.  The check then tests stale flags and reports a NULL pointer that
 * is not there (dp_registry_owner(), in release sanitizer builds).  Named
 * directly, the variable has no pointer to check; without sanitizers the
 * code is the same either way.
 */
static inline void dp_rcu_read_lock(void)
{
	unsigned long c = __atomic_load_n(&dp_rcu_me.ctr, __ATOMIC_RELAXED);

	if (DP_LIKELY(!(c & DP_RCU_NEST_MASK))) {
		if (DP_UNLIKELY(!dp_rcu_me.linked)) {
			dp_rcu_link(&dp_rcu_me);
			if (!dp_rcu_me.linked) {
				dp_rcu_lock_unlinked(&dp_rcu_me);
				return;
			}
		}
		/* Enter in the current phase, with nesting 1. */
		__atomic_store_n(&dp_rcu_me.ctr,
				 __atomic_load_n(&dp_rcu_gp_ctr,
						 __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
		dp_rcu_reader_fence();
	} else {
		__atomic_store_n(&dp_rcu_me.ctr, c + 1, __ATOMIC_RELAXED);
	}
}

static inline void dp_rcu_read_unlock(void)
{
	unsigned long c = __atomic_load_n(&dp_rcu_me.ctr, __ATOMIC_RELAXED);

#ifdef DP_TSAN
	dp_rcu_tsan_release();
#endif
	if (DP_LIKELY((c & DP_RCU_NEST_MASK) == 1)) {
		if (DP_UNLIKELY(!dp_rcu_me.linked)) {
			dp_rcu_unlock_unlinked(&dp_rcu_me);
			return;
		}
		dp_rcu_reader_fence();
		__atomic_store_n(&dp_rcu_me.ctr, 0, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&dp_rcu_me.ctr, c - 1, __ATOMIC_RELAXED);
	}
}

#define DP_RCU_DEREF(p)		__atomic_load_n(&(p), __ATOMIC_CONSUME)
#define DP_RCU_ASSIGN(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

void dp_call_rcu(struct dp_rcu_head *head, void (*fn)(struct dp_rcu_head *));
void dp_rcu_reclaim(void);
void dp_rcu_barrier(void);
void dp_synchronize_rcu(void);
unsigned long dp_rcu_gp_cookie(void);
bool dp_rcu_gp_done(unsigned long cookie);
void dp_rcu_gp_wait(unsigned long cookie);

/*
 * Owners (owners.c): each thread that allocates from a pool gets its own
 * heap there.  The heap pointer of the first DP_OWNER_FAST pools is one
 * initial-exec TLS load away (slot 0 stays NULL: pools beyond the fast
 * slots use it and find their heap in owners.c).  A thread's token is its
 * thread pointer (the TLS base: one compare with %fs:0 on x86-64), even
 * and unique among live threads.
 */
#define DP_OWNER_FAST	64

struct dp_owners {
	uint32_t slot;			/* 1.. (0: not initialised) */
	uint32_t fast;			/* slot if < DP_OWNER_FAST, else 0 */
	void (*exit)(void *heap, void *arg);
	void *arg;
};

/* Nothing to lock: a thread is its own context. */
struct dp_pin_lock {
	char unused;
};

/* The core's heap with no block (heap.c): what a slot holds without one,
 * so that the fast path needs no NULL test. */
struct dp_heap;
extern struct dp_heap dp_heap_none;
#define DP_NO_HEAP	((void *)&dp_heap_none)

extern __thread void *dp_owner_tls[DP_OWNER_FAST]
	__attribute__((tls_model("initial-exec")));

int dp_owners_init(struct dp_owners *o, void (*exit)(void *heap, void *arg),
		   void *arg);
void dp_owners_fini(struct dp_owners *o);
void *dp_owner_heap_slow(struct dp_owners *o);
uintptr_t dp_owner_set_heap(struct dp_owners *o, void *heap);

static inline uintptr_t dp_owner_pin(struct dp_owners *o, unsigned long *pin)
{
	(void)o;
	*pin = 0;
	return (uintptr_t)__builtin_thread_pointer();
}

static inline void dp_owner_unpin(struct dp_owners *o, unsigned long pin)
{
	(void)o;
	(void)pin;
}

static inline void *dp_owner_heap_fast(struct dp_owners *o)
{
	return dp_owner_tls[o->fast];
}

static inline void *dp_owner_heap(struct dp_owners *o)
{
	void *h = dp_owner_tls[o->fast];

	return DP_LIKELY(h != DP_NO_HEAP) ? h : dp_owner_heap_slow(o);
}

/* Deferred work: userspace has no worker; the caller does it inline. */
#define DP_HAVE_WORK	0

struct dp_work {
	void (*fn)(struct dp_work *w);
};

static inline void dp_work_init(struct dp_work *w, void (*fn)(struct dp_work *))
{
	w->fn = fn;
}

static inline bool dp_work_queue(struct dp_work *w)
{
	(void)w;
	return false;
}

static inline void dp_work_flush(struct dp_work *w)
{
	(void)w;
}

void dp_os_set_errno(int e);

/* May an allocation with these flags block?  (Userspace: always.) */
static inline bool dp_os_gfp_may_block(dmapool_gfp_t gfp)
{
	(void)gfp;
	return true;
}

#endif /* DMAPOOL_OS_IMPL_H */
