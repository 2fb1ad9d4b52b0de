// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The hostile device (dmapool/fuzz.h): the fuzzer's bytes write into the
 * DMA memory of the pools a harness gives it, the way a buggy or malicious
 * device could.
 *
 * What it can reach is rebuilt at every action from the memory sources'
 * walks (dmapool_walk_chunks for a pool), so it follows a pool as it grows
 * and shrinks and never writes into memory that went back to the system.
 * Everything else it knows comes from the harness: the regions the device
 * owns, the blocks the host holds, the blocks it freed.  Regions and
 * blocks inside a pool are only written while a chunk still holds them.
 *
 * All tables are allocated once, by dmapool_fuzz_dev_new(): an input never
 * makes the device allocate, so a harness that injects allocation failures
 * sees only its own code's.  Only the public API of dmapool is used.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmapool/fuzz.h>

#define DEF_CHUNKS	512
#define DEF_BLOCKS	4096
#define DEF_REGIONS	64
#define DEF_SOURCES	16
#define DEF_RECENT	64
#define DEF_SMASH	(256u << 10)
#define DEF_SMASH_TOTAL	(16ull << 20)

/* A range of device-reachable memory with its bus address. */
struct span {
	uint8_t *va;
	uint64_t dma;
	size_t len;
};

struct region {
	struct span s;
	bool in_pool;		/* inside a chunk when owned: written only
				 * while a chunk still holds it */
};

struct source {
	dmapool_fuzz_walk_fn walk;
	void *src;
};

struct dmapool_fuzz_dev {
	struct dmapool_fuzz_cfg cfg;
	bool on;
	struct source *src;
	unsigned int nsrc;
	struct span *view;		/* every chunk, rebuilt per action */
	unsigned int nview;
	uint64_t view_len;
	struct span *blk;		/* held blocks, sorted by va */
	unsigned int nblk;
	struct region *reg;
	unsigned int nreg;
	struct span *ring;		/* recently freed blocks */
	unsigned int ring_head, ring_len;
	unsigned char act[DMAPOOL_FUZZ_ACTIONS];	/* enabled, in order */
	unsigned int nact;
	uint64_t smash_left;		/* of cfg.smash_total, this input */
	struct dmapool_fuzz_stats st;
};

static const char *const action_names[DMAPOOL_FUZZ_ACTIONS] = {
	"write", "fill", "copy", "add", "smash", "poke", "owned-write",
	"owned-value", "owned-bus", "overrun", "bus-write", "flip",
};

static void trace(const struct dmapool_fuzz_dev *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void trace(const struct dmapool_fuzz_dev *d, const char *fmt, ...)
{
	va_list ap;

	if (!d->cfg.trace)
		return;
	va_start(ap, fmt);
	fputs("dmapool-fuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* Setup.                                                              */

#define DEVICE_KINDS	(1u << DMAPOOL_R_DEVICE_WRITE_AFTER_FREE | \
			 1u << DMAPOOL_R_DEVICE_OVERRUN)

void dmapool_fuzz_cfg_init(struct dmapool_fuzz_cfg *cfg)
{
	const char *t = getenv("DMAPOOL_FUZZ_TRACE");

	memset(cfg, 0, sizeof(*cfg));
	cfg->abort_kinds = ~(uint32_t)DEVICE_KINDS;
	cfg->trace = t && *t && strcmp(t, "0");
}

struct dmapool_fuzz_dev *
dmapool_fuzz_dev_new(const struct dmapool_fuzz_cfg *cfg)
{
	struct dmapool_fuzz_dev *d = calloc(1, sizeof(*d));
	unsigned int i, mask;
	const char *t;

	if (!d)
		return NULL;
	if (cfg)
		d->cfg = *cfg;
	else
		dmapool_fuzz_cfg_init(&d->cfg);
#define DEF(f, v)	(d->cfg.f = d->cfg.f ? d->cfg.f : (v))
	DEF(max_chunks, DEF_CHUNKS);
	DEF(max_blocks, DEF_BLOCKS);
	DEF(max_regions, DEF_REGIONS);
	DEF(max_sources, DEF_SOURCES);
	DEF(recent, DEF_RECENT);
	DEF(smash_budget, DEF_SMASH);
	DEF(smash_total, DEF_SMASH_TOTAL);
#undef DEF
	d->src = calloc(d->cfg.max_sources, sizeof(*d->src));
	d->view = calloc(d->cfg.max_chunks, sizeof(*d->view));
	d->blk = calloc(d->cfg.max_blocks, sizeof(*d->blk));
	d->reg = calloc(d->cfg.max_regions, sizeof(*d->reg));
	d->ring = calloc(d->cfg.recent, sizeof(*d->ring));
	if (!d->src || !d->view || !d->blk || !d->reg || !d->ring) {
		dmapool_fuzz_dev_free(d);
		return NULL;
	}
	mask = d->cfg.actions ? d->cfg.actions : DMAPOOL_FUZZ_ALL;
	for (i = 0; i < DMAPOOL_FUZZ_ACTIONS; i++)
		if (mask & DMAPOOL_FUZZ_A(i))
			d->act[d->nact++] = (unsigned char)i;
	if (!d->nact) {
		dmapool_fuzz_dev_free(d);
		return NULL;
	}
	t = getenv("DMAPOOL_FUZZ_OFF");
	d->on = !(t && *t && strcmp(t, "0"));
	d->smash_left = d->cfg.smash_total;
	return d;
}

void dmapool_fuzz_dev_free(struct dmapool_fuzz_dev *d)
{
	if (!d)
		return;
	free(d->src);
	free(d->view);
	free(d->blk);
	free(d->reg);
	free(d->ring);
	free(d);
}

void dmapool_fuzz_dev_reset(struct dmapool_fuzz_dev *d)
{
	d->nsrc = 0;
	d->nview = 0;
	d->view_len = 0;
	d->nblk = 0;
	d->nreg = 0;
	d->ring_head = d->ring_len = 0;
	d->smash_left = d->cfg.smash_total;
	memset(&d->st, 0, sizeof(d->st));
}

void dmapool_fuzz_dev_enable(struct dmapool_fuzz_dev *d, bool on)
{
	d->on = on;
}

void dmapool_fuzz_dev_stats(const struct dmapool_fuzz_dev *d,
			    struct dmapool_fuzz_stats *st)
{
	*st = d->st;
}

/* ------------------------------------------------------------------ */
/* What the device reaches.                                            */

static void view_add(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct dmapool_fuzz_dev *d = ctx;

	if (d->nview == d->cfg.max_chunks || !len)
		return;
	d->view[d->nview].va = vaddr;
	d->view[d->nview].dma = dma;
	d->view[d->nview].len = len;
	d->nview++;
	d->view_len += len;
}

static void refresh(struct dmapool_fuzz_dev *d)
{
	unsigned int i;

	d->nview = 0;
	d->view_len = 0;
	for (i = 0; i < d->nsrc; i++)
		d->src[i].walk(d->src[i].src, view_add, d);
}

static void walk_pool(void *src, dmapool_chunk_fn fn, void *ctx)
{
	dmapool_walk_chunks(src, fn, ctx);
}

int dmapool_fuzz_dev_add_memory(struct dmapool_fuzz_dev *d,
				dmapool_fuzz_walk_fn walk, void *src)
{
	if (d->nsrc == d->cfg.max_sources)
		return -1;
	d->src[d->nsrc].walk = walk;
	d->src[d->nsrc].src = src;
	d->nsrc++;
	return 0;
}

int dmapool_fuzz_dev_add_pool(struct dmapool_fuzz_dev *d, struct dmapool *pool)
{
	return pool ? dmapool_fuzz_dev_add_memory(d, walk_pool, pool) : -1;
}

static bool inside(const struct span *s, const void *p)
{
	return (const uint8_t *)p >= s->va &&
	       (const uint8_t *)p < s->va + s->len;
}

/* The chunk of the current view holding @p, or NULL. */
static const struct span *chunk_of(const struct dmapool_fuzz_dev *d,
				   const void *p)
{
	unsigned int i;

	for (i = 0; i < d->nview; i++)
		if (inside(&d->view[i], p))
			return &d->view[i];
	return NULL;
}

static unsigned int blk_lower(const struct dmapool_fuzz_dev *d,
			      const uint8_t *va);
static void blk_remove(struct dmapool_fuzz_dev *d, unsigned int i);

/* Drop what lies in the chunk [va, va + len) (its pool is going away). */
static void drop_in(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct dmapool_fuzz_dev *d = ctx;
	struct span c = { vaddr, dma, len };
	unsigned int i;

	for (i = blk_lower(d, c.va); i < d->nblk && inside(&c, d->blk[i].va);)
		blk_remove(d, i);
	for (i = d->nreg; i-- > 0;)
		if (d->reg[i].in_pool && inside(&c, d->reg[i].s.va))
			d->reg[i] = d->reg[--d->nreg];
}

void dmapool_fuzz_dev_remove(struct dmapool_fuzz_dev *d, const void *src)
{
	unsigned int i;

	for (i = 0; i < d->nsrc; i++) {
		if (d->src[i].src != src)
			continue;
		d->src[i].walk(d->src[i].src, drop_in, d);
		memmove(&d->src[i], &d->src[i + 1],
			(d->nsrc - i - 1) * sizeof(d->src[0]));
		d->nsrc--;
		return;
	}
}

int dmapool_fuzz_dev_own(struct dmapool_fuzz_dev *d, void *vaddr,
			 dmapool_dma_t dma, size_t len)
{
	struct region *r;

	if (!vaddr || !len)
		return -1;
	if (d->nreg == d->cfg.max_regions) {
		d->st.untracked++;
		return -1;
	}
	refresh(d);
	r = &d->reg[d->nreg];
	r->s.va = vaddr;
	r->s.dma = dma;
	r->s.len = len;
	r->in_pool = chunk_of(d, vaddr) != NULL;
	return (int)d->nreg++;
}

void dmapool_fuzz_dev_disown(struct dmapool_fuzz_dev *d, const void *vaddr)
{
	unsigned int i;

	for (i = 0; i < d->nreg; i++)
		if (d->reg[i].s.va == vaddr) {
			memmove(&d->reg[i], &d->reg[i + 1],
				(d->nreg - i - 1) * sizeof(d->reg[0]));
			d->nreg--;
			return;
		}
}

/* May the device write [va, va + len) of region @r now? */
static bool region_live(const struct dmapool_fuzz_dev *d,
			const struct region *r)
{
	const struct span *c;

	if (!r->in_pool)
		return true;
	c = chunk_of(d, r->s.va);
	return c && r->s.va + r->s.len <= c->va + c->len;
}

/* ------------------------------------------------------------------ */
/* Held blocks (sorted by address) and recently freed ones.            */

static unsigned int blk_lower(const struct dmapool_fuzz_dev *d,
			      const uint8_t *va)
{
	unsigned int lo = 0, hi = d->nblk;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (d->blk[mid].va < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void blk_remove(struct dmapool_fuzz_dev *d, unsigned int i)
{
	memmove(&d->blk[i], &d->blk[i + 1],
		(d->nblk - i - 1) * sizeof(d->blk[0]));
	d->nblk--;
}

void dmapool_fuzz_dev_alloced(struct dmapool_fuzz_dev *d, void *vaddr,
			      dmapool_dma_t dma, size_t len)
{
	unsigned int i = blk_lower(d, vaddr);
	struct span s = { vaddr, dma, len };

	if (i < d->nblk && d->blk[i].va == vaddr) {
		d->blk[i] = s;
		return;
	}
	if (d->nblk == d->cfg.max_blocks) {
		d->st.untracked++;
		return;
	}
	memmove(&d->blk[i + 1], &d->blk[i], (d->nblk - i) * sizeof(d->blk[0]));
	d->blk[i] = s;
	d->nblk++;
}

void dmapool_fuzz_dev_freed(struct dmapool_fuzz_dev *d, const void *vaddr)
{
	unsigned int i = blk_lower(d, vaddr);
	struct span s = { (uint8_t *)vaddr, 0, 0 };

	if (i < d->nblk && d->blk[i].va == vaddr) {
		s = d->blk[i];
		blk_remove(d, i);
	}
	d->ring[d->ring_head] = s;
	d->ring_head = (d->ring_head + 1) % d->cfg.recent;
	if (d->ring_len < d->cfg.recent)
		d->ring_len++;
}

void dmapool_fuzz_dev_forget(struct dmapool_fuzz_dev *d, const void *vaddr)
{
	unsigned int i = blk_lower(d, vaddr);

	if (i < d->nblk && d->blk[i].va == vaddr)
		blk_remove(d, i);
}

/* The @k-th most recently freed block (k < ring_len). */
static const struct span *recent(const struct dmapool_fuzz_dev *d,
				 unsigned int k)
{
	return &d->ring[(d->ring_head + d->cfg.recent - 1 - k) % d->cfg.recent];
}

/* ------------------------------------------------------------------ */
/* Writing.                                                            */

/* May the device write [p, p + len)?  Counts what it may not. */
static bool may_write(struct dmapool_fuzz_dev *d, uint8_t *p, size_t len)
{
	if (!d->on || (d->cfg.before_write &&
		       !d->cfg.before_write(d->cfg.ctx, p, len))) {
		d->st.skipped++;
		return false;
	}
	d->st.writes++;
	d->st.bytes += len;
	return true;
}

static size_t store(struct dmapool_fuzz_dev *d, uint8_t *p, const void *buf,
		    size_t len)
{
	if (!len || !may_write(d, p, len))
		return 0;
	memmove(p, buf, len);
	return len;
}

/* Where reachable offset @off lands; *room is what is left of its chunk. */
static uint8_t *view_addr(const struct dmapool_fuzz_dev *d, uint64_t off,
			  size_t *room)
{
	uint64_t o = off % d->view_len;
	unsigned int i;

	for (i = 0; o >= d->view[i].len; i++)
		o -= d->view[i].len;
	*room = d->view[i].len - o;
	return d->view[i].va + o;
}

/* Skip @n input bytes. */
static void skip(struct dmapool_fuzz_in *in, size_t n)
{
	while (n--)
		dmapool_fuzz_u8(in);
}

static void read_bytes(struct dmapool_fuzz_in *in, uint8_t *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = dmapool_fuzz_u8(in);
}

static void do_write(struct dmapool_fuzz_dev *d, struct dmapool_fuzz_in *in)
{
	uint32_t off = dmapool_fuzz_u32(in);
	size_t len = dmapool_fuzz_u8(in), room;
	uint8_t buf[256], *p;

	refresh(d);
	if (!d->view_len) {
		skip(in, len);
		return;
	}
	p = view_addr(d, off, &room);
	if (len > room)
		len = room;
	read_bytes(in, buf, len);
	trace(d, "write %p len %zu", (void *)p, len);
	store(d, p, buf, len);
}

static void do_fill(struct dmapool_fuzz_dev *d, struct dmapool_fuzz_in *in)
{
	uint32_t off = dmapool_fuzz_u32(in);
	size_t len = dmapool_fuzz_u16(in), room;
	uint8_t byte = dmapool_fuzz_u8(in), *p;

	refresh(d);
	if (!d->view_len)
		return;
	p = view_addr(d, off, &room);
	if (len > room)
		len = room;
	trace(d, "fill %p len %zu byte %#x", (void *)p, len, byte);
	if (len && may_write(d, p, len))
		memset(p, byte, len);
}

static void do_copy(struct dmapool_fuzz_dev *d, struct dmapool_fuzz_in *in)
{
	uint32_t src = dmapool_fuzz_u32(in), dst = dmapool_fuzz_u32(in);
	size_t len = dmapool_fuzz_u16(in), room;
	uint8_t *s, *t;

	refresh(d);
	if (!d->view_len)
		return;
	s = view_addr(d, src, &room);
	if (len > room)
		len = room;
	t = view_addr(d, dst, &room);
	if (len > room)
		len = room;
	trace(d, "copy %p -> %p len %zu", (void *)s, (void *)t, len);
	store(d, t, s, len);
}

static void do_add(struct dmapool_fuzz_dev *d, struct dmapool_fuzz_in *in)
{
	uint32_t off = dmapool_fuzz_u32(in);
	int16_t delta = (int16_t)dmapool_fuzz_u16(in);
	size_t room;
	uint64_t x;
	uint8_t *p;

	refresh(d);
	if (!d->view_len)
		return;
	p = view_addr(d, off, &room);
	if (room < 8)
		p -= 8 - room;
	trace(d, "add %p %+d", (void *)p, delta);
	if (!may_write(d, p, 8))
		return;
	memcpy(&x, p, 8);
	x += (uint64_t)(int64_t)delta;
	memcpy(p, &x, 8);
}

static uint8_t xorshift8(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint8_t)(*x >> 32);
}

/* The held block or region covering @p, as its end; NULL if none. */
static uint8_t *held_end(const struct dmapool_fuzz_dev *d, const uint8_t *p)
{
	unsigned int k = blk_lower(d, p);

	if (k < d->nblk && d->blk[k].va == p)
		return d->blk[k].va + d->blk[k].len;
	if (k > 0 && d->blk[k - 1].va + d->blk[k - 1].len > p)
		return d->blk[k - 1].va + d->blk[k - 1].len;
	for (k = 0; k < d->nreg; k++)
		if (inside(&d->reg[k].s, p))
			return d->reg[k].s.va + d->reg[k].s.len;
	return NULL;
}

/* Where the next held block or region after @p starts (at most @end). */
static uint8_t *held_next(const struct dmapool_fuzz_dev *d, uint8_t *p,
			  uint8_t *end)
{
	unsigned int k = blk_lower(d, p);
	uint8_t *stop = end;

	if (k < d->nblk && d->blk[k].va < stop)
		stop = d->blk[k].va;
	for (k = 0; k < d->nreg; k++)
		if (d->reg[k].s.va > p && d->reg[k].s.va < stop)
			stop = d->reg[k].s.va;
	return stop;
}

/* Pseudo-random bytes over [p, end) except where held memory is. */
static void smash_gaps(struct dmapool_fuzz_dev *d, uint8_t *p, uint8_t *end,
		       uint64_t *x)
{
	uint8_t *stop;

	for (;;) {
		while (p < end && (stop = held_end(d, p)))
			p = stop;
		if (p >= end)
			return;
		stop = held_next(d, p, end);
		if (may_write(d, p, (size_t)(stop - p)))
			while (p < stop)
				*p++ = xorshift8(x);
		p = stop;
	}
}

static void do_smash(struct dmapool_fuzz_dev *d, struct dmapool_fuzz_in *in)
{
	uint8_t mode = dmapool_fuzz_u8(in);
	uint64_t x = 0x9e3779b97f4a7c15ull ^ dmapool_fuzz_u8(in);
	size_t budget = d->cfg.smash_budget, len, j;
	unsigned int i;
	uint8_t *p;

	if (budget > d->smash_left)
		budget = (size_t)d->smash_left;
	refresh(d);
	trace(d, "smash %s", (mode & 1) ? "everything" : "free memory");
	if (!d->on || !budget) {
		d->st.skipped++;
		return;
	}
	for (i = 0; i < d->nview && budget; i++) {
		len = d->view[i].len < budget ? d->view[i].len : budget;
		p = d->view[i].va;
		budget -= len;
		d->smash_left -= len;
		if (!(mode & 1)) {
			smash_gaps(d, p, p + len, &x);
			continue;
		}
		if (may_write(d, p, len))
			for (j = 0; j < len; j++)
				p[j] = xorshift8(&x);
	}
}

static void do_poke(struct dmapool_fuzz_dev *d, struct dmapool_fuzz_in *in)
{
	unsigned int k = dmapool_fuzz_u8(in);
	size_t off = dmapool_fuzz_u8(in), len = dmapool_fuzz_u8(in) % 17;
	const struct span *c, *g;
	uint8_t buf[16], *p;

	read_bytes(in, buf, len);
	if (!d->ring_len)
		return;
	g = recent(d, k % d->ring_len);
	refresh(d);
	/* Only memory a pool still holds is device memory. */
	c = chunk_of(d, g->va);
	if (!c)
		return;
	p = g->va + off;
	if (p >= c->va + c->len)
		return;
	if (len > (size_t)(c->va + c->len - p))
		len = (size_t)(c->va + c->len - p);
	trace(d, "poke %p len %zu", (void *)p, len);
	store(d, p, buf, len);
}

/* Region @sel (modulo how many), or NULL; with the view refreshed. */
static const struct region *pick_region(struct dmapool_fuzz_dev *d,
					unsigned int sel)
{
	const struct region *r;

	refresh(d);
	if (!d->nreg)
		return NULL;
	r = &d->reg[sel % d->nreg];
	return region_live(d, r) ? r : NULL;
}

static void do_owned_write(struct dmapool_fuzz_dev *d,
			   struct dmapool_fuzz_in *in)
{
	unsigned int sel = dmapool_fuzz_u8(in);
	size_t off = dmapool_fuzz_u16(in), len = dmapool_fuzz_u8(in);
	const struct region *r = pick_region(d, sel);
	uint8_t buf[256];

	if (!r) {
		skip(in, len);
		return;
	}
	off %= r->s.len;
	if (len > r->s.len - off)
		len = r->s.len - off;
	read_bytes(in, buf, len);
	trace(d, "owned-write region %u +%zu len %zu", sel % d->nreg, off, len);
	store(d, r->s.va + off, buf, len);
}

/* An interesting integer (DMAPOOL_FUZZ_VAL_*) of @width bytes. */
static uint64_t value(unsigned int sel, unsigned int width,
		      struct dmapool_fuzz_in *in)
{
	uint64_t ones = width == 8 ? ~0ull : (1ull << 8 * width) - 1;

	switch (sel) {
	case 0: return 0;
	case 1: return 1;
	case 2: return ones;
	case 3: return ones >> 1;
	case 4: return (ones >> 1) + 1;
	case DMAPOOL_FUZZ_VAL_INPUT: return dmapool_fuzz_u64(in) & ones;
	default:
		if (sel < 38)
			return sel - 4;
		return (1ull << (sel - 32)) & ones;
	}
}

/* Store @x little-endian, @width bytes at @off of region @r (moved back
 * to fit). */
static void store_le(struct dmapool_fuzz_dev *d, const struct region *r,
		     size_t off, uint64_t x, size_t width)
{
	uint8_t buf[8];
	size_t i;

	if (width > r->s.len)
		width = r->s.len;
	off %= r->s.len;
	if (off + width > r->s.len)
		off = r->s.len - width;
	for (i = 0; i < width; i++)
		buf[i] = (uint8_t)(x >> 8 * i);
	store(d, r->s.va + off, buf, width);
}

static void do_owned_value(struct dmapool_fuzz_dev *d,
			   struct dmapool_fuzz_in *in)
{
	unsigned int sel = dmapool_fuzz_u8(in);
	size_t off = dmapool_fuzz_u16(in);
	unsigned int kind = dmapool_fuzz_u8(in), width = 1u << (kind & 3);
	uint64_t x = value(kind >> 2, width, in);
	const struct region *r = pick_region(d, sel);

	if (!r)
		return;
	trace(d, "owned-value region %u +%zu = %#llx (%u bytes)",
	      sel % d->nreg, off % r->s.len, (unsigned long long)x, width);
	store_le(d, r, off, x, width);
}

/* A bus address derived from what the device sees (DMAPOOL_FUZZ_BUS_*). */
static uint64_t forge(const struct dmapool_fuzz_dev *d, unsigned int target,
		      int16_t delta)
{
	unsigned int k = target >> 3;
	uint64_t dl = (uint64_t)(int64_t)delta, base;

	switch (target & 7) {
	case DMAPOOL_FUZZ_BUS_CHUNK:
		if (!d->nview)
			break;
		return d->view[k % d->nview].dma + dl;
	case DMAPOOL_FUZZ_BUS_BLOCK:
		if (!d->nblk)
			break;
		return d->blk[k % d->nblk].dma + dl;
	case DMAPOOL_FUZZ_BUS_FREED:
		if (!d->ring_len)
			break;
		return recent(d, k % d->ring_len)->dma + dl;
	case DMAPOOL_FUZZ_BUS_REGION:
		if (!d->nreg)
			break;
		return d->reg[k % d->nreg].s.dma + dl;
	case DMAPOOL_FUZZ_BUS_CHUNK_END:
		if (!d->nview)
			break;
		base = d->view[k % d->nview].dma + d->view[k % d->nview].len;
		return base + dl;
	case DMAPOOL_FUZZ_BUS_HIGH:
		return ~0ull - (uint16_t)delta;
	case DMAPOOL_FUZZ_BUS_ALIAS:
		if (!d->nview)
			break;
		base = d->view[k % d->nview].dma ^ 1ull << (32 + k % 32);
		return base + dl;
	default:
		break;
	}
	return (uint16_t)delta;
}

static void do_owned_bus(struct dmapool_fuzz_dev *d,
			 struct dmapool_fuzz_in *in)
{
	unsigned int sel = dmapool_fuzz_u8(in);
	size_t off = dmapool_fuzz_u16(in);
	unsigned int target = dmapool_fuzz_u8(in);
	int16_t delta = (int16_t)dmapool_fuzz_u16(in);
	const struct region *r = pick_region(d, sel);
	uint64_t bus;

	if (!r)
		return;
	bus = forge(d, target, delta);
	trace(d, "owned-bus region %u +%zu = %#llx", sel % d->nreg,
	      off % r->s.len, (unsigned long long)bus);
	store_le(d, r, off, bus, 8);
}

static void do_overrun(struct dmapool_fuzz_dev *d, struct dmapool_fuzz_in *in)
{
	unsigned int which = dmapool_fuzz_u8(in);
	size_t len = dmapool_fuzz_u8(in) % 64 + 1;
	uint8_t byte = dmapool_fuzz_u8(in), *p;
	const struct span *s, *c;
	unsigned int n = d->nreg + d->nblk;

	if (!n)
		return;
	which %= n;
	s = which < d->nreg ? &d->reg[which].s : &d->blk[which - d->nreg];
	p = s->va + s->len;
	refresh(d);
	c = chunk_of(d, p);
	if (!c)
		return;
	if (len > (size_t)(c->va + c->len - p))
		len = (size_t)(c->va + c->len - p);
	trace(d, "overrun %p len %zu byte %#x", (void *)p, len, byte);
	if (may_write(d, p, len))
		memset(p, byte, len);
}

void *dmapool_fuzz_dev_bus_to_virt(struct dmapool_fuzz_dev *d,
				   dmapool_dma_t bus, size_t *room)
{
	unsigned int i;

	refresh(d);
	for (i = 0; i < d->nview; i++)
		if (bus - d->view[i].dma < d->view[i].len) {
			*room = d->view[i].len - (size_t)(bus - d->view[i].dma);
			return d->view[i].va + (bus - d->view[i].dma);
		}
	for (i = 0; i < d->nreg; i++) {
		const struct span *s = &d->reg[i].s;

		if (!d->reg[i].in_pool && s->dma && bus - s->dma < s->len) {
			*room = s->len - (size_t)(bus - s->dma);
			return s->va + (bus - s->dma);
		}
	}
	*room = 0;
	return NULL;
}

size_t dmapool_fuzz_dev_write_bus(struct dmapool_fuzz_dev *d,
				  dmapool_dma_t bus, const void *buf,
				  size_t len)
{
	size_t room;
	uint8_t *p = dmapool_fuzz_dev_bus_to_virt(d, bus, &room);

	if (!p) {
		d->st.faults++;
		trace(d, "bus %#llx: fault (nothing mapped there)",
		      (unsigned long long)bus);
		return 0;
	}
	if (len > room)
		len = room;
	return store(d, p, buf, len);
}

size_t dmapool_fuzz_dev_write_owned(struct dmapool_fuzz_dev *d,
				    unsigned int region, size_t off,
				    const void *buf, size_t len)
{
	const struct region *r;

	refresh(d);
	if (region >= d->nreg || !region_live(d, &d->reg[region]))
		return 0;
	r = &d->reg[region];
	if (off >= r->s.len)
		return 0;
	if (len > r->s.len - off)
		len = r->s.len - off;
	return store(d, r->s.va + off, buf, len);
}

static void do_bus_write(struct dmapool_fuzz_dev *d,
			 struct dmapool_fuzz_in *in)
{
	unsigned int target = dmapool_fuzz_u8(in);
	int16_t delta = (int16_t)dmapool_fuzz_u16(in);
	size_t len = dmapool_fuzz_u8(in);
	uint8_t buf[256];
	uint64_t bus;

	read_bytes(in, buf, len);
	refresh(d);
	bus = forge(d, target, delta);
	trace(d, "bus-write %#llx len %zu", (unsigned long long)bus, len);
	dmapool_fuzz_dev_write_bus(d, bus, buf, len);
}

static void do_flip(struct dmapool_fuzz_dev *d, struct dmapool_fuzz_in *in)
{
	uint32_t off = dmapool_fuzz_u32(in);
	unsigned int bit = dmapool_fuzz_u8(in) % 8;
	size_t room;
	uint8_t *p;

	refresh(d);
	if (!d->view_len)
		return;
	p = view_addr(d, off, &room);
	trace(d, "flip %p bit %u", (void *)p, bit);
	if (may_write(d, p, 1))
		*p ^= (uint8_t)(1u << bit);
}

void dmapool_fuzz_dev_do(struct dmapool_fuzz_dev *d,
			 enum dmapool_fuzz_action action,
			 struct dmapool_fuzz_in *in)
{
	typedef void (*action_fn)(struct dmapool_fuzz_dev *,
				  struct dmapool_fuzz_in *);
	static const action_fn fn[DMAPOOL_FUZZ_ACTIONS] = {
		do_write, do_fill, do_copy, do_add, do_smash, do_poke,
		do_owned_write, do_owned_value, do_owned_bus, do_overrun,
		do_bus_write, do_flip,
	};

	if ((unsigned int)action >= DMAPOOL_FUZZ_ACTIONS)
		return;
	d->st.actions[action]++;
	fn[action](d, in);
}

void dmapool_fuzz_dev_act(struct dmapool_fuzz_dev *d,
			  struct dmapool_fuzz_in *in)
{
	unsigned int a = d->act[dmapool_fuzz_u8(in) % d->nact];

	trace(d, "action %s", action_names[a]);
	dmapool_fuzz_dev_do(d, (enum dmapool_fuzz_action)a, in);
}

/* ------------------------------------------------------------------ */
/* Reports.                                                            */

void dmapool_fuzz_report(const struct dmapool_report *r, void *ctx)
{
	struct dmapool_fuzz_dev *d = ctx;
	uint32_t bit = (unsigned int)r->kind < 32 ? 1u << r->kind : 0;
	uint32_t abort_kinds = d ? d->cfg.abort_kinds : ~(uint32_t)DEVICE_KINDS;

	if (d) {
		if (bit & DEVICE_KINDS)
			d->st.device_reports++;
		else
			d->st.host_reports++;
	}
	if (!(abort_kinds & bit) && bit)
		return;
	fprintf(stderr,
		"dmapool-fuzz: %s in pool \"%s\": addr %p dma %#llx block %p +%zu%s%s\n",
		dmapool_report_kind_name(r->kind),
		r->pool_name ? r->pool_name : "", r->addr,
		(unsigned long long)r->dma, r->block, r->offset,
		r->detail ? ": " : "", r->detail ? r->detail : "");
	fprintf(stderr, "dmapool-fuzz: the code under test misused the pool: aborting\n");
	fflush(stderr);
	abort();
}
