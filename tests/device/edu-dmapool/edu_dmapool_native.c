// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The native API (<dmapool/kernel.h>) with a real device: round trips, the
 * dma_pool attack played by edu against dmapool, a device overrun.
 *
 * Every edu transfer is at most EDU_DMA_MAX bytes at offset 0 of the
 * device's buffer (edu.h: QEMU 7.2 dies on a transfer that touches the
 * buffer's last byte) and takes ~100 ms of the model's timer, so each
 * scenario does only the transfers it needs.
 */
#include <linux/dma-mapping.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "edu_dmapool.h"

#define EDU_GFP		((__force dmapool_gfp_t)GFP_KERNEL)

struct edu_blk {
	u8 *v;
	dma_addr_t d;
	u64 handle;
};

static void *edu_alloc(struct dmapool *pool, dmapool_gfp_t gfp, dma_addr_t *d)
{
	dmapool_dma_t dma = 0;
	void *v = dmapool_alloc(pool, gfp, &dma);

	*d = (dma_addr_t)dma;
	return v;
}

/* ---- round trips ---------------------------------------------------- */

enum edu_api { EDU_API_ALLOC, EDU_API_ZALLOC, EDU_API_HANDLE };

static const char *const edu_api_names[] = {
	[EDU_API_ALLOC] = "dmapool_alloc",
	[EDU_API_ZALLOC] = "dmapool_zalloc",
	[EDU_API_HANDLE] = "dmapool_alloc_block",
};

struct edu_geometry {
	size_t size, align, boundary;
	enum edu_api api;
};

/* One page per chunk in each, and enough blocks for two chunks. */
static const struct edu_geometry edu_geometries[] = {
	{ 64, 64, 0, EDU_API_ALLOC },
	{ 256, 256, 0, EDU_API_HANDLE },
	{ 2048, 2048, 0, EDU_API_ALLOC },
	{ 68, 32, 4096, EDU_API_ZALLOC },
};

static bool edu_rt_alloc(struct edu_ctx *ctx, struct dmapool *pool,
			 const struct edu_geometry *g, struct edu_blk *b,
			 const char *what)
{
	struct dmapool_block blk;
	dmapool_dma_t dma = 0;

	switch (g->api) {
	case EDU_API_HANDLE:
		blk = dmapool_alloc_block(pool, EDU_GFP);
		b->v = blk.vaddr;
		b->d = (dma_addr_t)blk.dma;
		b->handle = blk.handle;
		break;
	case EDU_API_ZALLOC:
		b->v = dmapool_zalloc(pool, EDU_GFP, &dma);
		b->d = (dma_addr_t)dma;
		if (b->v && !edu_check(ctx, edu_all_bytes(b->v, g->size, 0),
				       "%s: zalloc'd block %px not zeroed",
				       what, b->v))
			return false;
		break;
	default:
		b->v = edu_alloc(pool, EDU_GFP, &b->d);
		break;
	}
	return edu_block_valid(ctx, pool, b->v, b->d, g->align, what);
}

static void edu_rt_free(struct dmapool *pool, const struct edu_geometry *g,
			struct edu_blk *b)
{
	if (g->api == EDU_API_HANDLE)
		dmapool_free_handle(pool, b->v, b->d, b->handle);
	else
		dmapool_free(pool, b->v, b->d);
}

/*
 * Block @src -> edu -> block @dst, @len bytes; then @dst must hold @src's
 * bytes, and gets its own pattern back for the final check.
 */
static bool edu_rt_pair(struct edu_ctx *ctx, struct edu_blk *blks,
			unsigned int src, unsigned int dst, size_t bsize,
			unsigned int len, const char *what)
{
	int ret;

	ret = edu_dma_from_ram(ctx->bar, blks[src].d, 0, len);
	if (!edu_check(ctx, !ret, "%s: edu DMA block %u -> device: %d",
		       what, src, ret))
		return false;
	ret = edu_dma_to_ram(ctx->bar, 0, blks[dst].d, len);
	if (!edu_check(ctx, !ret, "%s: edu DMA device -> block %u: %d",
		       what, dst, ret))
		return false;
	if (!edu_check(ctx, edu_is_fill(blks[dst].v, len, (u8)src),
		       "%s: block %u does not hold block %u's bytes after the DMA (first bytes %*ph)",
		       what, dst, src, 8, blks[dst].v))
		return false;
	/* The rest of @dst is still its own: compare before restoring. */
	if (len < bsize) {
		u8 *own = kmalloc(bsize, GFP_KERNEL);
		bool same;

		if (!edu_check(ctx, own, "%s: kmalloc", what))
			return false;
		edu_fill(own, bsize, (u8)dst);
		same = !memcmp(blks[dst].v + len, own + len, bsize - len);
		kfree(own);
		if (!edu_check(ctx, same,
			       "%s: block %u changed past the %u bytes transferred",
			       what, dst, len))
			return false;
	}
	edu_fill(blks[dst].v, bsize, (u8)dst);
	return true;
}

static void edu_roundtrip(struct edu_ctx *ctx, const struct edu_geometry *g)
{
	struct dmapool_stats st;
	struct edu_blk *blks;
	struct dmapool *pool;
	unsigned int i, n, len, intact = 0;
	size_t bsize;
	phys_addr_t pa;
	char what[48];

	snprintf(what, sizeof(what), "round trip %zu/%zu/%zu", g->size,
		 g->align, g->boundary);
	pool = dmapool_create("edu-rt", dmapool_kdev(&ctx->pdev->dev),
			      g->size, g->align, g->boundary);
	if (!edu_check(ctx, pool, "%s: dmapool_create", what))
		return;
	dmapool_get_stats(pool, &st);
	bsize = st.block_size;
	n = st.blocks_per_chunk + 2;
	len = min_t(size_t, g->size, EDU_DMA_MAX);
	blks = kcalloc(n, sizeof(*blks), GFP_KERNEL);
	if (!edu_check(ctx, blks, "%s: kcalloc", what))
		goto out_destroy;
	for (i = 0; i < n; i++) {
		if (!edu_rt_alloc(ctx, pool, g, &blks[i], what))
			goto out_free;
		edu_fill(blks[i].v, bsize, (u8)i);
	}
	dmapool_get_stats(pool, &st);
	pa = edu_cpu_phys(blks[0].v);
	edu_check(ctx, pa != blks[0].d,
		  "%s: dma %pad equals the physical address: no IOMMU translation",
		  what, &blks[0].d);

	/* From the first chunk to the second, and back. */
	if (!edu_rt_pair(ctx, blks, 0, n - 1, bsize, len, what) ||
	    !edu_rt_pair(ctx, blks, n - 2, 1, bsize, len, what))
		goto out_free;
	for (i = 0; i < n; i++)
		intact += edu_is_fill(blks[i].v, bsize, (u8)i);
	if (edu_check(ctx, intact == n, "%s: %u of %u blocks changed",
		      what, n - intact, n))
		edu_say("%s (%s): %u blocks in %llu chunks (block %px at physical %pa is dma %pad), edu DMA block 0 -> device -> block %u and block %u -> device -> block 1, %u bytes each: data OK, every other block untouched",
			what, edu_api_names[g->api], n, st.chunks, blks[0].v,
			&pa, &blks[0].d, n - 1, n - 2, len);
out_free:
	for (i = 0; i < n; i++)
		if (blks[i].v)
			edu_rt_free(pool, g, &blks[i]);
	dmapool_get_stats(pool, &st);
	edu_check(ctx, st.blocks_in_use == 0 && st.violations == 0,
		  "%s: after freeing: %llu blocks in use, %llu violations",
		  what, st.blocks_in_use, st.violations);
	kfree(blks);
out_destroy:
	dmapool_destroy(pool);
}

/* ---- the attack ----------------------------------------------------- */

#define EDU_LIVE	8	/* blocks the driver keeps through the attack */
#define EDU_AFTER	16	/* allocations after it: a chunk's worth or more */
#define EDU_V2_OFF	136	/* where the second write lands in its block */

struct edu_attack_state {
	const char *tag;
	bool poison;
	struct dmapool *pool;
	struct edu_blk live[EDU_LIVE];
	struct edu_blk victim[2];
	size_t victim_off[2];	/* where the device wrote in each */
	struct edu_blk after[EDU_AFTER];
	unsigned int n_after;
	int back[2];		/* index in after[] of each victim, or -1 */
	struct edu_forged_block forged;
};

/*
 * What a report of the write into victim @k must say: the first byte the
 * device changed (a forged byte equal to the poison byte changes nothing)
 * and how many it changed.
 */
static void edu_expect(const struct edu_attack_state *s, unsigned int k,
		       size_t *offset, u64 *count)
{
	const u8 *f = (const u8 *)&s->forged;
	unsigned int i;
	bool first = true;

	*count = 0;
	*offset = s->victim_off[k];
	for (i = 0; i < sizeof(s->forged); i++) {
		if (f[i] == DMAPOOL_POISON_BYTE)
			continue;
		if (first)
			*offset = s->victim_off[k] + i;
		first = false;
		(*count)++;
	}
}

/* The report for victim @k (@r) says what the device did, exactly. */
static bool edu_check_report(struct edu_ctx *ctx, struct edu_attack_state *s,
			     unsigned int k, const struct edu_report *r)
{
	const struct edu_blk *v = &s->victim[k];
	size_t offset;
	u64 count;

	edu_expect(s, k, &offset, &count);
	if (!edu_check(ctx, r->kind == DMAPOOL_R_DEVICE_WRITE_AFTER_FREE &&
		       r->block == v->v && r->block_dma == v->d &&
		       r->offset == offset && r->count == count &&
		       !strcmp(r->pool_name, "edu-poison"),
		       "%s: report %s pool \"%s\" block %px/%pad offset %zu count %llu; want device-write-after-free block %px/%pad offset %zu count %llu",
		       s->tag, dmapool_report_kind_name(r->kind), r->pool_name,
		       r->block, &r->block_dma, r->offset, r->count, v->v,
		       &v->d, offset, count))
		return false;
	/* The bytes it quotes are the device's, still in the block. */
	if (!edu_check(ctx, r->found_len == 16 &&
		       !memcmp(r->found, v->v + r->offset, r->found_len),
		       "%s: report quotes %*ph, block holds %*ph", s->tag,
		       (int)r->found_len, r->found, 16, v->v + r->offset))
		return false;
	edu_say("%s: dmapool reported device-write-after-free: pool \"%s\" block %px (dma %pad) offset %zu, %llu bytes changed, found %*ph (REPORTED)",
		s->tag, r->pool_name, r->block, &r->block_dma, r->offset,
		r->count, (int)r->found_len, r->found);
	return true;
}

/* Allocate every block of the scenario; the victims are freed next. */
static bool edu_attack_setup(struct edu_ctx *ctx, struct edu_attack_state *s)
{
	unsigned int i;

	for (i = 0; i < EDU_LIVE; i++) {
		struct edu_blk *b = &s->live[i];

		/* The victims sit between live blocks. */
		if (i == EDU_LIVE / 2) {
			s->victim[0].v = edu_alloc(s->pool, EDU_GFP,
						   &s->victim[0].d);
			s->victim[1].v = edu_alloc(s->pool, EDU_GFP,
						   &s->victim[1].d);
			if (!edu_block_valid(ctx, s->pool, s->victim[0].v,
					     s->victim[0].d, EDU_ATTACK_ALIGN,
					     s->tag) ||
			    !edu_block_valid(ctx, s->pool, s->victim[1].v,
					     s->victim[1].d, EDU_ATTACK_ALIGN,
					     s->tag))
				return false;
		}
		b->v = edu_alloc(s->pool, EDU_GFP, &b->d);
		if (!edu_block_valid(ctx, s->pool, b->v, b->d,
				     EDU_ATTACK_ALIGN, s->tag))
			return false;
		edu_fill(b->v, EDU_ATTACK_SIZE, (u8)(0x40 + i));
	}
	return true;
}

/*
 * The device's write: the forged header into the first freed block at
 * offset 0 (exactly what edu_attack.c writes into the kernel's pool), and
 * again at EDU_V2_OFF into the second (a late DMA of some descriptor).
 */
static bool edu_attack_write(struct edu_ctx *ctx, struct edu_attack_state *s)
{
	int ret;

	s->victim_off[0] = 0;
	s->victim_off[1] = EDU_V2_OFF;
	edu_forge(ctx, &s->forged);
	ret = edu_load_device(ctx, &s->forged, 0, sizeof(s->forged));
	if (!edu_check(ctx, !ret, "%s: edu DMA staging -> device: %d",
		       s->tag, ret))
		return false;
	ret = edu_dma_to_ram(ctx->bar, 0, s->victim[0].d, sizeof(s->forged));
	if (!edu_check(ctx, !ret, "%s: edu DMA device -> freed block: %d",
		       s->tag, ret))
		return false;
	ret = edu_dma_to_ram(ctx->bar, 0, s->victim[1].d + EDU_V2_OFF,
			     sizeof(s->forged));
	if (!edu_check(ctx, !ret, "%s: edu DMA device -> freed block: %d",
		       s->tag, ret))
		return false;
	if (!edu_check(ctx, !memcmp(s->victim[0].v, &s->forged,
				    sizeof(s->forged)) &&
		       !memcmp(s->victim[1].v + EDU_V2_OFF, &s->forged,
			       sizeof(s->forged)),
		       "%s: the device's write did not land in the freed blocks",
		       s->tag))
		return false;
	edu_say("%s: edu DMA wrote { next=%#llx, dma=%#llx } (the bytes that hijack the kernel's dma_pool) into freed block %px/%pad at +0 and freed block %px/%pad at +%d (read back: landed)",
		s->tag, s->forged.next, s->forged.dma, s->victim[0].v,
		&s->victim[0].d, s->victim[1].v, &s->victim[1].d, EDU_V2_OFF);
	return true;
}

/* One allocation after the write: valid, its own, overlapping nothing. */
static bool edu_attack_alloc_one(struct edu_ctx *ctx,
				 struct edu_attack_state *s)
{
	unsigned int i = s->n_after, seen, k, want;
	struct edu_blk *b = &s->after[i];

	seen = edu_reports_seen(ctx);
	b->v = edu_alloc(s->pool, EDU_GFP, &b->d);
	if (!edu_block_valid(ctx, s->pool, b->v, b->d, EDU_ATTACK_ALIGN,
			     s->tag))
		return false;
	s->n_after++;
	for (k = 0; k < EDU_LIVE; k++)
		if (!edu_check(ctx, !edu_overlap(b->v, EDU_ATTACK_SIZE,
						 s->live[k].v, EDU_ATTACK_SIZE),
			       "%s: allocation %u %px overlaps live block %px",
			       s->tag, i, b->v, s->live[k].v))
			return false;
	for (k = 0; k < i; k++)
		if (!edu_check(ctx, !edu_overlap(b->v, EDU_ATTACK_SIZE,
						 s->after[k].v,
						 EDU_ATTACK_SIZE),
			       "%s: allocation %u %px overlaps allocation %u",
			       s->tag, i, b->v, k))
			return false;
	/* A victim comes back as itself, with its own dma. */
	want = 0;
	for (k = 0; k < 2; k++) {
		if (b->v != s->victim[k].v)
			continue;
		s->back[k] = i;
		want = s->poison;
		if (!edu_check(ctx, b->d == s->victim[k].d,
			       "%s: block %px came back with dma %pad, not its own %pad",
			       s->tag, b->v, &b->d, &s->victim[k].d))
			return false;
	}
	/* A report, if any, comes with the allocation of its block. */
	return edu_check(ctx, edu_reports_seen(ctx) - seen == want,
			 "%s: allocation %u (%px) brought %u reports, want %u",
			 s->tag, i, b->v, edu_reports_seen(ctx) - seen, want);
}

/*
 * The device agrees with the pool: what the CPU writes at a reused victim's
 * vaddr is what edu reads at the dma the pool gave with it.
 */
static bool edu_attack_device_agrees(struct edu_ctx *ctx,
				     struct edu_attack_state *s)
{
	struct edu_blk *v = &s->after[s->back[0]];
	struct edu_blk *dst = &s->after[EDU_AFTER - 1];
	int ret;

	edu_fill(v->v, EDU_ATTACK_SIZE, 0x77);
	memset(dst->v, 0, EDU_ATTACK_SIZE);
	ret = edu_dma_from_ram(ctx->bar, v->d, 0, EDU_ATTACK_SIZE);
	if (!ret)
		ret = edu_dma_to_ram(ctx->bar, 0, dst->d, EDU_ATTACK_SIZE);
	return edu_check(ctx, !ret && edu_is_fill(dst->v, EDU_ATTACK_SIZE, 0x77),
			 "%s: edu DMA through the reused block %px/%pad: %d, data %s",
			 s->tag, v->v, &v->d, ret,
			 ret ? "not moved" : "differ");
}

static void edu_attack_after(struct edu_ctx *ctx, struct edu_attack_state *s)
{
	struct dmapool_stats st;
	struct edu_report r;
	unsigned int i, k, intact = 0, want = s->poison ? 2 : 0;

	s->back[0] = -1;
	s->back[1] = -1;
	for (i = 0; i < EDU_AFTER; i++)
		if (!edu_attack_alloc_one(ctx, s))
			return;
	if (!edu_check(ctx, s->back[0] >= 0 && s->back[1] >= 0,
		       "%s: the freed blocks were not handed out again in %d allocations",
		       s->tag, EDU_AFTER))
		return;
	for (i = 0; i < EDU_LIVE; i++)
		intact += edu_is_fill(s->live[i].v, EDU_ATTACK_SIZE,
				      (u8)(0x40 + i));
	dmapool_get_stats(s->pool, &st);
	if (!edu_check(ctx, intact == EDU_LIVE, "%s: %u live blocks changed",
		       s->tag, EDU_LIVE - intact) ||
	    !edu_check(ctx, edu_target_intact(ctx),
		       "%s: the device-chosen page was written", s->tag) ||
	    !edu_check(ctx, st.blocks_in_use == EDU_LIVE + EDU_AFTER &&
		       st.violations == want &&
		       st.by_kind[DMAPOOL_R_DEVICE_WRITE_AFTER_FREE] == want,
		       "%s: stats: %llu blocks in use (want %d), %llu violations (want %u)",
		       s->tag, st.blocks_in_use, EDU_LIVE + EDU_AFTER,
		       st.violations, want) ||
	    !edu_check(ctx, edu_reports_seen(ctx) == want,
		       "%s: %u reports, want %u", s->tag,
		       edu_reports_seen(ctx), want))
		return;
	/* The reports first: they quote bytes the device left in the blocks. */
	for (k = 0; k < want; k++) {
		const struct edu_blk *v = NULL;
		unsigned int j;

		if (!edu_check(ctx, edu_report_get(ctx, k, &r),
			       "%s: report %u missing", s->tag, k))
			return;
		for (j = 0; j < 2; j++)
			if (r.block == s->victim[j].v)
				v = &s->victim[j];
		if (!edu_check(ctx, v, "%s: report for block %px, not a victim",
			       s->tag, r.block))
			return;
		if (!edu_check_report(ctx, s, v - s->victim, &r))
			return;
	}
	if (!edu_attack_device_agrees(ctx, s))
		return;
	edu_say("%s: %d allocations after the device write: every one a valid block of the pool with its own dma (in a chunk, at a block start, vaddr/dma matching; edu DMA through the reused block %px/%pad agrees), none at the device-chosen %px/%pad, no overlap with the %d live blocks or each other, live blocks and the target page untouched (INTACT)",
		s->tag, EDU_AFTER, s->after[s->back[0]].v,
		&s->after[s->back[0]].d, ctx->target, &ctx->target_dma,
		EDU_LIVE);
}

/*
 * The attack against a native pool (@flags: 0 or DMAPOOL_OPT_POISON), in
 * edu_attack.c's geometry, with live blocks around the victims.
 */
static void edu_attack(struct edu_ctx *ctx, const char *tag,
		       unsigned int flags)
{
	struct edu_attack_state *s;
	struct dmapool_opts o;
	struct dmapool_stats st;
	unsigned int i, seen;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!edu_check(ctx, s, "%s: kzalloc", tag))
		return;
	s->tag = tag;
	s->poison = flags & DMAPOOL_OPT_POISON;
	edu_reports_reset(ctx);
	edu_pool_opts(ctx, &o, flags);
	s->pool = dmapool_create_opts(s->poison ? "edu-poison" : "edu-native",
				      dmapool_kdev(&ctx->pdev->dev),
				      EDU_ATTACK_SIZE, EDU_ATTACK_ALIGN, 0,
				      &o);
	if (!edu_check(ctx, s->pool, "%s: dmapool_create_opts", tag))
		goto out;
	if (edu_attack_setup(ctx, s)) {
		dmapool_free(s->pool, s->victim[0].v, s->victim[0].d);
		dmapool_free(s->pool, s->victim[1].v, s->victim[1].d);
		if (edu_attack_write(ctx, s))
			edu_attack_after(ctx, s);
	}
	/* Everything goes back, and the pool takes it without a word. */
	seen = edu_reports_seen(ctx);
	for (i = 0; i < EDU_LIVE; i++)
		if (s->live[i].v)
			dmapool_free(s->pool, s->live[i].v, s->live[i].d);
	for (i = 0; i < s->n_after; i++)
		dmapool_free(s->pool, s->after[i].v, s->after[i].d);
	dmapool_get_stats(s->pool, &st);
	edu_check(ctx, st.blocks_in_use == 0 || ctx->fails,
		  "%s: %llu blocks in use after freeing everything", tag,
		  st.blocks_in_use);
	dmapool_destroy(s->pool);
	edu_check(ctx, edu_reports_seen(ctx) == seen,
		  "%s: %u reports while freeing and destroying", tag,
		  edu_reports_seen(ctx) - seen);
out:
	kfree(s);
}

/* ---- a device overrun into a redzone -------------------------------- */

#define EDU_REDZONE	16
#define EDU_OVERRUN	8	/* bytes the device writes past the block */

static void edu_overrun(struct edu_ctx *ctx)
{
	const char *tag = "redzone";
	struct edu_blk b[3] = { };
	struct dmapool_opts o;
	struct dmapool_stats st;
	struct dmapool *pool;
	struct edu_report r;
	unsigned int i, len = EDU_ATTACK_SIZE + EDU_OVERRUN;
	u8 *data;
	int ret;

	data = kmalloc(len, GFP_KERNEL);
	if (!edu_check(ctx, data, "%s: kmalloc", tag))
		return;
	edu_reports_reset(ctx);
	edu_pool_opts(ctx, &o, 0);
	o.redzone = EDU_REDZONE;
	pool = dmapool_create_opts("edu-redzone", dmapool_kdev(&ctx->pdev->dev),
				   EDU_ATTACK_SIZE, EDU_ATTACK_ALIGN, 0, &o);
	if (!edu_check(ctx, pool, "%s: dmapool_create_opts", tag))
		goto out;
	for (i = 0; i < ARRAY_SIZE(b); i++) {
		b[i].v = edu_alloc(pool, EDU_GFP, &b[i].d);
		if (!edu_block_valid(ctx, pool, b[i].v, b[i].d,
				     EDU_ATTACK_ALIGN, tag))
			goto out_free;
		edu_fill(b[i].v, EDU_ATTACK_SIZE, (u8)(0x20 + i));
	}
	/*
	 * The driver programs the device with a length 8 bytes too long:
	 * edu writes 512 bytes of data and 8 bytes of 0xff past the end of
	 * the block (the redzone's bytes are never 0x00 or 0xff).
	 */
	edu_fill(data, EDU_ATTACK_SIZE, 0x99);
	memset(data + EDU_ATTACK_SIZE, 0xff, EDU_OVERRUN);
	ret = edu_load_device(ctx, data, 0, len);
	if (!ret)
		ret = edu_dma_to_ram(ctx->bar, 0, b[0].d, len);
	if (!edu_check(ctx, !ret, "%s: edu DMA of %u bytes into block %px/%pad: %d",
		       tag, len, b[0].v, &b[0].d, ret) ||
	    !edu_check(ctx, !memcmp(b[0].v, data, len),
		       "%s: the device's write did not land", tag) ||
	    !edu_check(ctx, edu_is_fill(b[1].v, EDU_ATTACK_SIZE, 0x21) &&
		       edu_is_fill(b[2].v, EDU_ATTACK_SIZE, 0x22),
		       "%s: a neighbouring block changed", tag))
		goto out_free;
	edu_say("%s: edu DMA wrote %u bytes into the %d-byte block %px/%pad: %d bytes past its end, into its %d-byte redzone (read back: landed; neighbours untouched)",
		tag, len, EDU_ATTACK_SIZE, b[0].v, &b[0].d, EDU_OVERRUN,
		EDU_REDZONE);
	dmapool_free(pool, b[0].v, b[0].d);
	if (!edu_check(ctx, edu_reports_seen(ctx) == 1 &&
		       edu_report_get(ctx, 0, &r),
		       "%s: %u reports at the free, want 1", tag,
		       edu_reports_seen(ctx)))
		goto out_rest;
	if (!edu_check(ctx, r.kind == DMAPOOL_R_DEVICE_OVERRUN &&
		       r.block == b[0].v && r.block_dma == b[0].d &&
		       r.offset == EDU_ATTACK_SIZE && r.count == EDU_OVERRUN &&
		       r.found_len >= EDU_OVERRUN &&
		       edu_all_bytes(r.found, EDU_OVERRUN, 0xff),
		       "%s: report %s block %px/%pad offset %zu count %llu found %*ph; want device-overrun block %px/%pad offset %d count %d",
		       tag, dmapool_report_kind_name(r.kind), r.block,
		       &r.block_dma, r.offset, r.count, (int)r.found_len,
		       r.found, b[0].v, &b[0].d, EDU_ATTACK_SIZE, EDU_OVERRUN))
		goto out_rest;
	edu_say("%s: dmapool reported device-overrun at the free: pool \"%s\" block %px (dma %pad) offset %zu, %llu bytes changed, found %*ph (REPORTED)",
		tag, r.pool_name, r.block, &r.block_dma, r.offset, r.count,
		(int)r.found_len, r.found);
	/* The redzone was restored: the same block again, no new report. */
	b[0].v = edu_alloc(pool, EDU_GFP, &b[0].d);
	if (edu_block_valid(ctx, pool, b[0].v, b[0].d, EDU_ATTACK_ALIGN, tag)) {
		dmapool_free(pool, b[0].v, b[0].d);
		edu_check(ctx, edu_reports_seen(ctx) == 1,
			  "%s: a clean free after the overrun was reported",
			  tag);
	}
out_rest:
	b[0].v = NULL;
out_free:
	for (i = 0; i < ARRAY_SIZE(b); i++)
		if (b[i].v)
			dmapool_free(pool, b[i].v, b[i].d);
	dmapool_get_stats(pool, &st);
	edu_check(ctx, st.blocks_in_use == 0 &&
		  st.by_kind[DMAPOOL_R_DEVICE_OVERRUN] == st.violations,
		  "%s: %llu blocks in use, %llu violations of other kinds", tag,
		  st.blocks_in_use,
		  st.violations - st.by_kind[DMAPOOL_R_DEVICE_OVERRUN]);
	dmapool_destroy(pool);
out:
	kfree(data);
}

void edu_native_run(struct edu_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(edu_geometries); i++)
		edu_roundtrip(ctx, &edu_geometries[i]);
	edu_attack(ctx, "attack (dmapool, default options)", 0);
	edu_attack(ctx, "attack (dmapool, DMAPOOL_OPT_POISON)",
		   DMAPOOL_OPT_POISON);
	edu_overrun(ctx);
}
