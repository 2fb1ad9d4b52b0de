// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Randomized placement (DMAPOOL_OPT_RANDOM): which free block an alloc gets
 * is drawn from the heap's generator, so a device cannot predict the next
 * address a driver will hand it and plant data there in advance.
 *
 * The chunk is drawn uniformly from the first DP_RANDOM_WINDOW chunks of the
 * heap's list (walking all of them would make alloc O(chunks)): draw k below
 * the window and walk k steps; if the list ends first, its length n is now
 * known and k is drawn again below n.  Each of n < window chunks is then
 * chosen with probability 1/window + (window - n)/window * 1/n = 1/n, and
 * a long list costs one walk of k steps, not a count and a walk.  The block:
 * a word of that chunk's free map with a free block, then a free block of
 * the word (random_free).  When the pool has no more than DP_RANDOM_WINDOW
 * chunks with free blocks and their words are equally free, every free
 * block is equally likely.
 *
 * Bit counting is done by hand (SWAR), not with __builtin_popcountll: without
 * a popcount instruction in the target flags that builtin is a call into
 * libgcc, which is slow here and does not exist in the kernel.
 *
 * The generator is splitmix64 (Steele, Lea and Flood, 2014): a 64-bit
 * counter run through a mixing function, no division, no floating point, so
 * it is the same in the kernel.  A range is taken with a multiply and a
 * shift (no modulo: a 64-bit division is a library call on 32-bit kernels);
 * its bias is below n / 2^32.  It is not a cryptographic generator: a device
 * sees only the addresses it is given, never the state.
 */
#include "heap.h"

/*
 * Chunks considered (the head of the heap's list of chunks with a free
 * block): walking all of them would make alloc O(chunks).
 */
#define DP_RANDOM_WINDOW	16u

u64 dp_rand_next(u64 *state)
{
	u64 z = *state += 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

u32 dp_rand_below(u64 *state, u32 n)
{
	return (u32)(((dp_rand_next(state) >> 32) * n) >> 32);
}

#define BYTES_ONE	0x0101010101010101ull

/* Each byte of the result: the number of bits set in that byte of @x. */
static u64 byte_counts(u64 x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	return (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
}

static u32 popcount64(u64 x)
{
	return (u32)((byte_counts(x) * BYTES_ONE) >> 56);
}

/* Position of the @k-th (from 0) set bit of @x, which has more than @k. */
static u32 select64(u64 x, u32 k)
{
	/* Byte i of prefix: bits set in bytes 0..i (at most 64: no carry). */
	const u64 prefix = byte_counts(x) * BYTES_ONE;
	/*
	 * The byte holding the bit is the number of bytes whose running
	 * count is <= k.  (k | 0x80) - upto_i keeps its top bit exactly when
	 * k >= upto_i, and never borrows from the next byte (both are below
	 * 0x80): so count those top bits.
	 */
	const u64 le = ((k * BYTES_ONE) | 0x8080808080808080ull) - prefix;
	const u32 b = (u32)((((le & 0x8080808080808080ull) >> 7) *
			     BYTES_ONE) >> 56);

	if (b)
		k -= (u32)(prefix >> (8 * (b - 1))) & 0xff;
	x >>= 8 * b;
	while (k--)
		x &= x - 1;
	return 8 * b + dp_os_ctz64(x);
}

/*
 * A free block of @c (which has one), in two draws: a word of the free map
 * among those with a free block (the summary is exact in pools that never
 * stage a word: alloc.c), then a free block of that word.  Constant time,
 * whatever the chunk's size; every free block has a probability of at least
 * 1 / (64 x words with a free block), and all are equally likely when those
 * words are equally free.
 */
static u32 random_free(const struct dp_chunk *c, u64 *rng)
{
	const u64 s = c->summary;
	u32 w = s & (s - 1) ?
		     select64(s, dp_rand_below(rng, popcount64(s))) :
		     dp_os_ctz64(s);
	u64 word = c->map[w];

	return w * 64 + select64(word, dp_rand_below(rng, popcount64(word)));
}

struct dp_chunk *dp_random_pick(struct dp_chunk *list, u64 *rng,
				u32 *pos)
{
	struct dp_chunk *c = list;
	u32 n, k;

	k = dp_rand_below(rng, DP_RANDOM_WINDOW);
	for (n = 1; n <= k && c->next; n++)
		c = c->next;
	if (n <= k && n > 1) {
		/* The list holds only n chunks, fewer than the window. */
		c = list;
		for (k = dp_rand_below(rng, n); k; k--)
			c = c->next;
	}
	*pos = random_free(c, rng);
	dp_block_take(c, *pos);
	return c;
}
