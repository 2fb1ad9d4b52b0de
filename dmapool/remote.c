// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Remote frees.  A context that frees a block of another heap's chunk has
 * set DP_ST_PENDING in the block's state word (block.h: with its claim, one
 * compare-and-exchange, or after its byte work), then makes sure the owner
 * will look at the block's region (DP_REMOTE_REGION positions, one cache
 * line of state words) and that the chunk is on the owning heap's remote
 * stack:
 *
 *   freer:  st = PENDING (atomic); r = region; if (!(words[r/64] & bit)) {
 *           fetch_or(words[r/64], bit); if (!queued && !xchg(queued, 1))
 *           push c onto h->remote }
 *   owner:  list = xchg(h->remote, NULL); for each c: xchg(queued, 0), then
 *           xchg(words[k], 0) for each word with a bit, and for each region
 *           marked, the states with DP_ST_PENDING into the free map
 *
 * Every step is fully ordered (the reads after a full barrier:
 * DP_READ_ORDERED), so a freer that finds its region's bit set read it
 * before the owner's exchange cleared it, and the owner's look through the
 * region, after that exchange, sees the pending state set before that read;
 * a freer that finds it clear sets it and queues the chunk as the words
 * themselves were queued before: queued is cleared before the words are
 * read, and set before it is read, so a bit set after the owner read its
 * word finds queued clear and queues the chunk again.  A busy region costs
 * its freers one atomic each, the claim, and a plain read; only the first
 * free into a region after a collection writes the word.  The stack is only
 * pushed (a CAS on its head) and emptied whole (an exchange), so it has no
 * ABA problem.  A live chunk never changes heaps (a thread's heap is
 * adopted whole when the thread exits), so c->heap is stable while a block
 * is claimed.  A freer delayed between its steps may queue a chunk whose
 * block the owner already collected (it found the pending state early),
 * and that has since emptied and been released: it finds no heap and
 * queues nothing (mark()), an owner that finds such a chunk on its stack
 * skips it, and a released record is reused only once it is off every
 * stack (supply.c).
 *
 * This file is the freer's half and the owner's look at a region's state
 * words; the rest of the owner's (collect()) is in heap.c.
 */
#include "pool.h"

static void queue_on(struct dp_heap *h, struct dp_chunk *c)
{
	void *old;

	/*
	 * Queued already (the usual case of a batch): nothing to write.  Our
	 * fetch_or comes before this read, and the owner's exchange of
	 * queued before its read of the words, all fully ordered: if this
	 * read still sees queued set, the owner's read of the word comes
	 * after our bit.
	 */
	if (DP_READ_ORDERED(c->rem->queued) || DP_XCHG(&c->rem->queued, 1))
		return;
	for (;;) {
		old = DP_READ_ONCE(h->remote);
		c->rem->next = old;
		if (dp_os_cmpxchg_ptr((void **)&h->remote, old, c))
			return;
	}
}

#ifdef DP_TEST_HOOKS
/*
 * Tests only (a core built with -DDP_TEST_HOOKS, tests/meson.build): called
 * by every freer between its claim and its mark, so that a test can hold
 * one freer there while others free and the owner collects.
 */
void (*dp_test_before_mark)(struct dp_chunk *c);

static inline void before_mark(struct dp_chunk *c)
{
	if (dp_test_before_mark)
		dp_test_before_mark(c);
}
#else
static inline void before_mark(struct dp_chunk *c)
{
	(void)c;
}
#endif

/*
 * Mark regions @bits of @c's remote word @w, and queue @c for its owner.
 * No heap: the chunk was released (supply.c, retire()) while this freer
 * was between its claim and here, which needs the owner to have taken our
 * block already (it found the pending state through another freer's mark
 * of the region) and the chunk to have emptied since.  Nothing is left to
 * queue, and a reused record starts with its words cleared (chunk.c).
 */
static __always_inline void mark(struct dp_chunk *c, u64 *w, u64 bits)
{
	struct dp_heap *h;

	before_mark(c);
	DP_FETCH_OR(w, bits);
	h = DP_READ_ONCE(c->heap);
	if (DP_LIKELY(h))
		queue_on(h, c);
}

/* Regions @bits of remote word @k of @c have pending blocks of ours. */
static void publish(struct dp_chunk *c, u32 k, u64 bits)
{
	u64 *w = &c->rem->words[k];

	/* Marked, and not yet taken by the owner: it will see our states. */
	if ((DP_READ_ORDERED(*w) & bits) == bits)
		return;
	mark(c, w, bits);
}

void dp_remote_publish(struct dp_chunk *c, u32 pos)
{
	const u32 r = pos / DP_REMOTE_REGION;
	u64 *w = &c->rem->words[r / 64];

	/* publish() for one region: its bit tested alone (x86: one bt). */
	if ((DP_READ_ORDERED(*w) >> (r % 64)) & 1)
		return;
	mark(c, w, (u64)1 << (r % 64));
}

void dp_remote_run_flush(struct dp_remote_run *r)
{
	if (r->bits) {
		publish(r->c, r->k, r->bits);
		r->bits = 0;
	}
}

void dp_heap_remote_free(struct dp_chunk *c, u32 pos)
{
	/*
	 * Claimed (only failing claims can touch the word, and they leave
	 * it as it is), its byte work done: pending from this instant.
	 */
	DP_FETCH_OR(&c->st[pos], DP_ST_PENDING);
	dp_remote_publish(c, pos);
}

/*
 * The owner's look through a marked region (collect(), heap.c).  Only
 * failing claims can touch a pending state word meanwhile, and they leave
 * it as it is.
 */
u64 dp_remote_collect_region(struct dp_chunk *c, u32 r, u32 nstate)
{
	u32 pos = r * DP_REMOTE_REGION;
	const u32 end = nstate - pos < DP_REMOTE_REGION ? nstate :
			pos + DP_REMOTE_REGION;
	u64 bits = 0;

	for (; pos < end; pos++) {
		const u32 s = DP_READ_ORDERED(c->st[pos]);

		if (s & DP_ST_PENDING) {
			DP_WRITE_ONCE(c->st[pos], s & ~DP_ST_PENDING);
			bits |= (u64)1 << (pos % 64);
		}
	}
	return bits;
}
