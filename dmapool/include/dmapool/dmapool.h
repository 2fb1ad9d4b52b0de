/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * dmapool: a hardened DMA pool allocator.
 *
 * Hands out small fixed-size DMA-able blocks the way the kernel's dma_pool
 * does, but keeps every byte of its own state in host memory a device cannot
 * reach, validates every free against its own records, and reports what a
 * host or a device did wrong instead of acting on it.
 *
 * The same header serves userspace (C11) and the Linux kernel (gnu11).
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

/* The version of this header; dmapool_version() is the library's. */
#define DMAPOOL_VERSION_MAJOR	0
#define DMAPOOL_VERSION_MINOR	2
#define DMAPOOL_VERSION_PATCH	0
#define DMAPOOL_VERSION		(DMAPOOL_VERSION_MAJOR << 16 | \
				 DMAPOOL_VERSION_MINOR << 8 | \
				 DMAPOOL_VERSION_PATCH)

struct dmapool;			/* opaque */
struct dmapool_dev;		/* where DMA memory comes from */

typedef uint64_t dmapool_dma_t;		/* dma_addr_t in the kernel */
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

/*
 * Create a pool of blocks of @size bytes, each aligned to @align (a power of
 * two, 0 means 1) in both its virtual and its dma address, none crossing a
 * multiple of @boundary (0 means no boundary beyond the kernel's implicit
 * one: a block never crosses a page unless it is larger than a page).
 * Returns NULL on bad geometry (reported as "bad-geometry"), on a NULL @dev,
 * or when out of memory.  @name is copied (up to 31 bytes).
 */
DMAPOOL_API struct dmapool *dmapool_create(const char *name,
					   struct dmapool_dev *dev, size_t size,
					   size_t align, size_t boundary);
/*
 * Destroy a pool.  If blocks are still allocated this is reported
 * ("destroy-busy") and the chunks holding them are NOT returned to the
 * backend: a device may still be using them, so their DMA memory is
 * deliberately leaked (as the kernel's dma_pool does).  Empty chunks and all
 * host metadata are freed.  NULL is a no-op.
 */
DMAPOOL_API void dmapool_destroy(struct dmapool *pool);
/* One block, its bus address in *dma; NULL when out of memory. */
DMAPOOL_API void *dmapool_alloc(struct dmapool *pool, dmapool_gfp_t gfp,
				dmapool_dma_t *dma);
/* The same, zero-filled. */
DMAPOOL_API void *dmapool_zalloc(struct dmapool *pool, dmapool_gfp_t gfp,
				 dmapool_dma_t *dma);
/*
 * Give a block back.  Validated before anything changes: @vaddr must be the
 * start of a block of this pool that is currently allocated, and @dma its bus
 * address.  Anything else is reported and the pool is left unchanged.
 */
DMAPOOL_API void dmapool_free(struct dmapool *pool, void *vaddr,
			      dmapool_dma_t dma);
/*
 * The same, and the block's bytes are zeroed once the free is validated,
 * before anyone can allocate the block again (the kernel's init_on_free).
 * An invalid free is reported and writes nothing.
 */
DMAPOOL_API void dmapool_free_zero(struct dmapool *pool, void *vaddr,
				   dmapool_dma_t dma);

/*
 * Bulk calls.  dmapool_alloc_bulk() hands out all @n blocks or none: it
 * returns @n with vaddrs[i] and dmas[i] filled, or 0 with nothing taken.
 * dmapool_free_bulk() validates each entry like dmapool_free(): a bad one is
 * reported and skipped, the others are freed.
 */
DMAPOOL_API unsigned int dmapool_alloc_bulk(struct dmapool *pool,
					    dmapool_gfp_t gfp, unsigned int n,
					    void **vaddrs, dmapool_dma_t *dmas);
DMAPOOL_API void dmapool_free_bulk(struct dmapool *pool, unsigned int n,
				   void *const *vaddrs,
				   const dmapool_dma_t *dmas);

/* ------------------------------------------------------------------ */
/* Reports.                                                            */

enum dmapool_report_kind {
	DMAPOOL_R_DOUBLE_FREE,		/* "double-free" */
	DMAPOOL_R_FREE_OUTSIDE,		/* "free-outside-pool" */
	DMAPOOL_R_FREE_NOT_BLOCK,	/* "free-not-block-start" */
	DMAPOOL_R_FREE_DMA_MISMATCH,	/* "free-dma-mismatch" */
	DMAPOOL_R_FREE_WRONG_POOL,	/* "free-wrong-pool" */
	DMAPOOL_R_STALE_HANDLE,		/* "stale-handle" */
	DMAPOOL_R_BAD_HANDLE,		/* "bad-handle" */
	DMAPOOL_R_NULL_POOL,		/* "null-pool" */
	DMAPOOL_R_BAD_GEOMETRY,		/* "bad-geometry" */
	DMAPOOL_R_DESTROY_BUSY,		/* "destroy-busy" */
	DMAPOOL_R_DEVICE_WRITE_AFTER_FREE, /* "device-write-after-free" */
	DMAPOOL_R_DEVICE_OVERRUN,	/* "device-overrun" */
	DMAPOOL_R_KINDS
};
/* Room for report kinds in struct dmapool_stats (kinds may be added). */
#define DMAPOOL_R_KINDS_MAX	32

/* Everything known about one detected problem. */
struct dmapool_report {
	enum dmapool_report_kind kind;
	const struct dmapool *pool;	/* NULL for null-pool, bad-geometry */
	const char *pool_name;		/* "" when there is no pool */
	const void *addr;		/* the address the caller passed, or
					 * the address a device wrote to */
	dmapool_dma_t dma;		/* the dma the caller passed */
	const void *block;		/* start of the block concerned, or NULL */
	dmapool_dma_t block_dma;	/* its dma address (0 when no block) */
	size_t offset;			/* offset of addr (or of the first bad
					 * byte) from block */
	uint64_t handle;		/* the handle passed (handle kinds) */
	uint64_t count;			/* kind-specific: blocks still in use
					 * (destroy-busy), bytes changed */
	unsigned int found_len;		/* bytes valid in found[] */
	uint8_t found[16];		/* bytes a device left (device kinds) */
	const char *owner_name;		/* free-wrong-pool: the pool that
					 * holds addr; else NULL */
	const char *detail;		/* one human-readable sentence */
};

typedef void (*dmapool_report_fn)(const struct dmapool_report *r, void *ctx);

/* The stable name of a kind, e.g. "double-free"; "unknown" if out of range. */
DMAPOOL_API const char *dmapool_report_kind_name(enum dmapool_report_kind k);
/*
 * The process-wide (kernel: system-wide) sink, used by pools without their
 * own and for reports without a pool.  NULL restores the default (one line
 * on stderr / pr_err, rate limited in the kernel).
 */
DMAPOOL_API void dmapool_set_report_handler(dmapool_report_fn fn, void *ctx);
/* Reports that have no pool to be counted in (null-pool, bad-geometry). */
DMAPOOL_API uint64_t dmapool_global_violations(void);

/* ------------------------------------------------------------------ */
/* Options.                                                            */

enum dmapool_index_kind {
	DMAPOOL_INDEX_RADIX = 0,	/* radix tree of chunk granules */
	DMAPOOL_INDEX_BTREE = 1,	/* B-tree of chunk ranges */
	DMAPOOL_INDEX_HASH = 2,		/* hash of chunk granules; the default
					 * (dmapool_opts_init), and the only
					 * one the fast free path reads */
};

/*
 * Hardening options (README, "Hardening options", says what each detects
 * and costs):
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
 * They cannot be combined with DMAPOOL_OPT_THREAD_CACHE in this build.
 */
#define DMAPOOL_POISON_BYTE		0xd7u	/* what POISON fills blocks with */

#define DMAPOOL_OPT_ABORT_ON_VIOLATION	0x0001u /* abort()/BUG after reporting */
#define DMAPOOL_OPT_POISON		0x0002u /* poison free blocks, check at alloc */
#define DMAPOOL_OPT_QUARANTINE		0x0004u /* delay reuse until quiesce */
#define DMAPOOL_OPT_SCRUB		0x0008u /* zero blocks on free */
#define DMAPOOL_OPT_RANDOM		0x0010u /* randomized placement */
#define DMAPOOL_OPT_THREAD_CACHE	0x0020u /* accepted, no effect: every pool
						 * is owned per thread (per CPU in
						 * the kernel) unless SHARED */
#define DMAPOOL_OPT_AUTO_SHRINK		0x0040u /* release empty chunks beyond
						 * reserve_chunks on free */
#define DMAPOOL_OPT_SHARED		0x0080u /* one set of chunks for all
						 * threads, under the pool lock:
						 * least memory, no scaling */
#define DMAPOOL_OPT_POISON_SAMPLED	0x0100u /* cheap poison: the head of
						 * every freed block, the whole
						 * block 1 in opts.poison_sample */

struct dmapool_opts {
	unsigned int flags;		/* DMAPOOL_OPT_* */
	enum dmapool_index_kind index;
	size_t chunk_size;		/* bytes per backend allocation; 0 =
					 * max(page size, block size).  Rounded
					 * to a multiple of that. */
	unsigned int redzone;		/* bytes of checked gap after each block
					 * (rounded up to align); 0 = none.
					 * Overruns: "device-overrun" */
	unsigned int quarantine_max;	/* blocks held before forced release;
					 * 0 = 256, at most 2^20 */
	size_t reserve_chunks;		/* empty chunks kept by shrink (explicit
					 * or automatic); 0 = keep none */
	uint64_t seed;			/* for DMAPOOL_OPT_RANDOM; 0 = any */
	dmapool_report_fn report;	/* NULL = the global sink */
	void *report_ctx;
	unsigned int poison_sample;	/* DMAPOOL_OPT_POISON_SAMPLED: 1 in N
					 * freed blocks is poisoned and checked
					 * whole; 0 = 64 */
	unsigned int reserved32;	/* must be zero */
	uint64_t reserved[3];		/* must be zero */
};

/* Fill @o with the defaults (what dmapool_create uses). */
DMAPOOL_API void dmapool_opts_init(struct dmapool_opts *o);
/* dmapool_create with options; NULL @opts means the defaults. */
DMAPOOL_API struct dmapool *dmapool_create_opts(const char *name,
						struct dmapool_dev *dev,
						size_t size, size_t align,
						size_t boundary,
						const struct dmapool_opts *opts);

/* ------------------------------------------------------------------ */
/* The handle API: free without a lookup, stale handles detected.      */

struct dmapool_block {
	void *vaddr;		/* NULL when the allocation failed */
	dmapool_dma_t dma;
	uint64_t handle;	/* opaque: chunk, block and generation */
};

/*
 * The handle calls with every argument in a register: a block, its dma in
 * *dma and its handle in *handle (0 on failure).  dmapool_free_handle checks
 * the handle, vaddr and dma: a handle from an earlier allocation of the same
 * block ("stale"), a second free, or a block of another pool are reported,
 * never acted on.
 */
DMAPOOL_API void *dmapool_alloc_handle(struct dmapool *pool, dmapool_gfp_t gfp,
				       dmapool_dma_t *dma, uint64_t *handle);
DMAPOOL_API void dmapool_free_handle(struct dmapool *pool, void *vaddr,
				     dmapool_dma_t dma, uint64_t handle);

/*
 * The same as one value.  Inline wrappers: a 24-byte struct crosses a call
 * through memory, which costs more than the free itself.
 */
static inline struct dmapool_block dmapool_alloc_block(struct dmapool *pool,
						       dmapool_gfp_t gfp)
{
	/* Scalars first: a 16-byte copy of two 8-byte results just stored
	 * would stall on store forwarding. */
	dmapool_dma_t dma = 0;
	uint64_t handle = 0;
	void *vaddr = dmapool_alloc_handle(pool, gfp, &dma, &handle);
	struct dmapool_block blk;

	blk.vaddr = vaddr;
	blk.dma = vaddr ? dma : 0;
	blk.handle = handle;
	return blk;
}

static inline void dmapool_free_block(struct dmapool *pool,
				      struct dmapool_block blk)
{
	dmapool_free_handle(pool, blk.vaddr, blk.dma, blk.handle);
}

/* ------------------------------------------------------------------ */
/* Statistics and introspection.                                       */

struct dmapool_stats {
	uint64_t blocks_in_use, blocks_total, chunks;
	uint64_t dma_bytes, meta_bytes;	/* device memory held; host metadata */
	uint64_t violations;		/* all reports so far, any kind */
	uint64_t by_kind[DMAPOOL_R_KINDS_MAX]; /* reports per kind */
	uint64_t block_size;		/* size after rounding to align */
	uint64_t stride;		/* distance between block starts */
	uint64_t chunk_size;		/* bytes per chunk */
	uint64_t blocks_per_chunk;
	uint64_t quarantined;		/* blocks waiting for quiesce */
	uint64_t quarantine_forced;	/* released by the bound, not quiesce */
	uint64_t chunks_released;	/* chunks given back by shrink */
	uint64_t blocks_cached;		/* free blocks in per-thread caches (not
					 * in blocks_in_use); exact when no
					 * thread is allocating or freeing */
};

/*
 * Fill the first @size bytes of @st (fields a newer header added beyond what
 * this library knows are zeroed).  New fields are only ever appended, so a
 * program built against an older header keeps working with a newer library.
 */
DMAPOOL_API void dmapool_get_stats_size(const struct dmapool *pool,
					struct dmapool_stats *st, size_t size);

static inline void dmapool_get_stats(const struct dmapool *pool,
				     struct dmapool_stats *st)
{
	dmapool_get_stats_size(pool, st, sizeof(*st));
}

/* DMAPOOL_VERSION of the library the program runs with. */
DMAPOOL_API unsigned int dmapool_version(void);

/*
 * Give empty chunks back to the backend, keeping opts.reserve_chunks of
 * them; returns how many went.  Their DMA memory is zeroed first.  Blocks in
 * the calling thread's cache are flushed first; blocks cached by other
 * threads keep their chunks.  May sleep (kernel: process context).
 */
DMAPOOL_API size_t dmapool_shrink(struct dmapool *pool);

/*
 * Declare the device idle for every block freed so far (after an IOTLB
 * flush, a completion, a reset): blocks waiting in quarantine become
 * reusable (and, with DMAPOOL_OPT_AUTO_SHRINK, chunks they leave empty go
 * back).  A no-op for pools without DMAPOOL_OPT_QUARANTINE.
 */
DMAPOOL_API void dmapool_quiesce(struct dmapool *pool);

/*
 * Call @fn for every chunk the pool holds (its vaddr, dma and length), under
 * the pool lock: @fn must not call back into this pool.  For tests that play
 * a device, and for users who register pool memory elsewhere.
 */
typedef void (*dmapool_chunk_fn)(void *vaddr, dmapool_dma_t dma, size_t len,
				 void *ctx);
DMAPOOL_API void dmapool_walk_chunks(const struct dmapool *pool,
				     dmapool_chunk_fn fn, void *ctx);

/* ------------------------------------------------------------------ */
/* Userspace DMA backends.                                             */

#ifndef __KERNEL__
/*
 * A backend hands out chunks: @size bytes aligned to @align (a power of two,
 * at least the page size) in both vaddr and dma.  It must be thread-safe.
 */
struct dmapool_dev_ops {
	int (*chunk_alloc)(struct dmapool_dev *dev, size_t size, size_t align,
			   void **vaddr, dmapool_dma_t *dma);
	void (*chunk_free)(struct dmapool_dev *dev, void *vaddr,
			   dmapool_dma_t dma, size_t size);
	void (*release)(struct dmapool_dev *dev);	/* last put; may be NULL */
};

/*
 * Memory the caller already mapped for the device (a hugepage, a DPDK memzone
 * or SPDK buffer, an existing VFIO mapping): [vaddr, vaddr + size) at bus
 * address dma.  Chunks are carved from it and go back to it, never to the
 * system; when it is exhausted, growth fails cleanly (dmapool_alloc returns
 * NULL).  The memory must outlive the dev.
 */
DMAPOOL_API struct dmapool_dev *dmapool_dev_region(void *vaddr,
						   dmapool_dma_t dma,
						   size_t size);

/* A backend of your own: @ops must outlive the dev. */
DMAPOOL_API struct dmapool_dev *dmapool_dev_new(const struct dmapool_dev_ops *ops,
						void *priv);
DMAPOOL_API void *dmapool_dev_priv(const struct dmapool_dev *dev);
DMAPOOL_API void dmapool_dev_get(struct dmapool_dev *dev);
DMAPOOL_API void dmapool_dev_put(struct dmapool_dev *dev);

/*
 * Host memory.  dma = a fake bus address above the user address space, never
 * equal to vaddr, with the same offset within any alignment.
 */
DMAPOOL_API struct dmapool_dev *dmapool_dev_heap(void);

/*
 * Shared memory: chunks live in one memfd; dma = DMAPOOL_SHM_IOVA_BASE + the
 * chunk's offset in that file.  Another thread or process that maps the file
 * (dmapool_dev_shm_fd) reaches every chunk at its dma address: it plays the
 * device.  Returns NULL when memfd_create fails.
 */
#define DMAPOOL_SHM_IOVA_BASE	0x100000000000000ull
DMAPOOL_API struct dmapool_dev *dmapool_dev_shm(void);
DMAPOOL_API int dmapool_dev_shm_fd(const struct dmapool_dev *dev);
/* Current length of the file: map this much to see every chunk so far. */
DMAPOOL_API size_t dmapool_dev_shm_size(const struct dmapool_dev *dev);

/*
 * VFIO (Linux, type1 IOMMU): for a userspace driver of a real device.
 * Every chunk is anonymous host memory that the device reaches only through
 * its own IOMMU mapping (VFIO_IOMMU_MAP_DMA), at an IOVA this backend picks
 * inside a window [iova_base, iova_base + iova_size) the application
 * reserves for it in its container; dma = that IOVA.  A chunk is unmapped
 * (VFIO_IOMMU_UNMAP_DMA) before its memory goes back, and its IOVA is
 * reused afterwards.
 *
 * The container belongs to the caller (the way DPDK/SPDK-style code already
 * owns one): groups attached, IOMMU type set (VFIO_TYPE1v2_IOMMU or
 * VFIO_TYPE1_IOMMU).  The backend works on a duplicate of the fd, closed at
 * the last dmapool_dev_put(), so the container outlives the dev's chunks
 * whatever the caller does with its own fd.  It never maps outside its
 * window: the application keeps its own mappings elsewhere in the same
 * container.
 *
 * With DMAPOOL_VFIO_QUERY_IOMMU the backend asks the IOMMU
 * (VFIO_IOMMU_GET_INFO) first: the window is cut down to the usable IOVA
 * ranges (holes such as the x86 MSI window are skipped) and chunks are
 * mapped in multiples of the smallest IOMMU page.
 *
 * Errors are negative errno values; README.md ("VFIO backend") lists them.
 * Chunk failures surface as a NULL from dmapool_alloc(); the errno and the
 * failing step are then in dmapool_dev_vfio_info().
 */
#define DMAPOOL_VFIO_QUERY_IOMMU	0x1u

struct dmapool_vfio_cfg {
	int container_fd;	/* an open VFIO container, IOMMU set */
	unsigned int flags;	/* DMAPOOL_VFIO_* */
	uint64_t iova_base;	/* the window: page aligned, not wrapping; */
	uint64_t iova_size;	/* keep it below the device's DMA mask */
	uint64_t max_chunks;	/* mappings this dev may hold; 0 = no limit
				 * of its own (the kernel's still applies) */
	uint64_t reserved[4];	/* must be zero */
};

/* 0 and a new dev in *@devp, or a negative errno (*@devp = NULL). */
DMAPOOL_API int dmapool_dev_vfio_create(const struct dmapool_vfio_cfg *cfg,
					struct dmapool_dev **devp);
/*
 * The common case: DMAPOOL_VFIO_QUERY_IOMMU, no own mapping limit.
 * NULL with errno set on failure.
 */
DMAPOOL_API struct dmapool_dev *dmapool_dev_vfio(int container_fd,
						 uint64_t iova_base,
						 uint64_t iova_size);

struct dmapool_vfio_info {
	uint64_t iova_base, iova_size;	/* the window as configured */
	uint64_t iova_usable;		/* bytes of it the backend may use */
	uint64_t iova_mapped;		/* bytes mapped now */
	uint64_t granule;		/* mapping unit: CPU or IOMMU page */
	uint64_t iommu_pgsizes;		/* from the IOMMU; 0 if not asked */
	int64_t dma_avail;		/* mappings the container may still
					 * make, asked now; -1 if unknown */
	uint64_t chunks_mapped;		/* mappings held now */
	uint64_t maps, unmaps;		/* successful, so far */
	uint64_t map_failures, unmap_failures;
	uint64_t leaked_bytes;		/* kept mapped because unmap failed */
	int last_error;			/* negative errno of the last failure */
	char last_error_msg[120];	/* which step failed, on what */
};

/* 0, or -EINVAL when @dev is not a VFIO backend. */
DMAPOOL_API int dmapool_dev_vfio_info(const struct dmapool_dev *dev,
				      struct dmapool_vfio_info *info);
#endif

#ifdef __cplusplus
}
#endif

#endif /* DMAPOOL_DMAPOOL_H */
