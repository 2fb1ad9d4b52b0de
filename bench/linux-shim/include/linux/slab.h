/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* kmalloc and friends on the C library's allocator (bench/linux-shim/kernel.c). */
#ifndef LX_SHIM_LINUX_SLAB_H
#define LX_SHIM_LINUX_SLAB_H

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/types.h>

void *kmalloc(size_t size, gfp_t flags);
void *kzalloc(size_t size, gfp_t flags);
void kfree(const void *p);

#endif /* LX_SHIM_LINUX_SLAB_H */
