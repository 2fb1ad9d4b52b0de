/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Device-aware hardening: the pool options that make a pool notice what a
 * device did (poison checks, redzones), narrow what it can reach (quarantine
 * until quiesce, scrub) and what it can predict (randomized placement).
 *
 * The invariants hold without any of this.  These options only add checks
 * and writes to block memory; none of them ever trusts a byte of it.  All
 * their state (redzone key, quarantine ring, generator) is host memory.
 *
 * The hot paths pay for a pool without options one predictable test of
 * pool->hooks; everything else lives in harden.c, quarantine.c and
 * placement.c.
 *
 * The free-side byte work (redzone check, poison fill, scrub) runs with the
 * pool lock dropped: the block is marked "held" (chunk.h) first, so nobody
 * can allocate it, free it again (a double free is still reported) or
 * release it from quarantine while it is being written.  The alloc-side
 * poison check also runs unlocked: the block already belongs to the caller.
 */
#ifndef DMAPOOL_HARDEN_H
#define DMAPOOL_HARDEN_H

#include "chunk.h"

struct dmapool;
struct dp_pending;

/*
 * pool->hooks: the DMAPOOL_OPT_* flags that need work on the data path, and
 * DP_HOOK_REDZONE for a pool with a redzone.  Zero for a plain pool.
 */
#define DP_HOOK_REDZONE		0x80000000u
/* Work on free: the pool keeps a held bitmap. */
#define DP_HOOK_FREE		(DMAPOOL_OPT_POISON | DMAPOOL_OPT_SCRUB | \
				 DMAPOOL_OPT_QUARANTINE | DP_HOOK_REDZONE)
/* Free work that writes or reads block memory (done unlocked). */
#define DP_HOOK_BYTES		(DMAPOOL_OPT_POISON | DMAPOOL_OPT_SCRUB | \
				 DP_HOOK_REDZONE)
#define DP_HOOK_FLAGS		(DMAPOOL_OPT_POISON | DMAPOOL_OPT_SCRUB | \
				 DMAPOOL_OPT_QUARANTINE | DMAPOOL_OPT_RANDOM)

/* The byte a poisoned block is filled with. */
#define DP_POISON_BYTE		DMAPOOL_POISON_BYTE
/* Redzone byte j after a block is key[j % DP_REDZONE_KEY_BYTES]. */
#define DP_REDZONE_KEY_WORDS	8u
#define DP_REDZONE_KEY_BYTES	(DP_REDZONE_KEY_WORDS * 8u)

#define DP_QUARANTINE_DEFAULT	256u
#define DP_QUARANTINE_LIMIT	(1u << 20)

/* Chunks considered by randomized placement (the head of the avail list). */
#define DP_RANDOM_WINDOW	16u

/* A bounded FIFO of freed blocks waiting for dmapool_quiesce(). */
struct dp_quarantine {
	uint64_t *ring;		/* chunk id << 32 | position; oldest at head */
	uint32_t head, count, max;
	uint64_t forced;	/* released by the bound, not by quiesce */
};

struct dp_harden {
	uint64_t rng;		/* placement generator state */
	uint32_t redzone;	/* bytes checked after each block */
	struct dp_quarantine q;
	uint64_t key[DP_REDZONE_KEY_WORDS];	/* expected redzone bytes */
};

/* harden.c */

/* Options this file judges; NULL or why they are refused. */
const char *dp_harden_check_opts(const struct dmapool_opts *o);
/* Set up a new pool's hardening (before its first chunk); 0 or -1 (OOM). */
int dp_harden_init(struct dmapool *pool, const struct dmapool_opts *o);
void dp_harden_fini(struct dmapool *pool);
size_t dp_harden_meta_bytes(const struct dmapool *pool);
/* A new chunk, not yet visible to anyone: poison it, lay its redzones. */
void dp_harden_chunk_init(struct dmapool *pool, struct dp_chunk *c);
/*
 * Free a validated, allocated block of a pool with free hooks.  Lock held
 * on entry, released on return (it is dropped in between).
 */
void dp_harden_free(struct dmapool *pool, struct dp_chunk *c, uint32_t pos,
		    dp_irqflags_t flags);
/* A block just allocated in a POISON pool (lock not held): check it. */
void dp_harden_alloc_check(struct dmapool *pool, struct dp_chunk *c,
			   uint32_t pos);

/* quarantine.c */

int dp_quarantine_init(struct dp_quarantine *q, unsigned int max);
void dp_quarantine_fini(struct dp_quarantine *q);
/*
 * Hold a freed block back from reuse; lock held.  Returns the chunk of a
 * block the bound pushed out if that left it empty in an auto-shrink pool
 * (to shrink once unlocked), else NULL.
 */
const struct dp_chunk *dp_quarantine_add(struct dmapool *pool,
					 struct dp_chunk *c, uint32_t pos);

/* placement.c */

/* The pool's generator: 64 fresh bits. */
uint64_t dp_rand_next(uint64_t *state);
/* A number in [0, n), n >= 1. */
uint32_t dp_rand_below(uint64_t *state, uint32_t n);
/* Take a random free block of a random chunk; lock held.  NULL when none. */
struct dp_chunk *dp_random_take(struct dmapool *pool, uint32_t *pos);

#endif /* DMAPOOL_HARDEN_H */
