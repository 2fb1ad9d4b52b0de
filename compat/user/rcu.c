// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Userspace RCU for the core, on liburcu's "bulletproof" flavor (urcu-bp).
 *
 * Why urcu-bp: dmapool is a library, called from threads it did not create
 * and cannot ask to register.  urcu-bp registers a thread on its first read
 * lock and unregisters it when the thread exits, so no caller ever has to
 * call rcu_register_thread().  The memb flavor reads a little faster but a
 * thread that reads without registering is invisible to grace periods (a
 * use-after-free), and QSBR makes every thread announce quiescent states.
 * Our read side is only on the thread-cache free path and our grace periods
 * only on chunk add/remove, so urcu-bp's cost is where it does not matter.
 *
 * ThreadSanitizer cannot see a grace period (liburcu is not instrumented and
 * waits with membarrier and futexes), so in TSan builds every read unlock
 * releases a sync object that every deferred free and synchronize acquires:
 * exactly the ordering a grace period provides.  Nor does it see liburcu's
 * queue hand a callback to its worker thread: dp_call_rcu releases on the
 * head, the callback acquires it.
 */
#include <stddef.h>

#include <urcu/urcu-bp.h>

#include "dmapool_os_impl.h"

_Static_assert(sizeof(struct rcu_head) == sizeof(((struct dp_rcu_head *)0)->urcu),
	       "struct dp_rcu_head must hold liburcu's struct rcu_head");
_Static_assert(offsetof(struct dp_rcu_head, urcu) == 0,
	       "liburcu's head comes first");

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
#define tsan_release(p)	__tsan_release(p)
#define tsan_acquire(p)	__tsan_acquire(p)
#else
static void grace_acquire(void)
{
}
#define tsan_release(p)	((void)(p))
#define tsan_acquire(p)	((void)(p))
#endif

static void run_callback(struct rcu_head *rh)
{
	struct dp_rcu_head *head = (struct dp_rcu_head *)(void *)rh;

	tsan_acquire(head);
	grace_acquire();
	head->fn(head);
}

void dp_call_rcu(struct dp_rcu_head *head, void (*fn)(struct dp_rcu_head *))
{
	head->fn = fn;
	tsan_release(head);
	urcu_bp_call_rcu((struct rcu_head *)(void *)head->urcu, run_callback);
}

void dp_rcu_barrier(void)
{
	urcu_bp_barrier();
	grace_acquire();
}

void dp_synchronize_rcu(void)
{
	urcu_bp_synchronize_rcu();
	grace_acquire();
}
