// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Randomized placement (DMAPOOL_OPT_RANDOM): which free block an alloc gets
 * is drawn from the heap's generator, so a device cannot predict the next
 * address a driver will hand it and plant data there in advance.
 *
 * A heap draws a chunk and a word of its free map, then takes a run of
 * allocations from that word, each a random free block of it
 * (dp_random_staged_take(), heap.h: the first free block at or after a
 * uniform position of the word, so each free block of the word has a
 * probability of at least 1/64).  A run is at most DP_RANDOM_RUN (10)
 * allocations and never more than half the free blocks the word had when
 * drawn, so no allocation is made from a word down to its last few free
 * blocks while others of the chunk have more: each allocation has at
 * least about half the word's free blocks to choose from.
 *
 * The chunk (dp_random_chunk(), below): uniformly one of the first
 * DP_RANDOM_WINDOW chunks of the heap's list of chunks with a free block
 * (walking all of them would make alloc O(chunks)), or of all n when the
 * list is shorter (the heap counts its list): draw k below min(n, window)
 * and walk k steps.  The word: the first with a free block at or after a
 * uniform one of the chunk's map words (heap.c).
 *
 * The trade (docs/hardening.md): the old design drew chunk, word and
 * block at every allocation, at 6-8 times the default pool's cost; a run
 * costs 6 random bits per allocation and two draws and one chunk walk per
 * run, and a device that saw one address of a run knows the next is
 * within the same 64 blocks, though not which.
 *
 * The range of a draw is taken with a multiply and a shift (no modulo: a
 * 64-bit division is a library call on 32-bit kernels): its bias is below
 * n / 2^16 for the chunk (16 bits onto at most 16 chunks: none for a
 * window of 16), n / 2^32 for the word, and none for a block of a whole
 * word (6 bits onto 64 positions); a chunk's last word, if partial with
 * w positions, maps 64/w rounded up or down of the 64 values to each.
 */
#include "heap.h"

/*
 * Chunks considered (the head of the heap's list of chunks with a free
 * block): walking all of them would make alloc O(chunks).
 */
#define DP_RANDOM_WINDOW	16u
static_assert(DP_RANDOM_WINDOW <= 1u << 16, "k scales 16 random bits");

struct dp_chunk *dp_random_chunk(struct dp_chunk *list, u32 n, u32 r)
{
	struct dp_chunk *c = list;
	u32 k = ((r >> 16) * (n < DP_RANDOM_WINDOW ? n : DP_RANDOM_WINDOW)) >>
		16;

	while (k--) {
		/* The heap counts its list (heap.c): never shorter than @n. */
		if (DP_WARN_ON(!c->next))
			break;
		c = c->next;
	}
	return c;
}
