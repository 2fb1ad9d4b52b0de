/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The benchmark's DMA backend: chunks carved from big pre-faulted mappings
 * and recycled by size.
 *
 * The kernel's dma_alloc_coherent hands out memory that is already mapped
 * and zeroed; an anonymous mmap per chunk (dmapool_dev_heap) instead costs a
 * system call per chunk and a page fault on first touch, which the embedded
 * designs take (they write into every block when they carve a page) and
 * dmapool does not (it never touches blocks).  That would flatter dmapool,
 * so the benchmark takes chunks from here: cheap, and already faulted in.
 */
#ifndef DMAPOOL_BENCH_ARENA_H
#define DMAPOOL_BENCH_ARENA_H

#include <dmapool/dmapool.h>

/* A backend over fresh arenas of @seg_bytes each (0: 256 MiB), pre-faulted. */
struct dmapool_dev *bench_arena_dev(size_t seg_bytes);
/* Bytes of arena mapped so far (all of it faulted in). */
size_t bench_arena_mapped(const struct dmapool_dev *dev);

#endif
