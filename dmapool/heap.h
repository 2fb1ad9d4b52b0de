/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Heaps: what one owning context (a thread in userspace, a CPU in the
 * kernel) holds of a pool.
 *
 * A heap owns chunks.  Its allocations and the frees of its own blocks
 * touch only the heap and its chunks' free maps, with plain instructions:
 * no lock, no atomic but the state word's claim (block.h); a free into a
 * full chunk goes onto the heap's magazine instead (below).  A block freed
 * by another context comes back through the chunk's remote words and the
 * heap's remote stack; the heap collects them when it runs out of free
 * blocks, before it grows.  So threads that allocate and free their own
 * blocks never share a cache line, and a producer whose blocks a consumer
 * frees pays one atomic per block and one collection per batch.
 *
 * The pool also has heaps no context owns, used under the pool lock: the
 * shared heap (DMAPOOL_OPT_SHARED pools, and a thread that cannot have a
 * heap of its own, e.g. one that is exiting) and orphans (the heaps of
 * exited threads, until a new thread adopts one).
 *
 * Quarantine is per heap: a ring of freed blocks, each stamped with the
 * pool's quiesce epoch when it went in, released once dmapool_quiesce() has
 * moved the epoch past it (lazily, by the heap's own context: at its next
 * free or refill) or when the ring is full (counted as forced).
 */
#ifndef DMAPOOL_HEAP_H
#define DMAPOOL_HEAP_H

#include "block.h"

struct dmapool;

struct dp_qent {
	struct dp_chunk *c;
	u32 pos;
	u32 epoch;
};

struct dp_quarantine {
	struct dp_qent *ring, *end;	/* end: ring + max */
	struct dp_qent *head;		/* the oldest entry */
	u32 count, max;			/* count: DP_WRITE_ONCE (stats) */
	u64 forced;	/* released by the bound, not quiesce: DP_COUNT_ONCE64 */
};

/*
 * The magazine: blocks the owner freed into chunks that were full, most
 * recent last (a block is on it or in its chunk's free map, never both).
 * Such a free touches neither the chunk's free map nor the heap's avail
 * list, and the next allocation that finds its staged word empty takes the
 * block back before it restages: under churn (a large live set, random
 * frees, as many allocations) every free lands in a full chunk, and this
 * keeps each pair to the lines of the record the free reads anyway.  Pools
 * with randomized placement or automatic shrink do not use it (pool.h).
 */
#define DP_MAG_SIZE	32u

struct dp_mag_ent {
	struct dp_chunk *c;
	u32 pos;
	u32 off;			/* dp_geo_offset(pos) */
};

struct dp_heap {
	struct dp_pin_lock pin;		/* first: the shim's per-context lock */
	/*
	 * The staged word: the free-map word of @cur that the fast path
	 * takes blocks from (pools whose allocations have no steps), lowest
	 * first; a block freed into it comes back first.  The fast path
	 * leaves @cur's summary bit set when the word empties; the slow path
	 * clears it and stages the next word.  Never NULL (dp_zero_word).
	 */
	u64 *wp;
	struct dp_chunk *cur;
	u32 base;			/* position of bit 0 of *wp (*swp) */
	u32 nmag;			/* blocks on the magazine */
	/*
	 * The staged word of pools whose allocations have byte steps (poison
	 * checks): the same protocol, taken by alloc_stepped, while @wp
	 * stays dp_zero_word so the fast path never hands their blocks out.
	 */
	u64 *swp;
	struct dp_chunk *avail;		/* chunks with a free block */
	struct dp_chunk *empty;		/* empty chunks kept (auto shrink) */
	struct dp_chunk *chunks;	/* every chunk this heap owns */
	uintptr_t self;		/* the owner's token */
	struct dmapool *pool;
	u32 nchunks;
	u32 nempty;
	u32 navail;			/* chunks on @avail */
	/* Randomized placement (dp_random_staged_take()). */
	u32 rwidth;
	u64 rbits;
	u64 rng;
	/*
	 * Sampled poison: the owner's frees until the next one that poisons
	 * its block whole (dp_heap_sample_whole()).
	 */
	u32 sample_left;
	struct dp_quarantine q;
	struct dp_heap *pnext;		/* every heap of the pool (lock) */
	struct dp_heap *onext;		/* the pool's orphans (lock) */
	struct dp_mag_ent mag[DP_MAG_SIZE];
	/*
	 * Chunks with remote frees (atomic): other contexts push here, so it
	 * has a line of its own, away from the owner's fields above (the
	 * struct's alignment pads the rest of the line).
	 */
	struct dp_chunk *remote __aligned(64);
};

void dp_heap_init(struct dp_heap *h, struct dmapool *pool, uintptr_t self);
/* The heap's quarantine ring (pools with quarantine); 0 or -1 (OOM). */
int dp_heap_ring_alloc(struct dp_heap *h, dmapool_gfp_t gfp);
void dp_heap_ring_free(struct dp_heap *h);

/*
 * Stage the next word with a free block, of the staged chunk or the next
 * one listed: false when the heap has none (then the slow path refills or
 * grows).
 */
bool dp_heap_restage(struct dp_heap *h);
/*
 * The same for pools whose allocations have byte steps (pool.h,
 * alloc_stepped): the word staged in @swp, the fast path's left empty.
 */
bool dp_heap_restage_stepped(struct dp_heap *h);
/* A free block for the caller; false when the heap has none. */
bool dp_heap_take(struct dp_heap *h, struct dp_chunk **c, u32 *pos);
/*
 * Random pools (alloc_random, and dp_heap_take() for them): draw a chunk
 * and a word of it with a free block and stage them for a run of random
 * takes (dp_random_staged_take()); false when the heap has no free block
 * listed.
 */
bool dp_heap_restage_random(struct dp_heap *h);
/* The staged word when nothing is (the fast path finds it empty). */
extern u64 dp_zero_word;
/* What dp_owner_heap_fast() gives a context without a heap (os.h). */
extern struct dp_heap dp_heap_none;
/*
 * Find free blocks without growing: quarantined blocks whose epoch passed,
 * remote frees, kept empty chunks.  True when the heap has a free block.
 * *@release: a chunk to hand to dp_supply_release() once unpinned.
 */
bool dp_heap_refill(struct dp_heap *h, struct dp_chunk **release);

/*
 * The owner disposes of a block it claimed: into quarantine or back to the
 * free map.  *@release (if NULL on entry, may be set): a chunk that emptied
 * and that automatic shrink gives back.
 */
void dp_heap_give(struct dp_heap *h, struct dp_chunk *c, u32 pos,
		  struct dp_chunk **release);
/*
 * For the fast free path, once per chunk per fill: @c's first free block
 * came back.  (The fast alloc path leaves a chunk it filled listed: the
 * next dp_heap_take() moves it off.)
 */
void dp_heap_relist(struct dp_heap *h, struct dp_chunk *c);

/*
 * The owner's claimed block @pos (at @off) of its full chunk @c onto the
 * magazine, when it has room (a pool that uses it, and a chunk not listed:
 * the caller knows); false otherwise, and nothing changed.
 */
static __always_inline bool dp_heap_mag_push(struct dp_heap *h,
					     struct dp_chunk *c, u32 pos,
					     u32 off)
{
	const u32 n = h->nmag;
	struct dp_mag_ent *e = &h->mag[n];

	if (n == DP_MAG_SIZE)
		return false;
	e->c = c;
	e->pos = pos;
	e->off = off;
	h->nmag = n + 1;
	return true;
}

/* The magazine's most recent block (it has one), taken. */
static __always_inline struct dp_mag_ent *dp_heap_mag_pop(struct dp_heap *h)
{
	return &h->mag[--h->nmag];
}

/*
 * Another context's free of a block it claimed and did the byte work of:
 * pending, and published to the owner (remote.c).
 */
void dp_heap_remote_free(struct dp_chunk *c, u32 pos);
/*
 * The same for a block whose claim made it pending already
 * (dp_state_claim_remote(), block.h).
 */
void dp_remote_publish(struct dp_chunk *c, u32 pos);
/*
 * The owner: the blocks of region @r of @c that other contexts freed (its
 * bit was in the remote words it just exchanged), no longer pending; their
 * bits of free-map word @r * DP_REMOTE_REGION / 64 returned.
 */
u64 dp_remote_collect_region(struct dp_chunk *c, u32 r, u32 nstate);
/*
 * A bulk free's remote blocks, pending (claimed with
 * dp_state_claim_remote()) and not yet published (free.c,
 * dmapool_free_bulk()): regions @bits of remote word @k of @c, published
 * together when the next block is of another word and before the call
 * returns.  The owner may find them before that (remote.c).
 */
struct dp_remote_run {
	struct dp_chunk *c;
	u32 k;
	u64 bits;
};

void dp_remote_run_flush(struct dp_remote_run *r);

static inline void dp_remote_run_add(struct dp_remote_run *r,
				     struct dp_chunk *c, u32 pos)
{
	const u32 region = pos / DP_REMOTE_REGION;

	if (r->bits && (r->c != c || r->k != region / 64))
		dp_remote_run_flush(r);
	r->c = c;
	r->k = region / 64;
	r->bits |= (u64)1 << (region % 64);
}

/*
 * Sampled poison, the owner's free: is this one poisoned whole?  A
 * countdown, drawn again from the heap's generator each time it runs out,
 * uniform in 1..2N-1 (N = opts.poison_sample; with 1, every free): one
 * free in N on average, and which ones a device cannot tell from the
 * blocks' addresses or generations.  Frees by other contexts decide with
 * dp_harden_sampled_whole() instead (they may not touch this heap).
 */
u32 dp_heap_sample_draw(struct dp_heap *h);

static __always_inline bool dp_heap_sample_whole(struct dp_heap *h)
{
	if (DP_LIKELY(--h->sample_left))
		return false;
	h->sample_left = dp_heap_sample_draw(h);
	return true;
}

/* Release quarantined blocks older than the pool's epoch (all: @all). */
void dp_heap_quiesce(struct dp_heap *h, bool all,
		     struct dp_chunk **release);

/* Make @c (empty, no heap's) this heap's. */
void dp_heap_adopt_chunk(struct dp_heap *h, struct dp_chunk *c);
/* Take @c (empty) out of this heap. */
void dp_heap_detach_chunk(struct dp_heap *h, struct dp_chunk *c);
/* The chunks of @h now belong to the context @self (or a marker). */
void dp_heap_set_owner(struct dp_heap *h, uintptr_t self,
		       struct dp_chunk **release);
/*
 * The empty chunks of @h beyond *@keep (which counts down), detached, on a
 * list through pnext.
 */
struct dp_chunk *dp_heap_detach_empty(struct dp_heap *h, size_t *keep);

/* ---- randomized placement ----------------------------------------------- */

/*
 * The heap's generator: splitmix64 (Steele, Lea and Flood, 2014), a 64-bit
 * counter run through a mixing function: no division, no floating point,
 * the same in the kernel.  Not a cryptographic generator: a device sees
 * only the addresses it is given, never the state.
 */
static inline u64 dp_rand_next(u64 *state)
{
	u64 z = *state += 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* @r (32 random bits) scaled to 0..n-1: a multiply and a shift, no modulo. */
static inline u32 dp_rand_scale(u32 r, u32 n)
{
	return (u32)(((u64)r * n) >> 32);
}

/*
 * The first set bit of @x (not 0) at or after bit @r (< 64), wrapping
 * around: a rotation and a find-first-set.  A set bit is chosen for every
 * @r in the run of clear bits before it and for its own, so with @r
 * uniform below @n (and no bit of @x at or above @n) each is chosen with
 * probability at least 1 / @n.
 */
static inline u32 dp_bit_from(u64 x, u32 r)
{
	const u64 t = x >> r | x << ((64 - r) & 63);

	return (r + dp_os_ctz64(t)) & 63;
}

/*
 * Randomized placement takes from a staged word too (@swp, @cur, @base),
 * drawn at random with its chunk by dp_heap_restage_random() for a run of
 * allocations, each a random free block of that word: the first set bit
 * at or after a uniform position below @rwidth (the positions the word
 * has), from the next 6 bits of @rbits.  Above the run's takes @rbits has
 * one bit set, so it is 1 when the run is over.  The chunk's summary is
 * kept exact.  (The word has a free block, and the run is not over.)
 */
static inline u32 dp_random_staged_take(struct dp_heap *h)
{
	u64 word = *h->swp;
	const u32 b = dp_bit_from(word, ((u32)(h->rbits & 63) *
					  h->rwidth) >> 6);

	h->rbits >>= 6;
	word &= ~((u64)1 << b);
	*h->swp = word;
	if (!word)
		h->cur->summary &= ~((u64)1 << (h->base / 64));
	return h->base + b;
}

/* Is the random pool's run over, or its word empty? */
static inline bool dp_random_run_over(const struct dp_heap *h)
{
	return !*h->swp || h->rbits <= 1;
}

/*
 * The longest run of allocations a random pool's heap takes from one drawn
 * word (6-bit takes of @rbits below its end bit); a run never takes more than
 * half the free blocks the word had when drawn.
 */
#define DP_RANDOM_RUN	10u

#if DP_HAVE_HARDEN
/*
 * placement.c: a random chunk among the first ones of @list, which holds
 * @n >= 1 chunks, from 16 random bits.
 */
struct dp_chunk *dp_random_chunk(struct dp_chunk *list, u32 n, u32 r);
#else
/*
 * Without the hardening options placement.c is not built and DP_STEP_RANDOM
 * is 0, so this is never called; were it, the first chunk is a valid (if
 * predictable) choice.
 */
static inline struct dp_chunk *dp_random_chunk(struct dp_chunk *list, u32 n,
					       u32 r)
{
	return list;
}
#endif

#endif /* DMAPOOL_HEAP_H */
