/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * A chunk: one backend allocation of DMA memory, and its free state.
 *
 * Invariant 1 lives here: everything below is host memory.  The DMA memory
 * at [vaddr, vaddr + chunk_size) is never read or written by the allocator
 * on alloc or free (only zalloc and the hardening options touch it, and they
 * only write, or read to compare).
 *
 * The free state is a bitmap, 1 = free, one bit per bitmap position (see
 * geometry.h), with a summary word in front: bit w of map[0] is set when
 * word map[1 + w] has a free block.  Positions that hold no block (holes
 * between boundary segments) are never set, so find-first-set only ever
 * finds real blocks.
 */
#ifndef DMAPOOL_CHUNK_H
#define DMAPOOL_CHUNK_H

#include "geometry.h"

struct dp_chunk {
	uintptr_t vaddr;		/* start of the DMA memory */
	dmapool_dma_t dma;		/* its bus address */
	struct dp_chunk *next, *prev;	/* pool->avail while a block is free */
	uint32_t id;			/* slot in pool->slots, named by handles */
	uint32_t spare;
	uint16_t *gen;			/* generation per position, for handles;
					 * NULL until the pool uses them */
	size_t meta_size;		/* bytes of this record, for its free */
	struct dp_rcu_head rcu;		/* freed after a grace period (shrink) */
	uint64_t map[];			/* summary word, nwords free words,
					 * held_words held words */
};

static inline size_t dp_chunk_meta_size(const struct dp_geometry *g)
{
	return sizeof(struct dp_chunk) +
	       (1 + g->nwords + g->held_words) * sizeof(uint64_t);
}

/* Does the chunk have no free block left? */
static inline bool dp_chunk_full(const struct dp_chunk *c)
{
	return !c->map[0];
}

/* Take the lowest free position; the chunk must have one. */
static inline uint32_t dp_chunk_take_first(struct dp_chunk *c)
{
	uint64_t *words = &c->map[1];
	size_t w = dp_os_ctz64(c->map[0]);
	uint64_t word = words[w];
	uint32_t b = dp_os_ctz64(word);

	word &= word - 1;
	words[w] = word;
	if (!word)
		c->map[0] &= ~((uint64_t)1 << w);
	return (uint32_t)w * 64 + b;
}

/* Take a given free position (randomized placement). */
static inline void dp_chunk_take(struct dp_chunk *c, uint32_t pos)
{
	uint32_t w = pos / 64;

	c->map[1 + w] &= ~((uint64_t)1 << (pos % 64));
	if (!c->map[1 + w])
		c->map[0] &= ~((uint64_t)1 << w);
}

static inline bool dp_chunk_is_free(const struct dp_chunk *c, uint32_t pos)
{
	return (c->map[1 + pos / 64] >> (pos % 64)) & 1;
}

/* Mark @pos free; true when the chunk was full until now. */
static inline bool dp_chunk_put(struct dp_chunk *c, uint32_t pos)
{
	uint64_t *words = &c->map[1];
	size_t w = pos / 64;
	uint64_t word = words[w];
	bool was_full = false;

	words[w] = word | (uint64_t)1 << (pos % 64);
	if (!word) {
		was_full = !c->map[0];
		c->map[0] |= (uint64_t)1 << w;
	}
	return was_full;
}

/* The word that holds @pos's held bit. */
static inline uint64_t *dp_chunk_held_word(struct dp_chunk *c,
					   const struct dp_geometry *g,
					   uint32_t pos)
{
	return &c->map[1 + g->nwords + pos / 64];
}

/* Thread-cache pools change held bits without the pool lock: read once. */
static inline bool dp_chunk_is_held(const struct dp_chunk *c,
				    const struct dp_geometry *g, uint32_t pos)
{
	return g->held_words &&
	       ((DP_READ_ONCE(c->map[1 + g->nwords + pos / 64]) >> (pos % 64)) & 1);
}

static inline void dp_chunk_hold(struct dp_chunk *c,
				 const struct dp_geometry *g, uint32_t pos)
{
	c->map[1 + g->nwords + pos / 64] |= (uint64_t)1 << (pos % 64);
}

static inline void dp_chunk_unhold(struct dp_chunk *c,
				   const struct dp_geometry *g, uint32_t pos)
{
	c->map[1 + g->nwords + pos / 64] &= ~((uint64_t)1 << (pos % 64));
}

/* Is the block at @pos allocated to a caller right now? */
static inline bool dp_chunk_is_allocated(const struct dp_chunk *c,
					 const struct dp_geometry *g,
					 uint32_t pos)
{
	return !dp_chunk_is_free(c, pos) && !dp_chunk_is_held(c, g, pos);
}

/*
 * Blocks allocated to callers (not on a hot path).  A block is not allocated
 * when its free bit or its held bit is set, whichever way a pool uses the
 * held bits (see held_superset in geometry.h).
 */
static inline uint32_t dp_chunk_allocated_count(const struct dp_chunk *c,
						const struct dp_geometry *g)
{
	uint32_t w, n = 0;

	for (w = 0; w < g->nwords; w++) {
		uint64_t busy = ~c->map[1 + w];

		if (g->held_words)
			busy &= ~DP_READ_ONCE(c->map[1 + g->nwords + w]);
		n += dp_os_popcount64(~busy);
	}
	return g->blocks - n;
}


/* Mark every block of a new chunk free. */
void dp_chunk_init_map(struct dp_chunk *c, const struct dp_geometry *g);

#endif /* DMAPOOL_CHUNK_H */
