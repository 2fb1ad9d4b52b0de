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
 *              (see decode_params; chunks low in the address space and
 *              far apart, poison_sample, the plain dmapool_create)
 *   DESTROY    slot u8
 *   ALLOC      slot u8, mode u8 (1 zero, 2 no-grow, 4 by handle, 0x10 in
 *              the second thread)
 *   FREE       which u16, mode u8 (1 by handle when it has one, else 2
 *              dmapool_free_zero; 4 in the second thread)
 *   ALLOC_N    slot u8, count u8, mode u8 (ALLOC's, and 8: all in one
 *              dmapool_alloc_bulk)
 *   FREE_N     count u8, order u8, seed u8 (order bits 0-1: which blocks,
 *              4 by handle, 8 all in one dmapool_free_bulk, 0x10 with a
 *              freed block among them, 0x20 in the second thread, 0x40
 *              dmapool_free_zero)
 *   DEV_WRITE  off u32, len u8, len bytes
 *   DEV_FILL   off u32, len u16, byte u8
 *   DEV_COPY   src u32, dst u32, len u16
 *   DEV_ADD    off u32, delta u16 (signed, added to the u64 at off)
 *   DEV_SMASH  mode u8 (0 free memory only, 1 everything), seed u8
 *   DEV_POKE   recent u8, off u8, len u8 (max 16), len bytes: writes into
 *              a recently freed block, where an embedded free list keeps
 *              its links
 *   MISUSE     kind u8, a u16, b u16 (see do_misuse)
 *   QUIESCE    slot u8 (bit 7: in the second thread)
 *   SHRINK     slot u8 (bit 7: in the second thread)
 *   FAIL       f u8: chunk allocations fail or come back misaligned, a
 *              host allocation fails (see op_fail)
 *   THREAD     the second thread exits (its heaps become orphans; the
 *              next op that needs it starts a new one)
 *
 * The second thread (worker.c) runs in lock step with the harness: one
 * call at a time, so an input replays exactly.  It owns heaps of its own,
 * so its frees of the first thread's blocks are remote frees and the other
 * way round.
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
 * with a live block goes back to the backend; a bulk allocation hands out
 * all its blocks or none, a bulk free reports its bad entry and frees the
 * rest; free_zero leaves zeros (poison where the pool poisons); every
 * misuse is reported exactly once with an acceptable kind and leaves the
 * pool unchanged (no byte of a block written), and nothing else is
 * reported; an allocation without growing fails only when the calling
 * thread's heap has no free block (any heap's, in a shared pool).  Device reports of the hardening options must
 * name memory the device did write, and must come where the memory says
 * they must: an alloc from a poisoned pool that hands out a block whose
 * bytes are not all poison reports it once (first changed byte included;
 * with sampled poison, when the head that is always checked changed), a
 * free of a block whose redzone holds a byte the key never has (0x00,
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
	OP_DEV_POKE, OP_MISUSE, OP_QUIESCE, OP_SHRINK, OP_FAIL, OP_THREAD,
	OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
	"create", "destroy", "alloc", "free", "alloc_n", "free_n",
	"dev_write", "dev_fill", "dev_copy", "dev_add", "dev_smash",
	"dev_poke", "misuse", "quiesce", "shrink", "fail", "thread",
};

#define MAX_INPUT	8192
#define MAX_POOLS	4
#define MAX_LIVE	2048
#define RING		64
#define MAX_BULK	(255 + 1)	/* a free_n's blocks and a bad one */
/*
 * Reports one step may capture: a bulk call or an alloc_n reports up to
 * twice per block (a poisoned block the device wrote into and its redzone
 * it overran are two reports), plus a margin.
 */
#define MAX_CAPTURE	(2 * MAX_BULK + 64)
#define MAX_DEV_EXPECT	MAX_BULK
#define MAX_SERIAL	16384
#define SMASH_BUDGET	(256u << 10)	/* bytes a smash writes */
#define MAX_GONE	DPF_ARENA_CHUNKS	/* chunks released in one step */

#define K(kind)		(1u << (kind))

/* The head sampled poison always checks (where an embedded free list
 * keeps its links): the first 16 bytes of a block. */
#define SAMPLED_HEAD	16u

/* W.chunk_ctx: which context's heap a chunk is in, as far as known. */
#define CTX_UNSEEN	0
#define CTX_UNKNOWN	0xff	/* else 1 + the context */

struct slot {
	void *h;			/* adapter pool, NULL: slot empty */
	int id;				/* pool instance (arena owner) */
	struct dpf_params p;
	size_t bsize;			/* block size the pool reports */
	uint64_t bpc;			/* blocks per chunk it reports */
	size_t align;
	uint64_t live;			/* blocks the model holds */
	uint64_t reports;
	uint64_t by_kind[DMAPOOL_R_KINDS];
	bool holds;			/* freed blocks may wait (quarantine):
					 * no-grow may fail early */
	bool shared;			/* DMAPOOL_OPT_SHARED: one heap */
	bool heap[DPF_CTXS];		/* the context may have a heap here */
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
};

/*
 * A device report (poison, redzone) a call must make about @block: between
 * @min and @max of @kind.  Every device report must be sound (name memory
 * the device wrote); those a call had to make are listed in W.dx.
 */
struct dev_expect {
	const void *block;
	enum dmapool_report_kind kind;
	unsigned int min, max, seen;
	size_t offset;			/* SIZE_MAX: not checked */
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
	struct dev_expect dx[MAX_DEV_EXPECT];	/* for the call being made */
	unsigned int ndx;
	uint8_t chunk_ctx[MAX_SERIAL];	/* CTX_*, by chunk serial */
	uint64_t last_serial;		/* chunks classified so far */
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
	unsigned int i, k, matched = 0;

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
			for (k = 0; k < W.ndx; k++) {
				struct dev_expect *d = &W.dx[k];

				if (r->kind != d->kind || r->block != d->block)
					continue;
				dpf_check(d->offset == SIZE_MAX ||
					  r->offset == d->offset,
					  "%s for %p at +%zu, the first changed byte is at +%zu",
					  dmapool_report_kind_name(r->kind),
					  r->block, r->offset, d->offset);
				d->seen++;
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
	for (k = 0; k < W.ndx; k++)
		dpf_check(W.dx[k].seen >= W.dx[k].min &&
			  W.dx[k].seen <= W.dx[k].max,
			  "%u %s report(s) for %p, expected %u to %u",
			  W.dx[k].seen, dmapool_report_kind_name(W.dx[k].kind),
			  W.dx[k].block, W.dx[k].min, W.dx[k].max);
	W.ncap = 0;
	W.ndx = 0;
}

/* The call about to be made must report @block between @min and @max
 * times as @kind (at @offset). */
static void expect_dev(const void *block, enum dmapool_report_kind kind,
		       unsigned int min, unsigned int max, size_t offset)
{
	struct dev_expect *d;

	dpf_check(W.ndx < MAX_DEV_EXPECT, "harness limit: device expectations");
	d = &W.dx[W.ndx++];
	d->block = block;
	d->kind = kind;
	d->min = min;
	d->max = max;
	d->seen = 0;
	d->offset = offset;
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

/* The first of @n bytes at @p that is not @b, or @n: one memcmp when
 * there is none (fast, and uninstrumented). */
static size_t first_not(const uint8_t *p, size_t n, uint8_t b)
{
	size_t i;

	if (!n || (p[0] == b && !memcmp(p, p + 1, n - 1)))
		return n;
	for (i = 0; i < n && p[i] == b; i++)
		;
	return i;
}

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
	if (zero) {
		i = first_not(v, len, 0);
		dpf_check(i == len, "zalloc block %p has %#x at +%zu",
			  (void *)v, i < len ? v[i] : 0, i);
	}
	return c;
}

/* The allocator must leave the bytes of a live block alone. */
static void check_untouched(const struct live *l)
{
	size_t i;

	if (l->dirty)
		return;
	i = first_not(l->v, l->len, l->tag);
	dpf_check(i == l->len,
		  "live block %p changed at +%zu (%#x, driver wrote %#x) without a device write",
		  (void *)l->v, i, i < l->len ? l->v[i] : 0, l->tag);
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
	static const unsigned int samples[8] = {
		0, 1, 2, 3, 16, 64, 1000, 0xffffffffu,
	};
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
	/* index: bits 0-1 (3: none such); bit 2: every other chunk from the
	 * low arena, at addresses below a chunk's length, the others far
	 * away. */
	p->index = ix % 4;
	p->low = ix & 4;
	p->redzone = (rz & 0x80) ? rz & 0x7f : 0;
	p->quarantine_max = q;
	/* reserve: bits 0-1; poison_sample: bits 2-4 (refused without
	 * DMAPOOL_OPT_POISON_SAMPLED unless 0). */
	p->reserve_chunks = r % 4;
	p->poison_sample = samples[(r >> 2) & 7];
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
	dpf_log("  create slot %d size %zu align %zu boundary %zu chunk %zu flags %#x index %u redzone %u quarantine %u reserve %zu sample %u%s",
		n % MAX_POOLS, p.size, p.align, p.boundary, p.chunk_size,
		p.flags, p.index, p.redzone, p.quarantine_max,
		p.reserve_chunks, p.poison_sample, p.low ? " low" : "");
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
	s->holds = p.flags & DMAPOOL_OPT_QUARANTINE;
	s->shared = p.flags & DMAPOOL_OPT_SHARED;
	memset(s->heap, 0, sizeof(s->heap));
	W.a->stats(h, &st);
	s->bsize = st.block_size;
	s->bpc = st.blocks_per_chunk;
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

static struct gone *pick_gone(unsigned int k, bool handle, bool again);
static uint32_t by_owner(const struct slot *s, const void *v,
			 const char **owner);

/* ---- calls, in the harness's thread or the second one ---- */

enum call_kind {
	C_ALLOC, C_ALLOC_BLOCK, C_FREE, C_FREE_ZERO, C_FREE_BLOCK,
	C_ALLOC_BULK, C_FREE_BULK, C_QUIESCE, C_SHRINK,
};

struct call {
	enum call_kind kind;
	void *pool;
	dmapool_gfp_t gfp;
	void *v;
	uint64_t dma;
	struct dmapool_block blk;
	unsigned int n;
	void **vs;
	uint64_t *dmas;
	size_t ret;
};

static void run_call(void *arg)
{
	struct call *c = arg;

	switch (c->kind) {
	case C_ALLOC:
		c->v = W.a->alloc(c->pool, c->gfp, &c->dma);
		break;
	case C_ALLOC_BLOCK:
		c->blk = W.a->alloc_block(c->pool, c->gfp);
		break;
	case C_FREE:
		W.a->free(c->pool, c->v, c->dma);
		break;
	case C_FREE_ZERO:
		W.a->free_zero(c->pool, c->v, c->dma);
		break;
	case C_FREE_BLOCK:
		W.a->free_block(c->pool, c->blk);
		break;
	case C_ALLOC_BULK:
		c->ret = W.a->alloc_bulk(c->pool, c->gfp, c->n, c->vs, c->dmas);
		break;
	case C_FREE_BULK:
		W.a->free_bulk(c->pool, c->n, c->vs, c->dmas);
		break;
	case C_QUIESCE:
		W.a->quiesce(c->pool);
		break;
	case C_SHRINK:
		c->ret = W.a->shrink(c->pool);
		break;
	}
}

/*
 * Chunks taken since the last look: in the heap of the context whose call
 * took them (the arena notes it), unless host memory ran out during that
 * call (the context may then have had no heap of its own, and used the
 * shared one).
 */
static void classify_chunks(unsigned long host_before)
{
	const struct dpf_chunk *c;
	size_t i;

	if (dpf_arena_serial() == W.last_serial)
		return;
	for (i = 0; (c = dpf_arena_at(i)); i++)
		if (c->serial > W.last_serial && c->serial < MAX_SERIAL)
			W.chunk_ctx[c->serial] =
				dpf_host_failures() != host_before ?
				CTX_UNKNOWN : 1 + c->ctx;
	W.last_serial = dpf_arena_serial();
}

static void call(int ctx, struct call *c)
{
	unsigned long host = dpf_host_failures();

	dpf_in_ctx(ctx, run_call, c);
	classify_chunks(host);
}

/* Free @v of @s in @ctx: dmapool_free, free_zero or a bulk of one. */
static void call_free(int ctx, struct slot *s, void *v, uint64_t dma,
		      unsigned int path)
{
	struct call c = { .pool = s ? s->h : NULL, .v = v, .dma = dma };

	c.kind = C_FREE;
	if (path == 1 && W.a->free_zero) {
		c.kind = C_FREE_ZERO;
	} else if (path == 2 && W.a->free_bulk) {
		c.kind = C_FREE_BULK;
		c.n = 1;
		c.vs = &c.v;
		c.dmas = &c.dma;
	}
	call(ctx, &c);
}

static void call_free_block(int ctx, struct slot *s, struct dmapool_block b)
{
	struct call c = { .kind = C_FREE_BLOCK, .pool = s ? s->h : NULL,
			  .blk = b };

	call(ctx, &c);
}

/* ---- what may fail, and what must be reported ---- */

/* Live blocks the model has in @c. */
static size_t live_in(const struct dpf_chunk *c)
{
	return live_lower(c->va + c->len) - live_lower(c->va);
}

/* Free blocks in the chunks known to be in @ctx's heap of @s. */
static uint64_t free_in_heap(const struct slot *s, int ctx)
{
	const struct dpf_chunk *c;
	uint64_t n = 0;
	size_t i;

	for (i = 0; (c = dpf_arena_at(i)); i++)
		if (c->owner == s->id && c->serial < MAX_SERIAL &&
		    W.chunk_ctx[c->serial] == 1 + ctx)
			n += s->bpc - live_in(c);
	return n;
}

/*
 * May an allocation of @need blocks from @s in @ctx fail now?  @total: the
 * blocks its chunks held just before (the stats' blocks_total, which
 * check_world holds to chunks times blocks per chunk: counted from the
 * backend here, as the stats' own count of blocks in use scans every
 * block).  Without growing, it fails only when the heap it takes from has
 * too few free blocks: the context's own (whatever other contexts freed
 * to it comes back before it gives up), or the one of a shared pool.
 */
static bool may_fail(const struct slot *s, int ctx, uint64_t need,
		     uint64_t total, dmapool_gfp_t gfp, unsigned long refused)
{
	if (refusals() != refused)
		return true;		/* the backend or the host said no */
	if (!(gfp & DMAPOOL_GFP_NOGROW))
		return false;
	if (!(W.a->caps & DPF_CAP_STATS) || s->holds)
		return true;
	if (s->shared)
		return total - s->live < need;
	return free_in_heap(s, ctx) < need;
}

/*
 * A block fresh from a poisoned pool (not zeroed): the pool checked it
 * without changing it, so its bytes say what the check had to find.
 * Whole-block poison (DMAPOOL_OPT_POISON, or sampled 1 in 1): not poison
 * everywhere is exactly one device-write-after-free naming the block and
 * its first changed byte, poison everywhere none.  Sampled: a change in the
 * head is one report, a change after it one report or none (the block may
 * not have been the sampled one), at the first changed byte.
 */
static void expect_poison(const struct slot *s, const uint8_t *v)
{
	const unsigned int f = s->p.flags;
	bool whole = (f & DMAPOOL_OPT_POISON) ||
		     ((f & DMAPOOL_OPT_POISON_SAMPLED) &&
		      s->p.poison_sample == 1);
	size_t i, head;

	if (!(W.a->caps & DPF_CAP_REPORTS) ||
	    !(whole || (f & DMAPOOL_OPT_POISON_SAMPLED)))
		return;
	i = first_not(v, s->bsize, DMAPOOL_POISON_BYTE);
	head = whole || s->bsize < SAMPLED_HEAD ? s->bsize : SAMPLED_HEAD;
	expect_dev(v, DMAPOOL_R_DEVICE_WRITE_AFTER_FREE, i < head,
		   i < s->bsize, i);
}

/*
 * A live block about to be freed from a pool with redzones: the key bytes
 * are never 0x00 or 0xff (harden.c), so if the device left one of those in
 * the block's redzone the free must report exactly one device-overrun;
 * else it may report one (the device may have changed other bytes).
 */
static void expect_redzone(const struct slot *s, const uint8_t *v)
{
	const uint8_t *rz = v + s->bsize;
	unsigned int i, min = 0;

	if (!s->p.redzone || !(W.a->caps & DPF_CAP_REPORTS))
		return;
	for (i = 0; i < s->p.redzone; i++)
		if (rz[i] == 0x00 || rz[i] == 0xff)
			min = 1;
	expect_dev(v, DMAPOOL_R_DEVICE_OVERRUN, min, 1, SIZE_MAX);
}

/*
 * Right after a free_zero of @v: zeros, where the pool poisons the poison
 * byte instead (all of it, or with sampled poison the head or all), unless
 * its chunk went back to the backend with it.
 */
static void check_zeroed(const struct slot *s, const uint8_t *v)
{
	const unsigned int f = s->p.flags;
	const size_t n = s->bsize;
	size_t h = 0, head = n < SAMPLED_HEAD ? n : SAMPLED_HEAD;

	if (!(W.a->caps & DPF_CAP_REPORTS) || !dpf_arena_find(v))
		return;
	if (f & DMAPOOL_OPT_POISON) {
		dpf_check(first_not(v, n, DMAPOOL_POISON_BYTE) == n,
			  "%s: block %p not poisoned after free_zero", s->name,
			  (const void *)v);
		return;
	}
	if (f & DMAPOOL_OPT_POISON_SAMPLED) {
		h = first_not(v, n, DMAPOOL_POISON_BYTE);
		dpf_check(h == head || h == n,
			  "%s: block %p poisoned for %zu bytes after free_zero",
			  s->name, (const void *)v, h);
	}
	dpf_check(first_not(v + h, n - h, 0) == n - h,
		  "%s: block %p not zero at +%zu after free_zero", s->name,
		  (const void *)v, h + first_not(v + h, n - h, 0));
}

/* ---- alloc ---- */

/* A block @s handed out in @ctx: check it, then the driver owns it. */
static void took(struct slot *s, struct live *l, bool zero, bool by_handle)
{
	const struct dpf_chunk *c = check_new_block(s, l->v, l->dma, zero);

	l->serial = c->serial;
	l->slot = (int)(s - W.s);
	l->len = (uint32_t)s->bsize;
	l->by_handle = by_handle;
	l->tag = ++W.tag;
	memset(l->v, l->tag, l->len);
	live_insert(l);
	dmapool_fuzz_dev_alloced(W.dev, l->v, l->dma, l->len);
	s->live++;
	dpf_log("  alloc %s -> %p dma %#llx%s", s->name, (void *)l->v,
		(unsigned long long)l->dma, by_handle ? " (handle)" : "");
}

static dmapool_gfp_t mode_gfp(uint8_t mode)
{
	return ((mode & 2) ? DMAPOOL_GFP_NOGROW : 0) |
	       ((mode & 1) ? DMAPOOL_GFP_ZERO : 0);
}

static bool do_alloc(struct slot *s, uint8_t mode)
{
	const dmapool_gfp_t gfp = mode_gfp(mode);
	const int ctx = (mode & 0x10) ? 1 : 0;
	bool zero = mode & 1;
	bool by_handle = (mode & 4) && (W.a->caps & DPF_CAP_HANDLES);
	unsigned long refused = refusals();
	struct live l = { 0 };
	uint64_t total = dpf_arena_count(s->id) * s->bpc;
	struct call c = { .pool = s->h, .gfp = gfp };

	if (W.nlive == MAX_LIVE)
		return false;
	c.kind = by_handle ? C_ALLOC_BLOCK : C_ALLOC;
	call(ctx, &c);
	s->heap[ctx] = true;
	if (by_handle) {
		l.blk = c.blk;
		l.v = c.blk.vaddr;
		l.dma = c.blk.dma;
		dpf_check(l.v || (!c.blk.dma && !c.blk.handle),
			  "a failed handle alloc left dma %#llx handle %#llx",
			  (unsigned long long)c.blk.dma,
			  (unsigned long long)c.blk.handle);
	} else {
		l.v = c.v;
		l.dma = c.dma;
	}
	if (l.v && !zero)
		expect_poison(s, l.v);
	settle(&NO_REPORT);
	if (!l.v) {
		dpf_log("  alloc %s -> NULL", s->name);
		dpf_check(may_fail(s, ctx, 1, total, gfp, refused),
			  "alloc from %s in thread %d failed (%llu of %llu blocks in use)",
			  s->name, ctx, (unsigned long long)s->live,
			  (unsigned long long)total);
		return false;
	}
	took(s, &l, zero, by_handle);
	return true;
}

static void op_alloc(struct dpf_in *in)
{
	struct slot *s = live_slot(dpf_u8(in));
	uint8_t mode = dpf_u8(in);

	if (s)
		do_alloc(s, mode);
}

/* All @n blocks in one call, or none. */
static void alloc_bulk(struct slot *s, unsigned int n, uint8_t mode)
{
	static void *vs[MAX_BULK];
	static uint64_t dmas[MAX_BULK];
	const dmapool_gfp_t gfp = mode_gfp(mode);
	const int ctx = (mode & 0x10) ? 1 : 0;
	unsigned long refused = refusals();
	uint64_t total = dpf_arena_count(s->id) * s->bpc;
	struct call c = { .kind = C_ALLOC_BULK, .pool = s->h, .gfp = gfp,
			  .vs = vs, .dmas = dmas };
	unsigned int i;

	if (n > MAX_LIVE - W.nlive)
		n = (unsigned int)(MAX_LIVE - W.nlive);
	c.n = n;
	call(ctx, &c);
	s->heap[ctx] = true;
	dpf_log("  alloc_bulk %s %u -> %zu", s->name, n, c.ret);
	dpf_check(c.ret == n || !c.ret,
		  "alloc_bulk of %u from %s returned %zu", n, s->name, c.ret);
	if (!c.ret) {
		/* Blocks it took and gave back may have been checked. */
		settle(&NO_REPORT);
		dpf_check(!n || may_fail(s, ctx, n, total, gfp, refused),
			  "alloc_bulk of %u from %s in thread %d failed (%llu of %llu blocks in use)",
			  n, s->name, ctx, (unsigned long long)s->live,
			  (unsigned long long)total);
		return;
	}
	for (i = 0; i < n && !(mode & 1); i++)
		expect_poison(s, vs[i]);
	settle(&NO_REPORT);
	for (i = 0; i < n; i++) {
		struct live l = { .v = vs[i], .dma = dmas[i] };

		took(s, &l, mode & 1, false);
	}
}

static void op_alloc_n(struct dpf_in *in)
{
	struct slot *s = live_slot(dpf_u8(in));
	unsigned int n = dpf_u8(in);
	uint8_t mode = dpf_u8(in);

	if (s && (mode & 8) && W.a->alloc_bulk) {
		alloc_bulk(s, n, mode);
		return;
	}
	while (s && n-- && do_alloc(s, mode))
		;
}

/* ---- free ---- */

/* The model lets go of live block @i before freeing it: the free may
 * release its chunk (auto-shrink), which the backend hook checks. */
static struct live let_go(size_t i)
{
	struct live l = W.live[i];

	check_untouched(&l);
	live_remove(i);
	W.s[l.slot].live--;
	return l;
}

static void gone(const struct live *l)
{
	ring_push(l, W.s[l->slot].id);
	dmapool_fuzz_dev_freed(W.dev, l->v);
}

/*
 * mode: 1 by handle when the block has one, else 2 through free_zero;
 * 4 in the second thread.
 */
static void do_free(size_t i, uint8_t mode)
{
	struct live l = let_go(i);
	struct slot *s = &W.s[l.slot];
	const int ctx = (mode & 4) ? 1 : 0;
	const bool by_handle = (mode & 1) && l.by_handle;
	const bool zero = !by_handle && (mode & 2) && W.a->free_zero;

	dpf_log("  free %s %p%s%s", s->name, (void *)l.v,
		by_handle ? " (handle)" : zero ? " (zero)" : "",
		ctx ? " in thread 1" : "");
	expect_redzone(s, l.v);
	if (by_handle)
		call_free_block(ctx, s, l.blk);
	else
		call_free(ctx, s, l.v, l.dma, zero ? 1 : 0);
	settle(&NO_REPORT);
	if (zero)
		check_zeroed(s, l.v);
	gone(&l);
}

static void op_free(struct dpf_in *in)
{
	uint16_t which = dpf_u16(in);
	uint8_t mode = dpf_u8(in);

	if (W.nlive)
		do_free(which % W.nlive, mode);
}

/* Which of @n candidates the next free takes (order bits 0-1). */
static size_t pick_next(size_t n, uint8_t order, uint32_t *x)
{
	switch (order % 4) {
	case 0:
		return 0;
	case 1:
		return n - 1;
	case 2:
		return n / 2;
	default:
		*x = *x * 1103515245u + 12345u;
		return (*x >> 8) % n;
	}
}

/*
 * Up to @n live blocks of one pool (the first pick's) in one
 * dmapool_free_bulk, with (order 0x10) a block freed before among them:
 * that one is reported, the others are freed.
 */
static void free_bulk(unsigned int n, uint8_t order, uint8_t seed,
		      uint32_t *x)
{
	static struct live picked[MAX_BULK];
	static void *vs[MAX_BULK];
	static uint64_t dmas[MAX_BULK];
	static size_t cand[MAX_LIVE];
	const int ctx = (order & 0x20) ? 1 : 0;
	struct call c = { .kind = C_FREE_BULK, .vs = vs, .dmas = dmas };
	struct expect e = NO_REPORT;
	const char *owner = NULL;
	size_t i, m = 0, k = 0, at;
	struct gone *g = NULL;
	struct slot *s;
	int sl;

	sl = W.live[pick_next(W.nlive, order, x)].slot;
	s = &W.s[sl];
	for (i = 0; i < W.nlive; i++)
		if (W.live[i].slot == sl)
			cand[m++] = i;
	/* Pick by position among the pool's blocks, then let them go. */
	while (k < n && m) {
		size_t j = pick_next(m, order, x);

		picked[k++] = W.live[cand[j]];
		memmove(&cand[j], &cand[j + 1], (m - j - 1) * sizeof(cand[0]));
		m--;
	}
	for (i = 0; i < k; i++)
		let_go(live_find(picked[i].v) - W.live);
	if (order & 0x10)
		g = pick_gone(seed, false, false);
	at = g ? seed % (k + 1) : k + 1;
	for (i = 0; i < k; i++) {
		size_t slot = i < at ? i : i + 1;

		vs[slot] = picked[i].v;
		dmas[slot] = picked[i].dma;
		expect_redzone(s, picked[i].v);
	}
	if (g) {
		uint32_t kinds = by_owner(s, g->v, &owner);

		/*
		 * A block of another pool whose chunk went back to the
		 * backend and came to this pool: where this pool's blocks
		 * start there is for its geometry to say, which the model
		 * does not keep.
		 */
		if (kinds == K(DMAPOOL_R_DOUBLE_FREE) && g->id != s->id)
			kinds |= K(DMAPOOL_R_FREE_NOT_BLOCK);
		/* An earlier entry may empty the chunk, and auto-shrink give
		 * it back: then it is outside. */
		if (s->p.flags & DMAPOOL_OPT_AUTO_SHRINK)
			kinds |= K(DMAPOOL_R_FREE_OUTSIDE);
		e = expect_one(kinds, s, g->v);
		e.owner = owner;
		vs[at] = g->v;
		dmas[at] = g->dma;
	}
	c.pool = s->h;
	c.n = (unsigned int)k + (g != NULL);
	dpf_log("  free_bulk %s %u%s%s", s->name, c.n, g ? " (one bad)" : "",
		ctx ? " in thread 1" : "");
	call(ctx, &c);
	settle(&e);
	for (i = 0; i < k; i++)
		gone(&picked[i]);
}

static void op_free_n(struct dpf_in *in)
{
	unsigned int n = dpf_u8(in);
	uint8_t order = dpf_u8(in), seed = dpf_u8(in);
	uint32_t x = seed * 2654435761u + 1;
	uint8_t mode = ((order & 4) ? 1 : 0) | ((order & 0x40) ? 2 : 0) |
		       ((order & 0x20) ? 4 : 0);

	if ((order & 8) && W.a->free_bulk) {
		if (W.nlive)
			free_bulk(n, order, seed, &x);
		return;
	}
	while (n-- && W.nlive)
		do_free(pick_next(W.nlive, order, &x), mode);
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

/*
 * The bytes of the freed block @v of @s as they are, when its chunk is
 * still there (a refused free must not change them; a device may, but not
 * during the call).
 */
static const void *was_at;
static size_t was_len;

static const uint8_t *snapshot(const struct slot *s, const uint8_t *v)
{
	static uint8_t buf[1 << 18];
	const struct dpf_chunk *c = dpf_arena_find(v);

	if (!c || c->owner != s->id || s->bsize > sizeof(buf) ||
	    v + s->bsize > c->va + c->len)
		return NULL;
	memcpy(buf, v, s->bsize);
	was_at = v;
	was_len = s->bsize;
	return buf;
}

/* One call with a NULL pool: one null-pool report, nothing handed out. */
static void null_pool_call(int ctx, unsigned int sel, unsigned int path,
			   const struct live *l)
{
	void *vs[2] = { l ? l->v : NULL, NULL };
	uint64_t dmas[2] = { l ? l->dma : 0, 0 };
	struct call c = { .vs = vs, .dmas = dmas, .n = 2 };

	switch (sel) {
	case 0:
		call_free(ctx, NULL, vs[0], dmas[0], path);
		return;
	case 1:
		c.kind = C_ALLOC;
		call(ctx, &c);
		dpf_check(!c.v, "alloc from a NULL pool returned a block");
		return;
	case 2:
		if (!W.a->alloc_bulk)
			break;
		c.kind = C_ALLOC_BULK;
		call(ctx, &c);
		dpf_check(!c.ret, "alloc_bulk from a NULL pool returned %zu",
			  c.ret);
		return;
	case 3:
		if (!W.a->free_bulk)
			break;
		c.kind = C_FREE_BULK;
		call(ctx, &c);
		return;
	case 4:
		if (!W.a->quiesce)
			break;
		c.kind = C_QUIESCE;
		call(ctx, &c);
		return;
	default:
		if (!W.a->shrink)
			break;
		c.kind = C_SHRINK;
		call(ctx, &c);
		dpf_check(!c.ret, "shrink of a NULL pool released %zu chunks",
			  c.ret);
		return;
	}
	call_free(ctx, NULL, vs[0], dmas[0], 0);
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
	uint64_t mask;
	struct expect e;
	struct slot *s, *o;
	struct live *l;
	struct gone *g;
	const char *owner = NULL;
	struct live *touch = NULL;	/* a live block the call must not
					 * write */
	const uint8_t *was = NULL;	/* a freed one, as it was */
	const int ctx = (a >> 13) & 1;
	const unsigned int path = (a >> 14) & 3;
	uint8_t *v;

	if (!(W.a->caps & DPF_CAP_REPORTS))
		return;
	if (kind >= MIS_H_DOUBLE && !(W.a->caps & DPF_CAP_HANDLES))
		return;
	dpf_log("  misuse %s a %u b %u%s%s", mis_names[kind], a, b,
		path == 1 ? " (free_zero)" : path == 2 ? " (free_bulk)" : "",
		ctx ? " in thread 1" : "");
	switch (kind) {
	case MIS_DOUBLE:
		g = pick_gone(a, false, false);
		if (!g)
			return;
		s = slot_by_id(g->id);
		e = expect_one(by_owner(s, g->v, &owner), s, g->v);
		e.owner = owner;
		was = snapshot(s, g->v);
		call_free(ctx, s, g->v, g->dma, path);
		break;
	case MIS_NOT_BLOCK:
		l = pick_live(a, false);
		if (!l || l->len < 2)
			return;
		s = &W.s[l->slot];
		v = l->v + 1 + b % (l->len - 1);
		e = expect_one(K(DMAPOOL_R_FREE_NOT_BLOCK), s, v);
		touch = l;
		call_free(ctx, s, v, l->dma + (uint64_t)(v - l->v), path);
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
		call_free(ctx, s, v, (uint64_t)(uintptr_t)v, path);
		break;
	case MIS_DMA:
		l = pick_live(a, false);
		if (!l)
			return;
		s = &W.s[l->slot];
		e = expect_one(K(DMAPOOL_R_FREE_DMA_MISMATCH), s, l->v);
		touch = l;
		call_free(ctx, s, l->v, l->dma ^ ((uint64_t)b << 3 | 8), path);
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
		touch = l;
		call_free(ctx, o, l->v, l->dma, path);
		break;
	case MIS_NULL_POOL:
		e = expect_one(K(DMAPOOL_R_NULL_POOL), NULL, NULL);
		e.check_addr = false;
		null_pool_queries();
		l = pick_live(a, false);
		touch = l;
		null_pool_call(ctx, b % 6, path, l);
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
		call_free_block(ctx, s, g->blk);
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
		call_free_block(ctx, s, g->blk);
		break;
	case MIS_H_CORRUPT:
		l = pick_live(a, true);
		if (!l)
			return;
		s = &W.s[l->slot];
		blk = l->blk;
		/*
		 * Bit 0 alone names the same allocation (every handle has it
		 * and the free sets it, dmapool/block.h): flip more than that.
		 */
		mask = b ? (uint64_t)b << (a % 49) : 2;
		blk.handle ^= mask == 1 ? 2 : mask;
		e = expect_one(K(DMAPOOL_R_BAD_HANDLE) |
			       K(DMAPOOL_R_STALE_HANDLE), s, l->v);
		touch = l;
		call_free_block(ctx, s, blk);
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
		touch = l;
		call_free_block(ctx, o, l->blk);
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
		touch = l;
		call_free_block(ctx, s, blk);
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
		touch = l;
		call_free_block(ctx, s, blk);
		break;
	default: /* MIS_H_NULL_POOL */
		e = expect_one(K(DMAPOOL_R_NULL_POOL), NULL, NULL);
		e.check_addr = false;
		if (b & 1) {
			struct call c = { .kind = C_ALLOC_BLOCK };

			call(ctx, &c);
			dpf_check(!c.blk.vaddr && !c.blk.dma && !c.blk.handle,
				  "alloc_block from a NULL pool returned a block");
		} else {
			l = pick_live(a, true);
			if (l)
				blk = l->blk;
			else
				memset(&blk, 0, sizeof(blk));
			touch = l;
			call_free_block(ctx, NULL, blk);
		}
		break;
	}
	settle(&e);
	/* The pool is left unchanged: not a byte written. */
	if (touch)
		check_untouched(touch);
	if (was)
		dpf_check(!memcmp(was, (const uint8_t *)was_at, was_len),
			  "a refused free changed the freed block %p", was_at);
}

/* ------------------------------------------------------------------ */
/* Quiesce, shrink, backend failures.                                  */

/*
 * Quarantine is per heap: a quiesce releases what the caller's heap, the
 * shared one and orphans hold, and other contexts' heaps release theirs at
 * their next free or refill.  So nothing may stay quarantined when no
 * other context has a heap in the pool.
 */
static void op_quiesce(struct dpf_in *in)
{
	uint8_t n = dpf_u8(in);
	struct slot *s = live_slot(n);
	const int ctx = n >> 7;
	struct call c = { .kind = C_QUIESCE };
	struct dmapool_stats st;

	if (!s || !W.a->quiesce)
		return;
	c.pool = s->h;
	call(ctx, &c);
	settle(&NO_REPORT);
	W.a->stats(s->h, &st);
	dpf_check(s->heap[!ctx] || !st.quarantined,
		  "%s: %llu blocks still quarantined after quiesce",
		  s->name, (unsigned long long)st.quarantined);
}

/* Chunks of @s that hold a live block. */
static size_t chunks_with_live(const struct slot *s)
{
	const struct dpf_chunk *c;
	size_t i, n = 0;

	for (i = 0; (c = dpf_arena_at(i)); i++)
		n += c->owner == s->id && live_in(c);
	return n;
}

/*
 * Shrink keeps reserve_chunks empty chunks and gives the others back,
 * those other contexts' heaps hold excepted: exactly so when no other
 * context has a heap and no freed block waits in quarantine.
 */
static void op_shrink(struct dpf_in *in)
{
	uint8_t k = dpf_u8(in);
	struct slot *s = live_slot(k);
	const int ctx = k >> 7;
	struct call c = { .kind = C_SHRINK };
	size_t before, n, with_live;

	/* The backend hook checks that no chunk with a live block goes. */
	if (!s || !W.a->shrink)
		return;
	before = dpf_arena_count(s->id);
	c.pool = s->h;
	call(ctx, &c);
	n = c.ret;
	settle(&NO_REPORT);
	with_live = chunks_with_live(s);
	dpf_check(dpf_arena_count(s->id) == before - n,
		  "%s: shrink says %zu chunks went, the backend got %zu back",
		  s->name, n, before - dpf_arena_count(s->id));
	dpf_check(before - n >= with_live,
		  "%s: shrink left %zu chunks for blocks in %zu", s->name,
		  before - n, with_live);
	dpf_check(!(W.a->caps & DPF_CAP_STATS) || s->holds || s->heap[!ctx] ||
		  before - n - with_live <= s->p.reserve_chunks,
		  "%s: shrink kept %zu empty chunks, the reserve is %zu",
		  s->name, before - n - with_live, s->p.reserve_chunks);
}

/* The second thread exits: its heaps become orphans. */
static void op_thread(void)
{
	size_t i;

	if (!dpf_worker_exit())
		return;
	dpf_log("  thread 1 exited");
	settle(&NO_REPORT);
	for (i = 0; i < MAX_SERIAL; i++)
		if (W.chunk_ctx[i] == 1 + 1)
			W.chunk_ctx[i] = CTX_UNKNOWN;
	for (i = 0; i < MAX_POOLS; i++)
		W.s[i].heap[1] = false;
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
	memset(W.chunk_ctx, CTX_UNSEEN, sizeof(W.chunk_ctx));
	W.last_serial = 0;
	W.ndx = 0;
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
		case OP_FAIL: op_fail(&in); break;
		default: op_thread(); break;
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
