// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * What makes an input run the same way every time.
 *
 * RCU callbacks, run in the harness's own thread.  Every fuzz executable
 * is linked with -Wl,--wrap=dp_call_rcu, so the core's deferred frees
 * (retired index nodes, chunk records) queue up here instead of on the
 * shim's deferred list (compat/user/rcu.c, which dp_rcu_reclaim() runs
 * after a real grace period), and dpf_rcu_flush() runs them.  The harnesses
 * are single-threaded and flush between steps, when no reader can be
 * inside a read-side section: a grace period has trivially passed.
 *
 * What that buys: frees happen at a fixed point of every input (AFL++ sees
 * no core code running in another thread, an input behaves the same every
 * time), no input waits for a real grace period (a barrier per input cost
 * the index harness 40 ms), and ASan catches any step that still uses a
 * node the index retired in an earlier one.
 */
#include "dmapool_os_impl.h"
#include "harness.h"

void __wrap_dp_call_rcu(struct dp_rcu_head *head,
			void (*fn)(struct dp_rcu_head *head));

/* Linked through the head's own next pointer. */
static struct dp_rcu_head *queue;
static unsigned long queued;

void __wrap_dp_call_rcu(struct dp_rcu_head *head,
			void (*fn)(struct dp_rcu_head *head))
{
	head->fn = fn;
	head->next = queue;
	queue = head;
	queued++;
}

unsigned long dpf_rcu_flush(void)
{
	unsigned long n = 0;

	while (queue) {
		struct dp_rcu_head *head = queue;

		queue = head->next;
		head->fn(head);
		n++;
	}
	return n;
}

unsigned long dpf_rcu_queued(void)
{
	return queued;
}

/*
 * The core's entropy (dp_os_random_seed: handle generations, redzone keys,
 * random placement without a seed) comes from a fixed sequence that every
 * input restarts (-Wl,--wrap=dp_os_random_seed), so an input takes the
 * same path every time it runs: AFL++ sees a stable target and a finding
 * replays exactly.
 */
uint64_t __wrap_dp_os_random_seed(void);

static uint64_t entropy;

void dpf_entropy_reset(void)
{
	entropy = 0;
}

uint64_t __wrap_dp_os_random_seed(void)
{
	/* splitmix64 */
	uint64_t z = (entropy += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
