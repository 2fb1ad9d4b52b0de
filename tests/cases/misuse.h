/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Misuse cases: each wrong call is reported with the right kind and
 * details, and leaves the pool exactly as it was and usable.  One table,
 * one runner; each row is a pool geometry, a misuse and what must be
 * reported.
 */
#ifndef DMAPOOL_TC_MISUSE_H
#define DMAPOOL_TC_MISUSE_H

#include "tc.h"

enum tc_misuse_op {
	TC_DOUBLE_FREE,		/* free a block twice */
	TC_INTERIOR,		/* free block + arg (arg < size) */
	TC_WRONG_DMA,		/* free a block with dma + arg */
	TC_SWAPPED_DMA,		/* free a block with its neighbour's dma */
	TC_OUTSIDE_STACK,	/* free an address on the stack */
	TC_OUTSIDE_HEAP,	/* free host memory of the test */
	TC_OUTSIDE_NULL,	/* free NULL */
	TC_OUTSIDE_WILD,	/* free ~0 */
	TC_PAGE_TAIL,		/* free the unused tail of a chunk's page */
	TC_WRONG_POOL,		/* free a block of another pool */
	TC_NULL_POOL,		/* alloc, zalloc, free, handle calls with NULL */
	TC_STALE_HANDLE,	/* free a handle of an earlier allocation */
	TC_BAD_HANDLE,		/* free with a handle naming no block */
	TC_HANDLE_DOUBLE_FREE,	/* free a handle twice */
};

struct tc_misuse_case {
	const char *name;
	enum tc_misuse_op op;
	size_t size, align, boundary;
	long arg;
	enum dmapool_report_kind expect;
	unsigned int reports;	/* reports the misuse makes */
};

static const struct tc_misuse_case tc_misuse_cases[] = {
	{ "double-free", TC_DOUBLE_FREE, 64, 16, 0, 0,
	  DMAPOOL_R_DOUBLE_FREE, 1 },
	{ "double-free-68-32-4096", TC_DOUBLE_FREE, 68, 32, 4096, 0,
	  DMAPOOL_R_DOUBLE_FREE, 1 },
	{ "interior+1", TC_INTERIOR, 64, 16, 0, 1,
	  DMAPOOL_R_FREE_NOT_BLOCK, 1 },
	{ "interior+63", TC_INTERIOR, 64, 16, 0, 63,
	  DMAPOOL_R_FREE_NOT_BLOCK, 1 },
	{ "interior+8-of-1024", TC_INTERIOR, 1024, 1024, 0, 8,
	  DMAPOOL_R_FREE_NOT_BLOCK, 1 },
	{ "interior+100-of-4096", TC_INTERIOR, 4096, 4096, 0, 100,
	  DMAPOOL_R_FREE_NOT_BLOCK, 1 },
	{ "wrong-dma+64", TC_WRONG_DMA, 64, 16, 0, 64,
	  DMAPOOL_R_FREE_DMA_MISMATCH, 1 },
	{ "wrong-dma-64", TC_WRONG_DMA, 64, 16, 0, -64,
	  DMAPOOL_R_FREE_DMA_MISMATCH, 1 },
	{ "wrong-dma^1", TC_WRONG_DMA, 64, 16, 0, 1,
	  DMAPOOL_R_FREE_DMA_MISMATCH, 1 },
	{ "swapped-dma", TC_SWAPPED_DMA, 256, 256, 0, 0,
	  DMAPOOL_R_FREE_DMA_MISMATCH, 1 },
	{ "outside-stack", TC_OUTSIDE_STACK, 64, 16, 0, 0,
	  DMAPOOL_R_FREE_OUTSIDE, 1 },
	{ "outside-heap", TC_OUTSIDE_HEAP, 64, 16, 0, 0,
	  DMAPOOL_R_FREE_OUTSIDE, 1 },
	{ "outside-null", TC_OUTSIDE_NULL, 64, 16, 0, 0,
	  DMAPOOL_R_FREE_OUTSIDE, 1 },
	{ "outside-wild", TC_OUTSIDE_WILD, 64, 16, 0, 0,
	  DMAPOOL_R_FREE_OUTSIDE, 1 },
	{ "page-tail-68-32-4096", TC_PAGE_TAIL, 68, 32, 4096, 0,
	  DMAPOOL_R_FREE_NOT_BLOCK, 1 },
	{ "wrong-pool", TC_WRONG_POOL, 64, 16, 0, 0,
	  DMAPOOL_R_FREE_WRONG_POOL, 1 },
	{ "null-pool", TC_NULL_POOL, 64, 16, 0, 0,
	  DMAPOOL_R_NULL_POOL, 5 },
	{ "stale-handle", TC_STALE_HANDLE, 64, 64, 0, 0,
	  DMAPOOL_R_STALE_HANDLE, 1 },
	{ "bad-handle", TC_BAD_HANDLE, 64, 64, 0, 0,
	  DMAPOOL_R_BAD_HANDLE, 1 },
	{ "handle-double-free", TC_HANDLE_DOUBLE_FREE, 64, 64, 0, 0,
	  DMAPOOL_R_DOUBLE_FREE, 1 },
};

#define TC_MISUSE_LIVE	8	/* blocks held across the misuse */
#define TC_MISUSE_USE	300	/* blocks taken to show the pool still works */

/* The pool still serves correct use, with no report. */
static inline bool tc_misuse_usable(struct tc_env *e,
				    struct dmapool *pool)
{
	unsigned int reports = e->cap.n;
	dmapool_dma_t *d;
	void **v;
	int i;

	v = tc_zalloc(TC_MISUSE_USE * sizeof(*v));
	d = tc_zalloc(TC_MISUSE_USE * sizeof(*d));
	TC_CHECK(e, v && d, "out of memory");
	for (i = 0; i < TC_MISUSE_USE; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		TC_CHECK(e, v[i], "alloc after the misuse failed");
	}
	for (i = 0; i < TC_MISUSE_USE; i++)
		dmapool_free(pool, v[i], d[i]);
	TC_CHECK(e, e->cap.n == reports, "correct use after the misuse was reported");
	tc_free(v);
	tc_free(d);
	return true;
}

static inline bool tc_misuse_run(struct tc_env *e,
				 const struct tc_misuse_case *mc)
{
	/* Big locals on the heap: kernel stacks are small (KASAN doubles). */
	struct tc_misuse_scratch {
		struct dmapool_stats st0, st;
		void *v[TC_MISUSE_LIVE];
		dmapool_dma_t d[TC_MISUSE_LIVE];
		struct tc_chunk ch[1];
	} *sc = tc_zalloc(sizeof(*sc));
	struct dmapool_stats *st0 = &sc->st0, *st = &sc->st;
	void **v = sc->v, *addr = NULL, *block = NULL;
	dmapool_dma_t *d = sc->d, dma = 0, block_dma = 0;
	struct tc_chunk *ch = sc->ch;
	struct dmapool_block b, b2;
	const struct dmapool_report *r;
	struct dmapool *pool, *other = NULL;
	size_t offset = 0;
	bool check_block = true, freed0 = false, pool_counts = true;
	int stack_var = 0;
	void *heap = NULL;
	int i;

	TC_CHECK(e, sc, "out of memory");
	tc_begin(e);
	pool = tc_pool(e, mc->size, mc->align, mc->boundary);
	TC_CHECK(e, pool, "%s: pool refused", mc->name);
	for (i = 0; i < TC_MISUSE_LIVE; i++) {
		v[i] = dmapool_alloc(pool, 0, &d[i]);
		TC_CHECK(e, v[i], "%s: alloc failed", mc->name);
	}
	dmapool_get_stats(pool, st0);

	switch (mc->op) {
	case TC_DOUBLE_FREE:
		dmapool_free(pool, v[0], d[0]);
		freed0 = true;
		dmapool_get_stats(pool, st0);
		addr = block = v[0];
		dma = block_dma = d[0];
		dmapool_free(pool, addr, dma);
		break;
	case TC_INTERIOR:
		addr = (uint8_t *)v[0] + mc->arg;
		dma = d[0] + mc->arg;
		block = v[0];
		block_dma = d[0];
		offset = (size_t)mc->arg;
		dmapool_free(pool, addr, dma);
		break;
	case TC_WRONG_DMA:
		addr = block = v[0];
		block_dma = d[0];
		dma = mc->arg == 1 ? d[0] ^ 1 : d[0] + mc->arg;
		dmapool_free(pool, addr, dma);
		break;
	case TC_SWAPPED_DMA:
		addr = block = v[0];
		block_dma = d[0];
		dma = d[1];
		dmapool_free(pool, addr, dma);
		break;
	case TC_OUTSIDE_STACK:
		addr = &stack_var;
		dma = e->foreign_dma ? e->foreign_dma(addr) : 0x1234;
		check_block = false;
		dmapool_free(pool, addr, dma);
		break;
	case TC_OUTSIDE_HEAP:
		heap = tc_zalloc(64);
		TC_CHECK(e, heap, "out of memory");
		addr = heap;
		dma = e->foreign_dma ? e->foreign_dma(addr) : 0x5678;
		check_block = false;
		dmapool_free(pool, addr, dma);
		break;
	case TC_OUTSIDE_NULL:
		check_block = false;
		dmapool_free(pool, NULL, 0);
		break;
	case TC_OUTSIDE_WILD:
		addr = (void *)~(uintptr_t)0;
		dma = ~(dmapool_dma_t)0;
		check_block = false;
		dmapool_free(pool, addr, dma);
		break;
	case TC_PAGE_TAIL:
		/* 68/32/4096: 42 blocks of 96 bytes, 64 bytes left per page. */
		dmapool_get_stats(pool, st);
		if (st->stride != 96)
			goto skip;	/* a redzone run: another layout */
		TC_CHECK(e, tc_chunks(pool, ch, 1) >= 1, "no chunk");
		addr = ch[0].vaddr + TC_PAGE_SIZE - 32;
		dma = ch[0].dma + TC_PAGE_SIZE - 32;
		block = NULL;	/* in no block at all */
		dmapool_free(pool, addr, dma);
		break;
	case TC_WRONG_POOL:
		other = dmapool_create("other-pool", e->dev, mc->size,
				       mc->align, mc->boundary);
		TC_CHECK(e, other, "second pool refused");
		addr = dmapool_alloc(other, 0, &dma);
		TC_CHECK(e, addr, "alloc in the second pool failed");
		check_block = false;
		dmapool_free(pool, addr, dma);
		break;
	case TC_NULL_POOL:
		pool_counts = false;
		check_block = false;
		TC_CHECK(e, !dmapool_alloc(NULL, 0, &dma), "alloc(NULL)");
		TC_CHECK(e, !dmapool_zalloc(NULL, 0, &dma), "zalloc(NULL)");
		dmapool_free(NULL, v[0], d[0]);
		b = dmapool_alloc_block(NULL, 0);
		TC_CHECK(e, !b.vaddr, "alloc_block(NULL)");
		dmapool_free_block(NULL, b);
		break;
	case TC_STALE_HANDLE:
	case TC_HANDLE_DOUBLE_FREE:
		b = dmapool_alloc_block(pool, 0);
		TC_CHECK(e, b.vaddr, "alloc_block failed");
		dmapool_free_block(pool, b);
		if (mc->op == TC_STALE_HANDLE)
			/* The same block again, under a new generation. */
			TC_CHECK(e, tc_realloc_block(pool, b.vaddr, &b2),
				 "the freed block never came back");
		dmapool_get_stats(pool, st0);
		addr = block = b.vaddr;
		dma = block_dma = b.dma;
		dmapool_free_block(pool, b);
		if (mc->op == TC_STALE_HANDLE) {
			/*
			 * b2 is still allocated: the stale free changed
			 * nothing, so this one is accepted.
			 */
			dmapool_get_stats(pool, st);
			TC_CHECK(e, st->blocks_in_use == st0->blocks_in_use,
				 "the stale free freed the block");
			dmapool_free_block(pool, b2);
			st0->blocks_in_use--;
		}
		break;
	case TC_BAD_HANDLE:
		b = dmapool_alloc_block(pool, 0);
		TC_CHECK(e, b.vaddr, "alloc_block failed");
		dmapool_get_stats(pool, st0);
		b2 = b;
		b2.handle ^= (uint64_t)0x7777 << 48;	/* another chunk id */
		addr = b2.vaddr;
		dma = b2.dma;
		check_block = false;
		dmapool_free_block(pool, b2);
		dmapool_free_block(pool, b);	/* the real one still works */
		st0->blocks_in_use--;
		break;
	}

	TC_CHECK(e, e->cap.n == mc->reports, "%s: %u reports, want %u",
		 mc->name, e->cap.n, mc->reports);
	TC_CHECK(e, tc_count(e, mc->expect) == mc->reports,
		 "%s: reported as %s, want %s", mc->name,
		 dmapool_report_kind_name(e->cap.r[0].kind),
		 dmapool_report_kind_name(mc->expect));
	r = tc_last(e);
	TC_CHECK(e, r, "%s: no report captured", mc->name);
	if (pool_counts) {
		TC_CHECK(e, r->pool == pool, "%s: report names another pool",
			 mc->name);
		TC_CHECK(e, !strcmp(r->pool_name, "tc"), "%s: pool name '%s'",
			 mc->name, r->pool_name);
		TC_CHECK(e, r->addr == addr && r->dma == dma,
			 "%s: report has addr %p dma %#llx, want %p %#llx",
			 mc->name, r->addr, (unsigned long long)r->dma, addr,
			 (unsigned long long)dma);
		dmapool_get_stats(pool, st);
		TC_CHECK(e, st->blocks_in_use == st0->blocks_in_use &&
			    st->blocks_total == st0->blocks_total,
			 "%s: the misuse changed the pool (%llu in use, was %llu)",
			 mc->name, (unsigned long long)st->blocks_in_use,
			 (unsigned long long)st0->blocks_in_use);
		TC_CHECK(e, st->violations == st0->violations + mc->reports &&
			    st->by_kind[mc->expect] ==
			    st0->by_kind[mc->expect] + mc->reports,
			 "%s: counters not bumped", mc->name);
	} else {
		TC_CHECK(e, !r->pool, "%s: a pool-less report names a pool",
			 mc->name);
	}
	if (check_block) {
		TC_CHECK(e, r->block == block,
			 "%s: report block %p, want %p", mc->name, r->block,
			 block);
		if (block)
			TC_CHECK(e, r->block_dma == block_dma &&
				    r->offset == offset,
				 "%s: block dma %#llx +%zu, want %#llx +%zu",
				 mc->name, (unsigned long long)r->block_dma,
				 r->offset, (unsigned long long)block_dma,
				 offset);
	}
	if (mc->op == TC_WRONG_POOL) {
		TC_CHECK(e, r->owner_name && !strcmp(r->owner_name, "other-pool"),
			 "%s: owner '%s'", mc->name,
			 r->owner_name ? r->owner_name : "(none)");
		/* Still allocated in its own pool. */
		dmapool_free(other, addr, dma);
		TC_CHECK(e, e->cap.n == mc->reports, "freeing in the owner was reported");
		dmapool_destroy(other);
	}
	if (!tc_misuse_usable(e, pool))
		return false;

skip:
	for (i = freed0 ? 1 : 0; i < TC_MISUSE_LIVE; i++)
		dmapool_free(pool, v[i], d[i]);
	dmapool_get_stats(pool, st);
	TC_CHECK(e, st->blocks_in_use == 0, "%s: %llu blocks left", mc->name,
		 (unsigned long long)st->blocks_in_use);
	TC_CHECK(e, e->cap.n == mc->reports || mc->op == TC_PAGE_TAIL,
		 "%s: the final frees were reported", mc->name);
	dmapool_destroy(pool);
	tc_free(heap);
	tc_free(sc);
	tc_end(e);
	return true;
}

#endif /* DMAPOOL_TC_MISUSE_H */
