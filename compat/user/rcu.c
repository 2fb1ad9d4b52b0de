// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Userspace RCU for the core: liburcu's "bulletproof" flavor (urcu-bp) for
 * readers and grace periods, and deferred callbacks of our own.
 *
 * Why urcu-bp: dmapool is a library, called from threads it did not create
 * and cannot ask to register.  urcu-bp registers a thread on its first read
 * lock and forgets it when the thread exits.  The core reads under RCU only
 * on its slow paths (frees of another thread's blocks, bad frees, the
 * B-tree index), so urcu-bp's read-side cost is where it does not matter.
 *
 * Why not liburcu's call_rcu: its worker thread is created lazily by the
 * first call_rcu of the process, and liburcu aborts the process when that
 * creation fails (memory pressure, a thread limit).  A library must not
 * abort its caller.  So dp_call_rcu() only links the head onto a lock-free
 * list (it never allocates, never blocks: a free may call it), and the core
 * calls dp_rcu_reclaim() where it may block (growing a pool, shrink,
 * destroy): one grace period, then every callback queued before it runs in
 * that thread.  A callback frees host memory, nothing else.
 *
 * Grace-period cookies (for chunk records that are reused, not freed): a
 * cookie names "a grace period that begins after now"; it is done once such
 * a grace period has completed in any thread.
 *
 * ThreadSanitizer cannot see a grace period (liburcu is not instrumented),
 * so in TSan builds every read unlock releases a sync object that the end
 * of every grace period acquires: exactly the ordering a grace period gives.
 */
#include <stddef.h>

#include <urcu/urcu-bp.h>

#include "dmapool_os_impl.h"

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

/* Grace periods begun and the highest one completed, by number. */
static unsigned long gp_begun;
static unsigned long gp_completed;

static void grace_period(void)
{
	unsigned long me = __atomic_add_fetch(&gp_begun, 1, __ATOMIC_SEQ_CST);
	unsigned long seen = __atomic_load_n(&gp_completed, __ATOMIC_RELAXED);

	urcu_bp_synchronize_rcu();
	grace_acquire();
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
