/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * What the fuzz harnesses share: the input reader, the failure path, the
 * fake DMA memory (arena.c) and the allocator adapter the ops harness drives
 * (adapter_dmapool.c for dmapool, adapter_baseline.c for the designs in
 * bench/baselines/).
 *
 * Every harness is one source file with an entry point
 *   int dpf_<name>_run(const uint8_t *data, size_t size);
 * (dpf_ops_run also takes the adapter) that runs one input and returns 0,
 * or aborts through dpf_fail() when an invariant broke.  The drivers turn
 * that into a fuzzer target: driver_afl.c (AFL++ persistent mode,
 * shared-memory input), libFuzzer's own main (LLVMFuzzerTestOneInput,
 * defined by the harness with DPF_FUZZ_ENTRY unless DPF_NO_ENTRY), and
 * driver_replay.c (files on the command line).
 */
#ifndef DPF_HARNESS_H
#define DPF_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dmapool/dmapool.h>
#include <dmapool/fuzz.h>

/* ------------------------------------------------------------------ */
/* Input: a byte stream that reads as zeros once it runs out, so every  */
/* input is a valid program.  The hostile-device library's reader, so   */
/* the ops harness hands its input to the device as it goes.            */

#define dpf_in dmapool_fuzz_in

static inline bool dpf_more(const struct dpf_in *in)
{
	return dmapool_fuzz_more(in);
}

static inline uint8_t dpf_u8(struct dpf_in *in)
{
	return dmapool_fuzz_u8(in);
}

static inline uint16_t dpf_u16(struct dpf_in *in)
{
	return dmapool_fuzz_u16(in);
}

static inline uint32_t dpf_u32(struct dpf_in *in)
{
	return dmapool_fuzz_u32(in);
}

static inline uint64_t dpf_u64(struct dpf_in *in)
{
	return dmapool_fuzz_u64(in);
}

/* ------------------------------------------------------------------ */
/* Failure: an invariant broke.  Prints what and where, then aborts so  */
/* the fuzzer sees a crash.                                             */

extern bool dpf_trace;			/* print every step (DPF_TRACE=1) */
extern const char *dpf_where;		/* harness and step, for messages */
extern unsigned long dpf_step;

__attribute__((noreturn, format(printf, 1, 2)))
void dpf_fail(const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void dpf_log(const char *fmt, ...);

#define dpf_check(cond, ...)				\
	do {						\
		if (__builtin_expect(!(cond), 0))	\
			dpf_fail(__VA_ARGS__);		\
	} while (0)

/* Failed internal checks of the core a harness provoked (common.c). */
extern unsigned int dpf_warns_expected;

/* Reads DPF_TRACE once; every harness entry calls it. */
void dpf_env_init(void);

static inline bool dpf_is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static inline uint64_t dpf_align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

static inline uint64_t dpf_pow2_ceil(uint64_t x)
{
	return x <= 1 ? 1 : (uint64_t)1 << (64 - __builtin_clzll(x - 1));
}

/* ------------------------------------------------------------------ */
/* The arena: fake DMA memory.                                          */
/*
 * One big reservation at a fixed address when the system allows it, so an
 * input lands on the same addresses every run (stable for AFL++, and a
 * crash reproduces).  Chunks are carved first-fit and zeroed, bus addresses
 * are the arena offset plus DPF_DMA_BASE (never equal to the vaddr, every
 * alignment kept).  The arena records which pool owns each chunk; memory it
 * does not hand out is never touched, so what a device may see is only what
 * the harness put there during this input.
 */
#define DPF_ARENA_SIZE		(256u << 20)
#define DPF_ARENA_BUDGET	(64u << 20)	/* bytes handed out per input */
#define DPF_ARENA_CHUNKS	512
#define DPF_DMA_BASE		0x7d0000000000ull

struct dpf_chunk {
	uint8_t *va;
	uint64_t dma;
	size_t len;
	int owner;		/* pool instance id, or -1 once orphaned */
	int ctx;		/* dpf_ctx of the call that took it */
	uint64_t serial;	/* unique per allocation, increasing */
};

/*
 * Called before a chunk goes back, with the arena still holding it: the ops
 * harness checks that no live block is in it.
 */
typedef void (*dpf_release_hook)(const struct dpf_chunk *c, void *ctx);

void dpf_arena_init(void);
/* Start an input: nothing allocated, no failures injected. */
void dpf_arena_reset(void);
void dpf_arena_set_hook(dpf_release_hook fn, void *ctx);
/* The next @n allocations fail; with @misalign they "succeed" with a
 * chunk half a page off the alignment asked for (a broken backend). */
void dpf_arena_fail_next(unsigned int n, bool misalign);
/* Allocations refused so far in this input (injected or out of budget). */
unsigned long dpf_arena_refusals(void);
/* @low: every other chunk of @owner from the low reservation (at 64 KiB)
 * when there is one. */
int dpf_arena_alloc(int owner, bool low, size_t size, size_t align,
		    void **va, uint64_t *dma);
bool dpf_arena_has_low(void);
void dpf_arena_free(int owner, void *va, uint64_t dma, size_t size);
/* The chunk that holds @p, or NULL. */
const struct dpf_chunk *dpf_arena_find(const void *p);
/* The serial of the last chunk handed out (0: none yet in this input). */
uint64_t dpf_arena_serial(void);
/* Chunks held by @owner (-1: orphans). */
size_t dpf_arena_count(int owner);
/* The i-th chunk held (any owner), NULL past the end. */
const struct dpf_chunk *dpf_arena_at(size_t i);
/* Mark every chunk of @owner orphaned (its pool is gone). */
void dpf_arena_orphan(int owner);
/* Is @p inside the arena reservation at all?  Where does it end? */
bool dpf_arena_contains(const void *p);
void *dpf_arena_end(void);

/* A dmapool backend over the arena for pool instance @owner (@low: every
 * other chunk from the low reservation). */
struct dmapool_dev *dpf_arena_dev(int owner, bool low);

/*
 * The second thread (worker.c): @fn(@arg) runs in context @ctx (0: the
 * harness's own thread, 1: the worker, started on first use) while the
 * caller waits.  dpf_ctx is the context calling into the allocator now.
 * dpf_worker_exit() ends the worker (its exit orphans its heaps); false
 * when it was not running.
 */
#define DPF_CTXS	2
extern int dpf_ctx;
void dpf_in_ctx(int ctx, void (*fn)(void *arg), void *arg);
bool dpf_worker_exit(void);

/* RCU callbacks (determinism.c): run what the core queued with
 * dp_call_rcu; returns how many ran.  Call only between steps. */
unsigned long dpf_rcu_flush(void);
unsigned long dpf_rcu_queued(void);
/* The core's entropy restarts its fixed sequence (every input). */
void dpf_entropy_reset(void);

/* Host memory (hostfail.c): the @k-th malloc/calloc from now fails (0:
 * none); how many were made to fail so far. */
void dpf_host_fail_in(unsigned long k);
unsigned long dpf_host_failures(void);

/* ------------------------------------------------------------------ */
/* The allocator adapter.                                               */

/* What a CREATE asks for (dmapool's options; a baseline ignores them). */
struct dpf_params {
	size_t size, align, boundary, chunk_size;
	unsigned int flags;		/* DMAPOOL_OPT_* */
	unsigned int index;		/* enum dmapool_index_kind */
	unsigned int redzone;
	unsigned int quarantine_max;
	size_t reserve_chunks;
	uint64_t seed;
	unsigned int poison_sample;
	unsigned int reserved;		/* 0: none; 1: reserved32 = 1; 2..4:
					 * reserved[0..2] = 1 (must be refused) */
	bool low;			/* every other chunk from the low
					 * arena */
	bool plain;			/* no options: use dmapool_create() */
};

/*
 * Options a build accepts, probed by creating pools: a pool asking for an
 * option the build refuses alone, or for a pair it refuses together, must
 * be refused.  Features are numbered for the pair table: DMAPOOL_OPT_* bit
 * k is feature k, a redzone is DPF_FEAT_REDZONE.  The dmapool adapter
 * checks the probe against the contract (every option and index kind the
 * header names accepted, alone and with any other, but POISON with
 * POISON_SAMPLED).
 */
#define DPF_FEAT_REDZONE	31
struct dpf_features {
	unsigned int opt_flags;		/* DMAPOOL_OPT_* accepted one by one */
	unsigned int index_kinds;	/* bit k: index kind k */
	bool redzone;
	uint32_t pair_ok[32];		/* bit j of [i]: i and j together */
};

/* A report as the harness keeps it (the pool name may go away). */
struct dpf_report {
	enum dmapool_report_kind kind;
	const void *pool;		/* the adapter's pool handle, or NULL */
	const void *addr;
	uint64_t dma;
	const void *block;
	size_t offset;
	uint64_t handle;
	uint64_t count;
	char owner[32];
	char name[32];			/* pool_name */
	char detail[80];		/* the start of its sentence */
	bool own_sink;			/* came through the pool's own sink
					 * (opts.report), not the global one */
};

typedef void (*dpf_report_cb)(const struct dpf_report *r, void *ctx);

/* What an adapter can do; the harness skips what it cannot. */
#define DPF_CAP_REPORTS		0x01u	/* validates frees, reports misuse */
#define DPF_CAP_HANDLES		0x02u	/* alloc_block / free_block */
#define DPF_CAP_QUIESCE		0x04u
#define DPF_CAP_SHRINK		0x08u
#define DPF_CAP_OPTIONS		0x10u	/* honours dpf_params beyond geometry */
#define DPF_CAP_EXACT_DESTROY	0x20u	/* destroy gives back exactly the
					 * chunks without allocated blocks */
#define DPF_CAP_STATS		0x40u	/* full dmapool_stats (else only
					 * chunks and block_size are filled) */
#define DPF_CAP_IN_USE		0x80u	/* stats count blocks in use */
#define DPF_CAP_CHECKS_BACKEND	0x100u	/* refuses misaligned chunks (a
					 * baseline trusts its backend, as
					 * the kernel trusts
					 * dma_alloc_coherent) */

struct dpf_adapter {
	const char *name;
	unsigned int caps;
	/* Once per process; global reports (no pool) go to @cb. */
	void (*init)(dpf_report_cb cb, void *ctx);
	/* What this build accepts (probed by creating pools). */
	void (*features)(struct dpf_features *f);
	/* NULL when refused.  @owner is the arena owner id for its chunks. */
	void *(*create)(const struct dpf_params *p, int owner, const char *name,
			dpf_report_cb cb, void *ctx);
	void (*destroy)(void *pool);
	void *(*alloc)(void *pool, dmapool_gfp_t gfp, uint64_t *dma);
	void (*free)(void *pool, void *vaddr, uint64_t dma);
	struct dmapool_block (*alloc_block)(void *pool, dmapool_gfp_t gfp);
	void (*free_block)(void *pool, struct dmapool_block b);
	/* NULL when the allocator has none (the harness then uses free, or
	 * one call per block). */
	void (*free_zero)(void *pool, void *vaddr, uint64_t dma);
	unsigned int (*alloc_bulk)(void *pool, dmapool_gfp_t gfp,
				   unsigned int n, void **vaddrs,
				   uint64_t *dmas);
	void (*free_bulk)(void *pool, unsigned int n, void *const *vaddrs,
			  const uint64_t *dmas);
	void (*quiesce)(void *pool);
	size_t (*shrink)(void *pool);	/* returns chunks released */
	void (*stats)(void *pool, struct dmapool_stats *st);
	void (*walk)(void *pool, dmapool_chunk_fn fn, void *ctx);
	uint64_t (*global_violations)(void);
};

extern const struct dpf_adapter dpf_dmapool_adapter;
/* errno after dpf_dmapool_adapter.create() returned NULL. */
extern int dpf_create_errno;
/* Does it create @p with dmapool_create() (no options, so no sink of its
 * own) rather than dmapool_create_opts()? */
bool dpf_dmapool_plain(const struct dpf_params *p);
/* dmapool_opts_init(), then what @p asks for (not the sink). */
void dpf_params_to_opts(const struct dpf_params *p, struct dmapool_opts *o);
/* A design of bench/baselines/ by name ("linux-embedded", ...); aborts
 * when there is none.  One at a time: it replaces the previous one. */
const struct dpf_adapter *dpf_baseline_adapter(const char *name);

/* What the contract says about a create (common.c). */
enum dpf_verdict { DPF_MUST_FAIL, DPF_MUST_WORK, DPF_MAY_FAIL };
/* @opts: the allocator honours options (else only geometry counts);
 * *@esize: the block size the kernel's rules give (0 when invalid). */
enum dpf_verdict dpf_judge(const struct dpf_params *p,
			   const struct dpf_features *f, bool opts,
			   size_t page, size_t *esize);

/* ------------------------------------------------------------------ */
/* Harness entry points.                                                */

/* The ops harness against any adapter. */
int dpf_ops_run(const struct dpf_adapter *a, const uint8_t *data,
		size_t size);
int dpf_geometry_run(const uint8_t *data, size_t size);
int dpf_index_run(const uint8_t *data, size_t size);

/*
 * The libFuzzer entry points (AFL++'s driver calls the same two) of a
 * harness set up once by init() that runs one input with run(data, size).
 * Replay builds define DPF_NO_ENTRY and call the run function themselves.
 */
#define DPF_FUZZ_ENTRY(init, run)					\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);	\
	int LLVMFuzzerInitialize(int *argc, char ***argv);		\
	int LLVMFuzzerInitialize(int *argc, char ***argv)		\
	{								\
		(void)argc;						\
		(void)argv;						\
		init();							\
		return 0;						\
	}								\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)	\
	{								\
		return run(data, size);					\
	}

#endif /* DPF_HARNESS_H */
