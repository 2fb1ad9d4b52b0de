// SPDX-License-Identifier: MIT OR GPL-2.0-only
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "xcheck.h"
#include "xdev.h"

#define MAX_WALK	4096

struct walk {
	size_t n;
	struct {
		uintptr_t v;
		dmapool_dma_t dma;
		size_t len;
	} c[MAX_WALK];
};

static void walk_fn(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct walk *w = ctx;

	if (w->n < MAX_WALK) {
		w->c[w->n].v = (uintptr_t)vaddr;
		w->c[w->n].dma = dma;
		w->c[w->n].len = len;
	}
	w->n++;
}

static bool in_walk(const struct walk *w, uintptr_t a, size_t len,
		    dmapool_dma_t dma)
{
	size_t i;

	for (i = 0; i < w->n && i < MAX_WALK; i++) {
		uintptr_t s = w->c[i].v;

		if (a >= s && a - s <= w->c[i].len &&
		    len <= w->c[i].len - (a - s))
			return dma - w->c[i].dma == a - s;
	}
	return false;
}

static bool crosses(uint64_t a, size_t len, size_t b)
{
	return (a & ~((uint64_t)b - 1)) != ((a + len - 1) & ~((uint64_t)b - 1));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void no_overlap(uint64_t *a, size_t n, size_t len, const char *what)
{
	size_t i;

	qsort(a, n, sizeof(*a), cmp_u64);
	for (i = 1; i < n; i++)
		CHECK(a[i - 1] + len <= a[i],
		      "%s %#llx and %#llx overlap (block size %zu)", what,
		      (unsigned long long)a[i - 1], (unsigned long long)a[i],
		      len);
}

void xcheck_blocks(const struct dmapool *pool, const struct xblk *b, size_t n,
		   size_t align, size_t boundary, const struct xdev *x)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct dmapool_stats st;
	struct walk *w = calloc(1, sizeof(*w));
	uint64_t *sv = calloc(n ? n : 1, sizeof(*sv));
	uint64_t *sd = calloc(n ? n : 1, sizeof(*sd));
	size_t i, len;

	CHECK(w && sv && sd);
	dmapool_get_stats(pool, &st);
	len = st.block_size;
	CHECK(len > 0);
	if (!align)
		align = 1;
	dmapool_walk_chunks(pool, walk_fn, w);
	CHECK(w->n <= MAX_WALK, "%zu chunks", w->n);
	for (i = 0; i < n; i++) {
		uintptr_t a = (uintptr_t)b[i].v;

		CHECK(a % align == 0 && b[i].dma % align == 0,
		      "block %p dma %#llx not aligned to %zu", b[i].v,
		      (unsigned long long)b[i].dma, align);
		if (boundary)
			CHECK(!crosses(a, len, boundary) &&
			      !crosses(b[i].dma, len, boundary),
			      "block %p (dma %#llx, %zu bytes) crosses a %zu boundary",
			      b[i].v, (unsigned long long)b[i].dma, len,
			      boundary);
		else if (len <= page)
			CHECK(!crosses(a, len, page) &&
			      !crosses(b[i].dma, len, page),
			      "block %p (dma %#llx, %zu bytes) crosses a page",
			      b[i].v, (unsigned long long)b[i].dma, len);
		CHECK(in_walk(w, a, len, b[i].dma),
		      "block %p (dma %#llx, %zu bytes) is not inside a chunk the pool lists at the matching dma",
		      b[i].v, (unsigned long long)b[i].dma, len);
		if (x)
			CHECK(xdev_holds(x, b[i].v, len, b[i].dma),
			      "block %p (dma %#llx, %zu bytes) is not inside a chunk the backend handed out",
			      b[i].v, (unsigned long long)b[i].dma, len);
		sv[i] = a;
		sd[i] = b[i].dma;
	}
	no_overlap(sv, n, len, "blocks");
	no_overlap(sd, n, len, "dma ranges");
	free(sd);
	free(sv);
	free(w);
}

static uint8_t tag(size_t i, int end)
{
	return (uint8_t)(i * 7 + 1 + end * 0x55);
}

void xcheck_tag(const struct xblk *b, size_t block_size, size_t i)
{
	uint8_t *p = b->v;

	p[block_size - 1] = tag(i, 1);
	p[0] = tag(i, 0);	/* the same byte when the block has one */
}

void xcheck_tag_ok(const struct xblk *b, size_t block_size, size_t i)
{
	const uint8_t *p = b->v;

	CHECK(p[0] == tag(i, 0) &&
	      (block_size == 1 || p[block_size - 1] == tag(i, 1)),
	      "block %zu at %p: tags %#x %#x changed: another block overlaps",
	      i, b->v, p[0], p[block_size - 1]);
}
