/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/*
 * Shared behavioural cases: one source, run by the Criterion suites in
 * userspace (tests/unit/) and by the test module inside a real kernel
 * (tests/kernel/ktest/).
 *
 * A case is a static function returning true when it passed; on the first
 * failed check it writes what failed into env->msg and returns false (the
 * memory it held is leaked: a failed test does not clean up).  The world
 * running it provides a struct tc_env: the device pools are made on, and
 * an optional hook that applies its pool configuration (userspace runs every
 * suite once per index / option set).  Reports of the pools a case creates
 * land in env->cap; reports without a pool (null-pool, bad-geometry) reach
 * it too while the case runs, through the global report handler.
 *
 * Only what both worlds have is used: memset/memcmp/memcpy, vsnprintf and
 * the dmapool API; big buffers come from tc_zalloc() (calloc or kvzalloc).
 */
#ifndef DMAPOOL_TC_H
#define DMAPOOL_TC_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/stdarg.h>
#include <linux/string.h>
#define TC_PAGE_SIZE		((size_t)PAGE_SIZE)
#define tc_zalloc(n)		kvzalloc((n), GFP_KERNEL)
#define tc_free(p)		kvfree(p)
#define TC_PRINTF(a, b)		__printf(a, b)
#else
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define TC_PAGE_SIZE		((size_t)sysconf(_SC_PAGESIZE))
#define tc_zalloc(n)		calloc(1, (n))
#define tc_free(p)		free(p)
/* userspace has no __printf(): the attribute it stands for */
#define TC_PRINTF(a, b)		__attribute__((format(printf, a, b)))
#endif

#include <dmapool/dmapool.h>

#define TC_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define TC_MAX_REPORTS		16

struct tc_capture {
	unsigned int n;			/* reports seen (may exceed the array) */
	struct dmapool_report r[TC_MAX_REPORTS];
	char name[TC_MAX_REPORTS][32];
	char owner[TC_MAX_REPORTS][32];
};

struct tc_env {
	struct dmapool_dev *dev;
	/* Applies this run's pool configuration (index, flags, redzone). */
	void (*opts)(struct dmapool_opts *o);
	/* A bus address no pool block has: for frees of foreign memory. */
	dmapool_dma_t (*foreign_dma)(const void *vaddr);
	struct tc_capture cap;
	char msg[320];
};

static inline void tc_copy_name(char *d, const char *s)
{
	size_t i;

	for (i = 0; s && s[i] && i < 31; i++)
		d[i] = s[i];
	d[i] = '\0';
}

static inline void tc_capture_fn(const struct dmapool_report *r,
				 void *ctx)
{
	struct tc_capture *cap = ctx;

	if (cap->n < TC_MAX_REPORTS) {
		cap->r[cap->n] = *r;
		/* Names live in pools, which may go away. */
		tc_copy_name(cap->name[cap->n], r->pool_name);
		cap->r[cap->n].pool_name = cap->name[cap->n];
		if (r->owner_name) {
			tc_copy_name(cap->owner[cap->n], r->owner_name);
			cap->r[cap->n].owner_name = cap->owner[cap->n];
		}
	}
	cap->n++;
}

static inline TC_PRINTF(4, 5) void
tc_fail(struct tc_env *e, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(e->msg, sizeof(e->msg), "line %d: (%s) ", line, cond);
	if (n < 0 || (size_t)n >= sizeof(e->msg))
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg + n, sizeof(e->msg) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* On failure: describe it in env->msg and fail the case. */
#define TC_CHECK(e, cond, ...)						\
	do {								\
		if (!(cond)) {						\
			tc_fail((e), __LINE__, #cond, __VA_ARGS__);	\
			return false;					\
		}							\
	} while (0)

/* Start a case: clean capture, global reports captured too. */
static inline void tc_begin(struct tc_env *e)
{
	memset(&e->cap, 0, sizeof(e->cap));
	e->msg[0] = '\0';
	dmapool_set_report_handler(tc_capture_fn, &e->cap);
}

static inline void tc_end(struct tc_env *e)
{
	dmapool_set_report_handler(NULL, NULL);
}

static inline unsigned int tc_count(const struct tc_env *e,
				    enum dmapool_report_kind kind)
{
	unsigned int i, n = 0;

	for (i = 0; i < e->cap.n && i < TC_MAX_REPORTS; i++)
		n += e->cap.r[i].kind == kind;
	return n;
}

/* The last report, or NULL if there is none (or it did not fit). */
static inline struct dmapool_report *tc_last(struct tc_env *e)
{
	if (!e->cap.n || e->cap.n > TC_MAX_REPORTS)
		return NULL;
	return &e->cap.r[e->cap.n - 1];
}

/* This run's options, as a case's pools get them. */
static inline void tc_opts(const struct tc_env *e, struct dmapool_opts *o)
{
	dmapool_opts_init(o);
	if (e->opts)
		e->opts(o);
	o->report = tc_capture_fn;
	o->report_ctx = (void *)&e->cap;
}

static inline struct dmapool *tc_pool(struct tc_env *e, size_t size,
				      size_t align, size_t boundary)
{
	struct dmapool_opts o;

	tc_opts(e, &o);
	return dmapool_create_opts("tc", e->dev, size, align, boundary, &o);
}

/* Deterministic pseudo-random numbers (xorshift64*). */
static inline uint64_t tc_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/*
 * Allocate by handle until @want comes back (after dmapool_quiesce, so a
 * quarantine lets it go; randomized placement may take a while), freeing
 * the other blocks on the way.  For cases about a block freed and reused.
 */
#define TC_REALLOC_MAX	20000

static inline bool tc_realloc_block(struct dmapool *pool, const void *want,
				    struct dmapool_block *got)
{
	struct dmapool_block *b = tc_zalloc(TC_REALLOC_MAX * sizeof(*b));
	size_t n = 0, i;
	bool found = false;

	if (!b)
		return false;
	dmapool_quiesce(pool);
	while (n < TC_REALLOC_MAX) {
		b[n] = dmapool_alloc_block(pool, 0);
		if (!b[n].vaddr)
			break;
		if (b[n].vaddr == want) {
			*got = b[n];
			found = true;
			break;
		}
		n++;
	}
	for (i = 0; i < n; i++)
		dmapool_free_block(pool, b[i]);
	tc_free(b);
	return found;
}

/* Every chunk of a pool, copied out (a case then plays the device). */
struct tc_chunk {
	uint8_t *vaddr;
	dmapool_dma_t dma;
	size_t len;
};

struct tc_walk {
	struct tc_chunk *out;
	size_t max, n;
};

static inline void tc_walk_fn(void *vaddr, dmapool_dma_t dma, size_t len,
			      void *ctx)
{
	struct tc_walk *w = ctx;

	if (w->n < w->max) {
		w->out[w->n].vaddr = vaddr;
		w->out[w->n].dma = dma;
		w->out[w->n].len = len;
	}
	w->n++;
}

/* Number of chunks (may exceed @max; only @max are copied). */
static inline size_t tc_chunks(const struct dmapool *pool,
			       struct tc_chunk *out, size_t max)
{
	struct tc_walk w = { out, max, 0 };

	dmapool_walk_chunks(pool, tc_walk_fn, &w);
	return w.n;
}

/* Index of the chunk holding [v, v + len), or -1. */
static inline long tc_chunk_of(const struct tc_chunk *ch, size_t n,
			       const void *v, size_t len)
{
	const uint8_t *p = v;
	size_t i;

	for (i = 0; i < n; i++)
		if (p >= ch[i].vaddr && p < ch[i].vaddr + ch[i].len)
			return p + len <= ch[i].vaddr + ch[i].len ? (long)i : -1;
	return -1;
}

#endif /* DMAPOOL_TC_H */
