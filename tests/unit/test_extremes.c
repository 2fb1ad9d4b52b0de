// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * Geometry and option extremes (issue 13): every case runs in a child
 * process of its own with an alarm, so a crash, a hang, an abort or a
 * sanitizer report fails just that case.
 *
 * A case must end one of two ways:
 *  - refused cleanly: dmapool_create_opts() returns NULL with errno EINVAL,
 *    and exactly one report is delivered, to the pool's own sink
 *    (opts.report), of kind bad-geometry, with pool NULL and the name
 *    passed to create in pool_name; the process-wide sink gets nothing;
 *  - or fully working: at least two chunks' worth of blocks allocated (by
 *    alloc, zalloc, the handle API and a bulk call) and freed, each block
 *    inside a chunk at the matching dma, aligned, not crossing the
 *    boundary, none overlapping; zalloc's bytes zero; no report at all;
 *    stats back to zero blocks in use; destroy reports nothing.
 * Where the header says which (the kernel's refusals: size 0, align or
 * boundary not a power of two, boundary below the size; reserved fields;
 * sizes that plainly work) the case also pins it; elsewhere either ending
 * is accepted and the note says which one it was.
 *
 * Lying backends (tests/unit/xdev.h): one that honours a 0-byte request,
 * two that return misaligned memory.  With those the pool may refuse to
 * allocate (NULL), but a block it hands out must lie inside what the
 * backend really gave, and be aligned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "xcheck.h"
#include "xdev.h"

#define GiB	((size_t)1 << 30)
#define CASE_TIMEOUT	300	/* seconds; a 1 GiB case takes a few */
#define MAX_CASES	256

enum expect { EITHER, REFUSE, WORK };

enum backend { B_HEAP, B_PLAIN, B_ZERO_OK, B_MISALIGN, B_MISALIGN_DMA };

struct gcase {
	char name[32];		/* the pool's name too */
	size_t size, align, boundary;
	struct dmapool_opts o;
	enum backend backend;
	enum expect expect;
};

static struct gcase cases[MAX_CASES];
static unsigned int ncases;

/* ---- report sinks ------------------------------------------------------- */

struct sink {
	unsigned int n;
	struct dmapool_report first;
	char first_name[64];
	bool first_name_null;
};

static struct sink pool_sink, global_sink;

static void sink_fn(const struct dmapool_report *r, void *ctx)
{
	struct sink *s = ctx;

	if (!s->n++) {
		s->first = *r;
		s->first_name_null = !r->pool_name;
		snprintf(s->first_name, sizeof(s->first_name), "%s",
			 r->pool_name ? r->pool_name : "");
	}
}

/* ---- one case ----------------------------------------------------------- */

static void check_refused(const struct gcase *c, int err)
{
	CHECK(err == EINVAL, "errno %d (%s), want EINVAL", err, strerror(err));
	CHECK(pool_sink.n == 1, "%u reports to the pool's sink, want 1",
	      pool_sink.n);
	CHECK(pool_sink.first.kind == DMAPOOL_R_BAD_GEOMETRY, "report kind %s",
	      dmapool_report_kind_name(pool_sink.first.kind));
	CHECK(!pool_sink.first_name_null && !strcmp(pool_sink.first_name, c->name),
	      "pool_name \"%s\", want \"%s\"", pool_sink.first_name, c->name);
	CHECK(!pool_sink.first.pool, "a bad-geometry report names a pool");
	CHECK(global_sink.n == 0, "%u reports went to the process-wide sink",
	      global_sink.n);
	NOTE("%s: refused: %s", c->name,
	     pool_sink.first.detail ? pool_sink.first.detail : "(no detail)");
}

static void check_zero(const struct xblk *b, size_t len)
{
	const uint8_t *p = b->v;
	size_t i, head = len < 8192 ? len : 4096;

	for (i = 0; i < head; i++)
		CHECK(!p[i], "zalloc byte %zu is %#x", i, p[i]);
	for (i = len - (len < 8192 ? 0 : 4096); i < len; i++)
		CHECK(!p[i], "zalloc byte %zu is %#x", i, p[i]);
}

#define BULK	4

/*
 * Allocate @n blocks, cycling through alloc, zalloc, the handle API and a
 * bulk call; NULL ends early (returns how many came).
 */
static size_t take(struct dmapool *pool, struct xblk *b, size_t n,
		   size_t len)
{
	size_t i = 0;
	unsigned int step = 0;

	while (i < n) {
		switch (step++ % 4) {
		case 0:
			b[i].handle = 0;
			b[i].v = dmapool_alloc(pool, 0, &b[i].dma);
			break;
		case 1:
			b[i].handle = 0;
			b[i].v = dmapool_zalloc(pool, 0, &b[i].dma);
			if (b[i].v)
				check_zero(&b[i], len);
			break;
		case 2:
			b[i].v = dmapool_alloc_handle(pool, 0, &b[i].dma,
						      &b[i].handle);
			if (b[i].v)
				CHECK(b[i].handle, "a handle of 0");
			break;
		default:
			if (n - i >= BULK) {
				void *v[BULK];
				dmapool_dma_t d[BULK];
				unsigned int k;

				if (dmapool_alloc_bulk(pool, 0, BULK, v, d) !=
				    BULK)
					return i;
				for (k = 0; k < BULK; k++) {
					b[i + k].v = v[k];
					b[i + k].dma = d[k];
					b[i + k].handle = 0;
				}
				i += BULK;
				continue;
			}
			b[i].handle = 0;
			b[i].v = dmapool_alloc(pool, 0, &b[i].dma);
		}
		if (!b[i].v)
			return i;
		i++;
	}
	return n;
}

/* Free in an order that mixes the calls: handles by handle, a bulk call for
 * a run of address frees, the rest one by one (every third zeroed). */
static void give_back(struct dmapool *pool, struct xblk *b, size_t n)
{
	void *v[BULK];
	dmapool_dma_t d[BULK];
	size_t i, nb = 0;

	for (i = n; i-- > 0;) {
		if (b[i].handle) {
			dmapool_free_handle(pool, b[i].v, b[i].dma, b[i].handle);
		} else if (i % 3 == 0) {
			dmapool_free_zero(pool, b[i].v, b[i].dma);
		} else {
			v[nb] = b[i].v;
			d[nb++] = b[i].dma;
			if (nb == BULK) {
				dmapool_free_bulk(pool, nb, v, d);
				nb = 0;
			}
		}
	}
	if (nb)
		dmapool_free_bulk(pool, nb, v, d);
}

static struct dmapool_dev *backend_dev(const struct gcase *c, struct xdev **x)
{
	static const enum xdev_mode mode[] = {
		[B_PLAIN] = XDEV_PLAIN,
		[B_ZERO_OK] = XDEV_ZERO_OK,
		[B_MISALIGN] = XDEV_MISALIGN,
		[B_MISALIGN_DMA] = XDEV_MISALIGN_DMA,
	};
	struct dmapool_dev *dev;

	*x = NULL;
	if (c->backend == B_HEAP) {
		dev = dmapool_dev_heap();
		CHECK(dev);
		return dev;
	}
	*x = xdev_new(mode[c->backend]);
	return (*x)->dev;
}

static void check_working(const struct gcase *c, struct dmapool *pool,
			  const struct xdev *x)
{
	bool lying = c->backend == B_ZERO_OK || c->backend == B_MISALIGN ||
		     c->backend == B_MISALIGN_DMA;
	struct dmapool_stats st;
	struct xblk *b;
	size_t n, got, i, len;

	dmapool_get_stats(pool, &st);
	len = st.block_size;
	CHECK(len >= c->size, "block size %zu below %zu", len, c->size);
	CHECK(st.stride >= len, "stride %llu", (unsigned long long)st.stride);
	CHECK(st.blocks_per_chunk >= 1, "no block per chunk (chunk %llu)",
	      (unsigned long long)st.chunk_size);
	CHECK(st.chunk_size >= st.blocks_per_chunk * len,
	      "chunk of %llu bytes for %llu blocks of %zu",
	      (unsigned long long)st.chunk_size,
	      (unsigned long long)st.blocks_per_chunk, len);
	/* Two chunks' worth; a block more when that is cheap. */
	n = 2 * st.blocks_per_chunk + (st.stride <= 65536);
	b = calloc(n, sizeof(*b));
	CHECK(b);
	got = take(pool, b, n, len);
	if (lying) {
		/* The pool may refuse what the backend gave, not misuse it. */
		NOTE("%s: %zu of %zu blocks from a lying backend (%lu chunks, %lu requests of 0 bytes, %lu bad alignments asked)",
		     c->name, got, n, x->allocs, x->zero_requests,
		     x->bad_align_requests);
	} else {
		CHECK(got == n, "only %zu of %zu blocks (block %zu, %llu per chunk of %llu)",
		      got, n, len, (unsigned long long)st.blocks_per_chunk,
		      (unsigned long long)st.chunk_size);
	}
	xcheck_blocks(pool, b, got, c->align, c->boundary, x);
	for (i = 0; i < got; i++)
		xcheck_tag(&b[i], len, i);
	for (i = 0; i < got; i++)
		xcheck_tag_ok(&b[i], len, i);
	dmapool_get_stats(pool, &st);
	CHECK(st.blocks_in_use == got, "blocks_in_use %llu, holding %zu",
	      (unsigned long long)st.blocks_in_use, got);
	if (!lying)
		CHECK(st.chunks >= 2, "%llu chunks for two chunks' worth",
		      (unsigned long long)st.chunks);
	give_back(pool, b, got);
	dmapool_get_stats(pool, &st);
	CHECK(st.blocks_in_use == 0, "blocks_in_use %llu after freeing all",
	      (unsigned long long)st.blocks_in_use);
	CHECK(st.violations == 0 && pool_sink.n == 0,
	      "%llu violations, %u reports (first: %s)",
	      (unsigned long long)st.violations, pool_sink.n,
	      pool_sink.n ? dmapool_report_kind_name(pool_sink.first.kind) :
			    "-");
	if (x)
		CHECK(x->bad_align_requests == 0,
		      "the pool asked its backend for an alignment that is not a power of two of at least a page");
	NOTE("%s: works: block %zu stride %llu chunk %llu, %llu per chunk, %zu blocks",
	     c->name, len, (unsigned long long)st.stride,
	     (unsigned long long)st.chunk_size,
	     (unsigned long long)st.blocks_per_chunk, got);
	free(b);
}

static void run_case(void *arg)
{
	const struct gcase *c = arg;
	struct dmapool_opts o = c->o;
	struct dmapool *pool;
	struct dmapool_dev *dev;
	struct xdev *x;
	int err;

	dmapool_set_report_handler(sink_fn, &global_sink);
	o.report = sink_fn;
	o.report_ctx = &pool_sink;
	dev = backend_dev(c, &x);
	errno = 0;
	pool = dmapool_create_opts(c->name, dev, c->size, c->align, c->boundary,
				   &o);
	err = errno;
	if (!pool) {
		CHECK(c->expect != WORK, "refused a geometry that must work (errno %d, %u reports: %s)",
		      err, pool_sink.n,
		      pool_sink.n && pool_sink.first.detail ?
			      pool_sink.first.detail : "-");
		check_refused(c, err);
	} else {
		CHECK(c->expect != REFUSE, "created a pool the header says is refused");
		CHECK(pool_sink.n == 0 && global_sink.n == 0,
		      "a report while creating a working pool");
		check_working(c, pool, x);
		dmapool_destroy(pool);
		CHECK(pool_sink.n == 0 && global_sink.n == 0,
		      "a report at destroy (%s)",
		      dmapool_report_kind_name(pool_sink.first.kind));
	}
	if (x) {
		CHECK(x->bad_frees == 0, "the pool gave back a chunk the backend never handed out");
		CHECK(xdev_live(x) == 0, "%u chunks still out after destroy",
		      xdev_live(x));
		xdev_put(x);
	} else {
		dmapool_dev_put(dev);
	}
}

/* ---- the cases ---------------------------------------------------------- */

static struct gcase *add(enum expect e, enum backend be, size_t size,
			 size_t align, size_t boundary, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static struct gcase *add(enum expect e, enum backend be, size_t size,
			 size_t align, size_t boundary, const char *fmt, ...)
{
	struct gcase *c;
	va_list ap;
	int len;

	if (ncases >= MAX_CASES) {
		printf("Bail out! too many cases\n");
		exit(2);
	}
	c = &cases[ncases++];
	va_start(ap, fmt);
	len = vsnprintf(c->name, sizeof(c->name), fmt, ap);
	va_end(ap);
	if (len <= 0 || (size_t)len >= sizeof(c->name)) {
		printf("Bail out! case name too long: %s\n", c->name);
		exit(2);
	}
	c->size = size;
	c->align = align;
	c->boundary = boundary;
	c->backend = be;
	c->expect = e;
	dmapool_opts_init(&c->o);
	return c;
}

static const char *const bname[] = {
	[B_HEAP] = "", [B_PLAIN] = "-plain", [B_ZERO_OK] = "-zero",
	[B_MISALIGN] = "-misv", [B_MISALIGN_DMA] = "-misd",
};

static void size_cases(void)
{
	static const struct { size_t size; const char *n; enum expect e; } s[] = {
		{ 0, "0", REFUSE },
		{ 1, "1", WORK },
		{ SIZE_MAX, "max", EITHER },
		{ SIZE_MAX / 2, "half", EITHER },
		{ GiB - 1, "1g-1", EITHER },
		{ GiB, "1g", EITHER },
		{ GiB + 1, "1g+1", EITHER },
	};
	unsigned int i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		add(s[i].e, B_HEAP, s[i].size, 0, 0, "size-%s", s[i].n);
		add(s[i].e == REFUSE ? REFUSE : EITHER, B_HEAP, s[i].size, 0,
		    0, "size-%s-rz16", s[i].n)->o.redzone = 16;
		/*
		 * With an alignment and a boundary of their own (not for the
		 * sizes that work as 1 GiB blocks: the size cases above have
		 * those, and each costs seconds of page faults).
		 */
		if (s[i].size >= GiB - 1 && s[i].size <= GiB)
			continue;
		add(s[i].e == WORK ? WORK : EITHER, B_HEAP, s[i].size, 4096,
		    0, "size-%s-a4k", s[i].n);
		if (s[i].size && s[i].size <= GiB)
			add(s[i].e, B_HEAP, s[i].size, 8, GiB,
			    "size-%s-a8-b1g", s[i].n);
	}
	/* Boundaries at the top of the range. */
	add(EITHER, B_HEAP, SIZE_MAX / 2, 0, (size_t)1 << 63, "size-half-b2^63");
	add(REFUSE, B_HEAP, SIZE_MAX, 0, (size_t)1 << 63, "size-max-b2^63");
}

static void align_cases(void)
{
	static const struct { size_t align; const char *n; bool pow2; } a[] = {
		{ 0, "0", true },
		{ 3, "3", false },
		{ (size_t)1 << 63, "2^63", true },
		{ GiB, "1g", true },
		{ SIZE_MAX, "max", false },
		{ GiB + 4096, "1g+4k", false },
	};
	static const size_t sizes[] = { 1, 64, 4096 };
	unsigned int i, j;

	for (i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
			/* 1 GiB blocks whatever the size: once is enough. */
			if (a[i].align == GiB && j)
				continue;
			add(!a[i].pow2 ? REFUSE : a[i].align ? EITHER : WORK,
			    B_HEAP, sizes[j], a[i].align, 0, "align-%s-s%zu",
			    a[i].n, sizes[j]);
		}
	/* A power-of-two align above the size: the size rounds up. */
	add(WORK, B_HEAP, 3, 64, 0, "align-64-s3");
	/* Rounded up past the boundary: the kernel refuses it. */
	add(REFUSE, B_HEAP, 3, 8, 4, "align-8-s3-b4");
}

static void boundary_cases(void)
{
	add(REFUSE, B_HEAP, 64, 0, 32, "bound-32-s64");
	add(REFUSE, B_HEAP, 4096, 0, 2048, "bound-2k-s4k");
	add(REFUSE, B_HEAP, 64, 0, 100, "bound-100-s64");
	add(REFUSE, B_HEAP, 64, 0, 3 * 4096, "bound-12k-s64");
	add(REFUSE, B_HEAP, 64, 0, SIZE_MAX, "bound-max-s64");
	add(REFUSE, B_HEAP, 64, 0, SIZE_MAX - 4095, "bound-max-4095-s64");
	add(WORK, B_HEAP, 64, 0, 64, "bound-64-s64");
	add(WORK, B_HEAP, 1, 0, 1, "bound-1-s1");
	add(WORK, B_HEAP, 3000, 0, 4096, "bound-4k-s3000");
	add(WORK, B_HEAP, 64, 0, (size_t)1 << 63, "bound-2^63-s64");
	add(WORK, B_HEAP, 20, 4, 64, "bound-64-s20-a4");
	add(REFUSE, B_HEAP, 64, 3, 64, "bound-64-s64-a3");
}

static void chunk_cases(void)
{
	static const struct { size_t cs; const char *n; enum expect e; } cs[] = {
		{ 0, "0", WORK },
		{ 1, "1", WORK },
		{ 4097, "4097", WORK },
		{ (size_t)1 << 40, "2^40", EITHER },
		{ SIZE_MAX, "max", EITHER },
		{ SIZE_MAX - 4095, "max-4095", EITHER },
	};
	/* size, align, boundary, redzone */
	static const struct { size_t s, a, b; unsigned int rz; const char *n; } g[] = {
		{ 1, 0, 0, 0, "s1" },
		{ 20, 4, 64, 0, "s20b64" },
		{ 64, 0, 0, 0, "s64" },
		{ 4096, 0, 0, 0, "s4k" },
		{ 3000, 0, 4096, 0, "s3000b4k" },
		{ 64, 0, 0, 16, "s64rz16" },
		{ 100, 0, 128, 28, "s100b128rz" },
	};
	static const enum backend be[] = {
		B_HEAP, B_ZERO_OK, B_MISALIGN, B_MISALIGN_DMA,
	};
	unsigned int i, j, k;

	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
		for (j = 0; j < sizeof(g) / sizeof(g[0]); j++)
			for (k = 0; k < sizeof(be) / sizeof(be[0]); k++) {
				/* The lying backends on a few geometries. */
				if (be[k] != B_HEAP && j > 2 && j != 4)
					continue;
				add(be[k] == B_HEAP ? cs[i].e : EITHER, be[k],
				    g[j].s, g[j].a, g[j].b, "cs-%s-%s%s",
				    cs[i].n, g[j].n, bname[be[k]])
					->o.chunk_size = cs[i].cs;
				cases[ncases - 1].o.redzone = g[j].rz;
			}
	/* The lying backends with the defaults. */
	for (k = 1; k < sizeof(be) / sizeof(be[0]); k++) {
		add(EITHER, be[k], 64, 0, 0, "lying-s64%s", bname[be[k]]);
		add(EITHER, be[k], 8192, 8192, 0, "lying-s8k-a8k%s",
		    bname[be[k]]);
	}
	add(WORK, B_PLAIN, 64, 0, 0, "honest-s64-plain");
}

static void option_cases(void)
{
	/*
	 * The ones that work are kept to 16 MiB: a working 1 GiB redzone is
	 * filled and checked a GiB per block (half a minute under ASan).
	 */
	static const unsigned int rz[] = {
		UINT_MAX, 1u << 31, (1u << 30) + 1, 1u << 30, (1u << 30) - 1,
		1u << 24, 65536,
	};
	static const unsigned int qmax[] = {
		UINT_MAX, (1u << 20) + 1, 1u << 20, 1,
	};
	/*
	 * Not ~0u: that includes DMAPOOL_OPT_ABORT_ON_VIOLATION, and the pool
	 * honours it for the bad-geometry report (it aborts, as asked).
	 */
	static const unsigned int bad_flags[] = {
		0x200, 0x8000, 0x80000000u, ~DMAPOOL_OPT_ABORT_ON_VIOLATION,
	};
	static const unsigned int bad_index[] = { 3, 99, INT_MAX, UINT_MAX };
	unsigned int i;

	for (i = 0; i < sizeof(rz) / sizeof(rz[0]); i++) {
		add(EITHER, B_HEAP, 64, 0, 0, "rz-%u-s64", rz[i])->o.redzone =
			rz[i];
		add(EITHER, B_HEAP, 4096, 0, 4096, "rz-%u-s4k-b4k", rz[i])
			->o.redzone = rz[i];
		if (rz[i] >= 1u << 30) {
			add(EITHER, B_HEAP, 1, 0, 0, "rz-%u-s1-csmax", rz[i]);
			cases[ncases - 1].o.redzone = rz[i];
			cases[ncases - 1].o.chunk_size = SIZE_MAX;
		} else if (rz[i] <= 1u << 24) {
			add(EITHER, B_HEAP, 1, 0, 0, "rz-%u-s1", rz[i])
				->o.redzone = rz[i];
		}
	}
	for (i = 0; i < sizeof(qmax) / sizeof(qmax[0]); i++) {
		struct gcase *c = add(EITHER, B_HEAP, 64, 0, 0, "qmax-%u",
				      qmax[i]);

		c->o.flags = DMAPOOL_OPT_QUARANTINE;
		c->o.quarantine_max = qmax[i];
		add(EITHER, B_HEAP, 64, 0, 0, "qmax-%u-noflag", qmax[i])
			->o.quarantine_max = qmax[i];
	}
	for (i = 0; i < sizeof(bad_flags) / sizeof(bad_flags[0]); i++) {
		add(REFUSE, B_HEAP, 64, 0, 0, "flags-%#x", bad_flags[i])
			->o.flags = bad_flags[i];
		add(REFUSE, B_HEAP, 64, 0, 0, "flags-poison|%#x", bad_flags[i])
			->o.flags = bad_flags[i] | DMAPOOL_OPT_POISON;
	}
	for (i = 0; i < sizeof(bad_index) / sizeof(bad_index[0]); i++)
		add(REFUSE, B_HEAP, 64, 0, 0, "index-%u", bad_index[i])
			->o.index = (enum dmapool_index_kind)bad_index[i];
	for (i = 0; i < 3; i++) {
		add(REFUSE, B_HEAP, 64, 0, 0, "reserved-%u", i)->o.reserved[i] =
			(uint64_t)1 << (21 * i);
		add(REFUSE, B_HEAP, 64, 0, 0, "reserved-%u-max", i)
			->o.reserved[i] = UINT64_MAX;
	}
	add(REFUSE, B_HEAP, 64, 0, 0, "reserved32")->o.reserved32 = 1;
	add(REFUSE, B_HEAP, 64, 0, 0, "reserved32-max")->o.reserved32 = UINT_MAX;
	/* Size and option errors at once: still one report. */
	add(REFUSE, B_HEAP, 0, 3, 1, "size0-align3-flags")->o.flags = 0x4000;
	/* Large values of the fields that are allowed any value. */
	add(WORK, B_HEAP, 64, 0, 0, "reserve-max-autoshrink");
	cases[ncases - 1].o.flags = DMAPOOL_OPT_AUTO_SHRINK;
	cases[ncases - 1].o.reserve_chunks = SIZE_MAX;
	add(WORK, B_HEAP, 64, 0, 0, "seed-max-random");
	cases[ncases - 1].o.flags = DMAPOOL_OPT_RANDOM;
	cases[ncases - 1].o.seed = UINT64_MAX;
	add(EITHER, B_HEAP, 64, 0, 0, "sample-max")->o.poison_sample = UINT_MAX;
	cases[ncases - 1].o.flags = DMAPOOL_OPT_POISON_SAMPLED;
	add(EITHER, B_HEAP, 64, 0, 0, "sample-1")->o.poison_sample = 1;
	cases[ncases - 1].o.flags = DMAPOOL_OPT_POISON_SAMPLED;
	add(EITHER, B_HEAP, 64, 0, 0, "sample-noflag")->o.poison_sample = 8;
	/* Every option at its largest at once. */
	add(EITHER, B_HEAP, 64, 0, 0, "all-max")->o.flags =
		DMAPOOL_OPT_POISON | DMAPOOL_OPT_QUARANTINE |
		DMAPOOL_OPT_SCRUB | DMAPOOL_OPT_RANDOM |
		DMAPOOL_OPT_AUTO_SHRINK | DMAPOOL_OPT_SHARED;
	cases[ncases - 1].o.chunk_size = SIZE_MAX;
	cases[ncases - 1].o.redzone = UINT_MAX;
	cases[ncases - 1].o.quarantine_max = UINT_MAX;
	cases[ncases - 1].o.reserve_chunks = SIZE_MAX;
}

int main(int argc, char **argv)
{
	unsigned int i;
	char name[64];

	tap_init(argc, argv);
	size_cases();
	align_cases();
	boundary_cases();
	chunk_cases();
	option_cases();
	for (i = 0; i < ncases; i++) {
		snprintf(name, sizeof(name), "geometry/%s", cases[i].name);
		tap_run(name, CASE_TIMEOUT, run_case, &cases[i]);
	}
	return tap_done();
}
