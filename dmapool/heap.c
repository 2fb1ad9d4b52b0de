// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Heaps (see heap.h): taking and giving back blocks as their owner,
 * quarantine, and collecting remote frees (the protocol and the freer's
 * half are in remote.c).
 */
#include "pool.h"

static void clist_push(struct dp_chunk **head, struct dp_chunk *c)
{
	c->prev = NULL;
	c->next = *head;
	if (*head)
		(*head)->prev = c;
	*head = c;
}

static void clist_del(struct dp_chunk **head, struct dp_chunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		*head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->next = NULL;
	c->prev = NULL;
}

static void unstage(struct dp_heap *h);

static uintptr_t fast_token(const struct dp_heap *h)
{
	/* Markers (shared, orphan) have odd values: never a context's. */
	return h->pool->fast_free && !(h->self & 1) ? h->self : DP_OWNER_NONE;
}

/*
 * The avail list: chunks with a free block.  Only a listed chunk's frees
 * may take the fast path (fast_owner), which puts the block back into
 * the free map; a full chunk's go to the magazine (dp_heap_mag_push()).
 */
static void avail_add(struct dp_heap *h, struct dp_chunk *c)
{
	clist_push(&h->avail, c);
	h->navail++;
	DP_WRITE_ONCE(c->listed, DP_LISTED_AVAIL);
	DP_WRITE_ONCE(c->fast_owner, fast_token(h));
}

static void avail_del(struct dp_heap *h, struct dp_chunk *c)
{
	DP_WRITE_ONCE(c->fast_owner, DP_OWNER_NONE);
	clist_del(&h->avail, c);
	h->navail--;
	DP_WRITE_ONCE(c->listed, DP_LISTED_NONE);
}

/* Take @c off whichever list it is on (and out of the staged word). */
static void unlist(struct dp_heap *h, struct dp_chunk *c)
{
	if (h->cur == c)
		unstage(h);
	if (c->listed == DP_LISTED_AVAIL) {
		avail_del(h, c);
	} else if (c->listed == DP_LISTED_EMPTY) {
		clist_del(&h->empty, c);
		h->nempty--;
		DP_WRITE_ONCE(c->listed, DP_LISTED_NONE);
	}
}

/* What the staged word points at when nothing is staged. */
u64 dp_zero_word;
/*
 * A heap with no block: the owners' slots hold it until a context has a
 * heap (os.h), so the fast path finds an empty staged word, not NULL.
 */
struct dp_heap dp_heap_none = {
	.wp = &dp_zero_word, .swp = &dp_zero_word,
	.self = DP_OWNER_NONE,
};

static void unstage(struct dp_heap *h)
{
	h->wp = &dp_zero_word;
	h->swp = &dp_zero_word;
	h->cur = NULL;
}

void dp_heap_init(struct dp_heap *h, struct dmapool *pool, uintptr_t self)
{
	dp_os_memset(h, 0, sizeof(*h));
	h->pool = pool;
	h->self = self;
	unstage(h);
	/* Distinct generators, the same ones for the same seed. */
	h->rng = pool->seed +
		 DP_FETCH_ADD(&pool->heap_serial, 1) * 0x9e3779b97f4a7c15ull;
	/* Other pools never count down (nor draw from the generator). */
	if (pool->steps & DP_STEP_SAMPLED)
		h->sample_left = dp_heap_sample_draw(h);
}

u32 dp_heap_sample_draw(struct dp_heap *h)
{
	u32 n = h->pool->poison_sample;

	/* 0 (not sampled: never asked) as 1; 2N - 1 kept in 32 bits. */
	n = n ? (n > (1u << 31) ? 1u << 31 : n) : 1;
	return 1 + dp_rand_scale((u32)dp_rand_next(&h->rng), 2 * n - 1);
}

int dp_heap_ring_alloc(struct dp_heap *h, dmapool_gfp_t gfp)
{
	struct dp_quarantine *q = &h->q;

	if (!(h->pool->steps & DP_STEP_QUARANTINE))
		return 0;
	q->max = h->pool->quarantine_max;
	q->ring = dp_os_host_alloc(q->max * sizeof(*q->ring), gfp);
	q->end = q->ring ? q->ring + q->max : NULL;
	q->head = q->ring;
	return q->ring ? 0 : -1;
}

void dp_heap_ring_free(struct dp_heap *h)
{
	if (h->q.ring)
		dp_os_host_free(h->q.ring, h->q.max * sizeof(*h->q.ring));
	h->q.ring = NULL;
}

/*
 * The first chunk with a free block.  The fast path leaves words it emptied
 * marked in the summary (and chunks it filled listed): fix those on the way.
 */
static struct dp_chunk *first_free(struct dp_heap *h)
{
	struct dp_chunk *c;

	while ((c = h->avail)) {
		u64 s = c->summary;

		while (s && !c->map[dp_os_ctz64(s)])
			s &= s - 1;
		c->summary = s;
		if (s)
			return c;
		if (h->cur == c)
			unstage(h);
		avail_del(h, c);
	}
	return NULL;
}

/* Stage the first word with free blocks; false when there is none. */
static bool stage(struct dp_heap *h)
{
	struct dp_chunk *c = first_free(h);
	u32 w;

	if (!c)
		return false;
	w = dp_os_ctz64(c->summary);
	h->wp = &c->map[w];
	h->cur = c;
	h->base = w * 64;
	return true;
}

static bool restage(struct dp_heap *h)
{
	struct dp_chunk *c = h->cur;
	u64 s;

	if (DP_LIKELY(c)) {
		/* The word the fast path emptied, and any empty after it. */
		s = c->summary;
		while (s && !c->map[dp_os_ctz64(s)])
			s &= s - 1;
		c->summary = s;
		if (DP_LIKELY(s)) {
			h->base = dp_os_ctz64(s) * 64;
			h->wp = &c->map[h->base / 64];
			return true;
		}
		/* Full: off the list (the fast path left it there). */
		if (c->listed == DP_LISTED_AVAIL)
			avail_del(h, c);
	}
	/* The next chunk: the head, if its first marked word has blocks. */
	c = h->avail;
	if (DP_LIKELY(c && c->summary &&
		      c->map[dp_os_ctz64(c->summary)])) {
		h->cur = c;
		h->base = dp_os_ctz64(c->summary) * 64;
		h->wp = &c->map[h->base / 64];
		return true;
	}
	return stage(h);
}

bool dp_heap_restage(struct dp_heap *h)
{
	/* Pools whose allocations have steps never stage for the fast path. */
	if (DP_UNLIKELY(!h->pool->fast_alloc))
		return false;
	return restage(h);
}

bool dp_heap_restage_stepped(struct dp_heap *h)
{
	bool ok = restage(h);

	/* The word is the stepped path's: the fast path still sees none. */
	h->swp = ok ? h->wp : &dp_zero_word;
	h->wp = &dp_zero_word;
	return ok;
}

/*
 * Random pools keep their summaries exact (every take is
 * dp_random_staged_take()) and no full chunk on their list but the drawn
 * one, which a take may have filled: off the list before a draw walks it.
 */
static struct dp_chunk *random_list(struct dp_heap *h)
{
	struct dp_chunk *c = h->cur;

	if (c && !c->summary && c->listed == DP_LISTED_AVAIL)
		avail_del(h, c);
	return h->avail;
}

bool dp_heap_take(struct dp_heap *h, struct dp_chunk **cp, u32 *pos)
{
	struct dp_chunk *c;
	u64 word;

	if (h->nmag) {
		const struct dp_mag_ent *e = dp_heap_mag_pop(h);

		*cp = e->c;
		*pos = e->pos;
		return true;
	}
	if (h->pool->fast_alloc) {
		if (!*h->wp && !stage(h))
			return false;
		word = *h->wp;
		*pos = h->base + dp_os_ctz64(word);
		*h->wp = word & (word - 1);
		*cp = h->cur;
		return true;
	}
	if (h->pool->steps & DP_STEP_RANDOM) {
		if (dp_random_run_over(h) && !dp_heap_restage_random(h))
			return false;
		*cp = h->cur;
		*pos = dp_random_staged_take(h);
		return true;
	}
	c = first_free(h);
	if (!c)
		return false;
	*pos = dp_block_take_first(c);
	if (!dp_block_any_free(c))
		avail_del(h, c);
	*cp = c;
	return true;
}

bool dp_heap_restage_random(struct dp_heap *h)
{
	const struct dp_geometry *g = &h->pool->geo;
	struct dp_chunk *c = random_list(h);
	u32 w, left, run;
	u64 z;

	if (!c)
		return false;
	/* The chunk from the top 32 bits of one draw, the word from the rest. */
	z = dp_rand_next(&h->rng);
	c = dp_random_chunk(c, h->navail, (u32)(z >> 32));
	w = dp_bit_from(c->summary, dp_rand_scale((u32)z, g->nwords));
	left = g->nbits - w * 64;
	run = (dp_os_popcount64(c->map[w]) + 1) / 2;
	if (run > DP_RANDOM_RUN)
		run = DP_RANDOM_RUN;
	h->cur = c;
	h->swp = &c->map[w];
	h->base = w * 64;
	h->rwidth = left < 64 ? left : 64;
	/* @run random 6-bit takes, and the bit that ends the run above them. */
	h->rbits = (dp_rand_next(&h->rng) & (((u64)1 << (6 * run)) - 1)) |
		   (u64)1 << (6 * run);
	return true;
}

/*
 * @c just became empty in an auto-shrink pool.  It is kept (its lines are
 * hot, and a second free of its last block is still a double free); the
 * oldest kept chunk beyond the reserve goes back.
 */
static void emptied(struct dp_heap *h, struct dp_chunk *c,
		    struct dp_chunk **release)
{
	struct dp_chunk *old;

	unlist(h, c);
	clist_push(&h->empty, c);
	DP_WRITE_ONCE(c->listed, DP_LISTED_EMPTY);
	h->nempty++;
	while (h->nempty > h->pool->reserve) {
		for (old = h->empty; old->next; old = old->next)
			;
		dp_heap_detach_chunk(h, old);
		old->pnext = *release;
		*release = old;
	}
}

/* The free map of @c gained blocks (@was_full: it had none before). */
static void after_put(struct dp_heap *h, struct dp_chunk *c, bool was_full,
		      struct dp_chunk **release)
{
	const struct dmapool *pool = h->pool;

	if (was_full && c->listed == DP_LISTED_NONE)
		avail_add(h, c);
	if ((pool->steps & DP_STEP_AUTO_SHRINK) &&
	    c->listed == DP_LISTED_AVAIL &&
	    dp_block_all_free(c, pool->full_map, pool->geo.nwords))
		emptied(h, c, release);
}

/* The owner's block back: the magazine when @c is full, or its free map. */
static void put(struct dp_heap *h, struct dp_chunk *c, u32 pos,
		struct dp_chunk **release)
{
	const struct dmapool *pool = h->pool;

	if (c->listed == DP_LISTED_NONE && pool->mag &&
	    dp_heap_mag_push(h, c, pos, (u32)dp_geo_offset(&pool->geo, pos)))
		return;
	after_put(h, c, dp_block_put(c, pos), release);
}

void dp_heap_relist(struct dp_heap *h, struct dp_chunk *c)
{
	if (c->listed == DP_LISTED_NONE)
		avail_add(h, c);
}

/* The magazine's blocks into their free maps (shrink looks at the maps). */
static void mag_flush(struct dp_heap *h, struct dp_chunk **release)
{
	while (h->nmag) {
		const struct dp_mag_ent *e = dp_heap_mag_pop(h);

		after_put(h, e->c, dp_block_put(e->c, e->pos), release);
	}
}

/* ---- quarantine --------------------------------------------------------- */

static void release_oldest(struct dp_heap *h, struct dp_chunk **release)
{
	struct dp_quarantine *q = &h->q;
	struct dp_qent e = *q->head;

	if (++q->head == q->end)
		q->head = q->ring;
	DP_WRITE_ONCE(q->count, q->count - 1);
	put(h, e.c, e.pos, release);
}

/* Into the ring; room was made.  Stamped with the epoch it went in at. */
static void quarantine_push(struct dp_quarantine *q, struct dp_chunk *c,
			    u32 pos, u32 now)
{
	struct dp_qent *e = q->head + q->count;

	if (e >= q->end)
		e -= q->max;
	e->c = c;
	e->pos = pos;
	e->epoch = now;
	DP_WRITE_ONCE(q->count, q->count + 1);
}

static void quarantine_add(struct dp_heap *h, struct dp_chunk *c,
			   u32 pos, struct dp_chunk **release)
{
	struct dp_quarantine *q = &h->q;

	if (q->count == q->max) {
		release_oldest(h, release);
		DP_COUNT_ONCE64(q->forced);
	}
	quarantine_push(q, c, pos, DP_READ_ONCE(h->pool->qepoch));
}

void dp_heap_quiesce(struct dp_heap *h, bool all, struct dp_chunk **release)
{
	struct dp_quarantine *q = &h->q;
	u32 now = DP_READ_ONCE(h->pool->qepoch);

	while (q->count &&
	       (all || (int32_t)(q->head->epoch - now) < 0))
		release_oldest(h, release);
}

void dp_heap_give(struct dp_heap *h, struct dp_chunk *c, u32 pos,
		  struct dp_chunk **release)
{
	struct dp_quarantine *q = &h->q;
	struct dp_qent *e, old;
	u32 now;

	if (DP_LIKELY(!(h->pool->steps & DP_STEP_QUARANTINE))) {
		put(h, c, pos, release);
		return;
	}
	now = DP_READ_ONCE(h->pool->qepoch);
	e = q->head;
	if (DP_LIKELY(q->count == q->max &&
		      (int32_t)(e->epoch - now) >= 0)) {
		/*
		 * Full, and the oldest still waits for a quiesce: it is pushed
		 * out (forced, counted) and the new one takes its slot, which
		 * is the tail of a full ring.  One read, one write.
		 */
		old = *e;
		e->c = c;
		e->pos = pos;
		e->epoch = now;
		if (++q->head == q->end)
			q->head = q->ring;
		DP_COUNT_ONCE64(q->forced);
		put(h, old.c, old.pos, release);
		return;
	}
	/* What a quiesce let go, then room for this one. */
	dp_heap_quiesce(h, false, release);
	if (q->count == q->max) {
		DP_COUNT_ONCE64(q->forced);
		release_oldest(h, release);
	}
	quarantine_push(q, c, pos, now);
}

/* ---- remote frees ------------------------------------------------------- */

/* @bits of free-map word @w of @c came back from other contexts. */
static void collected(struct dp_heap *h, struct dp_chunk *c, u32 w, u64 bits,
		      struct dp_chunk **release)
{
	if (h->pool->steps & DP_STEP_QUARANTINE) {
		while (bits) {
			u32 b = dp_os_ctz64(bits);

			bits &= bits - 1;
			quarantine_add(h, c, w * 64 + b, release);
		}
		return;
	}
	after_put(h, c, dp_block_put_bits(c, w, bits), release);
}

static void collect(struct dp_heap *h, struct dp_chunk **release)
{
	struct dp_chunk *c, *next;
	const u32 nstate = h->pool->geo.nstate;
	const u32 nrem = dp_remote_nwords(&h->pool->geo);

	if (!DP_READ_ONCE(h->remote))
		return;
	for (c = DP_XCHG(&h->remote, NULL); c; c = next) {
		u32 k;

		next = c->rem->next;
		DP_XCHG(&c->rem->queued, 0);
		if (c->heap != h)
			continue;	/* released since: nothing to collect */
		for (k = 0; k < nrem; k++) {
			u64 regions, bits = 0;
			u32 w = 0;

			if (!DP_READ_ORDERED(c->rem->words[k]))
				continue;
			regions = DP_XCHG(&c->rem->words[k], 0);
			/* Regions in order: those of one map word together. */
			while (regions) {
				const u32 r = k * 64 + dp_os_ctz64(regions);
				const u32 rw = r * DP_REMOTE_REGION / 64;

				regions &= regions - 1;
				if (bits && rw != w) {
					collected(h, c, w, bits, release);
					bits = 0;
				}
				w = rw;
				bits |= dp_remote_collect_region(c, r, nstate);
			}
			if (bits)
				collected(h, c, w, bits, release);
		}
	}
}

bool dp_heap_refill(struct dp_heap *h, struct dp_chunk **release)
{
	struct dp_chunk *c;

	if (h->pool->steps & DP_STEP_QUARANTINE)
		dp_heap_quiesce(h, false, release);
	collect(h, release);
	if (first_free(h))
		return true;
	c = h->empty;
	if (!c)
		return false;
	unlist(h, c);
	avail_add(h, c);
	return true;
}

/* ---- chunks changing hands ---------------------------------------------- */

void dp_heap_adopt_chunk(struct dp_heap *h, struct dp_chunk *c)
{
	DP_WRITE_ONCE(c->heap, h);
	DP_WRITE_ONCE(c->owner, h->self);
	c->hprev = NULL;
	c->hnext = h->chunks;
	if (h->chunks)
		h->chunks->hprev = c;
	h->chunks = c;
	h->nchunks++;
	DP_WRITE_ONCE(c->listed, DP_LISTED_NONE);
	/* Last: the fast path may now treat the chunk as the owner's. */
	if (dp_block_any_free(c))
		avail_add(h, c);
}

void dp_heap_detach_chunk(struct dp_heap *h, struct dp_chunk *c)
{
	DP_WRITE_ONCE(c->fast_owner, DP_OWNER_NONE);
	if (h->cur == c)
		unstage(h);
	unlist(h, c);
	if (c->hprev)
		c->hprev->hnext = c->hnext;
	else
		h->chunks = c->hnext;
	if (c->hnext)
		c->hnext->hprev = c->hprev;
	c->hnext = NULL;
	c->hprev = NULL;
	h->nchunks--;
	DP_WRITE_ONCE(c->owner, DP_OWNER_NONE);
}

void dp_heap_set_owner(struct dp_heap *h, uintptr_t self,
		       struct dp_chunk **release)
{
	struct dp_chunk *c;

	h->self = self;
	for (c = h->chunks; c; c = c->hnext) {
		DP_WRITE_ONCE(c->owner, self);
		DP_WRITE_ONCE(c->fast_owner, c->listed == DP_LISTED_AVAIL ?
					     fast_token(h) : DP_OWNER_NONE);
	}
}

struct dp_chunk *dp_heap_detach_empty(struct dp_heap *h, size_t *keep)
{
	const struct dmapool *pool = h->pool;
	struct dp_chunk *c, *next, *list = NULL;

	mag_flush(h, &list);
	for (c = h->chunks; c; c = next) {
		next = c->hnext;
		if (c->listed == DP_LISTED_NONE ||
		    !dp_block_all_free(c, pool->full_map, pool->geo.nwords))
			continue;
		if (*keep) {
			(*keep)--;
			continue;
		}
		dp_heap_detach_chunk(h, c);
		c->pnext = list;
		list = c;
	}
	return list;
}
