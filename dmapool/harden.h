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
/*
 * Sampled poison: bytes checked in every block (an embedded free list's
 * {next, dma} live there), and the default 1-in-N whole-block rate.
 */
#define DP_POISON_HEAD		16u
#define DP_POISON_SAMPLE_DEFAULT 64u
#define DP_QUARANTINE_DEFAULT	256u
#define DP_QUARANTINE_LIMIT	((u32)1 << 20)

#define DP_POISON_WORD	(0x0101010101010101ull * DP_POISON_BYTE)

/* Sampled poison's head: the pattern into the first 16 bytes at @b. */
static __always_inline void dp_poison_head(void *b)
{
	const u64 w = DP_POISON_WORD;

	__builtin_memcpy(b, &w, 8);
	__builtin_memcpy((u8 *)b + 8, &w, 8);
}

/* Do the first 16 bytes at @b hold the pattern?  Two words. */
static __always_inline bool dp_poison_head_intact(const void *b)
{
	u64 x, y;

	__builtin_memcpy(&x, b, 8);
	__builtin_memcpy(&y, (const u8 *)b + 8, 8);
	return !((x ^ DP_POISON_WORD) | (y ^ DP_POISON_WORD));
}

#if DP_HAVE_HARDEN
/* Options this file judges; NULL or why they are refused. */
const char *dp_harden_check_opts(const struct dmapool_opts *o);
/* The pool's steps, keys and parameters from @o. */
void dp_harden_init(struct dmapool *pool, const struct dmapool_opts *o);
/* A new chunk, not yet visible to anyone: poison it, lay its redzones. */
void dp_harden_chunk_init(struct dmapool *pool, struct dp_chunk *c);
/*
 * The byte work of a free of a claimed block (@zero: dmapool_free_zero).
 * @whole: sampled poison poisons this one whole (the freer decided:
 * dp_heap_sample_whole() or dp_harden_sampled_whole()).  True when a
 * report was filled.
 */
bool dp_harden_free_bytes(struct dmapool *pool, struct dp_chunk *c,
			  u32 pos, bool whole, bool zero,
			  struct dp_pending *p);
/*
 * The check of a block just allocated (the caller's now); @st: its state
 * word before the allocation.  True when a report was filled.
 */
bool dp_harden_alloc_check(struct dmapool *pool, struct dp_chunk *c,
			   u32 pos, u32 st, struct dp_pending *p);
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
					struct dp_chunk *c, u32 pos,
					bool whole, bool zero,
					struct dp_pending *p)
{
	return false;
}

static inline bool dp_harden_alloc_check(struct dmapool *pool,
					 struct dp_chunk *c, u32 pos,
					 u32 st, struct dp_pending *p)
{
	return false;
}
#endif

/*
 * Sampled poison: is this block to be poisoned whole at this free, when the
 * freer is not its owner (the owner counts down instead,
 * dp_heap_sample_whole()), and for a new chunk's blocks?  @st is its state
 * word while free (generation, not allocated).  A keyed mix (two
 * multiply-xorshift rounds): the top 32 bits are below 2^32 / N for one
 * block in N, unpredictable without the seed.  The freer records a yes in
 * the state word (DP_ST_WHOLE), so the next allocation checks the block
 * whole without deciding again.
 */
static inline bool dp_harden_sampled_whole(const struct dmapool *pool,
					   const struct dp_chunk *c,
					   u32 pos, u32 st)
{
	u64 k = (pool->seed ^ c->dma ^ ((u64)pos << 32) ^ st) *
		0x9e3779b97f4a7c15ull;

	k = (k ^ (k >> 29)) * 0xbf58476d1ce4e5b9ull;
	return (k ^ (k >> 32)) >> 32 < pool->sample_cut;
}

/* The same for the block as it is now, in any pool (false unsampled). */
static inline bool dp_harden_sample_now(const struct dmapool *pool,
					const struct dp_chunk *c, u32 pos)
{
	return (pool->steps & DP_STEP_SAMPLED) &&
	       dp_harden_sampled_whole(pool, c, pos, DP_READ_ONCE(c->st[pos]));
}

/*
 * Do the @n bytes at @p hold the 64-byte-periodic @key?  Word by word,
 * no early exit: the common answer is yes.
 */
static inline bool dp_harden_redzone_intact(const u8 *p, size_t n,
					    const u64 *key)
{
	u64 acc = 0, x, y;
	size_t i;

	if (DP_LIKELY(n == 16)) {
		/* The usual redzone: two words. */
		__builtin_memcpy(&x, p, 8);
		__builtin_memcpy(&y, p + 8, 8);
		return !((x ^ key[0]) | (y ^ key[1]));
	}
	for (i = 0; i + 8 <= n; i += 8) {
		u64 v;

		__builtin_memcpy(&v, p + i, 8);
		acc |= v ^ key[(i / 8) % DP_REDZONE_KEY_WORDS];
	}
	for (; i < n; i++)
		acc |= p[i] ^ ((const u8 *)key)[i % DP_REDZONE_KEY_BYTES];
	return !acc;
}

/*
 * The byte work of a free when it has nothing to report, inline: false
 * (nothing written) when the redzone changed, and then the caller does it
 * all with dp_harden_free_bytes(), which reports.
 */
static inline bool dp_harden_free_quick(struct dmapool *pool,
					struct dp_chunk *c, u32 pos,
					bool whole, bool zero)
{
	const struct dp_geometry *g = &pool->geo;
	u8 *b = (u8 *)(c->vaddr + dp_geo_offset(g, pos));
	const u32 steps = pool->steps;

	if ((steps & DP_STEP_REDZONE) &&
	    DP_UNLIKELY(!dp_harden_redzone_intact(b + g->size, pool->redzone,
						  pool->key)))
		return false;
	if (steps & DP_STEP_POISON) {
		dp_fill_block(b, DP_POISON_BYTE, g->size);
		return true;
	}
	if (zero || (steps & DP_STEP_SCRUB))
		dp_zero_block(b, g->size);
	if (steps & DP_STEP_SAMPLED) {
		if (DP_LIKELY(g->size >= DP_POISON_HEAD) && !whole) {
			/* The usual case: two words, no call. */
			dp_poison_head(b);
		} else {
			/* Whole: sampled, or smaller than the head. */
			dp_fill_block(b, DP_POISON_BYTE, g->size);
			dp_state_mark_whole(c, pos);
		}
	}
	return true;
}

#endif /* DMAPOOL_HARDEN_H */
