// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The baselines are correct allocators (as long as nobody attacks them):
 * distinct, non-overlapping, aligned, boundary-respecting blocks whose dma
 * matches their vaddr, reused after free, bad geometry refused; and they are
 * faithful to their designs' weaknesses, which the showcase and the fuzzers
 * rely on (a forged in-block link is followed by the embedded designs and
 * not by xarray-fix).  dmapool runs through the same checks via its adapter,
 * and so does linux-6.12, Linux's own mm/dmapool.c on the userspace shim:
 * these tests are what says the shim runs it faithfully.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "baseline.h"

/* Every design, linux-6.12 included (it is not in bl_all[]). */
static const struct bl_ops *const designs[] = {
	&bl_linux_612, &bl_linux_embedded, &bl_linux_pagelist, &bl_xarray_fix,
	&bl_dmapool, NULL,
};

struct geo {
	size_t size, align, boundary;
};

/* The kernel's dmapool_test cases, then odd shapes. */
static const struct geo geos[] = {
	{ 16, 16, 0 }, { 64, 64, 0 }, { 256, 256, 0 }, { 1024, 1024, 0 },
	{ 4096, 4096, 0 }, { 68, 32, 4096 },
	{ 1, 1, 0 }, { 24, 8, 64 }, { 40, 8, 128 }, { 100, 4, 256 },
	{ 512, 512, 1024 }, { 3000, 8, 4096 }, { 6000, 64, 0 },
	{ 200, 0, 0 }, { 48, 16, 2048 },
};
#define NGEOS (sizeof(geos) / sizeof(geos[0]))

struct chunk {
	uint8_t *vaddr;
	dmapool_dma_t dma;
	size_t len;
};

struct chunks {
	size_t n;
	struct chunk c[4096];
};

static void collect(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct chunks *cs = ctx;

	cr_assert(cs->n < sizeof(cs->c) / sizeof(cs->c[0]), "too many chunks");
	cs->c[cs->n].vaddr = vaddr;
	cs->c[cs->n].dma = dma;
	cs->c[cs->n].len = len;
	cs->n++;
}

static struct chunks *chunks_of(const struct bl_ops *ops, struct bl_pool *p)
{
	struct chunks *cs = calloc(1, sizeof(*cs));

	cr_assert(cs);
	ops->walk(p, collect, cs);
	return cs;
}

struct blk {
	uint8_t *v;
	dmapool_dma_t d;
};

static int by_vaddr(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

/* Every block: inside one chunk, dma matching, aligned, within boundary. */
static void check_block(const struct bl_ops *ops, const struct geo *g,
			const struct chunks *cs, const struct blk *b)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), align = g->align ? g->align : 1;
	size_t i, off;

	cr_assert(b->v, "%s %zu/%zu/%zu: alloc failed", ops->name, g->size,
		  g->align, g->boundary);
	for (i = 0; i < cs->n; i++)
		if (b->v >= cs->c[i].vaddr && b->v < cs->c[i].vaddr + cs->c[i].len)
			break;
	cr_assert(i < cs->n, "%s %zu/%zu/%zu: block %p is in no chunk",
		  ops->name, g->size, g->align, g->boundary, b->v);
	off = (size_t)(b->v - cs->c[i].vaddr);
	cr_assert(off + g->size <= cs->c[i].len,
		  "%s: block %p runs past its chunk", ops->name, b->v);
	cr_assert_eq(b->d, cs->c[i].dma + off,
		     "%s: dma of %p does not match its vaddr", ops->name, b->v);
	cr_assert_eq((uintptr_t)b->v % align, 0, "%s: vaddr %p not aligned to %zu",
		     ops->name, b->v, align);
	cr_assert_eq(b->d % align, 0, "%s: dma %#llx not aligned to %zu",
		     ops->name, (unsigned long long)b->d, align);
	if (g->boundary) {
		dmapool_dma_t m = ~(dmapool_dma_t)(g->boundary - 1);

		cr_assert_eq(b->d & m, (b->d + g->size - 1) & m,
			     "%s %zu/%zu/%zu: dma %#llx crosses the boundary",
			     ops->name, g->size, g->align, g->boundary,
			     (unsigned long long)b->d);
		cr_assert_eq((uintptr_t)b->v & m,
			     ((uintptr_t)b->v + g->size - 1) & m,
			     "%s: vaddr %p crosses the boundary", ops->name, b->v);
	}
	if (g->size <= page)
		cr_assert_eq(off / page, (off + g->size - 1) / page,
			     "%s %zu/%zu/%zu: block at +%zu crosses a page",
			     ops->name, g->size, g->align, g->boundary, off);
}

static void check_design(const struct bl_ops *ops, const struct geo *g)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t n = 3 * (page / g->size + 1) + 5, i, j;
	struct chunks *cs, *after;
	struct bl_pool *p;
	struct blk *b;

	if (n > 2000)
		n = 2000;
	cr_assert(dev);
	p = ops->create(dev, g->size, g->align, g->boundary);
	cr_assert(p, "%s: create %zu/%zu/%zu failed", ops->name, g->size,
		  g->align, g->boundary);
	cr_assert_geq(ops->block_size(p), g->size);
	b = calloc(n, sizeof(*b));
	cr_assert(b);
	for (i = 0; i < n; i++) {
		b[i].v = ops->alloc(p, &b[i].d);
		cr_assert(b[i].v, "%s: alloc %zu failed", ops->name, i);
		/* The caller owns the whole block now. */
		memset(b[i].v, (int)(i & 0xff), g->size);
	}
	cs = chunks_of(ops, p);
	cr_assert_gt(cs->n, 0);
	for (i = 0; i < n; i++) {
		check_block(ops, g, cs, &b[i]);
		for (j = 0; j < g->size; j++)
			cr_assert_eq(b[i].v[j], (uint8_t)(i & 0xff),
				     "%s %zu/%zu/%zu: block %zu changed at +%zu (overlap?)",
				     ops->name, g->size, g->align, g->boundary,
				     i, j);
	}
	qsort(b, n, sizeof(*b), by_vaddr);
	for (i = 1; i < n; i++)
		cr_assert_leq(b[i - 1].v + g->size, b[i].v,
			      "%s %zu/%zu/%zu: blocks %p and %p overlap",
			      ops->name, g->size, g->align, g->boundary,
			      b[i - 1].v, b[i].v);

	/* Free in random order; allocating as many again must reuse them. */
	for (i = n - 1; i > 0; i--) {
		struct blk t;

		j = rnd() % (i + 1);
		t = b[i];
		b[i] = b[j];
		b[j] = t;
	}
	for (i = 0; i < n; i++)
		ops->free(p, b[i].v, b[i].d);
	for (i = 0; i < n; i++) {
		b[i].v = ops->alloc(p, &b[i].d);
		check_block(ops, g, cs, &b[i]);
	}
	after = chunks_of(ops, p);
	cr_assert_eq(after->n, cs->n, "%s: the pool grew from %zu to %zu chunks "
		     "instead of reusing freed blocks", ops->name, cs->n,
		     after->n);
	qsort(b, n, sizeof(*b), by_vaddr);
	for (i = 1; i < n; i++)
		cr_assert_leq(b[i - 1].v + g->size, b[i].v,
			      "%s: reused blocks overlap", ops->name);
	for (i = 0; i < n; i++)
		ops->free(p, b[i].v, b[i].d);
	ops->destroy(p);
	free(after);
	free(cs);
	free(b);
	dmapool_dev_put(dev);
}

static void check_geometries(const struct bl_ops *ops)
{
	size_t i;

	for (i = 0; i < NGEOS; i++)
		check_design(ops, &geos[i]);
}

Test(bench, linux_embedded_blocks) { check_geometries(&bl_linux_embedded); }
Test(bench, linux_pagelist_blocks) { check_geometries(&bl_linux_pagelist); }
Test(bench, xarray_fix_blocks) { check_geometries(&bl_xarray_fix); }
Test(bench, dmapool_adapter_blocks) { check_geometries(&bl_dmapool); }
Test(bench, linux_612_blocks) { check_geometries(&bl_linux_612); }

Test(bench, bad_geometry_refused)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	unsigned int i;

	for (i = 0; designs[i]; i++) {
		const struct bl_ops *ops = designs[i];

		cr_assert_null(ops->create(dev, 0, 8, 0), "%s: size 0", ops->name);
		cr_assert_null(ops->create(dev, 64, 3, 0), "%s: align 3", ops->name);
		cr_assert_null(ops->create(dev, 64, 64, 32),
			       "%s: boundary below size", ops->name);
		cr_assert_null(ops->create(dev, 64, 64, 3000),
			       "%s: boundary not a power of two", ops->name);
		cr_assert_null(ops->create(NULL, 64, 64, 0), "%s: no device",
			       ops->name);
	}
	dmapool_dev_put(dev);
}

Test(bench, names_and_lookup)
{
	cr_assert_eq(bl_find("linux-embedded"), &bl_linux_embedded);
	cr_assert_eq(bl_find("linux-pagelist"), &bl_linux_pagelist);
	cr_assert_eq(bl_find("xarray-fix"), &bl_xarray_fix);
	cr_assert_eq(bl_find("dmapool"), &bl_dmapool);
	cr_assert_null(bl_find("nope"));
}

/* Two threads, each with its own blocks, on one pool. */
struct thr {
	const struct bl_ops *ops;
	struct bl_pool *p;
	struct blk b[300];
};

static void *thread_work(void *arg)
{
	struct thr *t = arg;
	int round, i;

	for (round = 0; round < 200; round++) {
		for (i = 0; i < 300; i++) {
			t->b[i].v = t->ops->alloc(t->p, &t->b[i].d);
			if (!t->b[i].v)
				return "alloc failed";
			memset(t->b[i].v, i, 64);
		}
		for (i = 0; i < 300; i++) {
			if (t->b[i].v[63] != (uint8_t)i)
				return "a block changed under its owner";
			if (round < 199)
				t->ops->free(t->p, t->b[i].v, t->b[i].d);
		}
	}
	return NULL;
}

Test(bench, two_threads_share_a_pool)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	static struct thr t[2];
	struct blk all[600];
	pthread_t th[2];
	unsigned int d;
	int i;

	for (d = 0; designs[d]; d++) {
		struct bl_pool *p = designs[d]->create(dev, 64, 64, 0);
		void *ret;

		cr_assert(p);
		for (i = 0; i < 2; i++) {
			t[i].ops = designs[d];
			t[i].p = p;
			cr_assert_eq(pthread_create(&th[i], NULL, thread_work,
						    &t[i]), 0);
		}
		for (i = 0; i < 2; i++) {
			cr_assert_eq(pthread_join(th[i], &ret), 0);
			cr_assert_null(ret, "%s: %s", designs[d]->name,
				       (char *)ret);
		}
		memcpy(all, t[0].b, sizeof(t[0].b));
		memcpy(all + 300, t[1].b, sizeof(t[1].b));
		qsort(all, 600, sizeof(all[0]), by_vaddr);
		for (i = 1; i < 600; i++)
			cr_assert_leq(all[i - 1].v + 64, all[i].v,
				      "%s: two threads got overlapping blocks",
				      designs[d]->name);
		for (i = 0; i < 600; i++)
			designs[d]->free(p, all[i].v, all[i].d);
		designs[d]->destroy(p);
	}
	dmapool_dev_put(dev);
}

/*
 * Faithful to the weakness: a device that rewrites the free list inside a
 * freed block decides what the embedded design returns next.
 */
Test(bench, linux_embedded_follows_forged_link)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct bl_pool *p = bl_emb_create(dev, 64, 64, 0);
	static _Alignas(64) uint8_t target[64];
	dmapool_dma_t d1, d2, d3;
	void *a, *b, *c;
	struct {
		void *next;
		dmapool_dma_t dma;
	} forged = { target, 0xbadd0000ull };

	a = bl_emb_alloc(p, &d1);
	bl_emb_free(p, a, d1);
	memcpy(a, &forged, sizeof(forged));	/* the device writes */
	b = bl_emb_alloc(p, &d2);
	c = bl_emb_alloc(p, &d3);
	cr_assert_eq(b, a);
	/* The dma handed out with a block is the one the device wrote. */
	cr_assert_eq(d2, 0xbadd0000ull);
	cr_assert_eq(c, (void *)target, "the forged next pointer was not followed");
	bl_emb_destroy(p);	/* busy: its page is leaked, as in the kernel */
	dmapool_dev_put(dev);
}

/* The kernel's own code has the same weakness: the reason dmapool exists. */
Test(bench, linux_612_follows_forged_link)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct bl_pool *p = bl_l612_create(dev, 64, 64, 0);
	static _Alignas(64) uint8_t target[64];
	dmapool_dma_t d1, d2, d3;
	void *a, *b, *c;
	struct {
		void *next;
		dmapool_dma_t dma;
	} forged = { target, 0xbadd0000ull };

	cr_assert(p);
	a = dma_pool_alloc((struct dma_pool *)p, BL_L612_GFP, &d1);
	dma_pool_free((struct dma_pool *)p, a, d1);
	memcpy(a, &forged, sizeof(forged));	/* the device writes */
	b = dma_pool_alloc((struct dma_pool *)p, BL_L612_GFP, &d2);
	c = dma_pool_alloc((struct dma_pool *)p, BL_L612_GFP, &d3);
	cr_assert_eq(b, a);
	cr_assert_eq(d2, 0xbadd0000ull,
		     "the dma handed out is not the one the device wrote");
	cr_assert_eq(c, (void *)target, "the forged next pointer was not followed");
	bl_l612_destroy(p);	/* busy: its page is leaked, as in the kernel */
	dmapool_dev_put(dev);
}

/*
 * The kernel's sysfs "pools" file, through the shim's device: the pool's
 * own counters as pools_show() prints them.
 */
Test(bench, linux_612_sysfs_pools)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct bl_pool *p = bl_linux_612.create(dev, 100, 32, 0);
	static char buf[4096];
	char name[32];
	size_t active, blocks, size, pages;
	struct blk b[70];
	int i, n;

	cr_assert(p);
	for (i = 0; i < 70; i++)
		b[i].v = bl_linux_612.alloc(p, &b[i].d);
	n = bl_l612_sysfs_pools(p, buf);
	cr_assert_gt(n, 0, "no sysfs pools file: device_create_file not called?");
	cr_assert_eq(sscanf(buf, "poolinfo - 0.1\n%31s %zu %zu %zu %zu", name,
			    &active, &blocks, &size, &pages), 5,
		     "unexpected pools file: %s", buf);
	cr_assert_str_eq(name, "linux-6.12");
	cr_assert_eq(active, 70);
	cr_assert_eq(size, 128, "100 bytes aligned to 32 is 128");
	/* 4096 / 128 = 32 blocks a page: 70 blocks take 3 pages. */
	cr_assert_eq(pages, 3);
	cr_assert_eq(blocks, 96);
	for (i = 0; i < 70; i++)
		bl_linux_612.free(p, b[i].v, b[i].d);
	n = bl_l612_sysfs_pools(p, buf);
	cr_assert_eq(sscanf(buf, "poolinfo - 0.1\n%31s %zu", name, &active), 2);
	cr_assert_eq(active, 0);
	bl_linux_612.destroy(p);
	dmapool_dev_put(dev);
}

Test(bench, linux_pagelist_follows_forged_offset)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct bl_pool *p = bl_pl_create(dev, 64, 64, 0);
	dmapool_dma_t d1, d2, d3;
	uint8_t *a, *b, *c;
	unsigned int forged = 8;	/* inside block a: misaligned, overlapping */

	a = bl_pl_alloc(p, &d1);
	b = bl_pl_alloc(p, &d2);
	bl_pl_free(p, b, d2);
	memcpy(b, &forged, sizeof(forged));
	cr_assert_eq(bl_pl_alloc(p, &d2), b);
	c = bl_pl_alloc(p, &d3);
	cr_assert_eq(c, a + 8, "the forged offset was not followed");
	bl_pl_destroy(p);
	dmapool_dev_put(dev);
}

Test(bench, xarray_fix_ignores_block_contents)
{
	struct dmapool_dev *dev = dmapool_dev_heap();
	struct bl_pool *p = bl_xa_create(dev, 64, 64, 0);
	static uint8_t target[64];
	dmapool_dma_t d[3];
	uint8_t *v[3];
	int i;

	v[0] = bl_xa_alloc(p, &d[0]);
	bl_xa_free(p, v[0], d[0]);
	memset(v[0], 0, 64);
	memcpy(v[0], &(void *){ target }, sizeof(void *));
	for (i = 0; i < 3; i++) {
		v[i] = bl_xa_alloc(p, &d[i]);
		cr_assert_neq(v[i], target);
	}
	cr_assert_eq(v[1], v[0] + 64);
	for (i = 0; i < 3; i++)
		bl_xa_free(p, v[i], d[i]);
	bl_xa_destroy(p);
	dmapool_dev_put(dev);
}
