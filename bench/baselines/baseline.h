/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Baselines: the published DMA pool designs, re-implemented from their
 * algorithms so dmapool can be measured and attacked side by side with them.
 *
 *   linux-embedded  Linux v6.3+ mm/dmapool.c: one LIFO free list threaded
 *                   through the free blocks ({next, dma} inside each one).
 *   linux-pagelist  Linux <= v6.2: a list of pages, each with a chain of
 *                   next-offsets stored in its free blocks; alloc and free
 *                   search the page list.
 *   xarray-fix      the Nov 2024 "dmapool: Mitigate device-controllable mem.
 *                   corruption" PATCH v3: {next, dma, vaddr} out of line in
 *                   per-page arrays, an xarray from block address to its
 *                   record for free.
 *
 * Each is as fast as its design allows and keeps its design's weaknesses:
 * no debug checks (the kernel compiles them out unless slub_debug is on),
 * so a free is trusted and the embedded designs follow whatever a device
 * wrote into a free block.  That is the point: fuzzers and the showcase use
 * them as the vulnerable targets.
 *
 * All of them take DMA memory from a struct dmapool_dev (the same backends
 * dmapool uses), lock with the seam's struct dp_lock (dmapool's own lock),
 * and are compiled with the project's flags.  The pool geometry rules are
 * each design's own (block size rounding, page size, boundary handling).
 *
 * And Linux's own code, not a re-implementation:
 *
 *   linux-6.12      mm/dmapool.c of Linux 6.12, extracted from Debian's
 *                   linux-source-6.12 at build time and compiled unmodified
 *                   against a userspace shim (bench/linux-shim/): spinlock
 *                   calls out of line, dma_alloc_coherent() on the same
 *                   dmapool backends, init_on_alloc/init_on_free off.
 *
 * The common interface is the ops table; the per-design functions are also
 * exported so a benchmark loop can call them directly, as it calls dmapool.
 */
#ifndef DMAPOOL_BENCH_BASELINE_H
#define DMAPOOL_BENCH_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#include <dmapool/dmapool.h>

struct bl_pool;			/* a pool of any design */

/* Memory a pool holds: DMA memory, and host memory for its metadata. */
struct bl_mem {
	uint64_t dma_bytes;
	uint64_t meta_bytes;
	uint64_t chunks;
};

struct bl_ops {
	const char *name;
	/* NULL on bad geometry (each design's rules) or out of memory. */
	struct bl_pool *(*create)(struct dmapool_dev *dev, size_t size,
				  size_t align, size_t boundary);
	/* Blocks still allocated: their chunks are leaked, as the kernel does. */
	void (*destroy)(struct bl_pool *pool);
	/* NULL when out of memory; may grow the pool. */
	void *(*alloc)(struct bl_pool *pool, dmapool_dma_t *dma);
	void (*free)(struct bl_pool *pool, void *vaddr, dmapool_dma_t dma);
	/* Every chunk of DMA memory the pool holds (for a "device"). */
	void (*walk)(struct bl_pool *pool, dmapool_chunk_fn fn, void *ctx);
	void (*mem)(struct bl_pool *pool, struct bl_mem *m);
	/* Block size after the design's rounding (what a caller may use). */
	size_t (*block_size)(struct bl_pool *pool);
};

extern const struct bl_ops bl_linux_embedded;
extern const struct bl_ops bl_linux_pagelist;
extern const struct bl_ops bl_xarray_fix;
/* Not in bl_all[]: only the benchmark and its tests link the shim. */
extern const struct bl_ops bl_linux_612;
/* dmapool itself behind the same interface (default options, vaddr free). */
extern const struct bl_ops bl_dmapool;

/* Every design above, NULL-terminated. */
extern const struct bl_ops *const bl_all[];
/* Look one up by name; NULL if unknown. */
const struct bl_ops *bl_find(const char *name);

/* Direct entry points, for loops that must not pay an indirect call. */
struct bl_pool *bl_emb_create(struct dmapool_dev *dev, size_t size,
			      size_t align, size_t boundary);
void bl_emb_destroy(struct bl_pool *pool);
void *bl_emb_alloc(struct bl_pool *pool, dmapool_dma_t *dma);
void bl_emb_free(struct bl_pool *pool, void *vaddr, dmapool_dma_t dma);

struct bl_pool *bl_pl_create(struct dmapool_dev *dev, size_t size,
			     size_t align, size_t boundary);
void bl_pl_destroy(struct bl_pool *pool);
void *bl_pl_alloc(struct bl_pool *pool, dmapool_dma_t *dma);
void bl_pl_free(struct bl_pool *pool, void *vaddr, dmapool_dma_t dma);

struct bl_pool *bl_xa_create(struct dmapool_dev *dev, size_t size,
			     size_t align, size_t boundary);
void bl_xa_destroy(struct bl_pool *pool);
void *bl_xa_alloc(struct bl_pool *pool, dmapool_dma_t *dma);
void bl_xa_free(struct bl_pool *pool, void *vaddr, dmapool_dma_t dma);

/*
 * linux-6.12: create and destroy through the adapter (bench/linux-shim/
 * adapter.c); alloc and free are the kernel's own functions, declared here
 * with the types the shim gives them (dma_addr_t is dmapool_dma_t, gfp_t
 * unsigned int; the adapter checks both declarations against each other).
 */
struct dma_pool;
#define BL_L612_GFP	0xcc0u	/* the shim's GFP_KERNEL */
struct bl_pool *bl_l612_create(struct dmapool_dev *dev, size_t size,
			       size_t align, size_t boundary);
void bl_l612_destroy(struct bl_pool *pool);
void *dma_pool_alloc(struct dma_pool *pool, unsigned int mem_flags,
		     dmapool_dma_t *handle);
void dma_pool_free(struct dma_pool *pool, void *vaddr, dmapool_dma_t dma);
/* The pool's device's sysfs "pools" file as the kernel's pools_show()
 * prints it (into @buf, 4096 bytes): its length, or -1. */
int bl_l612_sysfs_pools(struct bl_pool *pool, char *buf);

#endif /* DMAPOOL_BENCH_BASELINE_H */
