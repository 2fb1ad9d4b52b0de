/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Device-aware hardening: the byte work of the slow paths' steps (poison,
 * sampled poison, scrub, redzones).  Quarantine and randomized placement
 * are heap steps (heap.c, placement.c).
 *
 * The invariants hold without any of this.  These steps only add checks
 * and writes to block memory; none of them ever trusts a byte of it.  All
 * their state (redzone key, sampling key) is host memory.  A free does its
 * byte work after it claimed the block (block.h): nobody can allocate it,
 * free it again (a double free is still reported) or release it from
 * quarantine meanwhile.  An allocation checks the block once it is the
 * caller's.
 */
#ifndef DMAPOOL_HARDEN_H
#define DMAPOOL_HARDEN_H

#include "report.h"

#define DP_POISON_BYTE		DMAPOOL_POISON_BYTE
/* Sampled poison: bytes checked in every block (an embedded free list's
 * {next, dma} live there), and the default 1-in-N whole-block rate. */
#define DP_POISON_HEAD		16u
#define DP_POISON_SAMPLE_DEFAULT 64u
#define DP_QUARANTINE_DEFAULT	256u
#define DP_QUARANTINE_LIMIT	(1u << 20)

#if DP_HAVE_HARDEN
/* Options this file judges; NULL or why they are refused. */
const char *dp_harden_check_opts(const struct dmapool_opts *o);
/* The pool's steps, keys and parameters from @o. */
void dp_harden_init(struct dmapool *pool, const struct dmapool_opts *o);
/* A new chunk, not yet visible to anyone: poison it, lay its redzones. */
void dp_harden_chunk_init(struct dmapool *pool, struct dp_chunk *c);
/*
 * The byte work of a free of a claimed block (@zero: dmapool_free_zero).
 * @st: its state word after the claim.  True when a report was filled.
 */
bool dp_harden_free_bytes(struct dmapool *pool, struct dp_chunk *c,
			  uint32_t pos, uint32_t st, bool zero,
			  struct dp_pending *p);
/*
 * The check of a block just allocated (the caller's now); @st: its state
 * word before the allocation.  True when a report was filled.
 */
bool dp_harden_alloc_check(struct dmapool *pool, struct dp_chunk *c,
			   uint32_t pos, uint32_t st, struct dp_pending *p);
#else
/*
 * Compiled out (harden.c and placement.c are not built): create refuses
 * the options before these run (pool.c), and with the steps' bits 0
 * (pool.h) the data paths never reach the byte work.
 */
static inline const char *dp_harden_check_opts(const struct dmapool_opts *o)
{
	return NULL;
}

static inline void dp_harden_init(struct dmapool *pool,
				  const struct dmapool_opts *o)
{
}

static inline void dp_harden_chunk_init(struct dmapool *pool,
					struct dp_chunk *c)
{
}

static inline bool dp_harden_free_bytes(struct dmapool *pool,
					struct dp_chunk *c, uint32_t pos,
					uint32_t st, bool zero,
					struct dp_pending *p)
{
	return false;
}

static inline bool dp_harden_alloc_check(struct dmapool *pool,
					 struct dp_chunk *c, uint32_t pos,
					 uint32_t st, struct dp_pending *p)
{
	return false;
}
#endif

#endif /* DMAPOOL_HARDEN_H */
