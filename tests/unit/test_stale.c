// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Stale handles (issue 13): a handle from an earlier allocation of a block
 * must be reported ("stale-handle") and free nothing, however often the
 * block was reused since.
 *
 * The bound the library promises (dmapool.h, dmapool/block.h, handle.c): a
 * block's state word carries a 28-bit generation that every allocation
 * advances, kept per slot (chunk record) for the pool's life, also across
 * the release of the slot's chunk; a handle carries the generation of its
 * allocation.  So a stale handle is reported until its block has been
 * allocated 2^28 (268435456) more times; at exactly 2^28 reuses the
 * generation comes round again.  These tests stay below it: 65536 and 2^20
 * reuses of one block (the old 16-bit generations collided at 65536), and
 * 70000 releases of a chunk whose slot and address come back each time
 * (the old per-chunk seeds collided after 40503).
 *
 * Every cycle checks: the first handle, and the previous cycle's, are each
 * reported exactly once, as stale-handle, with the handle in the report;
 * the block stays allocated (blocks_in_use); the current handle then frees
 * it without a report (had a stale free taken it, that free would be a
 * double free).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "xdev.h"

struct sink {
	unsigned long n, stale, bad;
	struct dmapool_report last;
};

static struct sink sink;

static void sink_fn(const struct dmapool_report *r, void *ctx)
{
	struct sink *s = ctx;

	s->n++;
	s->stale += r->kind == DMAPOOL_R_STALE_HANDLE;
	s->bad += r->kind == DMAPOOL_R_BAD_HANDLE;
	s->last = *r;
	s->last.pool_name = NULL;	/* not valid after the sink returns */
	s->last.detail = NULL;
	s->last.owner_name = NULL;
}

static struct dmapool *make_pool(struct dmapool_dev *dev, size_t size,
				 size_t chunk, unsigned int flags,
				 enum dmapool_index_kind index, size_t reserve)
{
	struct dmapool_opts o;
	struct dmapool *pool;

	dmapool_opts_init(&o);
	o.flags = flags;
	o.index = index;
	o.chunk_size = chunk;
	o.reserve_chunks = reserve;
	o.report = sink_fn;
	o.report_ctx = &sink;
	pool = dmapool_create_opts("stale", dev, size, 0, 0, &o);
	CHECK(pool, "create");
	return pool;
}

static uint64_t in_use(const struct dmapool *pool)
{
	struct dmapool_stats st;

	dmapool_get_stats(pool, &st);
	return st.blocks_in_use;
}

/*
 * Free @cur (allocated now) with the old handle @old: one stale-handle
 * report naming @old, nothing freed.  @what and @i say which for messages.
 */
static void stale_free(struct dmapool *pool, struct dmapool_block cur,
		       uint64_t old, const char *what, unsigned long i)
{
	unsigned long n0 = sink.n, s0 = sink.stale;

	dmapool_free_handle(pool, cur.vaddr, cur.dma, old);
	CHECK(sink.n == n0 + 1 && sink.stale == s0 + 1,
	      "cycle %lu: the %s handle %#llx (current %#llx): %lu reports, %lu stale-handle (last: %s)",
	      i, what, (unsigned long long)old,
	      (unsigned long long)cur.handle, sink.n - n0, sink.stale - s0,
	      sink.n > n0 ? dmapool_report_kind_name(sink.last.kind) : "none");
	CHECK(sink.last.handle == old && sink.last.pool == pool,
	      "cycle %lu: the report names handle %#llx", i,
	      (unsigned long long)sink.last.handle);
	CHECK(in_use(pool) == 1, "cycle %lu: the %s handle freed the block", i,
	      what);
}

/* The block freed with its own handle: no report. */
static void good_free(struct dmapool *pool, struct dmapool_block cur,
		      unsigned long i)
{
	unsigned long n0 = sink.n;

	dmapool_free_block(pool, cur);
	CHECK(sink.n == n0, "cycle %lu: freeing with the current handle was reported (%s): a stale handle had freed it",
	      i, dmapool_report_kind_name(sink.last.kind));
	CHECK(in_use(pool) == 0, "cycle %lu: not freed", i);
}

struct reuse_case {
	unsigned long cycles;
	unsigned int flags;
	enum dmapool_index_kind index;
	size_t reserve;
};

/*
 * One block in the pool (a page-sized block, page-sized chunks, never
 * grown): every allocation is that block again.
 */
static void one_block(void *arg)
{
	const struct reuse_case *rc = arg;
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct dmapool *pool;
	struct dmapool_block first, prev, cur;
	unsigned long i;

	CHECK(dev);
	pool = make_pool(dev, 4096, 4096, rc->flags, rc->index, rc->reserve);
	first = dmapool_alloc_block(pool, 0);
	CHECK(first.vaddr && first.handle);
	good_free(pool, first, 0);
	prev = first;
	for (i = 1; i <= rc->cycles; i++) {
		if (rc->flags & DMAPOOL_OPT_QUARANTINE)
			dmapool_quiesce(pool);
		cur = dmapool_alloc_block(pool, DMAPOOL_GFP_NOGROW);
		CHECK(cur.vaddr == first.vaddr && cur.dma == first.dma,
		      "cycle %lu: got %p, not the one block %p", i, cur.vaddr,
		      first.vaddr);
		CHECK(cur.handle != first.handle && cur.handle != prev.handle,
		      "cycle %lu: handle %#llx came round again", i,
		      (unsigned long long)cur.handle);
		stale_free(pool, cur, first.handle, "first", i);
		if (prev.handle != first.handle)
			stale_free(pool, cur, prev.handle, "previous", i);
		good_free(pool, cur, i);
		prev = cur;
	}
	NOTE("%lu reuses of one block: the first handle reported every time",
	     rc->cycles);
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
	CHECK(sink.n == sink.stale, "%lu reports of other kinds",
	      sink.n - sink.stale);
}

/*
 * The handle's slot, read from the layout dmapool/block.h documents (slot
 * 20 bits | pos 12 bits | state word 32 bits).  Only used to prove that the
 * test exercises what it claims (the slot came back); if the layout
 * changes, change this.
 */
static uint32_t handle_slot(uint64_t h)
{
	return (uint32_t)(h >> 44);
}

struct shrink_case {
	unsigned long cycles;
	unsigned int flags;	/* with DMAPOOL_OPT_AUTO_SHRINK: no shrink call */
	enum dmapool_index_kind index;
};

/*
 * A chunk released and taken again, its memory and slot handed back each
 * time: a backend that returns the same memory (XDEV_REUSE, as mmap often
 * does after munmap), reserve 0, one block allocated per cycle.
 */
static void across_shrink(void *arg)
{
	const struct shrink_case *sc = arg;
	struct xdev *x = xdev_new(XDEV_REUSE);
	struct dmapool *pool;
	struct dmapool_block first, prev, cur;
	unsigned long i, same_slot = 0;
	struct dmapool_stats st;

	pool = make_pool(x->dev, 64, 4096, sc->flags, sc->index, 0);
	first = dmapool_alloc_block(pool, 0);
	CHECK(first.vaddr && first.handle);
	good_free(pool, first, 0);
	prev = first;
	for (i = 1; i <= sc->cycles; i++) {
		if (!(sc->flags & DMAPOOL_OPT_AUTO_SHRINK))
			CHECK(dmapool_shrink(pool) == 1,
			      "cycle %lu: shrink released no chunk", i);
		dmapool_get_stats(pool, &st);
		CHECK(st.chunks == 0, "cycle %lu: %llu chunks left", i,
		      (unsigned long long)st.chunks);
		cur = dmapool_alloc_block(pool, 0);
		CHECK(cur.vaddr == first.vaddr && cur.dma == first.dma,
		      "cycle %lu: got %p, not %p: the backend's memory was not reused (%lu reused)",
		      i, cur.vaddr, first.vaddr, x->reused);
		CHECK(cur.handle != first.handle && cur.handle != prev.handle,
		      "cycle %lu: handle %#llx came round again", i,
		      (unsigned long long)cur.handle);
		same_slot += handle_slot(cur.handle) == handle_slot(first.handle);
		stale_free(pool, cur, first.handle, "first", i);
		if (prev.handle != first.handle)
			stale_free(pool, cur, prev.handle, "previous", i);
		good_free(pool, cur, i);
		prev = cur;
	}
	NOTE("%lu releases of the chunk, address reused every time, slot reused %lu times: the first handle reported every time",
	     sc->cycles, same_slot);
	CHECK(same_slot == sc->cycles,
	      "the slot came back only %lu of %lu times: the case is not exercised",
	      same_slot, sc->cycles);
	dmapool_destroy(pool);
	CHECK(x->reused >= sc->cycles, "backend reused %lu times", x->reused);
	xdev_put(x);
	CHECK(sink.n == sink.stale, "%lu reports of other kinds",
	      sink.n - sink.stale);
}

int main(int argc, char **argv)
{
	static const struct reuse_case reuse[] = {
		{ 65536, 0, DMAPOOL_INDEX_HASH, 0 },
		{ 65536, DMAPOOL_OPT_SHARED, DMAPOOL_INDEX_HASH, 0 },
		{ 65536, DMAPOOL_OPT_POISON | DMAPOOL_OPT_SCRUB |
			 DMAPOOL_OPT_QUARANTINE | DMAPOOL_OPT_RANDOM,
		  DMAPOOL_INDEX_BTREE, 0 },
		/* Reserve 1: the one chunk must stay for the block to come back. */
		{ 65536, DMAPOOL_OPT_AUTO_SHRINK, DMAPOOL_INDEX_RADIX, 1 },
		{ 1ul << 20, 0, DMAPOOL_INDEX_HASH, 0 },
	};
	static const char *const reuse_name[] = {
		"stale/65536-reuses",
		"stale/65536-reuses-shared",
		"stale/65536-reuses-hardened-btree",
		"stale/65536-reuses-autoshrink-radix",
		"stale/2^20-reuses",
	};
	static const struct shrink_case shrink[] = {
		{ 70000, 0, DMAPOOL_INDEX_HASH },
		{ 70000, DMAPOOL_OPT_AUTO_SHRINK, DMAPOOL_INDEX_HASH },
		{ 70000, DMAPOOL_OPT_SHARED, DMAPOOL_INDEX_RADIX },
		{ 70000, DMAPOOL_OPT_AUTO_SHRINK | DMAPOOL_OPT_SHARED,
		  DMAPOOL_INDEX_BTREE },
	};
	static const char *const shrink_name[] = {
		"stale/across-shrink",
		"stale/across-auto-shrink",
		"stale/across-shrink-shared-radix",
		"stale/across-auto-shrink-shared-btree",
	};
	unsigned int i;

	tap_init(argc, argv);
	for (i = 0; i < sizeof(reuse) / sizeof(reuse[0]); i++)
		tap_run(reuse_name[i], 600, one_block, (void *)&reuse[i]);
	for (i = 0; i < sizeof(shrink) / sizeof(shrink[0]); i++)
		tap_run(shrink_name[i], 600, across_shrink, (void *)&shrink[i]);
	return tap_done();
}
