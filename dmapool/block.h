/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Block operations: the free map, the state words, handles, and the one
 * check every free makes (invariant 3).
 *
 * Two records per block, both in host memory:
 *
 *  - the free map (chunk->map, with a summary word): "free and allocatable
 *    by the owner".  Only the owning context reads or writes it, so alloc
 *    and the owner's free change it with plain instructions;
 *
 *  - the state word (chunk->st[pos], 32 bits): bit 0 "allocated", bit 1
 *    "poisoned whole at its last free" (sampled poison, harden.h), bit 2
 *    "freed by another context, not collected yet" (below), bits 4..31 a
 *    generation that every allocation advances.  An allocation sets
 *    it with a release store (the block is in the owner's free map: no one
 *    else may change its word; release, so that a context that reads the
 *    allocated word also reads the record's fields as the chunk has them);
 *    every way out of "allocated" is one atomic read-modify-write of it:
 *    test-and-clear for the owner's free by address, compare-and-exchange
 *    with the word it read for another context's, and with the handle's
 *    generation for a free by handle.  So of two frees of one block racing
 *    on two CPUs exactly one wins, and a free by a stale handle can never
 *    take a later allocation of the block.
 *
 * A block freed by another context than the owner gets DP_ST_PENDING in
 * its state word: with the claim itself (one compare-and-exchange) when
 * the free has no byte work, else after it.  The freer then makes sure the
 * block's region (one cache line of state words) is marked in the chunk's
 * remote words and the chunk is queued on the owner's heap (remote.c); the
 * owner, when it next needs blocks, looks through the marked regions and
 * moves the pending blocks into its free map (heap.c).  Until then the
 * block is neither allocated nor allocatable.
 */
#ifndef DMAPOOL_BLOCK_H
#define DMAPOOL_BLOCK_H

#include "chunk.h"

#define DP_ST_ALLOC	1u
#define DP_ST_WHOLE	2u
#define DP_ST_PENDING	4u
#define DP_ST_GEN_SHIFT	4
#define DP_ST_GEN_ONE	((u32)1 << DP_ST_GEN_SHIFT)
#define DP_GEN_BITS	28
#define DP_GEN_MASK	((1u << DP_GEN_BITS) - 1)

/*
 * A handle: slot (20 bits) | position (12 bits) | the block's state word
 * while this allocation lasts (32 bits: generation, and bit 0 set).  The
 * free compares the low half with the state word as it is, so the check of
 * generation and "allocated" is one compare-and-exchange, with nothing to
 * decode.  Slot 0 is never used, so no valid handle is 0.  Bits 1..3 are 0
 * in every handle given out; bit 0 is 1, and a free sets it before it
 * compares (a handle can never name a free block's state).  A stale handle
 * is reported until its block has been allocated 2^28 more times.
 */
#define DP_H_POS_BITS	12
#define DP_H_ID_BITS	20
#define DP_H_KEY_SHIFT	32
/*
 * Chunks a pool may ever name: slot ids 1..DP_MAX_SLOTS, all 20 bits (id 0
 * names nothing).  A test build lowers it (tests/meson.build).
 */
#ifndef DP_MAX_SLOTS
#define DP_MAX_SLOTS	((1u << DP_H_ID_BITS) - 1)
#endif

static inline u64 dp_handle_make(u32 id, u32 pos, u32 st)
{
	return (u64)(id << DP_H_POS_BITS | pos) << DP_H_KEY_SHIFT | st;
}

static inline u32 dp_handle_pos(u64 h)
{
	return (u32)(h >> DP_H_KEY_SHIFT) & ((1u << DP_H_POS_BITS) - 1);
}

static inline u32 dp_handle_id(u64 h)
{
	return (u32)(h >> (DP_H_KEY_SHIFT + DP_H_POS_BITS));
}

/* The state word a handle's allocation has while it lasts. */
static inline u32 dp_handle_state(u64 h)
{
	return (u32)h | DP_ST_ALLOC;
}

/* Bits no handle given out has: a handle with one is forged. */
static inline bool dp_handle_malformed(u64 h)
{
	return (u32)h & (DP_ST_GEN_ONE - 1) & ~DP_ST_ALLOC;
}

/* ---- the free map: the owning context only ---------------------------- */

static inline bool dp_block_any_free(const struct dp_chunk *c)
{
	return c->summary != 0;
}

/* Take the lowest free position (the chunk has one). */
static inline u32 dp_block_take_first(struct dp_chunk *c)
{
	u32 w = dp_os_ctz64(c->summary);
	u64 word = c->map[w];
	u32 b = dp_os_ctz64(word);

	word &= word - 1;
	c->map[w] = word;
	if (!word)
		c->summary &= ~((u64)1 << w);
	return w * 64 + b;
}

/* Take a given free position (randomized placement). */
static inline void dp_block_take(struct dp_chunk *c, u32 pos)
{
	u32 w = pos / 64;

	c->map[w] &= ~((u64)1 << (pos % 64));
	if (!c->map[w])
		c->summary &= ~((u64)1 << w);
}

/* Make the positions @bits of word @w free; true when the chunk had none. */
static inline bool dp_block_put_bits(struct dp_chunk *c, size_t w,
				     u64 bits)
{
	u64 *wp = c->map + w;
	u64 word = *wp;
	bool was_full;

	*wp = word | bits;
	if (word)
		return false;
	was_full = !c->summary;
	c->summary |= (u64)1 << w;
	return was_full;
}

static inline bool dp_block_put(struct dp_chunk *c, size_t pos)
{
	return dp_block_put_bits(c, pos / 64, (u64)1 << (pos % 64));
}

/* Is every block of @c free and allocatable?  (@full: the empty map) */
static inline bool dp_block_all_free(const struct dp_chunk *c,
				     const u64 *full, u32 nwords)
{
	u32 w;

	for (w = 0; w < nwords; w++)
		if (c->map[w] != full[w])
			return false;
	return true;
}

/* ---- state words -------------------------------------------------------- */

/* The owner allocates @pos (taken from its free map): the new state. */
static __always_inline u32 dp_state_alloc(struct dp_chunk *c, u32 pos)
{
	u32 s = DP_READ_ONCE(c->st[pos]) + (DP_ST_GEN_ONE | DP_ST_ALLOC);

	DP_STORE_RELEASE(c->st[pos], s);
	return s;
}

/*
 * The same when the new state is not needed (an allocation by address):
 * one add to memory where the world has it (DP_ADD_RELEASE32, os.h).
 */
static __always_inline void dp_state_alloc_quiet(struct dp_chunk *c, u32 pos)
{
	DP_ADD_RELEASE32(c->st[pos], DP_ST_GEN_ONE | DP_ST_ALLOC);
}

/*
 * The same in a pool whose frees may set DP_ST_WHOLE (@before: the state
 * word while free), which the allocated state never has.
 */
static __always_inline u32 dp_state_alloc_clear(struct dp_chunk *c, u32 pos,
						u32 before)
{
	u32 s = (before & ~DP_ST_WHOLE) + (DP_ST_GEN_ONE | DP_ST_ALLOC);

	DP_STORE_RELEASE(c->st[pos], s);
	return s;
}

/*
 * A freer that claimed @pos and poisoned it whole (sampled poison) says so
 * to the next allocation.  Only failing claims (atomic, on bit 0, which is
 * clear) can touch the word meanwhile, and they leave it as it is.
 */
static inline void dp_state_mark_whole(struct dp_chunk *c, u32 pos)
{
	DP_WRITE_ONCE(c->st[pos], DP_READ_ONCE(c->st[pos]) | DP_ST_WHOLE);
}

/* The same, taking it back (a new chunk in a record that had one). */
static inline void dp_state_clear_whole(struct dp_chunk *c, u32 pos)
{
	DP_WRITE_ONCE(c->st[pos], DP_READ_ONCE(c->st[pos]) & ~DP_ST_WHOLE);
}

/* Claim @pos for a free by address: true when it was allocated. */
static inline bool dp_state_claim(struct dp_chunk *c, size_t pos)
{
	return dp_os_test_and_clear_bit32(0, &c->st[pos]);
}

/*
 * Claim @pos for another context's free by address: true when its word
 * was still @seen (allocated, read with DP_LOAD_ACQUIRE before the checks
 * of the record's fields).  The generation makes it exact: the block was
 * allocated from that read to the claim, so its chunk was not released in
 * between (the index's records are type-stable, chunk.h).
 */
static inline bool dp_state_claim_seen(struct dp_chunk *c, size_t pos,
				       u32 seen)
{
	return dp_os_cmpxchg32(&c->st[pos], seen, seen & ~DP_ST_ALLOC);
}

/*
 * The same, and publish it in the same instant: free and DP_ST_PENDING (a
 * remote free with no byte work, remote.c).
 */
static inline bool dp_state_claim_remote(struct dp_chunk *c, size_t pos,
					 u32 seen)
{
	return dp_os_cmpxchg32(&c->st[pos], seen,
			       (seen & ~DP_ST_ALLOC) | DP_ST_PENDING);
}

/*
 * Claim @pos for a free by handle: true when it was @want (allocated, with
 * the handle's generation).
 */
static inline bool dp_state_claim_gen(struct dp_chunk *c, size_t pos,
				      u32 want)
{
	/* @want has DP_ST_ALLOC (dp_handle_state()): clear it by subtracting. */
	return dp_os_cmpxchg32(&c->st[pos], want, want - DP_ST_ALLOC);
}

/* dp_state_claim_gen() by another context: the block pending too. */
static inline bool dp_state_claim_gen_remote(struct dp_chunk *c, size_t pos,
					     u32 want)
{
	return dp_os_cmpxchg32(&c->st[pos], want,
			       (want - DP_ST_ALLOC) | DP_ST_PENDING);
}

static inline bool dp_state_allocated(const struct dp_chunk *c, u32 pos)
{
	return DP_READ_ONCE(c->st[pos]) & DP_ST_ALLOC;
}

/* ---- the check of every free -------------------------------------------- */

/*
 * Invariant 3, the part that needs no lock: @va is the start of a block of
 * @c and @dma its bus address.  The position in *@pos.  Exact for every
 * geometry (the segment arithmetic of geometry.h).
 */
static inline bool dp_block_check(const struct dp_geometry *g,
				  const struct dp_chunk *c, uintptr_t va,
				  dmapool_dma_t dma, u32 *pos)
{
	const uintptr_t off = va - DP_READ_ONCE(c->vaddr);

	return off < g->chunk_size && dp_geo_position(g, off, pos) &&
	       DP_READ_ONCE(c->dma) + off == dma;
}

/*
 * The same for the fast paths (@off: the address's offset from @c's
 * start, any value): the linear form of geometry.h, which fails for
 * chunks of several segments (fast_n = 0).
 */
static inline bool dp_block_check_fast(const struct dp_geometry *g,
				       const struct dp_chunk *c, u64 off,
				       dmapool_dma_t dma, size_t *pos)
{
	const u64 q = dp_geo_fast_pos(g, off);

	*pos = (size_t)q;
	return q < g->fast_n && c->dma + off == dma;
}

#endif /* DMAPOOL_BLOCK_H */
