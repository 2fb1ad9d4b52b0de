// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * The workloads' inner loops, one copy per design.
 *
 * Each loop is written once (always inline) and instantiated per design
 * with that design's alloc and free, so every call in a timed loop is a
 * direct call into the allocator, the way a driver calls dma_pool_alloc:
 * no design pays an indirect call the others do not.  The loops hold no
 * clock reads; callers time them (and callgrind counts bench_rounds_*).
 */
#include <sched.h>
#include <stdlib.h>

#include "bench.h"

#define ALWAYS_INLINE	inline __attribute__((always_inline))

typedef bool (*alloc_fn)(void *pool, struct slot *s);
typedef void (*free_fn)(void *pool, struct slot *s);

/* Linux's own functions, called the way a driver calls them. */
static ALWAYS_INLINE bool l612_a(void *p, struct slot *s)
{
	s->vaddr = dma_pool_alloc(p, BL_L612_GFP, &s->dma);
	return s->vaddr;
}

static ALWAYS_INLINE void l612_f(void *p, struct slot *s)
{
	dma_pool_free(p, s->vaddr, s->dma);
}

static ALWAYS_INLINE bool emb_a(void *p, struct slot *s)
{
	s->vaddr = bl_emb_alloc(p, &s->dma);
	return s->vaddr;
}

static ALWAYS_INLINE void emb_f(void *p, struct slot *s)
{
	bl_emb_free(p, s->vaddr, s->dma);
}

static ALWAYS_INLINE bool pl_a(void *p, struct slot *s)
{
	s->vaddr = bl_pl_alloc(p, &s->dma);
	return s->vaddr;
}

static ALWAYS_INLINE void pl_f(void *p, struct slot *s)
{
	bl_pl_free(p, s->vaddr, s->dma);
}

static ALWAYS_INLINE bool xa_a(void *p, struct slot *s)
{
	s->vaddr = bl_xa_alloc(p, &s->dma);
	return s->vaddr;
}

static ALWAYS_INLINE void xa_f(void *p, struct slot *s)
{
	bl_xa_free(p, s->vaddr, s->dma);
}

/*
 * The control's producer/consumer: the ring alone, no pool.  The producer
 * writes a slot as an allocation would, the consumer reads it as a free
 * would: what the handoff itself costs on this machine.
 */
static ALWAYS_INLINE bool nul_a(void *p, struct slot *s)
{
	s->vaddr = s;
	s->dma = (dmapool_dma_t)(uintptr_t)p;
	return true;
}

static ALWAYS_INLINE void nul_f(void *p, struct slot *s)
{
	(void)p;
	__asm__ volatile("" : : "r"(s->vaddr), "r"(s->dma));
}

static ALWAYS_INLINE bool dp_a(void *p, struct slot *s)
{
	s->vaddr = dmapool_alloc(p, 0, &s->dma);
	return s->vaddr;
}

static ALWAYS_INLINE void dp_f(void *p, struct slot *s)
{
	dmapool_free(p, s->vaddr, s->dma);
}

/*
 * A slot has the layout of struct dmapool_block, so the block is stored and
 * passed without extra copies: the way a careful driver would call it.
 */
static ALWAYS_INLINE bool dph_a(void *p, struct slot *s)
{
	struct dmapool_block *b = (struct dmapool_block *)s;

	*b = dmapool_alloc_block(p, 0);
	return b->vaddr;
}

static ALWAYS_INLINE void dph_f(void *p, struct slot *s)
{
	dmapool_free_block(p, *(const struct dmapool_block *)s);
}

static ALWAYS_INLINE int gen_rounds(void *p, struct slot *sl, size_t n,
				    unsigned int rounds, const uint32_t *order,
				    alloc_fn A, free_fn F)
{
	unsigned int r;
	size_t i;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < n; i++)
			if (!A(p, &sl[i]))
				goto fail;
		if (order)
			for (i = 0; i < n; i++)
				F(p, &sl[order[i]]);
		else
			for (i = 0; i < n; i++)
				F(p, &sl[i]);
	}
	return 0;
fail:
	while (i--)
		F(p, &sl[i]);
	return -1;
}

static ALWAYS_INLINE int gen_churn(void *p, struct slot *sl,
				   const uint32_t *idx, size_t ops,
				   unsigned int batch, alloc_fn A, free_fn F)
{
	size_t k;
	unsigned int j;

	for (k = 0; k + batch <= ops; k += batch) {
		for (j = 0; j < batch; j++)
			F(p, &sl[idx[k + j]]);
		for (j = 0; j < batch; j++)
			if (!A(p, &sl[idx[k + j]]))
				return -1;
	}
	return 0;
}

/*
 * Producer/consumer: one thread allocates into a ring, another frees what
 * it finds there, so every free is remote.  Both sides move the ring in
 * batches of PC_BATCH, as a driver rings a doorbell for a batch of
 * submissions and reaps a batch of completions: the producer publishes its
 * index once per batch (and before it waits), and caches the consumer's,
 * read again only when the ring looks full.
 */
#define PC_RING		256
#define PC_BATCH	32

struct pc_ring {
	_Alignas(64) size_t head;	/* written by the producer */
	_Alignas(64) size_t tail;	/* written by the consumer */
	_Alignas(64) int done;		/* the producer stopped */
	_Alignas(64) struct slot s[PC_RING];
};

struct pc_ring *pc_ring_new(void)
{
	struct pc_ring *r = aligned_alloc(64, sizeof(*r));

	if (r)
		pc_ring_reset(r);
	return r;
}

void pc_ring_free(struct pc_ring *r)
{
	free(r);
}

void pc_ring_reset(struct pc_ring *r)
{
	r->head = 0;
	r->tail = 0;
	r->done = 0;
}

/* Waiting for the other side: spin a little, then yield at every look. */
static inline void pc_wait(unsigned int *spins)
{
	if (++*spins >= 128) {
		sched_yield();
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static ALWAYS_INLINE int gen_produce(void *p, struct pc_ring *r,
				     size_t total, alloc_fn A)
{
	size_t k, tail = 0;
	unsigned int spins;
	int ret = 0;

	for (k = 0; k < total; k++) {
		spins = 0;
		while (k - tail >= PC_RING) {
			/* What is written is the consumer's before we wait. */
			__atomic_store_n(&r->head, k, __ATOMIC_RELEASE);
			tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
			if (k - tail >= PC_RING)
				pc_wait(&spins);
		}
		if (!A(p, &r->s[k % PC_RING])) {
			ret = -1;
			break;
		}
		if ((k + 1) % PC_BATCH == 0)
			__atomic_store_n(&r->head, k + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->head, k, __ATOMIC_RELEASE);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return ret;
}

/*
 * The consumer frees in batches of PC_BATCH, as a driver reaps completions
 * (or what is left once the producer stopped): one look at the head and
 * one tail update per batch rather than per block.
 */
static ALWAYS_INLINE int gen_consume(void *p, struct pc_ring *r,
				     size_t total, free_fn F, bool bulk)
{
	size_t k = 0, head;
	unsigned int spins;

	while (k < total) {
		spins = 0;
		for (;;) {
			head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
			if (head - k >= PC_BATCH || head == total)
				break;
			if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
				head = __atomic_load_n(&r->head,
						       __ATOMIC_ACQUIRE);
				break;
			}
			pc_wait(&spins);
		}
		if (head == k)
			return -1;	/* the producer failed */
		if (bulk) {
			/* dmapool only: each reaped batch in one call. */
			while (k < head) {
				void *v[PC_BATCH];
				dmapool_dma_t d[PC_BATCH];
				unsigned int j, n = head - k < PC_BATCH ?
						    (unsigned int)(head - k) :
						    PC_BATCH;

				for (j = 0; j < n; j++, k++) {
					v[j] = r->s[k % PC_RING].vaddr;
					d[j] = r->s[k % PC_RING].dma;
				}
				dmapool_free_bulk(p, n, v, d);
			}
		}
		for (; k < head; k++)
			F(p, &r->s[k % PC_RING]);
		__atomic_store_n(&r->tail, k, __ATOMIC_RELEASE);
	}
	return 0;
}

#define INSTANTIATE(tag)						\
int bench_rounds_##tag(void *p, struct slot *sl, size_t n,		\
		       unsigned int rounds, const uint32_t *order);	\
__attribute__((noinline))						\
int bench_rounds_##tag(void *p, struct slot *sl, size_t n,		\
		       unsigned int rounds, const uint32_t *order)	\
{									\
	return gen_rounds(p, sl, n, rounds, order, tag##_a, tag##_f);	\
}									\
static int churn_##tag(void *p, struct slot *sl, const uint32_t *idx,	\
		       size_t ops, unsigned int batch)			\
{									\
	return gen_churn(p, sl, idx, ops, batch, tag##_a, tag##_f);	\
}									\
static int produce_##tag(void *p, struct pc_ring *r, size_t total)	\
{									\
	return gen_produce(p, r, total, tag##_a);			\
}									\
static int consume_##tag(void *p, struct pc_ring *r, size_t total)	\
{									\
	return gen_consume(p, r, total, tag##_f, false);		\
}

INSTANTIATE(l612)
INSTANTIATE(emb)
INSTANTIATE(pl)
INSTANTIATE(xa)
INSTANTIATE(dp)
INSTANTIATE(dph)
INSTANTIATE(nul)

struct kind_impl {
	int (*rounds)(void *p, struct slot *sl, size_t n, unsigned int rounds,
		      const uint32_t *order);
	int (*churn)(void *p, struct slot *sl, const uint32_t *idx, size_t ops,
		     unsigned int batch);
	int (*produce)(void *p, struct pc_ring *r, size_t total);
	int (*consume)(void *p, struct pc_ring *r, size_t total);
	alloc_fn alloc;
	free_fn free;
};

/* Out-of-line copies for the untimed paths (validation, setup). */
static bool l612_a_ool(void *p, struct slot *s) { return l612_a(p, s); }
static void l612_f_ool(void *p, struct slot *s) { l612_f(p, s); }
static bool emb_a_ool(void *p, struct slot *s) { return emb_a(p, s); }
static void emb_f_ool(void *p, struct slot *s) { emb_f(p, s); }
static bool pl_a_ool(void *p, struct slot *s) { return pl_a(p, s); }
static void pl_f_ool(void *p, struct slot *s) { pl_f(p, s); }
static bool xa_a_ool(void *p, struct slot *s) { return xa_a(p, s); }
static void xa_f_ool(void *p, struct slot *s) { xa_f(p, s); }
static bool dp_a_ool(void *p, struct slot *s) { return dp_a(p, s); }
static void dp_f_ool(void *p, struct slot *s) { dp_f(p, s); }
static bool dph_a_ool(void *p, struct slot *s) { return dph_a(p, s); }
static void dph_f_ool(void *p, struct slot *s) { dph_f(p, s); }
static bool nul_a_ool(void *p, struct slot *s) { return nul_a(p, s); }
static void nul_f_ool(void *p, struct slot *s) { nul_f(p, s); }

static const struct kind_impl impls[K_KINDS] = {
	[K_L612] = { bench_rounds_l612, churn_l612, produce_l612, consume_l612,
		    l612_a_ool, l612_f_ool },
	[K_EMB] = { bench_rounds_emb, churn_emb, produce_emb, consume_emb,
		    emb_a_ool, emb_f_ool },
	[K_PL] = { bench_rounds_pl, churn_pl, produce_pl, consume_pl,
		    pl_a_ool, pl_f_ool },
	[K_XA] = { bench_rounds_xa, churn_xa, produce_xa, consume_xa,
		    xa_a_ool, xa_f_ool },
	[K_DP] = { bench_rounds_dp, churn_dp, produce_dp, consume_dp,
		    dp_a_ool, dp_f_ool },
	[K_DPH] = { bench_rounds_dph, churn_dph, produce_dph, consume_dph,
		    dph_a_ool, dph_f_ool },
	/* The threads workload's control: only its producer/consumer. */
	[K_CTRL] = { bench_rounds_nul, churn_nul, produce_nul, consume_nul,
		     nul_a_ool, nul_f_ool },
};

int wl_rounds(struct spool *sp, struct slot *sl, size_t n, unsigned int rounds,
	      const uint32_t *order)
{
	return impls[sp->s->kind].rounds(sp->p, sl, n, rounds, order);
}

int wl_churn(struct spool *sp, struct slot *sl, const uint32_t *idx,
	     size_t ops, unsigned int batch)
{
	return impls[sp->s->kind].churn(sp->p, sl, idx, ops, batch);
}

/*
 * Bulk: noinline and collected like bench_rounds_*; a failed batch leaves
 * nothing taken (the call's contract), so only earlier batches are freed.
 */
int bench_rounds_bulk(void *p, void **v, dmapool_dma_t *d, size_t n,
		      unsigned int rounds, unsigned int batch);
__attribute__((noinline))
int bench_rounds_bulk(void *p, void **v, dmapool_dma_t *d, size_t n,
		      unsigned int rounds, unsigned int batch)
{
	unsigned int r, k;
	size_t i;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < n; i += k) {
			k = n - i < batch ? (unsigned int)(n - i) : batch;
			if (dmapool_alloc_bulk(p, 0, k, v + i, d + i) != k)
				goto fail;
		}
		for (i = 0; i < n; i += k) {
			k = n - i < batch ? (unsigned int)(n - i) : batch;
			dmapool_free_bulk(p, k, v + i, d + i);
		}
	}
	return 0;
fail:
	if (i)
		dmapool_free_bulk(p, (unsigned int)i, v, d);
	return -1;
}

int wl_rounds_bulk(struct spool *sp, void **v, dmapool_dma_t *d, size_t n,
		   unsigned int rounds, unsigned int batch)
{
	if (sp->s->kind != K_DP)
		return -1;
	return bench_rounds_bulk(sp->p, v, d, n, rounds, batch);
}

/*
 * The control: a dependent chain of multiply-xorshift steps per "pair",
 * in registers only, so threads share nothing but the CPUs.  Eight steps
 * take about as long as a fast alloc+free pair.
 */
uint64_t wl_compute(size_t n, unsigned int rounds)
{
	uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
	size_t i, total = n * rounds;
	unsigned int k;

	for (i = 0; i < total; i++)
		for (k = 0; k < 8; k++) {
			x ^= x >> 29;
			x *= 0xbf58476d1ce4e5b9ull;
		}
	return x;
}

int wl_produce(struct spool *sp, struct pc_ring *r, size_t total)
{
	return impls[sp->s->kind].produce(sp->p, r, total);
}

int wl_consume(struct spool *sp, struct pc_ring *r, size_t total)
{
	return impls[sp->s->kind].consume(sp->p, r, total);
}

int wl_consume_bulk(struct spool *sp, struct pc_ring *r, size_t total)
{
	if (sp->s->kind != K_DP)
		return -1;
	return gen_consume(sp->p, r, total, dp_f, true);
}

bool wl_alloc_one(struct spool *sp, struct slot *s)
{
	return impls[sp->s->kind].alloc(sp->p, s);
}

void wl_free_one(struct spool *sp, struct slot *s)
{
	impls[sp->s->kind].free(sp->p, s);
}

/* ---- validation ---------------------------------------------------------- */

struct vchunks {
	size_t n, cap;
	struct { uintptr_t v; dmapool_dma_t d; size_t len; } *c;
};

static void vcollect(void *vaddr, dmapool_dma_t dma, size_t len, void *ctx)
{
	struct vchunks *vc = ctx;

	if (vc->n == vc->cap) {
		size_t cap = vc->cap ? vc->cap * 2 : 64;
		void *c = realloc(vc->c, cap * sizeof(*vc->c));

		if (!c)
			return;
		vc->c = c;
		vc->cap = cap;
	}
	vc->c[vc->n].v = (uintptr_t)vaddr;
	vc->c[vc->n].d = dma;
	vc->c[vc->n].len = len;
	vc->n++;
}

static int by_start(const void *a, const void *b)
{
	/* Chunk records start with their vaddr. */
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static int by_vaddr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct slot *)a)->vaddr;
	uintptr_t y = (uintptr_t)((const struct slot *)b)->vaddr;

	return x < y ? -1 : x > y;
}

/* The chunk holding @v (chunks sorted by start), or -1. */
static long find_chunk(const struct vchunks *vc, uintptr_t v)
{
	size_t lo = 0, hi = vc->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v < vc->c[mid].v)
			hi = mid;
		else if (v >= vc->c[mid].v + vc->c[mid].len)
			lo = mid + 1;
		else
			return (long)mid;
	}
	return -1;
}

const char *wl_validate(struct spool *sp, const struct shape *sh,
			struct slot *sl, size_t n)
{
	const struct bl_ops *ops = subject_ops(sp->s->kind);
	size_t align = sh->align ? sh->align : 1, i, got = 0;
	const char *why = NULL;
	struct vchunks vc = { 0, 0, NULL };
	struct slot *sorted;

	for (got = 0; got < n; got++)
		if (!wl_alloc_one(sp, &sl[got])) {
			why = "allocation failed";
			goto out;
		}
	ops->walk(sp->p, vcollect, &vc);
	qsort(vc.c, vc.n, sizeof(*vc.c), by_start);
	for (i = 0; i < n && !why; i++) {
		uintptr_t v = (uintptr_t)sl[i].vaddr;
		long c = find_chunk(&vc, v);
		size_t off;

		if (c < 0) {
			why = "a block lies in no chunk of the pool";
			break;
		}
		off = v - vc.c[c].v;
		if (off + sh->size > vc.c[c].len)
			why = "a block runs past the end of its chunk";
		else if (sl[i].dma != vc.c[c].d + off)
			why = "a block's dma does not match its vaddr";
		else if (v % align || sl[i].dma % align)
			why = "a block is not aligned";
		else if (sh->boundary &&
			 (sl[i].dma / sh->boundary !=
			  (sl[i].dma + sh->size - 1) / sh->boundary))
			why = "a block crosses the boundary";
	}
	sorted = malloc(n * sizeof(*sorted));
	if (!why && sorted) {
		for (i = 0; i < n; i++)
			sorted[i] = sl[i];
		qsort(sorted, n, sizeof(*sorted), by_vaddr);
		for (i = 1; i < n && !why; i++)
			if ((uintptr_t)sorted[i - 1].vaddr + sh->size >
			    (uintptr_t)sorted[i].vaddr)
				why = "two blocks overlap";
	}
	free(sorted);
out:
	while (got--)
		wl_free_one(sp, &sl[got]);
	free(vc.c);
	return why;
}
