/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/**
 * DOC: Overview
 *
 * dmapool hands out small fixed-size DMA-able blocks the way the kernel's
 * dma_pool does, but keeps every byte of its own state in host memory a
 * device cannot reach, validates every free against its own records, and
 * reports what a host or a device did wrong instead of acting on it.
 *
 * The same header serves userspace (C11) and the Linux kernel (gnu11).
 * In the kernel a &struct dmapool_dev is a &struct device (dmapool_kdev()
 * in <dmapool/kernel.h>), &dmapool_gfp_t is a gfp_t and &dmapool_dma_t a
 * dma_addr_t.
 *
 * Threads: every call is thread-safe, except that dmapool_destroy() must
 * not race any other call on the same pool (as with the kernel's
 * dma_pool_destroy()).
 *
 * Contexts (kernel): dmapool_free() and the other free calls may run in
 * any context, hard interrupts included, and never allocate memory;
 * dmapool_alloc() and the other allocation calls may run in any context
 * when the gfp allows it (GFP_ATOMIC in hard interrupts), and sleep only
 * when the gfp does; creating, destroying and shrinking a pool may sleep
 * (process context). In userspace "may sleep" means the call may block in
 * the backend (mmap, an ioctl) or on host memory.
 *
 * Lifetimes: a pool holds a reference on its backend (dmapool_dev_get())
 * from dmapool_create() to dmapool_destroy(), so the creator may put its
 * own reference right after creating its pools. Every string a report
 * points to lives until the report sink returns.
 *
 * Errors: calls that return a pool, a block or a backend return NULL on
 * failure (in userspace with errno set where the call says so); misuse of
 * a pool (a bad free, a NULL pool) is a report, never a crash, and leaves
 * the pool unchanged and usable.
 */
#ifndef DMAPOOL_DMAPOOL_H
#define DMAPOOL_DMAPOOL_H

#ifdef __KERNEL__
#include <linux/gfp.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(__KERNEL__)
#define DMAPOOL_API __attribute__((visibility("default")))
#else
#define DMAPOOL_API
#endif

/*
 * The version of this header; dmapool_version() is the library's.
 * DMAPOOL_VERSION is MAJOR << 16 | MINOR << 8 | PATCH.
 */
#define DMAPOOL_VERSION_MAJOR	0
#define DMAPOOL_VERSION_MINOR	2
#define DMAPOOL_VERSION_PATCH	0
#define DMAPOOL_VERSION		(DMAPOOL_VERSION_MAJOR << 16 | \
				 DMAPOOL_VERSION_MINOR << 8 | \
				 DMAPOOL_VERSION_PATCH)

struct dmapool;			/* opaque */
struct dmapool_dev;		/* where DMA memory comes from */

#ifdef __KERNEL__
typedef dma_addr_t dmapool_dma_t;	/* 32 or 64 bits, as the kernel's */
#else
typedef uint64_t dmapool_dma_t;
#endif
typedef unsigned int dmapool_gfp_t;	/* gfp_t in the kernel */

/*
 * Allocation flags (userspace meaning; the kernel shim passes gfp_t through).
 * 0 means: may grow the pool, may block.
 */
#ifndef __KERNEL__
#define DMAPOOL_GFP_NOGROW	0x1u	/* fail instead of taking a new chunk */
#define DMAPOOL_GFP_ZERO	0x2u	/* zero the block (what zalloc does) */
#else
/*
 * In the kernel the flags are a gfp_t: __GFP_ZERO zeroes the block, and a
 * pool always grows, as the kernel's dma_pool does (the gfp says how).
 */
#define DMAPOOL_GFP_NOGROW	0u
#define DMAPOOL_GFP_ZERO	((__force dmapool_gfp_t)__GFP_ZERO)
#endif

/* ------------------------------------------------------------------ */
/* The contract: the kernel's dma_pool shape.                          */

/**
 * dmapool_create() - Create a pool of fixed-size DMA blocks.
 * @name: the pool's name in reports, copied (up to 31 bytes); may be NULL
 * @dev: where the pool's DMA memory comes from; the pool takes a reference
 * @size: bytes per block (rounded up to @align)
 * @align: alignment of every block's vaddr and dma, a power of two; 0 means 1
 * @boundary: no block crosses a multiple of it, a power of two not smaller
 *	than @size; 0 means only the kernel's implicit one (a block never
 *	crosses a page unless it is larger than a page)
 *
 * The geometry follows the kernel's dma_pool_create() exactly, and so do
 * its refusals. No DMA memory is taken until the first allocation.
 *
 * Context: Thread-safe. May sleep (kernel: process context): it allocates
 * host memory.
 * Return: the pool, or NULL: on bad geometry (reported as "bad-geometry",
 * naming the pool; userspace errno EINVAL), on a NULL @dev, or when out of
 * host memory (ENOMEM).
 */
DMAPOOL_API struct dmapool *dmapool_create(const char *name,
					   struct dmapool_dev *dev, size_t size,
					   size_t align, size_t boundary);
/**
 * dmapool_destroy() - Destroy a pool and give its memory back.
 * @pool: the pool; NULL is a no-op
 *
 * Empty chunks go back to the backend (zeroed) and all host metadata is
 * freed; then the pool's reference on its backend is dropped. If blocks are
 * still allocated, that is reported ("destroy-busy", with the count) and
 * the chunks holding them are NOT given back: a device may still be using
 * them, so their DMA memory is deliberately leaked (as the kernel's
 * dma_pool does).
 *
 * Context: Must not race any other call on @pool; pointers to @pool are
 * invalid afterwards. May sleep (kernel: process context).
 */
DMAPOOL_API void dmapool_destroy(struct dmapool *pool);

/**
 * dmapool_alloc() - Allocate one block.
 * @pool: the pool
 * @gfp: 0 (may grow the pool, may block) or DMAPOOL_GFP_* flags; in the
 *	kernel a gfp_t, which says how a new chunk is allocated
 * @dma: where the block's bus address is stored (the address to give the
 *	device)
 *
 * The block is aligned and placed as dmapool_create() promised, never
 * overlaps another live block, and its vaddr and *@dma correspond whatever
 * a device wrote into pool memory. Its contents are undefined (with
 * DMAPOOL_OPT_POISON: the poison pattern); use dmapool_zalloc() for zeroes.
 *
 * Context: Thread-safe. Kernel: any context the gfp allows, hard interrupts
 * included with GFP_ATOMIC; sleeps only if the gfp may and the pool must
 * grow. Userspace: may block in the backend when the pool grows, unless
 * DMAPOOL_GFP_NOGROW.
 * Return: the block's vaddr, or NULL when no block can be had (the backend
 * has no more memory, DMAPOOL_GFP_NOGROW and no free block, a NULL @pool,
 * which is reported as "null-pool").
 */
DMAPOOL_API void *dmapool_alloc(struct dmapool *pool, dmapool_gfp_t gfp,
				dmapool_dma_t *dma);

/**
 * dmapool_zalloc() - Allocate one zero-filled block.
 * @pool: the pool
 * @gfp: as for dmapool_alloc()
 * @dma: where the block's bus address is stored
 *
 * Context: As dmapool_alloc().
 * Return: as dmapool_alloc(); the block's @size bytes are zero.
 */
DMAPOOL_API void *dmapool_zalloc(struct dmapool *pool, dmapool_gfp_t gfp,
				 dmapool_dma_t *dma);

/**
 * dmapool_free() - Give a block back.
 * @pool: the pool the block came from
 * @vaddr: the block's vaddr, as dmapool_alloc() returned it
 * @dma: the block's bus address, as dmapool_alloc() stored it
 *
 * Validated against the pool's own records before anything changes:
 * @vaddr must be the start of a block of this pool that is currently
 * allocated, and @dma its bus address. Anything else (a double free, an
 * address outside the pool or inside a block, another pool's block, a
 * wrong @dma, a NULL @pool) is reported and the pool is left unchanged.
 *
 * Context: Thread-safe; of two threads freeing one block, one wins and the
 * other's free is reported as "double-free". Never allocates memory.
 * Kernel: any context, hard interrupts included (a pool with
 * DMAPOOL_OPT_AUTO_SHRINK may release a chunk here and then may sleep).
 */
DMAPOOL_API void dmapool_free(struct dmapool *pool, void *vaddr,
			      dmapool_dma_t dma);

/**
 * dmapool_free_zero() - Give a block back, zeroed.
 * @pool: the pool the block came from
 * @vaddr: the block's vaddr
 * @dma: the block's bus address
 *
 * As dmapool_free(), and the block's bytes are zeroed once the free is
 * validated, before anyone can allocate the block again (the kernel's
 * init_on_free). An invalid free is reported and writes nothing.
 *
 * Context: As dmapool_free().
 */
DMAPOOL_API void dmapool_free_zero(struct dmapool *pool, void *vaddr,
				   dmapool_dma_t dma);

/**
 * dmapool_alloc_bulk() - Allocate @n blocks at once, all or none.
 * @pool: the pool
 * @gfp: as for dmapool_alloc()
 * @n: how many blocks
 * @vaddrs: array of @n, filled with the blocks' vaddrs
 * @dmas: array of @n, filled with their bus addresses
 *
 * Each block is what dmapool_alloc() would have returned.
 *
 * Context: As dmapool_alloc().
 * Return: @n with every vaddrs[i] and dmas[i] filled, or 0 with nothing
 * taken (and the arrays' contents undefined).
 */
DMAPOOL_API unsigned int dmapool_alloc_bulk(struct dmapool *pool,
					    dmapool_gfp_t gfp, unsigned int n,
					    void **vaddrs, dmapool_dma_t *dmas);

/**
 * dmapool_free_bulk() - Give @n blocks back.
 * @pool: the pool they came from
 * @n: how many
 * @vaddrs: their vaddrs
 * @dmas: their bus addresses, in the same order
 *
 * Each entry is validated like dmapool_free(): a bad one is reported and
 * skipped, the others are freed. Blocks another thread allocated go back
 * to it with one atomic operation per run of neighbours in the batch (the
 * same 64-block word of a chunk), all before the call returns.
 *
 * Context: As dmapool_free().
 */
DMAPOOL_API void dmapool_free_bulk(struct dmapool *pool, unsigned int n,
				   void *const *vaddrs,
				   const dmapool_dma_t *dmas);

/* ------------------------------------------------------------------ */
/* Reports.                                                            */

/**
 * enum dmapool_report_kind - What went wrong; dmapool_report_kind_name()
 *	gives each its stable name.
 * @DMAPOOL_R_DOUBLE_FREE: "double-free": the block is already free
 * @DMAPOOL_R_FREE_OUTSIDE: "free-outside-pool": the address is in no chunk
 *	of this pool (or of any pool)
 * @DMAPOOL_R_FREE_NOT_BLOCK: "free-not-block-start": inside the pool, not
 *	at a block start
 * @DMAPOOL_R_FREE_DMA_MISMATCH: "free-dma-mismatch": the dma passed is not
 *	the block's
 * @DMAPOOL_R_FREE_WRONG_POOL: "free-wrong-pool": the address belongs to
 *	another pool
 * @DMAPOOL_R_STALE_HANDLE: "stale-handle": the handle is from an earlier
 *	allocation of the block
 * @DMAPOOL_R_BAD_HANDLE: "bad-handle": the handle names no block of this
 *	pool, or not this vaddr
 * @DMAPOOL_R_NULL_POOL: "null-pool": a call with a NULL pool
 * @DMAPOOL_R_BAD_GEOMETRY: "bad-geometry": dmapool_create() or
 *	dmapool_create_opts() refused its arguments
 * @DMAPOOL_R_DESTROY_BUSY: "destroy-busy": destroyed with blocks still
 *	allocated
 * @DMAPOOL_R_DEVICE_WRITE_AFTER_FREE: "device-write-after-free": with
 *	poison checks, a block changed while it was free
 * @DMAPOOL_R_DEVICE_OVERRUN: "device-overrun": with redzones, the bytes
 *	after a block changed while it was allocated
 * @DMAPOOL_R_KINDS: the number of kinds this header knows (at most
 *	DMAPOOL_R_KINDS_MAX)
 */
enum dmapool_report_kind {
	DMAPOOL_R_DOUBLE_FREE,
	DMAPOOL_R_FREE_OUTSIDE,
	DMAPOOL_R_FREE_NOT_BLOCK,
	DMAPOOL_R_FREE_DMA_MISMATCH,
	DMAPOOL_R_FREE_WRONG_POOL,
	DMAPOOL_R_STALE_HANDLE,
	DMAPOOL_R_BAD_HANDLE,
	DMAPOOL_R_NULL_POOL,
	DMAPOOL_R_BAD_GEOMETRY,
	DMAPOOL_R_DESTROY_BUSY,
	DMAPOOL_R_DEVICE_WRITE_AFTER_FREE,
	DMAPOOL_R_DEVICE_OVERRUN,
	DMAPOOL_R_KINDS
};

/* Room for report kinds in struct dmapool_stats (kinds may be added). */
#define DMAPOOL_R_KINDS_MAX	32

/**
 * struct dmapool_report - Everything known about one detected problem.
 * @kind: what happened
 * @pool: the pool concerned; NULL for null-pool and bad-geometry
 * @pool_name: its name (for bad-geometry the name passed to create); ""
 *	when there is none
 * @addr: the address the caller passed, or the address a device wrote to
 * @dma: the dma the caller passed
 * @block: start of the block concerned, or NULL
 * @block_dma: its dma address (0 when no block)
 * @offset: offset of @addr (or of the first changed byte) from @block
 * @handle: the handle passed (handle kinds)
 * @count: kind-specific: blocks still in use (destroy-busy), bytes changed
 *	(device kinds)
 * @found_len: bytes valid in @found
 * @found: bytes a device left, from @offset on (device kinds)
 * @owner_name: free-wrong-pool: the pool that holds @addr; else NULL
 * @detail: one human-readable sentence
 *
 * A report and every string it points to live until the sink returns:
 * copy what you keep.
 */
struct dmapool_report {
	enum dmapool_report_kind kind;
	const struct dmapool *pool;
	const char *pool_name;
	const void *addr;
	dmapool_dma_t dma;
	const void *block;
	dmapool_dma_t block_dma;
	size_t offset;
	uint64_t handle;
	uint64_t count;
	unsigned int found_len;
	uint8_t found[16];
	const char *owner_name;
	const char *detail;
};

/**
 * typedef dmapool_report_fn - A report sink.
 * @r: the report, valid until the sink returns
 * @ctx: what was registered with the sink
 *
 * Called in the context of the dmapool call that found the problem, after
 * the report was counted, with no dmapool lock held. It may log, count,
 * copy the report, or call dmapool functions (not dmapool_destroy() of the
 * pool it reports on: the call that found the problem still uses it).
 * Kernel: the call may be in atomic context, even a hard interrupt; do not
 * sleep. The pool is left unchanged by every report and stays usable.
 */
typedef void (*dmapool_report_fn)(const struct dmapool_report *r, void *ctx);

/**
 * dmapool_report_kind_name() - The stable name of a kind.
 * @k: the kind
 *
 * Context: Any.
 * Return: e.g. "double-free"; "unknown" when @k is out of range. A string
 * constant.
 */
DMAPOOL_API const char *dmapool_report_kind_name(enum dmapool_report_kind k);

/**
 * dmapool_set_report_handler() - Set the process-wide sink.
 * @fn: the sink; NULL restores the default (one line on stderr, or pr_err
 *	rate limited in the kernel)
 * @ctx: passed to @fn
 *
 * The process-wide (kernel: system-wide) sink receives the reports of pools
 * without a sink of their own (&dmapool_opts.report) and reports without a
 * pool. A report being delivered while the sink changes goes to the old or
 * the new one.
 *
 * Context: Thread-safe. Any context.
 */
DMAPOOL_API void dmapool_set_report_handler(dmapool_report_fn fn, void *ctx);

/**
 * dmapool_global_violations() - Reports that have no pool to be counted in.
 *
 * Context: Thread-safe. Any context.
 * Return: how many null-pool and bad-geometry reports were made so far.
 */
DMAPOOL_API uint64_t dmapool_global_violations(void);

/* ------------------------------------------------------------------ */
/* Options.                                                            */

/**
 * enum dmapool_index_kind - How dmapool_free() finds the chunk of an
 *	address (docs/design.md, "Indexes").
 * @DMAPOOL_INDEX_RADIX: a radix tree of chunk granules, for chunks that
 *	come from one region
 * @DMAPOOL_INDEX_BTREE: a B-tree of chunk ranges, for chunks scattered
 *	over the address space
 * @DMAPOOL_INDEX_HASH: a hash of chunk granules; the default
 *	(dmapool_opts_init()), wherever the chunks are, and the only index
 *	the fast free path reads (frees in pools with another index take
 *	the slow path)
 */
enum dmapool_index_kind {
	DMAPOOL_INDEX_RADIX = 0,
	DMAPOOL_INDEX_BTREE = 1,
	DMAPOOL_INDEX_HASH = 2,
};

/*
 * Hardening options (docs/hardening.md says what each detects and costs):
 *  POISON      free blocks (and new chunks) are filled with a pattern that
 *              is verified when the block is allocated again; a change is
 *              reported as "device-write-after-free".  zalloc zeroes after
 *              the check; alloc returns the pattern.
 *  QUARANTINE  freed blocks are not reused until dmapool_quiesce(), or
 *              until quarantine_max newer ones push them out.
 *  SCRUB       a freed block is zeroed (with POISON: overwritten by the
 *              pattern).  Chunks given back to the backend are always
 *              zeroed, whatever the options.
 *  RANDOM      the block an alloc returns is chosen at random.
 *  redzone     (a field, not a flag) checked gap after each block.
 * Any combination works, on every index, with threads and with handles.
 */
#define DMAPOOL_POISON_BYTE		0xd7u	/* what POISON fills blocks with */

#define DMAPOOL_OPT_ABORT_ON_VIOLATION	0x0001u /* abort()/BUG after reporting */
#define DMAPOOL_OPT_POISON		0x0002u /* poison free blocks, check at alloc */
#define DMAPOOL_OPT_QUARANTINE		0x0004u /* delay reuse until quiesce */
#define DMAPOOL_OPT_SCRUB		0x0008u /* zero blocks on free */
#define DMAPOOL_OPT_RANDOM		0x0010u /* randomized placement */
/*
 * Accepted, no effect: every pool is owned per thread (per CPU in the
 * kernel) unless SHARED.
 */
#define DMAPOOL_OPT_THREAD_CACHE	0x0020u
/* Release empty chunks beyond reserve_chunks on free. */
#define DMAPOOL_OPT_AUTO_SHRINK		0x0040u
/*
 * One set of chunks for all threads, under the pool lock: least memory, no
 * scaling.
 */
#define DMAPOOL_OPT_SHARED		0x0080u
/*
 * Cheap poison: the head of every freed block, the whole block 1 in
 * opts.poison_sample.
 */
#define DMAPOOL_OPT_POISON_SAMPLED	0x0100u

/**
 * struct dmapool_opts - Options of a pool (dmapool_create_opts()).
 * @flags: DMAPOOL_OPT_* flags
 * @index: how frees find their chunk
 * @chunk_size: bytes per backend allocation, rounded to a multiple of
 *	max(page size, block size); 0 = the default: room for at least 64
 *	blocks and at least 64 KiB in userspace (a page in the kernel), up
 *	to 256 KiB in userspace and 32 KiB in the kernel, and one unit when
 *	boundaries leave gaps between blocks.  A pool holds at
 *	most 2^20 - 1 chunks; an allocation past that fails as out of memory
 * @redzone: bytes of checked gap after each block (rounded up to align);
 *	0 = none. Overruns are reported as "device-overrun"
 * @quarantine_max: blocks held before forced release; 0 = 256, at most
 *	2^20
 * @reserve_chunks: empty chunks kept by shrink (explicit or automatic);
 *	0 = keep none
 * @seed: for DMAPOOL_OPT_RANDOM; 0 = any
 * @report: the pool's own report sink; NULL = the process-wide one
 * @report_ctx: passed to @report
 * @poison_sample: DMAPOOL_OPT_POISON_SAMPLED: 1 in N freed blocks is
 *	poisoned and checked whole; 0 = 64
 * @reserved32: must be zero
 * @reserved: must be zero
 *
 * Start from dmapool_opts_init(): fields a later version adds are then
 * set to their defaults.
 */
struct dmapool_opts {
	unsigned int flags;
	enum dmapool_index_kind index;
	size_t chunk_size;
	unsigned int redzone;
	unsigned int quarantine_max;
	size_t reserve_chunks;
	uint64_t seed;
	dmapool_report_fn report;
	void *report_ctx;
	unsigned int poison_sample;
	unsigned int reserved32;
	uint64_t reserved[3];
};

/**
 * dmapool_opts_init() - Fill options with the defaults.
 * @o: the options to fill
 *
 * The defaults are what dmapool_create() uses.
 *
 * Context: Any.
 */
DMAPOOL_API void dmapool_opts_init(struct dmapool_opts *o);

/**
 * dmapool_create_opts() - Create a pool with options.
 * @name: as for dmapool_create()
 * @dev: as for dmapool_create()
 * @size: as for dmapool_create()
 * @align: as for dmapool_create()
 * @boundary: as for dmapool_create()
 * @opts: the options, copied; NULL means the defaults
 *
 * A refused create is reported as "bad-geometry" to @opts->report when it
 * is set, else to the process-wide sink.
 *
 * Context: As dmapool_create().
 * Return: the pool, or NULL: as dmapool_create(), and also when @opts asks
 * for something this build cannot do together or sets a reserved field
 * (userspace errno EINVAL), or for an option this build compiled out (a
 * kernel tree's Kconfig; reported as "bad-geometry" naming the option,
 * userspace errno EOPNOTSUPP).
 */
DMAPOOL_API struct dmapool *dmapool_create_opts(const char *name,
						struct dmapool_dev *dev,
						size_t size, size_t align,
						size_t boundary,
						const struct dmapool_opts *opts);

/* ------------------------------------------------------------------ */
/* The handle API: free without a lookup, stale handles detected.      */

/**
 * struct dmapool_block - A block with its handle.
 * @vaddr: the block; NULL when the allocation failed
 * @dma: its bus address
 * @handle: opaque: chunk, block and generation
 */
struct dmapool_block {
	void *vaddr;
	dmapool_dma_t dma;
	uint64_t handle;
};

/**
 * dmapool_alloc_handle() - Allocate a block and its handle.
 * @pool: the pool
 * @gfp: as for dmapool_alloc()
 * @dma: where the block's bus address is stored (0 on failure)
 * @handle: where its handle is stored (0 on failure)
 *
 * Every argument travels in a register; dmapool_alloc_block() is the same
 * as one value.
 *
 * Context: As dmapool_alloc().
 * Return: the block's vaddr, or NULL as dmapool_alloc().
 */
DMAPOOL_API void *dmapool_alloc_handle(struct dmapool *pool, dmapool_gfp_t gfp,
				       dmapool_dma_t *dma, uint64_t *handle);

/**
 * dmapool_free_handle() - Give a block back by its handle, without a lookup.
 * @pool: the pool it came from
 * @vaddr: the block's vaddr
 * @dma: its bus address
 * @handle: the handle its allocation returned
 *
 * The handle, @vaddr and @dma are checked against each other: a handle
 * from an earlier allocation of the same block ("stale-handle"), a second
 * free, or a block of another pool are reported, never acted on.
 *
 * Context: As dmapool_free().
 */
DMAPOOL_API void dmapool_free_handle(struct dmapool *pool, void *vaddr,
				     dmapool_dma_t dma, uint64_t handle);

/**
 * dmapool_alloc_block() - Allocate a block and its handle, as one value.
 * @pool: the pool
 * @gfp: as for dmapool_alloc()
 *
 * An inline wrapper of dmapool_alloc_handle(): a 24-byte struct crosses a
 * call through memory, which costs more than the free itself.
 *
 * Context: As dmapool_alloc().
 * Return: the block; .vaddr is NULL (and .dma 0) on failure.
 */
static inline struct dmapool_block dmapool_alloc_block(struct dmapool *pool,
						       dmapool_gfp_t gfp)
{
	/*
	 * Scalars first: a 16-byte copy of two 8-byte results just stored
	 * would stall on store forwarding.  dmapool_alloc_handle() stores
	 * both, 0 and 0 on failure.
	 */
	dmapool_dma_t dma;
	uint64_t handle;
	struct dmapool_block blk;

	blk.vaddr = dmapool_alloc_handle(pool, gfp, &dma, &handle);
	blk.dma = dma;
	blk.handle = handle;
	return blk;
}

/**
 * dmapool_free_block() - Give back a block from dmapool_alloc_block().
 * @pool: the pool it came from
 * @blk: the block as dmapool_alloc_block() returned it
 *
 * An inline wrapper of dmapool_free_handle().
 *
 * Context: As dmapool_free().
 */
static inline void dmapool_free_block(struct dmapool *pool,
				      struct dmapool_block blk)
{
	dmapool_free_handle(pool, blk.vaddr, blk.dma, blk.handle);
}

/* ------------------------------------------------------------------ */
/* Statistics and introspection.                                       */

/**
 * struct dmapool_stats - A pool's counters (dmapool_get_stats()).
 * @blocks_in_use: blocks allocated now
 * @blocks_total: blocks the pool's chunks hold
 * @chunks: chunks held
 * @dma_bytes: device memory held
 * @meta_bytes: host memory for metadata
 * @violations: all reports so far, any kind
 * @by_kind: reports per &enum dmapool_report_kind
 * @block_size: size after rounding to align
 * @stride: distance between block starts
 * @chunk_size: bytes per chunk
 * @blocks_per_chunk: blocks in each chunk
 * @quarantined: blocks waiting for quiesce
 * @quarantine_forced: blocks released by the bound, not by quiesce
 * @chunks_released: chunks given back by shrink
 * @blocks_cached: free blocks in per-thread caches (not in
 *	@blocks_in_use); exact when no thread is allocating or freeing
 *
 * New fields are only ever appended.
 */
struct dmapool_stats {
	uint64_t blocks_in_use, blocks_total, chunks;
	uint64_t dma_bytes, meta_bytes;
	uint64_t violations;
	uint64_t by_kind[DMAPOOL_R_KINDS_MAX];
	uint64_t block_size;
	uint64_t stride;
	uint64_t chunk_size;
	uint64_t blocks_per_chunk;
	uint64_t quarantined;
	uint64_t quarantine_forced;
	uint64_t chunks_released;
	uint64_t blocks_cached;
};

/**
 * dmapool_get_stats_size() - Read a pool's counters, for any header version.
 * @pool: the pool
 * @st: where to store them
 * @size: bytes of @st the caller knows (sizeof(struct dmapool_stats) of
 *	its header)
 *
 * Fills the first @size bytes of @st; fields a newer header added beyond
 * what this library knows are zeroed. New fields are only ever appended,
 * so a program built against an older header keeps working with a newer
 * library. The counters are read one by one, not as one snapshot.
 *
 * Context: Thread-safe. Any context.
 */
DMAPOOL_API void dmapool_get_stats_size(const struct dmapool *pool,
					struct dmapool_stats *st, size_t size);

/**
 * dmapool_get_stats() - Read a pool's counters.
 * @pool: the pool
 * @st: where to store them
 *
 * dmapool_get_stats_size() with this header's size of the struct.
 *
 * Context: Thread-safe. Any context.
 */
static inline void dmapool_get_stats(const struct dmapool *pool,
				     struct dmapool_stats *st)
{
	dmapool_get_stats_size(pool, st, sizeof(*st));
}

/**
 * dmapool_version() - The version of the library the program runs with.
 *
 * Compare with DMAPOOL_VERSION, the version of the header it was built
 * with.
 *
 * Context: Any.
 * Return: MAJOR << 16 | MINOR << 8 | PATCH.
 */
DMAPOOL_API unsigned int dmapool_version(void);

/**
 * dmapool_shrink() - Give empty chunks back to the backend.
 * @pool: the pool
 *
 * Keeps &dmapool_opts.reserve_chunks empty chunks; the others' DMA memory
 * is zeroed and goes back to the backend. Blocks in the calling thread's
 * cache are flushed first; blocks cached by other threads keep their
 * chunks.
 *
 * Context: Thread-safe. May sleep (kernel: process context).
 * Return: how many chunks went.
 */
DMAPOOL_API size_t dmapool_shrink(struct dmapool *pool);

/**
 * dmapool_quiesce() - Declare the device idle for every block freed so far.
 * @pool: the pool
 *
 * Call it after an IOTLB flush, a completion or a reset: blocks waiting in
 * quarantine become reusable (and, with DMAPOOL_OPT_AUTO_SHRINK, chunks
 * they leave empty go back). A no-op for pools without
 * DMAPOOL_OPT_QUARANTINE. Blocks freed while it runs wait for the next one.
 *
 * Context: Thread-safe. Kernel: process context when the pool has
 * DMAPOOL_OPT_AUTO_SHRINK (chunks may be released); else any context.
 */
DMAPOOL_API void dmapool_quiesce(struct dmapool *pool);

/**
 * typedef dmapool_chunk_fn - Called by dmapool_walk_chunks() per chunk.
 * @vaddr: the chunk's start
 * @dma: its bus address
 * @len: its length in bytes
 * @ctx: what dmapool_walk_chunks() was given
 */
typedef void (*dmapool_chunk_fn)(void *vaddr, dmapool_dma_t dma, size_t len,
				 void *ctx);

/**
 * dmapool_walk_chunks() - Call a function for every chunk of a pool.
 * @pool: the pool
 * @fn: called once per chunk
 * @ctx: passed to @fn
 *
 * For tests that play a device, and for users who register pool memory
 * elsewhere (an IOMMU, an RDMA memory region).
 *
 * Context: Thread-safe. @fn runs under the pool lock: it must not call back
 * into this pool, and in the kernel must not sleep (a spinlock is held,
 * interrupts off).
 */
DMAPOOL_API void dmapool_walk_chunks(const struct dmapool *pool,
				     dmapool_chunk_fn fn, void *ctx);

/* ------------------------------------------------------------------ */
/* Userspace DMA backends.                                             */

#ifndef __KERNEL__
/**
 * struct dmapool_dev_ops - A backend of your own (dmapool_dev_new()).
 * @chunk_alloc: hand out a chunk: @size bytes aligned to @align (a power of
 *	two, at least the page size) in both vaddr and dma; 0, or a negative
 *	errno (the pool's allocation then returns NULL)
 * @chunk_free: take back a chunk @chunk_alloc handed out (zeroed by the
 *	core first); never called for a chunk that may still hold live blocks
 * @release: called at the last dmapool_dev_put(); may be NULL
 *
 * The backend must be thread-safe: pools on one dev call it from any
 * thread, and chunk_free never from a context that cannot block.
 */
struct dmapool_dev_ops {
	int (*chunk_alloc)(struct dmapool_dev *dev, size_t size, size_t align,
			   void **vaddr, dmapool_dma_t *dma);
	void (*chunk_free)(struct dmapool_dev *dev, void *vaddr,
			   dmapool_dma_t dma, size_t size);
	void (*release)(struct dmapool_dev *dev);
};

/**
 * dmapool_dev_region() - A backend that carves chunks out of caller memory.
 * @vaddr: memory the caller already mapped for the device (a huge page, a
 *	DPDK memzone or SPDK buffer, an existing VFIO mapping)
 * @dma: the device's address of @vaddr
 * @size: its length in bytes
 *
 * Chunks are carved out of [@vaddr, @vaddr + @size) (trimmed inwards to
 * whole pages) at the same offsets in vaddr and dma, zeroed as they are
 * handed out, and go back to the region, never to the system. Any number
 * of pools may share one region. When it is full, growth fails cleanly:
 * dmapool_alloc() returns NULL (a region smaller than a pool's chunk,
 * stats.chunk_size, is full from the start: give such pools a smaller
 * opts.chunk_size). @vaddr and @dma must sit at the same offset
 * in their page; a chunk alignment above the page works as far as they
 * agree (both 2 MiB aligned serve any chunk up to 2 MiB alignment). The
 * memory must stay mapped, and the device mapping in place, until the last
 * pool on it is destroyed and the dev put.
 *
 * Context: Thread-safe, and so is the backend.
 * Return: the dev (one reference, dmapool_dev_put() it), or NULL with errno
 * EINVAL (NULL @vaddr, a @size of 0 or less than a whole page, a wrapping
 * range, @vaddr and @dma at different offsets in their page) or ENOMEM.
 */
DMAPOOL_API struct dmapool_dev *dmapool_dev_region(void *vaddr,
						   dmapool_dma_t dma,
						   size_t size);

/**
 * dmapool_dev_new() - Wrap a backend of your own.
 * @ops: its operations; must outlive the dev
 * @priv: its data, returned by dmapool_dev_priv()
 *
 * Context: Thread-safe.
 * Return: the dev with one reference, or NULL (bad @ops, no memory).
 */
DMAPOOL_API struct dmapool_dev *dmapool_dev_new(const struct dmapool_dev_ops *ops,
						void *priv);

/**
 * dmapool_dev_priv() - The data given to dmapool_dev_new().
 * @dev: the dev, or NULL
 *
 * Context: Any.
 * Return: @priv of dmapool_dev_new(); NULL for a NULL @dev.
 */
DMAPOOL_API void *dmapool_dev_priv(const struct dmapool_dev *dev);

/**
 * dmapool_dev_get() - Take a reference on a backend.
 * @dev: the dev; NULL is a no-op
 *
 * Context: Thread-safe (atomic).
 */
DMAPOOL_API void dmapool_dev_get(struct dmapool_dev *dev);

/**
 * dmapool_dev_put() - Drop a reference on a backend.
 * @dev: the dev; NULL is a no-op
 *
 * The last put calls &dmapool_dev_ops.release and frees the dev. Every pool
 * holds its own reference until dmapool_destroy().
 *
 * Context: Thread-safe (atomic).
 */
DMAPOOL_API void dmapool_dev_put(struct dmapool_dev *dev);

/**
 * dmapool_dev_heap() - A backend of host memory.
 *
 * For tests and for devices that reach host memory at its address through
 * other means. Each chunk is its own anonymous mapping; its dma is a fake
 * bus address above the user address space, never equal to the vaddr,
 * with the same offset within any alignment.
 *
 * Context: Thread-safe, and so is the backend.
 * Return: the dev with one reference, or NULL (no memory).
 */
DMAPOOL_API struct dmapool_dev *dmapool_dev_heap(void);

/*
 * dma of the shared-memory backend's chunks: this plus the chunk's offset
 * in its file.
 */
#define DMAPOOL_SHM_IOVA_BASE	0x100000000000000ull

/**
 * dmapool_dev_shm() - A backend of shared memory, for playing the device.
 *
 * Chunks live in one memfd; dma = DMAPOOL_SHM_IOVA_BASE + the chunk's
 * offset in that file. Another thread or process that maps the file
 * (dmapool_dev_shm_fd()) reaches every chunk at its dma address: it plays
 * the device. Offsets only grow; a freed chunk's pages are punched out.
 *
 * Context: Thread-safe, and so is the backend.
 * Return: the dev with one reference, or NULL when memfd_create() fails.
 */
DMAPOOL_API struct dmapool_dev *dmapool_dev_shm(void);

/**
 * dmapool_dev_shm_fd() - The memfd of a shared-memory backend.
 * @dev: the dev
 *
 * Context: Any. The fd belongs to the dev: do not close it.
 * Return: the fd, or -1 when @dev is not a shared-memory backend.
 */
DMAPOOL_API int dmapool_dev_shm_fd(const struct dmapool_dev *dev);

/**
 * dmapool_dev_shm_size() - Current length of a shared-memory backend's file.
 * @dev: the dev
 *
 * Map this much of dmapool_dev_shm_fd() to see every chunk so far.
 *
 * Context: Thread-safe.
 * Return: the length in bytes; 0 when @dev is not a shared-memory backend.
 */
DMAPOOL_API size_t dmapool_dev_shm_size(const struct dmapool_dev *dev);

/**
 * DOC: VFIO backend
 *
 * For a userspace driver of a real device on VFIO type1 (Linux). Chunks
 * are anonymous host memory (or huge pages) that the device reaches only
 * through the backend's own IOMMU mappings (VFIO_IOMMU_MAP_DMA), at IOVAs
 * it picks inside a window [iova_base, iova_base + iova_size) the
 * application reserves for it in its container; dma = that IOVA. Chunks
 * are carved out of mappings of 2 MiB (of one huge page each with
 * DMAPOOL_VFIO_HUGEPAGES), so small-block pools do not use up the
 * container's mapping budget (type1's dma_entry_limit, 65535 by default);
 * DMAPOOL_VFIO_MAP_PER_CHUNK gives each chunk its own. A mapping is removed
 * (VFIO_IOMMU_UNMAP_DMA) once its last chunk came back, before its memory
 * goes, and its IOVA is reused afterwards.
 *
 * The container belongs to the caller (the way DPDK/SPDK-style code already
 * owns one): groups attached, IOMMU type set (VFIO_TYPE1v2_IOMMU or
 * VFIO_TYPE1_IOMMU). The backend works on a duplicate of the fd, closed at
 * the last dmapool_dev_put(), so the container outlives the dev's chunks
 * whatever the caller does with its own fd. It never maps outside its
 * window: the application keeps its own mappings elsewhere in the same
 * container.
 *
 * With DMAPOOL_VFIO_QUERY_IOMMU the backend asks the IOMMU
 * (VFIO_IOMMU_GET_INFO) first: the window is cut down to the usable IOVA
 * ranges (holes such as the x86 MSI window are skipped) and chunks are
 * mapped in multiples of the smallest IOMMU page.
 *
 * Errors are negative errno values; docs/vfio-and-devices.md lists them.
 * Chunk failures surface as a NULL from dmapool_alloc(); the errno and the
 * failing step are then in dmapool_dev_vfio_info().
 */
#define DMAPOOL_VFIO_QUERY_IOMMU	0x1u

/**
 * struct dmapool_vfio_cfg - Configuration of a VFIO backend.
 * @container_fd: an open VFIO container, IOMMU set
 * @flags: DMAPOOL_VFIO_* flags
 * @iova_base: the window's start: page aligned
 * @iova_size: its length: page aligned, not wrapping; keep the window below
 *	the device's DMA mask
 * @max_chunks: mappings this dev may hold; 0 = no limit of its own (the
 *	kernel's still applies)
 * @reserved: must be zero
 */
struct dmapool_vfio_cfg {
	int container_fd;
	unsigned int flags;
	uint64_t iova_base;
	uint64_t iova_size;
	uint64_t max_chunks;
	uint64_t reserved[4];
};

/**
 * dmapool_dev_vfio_create() - A VFIO backend, configured.
 * @cfg: the configuration (copied; the container fd is duplicated)
 * @devp: where the new dev is stored; NULL on failure
 *
 * Context: Thread-safe. May block (it asks the kernel).
 * Return: 0, or a negative errno: -EBADF (no fd), -EINVAL (a bad window,
 * flag or reserved field; a container without an IOMMU), -ENOTTY (not a
 * VFIO container), -ERANGE (no usable IOVA in the window), -ENOMEM (host
 * memory, or huge pages asked for and none reserved), -EOPNOTSUPP (huge
 * pages asked for, none in this kernel).
 */
DMAPOOL_API int dmapool_dev_vfio_create(const struct dmapool_vfio_cfg *cfg,
					struct dmapool_dev **devp);

/**
 * dmapool_dev_vfio() - A VFIO backend for the common case.
 * @container_fd: an open VFIO container, IOMMU set
 * @iova_base: the window's start
 * @iova_size: its length
 *
 * dmapool_dev_vfio_create() with DMAPOOL_VFIO_QUERY_IOMMU and no mapping
 * limit of its own.
 *
 * Context: As dmapool_dev_vfio_create().
 * Return: the dev with one reference, or NULL with errno set to what
 * dmapool_dev_vfio_create() returned.
 */
DMAPOOL_API struct dmapool_dev *dmapool_dev_vfio(int container_fd,
						 uint64_t iova_base,
						 uint64_t iova_size);

/**
 * struct dmapool_vfio_info - What a VFIO backend holds and did.
 * @iova_base: the window's start, as configured
 * @iova_size: its length, as configured
 * @iova_usable: bytes of it the backend may use
 * @iova_mapped: bytes mapped now
 * @granule: smallest mapping: CPU or IOMMU page
 * @iommu_pgsizes: page sizes from the IOMMU; 0 if not asked
 * @dma_avail: mappings the container may still make, asked now; -1 if
 *	unknown
 * @chunks_mapped: mappings held now
 * @maps: successful mappings so far
 * @unmaps: successful unmaps so far
 * @map_failures: chunks that could not be had
 * @unmap_failures: unmaps that failed (and chunk frees of foreign ranges)
 * @leaked_bytes: kept mapped because an unmap failed
 * @last_error: negative errno of the last failure
 * @last_error_msg: which step failed, on what
 */
struct dmapool_vfio_info {
	uint64_t iova_base, iova_size;
	uint64_t iova_usable;
	uint64_t iova_mapped;
	uint64_t granule;
	uint64_t iommu_pgsizes;
	int64_t dma_avail;
	uint64_t chunks_mapped;
	uint64_t maps, unmaps;
	uint64_t map_failures, unmap_failures;
	uint64_t leaked_bytes;
	int last_error;
	char last_error_msg[120];
};

/**
 * dmapool_dev_vfio_info() - Read a VFIO backend's state.
 * @dev: the dev
 * @info: where to store it
 *
 * Context: Thread-safe. May block (it asks the kernel for
 * &dmapool_vfio_info.dma_avail).
 * Return: 0, or -EINVAL when @dev is not a VFIO backend.
 */
DMAPOOL_API int dmapool_dev_vfio_info(const struct dmapool_dev *dev,
				      struct dmapool_vfio_info *info);
#endif

#ifdef __cplusplus
}
#endif

#endif /* DMAPOOL_DMAPOOL_H */
