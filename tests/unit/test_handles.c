// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The handle API: alloc_block/free_block, stale and double handles, handles
 * mixed with address frees, forged handles.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "testlib.h"

static struct dmapool_dev *dev;
static struct dmapool *pool;

static void setup(void)
{
	tl_reset();
	dev = tl_heap();
	pool = tl_pool(dev, 128, 64, 0);
	cr_assert_not_null(pool);
}

static void teardown(void)
{
	dmapool_destroy(pool);
	dmapool_dev_put(dev);
}

TestSuite(handles, .init = setup, .fini = teardown);

Test(handles, round_trip_many)
{
	struct dmapool_block b[5000];
	struct dmapool_stats st;
	int i;

	for (i = 0; i < 5000; i++) {
		b[i] = dmapool_alloc_block(pool, 0);
		cr_assert_not_null(b[i].vaddr);
		cr_assert_eq((uintptr_t)b[i].vaddr % 64, 0);
		cr_assert_eq(b[i].dma, tl_heap_dma(b[i].vaddr));
		memset(b[i].vaddr, 0xee, 128);
	}
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 5000);
	for (i = 4999; i >= 0; i -= 2)
		dmapool_free_block(pool, b[i]);
	for (i = 0; i < 5000; i += 2)
		dmapool_free_block(pool, b[i]);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 0);
	cr_assert_eq(tl_cap.n, 0);
}

Test(handles, double_handle_free)
{
	struct dmapool_block b = dmapool_alloc_block(pool, 0);
	struct dmapool_stats st;

	dmapool_free_block(pool, b);
	dmapool_free_block(pool, b);
	cr_assert_eq(tl_cap.n, 1);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE);
	cr_assert_eq(tl_last()->handle, b.handle);
	cr_assert_eq(tl_last()->block, b.vaddr);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 0);
}

Test(handles, stale_handle_after_reuse)
{
	struct dmapool_block old = dmapool_alloc_block(pool, 0), now;
	struct dmapool_stats st;

	dmapool_free_block(pool, old);
	now = tl_realloc_block(pool, old.vaddr);
	cr_assert_eq(now.vaddr, old.vaddr, "the block is reused");
	cr_assert_neq(now.handle, old.handle, "with a new generation");
	dmapool_free_block(pool, old);	/* the stale one */
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_STALE_HANDLE);
	cr_assert_eq(tl_last()->handle, old.handle);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 1, "the new owner keeps its block");
	dmapool_free_block(pool, now);
	cr_assert_eq(tl_cap.n, 1);
}

Test(handles, stale_after_reuse_by_address_api)
{
	struct dmapool_block old = dmapool_alloc_block(pool, 0);
	dmapool_dma_t d;
	void *v;

	/* Mixing APIs: freed by address, reused by address. */
	dmapool_free(pool, old.vaddr, old.dma);
	v = tl_realloc(pool, old.vaddr, &d);
	cr_assert_eq(v, old.vaddr);
	dmapool_free_block(pool, old);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_STALE_HANDLE);
	dmapool_free(pool, v, d);
	cr_assert_eq(tl_cap.n, 1);
}

Test(handles, handle_block_freed_by_address)
{
	struct dmapool_block b = dmapool_alloc_block(pool, 0);

	dmapool_free(pool, b.vaddr, b.dma);
	cr_assert_eq(tl_cap.n, 0);
	dmapool_free_block(pool, b);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_DOUBLE_FREE);
}

Test(handles, forged_handles_are_refused)
{
	struct dmapool_block b = dmapool_alloc_block(pool, 0), f;
	struct dmapool_stats st;
	/*
	 * Another slot, nothing, a flag bit no handle has, another
	 * generation, a neighbouring block, everything low.  (Bit 0 is set in
	 * every handle and the free sets it anyway: flipping it names the
	 * same allocation.)
	 */
	const uint64_t bad[] = {
		b.handle ^ (1ull << 48), ~0ull, b.handle ^ 2, b.handle ^ (1ull << 16),
		b.handle + (1ull << 32), b.handle | 0xffff,
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = b;
		f.handle = bad[i];
		dmapool_free_block(pool, f);
		cr_assert_eq(tl_cap.n, i + 1, "forged handle %#llx accepted",
			     (unsigned long long)bad[i]);
		cr_assert(tl_last()->kind == DMAPOOL_R_BAD_HANDLE ||
			  tl_last()->kind == DMAPOOL_R_STALE_HANDLE,
			  "kind %s",
			  dmapool_report_kind_name(tl_last()->kind));
	}
	/* Right handle, wrong vaddr or dma. */
	f = b;
	f.vaddr = (char *)b.vaddr + 128;
	dmapool_free_block(pool, f);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_BAD_HANDLE);
	f = b;
	f.dma += 128;
	dmapool_free_block(pool, f);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_FREE_DMA_MISMATCH);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 1);
	dmapool_free_block(pool, b);
	dmapool_get_stats(pool, &st);
	cr_assert_eq(st.blocks_in_use, 0);
}

Test(handles, handle_to_wrong_pool)
{
	struct dmapool_opts o;
	struct dmapool *other;
	struct dmapool_block b, mine;

	dmapool_opts_init(&o);
	other = dmapool_create_opts("other", dev, 128, 64, 0, &o);
	mine = dmapool_alloc_block(pool, 0);	/* slot 0 exists in both */
	b = dmapool_alloc_block(other, 0);
	dmapool_free_block(pool, b);
	cr_assert_eq(tl_last()->kind, DMAPOOL_R_BAD_HANDLE,
		     "the handle names a block of this pool, but not this vaddr");
	dmapool_free_block(other, b);
	dmapool_free_block(pool, mine);
	cr_assert_eq(tl_cap.n, 1);
	dmapool_destroy(other);
}

Test(handles, handles_enabled_after_address_allocations)
{
	void *v[200];
	dmapool_dma_t d[200];
	struct dmapool_block b[200];
	int i;

	for (i = 0; i < 200; i++)
		v[i] = dmapool_alloc(pool, 0, &d[i]);
	for (i = 0; i < 200; i += 2)
		dmapool_free(pool, v[i], d[i]);
	for (i = 0; i < 200; i++)
		cr_assert_not_null((b[i] = dmapool_alloc_block(pool, 0)).vaddr);
	for (i = 1; i < 200; i += 2)
		dmapool_free(pool, v[i], d[i]);
	for (i = 0; i < 200; i++)
		dmapool_free_block(pool, b[i]);
	cr_assert_eq(tl_cap.n, 0);
}

Test(handles, zeroed_block)
{
	struct dmapool_block b = dmapool_alloc_block(pool, 0);
	unsigned char *p;
	int i;

	memset(b.vaddr, 0xff, 128);
	dmapool_free_block(pool, b);
	b = dmapool_alloc_block(pool, DMAPOOL_GFP_ZERO);
	p = b.vaddr;
	for (i = 0; i < 128; i++)
		cr_assert_eq(p[i], 0);
	dmapool_free_block(pool, b);
}

Test(handles, nogrow_failure_returns_null_block)
{
	struct dmapool_block b = dmapool_alloc_block(pool, DMAPOOL_GFP_NOGROW);

	cr_assert_null(b.vaddr);
	cr_assert_eq(b.dma, 0);
	cr_assert_eq(b.handle, 0);
}
