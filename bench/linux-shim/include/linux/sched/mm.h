/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * might_alloc(): in a kernel without lockdep and CONFIG_DEBUG_ATOMIC_SLEEP
 * it reduces to might_resched(), nothing under full or no preemption.  Here
 * it checks nothing and costs nothing.
 */
#ifndef LX_SHIM_LINUX_SCHED_MM_H
#define LX_SHIM_LINUX_SCHED_MM_H

#include <linux/gfp.h>

static inline void might_alloc(gfp_t gfp)
{
	(void)gfp;
}

#endif /* LX_SHIM_LINUX_SCHED_MM_H */
