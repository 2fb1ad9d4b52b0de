// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Remote frees.  A context that frees a block of another heap's chunk has
 * claimed the block's state word (block.h) and done its byte work; it then
 * sets the block's bit in the chunk's remote words and makes sure the chunk
 * is on the owning heap's remote stack:
 *
 *   freer:  h = c->heap; fetch_or(words[w], bit); if (!queued &&
 *           !xchg(queued, 1)) push c onto h->remote
 *   owner:  list = xchg(h->remote, NULL); for each c: xchg(queued, 0), then
 *           xchg(words[w], 0) for each word with a bit, into the free map
 *
 * queued is cleared before the words are read, and set before it is read,
 * all fully ordered (the reads after a full barrier: DP_READ_ORDERED), so
 * a bit set after the owner read its word finds queued clear and queues the
 * chunk again: no bit is left behind, and a batch of frees into one chunk
 * writes queued once.  The stack is only pushed (a CAS on
 * its head) and emptied whole (an exchange), so it has no ABA problem.  A
 * live chunk never changes heaps (a thread's heap is adopted whole when the
 * thread exits), so c->heap is stable while a block is claimed.  A freer
 * delayed between its two steps may queue a chunk whose block the owner
 * already collected, and that has since emptied and been released: the
 * owner skips it (its heap is gone), and a released record is reused only
 * once it is off every stack (supply.c).
 *
 * This file is the freer's half; the owner's (collect()) is in heap.c.
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

static void remote_free_word(struct dp_chunk *c, u32 w, u64 bits)
{
	struct dp_heap *h = DP_READ_ONCE(c->heap);

	DP_FETCH_OR(&c->rem->words[w], bits);
	queue_on(h, c);
}

void dp_heap_remote_free(struct dp_chunk *c, u32 pos)
{
	remote_free_word(c, pos / 64, (u64)1 << (pos % 64));
}

/* A bulk free's run: the blocks of one word at once (heap.h). */
void dp_remote_run_flush(struct dp_remote_run *r)
{
	if (r->bits) {
		remote_free_word(r->c, r->w, r->bits);
		r->bits = 0;
	}
}
