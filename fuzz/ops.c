// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The ops harness: a program of pool operations interleaved with a hostile
 * device and a careless host, checked step by step against a reference
 * model the harness keeps for itself.
 *
 * The input is a sequence of ops; each is an opcode byte (taken modulo
 * OP_COUNT) followed by its arguments, little-endian, and an input that
 * runs out reads as zeros:
 *
 *   CREATE     slot u8, size u16, align u8, boundary u8, chunk u8,
 *              flags u8, index u8, redzone u8, quarantine u8, reserve u8
 *              (see decode_params)
 *   DESTROY    slot u8
 *   ALLOC      slot u8, mode u8 (1 zero, 2 no-grow, 4 by handle)
 *   FREE       which u16, mode u8 (1: by handle when it has one)
 *   ALLOC_N    slot u8, count u8, mode u8
 *   FREE_N     count u8, order u8, seed u8
 *   DEV_WRITE  off u32, len u8, len bytes
 *   DEV_FILL   off u32, len u16, byte u8
 *   DEV_COPY   src u32, dst u32, len u16
 *   DEV_ADD    off u32, delta u16 (signed, added to the u64 at off)
 *   DEV_SMASH  mode u8 (0 free memory only, 1 everything), seed u8
 *   DEV_POKE   recent u8, off u8, len u8 (max 16), len bytes: writes into
 *              a recently freed block, where an embedded free list keeps
 *              its links
 *   MISUSE     kind u8, a u16, b u16 (see do_misuse)
 *   QUIESCE    slot u8
 *   SHRINK     slot u8
 *   FAIL       f u8: chunk allocations fail or come back misaligned, a
 *              host allocation fails (see op_fail)
 *
 * The DEV_* ops are the hostile-device library's actions of the same names
 * (<dmapool/fuzz.h>, DMAPOOL_FUZZ_WRITE ... DMAPOOL_FUZZ_POKE), with its
 * encodings: one device model for this harness and for users' own.  Device
 * offsets address the concatenation of every chunk of every live pool
 * (found with the adapter's walk, in slot order), modulo its length; a
 * write stops at the end of its chunk.
 *
 * After every op the model is compared with the allocator: every block
 * handed out lies in a chunk of its pool, is aligned in vaddr and dma,
 * crosses no boundary, overlaps no other live block, and its dma matches its
 * vaddr; zalloc returns zeros; the allocator never changes the bytes of a
 * live block the device left alone; stats match (blocks, chunks, bytes,
 * violations per kind); the walk matches the backend's records; no chunk
 * with a live block goes back to the backend; every misuse is reported
 * exactly once with an acceptable kind and leaves the pool unchanged, and
 * nothing else is reported.  Device reports of the hardening options must
 * name memory the device did write, and must come where the memory says
 * they must: an alloc from a poisoned pool that hands out a block whose
 * bytes are not all poison reports it once (first changed byte included),
 * a free of a block whose redzone holds a byte the key never has (0x00,
 * 0xff) reports the overrun once.  Anything else aborts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include <dmapool/fuzz.h>

enum {
	OP_CREATE, OP_DESTROY, OP_ALLOC, OP_FREE, OP_ALLOC_N, OP_FREE_N,
	OP_DEV_WRITE, OP_DEV_FILL, OP_DEV_COPY, OP_DEV_ADD, OP_DEV_SMASH,
	OP_DEV_POKE, OP_MISUSE, OP_QUIESCE, OP_SHRINK, OP_FAIL,
	OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
	"create", "destroy", "alloc", "free", "alloc_n", "free_n",
	"dev_write", "dev_fill", "dev_copy", "dev_add", "dev_smash",
	"dev_poke", "misuse", "quiesce", "shrink", "fail",
};

#define MAX_INPUT	8192
#define MAX_POOLS	4
#define MAX_LIVE	2048
#define RING		64
#define MAX_CAPTURE	16
#define MAX_SERIAL	16384
#define SMASH_BUDGET	(256u << 10)	/* bytes a smash writes */
#define MAX_GONE	DPF_ARENA_CHUNKS	/* chunks released in one step */

#define K(kind)		(1u << (kind))

struct slot {
	void *h;			/* adapter pool, NULL: slot empty */
	int id;				/* pool instance (arena owner) */
	struct dpf_params p;
	size_t bsize;			/* block size the pool reports */
	size_t align;
	uint64_t live;			/* blocks the model holds */
	uint64_t reports;
	uint64_t by_kind[DMAPOOL_R_KINDS];
	bool holds;			/* freed blocks may wait (quarantine,
					 * caches): no-grow may fail early */
	char name[16];
};

struct live {
	uint8_t *v;
	uint64_t dma;
	struct dmapool_block blk;	/* when by handle */
	uint64_t serial;		/* of its chunk */
	int slot;
	uint32_t len;
	bool by_handle;
	bool dirty;			/* the device wrote into it */
	uint8_t tag;			/* what the driver wrote into it */
};

/* A block freed recently: material for double and stale frees. */
struct gone {
	uint8_t *v;
	uint64_t dma;
	struct dmapool_block blk;
	uint64_t serial;
	int id, slot;
	bool by_handle;
};

/* What the op about to run must report. */
struct expect {
	unsigned int n;			/* 0 or 1 */
	uint32_t kinds;
	const void *pool;		/* adapter pool; NULL: a global report */
	const void *addr;
	bool check_addr;
	const char *owner;		/* free-wrong-pool */
	bool check_count;
	uint64_t count;			/* destroy-busy */
	bool check_sink;		/* a report without a pool: */
	bool own_sink;			/* through the create's own sink */
	const char *name;		/* naming this pool, or NULL */
	/* Device reports (poison, redzone) this call must make about @block:
	 * between dev_min and dev_max of kind dev_kind; any other device
	 * report must only be sound (name memory the device wrote). */
	bool dev_check;
	enum dmapool_report_kind dev_kind;
	unsigned int dev_min, dev_max;
	const void *dev_block;
	size_t dev_offset;		/* SIZE_MAX: not checked */
};

static struct world {
	const struct dpf_adapter *a;
	struct dpf_features feat;
	unsigned int page;
	struct slot s[MAX_POOLS];
	int next_id;
	struct live live[MAX_LIVE];	/* sorted by v */
	size_t nlive;
	struct gone ring[RING];
	unsigned int ring_head, ring_len;
	uint8_t tag;
	struct dmapool_fuzz_dev *dev;	/* the hostile device */
	uint8_t touched[MAX_SERIAL];	/* chunk serial the device wrote */
	struct dpf_report cap[MAX_CAPTURE];
	unsigned int ncap;
	uint64_t global_base, global_reports;
	bool no_device;			/* DPF_NO_DEVICE=1 */
	struct dpf_chunk gone_chunks[MAX_GONE];	/* released this step */
	unsigned int ngone_chunks;
} W;

static uint8_t outside_buf[4096];	/* memory no pool owns */

/* ------------------------------------------------------------------ */
/* Reports.                                                            */

static void capture(const struct dpf_report *r, void *ctx)
{
	(void)ctx;
	dpf_check(W.ncap < MAX_CAPTURE, "more than %d reports in one step",
		  MAX_CAPTURE);
	W.cap[W.ncap++] = *r;
}

static struct slot *slot_of_handle(const void *h)
{
	int i;

	for (i = 0; i < MAX_POOLS; i++)
		if (W.s[i].h && W.s[i].h == h)
			return &W.s[i];
	return NULL;
}

static bool device_kind(enum dmapool_report_kind k)
{
	return k == DMAPOOL_R_DEVICE_WRITE_AFTER_FREE ||
	       k == DMAPOOL_R_DEVICE_OVERRUN;
}

static bool touched_serial(uint64_t serial)
{
	return serial >= MAX_SERIAL || W.touched[serial];
}

/*
 * A device report must name memory of its pool that the device wrote: a
 * report about bytes nobody but the driver touched is a false alarm.
 */
/* The chunk that holds @p now, or held it until earlier in this step (a
 * free may release a chunk before its reports are delivered). */
static const struct dpf_chunk *chunk_of(const void *p)
{
	const struct dpf_chunk *c = dpf_arena_find(p);
	unsigned int i;

	for (i = 0; !c && i < W.ngone_chunks; i++)
		if ((const uint8_t *)p >= W.gone_chunks[i].va &&
		    (const uint8_t *)p < W.gone_chunks[i].va +
					 W.gone_chunks[i].len)
			c = &W.gone_chunks[i];
	return c;
}

static void check_device_report(const struct dpf_report *r, struct slot *s)
{
	const struct dpf_chunk *c = NULL;

	if (r->block)
		c = chunk_of(r->block);
	if (!c && r->addr)
		c = chunk_of(r->addr);
	dpf_check(c && c->owner == s->id,
		  "%s report names %p / %p, not memory of pool %s",
		  dmapool_report_kind_name(r->kind), r->block, r->addr,
		  s->name);
	dpf_check(touched_serial(c->serial),
		  "%s report for chunk %p that the device never wrote",
		  dmapool_report_kind_name(r->kind), (void *)c->va);
}

/* Compare what the last call reported with what it had to. */
static void settle(const struct expect *e)
{
	unsigned int i, matched = 0, dev = 0;

	for (i = 0; i < W.ncap; i++) {
		const struct dpf_report *r = &W.cap[i];
		struct slot *s = r->pool ? slot_of_handle(r->pool) : NULL;

		dpf_log("    report %s addr %p", dmapool_report_kind_name(r->kind),
			r->addr);
		if (r->pool) {
			dpf_check(s, "report %s names no live pool",
				  dmapool_report_kind_name(r->kind));
			s->reports++;
			s->by_kind[r->kind]++;
		} else {
			W.global_reports++;
		}
		if (r->pool && device_kind(r->kind)) {
			check_device_report(r, s);
			if (e->dev_check && r->kind == e->dev_kind &&
			    r->block == e->dev_block) {
				dpf_check(e->dev_offset == SIZE_MAX ||
					  r->offset == e->dev_offset,
					  "%s for %p at +%zu, the first changed byte is at +%zu",
					  dmapool_report_kind_name(r->kind),
					  r->block, r->offset, e->dev_offset);
				dev++;
			}
			continue;
		}
		dpf_check(matched < e->n,
			  "unexpected report %s (addr %p dma %#llx)",
			  dmapool_report_kind_name(r->kind), r->addr,
			  (unsigned long long)r->dma);
		dpf_check(e->kinds & K(r->kind),
			  "report %s, expected another kind (mask %#x)",
			  dmapool_report_kind_name(r->kind), e->kinds);
		dpf_check(r->pool == e->pool,
			  "report %s went to the wrong sink",
			  dmapool_report_kind_name(r->kind));
		dpf_check(!e->check_addr || r->addr == e->addr,
			  "report %s names %p, the call passed %p",
			  dmapool_report_kind_name(r->kind), r->addr, e->addr);
		dpf_check(!e->owner || r->kind != DMAPOOL_R_FREE_WRONG_POOL ||
			  !strcmp(r->owner, e->owner),
			  "free-wrong-pool names owner \"%s\", not \"%s\"",
			  r->owner, e->owner);
		dpf_check(!e->check_sink || r->own_sink == e->own_sink,
			  "report %s went to the %s sink, not the %s one",
			  dmapool_report_kind_name(r->kind),
			  r->own_sink ? "pool's own" : "global",
			  e->own_sink ? "pool's own" : "global");
		dpf_check(!e->name || !strcmp(r->name, e->name),
			  "report %s names pool \"%s\", not \"%s\"",
			  dmapool_report_kind_name(r->kind), r->name, e->name);
		dpf_check(!e->check_count || r->count == e->count,
			  "report %s counts %llu, expected %llu",
			  dmapool_report_kind_name(r->kind),
			  (unsigned long long)r->count,
			  (unsigned long long)e->count);
		matched++;
	}
	dpf_check(matched == e->n, "expected %u report(s) (mask %#x), got %u",
		  e->n, e->kinds, matched);
	dpf_check(!e->dev_check || (dev >= e->dev_min && dev <= e->dev_max),
		  "%u %s report(s) for %p, expected %u to %u", dev,
		  dmapool_report_kind_name(e->dev_kind), e->dev_block,
		  e->dev_min, e->dev_max);
	W.ncap = 0;
}

static const struct expect NO_REPORT;

static struct expect expect_one(uint32_t kinds, const struct slot *s,
				const void *addr)
{
	struct expect e = { 0 };

	e.n = 1;
	e.kinds = kinds;
	e.pool = s ? s->h : NULL;
	e.addr = addr;
	e.check_addr = true;
	return e;
}

/* ------------------------------------------------------------------ */
/* The model's live blocks, sorted by address.                         */

/* First index whose block starts at or after @v. */
static size_t live_lower(const uint8_t *v)
{
	size_t lo = 0, hi = W.nlive;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (W.live[mid].v < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct live *live_find(const uint8_t *v)
{
	size_t i = live_lower(v);

	return i < W.nlive && W.live[i].v == v ? &W.live[i] : NULL;
}

static void live_insert(const struct live *l)
{
	size_t i = live_lower(l->v);

	memmove(&W.live[i + 1], &W.live[i], (W.nlive - i) * sizeof(W.live[0]));
	W.live[i] = *l;
	W.nlive++;
}

static void live_remove(size_t i)
{
	memmove(&W.live[i], &W.live[i + 1],
		(W.nlive - i - 1) * sizeof(W.live[0]));
	W.nlive--;
}

/* Mark live blocks the device wrote into in [a, a + len). */
static void dirty_range(const uint8_t *a, size_t len)
{
	size_t i = live_lower(a);

	if (i > 0 && W.live[i - 1].v + W.live[i - 1].len > a)
		i--;
	for (; i < W.nlive && W.live[i].v < a + len; i++)
		W.live[i].dirty = true;
}

static void ring_push(const struct live *l, int id)
{
	struct gone *g = &W.ring[W.ring_head];

	g->v = l->v;
	g->dma = l->dma;
	g->blk = l->blk;
	g->serial = l->serial;
	g->id = id;
	g->slot = l->slot;
	g->by_handle = l->by_handle;
	W.ring_head = (W.ring_head + 1) % RING;
	if (W.ring_len < RING)
		W.ring_len++;
}

/* The @k-th most recently freed block (k < ring_len). */
static struct gone *ring_recent(unsigned int k)
{
	return &W.ring[(W.ring_head + RING - 1 - k) % RING];
}

/* ------------------------------------------------------------------ */
/* Checks.                                                             */

static bool crosses(uint64_t a, uint64_t len, uint64_t unit)
{
	return a / unit != (a + len - 1) / unit;
}

/* Everything a block fresh from @s must satisfy. */
static const struct dpf_chunk *check_new_block(struct slot *s, uint8_t *v,
					       uint64_t dma, bool zero)
{
	const struct dpf_chunk *c = dpf_arena_find(v);
	size_t i, len = s->bsize;

	dpf_check(c && c->owner == s->id,
		  "alloc from %s returned %p, outside the pool's memory",
		  s->name, (void *)v);
	dpf_check(v + len <= c->va + c->len,
		  "block %p+%zu runs past its chunk %p+%zu", (void *)v, len,
		  (void *)c->va, c->len);
	dpf_check(dma == c->dma + (uint64_t)(v - c->va),
		  "block %p has dma %#llx, its chunk says %#llx", (void *)v,
		  (unsigned long long)dma,
		  (unsigned long long)(c->dma + (uint64_t)(v - c->va)));
	dpf_check(!((uintptr_t)v % s->align) && !(dma % s->align),
		  "block %p (dma %#llx) not aligned to %zu", (void *)v,
		  (unsigned long long)dma, s->align);
	if (s->p.boundary)
		dpf_check(!crosses((uintptr_t)v, len, s->p.boundary) &&
			  !crosses(dma, len, s->p.boundary),
			  "block %p+%zu crosses the boundary %zu", (void *)v,
			  len, s->p.boundary);
	if (len <= W.page)
		dpf_check(!crosses((uintptr_t)v, len, W.page) &&
			  !crosses(dma, len, W.page),
			  "block %p+%zu crosses a page", (void *)v, len);
	i = live_lower(v);
	dpf_check(i == W.nlive || W.live[i].v != v,
		  "alloc returned %p, which is already allocated", (void *)v);
	dpf_check(i == 0 || W.live[i - 1].v + W.live[i - 1].len <= v,
		  "block %p overlaps the live block %p+%u", (void *)v,
		  (void *)W.live[i - 1].v, W.live[i - 1].len);
	dpf_check(i == W.nlive || v + len <= W.live[i].v,
		  "block %p+%zu overlaps the live block %p", (void *)v, len,
		  (void *)W.live[i].v);
	if (zero)
		for (i = 0; i < len; i++)
			dpf_check(!v[i], "zalloc block %p has %#x at +%zu",
				  (void *)v, v[i], i);
	return c;
}

/* The allocator must leave the bytes of a live block alone. */
static void check_untouched(const struct live *l)
{
	uint32_t i;

	if (l->dirty)
		return;
	/* Every byte equals the first, and the first is the tag: fast. */
	if (l->v[0] == l->tag && !memcmp(l->v, l->v + 1, l->len - 1))
		return;
	for (i = 0; i < l->len; i++)
		dpf_check(l->v[i] == l->tag,
			  "live block %p changed at +%u (%#x, driver wrote %#x) without a device write",
			  (void *)l->v, i, l->v[i], l->tag);
}

struct walk_ctx {
	struct slot *s;
	size_t n;
};

static void walk_check(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct walk_ctx *w = ctx;
	const struct dpf_chunk *c = dpf_arena_find(vaddr);

	dpf_check(c && c->va == vaddr && c->dma == dma && c->len == len &&
		  c->owner == w->s->id,
		  "walk of %s shows chunk %p dma %#llx len %zu the backend did not give it",
		  w->s->name, vaddr, (unsigned long long)dma, len);
	w->n++;
}

/* The model against the allocator's own account, for every pool. */
static void check_world(void)
{
	struct dmapool_stats st;
	int i;
	unsigned int k;

	dpf_check(!W.ncap, "report %s outside any call that could make it",
		  dmapool_report_kind_name(W.cap[0].kind));
	for (i = 0; i < MAX_POOLS; i++) {
		struct slot *s = &W.s[i];
		struct walk_ctx w = { s, 0 };
		size_t chunks;

		if (!s->h)
			continue;
		chunks = dpf_arena_count(s->id);
		W.a->walk(s->h, walk_check, &w);
		dpf_check(w.n == chunks, "walk of %s shows %zu chunks, backend holds %zu",
			  s->name, w.n, chunks);
		W.a->stats(s->h, &st);
		dpf_check(!(W.a->caps & DPF_CAP_IN_USE) ||
			  st.blocks_in_use == s->live,
			  "%s: stats say %llu blocks in use, the model %llu",
			  s->name, (unsigned long long)st.blocks_in_use,
			  (unsigned long long)s->live);
		dpf_check(st.chunks == chunks,
			  "%s: stats say %llu chunks, backend holds %zu",
			  s->name, (unsigned long long)st.chunks, chunks);
		dpf_check(st.block_size == s->bsize,
			  "%s: block size changed to %llu", s->name,
			  (unsigned long long)st.block_size);
		if (!(W.a->caps & DPF_CAP_STATS))
			continue;
		dpf_check(st.blocks_total == st.chunks * st.blocks_per_chunk &&
			  st.dma_bytes == st.chunks * st.chunk_size,
			  "%s: totals %llu blocks, %llu bytes for %llu chunks",
			  s->name, (unsigned long long)st.blocks_total,
			  (unsigned long long)st.dma_bytes,
			  (unsigned long long)st.chunks);
		dpf_check(st.blocks_in_use + st.quarantined + st.blocks_cached <=
			  st.blocks_total,
			  "%s: %llu in use + %llu quarantined + %llu cached > %llu blocks",
			  s->name, (unsigned long long)st.blocks_in_use,
			  (unsigned long long)st.quarantined,
			  (unsigned long long)st.blocks_cached,
			  (unsigned long long)st.blocks_total);
		dpf_check(st.violations == s->reports,
			  "%s: stats count %llu violations, %llu were reported",
			  s->name, (unsigned long long)st.violations,
			  (unsigned long long)s->reports);
		for (k = 0; k < DMAPOOL_R_KINDS; k++)
			dpf_check(st.by_kind[k] == s->by_kind[k],
				  "%s: stats count %llu %s, %llu were reported",
				  s->name, (unsigned long long)st.by_kind[k],
				  dmapool_report_kind_name(k),
				  (unsigned long long)s->by_kind[k]);
	}
	if (W.a->global_violations)
		dpf_check(W.a->global_violations() - W.global_base ==
			  W.global_reports,
			  "global violations grew by %llu, %llu were reported",
			  (unsigned long long)(W.a->global_violations() -
					       W.global_base),
			  (unsigned long long)W.global_reports);
}

/* The backend is about to take a chunk back: no live block may be in it. */
static void on_release(const struct dpf_chunk *c, void *ctx)
{
	size_t i = live_lower(c->va);

	(void)ctx;
	dpf_check(i == W.nlive || W.live[i].v >= c->va + c->len,
		  "chunk %p+%zu given back with the live block %p in it",
		  (void *)c->va, c->len, (void *)W.live[i].v);
	dpf_check(W.ngone_chunks < MAX_GONE,
		  "harness limit: more than %d chunks released in one step",
		  MAX_GONE);
	W.gone_chunks[W.ngone_chunks++] = *c;
}

/* ------------------------------------------------------------------ */
/* Pools.                                                              */

/* Memory the allocator was refused so far (backend or host). */
static unsigned long refusals(void)
{
	return dpf_arena_refusals() + dpf_host_failures();
}

static struct slot *slot_by_id(int id)
{
	int i;

	for (i = 0; i < MAX_POOLS; i++)
		if (W.s[i].h && W.s[i].id == id)
			return &W.s[i];
	return NULL;
}

static struct slot *live_slot(uint8_t n)
{
	struct slot *s = &W.s[n % MAX_POOLS];

	return s->h ? s : NULL;
}

static void decode_params(struct dpf_in *in, struct dpf_params *p)
{
	uint8_t a, b, c, f, ix, rz, q, r;

	memset(p, 0, sizeof(*p));
	p->size = dpf_u16(in);
	a = dpf_u8(in);
	b = dpf_u8(in);
	c = dpf_u8(in);
	f = dpf_u8(in);
	ix = dpf_u8(in);
	rz = dpf_u8(in);
	q = dpf_u8(in);
	r = dpf_u8(in);

	/* align: 0 (= 1), a power of two up to 64 KiB, or a non-power;
	 * bit 5: through dmapool_create() when no option is set. */
	if (a & 0x80)
		p->align = 0;
	else
		p->align = (size_t)1 << (a & 0x1f) % 17;
	if (a & 0x40)
		p->align += 3;
	/* boundary: none, a power of two up to 16 MiB, or a non-power. */
	if (b)
		p->boundary = ((size_t)1 << (b & 0x1f) % 25) +
			      ((b & 0x80) ? 8 : 0);
	/* chunk size: default, pages, or 64 KiB steps up to 8 MiB. */
	if (c & 0x80)
		p->chunk_size = (size_t)(c & 0x7f) << 16;
	else
		p->chunk_size = (size_t)c << 12;
	/* Never abort on a violation: the harness wants to see them. */
	p->flags = ((unsigned int)f << 1) & ~DMAPOOL_OPT_ABORT_ON_VIOLATION;
	p->index = ix % 4;
	p->redzone = (rz & 0x80) ? rz & 0x7f : 0;
	p->quarantine_max = q;
	p->reserve_chunks = r % 4;
	p->seed = 0x5eed0000u | a << 8 | b;
	/* Through dmapool_create() when no other option is set: its index
	 * is the default one. */
	p->plain = a & 0x20;
	if (p->plain)
		p->index = DMAPOOL_INDEX_HASH;
}

static void op_create(struct dpf_in *in)
{
	uint8_t n = dpf_u8(in);
	struct slot *s = &W.s[n % MAX_POOLS];
	unsigned long refused = refusals();
	struct dmapool_stats st;
	struct dpf_params p;
	enum dpf_verdict v;
	size_t esize = 0;
	void *h;

	decode_params(in, &p);
	dpf_log("  create slot %d size %zu align %zu boundary %zu chunk %zu flags %#x index %u redzone %u quarantine %u",
		n % MAX_POOLS, p.size, p.align, p.boundary, p.chunk_size,
		p.flags, p.index, p.redzone, p.quarantine_max);
	if (s->h)
		return;
	v = dpf_judge(&p, &W.feat, W.a->caps & DPF_CAP_OPTIONS, W.page,
		      &esize);
	snprintf(s->name, sizeof(s->name), "p%d.%d", n % MAX_POOLS, W.next_id);
	h = W.a->create(&p, W.next_id, s->name, capture, NULL);
	dpf_log("  -> %s", h ? s->name : "refused");
	if (!h) {
		/* A baseline's geometry rules are its own (it may round a
		 * block up to hold its free-list entry, then refuse the
		 * boundary); it only has to refuse what the kernel does. */
		if (W.a->caps & DPF_CAP_REPORTS) {
			bool oom = refusals() != refused && !W.ncap;

			dpf_check(v != DPF_MUST_WORK || oom,
				  "create refused a valid pool");
			/* Refused: one bad-geometry naming the pool, to the
			 * sink the create was given, errno EINVAL; out of
			 * memory: no report, ENOMEM. */
			dpf_check(dpf_create_errno == (oom ? ENOMEM : EINVAL),
				  "create refused (%s) with errno %d",
				  oom ? "out of memory" : "bad geometry",
				  dpf_create_errno);
			if (!oom)
				settle(&(struct expect){
					.n = 1,
					.kinds = K(DMAPOOL_R_BAD_GEOMETRY),
					.check_sink = true,
					.own_sink = !dpf_dmapool_plain(&p),
					.name = s->name });
		}
		return;
	}
	dpf_check(v != DPF_MUST_FAIL, "create accepted bad geometry");
	settle(&NO_REPORT);
	memset(&s->by_kind, 0, sizeof(s->by_kind));
	s->h = h;
	s->id = W.next_id++;
	s->p = p;
	s->align = p.align ? p.align : 1;
	s->live = 0;
	s->reports = 0;
	s->holds = p.flags & (DMAPOOL_OPT_QUARANTINE |
			      DMAPOOL_OPT_THREAD_CACHE);
	W.a->stats(h, &st);
	s->bsize = st.block_size;
	dpf_check(st.block_size >= p.size && !(st.block_size % s->align),
		  "block size %llu for size %zu align %zu",
		  (unsigned long long)st.block_size, p.size, s->align);
	if (W.a->caps & DPF_CAP_STATS)
		dpf_check(st.block_size == esize && st.blocks_per_chunk &&
			  st.chunk_size >= st.blocks_per_chunk * esize,
			  "geometry: block %llu (expected %zu), %llu per %llu-byte chunk",
			  (unsigned long long)st.block_size, esize,
			  (unsigned long long)st.blocks_per_chunk,
			  (unsigned long long)st.chunk_size);
}

static void destroy_slot(struct slot *s)
{
	struct expect e = NO_REPORT;
	size_t i;

	if ((W.a->caps & DPF_CAP_REPORTS) && s->live) {
		e = expect_one(K(DMAPOOL_R_DESTROY_BUSY), s, NULL);
		e.check_addr = false;
		e.check_count = true;
		e.count = s->live;
	}
	W.a->destroy(s->h);
	/* s->h is only an identity now, the reports still match it. */
	settle(&e);

	dpf_check(s->live || !dpf_arena_count(s->id),
		  "destroy of idle pool %s kept %zu chunks", s->name,
		  dpf_arena_count(s->id));
	if (W.a->caps & DPF_CAP_EXACT_DESTROY) {
		/* Exactly the chunks that still hold a live block stay. */
		const struct dpf_chunk *c;

		for (i = 0; (c = dpf_arena_at(i)); i++) {
			size_t j;

			if (c->owner != s->id)
				continue;
			j = live_lower(c->va);
			dpf_check(j < W.nlive && W.live[j].v < c->va + c->len,
				  "destroy kept the empty chunk %p",
				  (void *)c->va);
		}
	}
	dpf_arena_orphan(s->id);
	/* Its live blocks are leaked on purpose: forget them. */
	for (i = W.nlive; i-- > 0;)
		if (W.live[i].slot == s - W.s) {
			dmapool_fuzz_dev_forget(W.dev, W.live[i].v);
			live_remove(i);
		}
	s->h = NULL;
}

static void op_destroy(struct dpf_in *in)
{
	struct slot *s = live_slot(dpf_u8(in));

	if (s)
		destroy_slot(s);
}

/* ------------------------------------------------------------------ */
/* Alloc and free.                                                     */

/* May an alloc from @s fail now?  @st is from just before it. */
static bool may_fail(const struct slot *s, const struct dmapool_stats *st,
		     dmapool_gfp_t gfp, unsigned long refused)
{
	if (refusals() != refused)
		return true;		/* the backend or the host said no */
	if (!(gfp & DMAPOOL_GFP_NOGROW))
		return false;
	if (!(W.a->caps & DPF_CAP_STATS) || s->holds)
		return true;
	return st->blocks_total == st->blocks_in_use;
}

/*
 * A block fresh from a poisoned pool: the pool checked it without changing
 * it (unless it zeroed it), so its bytes say what the check had to find.
 * Not poison everywhere: exactly one device-write-after-free naming the
 * block and its first changed byte; poison everywhere: none.
 */
static const struct expect *expect_poison(const struct slot *s,
					  const uint8_t *v, bool zero)
{
	static struct expect e;
	size_t i;

	memset(&e, 0, sizeof(e));
	if (!(s->p.flags & DMAPOOL_OPT_POISON) ||
	    !(W.a->caps & DPF_CAP_REPORTS) || zero)
		return &e;
	for (i = 0; i < s->bsize && v[i] == DMAPOOL_POISON_BYTE; i++)
		;
	e.dev_check = true;
	e.dev_kind = DMAPOOL_R_DEVICE_WRITE_AFTER_FREE;
	e.dev_block = v;
	e.dev_min = e.dev_max = i < s->bsize;
	e.dev_offset = i;
	return &e;
}

/*
 * A live block about to be freed from a pool with redzones: the key bytes
 * are never 0x00 or 0xff (harden.c), so if the device left one of those in
 * the block's redzone the free must report exactly one device-overrun;
 * else it may report one (the device may have changed other bytes).
 */
static struct expect expect_redzone(const struct slot *s, const uint8_t *v)
{
	struct expect e = { 0 };
	const uint8_t *rz = v + s->bsize;
	unsigned int i;

	if (!s->p.redzone || !(W.a->caps & DPF_CAP_REPORTS))
		return e;
	e.dev_check = true;
	e.dev_kind = DMAPOOL_R_DEVICE_OVERRUN;
	e.dev_block = v;
	e.dev_max = 1;
	e.dev_offset = SIZE_MAX;
	for (i = 0; i < s->p.redzone; i++)
		if (rz[i] == 0x00 || rz[i] == 0xff)
			e.dev_min = 1;
	return e;
}

static bool do_alloc(struct slot *s, uint8_t mode)
{
	dmapool_gfp_t gfp = (mode & 2) ? DMAPOOL_GFP_NOGROW : 0;
	bool zero = mode & 1;
	bool by_handle = (mode & 4) && (W.a->caps & DPF_CAP_HANDLES);
	unsigned long refused = refusals();
	const struct dpf_chunk *c;
	struct dmapool_stats st;
	struct live l = { 0 };

	if (W.nlive == MAX_LIVE)
		return false;
	W.a->stats(s->h, &st);
	if (zero)
		gfp |= DMAPOOL_GFP_ZERO;
	if (by_handle) {
		l.blk = W.a->alloc_block(s->h, gfp);
		l.v = l.blk.vaddr;
		l.dma = l.blk.dma;
	} else {
		l.v = W.a->alloc(s->h, gfp, &l.dma);
	}
	settle(l.v ? expect_poison(s, l.v, zero) : &NO_REPORT);
	if (!l.v) {
		dpf_log("  alloc %s -> NULL", s->name);
		dpf_check(may_fail(s, &st, gfp, refused),
			  "alloc from %s failed (%llu of %llu blocks in use)",
			  s->name, (unsigned long long)st.blocks_in_use,
			  (unsigned long long)st.blocks_total);
		return false;
	}
	c = check_new_block(s, l.v, l.dma, zero);
	l.serial = c->serial;
	l.slot = (int)(s - W.s);
	l.len = (uint32_t)s->bsize;
	l.by_handle = by_handle;
	l.tag = ++W.tag;
	memset(l.v, l.tag, l.len);
	live_insert(&l);
	dmapool_fuzz_dev_alloced(W.dev, l.v, l.dma, l.len);
	s->live++;
	dpf_log("  alloc %s -> %p dma %#llx%s", s->name, (void *)l.v,
		(unsigned long long)l.dma, by_handle ? " (handle)" : "");
	return true;
}

static void op_alloc(struct dpf_in *in)
{
	struct slot *s = live_slot(dpf_u8(in));
	uint8_t mode = dpf_u8(in);

	if (s)
		do_alloc(s, mode);
}

static void op_alloc_n(struct dpf_in *in)
{
	struct slot *s = live_slot(dpf_u8(in));
	unsigned int n = dpf_u8(in);
	uint8_t mode = dpf_u8(in);

	while (s && n-- && do_alloc(s, mode))
		;
}

static void do_free(size_t i, bool by_handle)
{
	struct live l = W.live[i];
	struct slot *s = &W.s[l.slot];
	struct expect e = expect_redzone(s, l.v);

	check_untouched(&l);
	dpf_log("  free %s %p%s", s->name, (void *)l.v,
		by_handle && l.by_handle ? " (handle)" : "");
	/* Not the driver's any more: the free may release its chunk
	 * (auto-shrink), which the backend hook checks against the model. */
	live_remove(i);
	s->live--;
	if (by_handle && l.by_handle)
		W.a->free_block(s->h, l.blk);
	else
		W.a->free(s->h, l.v, l.dma);
	settle(&e);
	ring_push(&l, s->id);
	dmapool_fuzz_dev_freed(W.dev, l.v);
}

static void op_free(struct dpf_in *in)
{
	uint16_t which = dpf_u16(in);
	uint8_t mode = dpf_u8(in);

	if (W.nlive)
		do_free(which % W.nlive, mode & 1);
}

static void op_free_n(struct dpf_in *in)
{
	unsigned int n = dpf_u8(in);
	uint8_t order = dpf_u8(in), seed = dpf_u8(in);
	uint32_t x = seed * 2654435761u + 1;

	while (n-- && W.nlive) {
		size_t i;

		switch (order % 4) {
		case 0:
			i = 0;
			break;
		case 1:
			i = W.nlive - 1;
			break;
		case 2:
			i = W.nlive / 2;
			break;
		default:
			x = x * 1103515245u + 12345u;
			i = (x >> 8) % W.nlive;
			break;
		}
		do_free(i, order & 4);
	}
}

/* ------------------------------------------------------------------ */
/* The device: the hostile-device library (dmapool/fuzz.h), the same    */
/* one users' harnesses get.  Its memory is every chunk of every live   */
/* pool, in slot order; it learns the model's live and freed blocks.    */

static void walk_pools(void *src, dmapool_chunk_fn fn, void *ctx)
{
	int i;

	(void)src;
	for (i = 0; i < MAX_POOLS; i++)
		if (W.s[i].h)
			W.a->walk(W.s[i].h, fn, ctx);
}

/*
 * The device is about to write [p, p + len): note it in the model.  The
 * device is off with DPF_NO_DEVICE=1 (the input is decoded the same, its
 * device ops do nothing), which is how the teeth test shows that a finding
 * against a baseline is the device's doing.
 */
static bool device_wrote(void *ctx, void *addr, size_t len)
{
	const struct dpf_chunk *c = dpf_arena_find(addr);

	(void)ctx;
	if (c && c->serial < MAX_SERIAL)
		W.touched[c->serial] = 1;
	dirty_range(addr, len);
	return true;
}

static void op_device(enum dmapool_fuzz_action a, struct dpf_in *in)
{
	dmapool_fuzz_dev_do(W.dev, a, in);
}

/* ------------------------------------------------------------------ */
/* The careless host: every misuse must be reported once and change    */
/* nothing.                                                            */

enum {
	MIS_DOUBLE, MIS_NOT_BLOCK, MIS_OUTSIDE, MIS_DMA, MIS_WRONG_POOL,
	MIS_NULL_POOL, MIS_H_DOUBLE, MIS_H_STALE, MIS_H_CORRUPT,
	MIS_H_WRONG_POOL, MIS_H_DMA, MIS_H_VADDR, MIS_H_NULL_POOL,
	MIS_COUNT
};

static const char *const mis_names[MIS_COUNT] = {
	"double", "not-block", "outside", "dma", "wrong-pool", "null-pool",
	"h-double", "h-stale", "h-corrupt", "h-wrong-pool", "h-dma",
	"h-vaddr", "h-null-pool",
};

/*
 * A recently freed block, not allocated again, of a pool still alive;
 * @handle: freed from a handle allocation; @again: allocated again by now.
 */
static struct gone *pick_gone(unsigned int k, bool handle, bool again)
{
	unsigned int i;

	for (i = 0; i < W.ring_len; i++) {
		struct gone *g = ring_recent((k + i) % W.ring_len);
		struct live *l = live_find(g->v);

		if (!slot_by_id(g->id) || (handle && !g->by_handle))
			continue;
		if (again ? l && l->slot == g->slot : !l)
			return g;
	}
	return NULL;
}

/* A live block, optionally one allocated by handle. */
static struct live *pick_live(unsigned int k, bool handle)
{
	size_t i;

	for (i = 0; i < W.nlive; i++) {
		struct live *l = &W.live[(k + i) % W.nlive];

		if (!handle || l->by_handle)
			return l;
	}
	return NULL;
}

/* Another live pool than @s, if any. */
static struct slot *other_slot(const struct slot *s, unsigned int k)
{
	int i;

	for (i = 0; i < MAX_POOLS; i++) {
		struct slot *o = &W.s[(k + i) % MAX_POOLS];

		if (o->h && o != s)
			return o;
	}
	return NULL;
}

/*
 * The report a free of @v to @s earns when @v is not a block @s has
 * allocated: by who owns the memory now.
 */
static uint32_t by_owner(const struct slot *s, const void *v,
			 const char **owner)
{
	const struct dpf_chunk *c = dpf_arena_find(v);
	struct slot *o = c ? slot_by_id(c->owner) : NULL;

	if (o == s)
		return K(DMAPOOL_R_DOUBLE_FREE);
	if (o) {
		*owner = o->name;
		return K(DMAPOOL_R_FREE_WRONG_POOL);
	}
	return K(DMAPOOL_R_FREE_OUTSIDE);
}

/* Is the chunk that held @g still the same one? */
static bool same_chunk(const struct gone *g)
{
	const struct dpf_chunk *c = dpf_arena_find(g->v);

	return c && c->serial == g->serial;
}

/* Stats and walk of a NULL pool: nothing, quietly. */
static void walk_none(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	dpf_fail("walk of a NULL pool called back (%p)", vaddr);
}

static void null_pool_queries(void)
{
	struct dmapool_stats st;

	memset(&st, 0xff, sizeof(st));
	W.a->stats(NULL, &st);
	dpf_check(!st.blocks_total && !st.chunks && !st.violations,
		  "stats of a NULL pool are not zero");
	W.a->walk(NULL, walk_none, NULL);
	settle(&NO_REPORT);
}

static void op_misuse(struct dpf_in *in)
{
	unsigned int kind = dpf_u8(in) % MIS_COUNT;
	uint16_t a = dpf_u16(in), b = dpf_u16(in);
	const uint32_t handle_kinds = K(DMAPOOL_R_DOUBLE_FREE) |
				      K(DMAPOOL_R_STALE_HANDLE) |
				      K(DMAPOOL_R_BAD_HANDLE) |
				      K(DMAPOOL_R_FREE_WRONG_POOL) |
				      K(DMAPOOL_R_FREE_OUTSIDE);
	struct dmapool_block blk;
	struct expect e;
	struct slot *s, *o;
	struct live *l;
	struct gone *g;
	const char *owner = NULL;
	uint8_t *v;

	if (!(W.a->caps & DPF_CAP_REPORTS))
		return;
	if (kind >= MIS_H_DOUBLE && !(W.a->caps & DPF_CAP_HANDLES))
		return;
	dpf_log("  misuse %s a %u b %u", mis_names[kind], a, b);
	switch (kind) {
	case MIS_DOUBLE:
		g = pick_gone(a, false, false);
		if (!g)
			return;
		s = slot_by_id(g->id);
		e = expect_one(by_owner(s, g->v, &owner), s, g->v);
		e.owner = owner;
		W.a->free(s->h, g->v, g->dma);
		break;
	case MIS_NOT_BLOCK:
		l = pick_live(a, false);
		if (!l || l->len < 2)
			return;
		s = &W.s[l->slot];
		v = l->v + 1 + b % (l->len - 1);
		e = expect_one(K(DMAPOOL_R_FREE_NOT_BLOCK), s, v);
		W.a->free(s->h, v, l->dma + (uint64_t)(v - l->v));
		break;
	case MIS_OUTSIDE:
		s = live_slot((uint8_t)a);
		if (!s)
			return;
		if (b % 3 == 0) {
			v = NULL;
		} else if (b % 3 == 1) {
			v = outside_buf + b % sizeof(outside_buf);
		} else {
			/* Arena memory no chunk covers (its very end). */
			v = (uint8_t *)dpf_arena_end() - 1 - b % 4096;
			if (dpf_arena_find(v))
				return;
		}
		e = expect_one(K(DMAPOOL_R_FREE_OUTSIDE), s, v);
		W.a->free(s->h, v, (uint64_t)(uintptr_t)v);
		break;
	case MIS_DMA:
		l = pick_live(a, false);
		if (!l)
			return;
		s = &W.s[l->slot];
		e = expect_one(K(DMAPOOL_R_FREE_DMA_MISMATCH), s, l->v);
		W.a->free(s->h, l->v, l->dma ^ ((uint64_t)b << 3 | 8));
		break;
	case MIS_WRONG_POOL:
		l = pick_live(a, false);
		if (!l)
			return;
		s = &W.s[l->slot];
		o = other_slot(s, b);
		if (!o)
			return;
		e = expect_one(K(DMAPOOL_R_FREE_WRONG_POOL), o, l->v);
		e.owner = s->name;
		W.a->free(o->h, l->v, l->dma);
		break;
	case MIS_NULL_POOL:
		e = expect_one(K(DMAPOOL_R_NULL_POOL), NULL, NULL);
		e.check_addr = false;
		null_pool_queries();
		if (b & 1) {
			uint64_t dma;

			dpf_check(!W.a->alloc(NULL, 0, &dma),
				  "alloc from a NULL pool returned a block");
		} else {
			l = pick_live(a, false);
			W.a->free(NULL, l ? l->v : NULL, l ? l->dma : 0);
		}
		break;
	case MIS_H_DOUBLE:
		g = pick_gone(a, true, false);
		if (!g)
			return;
		s = slot_by_id(g->id);
		if (same_chunk(g))
			e = expect_one(K(DMAPOOL_R_DOUBLE_FREE) |
				       K(DMAPOOL_R_STALE_HANDLE), s, g->v);
		else
			e = expect_one(handle_kinds, s, g->v);
		W.a->free_block(s->h, g->blk);
		break;
	case MIS_H_STALE:
		g = pick_gone(a, true, true);
		if (!g)
			return;
		s = slot_by_id(g->id);
		if (same_chunk(g))
			e = expect_one(K(DMAPOOL_R_STALE_HANDLE), s, g->v);
		else
			e = expect_one(handle_kinds, s, g->v);
		W.a->free_block(s->h, g->blk);
		break;
	case MIS_H_CORRUPT:
		l = pick_live(a, true);
		if (!l)
			return;
		s = &W.s[l->slot];
		blk = l->blk;
		blk.handle ^= b ? (uint64_t)b << (a % 49) : 1;
		e = expect_one(K(DMAPOOL_R_BAD_HANDLE) |
			       K(DMAPOOL_R_STALE_HANDLE), s, l->v);
		W.a->free_block(s->h, blk);
		break;
	case MIS_H_WRONG_POOL:
		l = pick_live(a, true);
		if (!l)
			return;
		s = &W.s[l->slot];
		o = other_slot(s, b);
		if (!o)
			return;
		e = expect_one(K(DMAPOOL_R_FREE_WRONG_POOL) |
			       K(DMAPOOL_R_BAD_HANDLE), o, l->v);
		e.owner = s->name;
		W.a->free_block(o->h, l->blk);
		break;
	case MIS_H_DMA:
		l = pick_live(a, true);
		if (!l)
			return;
		s = &W.s[l->slot];
		blk = l->blk;
		blk.dma ^= (uint64_t)b << 3 | 8;
		e = expect_one(K(DMAPOOL_R_FREE_DMA_MISMATCH) |
			       K(DMAPOOL_R_BAD_HANDLE), s, l->v);
		W.a->free_block(s->h, blk);
		break;
	case MIS_H_VADDR:
		l = pick_live(a, true);
		if (!l || l->len < 2)
			return;
		s = &W.s[l->slot];
		blk = l->blk;
		blk.vaddr = l->v + 1 + b % (l->len - 1);
		e = expect_one(K(DMAPOOL_R_BAD_HANDLE) |
			       K(DMAPOOL_R_FREE_NOT_BLOCK), s, blk.vaddr);
		W.a->free_block(s->h, blk);
		break;
	default: /* MIS_H_NULL_POOL */
		e = expect_one(K(DMAPOOL_R_NULL_POOL), NULL, NULL);
		e.check_addr = false;
		if (b & 1) {
			blk = W.a->alloc_block(NULL, 0);
			dpf_check(!blk.vaddr,
				  "alloc_block from a NULL pool returned a block");
		} else {
			l = pick_live(a, true);
			if (l)
				blk = l->blk;
			else
				memset(&blk, 0, sizeof(blk));
			W.a->free_block(NULL, blk);
		}
		break;
	}
	settle(&e);
}

/* ------------------------------------------------------------------ */
/* Quiesce, shrink, backend failures.                                  */

static void op_quiesce(struct dpf_in *in)
{
	struct slot *s = live_slot(dpf_u8(in));
	struct dmapool_stats st;

	if (!s || !W.a->quiesce)
		return;
	W.a->quiesce(s->h);
	settle(&NO_REPORT);
	W.a->stats(s->h, &st);
	dpf_check(!st.quarantined, "%s: %llu blocks still quarantined after quiesce",
		  s->name, (unsigned long long)st.quarantined);
}

/* Chunks of @s that hold a live block. */
static size_t chunks_with_live(const struct slot *s)
{
	const struct dpf_chunk *c;
	size_t i, j, n = 0;

	for (i = 0; (c = dpf_arena_at(i)); i++) {
		if (c->owner != s->id)
			continue;
		j = live_lower(c->va);
		n += j < W.nlive && W.live[j].v < c->va + c->len;
	}
	return n;
}

static void op_shrink(struct dpf_in *in)
{
	struct slot *s = live_slot(dpf_u8(in));

	size_t before, n;

	/* The backend hook checks that no chunk with a live block goes. */
	if (!s || !W.a->shrink)
		return;
	before = dpf_arena_count(s->id);
	n = W.a->shrink(s->h);
	settle(&NO_REPORT);
	dpf_check(dpf_arena_count(s->id) == before - n,
		  "%s: shrink says %zu chunks went, the backend got %zu back",
		  s->name, n, before - dpf_arena_count(s->id));
	dpf_check(before - n >= chunks_with_live(s),
		  "%s: shrink left %zu chunks for blocks in %zu", s->name,
		  before - n, chunks_with_live(s));
}

/*
 * f: bits 0-2, the next n chunk allocations fail (bit 7: they come back
 * misaligned instead, a broken backend); bits 3-6, the k-th host
 * allocation from now fails (0: none).
 */
static void op_fail(struct dpf_in *in)
{
	uint8_t f = dpf_u8(in);

	dpf_arena_fail_next(f & 7, (f & 0x80) &&
			    (W.a->caps & DPF_CAP_CHECKS_BACKEND));
	dpf_host_fail_in((f >> 3) & 15);
}

/* ------------------------------------------------------------------ */
/* One input.                                                          */

static void capture_global(const struct dpf_report *r, void *ctx)
{
	capture(r, ctx);
}

static void world_init(const struct dpf_adapter *a)
{
	static const struct dpf_adapter *inited;
	static struct dmapool_fuzz_dev *dev;
	struct dmapool_fuzz_cfg cfg;

	dpf_env_init();
	dpf_arena_init();
	if (inited == a)
		return;
	if (!dev) {
		dmapool_fuzz_cfg_init(&cfg);
		cfg.max_chunks = DPF_ARENA_CHUNKS;
		cfg.max_blocks = MAX_LIVE;
		cfg.max_sources = 1;
		cfg.recent = RING;
		cfg.smash_budget = SMASH_BUDGET;
		cfg.before_write = device_wrote;
		dev = dmapool_fuzz_dev_new(&cfg);
		dpf_check(dev, "out of memory for the device");
	}
	memset(&W, 0, sizeof(W));
	W.dev = dev;
	W.a = a;
	a->init(capture_global, NULL);
	if (a->features)
		a->features(&W.feat);
	W.page = 4096;
	W.no_device = getenv("DPF_NO_DEVICE") && *getenv("DPF_NO_DEVICE") &&
		      strcmp(getenv("DPF_NO_DEVICE"), "0");
	inited = a;
}

int dpf_ops_run(const struct dpf_adapter *a, const uint8_t *data,
		size_t size)
{
	static char where[64];
	struct dpf_in in = { data, size > MAX_INPUT ? MAX_INPUT : size };
	const struct dpf_chunk *c;
	size_t i;

	world_init(a);
	snprintf(where, sizeof(where), "ops(%s)", a->name);
	dpf_where = where;
	dpf_step = 0;
	memset(W.s, 0, sizeof(W.s));
	W.next_id = 0;
	W.nlive = 0;
	W.ring_head = W.ring_len = 0;
	W.tag = 0;
	W.ncap = 0;
	memset(W.touched, 0, sizeof(W.touched));
	dpf_arena_reset();
	dpf_host_fail_in(0);
	dpf_arena_set_hook(on_release, NULL);
	dmapool_fuzz_dev_reset(W.dev);
	dmapool_fuzz_dev_add_memory(W.dev, walk_pools, NULL);
	dmapool_fuzz_dev_enable(W.dev, !W.no_device);
	W.global_base = a->global_violations ? a->global_violations() : 0;
	W.global_reports = 0;

	while (dpf_more(&in)) {
		unsigned int op = dpf_u8(&in) % OP_COUNT;

		dpf_step++;
		W.ngone_chunks = 0;
		dpf_log("%lu: %s", dpf_step, op_names[op]);
		switch (op) {
		case OP_CREATE: op_create(&in); break;
		case OP_DESTROY: op_destroy(&in); break;
		case OP_ALLOC: op_alloc(&in); break;
		case OP_FREE: op_free(&in); break;
		case OP_ALLOC_N: op_alloc_n(&in); break;
		case OP_FREE_N: op_free_n(&in); break;
		case OP_DEV_WRITE: op_device(DMAPOOL_FUZZ_WRITE, &in); break;
		case OP_DEV_FILL: op_device(DMAPOOL_FUZZ_FILL, &in); break;
		case OP_DEV_COPY: op_device(DMAPOOL_FUZZ_COPY, &in); break;
		case OP_DEV_ADD: op_device(DMAPOOL_FUZZ_ADD, &in); break;
		case OP_DEV_SMASH: op_device(DMAPOOL_FUZZ_SMASH, &in); break;
		case OP_DEV_POKE: op_device(DMAPOOL_FUZZ_POKE, &in); break;
		case OP_MISUSE: op_misuse(&in); break;
		case OP_QUIESCE: op_quiesce(&in); break;
		case OP_SHRINK: op_shrink(&in); break;
		default: op_fail(&in); break;
		}
		dpf_rcu_flush();	/* no reader between steps */
		check_world();
	}

	/* Tear down: every pool goes, and with it every chunk not leaked. */
	dpf_step++;
	W.ngone_chunks = 0;
	dpf_log("%lu: teardown", dpf_step);
	for (i = 0; i < MAX_POOLS; i++)
		if (W.s[i].h)
			destroy_slot(&W.s[i]);
	dpf_rcu_flush();
	check_world();
	for (i = 0; (c = dpf_arena_at(i)); i++)
		dpf_check(c->owner < 0,
			  "chunk %p of destroyed pool %d was never given back",
			  (void *)c->va, c->owner);
	dpf_arena_reset();
	dpf_host_fail_in(0);
	return 0;
}

#ifndef DPF_NO_ENTRY
/*
 * Built with -DDPF_OPS_BASELINE='"linux-embedded"' the same harness drives
 * that baseline design instead of dmapool (DPF_BASELINE=<name> in the
 * environment picks another one at run time).
 */
static const struct dpf_adapter *entry;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
#ifdef DPF_OPS_BASELINE
	const char *name = getenv("DPF_BASELINE");

	entry = dpf_baseline_adapter(name && *name ? name : DPF_OPS_BASELINE);
#else
	entry = &dpf_dmapool_adapter;
#endif
	(void)argc;
	(void)argv;
	world_init(entry);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!entry)
		LLVMFuzzerInitialize(NULL, NULL);
	return dpf_ops_run(entry, data, size);
}
#endif
