/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Page size and the init_on_alloc / init_on_free switches.
 *
 * Both switches are off here, so the pool never zeroes a block: dmapool's
 * dmapool_alloc() does not zero either, and the benchmark compares like
 * with like.  (Debian's kernel turns init_on_alloc on by default; with it
 * every dma_pool_alloc() would memset the block.)  want_init_on_alloc()
 * still honours __GFP_ZERO, as the kernel's does with the switch off.
 */
#ifndef LX_SHIM_LINUX_MM_H
#define LX_SHIM_LINUX_MM_H

#include <linux/gfp.h>
#include <linux/types.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1ul << PAGE_SHIFT)

static inline bool want_init_on_alloc(gfp_t flags)
{
	return flags & __GFP_ZERO;
}

static inline bool want_init_on_free(void)
{
	return false;
}

#endif /* LX_SHIM_LINUX_MM_H */
