// SPDX-License-Identifier: MIT OR GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "testlib.h"
#include "cases/tc.h"

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
	else if (ix && !strcmp(ix, "radix"))
		o->index = DMAPOOL_INDEX_RADIX;
	else if (ix && *ix && strcmp(ix, "hash"))
		cr_assert_fail("unknown DMAPOOL_TEST_INDEX=%s", ix);
	o->flags |= (unsigned int)env_ul("DMAPOOL_TEST_FLAGS", 0);
	if (!o->redzone)
		o->redzone = (unsigned int)env_ul("DMAPOOL_TEST_REDZONE", 0);
	if (!o->reserve_chunks)
		o->reserve_chunks = env_ul("DMAPOOL_TEST_RESERVE", 0);
	if (!o->poison_sample && (o->flags & DMAPOOL_OPT_POISON_SAMPLED))
		o->poison_sample = (unsigned int)env_ul("DMAPOOL_TEST_SAMPLE",
							0);
	/* Backend suites count chunks of a page (the kernel's unit). */
	if (!o->chunk_size)
		o->chunk_size = env_ul("DMAPOOL_TEST_CHUNK", 0);
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

struct tc_env *tl_env(void)
{
	struct tc_env *e = calloc(1, sizeof(*e));

	cr_assert_not_null(e);
	e->dev = tl_heap();
	e->opts = tl_opts;
	e->foreign_dma = tl_heap_dma;
	return e;
}

void tl_env_put(struct tc_env *e)
{
	dmapool_dev_put(e->dev);
	free(e);
}

unsigned int tl_flags(void)
{
	return (unsigned int)env_ul("DMAPOOL_TEST_FLAGS", 0);
}

unsigned int tl_redzone(void)
{
	return (unsigned int)env_ul("DMAPOOL_TEST_REDZONE", 0);
}

bool tl_reuse_is_lifo(void)
{
	return !(tl_flags() & (DMAPOOL_OPT_QUARANTINE | DMAPOOL_OPT_RANDOM));
}

unsigned int tl_held_back(void)
{
	/* tl_opts leaves quarantine_max at 0: the library's default, 256. */
	return tl_flags() & DMAPOOL_OPT_QUARANTINE ? 256 : 0;
}

bool tl_detects_device_writes(void)
{
	return (tl_flags() & DMAPOOL_OPT_POISON) || tl_redzone();
}

#define TL_REALLOC_MAX	100000

void *tl_realloc(struct dmapool *pool, const void *want, dmapool_dma_t *dma)
{
	static void *v[TL_REALLOC_MAX];
	static dmapool_dma_t d[TL_REALLOC_MAX];
	void *got = NULL;
	size_t n = 0, i;

	dmapool_quiesce(pool);
	while (n < TL_REALLOC_MAX) {
		v[n] = dmapool_alloc(pool, DMAPOOL_GFP_NOGROW, &d[n]);
		if (!v[n] || v[n] == want)
			break;
		n++;
	}
	cr_assert(n < TL_REALLOC_MAX && v[n] == want,
		  "block %p never came back", want);
	got = v[n];
	*dma = d[n];
	for (i = 0; i < n; i++)
		dmapool_free(pool, v[i], d[i]);
	return got;
}

struct dmapool_block tl_realloc_block(struct dmapool *pool, const void *want)
{
	static struct dmapool_block b[TL_REALLOC_MAX];
	struct dmapool_block got;
	size_t n = 0, i;

	dmapool_quiesce(pool);
	while (n < TL_REALLOC_MAX) {
		b[n] = dmapool_alloc_block(pool, DMAPOOL_GFP_NOGROW);
		if (!b[n].vaddr || b[n].vaddr == want)
			break;
		n++;
	}
	cr_assert(n < TL_REALLOC_MAX && b[n].vaddr == want,
		  "block %p never came back", want);
	got = b[n];
	for (i = 0; i < n; i++)
		dmapool_free_block(pool, b[i]);
	return got;
}

static bool device_kind(enum dmapool_report_kind k)
{
	return k == DMAPOOL_R_DEVICE_WRITE_AFTER_FREE ||
	       k == DMAPOOL_R_DEVICE_OVERRUN;
}

uint64_t tl_assert_only_device_reports(const struct dmapool *pool)
{
	struct dmapool_stats st;
	uint64_t dev;
	unsigned int i;

	dmapool_get_stats(pool, &st);
	dev = st.by_kind[DMAPOOL_R_DEVICE_WRITE_AFTER_FREE] +
	      st.by_kind[DMAPOOL_R_DEVICE_OVERRUN];
	cr_assert_eq(st.violations, dev, "%llu reports, %llu of device kinds",
		     (unsigned long long)st.violations,
		     (unsigned long long)dev);
	if (!(tl_flags() & (DMAPOOL_OPT_POISON | DMAPOOL_OPT_POISON_SAMPLED)))
		cr_assert_eq(st.by_kind[DMAPOOL_R_DEVICE_WRITE_AFTER_FREE], 0);
	if (!tl_redzone())
		cr_assert_eq(st.by_kind[DMAPOOL_R_DEVICE_OVERRUN], 0);
	for (i = 0; i < tl_cap.n && i < TL_MAX_REPORTS; i++)
		cr_assert(device_kind(tl_cap.r[i].kind), "a %s report",
			  dmapool_report_kind_name(tl_cap.r[i].kind));
	return dev;
}
