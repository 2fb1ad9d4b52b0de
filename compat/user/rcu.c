// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Userspace RCU for the core: readers, grace periods and deferred
 * callbacks, with nothing a free could trip over.
 *
 * Why not liburcu (which earlier versions used): its "bulletproof" flavour
 * registers a thread on its first read lock by mapping memory, and aborts
 * the process if that fails; that first read lock can be inside a free,
 * which must never allocate (and a library must not abort its caller).  Its
 * call_rcu creates a worker thread lazily and aborts when it cannot.  And
 * its read side, reached through another shared object's TLS, costs a
 * __tls_get_addr call.  What the core needs is small enough to be ours.
 *
 * Readers: every thread has a struct dp_rcu_reader in static (initial-exec)
 * TLS, which glibc allocates with the thread.  On its first read lock the
 * thread links it into the list of readers (a spinlock, no allocation) and
 * sets a pthread key whose destructor unlinks it when the thread exits (a
 * key made at load time, among the first a process makes, is set without an
 * allocation).  A read lock copies the current grace-period counter (phase
 * bit + nesting 1) into the thread's counter; unlock stores 0.  Nested
 * sections count.
 *
 * Grace periods (urcu's two-phase algorithm, as in the "memb" flavour): the
 * writer flips the phase bit, waits until no reader is still inside a
 * section entered in the old phase, flips again and waits again.  The
 * readers' plain stores are ordered against the writer with membarrier(),
 * which runs a full barrier on every thread of the process; where the
 * kernel has no membarrier the readers use full fences instead.
 *
 * Deferred callbacks: dp_call_rcu() links the head onto a lock-free list
 * (it never allocates, never blocks: a free may call it); the core calls
 * dp_rcu_reclaim() where it may block (growing a pool, shrink, destroy):
 * one grace period, then every callback queued before it runs there.
 *
 * Grace-period cookies (for chunk records that are reused, not freed): a
 * cookie names "a grace period that begins after now"; it is done once
 * such a grace period has completed in any thread.
 *
 * fork(): the child has one thread; readers of the parent's other threads
 * are dropped from its list (pthread_atfork).
 *
 * ThreadSanitizer cannot see a grace period, so in TSan builds every read
 * unlock releases a sync object that the end of every grace period
 * acquires: exactly the ordering a grace period gives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dmapool_os_impl.h"

__thread struct dp_rcu_reader dp_rcu_me
	__attribute__((tls_model("initial-exec")));
unsigned long dp_rcu_gp_ctr = 1;	/* phase 0, nesting 1 */
int dp_rcu_fence;

static struct dp_lock readers_lock;
static struct dp_rcu_reader *readers;
static pthread_mutex_t gp_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t reader_key;
static bool key_ok;

#ifdef DP_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

static char grace_sync;

void dp_rcu_tsan_release(void)
{
	__tsan_release(&grace_sync);
}

static void grace_acquire(void)
{
	__tsan_acquire(&grace_sync);
}
#else
static void grace_acquire(void)
{
}
#endif

static long membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/* A full barrier on every thread of the process (or on this one only, when
 * the readers fence themselves). */
static void barrier_all(void)
{
	if (__atomic_load_n(&dp_rcu_fence, __ATOMIC_RELAXED) ||
	    membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void unlink_reader(void *arg)
{
	struct dp_rcu_reader *r = arg;
	unsigned long f = dp_lock(&readers_lock);

	if (r->linked) {
		if (r->prev)
			r->prev->next = r->next;
		else
			readers = r->next;
		if (r->next)
			r->next->prev = r->prev;
		r->linked = false;
	}
	dp_unlock(&readers_lock, f);
}

/* The child of a fork has only the thread that forked. */
static void after_fork_child(void)
{
	struct dp_rcu_reader *me = &dp_rcu_me;

	dp_lock_init(&readers_lock);
	readers = NULL;
	if (me->linked) {
		me->next = me->prev = NULL;
		readers = me;
	}
	pthread_mutex_init(&gp_mutex, NULL);
}

__attribute__((constructor)) static void rcu_init(void)
{
	/* Early, so the key is among the process's first (no allocation
	 * when a thread sets it). */
	key_ok = !pthread_key_create(&reader_key, unlink_reader);
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		__atomic_store_n(&dp_rcu_fence, 1, __ATOMIC_RELAXED);
	pthread_atfork(NULL, NULL, after_fork_child);
}

/*
 * A thread whose exit nobody would see (the key could not be set) must not
 * be linked: its TLS goes away with it.  Its sections are counted in one
 * atomic instead, with full barriers, and a grace period waits until that
 * count is zero once: a section counted after that began after the
 * writer's change was published.  (It can starve a writer under a stream
 * of such sections; it is the fallback of a fallback.)
 */
static unsigned long unlinked;

void dp_rcu_lock_unlinked(struct dp_rcu_reader *r)
{
	__atomic_add_fetch(&unlinked, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&r->ctr, 1, __ATOMIC_RELAXED);
}

void dp_rcu_unlock_unlinked(struct dp_rcu_reader *r)
{
	__atomic_store_n(&r->ctr, 0, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&unlinked, 1, __ATOMIC_SEQ_CST);
}

void dp_rcu_link(struct dp_rcu_reader *r)
{
	unsigned long f;

	if (!key_ok || pthread_setspecific(reader_key, r))
		return;
	f = dp_lock(&readers_lock);
	r->prev = NULL;
	r->next = readers;
	if (readers)
		readers->prev = r;
	readers = r;
	__atomic_store_n(&r->linked, true, __ATOMIC_RELAXED);
	dp_unlock(&readers_lock, f);
}

/* Is any linked reader still inside a section of the other phase? */
static bool old_readers(void)
{
	const unsigned long now = __atomic_load_n(&dp_rcu_gp_ctr,
						  __ATOMIC_RELAXED);
	struct dp_rcu_reader *r;
	bool busy = false;
	unsigned long f = dp_lock(&readers_lock);

	for (r = readers; r && !busy; r = r->next) {
		unsigned long c = __atomic_load_n(&r->ctr, __ATOMIC_RELAXED);

		busy = (c & DP_RCU_NEST_MASK) && ((c ^ now) & DP_RCU_PHASE);
	}
	dp_unlock(&readers_lock, f);
	return busy;
}

static void wait_phase(void)
{
	unsigned int spins = 0;

	__atomic_store_n(&dp_rcu_gp_ctr,
			 __atomic_load_n(&dp_rcu_gp_ctr, __ATOMIC_RELAXED) ^
			 DP_RCU_PHASE, __ATOMIC_RELAXED);
	barrier_all();
	while (old_readers()) {
		if (++spins > 64)
			sched_yield();
	}
}

/* Grace periods begun and the highest one completed, by number. */
static unsigned long gp_begun;
static unsigned long gp_completed;

static void grace_period(void)
{
	unsigned long me = __atomic_add_fetch(&gp_begun, 1, __ATOMIC_SEQ_CST);
	unsigned int spins;
	unsigned long seen;

	pthread_mutex_lock(&gp_mutex);
	/* Everything before this is ordered before the readers' next reads. */
	barrier_all();
	wait_phase();
	wait_phase();
	for (spins = 0; __atomic_load_n(&unlinked, __ATOMIC_SEQ_CST); )
		if (++spins > 64)
			sched_yield();
	/* ... and their last reads before what follows. */
	barrier_all();
	pthread_mutex_unlock(&gp_mutex);
	grace_acquire();
	seen = __atomic_load_n(&gp_completed, __ATOMIC_RELAXED);
	while (seen < me &&
	       !__atomic_compare_exchange_n(&gp_completed, &seen, me, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

void dp_synchronize_rcu(void)
{
	grace_period();
}

unsigned long dp_rcu_gp_cookie(void)
{
	return __atomic_load_n(&gp_begun, __ATOMIC_SEQ_CST) + 1;
}

bool dp_rcu_gp_done(unsigned long cookie)
{
	if (__atomic_load_n(&gp_completed, __ATOMIC_ACQUIRE) < cookie)
		return false;
	grace_acquire();
	return true;
}

void dp_rcu_gp_wait(unsigned long cookie)
{
	if (!dp_rcu_gp_done(cookie))
		grace_period();
}

/* Callbacks waiting for a grace period, newest first. */
static struct dp_rcu_head *deferred;

void dp_call_rcu(struct dp_rcu_head *head, void (*fn)(struct dp_rcu_head *))
{
	struct dp_rcu_head *old = __atomic_load_n(&deferred, __ATOMIC_RELAXED);

	head->fn = fn;
	do {
		head->next = old;
	} while (!__atomic_compare_exchange_n(&deferred, &old, head, true,
					      __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

void dp_rcu_reclaim(void)
{
	struct dp_rcu_head *list, *next;

	if (!__atomic_load_n(&deferred, __ATOMIC_RELAXED))
		return;
	/* Everything taken here was queued before the grace period below. */
	list = __atomic_exchange_n(&deferred, NULL, __ATOMIC_ACQUIRE);
	if (!list)
		return;
	grace_period();
	for (; list; list = next) {
		next = list->next;
		list->fn(list);
	}
}

void dp_rcu_barrier(void)
{
	while (__atomic_load_n(&deferred, __ATOMIC_RELAXED))
		dp_rcu_reclaim();
}
