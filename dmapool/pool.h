/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * The pool: the one struct every core file shares.  Which paths a pool
 * takes is decided once, by dp_pool_paths() (pool.c), from its options.
 */
#ifndef DMAPOOL_POOL_H
#define DMAPOOL_POOL_H

#include "heap.h"
#include "index.h"

/*
 * The steps a pool's slow paths take (pool->steps).  A build without the
 * hardening options (DP_HAVE_HARDEN 0, os.h) has 0 for their bits: every
 * test of one is constant false and its code is compiled out; create
 * refuses the options (pool.c).
 */
#if DP_HAVE_HARDEN
#define DP_STEP_POISON		0x0001u	/* fill freed blocks, check at alloc */
#define DP_STEP_SAMPLED		0x0002u	/* head of each, whole block 1 in N */
#define DP_STEP_SCRUB		0x0004u	/* zero freed blocks */
#define DP_STEP_REDZONE		0x0008u	/* check the gap after each block */
#define DP_STEP_QUARANTINE	0x0010u	/* hold freed blocks until quiesce */
#define DP_STEP_RANDOM		0x0020u	/* random block at alloc */
#else
#define DP_STEP_POISON		0u
#define DP_STEP_SAMPLED		0u
#define DP_STEP_SCRUB		0u
#define DP_STEP_REDZONE		0u
#define DP_STEP_QUARANTINE	0u
#define DP_STEP_RANDOM		0u
#endif
#define DP_STEP_AUTO_SHRINK	0x0040u	/* release chunks a free empties */
#define DP_STEP_SHARED		0x0080u	/* one heap under the pool lock */

/* Steps that read or write a freed block's bytes. */
#define DP_STEPS_FREE_BYTES	(DP_STEP_POISON | DP_STEP_SAMPLED | \
				 DP_STEP_SCRUB | DP_STEP_REDZONE)
/* Steps that keep every free off the fast path. */
#define DP_STEPS_FREE_SLOW	(DP_STEPS_FREE_BYTES | DP_STEP_QUARANTINE | \
				 DP_STEP_AUTO_SHRINK | DP_STEP_SHARED)
/* Steps that keep every allocation off the fast path. */
#define DP_STEPS_ALLOC_SLOW	(DP_STEP_POISON | DP_STEP_SAMPLED | \
				 DP_STEP_RANDOM | DP_STEP_SHARED)

#define DP_REDZONE_KEY_WORDS	8u
#define DP_REDZONE_KEY_BYTES	(DP_REDZONE_KEY_WORDS * 8u)

/*
 * dmapool.free_kind: what an owner's free does after its claim (owner.c,
 * dp_free_owner_steps()), an index into dp_free_kinds[].
 */
enum {
	DP_FREE_REUSE,		/* no step: the magazine or the free map */
	DP_FREE_QUARANTINE,	/* quarantine alone */
	DP_FREE_HEAD,		/* sampled poison's head alone */
	DP_FREE_REDZONE16,	/* a 16-byte redzone alone */
	DP_FREE_STEPS,		/* any other combination */
	DP_FREE_KINDS
};

struct dmapool;
struct dp_chunk;

/* One free kind's steps (owner.c, dp_free_kinds[]). */
struct dp_free_kind {
	/*
	 * The owner's free of block @pos of its chunk @c at address @va,
	 * checked and claimed, pinned (@pin).  Unpins.
	 */
	void (*free)(struct dmapool *pool, struct dp_chunk *c, size_t pos,
		     unsigned long pin, uintptr_t va);
};

struct dp_slot_tab;

struct dmapool {
	/* Read by every allocation and free. */
	struct dp_owners owners;
	u32 steps;			/* DP_STEP_* */
	bool fast_alloc;		/* allocations may take the fast path */
	bool fast_free;			/* frees may take the fast path */
	/* allocations take the staged word, then their byte steps (alloc.c) */
	bool alloc_stepped;
	/* allocations take a random block of the heap's drawn chunk */
	bool alloc_random;
	/* the owner's frees into full chunks go to the magazine (heap.h) */
	bool mag;
	/*
	 * the owner's frees take their steps out of line (owner.c): poison,
	 * scrub, automatic shrink, a redzone but 16 bytes, sampled blocks
	 * smaller than its head
	 */
	bool free_steps_out;
	/*
	 * DP_FREE_*: what an owner's free into its own chunk does after the
	 * claim (owner.c, dp_free_owner_steps()), and its entry in the
	 * constant table dp_free_kinds[]
	 */
	u8 free_kind;
	/* alloc_stepped checks the 16-byte head only (sampled poison) */
	bool alloc_head;
	/* positions a fast handle free may name: 0 when it may not */
	u32 hnbits;
	struct dp_geometry geo;
	struct dp_index index;
	struct dp_chunk **slot_rec;	/* records by id (supply.h) */
	const struct dp_free_kind *free_steps;	/* &dp_free_kinds[free_kind] */

	/* Shared, under the lock. */
	struct dp_lock lock;
	struct dp_heap shared;		/* DP_STEP_SHARED, heapless contexts */
	struct dp_heap *heaps;		/* every other heap */
	struct dp_heap *orphans;	/* heaps of exited threads */
	u32 nslots;			/* ids handed out: 1..nslots-1 */
	struct dp_slot_tab *slot_tab;	/* the table slot_rec is in */
	u32 nspare;
	struct dp_chunk *retired;	/* records waiting to be reused */
	struct dp_chunk *spare;		/* empty chunks no heap owns */
	struct dp_chunk *pending;	/* empty chunks waiting to be released */
	struct dp_chunk *dead;		/* released, index entry still there */
	u64 nchunks;			/* chunks holding DMA memory */
	u64 chunks_released;
	size_t reserve;			/* empty chunks to keep */
	u64 *full_map;			/* the free map of an empty chunk */
	struct dp_work work;		/* releases a free could not do */
	bool dying;

	/* Hardening (harden.c, heap.c). */
	u32 qepoch;			/* quiesce epoch, advanced atomically */
	u32 quarantine_max;		/* per heap */
	u32 poison_sample;		/* DP_STEP_SAMPLED: 1 in N whole */
	u64 sample_cut;			/* 2^32 / poison_sample (harden.c) */
	u32 redzone;			/* bytes checked after each block */
	u64 seed;			/* heaps' generators, sampling key */
	u64 heap_serial;		/* heaps made so far */
	u64 key[DP_REDZONE_KEY_WORDS];		/* expected redzone bytes */

	/* Reports (reports.c): counted atomically, never under the lock. */
	unsigned int flags;		/* DMAPOOL_OPT_* as created */
	dmapool_report_fn report;
	void *report_ctx;
	u64 violations;
	u64 by_kind[DMAPOOL_R_KINDS];

	struct dmapool_dev *dev;
	struct dmapool *reg_next, *reg_prev;	/* registry of pools */
	char name[32];
};

#endif /* DMAPOOL_POOL_H */
