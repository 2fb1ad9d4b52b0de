// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The spinlock calls of the shim, alone in this file so that they stay
 * out-of-line calls from the pool as in an x86-64 kernel (see
 * include/linux/spinlock.h).
 *
 * Fast path: one compare-and-swap to take the lock word, one release store
 * to drop it.  Slow path (contention only): spin on plain loads with PAUSE,
 * then compare-and-swap again.  In userspace the lock holder can be
 * preempted, which a kernel spinlock holder cannot (it runs with
 * preemption off), so a waiter that has spun for a while yields the CPU
 * on every further look: without that, more threads than free CPUs spin
 * away whole time slices.  That is the policy of the lock the other
 * subjects use (compat/user's), so contention costs every subject alike.
 */
#include <linux/compiler.h>
#include <linux/spinlock.h>

#include "lx_host.h"

#define LX_SPINS_BEFORE_YIELD	128

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static inline bool try_take(spinlock_t *lock)
{
	int unlocked = 0;

	return __atomic_compare_exchange_n(&lock->locked, &unlocked, 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static noinline void spin_slow(spinlock_t *lock)
{
	unsigned int spins = 0;

	do {
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED)) {
			if (++spins < LX_SPINS_BEFORE_YIELD)
				cpu_relax();
			else
				lx_host_yield();
		}
	} while (!try_take(lock));
}

noinline unsigned long lx_spin_lock_irqsave(spinlock_t *lock)
{
	if (unlikely(!try_take(lock)))
		spin_slow(lock);
	return 0;	/* the "saved interrupt state" */
}

noinline void lx_spin_unlock_irqrestore(spinlock_t *lock, unsigned long flags)
{
	(void)flags;
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

noinline void lx_spin_lock(spinlock_t *lock)
{
	if (unlikely(!try_take(lock)))
		spin_slow(lock);
}

noinline void lx_spin_unlock(spinlock_t *lock)
{
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}
