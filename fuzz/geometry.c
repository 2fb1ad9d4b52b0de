// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The geometry harness: fuzzed size, align, boundary, chunk size and
 * options through create, full allocation, free and destroy.
 *
 * The input is up to four records, little-endian.  A record is 20 bytes:
 *   size u32, align u32, boundary u32, chunk u32, flags u8, redzone u8,
 *   order u8, chunks u8
 * size is taken modulo 4 MiB + 1 unless it is 3 GiB or more (kept: must be
 * refused); align modulo 2 MiB; boundary and chunk modulo 16 MiB, so
 * powers of two and everything else come up.  flags are DMAPOOL_OPT_* bits
 * shifted left by one (abort-on-violation never); order picks the free
 * order (bits 0-1), zalloc (bit 2), the handle API (bit 3) and chunks
 * from the low arena (bit 4, at addresses below a chunk's length); chunks
 * bits 0-6 modulo 3 give 1 to 3, the number of chunks to fill.  With bit 7 of
 * chunks set, 32 more bytes follow, for the extremes (issue 13):
 *   size_hi u32, align_hi u32, boundary_hi u32, chunk_hi u32: the four
 *       values above are then (hi << 32 | lo), unreduced;
 *   redzone u32 (instead of the byte), quarantine_max u32,
 *   poison_sample u32, flags_hi u16 (DMAPOOL_OPT_* bits 9 and up, known
 *   or not), index u8 (the enum's value, any), reserved u8 (1: reserved32,
 *   2..4: reserved[0..2] set; else none)
 * Without the extension the index is the default and quarantine_max 8.
 *
 * For each record: the create must succeed or fail as the contract says
 * (dpf_judge), a refusal with one bad-geometry report and errno EINVAL.
 * A pool is filled completely, chunk by chunk: every block is checked (in
 * a chunk of the pool, aligned in vaddr and dma, no boundary or page
 * crossed, dma matching vaddr, zeroed by zalloc, no overlap), a chunk
 * holds exactly blocks_per_chunk blocks, the chunk size is what the
 * options and the defaults say (see check_chunk), and without redzones
 * each chunk's block offsets are exactly where the kernel's dma_pool would
 * put them (an independent model of its layout, below).  Then everything
 * is freed in the chosen order, allocated again without growing, freed
 * again, and the pool destroyed with every chunk given back and no report
 * made.  A chunk the arena cannot give (its 64 MiB budget per input) ends
 * the filling early: the allocation that needed it must fail cleanly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "geometry.h"	/* DP_CHUNK_MIN_BLOCKS, DP_OS_CHUNK_DEFAULT_M* */

#define PAGE		4096u
#define MAX_BLOCKS	(3 * 4096)
#define RECORD		20
#define RECORDS		4

struct blk {
	uint8_t *v;
	uint64_t dma;
	uint64_t handle;
};

static struct {
	struct dpf_features feat;
	struct dpf_report cap[8];
	unsigned int ncap;
	struct blk b[MAX_BLOCKS];
	size_t nb;
	uint32_t koff[MAX_BLOCKS];	/* model offsets within one chunk */
	size_t nk;
	bool inited;
} G;

static void capture(const struct dpf_report *r, void *ctx)
{
	(void)ctx;
	dpf_check(G.ncap < 8, "too many reports");
	G.cap[G.ncap++] = *r;
}

/* No report, or exactly one of @kind. */
static void expect_reports(unsigned int n, enum dmapool_report_kind kind)
{
	dpf_check(G.ncap == n, "%u report(s) (first %s), expected %u",
		  G.ncap, G.ncap ? dmapool_report_kind_name(G.cap[0].kind) :
		  "-", n);
	dpf_check(!n || G.cap[0].kind == kind, "report %s, expected %s",
		  dmapool_report_kind_name(G.cap[0].kind),
		  dmapool_report_kind_name(kind));
	G.ncap = 0;
}

/*
 * Where the kernel's dma_pool puts blocks of @size (already rounded to the
 * alignment) in one allocation of max(size, page) bytes: in order, and a
 * block that would cross a multiple of the boundary starts at that
 * multiple instead.
 */
static void kernel_layout(size_t size, size_t boundary)
{
	size_t alloc = size > PAGE ? size : PAGE;
	size_t bnd = boundary && boundary < alloc ? boundary : alloc;
	size_t off = 0, next = bnd;

	G.nk = 0;
	while (off + size <= alloc) {
		if (off + size > next) {
			off = next;
			next += bnd;
			continue;
		}
		G.koff[G.nk++] = (uint32_t)off;
		off += size;
	}
}

static int by_addr(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

static bool crosses(uint64_t a, uint64_t len, uint64_t unit)
{
	return a / unit != (a + len - 1) / unit;
}

static void check_block(const struct blk *b, size_t esize, size_t align,
			size_t boundary, int owner, bool zero)
{
	const struct dpf_chunk *c = dpf_arena_find(b->v);
	size_t i;

	dpf_check(c && c->owner == owner, "block %p outside the pool",
		  (void *)b->v);
	dpf_check(b->v + esize <= c->va + c->len, "block %p runs off its chunk",
		  (void *)b->v);
	dpf_check(b->dma == c->dma + (uint64_t)(b->v - c->va),
		  "block %p dma %#llx does not match its vaddr", (void *)b->v,
		  (unsigned long long)b->dma);
	dpf_check(!((uintptr_t)b->v % align) && !(b->dma % align),
		  "block %p not aligned to %zu", (void *)b->v, align);
	if (boundary)
		dpf_check(!crosses(b->dma, esize, boundary) &&
			  !crosses((uintptr_t)b->v, esize, boundary),
			  "block %p+%zu crosses boundary %zu", (void *)b->v,
			  esize, boundary);
	if (esize <= PAGE)
		dpf_check(!crosses(b->dma, esize, PAGE),
			  "block %p+%zu crosses a page", (void *)b->v, esize);
	if (zero)
		for (i = 0; i < esize; i++)
			dpf_check(!b->v[i], "zalloc block %p not zero at +%zu",
				  (void *)b->v, i);
}

static bool take(struct dmapool *pool, bool zero, bool handle,
		 dmapool_gfp_t gfp, struct blk *out)
{
	gfp |= zero ? DMAPOOL_GFP_ZERO : 0;
	if (handle) {
		struct dmapool_block k = dmapool_alloc_block(pool, gfp);

		out->v = k.vaddr;
		out->dma = k.dma;
		out->handle = k.handle;
	} else {
		dmapool_dma_t d = 0;

		out->v = dmapool_alloc(pool, gfp, &d);
		out->dma = d;
	}
	return out->v != NULL;
}

static void give(struct dmapool *pool, const struct blk *b, bool handle)
{
	if (handle) {
		struct dmapool_block k = { b->v, b->dma, b->handle };

		dmapool_free_block(pool, k);
	} else {
		dmapool_free(pool, b->v, b->dma);
	}
}

/* Free every block in the order @order picks. */
static void free_all(struct dmapool *pool, uint8_t order, bool handle)
{
	size_t i, n = G.nb;
	uint32_t x = 0x2545f491u ^ order;

	switch (order & 3) {
	case 0:
		for (i = 0; i < n; i++)
			give(pool, &G.b[i], handle);
		break;
	case 1:
		for (i = n; i-- > 0;)
			give(pool, &G.b[i], handle);
		break;
	case 2:
		for (i = 0; i < n; i += 2)
			give(pool, &G.b[i], handle);
		for (i = 1; i < n; i += 2)
			give(pool, &G.b[i], handle);
		break;
	default:
		/* A shuffle, then free in that order. */
		for (i = n; i > 1; i--) {
			struct blk t;
			size_t j;

			x = x * 1103515245u + 12345u;
			j = (x >> 8) % i;
			t = G.b[i - 1];
			G.b[i - 1] = G.b[j];
			G.b[j] = t;
		}
		for (i = 0; i < n; i++)
			give(pool, &G.b[i], handle);
		break;
	}
	expect_reports(0, 0);
	G.nb = 0;
}

/* A record's parameters (see the top of the file). */
static void decode(struct dpf_in *in, struct dpf_params *p, uint8_t *order,
		   size_t *nchunks)
{
	uint32_t size = dpf_u32(in), align = dpf_u32(in);
	uint32_t boundary = dpf_u32(in), chunk = dpf_u32(in);
	uint8_t flags = dpf_u8(in), redzone = dpf_u8(in);
	uint8_t n;
	struct dmapool_opts def;

	*order = dpf_u8(in);
	n = dpf_u8(in);
	*nchunks = (n & 0x7f) % 3 + 1;
	memset(p, 0, sizeof(*p));
	p->flags = (unsigned int)flags << 1;
	if (n & 0x80) {
		p->size = (size_t)dpf_u32(in) << 32 | size;
		p->align = (size_t)dpf_u32(in) << 32 | align;
		p->boundary = (size_t)dpf_u32(in) << 32 | boundary;
		p->chunk_size = (size_t)dpf_u32(in) << 32 | chunk;
		p->redzone = dpf_u32(in);
		p->quarantine_max = dpf_u32(in);
		p->poison_sample = dpf_u32(in);
		p->flags |= (unsigned int)dpf_u16(in) << 9;
		p->index = dpf_u8(in);
		p->reserved = dpf_u8(in);
		if (p->reserved > 4)
			p->reserved = 0;
	} else {
		dmapool_opts_init(&def);
		p->size = size >= 0xc0000000u ? size : size % ((4u << 20) + 1);
		p->align = align % (2u << 20);
		p->boundary = boundary % (16u << 20);
		p->chunk_size = chunk % (16u << 20);
		p->redzone = redzone;
		p->quarantine_max = 8;
		p->index = def.index;
	}
	p->flags &= ~DMAPOOL_OPT_ABORT_ON_VIOLATION;
}

/*
 * The chunk size the options ask for: blocks sit in kernel-sized
 * allocations of @base bytes, @per blocks each, and a chunk is a whole
 * number of them.  By default (chunk_size 0) the fewest that hold
 * DP_CHUNK_MIN_BLOCKS blocks and DP_OS_CHUNK_DEFAULT_MIN bytes, or as many
 * as fit in DP_OS_CHUNK_DEFAULT_MAX bytes and one bitmap's 4096 blocks
 * when that is fewer, one at least; one alone when boundary segments
 * leave gaps (@gaps: the chunk stays one segment).  The two numbers are
 * the core's to choose (geometry.h, the shim's os header); the rule is the
 * model's.  An explicit chunk_size is rounded up to a multiple of @base (at
 * most 1 GiB), and may be cut down only where the bitmap of one chunk runs
 * out (it names 4096 positions; a segment's positions are a power of two,
 * so a cut chunk holds more than 2048 - @per blocks).
 */
static void check_chunk(const struct dmapool_stats *st,
			const struct dpf_params *p, uint64_t base,
			uint64_t per, bool gaps)
{
	const uint64_t gib = (uint64_t)1 << 30;
	uint64_t want, n;

	if (!p->chunk_size) {
		n = gaps ? 1 : (DP_CHUNK_MIN_BLOCKS + per - 1) / per;
		if (!gaps && n * base < DP_OS_CHUNK_DEFAULT_MIN)
			n = (DP_OS_CHUNK_DEFAULT_MIN + base - 1) / base;
		while (n > 1 && (n * base > DP_OS_CHUNK_DEFAULT_MAX ||
				 n * per > DP_MAX_BLOCKS_PER_CHUNK))
			n--;
		dpf_check(st->chunk_size == n * base,
			  "default chunk of %llu bytes, expected %llu (%llu blocks of %llu in each %llu bytes)",
			  (unsigned long long)st->chunk_size,
			  (unsigned long long)(n * base),
			  (unsigned long long)per,
			  (unsigned long long)st->block_size,
			  (unsigned long long)base);
		return;
	}
	want = p->chunk_size < gib ? p->chunk_size : gib;
	want = dpf_align_up(want, base);
	if (want > gib)
		want = gib / base * base;
	dpf_check(st->chunk_size && st->chunk_size % base == 0 &&
		  (st->chunk_size == want ||
		   (st->chunk_size < want &&
		    st->blocks_per_chunk + per > 2048)),
		  "chunk of %llu bytes for %zu asked (%llu expected, %llu blocks)",
		  (unsigned long long)st->chunk_size, p->chunk_size,
		  (unsigned long long)want,
		  (unsigned long long)st->blocks_per_chunk);
}

static void one(struct dpf_in *in, int owner)
{
	struct dpf_params p;
	struct blk extra;
	struct dmapool_stats st;
	struct dmapool_opts o;
	struct dmapool_dev *dev;
	struct dmapool *pool;
	enum dpf_verdict v;
	size_t esize, align, i, c, nchunks, filled;
	uint64_t base, b, stride, per;
	unsigned long refused;
	uint8_t order;
	bool zero, handle;

	decode(in, &p, &order, &nchunks);
	zero = order & 4;
	handle = order & 8;
	p.low = order & 0x10;
	dpf_step++;
	dpf_log("%lu: size %zu align %zu boundary %zu chunk %zu flags %#x redzone %u quarantine %u sample %u index %u reserved %u order %u chunks %zu",
		dpf_step, p.size, p.align, p.boundary, p.chunk_size, p.flags,
		p.redzone, p.quarantine_max, p.poison_sample, p.index,
		p.reserved, order, nchunks);

	v = dpf_judge(&p, &G.feat, true, PAGE, &esize);
	dpf_params_to_opts(&p, &o);
	o.seed = 0x6e0 + owner;	/* random placement, reproducibly */
	o.report = NULL;	/* the global sink */
	dev = dpf_arena_dev(owner, p.low);
	dpf_check(dev, "out of host memory");
	errno = 0;
	pool = dmapool_create_opts("geometry", dev, p.size, p.align,
				   p.boundary, &o);
	if (!pool) {
		int e = errno;

		dmapool_dev_put(dev);
		dpf_check(v != DPF_MUST_WORK, "create refused a valid pool");
		dpf_check(e == EINVAL, "create refused with errno %d", e);
		dpf_check(G.ncap != 1 || !strcmp(G.cap[0].name, "geometry"),
			  "bad-geometry names pool \"%s\"", G.cap[0].name);
		dpf_log("  -> refused: %s", G.ncap ? G.cap[0].detail : "?");
		expect_reports(1, DMAPOOL_R_BAD_GEOMETRY);
		return;
	}
	expect_reports(0, 0);
	dpf_check(v != DPF_MUST_FAIL, "create accepted bad geometry");
	align = p.align ? p.align : 1;
	dmapool_get_stats(pool, &st);
	dpf_check(st.block_size == esize, "block size %llu, expected %zu",
		  (unsigned long long)st.block_size, esize);
	/*
	 * The kernel's allocation (base) and boundary in force (b); a block
	 * and its redzone that outgrow that boundary get a power-of-two
	 * segment of their own (a pool whose explicit boundary is too small
	 * for them was refused).
	 */
	base = dpf_pow2_ceil(esize > PAGE ? esize : PAGE);
	b = p.boundary && p.boundary < base ? p.boundary : base;
	stride = esize;
	if (p.redzone) {
		stride = dpf_align_up(esize + p.redzone, align);
		if (stride > b)
			b = base = dpf_pow2_ceil(stride);
	}
	per = base / b * (b / stride);
	dpf_check(st.stride == stride, "stride %llu, expected %llu",
		  (unsigned long long)st.stride, (unsigned long long)stride);
	check_chunk(&st, &p, base, per, b % stride);
	dpf_check(st.blocks_per_chunk == st.chunk_size / base * per,
		  "%llu blocks per %llu-byte chunk, expected %llu in each %llu bytes",
		  (unsigned long long)st.blocks_per_chunk,
		  (unsigned long long)st.chunk_size, (unsigned long long)per,
		  (unsigned long long)base);
	dpf_check(st.blocks_per_chunk && st.blocks_per_chunk <= MAX_BLOCKS / 3,
		  "%llu blocks per chunk", (unsigned long long)st.blocks_per_chunk);
	if (!p.redzone) {
		kernel_layout(esize, p.boundary);
		dpf_check(st.blocks_per_chunk == G.nk * (st.chunk_size / base),
			  "%llu blocks per chunk, the kernel's layout has %zu x %llu",
			  (unsigned long long)st.blocks_per_chunk, G.nk,
			  (unsigned long long)(st.chunk_size / base));
	}

	/*
	 * Fill chunk after chunk; a full pool must refuse to not grow.  Only
	 * a chunk the arena refused may end it early, at a chunk's first
	 * block.
	 */
	G.nb = 0;
	refused = dpf_arena_refusals();
	for (c = filled = 0; c < nchunks; c++) {
		for (i = 0; i < st.blocks_per_chunk; i++) {
			struct blk *b = &G.b[G.nb];

			if (!take(pool, zero, handle,
				  i ? DMAPOOL_GFP_NOGROW : 0, b)) {
				dpf_check(!i && dpf_arena_refusals() != refused,
					  "alloc %zu of chunk %zu failed", i, c);
				break;
			}
			check_block(b, esize, align, p.boundary, owner, zero);
			memset(b->v, 0xa5, esize);
			G.nb++;
		}
		if (i < st.blocks_per_chunk)
			break;
		filled++;
		dpf_check(dpf_arena_count(owner) == c + 1,
			  "%zu chunks for %zu full chunks of blocks",
			  dpf_arena_count(owner), c + 1);
		dpf_check(!take(pool, false, handle, DMAPOOL_GFP_NOGROW,
				&extra),
			  "a full pool handed out a block without growing");
	}
	dpf_check(dpf_arena_count(owner) == filled,
		  "%zu chunks for %zu full chunks of blocks",
		  dpf_arena_count(owner), filled);
	dpf_log("  -> works: block %llu, stride %llu, %llu blocks in chunks of %llu bytes; %zu of %zu filled",
		(unsigned long long)st.block_size,
		(unsigned long long)st.stride,
		(unsigned long long)st.blocks_per_chunk,
		(unsigned long long)st.chunk_size, filled, nchunks);
	expect_reports(0, 0);

	/* No overlap (sorted); per chunk, the kernel's offsets exactly. */
	qsort(G.b, G.nb, sizeof(G.b[0]), by_addr);
	for (i = 1; i < G.nb; i++)
		dpf_check(G.b[i - 1].v + stride <= G.b[i].v,
			  "blocks %p and %p overlap (or leave no redzone)",
			  (void *)G.b[i - 1].v, (void *)G.b[i].v);
	if (!p.redzone) {
		for (i = 0; i < G.nb; i++) {
			const struct dpf_chunk *ch = dpf_arena_find(G.b[i].v);
			size_t off = (size_t)(G.b[i].v - ch->va);
			size_t k = i % st.blocks_per_chunk;
			size_t want = k / G.nk * base + G.koff[k % G.nk];

			dpf_check(off == want,
				  "block %zu of its chunk at +%zu, the kernel puts it at +%zu",
				  k, off, want);
		}
	}

	/* Everything back, everything again without growing, back again. */
	free_all(pool, order, handle);
	dmapool_get_stats(pool, &st);
	dpf_check(!st.blocks_in_use, "%llu blocks in use after freeing all",
		  (unsigned long long)st.blocks_in_use);
	if (!(p.flags & DMAPOOL_OPT_QUARANTINE)) {
		for (i = 0; i < st.blocks_total; i++) {
			dpf_check(take(pool, zero, handle, DMAPOOL_GFP_NOGROW,
				       &G.b[G.nb]),
				  "refill: alloc %zu of %llu failed", i,
				  (unsigned long long)st.blocks_total);
			check_block(&G.b[G.nb], esize, align, p.boundary,
				    owner, zero);
			G.nb++;
		}
		free_all(pool, order + 1, handle);
	}
	dmapool_destroy(pool);
	dpf_rcu_flush();
	expect_reports(0, 0);
	dpf_check(!dpf_arena_count(owner), "destroy kept %zu chunks",
		  dpf_arena_count(owner));
	dmapool_dev_put(dev);
}

static void ignore(const struct dpf_report *r, void *ctx)
{
	(void)r;
	(void)ctx;
}

static void geometry_init(void)
{
	if (G.inited)
		return;
	dpf_env_init();
	dpf_arena_init();
	dpf_dmapool_adapter.init(ignore, NULL);
	dpf_dmapool_adapter.features(&G.feat);
	dpf_dmapool_adapter.init(capture, NULL);
	G.inited = true;
}

int dpf_geometry_run(const uint8_t *data, size_t size)
{
	struct dpf_in in = { data, size };
	int r;

	geometry_init();
	dpf_where = "geometry";
	dpf_step = 0;
	G.ncap = 0;
	dpf_arena_reset();
	for (r = 0; r < RECORDS && dpf_more(&in); r++)
		one(&in, r);
	dpf_arena_reset();
	return 0;
}

#ifndef DPF_NO_ENTRY
DPF_FUZZ_ENTRY(geometry_init, dpf_geometry_run)
#endif
