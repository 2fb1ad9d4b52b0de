// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * dmapool.ko: module glue.  Installed into a kernel tree the same code is
 * built in and this file is not used.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>

#include "dmapool_kernel_priv.h"

static int __init dmapool_module_init(void)
{
	return 0;
}

static void __exit dmapool_module_exit(void)
{
	/*
	 * RCU callbacks (in this module's text) and the module's work items
	 * (host frees deferred out of atomic context, the grace-period kick)
	 * must all have run before the module goes; every pool cancelled its
	 * own work item when it was destroyed.
	 */
	rcu_barrier();
	dp_kernel_flush_deferred();
}

module_init(dmapool_module_init);
module_exit(dmapool_module_exit);
MODULE_DESCRIPTION("dmapool: hardened DMA pool allocator (no allocator state in device-reachable memory) and dma_pool drop-in");
MODULE_LICENSE("Dual MIT/GPL");
