// SPDX-License-Identifier: MIT OR GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "testlib.h"

struct tl_capture tl_cap;

static void capture(const struct dmapool_report *r, void *ctx)
{
	struct tl_capture *cap = ctx;

	if (cap->n < TL_MAX_REPORTS) {
		cap->r[cap->n] = *r;
		if (r->owner_name) {
			strncpy(cap->owner[cap->n], r->owner_name, 31);
			cap->r[cap->n].owner_name = cap->owner[cap->n];
		}
		/* The name lives in the pool, which may go away. */
		strncpy(cap->name[cap->n], r->pool_name ? r->pool_name : "",
			31);
		cap->r[cap->n].pool_name = cap->name[cap->n];
	}
	cap->n++;
}

void tl_reset(void)
{
	memset(&tl_cap, 0, sizeof(tl_cap));
	dmapool_set_report_handler(capture, &tl_cap);
}

unsigned int tl_count(enum dmapool_report_kind kind)
{
	unsigned int i, n = 0;

	for (i = 0; i < tl_cap.n && i < TL_MAX_REPORTS; i++)
		n += tl_cap.r[i].kind == kind;
	return n;
}

const struct dmapool_report *tl_last(void)
{
	cr_assert(tl_cap.n > 0 && tl_cap.n <= TL_MAX_REPORTS,
		  "expected a captured report, have %u", tl_cap.n);
	return &tl_cap.r[tl_cap.n - 1];
}

static unsigned long env_ul(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

void tl_opts(struct dmapool_opts *o)
{
	const char *ix = getenv("DMAPOOL_TEST_INDEX");

	if (ix && !strcmp(ix, "btree"))
		o->index = DMAPOOL_INDEX_BTREE;
	else if (ix && *ix && strcmp(ix, "radix"))
		cr_assert_fail("unknown DMAPOOL_TEST_INDEX=%s", ix);
	o->flags |= (unsigned int)env_ul("DMAPOOL_TEST_FLAGS", 0);
	if (!o->redzone)
		o->redzone = (unsigned int)env_ul("DMAPOOL_TEST_REDZONE", 0);
	if (!o->reserve_chunks)
		o->reserve_chunks = env_ul("DMAPOOL_TEST_RESERVE", 0);
}

struct dmapool *tl_pool_opts(struct dmapool_dev *dev, size_t size,
			     size_t align, size_t boundary,
			     const struct dmapool_opts *extra)
{
	struct dmapool_opts o;

	if (extra)
		o = *extra;
	else
		dmapool_opts_init(&o);
	tl_opts(&o);
	if (!o.report) {
		o.report = capture;
		o.report_ctx = &tl_cap;
	}
	return dmapool_create_opts("test", dev, size, align, boundary, &o);
}

struct dmapool *tl_pool(struct dmapool_dev *dev, size_t size, size_t align,
			size_t boundary)
{
	return tl_pool_opts(dev, size, align, boundary, NULL);
}

struct dmapool_dev *tl_heap(void)
{
	struct dmapool_dev *dev = dmapool_dev_heap();

	cr_assert_not_null(dev);
	return dev;
}

uint64_t tl_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

struct walk_ctx {
	struct tl_chunk *out;
	size_t max, n;
};

static void walk(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct walk_ctx *w = ctx;

	if (w->n < w->max) {
		w->out[w->n].vaddr = vaddr;
		w->out[w->n].dma = dma;
		w->out[w->n].len = len;
	}
	w->n++;
}

size_t tl_chunks(const struct dmapool *pool, struct tl_chunk *out, size_t max)
{
	struct walk_ctx w = { out, max, 0 };

	dmapool_walk_chunks(pool, walk, &w);
	cr_assert(w.n <= max, "more chunks (%zu) than room (%zu)", w.n, max);
	return w.n;
}

dmapool_dma_t tl_heap_dma(const void *vaddr)
{
	return (dmapool_dma_t)(uintptr_t)vaddr + 0xd0000000000000ull;
}
