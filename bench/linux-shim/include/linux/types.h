/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The userspace shim's kernel types (bench/linux-shim/README.md).
 *
 * Only what mm/dmapool.c of Linux 6.12 needs, written for this benchmark.
 * dma_addr_t is the same type as dmapool_dma_t (uint64_t) so that the
 * benchmark can declare dma_pool_alloc() and dma_pool_free() with the
 * public header's types and call them directly.
 */
#ifndef LX_SHIM_LINUX_TYPES_H
#define LX_SHIM_LINUX_TYPES_H

/* Compiler-provided headers only: no libc header may see this directory. */
#include <stdbool.h>
#include <stddef.h>

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT64_TYPE__ s64;
typedef __INTPTR_TYPE__ ssize_t;

typedef u64 dma_addr_t;
typedef unsigned int gfp_t;
typedef unsigned short umode_t;

struct list_head {
	struct list_head *next, *prev;
};

#endif /* LX_SHIM_LINUX_TYPES_H */
