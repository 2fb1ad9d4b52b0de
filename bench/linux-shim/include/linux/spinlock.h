/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * spinlock_t as an x86-64 kernel without lock debugging calls it: the
 * irqsave lock and the irqrestore unlock are out-of-line functions
 * (CONFIG_INLINE_SPIN_LOCK_IRQSAVE is not set there), here in their own
 * translation unit (bench/linux-shim/spinlock.c) so the compiler cannot
 * inline them into the pool.  The lock word is taken with one
 * compare-and-swap, as the queued spinlock's fast path does.
 *
 * Not emulated: saving and disabling interrupts and the preempt count
 * (userspace has neither), which the kernel pays on top: Linux's figures
 * here are a lower bound of what the same code costs in a kernel.
 */
#ifndef LX_SHIM_LINUX_SPINLOCK_H
#define LX_SHIM_LINUX_SPINLOCK_H

#include <linux/types.h>

typedef struct {
	int locked;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name)	{ 0 }
#define DEFINE_SPINLOCK(name)		spinlock_t name = __SPIN_LOCK_UNLOCKED(name)

static inline void spin_lock_init(spinlock_t *lock)
{
	lock->locked = 0;
}

unsigned long lx_spin_lock_irqsave(spinlock_t *lock);
void lx_spin_unlock_irqrestore(spinlock_t *lock, unsigned long flags);
void lx_spin_lock(spinlock_t *lock);
void lx_spin_unlock(spinlock_t *lock);

#define spin_lock_irqsave(lock, flags) \
	do { (flags) = lx_spin_lock_irqsave(lock); } while (0)
#define spin_unlock_irqrestore(lock, flags) \
	lx_spin_unlock_irqrestore(lock, flags)
#define spin_lock(lock)		lx_spin_lock(lock)
#define spin_unlock(lock)	lx_spin_unlock(lock)

#endif /* LX_SHIM_LINUX_SPINLOCK_H */
