/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * A hostile device: between every pool operation it overwrites pool memory
 * with random bytes, either every byte that is not allocated (where the
 * kernel's dma_pool keeps its free list) or every byte of every chunk.  The
 * allocator must keep every invariant of DESIGN.md regardless, and must
 * never write into a block it handed out.
 */
#ifndef DMAPOOL_TC_HOSTILE_H
#define DMAPOOL_TC_HOSTILE_H

#include "tc.h"

struct tc_hostile_case {
	const char *name;
	size_t size, align, boundary;
	bool everything;	/* scribble over live blocks too */
	int steps;
};

static const struct tc_hostile_case tc_hostile_cases[] = {
	{ "free-memory-16", 16, 16, 0, false, 4000 },
	{ "free-memory-68-32-4096", 68, 32, 4096, false, 4000 },
	{ "free-memory-1024", 1024, 1024, 0, false, 3000 },
	{ "all-memory-64", 64, 64, 0, true, 4000 },
	{ "all-memory-200-8-1024", 200, 8, 1024, true, 4000 },
	{ "all-memory-4096", 4096, 4096, 0, true, 2000 },
};

#define TC_HOSTILE_LIVE		600
#define TC_HOSTILE_CHUNKS	512

struct tc_live {
	uint8_t *v;
	dmapool_dma_t d;
	struct dmapool_block b;	/* handle, when allocated by handle */
	bool by_handle;
	uint8_t tag;		/* what the driver wrote into it */
};

struct tc_world {
	struct dmapool *pool;
	struct dmapool_stats st;
	struct tc_live live[TC_HOSTILE_LIVE];
	int nlive;
	struct tc_chunk ch[TC_HOSTILE_CHUNKS];
	size_t nch;
	uint64_t rng;
};

/*
 * The device: random bytes over everything; for "free memory only" the
 * driver's live blocks are rewritten before the allocator runs again.
 */
static inline void tc_scribble(struct tc_world *w, bool everything)
{
	size_t c, off;
	int i;

	w->nch = tc_chunks(w->pool, w->ch, TC_HOSTILE_CHUNKS);
	if (w->nch > TC_HOSTILE_CHUNKS)
		w->nch = TC_HOSTILE_CHUNKS;
	for (c = 0; c < w->nch; c++)
		for (off = 0; off + 8 <= w->ch[c].len; off += 8) {
			uint64_t r = tc_rand(&w->rng);

			memcpy(w->ch[c].vaddr + off, &r, 8);
		}
	if (!everything)
		for (i = 0; i < w->nlive; i++)
			memset(w->live[i].v, w->live[i].tag, w->st.block_size);
}

/* Every invariant a fresh block must satisfy. */
static inline bool tc_check_new_block(struct tc_env *e, struct tc_world *w,
				      uint8_t *v, dmapool_dma_t d)
{
	size_t a = w->st.block_size & -w->st.block_size;
	long c;
	int i;

	c = tc_chunk_of(w->ch, w->nch, v, w->st.block_size);
	if (c < 0) {	/* a chunk that appeared with this very alloc */
		w->nch = tc_chunks(w->pool, w->ch, TC_HOSTILE_CHUNKS);
		if (w->nch > TC_HOSTILE_CHUNKS)
			w->nch = TC_HOSTILE_CHUNKS;
		c = tc_chunk_of(w->ch, w->nch, v, w->st.block_size);
	}
	TC_CHECK(e, c >= 0, "block %p outside every chunk", v);
	TC_CHECK(e, d == w->ch[c].dma + (size_t)(v - w->ch[c].vaddr),
		 "vaddr/dma mismatch");
	if (a > 64)
		a = 64;
	TC_CHECK(e, (uintptr_t)v % a == 0 && d % a == 0, "block misaligned");
	for (i = 0; i < w->nlive; i++)
		TC_CHECK(e, v + w->st.block_size <= w->live[i].v ||
			    v >= w->live[i].v + w->st.block_size,
			 "block %p overlaps the live block %p", v,
			 w->live[i].v);
	return true;
}

/*
 * The device's writes misled nobody; at most they were noticed: every
 * report is of a device kind, and the options that detect device writes
 * did (this device writes everywhere).  A redzone is checked at every free;
 * poison, full or sampled (whose head check sees every block), only when a
 * freed block is handed out again, which a run scaled down under a
 * quarantine may never do (@full: the full run).
 */
static inline bool tc_device_writes_seen(struct tc_env *e,
					 const struct dmapool *pool, bool full)
{
	struct dmapool_opts o;
	struct dmapool_stats st;
	uint64_t waf, ovr;
	bool poison;

	tc_opts(e, &o);
	poison = o.flags & (DMAPOOL_OPT_POISON | DMAPOOL_OPT_POISON_SAMPLED);
	dmapool_get_stats(pool, &st);
	waf = st.by_kind[DMAPOOL_R_DEVICE_WRITE_AFTER_FREE];
	ovr = st.by_kind[DMAPOOL_R_DEVICE_OVERRUN];
	TC_CHECK(e, st.violations == waf + ovr && e->cap.n == waf + ovr,
		 "%llu reports, %llu of device kinds (%u captured)",
		 (unsigned long long)st.violations,
		 (unsigned long long)(waf + ovr), e->cap.n);
	TC_CHECK(e, poison ? waf > 0 || !full : waf == 0,
		 "poison options %s, %llu device-write-after-free reports",
		 poison ? "on" : "off", (unsigned long long)waf);
	TC_CHECK(e, o.redzone ? ovr > 0 : ovr == 0,
		 "redzone %u, %llu device-overrun reports", o.redzone,
		 (unsigned long long)ovr);
	return true;
}

static inline bool tc_check_live_intact(struct tc_env *e,
					const struct tc_world *w)
{
	size_t k;
	int i;

	for (i = 0; i < w->nlive; i++)
		for (k = 0; k < w->st.block_size; k++)
			TC_CHECK(e, w->live[i].v[k] == w->live[i].tag,
				 "the allocator wrote into a live block");
	return true;
}

/* @div scales the steps down (a slow world, e.g. a kernel under TCG). */
static inline bool tc_hostile_run(struct tc_env *e,
				  const struct tc_hostile_case *hc, int div)
{
	struct tc_world *w = tc_zalloc(sizeof(*w));
	int step, steps = hc->steps / (div > 0 ? div : 1), i;

	TC_CHECK(e, w, "out of memory");
	tc_begin(e);
	w->rng = 0x1234567 + hc->size;
	w->pool = tc_pool(e, hc->size, hc->align, hc->boundary);
	TC_CHECK(e, w->pool, "%s: pool refused", hc->name);
	dmapool_get_stats(w->pool, &w->st);
	for (step = 0; step < steps; step++) {
		uint64_t r = tc_rand(&w->rng);

		tc_scribble(w, hc->everything);
		if (w->nlive < TC_HOSTILE_LIVE &&
		    (w->nlive < 10 || r % 100 < 55)) {
			struct tc_live *l = &w->live[w->nlive];

			l->by_handle = r & 0x100;
			if (l->by_handle) {
				l->b = dmapool_alloc_block(w->pool, 0);
				l->v = l->b.vaddr;
				l->d = l->b.dma;
			} else {
				l->v = (r & 0x200) ?
				       dmapool_zalloc(w->pool, 0, &l->d) :
				       dmapool_alloc(w->pool, 0, &l->d);
			}
			TC_CHECK(e, l->v, "%s: alloc failed", hc->name);
			if (!tc_check_new_block(e, w, l->v, l->d))
				return false;
			l->tag = (uint8_t)(r >> 16);
			memset(l->v, l->tag, w->st.block_size);
			w->nlive++;
		} else {
			int k = (int)((r >> 8) % (uint64_t)w->nlive);
			struct tc_live *l = &w->live[k];

			if (l->by_handle)
				dmapool_free_block(w->pool, l->b);
			else
				dmapool_free(w->pool, l->v, l->d);
			*l = w->live[--w->nlive];
		}
		if (!hc->everything && !tc_check_live_intact(e, w))
			return false;
	}
	dmapool_get_stats(w->pool, &w->st);
	TC_CHECK(e, w->st.blocks_in_use == (uint64_t)w->nlive,
		 "%s: %llu blocks in use, the driver holds %d", hc->name,
		 (unsigned long long)w->st.blocks_in_use, w->nlive);
	if (!tc_device_writes_seen(e, w->pool, div <= 1))
		return false;
	for (i = 0; i < w->nlive; i++)
		dmapool_free(w->pool, w->live[i].v, w->live[i].d);
	dmapool_get_stats(w->pool, &w->st);
	TC_CHECK(e, w->st.blocks_in_use == 0,
		 "%s: blocks left after freeing all", hc->name);
	if (!tc_device_writes_seen(e, w->pool, div <= 1))
		return false;
	dmapool_destroy(w->pool);
	tc_free(w);
	tc_end(e);
	return true;
}

#endif /* DMAPOOL_TC_HOSTILE_H */
